"""What is an ace worth for primiera?

A side's primiera takes its best card in each suit (7 = 21, 6 = 18, ace = 16, 5 = 15, ...,
docs/rules.md §5), so an ace should count only in a suit where the side has neither the seven nor
the six. Counting which sides hold aces only shows what goes with aces; this page changes who
holds an ace and measures what changes: at the end of a deal (the ace moved to the other pile and
the deal rescored) and before play (the deal replayed with the ace dealt to the other side), by
the situation of the ace's suit. ``measure`` computes, ``page`` shows.
"""

from __future__ import annotations

from pathlib import Path

from analyses import _card_interventions as ci
from analyses import framework
from analyses.ace_value.glance import glance
from analyses.ace_value.measure import (
    ACES,
    MIN_CELL,
    PACK,
    RANKS,
    RUN,
    SITUATIONS,
    WINS,
    AceValues,
    LevelDifference,
    captured_aces,
    cells,
    dealt_aces,
    level_differences,
    measure,
)
from analyses.ace_value.page import (
    SITUATION_KEYS,
    SITUATION_LABELS,
    SITUATION_NAMES,
    findings,
    headline,
    level_findings,
    level_sections,
    levels_text,
    sections,
)
from analyses.framework import Needs
from scopa_sim import reporting

__all__ = [
    "ACES", "METHOD", "MIN_CELL", "NEEDS", "PACK", "QUESTION", "RANKS", "RUN", "SITUATIONS",
    "SITUATION_KEYS", "SITUATION_LABELS", "SITUATION_NAMES", "WINS", "AceValues",
    "LevelDifference", "build", "captured_aces", "cells", "dealt_aces", "findings", "glance",
    "headline", "level_differences", "level_findings", "level_sections", "levels_text", "measure",
    "method", "sections",
]  # fmt: skip

NEEDS = Needs(
    runs=tuple(framework.level_run(n, lv) for lv in framework.LEVELS for n in (RUN, ci.GAMES))
)

QUESTION = (
    "What is an ace worth for primiera? How many points, and how much of the primiera point, "
    "does a side gain by holding an ace rather than letting the other side hold it, at the end "
    "of a deal and when the cards are dealt, depending on whether it holds that suit's seven or "
    "six, between beginners and between experts?"
)


def method(deals: int, replayed: int, games: str, behind: int) -> str:
    return (
        f"Captured value (exact rescoring): for each of the {deals:,} independent deals of run "
        f"{RUN} and each ace a side captured, the ace is moved to the other side's pile and the "
        "deal is scored again by the engine's scoring (scope unchanged); the value is the "
        "capturer's deal points with the ace minus without it (the cards, coins and primiera "
        "points can move), and separately its primiera point and its margin over the other side. "
        "Every captured ace of every deal counts once; the mean's 95% interval is clustered by "
        "deal (the aces of one deal share it). Dealt value (paired replays): the first "
        f"{replayed:,} deals of the run are played again by the same players on the same random "
        "numbers, once as dealt and once with the ace exchanged for a card of the other side's "
        "hands drawn at random (a dedicated random stream); aces dealt to the table are not "
        "replayed. The value is the side's points (primiera point, margin) as dealt minus with "
        "the exchange, so it is the ace's worth against an average card of the opponent's hand, "
        "play included; intervals are clustered by deal. The change in the chance to win a game "
        "reads both arms' scores after the deal in a table W(own score, other score) of the "
        f"chance to win from the scores at the start of a deal, estimated from the games of run "
        f"{games} (both sides of every deal pooled, whatever the deal number or dealer; a deal "
        "that ends the game counts 1 or 0, both sides at or past the target and level 1/2). The "
        "replays are played from 0-0 and read at both starting scores: greedy players do not "
        "look at the score and no rule of this variant depends on it before the deal ends. W is "
        f"an estimate taken as known here: every cell the replays reach rests on at least "
        f"{behind:,} side-deals, and that error is not in the intervals. The suit "
        "situation is what the side held of the ace's suit: captured (rescoring) or dealt to its "
        "hands (replays). The strata table at the end is descriptive: it shows what goes with "
        "aces, not what an ace causes. Two levels: all of this for beginners "
        f"({framework.BEGINNER} on both sides, runs {RUN} and {games}) and for experts "
        f"({framework.EXPERT}, their twins {framework.expert_run(RUN)} and "
        f"{framework.expert_run(games)}, the same seed and sizes, so the same packs and the "
        "same exchanges in the replays). Family of tests: the experts' minus the beginners' "
        "points of a captured ace and of a dealt ace, pooled over the aces both levels have on "
        "the same deals (paired per deal and ace, cluster-robust by deal), and at each level "
        "whether a captured ace is worth anything (its pooled points against 0, clustered by "
        "deal): four tests, Holm p-values and Bonferroni intervals. Nothing else is tested: "
        "every other interval is a "
        "95% interval on its own, not simultaneous (of many such intervals about one in twenty "
        "can miss by chance), and where the text sets one suit situation (or level) beside "
        "another it quotes both intervals, not a test of their difference. A missing run of "
        "either level fails the page."
    )


#: The method as the page protocol reads it: written from the sizes the page measured.
METHOD = method


def build(data: Path) -> reporting.Page:
    """What is an ace worth for primiera?"""
    values = {level: measure(data, level) for level in framework.LEVELS}
    b, e = values["beginner"], values["expert"]
    levels = level_differences(b, e)
    family = framework.Family()
    for v in values.values():  # is a captured ace worth anything, at each level?
        rows = v.rows["captured"]
        family.add(("captured", v.level), *ci.clustered_test(rows["points"], rows["game"]))
    for d in levels:
        family.add(d.kind, d.diff, d.p_value)
    family.close()
    data_rows, used = [], []
    for v in values.values():
        provenance = v.run.provenance(v.deals)
        provenance["deals replayed"] = f"{v.replayed:,}"
        data_rows += [provenance, v.games.provenance()]
        used += [v.run, v.games]
    finding = " ".join(
        f"{v.level.capitalize()}s ({v.player}): {headline(v)}" for v in values.values()
    )
    return framework.page(
        "ace_value",
        slug="ace-value",
        title="What is an ace worth for primiera?",
        question=QUESTION,
        method=METHOD(b.deals, b.replayed, b.games.name, min(b.behind, e.behind)),
        used=used,
        finding=f"{finding} {levels_text(levels, family)}",
        sections=level_sections(values, levels, family),
        data=data_rows,
        findings=findings(b)
        + findings(e, "ace.expert.")
        + level_findings(levels, family)
        + [
            reporting.Finding(
                f"ace.{'' if v.level == 'beginner' else 'expert.'}captured.points.family",
                family.wide[("captured", v.level)],
                "points per deal",
            )
            for v in values.values()
        ],
        answer=glance(values, levels, family),
    )
