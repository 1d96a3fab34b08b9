"""What does a deal and a game look like?

How many points a side scores in a deal, how many scope (sweeps) a deal has, how many deals a game
lasts to 11, 16 and 21 points, and how often the leaders tie at or above the target so that further
deals are needed (docs/rules.md §6), in games of classic Scopa between greedy players.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses import framework
from analyses.framework import Needs, Run, require, runs
from scopa_sim import reporting, stats
from scopa_sim.rules import parse_variant

BASE = "classic-greedy"  # deals inside games to 11: the per-deal distributions
GAME_RUNS = ("classic-greedy", "classic-target-16", "classic-target-21")  # one per target
DEALS = "classic-deals"  # independent deals: a cross-check of the per-deal means, when present
NEEDS = Needs(runs=tuple(dict.fromkeys((BASE, *GAME_RUNS))), optional=(DEALS,))
KEY = (pl.col("game") * 4096 + pl.col("deal").cast(pl.Int64)).alias("key")  # one deal of a game

QUESTION = (
    "What does a deal and a game look like? How many points does a side score in a deal, how many "
    "scope does a deal have, how many deals does a game last, and how often does a tie at the "
    "target force extra deals?"
)
METHOD = (
    f"Per-deal distributions are tabulated over every deal of {BASE} (a side's points, split by "
    "whether it dealt; the scope of all sides together). Their means are ratio estimators over "
    "games, linearised per game (cluster-robust t intervals); the independent deals of "
    f"{DEALS}, when present, give a plain t-interval cross-check. A game's length is its number of "
    f"deals, from {', '.join(GAME_RUNS)} (targets 11, 16, 21; t intervals over games). A game "
    "needs extra deals for a tie when, after some deal, a side has reached the target but the "
    "leading sides have equal scores; its share of games has a Wilson interval. The runs of "
    "different targets share seed and players, so game g of each is dealt the same packs from the "
    "same first dealer: their lengths are compared paired by game (checked, else Welch), the "
    "page's one family of differences, with simultaneous (Bonferroni) intervals beside the 95% "
    "ones."
)
COLORS = ("#2b5d8a", "#b5472d", "#5a8f3c")


def target(run: Run) -> int:
    return parse_variant(run.config["variant_label"]).target


def sides(run: Run) -> int:
    return parse_variant(run.config["variant_label"]).n_sides


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
    lengths, ties = pl.collect_all([lengths, ties])
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
    )


@dataclass(frozen=True)
class TargetDifference:
    """Deals per game under a higher target minus a lower one, over the games both runs played."""

    low: GameShape
    high: GameShape
    difference: stats.Estimate
    paired: bool
    why: str  # how the games were compared, and why


def _per_game(run: Run, games: int) -> pl.DataFrame:
    """Per game below ``games``: its length in deals and its first dealer's side."""
    return (
        run.scan()
        .filter(pl.col("final") & (pl.col("side") == 0) & (pl.col("game") < games))
        .select("game", (pl.col("deal").cast(pl.Int64) + 1).alias("length"), "first_dealer")
        .sort("game")
        .collect()
    )


def target_difference(low: GameShape, high: GameShape) -> TargetDifference:
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
        diff, _ = stats.paired_difference(x["length"].to_numpy(), y["length"].to_numpy())
        why = (
            f"paired by game over games 0-{n - 1:,} of both runs (same seed, players and first "
            "dealers, so the same packs: the difference is the target's effect game by game)"
        )
    else:
        values = [
            np.repeat(g.lengths["length"].to_numpy(), g.lengths["games"].to_numpy())
            for g in (low, high)
        ]
        diff, _ = stats.independent_difference(*values)
        why = "unpaired (Welch): the runs do not share seeds, players or first dealers"
    return TargetDifference(low, high, diff, same, why)


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


def _points_chart(shape: DealShape) -> reporting.Markup:
    frame = shape.points
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    x = frame["points"].to_numpy()
    for offset, column, label, color in (
        (-0.2, "dealer", "dealer's side", COLORS[0]),
        (0.2, "other", "other side", COLORS[1]),
    ):
        counts = frame[column].to_numpy()
        ax.bar(x + offset, counts / counts.sum(), width=0.4, label=label, color=color)
    ax.set_xlabel("points of a side in a deal")
    ax.set_ylabel("share of side-deals")
    ax.set_xticks(x)
    ax.legend()
    fig.tight_layout()
    return reporting.svg(fig)


def _scope_chart(shape: DealShape) -> reporting.Markup:
    frame = shape.scope
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    x = frame["scope"].to_numpy()
    counts = frame["deals"].to_numpy()
    ax.bar(x, counts / counts.sum(), width=0.7, color=COLORS[0])
    ax.set_xlabel("scope in a deal, all sides together")
    ax.set_ylabel("share of deals")
    ax.set_xticks(x)
    fig.tight_layout()
    return reporting.svg(fig)


