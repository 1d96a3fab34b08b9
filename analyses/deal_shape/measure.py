"""What does a deal and a game look like: the measurement.

Per deal of a run of games: a side's points (split by whether it dealt) and the scope of all
sides, with ratio means over games linearised per game; per game: its length and whether the
leaders tied at the target; the length difference between two targets, paired by game when the
runs share every pack; and the per-deal means of independent deals, the plain cross-check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from analyses import framework
from analyses.framework import Family, Run
from scopa_sim import stats
from scopa_sim.rules import variant_of_config

KEY = (pl.col("game") * 4096 + pl.col("deal").cast(pl.Int64)).alias("key")  # one deal of a game


def target(run: Run) -> int:
    return variant_of_config(run.config).target


def sides(run: Run) -> int:
    return variant_of_config(run.config).n_sides


def _repeat_mean(values, counts) -> stats.Estimate:
    """Mean and t interval of a sample given as a frequency table (value, count)."""
    return stats.mean_ci(np.repeat(np.asarray(values, np.float64), np.asarray(counts, np.int64)))


@dataclass(frozen=True)
class DealShape:
    run: Run
    deals: int
    points: pl.DataFrame  # points, dealer side-deals, other side-deals (counts)
    scope: pl.DataFrame  # total scope in a deal, deals (counts)
    dealer_points: stats.Estimate  # per deal, cluster-robust
    other_points: stats.Estimate  # per side-deal of the non-dealing sides, cluster-robust
    total_points: stats.Estimate  # all sides, per deal
    scope_mean: stats.Estimate  # all sides, per deal
    any_scopa: stats.Estimate  # share of deals with at least one scopa (cluster-robust)


def deal_shape(run: Run) -> DealShape:
    s = sides(run)
    lf = run.scan()
    points = (
        lf.group_by("points")
        .agg(
            pl.col("dealer").sum().cast(pl.Int64).alias("dealer"),
            (~pl.col("dealer")).sum().cast(pl.Int64).alias("other"),
        )
        .sort("points")
        .collect()
    )
    per_deal = lf.group_by(KEY).agg(pl.col("game").first(), pl.col("scope").cast(pl.Int64).sum())
    scope = per_deal.group_by("scope").agg(pl.len().cast(pl.Int64).alias("deals")).sort("scope")
    per_game = (
        per_deal.group_by("game")
        .agg((pl.col("scope") > 0).sum().cast(pl.Int64).alias("swept"))
        .join(
            lf.group_by("game").agg(
                pl.col("points").cast(pl.Int64).filter(pl.col("dealer")).sum().alias("dealer"),
                pl.col("points").cast(pl.Int64).filter(~pl.col("dealer")).sum().alias("other"),
                pl.col("scope").cast(pl.Int64).sum().alias("scope"),
                (pl.len() // s).alias("deals"),
            ),
            on="game",
        )
        .sort("game")
    )
    scope, per_game = pl.collect_all([scope, per_game])
    deals = per_game["deals"].to_numpy()

    def ratio(column, scale=1.0):
        return stats.mean_ci(stats.linearised_ratio(per_game[column].to_numpy() / scale, deals))

    return DealShape(
        run,
        int(deals.sum()),
        points,
        scope,
        ratio("dealer"),
        ratio("other", s - 1),
        stats.mean_ci(
            stats.linearised_ratio((per_game["dealer"] + per_game["other"]).to_numpy(), deals)
        ),
        ratio("scope"),
        ratio("swept"),
    )


@dataclass(frozen=True)
class GameShape:
    run: Run
    target: int
    lengths: pl.DataFrame  # length (deals), games
    length: stats.Estimate
    median: int
    p99: int
    longest: int
    tie_games: int
    tie_deals: int  # deals after which the leaders were tied at or above the target
    tie_share: stats.Estimate  # Wilson
    extra_if_tied: float  # mean length of tied games minus mean length of the others
    per_game: pl.DataFrame = field(default=None, repr=False, compare=False)  # game, length, tied

    @property
    def games(self) -> int:
        return int(self.lengths["games"].sum())

    @property
    def deals(self) -> int:
        return int((self.lengths["length"] * self.lengths["games"]).sum())


def game_shape(run: Run) -> GameShape:
    t = target(run)
    lf = run.scan()
    length = lf.filter(pl.col("final") & (pl.col("side") == 0)).select(
        "game", (pl.col("deal").cast(pl.Int64) + 1).alias("length")
    )
    # A tie at the target: after the deal a side has reached it and the top score is shared.
    # Sides below the target cannot be among tied leaders, so they are dropped first (cheap).
    reached = lf.filter(pl.col("score") >= t).select(KEY, "game", "score")
    tied = (
        reached.filter(pl.col("score") == pl.col("score").max().over("key"))
        .group_by("key")
        .agg(pl.col("game").first(), pl.len().alias("leaders"))
        .filter(pl.col("leaders") > 1)
        .group_by("game")
        .agg(pl.len().cast(pl.Int64).alias("tie_deals"))
    )
    per_game = length.join(tied, on="game", how="left").with_columns(
        pl.col("tie_deals").fill_null(0), (pl.col("tie_deals").fill_null(0) > 0).alias("tied")
    )
    lengths = per_game.group_by("length").agg(pl.len().cast(pl.Int64).alias("games")).sort("length")
    ties = per_game.group_by("tied").agg(
        pl.len().cast(pl.Int64).alias("games"),
        pl.col("tie_deals").sum().cast(pl.Int64),
        pl.col("length").sum().cast(pl.Int64).alias("deals"),
    )
    lengths, ties, each = pl.collect_all(
        [lengths, ties, per_game.select("game", "length", "tied").sort("game")]
    )
    by = {row["tied"]: row for row in ties.iter_rows(named=True)}
    tied_row = by.get(True, {"games": 0, "tie_deals": 0, "deals": 0})
    other_row = by.get(False, {"games": 0, "tie_deals": 0, "deals": 0})
    games = tied_row["games"] + other_row["games"]
    extra = (
        tied_row["deals"] / tied_row["games"] - other_row["deals"] / other_row["games"]
        if tied_row["games"] and other_row["games"]
        else float("nan")
    )
    cumulative = np.cumsum(lengths["games"].to_numpy()) / games
    values = lengths["length"].to_numpy()
    return GameShape(
        run,
        t,
        lengths,
        _repeat_mean(values, lengths["games"].to_numpy()),
        int(values[np.searchsorted(cumulative, 0.5)]),
        int(values[np.searchsorted(cumulative, 0.99)]),
        int(values.max()),
        tied_row["games"],
        tied_row["tie_deals"],
        stats.proportion_ci(tied_row["games"], games),
        extra,
        each,
    )


@dataclass(frozen=True)
class TargetDifference:
    """Deals per game under a higher target minus a lower one, over the games both runs played."""

    low: GameShape
    high: GameShape
    difference: stats.Estimate
    paired: bool
    why: str  # how the games were compared, and why
    p_value: float = 1.0  # two-sided, of no difference (the page's family tests it)
    level: str = "beginner"  # the level whose two runs are compared (framework.LEVELS)

    @property
    def key(self) -> tuple[str, int, int]:
        """Its key in the page's family: the level, then the two targets, lower first."""
        return (self.level, self.low.target, self.high.target)


