"""What both engine paths share: the record of a lockstep batch (:class:`Step`,
:class:`DealBatch`), deals in progress (:class:`DealState`), and the dealing helpers the fused
path needs (the sides of the seats, the escoba opening, the check of the lineup). The lockstep
engine (``batch``, which also chooses the path) and the fused one both import this module and it
imports neither: ``batch`` imports ``fused``, never the other way round.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim.contract import LegalActions, Player
from scopa_sim.rules import Variant


@dataclass(frozen=True)
class Step:
    """One play of a recorded batch: the legal actions offered and the one chosen, per row.

    A row whose deal had already stopped (``scopa_wins_immediately``) has ``choice`` -1 and no
    legal actions."""

    seat: int
    legal: LegalActions
    choice: np.ndarray  # int64[B]
    scopa: np.ndarray  # bool[B]


@dataclass(frozen=True)
class DealBatch:
    """What one lockstep batch produced: captured cards and scope per side, and optionally the
    full record of every play (for move logs and the reference-agreement tests)."""

    captured: np.ndarray  # uint64[B, S], leftovers included
    scope: np.ndarray  # int16[B, S]
    leftovers: np.ndarray  # uint64[B]: cards that went to nobody
    seat_side: np.ndarray  # int8[B, n_players]
    opening: np.ndarray  # int8[B]: escobas the dealer's side took from the opening table
    stopped_by: np.ndarray  # int8[B]: side that won outright by a scopa, else -1
    steps: list[Step] | None
    #: With ``play_batch(..., snapshot=k)``: every row's state just before play ``k``
    #: (a :class:`DealState`; rows stopped before then hold their state at the stop).
    snapshot: object | None = None


@dataclass(frozen=True)
class DealState:
    """Deals in progress, one row each, just before play ``play[b]`` of the deal.

    The hand that play belongs to has been dealt (``hands``); the hands after it are dealt from
    ``pack`` at their turn, exactly as from a full pack. Seats are in play order (seat 0 leads,
    seat ``n_players - 1`` deals); sides are absolute. Rows must be deals still going on (not
    stopped by ``scopa_wins_immediately``). ``batch.play_batch(..., snapshot=k)`` records the
    state of every row at play ``k``.
    """

    pack: np.ndarray  # int8[B, cards]: the deal's pack in canonical order (docs/rules.md §2)
    hands: np.ndarray  # uint64[B, n_players]: each seat's hand
    table: np.ndarray  # uint64[B]
    captured: np.ndarray  # uint64[B, S]: each side's captures so far
    scope: np.ndarray  # int16[B, S]: scope so far (opening escobas included)
    played: np.ndarray  # uint64[B]: cards played from hands so far
    last_capturer: np.ndarray  # int8[B]: side of the last capture, -1 if none yet
    play: np.ndarray  # int64[B]: the next play (0 .. plays; plays: the deal is fully played)
    seat_side: np.ndarray  # int8[B, n_players]: the side of each seat
    scores: np.ndarray  # int16[B, S]: game scores before the deal (scopa_wins_immediately)
    deal_keys: np.ndarray  # uint64[B]: key of each row's random numbers (seeding.deal_keys)

    def take(self, rows) -> DealState:
        return DealState(*(getattr(self, f)[rows] for f in self.__dataclass_fields__))


def check_players(variant: Variant, players: Sequence[Player]) -> tuple[Player, ...]:
    players = tuple(players)
    if len(players) != variant.n_sides:
        raise ValueError(
            f"{variant.name} has {variant.n_sides} sides: give {variant.n_sides} players, "
            f"one per side (got {len(players)})"
        )
    return players


def seat_sides(variant: Variant, offset: np.ndarray) -> np.ndarray:
    """Side of each seat per row, ``int8[B, n]``, when seat 0 is player ``offset`` (any integer,
    taken modulo the players)."""
    return _seat_side_table(variant.n_players, variant.n_sides).take(offset, axis=0, mode="wrap")


@functools.cache
def _seat_side_table(n: int, sides: int) -> np.ndarray:
    """``[o, seat]``: the side of each seat when seat 0 is player ``o``, ``(o + seat) % n %
    sides``. One row per offset, taken per deal: a lookup is cheaper than the arithmetic."""
    return ((np.arange(n)[:, None] + np.arange(n)[None, :]) % n % sides).astype(np.int8)


def opening_sweeps(variant: Variant, packs: np.ndarray) -> np.ndarray:
    """Escobas in each opening table (docs/rules.md §7): 1 when it sums to 15, 2 when it sums to 30
    and splits into two sets of 15; ``int8[B]``, all 0 unless the variant has the rule."""
    rows = len(packs)
    if not variant.opening_sweep:
        return np.zeros(rows, np.int8)
    ranks = variant.pack.rank_of[packs[:, : variant.table_cards]].astype(np.int64)
    total = ranks.sum(axis=1)
    # A 30 splits into two 15s when some set holding the first card makes 15.
    splits = np.zeros(rows, bool)
    others = range(1, variant.table_cards)
    for size in range(0, variant.table_cards - 1):
        for rest in itertools.combinations(others, size):
            splits |= ranks[:, [0, *rest]].sum(axis=1) == 15
    return np.where(total == 15, 1, np.where((total == 30) & splits, 2, 0)).astype(np.int8)
