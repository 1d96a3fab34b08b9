"""What every report page shares: its data (runs found by their manifests), its family of
tests, number formats, forest plots, the page ending and the command line of one page.

A page module states what it asks and needs (see :mod:`analyses`); this module does the work
every page would otherwise repeat, so the pages differ only in what they measure and show.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from scopa_sim import integrity, reporting, stats, storage
from scopa_sim.cards import ITALIAN_40

DATA = Path("data")
REPORTS = Path("reports")


class MissingData(LookupError):
    """A run an analysis needs is not in the data folder."""


# the two levels of play --------------------------------------------------------------------------

#: The player spec of each level every page answers at (issue 32): beginners play ``greedy``,
#: experts the compiled ``expert`` player. The one place that names them: pages, tests and the
#: check of configs/default.toml read these constants.
BEGINNER = "greedy"
EXPERT = "expert"
#: The levels in the order pages show them, with the words a page uses for each.
LEVELS = ("beginner", "expert")
LEVEL_PLAYER = {"beginner": BEGINNER, "expert": EXPERT}
#: What a page does when a level's run is missing: it fails with MissingData naming the run
#: (never a page at one level only), so a page always answers at both levels or not at all.


def expert_run(name: str) -> str:
    """The name of the expert twin of a beginner run of configs/default.toml: ``-greedy`` in the
    name becomes ``-expert`` (``classic-greedy``, ``classic-expert``), else ``-expert`` is
    appended (``classic-deals``, ``classic-deals-expert``)."""
    if "-greedy" in name:
        return name.replace("-greedy", "-expert", 1)
    return f"{name}-expert"


def level_run(name: str, level: str) -> str:
    """The run of ``level`` whose beginner run is ``name``."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(LEVELS)}")
    return name if level == "beginner" else expert_run(name)


def check_level(run: Run, level: str, what: str) -> None:
    """MissingData unless every side of ``run`` is played by ``level``'s player; ``what`` says
    which page needs it (a run played by other players would silently answer another question)."""
    player = LEVEL_PLAYER[level]
    players = set(run.config["players"])
    if players != {player}:
        raise MissingData(
            f"run {run.name} is played by {','.join(run.config['players'])}; {what} needs "
            f"{player} on every side for the {level} level (configs/default.toml)"
        )


def same_packs(a: Run, b: Run) -> str:
    """Why runs ``a`` and ``b`` do not play the same packs (empty when they do): the pack stream
    depends only on the seed, the mode and the deal's shape, never on the players; the page
    checks the data too (the same games, the same first dealers)."""
    from scopa_sim import compare
    from scopa_sim.rules import variant_of_config

    if a.config["seed"] != b.config["seed"]:
        return f"other seeds ({a.config['seed']}, {b.config['seed']})"
    if a.mode != b.mode:
        return f"other modes ({a.mode}, {b.mode})"
    reason = compare.difference_reason(variant_of_config(a.config), variant_of_config(b.config))
    return f"other deals ({reason})" if reason else ""


def levels_clause(
    beginner: stats.Estimate | None,
    expert: stats.Estimate | None,
    diff: stats.Estimate | None = None,
    p_holm: float | None = None,
    alpha: float = 1 - stats.LEVEL,
    scale: float = 1.0,
    unit: str = "",
) -> str:
    """How the two levels' answers relate, in words for a headline: said explicitly when they
    disagree (opposite signs, one interval excluding 0 and the other not: pass the intervals
    that match such a claim, the family's, or None where 0 is no question, a length or a share)
    and when their paired difference is significant in the page's family (``p_holm``); empty
    otherwise. ``diff`` is the interval that matches the test: the family's (Bonferroni)
    interval of the difference; ``scale`` and ``unit`` write it (100 and " pp" for a share)."""

    def clear(e: stats.Estimate) -> bool:
        return e.estimable and (e.low > 0 or e.high < 0)

    parts = []
    if beginner is None or expert is None:
        pass
    elif clear(beginner) and clear(expert) and (beginner.value > 0) != (expert.value > 0):
        parts.append("the two levels disagree in sign")
    elif clear(beginner) != clear(expert):
        which = "beginners" if clear(beginner) else "experts"
        parts.append(f"it is clearly non-zero for {which} only")
    if diff is not None and p_holm is not None:
        if p_holm < alpha:
            parts.append(
                f"experts differ from beginners by {about(scale * diff.value)}{unit} "
                f"[{about(scale * diff.low)}, {about(scale * diff.high)}] on the same packs "
                f"(family interval, Holm p {stats.format_p(p_holm, equals=True)})"
            )
        else:
            parts.append("the paired difference between the levels is not significant")
    return "; ".join(parts)


