"""How large is the dealer's edge?

The dealer plays last in every round of a deal (docs/rules.md §2) and, under the classic rules,
the last capturer of the deal takes the cards left on the table. This page measures, in every
complete run of the data folder, how many more points per deal the dealer's side scores than the
other side(s), how often the side that deals the first deal of a game goes on to win it, and
whether forcing captures (``forced_capture``) changes the edge.

The first dealer of every game is drawn at random (recorded in the column ``first_dealer``; the
column ``dealer`` says who deals each deal), so when the sides play different strategies each
strategy deals first in about half the games: the first dealer's share of games won, and the
dealer's edge per deal, are then not confounded with the skill gap between the strategies.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses._common import MissingData, Run, main, players_sentence, reproduce, runs
from scopa_sim import reporting, stats
from scopa_sim.rules import parse_variant

QUESTION = (
    "How large is the dealer's edge? How many more points per deal does the dealer's side score "
    "than the other side(s), and how often does the side that deals first win the game, for each "
    "pairing of players?"
)
METHOD = (
    "For every complete run, each deal gives the dealer's side's points (column dealer) minus the "
    "mean points of the other sides (with two sides: minus the leader's side). Deals of a game "
    "are not independent, so per-deal means are ratio estimators over games, linearised per game "
    "(cluster-robust t intervals); independent deals (--deals runs, each a one-deal game with a "
    "dealer drawn at random) get plain t intervals. The first dealer of every game is drawn at "
    "random (docs/rules.md §2) and recorded in the column first_dealer; its side's share of games "
    "won has a Wilson interval, to be read against 1 / sides, the share with no edge. Because the "
    "draw is random, in a run between different players each player deals first in about half "
    "the games: the first dealer's share of games won, and the dealer's edge per deal, measure "
    "the seat and not the skill gap between the players; the page also splits both by the "
    "player who dealt. p-values of the edges are Holm-adjusted over the runs."
)
HEADLINE = "classic-greedy"  # the run of the one-sentence finding, when present
FORCED = ("classic-greedy-vs-random", "classic-forced-capture")  # same players, same seed
COLOR = "#2b5d8a"


@dataclass(frozen=True)
class Shape:
    players: int
    sides: int


def shape(run: Run) -> Shape:
    rules = parse_variant(run.config["variant_label"])
    return Shape(rules.n_players, rules.n_sides)


@dataclass(frozen=True)
class StrategyEdge:
    strategy: str
    dealing: stats.Estimate  # points per side-deal when this strategy's side deals
    other: stats.Estimate  # points per side-deal when it does not
    gain: stats.Estimate  # dealing - other
    values: np.ndarray  # per-cluster linearised gain, to combine strategies


@dataclass(frozen=True)
class FirstDealer:
    """Games whose first deal a strategy's side dealt, and the share of them that side won."""

    strategy: str
    games: int
    won: stats.Estimate  # Wilson
    # Two sides only: the strategy's share of games won when it dealt first minus when the other
    # side did (Newcombe): the effect of dealing first on that strategy, randomised by the draw.
    gain: stats.Estimate | None


@dataclass(frozen=True)
class Edge:
    run: Run
    shape: Shape
    deals: int
    dealer: stats.Estimate  # points per deal of the dealer's side
    other: stats.Estimate  # mean points per deal of the other sides
    edge: stats.Estimate  # dealer - other, per deal
    p_value: float
    first_won: stats.Estimate | None  # games won by the first dealer's side (games runs)
    first_by_strategy: list[FirstDealer]  # mixed games runs: by the first dealer's strategy
    strategies: list[StrategyEdge]
    edge_values: np.ndarray  # per-cluster linearised edge, for comparing runs

    @property
    def games(self) -> bool:
        return self.run.mode == "games"


