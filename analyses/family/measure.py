"""How do the games of the Scopa family compare: the measurement.

The run of each preset, checked; per game the sums over its deals (points, the dealer's points,
scope, the deals played out and the categories tied in them); per preset the ratios over games
with cluster-robust intervals (shares kept within [0, 1]), the dealer's edge and game length.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from analyses import framework
from analyses.framework import MissingData, Run
from scopa_sim import stats
from scopa_sim.rules import Variant, variant_of_config

#: The beginner run of each preset (greedy against greedy, whole games) in the data of `make
#: simulate`; the expert run of each is its twin (framework.expert_run, :func:`level_names`).
FAMILY: dict[str, str] = {
    "classic": "classic-greedy",
    "classic-3p": "classic-3p",
    "classic-4p": "classic-4p",
    "classic-6p": "classic-6p",
    **{
        name: f"family-{name}-greedy"
        for name in (
            "scopone",
            "scopone-scientifico",
            "escoba",
            "asso-piglia-tutto",
            "scopa-52",
            "scopa-52-3p",
            "scopa-52-4p",
            "cirulla",
            "cirulla-3p",
            "cirulla-4p",
        )
    },
}
#: The categories whose point nobody scores on a tie (docs/rules.md §5), in table order.
TIED = ("cards", "coins", "primiera", "sevens")
KEY = (pl.col("game") * 4096 + pl.col("deal").cast(pl.Int64)).alias("key")  # one deal of a game


@dataclass(frozen=True)
class Member:
    """The measures of one preset."""

    preset: str
    run: Run
    rules: Variant
    games: int
    deals: int
    played_out: int  # deals that scored their categories (not stopped by a winning scopa)
    points: stats.Estimate  # all sides, per deal
    scope: stats.Estimate  # all sides, per deal
    dealer: stats.Estimate  # the dealer's side, per deal
    others: stats.Estimate  # mean of the other sides, per deal
    edge: stats.Estimate  # dealer - others, per deal
    length: stats.Estimate  # deals per game
    ties: dict[str, stats.Estimate]  # category -> share of played-out deals where it is tied
    no_primiera: stats.Estimate | None  # share of played-out deals where no side has a primiera
    game_ids: np.ndarray = field(default=None, repr=False, compare=False)  # per game, in order
    lengths: np.ndarray = field(default=None, repr=False, compare=False)  # deals, per game

    @property
    def sides(self) -> int:
        return self.rules.n_sides


def categories(rules: Variant) -> list[str]:
    """The tie-able categories a preset scores."""
    have = {"cards": True, "coins": True, "primiera": rules.primiera is not None}
    have["sevens"] = rules.most_sevens
    return [c for c in TIED if have[c]]


def stopped(columns: list[str]) -> pl.Expr:
    """Per deal: it stopped at a scopa that won the game outright, so no category was scored.

    Read from the column ``stopped`` when the data have it; otherwise from the settebello (the
    seven of coins, or of hearts), which a deal played out with any capture always awards to some
    side (every card ends with a side) and a stopped deal never awards.
    """
    if "stopped" in columns:
        return pl.col("stopped").any()
    return (pl.col("pt_settebello").cast(pl.Int64).sum() == 0) & (
        pl.col("cards").cast(pl.Int64).sum() > 0
    )


def per_game(run: Run, rules: Variant) -> pl.DataFrame:
    """One row per game: deals, and the sums over its deals that the measures are ratios of."""
    lf = run.scan()
    columns = lf.collect_schema().names()
    points = pl.col("points").cast(pl.Int64)
    cats = categories(rules)
    per_deal = lf.group_by(KEY).agg(
        pl.col("game").first(),
        points.sum().alias("points"),
        points.filter(pl.col("dealer")).sum().alias("dealer"),
        pl.col("scope").cast(pl.Int64).sum().alias("scope"),
        (~stopped(columns)).alias("counted"),
        *[(pl.col(f"pt_{c}").cast(pl.Int64).sum() == 0).alias(f"void_{c}") for c in cats],
        pl.col("primiera").max().alias("best"),
        (pl.col("primiera") == pl.col("primiera").max()).sum().alias("at_best"),
    )
    if "primiera" in cats:  # a void point is a tie only when some side has a primiera
        per_deal = per_deal.with_columns(
            (pl.col("void_primiera") & (pl.col("best") > 0) & (pl.col("at_best") > 1)).alias(
                "tie_primiera"
            ),
            (pl.col("best") == 0).alias("no_primiera"),
        )
    ties = ["tie_primiera" if c == "primiera" else f"void_{c}" for c in cats]
    counted = pl.col("counted")
    return (
        per_deal.group_by("game")
        .agg(
            pl.len().cast(pl.Int64).alias("deals"),
            pl.col("points").sum(),
            pl.col("dealer").sum(),
            pl.col("scope").sum(),
            counted.sum().cast(pl.Int64).alias("counted"),
            *[
                (pl.col(t) & counted).sum().cast(pl.Int64).alias(f"tied_{c}")
                for t, c in zip(ties, cats, strict=True)
            ],
            *(
                [(pl.col("no_primiera") & counted).sum().cast(pl.Int64).alias("no_primiera")]
                if "primiera" in cats
                else []
            ),
        )
        .sort("game")
        .collect()
    )


def _ratio(sums, counts) -> stats.Estimate:
    """A per-deal ratio over games with its cluster-robust interval (games with no deal counted
    contribute nothing to the sums and their zero count)."""
    return stats.mean_ci(stats.linearised_ratio(sums, counts))


def _share(events, counts) -> stats.Estimate:
    """A share of deals, cluster-robust like :func:`_ratio` and kept within [0, 1]. When it is 0
    or 1 the per-game values do not vary and say nothing about the spread, so the interval is
    Wilson's over the deals (deals in games are then as good as independent)."""
    k, n = int(np.sum(events)), int(np.sum(counts))
    if k in (0, n):
        return stats.proportion_ci(k, n)
    e = _ratio(events, counts)
    return stats.Estimate(e.value, max(e.low, 0.0), min(e.high, 1.0), e.n)


