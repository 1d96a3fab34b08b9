"""The player contract, whole: what a player sees, what it returns, and how a compiled player
hands the fused engine its own row function. Player writers need nothing else.

* :class:`Observation`: one row per decision point, only what the acting seat may know.
* :class:`LegalActions`: the padded legal actions of those rows.
* :class:`Player`: a frozen dataclass of parameters with one ``act`` over a batch, returning one
  index into the legal actions per row.
* :class:`FusedPolicy`: optional; the same decision for one row, as an
  ``@njit(inline="always")`` function ``decide(params, seen, rules, scratch)`` of four bundles
  (:data:`FUSED_POLICY_SIGNATURE`): the player's own numbers by name
  (:meth:`Player.policy_params`), what the seat sees (:class:`Seen`), the rules
  (:class:`Rules`) and room to list actions in (:class:`Scratch`).
  A player that sets ``Player.fused_policy`` lets the fused engine (``engine/fused.py``) play
  whole deals without returning to Python; the engine compiles one kernel per lineup of
  policies, so it never needs to know the players.
* :data:`EXPLAIN_PROTOCOL`: optional; a player's own evaluation of each legal action.
* :class:`PlayerError`: what a player that cannot be built, or that breaks this contract while
  it plays, gets (:func:`choice_problem` words the faults of an answer).

This module sits below the engine: it imports only the rules and the seeding.
"""

from __future__ import annotations

import importlib
import inspect
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import ClassVar, NamedTuple

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
    #: Cards shown to the table (cirulla.md C5.3): per seat in play order, the cards of its
    #: declared hand still in that hand, from its first turn of the hand; 0 when none. None:
    #: nothing shown (a variant without declarations).
    shown: np.ndarray | None = None  # uint64[B, n_players]

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
            part(self.shown),
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


class Seen(NamedTuple):
    """What the acting seat sees at one decision point of one row, as the fused engine hands it
    to a row policy: the same things its :class:`Observation` shows, for one row. Sides are
    absolute, as in the data."""

    hand: np.uint64  # the acting player's hand
    table: np.uint64
    #: The table's rank sum, kept only when a policy of the lineup sets
    #: ``FusedPolicy.tracks_table_total`` (else 0).
    table_total: int
    captured_any: np.uint64  # every side's captures so far, OR-ed
    played: np.uint64  # cards played from hands so far this deal
    dealer: bool  # whether the seat's side deals
    side: int  # the seat's side: its row of the params bundle
    next_cards: int  # the cards the next player holds (``Schedule.next_cards``)
    next_scopa: float  # 1.0 when a sweep on the next play would count, else 0.0
    scopa_ok: bool  # whether a sweep on this play counts
    #: The decision's random numbers: ``engine.decisions.draw(seen.draws, k)`` is
    #: ``DecisionRandom.random()``'s call ``k + 1``, as ``act`` would get it; meaningful only for
    #: a policy that sets ``FusedPolicy.draws``.
    draws: np.ndarray
    #: The engine's: the table in the capture search's bit order (``kernels.rank_major``), kept
    #: up to date card by card. Only the helpers of ``engine.decisions`` read it.
    table_rm: np.uint64
    #: The seat's own side's captures so far this deal (a part of ``captured_any``).
    captured_own: np.uint64


class Rules(NamedTuple):
    """The rules a row policy needs, as numbers and lookup tables, built once per batch from the
    variant (``engine.kernels.KernelRules.of``)."""

    ranks: int  # ranks per suit: 10 or 13 (a card's rank is ``rank_of[card]``)
    #: The capture kinds as bits: ``kernels.MATCH``, ``SUM``, ``ACE_SWEEPS``, ``MATCH_PRIORITY``,
    #: ``SORTED``, and the total from bit ``kernels.TOTAL_SHIFT`` (``kernels.capture_code``).
    rule: int
    fewest: bool  # a sum capture must take the fewest cards
    forced: bool  # a seat that can capture must
    ace_mask: np.uint64  # the four aces
    ace_no_scopa: bool  # an ace that sweeps the table (asso piglia tutto) scores no scopa
    rank_mask: np.ndarray  # uint64[ranks + 1]: ``[r]`` the four cards of rank r
    rank_of: np.ndarray  # int64[64]: ``[c]`` the rank of card c
    spread: np.ndarray  # uint64[2**ranks]: the engine's, for ``kernels.rank_major``
    n_pack_cards: int  # cards in the pack (card ids run from 0 to n_pack_cards - 1)


