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

Designs. Runs that share every pack (the same seed, deal shape and game numbers, checked on the
first dealers) are compared paired by game; runs between different players give each player's
edge paired within the run (its points when it deals against when it does not), and the duplicate
tournaments of data/tournaments/ (each pack played with the seats swapped) give each player's
edge on exactly the same packs. One Holm family per page: every test the page makes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses._common import (
    MissingData,
    Run,
    main,
    manifests_provenance,
    players_sentence,
    reproduce,
    runs,
)
from scopa_sim import compare, reporting, stats
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
    "player who dealt, and measures each player's edge on duplicate deals (the tournaments)."
)
HEADLINE = "classic-greedy"  # the run of the one-sentence finding, when present
FORCED = ("classic-greedy-vs-random", "classic-forced-capture")  # same players, same seed
TOURNAMENTS = "tournaments"  # duplicate round robins under the data folder (scopa_sim.tournament)
COLOR = "#2b5d8a"
ZOOM = 10  # the running chart shows the final estimate +- ZOOM final half-widths


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
    p_value: float = 1.0


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
    edge_sums: np.ndarray  # per cluster (game): dealer minus the mean of the others, summed
    deal_counts: np.ndarray  # per cluster: deals
    game_ids: np.ndarray  # per cluster: the game number
    first_won_values: np.ndarray  # per cluster: 1 when the first dealer's side won
    first_sides: np.ndarray  # per cluster: the side that dealt the first deal

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
            pl.col("side").filter(first & (pl.col("deal") == 0)).first().alias("first_side"),
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


def _dealing_sums(rows: pl.LazyFrame) -> pl.DataFrame:
    """Per game and strategy: the points and side-deals when its side dealt (``d_sum``, ``d_n``)
    and when it did not (``o_sum``, ``o_n``), sorted by strategy then game."""
    points = pl.col("points").cast(pl.Int64)
    return (
        rows.group_by("game", "strategy")
        .agg(
            points.filter(pl.col("dealer")).sum().alias("d_sum"),
            pl.col("dealer").sum().cast(pl.Int64).alias("d_n"),
            points.filter(~pl.col("dealer")).sum().alias("o_sum"),
            (~pl.col("dealer")).sum().cast(pl.Int64).alias("o_n"),
        )
        .sort("strategy", "game")
        .collect()
    )


