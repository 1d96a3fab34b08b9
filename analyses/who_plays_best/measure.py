"""Who plays best: the pairings the page looks at and the players that lead a tournament."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from scopa_sim import stats
from scopa_sim import tournament as tour


@dataclass(frozen=True)
class Key:
    """A key pairing, stronger player (by rating) first."""

    a: str
    b: str
    why: str


def ratings_by_player(result: tour.Result) -> dict[str, tour.Rating]:
    """Every rating of the tournament, fair players and upper bounds, by player."""
    return {r.player: r for r in [*result.ratings, *result.upper_bounds]}


def baseline_player(result: tour.Result) -> str | None:
    """The player the best one is measured against: greedy, the simplest sensible player, when it
    plays; else the second-rated."""
    fair = [r.player for r in result.ratings]
    if "greedy" in fair and fair[0] != "greedy":
        return "greedy"
    return fair[1] if len(fair) > 1 else None


def key_pairings(result: tour.Result) -> list[Key]:
    """Adjacent ranks of the fair players, the best fair player against the baseline, and each
    upper bound against the best fair player."""
    fair = [r.player for r in result.ratings]
    keys = [
        Key(a, b, f"ranks {k} and {k + 1}") for k, (a, b) in enumerate(itertools.pairwise(fair), 1)
    ]
    baseline = baseline_player(result)
    best = leaders(result)
    for leader in best:
        if baseline and leader != baseline and (leader, baseline) not in {(k.a, k.b) for k in keys}:
            why = "best fair player" if len(best) == 1 else "level at the top"
            keys.append(Key(leader, baseline, f"{why}, against {baseline}"))
    for upper in result.upper_bounds:
        if fair:
            keys.append(Key(upper.player, fair[0], "upper bound against the best fair player"))
    return keys


def leaders(result: tour.Result) -> list[str]:
    """The best fair player and those the data cannot separate from it: A minus B in points per
    deal not significant after Holm (p >= 1 - the confidence level)."""
    if not result.ratings:
        return []
    top = result.ratings[0].player
    tied = [
        r.player
        for r in result.ratings[1:]
        if result.row(top, r.player, "points_per_deal").p_holm >= 1 - stats.LEVEL
    ]
    return [top, *tied]
