"""What does a deal and a game look like?

How many points a side scores in a deal, how many scope (sweeps) a deal has, how many deals a game
lasts to 11, 16 and 21 points, and how often the leaders tie at or above the target so that further
deals are needed (docs/rules.md §6), in games of classic Scopa between greedy players.
``measure`` computes, ``page`` shows.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from analyses import framework
from analyses.deal_shape.glance import glance
from analyses.deal_shape.measure import (
    KEY,
    DealShape,
    GameShape,
    IndependentDeals,
    TargetDifference,
    deal_shape,
    differences_family,
    game_shape,
    independent_deals,
    sides,
    target,
    target_difference,
)
from analyses.deal_shape.page import COLORS, DEAL_MEASURES, findings, sections
from analyses.framework import Needs, require, runs
from scopa_sim import reporting

__all__ = [
    "BASE", "COLORS", "DEALS", "DEAL_MEASURES", "GAME_RUNS", "KEY", "METHOD", "NEEDS", "QUESTION",
    "DealShape", "GameShape", "IndependentDeals", "TargetDifference", "build", "deal_shape",
    "differences_family", "findings", "game_shape", "glance", "independent_deals", "sections",
    "sides", "target", "target_difference",
]  # fmt: skip

BASE = "classic-greedy"  # deals inside games to 11: the per-deal distributions
GAME_RUNS = ("classic-greedy", "classic-target-16", "classic-target-21")  # one per target
DEALS = "classic-deals"  # independent deals: a cross-check of the per-deal means, when present
NEEDS = Needs(runs=tuple(dict.fromkeys((BASE, *GAME_RUNS))), optional=(DEALS,))

QUESTION = (
    "What does a deal and a game look like? How many points does a side score in a deal, how many "
    "scope does a deal have, how many deals does a game last, and how often does a tie at the "
    "target force extra deals?"
)
METHOD = (
    f"Per-deal distributions are tabulated over every deal of {BASE} (a side's points, split by "
    "whether it dealt; the scope of all sides together). Their means are ratio estimators over "
    "games, linearised per game (cluster-robust t intervals); the independent deals of "
    f"{DEALS}, when present, give a plain t-interval cross-check. A game's length is its number of "
    f"deals, from {', '.join(GAME_RUNS)} (targets 11, 16, 21; t intervals over games). A game "
    "needs extra deals for a tie when, after some deal, a side has reached the target but the "
    "leading sides have equal scores; its share of games has a Wilson interval. The runs of "
    "different targets share seed and players, so game g of each is dealt the same packs from the "
    "same first dealer: their lengths are compared paired by game (checked, else Welch), the "
    "page's one family of differences, with simultaneous (Bonferroni) intervals beside the 95% "
    "ones."
)


def build(data: Path) -> reporting.Page:
    """What does a deal and a game look like?

    Points per side and scope per deal (histograms, cluster-robust means), deals per game for
    targets 11, 16 and 21, and the share of games where a tie at the target forced extra deals.
    """
    game_runs = [require(data, name) for name in GAME_RUNS]
    base = require(data, BASE)
    deals_run = runs(data).get(DEALS)
    shape = deal_shape(base)
    # The cross-check needs one other side per deal, so that side-deals are independent.
    usable = deals_run is not None and deals_run.mode == "deals" and sides(deals_run) == 2
    plain = independent_deals(deals_run) if usable else None
    games = sorted((game_shape(run) for run in game_runs), key=lambda g: g.target)
    head = next((g for g in games if g.run.name == BASE), games[0])
    differences = [target_difference(lo, hi) for lo, hi in itertools.pairwise(games)]
    finding = (
        f"A game to {head.target} between greedy players lasts {reporting.ci(head.length)} deals, "
        f"and {framework.pct(head.tie_share)} of games need extra deals because the leaders tie "
        "at or above the target."
    )
    provenance = [g.run.provenance(g.deals, games=g.games) for g in games]
    used = [g.run for g in games]
    if plain is not None:
        provenance.append(plain.run.provenance(plain.deals))
        used.append(plain.run)
    return framework.page(
        "deal_shape",
        slug="deal-shape",
        title="The shape of a deal and of a game",
        question=QUESTION,
        method=METHOD,
        used=used,
        finding=finding,
        sections=sections(shape, plain, games, differences, differences_family(differences)),
        data=provenance,
        findings=findings(shape, plain, games, differences),
        answer=glance(games, head),
    )
