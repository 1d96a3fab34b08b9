"""What every analysis shares: finding runs by their manifests, card masks, provenance."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from scopa_sim import storage
from scopa_sim.cards import ITALIAN_40
from scopa_sim.reporting import Page, write_page

DATA = Path("data")
REPORTS = Path("reports")


class MissingData(LookupError):
    """A run an analysis needs is not in the data folder."""


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
        return pl.scan_parquet(self.folder)

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
    for manifest in sorted(Path(data).glob("*.manifest.json")):
        info = json.loads(manifest.read_text())
        if info.get("complete"):
            folder = manifest.with_name(manifest.name.removesuffix(".manifest.json"))
            name = info["config"]["name"]
            found[name] = Run(name, folder, info["config"], info)
    return found


def require(data: Path, name: str) -> Run:
    found = runs(data)
    if name not in found:
        raise MissingData(f"run {name!r} is not in {data}/; run `make simulate` first")
    return found[name]


def run_players(run: Run) -> tuple[str, ...]:
    """The players of a run as its rows record them (column ``strategy``), in side order, each
    once; the manifest's players when the column holds none."""
    manifest = run.folder.with_name(f"{run.folder.name}.manifest.json")
    stamp = manifest.stat().st_mtime_ns if manifest.exists() else None
    return _run_players(str(run.folder), stamp) or tuple(dict.fromkeys(run.config["players"]))


@functools.cache
def _run_players(folder: str, stamp: int | None) -> tuple[str, ...]:  # stamp: a new run, a new key
    frame = pl.scan_parquet(folder).select("side", "strategy").unique().collect()
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


def reproduce(module: str) -> str:
    """The commands that rebuild a page from nothing (the Reproduce block of a page)."""
    return (
        "make simulate && make report    # every run of configs/default.toml, then every page\n"
        "# or, once the runs are in data/, this page alone:\n"
        f".venv/bin/python -m analyses.{module} --data data --out reports"
    )


def has_card(card: int) -> pl.Expr:
    """1 when the side captured ``card``, else 0 (from the ``captured`` bitmask)."""
    return ((pl.col("captured") & (1 << card)) != 0).cast(pl.Int8)


def count_rank(rank: int, pack=ITALIAN_40) -> pl.Expr:
    """How many cards of ``rank`` the side captured."""
    return (pl.col("captured") & pack.rank_mask(rank)).bitwise_count_ones().cast(pl.Int8)


def main(build, argv=None) -> int:
    """Run one analysis on its own: build its page and write it into ``--out``."""
    parser = argparse.ArgumentParser(description=(build.__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder of simulated runs")
    parser.add_argument("--out", type=Path, default=REPORTS, help="folder for the HTML pages")
    args = parser.parse_args(argv)
    try:
        page: Page = build(args.data)
    except MissingData as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path = write_page(page, args.out)[0]
    print(f"{path}: {page.finding}")
    return 0
