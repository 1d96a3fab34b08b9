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
    captured_aces,
    cells,
    dealt_aces,
    measure,
)
from analyses.ace_value.page import (
    SITUATION_KEYS,
    SITUATION_LABELS,
    SITUATION_NAMES,
    findings,
    headline,
    sections,
)
from analyses.framework import Needs
from scopa_sim import reporting

__all__ = [
    "ACES", "METHOD", "MIN_CELL", "NEEDS", "PACK", "QUESTION", "RANKS", "RUN", "SITUATIONS",
    "SITUATION_KEYS", "SITUATION_LABELS", "SITUATION_NAMES", "WINS", "AceValues", "build",
    "captured_aces", "cells", "dealt_aces", "findings", "glance", "headline", "measure", "method",
    "sections",
]  # fmt: skip

NEEDS = Needs(runs=(RUN, ci.GAMES))

QUESTION = (
    "What is an ace worth for primiera? How many points, and how much of the primiera point, "
    "does a side gain by holding an ace rather than letting the other side hold it, at the end "
    "of a deal and when the cards are dealt, depending on whether it holds that suit's seven or "
    "six?"
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
        "aces, not what an ace causes. Family of tests: none. The page tests no hypothesis and "
        "makes no claim of significance; every interval is a 95% interval on its own, not "
        "simultaneous (of many such intervals about one in twenty can miss by chance), and where "
        "the text sets one suit situation beside another it quotes both intervals, not a test of "
        "their difference."
    )


#: The method as the page protocol reads it: written from the sizes the page measured.
METHOD = method


def build(data: Path) -> reporting.Page:
    """What is an ace worth for primiera?"""
    v = measure(data)
    provenance = v.run.provenance(v.deals)
    provenance["deals replayed"] = f"{v.replayed:,}"
    return framework.page(
        "ace_value",
        slug="ace-value",
        title="What is an ace worth for primiera?",
        question=QUESTION,
        method=METHOD(v.deals, v.replayed, v.games.name, v.behind),
        used=[v.run, v.games],
        finding=headline(v),
        sections=sections(v),
        data=[provenance, v.games.provenance()],
        findings=findings(v),
        answer=glance(v),
    )
