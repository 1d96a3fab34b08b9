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
    LevelDifference,
    TargetDifference,
    deal_shape,
    differences_family,
    game_shape,
    independent_deals,
    level_difference,
    sides,
    target,
    target_difference,
)
from analyses.deal_shape.page import (
    COLORS,
    DEAL_MEASURES,
    findings,
    level_findings,
    level_sections,
    sections,
)
from analyses.framework import LEVELS, Needs, level_run, require, runs
from scopa_sim import reporting

__all__ = [
    "BASE", "COLORS", "DEALS", "DEAL_MEASURES", "GAME_RUNS", "KEY", "METHOD", "NEEDS", "QUESTION",
    "DealShape", "GameShape", "IndependentDeals", "LevelDifference", "TargetDifference", "build",
    "deal_shape", "differences_family", "findings", "game_shape", "glance", "independent_deals",
    "level_difference", "level_findings", "level_sections", "sections", "sides", "target",
    "target_difference",
]  # fmt: skip

BASE = "classic-greedy"  # deals inside games to 11: the per-deal distributions
GAME_RUNS = ("classic-greedy", "classic-target-16", "classic-target-21")  # one per target
DEALS = "classic-deals"  # independent deals: a cross-check of the per-deal means, when present
NEEDS = Needs(
    runs=tuple(dict.fromkeys(level_run(n, lv) for lv in LEVELS for n in (BASE, *GAME_RUNS))),
    optional=tuple(level_run(DEALS, lv) for lv in LEVELS),
)

QUESTION = (
    "What does a deal and a game look like? How many points does a side score in a deal, how many "
    "scope does a deal have, how many deals does a game last, and how often does a tie at the "
    "target force extra deals, between beginners and between experts?"
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
    "same first dealer: their lengths are compared paired by game (checked, else Welch). Two "
    f"levels: every run is played by beginners ({framework.BEGINNER} on every side) and by "
    f"experts ({framework.EXPERT}), the expert run the twin of the beginner run (its name ends "
    "in -expert: the same rules, seed and size, so the same packs); at each target the experts' "
    "game length and share of games tied at the target minus the beginners' are paired by game "
    "(checked: seed, mode, deal shape, games, first dealers; else Welch). The page's one family "
    "of tests: the target differences at both levels and the level differences, Holm-adjusted, "
    "with simultaneous (Bonferroni) intervals beside the 95% ones; every other interval stands "
    "alone and is not tested. A missing run of either level fails the page."
)


def build(data: Path) -> reporting.Page:
    """What does a deal and a game look like?

    Points per side and scope per deal (histograms, cluster-robust means), deals per game for
    targets 11, 16 and 21, and the share of games where a tie at the target forced extra deals.
    """
    found = runs(data)
    measured, provenance, used, finding, who = {}, [], [], [], {}
    for level in LEVELS:
        game_runs = [require(data, level_run(name, level)) for name in GAME_RUNS]
        base = require(data, level_run(BASE, level))
        for run in game_runs:
            framework.check_level(run, level, "the deal-shape page")
        deals_run = found.get(level_run(DEALS, level))
        shape = deal_shape(base)
        # The cross-check needs one other side per deal, so that side-deals are independent.
        # It must be the level's own (its player on both sides), or it checks another question.
        usable = (
            deals_run is not None
            and deals_run.mode == "deals"
            and sides(deals_run) == 2
            and set(deals_run.config["players"]) == {framework.LEVEL_PLAYER[level]}
        )
        plain = independent_deals(deals_run) if usable else None
        games = sorted((game_shape(run) for run in game_runs), key=lambda g: g.target)
        head = next((g for g in games if g.run.name == base.name), games[0])
        differences = [target_difference(lo, hi, level) for lo, hi in itertools.pairwise(games)]
        measured[level] = (shape, plain, games, differences)
        who[level] = f"{framework.LEVEL_PLAYER[level]} players"
        finding.append(
            f"A game to {head.target} between {who[level]} ({level}s) lasts "
            f"{reporting.ci(head.length)} deals, and {framework.pct(head.tie_share)} of games "
            "need extra deals because the leaders tie at or above the target."
        )
        provenance += [g.run.provenance(g.deals, games=g.games) for g in games]
        used += [g.run for g in games]
        if plain is not None:
            provenance.append(plain.run.provenance(plain.deals))
            used.append(plain.run)
    beginners, experts = measured["beginner"], measured["expert"]
    levels = [level_difference(b, e) for b, e in zip(beginners[2], experts[2], strict=True)]
    family = differences_family(beginners[3] + experts[3], levels)
    head = next(d for d in levels if d.beginner.run.name == BASE)
    finding.append(
        f"On the same packs, experts minus beginners at target {head.target} is "
        f"{reporting.ci(head.length)} deals per game (paired by game; {family.level_text} "
        f"Bonferroni interval {family.ci(head.key('length'))}, Holm p "
        f"{family.p(head.key('length'))})."
    )
    by_level = {
        level: sections(shape, plain, games, differences, family)
        for level, (shape, plain, games, differences) in measured.items()
    }
    out = []
    for level, (shape, plain, games, differences) in measured.items():
        prefix = "deal_shape." if level == "beginner" else f"deal_shape.{level}."
        out += findings(shape, plain, games, differences, prefix)
    return framework.page(
        "deal_shape",
        slug="deal-shape",
        title="The shape of a deal and of a game",
        question=QUESTION,
        method=METHOD,
        used=used,
        finding=" ".join(finding),
        sections=level_sections(by_level, who, levels, family),
        data=provenance,
        findings=out + level_findings(levels, family),
        answer=glance(beginners[2], experts[2], head, family),
    )