def _per_strategy(run: Run) -> list[StrategyEdge]:
    """Each strategy's points per side-deal when its side deals and when it does not."""
    frame = _dealing_sums(run.scan())
    out = []
    for strategy in sorted(set(run.config["players"])):
        part = frame.filter(pl.col("strategy") == strategy)
        dealing = stats.linearised_ratio(part["d_sum"].to_numpy(), part["d_n"].to_numpy())
        other = stats.linearised_ratio(part["o_sum"].to_numpy(), part["o_n"].to_numpy())
        gain, p = stats.paired_difference(other, dealing)
        out.append(
            StrategyEdge(
                strategy, stats.mean_ci(dealing), stats.mean_ci(other), gain, dealing - other, p
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
        games["dealer"].to_numpy() - games["other"].to_numpy() / (sh.sides - 1),
        deals,
        games["game"].to_numpy(),
        games["first_won"].to_numpy().astype(np.float64),
        games["first_side"].to_numpy(),
    )


def pairing_problem(a: Edge, b: Edge) -> str:
    """Why runs ``a`` and ``b`` do not share every pack (empty when they do): the pack of
    (game, deal) depends only on the seed and the deal shape (:func:`compare.deal_key`), and the
    first dealer only on the seed and the number of players; checked on the data too (the same
    game numbers and the same side dealing each game's first deal)."""
    ra, rb = (parse_variant(e.run.config["variant_label"]) for e in (a, b))
    if a.run.config["seed"] != b.run.config["seed"]:
        return f"other seeds ({a.run.config['seed']}, {b.run.config['seed']})"
    if a.run.mode != b.run.mode:
        return f"other modes ({a.run.mode}, {b.run.mode})"
    reason = compare.difference_reason(ra, rb)
    if reason:
        return f"other deals ({reason})"
    if not np.array_equal(a.game_ids, b.game_ids):
        return f"other games ({len(a.game_ids):,} and {len(b.game_ids):,})"
    if not np.array_equal(a.first_sides, b.first_sides):
        return "other first dealers"
    return ""


@dataclass(frozen=True)
class ForcedCapture:
    base: Edge
    forced: Edge
    design: str  # compare.PAIRED (by game) or compare.UNPAIRED
    reason: str  # UNPAIRED: why the runs could not be paired
    edge_diff: stats.Estimate  # forced - base, the dealer's edge per deal
    edge_p: float
    win_diff: stats.Estimate  # forced - base, first dealer's share of games won
    win_p: float | None
    deal0: stats.Estimate  # forced - base, deal-0 edge paired by game (a check, not tested)
    deal0_p: float
    common_rows: int  # side-deals present in both runs (same game, deal, side)
    identical_rows: int  # of which with the same captured cards and points


def forced_capture(base: Edge, forced: Edge) -> ForcedCapture:
    """Forced capture against the same rules without it: paired by game when the runs share
    every pack (:func:`pairing_problem`), else unpaired with the reason."""
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
    reason = pairing_problem(base, forced)
    if not reason:
        # Game g of both runs starts from the same pack and first dealer: one pair per game,
        # whatever the lengths (the per-game linearised edges keep the intervals cluster-robust).
        edge_diff, edge_p = stats.paired_difference(base.edge_values, forced.edge_values)
        win_diff, win_p = (None, None)
        if base.games:
            win_diff, win_p = stats.paired_difference(
                base.first_won_values, forced.first_won_values
            )
        design = compare.PAIRED
    else:
        edge_diff, edge_p = stats.independent_difference(base.edge_values, forced.edge_values)
        win_diff, win_p = (None, None)
        if base.games:
            win_diff = _won_difference(base.first_won, forced.first_won)
            win_p = None  # Newcombe gives an interval, no test
        design = compare.UNPAIRED
    return ForcedCapture(
        base,
        forced,
        design,
        reason,
        edge_diff,
        edge_p,
        win_diff,
        win_p,
        diff0,
        p0,
        int(same["rows"].item()),
        int(same["same"].item()),
    )


def _won_difference(a: stats.Estimate, b: stats.Estimate) -> stats.Estimate:
    """``b - a`` for two shares of games won (Newcombe interval)."""
    return stats.proportion_difference(round(a.value * a.n), a.n, round(b.value * b.n), b.n)


@dataclass(frozen=True)
class DuplicateEdge:
    """The dealer's edge of one pairing of a duplicate tournament: every pack played twice with
    the seats swapped, so each player dealt it once and led (or sat elsewhere) once."""

    tournament: str
    a: str
    b: str
    mode: str
    units: int  # packs (deals mode) or games, each played in both seatings
    deals: int  # deals over both seatings
    gains: dict[str, stats.Estimate]  # per player: its points dealing minus not dealing
    p_values: dict[str, float]
    edge: stats.Estimate  # the mean of the two players' gains (derived, not tested)
    seed: int = 0
    folders: tuple[Path, ...] = ()  # the two lineups' run folders
    variant: str = ""


def _tournament_runs(folder: Path) -> list[tuple[Run, Run]]:
    """The pairs of lineups (A-vs-B, B-vs-A) of a tournament folder, both complete."""
    found = runs(folder)
    pairs = []
    for name, run in sorted(found.items()):
        a, _, b = name.partition("-vs-")
        other = found.get(f"{b}-vs-{a}")
        if b and other is not None and a < b:
            pairs.append((run, other))
    return pairs


def duplicate_edge(tournament: str, first: Run, second: Run) -> DuplicateEdge | str:
    """Each player's edge on the packs both lineups played (a reason string when they did not
    play the same packs: other seeds, shapes or first dealers)."""
    if first.config["seed"] != second.config["seed"] or first.mode != second.mode:
        return f"{first.name} and {second.name}: other seeds or modes"
    ra, rb = (parse_variant(r.config["variant_label"]) for r in (first, second))
    if compare.difference_reason(ra, rb) or ra.n_sides != 2:
        return f"{first.name} and {second.name}: other deals, or not two sides"
    cols = ["game", "deal", "side", "strategy", "dealer", "first_dealer", "points"]
    frames = [r.scan().select(cols).with_columns(pl.lit(i).alias("lineup")) for i, r in
              enumerate((first, second))]  # fmt: skip
    both = pl.concat(frames)
    firsts = (
        both.filter(pl.col("deal") == 0, pl.col("first_dealer"))
        .group_by("lineup", "game")
        .agg(pl.col("side").first())
        .collect()
        .pivot(on="lineup", index="game", values="side")
    )
    if firsts.width != 3 or not firsts["0"].equals(firsts["1"]) or firsts["0"].null_count():
        return f"{first.name} and {second.name}: other games or first dealers"
    frame = _dealing_sums(both)
    a, b = first.config["players"][0], first.config["players"][1]
    gains, p_values, values = {}, {}, []
    for strategy in (a, b):
        part = frame.filter(pl.col("strategy") == strategy)
        dealing = stats.linearised_ratio(part["d_sum"].to_numpy(), part["d_n"].to_numpy())
        other = stats.linearised_ratio(part["o_sum"].to_numpy(), part["o_n"].to_numpy())
        gains[strategy], p_values[strategy] = stats.paired_difference(other, dealing)
        values.append(dealing - other)
    deals = int(
        frame.filter(pl.col("strategy") == a).select(pl.col("d_n") + pl.col("o_n")).sum().item()
    )
    return DuplicateEdge(
        tournament, a, b, first.mode, firsts.height, deals, gains, p_values,
        stats.mean_ci((values[0] + values[1]) / 2), first.config["seed"],
        (first.folder, second.folder), first.config["variant_label"],
    )  # fmt: skip


def duplicate_edges(data: Path) -> tuple[list[DuplicateEdge], list[str]]:
    """Every pairing of every duplicate tournament under ``data``/tournaments/, and the pairs
    left out with their reasons."""
    edges, skipped = [], []
    root = Path(data) / TOURNAMENTS
    if not root.is_dir():
        return edges, skipped
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for first, second in _tournament_runs(folder):
            got = duplicate_edge(folder.name, first, second)
            (skipped if isinstance(got, str) else edges).append(got)
    return edges, skipped


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


class Family:
    """The page's one Holm family: every test it makes, with Bonferroni intervals beside."""

    def __init__(self) -> None:
        self.tests: dict[tuple, tuple[stats.Estimate, float]] = {}
        self.p_holm: dict[tuple, float] = {}
        self.wide: dict[tuple, stats.Estimate] = {}

    def add(self, key: tuple, estimate: stats.Estimate, p: float) -> None:
        self.tests[key] = (estimate, p)

    def close(self) -> None:
        keys = list(self.tests)
        adjusted = stats.holm([self.tests[k][1] for k in keys])
        for k, p in zip(keys, adjusted, strict=True):
            self.p_holm[k] = float(p)
            self.wide[k] = stats.rescale(self.tests[k][0], self.level)

    @property
    def size(self) -> int:
        return len(self.tests)

    @property
    def level(self) -> float:
        return stats.family_level(self.size)

    @property
    def level_text(self) -> str:
        return f"{100 * self.level:.4g} %"

    def p(self, key: tuple) -> str:
        return stats.format_p(self.p_holm[key]) if key in self.p_holm else "—"

    def ci(self, key: tuple) -> str:
        return reporting.ci(self.wide[key]) if key in self.wide else "not tested"

    def text(self, parts: list[str]) -> str:
        return (
            f"One family for the whole page: {self.size} tests ({'; '.join(parts)}), "
            "Holm-adjusted together; each tested difference also has a Bonferroni interval at "
            f"{self.level_text} (1 - 0.05/{self.size}), which excludes 0 only when its Holm "
            "p-value is below 0.05. Derived quantities are shown but not tested: the points of "
            "the dealer's and the other sides (the edge is their difference), the mean over "
            "strategies, a pairing's edge (the mean of its two players' edges), the first "
            "dealer's share of games won of a single run (a Wilson interval, to read against "
            "1 / sides), and the deal-0 check of forced capture."
        )


def _edge_table(edges: list[Edge], family: Family) -> reporting.Table:
    rows = []
    for e in edges:
        key = ("edge", e.run.name)
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
                family.ci(key),
                family.p(key),
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
            f"edge [{family.level_text} family CI]",
            "p (Holm)",
            "first dealer wins",
            "no-edge share",
        ],
        rows,
    )


