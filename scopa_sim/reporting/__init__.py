"""Self-contained HTML pages: Jinja2 templates (autoescaped) with inline SVG charts.

A page states its question, its method, its charts and tables (95 % confidence intervals), the
data it used and, when given, the commands that reproduce it; its footer says which scopa-sim
(version, git commit) built it and, per run behind it, the seed, the size and the versions its
manifest recorded, so a reader can tell what to rerun. Nothing is fetched from a network: styles
and charts are inline, so a page opens from disk in any browser. The same inputs and the same
commit give byte-identical pages.
"""

from __future__ import annotations

import functools
import io
import json
import math
import platform
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from markupsafe import Markup

from scopa_sim.stats import Estimate

# Deterministic SVG: fixed ids, no creation date, text kept as text.
matplotlib.rcParams.update({"svg.hashsalt": "scopa-sim", "svg.fonttype": "none"})

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("scopa_sim.reporting", "templates"),
    autoescape=jinja2.select_autoescape(("html", "j2")),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass(frozen=True)
class Link:
    """A table cell that links to another file of the report, by a relative address."""

    text: str
    href: str

    def __str__(self) -> str:
        return self.text


_ENV.tests["link"] = lambda value: isinstance(value, Link)


@dataclass(frozen=True)
class Table:
    caption: str
    columns: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Figure:
    caption: str
    svg: Markup


@dataclass(frozen=True)
class Section:
    heading: str
    text: str = ""
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


@dataclass(frozen=True)
class Finding:
    """One number a page claims, for ``reports/NAME.json``: a stable dotted name (such as
    ``ace.captured.points``), the estimate with its interval, and its unit."""

    name: str
    estimate: Estimate
    unit: str

    def to_json(self) -> dict:
        """Plain JSON numbers: floats (null when not finite, as JSON has no NaN) and an int n."""
        e = self.estimate
        return {
            "name": self.name,
            "estimate": _number(e.value),
            "ci_low": _number(e.low),
            "ci_high": _number(e.high),
            "n": None if e.n is None else int(e.n),
            "unit": self.unit,
        }


def _number(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Page:
    slug: str  # file name without .html
    title: str
    question: str
    method: str
    finding: str  # one sentence with a figure and its CI, for the index
    sections: list[Section]
    # One row per run behind the page (Run.provenance in analyses: run, variant, players, mode,
    # deals, games, seed, and the manifest's versions, schema_version, data_version, pack_stream).
    # The data table shows the rows without the version keys, the footer shows those. A run the
    # page played itself says "in_process": True (compare's arms need not: see run_json).
    data: list[dict]
    reproduce: str = ""  # commands that rebuild the page from nothing, shown as code
    findings: list[Finding] = field(default_factory=list)  # its numbers, for NAME.json
    # Files the page links to, written beside it: {path relative to the page: HTML text}
    # (e.g. the replay pages of a tournament's largest swings).
    attachments: dict[str, str] = field(default_factory=dict)


def svg(fig) -> Markup:
    """A matplotlib figure as inline SVG markup (the figure is closed)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    start, end = text.find("<metadata>"), text.find("</metadata>")
    if start >= 0 and end > start:  # drop the RDF block: nothing a page needs, only noise
        text = text[:start] + text[end + len("</metadata>") :]
    return Markup(text)


def ci(estimate: Estimate, digits: int = 3) -> str:
    """``value [low, high]`` for a table cell."""
    f = f"{{:.{digits}f}}"
    return f"{f.format(estimate.value)} [{f.format(estimate.low)}, {f.format(estimate.high)}]"


# Provenance: who built a page, from which runs ---------------------------------------------------

#: Keys of a ``Page.data`` row that the footer shows and the data table does not.
FOOTER_KEYS = ("versions", "schema_version", "data_version", "pack_stream", "in_process")
#: The keys a run's entry in ``NAME.json`` always has (None where a page does not know).
RUN_KEYS = (
    "name", "variant", "players", "mode", "seed", "deals", "games", "versions",
    "schema_version", "data_version", "pack_stream", "in_process",
)  # fmt: skip
#: What a row may call its run, in order of preference (compare's arms, tournaments, runs).
_NAME_KEYS = ("run", "name", "arm", "tournament")
#: The libraries a manifest records (runner), in the order a footer names them.
LIBRARIES = ("scopa_sim", "numpy", "polars", "python")
_COUNT = re.compile(r"^\d{1,3}(?:,\d{3})*$|^\d+$")


def process_versions() -> dict[str, str]:
    """The versions a run's manifest records (as scopa_sim.runner does), of this process."""
    import numpy as np
    import polars as pl

    import scopa_sim

    return {
        "scopa_sim": scopa_sim.__version__,
        "numpy": np.__version__,
        "polars": pl.__version__,
        "python": platform.python_version(),
    }


@dataclass(frozen=True)
class Build:
    """The scopa-sim that builds a page: its version, its git commit (short hash, or "unknown"
    outside a git checkout), whether the package's files differ from that commit, and the
    versions of the process."""

    version: str
    commit: str
    dirty: bool
    versions: dict[str, str]

    @property
    def commit_text(self) -> str:
        return self.commit + (" + uncommitted changes" if self.dirty else "")

    def to_json(self) -> dict:
        return {"commit": self.commit, "dirty": self.dirty, **self.versions}


#: The files of a checkout whose changes make a page's build "+ uncommitted changes".
PACKAGE_PATHS = ("scopa_sim", "analyses", "pyproject.toml")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20, check=True
    )
    return done.stdout.strip()