def _length_chart(games: list[GameShape]) -> reporting.Markup:
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    width = 0.8 / len(games)
    for i, (g, color) in enumerate(zip(games, COLORS * 3, strict=False)):
        x = g.lengths["length"].to_numpy()
        counts = g.lengths["games"].to_numpy()
        ax.bar(
            x + (i - (len(games) - 1) / 2) * width,
            counts / counts.sum(),
            width=width,
            color=color,
            label=f"target {g.target}",
        )
    ax.set_xlabel("deals in a game")
    ax.set_ylabel("share of games")
    ax.set_xticks(range(1, max(g.longest for g in games) + 1))
    ax.legend()
    fig.tight_layout()
    return reporting.svg(fig)


def _share(count: int, total: int) -> str:
    if count == 0:
        return "0"
    share = 100 * count / total
    return f"{share:.2f} %" if share >= 0.01 else f"{share:.1e} %"


def _deal_section(shape: DealShape, plain: IndependentDeals | None) -> reporting.Section:
    means = [
        ["dealer's side, points per deal", reporting.ci(shape.dealer_points)],
        ["other side, points per deal", reporting.ci(shape.other_points)],
        ["all sides, points per deal", reporting.ci(shape.total_points)],
        ["scope per deal, all sides", reporting.ci(shape.scope_mean)],
        ["deals with at least one scopa", framework.pct(shape.any_scopa)],
    ]
    columns = ["quantity", f"{shape.run.name}, {shape.deals:,} deals in games"]
    if plain is not None:
        columns.append(f"{plain.run.name}, {plain.deals:,} independent deals")
        means[0].append(reporting.ci(plain.dealer_points))
        means[1].append(reporting.ci(plain.other_points))
        means[2].append(reporting.ci(plain.total_points))
        means[3].append(reporting.ci(plain.scope_mean))
        means[4].append(framework.pct(plain.any_scopa))
    points = shape.points
    dealer_total, other_total = int(points["dealer"].sum()), int(points["other"].sum())
    scope_total = int(shape.scope["deals"].sum())
    return reporting.Section(
        "A deal",
        text=(
            "The four categories (cards, coins, settebello, primiera) give 1 to 4 points per deal "
            "in all: the settebello always goes to some side, the other three score nothing when "
            "tied. Every scopa adds one point."
        ),
        figures=[
            reporting.Figure(
                f"Points of a side in a deal ({shape.run.name})", _points_chart(shape)
            ),
            reporting.Figure(f"Scope in a deal, all sides ({shape.run.name})", _scope_chart(shape)),
        ],
        tables=[
            reporting.Table("Means per deal (95% CI)", columns, means),
            reporting.Table(
                f"Points of a side in a deal ({shape.run.name}): share of side-deals",
                ["points", "dealer's side", "other side"],
                [
                    [str(p), _share(d, dealer_total), _share(o, other_total)]
                    for p, d, o in points.select("points", "dealer", "other").iter_rows()
                ],
            ),
            reporting.Table(
                f"Scope in a deal, all sides ({shape.run.name}): share of deals",
                ["scope", "deals", "share"],
                [[str(k), f"{n:,}", _share(n, scope_total)] for k, n in shape.scope.iter_rows()],
            ),
        ],
    )


def _differences_table(differences: list[TargetDifference]) -> reporting.Table:
    level = stats.family_level(len(differences))
    return reporting.Table(
        "Extra deals per game from a higher target: 95% CI, and the simultaneous (Bonferroni) "
        f"interval of the {len(differences)} comparisons, each at level {level:.4f}: the page's "
        "one family of differences",
        ["higher target minus lower", "games compared", "deals per game [95% CI]",
         "simultaneous interval", "design"],
        [
            [
                f"{d.high.target} minus {d.low.target}",
                f"{d.difference.n:,}" if d.paired else f"{d.low.games:,} and {d.high.games:,}",
                reporting.ci(d.difference),
                reporting.ci(stats.rescale(d.difference, level)),
                d.why,
            ]
            for d in differences
        ],
    )  # fmt: skip


