"""Compiled kernels for the hot path: legal actions of a whole batch in one call.

Why compiled: the legal captures of a card are the sets of table cards summing to its rank, a
search whose size differs from row to row. A pure-numpy version over precomputed rank-partition
tables (``tests/support/numpy_legal_actions.py``) is correct too but slower, in isolation and in
the engine; numba runs the search per row at native speed.

Card sets are ``uint64`` bitmasks (bit = card id, docs/rules.md §1); a rank's four cards are
one mask, so equal-rank captures are one AND. Table cards are visited in (rank, suit) order, so sum
captures come out in a fixed order.
"""

from __future__ import annotations

import functools

import numpy as np

from scopa_sim.contract import Rules
from scopa_sim.jit import ctpop as _ctpop
from scopa_sim.jit import cttz as _cttz
from scopa_sim.jit import njit
from scopa_sim.rules import Variant


@njit(cache=True, nogil=True)
def popcount(x):
    """Number of cards in a mask."""
    return _ctpop(x)


@njit(cache=True, nogil=True)
def lowest_card(x):
    """Id of the lowest set bit of a non-zero mask."""
    return _cttz(x)


@njit(cache=True, nogil=True, inline="always")
def card_rank(c, ranks):
    """Rank (capture value) of card id ``c``: ``c % ranks + 1``. The two packs' rank counts are
    tested first so that the compiler divides by a constant (a multiply and a shift) instead of
    dividing by a variable, which cost a fifth of the greedy player's time."""
    if ranks == 10:
        return c % 10 + 1
    if ranks == 13:
        return c % 13 + 1
    return c % ranks + 1


#: The capture rule as the kernels know it (``KernelRules.rule``): one int of bits, the kinds
#: of capture a variant combines (``scopa_sim.rules.Variant``'s capture fields). MATCH_PRIORITY
#: is set only with both MATCH and SUM (it plays no part otherwise); SORTED lists each card's
#: captures in cirulla.md C8's canonical order (``Variant.canonical_capture_order``); the total
#: (0: none) sits from bit TOTAL_SHIFT up.
MATCH, SUM, ACE_SWEEPS, MATCH_PRIORITY, SORTED = 1, 2, 4, 8, 16
TOTAL_SHIFT = 8

#: Today's three ways of capturing as such codes, which the kernels play by their own fast paths.
MATCH_OR_SUM = MATCH | SUM | MATCH_PRIORITY
FIFTEEN = 15 << TOTAL_SHIFT
ACE_TAKES_ALL = MATCH_OR_SUM | ACE_SWEEPS


def capture_code(variant: Variant) -> int:
    """``variant``'s capture kinds as the bits of ``KernelRules.rule``."""
    code = (
        MATCH * variant.match
        | SUM * variant.sum
        | ACE_SWEEPS * variant.ace_sweeps
        | MATCH_PRIORITY * (variant.match and variant.sum and variant.match_priority)
        | SORTED * variant.canonical_capture_order
    )
    return code | variant.total << TOTAL_SHIFT


class KernelRules(Rules):
    """The variant as the compiled kernels and the fused row policies take it
    (``contract.Rules``): plain numbers and masks, and the lookup tables of :func:`row_tables`."""

    __slots__ = ()

    @staticmethod
    def of(variant: Variant) -> KernelRules:
        rank_mask, rank_of, spread = row_tables(variant.pack.ranks)
        return KernelRules(
            ranks=variant.pack.ranks,
            rule=capture_code(variant),
            fewest=variant.fewest_cards,
            forced=variant.forced_capture,
            ace_mask=np.uint64(variant.pack.rank_mask(1)),
            ace_no_scopa=variant.ace_sweeps and not variant.ace_sweep_scopa,
            rank_mask=rank_mask,
            rank_of=rank_of,
            spread=spread,
            n_pack_cards=variant.pack.n_cards,
        )


#: Deepest sum capture: the search keeps an entry per card of a set still short of its target,
#: and cards falling short of 40 (``rules.keys.MAX_TOTAL``, the largest target) are at most 15
#: (four aces, twos and threes, three fours).
_MAX_DEPTH = 16