def _strategy_section(edges: list[Edge], family: Family) -> reporting.Section | None:
    mixed = [e for e in edges if e.strategies]
    if not mixed:
        return None
    rows = []
    for e in mixed:
        for s in e.strategies:
            key = ("strategy", e.run.name, s.strategy)
            rows.append(
                [
                    e.run.name,
                    s.strategy,
                    reporting.ci(s.dealing),
                    reporting.ci(s.other),
                    reporting.ci(s.gain),
                    family.ci(key),
                    family.p(key),
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
                "not tested",
                "—",
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
                f"gain [{family.level_text} family CI]",
                "p (Holm)",
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
                "other did, the same for either strategy; Newcombe interval, not tested)",
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
            "side's points per deal when it deals minus when it does not, paired by game "
            "(cluster-robust); the mean over strategies is the edge with the skill gap balanced "
            "out exactly. "
            "For whole games the random draw also makes dealing first a randomised treatment: a "
            "strategy's share of games won when it dealt first minus when the other side did is "
            "the effect of dealing first on it (Newcombe interval), with no confounding by skill."
        ),
        tables=tables,
    )


def _duplicate_section(
    dups: list[DuplicateEdge], skipped: list[str], family: Family
) -> reporting.Section:
    rows = []
    for d in dups:
        unit = "packs" if d.mode == "deals" else "games"
        for who, other in ((d.a, d.b), (d.b, d.a)):
            key = ("duplicate", d.tournament, d.a, d.b, who)
            rows.append(
                [
                    d.tournament,
                    f"{who} (against {other})",
                    f"{d.units:,} {unit}",
                    reporting.ci(d.gains[who]),
                    family.ci(key),
                    family.p(key),
                ]
            )
        rows.append(
            [d.tournament, f"{d.a} and {d.b}: mean", f"{d.deals:,} deals", reporting.ci(d.edge),
             "not tested", "—"]
        )  # fmt: skip
    text = (
        "Between different players the cleanest design is duplicate play: the tournaments in "
        f"the data folder's {TOURNAMENTS}/ (scopa-sim tournament, make tournament) play every "
        "pack twice, lineup A-B and lineup B-A, "
        "with the same first dealer, so the side that deals a pack is the same in both lineups "
        "and the player in it is swapped. Each player therefore deals every pack once and sits "
        "at the other seat once: its edge is its points when it deals minus its points when it "
        "does not, on the same packs (paired by pack, or by game in whole games: per-game "
        "ratios linearised, cluster-robust). The pairing's edge is the mean of its two "
        "players' edges, in which the skill gap cancels: exactly on independent deals, and in "
        "whole games up to the deals one seating played and the other did not (the games "
        "diverge once a deal plays out differently); it is derived, not tested."
    )
    if skipped:
        text += " Left out (the lineups did not play the same packs): " + "; ".join(skipped) + "."
    return reporting.Section(
        "Each player's edge on duplicate deals",
        text=text,
        tables=[
            reporting.Table(
                "Points per deal a player gains from dealing, on the same packs played with the "
                "seats swapped, per tournament pairing",
                [
                    "tournament",
                    "player",
                    "played twice",
                    "gain from dealing [95% CI]",
                    f"gain [{family.level_text} family CI]",
                    "p (Holm)",
                ],
                rows,
            )
        ],
    )


