"""The dealer's-edge page at a glance: how many points dealing is worth a deal in each game, in
one sentence and an interval plot of the page's own findings."""

from __future__ import annotations

from analyses import framework
from analyses.seat_advantage.measure import Edge
from scopa_sim.reporting import HEADLINE_ROWS


def _one_player(e: Edge) -> bool:
    return len(set(e.run.config["players"])) == 1


def chart_edges(edges: list[Edge], head: Edge) -> list[Edge]:
    """One run per game (preset) for the chart, the sentence's first: per preset the run whose
    sides all play alike (the edge is then the seat's alone), the one with the most deals."""
    chosen = {head.run.config["variant"]: head}
    for e in sorted(edges, key=lambda e: (not _one_player(e), -e.deals, e.run.name)):
        chosen.setdefault(e.run.config["variant"], e)
    return list(chosen.values())[:HEADLINE_ROWS]


def glance(edges: list[Edge], head: Edge) -> framework.Answer:
    """The dealer's edge of ``head`` in words, and per game the edge of :func:`chart_edges`."""
    about, x = framework.about, head.edge.value
    players = head.run.config["players"]
    who = f"{players[0]} players" if len(set(players)) == 1 else " against ".join(players)
    sentence = (
        f"In {head.run.config['variant_label']} between {who} the dealer's side scores about "
        f"{about(abs(x))} points a deal {'more' if x >= 0 else 'fewer'} than the other side"
    )
    if head.first_won is not None:
        sentence += (
            f", and the side that deals first wins about {about(100 * head.first_won.value)} % "
            "of games"
        )
    return framework.Answer(
        sentence=sentence + ".",
        rows=tuple(
            (e.run.config["variant_label"], f"seat.edge.{e.run.name}")
            for e in chart_edges(edges, head)
        ),
        axis="dealer's side minus the others, points per deal",
        reference=0.0,
    )
