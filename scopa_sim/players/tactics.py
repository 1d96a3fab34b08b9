"""Compiled building blocks of the card-counting players: what is unseen, who can sweep, and how
likely the next player is to hold a card.

A seat knows its own hand, the table, every captured card and every card played, so the unseen
cards are the rest of the pack; the next player's hand is, as far as the seat can tell, a
uniformly random subset of them (no inference from earlier plays). Everything here is a small
``inline`` njit function over ``uint64`` card masks, so players call them per row inside their
own compiled kernels.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from scopa_sim.engine.kernels import ACE_SWEEPS, MATCH, SUM, TOTAL_SHIFT, rank_sum
from scopa_sim.jit import ctpop, njit
from scopa_sim.rules import Variant


@njit(cache=True, nogil=True, inline="always")
def unseen_cards(full, hand, table, captured_any, played):
    """What the acting seat has not seen: not in its hand, on the table, captured or played."""
    return full & ~(hand | table | captured_any | played)


@cache
def rank_masks(variant: Variant) -> np.ndarray:
    """``[r]``: the mask of the four cards of rank ``r`` (index 0 unused)."""
    pack = variant.pack
    return np.array([0] + [pack.rank_mask(r) for r in range(1, pack.ranks + 1)], np.uint64)


@njit(cache=True, nogil=True, inline="always")
def popcount(x):
    """Number of cards in a mask (one popcnt instruction)."""
    return ctpop(x)


@njit(cache=True, nogil=True, inline="always")
def sweepers(table, unseen, ranks, rank_mask, rule, ace_mask):
    """The unseen cards that would take the whole of ``table`` in one capture (empty table:
    none), by any kind the rule enables: a match, the rank of a lone card; a sum, the table's
    sum when no card on the table has that rank (an equal rank would be taken alone); a total
    (escoba's 15), the rank that makes it with the table; an ace sweep, any ace when no ace
    lies on the table."""
    if table == 0:
        return np.uint64(0)
    return sweepers_of_sum(table, rank_sum(table, ranks), unseen, ranks, rank_mask, rule, ace_mask)


@njit(cache=True, nogil=True, inline="always")
def sweepers_of_sum(table, total, unseen, ranks, rank_mask, rule, ace_mask):
    """:func:`sweepers` of a non-empty ``table`` whose ranks sum to ``total`` (a caller that
    keeps the sum as cards come and go saves the count)."""
    out = np.uint64(0)
    need = (rule >> TOTAL_SHIFT) - total
    if rule >> TOTAL_SHIFT and 1 <= need <= ranks:
        out |= unseen & rank_mask[need]
    if (rule & ACE_SWEEPS) and (table & ace_mask) == 0:
        out |= unseen & ace_mask
    if popcount(table) == 1:
        if rule & MATCH:
            out |= unseen & rank_mask[total]
    elif (rule & SUM) and total <= ranks and (table & rank_mask[total]) == 0:
        out |= unseen & rank_mask[total]
    return out


@njit(cache=True, nogil=True, inline="always")
def chance_holds(k, unseen_count, hand_size):
    """Chance that a hand of ``hand_size`` cards drawn from ``unseen_count`` unseen cards holds at
    least one of ``k`` given cards: 1 - C(U - k, h) / C(U, h)."""
    if k <= 0 or hand_size <= 0:
        return 0.0
    if unseen_count - k < hand_size:
        return 1.0
    none = 1.0
    for i in range(hand_size):
        none *= (unseen_count - k - i) / (unseen_count - i)
    return 1.0 - none


@cache
def card_values(variant: Variant) -> np.ndarray:
    """A rough worth in points of capturing each card, from the variant's scoring: a share of
    the cards point, of the coins point, the settebello (and re bello), and the primiera (or
    most-sevens) weight of sevens, sixes and aces. Used to weigh gains against risks."""
    pack = variant.pack
    value = np.zeros(pack.n_cards, np.float64)
    half = pack.n_cards // 2 + 1
    for c in range(pack.n_cards):
        rank, coin = pack.rank(c), pack.suit(c) == 0
        v = 1.0 / half + coin * (2.0 / pack.ranks)
        if c == variant.settebello:
            v += 1.0
        if variant.re_bello and c == variant.king_of_coins:
            v += 1.0
        if variant.primiera is not None:
            v += {7: 0.25, 6: 0.12, 1: 0.08}.get(rank, 0.0)
        if variant.most_sevens and rank == 7:
            v += 0.3
        value[c] = v
    return value


def premium_cards(variant: Variant) -> np.uint64:
    """The cards whose loss on the table matters most: the sevens and the settebello."""
    return np.uint64(variant.pack.rank_mask(7) | (1 << variant.settebello))