def _forced_section(fc: ForcedCapture, family: Family) -> reporting.Section:
    common = fc.common_rows
    paired = fc.design == compare.PAIRED
    if common and fc.identical_rows == common:
        verdict = (
            f"In fact the two runs agree row for row on all {common:,} side-deals they share "
            f"(same game, deal and side: same cards captured, same points): no play changed, "
            "so these data cannot show any effect of the rule."
        )
    else:
        verdict = (
            f"Of the {common:,} side-deals the two runs share (same game, deal and side), "
            f"{common - fc.identical_rows:,} differ in cards captured or points."
        )
    if paired:
        design = (
            f"{fc.base.run.name} and {fc.forced.run.name} share every pack: the same seed, deal "
            f"shape and games ({len(fc.base.game_ids):,}), and the same side deals the first "
            "deal of every game (checked on the column first_dealer). Game g therefore starts "
            "from the same pack in both; once a deal plays out differently the games may "
            "diverge in length, but every deal (g, d) still gets the same pack. The runs are "
            "compared paired by game: the per-game linearised edges (cluster-robust) and the "
            "per-game indicator that the first dealer's side won, each a paired t interval. "
        )
        method = f"paired by game, {fc.edge_diff.n:,} games"
    else:
        design = (
            f"{fc.base.run.name} and {fc.forced.run.name} cannot be paired ({fc.reason}), so "
            "they are compared as independent samples (Welch's t interval on the per-game "
            "linearised edges; Newcombe's interval for the shares of games won, not tested). "
        )
        method = "independent samples"
    edge_key, win_key = ("forced", "edge"), ("forced", "first_won")
    rows = [
        [
            "dealer's edge, points per deal (all deals)",
            reporting.ci(fc.base.edge),
            reporting.ci(fc.forced.edge),
            reporting.ci(fc.edge_diff),
            family.ci(edge_key),
            family.p(edge_key),
            method,
        ]
    ]
    if fc.win_diff is not None:
        rows.append(
            [
                "first dealer's share of games won",
                _pct(fc.base.first_won),
                _pct(fc.forced.first_won),
                _pct(fc.win_diff, "pp"),
                _pct(family.wide[win_key], "pp") if win_key in family.wide else "not tested",
                family.p(win_key),
                method if paired else "independent samples (Newcombe)",
            ]
        )
    rows.append(
        [
            "dealer's edge in deal 0, points (a check)",
            "—",
            "—",
            f"{reporting.ci(fc.deal0)} (p {stats.format_p(fc.deal0_p, equals=True)})",
            "not tested",
            "—",
            f"paired by game, {fc.deal0.n:,} games",
        ]
    )
    detect = stats.detectable_effect(fc.edge_diff)
    return reporting.Section(
        "Does forced capture change the edge?",
        text=(
            design
            + verdict
            + f" With these {fc.edge_diff.n:,} pairs, the smallest change of the edge this "
            f"design would detect (80 % power, two-sided alpha 0.05) is {detect:.4f} points per "
            "deal."
        ),
        tables=[
            reporting.Table(
                f"{fc.forced.run.name} minus {fc.base.run.name}",
                [
                    "quantity",
                    fc.base.run.name,
                    fc.forced.run.name,
                    "difference [95% CI]",
                    f"difference [{family.level_text} family CI]",
                    "p (Holm)",
                    "design",
                ],
                rows,
            )
        ],
    )