def git_commit(root: Path) -> tuple[str, bool]:
    """The short commit of the checkout whose top folder is ``root``, and whether its package
    code (:data:`PACKAGE_PATHS`, untracked files included) differs from it;
    ("unknown", False) when ``root`` is not the top of a git checkout or git cannot tell. Never
    raises: a page must build from an installed copy too."""
    try:
        if Path(_git(root, "rev-parse", "--show-toplevel")).resolve() != root.resolve():
            return "unknown", False  # e.g. installed inside another repository's tree
        commit = _git(root, "rev-parse", "--short=10", "HEAD")
        changes = _git(root, "status", "--porcelain", "--", *PACKAGE_PATHS)
    except (OSError, subprocess.SubprocessError, ValueError):
        return "unknown", False
    return commit or "unknown", bool(changes) and bool(commit)


@functools.cache
def build_info() -> Build:
    """The :class:`Build` of this process, read once (so a process's pages agree)."""
    import scopa_sim

    commit, dirty = git_commit(Path(scopa_sim.__file__).resolve().parent.parent)
    return Build(scopa_sim.__version__, commit, dirty, process_versions())


def _count(value) -> int | None:
    """A number of deals or games from a row: an int, or text such as "18,278"."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _COUNT.match(value.strip()):
        return int(value.strip().replace(",", ""))
    return None


def run_json(row: dict) -> dict:
    """A ``Page.data`` row as a run of ``NAME.json``: every key of :data:`RUN_KEYS` (None where
    the row does not say), players as a list, deals and games as numbers; the row's other keys
    under ``details``. A run played while building the page (a row with ``in_process`` true, or
    an arm of ``scopa_sim.compare``, which always plays in-process) gets this process's versions
    and formats; any other row without recorded versions says so (versions ``{}``)."""
    name_key = next((k for k in _NAME_KEYS if row.get(k) is not None), None)
    name = "" if name_key is None else str(row[name_key])
    players = row.get("players")
    if isinstance(players, str):
        players = [p for p in players.split(",") if p]
    in_process = bool(row.get("in_process")) or ("arm" in row and "versions" not in row)
    entry = {
        "name": name,
        "variant": row.get("variant"),
        "players": list(players) if players is not None else None,
        "mode": row.get("mode"),
        "seed": row.get("seed"),
        "deals": _count(row.get("deals")),
        "games": _count(row.get("games")),
        "versions": dict(row.get("versions") or {}),
        "schema_version": row.get("schema_version"),
        "data_version": row.get("data_version"),
        "pack_stream": row.get("pack_stream"),
        "in_process": in_process,
    }
    if in_process:
        from scopa_sim import seeding, storage

        entry["versions"] = build_info().versions
        entry["schema_version"] = storage.SCHEMA_VERSION
        entry["data_version"] = storage.DATA_VERSION
        entry["pack_stream"] = seeding.PACK_STREAM_VERSION
    details = {k: v for k, v in row.items() if k not in RUN_KEYS and k != name_key}
    if details:
        entry["details"] = details
    return entry


_FORMAT_KEYS = (
    ("schema version", "schema_version"),
    ("data version", "data_version"),
    ("pack stream", "pack_stream"),
)


def _names(names: list[str], most: int = 3) -> str:
    """A few runs by name; many as their number (the table lists them)."""
    return ", ".join(names) if len(names) <= most else f"{len(names)} runs"


@dataclass(frozen=True)
class Footer:
    """What the footer of a page says: the build, the data formats, and per run its seed, size
    and the versions it was made with; ``differs`` names what this process has otherwise."""

    build: Build
    runs: list[dict]  # run_json entries
    formats: list[str]  # the distinct recorded formats, "schema version 2, data version 2, ..."
    differs: list[str]  # "numpy 2.4.7 here, 2.4.6 in a, b"
    unrecorded: list[str]  # runs whose versions nobody recorded
    unformatted: list[str]  # runs whose formats nobody recorded

    @staticmethod
    def format(run: dict) -> str:
        if all(run[k] is None for _, k in _FORMAT_KEYS):
            return "not recorded"
        return ", ".join(
            f"{label} {run[k] if run[k] is not None else 'not recorded'}"
            for label, k in _FORMAT_KEYS
        )

    @property
    def formats_text(self) -> str:
        if not self.formats:
            return "Data format: not recorded."
        if len(self.formats) > 1:
            return "Data formats differ between the runs: see the column format."
        missing = f" (not recorded for {_names(self.unformatted)})" if self.unformatted else ""
        return f"Data format: {self.formats[0]}{missing}."

    @property
    def unrecorded_text(self) -> str:
        if not self.unrecorded:
            return ""
        return f"No versions were recorded for {_names(self.unrecorded)}."

    def size(self, run: dict) -> str:
        parts = [f"{run['deals']:,} deals" if run["deals"] is not None else ""]
        if run["games"] is not None:
            parts.append(f"{run['games']:,} games")
        return " in ".join(p for p in parts if p) or "—"

    def made_with(self, run: dict) -> str:
        versions = run["versions"]
        if not versions:
            return "not recorded"
        text = ", ".join(
            f"{'scopa-sim' if k == 'scopa_sim' else k} {versions[k]}"
            for k in LIBRARIES
            if k in versions
        )
        return ("played while building this page: " if run["in_process"] else "") + text


def footer(page: Page) -> Footer:
    """The footer of ``page``, from its data rows and :func:`build_info`."""
    build = build_info()
    runs = [run_json(row) for row in page.data]
    formats = [f for f in dict.fromkeys(Footer.format(r) for r in runs) if f != "not recorded"]
    differs = []
    for library in LIBRARIES:
        here = build.versions.get(library)
        other: dict[str, list[str]] = {}
        for run in runs:
            recorded = run["versions"].get(library)
            if recorded is not None and recorded != here:
                other.setdefault(recorded, []).append(run["name"])
        if other:
            where = "; ".join(f"{v} in {_names(names)}" for v, names in other.items())
            name = "scopa-sim" if library == "scopa_sim" else library
            differs.append(f"{name} {here} here, {where}")
    unrecorded = [run["name"] for run in runs if not run["versions"]]
    unformatted = [run["name"] for run in runs if Footer.format(run) == "not recorded"]
    return Footer(build, runs, formats, differs, unrecorded, unformatted)


def data_table(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The data table of a page: the rows' keys but the footer's, in first-seen order; numbers of
    deals and games with thousands separators, lists joined by commas, "—" for a missing key."""
    columns = list(dict.fromkeys(k for row in rows for k in row if k not in FOOTER_KEYS))

    def cell(key: str, value) -> str:
        if value is None:
            return "—"
        if isinstance(value, int) and not isinstance(value, bool) and key in ("deals", "games"):
            return f"{value:,}"
        if isinstance(value, (list, tuple)):
            return ",".join(str(v) for v in value)
        return str(value)

    return columns, [[cell(k, row.get(k)) for k in columns] for row in rows]


