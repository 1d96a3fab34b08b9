"""The fused engine: each deal of a batch played from start to end inside one compiled function.

The lockstep engine (``batch.play_batch``) makes one Python iteration per play over the whole
batch, so any player can take part; this path is for players that also have a compiled *row
policy* (``Player.fused_code``, players/base.py). Per row and per play the kernel

1. deals the next hand from the pack when a hand starts,
2. writes the acting seat's legal actions into a small scratch buffer with
   ``kernels._row_actions_rm`` (row 0 of the scratch; a row with more actions than the buffer
   holds is redone in a larger one, as ``kernels.legal_actions`` does),
3. lets the side's row policy choose (the random player's choice as ``pick_row`` makes it, on
   the random numbers ``seeding.DecisionRandom`` would give it, listing only the captures of
   the card it picks: ``_random_pick``; the greedy player's as ``greedy_row`` makes it,
   weighing each card's captures as they are listed: ``greedy_pick``; or, in ``_decide``, the
   row function that the player's ``act`` calls too, handed what the acting seat sees:
   ``defensive_row``, ``memory_row``, ``chitarrella_row`` through ``_considered_row``, which is
   compiled apart, since inlining them made the kernel slower to compile and to run),
4. plays the choice with ``kernels.apply_move`` (the rule ``kernels.apply_row`` applies) and
   stops the deal at a scopa that wins the game under ``scopa_wins_immediately``,

and ends the deal as the lockstep engine does (the last capturer takes the table; a stopped
deal leaves every card not captured to nobody). The rule code is the lockstep engine's own row
functions, inlined: there is no second copy of the rules. Scoring stays ``scoring.score``,
vectorised over the batch after the kernel.

The kernel is compiled three times from one source (:func:`_kernel`): a general one, and one
each for a lineup of the random player alone (without forced capture) and of the greedy player
alone, the commonest lineups, which it plays measurably faster without the other policies'
code; :func:`kernel_for` picks one.

Two entry points: :func:`play_batch` plays packs (what ``batch.play_deals`` and
``batch.play_games`` use), :func:`play_from_states` continues given mid-deal states
(:class:`DealState`), e.g. for search rollouts.

The kernel inlines functions of other modules (``kernels``, ``seeding``, ``players.*``);
``jit.py`` stamps numba's cache with the whole package's sources, so an edit of any of them
recompiles it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim import seeding
from scopa_sim.engine import deals as lockstep  # the helpers the lockstep path shares
from scopa_sim.engine import kernels
from scopa_sim.engine.deals import DealState
from scopa_sim.engine.kernels import (
    _card_captures,
    _popcount,
    _rank_major,
    _row_actions_rm,
    apply_move,
    card_rank,
    lowest_card,
    rank_major_bit,
)
from scopa_sim.jit import njit, no_wraparound
from scopa_sim.players import tactics
from scopa_sim.players.base import (
    FUSED_CHITARRELLA,
    FUSED_DEFENSIVE,
    FUSED_GREEDY,
    FUSED_MEMORY,
    FUSED_RANDOM,
    Player,
)
from scopa_sim.players.chitarrella import chitarrella_row
from scopa_sim.players.defensive import defensive_row
from scopa_sim.players.greedy import greedy_pick
from scopa_sim.players.memory import memory_row
from scopa_sim.players.random import pick_row
from scopa_sim.players.tactics import rank_sum, unseen_cards
from scopa_sim.rules import Variant
from scopa_sim.seeding import mix64_scalar, uniform_index

_ONE = np.uint64(1)
_S11 = np.uint64(11)
#: Calls to ``DecisionRandom.random()`` a fused policy may make per decision (column 0 each).
_CALLS = 4
#: Legal actions the kernel's scratch holds; a wider decision point gets its own buffer.
_SCRATCH = 64


def fusable(players: Sequence[object]) -> bool:
    """Whether every player has a fused row policy (any object without one: no)."""
    return all(getattr(p, "fused_code", None) is not None for p in players)


@dataclass(frozen=True)
class DealEnd:
    """How each deal of :func:`play_from_states` ended (score it with ``scoring.score``)."""

    captured: np.ndarray  # uint64[B, S], the last capturer's leftovers included
    scope: np.ndarray  # int16[B, S]
    leftovers: np.ndarray  # uint64[B]: cards that went to nobody
    stopped_by: np.ndarray  # int8[B]: side that won outright by a scopa, else -1


# The kernel ------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _uniform(bits):
    """``seeding.to_uniform`` of one draw."""
    return np.float64(bits >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True, inline="always")
def _draw(row_key, call_keys, call):
    """``DecisionRandom.random()``'s call ``call + 1`` (column 0) for the row keyed ``row_key``:
    a pure function of its counters, so a draw the choice does not depend on (one card left, one
    capture) is never hashed, and the numbers are those the lockstep engine draws."""
    return _uniform(mix64_scalar(row_key ^ call_keys[call]))


@njit(cache=True, nogil=True, inline="always")
def _random_pick(
    hand, table, table_rm, card_bits, row_key, call_keys, ranks, rank_mask, rank_of, rule,
    fewest, act_card, act_capture, act_group, st_rem, st_left, st_set,
):  # fmt: skip
    """The random player's ``(count, card, taken)`` when every card of the hand is playable (no
    forced capture), as ``pick_row`` (players/random.py) chooses: the k-th card by id, k drawn
    from ``card_bits`` (``DecisionRandom``'s call 1), then one of that card's captures, drawn
    from call 2 of the row keyed ``row_key`` only when it has several. Only the captures of the
    card picked are listed. Indices come from ``seeding.uniform_index``, the float draws' own
    integers without the float conversions."""
    one = np.uint64(1)
    cap = act_card.shape[1]
    n_cards = _popcount(hand)
    rest = hand
    if n_cards > 1:
        for _ in range(uniform_index(card_bits, n_cards)):
            rest &= rest - one
    card = lowest_card(rest)
    count = _card_captures(
        card, rank_of[card], table, table_rm, ranks, rank_mask, rule, fewest, act_card,
        act_capture, act_group, 0, cap, 0, 0, st_rem, st_left, st_set,
    )  # fmt: skip
    if count == 0:
        return 1, card, np.uint64(0)  # a lay
    if count > cap:
        return count, card, np.uint64(0)
    if count == 1:
        return count, card, act_capture[0, 0]
    j = uniform_index(mix64_scalar(row_key ^ call_keys[1]), count)
    return count, card, act_capture[0, j]


@njit(cache=True, nogil=True, _nrt=False)
def _considered_row(
    code, params, values, count, hand, table, table_total, captured_any, played, dealer,
    next_cards, next_scopa, scopa_ok, full, ranks, rank_mask, rule, ace_mask, ace_no_scopa, n,
    act_card, act_capture,
):  # fmt: skip
    """The choice of the players that look at the unseen cards (defensive, memory,
    chitarrella), compiled apart from the kernel rather than inlined: their work per decision
    dwarfs a call, and kept out of the kernel they no longer slow the compiler down."""
    if code == FUSED_DEFENSIVE:
        # params: capture weights, lay worths (DefensivePlayer.fused_params).
        unseen = unseen_cards(full, hand, table, captured_any, played)
        j = defensive_row(
            act_card, act_capture, count, 0, table, table_total, unseen, next_cards, ranks,
            rank_mask, rule, ace_mask, ace_no_scopa, scopa_ok, params[:n], params[n : 2 * n],
        )  # fmt: skip
    elif code == FUSED_MEMORY:
        # params: the premium cards; values: the card values (MemoryPlayer.fused_*).
        unseen = unseen_cards(full, hand, table, captured_any, played)
        j = memory_row(
            act_card, act_capture, count, 0, table, unseen, next_cards, next_scopa, scopa_ok,
            ranks, rank_mask, rule, ace_mask, ace_no_scopa, values[:n], np.uint64(params[0]),
        )  # fmt: skip
    elif code == FUSED_CHITARRELLA:
        # params: capture weights, lay worths, the premium cards, whether R7 applies
        # (ChitarrellaPlayer.fused_params): +1 for the dealer's team, -1 for the other.
        unseen = unseen_cards(full, hand, table, captured_any, played)
        spariglio = params[2 * n + 1] * (1 if dealer else -1)
        j = chitarrella_row(
            act_card, act_capture, count, 0, hand, table, unseen, next_cards, scopa_ok,
            spariglio, ranks, rank_mask, rule, ace_mask, ace_no_scopa, params[:n],
            params[n : 2 * n], np.uint64(params[2 * n]),
        )  # fmt: skip
    else:
        raise RuntimeError("unknown fused row policy code")
    return j


@njit(cache=True, nogil=True, inline="always")
def _decide(
    code, params, values, hand, table, table_rm, table_total, captured_any, played, dealer,
    next_cards, next_scopa, scopa_ok, row_key, call_keys, ranks, rank_mask, rank_of, rule,
    fewest, forced, ace_mask, ace_no_scopa, n_pack_cards, act_card, act_capture, act_group,
    st_rem, st_left, st_set,
):  # fmt: skip
    """Policy ``code``'s action at one decision point: ``(count, card, taken)`` (the random
    player without forced capture plays by :func:`_random_pick` instead; the greedy player by
    ``players.greedy.greedy_pick``).

    The legal actions go to scratch row 0 (``act_*``, of ``cap`` slots); a ``count`` above
    ``cap`` means they did not fit (card and taken are then meaningless). ``params`` and
    ``values`` are the player's ``fused_params`` and ``fused_values`` (zero-padded);
    ``row_key`` and ``call_keys`` give the random player's two draws under forced capture,
    ``DecisionRandom``'s calls 1 and 2 (:func:`_draw`). What the acting seat sees, as its
    ``Observation`` shows it: ``hand``, ``table`` (``table_rm``: the same cards by
    ``kernels._rank_major``; ``table_total``: their rank sum), ``captured_any`` (every side's
    captures OR-ed), ``played``, ``dealer`` (its side deals); ``next_cards`` is
    ``tactics.next_hand_sizes`` at this play, ``next_scopa`` 1.0 when a sweep on the next play
    would count (else 0.0), ``scopa_ok`` whether one on this play does. Raises for an unknown
    code. (At most 30 arguments: CPython passes a longer call as one tuple, ``*args``, which
    numba cannot inline.)
    """
    n = n_pack_cards
    if code == FUSED_GREEDY:
        # params: capture weights, lay worths (GreedyPlayer.fused_params).
        return greedy_pick(
            hand, table, table_rm, table_total, ranks, rank_mask, rank_of, rule, fewest,
            ace_mask, ace_no_scopa, scopa_ok, params[:n], params[n : 2 * n], act_card,
            act_capture, act_group, st_rem, st_left, st_set,
        )  # fmt: skip
    cap = act_card.shape[1]
    count = _row_actions_rm(
        hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, act_card,
        act_capture, act_group, 0, cap, st_rem, st_left, st_set,
    )  # fmt: skip
    if count > cap:
        return count, -1, np.uint64(0)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    if code == FUSED_RANDOM:
        u_card, u_capture = _draw(row_key, call_keys, 0), _draw(row_key, call_keys, 1)
        j = pick_row(act_group, count, act_group[0, count - 1] + 1, u_card, u_capture, 0)
    else:
        j = _considered_row(
            code, params, values, count, hand, table, table_total, captured_any, played,
            dealer, next_cards, next_scopa, scopa_ok, full, ranks, rank_mask, rule, ace_mask,
            ace_no_scopa, n, act_card, act_capture,
        )  # fmt: skip
    if j < 0 or j >= count:
        raise RuntimeError("a fused row policy chose outside its legal actions")
    return count, np.int64(act_card[0, j]), act_capture[0, j]


#: Which policies a compiled kernel serves (:func:`_kernel`): any, or every side the random
#: player without forced capture, or every side the greedy player.
GENERAL, RANDOM_ONLY, GREEDY_ONLY = 0, 1, 2
_KERNEL_NAMES = {GENERAL: "general", RANDOM_ONLY: "random", GREEDY_ONLY: "greedy"}


def _kernel(only: int, checked: bool = False):
    """The kernel serving ``only`` (:data:`GENERAL`, :data:`RANDOM_ONLY` or :data:`GREEDY_ONLY`):
    one source, compiled once per value. numba prunes the branches on ``only`` before it inlines
    the callees, so a kernel for one policy carries neither the others' code nor their registers:
    9 % (random) and 7 % (greedy) less kernel time per deal than the general kernel on those
    lineups (measured in one process, the kernels alternated), for about 6.5 s of CPU to compile
    each (cached like any kernel).

    Each kernel gets a name of its own (``_kernel.<locals>.play_random``, ...), so that numba
    caches it in an index file of its own: numba updates an index by reading and rewriting it
    whole, so two processes compiling two kernels of one index at once (the test suite's
    warm-up does) could each drop the other's entry, and every later process compiled that
    kernel again.

    Every index the kernel takes is non-negative (rows, plays, seats, sides, cards, ranks,
    counts), so it indexes without wrapping negative indices (``jit.no_wraparound``): 10 % less
    time per deal, random or greedy. ``checked`` compiles it with bounds checking instead, under
    a name of its own, for the test that every index stays in bounds (an out-of-bounds index
    raises IndexError there rather than reading outside an array)."""

    def play(
        from_pack, rows, packs, opening, start_play, hands, table, captured, scope, played, last,
        stopped_by, leftovers, need, seat_side, scores, deal_keys, codes, params, values, play_keys,
        call_keys, deal_pos, deal_size, next_sizes, table_cards, rank_mask, rank_of, spread, rule,
        fewest, forced, ace_mask, ace_no_scopa, last_play_scopa, stop_rule, target, act_card,
        act_capture, act_group, st_rem, st_left, st_set, row_keys, card_bits,
    ):  # fmt: skip
        """Play rows ``rows`` of the batch to the end of their deals, in place.

        State layout as ``batch.play_batch``'s: ``hands[seat, b]``, ``captured[side, b]``,
        ``scope[side, b]``, the rest per row. With ``from_pack`` each row starts from its
        pack (state zeroed by the caller, ``last`` and ``stopped_by`` -1): the opening table,
        the §7 opening escobas, then play 0 with hand 0 dealt. Otherwise row ``b`` continues
        from play ``start_play[b]`` with its current hand already dealt. ``deal_pos[p]`` is the
        pack position of the hand that starts at play ``p`` (-1 if none does), ``deal_size[p]``
        its size; ``next_sizes[p]`` the cards the player of play ``p + 1`` holds
        (``tactics.next_hand_sizes``). ``codes[side]``, ``params[side]`` and ``values[side]``
        are each side's policy.

        A decision point with more legal actions than the scratch ``act_*`` holds abandons its
        row with ``need[b]`` set to the room it needs (the caller replays that row from its
        start with a larger scratch, as ``kernels.legal_actions`` does). Compiled without
        numba's reference counting (``_nrt=False``): the kernel allocates nothing, and the
        counting of the arrays handed to the inlined row functions cost three quarters of its
        time.

        When a side plays at random without forced capture, each row's decision keys and card
        draws (``row_keys``, ``card_bits``: scratch of one entry per play) are hashed for all
        its plays first, in a loop of independent hashes that the CPU overlaps, rather than one
        at a time inside the play's chain of dependent work.
        """
        one = np.uint64(1)
        zero = np.uint64(0)
        n_seats = hands.shape[0]
        plays = len(deal_pos)
        ranks = len(rank_mask) - 1
        n_pack_cards = packs.shape[1]
        full = (one << np.uint64(n_pack_cards)) - one
        track_total = only == GREEDY_ONLY  # the table's rank sum, for the players that weigh it
        random_fast = only == RANDOM_ONLY
        if only == GENERAL:
            for code in codes:
                random_fast |= code == FUSED_RANDOM and not forced
                track_total |= code == FUSED_GREEDY or code == FUSED_DEFENSIVE
        for b in rows:
            # The row's table, played cards and last capturer live in locals while it plays (the
            # table also by rank, for the sum search, and its rank sum), and go back to the arrays
            # when it ends.
            start = 0
            tbl, pld, lst = table[b], played[b], last[b]
            if from_pack:
                tbl = zero
                for i in range(table_cards):
                    tbl |= one << np.uint64(packs[b, i])
                if opening[b] > 0:
                    # §7 escoba: the opening table goes to the dealer's side as escobas.
                    ds = seat_side[b, n_seats - 1]
                    captured[ds, b] |= tbl
                    scope[ds, b] += opening[b]
                    lst = ds
                    if stop_rule and scores[b, ds] + scope[ds, b] >= target:
                        stopped_by[b] = ds
                        leftovers[b] = full & ~tbl  # §6: every card not captured to nobody
                        table[b], last[b] = zero, lst
                        continue
                    tbl = zero
            else:
                start = start_play[b]
            tbl_rm = _rank_major(tbl, ranks, spread)
            tbl_total = rank_sum(tbl, ranks) if track_total else 0
            stopped = False
            if random_fast:
                for p in range(start, plays):
                    # DecisionRandom(deal_keys, p): the row key, and its call 1.
                    row_keys[p] = mix64_scalar(deal_keys[b] ^ play_keys[p])
                    card_bits[p] = mix64_scalar(row_keys[p] ^ call_keys[0])
            seat = start % n_seats  # p % n_seats, kept without a division per play
            for p in range(start, plays):
                if deal_pos[p] >= 0 and (from_pack or p > start):
                    pos, size = deal_pos[p], deal_size[p]
                    for s in range(n_seats):
                        h = zero
                        for i in range(pos + s * size, pos + (s + 1) * size):
                            h |= one << np.uint64(packs[b, i])
                        hands[s, b] = h
                hand = hands[seat, b]
                if hand == 0:
                    raise ValueError("a seat has no card left to play (a state that is not a deal)")
                side = seat_side[b, seat]
                scopa_ok = p < plays - 1 or last_play_scopa
                code = FUSED_GREEDY if only == GREEDY_ONLY else codes[side]
                if only == RANDOM_ONLY or (only == GENERAL and code == FUSED_RANDOM and not forced):
                    count, card, taken = _random_pick(
                        hand, tbl, tbl_rm, card_bits[p], row_keys[p], call_keys, ranks, rank_mask,
                        rank_of, rule, fewest, act_card, act_capture, act_group, st_rem, st_left,
                        st_set,
                    )  # fmt: skip
                else:
                    captured_any = zero
                    for s in range(captured.shape[0]):
                        captured_any |= captured[s, b]
                    next_scopa = 1.0 if (p + 1 != plays - 1 or last_play_scopa) else 0.0
                    row_key = zero
                    if code == FUSED_RANDOM:
                        # DecisionRandom(deal_keys, p): the row's key (its calls: _decide).
                        row_key = mix64_scalar(deal_keys[b] ^ play_keys[p])
                    count, card, taken = _decide(
                        code, params[side], values[side], hand, tbl, tbl_rm, tbl_total,
                        captured_any, pld, side == seat_side[b, n_seats - 1], next_sizes[p],
                        next_scopa, scopa_ok, row_key, call_keys, ranks, rank_mask, rank_of, rule,
                        fewest, forced, ace_mask, ace_no_scopa, n_pack_cards, act_card, act_capture,
                        act_group, st_rem, st_left, st_set,
                    )  # fmt: skip
                if count > act_card.shape[1]:
                    need[b] = count
                    break
                # kernels.apply_row, on the locals.
                bit = one << np.uint64(card)
                hands[seat, b] = hand & ~bit
                pld |= bit
                tbl, scopa = apply_move(bit, taken, tbl, scopa_ok, ace_mask, ace_no_scopa)
                if taken:
                    captured[side, b] |= taken | bit
                    lst = side
                    tbl_rm = _rank_major(tbl, ranks, spread)
                    if track_total:
                        tbl_total -= rank_sum(taken, ranks)  # what left the table
                    if scopa:
                        scope[side, b] += 1
                        if stop_rule and scores[b, side] + scope[side, b] >= target:
                            stopped_by[b] = side
                            stopped = True
                            break
                else:
                    tbl_rm |= rank_major_bit(card, ranks)
                    if track_total:
                        tbl_total += card_rank(card, ranks)
                seat = seat + 1 if seat + 1 < n_seats else 0
            table[b], played[b], last[b] = tbl, pld, lst
            if need[b]:
                continue
            if stopped:
                # §6: every card not captured (table, hands, cards not dealt yet) goes to nobody.
                rest = full
                for s in range(captured.shape[0]):
                    rest &= ~captured[s, b]
                leftovers[b] = rest
            elif lst >= 0:
                # §4: the last capturer takes what is left on the table.
                captured[lst, b] |= tbl
                leftovers[b] = zero
            else:
                leftovers[b] = tbl

    play.__qualname__ += "_" + _KERNEL_NAMES[only]  # numba's cache file name (docstring)
    if checked:
        play.__qualname__ += "_checked"
    kernel = njit(cache=True, nogil=True, _nrt=False, boundscheck=checked)(play)
    return no_wraparound(kernel)


_KERNELS = {only: _kernel(only) for only in (GENERAL, RANDOM_ONLY, GREEDY_ONLY)}
_play = _KERNELS[GENERAL]


def kernel_for(codes: np.ndarray, forced: bool):
    """The kernel for a batch whose sides play policies ``codes``: the one for their policy
    when every side plays the same fast one, else the general one."""
    if not forced and (codes == FUSED_RANDOM).all():
        return _KERNELS[RANDOM_ONLY]
    if (codes == FUSED_GREEDY).all():
        return _KERNELS[GREEDY_ONLY]
    return _KERNELS[GENERAL]


# Python side -----------------------------------------------------------------------------------


@functools.cache
def _schedule(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Per play: the pack position of the hand dealt just before it (-1: none), and its size."""
    pos = np.full(variant.plays, -1, np.int64)
    size = np.zeros(variant.plays, np.int64)
    play, position = 0, variant.table_cards
    for hand_size in variant.hands:
        pos[play], size[play] = position, hand_size
        play += hand_size * variant.n_players
        position += hand_size * variant.n_players
    return pos, size