def _running_chart(e: Edge) -> reporting.Markup:
    """The headline edge as the deals accumulate, with its 95 % band: is it converged?"""
    k, value, low, high = stats.running_ratio(e.edge_sums, e.deal_counts)
    deals = np.cumsum(e.deal_counts)[k - 1]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.fill_between(deals, low, high, color=COLOR, alpha=0.2, lw=0, label="95% CI")
    ax.plot(deals, value, color=COLOR, lw=1.5, label="estimate")
    ax.axhline(e.edge.value, color="#888", lw=1, ls="--", label="final estimate")
    ax.axhline(0, color="#b5472d", lw=1, ls=":", label="no edge")
    ax.set_xscale("log")
    # The early band is wide; the question is the late part, so the axis shows the final
    # estimate +- ZOOM final half-widths (the early band runs off it).
    span = max(ZOOM * e.edge.half_width, 1e-9)
    ax.set_ylim(e.edge.value - span, e.edge.value + span)
    ax.set_xlabel(f"deals played ({'games in order' if e.games else 'in order'})")
    ax.set_ylabel("dealer's edge, points per deal")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncols=4, fontsize="small")
    fig.tight_layout()
    return reporting.svg(fig)


def _findings(
    edges: list[Edge], dups: list[DuplicateEdge], fc: ForcedCapture | None, family: Family, head
) -> list[reporting.Finding]:
    out = []
    for e in edges:
        name = f"seat.edge.{e.run.name}"
        out.append(reporting.Finding(name, e.edge, "points per deal"))
        if ("edge", e.run.name) in family.wide:
            out.append(
                reporting.Finding(
                    f"{name}.family", family.wide[("edge", e.run.name)], "points per deal"
                )
            )
        if e.first_won is not None:
            out.append(
                reporting.Finding(f"seat.first_won.{e.run.name}", e.first_won, "share of games")
            )
        for s in e.strategies:
            out.append(
                reporting.Finding(
                    f"seat.strategy_edge.{e.run.name}.{s.strategy}", s.gain, "points per deal"
                )
            )
    for d in dups:
        base = f"seat.duplicate_edge.{d.tournament}.{d.a}-vs-{d.b}"
        out.append(reporting.Finding(base, d.edge, "points per deal"))
        for who, gain in d.gains.items():
            out.append(reporting.Finding(f"{base}.{who}", gain, "points per deal"))
    if fc is not None:
        out.append(
            reporting.Finding("seat.forced_capture.edge_diff", fc.edge_diff, "points per deal")
        )
        if fc.win_diff is not None:
            out.append(
                reporting.Finding(
                    "seat.forced_capture.first_won_diff", fc.win_diff, "share of games"
                )
            )
        out.append(reporting.Finding("seat.forced_capture.deal0_diff", fc.deal0, "points"))
    mde = stats.detectable_effect(head.edge)
    out.append(
        reporting.Finding(
            f"seat.detectable_edge.{head.run.name}",
            stats.Estimate(mde, mde, mde, head.edge.n),
            "points per deal",
        )
    )
    return out


