"""The rules that run a deal, each written once and compiled: every engine and search calls them.

The move itself (legal actions, the capture, the sweep) is :mod:`kernels`'. This module is the
rest of a deal (docs/rules.md §2-§4, §6, §7): the packs dealt and thrown in, the opening table
and its escobas, whose turn it is and each seat's side, the hands dealt at their plays, whether
a sweep counts, the stop on a scopa that wins the game, and the end of a deal. The lockstep and
fused engines, the search players (pimc, ismcts, the endgame solver), the analysis of a position
and ``compare`` call these functions; ``engine/reference.py`` states the same rules in plain
Python as the executable specification, and the agreement tests hold everything here to it.
``docs/design.md`` ("Where each rule lives") is the map.

Row functions (``inline="always"``) work on one row of a struct of arrays (``hands[seat, b]``,
``captured[side, b]``, ``scope[side, b]``), so that every compiled caller inlines the same code.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from scopa_sim import seeding
from scopa_sim.engine.kernels import KernelRules, apply_row
from scopa_sim.jit import njit
from scopa_sim.rules import FirstDealer, Variant
from scopa_sim.rules.keys import DeclareRounds, MattaOpening, applies
from scopa_sim.rules.schedule import Schedule, schedule

__all__ = [
    "TALLIES", "DealRules", "Schedule", "deal_hands", "deal_packs", "deal_rules", "declaration",
    "declared_hands", "end_deal", "end_deals", "fifteen_units", "first_dealers", "hand_of",
    "is_throw_in", "open_deal", "open_table", "opening_escobas", "opening_sweeps",
    "opening_takes", "opening_units", "outright_winners", "play_row", "play_rows", "schedule",
    "seat_offsets", "seat_sides", "seat_sides_around", "seat_to_play", "shown_cards",
    "start_deals", "sweep_counts", "tallies_of", "throw_in_rows", "throws_in", "wins_outright",
]  # fmt: skip

_ONE = np.uint64(1)

#: The deal-level counts that score like scope, per side (``scoring.score(..., tallies=)``):
#: units of the dealer's opening take (15: 1, 30: 2, opening_low: 3), low-hand declarations,
#: three-of-a-kind declarations.
TALLIES = ("opening", "low", "triple")

#: What :func:`declaration` returns.
NO_DECLARATION, LOW, TRIPLE = 0, 1, 2


class DealRules(NamedTuple):
    """The rules of a deal as compiled code takes them: plain numbers and the schedule's arrays
    (:func:`deal_rules` builds it once per variant)."""

    n_seats: int
    plays: int
    table_cards: int
    full: np.uint64  # every card of the pack
    hand_at: np.ndarray  # Schedule.hand_at
    hand_size: np.ndarray  # Schedule.hand_size
    last_play_scopa: bool  # a sweep on the deal's last play is a scopa
    stop_rule: bool  # scopa_wins_immediately
    target: int
    ace_mask: np.uint64  # the move's (kernels.KernelRules), for play_row
    ace_no_scopa: bool
    # §2 the throw-in (cirulla.md C2.2): at least throw_in_count table cards of throw_in_rank.
    throw_in: bool  # throws_in(variant)
    throw_in_rank: int
    throw_in_count: int
    fifteen_stands: bool  # two_aces_fifteen_stands
    # The opening table: escoba's escobas (scope), or cirulla's 15 / 30 (C2.3, the opening tally).
    opening_in_scope: bool  # opening_sweep
    opening_fifteen: bool
    opening_low: bool
    matta: int  # the wild card's id, -1: none
    matta_wild_opening: bool
    # Declarations (C5): 0 turns each off.
    low_hand: int
    triple: bool
    matta_declares: bool
    declaring_rounds: int  # the deal's first rounds that declare (0: declarations off)


@functools.cache
def deal_rules(variant: Variant) -> DealRules:
    plan, move = schedule(variant), KernelRules.of(variant)
    matta = -1 if variant.matta is None else variant.matta
    declaring = 0
    if variant.declarations:
        first = variant.declare_rounds == DeclareRounds.FIRST
        declaring = 1 if first else len(variant.hands)
    return DealRules(
        variant.n_players, variant.plays, variant.table_cards, np.uint64(variant.pack.full_mask),
        plan.hand_at, plan.hand_size, variant.last_play_scopa, variant.scopa_wins_immediately,
        variant.target, move.ace_mask, move.ace_no_scopa,
        throws_in(variant), variant.throw_in_rank, variant.throw_in_count,
        variant.two_aces_fifteen_stands, variant.opening_sweep, variant.opening_fifteen,
        variant.opening_low, matta, variant.matta_opening == MattaOpening.WILD,
        variant.low_hand if variant.declarations else 0,
        variant.declarations and variant.triple_points > 0,
        variant.declarations and variant.matta_declarations, declaring,
    )  # fmt: skip


# §2: who deals, who plays, which side ---------------------------------------------------------


def first_dealers(variant: Variant, pack_key: np.uint64, game: np.ndarray) -> np.ndarray:
    """The player who deals each game's first deal: at random from the game's own stream, or
    player n - 1 under ``first_dealer=fixed``."""
    n = variant.n_players
    if variant.first_dealer is FirstDealer.FIXED:
        return np.full(len(game), n - 1, np.int64)
    return seeding.first_dealers(pack_key, np.asarray(game, np.int64), n)


def seat_offsets(first_dealer: np.ndarray, deal: np.ndarray, n_players: int) -> np.ndarray:
    """The player in seat 0 (who leads) of each deal: the deal passes to the right, so deal ``d``
    is dealt by player ``first + d`` and led by the next one."""
    return (np.asarray(first_dealer) + 1 + np.asarray(deal)) % n_players


def seat_sides(variant: Variant, offset: np.ndarray) -> np.ndarray:
    """Side of each seat per row, ``int8[B, n]``, when seat 0 is player ``offset`` (any integer,
    taken modulo the players): player ``p``'s side is ``p % sides`` (partners sit opposite)."""
    return _seat_side_table(variant.n_players, variant.n_sides).take(offset, axis=0, mode="wrap")


