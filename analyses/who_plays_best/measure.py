"""Who plays best: the page's one family of tests, the pairings it looks at and the players that
lead a tournament."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

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


def page_family(results: list[tuple]) -> tuple[list[tuple], int]:
    """The page's one Holm family: every pairing test of every tournament on the page (each
    metric), as the pairing tables show them. Returns ``results`` (``(spec, Result)`` pairs) with
    each row's ``p_holm`` adjusted across that family, and the family's size (tests that are not
    estimable are no members: :func:`scopa_sim.stats.holm`)."""
    p_values = [row.p_value for _, result in results for row in result.rows]
    adjusted = iter(stats.holm(p_values))
    out = []
    for spec, result in results:
        rows = [replace(row, p_holm=float(next(adjusted))) for row in result.rows]
        out.append((spec, replace(result, rows=rows)))
    return out, sum(1 for p in p_values if p is not None and p == p)


def separated(result: tour.Result, a: str, b: str) -> bool:
    """Whether the data put ``a`` ahead of ``b``: A minus B in points per deal positive, and
    significant after Holm (p below 1 - the confidence level). A significant difference of the
    other sign does not put ``a`` ahead, and a difference that is not significant is no evidence
    that the two are level: it leaves them not separated."""
    row = result.row(a, b, "points_per_deal")
    return row.estimate.value > 0 and row.p_holm < 1 - stats.LEVEL


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
            why = "best fair player" if len(best) == 1 else "not separated at the top"
            keys.append(Key(leader, baseline, f"{why}, against {baseline}"))
    for upper in result.upper_bounds:
        if fair:
            keys.append(Key(upper.player, fair[0], "upper bound against the best fair player"))
    return keys


def leaders(result: tour.Result) -> list[str]:
    """The best-rated fair player and those the data do not separate from it (:func:`separated`:
    the top player minus the other, in points per deal, positive and significant after Holm).
    Not separated is not level: the page quotes the interval of each difference."""
    if not result.ratings:
        return []
    top = result.ratings[0].player
    return [top, *(r.player for r in result.ratings[1:] if not separated(result, top, r.player))]


def by_variant(results: list[tuple]) -> dict[str, list[tuple]]:
    """The ``(spec, Result)`` pairs grouped by variant, in the order of the configuration."""
    groups: dict[str, list[tuple]] = {}
    for spec, result in results:
        groups.setdefault(result.tournament.variant, []).append((spec, result))
    return groups


def fair_players(result: tour.Result) -> list[str]:
    """The fair players a tournament seats, in its order (the upper bounds left out)."""
    return [e.spec for e in result.tournament.entrants if not e.sees_hidden_cards]


def deciding(group: list[tuple]) -> tuple | None:
    """Of one variant's tournaments, the one that answers for the variant: the first whose fair
    field seats the leaders (:func:`leaders`) of every other tournament of the variant. Its
    leaders then lead every fair player of the variant: a player seated only elsewhere is
    separated below a leader of its own tournament, and that leader plays here too (a chain of
    significant differences, each tested on the page). None when no tournament seats the others'
    leaders: the page then answers per tournament."""
    for entry in group:
        seated = {r.player for r in entry[1].ratings}
        if all(set(leaders(other)) <= seated for s, other in group if s is not entry[0]):
            return entry
    return None


def anchors(group: list[tuple]) -> list[str]:
    """The fair players every tournament of one variant seats: what links their results."""
    seated = [fair_players(result) for _, result in group]
    return [p for p in seated[0] if all(p in other for other in seated[1:])] if seated else []
