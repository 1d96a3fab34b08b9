"""Provenance: which scopa-sim built a page, and from which runs.

The footer of a page names the build (version, git commit, "+ uncommitted changes") and, per run
behind it, the seed, the size and the versions its manifest recorded; ``run_json`` turns a
page's data rows into the runs of its JSON twin. A reader can then tell what to rerun.
"""

from __future__ import annotations

import functools
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from scopa_sim.reporting.page import Page

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
