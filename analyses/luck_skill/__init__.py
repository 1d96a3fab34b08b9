"""How much is luck, how much is skill?

Per preset, from duplicate round robins of the ladder random, greedy, the best fair player and
the cheater (configs/luck_skill.toml, played by ``make luck-skill``; classic deals reuse
``classic-deals`` of configs/tournaments.toml):

1. The cards' share of a deal's and of a game's outcome. For a pairing A against B on unit i (a
   deal, or a whole game), x1_i and x2_i are A's result in the two seatings of the same pack(s):
   its points minus B's for a deal, ``won - 1/2`` for a game. Plain play sees one of them; the
   duplicate value is d_i = (x1_i + x2_i) / 2. The pack's luck follows the seat, so it cancels
   out of d and nothing else does: the cards' share of the plain outcome's variance is
   ``1 - 2 Var(d) / Var(x)`` (= -Cov(x1, x2) / Var(x) when both seatings vary alike), with Var(x)
   the mean of the two seatings' variances. The mean square of a plain result splits into skill
   (the mean gap squared), cards (that share of the variance) and the rest (what the players'
   choices, their own random numbers and the pack's interaction with who plays it add).
2. The relative skill of Borm and van der Genugten (2001): RS = (best fair - beginner) /
   (cheater - beginner), each result the player's duplicate margin in points per deal against
   the beginner (so the beginner's own is exactly 0), on the same packs.

Intervals: percentile bootstrap over packs (units resampled jointly across the pairings of a
tournament, which all play the same packs), fixed seed. The page plays nothing; it reads the
run folders of the tournaments with scopa_sim.tournament. ``measure`` computes, ``page`` shows.

``python -m analyses.luck_skill --commands`` prints the tournaments' commands, one a line (the
``luck-skill`` target of the Makefile runs them).
"""

from __future__ import annotations

from pathlib import Path

from analyses import framework
from analyses import tournaments as tc
from analyses.framework import DATA, Needs
from analyses.luck_skill import measure
from analyses.luck_skill.glance import glance
from analyses.luck_skill.measure import (
    BEGINNERS,
    REPLICATES,
    SEED,
    UPPER,
    Decomposition,
    Level,
    PairingRow,
    Preset,
    Skill,
    analyse,
    best_fair,
    decompose,
    ladder,
    moments,
    pooled_cards,
    relative_skill,
    seatings,
)
from analyses.luck_skill.page import (
    CHESS,
    chart,
    findings,
    headline,
    sections,
    skill_sentence,
    skill_table,
)
from scopa_sim import reporting

__all__ = [
    "BEGINNERS", "CHESS", "CONFIG", "METHOD", "NEEDS", "QUESTION", "REPLICATES", "SEED", "UPPER",
    "Decomposition", "Level", "PairingRow", "Preset", "Skill", "analyse", "best_fair", "build",
    "commands", "decompose", "findings", "glance", "headline", "ladder", "load", "moments",
    "pooled_cards", "relative_skill", "seatings", "sections", "skill_sentence",
]  # fmt: skip