def seat_sides_around(variant: Variant, seat, side) -> np.ndarray:
    """:func:`seat_sides` per row when seat ``seat`` (a number, or one per row) is on side
    ``side`` (one per row): sides alternate round the table from any seat."""
    return seat_sides(variant, np.asarray(side, np.int64) - np.asarray(seat, np.int64))


@functools.cache
def _seat_side_table(n: int, sides: int) -> np.ndarray:
    """``[o, seat]``: the side of each seat when seat 0 is player ``o``, ``(o + seat) % n %
    sides``. One row per offset, taken per deal: a lookup is cheaper than the arithmetic."""
    return ((np.arange(n)[:, None] + np.arange(n)[None, :]) % n % sides).astype(np.int8)


@njit(cache=True, nogil=True, inline="always")
def seat_to_play(play, n_seats):
    """The seat whose turn play ``play`` is: the plays go round the table from seat 0."""
    return play % n_seats


# §2: the packs, and the throw-in ---------------------------------------------------------------


def throws_in(variant: Variant) -> bool:
    """Whether a table of ``throw_in_count`` cards of ``throw_in_rank`` (three or four kings;
    cirulla's two aces) is thrown in: the rule is on, and it applies (``rules.keys``: the
    italian pack, a table of four)."""
    return variant.throw_in and applies(variant, "throw_in")


@njit(cache=True, nogil=True, inline="always")
def is_throw_in(pack, rank_of, rules):
    """Whether the table (the pack's first ``rules.table_cards`` cards) holds at least
    ``throw_in_count`` cards of ``throw_in_rank`` (the matta is not one unless it has that rank)
    and, under ``two_aces_fifteen_stands``, makes no 15 or 30 (:func:`fifteen_units`)."""
    count = 0
    for i in range(rules.table_cards):
        count += rank_of[pack[i]] == rules.throw_in_rank
    if count < rules.throw_in_count:
        return False
    return not (rules.fifteen_stands and fifteen_units(pack, rank_of, rules) > 0)


@njit(cache=True, nogil=True, _nrt=False)
def _throw_ins(packs, rank_of, rules, out):
    for r in range(len(packs)):
        out[r] = is_throw_in(packs[r], rank_of, rules)


def throw_in_rows(variant: Variant, packs: np.ndarray) -> np.ndarray:
    """Rows whose table (the pack's first cards) is thrown in (:func:`throws_in`)."""
    out = np.zeros(len(packs), bool)
    if throws_in(variant) and len(packs):
        packs = np.ascontiguousarray(packs, np.int8)
        _throw_ins(packs, variant.pack.rank_of, deal_rules(variant), out)
    return out


