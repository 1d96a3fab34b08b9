"""What every analysis shares: finding runs by their manifests, card masks, provenance."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from scopa_sim.cards import ITALIAN_40
from scopa_sim.reporting import Page, write_page

DATA = Path("data")
REPORTS = Path("reports")


class MissingData(LookupError):
    """A run an analysis needs is not in the data folder."""


@dataclass(frozen=True)
class Run:
    name: str
    folder: Path
    config: dict

    @property
    def mode(self) -> str:
        return self.config["mode"]

    def scan(self) -> pl.LazyFrame:
        return pl.scan_parquet(self.folder)

    def provenance(self, deals: int | None = None) -> dict:
        """The row of the 'data' table of a page."""
        if deals is None:
            deals = self.scan().select(pl.struct("game", "deal").n_unique()).collect().item()
        return {
            "run": self.name,
            "variant": self.config["variant_label"],
            "players": ",".join(self.config["players"]),
            "mode": self.mode,
            "deals": f"{deals:,}",
            "seed": self.config["seed"],
        }


def runs(data: Path = DATA) -> dict[str, Run]:
    """Every complete run under ``data``, by name."""
    found = {}
    for manifest in sorted(Path(data).glob("*.manifest.json")):
        info = json.loads(manifest.read_text())
        if info.get("complete"):
            folder = manifest.with_name(manifest.name.removesuffix(".manifest.json"))
            found[info["config"]["name"]] = Run(info["config"]["name"], folder, info["config"])
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
    path, _ = write_page(page, args.out)
    print(f"{path}: {page.finding}")
    return 0