def findings_table(page: Page) -> list[list[str]]:
    """Rows of a page's findings table: name, estimate with its 95 % interval, n, unit, and the
    smallest effect its data could detect (:func:`scopa_sim.stats.detectable_effect_approx`:
    a difference from the estimate that a two-sided test at the 5 % level finds with 80 % power;
    "exact" where the interval has no width)."""
    from scopa_sim.stats import detectable_effect_approx as detectable_effect

    rows = []
    for f in page.findings:
        e = f.estimate
        finite = all(math.isfinite(v) for v in (e.value, e.low, e.high))
        if not finite:
            shown, detect = "—", "—"
        else:
            shown = ci(e, 4)
            detect = "exact" if e.high == e.low else f"{detectable_effect(e):.3g}"
        rows.append([f.name, shown, f"{e.n:,}", f.unit, detect])
    return rows


def render_page(page: Page) -> str:
    columns, rows = data_table(page.data)
    return _ENV.get_template("page.html.j2").render(
        page=page, footer=footer(page), data_columns=columns, data_rows=rows,
        findings_rows=findings_table(page),
    )  # fmt: skip


def render_index(pages: list[Page], title: str = "scopa-sim reports") -> str:
    return _ENV.get_template("index.html.j2").render(pages=pages, title=title, build=build_info())