@njit(cache=True, nogil=True, _nrt=False)
def _deal_packs(
    key, game, deal, position_keys, rank_of, rules, throw_in, packs, attempts, first, swap
):  # fmt: skip
    """Row ``r``: the pack of (``game[r]``, ``deal[r]``, attempt 0, 1, ...) until one is no
    throw-in (when ``throw_in``), and how many were thrown in before it. ``first`` and ``swap``
    are scratch (a hash per row, a draw per card). Compiled without numba's reference counting
    (``_nrt=False``: it allocates nothing), which made taking a row of ``packs`` cost more than
    checking it for kings."""
    for r in range(len(game)):  # independent hashes first (seeding.shuffle_into says why)
        first[r] = seeding.pack_hash(key, game[r], deal[r], 0)
    for r in range(len(game)):
        seeding.shuffle_into(first[r], position_keys, packs[r], swap)
    for r in range(len(game)):  # the throw-ins (one deal in 700), in a loop of their own
        attempt = 0
        while throw_in and is_throw_in(packs[r], rank_of, rules):
            attempt += 1
            h = seeding.pack_hash(key, game[r], deal[r], attempt)
            seeding.shuffle_into(h, position_keys, packs[r], swap)
        attempts[r] = attempt


def deal_packs(variant: Variant, key: np.uint64, game: np.ndarray, deal: np.ndarray):
    """The packs dealt for (game, deal), redealing throw-ins; returns (packs, throw-ins).

    Each pack is ``seeding.packs`` of (game, deal, attempt) for the first attempt that is not a
    throw-in (:func:`throw_in_rows`), dealt in one compiled loop."""
    rows, n_cards = len(game), variant.pack.n_cards
    packs = np.empty((rows, n_cards), np.int8)
    attempts = np.empty(rows, np.int16)
    _deal_packs(
        np.uint64(key), np.ascontiguousarray(game, np.int64), np.ascontiguousarray(deal, np.int64),
        seeding.pack_position_keys(n_cards), variant.pack.rank_of, deal_rules(variant),
        throws_in(variant), packs, attempts, np.empty(rows, np.uint64),
        np.empty(n_cards, np.int64),
    )  # fmt: skip
    return packs, attempts


# §2, §7: the table and the hands ---------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def hand_of(packs, b, start, size):
    """The cards ``packs[b, start : start + size]`` (row ``b``'s pack) as a mask."""
    cards = np.uint64(0)
    for i in range(start, start + size):
        cards |= _ONE << np.uint64(packs[b, i])
    return cards


@njit(cache=True, nogil=True, inline="always")
def open_table(packs, b, table_cards):
    """Row ``b``'s opening table: its pack's first ``table_cards`` cards."""
    return hand_of(packs, b, 0, table_cards)


@njit(cache=True, nogil=True, inline="always")
def deal_hands(packs, play, hand_at, hand_size, hands, b):
    """Deal row ``b``'s hands that come just before play ``play`` (``hands[seat, b]``), seat 0
    first, ``hand_size[play]`` cards each from pack position ``hand_at[play]``; whether a hand
    was dealt (none is when the play is not a round's first)."""
    pos = hand_at[play]
    if pos < 0:
        return False
    size = hand_size[play]
    for seat in range(hands.shape[0]):
        hands[seat, b] = hand_of(packs, b, pos + seat * size, size)
    return True


@njit(cache=True, nogil=True, inline="always")
def opening_escobas(pack, rank_of, table_cards):
    """Escoba's opening (§7): 1 when the table sums to 15, 2 when it sums to 30 and splits into
    two sets of 15 (some set holding the first card makes 15), else 0."""
    total = 0
    for i in range(table_cards):
        total += rank_of[pack[i]]
    if total == 15:
        return 1
    if total != 30:
        return 0
    first = rank_of[pack[0]]
    for others in range(1 << (table_cards - 1)):  # the sets of the other cards
        part = first
        for i in range(table_cards - 1):
            if (others >> i) & 1:
                part += rank_of[pack[i + 1]]
        if part == 15:
            return 2
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def _opening_sweeps(packs, rank_of, table_cards, out):
    for r in range(len(packs)):
        out[r] = opening_escobas(packs[r], rank_of, table_cards)


def opening_sweeps(variant: Variant, packs: np.ndarray) -> np.ndarray:
    """Escobas in each opening table (:func:`opening_escobas`), ``int8[B]``, all 0 unless the
    variant has the rule."""
    out = np.zeros(len(packs), np.int8)
    if variant.opening_sweep and len(packs):
        packs = np.ascontiguousarray(packs, np.int8)
        _opening_sweeps(packs, variant.pack.rank_of, variant.table_cards, out)
    return out


