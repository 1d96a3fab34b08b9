"""What is an ace worth for primiera: the measurement.

Per captured ace, the capturer's value by exact rescoring (the ace moved to the other side's
pile); per replayed ace, the value of being dealt it (paired replays, read in the win table);
both pooled and by what the side holds of the ace's suit; and the descriptive strata of primiera
wins by the aces, sevens and sixes a side captured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from analyses import _card_interventions as ci
from analyses import framework
from analyses.framework import Run, count_rank, require
from scopa_sim import interventions as iv
from scopa_sim import stats

RUN = ci.RUN
PACK = ci.PACK
ACES = [PACK.card(s, 1) for s in range(4)]
MIN_CELL = 200  # a (sevens, sixes, aces) cell needs this many side-deals to be shown
RANKS = range(5)  # 0..4 cards of a rank
#: The ace's suit, from the side's point of view: (holds its seven, holds its six).
SITUATIONS = ((False, False), (False, True), (True, False), (True, True))
#: The win-chance measures of the replays, one per starting score of ``ci.STARTS``.
WINS = tuple(f"win.{a}-{b}" for a, b in ci.STARTS)


def _sides(run: Run) -> pl.LazyFrame:
    """One row per side per deal: aces, sevens, sixes captured and the primiera point."""
    return run.scan().select(
        "game",
        "deal",
        "side",
        pl.col("pt_primiera").cast(pl.Int32).alias("won"),
        count_rank(1).alias("aces"),
        count_rank(7).alias("sevens"),
        count_rank(6).alias("sixes"),
    )


def cells(run: Run) -> pl.DataFrame:
    """Side-deals and primiera wins per (sevens, sixes, aces), sorted (descriptive)."""
    return (
        _sides(run)
        .group_by("sevens", "sixes", "aces")
        .agg(pl.len().alias("n"), pl.col("won").sum().cast(pl.Int64).alias("wins"))
        .sort("sevens", "sixes", "aces")
        .collect()
    )


def _cell_estimates(table: pl.DataFrame) -> dict[tuple[int, int, int], stats.Estimate]:
    return {
        (r["sevens"], r["sixes"], r["aces"]): stats.proportion_ci(r["wins"], r["n"])
        for r in table.iter_rows(named=True)
        if r["n"] >= MIN_CELL
    }


def _suit_holds(piles: np.ndarray, ace: int) -> tuple[np.ndarray, np.ndarray]:
    """Whether each pile holds the seven and the six of the ace's suit."""
    suit = PACK.suit(ace)
    seven = np.uint64(1) << np.uint64(PACK.card(suit, 7))
    six = np.uint64(1) << np.uint64(PACK.card(suit, 6))
    return (piles & seven) != 0, (piles & six) != 0


def captured_aces(run: Run) -> dict[str, np.ndarray]:
    """One row per captured ace of the run: deal, capturer's value (points, margin, primiera
    point) and whether the capturer holds the suit's seven and six."""
    piles = ci.piles(run)
    values = iv.captured_values(
        ci.run_variant(run), piles.captured, piles.scope, piles.stopped, ACES
    )
    keys = ("game", "ace", "points", "margin", "primiera", "seven", "six")
    out: dict[str, list] = {k: [] for k in keys}
    for j, ace in enumerate(ACES):
        rows = np.flatnonzero(values.capturer[:, j] >= 0)
        side = values.capturer[rows, j].astype(np.int64)
        seven, six = _suit_holds(piles.captured[rows, side], ace)
        out["game"].append(piles.game[rows])
        out["ace"].append(np.full(len(rows), ace, np.int64))
        out["points"].append(values.points[rows, j])
        out["margin"].append(values.margin[rows, j])
        out["primiera"].append(values.primiera[rows, j])
        out["seven"].append(seven)
        out["six"].append(six)
    return {k: np.concatenate(v) for k, v in out.items()} | {"deals": len(piles.game)}


def dealt_aces(pairs: iv.DealtPairs, table: iv.WinTable) -> dict[str, np.ndarray]:
    """One row per replayed ace: with-minus-without points, margin, primiera point, win chance
    at each of ``ci.STARTS``, and whether the side was dealt the suit's seven and six."""
    rows = np.flatnonzero(np.isin(pairs.card, ACES))
    sub = iv.DealtPairs(**{f: getattr(pairs, f)[rows] for f in iv.DealtPairs.__dataclass_fields__})
    seven = np.zeros(len(rows), bool)
    six = np.zeros(len(rows), bool)
    for ace in ACES:
        mine = sub.card == ace
        seven[mine], six[mine] = _suit_holds(sub.dealt[mine], ace)
    pw, po = sub.points_with.astype(np.int64), sub.points_without.astype(np.int64)
    ow, oo = sub.other_with.astype(np.int64), sub.other_without.astype(np.int64)
    out = {
        "game": sub.game,
        "ace": sub.card.astype(np.int64),
        "partner": sub.partner.astype(np.int64),
        "points": pw - po,
        "margin": (pw - ow) - (po - oo),
        "primiera": sub.primiera_with.astype(np.int64) - sub.primiera_without,
        "seven": seven,
        "six": six,
    }
    for start in ci.STARTS:
        out[f"win.{start[0]}-{start[1]}"] = ci.win_change(sub, table, start)
    return out


