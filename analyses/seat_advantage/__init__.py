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
``measure`` computes, ``page`` shows.
"""

from __future__ import annotations

from pathlib import Path

from analyses import framework
from analyses.framework import Needs
from analyses.seat_advantage.glance import glance
from analyses.seat_advantage.measure import (
    TOURNAMENTS,
    DuplicateEdge,
    Edge,
    FirstDealer,
    ForcedCapture,
    LevelEdge,
    Shape,
    StrategyEdge,
    duplicate_edge,
    duplicate_edges,
    forced_capture,
    level_edge,
    level_edges,
    measure,
    pairing_problem,
    shape,
)
from analyses.seat_advantage.page import levels_section, sections
from scopa_sim import reporting

__all__ = [
    "FORCED", "HEADLINE", "HEADLINE_EXPERT", "METHOD", "NEEDS", "QUESTION", "TOURNAMENTS",
    "DuplicateEdge", "Edge", "FirstDealer", "ForcedCapture", "LevelEdge", "Shape", "StrategyEdge",
    "build", "duplicate_edge", "duplicate_edges", "findings", "forced_capture", "glance",
    "level_edge", "level_edges", "levels_section", "measure", "pairing_problem", "shape",
]  # fmt: skip

QUESTION = (
    "How large is the dealer's edge? How many more points per deal does the dealer's side score "
    "than the other side(s), and how often does the side that deals first win the game, for each "
    "pairing of players, between beginners and between experts?"
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
    "player who dealt, and measures each player's edge on duplicate deals (the tournaments). Two "
    f"levels: beginners ({framework.BEGINNER} on every side) and experts ({framework.EXPERT}). "
    "Every run with an expert twin (its name with -expert for -greedy, or -expert appended: the "
    "same rules, seed and size, so the same packs) is compared with it: the experts' edge minus "
    "the beginners', paired by game when the runs share every pack (checked on seeds, deal "
    "shape, games and first dealers; else Welch, Newcombe for the share of games). The headline "
    "pair (classic-greedy and its twin classic-expert) is required: without either the page "
    "fails."
)
HEADLINE = "classic-greedy"  # the beginner run of the one-sentence finding
HEADLINE_EXPERT = framework.expert_run(HEADLINE)  # its expert twin
FORCED = ("classic-greedy-vs-random", "classic-forced-capture")  # same players, same seed
#: The headline pair; every complete run; the forced-capture runs when present (the duplicate
#: tournaments under data/tournaments/ are read when present too).
NEEDS = Needs(runs=(HEADLINE, HEADLINE_EXPERT), optional=FORCED, every_run=True)


def findings(
    edges: list[Edge],
    dups: list[DuplicateEdge],
    fc: ForcedCapture | None,
    family: framework.Family,
    head,
    levels=(),
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
    for lv in levels:
        base = f"seat.levels.{lv.name}"
        unit = "points per deal, experts minus beginners"
        out.append(reporting.Finding(f"{base}.edge_diff", lv.edge_diff, unit))
        out.append(
            reporting.Finding(f"{base}.edge_diff.family", family.wide[("levels", lv.name, "edge")],
                              unit)
        )  # fmt: skip
        if lv.win_diff is not None:
            out.append(
                reporting.Finding(f"{base}.first_won_diff", lv.win_diff,
                                  "share of games, experts minus beginners")
            )  # fmt: skip
    out.append(framework.detectable(f"seat.detectable_edge.{head.run.name}", head.edge,
                                    "points per deal"))  # fmt: skip
    return out


def build(data: Path) -> reporting.Page:
    """How large is the dealer's edge?

    Per run: points per deal of the dealer's side against the other side(s) with cluster-robust
    intervals, the first dealer's share of games won (Wilson), per strategy when they differ,
    per player on the duplicate deals of the tournaments, and classic-greedy-vs-random against
    classic-forced-capture (the same players and seed: paired by game). One Holm family.
    """
    found = framework.every_run(data)
    for level, name in (("beginner", HEADLINE), ("expert", HEADLINE_EXPERT)):
        framework.check_level(framework.require(data, name), level, "the dealer's-edge page")
    edges = [measure(run) for run in found.values()]
    by_name = {e.run.name: e for e in edges}
    levels = level_edges(edges, framework.expert_run)
    dups, skipped = duplicate_edges(data)
    fc = None
    if all(name in by_name for name in FORCED):
        base, forced = (by_name[name] for name in FORCED)
        if base.games and forced.games and base.shape == forced.shape:
            fc = forced_capture(base, forced)

    family = framework.Family()
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
    for lv in levels:
        family.add(("levels", lv.name, "edge"), lv.edge_diff, lv.edge_p)
        if lv.win_p is not None:
            family.add(("levels", lv.name, "first_won"), lv.win_diff, lv.win_p)
    family.close()
    parts = [f"the edge of each of the {len(edges)} runs"]
    n_strategy = sum(len(e.strategies) for e in edges)
    if n_strategy:
        parts.append(f"{n_strategy} strategies' edges within mixed runs")
    if dups:
        parts.append(f"{2 * len(dups)} players' edges on duplicate deals")
    if fc is not None:
        parts.append(f"{1 + (fc.win_p is not None)} forced-capture differences")
    if levels:
        n_levels = sum(1 + (lv.win_p is not None) for lv in levels)
        parts.append(f"{n_levels} differences between experts and beginners")

    head = by_name[HEADLINE]
    pair = next(lv for lv in levels if lv.name == HEADLINE)
    finding = (
        f"In {head.run.name} ({head.run.config['variant_label']}, "
        f"{','.join(head.run.config['players'])}) the dealer's side scores "
        f"{reporting.ci(head.edge)} points per deal more than the other side"
    )
    if head.first_won is not None:
        finding += f", and the side that deals first wins {framework.pct(head.first_won)} of games"
    key = ("levels", HEADLINE, "edge")
    finding += (
        f". Between experts ({HEADLINE_EXPERT}) the edge is {reporting.ci(pair.expert.edge)}; "
        f"experts minus beginners on the same packs: {reporting.ci(pair.edge_diff)} "
        f"({pair.design}; {family.level_text} interval "
        f"{family.ci(key)}, Holm p {family.p(key)})."
    )
    return framework.page(
        "seat_advantage",
        slug="seat-advantage",
        title="The dealer's edge",
        question=QUESTION,
        method=METHOD,
        used=(e.run for e in edges),
        finding=finding,
        sections=[
            *sections(edges, dups, skipped, fc, family, parts, head),
            *([levels_section(levels, family)] if levels else []),
        ],
        data=[e.run.provenance(e.deals) for e in edges]
        + [
            {
                "run": f"{TOURNAMENTS}/{d.tournament}/{d.a}-vs-{d.b} and {d.b}-vs-{d.a}",
                "variant": d.variant,
                "players": f"{d.a},{d.b}",
                "mode": d.mode,
                "deals": d.deals,
                "seed": d.seed,
                **framework.manifests_provenance(d.folders),
            }
            for d in dups
        ],
        reproduce_text=framework.reproduce("seat_advantage")
        + ("\n# the duplicate tournaments: make tournament" if dups else ""),
        findings=findings(edges, dups, fc, family, head, levels),
        answer=glance(levels, pair, family),
    )