@njit(cache=True, nogil=True, inline="always")
def fifteen_units(pack, rank_of, rules):
    """Cirulla's opening (cirulla.md C2.3): 1 when the table's values add up to 15, 2 for 30,
    else 0; a matta counted wild (``matta_opening = wild``) takes whichever value 1..10 makes
    15 or 30 (the two never both)."""
    total, wild = 0, False
    for i in range(rules.table_cards):
        card = pack[i]
        if card == rules.matta and rules.matta_wild_opening:
            wild = True
        else:
            total += rank_of[card]
    if wild:
        if 5 <= total <= 14:
            return 1
        return 2 if 20 <= total <= 29 else 0
    if total == 15:
        return 1
    return 2 if total == 30 else 0


@njit(cache=True, nogil=True, inline="always")
def opening_units(pack, rank_of, rules):
    """Units of the dealer's opening take (the "opening" tally): under ``opening_low`` 3 for a
    table of 9 or less (a wild matta counting 1), which goes before a 15; else
    :func:`fifteen_units`."""
    if rules.opening_low:
        total = 0
        for i in range(rules.table_cards):
            card = pack[i]
            wild = card == rules.matta and rules.matta_wild_opening
            total += 1 if wild else rank_of[card]
        if total <= 9:
            return 3
    return fifteen_units(pack, rank_of, rules)


@njit(cache=True, nogil=True, _nrt=False)
def _opening_units(packs, rank_of, rules, out):
    for r in range(len(packs)):
        out[r] = opening_units(packs[r], rank_of, rules)


def opening_takes(variant: Variant, packs: np.ndarray) -> np.ndarray:
    """What the dealer's side takes the opening table for, ``int8[B]``: escoba's escobas
    (:func:`opening_sweeps`, counted as scope), or under ``opening_fifteen`` the units of the
    opening tally (:func:`opening_units`); 0 when the table stays."""
    if not variant.opening_fifteen:
        return opening_sweeps(variant, packs)
    out = np.zeros(len(packs), np.int8)
    if len(packs):
        packs = np.ascontiguousarray(packs, np.int8)
        _opening_units(packs, variant.pack.rank_of, deal_rules(variant), out)
    return out


@njit(cache=True, nogil=True, inline="always")
def open_deal(b, packs, opening, dealer_side, captured, scope, scores, rules):
    """Lay row ``b``'s opening table. When it goes to the dealer (``opening`` > 0,
    :func:`opening_takes`) the dealer's side takes it, a capture; escoba's escobas (§7) count as
    its scope and may so win the game at once (§6), cirulla's 15 / 30 are counted apart (the
    opening tally, :func:`tallies_of`). Returns the table, the last capturer (-1: none) and the
    side whose escobas won the game (-1: none; the deal is then over)."""
    table = open_table(packs, b, rules.table_cards)
    if opening == 0:
        return table, -1, -1
    captured[dealer_side, b] |= table
    if not rules.opening_in_scope:
        return np.uint64(0), dealer_side, -1
    scope[dealer_side, b] += opening
    won = wins_outright(rules, scores[b, dealer_side], scope[dealer_side, b])
    return np.uint64(0), dealer_side, dealer_side if won else -1


@njit(cache=True, nogil=True)
def _start_deals(
    packs, opening, seat_side, hands, table, captured, scope, last, stopped_by, scores, rules
):  # fmt: skip
    dealer = rules.n_seats - 1
    for b in range(len(packs)):
        table[b], last[b], stopped_by[b] = open_deal(
            b, packs, opening[b], seat_side[b, dealer], captured, scope, scores, rules
        )
        deal_hands(packs, 0, rules.hand_at, rules.hand_size, hands, b)


def start_deals(rules: DealRules, packs, opening, seat_side, state, scores) -> None:
    """Start every row's deal in place (:func:`open_deal`, then the first hands dealt);
    ``state`` is ``(hands, table, captured, scope, last, stopped_by)`` in the row layout."""
    _start_deals(packs, opening, seat_side, *state, scores, rules)


# Cirulla's declarations (cirulla.md C5) and the tallies ---------------------------------------