def build(data: Path) -> reporting.Page:
    """How large is the dealer's edge?

    Per run: points per deal of the dealer's side against the other side(s) with cluster-robust
    intervals, the first dealer's share of games won (Wilson), per strategy when they differ,
    per player on the duplicate deals of the tournaments, and classic-greedy-vs-random against
    classic-forced-capture (the same players and seed: paired by game). One Holm family.
    """
    found = runs(data)
    if not found:
        raise MissingData(f"no complete run in {data}/; run `make simulate` first")
    edges = [measure(run) for run in found.values()]
    by_name = {e.run.name: e for e in edges}
    dups, skipped = duplicate_edges(data)
    fc = None
    if all(name in by_name for name in FORCED):
        base, forced = (by_name[name] for name in FORCED)
        if base.games and forced.games and base.shape == forced.shape:
            fc = forced_capture(base, forced)

    family = Family()
    for e in edges:
        family.add(("edge", e.run.name), e.edge, e.p_value)
    for e in edges:
        for s in e.strategies:
            family.add(("strategy", e.run.name, s.strategy), s.gain, s.p_value)
    for d in dups:
        for who in (d.a, d.b):
            family.add(("duplicate", d.tournament, d.a, d.b, who), d.gains[who], d.p_values[who])
    if fc is not None:
        family.add(("forced", "edge"), fc.edge_diff, fc.edge_p)
        if fc.win_p is not None:
            family.add(("forced", "first_won"), fc.win_diff, fc.win_p)
    family.close()
    parts = [f"the edge of each of the {len(edges)} runs"]
    n_strategy = sum(len(e.strategies) for e in edges)
    if n_strategy:
        parts.append(f"{n_strategy} strategies' edges within mixed runs")
    if dups:
        parts.append(f"{2 * len(dups)} players' edges on duplicate deals")
    if fc is not None:
        parts.append(f"{1 + (fc.win_p is not None)} forced-capture differences")

    head = by_name.get(HEADLINE) or max(edges, key=lambda e: (e.deals, e.run.name))
    detect = stats.detectable_effect(head.edge)
    unit = "games" if head.games else "deals"
    sections = [
        reporting.Section(
            "Dealer against non-dealer, per run",
            text=(
                "The edge is the dealer's side's points per deal minus the mean of the other "
                "sides' points per deal. With three sides the other two are the leader and the "
                "middle seat; with teams (4 and 6 players) it is the dealer's team against the "
                "leader's team. " + family.text(parts)
            ),
            figures=[
                reporting.Figure(
                    "Dealer's edge per run, points per deal (95% CI)", _edge_chart(edges)
                )
            ],
            tables=[_edge_table(edges, family)],
        ),
        reporting.Section(
            f"Is the edge of {head.run.name} converged?",
            text=(
                f"The estimate of {head.run.name} and its 95 % interval (cluster-robust) as its "
                f"{unit} accumulate, in the order they were played: the band narrows like one "
                "over the square root of the deals, and the final value stays inside the band "
                f"once the band is narrow. With its {head.edge.n:,} {unit}, the smallest edge "
                f"these data could detect (80 % power, two-sided alpha 0.05) is {detect:.4f} "
                "points per deal."
            ),
            figures=[
                reporting.Figure(
                    f"Running estimate of the dealer's edge in {head.run.name}, points per deal, "
                    "against deals played (log scale), with its 95% CI; the vertical axis spans "
                    f"the final estimate +- {ZOOM} final half-widths",
                    _running_chart(head),
                )
            ],
        ),
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
    strategy = _strategy_section(edges, family)
    if strategy is not None:
        sections.append(strategy)
    if dups or skipped:
        sections.append(_duplicate_section(dups, skipped, family))
    if fc is not None:
        sections.append(_forced_section(fc, family))

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
        data=[e.run.provenance(e.deals) for e in edges]
        + [
            {
                "run": f"{TOURNAMENTS}/{d.tournament}/{d.a}-vs-{d.b} and {d.b}-vs-{d.a}",
                "variant": d.variant,
                "players": f"{d.a},{d.b}",
                "mode": d.mode,
                "deals": d.deals,
                "seed": d.seed,
                **manifests_provenance(d.folders),
            }
            for d in dups
        ],
        reproduce=reproduce("seat_advantage")
        + ("\n# the duplicate tournaments: make tournament" if dups else ""),
        findings=_findings(edges, dups, fc, family, head),
    )


if __name__ == "__main__":
    sys.exit(main(build))
