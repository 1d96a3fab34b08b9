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
    Member,
    categories,
    family_runs,
    measure,
    per_game,
    stopped,
)
from analyses.family.page import CATEGORY_COLORS, COLOR, findings, headline, sections
from analyses.framework import Needs
from scopa_sim import reporting
from scopa_sim.rules import PRESETS

__all__ = [
    "CATEGORY_COLORS", "COLOR", "FAMILY", "KEY", "METHOD", "NEEDS", "QUESTION", "TIED", "Member",
    "build", "categories", "family_runs", "findings", "glance", "headline", "measure", "per_game",
    "sections", "stopped",
]  # fmt: skip

NEEDS = Needs(runs=tuple(FAMILY.values()))

QUESTION = (
    "How do the games of the Scopa family compare? Per preset, with greedy players: how many "
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
    "random. Game length is the number of deals in a game, with a t interval over games."
)


def build(data: Path) -> reporting.Page:
    """How do the games of the Scopa family compare?

    Per preset (greedy players, whole games): points and scope per deal, tied categories, the
    dealer's edge and game length, with cluster-robust 95 % intervals and one chart per measure.
    """
    found = family_runs(data)
    members = [measure(preset, found[preset]) for preset in PRESETS if preset in found]
    return framework.page(
        "family",
        slug="family",
        title="The Scopa family side by side",
        question=QUESTION,
        method=METHOD,
        used=(m.run for m in members),
        finding=headline(members),
        sections=sections(members),
        data=[{"preset": m.preset, **m.run.provenance(m.deals, games=m.games)} for m in members],
        findings=findings(members),
        answer=glance(members),
    )