@njit(cache=True, nogil=True, inline="always")
def declaration(pack, start, rank_of, rules):
    """The declaration of the hand of three cards ``pack[start : start + 3]``: :data:`TRIPLE`
    (three of one rank), else :data:`LOW` (values adding up to at most ``low_hand``), else
    :data:`NO_DECLARATION`; one per hand, the better. A matta that declares (``matta_declares``)
    is any rank: the two others a pair make three of a kind, and it counts 1 in a low hand."""
    wild = False
    total, first, same = 0, -1, True
    for i in range(start, start + 3):
        card = pack[i]
        if rules.matta_declares and card == rules.matta:
            wild = True
            continue
        rank = rank_of[card]
        total += rank
        if first < 0:
            first = rank
        elif rank != first:
            same = False
    if rules.triple and same:
        return TRIPLE
    if total + (1 if wild else 0) <= rules.low_hand:
        return LOW
    return NO_DECLARATION


@njit(cache=True, nogil=True, _nrt=False)
def _declared_hands(packs, rank_of, rules, round_start, kinds, masks):
    for b in range(len(packs)):
        for r in range(rules.declaring_rounds):
            for seat in range(rules.n_seats):
                start = round_start[r] + 3 * seat
                kind = declaration(packs[b], start, rank_of, rules)
                kinds[b, r, seat] = kind
                if kind != NO_DECLARATION:
                    masks[b, r, seat] = hand_of(packs, b, start, 3)