class Scratch(NamedTuple):
    """Room a row policy may write to: row 0 of ``card``, ``capture``, ``group`` holds listed
    legal actions (``engine.decisions.list_actions``, ``list_captures``: a count above
    ``card.shape[1]`` means they did not fit, and the policy returns that count so that the
    engine replays the row with room for them). ``search`` is the capture search's own stacks,
    for those helpers only."""

    card: np.ndarray  # int8[1, A]
    capture: np.ndarray  # uint64[1, A]
    group: np.ndarray  # int8[1, A]
    search: tuple  # (uint64[16], int64[16], uint64[16]): ``kernels.stack_scratch()``


class NoParams(NamedTuple):
    """The parameters of a row policy that needs none (:meth:`Player.policy_params`'s default)."""


#: How a fused row policy is called, for one decision point of one row: ``params`` is the
#: policy's parameter bundle (the NamedTuple :meth:`Player.policy_params` returns, each field
#: stacked over the sides: read your own side's value as ``params.NAME[seen.side]``), ``seen`` a
#: :class:`Seen`, ``rules`` a :class:`Rules`, ``scratch`` a :class:`Scratch`. It returns
#: ``(count, card, taken)``: the number of legal actions (a count above the scratch's width
#: means they did not fit, and the engine replays the row with room for them), the card played
#: and the cards it takes (0 for a lay).
FUSED_POLICY_SIGNATURE = ("params", "seen", "rules", "scratch")

#: What changed for a compiled player written to the contract before the bundles (28 positional
#: arguments, numbers in ``fused_params``/``fused_values`` vectors): one line, docs/players.md.
OLD_SIGNATURE_HELP = (
    "the contract of fused row policies changed: decide(params, seen, rules, scratch) and "
    "listing_policy's choose(count, params, seen, rules, scratch) take bundles instead of 28 "
    "and 22 positional arguments, and a player's numbers come by name from "
    "policy_params(variant) instead of fused_params/fused_values (docs/players.md, "
    "'Compile a row policy')"
)


def _positional_names(function) -> tuple[str, ...] | None:
    """The positional parameter names of ``function`` (a numba dispatcher's Python function),
    or None when they cannot be read."""
    function = getattr(function, "py_func", function)
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in parameters if p.kind in kinds)


def signature_problem(function, expected: int) -> str | None:
    """What is wrong with ``function`` as a function of ``expected`` positional arguments, with
    what changed in the contract, in one line; None when it takes that many or cannot be
    read."""
    names = _positional_names(function)
    if names is None or len(names) == expected:
        return None
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"takes {len(names)} arguments ({shown}), not {expected}: {OLD_SIGNATURE_HELP}"


@dataclass(frozen=True)
class FusedPolicy:
    """A compiled row policy, as a player hands it to the fused engine.

    ``decide`` is an ``@njit(inline="always")`` function of :data:`FUSED_POLICY_SIGNATURE`,
    ``decide(params, seen, rules, scratch)`` (a ``decide`` of the old 28 positional arguments is
    refused with a :class:`PlayerError` saying what changed); ``name`` names the kernels
    compiled with it (and their cache files), so it must be unique among the policies of one
    process; ``tracks_table_total`` asks the kernel to keep the table's rank sum
    (``Seen.table_total``) up to date for it; ``draws`` says that it reads the decision's random
    numbers (``engine.decisions.draw``), whose keys the kernel then hashes for a row's plays at
    once, off the chain of dependent work of each play; ``small`` says that it is little code,
    which each kernel that seats it may type again: such a policy is inlined by numba, any other
    compiled once apart and inlined by LLVM, which spares every further kernel its typing (most
    of a cold compile) but costs a few instructions a decision (random's: 3.6 % of a classic
    deal, ``make bench BENCH_ARGS="--only instructions"``). The engine never checks ``act`` and
    the policy against each other: ``testing.check_player`` does (the fused path must choose
    what ``act`` chooses)."""

    name: str
    decide: Callable
    tracks_table_total: bool = False
    draws: bool = False
    small: bool = False

    def __post_init__(self):
        problem = signature_problem(self.decide, len(FUSED_POLICY_SIGNATURE))
        if problem:
            raise PlayerError(f"has a fused row policy ({self.name}) whose decide {problem}")