def _by_situation(rows: dict, measure: str) -> dict[tuple[bool, bool], stats.Estimate]:
    out = {}
    for situation in SITUATIONS:
        mask = (rows["seven"] == situation[0]) & (rows["six"] == situation[1])
        out[situation] = ci.mean_by_deal(rows[measure][mask], rows["game"][mask])
    return out


def _share(rows: dict) -> dict[tuple[bool, bool], float]:
    n = len(rows["game"])
    return {
        s: float(((rows["seven"] == s[0]) & (rows["six"] == s[1])).sum() / n) for s in SITUATIONS
    }


@dataclass(frozen=True)
class AceValues:
    """Everything the page shows, measured: the run, the games of the win table, the sizes the
    method quotes, the pooled and per-situation values of a captured and of a dealt ace (with
    minus without, clustered by deal), each situation's share of the aces, and the strata."""

    run: Run
    games: Run  # the run whose games give the win table
    deals: int  # independent deals rescored
    replayed: int  # deals replayed
    behind: int  # fewest side-deals behind a cell of the win table the replays reach
    captured: dict[str, stats.Estimate]  # points, margin, primiera
    dealt: dict[str, stats.Estimate]  # points, margin, primiera and every WINS measure
    captured_by: dict[str, dict[tuple[bool, bool], stats.Estimate]]  # points, primiera
    dealt_by: dict[str, dict[tuple[bool, bool], stats.Estimate]]
    captured_share: dict[tuple[bool, bool], float]
    dealt_share: dict[tuple[bool, bool], float]
    cells: dict[tuple[int, int, int], stats.Estimate]  # (sevens, sixes, aces) -> P(primiera)
    counts: dict[tuple[int, int, int], int]  # side-deals per cell
    level: str = "beginner"
    rows: dict = field(default=None, repr=False, compare=False)  # "captured", "dealt": per ace

    @property
    def player(self) -> str:
        return framework.LEVEL_PLAYER[self.level]


@dataclass(frozen=True)
class LevelDifference:
    """An ace's points for experts minus for beginners, pooled over the aces both levels have
    on the same packs: captured (per deal and ace) and dealt (per replayed deal, ace and
    exchange); cluster-robust by deal, with the p-value the page's family tests."""

    kind: str  # captured or dealt
    diff: stats.Estimate
    p_value: float
    pairs: int


def _paired(b: dict, e: dict, keys: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The experts' minus the beginners' points of the rows both have (same ``keys``), and
    their deals."""

    def key(rows):
        k = rows["game"].astype(np.int64)
        for name in keys:
            k = k * 64 + rows[name].astype(np.int64)
        return k

    _, ib, ie = np.intersect1d(key(b), key(e), assume_unique=True, return_indices=True)
    return e["points"][ie] - b["points"][ib], b["game"][ib]


def level_differences(beginner: AceValues, expert: AceValues) -> list[LevelDifference]:
    out = []
    for kind, keys in (("captured", ("ace",)), ("dealt", ("ace", "partner"))):
        diff, game = _paired(beginner.rows[kind], expert.rows[kind], keys)
        est, p = ci.clustered_test(diff, game)
        out.append(LevelDifference(kind, est, p, len(diff)))
    return out


def measure(data: Path, level: str = "beginner") -> AceValues:
    """Every value of the page at ``level``, from the runs under ``data`` (the level's twins of
    ``RUN`` and ``ci.GAMES``; the replays are cached there)."""
    run = require(data, framework.level_run(RUN, level))
    framework.check_level(run, level, "the ace page")
    table, games = ci.win_table(data, framework.level_run(ci.GAMES, level))
    captured = captured_aces(run)
    deals = captured.pop("deals")
    pairs = ci.replays(data, run)
    dealt = dealt_aces(pairs, table)
    strata = cells(run)
    return AceValues(
        run=run,
        games=games,
        deals=deals,
        replayed=int(pairs.game.max()) + 1,
        behind=ci.fewest_behind(pairs, table, ci.STARTS),
        captured={
            m: ci.mean_by_deal(captured[m], captured["game"])
            for m in ("points", "margin", "primiera")
        },
        dealt={
            m: ci.mean_by_deal(dealt[m], dealt["game"])
            for m in ("points", "margin", "primiera", *WINS)
        },
        captured_by={m: _by_situation(captured, m) for m in ("points", "primiera")},
        dealt_by={m: _by_situation(dealt, m) for m in ("points", "primiera")},
        captured_share=_share(captured),
        dealt_share=_share(dealt),
        cells=_cell_estimates(strata),
        counts={(r["sevens"], r["sixes"], r["aces"]): r["n"] for r in strata.iter_rows(named=True)},
        level=level,
        rows={"captured": captured, "dealt": dealt},
    )