def declared_hands(variant: Variant, packs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each dealt hand's declaration (:func:`declaration`; all none where the variant has no
    declarations, or at rounds ``declare_rounds`` leaves out), ``int8[B, rounds, n_players]``,
    and the cards of each declared hand, ``uint64[B, rounds, n_players]`` (0: none). A function
    of the packs: declaring is automatic (cirulla.md C5.4)."""
    shape = (len(packs), len(variant.hands), variant.n_players)
    kinds, masks = np.zeros(shape, np.int8), np.zeros(shape, np.uint64)
    if variant.declarations and len(packs):
        rules = deal_rules(variant)
        _declared_hands(
            np.ascontiguousarray(packs, np.int8), variant.pack.rank_of, rules,
            schedule(variant).round_start, kinds, masks,
        )  # fmt: skip
    return kinds, masks


def tallies_of(
    variant: Variant, opening: np.ndarray, kinds: np.ndarray, seat_side: np.ndarray
) -> np.ndarray:
    """The deal-level counts that score like scope, ``int16[B, S, 3]`` in the order of
    :data:`TALLIES`: the dealer's side's opening units (``opening``: :func:`opening_takes`,
    under ``opening_fifteen``), and each side's low-hand and three-of-a-kind declarations
    (``kinds``: :func:`declared_hands`; partners pool theirs). ``seat_side``: ``int8[B, n]``."""
    rows = len(opening)
    tallies = np.zeros((rows, variant.n_sides, len(TALLIES)), np.int16)
    everyone = np.arange(rows)
    if variant.opening_fifteen:
        tallies[everyone, seat_side[:, -1], 0] = opening
    if variant.declarations:
        for seat in range(variant.n_players):
            side = seat_side[:, seat]
            tallies[everyone, side, 1] += (kinds[:, :, seat] == LOW).sum(axis=1)
            tallies[everyone, side, 2] += (kinds[:, :, seat] == TRIPLE).sum(axis=1)
    return tallies


@functools.cache
def _first_plays(variant: Variant) -> np.ndarray:
    """The play that opens each round (hand) of the deal."""
    sizes = np.asarray(variant.hands, np.int64)
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]) * variant.n_players


def shown_cards(variant: Variant, masks: np.ndarray, hands: np.ndarray, play: int) -> np.ndarray:
    """The declared cards each seat still holds, shown to the table, just before play ``play``,
    ``uint64[B, n_players]``: a seat shows its declared hand at its first turn of the hand
    (cirulla.md C5.3), before it plays, and a card it plays leaves its hand. ``masks``:
    :func:`declared_hands`' cards; ``hands``: each seat's hand, ``uint64[n_players, B]``."""
    round_ = schedule(variant).round_of[play]
    declared = play >= _first_plays(variant)[round_] + np.arange(variant.n_players)
    return np.where(declared[None, :], masks[:, round_, :] & hands.T, np.uint64(0))


# §3, §6: the plays -----------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def sweep_counts(play, rules):
    """Whether a sweep on play ``play`` is a scopa: on every play but the deal's last, and on the
    last too where ``last_play_scopa`` (``rules``: the :class:`DealRules`)."""
    return play < rules.plays - 1 or rules.last_play_scopa


@njit(cache=True, nogil=True, inline="always")
def wins_outright(rules, score, scope):
    """Whether a side's scopa wins the game at once and stops the deal (§6,
    ``scopa_wins_immediately``): its game score before the deal (``score``) and its scope of
    the deal so far, this one included, reach the target."""
    return rules.stop_rule and score + scope >= rules.target


@njit(cache=True, nogil=True, inline="always")
def play_row(
    b, card, taken, play, side, packs, hands, table, captured, scope, last, played, stopped,
    scores, rules,
):  # fmt: skip
    """Play row ``b``'s action (``card`` taking ``taken``) at play ``play`` by the seat whose turn
    it is, on side ``side``; then stop the deal at a scopa that wins the game (``stopped[b]``:
    that side) and deal the hands of the next play when a round starts there. ``rules`` is the
    variant's :class:`DealRules`; ``scores[b, side]`` the game scores before the deal. Returns
    whether the move was a scopa. The step every search walks with."""
    seat = seat_to_play(play, rules.n_seats)
    scopa = apply_row(
        b, card, taken, side, hands[seat], table, captured, scope, last, played,
        sweep_counts(play, rules), rules.ace_mask, rules.ace_no_scopa,
    )  # fmt: skip
    if scopa and wins_outright(rules, scores[b, side], scope[side, b]):
        stopped[b] = side
    if play + 1 < rules.plays:
        deal_hands(packs, play + 1, rules.hand_at, rules.hand_size, hands, b)
    return scopa


@njit(cache=True, nogil=True)
def _play_rows(
    rows, choice, card, capture, side, play, packs, hands, table, captured, scope, last, played,
    stopped, scores, rules,
):  # fmt: skip
    out = np.zeros(len(rows), np.bool_)
    for k in range(len(rows)):
        b, j = rows[k], choice[k]
        out[k] = play_row(
            b, card[k, j], capture[k, j], play, side[k], packs, hands, table, captured, scope,
            last, played, stopped, scores, rules,
        )  # fmt: skip
    return out


def play_rows(rules: DealRules, rows, choice, legal, side, play: int, packs, state, scores):
    """:func:`play_row` for each of ``rows`` (the rows that play ``play``), in place: row
    ``rows[k]`` plays its legal action ``choice[k]`` (``legal``: the ``card`` and ``capture``
    arrays, indexed like ``rows``) on side ``side[k]``. ``state`` is ``(hands, table, captured,
    scope, last, played, stopped_by)``. Returns which of them scored a scopa."""
    card, capture = legal
    return _play_rows(rows, choice, card, capture, side, play, packs, *state, scores, rules)


# §4, §6: the end of a deal ---------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def end_deal(b, captured, last, table, stopped, full):
    """End row ``b``'s deal in place: the last capturer (side ``last``, -1: nobody) takes what
    is left on the table (§4); a deal stopped by a winning scopa (``stopped``) leaves every card
    not captured, the table, the hands and the cards not dealt yet, to nobody (§6). Returns the
    cards that went to nobody."""
    if stopped:
        rest = full
        for s in range(captured.shape[0]):
            rest &= ~captured[s, b]
        return rest
    if last >= 0:
        captured[last, b] |= table
        return np.uint64(0)
    return table


@njit(cache=True, nogil=True)
def _end_deals(captured, last, table, stopped_by, full, leftovers):
    for b in range(len(table)):
        leftovers[b] = end_deal(b, captured, last[b], table[b], stopped_by[b] >= 0, full)


def end_deals(rules: DealRules, captured, last, table, stopped_by) -> np.ndarray:
    """:func:`end_deal` for every row, in place; the cards that went to nobody (``uint64[B]``)."""
    leftovers = np.empty(len(table), np.uint64)
    _end_deals(captured, last, table, stopped_by, rules.full, leftovers)
    return leftovers


# §6: a game won outright -----------------------------------------------------------------------


def outright_winners(variant: Variant, captured: np.ndarray, stopped_by: np.ndarray) -> np.ndarray:
    """Per deal, the side that won the game outright in it (§6), ``int8[B]``: the side whose
    scopa stopped the deal (``stopped_by``), else under ``napoleone`` the side that captured
    every card of the scoring suit (``captured``: ``uint64[B, S]``); -1 when none did."""
    winner = np.asarray(stopped_by, np.int8).copy()
    if variant.napoleone:
        coins = np.uint64(variant.pack.suit_mask(0))
        has_all = (captured & coins) == coins
        holder = np.where(has_all.any(axis=1), has_all.argmax(axis=1), -1)
        winner = np.where(winner >= 0, winner, holder).astype(np.int8)
    return winner
