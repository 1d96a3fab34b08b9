"""What both engine paths share: the record of a lockstep batch (:class:`Step`,
:class:`DealBatch`), deals in progress (:class:`DealState`) and the check of the lineup (the rules
of a deal are ``deal_rules``'). The lockstep engine (``batch``, which also chooses the path) and
the fused one both import this module and it imports neither: ``batch`` imports ``fused``, never
the other way round.
"""

from __future__ import annotations

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
    #: What the dealer's side took the opening table for (``deal_rules.opening_takes``): escoba's
    #: escobas, or cirulla's opening units; 0 when the table stayed.
    opening: np.ndarray  # int8[B]
    stopped_by: np.ndarray  # int8[B]: side that won outright by a scopa, else -1
    steps: list[Step] | None
    #: With ``play_batch(..., snapshot=k)``: every row's state just before play ``k``
    #: (a :class:`DealState`; rows stopped before then hold their state at the stop).
    snapshot: object | None = None
    #: The deal-level counts that score like scope, ``int16[B, S, 3]`` (``deal_rules.TALLIES``:
    #: opening units, low-hand and three-of-a-kind declarations); None: all 0.
    tallies: np.ndarray | None = None


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