# what a page needs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Needs:
    """The data a page reads, by name: the runs it requires (``make simulate``), the runs it uses
    when present, whether it reads every complete run, and the tournament configuration whose
    folders it reads under ``data/tournaments/``; all empty for a page that plays its own."""

    runs: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    every_run: bool = False
    tournaments: Path | None = None


# runs -------------------------------------------------------------------------------------------

#: What a run's provenance copies from its manifest for a page's footer (reporting.footer).
MANIFEST_KEYS = ("versions", "schema_version", "data_version", "pack_stream")


@dataclass(frozen=True)
class Run:
    name: str
    folder: Path
    config: dict
    manifest: dict = field(default_factory=dict, compare=False, repr=False)  # the whole file

    @property
    def mode(self) -> str:
        return self.config["mode"]

    def scan(self) -> pl.LazyFrame:
        return integrity.scan_run(self.folder)  # the chunks its manifest lists, checked

    def provenance(self, deals: int | None = None, games: int | None = None) -> dict:
        """The row of the 'data' table of a page, and what its footer and JSON say of the run:
        run, variant, players, mode, deals, games (games mode; the manifest's count of a
        complete run unless given), seed, then the versions, schema, data version and pack
        stream the manifest recorded (versions {} when it recorded none; reporting.FOOTER_KEYS
        are kept out of the table)."""
        if deals is None:
            deals = self.scan().select(pl.struct("game", "deal").n_unique()).collect().item()
        if games is None and self.mode == "games":
            games = self.config.get("count")
        return {
            "run": self.name,
            "variant": self.config["variant_label"],
            "players": ",".join(self.config["players"]),
            "mode": self.mode,
            "deals": int(deals),
            "games": None if games is None else int(games),
            "seed": self.config["seed"],
            **manifest_provenance(self.manifest),
        }


def manifest_provenance(manifest: dict) -> dict:
    """The footer's part of a run manifest (storage/runner write it): the versions of the
    libraries that made the run, and its schema, data version and pack stream (None when the
    manifest predates them)."""
    found = {key: manifest.get(key) for key in MANIFEST_KEYS}
    found["versions"] = dict(found["versions"] or {})
    return found


def manifests_provenance(folders: Iterable[Path]) -> dict:
    """The footer's part of several runs' manifests (a tournament's, a pair of runs): one value
    per version or format when the runs agree, else every value found, joined by " / "; a
    folder without a manifest counts as recording nothing."""
    found = [manifest_provenance(storage.read_manifest(Path(f)) or {}) for f in folders]

    def agreed(values):
        distinct = list(dict.fromkeys(values))
        return distinct[0] if len(distinct) == 1 else " / ".join(str(v) for v in distinct)

    libraries = dict.fromkeys(k for f in found for k in f["versions"])
    return {
        "versions": {k: agreed(f["versions"].get(k) for f in found) for k in libraries},
        **{k: agreed(f[k] for f in found) for k in MANIFEST_KEYS if k != "versions"},
    }


def in_process(row: dict) -> dict:
    """A data row of a run the page played itself while it was built (not read from a data
    folder): the footer and JSON give it the building process's versions."""
    return {**row, "in_process": True}


