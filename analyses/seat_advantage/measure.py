"""How large is the dealer's edge: the measurement.

Per run: the dealer's side's points per deal against the other sides' (ratio estimators over
games, linearised per game), the first dealer's share of games won, and each strategy's edge
within a mixed run; forced capture against the same rules without it (paired by game when the
runs share every pack); and each player's edge on the duplicate deals of the tournaments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from analyses.framework import Run, runs
from scopa_sim import compare, stats
from scopa_sim.rules import variant_of_config

TOURNAMENTS = "tournaments"  # duplicate round robins under the data folder (scopa_sim.tournament)


@dataclass(frozen=True)
class Shape:
    players: int
    sides: int


def shape(run: Run) -> Shape:
    rules = variant_of_config(run.config)
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
    ra, rb = (variant_of_config(e.run.config) for e in (a, b))
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
    ra, rb = (variant_of_config(r.config) for r in (first, second))
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


@dataclass(frozen=True)
class LevelEdge:
    """The dealer's edge of an expert run minus that of its beginner twin (framework.expert_run):
    paired by game when the two play the same packs (:func:`pairing_problem`), else unpaired."""

    beginner: Edge
    expert: Edge
    design: str  # compare.PAIRED or compare.UNPAIRED
    reason: str  # UNPAIRED: why the runs could not be paired
    edge_diff: stats.Estimate  # expert - beginner, points per deal
    edge_p: float
    win_diff: stats.Estimate | None  # expert - beginner, first dealer's share of games won
    win_p: float | None

    @property
    def name(self) -> str:
        return self.beginner.run.name


def level_edge(beginner: Edge, expert: Edge) -> LevelEdge:
    """The experts' edge against the beginners' on the same packs (game g of both runs starts
    from the same pack and first dealer: one pair per game, the per-game linearised edges keep
    the interval cluster-robust), else Welch's (and Newcombe's for the share of games)."""
    reason = pairing_problem(beginner, expert)
    win_diff, win_p = None, None
    if not reason:
        edge_diff, edge_p = stats.paired_difference(beginner.edge_values, expert.edge_values)
        if beginner.games:
            win_diff, win_p = stats.paired_difference(
                beginner.first_won_values, expert.first_won_values
            )
        design = compare.PAIRED
    else:
        edge_diff, edge_p = stats.independent_difference(beginner.edge_values, expert.edge_values)
        if beginner.games and expert.games:
            win_diff = _won_difference(beginner.first_won, expert.first_won)
        design = compare.UNPAIRED
    return LevelEdge(beginner, expert, design, reason, edge_diff, edge_p, win_diff, win_p)


def level_edges(edges: list[Edge], expert_run) -> list[LevelEdge]:
    """Every run whose expert twin (``expert_run(name)``) is among ``edges`` too, against it."""
    by_name = {e.run.name: e for e in edges}
    return [
        level_edge(e, by_name[expert_run(e.run.name)])
        for e in edges
        if expert_run(e.run.name) in by_name and not e.run.name.endswith("-expert")
    ]