@dataclass(frozen=True)
class Player:
    """Base of every player. Subclasses are frozen dataclasses: parameters only."""

    name: ClassVar[str] = "player"
    summary: ClassVar[str] = ""
    #: The player's compiled row policy, or None for a player that only has ``act``. A subclass
    #: that changes ``act`` must set it back to None (or to a policy of its own): the fused
    #: engine never calls ``act``.
    fused_policy: ClassVar[FusedPolicy | None] = None
    #: True only for a player that is handed the hidden cards (``Observation.hidden_*``): an
    #: upper bound such as ``cheater``, which tournaments rate apart from the fair players.
    sees_hidden_cards: ClassVar[bool] = False
    #: True for a search player, whose every decision costs thousands of rollouts: a run that
    #: seats one is cut into small chunks by default (``sizes.default_chunk_size``), so that a
    #: run of a few thousand deals still gives every worker work.
    searches: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        """Refuse, when its class is made, a player written to the contract before the bundles:
        the engine no longer calls ``fused_params`` / ``fused_values``, so a player that kept
        them would play on numbers its policy never gets."""
        super().__init_subclass__(**kwargs)
        old = [name for name in ("fused_params", "fused_values") if name in vars(cls)]
        if old:
            names = " and ".join(old)
            raise PlayerError(f"defines {names} ({cls.__name__}): {OLD_SIGNATURE_HELP}")

    def policy_params(self, variant: Variant) -> tuple:
        """The numbers the fused row policy needs for ``variant``, by name: a NamedTuple of
        numbers and arrays (e.g. per-card weights), the same class and shapes for every
        instance. The engine stacks the values of the sides that play the policy (leading axis
        the side) and hands the policy that bundle: ``params.NAME[seen.side]``. Numbers are
        passed as they are, so the policy does the same arithmetic as ``act``. Called once per
        batch."""
        return NoParams()

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        """Index into ``legal`` of the chosen action, one per row (``int64[B]``)."""
        raise NotImplementedError


class PlayerError(ValueError):
    """A player could not be built, or broke the contract while it played: what was wrong
    (``problem``, e.g. "returned None"), which player (``player``, its spec), where (``where``,
    e.g. the variant, game, deal and play of the decision) and, when its own code raised, the
    traceback of that code (``traceback``, text: shown with ``SCOPA_SIM_DEBUG=1``).

    One class for every such fault, raised by the engine and by the player specs, and plain
    text fields only, so that it pickles: a worker process's error reaches the command whole.
    ``side`` is the side the player played (the engine's), so that the layer that knows the
    players' specs can name it (:meth:`naming`)."""

    def __init__(self, problem: str, player: str = "", where: str = "", traceback=None, side=-1):
        self.problem, self.player, self.where = problem, player, where
        self.traceback, self.side = traceback, side
        super().__init__(problem, player, where, traceback, side)

    def __reduce__(self):
        return type(self), (self.problem, self.player, self.where, self.traceback, self.side)

    def naming(self, player: str) -> PlayerError:
        """The same error about the player whose spec is ``player``."""
        named = type(self)(self.problem, player, self.where, self.traceback, self.side)
        named.__cause__ = self.__cause__
        return named

    def __str__(self) -> str:
        who = f"player {self.player!r}" if self.player else "a player"
        text = f"{who} {self.problem}"
        if self.where:
            text += f" ({self.where})"
        if self.traceback:
            text += "; SCOPA_SIM_DEBUG=1 shows the traceback of its code"
        return text


