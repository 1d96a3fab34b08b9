"""Who plays best, at a glance: the best fair player of each variant in one sentence (from the
tournament that answers for the variant, :func:`measure.deciding`; else each tournament's), and
the ratings of the first variant's answering tournament as an interval plot of the page's own
findings."""

from __future__ import annotations

from analyses import framework
from analyses.tournaments import Spec
from analyses.who_plays_best.measure import by_variant, deciding, leaders
from scopa_sim import tournament as tour
from scopa_sim.reporting import HEADLINE_ROWS


def _clause(result: tour.Result, name: str = "") -> str:
    t = result.tournament
    best = leaders(result)
    where = f"{t.variant} ({name})" if name else t.variant
    if len(best) > 1:
        return f"{' and '.join(best)} are not separated at the top in {where}"
    (leader,) = best
    text = f"{leader} plays best in {where}"
    if len(result.ratings) > 1:
        second = result.ratings[1].player
        margin = result.row(leader, second, "points_per_deal").estimate.value
        text += f", about {framework.about(margin)} points a deal ahead of {second}"
    return text


def _clauses(group: list[tuple[Spec, tour.Result]]) -> list[str]:
    """The variant's clause: its answering tournament's, else one per tournament, named."""
    found = deciding(group) if len(group) > 1 else group[0]
    if found is not None:
        return [_clause(found[1])]
    return [_clause(result, spec.name) for spec, result in group]


def glance(results: list[tuple[Spec, tour.Result]]) -> framework.Answer:
    """Each variant's leader (or leaders) in one sentence; the chart: the tournament that
    answers for the first variant with ratings, its fair players from the strongest."""
    rated = [(spec, result) for spec, result in results if result.ratings]
    if not rated:
        raise ValueError("who plays best: no tournament has a fair player to rate")
    groups = list(by_variant(rated).values())
    spec, first = deciding(groups[0]) or groups[0][0]
    ratings = first.ratings[:HEADLINE_ROWS]
    return framework.Answer(
        sentence="Of the fair players, "
        + "; ".join(c for group in groups for c in _clauses(group))
        + ".",
        rows=tuple(
            (r.player, f"who_plays_best.{spec.name}.rating.{tour.folder_name(r.player)}")
            for r in ratings
        ),
        axis=f"rating, Elo-like, mean 0 ({first.tournament.variant})",
        reference=0.0,
    )
