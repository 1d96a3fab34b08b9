"""The dealer's-edge page at a glance: how many points dealing is worth a deal in each game, to
beginners and to experts, in one sentence and an interval plot of the page's own findings; the
sentence gives the experts' edge minus the beginners' on the same packs (paired by game)."""

from __future__ import annotations

from analyses import framework
from analyses.seat_advantage.measure import Edge, LevelEdge
from scopa_sim import stats
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


def chart_pairs(levels: list[LevelEdge], head: LevelEdge) -> list[LevelEdge]:
    """One beginner run and its expert twin per game (preset) for the chart, the sentence's
    first, then by the beginner run's deals: as many as two rows each allow."""
    chosen = {head.beginner.run.config["variant"]: head}
    for lv in sorted(levels, key=lambda lv: (-lv.beginner.deals, lv.name)):
        if _one_player(lv.beginner):
            chosen.setdefault(lv.beginner.run.config["variant"], lv)
    return list(chosen.values())[: HEADLINE_ROWS // 2]


def glance(levels: list[LevelEdge], pair: LevelEdge, family: framework.Family) -> framework.Answer:
    """The dealer's edge of the headline ``pair`` (a beginner run and its expert twin) in words,
    with their difference in the page's ``family``; the chart: both levels' edges per game, for
    the games of ``levels`` (:func:`chart_pairs`)."""
    about, b, e = framework.about, pair.beginner.edge.value, pair.expert.edge.value
    variant = pair.beginner.run.config["variant_label"]
    key = ("levels", pair.name, "edge")
    wide = family.wide[key]
    sentence = (
        f"In {variant} the dealer's side scores about {about(abs(b))} points a deal "
        f"{'more' if b >= 0 else 'fewer'} than the other side between beginners "
        f"({framework.BEGINNER}) and about {about(abs(e))} {'more' if e >= 0 else 'fewer'} "
        f"between experts ({framework.EXPERT}); experts minus beginners on the same packs is "
        f"{about(wide.value)} [{about(wide.low)}, {about(wide.high)}] points a deal "
        f"({family.level_text} family interval, Holm p "
        f"{stats.format_p(family.p_holm[key], equals=True)})"
    )
    # the signs of the two edges, each read in the page's family (its tests of the run edges)
    clause = framework.levels_clause(
        family.wide[("edge", pair.beginner.run.name)], family.wide[("edge", pair.expert.run.name)]
    )
    sentence += f"; {clause}" if clause else ""
    rows = []
    for lv in chart_pairs(levels, pair):
        label = lv.beginner.run.config["variant_label"]
        rows.append((f"{label}, beginners", f"seat.edge.{lv.beginner.run.name}"))
        rows.append((f"{label}, experts", f"seat.edge.{lv.expert.run.name}"))
    return framework.Answer(
        sentence=sentence + ".",
        rows=tuple(rows),
        axis="dealer's side minus the others, points per deal",
        reference=0.0,
    )