def runs(data: Path = DATA) -> dict[str, Run]:
    """Every complete run under ``data``, by name."""
    found = {}
    # A run's manifest is inside its folder (DIR/manifest.json); layout 1's beside it.
    inside = sorted(Path(data).glob(f"*/{storage.MANIFEST_NAME}"))
    for manifest in [*sorted(Path(data).glob("*.manifest.json")), *inside]:
        info = json.loads(manifest.read_text())
        if info.get("complete") and "config" in info and info.get("kind") != "tournament":
            if manifest.name == storage.MANIFEST_NAME:
                folder = manifest.parent
            else:
                folder = manifest.with_name(manifest.name.removesuffix(".manifest.json"))
            name = info["config"]["name"]
            found[name] = Run(name, folder, info["config"], info)
    return found


def require(data: Path, name: str) -> Run:
    """The complete run ``name`` under ``data``, or MissingData naming ``make simulate``."""
    found = runs(data)
    if name not in found:
        raise MissingData(f"run {name!r} is not in {data}/; run `make simulate` first")
    return found[name]


def require_all(data: Path, names: Iterable[str]) -> dict[str, Run]:
    """Every run of ``names`` under ``data`` by name, or one MissingData naming all missing."""
    found = runs(data)
    missing = [name for name in names if name not in found]
    if missing:
        raise MissingData(f"run(s) {', '.join(missing)} not in {data}/; run `make simulate` first")
    return {name: found[name] for name in names}


def every_run(data: Path) -> dict[str, Run]:
    """Every complete run under ``data`` (at least one, or MissingData)."""
    found = runs(data)
    if not found:
        raise MissingData(f"no complete run in {data}/; run `make simulate` first")
    return found


def run_players(run: Run) -> tuple[str, ...]:
    """The players of a run as its rows record them (column ``strategy``), in side order, each
    once; the manifest's players when the column holds none."""
    manifest = storage.manifest_path(run.folder)
    if not manifest.exists():
        manifest = storage.legacy_manifest_path(run.folder)
    stamp = manifest.stat().st_mtime_ns if manifest.exists() else None
    return _run_players(str(run.folder), stamp) or tuple(dict.fromkeys(run.config["players"]))


@functools.cache
def _run_players(folder: str, stamp: int | None) -> tuple[str, ...]:  # stamp: a new run, a new key
    frame = integrity.scan_run(Path(folder)).select("side", "strategy").unique().collect()
    frame = frame.drop_nulls().filter(pl.col("strategy") != "").sort("side", "strategy")
    return tuple(dict.fromkeys(frame["strategy"]))


