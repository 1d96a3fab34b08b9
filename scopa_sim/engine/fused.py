"""The fused engine: each deal of a batch played from start to end inside one compiled function.

The lockstep engine (``batch.play_batch``) makes one Python iteration per play over the whole
batch, so any player can take part; this path is for lineups whose every player also hands the
engine a compiled row policy (``Player.fused_policy``, ``contract.FusedPolicy``). Per row and per
play the kernel deals the next hand from the pack when a hand starts, lets the side's policy
choose (the policy lists what legal actions it needs in a small scratch buffer, with the capture
search of :mod:`kernels`), plays the choice with ``kernels.apply_move`` and stops the deal at a
scopa that wins the game under ``scopa_wins_immediately``; it ends the deal as the lockstep
engine does (the last capturer takes the table; a stopped deal leaves every card not captured to
nobody). The rule code is the lockstep engine's own row functions, inlined: there is no second
copy of the rules. Scoring stays ``scoring.score``, vectorised over the batch after the kernel.

The engine knows no player: :func:`kernel_for` compiles one kernel per lineup of distinct
policies (a factory over them, cached in memory and, by numba, on disk). Each policy's
``decide`` is compiled once, apart, and inlined by LLVM into each kernel that seats it
(:func:`_compiled_apart`), save a ``small`` one, which numba inlines; the kernel dispatches on
the side's slot among them, so a kernel carries only the code of the policies its lineup plays.

Two entry points: :func:`play_batch` plays packs (what ``batch.play_deals`` and
``batch.play_games`` use), :func:`play_from_states` continues given mid-deal states
(:class:`DealState`), e.g. for search rollouts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import FunctionType

import numpy as np

from scopa_sim import seeding
from scopa_sim.contract import FusedPolicy, NoParams, Player, Scratch, Seen
from scopa_sim.engine import deal_rules, deals, decisions, kernels
from scopa_sim.engine.deal_rules import (
    deal_hands,
    end_deal,
    open_deal,
    schedule,
    sweep_counts,
    wins_outright,
)
from scopa_sim.engine.deals import DealState
from scopa_sim.engine.kernels import (
    apply_move,
    card_rank,
    rank_major,
    rank_major_bit,
    rank_sum,
)
from scopa_sim.jit import always_inline, njit, no_wraparound
from scopa_sim.rules import Variant

#: Legal actions the kernel's scratch holds; a wider decision point gets its own buffer.
_SCRATCH = 64


def fusable(players: Sequence[object]) -> bool:
    """Whether every player has a fused row policy (any object without one: no)."""
    return all(getattr(p, "fused_policy", None) is not None for p in players)


@dataclass(frozen=True)
class DealEnd:
    """How each deal of :func:`play_from_states` ended (score it with ``scoring.score``)."""

    captured: np.ndarray  # uint64[B, S], the last capturer's leftovers included
    scope: np.ndarray  # int16[B, S]
    leftovers: np.ndarray  # uint64[B]: cards that went to nobody
    stopped_by: np.ndarray  # int8[B]: side that won outright by a scopa, else -1


# The kernel factory ----------------------------------------------------------------------------


@functools.cache
def _compiled_apart(decide):
    """A row policy's ``decide`` as the kernels call it: the same Python function compiled once,
    as a function of its own, which LLVM inlines into every kernel that seats it
    (``jit.always_inline``) and which indexes as the kernel does (``jit.no_wraparound``), without
    numba's reference counting, as the kernel. Inlined by numba instead, a policy was typed
    again in each of its kernels: most of a kernel's cold compile. It is named apart from
    ``decide`` (``..._apart``), so that its cache entries are its own."""
    source = decide.py_func
    name = source.__name__ + "_apart"
    apart = FunctionType(
        source.__code__, source.__globals__, name, source.__defaults__, source.__closure__
    )
    apart.__qualname__ = source.__qualname__ + "_apart"
    apart.__module__, apart.__doc__ = source.__module__, source.__doc__
    return always_inline(no_wraparound(njit(cache=True, nogil=True, _nrt=False)(apart)))


def _dispatch(decides: tuple, first: int = 0):
    """One inlined function ``(slot, params, seen, rules, scratch)`` that calls
    ``decides[slot]`` with its own parameter bundle ``params[slot]`` (``params``: a tuple of the
    lineup's bundles, one per policy): a chain of branches, each a policy inlined, so that numba
    resolves every call, and every index of the tuple of unlike bundles, statically."""
    head, k = decides[0], first
    if len(decides) == 1:

        @njit(cache=True, nogil=True, inline="always")
        def only(slot, params, seen, rules, scratch):
            return head(params[k], seen, rules, scratch)

        return only
    rest = _dispatch(decides[1:], first + 1)

    @njit(cache=True, nogil=True, inline="always")
    def first_or_rest(slot, params, seen, rules, scratch):
        if slot == k:
            return head(params[k], seen, rules, scratch)
        return rest(slot, params, seen, rules, scratch)

    return first_or_rest


@functools.cache
def kernel_for(policies: tuple[FusedPolicy, ...], checked: bool = False):
    """The kernel that plays the lineup of distinct ``policies`` (side ``s`` plays
    ``policies[slots[s]]``), compiled on first use and cached.

    Each kernel gets a name of its own, from its policies' names (``play_random_greedy``), so
    numba keeps it in a cache index file of its own: numba rewrites an index whole, and two
    processes compiling two kernels of one index at once could each drop the other's entry.
    Every index the kernel takes is non-negative (rows, plays, seats, sides, cards, ranks,
    counts), so it indexes without wrapping negative ones (``jit.no_wraparound``); ``checked``
    compiles it with bounds checking instead, under a name of its own, for the test that every
    index stays in bounds, with the policies inlined by numba, so that their indices are
    checked too."""
    decide = _dispatch(
        tuple(p.decide if checked or p.small else _compiled_apart(p.decide) for p in policies)
    )
    track_total = any(p.tracks_table_total for p in policies)
    draws = any(p.draws for p in policies)

    def play(
        from_pack, rows, packs, opening, start_play, hands, table, captured, scope, played, last,
        stopped_by, leftovers, need, seat_side, scores, deal_keys, slots, params, play_keys,
        next_sizes, rules, move, scratch, draw_bits,
    ):  # fmt: skip
        """Play rows ``rows`` of the batch to the end of their deals, in place.

        State layout as ``batch.play_batch``'s: ``hands[seat, b]``, ``captured[side, b]``,
        ``scope[side, b]``, the rest per row. With ``from_pack`` each row starts from its
        pack (state zeroed by the caller, ``last`` and ``stopped_by`` -1): the opening table,
        the §7 opening escobas, then play 0 with hand 0 dealt. Otherwise row ``b`` continues
        from play ``start_play[b]`` with its current hand already dealt. ``rules`` is the
        variant's ``deal_rules.DealRules``: every rule of the deal around the move is a call
        into ``deal_rules``. ``next_sizes[p]`` is the cards the player of play ``p + 1`` holds
        (``Schedule.next_cards``). ``slots[side]`` is the side's policy among the lineup's,
        ``params[slot]`` that policy's numbers (its sides' stacked, ``decisions.stacked_params``);
        ``move`` is the rules of a move (``kernels.KernelRules``, a ``contract.Rules``) and
        ``scratch`` a ``contract.Scratch``, both handed to the policies, which see each decision
        point as a ``contract.Seen``; ``draw_bits[p]`` holds the draws of the row's play ``p``
        (``decisions.hash_draws``), kept when a policy reads them.

        A decision point with more legal actions than the scratch holds abandons its
        row with ``need[b]`` set to the room it needs (the caller replays that row from its
        start with a larger scratch, as ``kernels.legal_actions`` does). Compiled without
        numba's reference counting (``_nrt=False``): the kernel allocates nothing, and counting
        the references of the arrays handed to the inlined policies would dominate its time.
        """
        one = np.uint64(1)
        n_seats = hands.shape[0]
        plays = rules.plays
        ranks, spread = move.ranks, move.spread
        for b in rows:
            # The row's table, played cards and last capturer live in locals while it plays (the
            # table also by rank, for the sum search, and its rank sum), and go back to the arrays
            # when it ends.
            start = 0
            tbl, pld, lst = table[b], played[b], last[b]
            if from_pack:
                tbl, lst, won = open_deal(
                    b, packs, opening[b], seat_side[b, n_seats - 1], captured, scope, scores,
                    rules,
                )  # fmt: skip
                if won >= 0:  # the opening's escobas won the game: the deal is over
                    stopped_by[b] = won
                    leftovers[b] = end_deal(b, captured, lst, tbl, True, rules.full)
                    table[b], last[b] = tbl, lst
                    continue
            else:
                start = start_play[b]
            tbl_rm = rank_major(tbl, ranks, spread)
            tbl_total = rank_sum(tbl, ranks) if track_total else 0
            stopped = False
            if draws:
                # The row's draws for all its plays at once: independent hashes the CPU overlaps,
                # rather than a chain inside each play's dependent work.
                for p in range(start, plays):
                    decisions.hash_draws(deal_keys[b], play_keys[p], draw_bits[p])
            seat = start % n_seats  # deal_rules.seat_to_play(p), kept without a division per play
            for p in range(start, plays):
                if from_pack or p > start:  # a state's own hands are dealt already
                    deal_hands(packs, p, rules.hand_at, rules.hand_size, hands, b)
                hand = hands[seat, b]
                if hand == 0:
                    raise ValueError("a seat has no card left to play (a state that is not a deal)")
                side = seat_side[b, seat]
                scopa_ok = sweep_counts(p, rules)
                captured_any = np.uint64(0)
                for s in range(captured.shape[0]):
                    captured_any |= captured[s, b]
                next_scopa = 1.0 if (p + 1 != plays - 1 or rules.last_play_scopa) else 0.0
                seen = Seen(
                    hand, tbl, tbl_total, captured_any, pld, side == seat_side[b, n_seats - 1],
                    side, next_sizes[p], next_scopa, scopa_ok, draw_bits[p], tbl_rm,
                    captured[side, b],
                )  # fmt: skip
                count, card, taken = decide(slots[side], params, seen, move, scratch)
                if count > scratch.card.shape[1]:
                    need[b] = count
                    break
                # kernels.apply_row, on the locals.
                bit = one << np.uint64(card)
                hands[seat, b] = hand & ~bit
                pld |= bit
                tbl, scopa = apply_move(bit, taken, tbl, scopa_ok, move.ace_mask, move.ace_no_scopa)
                if taken:
                    captured[side, b] |= taken | bit
                    lst = side
                    tbl_rm = rank_major(tbl, ranks, spread)
                    if track_total:
                        tbl_total -= rank_sum(taken, ranks)  # what left the table
                    if scopa:
                        scope[side, b] += 1
                        if wins_outright(rules, scores[b, side], scope[side, b]):
                            stopped_by[b] = side
                            stopped = True
                            break
                else:
                    tbl_rm |= rank_major_bit(card, ranks)
                    if track_total:
                        tbl_total += card_rank(card, ranks)
                seat = seat + 1 if seat + 1 < n_seats else 0
            table[b], played[b], last[b] = tbl, pld, lst
            if not need[b]:  # §4, §6
                leftovers[b] = end_deal(b, captured, lst, tbl, stopped, rules.full)

    names = "_".join(re.sub(r"\W", "_", p.name) for p in policies)
    play.__qualname__ += "_" + names + ("_checked" if checked else "")
    kernel = njit(cache=True, nogil=True, _nrt=False, boundscheck=checked)(play)
    return no_wraparound(kernel)


# Python side -----------------------------------------------------------------------------------


@functools.cache
def _play_keys(plays: int) -> np.ndarray:
    """The hashed counters of ``DecisionRandom``, per play (its calls': ``decisions.CALL_KEYS``)."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        return seeding.mix64(np.arange(plays, dtype=np.uint64) * golden + golden)


def check_fusable(players: Sequence[object]) -> None:
    """Raise ValueError naming the players that have no fused row policy, if any."""
    missing = [str(getattr(p, "name", type(p).__name__)) for p in players if not fusable([p])]
    if missing:
        raise ValueError(
            f"the fused engine path needs players with a compiled row policy "
            f"(Player.fused_policy); {', '.join(missing)} has none: use path 'lockstep' or 'auto'"
        )


def lineup_policies(
    variant: Variant, players: Sequence[Player]
) -> tuple[tuple[FusedPolicy, ...], np.ndarray, tuple]:
    """The lineup's distinct policies (in name order, so that one set of policies is one
    kernel whoever sits where), each side's slot among them, and per policy its parameter
    bundle: the ``policy_params`` of the sides that play it, stacked by side
    (``decisions.stacked_params``).

    Kept per variant and lineup (players are frozen parameters, ``policy_params`` a function
    of the variant): a search calls the engine once per iteration, and rebuilding the bundles
    each time cost it several per cent. A lineup that cannot be hashed is built every time.

    Raises ValueError naming the players that have no fused row policy."""
    players = tuple(players)
    try:
        hash(players)
    except TypeError:
        return _lineup_policies(variant, players)
    return _kept_lineup_policies(variant, players)


@functools.lru_cache(maxsize=256)
def _kept_lineup_policies(variant: Variant, players: tuple) -> tuple:
    return _lineup_policies(variant, players)


def _lineup_policies(variant: Variant, players: tuple) -> tuple:
    check_fusable(players)
    distinct = sorted({p.fused_policy for p in players}, key=lambda q: q.name)
    names = [q.name for q in distinct]
    if len(set(names)) < len(names):
        raise ValueError(f"two fused row policies of one lineup share the name {names}")
    slots = np.array([distinct.index(p.fused_policy) for p in players], np.int64)
    numbers = [getattr(p, "policy_params", _no_params)(variant) for p in players]
    params = tuple(
        decisions.stacked_params([n if slots[s] == k else None for s, n in enumerate(numbers)])
        for k in range(len(distinct))
    )
    return tuple(distinct), slots, params


def _no_params(variant: Variant) -> NoParams:
    return NoParams()


def _run(
    variant, players, from_pack, packs, opening, start, state, restart, seat_side, scores, keys
):  # fmt: skip
    """Call the lineup's kernel on ``state`` = (hands, table, captured, scope, played, last,
    stopped_by, leftovers), arrays in the kernel's layout, changed in place.

    Rows whose legal actions overflowed the scratch are played again from their start, the
    state ``restart()`` returns, with room for them, until none is left."""
    policies, slots, params = lineup_policies(variant, players)
    play_keys = _play_keys(variant.plays)
    rows = np.arange(len(packs))
    need = np.zeros(len(packs), np.int64)
    width = _SCRATCH
    kernel = kernel_for(policies)
    while len(rows):
        kernel(
            from_pack, rows, packs, opening, start, *state, need, seat_side, scores, keys,
            slots, params, play_keys, schedule(variant).next_cards, deal_rules.deal_rules(variant),
            kernels.KernelRules.of(variant), _scratch(width),
            np.empty((variant.plays, 2), np.uint64),
        )  # fmt: skip
        rows = np.flatnonzero(need)
        if len(rows):
            width = max(2 * width, 2 * int(need.max()))
            need[rows] = 0
            # Back to the start of those rows (their state is half played).
            for now, first in zip(state, restart(), strict=True):
                if now.ndim == 2:
                    now[:, rows] = first[:, rows]
                else:
                    now[rows] = first[rows]


def _scratch(width: int) -> Scratch:
    """The kernel's scratch: legal actions of one decision point (``width`` of them), and the
    sum search's stacks (one set per call, so threads calling the kernel at once each have their
    own)."""
    return Scratch(
        np.empty((1, width), np.int8),
        np.empty((1, width), np.uint64),
        np.empty((1, width), np.int8),
        kernels.stack_scratch(),
    )


def _fresh_state(rows: int, n: int, sides: int):
    return (
        np.zeros((n, rows), np.uint64),  # hands
        np.zeros(rows, np.uint64),  # table
        np.zeros((sides, rows), np.uint64),  # captured
        np.zeros((sides, rows), np.int16),  # scope
        np.zeros(rows, np.uint64),  # played
        np.full(rows, -1, np.int8),  # last capturer
        np.full(rows, -1, np.int8),  # stopped_by
        np.zeros(rows, np.uint64),  # leftovers
    )


def play_batch(
    variant: Variant,
    players: Sequence[Player],
    packs: np.ndarray,
    *,
    offset: np.ndarray,
    scores: np.ndarray,
    player_key: np.uint64,
    game: np.ndarray,
    deal: np.ndarray,
) -> deals.DealBatch:
    """``batch.play_batch`` (same arguments, same result, no move record) on the fused path.

    Every player needs a fused row policy (else ValueError)."""
    players = deals.check_players(variant, players)
    packs = np.ascontiguousarray(packs, np.int8)
    rows = len(packs)
    seat_side = deal_rules.seat_sides(variant, np.asarray(offset))
    opening = deal_rules.opening_takes(variant, packs)
    kinds, _ = deal_rules.declared_hands(variant, packs)
    keys = seeding.deal_keys(player_key, np.asarray(game), np.asarray(deal))

    def fresh():
        return _fresh_state(rows, variant.n_players, variant.n_sides)

    state = fresh()
    scores = np.ascontiguousarray(scores, np.int16)
    _run(
        variant, players, True, packs, opening, np.zeros(rows, np.int64), state, fresh,
        seat_side, scores, keys,
    )  # fmt: skip
    _, _, captured, scope, _, _, stopped_by, leftovers = state
    return deals.DealBatch(
        captured.T.copy(),
        scope.T.copy(),
        leftovers,
        seat_side,
        opening,
        stopped_by,
        None,
        tallies=deal_rules.tallies_of(variant, opening, kinds, seat_side),
    )


def play_from_states(variant: Variant, players: Sequence[Player], state: DealState) -> DealEnd:
    """Play each row of ``state`` to the end of its deal with ``players`` (one per side, each
    with a fused row policy), drawing the random numbers the lockstep engine would draw for a
    deal keyed ``state.deal_keys``. ``state`` is not changed."""
    players = deals.check_players(variant, players)
    n = variant.n_players
    rows = len(state.table)
    pack = np.ascontiguousarray(state.pack, np.int8)
    play = np.ascontiguousarray(state.play, np.int64)
    if pack.shape != (rows, variant.pack.n_cards) or state.hands.shape != (rows, n):
        raise ValueError(
            f"a {variant.name} state has packs of {variant.pack.n_cards} cards and "
            f"{n} hands per row"
        )
    if rows and (play.min() < 0 or play.max() > variant.plays):
        raise ValueError(f"play indices run from 0 to {variant.plays} in {variant.name}")

    def copy():  # the kernel's working state: copies, in its layout
        return (
            np.array(state.hands.T, np.uint64, order="C"),
            np.array(state.table, np.uint64),
            np.array(state.captured.T, np.uint64, order="C"),
            np.array(state.scope.T, np.int16, order="C"),
            np.array(state.played, np.uint64),
            np.array(state.last_capturer, np.int8),
            np.full(rows, -1, np.int8),
            np.zeros(rows, np.uint64),
        )

    work = copy()
    _run(
        variant, players, False, pack, np.zeros(rows, np.int8), play, work, copy,
        np.ascontiguousarray(state.seat_side, np.int8),
        np.ascontiguousarray(state.scores, np.int16),
        np.ascontiguousarray(state.deal_keys, np.uint64),
    )  # fmt: skip
    _, _, captured, scope, _, _, stopped_by, leftovers = work
    return DealEnd(captured.T.copy(), scope.T.copy(), leftovers, stopped_by)
