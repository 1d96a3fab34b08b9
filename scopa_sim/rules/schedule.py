"""The shape of a deal in time: when hands are dealt, and how many cards each seat holds at each
play (docs/rules.md §2).

A deal lays ``table_cards`` cards, then deals round after round of ``hands[r]`` cards to every
seat from the pack in canonical order, and each round is played out, seat 0 (who leads) to the
dealer, before the next is dealt. Every engine and search reads the schedule from here (through
``engine.deal_rules``), and the position checks read it without loading the engine.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from scopa_sim.rules.variant import Variant


class Schedule(NamedTuple):
    """Per play of a deal (and per round, for ``round_start``), as arrays the kernels index."""

    #: Pack position of the hands dealt just before the play (-1: none is dealt then).
    hand_at: np.ndarray  # int64[plays]
    #: Cards each seat gets in those hands (0 when none is dealt).
    hand_size: np.ndarray  # int64[plays]
    #: The round (hand number, from 0) the play belongs to.
    round_of: np.ndarray  # int64[plays]
    #: Pack position where each round's hands start.
    round_start: np.ndarray  # int64[rounds]
    #: Cards each seat holds just before the play.
    in_hand: np.ndarray  # int64[plays, n_players]
    #: Cards the player of the next play holds when it comes (0 after the deal's last play).
    next_cards: np.ndarray  # int64[plays]


@cache
def schedule(variant: Variant) -> Schedule:
    """The deal's schedule: plays go round the table one card each, round after round."""
    n, plays = variant.n_players, variant.plays
    hand_at = np.full(plays, -1, np.int64)
    hand_size = np.zeros(plays, np.int64)
    round_of = np.zeros(plays, np.int64)
    round_start = np.zeros(len(variant.hands), np.int64)
    in_hand = np.zeros((plays, n), np.int64)
    play, position = 0, variant.table_cards
    for r, size in enumerate(variant.hands):
        round_start[r] = position
        hand_at[play], hand_size[play] = position, size
        for q in range(size * n):  # q: plays made in this round so far
            round_of[play] = r
            in_hand[play] = [size - (q // n + (seat < q % n)) for seat in range(n)]
            play += 1
        position += size * n
    next_cards = np.zeros(plays, np.int64)
    for p in range(plays - 1):
        next_cards[p] = in_hand[p + 1, (p + 1) % n]
    return Schedule(hand_at, hand_size, round_of, round_start, in_hand, next_cards)