def players_sentence(runs: Iterable[Run]) -> str:
    """One sentence naming the players each run's data come from (read from the data)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for run in runs:
        groups.setdefault(run_players(run), []).append(run.name)
    parts = []
    for players, names in groups.items():
        who = f"{players[0]} on every side" if len(players) == 1 else " against ".join(players)
        where = f"run {names[0]}" if len(names) == 1 else f"runs {', '.join(names)}"
        parts.append(f"{who} ({where})")
    return "Players, as the strategy column of the data records them: " + "; ".join(parts) + "."


def has_card(card: int) -> pl.Expr:
    """1 when the side captured ``card``, else 0 (from the ``captured`` bitmask)."""
    return ((pl.col("captured") & (1 << card)) != 0).cast(pl.Int8)


def count_rank(rank: int, pack=ITALIAN_40) -> pl.Expr:
    """How many cards of ``rank`` the side captured."""
    return (pl.col("captured") & pack.rank_mask(rank)).bitwise_count_ones().cast(pl.Int8)


# the family of tests ----------------------------------------------------------------------------


class Family(stats.Family):
    """A page's one Holm family (:class:`scopa_sim.stats.Family`) with its cells for tables:
    the Holm p-value and the Bonferroni interval of a key, or a dash when it was not tested."""

    @property
    def level_text(self) -> str:
        return f"{100 * self.level:.4g} %"

    def p(self, key) -> str:
        return stats.format_p(self.p_holm[key]) if key in self.p_holm else "—"

    def ci(self, key) -> str:
        return reporting.ci(self.wide[key]) if key in self.wide else "not tested"


# numbers ----------------------------------------------------------------------------------------


def pct(e: stats.Estimate, digits: int = 2, unit: str = " %") -> str:
    """A share (or a difference of shares, ``unit=" pp"``) as a percentage with its interval.
    ``digits=0`` gives whole numbers, never "-0"."""

    def p(x: float) -> str:
        if digits == 0:
            return f"{round(float(100 * x))}"
        return f"{100 * x:.{digits}f}"

    if not e.estimable:  # no variation in the sample: no interval
        return f"{p(e.value)}{unit} ({stats.not_estimable_text(e.n)})"
    return f"{p(e.value)}{unit} [{p(e.low)}, {p(e.high)}]"


def percent(e: stats.Estimate) -> stats.Estimate:
    """An estimate of a share in percent (for tables and charts in percentage points)."""
    return stats.Estimate(100 * e.value, 100 * e.low, 100 * e.high, e.n)


def detectable(name: str, estimate: stats.Estimate, unit: str, n: int | None = None):
    """The finding of the smallest true effect ``estimate``'s design detects (80 % power,
    two-sided alpha 0.05), as a point: value, low and high all the effect."""
    mde = stats.detectable_effect(estimate)
    return detectable_finding(name, mde, unit, estimate.n if n is None else n)


def detectable_finding(name: str, effect: float, unit: str, n: int):
    """A smallest detectable effect already computed, as a finding (a point estimate)."""
    return reporting.Finding(name, stats.Estimate(effect, effect, effect, n), unit)


# charts -----------------------------------------------------------------------------------------


def errorbars(ax, estimates: Sequence[stats.Estimate], y, **style):
    """Points with their intervals as horizontal error bars at heights ``y`` (a forest row)."""
    values = np.array([e.value for e in estimates])
    err = np.array([values - [e.low for e in estimates], [e.high for e in estimates] - values])
    return ax.errorbar(values, y, xerr=err, **style)


def forest(
    labels: Sequence[str],
    estimates: Sequence[stats.Estimate],
    xlabel: str,
    *,
    color: str,
    reference: float | None = None,
    row: float = 0.36,
    pad: float = 1.1,
    framed: bool = True,
) -> reporting.Markup:
    """One estimate per row, first row on top, with its interval, as SVG: a dashed line at
    ``reference``; ``framed`` fits the rows and draws a light grid behind them."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, row * len(labels) + pad))
    y = np.arange(len(labels))[::-1]
    errorbars(ax, estimates, y, fmt="o", color=color, capsize=3)
    if reference is not None:
        ax.axvline(reference, color="#888", lw=1, ls="--")
    ax.set_yticks(y, list(labels))
    if framed:
        ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlabel(xlabel)
    if framed:
        ax.grid(axis="x", color="#ddd", lw=0.6)
        ax.set_axisbelow(True)
    fig.tight_layout()
    return reporting.svg(fig)