def _per_game(run: Run, sh: Shape) -> pl.DataFrame:
    """One row per game (per deal for --deals runs): the dealer's and the others' point sums,
    whether the first dealer's side won, and the strategy of the first dealer's side."""
    points = pl.col("points").cast(pl.Int64)
    first = pl.col("first_dealer")
    return (
        run.scan()
        .group_by("game")
        .agg(
            points.filter(pl.col("dealer")).sum().alias("dealer"),
            points.filter(~pl.col("dealer")).sum().alias("other"),
            (pl.len() // sh.sides).alias("deals"),
            (pl.col("won") & first).any().alias("first_won"),
            pl.col("strategy").filter(first).first().alias("first_strategy"),
        )
        .sort("game")
        .collect()
    )


def _first_by_strategy(games: pl.DataFrame, sh: Shape) -> list[FirstDealer]:
    """The first dealer's share of games won, by the strategy of its side (mixed runs)."""
    counts = {
        row["first_strategy"]: (row["games"], row["won"])
        for row in games.group_by("first_strategy")
        .agg(pl.len().alias("games"), pl.col("first_won").sum().alias("won"))
        .iter_rows(named=True)
    }
    out = []
    for strategy in sorted(counts):
        n, k = counts[strategy]
        gain = None
        if sh.sides == 2 and len(counts) == 2:
            # When the other strategy dealt first, this one won the games the first dealer lost.
            other_n, other_k = next(v for s, v in counts.items() if s != strategy)
            gain = stats.proportion_difference(other_n - other_k, other_n, k, n)
        out.append(FirstDealer(strategy, n, stats.proportion_ci(k, n), gain))
    return out


def _per_strategy(run: Run) -> list[StrategyEdge]:
    """Each strategy's points per side-deal when its side deals and when it does not."""
    points = pl.col("points").cast(pl.Int64)
    frame = (
        run.scan()
        .group_by("game", "strategy")
        .agg(
            points.filter(pl.col("dealer")).sum().alias("d_sum"),
            pl.col("dealer").sum().cast(pl.Int64).alias("d_n"),
            points.filter(~pl.col("dealer")).sum().alias("o_sum"),
            (~pl.col("dealer")).sum().cast(pl.Int64).alias("o_n"),
        )
        .sort("strategy", "game")
        .collect()
    )
    out = []
    for strategy in sorted(set(run.config["players"])):
        part = frame.filter(pl.col("strategy") == strategy)
        dealing = stats.linearised_ratio(part["d_sum"].to_numpy(), part["d_n"].to_numpy())
        other = stats.linearised_ratio(part["o_sum"].to_numpy(), part["o_n"].to_numpy())
        gain, _ = stats.paired_difference(other, dealing)
        out.append(
            StrategyEdge(
                strategy, stats.mean_ci(dealing), stats.mean_ci(other), gain, dealing - other
            )
        )
    return out


def measure(run: Run) -> Edge:
    """The dealer's edge in one run."""
    sh = shape(run)
    games = _per_game(run, sh)
    deals = games["deals"].to_numpy()
    # With one deal per cluster (--deals runs) the linearised values are the per-deal values.
    dealer = stats.linearised_ratio(games["dealer"].to_numpy(), deals)
    other = stats.linearised_ratio(games["other"].to_numpy() / (sh.sides - 1), deals)
    edge, p = stats.paired_difference(other, dealer)
    first_won = None
    mixed = len(set(run.config["players"])) > 1
    by_strategy = []
    if run.mode == "games":
        first_won = stats.proportion_ci(int(games["first_won"].sum()), games.height)
        if mixed:
            by_strategy = _first_by_strategy(games, sh)
    return Edge(
        run,
        sh,
        int(deals.sum()),
        stats.mean_ci(dealer),
        stats.mean_ci(other),
        edge,
        p,
        first_won,
        by_strategy,
        _per_strategy(run) if mixed else [],
        dealer - other,
    )


@dataclass(frozen=True)
class ForcedCapture:
    base: Edge
    forced: Edge
    edge_diff: stats.Estimate  # forced - base, independent samples
    win_diff: stats.Estimate  # forced - base, first dealer's share of games won
    deal0: stats.Estimate  # forced - base, deal-0 edge paired by game
    deal0_p: float
    common_rows: int  # side-deals present in both runs (same game, deal, side)
    identical_rows: int  # of which with the same captured cards and points


def _won_difference(a: stats.Estimate, b: stats.Estimate) -> stats.Estimate:
    """``b - a`` for two shares of games won (Newcombe interval)."""
    return stats.proportion_difference(round(a.value * a.n), a.n, round(b.value * b.n), b.n)


def forced_capture(base: Edge, forced: Edge) -> ForcedCapture:
    sh = base.shape
    keys = ["game", "deal", "side"]
    cols = [*keys, "dealer", "points", "captured"]
    joined = (
        base.run.scan()
        .select(cols)
        .join(forced.run.scan().select(cols), on=keys, how="inner", suffix="_f")
    )
    same = joined.select(
        pl.len().alias("rows"),
        ((pl.col("points") == pl.col("points_f")) & (pl.col("captured") == pl.col("captured_f")))
        .sum()
        .alias("same"),
    ).collect()
    edge = (pl.when(pl.col("dealer")).then(1.0).otherwise(-1.0 / (sh.sides - 1))).cast(pl.Float64)
    deal0 = (
        joined.filter(pl.col("deal") == 0)
        .group_by("game")
        .agg(
            (edge * pl.col("points")).sum().alias("base"),
            (
                pl.when(pl.col("dealer_f")).then(1.0).otherwise(-1.0 / (sh.sides - 1))
                * pl.col("points_f")
            )
            .sum()
            .alias("forced"),
        )
        .sort("game")
        .collect()
    )
    diff0, p0 = stats.paired_difference(deal0["base"].to_numpy(), deal0["forced"].to_numpy())
    return ForcedCapture(
        base,
        forced,
        stats.independent_difference(base.edge_values, forced.edge_values)[0],
        _won_difference(base.first_won, forced.first_won),
        diff0,
        p0,
        int(same["rows"].item()),
        int(same["same"].item()),
    )


def _edge_chart(edges: list[Edge]) -> reporting.Markup:
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(edges) + 1.2))
    y = np.arange(len(edges))[::-1]
    values = np.array([e.edge.value for e in edges])
    err = np.array(
        [[e.edge.value - e.edge.low for e in edges], [e.edge.high - e.edge.value for e in edges]]
    )
    ax.errorbar(values, y, xerr=err, fmt="o", color=COLOR, capsize=3)
    ax.axvline(0, color="#888", lw=1, ls="--")
    ax.set_yticks(y, [e.run.name for e in edges])
    ax.set_xlabel("dealer's side minus other side(s), points per deal (95% CI)")
    fig.tight_layout()
    return reporting.svg(fig)