def page_json(page: Page) -> dict:
    """The machine-readable twin of a page: its findings, the runs behind them (:func:`run_json`)
    and the build that made it."""
    return {
        "page": page.slug,
        "findings": [f.to_json() for f in page.findings],
        "runs": [run_json(row) for row in page.data],
        "build": build_info().to_json(),
    }


_OPTIONAL_NUMBER = (int, float, type(None))
_OPTIONAL_INT = (int, type(None))
_FORMAT = (int, str, type(None))  # a version number; "1 / 2" when a page's runs disagree
#: The shape of ``NAME.json``, JSON-schema-like: each key and the types its value may have; a
#: list holds objects of the shape given; ``details`` (a run's other data-table columns) is free.
PAGE_JSON_SHAPE: dict = {
    "page": str,
    "findings": [
        {
            "name": str,
            "estimate": _OPTIONAL_NUMBER,
            "ci_low": _OPTIONAL_NUMBER,
            "ci_high": _OPTIONAL_NUMBER,
            "n": _OPTIONAL_INT,
            "unit": str,
        }
    ],
    "runs": [
        {
            "name": str,
            "variant": (str, type(None)),
            "players": (list, type(None)),
            "mode": (str, type(None)),
            "seed": (int, str, type(None)),
            "deals": _OPTIONAL_INT,
            "games": _OPTIONAL_INT,
            "versions": dict,
            "schema_version": _FORMAT,
            "data_version": _FORMAT,
            "pack_stream": _FORMAT,
            "in_process": bool,
            "details?": dict,  # optional key
        }
    ],
    "build": {
        "commit": str,
        "dirty": bool,
        "scopa_sim": str,
        "numpy": str,
        "polars": str,
        "python": str,
    },
}