# the headline -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What a page's build says at a glance: its answer in one sentence a player understands,
    and the findings its small chart plots, as (label, finding name) rows. The chart's numbers
    are read from the page's own findings by name, so the chart, the sentence's source and the
    JSON twin cannot disagree; ``scale`` turns them into the axis's unit (100: a share in
    percent). ``kind`` is ``interval`` or ``bar``; ``reference`` the value of no effect;
    ``whiskers`` what the intervals are (the chart's caption)."""

    sentence: str
    rows: tuple[tuple[str, str], ...]
    axis: str
    kind: str = "interval"
    reference: float | None = None
    scale: float = 1.0
    whiskers: str = reporting.WHISKERS


def headline(answer: Answer, findings: Sequence[reporting.Finding]) -> reporting.Headline:
    """The headline of a page from its ``answer`` and its ``findings``; ValueError naming a row
    whose finding the page does not have (or a headline the index could not draw)."""
    by_name = {f.name: f.estimate for f in findings}
    missing = [name for _, name in answer.rows if name not in by_name]
    if missing:
        raise ValueError(f"headline: no finding named {', '.join(missing)} on the page")
    k = answer.scale
    return reporting.Headline(
        sentence=answer.sentence,
        labels=tuple(label for label, _ in answer.rows),
        estimates=tuple(
            dataclasses.replace(e, value=k * e.value, low=k * e.low, high=k * e.high)
            for e in (by_name[name] for _, name in answer.rows)
        ),
        axis=answer.axis,
        kind=answer.kind,
        reference=answer.reference,
        whiskers=answer.whiskers,
    )


def about(x: float, digits: int = 2) -> str:
    """A number for a sentence a player reads: ``digits`` significant figures, never "-0"."""
    text = f"{float(x):.{digits}g}"
    if "e" in text:  # a large number: whole
        text = f"{round(float(x))}"
    return "0" if float(text) == 0 else text


# the page ---------------------------------------------------------------------------------------


def reproduce(module: str) -> str:
    """The commands that rebuild a page from nothing (the Reproduce block of a page)."""
    return (
        "make simulate && make report    # every run of configs/default.toml, then every page\n"
        "# or, once the runs are in data/, this page alone:\n"
        f".venv/bin/python -m analyses.{module} --data data --out reports"
    )


def page(
    module: str,
    *,
    slug: str,
    title: str,
    question: str,
    method: str,
    finding: str,
    sections: list,
    data: list[dict],
    findings: list,
    answer: Answer,
    used: Iterable[Run] | None = None,
    reproduce_text: str | None = None,
    **extra,
) -> reporting.Page:
    """The page of analysis ``module`` (its name under ``analyses``), the one path every page is
    built by: its ``answer`` becomes the headline (:func:`headline`) that opens the page and
    stands for it on the index; ``used`` runs append the players sentence to the method, and the
    Reproduce block is :func:`reproduce` unless given."""
    if used is not None:
        method = f"{method} {players_sentence(used)}"
    return reporting.Page(
        headline=headline(answer, findings),
        slug=slug,
        title=title,
        question=question,
        method=method,
        finding=finding,
        sections=sections,
        data=data,
        reproduce=reproduce(module) if reproduce_text is None else reproduce_text,
        findings=findings,
        **extra,
    )


def main(
    build: Callable, argv=None, commands: Callable | None = None, prog: str | None = None
) -> int:
    """Run one analysis on its own: build its page and write it into ``--out``. With
    ``commands`` (the page's tournaments), ``--commands [--data D] [--missing]`` prints their
    commands one a line instead (what the Makefile runs). ``prog`` names the page in usage
    lines (a page package's ``__main__``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if commands is not None and argv[:1] == ["--commands"]:
        rest = argv[1:]
        data = Path(rest[rest.index("--data") + 1]) if "--data" in rest else DATA
        try:
            print("\n".join(commands(data, missing="--missing" in rest)))
        except (ValueError, OSError) as err:  # a bad configuration, another tournament's folder
            print(f"error: {err}", file=sys.stderr)
            return 2
        return 0
    parser = argparse.ArgumentParser(
        prog=prog, description=(build.__doc__ or "").strip().splitlines()[0]
    )
    parser.add_argument("--data", type=Path, default=DATA, help="folder of simulated runs")
    parser.add_argument("--out", type=Path, default=REPORTS, help="folder for the HTML pages")
    args = parser.parse_args(argv)
    try:
        built: reporting.Page = build(args.data)
    except MissingData as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path = reporting.write_page(built, args.out)[0]
    print(f"{path}: {built.finding}")
    return 0