def _per_game(run: Run, games: int) -> pl.DataFrame:
    """Per game below ``games``: its length in deals and its first dealer's side."""
    return (
        run.scan()
        .filter(pl.col("final") & (pl.col("side") == 0) & (pl.col("game") < games))
        .select("game", (pl.col("deal").cast(pl.Int64) + 1).alias("length"), "first_dealer")
        .sort("game")
        .collect()
    )


def target_difference(low: GameShape, high: GameShape, level: str = "beginner") -> TargetDifference:
    """How many more deals a game lasts under the higher target, paired by game.

    Runs with the same seed and players deal game g the same packs in the same order and draw
    the same first dealer (common random numbers), so their game g differ only by the target:
    the per-game difference of lengths is the effect of the target on that game. Pairing is
    checked, not assumed: seeds, players and every game's first dealer must agree; otherwise
    the runs are compared as independent samples (Welch) and the page says why."""
    a, b = low.run.config, high.run.config
    n = min(low.games, high.games)
    x, y = _per_game(low.run, n), _per_game(high.run, n)
    same = (
        a["seed"] == b["seed"]
        and list(a["players"]) == list(b["players"])
        and x.height == y.height == n
        and x["game"].equals(y["game"])
        and x["first_dealer"].equals(y["first_dealer"])
    )
    if same:
        diff, p = stats.paired_difference(x["length"].to_numpy(), y["length"].to_numpy())
        why = (
            f"paired by game over games 0-{n - 1:,} of both runs (same seed, players and first "
            "dealers, so the same packs: the difference is the target's effect game by game)"
        )
    else:
        values = [
            np.repeat(g.lengths["length"].to_numpy(), g.lengths["games"].to_numpy())
            for g in (low, high)
        ]
        diff, p = stats.independent_difference(*values)
        why = "unpaired (Welch): the runs do not share seeds, players or first dealers"
    return TargetDifference(low, high, diff, same, why, p, level)


