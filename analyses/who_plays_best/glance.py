"""Who plays best, at a glance: the best fair player of each tournament in one sentence, and the
ratings of the first tournament's fair players as an interval plot of the page's own findings."""

from __future__ import annotations

from analyses import framework
from analyses.tournaments import Spec
from analyses.who_plays_best.measure import leaders
from scopa_sim import tournament as tour
from scopa_sim.reporting import HEADLINE_ROWS


def _clause(result: tour.Result) -> str:
    t = result.tournament
    best = leaders(result)
    if len(best) > 1:
        return f"{' and '.join(best)} are not separated at the top in {t.variant}"
    (leader,) = best
    text = f"{leader} plays best in {t.variant}"
    if len(result.ratings) > 1:
        second = result.ratings[1].player
        margin = result.row(leader, second, "points_per_deal").estimate.value
        text += f", about {framework.about(margin)} points a deal ahead of {second}"
    return text


def glance(results: list[tuple[Spec, tour.Result]]) -> framework.Answer:
    """Each tournament's leader (or leaders) in one sentence; the chart: the first tournament
    with ratings, its fair players from the strongest."""
    rated = [(spec, result) for spec, result in results if result.ratings]
    if not rated:
        raise ValueError("who plays best: no tournament has a fair player to rate")
    spec, first = rated[0]
    ratings = first.ratings[:HEADLINE_ROWS]
    return framework.Answer(
        sentence="Of the fair players, " + "; ".join(_clause(r) for _, r in rated) + ".",
        rows=tuple(
            (r.player, f"who_plays_best.{spec.name}.rating.{tour.folder_name(r.player)}")
            for r in ratings
        ),
        axis=f"rating, Elo-like, mean 0 ({first.tournament.variant})",
        reference=0.0,
    )
