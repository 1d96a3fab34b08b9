"""What the card pages (ace value, card values) share: the runs' piles as arrays, the cached
paired replays, the win-chance table, and the interval helpers.

The replays (``scopa_sim.interventions.dealt_values``) are kept under ``DATA/interventions/``
with a manifest and recomputed only when missing or when what they depend on changed (seed,
deals, players, variant, pack stream, data and intervention versions). The deal as played in
every replay is checked against the run's own rows, so a cache that no longer matches the data
is caught, not reported.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from analyses.framework import Run, require
from scopa_sim import integrity, stats, storage
from scopa_sim import interventions as iv
from scopa_sim.cards import ITALIAN_40
from scopa_sim.players import player
from scopa_sim.rules import Variant, variant_of_config

RUN = "classic-deals"  # independent deals, greedy against greedy
GAMES = "classic-greedy"  # whole games, greedy against greedy: the win-chance table
PACK = ITALIAN_40
#: Deals replayed for the dealt values (every card of each), cached after the first time.
REPLAY_DEALS = 50_000
#: Starting scores at which the dealt value is turned into a change in the chance to win.
STARTS = ((0, 0), (8, 8))


@dataclass(frozen=True)
class Piles:
    """The run's deals as arrays, sorted by deal: each side's captured cards and scope."""

    game: np.ndarray  # int64[B]
    captured: np.ndarray  # uint64[B, 2]
    scope: np.ndarray  # int16[B, 2]
    stopped: np.ndarray  # bool[B]
    points: np.ndarray  # int16[B, 2]: as the run recorded them


def run_variant(run: Run) -> Variant:
    return variant_of_config(run.config)


def piles(run: Run, deals: int | None = None) -> Piles:
    """The first ``deals`` deals of a two-sided run of independent deals (all by default), in
    deal order. Read once per process (``make report`` builds both card pages in one)."""
    every = _piles(str(run.folder), _stamp(run), run_variant(run).scopa_wins_immediately)
    if deals is None or deals >= len(every.game):
        return every
    return Piles(*(getattr(every, f)[:deals] for f in Piles.__dataclass_fields__))


def _manifest_hash(run: Run) -> str:
    """What identifies the run's data: its manifest (a rerun writes a new one)."""
    manifest = _manifest_file(run)
    return hashlib.sha256(manifest.read_bytes()).hexdigest() if manifest.exists() else ""


def _stamp(run: Run) -> int | None:
    """The run's manifest time: a rerun is a new cache key."""
    manifest = _manifest_file(run)
    return manifest.stat().st_mtime_ns if manifest.exists() else None


def _manifest_file(run: Run) -> Path:
    """The run's manifest file: inside its folder, or beside it (layout 1)."""
    inside = storage.manifest_path(run.folder)
    return inside if inside.exists() else storage.legacy_manifest_path(run.folder)