def _win_chart(edges: list[Edge]) -> reporting.Markup:
    shown = [e for e in edges if e.first_won is not None]
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(shown) + 1.5))
    y = np.arange(len(shown))[::-1]
    values = np.array([e.first_won.value for e in shown])
    err = np.array(
        [
            [e.first_won.value - e.first_won.low for e in shown],
            [e.first_won.high - e.first_won.value for e in shown],
        ]
    )
    ax.errorbar(values, y, xerr=err, fmt="o", color=COLOR, capsize=3, label="first dealer's side")
    ax.scatter(
        [1 / e.shape.sides for e in shown],
        y,
        marker="|",
        s=200,
        color="#b5472d",
        label="no edge (1 / sides)",
    )
    ax.set_yticks(y, [e.run.name for e in shown])
    ax.set_xlabel("share of games won by the side that dealt the first deal (95% CI)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2, fontsize="small")
    fig.tight_layout()
    return reporting.svg(fig)


def _pct(e: stats.Estimate, unit: str = "%") -> str:
    return f"{100 * e.value:.2f} {unit} [{100 * e.low:.2f}, {100 * e.high:.2f}]"


def _edge_table(edges: list[Edge], p_holm) -> reporting.Table:
    rows = []
    for e, p in zip(edges, p_holm, strict=True):
        rows.append(
            [
                e.run.name,
                e.run.config["variant_label"],
                ",".join(e.run.config["players"]),
                str(e.shape.sides),
                f"{e.deals:,}",
                "games" if e.games else "deals (independent)",
                reporting.ci(e.dealer),
                reporting.ci(e.other),
                reporting.ci(e.edge),
                f"{p:.3g}",
                "—" if e.first_won is None else _pct(e.first_won),
                f"{100 / e.shape.sides:.1f} %",
            ]
        )
    return reporting.Table(
        "Points per deal of the dealer's side and of the other side(s) (mean over the other "
        "sides), their difference, and the first dealer's share of games won",
        [
            "run",
            "variant",
            "players",
            "sides",
            "deals",
            "clusters",
            "dealer's side",
            "other side(s)",
            "edge [95% CI]",
            "p (Holm)",
            "first dealer wins",
            "no-edge share",
        ],
        rows,
    )


def _strategy_section(edges: list[Edge]) -> reporting.Section | None:
    mixed = [e for e in edges if e.strategies]
    if not mixed:
        return None
    rows = []
    for e in mixed:
        for s in e.strategies:
            rows.append(
                [
                    e.run.name,
                    s.strategy,
                    reporting.ci(s.dealing),
                    reporting.ci(s.other),
                    reporting.ci(s.gain),
                    "—",
                ]
            )
        balanced = stats.mean_ci(np.mean([s.values for s in e.strategies], axis=0))
        rows.append(
            [
                e.run.name,
                "mean over strategies",
                "—",
                "—",
                reporting.ci(balanced),
                reporting.ci(e.edge),
            ]
        )
    first_rows = []
    for e in mixed:
        for f in e.first_by_strategy:
            first_rows.append([e.run.name, f.strategy, f"{f.games:,}", _pct(f.won), "—"])
        gains = [f.gain for f in e.first_by_strategy if f.gain is not None]
        if gains:  # two sides: the same difference for either strategy (a + b - 1)
            first_rows.append(
                [e.run.name, "either strategy", f"{e.first_won.n:,}", "—", _pct(gains[0], "pp")]
            )
    tables = [
        reporting.Table(
            "Points per side-deal of each strategy when its side deals and when it does not; "
            "the last column is the dealer-minus-other difference of the whole run",
            [
                "run",
                "strategy",
                "dealing",
                "not dealing",
                "gain from dealing [95% CI]",
                "dealer minus other, all deals",
            ],
            rows,
        )
    ]
    if first_rows:
        tables.append(
            reporting.Table(
                "Games by the strategy of the side that dealt first (drawn at random): that "
                "side's share of them won; with two sides, how much dealing first raises a "
                "strategy's share of games won (its share when it dealt first minus when the "
                "other did, the same for either strategy)",
                ["run", "first dealer", "games", "first dealer wins", "gain from dealing first"],
                first_rows,
            )
        )
    return reporting.Section(
        "By strategy",
        text=(
            "When the sides play different strategies, the dealer-minus-other difference could mix "
            "the edge with the skill gap, weighted by who dealt how often. The first dealer is "
            "drawn at random, so each strategy deals first in about half the games and deals "
            "about as often as the other over the run: the whole run's difference is the edge "
            "averaged over the strategies (up to a small term from games of odd length, whose "
            "first dealer deals once more). Each strategy is also compared with itself: its "
            "side's points per deal when it deals minus when it does not (cluster-robust by "
            "game); the mean over strategies is the edge with the skill gap balanced out exactly. "
            "For whole games the random draw also makes dealing first a randomised treatment: a "
            "strategy's share of games won when it dealt first minus when the other side did is "
            "the effect of dealing first on it (Newcombe interval), with no confounding by skill."
        ),
        tables=tables,
    )


def _forced_section(fc: ForcedCapture) -> reporting.Section:
    common = fc.common_rows
    if common and fc.identical_rows == common:
        verdict = (
            f"In fact the two runs agree row for row on all {common:,} side-deals they share "
            f"(same game, deal and side: same cards captured, same points): a greedy player always "
            "captures when it can, so forced capture never changes its play. With greedy players "
            "these data cannot show any effect of the rule; the independent-samples difference "
            f"is the noise between {fc.base.run.name}'s other games and the common ones, and the "
            "paired deal-0 difference is exactly zero."
        )
    else:
        verdict = (
            f"Of the {common:,} side-deals the two runs share (same game, deal and side), "
            f"{common - fc.identical_rows:,} differ in cards captured or points."
        )
    rows = [
        [
            "dealer's edge, points per deal (all deals)",
            reporting.ci(fc.base.edge),
            reporting.ci(fc.forced.edge),
            reporting.ci(fc.edge_diff),
            "independent samples",
        ],
        [
            "first dealer's share of games won",
            _pct(fc.base.first_won),
            _pct(fc.forced.first_won),
            _pct(fc.win_diff, "pp"),
            "independent samples (Newcombe)",
        ],
        [
            "dealer's edge in deal 0, points",
            "—",
            "—",
            f"{reporting.ci(fc.deal0)} (p {stats.format_p(fc.deal0_p, equals=True)})",
            f"paired by game, {fc.deal0.n:,} games",
        ],
    ]
    return reporting.Section(
        "Does forced capture change the edge?",
        text=(
            f"{fc.base.run.name} and {fc.forced.run.name} use the same seed, so game g starts from "
            "the same pack in both, but once one deal plays out differently the games may diverge "
            "(a different number of deals). We therefore compare the whole runs as independent "
            "samples (Welch's t interval on the per-game linearised edges, so the intervals stay "
            "cluster-robust) and, as a paired check, only deal 0 of every game the "
            "two runs share (same pack, same dealer, one value per game, paired t interval). "
            + verdict
        ),
        tables=[
            reporting.Table(
                f"{fc.forced.run.name} minus {fc.base.run.name}",
                ["quantity", fc.base.run.name, fc.forced.run.name, "difference [95% CI]", "method"],
                rows,
            )
        ],
    )


def build(data: Path) -> reporting.Page:
    """How large is the dealer's edge?

    Per run: points per deal of the dealer's side against the other side(s) with cluster-robust
    intervals, the first dealer's share of games won (Wilson), per strategy when they differ,
    and classic-greedy-vs-random against classic-forced-capture (the same players and seed).
    """
    found = runs(data)
    if not found:
        raise MissingData(f"no complete run in {data}/; run `make simulate` first")
    edges = [measure(run) for run in found.values()]
    p_holm = stats.holm([e.p_value for e in edges])
    by_name = {e.run.name: e for e in edges}

    sections = [
        reporting.Section(
            "Dealer against non-dealer, per run",
            text=(
                "The edge is the dealer's side's points per deal minus the mean of the other "
                "sides' points per deal. With three sides the other two are the leader and the "
                "middle seat; with teams (4 and 6 players) it is the dealer's team against the "
                "leader's team."
            ),
            figures=[
                reporting.Figure(
                    "Dealer's edge per run, points per deal (95% CI)", _edge_chart(edges)
                )
            ],
            tables=[_edge_table(edges, p_holm)],
        )
    ]
    if any(e.first_won is not None for e in edges):
        sections.append(
            reporting.Section(
                "Games won by the first dealer",
                text=(
                    "The first dealer of each game is drawn at random (docs/rules.md §2; column "
                    "first_dealer), and the deal then passes to the right after each deal, so the "
                    "side that deals first also deals deals 2, 4, ... of a two-player game: over a "
                    "game both sides deal about equally often (the first dealer once more in games "
                    "of odd length), and a per-deal edge moves the share of games won only a "
                    "little. Because the draw is random, the share is the same whoever the "
                    "players are: in a run between different players it is not tilted towards "
                    "the stronger one (as it was when the last player always dealt first)."
                ),
                figures=[
                    reporting.Figure(
                        "Share of games won by the side that dealt the first deal (95% Wilson "
                        "CI); the mark is 1 / sides",
                        _win_chart(edges),
                    )
                ],
            )
        )
    strategy = _strategy_section(edges)
    if strategy is not None:
        sections.append(strategy)
    if all(name in by_name for name in FORCED):
        base, forced = (by_name[name] for name in FORCED)
        if base.games and forced.games and base.shape == forced.shape:
            sections.append(_forced_section(forced_capture(base, forced)))

    head = by_name.get(HEADLINE) or max(edges, key=lambda e: (e.deals, e.run.name))
    finding = (
        f"In {head.run.name} ({head.run.config['variant_label']}, "
        f"{','.join(head.run.config['players'])}) the dealer's side scores "
        f"{reporting.ci(head.edge)} points per deal more than the other side"
    )
    if head.first_won is not None:
        finding += f", and the side that deals first wins {_pct(head.first_won)} of games"
    finding += "."
    return reporting.Page(
        slug="seat-advantage",
        title="The dealer's edge",
        question=QUESTION,
        method=f"{METHOD} {players_sentence(e.run for e in edges)}",
        finding=finding,
        sections=sections,
        data=[e.run.provenance(e.deals) for e in edges],
        reproduce=reproduce("seat_advantage"),
    )


if __name__ == "__main__":
    sys.exit(main(build))
