"""Per-pairing estimates of a tournament and its ratings, from the Parquet files of its runs.

Per pairing, A minus B from A's point of view (A is named first in ``--players``; with four
sides, the mean over A's sides), on the per-unit duplicate values: the two runs paired by
(game, deal) in deals mode, by game in games mode. ``points_per_deal`` is the mean duplicate
difference (in games mode a ratio estimate linearised per game); ``game_win`` is A's duplicate
game-win rate, its p-value testing 0.5. 95 % paired t intervals, p-values Holm-adjusted across
the pairings of each metric. The variance reduction, ``1 - Var(dup) / (Var(plain) / 2)``, is the
share of the variance duplicate play removes against as many independent units.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from scopa_sim import integrity, stats
from scopa_sim.tournament.ratings import Fit, Rating, fit_ratings
from scopa_sim.tournament.schedule import Pairing, Tournament, TournamentError

METRICS = {
    "points_per_deal": "A minus B, points per deal (duplicate: mean of the two seatings)",
    "game_win": "A's duplicate game-win rate (estimate and CI: the rate; p tests rate = 0.5)",
}


@dataclass(frozen=True)
class Row:
    a: str
    b: str
    metric: str
    estimate: stats.Estimate
    p_value: float
    p_holm: float | None = None
    variance_reduction: float | None = None  # points_per_deal only

    def to_json(self) -> dict:
        """The row for JSON and Parquet; a comparison that is not estimable (no variation) has
        no interval and no p-values (None)."""
        e = self.estimate

        def finite(x):
            return None if x is None or not np.isfinite(x) else float(x)

        return {
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "estimate": e.value,
            "ci_low": finite(e.low),
            "ci_high": finite(e.high),
            "p_value": finite(self.p_value),
            "p_holm": finite(self.p_holm),
            "n": e.n,
        }


@dataclass(frozen=True)
class Result:
    tournament: Tournament
    rows: list[Row]
    ratings: list[Rating]  # fair players, best first
    upper_bounds: list[Rating]  # players that see hidden cards, best first
    variance_reduction: float | None  # pooled over pairings
    units: int
    outcomes: dict = field(default_factory=dict)  # (a, b) -> (losses, ties, wins) of A
    fit: Fit | None = None  # the rating model's goodness of fit and tie parameter

    def row(self, a: str, b: str, metric: str) -> Row | None:
        for r in self.rows:
            if r.metric == metric and {r.a, r.b} == {a, b}:
                if r.a == a:
                    return r
                e = r.estimate
                flipped = (
                    stats.Estimate(1 - e.value, 1 - e.high, 1 - e.low, e.n, e.estimable)
                    if metric == "game_win"
                    else stats.Estimate(-e.value, -e.high, -e.low, e.n, e.estimable)
                )
                return replace(r, a=a, b=b, estimate=flipped)
        return None


def per_unit(folder: Path, first_side_parity: int, n_sides: int, mode: str) -> pl.DataFrame:
    """One row per deal (deals mode) or per game (games mode) of one run, A's side being the
    sides of parity ``first_side_parity``: A's and B's points (mean over their sides), deals,
    and whether A won the game."""
    half = n_sides // 2
    is_a = (pl.col("side") % 2) == first_side_parity
    points = pl.col("points").cast(pl.Float64)
    per_deal = (
        integrity.scan_run(folder)  # the chunks its manifest lists, checked
        .select("game", "deal", "side", "points", "won")
        .group_by("game", "deal")
        .agg(
            (points.filter(is_a).sum() / half).alias("a"),
            (points.filter(~is_a).sum() / half).alias("b"),
            (pl.col("won") & is_a).any().alias("a_won"),
        )
    )
    if mode == "deals":
        return per_deal.sort("game", "deal").collect()
    return (
        per_deal.group_by("game")
        .agg(
            pl.col("a").sum(),
            pl.col("b").sum(),
            pl.len().cast(pl.Float64).alias("deals"),
            pl.col("a_won").any(),
        )
        .sort("game")
        .collect()
    )


def load_pairing(tournament: Tournament, pairing: Pairing) -> dict:
    """The per-unit values of a pairing, the two runs aligned unit by unit, in pack order."""
    keys = ["game", "deal"] if tournament.mode == "deals" else ["game"]
    first = per_unit(pairing.runs[0].out, 0, tournament.n_sides, tournament.mode)
    second = per_unit(pairing.runs[1].out, 1, tournament.n_sides, tournament.mode)
    # In pack order: the pairings' units line up, as the joint bootstraps need.
    joined = first.join(second, on=keys, how="full", suffix="_2", coalesce=True).sort(keys)
    if joined.height != tournament.count or joined.null_count().sum_horizontal().item():
        raise TournamentError(
            f"{pairing.runs[0].out} and {pairing.runs[1].out} do not hold the same "
            f"{tournament.count:,} {tournament.mode}; rerun the tournament to complete them"
        )
    return {name: joined[name].to_numpy() for name in joined.columns}


def _variance_reduction(v_dup: float, v_plain: float) -> float | None:
    if not v_plain > 0:
        return None
    return float(1 - v_dup / (v_plain / 2))


def pairing_values(tournament: Tournament, units: dict) -> dict:
    """Per-unit duplicate values of a pairing (A's point of view) and what they derive from:
    ``a``/``b`` (points of A and B per unit, both runs), ``plain1``/``plain2`` (A - B of each run
    alone), ``outcome`` (A's duplicate win: 1, 1/2 or 0) and, in games mode, ``win``."""
    if tournament.mode == "deals":
        a = (units["a"] + units["a_2"]) / 2
        b = (units["b"] + units["b_2"]) / 2
        plain1 = units["a"] - units["b"]
        plain2 = units["a_2"] - units["b_2"]
        dup = a - b
        outcome = np.where(dup > 0, 1.0, np.where(dup < 0, 0.0, 0.5))
        return {"a": a, "b": b, "plain1": plain1, "plain2": plain2, "outcome": outcome}
    deals = units["deals"] + units["deals_2"]
    a = stats.linearised_ratio(units["a"] + units["a_2"], deals)
    b = stats.linearised_ratio(units["b"] + units["b_2"], deals)
    plain1 = stats.linearised_ratio(units["a"] - units["b"], units["deals"])
    plain2 = stats.linearised_ratio(units["a_2"] - units["b_2"], units["deals_2"])
    win = (units["a_won"].astype(np.float64) + units["a_won_2"].astype(np.float64)) / 2
    return {"a": a, "b": b, "plain1": plain1, "plain2": plain2, "outcome": win, "win": win}


def analyse(tournament: Tournament) -> Result:
    """Estimates per pairing, Holm per metric, variance reduction and ratings, from the Parquet
    files of the runs (see the module docstring)."""
    rows: list[Row] = []
    outcomes: dict[tuple[str, str], tuple[int, int, int]] = {}
    per_pack: dict[tuple[str, str], np.ndarray] = {}  # A's outcome on every pack, pack order
    v_dup_total = v_plain_total = 0.0
    units = 0
    for pairing in tournament.pairings:
        values = pairing_values(tournament, load_pairing(tournament, pairing))
        a, b = pairing.a.spec, pairing.b.spec
        diff, p = stats.paired_difference(values["b"], values["a"])
        dup = values["a"] - values["b"]
        v_dup = float(np.var(dup, ddof=1)) if len(dup) > 1 else 0.0
        v_plain = (
            float(np.var(values["plain1"], ddof=1) + np.var(values["plain2"], ddof=1)) / 2
            if len(dup) > 1
            else 0.0
        )
        v_dup_total += v_dup
        v_plain_total += v_plain
        rows.append(
            Row(a, b, "points_per_deal", diff, p, None, _variance_reduction(v_dup, v_plain))
        )
        if tournament.mode == "games":
            win = values["win"]
            edge, p = stats.paired_difference(np.full(len(win), 0.5), win)
            share = stats.Estimate(
                edge.value + 0.5, edge.low + 0.5, edge.high + 0.5, edge.n, edge.estimable
            )
            rows.append(Row(a, b, "game_win", share, p))
        o = values["outcome"]
        outcomes[(a, b)] = (int((o == 0).sum()), int((o == 0.5).sum()), int((o == 1).sum()))
        per_pack[(a, b)] = o
        units = len(dup)
    for metric in tournament.metrics():
        index = [i for i, r in enumerate(rows) if r.metric == metric]
        adjusted = stats.holm([rows[i].p_value for i in index])
        for i, p in zip(index, adjusted, strict=True):
            rows[i] = replace(rows[i], p_holm=float(p))
    rated = fit_ratings(tournament, per_pack)
    return Result(
        tournament, rows, rated.ratings, rated.upper_bounds,
        _variance_reduction(v_dup_total, v_plain_total), units, outcomes, rated.fit,
    )  # fmt: skip