@functools.cache
def _random_keys(plays: int) -> tuple[np.ndarray, np.ndarray]:
    """The hashed counters of ``DecisionRandom``: per play, and per ``random()`` call."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        play = np.arange(plays, dtype=np.uint64)
        calls = np.arange(1, _CALLS + 1, dtype=np.uint64) << np.uint64(16)
        return seeding.mix64(play * golden + golden), seeding.mix64(calls * golden + golden)


def check_fusable(players: Sequence[object]) -> None:
    """Raise ValueError naming the players that have no fused row policy, if any."""
    missing = [str(getattr(p, "name", type(p).__name__)) for p in players if not fusable([p])]
    if missing:
        raise ValueError(
            f"the fused engine path needs players with a compiled row policy "
            f"(Player.fused_code); {', '.join(missing)} has none: use path 'lockstep' or 'auto'"
        )


def _padded(rows: list[np.ndarray], dtype) -> np.ndarray:
    out = np.zeros((len(rows), max(1, *(len(r) for r in rows))), dtype)
    for side, row in enumerate(rows):
        out[side, : len(row)] = row
    return out


def policies(
    variant: Variant, players: Sequence[Player]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per side: the fused policy code, its parameters (``int64[S, P]``) and its values
    (``float64[S, Q]``), zero-padded.

    Raises ValueError naming the players that have no fused row policy."""
    check_fusable(players)
    codes = np.array([p.fused_code for p in players], np.int64)
    params = [np.asarray(p.fused_params(variant), np.int64).ravel() for p in players]
    values = [
        np.asarray(getattr(p, "fused_values", _no_values)(variant), np.float64).ravel()
        for p in players
    ]
    return codes, _padded(params, np.int64), _padded(values, np.float64)


