"""Compiled kernels for the hot path: legal actions of a whole batch in one call.

Why compiled: the legal captures of a card are the sets of table cards summing to its rank, a
search whose size differs from row to row. A pure-numpy version over precomputed rank-partition
tables (``engine/tables.py``) is correct too but measured 3 times slower in isolation and 2 times
slower in the engine (docs/design.md); numba runs the search per row at native speed.

Card sets are ``uint64`` bitmasks (bit = card id, RULES.md §1); a rank's four cards are one mask,
so equal-rank captures are one AND. Table cards are visited in (rank, suit) order, so sum
captures come out in a fixed order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numba import njit

from scopa_sim.rules import Capture, Variant

_MAX_TABLE = 64


@njit(cache=True, nogil=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


_DEBRUIJN = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22,
     45, 39, 33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
     46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6],
    np.int64,
)  # fmt: skip


@njit(cache=True, nogil=True)
def lowest_card(x):
    """Id of the lowest set bit of a non-zero mask (de Bruijn multiplication)."""
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN[(low * np.uint64(0x03F79D71B4CB0A89)) >> np.uint64(58)]


#: Capture rules as the kernels know them (``scopa_sim.rules.Capture``).
MATCH_OR_SUM, FIFTEEN, ACE_TAKES_ALL = 0, 1, 2


_RULE_CODES = {
    Capture.MATCH_OR_SUM: MATCH_OR_SUM,
    Capture.FIFTEEN: FIFTEEN,
    Capture.ACE_TAKES_ALL: ACE_TAKES_ALL,
}


@dataclass(frozen=True)
class KernelRules:
    """The variant as the compiled kernels take it: plain numbers and masks."""

    ranks: int
    rule: int
    fewest: bool
    forced: bool
    ace_mask: np.uint64
    ace_no_scopa: bool

    @staticmethod
    def of(variant: Variant) -> KernelRules:
        return KernelRules(
            ranks=variant.pack.ranks,
            rule=_RULE_CODES[variant.capture],
            fewest=variant.fewest_cards,
            forced=variant.forced_capture,
            ace_mask=np.uint64(variant.pack.rank_mask(1)),
            ace_no_scopa=variant.capture is Capture.ACE_TAKES_ALL and not variant.ace_sweep_scopa,
        )


@njit(cache=True, nogil=True, inline="always")
def _sum_captures(
    c, table, target, upper, min_depth, rank_mask, fewest, out_card, out_capture, out_group, b,
    cap, n, group, t_card, t_rank, idx,
):  # fmt: skip
    """Append card ``c``'s captures of table sets summing to ``target`` (sets of more than
    ``min_depth`` cards, of ranks up to ``upper``) from slot ``n``; return the new count."""
    one = np.uint64(1)
    first = n
    # The table cards that can be part of the sum, by (rank, suit).
    n_table = 0
    for r in range(1, upper + 1):
        cards = table & rank_mask[r]
        while cards:
            t_card[n_table] = lowest_card(cards)
            t_rank[n_table] = r
            n_table += 1
            cards &= cards - one
    # Depth-first over the sorted table, pruning as soon as the next (larger) rank overshoots.
    depth = 0
    idx[0] = 0
    total = 0
    mask = np.uint64(0)
    fewest_size = 1 << 30
    while True:
        i = idx[depth]
        if i < n_table and total + t_rank[i] <= target:
            if total + t_rank[i] == target:
                if depth >= min_depth:
                    if n < cap:
                        out_card[b, n] = c
                        out_capture[b, n] = mask | (one << np.uint64(t_card[i]))
                        out_group[b, n] = group
                    n += 1
                    if depth + 1 < fewest_size:
                        fewest_size = depth + 1
                idx[depth] = i + 1
            else:
                total += t_rank[i]
                mask |= one << np.uint64(t_card[i])
                depth += 1
                idx[depth] = i + 1
        else:
            if depth == 0:
                break
            depth -= 1
            j = idx[depth]
            total -= t_rank[j]
            mask ^= one << np.uint64(t_card[j])
            idx[depth] = j + 1
    if fewest and n > first and n <= cap:
        kept = first
        for k in range(first, n):
            if _popcount(out_capture[b, k]) == fewest_size:
                out_card[b, kept] = out_card[b, k]
                out_capture[b, kept] = out_capture[b, k]
                kept += 1
        for k in range(kept, n):
            out_card[b, k] = -1
            out_capture[b, k] = np.uint64(0)
            out_group[b, k] = -1
        n = kept
    return n


@njit(cache=True, nogil=True, inline="always")
def _row_actions(
    hand, table, ranks, rank_mask, rule, fewest, forced, out_card, out_capture, out_group, b,
    cap, t_card, t_rank, idx,
):  # fmt: skip
    """Legal actions of one decision point, written from slot 0; returns how many there are.

    Writes at most ``cap`` actions but always counts them all, so the caller can retry with
    room for the largest row. ``out_group`` numbers the playable cards of the row 0, 1, ...
    """
    one = np.uint64(1)
    n = 0
    group = 0
    any_capture = False
    rest_hand = hand
    while rest_hand:
        c = lowest_card(rest_hand)
        rest_hand &= rest_hand - one
        v = c % ranks + 1
        first = n
        if rule == FIFTEEN:
            # Escoba: any set of one or more table cards making 15 with the played card.
            target = 15 - v
            n = _sum_captures(
                c, table, target, min(target, ranks), 0, rank_mask, fewest, out_card,
                out_capture, out_group, b, cap, n, group, t_card, t_rank, idx,
            )  # fmt: skip
        else:
            match = table & rank_mask[v]
            if match:
                # Equal rank takes precedence: one action per table card of that rank.
                while match:
                    t = lowest_card(match)
                    match &= match - one
                    if n < cap:
                        out_card[b, n] = c
                        out_capture[b, n] = one << np.uint64(t)
                        out_group[b, n] = group
                    n += 1
            elif rule == ACE_TAKES_ALL and v == 1:
                # Asso piglia tutto: with no ace on the table, an ace takes all of it.
                if table:
                    if n < cap:
                        out_card[b, n] = c
                        out_capture[b, n] = table
                        out_group[b, n] = group
                    n += 1
            else:
                # Every set of two or more table cards summing to v (all of rank below v).
                n = _sum_captures(
                    c, table, v, v - 1, 1, rank_mask, fewest, out_card, out_capture, out_group,
                    b, cap, n, group, t_card, t_rank, idx,
                )  # fmt: skip
        if n > first:
            any_capture = True
        else:
            if n < cap:
                out_card[b, n] = c
                out_capture[b, n] = np.uint64(0)
                out_group[b, n] = group
            n += 1
        group += 1
    if forced and any_capture and n <= cap:
        kept = 0
        group = -1
        for k in range(n):
            if out_capture[b, k] != 0:
                if kept == 0 or out_card[b, k] != out_card[b, kept - 1]:
                    group += 1
                out_card[b, kept] = out_card[b, k]
                out_capture[b, kept] = out_capture[b, k]
                out_group[b, kept] = group
                kept += 1
        for k in range(kept, n):
            out_card[b, k] = -1
            out_capture[b, k] = np.uint64(0)
            out_group[b, k] = -1
        n = kept
    return n


@njit(cache=True, nogil=True)
def legal_actions_into(
    hands, tables, rows, rank_mask, rule, fewest, forced, out_card, out_capture, out_group,
    counts, n_cards,
):  # fmt: skip
    """Fill row ``b``'s legal actions into ``out_*[b]`` for each b in ``rows``, padded up to the
    largest count (or the width); set ``counts[b]`` and ``n_cards[b]``. Returns the largest
    count."""
    cap = out_card.shape[1]
    ranks = len(rank_mask) - 1
    t_card = np.empty(_MAX_TABLE + 1, np.int64)
    t_rank = np.empty(_MAX_TABLE + 1, np.int64)
    idx = np.empty(_MAX_TABLE + 1, np.int64)
    top = 0
    for k in range(len(rows)):
        b = rows[k]
        n = _row_actions(
            hands[b], tables[b], ranks, rank_mask, rule, fewest, forced, out_card, out_capture,
            out_group, b, cap, t_card, t_rank, idx,
        )  # fmt: skip
        counts[b] = n
        top = max(top, n)
        if n <= cap:
            n_cards[b] = out_group[b, n - 1] + 1 if n > 0 else 0
    # Pad only as far as the caller will look: the widest row, or all of a row that overflowed.
    width = min(top, cap)
    for k in range(len(rows)):
        b = rows[k]
        for j in range(counts[b], width):
            out_card[b, j] = -1
            out_capture[b, j] = 0
            out_group[b, j] = -1
    return top


@functools.cache
def _rank_masks(ranks: int) -> np.ndarray:
    """``[r]``: the bitmask of the four cards of rank ``r`` (index 0 unused)."""
    masks = np.zeros(ranks + 1, np.uint64)
    for r in range(1, ranks + 1):
        masks[r] = sum(1 << (ranks * s + r - 1) for s in range(4))
    return masks


def legal_actions(
    hands, tables, ranks: int, fewest: bool, forced: bool, width: int = 16, rule: int = MATCH_OR_SUM
):
    """Padded legal actions of a batch: ``(card int8[B, A], capture uint64[B, A],
    group int8[B, A], count[B], n_cards[B])``.

    ``A`` is the largest count in the batch; slots past a row's count are padding (card -1,
    capture 0, group -1). Rows that overflow ``width`` are recomputed with room for all their
    actions (the ``fewest`` and ``forced`` filters need every action of a row in place).
    """
    n = len(hands)
    card = np.empty((n, width), np.int8)
    capture = np.empty((n, width), np.uint64)
    group = np.empty((n, width), np.int8)
    counts = np.empty(n, np.int64)
    n_cards = np.empty(n, np.int64)
    rows = np.arange(n)
    rank_mask = _rank_masks(ranks)
    top = legal_actions_into(
        hands, tables, rows, rank_mask, rule, fewest, forced, card, capture, group, counts,
        n_cards,
    )  # fmt: skip
    if top > width:
        over = np.flatnonzero(counts > width)
        wide = [np.empty((n, top), a.dtype) for a in (card, capture, group)]
        for new, old, pad in zip(wide, (card, capture, group), (-1, 0, -1), strict=True):
            new[:, :width] = old
            new[:, width:] = pad
        card, capture, group = wide
        legal_actions_into(
            hands, tables, over, rank_mask, rule, fewest, forced, card, capture, group, counts,
            n_cards,
        )  # fmt: skip
        top = int(counts.max())
    top = max(top, 1)
    return card[:, :top], capture[:, :top], group[:, :top], counts, n_cards


@njit(cache=True, nogil=True, inline="always")
def apply_row(
    b, played_card, taken, s, hand, table, captured, scope, last, played, scopa_ok, ace_mask,
    ace_no_scopa,
):  # fmt: skip
    """Play one action in row ``b`` of the state; return whether it scored a scopa.

    ``scopa_ok`` is False on the deal's last play unless that sweep counts; ``ace_no_scopa``
    (asso piglia tutto without ``ace_sweep_scopa``) makes an ace's sweep of non-aces no scopa.
    """
    one = np.uint64(1)
    bit = one << np.uint64(played_card)
    hand[b] &= ~bit
    played[b] |= bit
    if taken:
        table[b] &= ~taken
        captured[s, b] |= taken | bit
        last[b] = s
        if table[b] == 0 and scopa_ok:
            if ace_no_scopa and (bit & ace_mask) != 0 and (taken & ace_mask) == 0:
                return False
            scope[s, b] += 1
            return True
    else:
        table[b] |= bit
    return False


@njit(cache=True, nogil=True)
def apply_actions(
    rows, choice, card, capture, side, hand, table, captured, scope, last, played, scopa_ok,
    ace_mask, ace_no_scopa,
):  # fmt: skip
    """Play each row's chosen action in place; return which rows swept the table for a scopa.

    ``choice``, ``card``, ``capture`` and ``side`` are indexed like ``rows`` (the rows that
    play); ``hand``, ``table``, ``played`` and ``last`` are per state row, ``captured`` and
    ``scope`` ``[side, state row]``.
    """
    scopa = np.zeros(len(rows), np.bool_)
    for k in range(len(rows)):
        j = choice[k]
        scopa[k] = apply_row(
            rows[k], card[k, j], capture[k, j], side[k], hand, table, captured, scope, last,
            played, scopa_ok, ace_mask, ace_no_scopa,
        )  # fmt: skip
    return scopa