@njit(cache=True, nogil=True, inline="always")
def rank_major(cards, ranks, spread):
    """``cards`` with card ``(rank r, suit s)`` moved to bit ``4 * (r - 1) + s``, so that the
    lowest bits come in (rank, suit) order; ``spread`` is :func:`_spreads` of the pack."""
    low = (np.uint64(1) << np.uint64(ranks)) - np.uint64(1)
    r = np.uint64(ranks)
    return (
        spread[cards & low]
        | (spread[(cards >> r) & low] << np.uint64(1))
        | (spread[(cards >> (r + r)) & low] << np.uint64(2))
        | (spread[(cards >> (r + r + r)) & low] << np.uint64(3))
    )


@njit(cache=True, nogil=True, inline="always")
def rank_major_bit(c, ranks):
    """Card ``c`` (rank ``r``, suit ``s``) as its :func:`rank_major` bit, ``4 * (r - 1) + s``,
    dividing by a constant for the two packs (see :func:`card_rank`)."""
    if ranks == 10:
        return np.uint64(1) << np.uint64(4 * (c % 10) + c // 10)
    if ranks == 13:
        return np.uint64(1) << np.uint64(4 * (c % 13) + c // 13)
    return np.uint64(1) << np.uint64(4 * (c % ranks) + c // ranks)


@njit(cache=True, nogil=True, inline="always")
def _clear_slots(out_card, out_capture, out_group, b, start, end):
    """Slots ``start .. end - 1`` of row ``b`` back to padding (card -1, capture 0, group -1),
    after a filter has kept fewer actions than it found."""
    for k in range(start, end):
        out_card[b, k] = -1
        out_capture[b, k] = np.uint64(0)
        out_group[b, k] = -1


@njit(cache=True, nogil=True, inline="always")
def _sum_captures(
    c, cands, target, ranks, fewest, out_card, out_capture, out_group, b, cap, n, group,
    st_rem, st_left, st_set,
):  # fmt: skip
    """Append card ``c``'s captures of the sets of ``cands`` (table cards in rank-major bits,
    :func:`rank_major`) summing to ``target`` from slot ``n``; return the new count.

    Depth-first in (rank, suit) order: each card is taken (then only later cards that still fit
    are tried with it) or passed over, so sets come out in lexicographic order of their cards.
    ``st_*`` are scratch stacks of ``_MAX_DEPTH`` entries.
    """
    one = np.uint64(1)
    first = n
    fewest_size = 1 << 30
    depth = 0
    st_rem[0] = cands
    st_left[0] = target
    st_set[0] = np.uint64(0)
    while depth >= 0:
        cards = st_rem[depth]
        if cards == 0:
            depth -= 1
            continue
        i = lowest_card(cards)
        r = (i >> 2) + 1
        left = st_left[depth]
        if r > left:  # every later card is of a higher rank
            depth -= 1
            continue
        rest = cards & (cards - one)
        st_rem[depth] = rest
        bit = one << np.uint64((i & 3) * ranks + r - 1)
        if r == left:
            if n < cap:
                out_card[b, n] = c
                out_capture[b, n] = st_set[depth] | bit
                out_group[b, n] = group
            n += 1
            if depth + 1 < fewest_size:
                fewest_size = depth + 1
        else:
            # Cards of rank up to left - r (no rank is above the pack's: the shift stays < 64).
            fits = (one << np.uint64(4 * min(left - r, ranks))) - one
            st_rem[depth + 1] = rest & fits
            st_left[depth + 1] = left - r
            st_set[depth + 1] = st_set[depth] | bit
            depth += 1
    if fewest and n > first and n <= cap:
        kept = first
        for k in range(first, n):
            if popcount(out_capture[b, k]) == fewest_size:
                out_card[b, kept] = out_card[b, k]
                out_capture[b, kept] = out_capture[b, k]
                kept += 1
        _clear_slots(out_card, out_capture, out_group, b, kept, n)
        n = kept
    return n


@njit(cache=True, nogil=True, _nrt=False)
def _many_sum_captures(
    c, cands, target, ranks, fewest, out_card, out_capture, out_group, b, cap, n, group,
    st_rem, st_left, st_set,
):  # fmt: skip
    """:func:`_sum_captures` compiled once apart from the kernels, for the search over four or
    more candidate cards (rare: most decision points have fewer), so that a kernel inlines the
    search only once, where a total (escoba's 15) makes it the common path."""
    return _sum_captures(
        c, cands, target, ranks, fewest, out_card, out_capture, out_group, b, cap, n, group,
        st_rem, st_left, st_set,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _put(c, taken, group, out_card, out_capture, out_group, b, cap, n):
    """Append the capture of ``taken`` by card ``c`` at slot ``n`` (if it fits); the new count."""
    if n < cap:
        out_card[b, n] = c
        out_capture[b, n] = taken
        out_group[b, n] = group
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def _precedes(a, b):
    """Whether capture ``a`` comes before ``b`` in cirulla.md C8's order (their sorted tuples of
    ids, a prefix first): at their lowest differing card i, the set holding i comes first unless
    the other set has no card above i (it is then a prefix)."""
    diff = a ^ b
    low = diff & (~diff + np.uint64(1))
    above = ~((low << np.uint64(1)) - np.uint64(1))
    if a & low:
        return (b & above) != 0
    return (a & above) == 0


@njit(cache=True, nogil=True, inline="always")
def _sort_captures(out_card, out_capture, out_group, b, first, n):
    """Slots ``first .. n - 1`` (one card's captures) in C8's order, each set once (a set may
    be a capture of two kinds); returns the new count. An insertion sort: a card has few."""
    for k in range(first + 1, n):
        taken = out_capture[b, k]
        j = k
        while j > first and _precedes(taken, out_capture[b, j - 1]):
            out_capture[b, j] = out_capture[b, j - 1]
            j -= 1
        out_capture[b, j] = taken
    kept = first + 1
    for k in range(first + 1, n):
        if out_capture[b, k] != out_capture[b, kept - 1]:
            out_capture[b, kept] = out_capture[b, k]
            kept += 1
    _clear_slots(out_card, out_capture, out_group, b, kept, n)
    return kept


@njit(cache=True, nogil=True)
def _combined_captures(
    c, v, table, table_rm, ranks, rank_mask, rule, fewest, out_card, out_capture, out_group,
    b, cap, n, group, st_rem, st_left, st_set,
):  # fmt: skip
    """:func:`card_captures` for any combination of capture kinds (``rule``'s bits): an ace's
    sweep of a table without an ace is its only capture (cirulla.md C3.2); otherwise the
    matches, the sums (none past a match under MATCH_PRIORITY) and the sets making the total with
    the card, ``fewest`` among the sums and among the totals apart; in C8's order if SORTED."""
    one = np.uint64(1)
    if (rule & ACE_SWEEPS) and v == 1 and (table & rank_mask[1]) == 0:
        if table:
            n = _put(c, table, group, out_card, out_capture, out_group, b, cap, n)
        return n
    first = n
    match = table & rank_mask[v]
    if rule & MATCH:
        rest = match
        while rest:
            taken = one << np.uint64(lowest_card(rest))
            n = _put(c, taken, group, out_card, out_capture, out_group, b, cap, n)
            rest &= rest - one
    if (rule & SUM) and not ((rule & MATCH_PRIORITY) and match):
        cands = table_rm & ((one << np.uint64(4 * (v - 1))) - one)  # ranks below v
        n = _sum_captures(
            c, cands, v, ranks, fewest, out_card, out_capture, out_group, b, cap, n, group,
            st_rem, st_left, st_set,
        )  # fmt: skip
    target = (rule >> TOTAL_SHIFT) - v  # below 1 without a total
    if target >= 1:
        fits = (one << np.uint64(4 * min(target, ranks))) - one
        n = _sum_captures(
            c, table_rm & fits, target, ranks, fewest, out_card, out_capture, out_group, b, cap,
            n, group, st_rem, st_left, st_set,
        )  # fmt: skip
    if (rule & SORTED) and first + 1 < n <= cap:
        n = _sort_captures(out_card, out_capture, out_group, b, first, n)
    return n


@njit(cache=True, nogil=True, inline="always")
def card_captures(
    c, v, table, table_rm, ranks, rank_mask, rule, fewest, out_card, out_capture, out_group,
    b, cap, n, group, st_rem, st_left, st_set,
):  # fmt: skip
    """Append the captures card ``c`` (of rank ``v``) can make from ``table`` (``table_rm``:
    the same cards by :func:`rank_major`) from slot ``n``, all in group ``group``; return the
    new count (unchanged when the card captures nothing). ``fewest`` applies; ``forced`` is a
    matter of the whole row (:func:`row_actions`)."""
    one = np.uint64(1)
    if rule & SORTED:
        return _combined_captures(
            c, v, table, table_rm, ranks, rank_mask, rule, fewest, out_card, out_capture,
            out_group, b, cap, n, group, st_rem, st_left, st_set,
        )  # fmt: skip
    if rule >> TOTAL_SHIFT:
        # A total alone (escoba's 15): any set of one or more table cards making it with the
        # played card, in the search's order.
        target = (rule >> TOTAL_SHIFT) - v
        if target < 1:
            return n
        fits = (one << np.uint64(4 * min(target, ranks))) - one
        return _sum_captures(
            c, table_rm & fits, target, ranks, fewest, out_card, out_capture, out_group, b, cap,
            n, group, st_rem, st_left, st_set,
        )  # fmt: skip
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
        return n
    if (rule & ACE_SWEEPS) and v == 1:
        # Asso piglia tutto: with no ace on the table, an ace takes all of it.
        if table:
            if n < cap:
                out_card[b, n] = c
                out_capture[b, n] = table
                out_group[b, n] = group
            n += 1
        return n
    # Every set of two or more table cards summing to v (all of rank below v); none when fewer
    # than two table cards are of a rank below v, the commonest case, which skips the search.
    cands = table_rm & ((one << np.uint64(4 * (v - 1))) - one)
    if (cands & (cands - one)) == 0:
        return n
    rest = cands & (cands - one)
    i, k = lowest_card(cands), lowest_card(rest)
    ri, rk = (i >> 2) + 1, (k >> 2) + 1  # ranks, in rank order: ri <= rk
    bi = one << np.uint64((i & 3) * ranks + ri - 1)
    bk = one << np.uint64((k & 3) * ranks + rk - 1)
    last = rest & (rest - one)
    if last == 0:
        # Two such cards, the next commonest case: they are the capture if they make v.
        if ri + rk == v:
            n = _put(c, bi | bk, group, out_card, out_capture, out_group, b, cap, n)
        return n
    if (last & (last - one)) == 0:
        # Three (i, k, m in rank order): the search's sets in its order, i k, i k m, i m,
        # k m. The three make v only if no two do, so `fewest` removes nothing here.
        m = lowest_card(last)
        rm = (m >> 2) + 1
        bm = one << np.uint64((m & 3) * ranks + rm - 1)
        if ri + rk == v:
            n = _put(c, bi | bk, group, out_card, out_capture, out_group, b, cap, n)
        elif ri + rk + rm == v:
            return _put(c, bi | bk | bm, group, out_card, out_capture, out_group, b, cap, n)
        if ri + rm == v:
            n = _put(c, bi | bm, group, out_card, out_capture, out_group, b, cap, n)
        if rk + rm == v:
            n = _put(c, bk | bm, group, out_card, out_capture, out_group, b, cap, n)
        return n
    return _many_sum_captures(
        c, cands, v, ranks, fewest, out_card, out_capture, out_group, b, cap, n, group, st_rem,
        st_left, st_set,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def row_actions(
    hand, table, ranks, rank_mask, rank_of, spread, rule, fewest, forced, out_card,
    out_capture, out_group, b, cap, st_rem, st_left, st_set,
):  # fmt: skip
    """Legal actions of one decision point, written from slot 0; returns how many there are.

    Writes at most ``cap`` actions but always counts them all, so the caller can retry with
    room for the largest row. ``out_group`` numbers the playable cards of the row 0, 1, ...
    in card id order. ``rank_of[c]`` is card ``c``'s rank, ``spread`` :func:`_spreads`.
    """
    return row_actions_rm(
        hand, table, rank_major(table, ranks, spread), ranks, rank_mask, rank_of, rule, fewest,
        forced, out_card, out_capture, out_group, b, cap, st_rem, st_left, st_set,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def row_actions_rm(
    hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, out_card,
    out_capture, out_group, b, cap, st_rem, st_left, st_set,
):  # fmt: skip
    """:func:`row_actions` for a caller that keeps the table's :func:`rank_major` form
    ``table_rm`` up to date itself (the fused engine, one card at a time)."""
    one = np.uint64(1)
    n = 0
    group = 0
    any_capture = False
    rest_hand = hand
    while rest_hand:
        c = lowest_card(rest_hand)
        rest_hand &= rest_hand - one
        first = n
        n = card_captures(
            c, rank_of[c], table, table_rm, ranks, rank_mask, rule, fewest, out_card,
            out_capture, out_group, b, cap, n, group, st_rem, st_left, st_set,
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
        _clear_slots(out_card, out_capture, out_group, b, kept, n)
        n = kept
    return n


@njit(cache=True, nogil=True, _nrt=False)
def legal_actions_into(
    hands, tables, rows, rank_mask, rank_of, spread, rule, fewest, forced, out_card,
    out_capture, out_group, counts, n_cards, st_rem, st_left, st_set,
):  # fmt: skip
    """Fill row ``b``'s legal actions into ``out_*[b]`` for each b in ``rows``, padded up to the
    largest count (or the width); set ``counts[b]`` and ``n_cards[b]``. Returns the largest
    count. ``st_*`` are scratch stacks of ``_MAX_DEPTH`` entries.

    Compiled without numba's reference counting (``_nrt=False``; it allocates nothing): the
    counting of the arrays handed to the inlined row functions cost more than the search.
    """
    cap = out_card.shape[1]
    ranks = len(rank_mask) - 1
    top = 0
    for k in range(len(rows)):
        b = rows[k]
        n = row_actions(
            hands[b], tables[b], ranks, rank_mask, rank_of, spread, rule, fewest, forced,
            out_card, out_capture, out_group, b, cap, st_rem, st_left, st_set,
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


@functools.cache
def _ranks_of(ranks: int) -> np.ndarray:
    """``[c]``: the rank of card id ``c`` (``c % ranks + 1``; 64 entries)."""
    return (np.arange(64) % ranks + 1).astype(np.int64)


@functools.cache
def _spreads(ranks: int) -> np.ndarray:
    """``[pattern]``: one suit's ``ranks``-bit pattern of ranks with rank ``r`` moved to bit
    ``4 * (r - 1)`` (see :func:`rank_major`)."""
    pattern = np.arange(1 << ranks, dtype=np.uint64)
    out = np.zeros(1 << ranks, np.uint64)
    for r in range(ranks):
        out |= ((pattern >> np.uint64(r)) & np.uint64(1)) << np.uint64(4 * r)
    return out


def stack_scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch stacks of the sum search (``st_rem``, ``st_left``, ``st_set``) for one caller."""
    return (
        np.empty(_MAX_DEPTH, np.uint64),
        np.empty(_MAX_DEPTH, np.int64),
        np.empty(_MAX_DEPTH, np.uint64),
    )


def row_tables(ranks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lookup tables :func:`row_actions` takes: ``rank_mask``, ``rank_of``, ``spread``."""
    return _rank_masks(ranks), _ranks_of(ranks), _spreads(ranks)


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
    rank_mask, rank_of, spread = row_tables(ranks)
    stacks = stack_scratch()
    top = legal_actions_into(
        hands, tables, rows, rank_mask, rank_of, spread, rule, fewest, forced, card, capture,
        group, counts, n_cards, *stacks,
    )  # fmt: skip
    if top > width:
        over = np.flatnonzero(counts > width)
        wide = [np.empty((n, top), a.dtype) for a in (card, capture, group)]
        for new, old, pad in zip(wide, (card, capture, group), (-1, 0, -1), strict=True):
            new[:, :width] = old
            new[:, width:] = pad
        card, capture, group = wide
        legal_actions_into(
            hands, tables, over, rank_mask, rank_of, spread, rule, fewest, forced, card,
            capture, group, counts, n_cards, *stacks,
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
    bit = np.uint64(1) << np.uint64(played_card)
    hand[b] &= ~bit
    played[b] |= bit
    table[b], scopa = apply_move(bit, taken, table[b], scopa_ok, ace_mask, ace_no_scopa)
    if taken:
        captured[s, b] |= taken | bit
        last[b] = s
        scope[s, b] += scopa
    return scopa


@njit(cache=True, nogil=True, inline="always")
def apply_move(bit, taken, table, scopa_ok, ace_mask, ace_no_scopa):
    """The table after the card ``bit`` captures ``taken`` (0: it is laid), and whether that
    is a scopa: the capture empties the table where ``scopa_ok``, unless ``ace_no_scopa`` and an
    ace sweeps no ace. The rule :func:`apply_row` and the fused engine share."""
    if not taken:
        return table | bit, False
    table &= ~taken
    if table == 0 and scopa_ok:
        return table, not (ace_no_scopa and (bit & ace_mask) != 0 and (taken & ace_mask) == 0)
    return table, False


@njit(cache=True, nogil=True, inline="always")
def rank_sum(cards, ranks):
    """Sum of the ranks (capture values) of a card mask."""
    total = 0
    rest = cards
    while rest:
        total += card_rank(lowest_card(rest), ranks)
        rest &= rest - np.uint64(1)
    return total
