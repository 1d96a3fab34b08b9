"""The greedy player: the beginner's strategy of taking the most valuable capture in sight."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

from scopa_sim.cards import PRIMIERA_STANDARD
from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import list_captures
from scopa_sim.engine.kernels import (
    ACE_SWEEPS,
    MATCH,
    SUM,
    TOTAL_SHIFT,
    KernelRules,
    card_rank,
    lowest_card,
    rank_sum,
)
from scopa_sim.jit import njit
from scopa_sim.rules import Variant
from scopa_sim.seeding import DecisionRandom

_SCOPA = 1 << 40  # a scopa outranks any sum of the card weights below


class GreedyParams(NamedTuple):
    """The numbers of greedy's fused row policy (and defensive's), per card id:
    :func:`card_weights`."""

    capture_weight: np.ndarray  # int64[cards]: its weight when captured
    lay_worth: np.ndarray  # int64[cards]: its worth when laid


@cache
def card_weights(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Per card id: its weight when captured, and its worth when laid, following the scoring.

    Capture weights are packed bit fields (settebello, re bello, sevens, sixes, aces, coins,
    cards), so summing them over a capture compares captures lexicographically in that order;
    each field is wide enough never to carry into the next. Sevens count where primiera or the
    52-card game's most-sevens point does; sixes and aces only where primiera does; the re bello
    only where it scores.
    """
    pack = variant.pack
    primiera = variant.primiera is not None
    sevens_count = primiera or variant.most_sevens
    capture = np.zeros(pack.n_cards, np.int64)
    lay = np.zeros(pack.n_cards, np.int64)
    for c in range(pack.n_cards):
        rank, coin = pack.rank(c), pack.suit(c) == 0
        capture[c] = (
            ((c == variant.settebello) << 36)
            | ((variant.re_bello and c == variant.king_of_coins) << 35)
            | ((sevens_count and rank == 7) << 32)
            | ((primiera and rank == 6) << 28)
            | ((primiera and rank == 1) << 24)
            | (coin << 16)
            | (1 << 8)
        )
        worth = PRIMIERA_STANDARD[rank] if primiera and rank <= 10 else 21 * (rank == 7)
        lay[c] = (c == variant.settebello) * 1000 + worth * 10 + coin
    return capture, lay


@njit(cache=True, nogil=True, inline="always")
def open_to_sweep(total, table_after, ranks, rule, ace_mask):
    """Whether the next player could take the whole of ``table_after`` (whose ranks sum to
    ``total``) in one capture, by any kind of capture the rule enables: a card making the
    total with it (escoba: a sum of 5 to 14 makes 15), an ace when no ace lies there (asso
    piglia tutto), or a match of a lone card or a sum, up to the top rank."""
    if rule >> TOTAL_SHIFT and 1 <= (rule >> TOTAL_SHIFT) - total <= ranks:
        return True
    if (rule & ACE_SWEEPS) and (table_after & ace_mask) == 0:
        return True
    lone = (table_after & (table_after - np.uint64(1))) == 0
    by_rank = (rule & MATCH) if lone else (rule & SUM)
    return by_rank != 0 and total <= ranks


@njit(cache=True, nogil=True, inline="always")
def action_key(
    played, taken, table, table_total, ranks, rule, ace_mask, ace_no_scopa, scopa_counts,
    capture_weight, lay_worth,
):  # fmt: skip
    """Greedy's key of one action: for a capture, its weight (higher is better, a scopa above
    all); for a lay, the card's worth plus a penalty when the table is left open to a sweep
    (lower is better). ``table_total`` is the table's rank sum (``kernels.rank_sum``), the same
    for every action of a decision point."""
    one = np.uint64(1)
    # A card id, unsigned: the compiler then knows it is not negative, which spares the sign
    # fix-ups of Python's modulo and indexing (``played`` comes from an int8 array).
    played = np.uint8(played)
    if taken:
        key = capture_weight[played]
        rest = taken
        while rest:
            key += capture_weight[lowest_card(rest)]
            rest &= rest - one
        if scopa_counts and (table & ~taken) == 0:
            ace_sweep = ((one << np.uint64(played)) & ace_mask) != 0 and (taken & ace_mask) == 0
            if not (ace_no_scopa and ace_sweep):
                key += _SCOPA
        return key
    after = table | (one << np.uint64(played))
    total = table_total + card_rank(played, ranks)
    return open_to_sweep(total, after, ranks, rule, ace_mask) * 100_000 + lay_worth[played]


@njit(cache=True, nogil=True, inline="always")
def greedy_row(
    card, capture, count, table, table_total, ranks, rule, ace_mask, ace_no_scopa,
    scopa_counts, capture_weight, lay_worth, b,
):  # fmt: skip
    """Row ``b``'s greedy choice among its ``count`` legal actions (slots of ``card``/``capture``
    row ``b``): the capture of highest key, else the lay of lowest key; ties to the lowest slot.
    ``table_total`` is the table's rank sum (``kernels.rank_sum``), which the fused engine keeps
    up to date card by card rather than summing it at each decision. The lays are weighed only
    when there is no capture to take."""
    best_capture, best_capture_key = -1, -1
    for k in range(count):
        if capture[b, k]:
            key = action_key(
                card[b, k], capture[b, k], table, table_total, ranks, rule, ace_mask,
                ace_no_scopa, scopa_counts, capture_weight, lay_worth,
            )  # fmt: skip
            if key > best_capture_key:
                best_capture, best_capture_key = k, key
    if best_capture >= 0:
        return best_capture
    best_lay, best_lay_key = -1, 1 << 62
    for k in range(count):
        if not capture[b, k]:
            key = action_key(
                card[b, k], capture[b, k], table, table_total, ranks, rule, ace_mask,
                ace_no_scopa, scopa_counts, capture_weight, lay_worth,
            )  # fmt: skip
            if key < best_lay_key:
                best_lay, best_lay_key = k, key
    return best_lay