def _no_values(variant: Variant) -> np.ndarray:
    return np.zeros(0, np.float64)


def _run(
    variant, players, from_pack, packs, opening, start, state, restart, seat_side, scores, keys
):  # fmt: skip
    """Call the kernel on ``state`` = (hands, table, captured, scope, played, last, stopped_by,
    leftovers), arrays in the kernel's layout, changed in place.

    Rows whose legal actions overflowed the scratch are played again from their start, the
    state ``restart()`` returns, with room for them, until none is left."""
    codes, params, values = policies(variant, players)
    rules = kernels.KernelRules.of(variant)
    deal_pos, deal_size = _schedule(variant)
    play_keys, call_keys = _random_keys(variant.plays)
    rows = np.arange(len(packs))
    need = np.zeros(len(packs), np.int64)
    width = _SCRATCH
    kernel = kernel_for(codes, rules.forced)
    while len(rows):
        kernel(
            from_pack, rows, packs, opening, start, *state, need, seat_side, scores, keys,
            codes, params, values, play_keys, call_keys, deal_pos, deal_size,
            tactics.next_hand_sizes(variant), variant.table_cards,
            *kernels.row_tables(rules.ranks), rules.rule, rules.fewest, rules.forced,
            rules.ace_mask, rules.ace_no_scopa, variant.last_play_scopa,
            variant.scopa_wins_immediately, variant.target, *_scratch(width),
            *_key_scratch(variant.plays),
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


def _scratch(width: int):
    """The kernel's scratch: legal actions of one decision point (``width`` of them), and the
    sum search's stacks (one set per call, so threads calling the kernel at once each have their
    own)."""
    return (
        np.empty((1, width), np.int8),
        np.empty((1, width), np.uint64),
        np.empty((1, width), np.int8),
        *kernels.stack_scratch(),
    )


def _key_scratch(plays: int):
    """The kernel's scratch for one row's decision keys and card draws (one per play)."""
    return np.empty(plays, np.uint64), np.empty(plays, np.uint64)


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
) -> lockstep.DealBatch:
    """``batch.play_batch`` (same arguments, same result, no move record) on the fused path.

    Every player needs a fused row policy (else ValueError)."""
    players = lockstep.check_players(variant, players)
    packs = np.ascontiguousarray(packs, np.int8)
    rows = len(packs)
    seat_side = lockstep.seat_sides(variant, np.asarray(offset))
    opening = lockstep.opening_sweeps(variant, packs)
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
    return lockstep.DealBatch(
        captured.T.copy(), scope.T.copy(), leftovers, seat_side, opening, stopped_by, None
    )


def play_from_states(variant: Variant, players: Sequence[Player], state: DealState) -> DealEnd:
    """Play each row of ``state`` to the end of its deal with ``players`` (one per side, each
    with a fused row policy), drawing the random numbers the lockstep engine would draw for a
    deal keyed ``state.deal_keys``. ``state`` is not changed."""
    players = lockstep.check_players(variant, players)
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