def user_traceback(err: BaseException) -> str:
    """The traceback of ``err`` without the frames of this package and of Python's import
    machinery: the lines of the player's own code (and of the libraries it called), as
    ``SCOPA_SIM_DEBUG=1`` shows them."""
    skipped = (
        os.path.dirname(os.path.abspath(__file__)) + os.sep,
        os.path.dirname(importlib.__file__) + os.sep,  # the import machinery, for a module
        "<frozen importlib",
    )
    frames = [
        f for f in traceback.extract_tb(err.__traceback__) if not f.filename.startswith(skipped)
    ]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    return "".join(lines + traceback.format_exception_only(type(err), err))


def choice_problem(choice, count: np.ndarray) -> tuple[str, int] | None:
    """What is wrong with ``choice``, an ``act``'s answer for rows whose legal actions number
    ``count`` (``int[B]``), as ``(problem, first bad row)`` (row -1: the whole answer); None when
    it is one legal integer index per row. The engine and ``testing.check_player`` word the
    faults alike from it."""
    rows = len(count)
    if choice is None:
        return f"returned None, expected one index per row (int64[{rows}])", -1
    try:
        array = np.asarray(choice)
    except (TypeError, ValueError):
        return f"returned a {type(choice).__name__} that is not an array of indices", -1
    if array.dtype == object or not np.issubdtype(array.dtype, np.integer):
        kind = type(choice).__name__ if array.dtype == object else f"{array.dtype} values"
        return f"returned {kind}, expected integer indices (int64[{rows}])", -1
    if array.shape != (rows,):
        return f"returned shape {array.shape}, expected ({rows},)", -1
    bad = np.flatnonzero((array < 0) | (array >= count))
    if len(bad):
        b = int(bad[0])
        n = int(count[b])
        legal = f"{n} legal action" + ("" if n == 1 else "s")
        return f"returned {int(array[b])} for a position with {legal}", b
    return None


#: The optional evaluation protocol. A player may define
#: ``explain(self, obs: Observation, legal: LegalActions) -> np.ndarray`` returning, per row and
#: slot (``float[B, A]``, the shape of ``legal.card``), its own evaluation of each legal action:
#: higher is better, in units the player documents (points, a probability, a search value);
#: padding slots may hold anything (NaN or -inf is usual). A player whose evaluation draws random
#: numbers (a sampling search) takes a third argument, ``explain(obs, legal, rng)``, and is
#: handed a fresh generator of the same decision points: the numbers ``act`` got there, so it
#: explains the values it chose by. ``act`` need not be its argmax (a player that plays at random
#: may explain with its probabilities). ``scopa-sim replay --html`` shows it beside every legal
#: action (through :func:`explain_values`), and ``testing.check_player`` checks its shape,
#: that legal slots are finite, and its batch independence.
EXPLAIN_PROTOCOL = "explain(obs, legal[, rng]) -> float[B, A]"


def explain_values(player, obs: Observation, legal: LegalActions, rng=None) -> np.ndarray | None:
    """``player.explain`` of a batch of decision points by the protocol above, or None for a
    player without one. ``rng`` is the decision points' ``DecisionRandom`` (fresh: nothing
    drawn yet), handed to an ``explain`` that takes it; without it such a player gives None."""
    explain = getattr(player, "explain", None)
    if not callable(explain):
        return None
    if not _takes_rng(explain):
        return explain(obs, legal)
    return None if rng is None else explain(obs, legal, rng)


def _takes_rng(method) -> bool:
    func, owner = getattr(method, "__func__", None), getattr(method, "__self__", None)
    if func is not None and owner is not None:  # a bound method: its function's answer, kept
        return _bound_takes_rng(func)
    return _signature_takes_rng(method)


def _signature_takes_rng(method, skip: int = 0) -> bool:
    try:
        parameters = list(inspect.signature(method).parameters.values())[skip:]
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.name == "rng" for p in parameters)


@cache
def _bound_takes_rng(func) -> bool:
    """``_takes_rng`` of a method bound to ``func`` (its first parameter is the instance)."""
    return _signature_takes_rng(func, skip=1)