def json_problems(value, shape=PAGE_JSON_SHAPE, where: str = "$") -> list[str]:
    """How ``value`` (a parsed ``NAME.json``) departs from ``shape``: missing or unknown keys,
    wrong types, repeated finding names; [] when it conforms."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: an object expected, got {type(value).__name__}"]
        keys = {k.rstrip("?"): k.endswith("?") for k in shape}
        problems = [
            f"{where}.{k}: missing" for k, opt in keys.items() if not opt and k not in value
        ]
        problems += [f"{where}.{k}: unexpected key" for k in value if k not in keys]
        for key, sub in shape.items():
            if key.rstrip("?") in value:
                name = key.rstrip("?")
                problems += json_problems(value[name], sub, f"{where}.{name}")
        if where == "$" and isinstance(value.get("findings"), list):
            names = [f.get("name") for f in value["findings"] if isinstance(f, dict)]
            problems += [f"$.findings: name {n!r} repeated" for n in sorted(
                {n for n in names if names.count(n) > 1}, key=str)]  # fmt: skip
        return problems
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: a list expected, got {type(value).__name__}"]
        return [
            p
            for k, item in enumerate(value)
            for p in json_problems(item, shape[0], f"{where}[{k}]")
        ]
    types = shape if isinstance(shape, tuple) else (shape,)
    if isinstance(value, bool) and bool not in types:  # a bool is an int to Python, not to JSON
        return [f"{where}: {value!r} is not {'/'.join(t.__name__ for t in types)}"]
    if not isinstance(value, types):
        return [f"{where}: {value!r} is not {'/'.join(t.__name__ for t in types)}"]
    return []


def write_page(page: Page, out: Path) -> list[Path]:
    """Write ``out/SLUG.html`` and ``out/SLUG.json``; returns both paths. A JSON twin that would
    not have the documented shape (:data:`PAGE_JSON_SHAPE`) is refused before anything is
    written."""
    document = json.loads(json.dumps(page_json(page), default=str, allow_nan=False))
    problems = json_problems(document)
    if problems:
        raise ValueError(f"{page.slug}.json would be malformed: {'; '.join(problems[:5])}")
    for name in page.attachments:
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise ValueError(f"{page.slug}: attachment {name!r} must be a path below the page's")
    out.mkdir(parents=True, exist_ok=True)
    html, data = out / f"{page.slug}.html", out / f"{page.slug}.json"
    html.write_text(render_page(page), encoding="utf-8")
    data.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    attached = []
    for name, text in page.attachments.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        attached.append(path)
    return [html, data, *attached]


def write_site(pages: list[Page], out: Path) -> list[Path]:
    """Write every page (HTML and JSON) and the index into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in pages:
        written += write_page(page, out)
    index = out / "index.html"
    index.write_text(render_index(pages), encoding="utf-8")
    return [index, *written]


_ENV.globals["build_info"] = build_info  # for templates rendered without a Page (tournaments)


def render_template(name: str, **context) -> str:
    """Render one of the package's templates (e.g. ``tournament.html.j2``) with ``context``."""
    return _ENV.get_template(name).render(**context)


# Replays: one deal (or a few) as a page that steps through every play ----------------------------

#: Suit colours of the cards drawn in replays, per pack: Italian coins, cups, swords, clubs;
#: French hearts, diamonds, spades, clubs.
_SUIT_COLOURS = {
    "italian-40": ("#a87400", "#c0392b", "#1f5fa8", "#2e7d32"),
    "french-52": ("#c0392b", "#d35400", "#1d232a", "#2e6b3a"),
}


_RANK_NAMES = {
    "italian-40": {1: "ace", 8: "fante (8)", 9: "cavallo (9)", 10: "re (10)"},
    "french-52": {1: "ace", 11: "jack (11)", 12: "queen (12)", 13: "king (13)"},
}


def _replay_card(pack, card: int, *, chosen: bool = False) -> dict:
    rank = pack.rank(card)
    rank_name = _RANK_NAMES.get(pack.name, {}).get(rank, str(rank))
    return {
        "code": pack.code(card),
        "suit": pack.suit(card),
        "title": f"{rank_name} of {pack.suit_names[pack.suit(card)]} (card {card})",
        "chosen": chosen,
    }