@dataclass(frozen=True)
class LevelDifference:
    """Experts minus beginners at one target: deals per game and the share of games tied at the
    target, paired by game when the two runs play the same packs, else Welch's."""

    beginner: GameShape
    expert: GameShape
    length: stats.Estimate
    length_p: float
    tie: stats.Estimate
    tie_p: float
    paired: bool
    why: str  # how the games were compared, and why

    @property
    def target(self) -> int:
        return self.beginner.target

    def key(self, measure: str) -> tuple[str, int, str]:
        """The key of ``measure`` (length, tie) in the page's family."""
        return ("levels", self.target, measure)


def level_difference(beginner: GameShape, expert: GameShape) -> LevelDifference:
    """Experts' games against beginners' at one target. The pack stream does not depend on the
    players, so two runs of the same seed, rules and size deal game g the same packs from the
    same first dealer: the per-game difference is the players' doing. Checked, not assumed
    (seed, mode, deal shape, game numbers and every first dealer), else Welch."""
    reason = framework.same_packs(beginner.run, expert.run)
    n = beginner.games
    if not reason:
        x, y = _per_game(beginner.run, n), _per_game(expert.run, n)
        if not (expert.games == n and x["game"].equals(y["game"])):
            reason = f"other games ({n:,} and {expert.games:,})"
        elif not x["first_dealer"].equals(y["first_dealer"]):
            reason = "other first dealers"
    b, e = beginner.per_game, expert.per_game
    if not reason:
        length, length_p = stats.paired_difference(b["length"].to_numpy(), e["length"].to_numpy())
        tie, tie_p = stats.paired_difference(
            b["tied"].to_numpy().astype(float), e["tied"].to_numpy().astype(float)
        )
        why = f"paired by game over games 0-{n - 1:,} of both runs (the same packs)"
    else:
        length, length_p = stats.independent_difference(
            b["length"].to_numpy(), e["length"].to_numpy()
        )
        tie, tie_p = stats.independent_difference(
            b["tied"].to_numpy().astype(float), e["tied"].to_numpy().astype(float)
        )
        why = f"unpaired (Welch): {reason}"
    return LevelDifference(beginner, expert, length, length_p, tie, tie_p, not reason, why)


def differences_family(
    differences: list[TargetDifference], levels: list[LevelDifference] = ()
) -> Family:
    """The page's one family: every difference between adjacent targets at each level, and the
    experts' minus the beginners' game length and tie share at each target, Holm-adjusted and
    with Bonferroni intervals (the page shows the intervals)."""
    out = Family()
    for d in differences:
        out.add(d.key, d.difference, d.p_value)
    for d in levels:
        out.add(d.key("length"), d.length, d.length_p)
        out.add(d.key("tie"), d.tie, d.tie_p)
    out.close()
    return out


@dataclass(frozen=True)
class IndependentDeals:
    run: Run
    deals: int
    dealer_points: stats.Estimate
    other_points: stats.Estimate
    total_points: stats.Estimate
    scope_mean: stats.Estimate
    any_scopa: stats.Estimate


def independent_deals(run: Run) -> IndependentDeals:
    """Per-deal means from a two-sided --deals run: every deal independent, plain t intervals."""
    lf = run.scan()
    points = (
        lf.group_by("dealer", "points")
        .agg(pl.len().cast(pl.Int64).alias("n"))
        .sort("dealer", "points")
    )
    per_deal = lf.group_by("game").agg(
        pl.col("points").cast(pl.Int64).sum(), pl.col("scope").cast(pl.Int64).sum()
    )
    totals = per_deal.group_by("points").agg(pl.len().cast(pl.Int64).alias("n")).sort("points")
    scope = per_deal.group_by("scope").agg(pl.len().cast(pl.Int64).alias("n")).sort("scope")
    points, totals, scope = pl.collect_all([points, totals, scope])
    dealer = points.filter(pl.col("dealer"))
    other = points.filter(~pl.col("dealer"))
    deals = int(scope["n"].sum())
    return IndependentDeals(
        run,
        deals,
        _repeat_mean(dealer["points"], dealer["n"]),
        _repeat_mean(other["points"], other["n"]),
        _repeat_mean(totals["points"], totals["n"]),
        _repeat_mean(scope["scope"], scope["n"]),
        stats.proportion_ci(int(scope.filter(pl.col("scope") > 0)["n"].sum()), deals),
    )