#: The tournaments of this page (``make luck-skill``).
CONFIG = Path(__file__).resolve().parent.parent.parent / "configs" / "luck_skill.toml"
NEEDS = Needs(tournaments=CONFIG)
QUESTION = (
    "In each game of the family, how much of a deal's and of a game's outcome do the "
    "cards decide and how much the players, and how much of the room between a beginner "
    "and a player who sees every card does the best fair player cover?"
)
METHOD = (
    "Duplicate round robins (`scopa-sim tournament`): every pair of players A, B plays the same "
    "packs twice with the seats swapped. For a unit i (a deal, or a whole game) let x1_i and x2_i "
    "be A's result in the two seatings: A's points minus B's for a deal; won - 1/2 for a game "
    "(+1/2 a win, -1/2 a loss). Plain play sees one of them, with variance Var(x) (the mean of "
    "the two seatings' variances); duplicate play sees d_i = (x1_i + x2_i) / 2. The pack's luck "
    "follows the seat, so it changes sign between the seatings and cancels out of d; nothing "
    "else does. Writing x = skill gap + cards + rest, Var(x) = Var(cards) + Var(rest) and, the "
    "rest of the two seatings uncorrelated, Var(d) = Var(rest) / 2, so the cards' share of the "
    "outcome variance is 1 - 2 Var(d) / Var(x). That is the definition used, with no model: it "
    "equals -Cov(x1, x2) / Var(x), how strongly the two seatings of the same pack oppose each "
    "other (a part of the rest that favours one player on both seatings lowers it), and it is "
    "the tournament's variance reduction read as a share. The mean square of a plain "
    "result, mean(d)^2 + Var(x), splits into skill (the squared mean gap: what the better player "
    "gains on average), cards (the share above) and the rest: the players' own random numbers "
    "(random, pimc's samples), and how a pack suits one player more than the other (which does "
    "not follow the seat). The ladder: the beginners random and greedy, the fair player with the "
    "largest mean duplicate margin against each beginner (the choice rule; it is applied to the "
    "data and again in every bootstrap replicate, so the intervals of RS and of the margins "
    "allow for the pick, and the table gives the share of replicates that pick the same player) "
    "and the cheater (pimc seeing every hidden card). Relative skill (Borm and "
    "van der Genugten, 2001, \u201cOn a relative measure of skill for games with chance "
    "elements\u201d, TOP 9): RS = (best fair - beginner) / (fictive player - beginner), the "
    "fictive player knowing the chance moves; here each result is the player's mean duplicate "
    "margin in points per deal against the beginner on the deals tournament (so the beginner "
    "scores exactly 0) and the cheater stands in for the fictive player. Both stand-ins fall "
    "short: the best fair player is no optimal player (RS understated) and the cheater no "
    "optimal full-information player (RS overstated). Intervals: 95% percentile bootstrap, "
    f"{REPLICATES} replicates, packs (deals, or games) resampled jointly across the pairings of "
    "a tournament (they all play the same packs; fixed seeds). One family of tests for the page: "
    "the claims about the cheater of every relative skill (does it gain more than the best fair "
    "player against the beginner, does it beat that player), two per beginner and deals "
    "tournament, decided and quoted with percentile intervals at the Bonferroni level "
    "1 - 0.05 / (the family's size) (page-family CI); the other intervals are 95 % intervals "
    "that describe, each on its own, and test nothing. Games: the duplicate games follow "
    "the same sequence of packs while both seatings last. Deals of a preset come from its deals "
    "tournament (classic: classic-deals of 'Who plays best?', 10,000 deals a run), games from "
    "its games tournament. The section 'Another yardstick' relates RS to the x %-chess measure."
)


def load(data: Path, config: Path = CONFIG) -> list[Preset]:
    """Every preset of ``config`` measured from its tournament folders under ``data``."""
    return measure.load(data, config)


def build(data: Path, config: Path = CONFIG) -> reporting.Page:
    """How much is luck, how much is skill?

    Per preset of configs/luck_skill.toml: the cards' share of a deal's and of a game's outcome
    from duplicate play, and the relative skill of Borm and van der Genugten, from the
    tournament folders under ``data``/tournaments/ (``make luck-skill``).
    """
    presets = load(data, config)
    specs = tc.load_config(config)
    return framework.page(
        "luck_skill",
        slug="luck-skill",
        title="How much is luck, how much is skill?",
        question=QUESTION,
        method=METHOD,
        finding=headline(presets),
        sections=[
            reporting.Section(
                "Overview",
                text=(
                    "Left: the cards' share of the outcome variance pooled over the ladder's "
                    "pairings, for a deal (points) and a whole game (who wins). Right: relative "
                    "skill with random and with greedy as the beginner."
                ),
                figures=[
                    reporting.Figure(
                        "Cards' share (pooled over the pairings) and relative skill, 95% "
                        "bootstrap CIs over packs",
                        reporting.svg(chart(presets)),
                    )
                ],
                tables=[skill_table(presets)],
            ),
            *sections(presets),
            reporting.Section("Another yardstick: x %-chess", text=CHESS),
        ],
        data=[tc.data_row(spec, data) for spec in specs],
        reproduce_text=tc.reproduce(
            "luck-skill", "configs/luck_skill.toml", specs, data, "luck_skill", "resumable"
        ),
        findings=findings(presets),
        answer=glance(presets),
    )


def commands(data: Path = DATA, config: Path = CONFIG, missing: bool = False) -> list[str]:
    """The commands of this page's tournaments; with ``missing``, only those not yet complete."""
    return tc.commands(config, data, missing)