def _explain_row(player, rules, state: dict, play: int, seat: int, legal) -> list[float] | None:
    """``player.explain`` of one decision point (the optional protocol of scopa_sim.testing),
    or None when the player has none (or needs random numbers the record does not key)."""
    if not callable(getattr(player, "explain", None)) or not legal:
        return None
    import dataclasses

    import numpy as np

    from scopa_sim.cards import mask_of
    from scopa_sim.players import LegalActions, Observation

    groups = np.cumsum([k == 0 or legal[k][0] != legal[k - 1][0] for k in range(len(legal))]) - 1
    obs = Observation(
        variant=rules,
        hand=np.array([mask_of(state["hands"][seat])], np.uint64),
        table=np.array([mask_of(state["table"])], np.uint64),
        captured=np.array([[mask_of(c) for c in state["captured"]]], np.uint64),
        played=np.array([mask_of(state["played"])], np.uint64),
        scores=np.array([state["scores"]], np.int16),
        seat=seat,
        side=np.array([state["seat_sides"][seat]], np.int8),
        dealer_side=np.array([state["seat_sides"][-1]], np.int8),
        play=play,
        scope=np.array([state["scope"]], np.int16),
        last_capturer=np.array([-1 if state["last"] is None else state["last"]], np.int8),
    )
    if getattr(player, "sees_hidden_cards", False):  # an upper bound: it is shown everything
        obs = dataclasses.replace(
            obs,
            hidden_hands=np.array([[mask_of(h) for h in state["hands"]]], np.uint64),
            hidden_pack=np.array([state["pack"]], np.int8),
        )
    actions = LegalActions(
        card=np.array([[c for c, _ in legal]], np.int8),
        capture=np.array([[mask_of(t) for _, t in legal]], np.uint64),
        group=groups[None, :].astype(np.int8),
        count=np.array([len(legal)], np.int64),
        n_cards=np.array([int(groups[-1]) + 1], np.int64),
    )
    from scopa_sim.seeding import DecisionRandom
    from scopa_sim.testing import explain_values

    key = state["decision_key"]
    rng = None if key is None else DecisionRandom(np.array([key], np.uint64), play)
    values = explain_values(player, obs, actions, rng)
    if values is None:
        return None
    values = np.asarray(values, dtype=np.float64)
    return [float(v) for v in values.reshape(1, -1)[0, : len(legal)]]


