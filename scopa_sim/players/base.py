"""The player contract: a frozen configuration with one ``act`` over a batch of decision points.

A player sees an :class:`Observation` (only what its seat may know) and the padded
:class:`LegalActions`, and returns the index of one legal action per row. It never sees another
hand or the pack: the engine builds the observation from public state and the acting hand alone.

Compiled players may also offer a *fused row policy*: the same decision for one row, compiled
into the engine's fused kernel (``engine/fused.py``), which then plays whole deals without
returning to Python. A player says so with :attr:`Player.fused_code`,
:meth:`Player.fused_params` and, for a policy that weighs in floating point,
:meth:`Player.fused_values`; the fused path must choose exactly what ``act`` chooses, and
``tests/test_fused.py`` checks it. Adding one for a new player:

1. take the next free code below and set ``fused_code`` to it on the player class;
2. write its row policy as an ``@njit(inline="always")`` function of one decision point (the
   player's module is the place, and ``act`` should call it too, so that the two cannot drift);
3. add a branch for the code in ``fused._considered_row`` (compiled apart from the kernel: the
   place for a policy that does real work per decision) or, for one as cheap as greedy's, in
   ``fused._decide`` (inlined into the kernel); either hands the policy the legal actions
   of the row (scratch row 0), what the acting seat sees (its hand, the table, every side's
   captures OR-ed together, the cards played, whether its side deals), the number of cards the
   next player holds and whether the next play's scopa counts, the row's random numbers, and
   its ``fused_params`` and ``fused_values``;
4. add the player to the line-ups of ``tests/test_fused.py``.

A player without a code (every Python player) plays on the lockstep path, and so does any batch
in which one player lacks a code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from scopa_sim.rules import Variant
from scopa_sim.seeding import DecisionRandom


def _frozen_arrays(obj) -> None:
    """Make every array field of a frozen dataclass a C-contiguous, read-only view.

    Why: a compiled player's kernel is compiled once per array type, and numba types an array by
    its layout and its write flag; without this, the same player met C and strided, writable
    and read-only arrays (the engine's row subsets, the conformance check's probes) and compiled
    four times. Read-only also keeps a player from changing what the engine holds. The
    originals stay as they were: only the views are flagged."""
    for name, value in vars(obj).items():
        if isinstance(value, np.ndarray):
            view = np.ascontiguousarray(value).view()
            view.flags.writeable = False
            object.__setattr__(obj, name, view)


@dataclass(frozen=True)
class Observation:
    """One row per decision point. Sides are absolute (the side of the data and the scores)."""

    variant: Variant
    hand: np.ndarray  # uint64[B]: the acting player's hand
    table: np.ndarray  # uint64[B]
    captured: np.ndarray  # uint64[B, S]: every side's captured cards so far
    played: np.ndarray  # uint64[B]: cards played from hands so far this deal
    scores: np.ndarray  # int16[B, S]: game scores before this deal
    seat: int  # the acting seat in play order: 0 leads, n_players - 1 deals
    side: np.ndarray  # int8[B]: the acting player's side
    dealer_side: np.ndarray  # int8[B]
    play: int  # index of this play in the deal (0 .. plays - 1)
    scope: np.ndarray | None = None  # int16[B, S]: scope so far this deal (public)
    last_capturer: np.ndarray | None = None  # int8[B]: side of the last capture, -1 if none
    #: Only for a player whose class says ``sees_hidden_cards = True`` (``cheater``, an upper
    #: bound never ranked with fair players): every seat's hand and the deal's pack.
    hidden_hands: np.ndarray | None = None  # uint64[B, n_players], seats in play order
    hidden_pack: np.ndarray | None = None  # int8[B, cards], canonical order

    def __post_init__(self):
        _frozen_arrays(self)

    @property
    def last_play(self) -> bool:
        return self.play == self.variant.plays - 1

    def take(self, rows: np.ndarray) -> Observation:
        """The observation of a subset of rows."""

        def part(a):
            return None if a is None else a[rows]

        return Observation(
            self.variant,
            self.hand[rows],
            self.table[rows],
            self.captured[rows],
            self.played[rows],
            self.scores[rows],
            self.seat,
            self.side[rows],
            self.dealer_side[rows],
            self.play,
            part(self.scope),
            part(self.last_capturer),
            part(self.hidden_hands),
            part(self.hidden_pack),
        )


@dataclass(frozen=True)
class LegalActions:
    """Padded legal actions: row b's actions are slots ``0 .. count[b] - 1``.

    Slots are ordered by card id, so the actions of one card are contiguous; a lay (no
    capture) has ``capture == 0``.
    """

    card: np.ndarray  # int8[B, A], -1 in padding
    capture: np.ndarray  # uint64[B, A], 0 in padding
    group: np.ndarray  # int8[B, A]: index of the slot's card among the row's playable cards
    count: np.ndarray  # int64[B]: number of legal actions
    n_cards: np.ndarray  # int64[B]: number of playable cards (groups)

    def __post_init__(self):
        _frozen_arrays(self)

    @property
    def valid(self) -> np.ndarray:
        return self.group >= 0

    def take(self, rows: np.ndarray) -> LegalActions:
        return LegalActions(
            self.card[rows], self.capture[rows], self.group[rows], self.count[rows],
            self.n_cards[rows],
        )  # fmt: skip


#: Codes of the fused row policies (``engine/fused.py``, ``_decide``). Codes are never reused.
FUSED_RANDOM = 0
FUSED_GREEDY = 1
FUSED_DEFENSIVE = 2
FUSED_MEMORY = 3
FUSED_CHITARRELLA = 4


@dataclass(frozen=True)
class Player:
    """Base of every player. Subclasses are frozen dataclasses: parameters only."""

    name: ClassVar[str] = "player"
    summary: ClassVar[str] = ""
    #: The player's fused row policy (one of the ``FUSED_*`` codes above), or None for a player
    #: that only has ``act``. A subclass that changes ``act`` must set it back to None (or to a
    #: code of its own): the fused engine never calls ``act``.
    fused_code: ClassVar[int | None] = None
    #: True only for a player that is handed the hidden cards (``Observation.hidden_*``): an
    #: upper bound such as ``cheater``, which tournaments rate apart from the fair players.
    sees_hidden_cards: ClassVar[bool] = False

    def fused_params(self, variant: Variant) -> np.ndarray:
        """The numbers the fused row policy needs for ``variant``, as one ``int64`` vector
        (e.g. per-card weights; the policy's branch in ``fused._decide`` knows the layout).
        Called once per batch; the default is none."""
        return np.zeros(0, np.int64)

    def fused_values(self, variant: Variant) -> np.ndarray:
        """The floating-point numbers the fused row policy needs for ``variant``, as one
        ``float64`` vector (e.g. per-card values in points; passed as they are, so the policy
        does the same arithmetic as ``act``). Called once per batch; the default is none."""
        return np.zeros(0, np.float64)

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        """Index into ``legal`` of the chosen action, one per row (``int64[B]``)."""
        raise NotImplementedError
