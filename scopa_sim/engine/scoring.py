"""Vectorised deal scoring (docs/rules.md §5) over captured-card bitmasks of a whole batch.

Each category is a handful of array operations: popcounts for cards and coins, bit tests for
single cards, and 2**ranks-entry lookup tables (one per suit pattern) for primiera and napola.
The reference engine scores the same deals card by card; the two must agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from scopa_sim.cards import PRIMIERA_FACE_ZERO, PRIMIERA_STANDARD
from scopa_sim.rules import CATEGORIES, MissingSuit, Napola, PrimieraRule, Variant

CATEGORY_INDEX = {name: i for i, name in enumerate(CATEGORIES)}


@dataclass(frozen=True)
class DealScores:
    """Per deal and side: the counts behind the points, and the points per category."""

    cards: np.ndarray  # int8[B, S]
    coins: np.ndarray  # int8[B, S]
    settebello: np.ndarray  # bool[B, S]
    primiera: np.ndarray  # int16[B, S]; 0 when the side has none (most_sevens: its sevens)
    points: np.ndarray  # int16[B, S, len(CATEGORIES)]

    @property
    def totals(self) -> np.ndarray:
        return self.points.sum(axis=2, dtype=np.int16)


@cache
def _suit_tables(ranks: int, rule: PrimieraRule, missing: MissingSuit) -> np.ndarray:
    """Best primiera value of every pattern of one suit's ranks; -1 for a void suit."""
    values = PRIMIERA_FACE_ZERO if rule is PrimieraRule.FACE_ZERO else PRIMIERA_STANDARD
    table = np.zeros(1 << ranks, np.int16)
    for pattern in range(1, 1 << ranks):
        table[pattern] = max(values[r + 1] for r in range(ranks) if pattern >> r & 1)
    table[0] = -1 if missing is MissingSuit.VOID else 0
    return table


@cache
def _napola_table(ranks: int, rule: Napola) -> np.ndarray:
    """Napola points of every pattern of coins."""
    table = np.zeros(1 << ranks, np.int16)
    for pattern in range(1 << ranks):
        if pattern & 0b111 != 0b111 or rule is Napola.OFF:
            continue
        if rule is Napola.TRENTINO:
            table[pattern] = pattern.bit_count()
        else:
            run = 3
            while pattern >> run & 1:
                run += 1
            table[pattern] = run
    return table


def strict_winner(values: np.ndarray) -> np.ndarray:
    """Per row, the column holding the strict maximum; -1 where the maximum is shared.

    Column by column: numpy's reductions along a short axis (2 to 4 sides) cost several times
    more than this."""
    best = values[:, 0]
    winner = np.zeros(len(values), np.int64)
    unique = np.ones(len(values), bool)
    for side in range(1, values.shape[1]):
        column = values[:, side]
        ahead = column > best
        unique = ahead | (unique & (column != best))
        winner[ahead] = side
        best = np.maximum(best, column)
    return np.where(unique, winner, -1)


def _award(points: np.ndarray, category: str, winner: np.ndarray) -> None:
    rows = np.flatnonzero(winner >= 0)
    points[rows, winner[rows], CATEGORY_INDEX[category]] = 1


def score(
    variant: Variant, captured: np.ndarray, scope: np.ndarray, stopped: np.ndarray | None = None
) -> DealScores:
    """Score a batch: ``captured`` is ``uint64[B, S]`` (leftovers included), ``scope`` int.

    Rows of ``stopped`` (deals a scopa won outright, docs/rules.md §6) score their scope alone.
    """
    pack = variant.pack
    ranks = pack.ranks
    rows, sides = captured.shape
    points = np.zeros((rows, sides, len(CATEGORIES)), np.int16)

    n_cards = np.bitwise_count(captured).astype(np.int8)
    coins_pattern = (captured & np.uint64(pack.suit_mask(0))).astype(np.int64)
    n_coins = np.bitwise_count(coins_pattern).astype(np.int8)
    settebello = (captured >> np.uint64(variant.settebello)) & np.uint64(1) == 1

    _award(points, "cards", strict_winner(n_cards))
    _award(points, "coins", strict_winner(n_coins))
    points[:, :, CATEGORY_INDEX["settebello"]] = settebello
    points[:, :, CATEGORY_INDEX["scope"]] = scope
    if variant.re_bello:
        points[:, :, CATEGORY_INDEX["re_bello"]] = (
            (captured >> np.uint64(variant.king_of_coins)) & np.uint64(1)
        ).astype(np.int16)
    if variant.napola is not Napola.OFF:
        points[:, :, CATEGORY_INDEX["napola"]] = _napola_table(ranks, variant.napola)[coins_pattern]

    if variant.most_sevens:  # the 52-card game's own point: most sevens
        sevens = np.bitwise_count(captured & np.uint64(pack.rank_mask(7))).astype(np.int8)
        _award(points, "sevens", strict_winner(sevens))

    primiera = np.zeros((rows, sides), np.int16)
    if variant.primiera is PrimieraRule.MOST_SEVENS:
        # Count of sevens, then sixes, ... then aces, as one base-5 number (at most 4 of a rank).
        key = np.zeros((rows, sides), np.int64)
        for r in range(1, 8):
            count = np.bitwise_count(captured & np.uint64(pack.rank_mask(r))).astype(np.int64)
            key += count * 5 ** (r - 1)
        _award(points, "primiera", strict_winner(key))
        sevens = np.bitwise_count(captured & np.uint64(pack.rank_mask(7)))
        primiera = sevens.astype(np.int16)  # the key itself does not fit the data's int16
    elif variant.primiera is not None:
        table = _suit_tables(ranks, variant.primiera, variant.primiera_missing_suit)
        low = np.uint64((1 << ranks) - 1)
        per_suit = [
            table[((captured >> np.uint64(ranks * s)) & low).astype(np.int64)] for s in range(4)
        ]
        void = np.logical_or.reduce([p < 0 for p in per_suit])
        value = np.where(void, -1, sum(p.astype(np.int16) for p in per_suit)).astype(np.int16)
        winner = strict_winner(value)
        # A unique best of -1 means nobody has a primiera.
        winner = np.where(value.max(axis=1) < 0, -1, winner)
        _award(points, "primiera", winner)
        primiera = np.maximum(value, 0).astype(np.int16)
    if stopped is not None and stopped.any():
        scope_only = points[stopped, :, CATEGORY_INDEX["scope"]]
        points[stopped] = 0
        points[stopped, :, CATEGORY_INDEX["scope"]] = scope_only
    return DealScores(n_cards, n_coins, settebello, primiera, points)