def replay_deal(record, number: int = 1) -> dict:
    """One deal of ``scopa-sim replay`` (an ``api.DealRecord``) as the data of the replay page:
    the state before every play (table, every hand, cards still to deal, captured cards and
    scope per side), the play, and the legal alternatives offered with the player's evaluation
    of each when it has an ``explain`` method; then the end of the deal and the points."""
    from scopa_sim.engine import reference

    rules = record.variant
    pack, n, sides = rules.pack, rules.n_players, rules.n_sides
    seat_sides = list(record.seat_sides) or [rules.side_of_seat(s) for s in range(n)]
    players = list(getattr(record, "players", ()) or ())
    names = [p.name for p in players] if players else []

    def cards(ids, chosen=()) -> list[dict]:
        return [_replay_card(pack, c, chosen=c in chosen) for c in sorted(ids)]

    suits = ", ".join(
        f"{code} {name}" for code, name in zip(pack.suit_codes, pack.suit_names, strict=True)
    )
    deal = {
        "number": number,
        "variant": rules.describe(),
        "pack": pack.name,
        "legend": f"{pack.name}: rank ({' '.join(pack.rank_codes[1:])}) then suit ({suits})",
        "n_players": n,
        "dealer": n - 1,
        "seat_sides": seat_sides,
        "players": names,
        "throw_in": record.throw_in,
        "table": cards(record.pack[: rules.table_cards]),
        "opening": record.opening,
        "stopped_by": record.stopped_by,
        "plays": [],
        "total_plays": rules.plays,
    }
    if record.throw_in:
        return deal
    recorded_legal = list(getattr(record, "legal", ()) or ())
    scores = list(getattr(record, "scores", ()) or ()) or [0] * sides
    table = set(record.pack[: rules.table_cards])
    captured: list[set[int]] = [set() for _ in range(sides)]
    scope = [0] * sides
    if record.opening:  # escoba: the opening table went to the dealer's side
        captured[seat_sides[n - 1]] |= table
        scope[seat_sides[n - 1]] += record.opening
        table = set()
    hands: list[set[int]] = [set() for _ in range(n)]
    played: set[int] = set()
    position, play = rules.table_cards, 0
    last_capturer = seat_sides[n - 1] if record.opening else None
    for hand_number, size in enumerate(rules.hands, 1):
        if play >= len(record.moves):
            break
        for seat in range(n):
            hands[seat] = set(record.pack[position : position + size])
            position += size
        for _ in range(size * n):
            if play >= len(record.moves):
                break
            move = record.moves[play]
            seat, side = move.seat, seat_sides[move.seat]
            if play < len(recorded_legal):
                legal = [(int(c), tuple(t)) for c, t in recorded_legal[play]]
            else:  # a record without the engine's legal actions: the rules give the same ones
                legal = [
                    (c, tuple(sorted(t)))
                    for c, t in reference.legal_actions(rules, hands[seat], table)
                ]
            state = {
                "hands": hands, "table": table, "captured": captured, "played": played,
                "scores": scores, "seat_sides": seat_sides, "scope": scope,
                "last": last_capturer, "pack": record.pack,
                "decision_key": getattr(record, "decision_key", None),
            }  # fmt: skip
            player = players[side] if side < len(players) else None
            values = _explain_row(player, rules, state, play, seat, legal) if player else None
            chosen = (move.card, tuple(move.captured))
            alternatives = [
                {
                    "card": _replay_card(pack, c),
                    "taken": cards(t),
                    "chosen": (c, tuple(t)) == chosen,
                    "value": None if values is None else f"{values[k]:.4g}",
                }
                for k, (c, t) in enumerate(legal)
            ]
            deal["plays"].append(
                {
                    "number": play + 1,
                    "hand": hand_number,
                    "seat": seat,
                    "side": side,
                    "player": names[side] if side < len(names) else "",
                    "table": cards(table, chosen=move.captured),
                    "hands": [
                        cards(h, chosen=(move.card,) if s == seat else ())
                        for s, h in enumerate(hands)
                    ],
                    "to_deal": rules.pack.n_cards - position,
                    "captured": [len(c) for c in captured],
                    "scope": list(scope),
                    "card": _replay_card(pack, move.card),
                    "taken": cards(move.captured),
                    "scopa": move.scopa,
                    "alternatives": alternatives,
                    "explained": values is not None,
                }
            )
            hands[seat].discard(move.card)
            played.add(move.card)
            if move.captured:
                table -= set(move.captured)
                captured[side] |= set(move.captured) | {move.card}
                scope[side] += move.scopa
                last_capturer = side
            else:
                table.add(move.card)
            play += 1
    deal["end"] = {
        "table": cards(table),
        "last_capturer": last_capturer if record.stopped_by is None and table else None,
        "leftovers": cards(record.leftovers),
        "unplayed": sorted(
            {pack.code(c) for h in hands for c in h} if record.stopped_by is not None else set()
        ),
        "sides": [
            {
                "side": s.side,
                "cards": len(s.captured),
                "points": {k: v for k, v in s.points.items() if v or k in ("cards", "coins")},
                "total": s.total,
            }
            for s in record.sides
        ],
    }
    return deal


def render_replay(records, title: str = "scopa-sim replay") -> str:
    """The self-contained replay page of one or more deals (``api.DealRecord``): every play
    shown at once without JavaScript; with it, one play at a time (Previous/Next, arrow keys)."""
    records = list(records)
    deals = [replay_deal(r, k) for k, r in enumerate(records, 1)]
    colours = _SUIT_COLOURS
    return _ENV.get_template("replay.html.j2").render(title=title, deals=deals, colours=colours)
