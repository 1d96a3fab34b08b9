"""Compiled kernels for the hot path: legal actions of a whole batch in one call.

Why compiled: the legal captures of a card are the sets of table cards summing to its rank, a
search whose size differs from deal to deal. numpy can only express it as loops over rank
partitions and suit combinations (hundreds of small array operations per play); numba runs the
search per row at native speed. docs/design.md records the measurements behind this choice.

Card sets are ``uint64`` bitmasks (bit = card id, RULES.md §1). Table cards are visited in
(rank, suit) order, so sum captures come out in a fixed order that both engines can compare.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MAX_TABLE = 64


@njit(cache=True, nogil=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True, nogil=True)
def _row_actions(hand, table, ranks, fewest, forced, out_card, out_capture, cap, scratch):
    """Legal actions of one decision point, written from slot 0; returns how many there are.

    Writes at most ``cap`` actions but always counts them all, so the caller can retry with
    room for the largest row.
    """
    one = np.uint64(1)
    # Table cards sorted by (rank, suit), with counts per rank.
    t_card, t_rank, rank_count, idx = scratch[0], scratch[1], scratch[2], scratch[3]
    rank_count[:] = 0
    n_table = 0
    for r in range(1, ranks + 1):
        for s in range(4):
            c = ranks * s + r - 1
            if (table >> np.uint64(c)) & one:
                t_card[n_table] = c
                t_rank[n_table] = r
                n_table += 1
                rank_count[r] += 1

    n = 0
    any_capture = False
    for c in range(4 * ranks):
        if not (hand >> np.uint64(c)) & one:
            continue
        v = c % ranks + 1
        first = n
        if rank_count[v] > 0:
            # Equal rank takes precedence: one action per table card of that rank.
            for s in range(4):
                t = ranks * s + v - 1
                if (table >> np.uint64(t)) & one:
                    if n < cap:
                        out_card[n] = c
                        out_capture[n] = one << np.uint64(t)
                    n += 1
        else:
            # Every set of two or more table cards summing to v: depth-first over the sorted
            # table, pruning as soon as the next (larger) rank overshoots.
            depth = 0
            idx[0] = 0
            total = 0
            mask = np.uint64(0)
            fewest_size = 1 << 30
            while True:
                i = idx[depth]
                if i < n_table and total + t_rank[i] <= v:
                    if total + t_rank[i] == v:
                        if depth >= 1:
                            if n < cap:
                                out_card[n] = c
                                out_capture[n] = mask | (one << np.uint64(t_card[i]))
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
                    if _popcount(out_capture[k]) == fewest_size:
                        out_card[kept] = out_card[k]
                        out_capture[kept] = out_capture[k]
                        kept += 1
                n = kept
        if n > first:
            any_capture = True
        else:
            if n < cap:
                out_card[n] = c
                out_capture[n] = np.uint64(0)
            n += 1
    if forced and any_capture and n <= cap:
        kept = 0
        for k in range(n):
            if out_capture[k] != 0:
                out_card[kept] = out_card[k]
                out_capture[kept] = out_capture[k]
                kept += 1
        n = kept
    return n


@njit(cache=True, nogil=True)
def legal_actions_into(hands, tables, ranks, fewest, forced, out_card, out_capture):
    """Fill ``out_card[b]``/``out_capture[b]`` with row b's legal actions; return the counts."""
    rows = hands.shape[0]
    cap = out_card.shape[1]
    counts = np.empty(rows, np.int64)
    scratch = np.empty((4, _MAX_TABLE + 1), np.int64)
    for b in range(rows):
        counts[b] = _row_actions(
            hands[b], tables[b], ranks, fewest, forced, out_card[b], out_capture[b], cap, scratch
        )
    return counts


def legal_actions(hands, tables, ranks: int, fewest: bool, forced: bool, width: int = 16):
    """Padded legal actions of a batch: ``(card int8[B, A], capture uint64[B, A], count[B])``.

    ``A`` is the largest count in the batch; slots past a row's count are padding (card -1,
    capture 0). The ``fewest`` and ``forced`` filters need every action of a row in place, so a
    row that overflows ``width`` is recomputed with room for all of it.
    """
    rows = len(hands)
    while True:
        card = np.full((rows, width), -1, np.int8)
        capture = np.zeros((rows, width), np.uint64)
        counts = legal_actions_into(hands, tables, ranks, fewest, forced, card, capture)
        top = int(counts.max()) if rows else 0
        if top <= width:
            return card[:, : max(top, 1)], capture[:, : max(top, 1)], counts
        width = top