@functools.cache
def _piles(folder: str, stamp: int | None, stops: bool) -> Piles:
    # Only a deal under scopa_wins_immediately can stop; older runs have no ``stopped`` column.
    stopped = pl.col("stopped") if stops else pl.lit(False).alias("stopped")
    scan = integrity.scan_run(Path(folder)).select(
        "game", "deal", "side", "captured", "scope", stopped, "points"
    )
    frame = _in_order(scan.collect())
    side = frame["side"].to_numpy()
    game = frame["game"].to_numpy()
    if len(frame) % 2 or not ((side[0::2] == 0).all() and (side[1::2] == 1).all()):
        raise ValueError(f"run {Path(folder).name} does not have exactly sides 0 and 1 per deal")
    if not (game[0::2] == game[1::2]).all() or (frame["deal"].to_numpy() != 0).any():
        raise ValueError(f"run {Path(folder).name} is not a run of independent deals")
    if not np.array_equal(game[0::2], np.arange(len(game) // 2)):
        raise ValueError(f"run {Path(folder).name} does not hold deals 0, 1, 2, ... in order")

    def pair(name, dtype):
        return frame[name].to_numpy().astype(dtype).reshape(-1, 2)

    return Piles(
        game[0::2].astype(np.int64),
        pair("captured", np.uint64),
        pair("scope", np.int16),
        frame["stopped"].to_numpy()[0::2].astype(bool),
        pair("points", np.int16),
    )


def _in_order(frame: pl.DataFrame) -> pl.DataFrame:
    """Rows by (game, deal, side): runs are written so (chunks in order, rows sorted within),
    which is checked rather than sorted again."""
    game, deal, side = (frame[c].to_numpy().astype(np.int64) for c in ("game", "deal", "side"))
    if np.all(np.diff((game << 20) | (deal << 8) | side) > 0):  # deal < 4096, side < 256
        return frame
    return frame.sort("game", "deal", "side")


def replays(data: Path, run: Run, deals: int = REPLAY_DEALS) -> iv.DealtPairs:
    """Paired replays of the run's first ``deals`` deals, every card, with the run's players and
    seed (cached), checked against the run: the deal as played is the deal the run recorded."""
    if run_variant(run).scopa_wins_immediately:
        # The replays are played from 0-0 and read at other starting scores (win_change); a
        # scopa that wins outright at the target would make the deal itself depend on them.
        raise ValueError(f"run {run.name}: replays from 0-0 do not stand for other scores")
    specs = list(run.config["players"])
    deals = min(deals, int(run.config["count"]))
    pairs = iv.cached_dealt_values(
        Path(data) / "interventions", f"{run.name}-dealt", run_variant(run),
        [player(p) for p in specs], specs, int(run.config["seed"]), range(deals),
        source={"run": run.name, "manifest_sha256": _manifest_hash(run)},
    )  # fmt: skip
    recorded = piles(run, deals)
    at = np.searchsorted(recorded.game, pairs.game)
    side = pairs.side.astype(np.int64)
    if not (
        np.array_equal(recorded.game[at], pairs.game)
        and np.array_equal(recorded.points[at, side], pairs.points_with)
        and np.array_equal(recorded.points[at, 1 - side], pairs.other_with)
    ):
        raise ValueError(
            f"the replays in {data}/interventions/ do not match run {run.name}; delete them"
        )
    return pairs


def win_table(data: Path, name: str = GAMES) -> tuple[iv.WinTable, Run]:
    """W(own, other) from the games of run ``name`` (``GAMES``, or its expert twin): both sides
    of every deal, scores before the deal (``score - points``), and whether that side won its
    game (once per process)."""
    run = require(data, name)
    return _win_table(str(run.folder), _stamp(run), run_variant(run).target), run


@functools.cache
def _win_table(folder: str, stamp: int | None, target: int) -> iv.WinTable:
    frame = integrity.scan_run(Path(folder)).select(
        "game", "deal", "side", "points", "score", "won"
    )
    frame = _in_order(frame.collect())
    game, side = frame["game"].to_numpy(), frame["side"].to_numpy()
    if len(frame) % 2 or not ((side[0::2] == 0).all() and (side[1::2] == 1).all()):
        raise ValueError(f"run {Path(folder).name} does not have exactly sides 0 and 1 per deal")
    before = frame["score"].to_numpy().astype(np.int64) - frame["points"].to_numpy()
    other = before.reshape(-1, 2)[:, ::-1].ravel()
    won = frame["won"].to_numpy()
    winner = np.full(int(game.max()) + 1, -1, np.int64)
    winner[game[won]] = side[won]
    return iv.win_table(before, other, winner[game] == side, target)


def win_change(pairs: iv.DealtPairs, table: iv.WinTable, start: tuple[int, int]) -> np.ndarray:
    """Per pair: the side's chance to win after the deal with the card dealt minus without it,
    from scores ``start`` (own, other) before the deal."""
    own, other = start

    def after(points, opp):
        return iv.win_after(table, own + points.astype(np.int64), other + opp.astype(np.int64))

    return after(pairs.points_with, pairs.other_with) - after(
        pairs.points_without, pairs.other_without
    )


def fewest_behind(pairs: iv.DealtPairs, table: iv.WinTable, starts) -> int:
    """The fewest side-deals behind any W cell the replays reach from ``starts`` (scores after a
    deal that did not end the game), to say how well W is known where it is used."""
    fewest = None
    for own, other in starts:
        for points, opp in (
            (pairs.points_with, pairs.other_with),
            (pairs.points_without, pairs.other_without),
        ):
            a, b = own + points.astype(np.int64), other + opp.astype(np.int64)
            t = table.target
            open_ = ~(((a >= t) | (b >= t)) & ((a != b) | (a >= t)))
            open_ &= (a < len(table.n)) & (b < len(table.n))
            if open_.any():
                least = int(table.n[a[open_], b[open_]].min())
                fewest = least if fewest is None else min(fewest, least)
    return 0 if fewest is None else fewest


def simultaneous(level: float, family: int) -> float:
    """Bonferroni: the per-interval level that makes ``family`` intervals hold jointly."""
    return 1 - (1 - level) / family


def mean_by_deal(values: np.ndarray, game: np.ndarray, level: float = stats.LEVEL):
    """Mean with an interval clustered by deal (several cards of one deal are correlated)."""
    return iv.clustered_mean(values, game, level)


def clustered_test(values: np.ndarray, game: np.ndarray) -> tuple[stats.Estimate, float]:
    """The mean of ``values`` (several per deal) with a cluster-robust 95 % t interval and the
    two-sided p-value of a zero mean: the ratio (sum over count per deal) linearised per deal.
    Its ``n`` counts the values, as :func:`mean_by_deal`'s does."""
    deals, at = np.unique(game, return_inverse=True)
    sums = np.bincount(at, weights=np.asarray(values, np.float64), minlength=len(deals))
    counts = np.bincount(at, minlength=len(deals)).astype(np.float64)
    linear = stats.linearised_ratio(sums, counts)
    estimate, p = stats.paired_difference(np.zeros_like(linear), linear)
    return dataclasses.replace(estimate, n=len(values)), p
