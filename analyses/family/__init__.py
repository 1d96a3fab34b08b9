"""How do the games of the Scopa family compare?

Every preset of docs/rules.md §7, played whole games by two to six greedy players: points and scope
per deal, how often cards, coins, primiera and (52-card game) sevens are tied so that nobody scores
them, the dealer's edge, and how many deals a game lasts, each with a 95 % interval that allows
for deals clustering in games. ``measure`` computes, ``page`` shows.
"""

from __future__ import annotations

from pathlib import Path

from analyses import framework
from analyses.family.glance import glance
from analyses.family.measure import (
    FAMILY,
    KEY,
    TIED,
    LevelDifference,
    Member,
    categories,
    family_runs,
    level_difference,
    level_family,
    level_names,
    measure,
    per_game,
    stopped,
)
from analyses.family.page import (
    CATEGORY_COLORS,
    COLOR,
    findings,
    headline,
    level_sections,
    levels_headline,
    sections,
)
from analyses.framework import Needs
from scopa_sim import reporting
from scopa_sim.rules import PRESETS

__all__ = [
    "CATEGORY_COLORS", "COLOR", "FAMILY", "KEY", "METHOD", "NEEDS", "QUESTION", "TIED",
    "LevelDifference", "Member", "build", "categories", "family_runs", "findings", "glance",
    "headline", "level_difference", "level_family", "level_names", "level_sections",
    "levels_headline", "measure", "per_game", "sections", "stopped",
]  # fmt: skip

NEEDS = Needs(runs=tuple(n for level in framework.LEVELS for n in level_names(level).values()))

QUESTION = (
    "How do the games of the Scopa family compare? Per preset, for beginners (greedy players) "
    "and for experts: how many "
    "points and scope a deal gives out, how often cards, coins, primiera and sevens are tied so "
    "that nobody scores them, how large the dealer's edge is, and how many deals a game lasts."
)
METHOD = (
    "One run of whole games per preset, every side played by the greedy player, each preset with "
    "its own rules and no options. Deals within a game are not independent (the score, and with it "
    "the end of the game, links them), so each per-deal figure is a ratio over games: the sum over "
    "a game divided by its number of deals, pooled over games, with a cluster-robust 95 % t "
    "interval from the ratio linearised per game (the estimator `scopa-sim compare` uses, "
    "scopa_sim.stats.linearised_ratio). Points and scope per deal are those of all sides "
    "together. A category is tied when nobody scores it (docs/rules.md §5: with three or more "
    "sides, two or more share the most); for primiera a tie means the best primiera is shared, and "
    "a deal where no side has a primiera (a suit missing from every side's cards) is counted "
    "apart. Ties are counted over the deals that were played out: a deal that stopped at a scopa "
    "winning the game outright (the 52-card game) scores no category. The dealer's edge is, per "
    "deal, the points of the dealer's side minus the mean points of the other sides; the dealer "
    "is read from the data (column dealer), and the first dealer of every game is drawn at "
    "random. Game length is the number of deals in a game, with a t interval over games. Two "
    f"levels: every preset is played once by beginners ({framework.BEGINNER} on every side) and "
    f"once by experts ({framework.EXPERT}), the two runs with the same seed and number of games, "
    "so game g of both is dealt the same packs from the same first dealer (checked: seed, mode, "
    "deal shape, game numbers; else the two are compared as independent samples, Welch). The "
    "experts' game length minus the beginners' is a paired t interval over the per-game "
    "differences. Family of tests: these level differences, one per preset, Holm-adjusted, with "
    "Bonferroni intervals; every other interval is a 95 % interval on its own, and the page "
    "claims no significance from them. A missing run of either level fails the page (no page at "
    "one level)."
)


def build(data: Path) -> reporting.Page:
    """How do the games of the Scopa family compare?

    Per preset (greedy players, whole games): points and scope per deal, tied categories, the
    dealer's edge and game length, with cluster-robust 95 % intervals and one chart per measure.
    """
    levels = {}
    for level in framework.LEVELS:
        found = family_runs(data, level)
        levels[level] = [measure(p, found[p]) for p in PRESETS if p in found]
    members, experts = levels["beginner"], levels["expert"]
    differences = [level_difference(b, e) for b, e in zip(members, experts, strict=True)]
    family = level_family(differences)
    return framework.page(
        "family",
        slug="family",
        title="The Scopa family side by side",
        question=QUESTION,
        method=METHOD,
        used=(m.run for m in members + experts),
        finding=f"{headline(members)} {headline(experts)} {levels_headline(differences, family)}",
        sections=level_sections(levels, differences, family),
        data=[
            {"preset": m.preset, **m.run.provenance(m.deals, games=m.games)}
            for m in members + experts
        ],
        findings=findings(members, experts, differences, family),
        answer=glance(members, experts, differences, family),
    )