def _game_section(
    games: list[GameShape], differences: list[TargetDifference] = ()
) -> reporting.Section:
    rows = [
        [
            str(g.target),
            g.run.name,
            f"{g.games:,}",
            reporting.ci(g.length),
            str(g.median),
            str(g.p99),
            str(g.longest),
            framework.pct(g.tie_share),
            f"{g.tie_deals:,}",
            f"{g.extra_if_tied:.2f}",
        ]
        for g in games
    ]
    longest = max(g.longest for g in games)
    shares = [
        [str(n)]
        + [
            _share(int(g.lengths.filter(pl.col("length") == n)["games"].sum()), g.games)
            for g in games
        ]
        for n in range(1, longest + 1)
    ]
    return reporting.Section(
        "A game",
        text=(
            "Points are added at the end of each deal; the first side to reach the target at the "
            "end of a deal wins, and if the leading sides are tied at or above it, further deals "
            "are played (docs/rules.md §6). 'Tie deals' counts the deals after which that "
            "happened; "
            "each one forced a further deal."
        ),
        figures=[reporting.Figure("Deals per game, by target", _length_chart(games))],
        tables=[
            reporting.Table(
                "Game length and ties at the target",
                [
                    "target",
                    "run",
                    "games",
                    "deals per game [95% CI]",
                    "median",
                    "99th percentile",
                    "longest",
                    "games with a tie at the target [95% CI]",
                    "tie deals",
                    "tied games: mean extra deals over the others",
                ],
                rows,
            ),
            reporting.Table(
                "Share of games by length (deals)",
                ["deals", *(f"target {g.target}" for g in games)],
                shares,
            ),
            *([_differences_table(list(differences))] if differences else []),
        ],
    )


DEAL_MEASURES = (  # attribute, finding name, unit
    ("dealer_points", "dealer_points", "points per deal, the dealer's side"),
    ("other_points", "other_points", "points per deal, a side that did not deal"),
    ("total_points", "total_points", "points per deal, all sides"),
    ("scope_mean", "scope", "scope per deal, all sides"),
    ("any_scopa", "any_scopa", "share of deals with at least one scopa"),
)


def findings(
    shape: DealShape,
    plain: IndependentDeals | None,
    games: list[GameShape],
    differences: list[TargetDifference] = (),
) -> list[reporting.Finding]:
    """The estimates of the means table (``deal_shape.deal.*``, and the independent deals'
    cross-check ``deal_shape.independent_deals.*``) and per target the game length and the share
    of games tied at the target (``deal_shape.target_T.*``), the two numbers of the finding."""
    out = [
        reporting.Finding(f"deal_shape.deal.{name}", getattr(shape, attr), unit)
        for attr, name, unit in DEAL_MEASURES
    ]
    if plain is not None:
        out += [
            reporting.Finding(f"deal_shape.independent_deals.{name}", getattr(plain, attr), unit)
            for attr, name, unit in DEAL_MEASURES
        ]
    for g in games:
        out += [
            reporting.Finding(f"deal_shape.target_{g.target}.deals_per_game", g.length, "deals"),
            reporting.Finding(
                f"deal_shape.target_{g.target}.tie_share",
                g.tie_share,
                "share of games needing extra deals for a tie at the target",
            ),
        ]
    out += [
        reporting.Finding(
            f"deal_shape.target_{d.high.target}_minus_{d.low.target}.deals_per_game",
            d.difference,
            "deals per game, higher target minus lower" + (", paired by game" if d.paired else ""),
        )
        for d in differences
    ]
    return out


def build(data: Path) -> reporting.Page:
    """What does a deal and a game look like?

    Points per side and scope per deal (histograms, cluster-robust means), deals per game for
    targets 11, 16 and 21, and the share of games where a tie at the target forced extra deals.
    """
    game_runs = [require(data, name) for name in GAME_RUNS]
    base = require(data, BASE)
    deals_run = runs(data).get(DEALS)
    shape = deal_shape(base)
    # The cross-check needs one other side per deal, so that side-deals are independent.
    usable = deals_run is not None and deals_run.mode == "deals" and sides(deals_run) == 2
    plain = independent_deals(deals_run) if usable else None
    games = sorted((game_shape(run) for run in game_runs), key=lambda g: g.target)
    head = next((g for g in games if g.run.name == BASE), games[0])
    differences = [target_difference(lo, hi) for lo, hi in itertools.pairwise(games)]
    finding = (
        f"A game to {head.target} between greedy players lasts {reporting.ci(head.length)} deals, "
        f"and {framework.pct(head.tie_share)} of games need extra deals because the leaders tie "
        "at or above the target."
    )
    provenance = [g.run.provenance(g.deals, games=g.games) for g in games]
    used = [g.run for g in games]
    if plain is not None:
        provenance.append(plain.run.provenance(plain.deals))
        used.append(plain.run)
    return framework.page(
        "deal_shape",
        slug="deal-shape",
        title="The shape of a deal and of a game",
        question=QUESTION,
        method=METHOD,
        used=used,
        finding=finding,
        sections=[_deal_section(shape, plain), _game_section(games, differences)],
        data=provenance,
        findings=findings(shape, plain, games, differences),
    )


if __name__ == "__main__":
    sys.exit(framework.main(build))