def measure(preset: str, run: Run) -> Member:
    rules = variant_of_config(run.config)
    games = per_game(run, rules)
    deals = games["deals"].to_numpy()
    s = rules.n_sides
    total = games["points"].to_numpy()
    dealer = games["dealer"].to_numpy()
    others = (total - dealer) / (s - 1)
    # The edge is linearised as one ratio (sum of per-deal differences over deals), as the
    # dealer_edge metric of `scopa-sim compare`; it equals the dealer's minus the others' ratio.
    edge = _ratio(dealer - others, deals)
    counted = games["counted"].to_numpy()
    cats = categories(rules)
    ties = {c: _share(games[f"tied_{c}"].to_numpy(), counted) for c in cats}
    return Member(
        preset=preset,
        run=run,
        rules=rules,
        games=games.height,
        deals=int(deals.sum()),
        played_out=int(counted.sum()),
        points=_ratio(total, deals),
        scope=_ratio(games["scope"].to_numpy(), deals),
        dealer=_ratio(dealer, deals),
        others=_ratio(others, deals),
        edge=edge,
        length=stats.mean_ci(deals),
        ties=ties,
        no_primiera=(
            _share(games["no_primiera"].to_numpy(), counted) if "primiera" in cats else None
        ),
        game_ids=games["game"].to_numpy(),
        lengths=deals,
    )


@dataclass(frozen=True)
class LevelDifference:
    """Experts' game length minus beginners' in one preset: paired by game when the two runs
    play the same packs (game g of both starts from the same pack and first dealer), else
    Welch's, with the reason."""

    preset: str
    beginner: Member
    expert: Member
    length: stats.Estimate  # expert minus beginner, deals per game
    p_value: float
    paired: bool
    why: str  # empty when paired: why the runs could not be paired


def level_difference(beginner: Member, expert: Member) -> LevelDifference:
    why = framework.same_packs(beginner.run, expert.run)
    if not why and not np.array_equal(beginner.game_ids, expert.game_ids):
        why = f"other games ({len(beginner.game_ids):,} and {len(expert.game_ids):,})"
    if why:
        diff, p = stats.independent_difference(beginner.lengths, expert.lengths)
    else:
        diff, p = stats.paired_difference(beginner.lengths, expert.lengths)
    return LevelDifference(beginner.preset, beginner, expert, diff, p, not why, why)


def level_family(differences: list[LevelDifference]) -> framework.Family:
    """The page's one family: the level difference in game length of every preset (Holm
    p-values, Bonferroni intervals)."""
    out = framework.Family()
    for d in differences:
        out.add(("length", d.preset), d.length, d.p_value)
    out.close()
    return out


def level_names(level: str) -> dict[str, str]:
    """The run of every preset at ``level`` (framework.LEVELS), by preset."""
    return {preset: framework.level_run(name, level) for preset, name in FAMILY.items()}


def family_runs(data: Path, level: str = "beginner") -> dict[str, Run]:
    """The run of every preset at ``level``, checked: the preset with no options, the level's
    player on every side, whole games."""
    names = level_names(level)
    found = framework.require_all(data, tuple(names.values()))
    player = framework.LEVEL_PLAYER[level]
    out = {}
    for preset, name in names.items():
        run = found[name]
        players = set(run.config["players"])
        if run.config["variant_label"] != preset or players != {player} or run.mode != "games":
            raise MissingData(
                f"run {name} in {data}/ is {run.config['variant_label']} "
                f"({','.join(run.config['players'])}, {run.mode}); the family page needs {preset} "
                f"without options, {player} players ({level}), whole games (configs/default.toml)"
            )
        out[preset] = run
    return out