@njit(cache=True, nogil=True, inline="always")
def seen_key(played, taken, seen, rules, capture_weight, lay_worth):
    """:func:`action_key` of one action at the decision point ``seen`` (``contract.Seen``)."""
    return action_key(
        played, taken, seen.table, seen.table_total, rules.ranks, rules.rule, rules.ace_mask,
        rules.ace_no_scopa, seen.scopa_ok, capture_weight, lay_worth,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def greedy_pick(seen, rules, scratch, capture_weight, lay_worth):
    """:func:`greedy_row`'s choice as the fused engine makes it: ``(count, card, taken)``,
    listing and weighing the captures one card of the seat's hand at a time in row 0 of the
    scratch (``decisions.list_captures``, the rule code every engine uses) rather than the
    whole decision point's legal actions first; a ``count`` above the scratch's width means a
    card's captures did not fit (card and taken are then meaningless).

    The same choice: cards come in id order and each card's captures in the order the legal
    actions list them, and the first of equal keys wins, so the best capture is the one of the
    lowest slot, as in ``greedy_row``; with no capture, every card is a lay. Forced capture
    (which only strikes out the lays when there is a capture) cannot change a choice that lays
    only when there is none. Why this way: weighing each card's captures as they are listed
    spares writing the decision point's actions out and reading them back; ``act`` keeps
    :func:`greedy_row` because the lockstep engine hands it the actions already listed. The
    engines' agreement tests (tests/test_fused.py) hold the two to the same choices."""
    one = np.uint64(1)
    cap = scratch.card.shape[1]
    best_card, best_taken, best_key = -1, np.uint64(0), -1
    rest = seen.hand
    while rest:
        card = lowest_card(rest)
        rest &= rest - one
        n = list_captures(card, seen, rules, scratch)
        if n > cap:
            return n, -1, np.uint64(0)
        for k in range(n):
            taken = scratch.capture[0, k]
            key = seen_key(card, taken, seen, rules, capture_weight, lay_worth)
            if key > best_key:
                best_card, best_taken, best_key = card, taken, key
    if best_card >= 0:
        return 1, best_card, best_taken
    best_lay_key = 1 << 62
    rest = seen.hand
    while rest:
        card = lowest_card(rest)
        rest &= rest - one
        key = seen_key(card, np.uint64(0), seen, rules, capture_weight, lay_worth)
        if key < best_lay_key:
            best_card, best_lay_key = card, key
    return 1, best_card, np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def greedy_decide(params, seen, rules, scratch):
    """The fused row policy: :func:`greedy_pick` with the side's :class:`GreedyParams`."""
    return greedy_pick(
        seen, rules, scratch, params.capture_weight[seen.side], params.lay_worth[seen.side]
    )


@njit(cache=True, nogil=True)
def _greedy(
    card, capture, count, table, ranks, rule, ace_mask, ace_no_scopa, scopa_counts,
    capture_weight, lay_worth,
):  # fmt: skip
    out = np.zeros(len(count), np.int64)
    for b in range(len(count)):
        out[b] = greedy_row(
            card, capture, count[b], table[b], rank_sum(table[b], ranks), ranks, rule, ace_mask,
            ace_no_scopa, scopa_counts, capture_weight, lay_worth, b,
        )  # fmt: skip
    return out


@dataclass(frozen=True)
class GreedyPlayer(Player):
    """Captures whenever it can, taking the capture worth most: a scopa above all, then the
    settebello, sevens, sixes, aces, coins, number of cards (played card included), as far as
    the variant scores them. Otherwise it lays its least valuable card (settebello, then
    primiera value, then coins), preferring a card that does not leave the table open to a
    sweep under the variant's capture rule. Ties go to the lowest slot, so it needs no random
    numbers."""

    name = "greedy"
    summary = "takes the most valuable capture (scopa, settebello, 7s, 6s, aces, coins, cards)"
    fused_policy = FusedPolicy("greedy", greedy_decide, tracks_table_total=True)

    def policy_params(self, variant: Variant) -> GreedyParams:
        return GreedyParams(*card_weights(variant))

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        variant = obs.variant
        rules = KernelRules.of(variant)
        capture_weight, lay_worth = card_weights(variant)
        scopa_counts = not obs.last_play or variant.last_play_scopa
        return _greedy(
            legal.card, legal.capture, legal.count, obs.table, rules.ranks, rules.rule,
            rules.ace_mask, rules.ace_no_scopa, scopa_counts, capture_weight, lay_worth,
        )  # fmt: skip
