"""Batch deal scoring (docs/rules.md §5) over captured-card bitmasks, in one compiled pass.

A numba kernel scores each deal row by row over the variant's scoring table
(``rules.items.scoring_table``), one item after another: popcounts for the contested counts
(most cards, most of a suit or rank, at least N), bit tests for named cards and sets, and
2**ranks-entry lookup tables (one per suit pattern) for primiera and sequences. The kernel knows
no rule of its own: every item reaches it as a row of arrays (kind, mask, parameter, points, tie
rule, column) built from the :class:`~scopa_sim.rules.Variant`. The reference engine scores the
same deals card by card; the two must agree (tests/test_scoring.py, tests/test_scoring_items.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from scopa_sim.cards import PRIMIERA_FACE_ZERO, PRIMIERA_STANDARD
from scopa_sim.jit import ctpop, njit, no_wraparound
from scopa_sim.rules import Item, Variant, point_columns, scoring_table
from scopa_sim.rules.items import TALLIES


@dataclass(frozen=True)
class DealScores:
    """Per deal and side: the counts behind the points, and the points per item column."""

    cards: np.ndarray  # int8[B, S]
    coins: np.ndarray  # int8[B, S]
    settebello: np.ndarray  # bool[B, S]
    primiera: np.ndarray  # int16[B, S]; 0 when the side has none (most_sevens: its sevens)
    points: np.ndarray  # int16[B, S, len(point_columns(variant))]

    @property
    def totals(self) -> np.ndarray:
        return point_totals(self.points)


def point_totals(points: np.ndarray) -> np.ndarray:
    """Points per deal and side over the categories, ``int16[D, S]``, from ``points[D, S, C]``:
    ``.sum(axis=2, dtype=np.int16)`` in a third of its time."""
    return np.einsum("dsc->ds", points, dtype=np.int16, casting="unsafe")


#: Primiera values per rank (index 0 unused) of the named scales; ``most_sevens`` has a key.
_SCALES = {"standard": PRIMIERA_STANDARD, "face_zero": PRIMIERA_FACE_ZERO}


@cache
def _suit_table(ranks: int, scale: tuple[int, ...], missing: str) -> np.ndarray:
    """Best primiera value of every pattern of one suit's ranks; -1 for a void suit under
    ``missing = void``. ``scale`` is the value of each rank, index 0 unused."""
    table = np.zeros(1 << ranks, np.int16)
    for pattern in range(1, 1 << ranks):
        table[pattern] = max(scale[r + 1] for r in range(ranks) if pattern >> r & 1)
    table[0] = -1 if missing == "void" else 0
    return table


@cache
def _sequence_table(ranks: int, count: int, cap: int, extend: str) -> np.ndarray:
    """The scoring length of every pattern of one suit: 0 unless its first ``count`` ranks
    (from the ace) are held; then the unbroken run (``extend = run``) or every card held
    (``all``), at most ``cap`` (0: no cap)."""
    table = np.zeros(1 << ranks, np.int16)
    start = (1 << count) - 1
    for pattern in range(1 << ranks):
        if pattern & start != start:
            continue
        if extend == "all":
            length = pattern.bit_count()
        else:
            length = count
            while length < ranks and pattern >> length & 1:
                length += 1
        table[pattern] = min(length, cap) if cap else length
    return table


def strict_winner(values: np.ndarray) -> np.ndarray:
    """Per row, the column holding the strict maximum; -1 where the maximum is shared.

    Column by column: numpy's reductions along a short axis (2 to 4 sides) cost several times
    more than this."""
    best = values[:, 0]
    winner = np.zeros(len(values), np.int64)
    unique = np.ones(len(values), bool)
    for side in range(1, values.shape[1]):
        column = values[:, side]
        ahead = column > best
        unique = ahead | (unique & (column != best))
        winner[ahead] = side
        best = np.maximum(best, column)
    return np.where(unique, winner, -1)


#: Kernel codes of the item kinds (``_KernelRules.kinds``).
_COUNT, _AT_LEAST, _PRIMIERA_TABLE, _PRIMIERA_KEY, _HELD, _SEQUENCE, _SCOPE, _TALLY = range(8)
_NO_TALLIES = np.zeros((0, 0, len(TALLIES)), np.int16)
_NOT_STOPPED = np.zeros(0, np.bool_)
#: Below every value a contested item takes (counts, a -1 primiera, a sevens key).
_BELOW = -2


def _kind_code(item: Item) -> int:
    if item.kind == "primiera":
        return _PRIMIERA_KEY if item.scale == "most_sevens" else _PRIMIERA_TABLE
    return {"most-cards": _COUNT, "most-suit": _COUNT, "most-rank": _COUNT, "at-least": _AT_LEAST,
            "card": _HELD, "set": _HELD, "sequence": _SEQUENCE, "scope": _SCOPE}.get(
        item.kind, _TALLY)  # fmt: skip


def _item_mask(item: Item, pack) -> int:
    """The cards an item looks at: those counted, those that must be held, or its suit."""
    if item.kind in ("card", "set"):
        return sum(1 << card for card in item.cards)
    if item.kind == "most-rank":
        return pack.rank_mask(item.rank)
    if item.suit is not None:
        return pack.suit_mask(item.suit)
    return int(pack.full_mask)


def _item_param(item: Item, ranks: int) -> int:
    """An item's number: a threshold, a sequence's suit shift, the index of a tally."""
    if item.kind == "at-least":
        return item.count
    if item.kind == "sequence":
        return ranks * item.suit
    return TALLIES.index(item.kind) if item.kind in TALLIES else 0


def _item_table(item: Item, ranks: int) -> np.ndarray:
    if item.kind == "sequence":
        return _sequence_table(ranks, item.count, item.cap, item.extend)
    if item.kind == "primiera" and item.scale != "most_sevens":
        scale = _SCALES[item.scale] if isinstance(item.scale, str) else (0, *item.scale)
        return _suit_table(ranks, tuple(scale), item.missing)
    return np.zeros(1 << ranks, np.int16)


@dataclass(frozen=True)
class _KernelRules:
    """A variant's scoring table as the kernel's arguments (see :func:`_score_rows`): one entry
    per item of each array, and what the stored columns read."""

    ranks: int
    n_columns: int
    kinds: np.ndarray  # int8[I]: the kernel's code of each item's kind
    masks: np.ndarray  # uint64[I]
    params: np.ndarray  # int64[I]
    points: np.ndarray  # int16[I]: points per award, or per unit (scope, tallies, a length)
    each: np.ndarray  # bool[I]: every side tied for the most scores
    columns: np.ndarray  # int64[I]: the item's column of ``DealScores.points``
    tables: np.ndarray  # int16[I, 2**ranks]: primiera suit tables, sequence lengths
    coins_mask: np.uint64  # suit 0's cards (the stored ``coins``)
    settebello: np.uint64  # bit of the stored ``settebello``
    primiera_item: int  # the item of the stored ``primiera``; -1 for none
    rank_masks: np.ndarray  # uint64[7]: the cards of rank 1..7 (the most_sevens key's digits)

    @classmethod
    @cache
    def of(cls, variant: Variant) -> _KernelRules:
        pack, ranks = variant.pack, variant.pack.ranks
        table = scoring_table(variant)
        columns = point_columns(variant)
        by_name = {item.name: i for i, item in enumerate(table)}
        settebello = table[by_name["settebello"]] if "settebello" in by_name else None
        primiera = by_name.get("primiera", -1)
        if primiera >= 0 and table[primiera].kind != "primiera":
            primiera = -1
        return cls(
            ranks=ranks,
            n_columns=len(columns),
            kinds=np.array([_kind_code(item) for item in table], np.int8),
            masks=np.array([_item_mask(item, pack) for item in table], np.uint64),
            params=np.array([_item_param(item, ranks) for item in table], np.int64),
            points=np.array([item.points for item in table], np.int16),
            each=np.array([item.tie == "each" for item in table], np.bool_),
            columns=np.array([columns.index(item.name) for item in table], np.int64),
            tables=np.stack([_item_table(item, ranks) for item in table]),
            coins_mask=np.uint64(pack.suit_mask(0)),
            settebello=np.uint64(
                settebello.cards[0]
                if settebello is not None and settebello.kind == "card"
                else variant.settebello
            ),
            primiera_item=primiera,
            rank_masks=np.array([pack.rank_mask(r) for r in range(1, 8)], np.uint64),
        )


@njit(cache=True, nogil=True, inline="always")
def _primiera_of(c, tables, i, ranks, low):
    """The primiera of a side holding ``c`` by item ``i``'s suit table: the best card of each
    suit, summed; -1 (none) when a suit's entry is -1 (a void suit under ``missing = void``)."""
    value = np.int64(0)
    void = False
    for suit in range(4):
        best = tables[i, (c >> np.uint64(ranks * suit)) & low]
        void |= best < 0
        value += best
    return np.int64(-1) if void else value


@njit(cache=True, nogil=True, inline="always")
def _side_value(kind, c, mask, param, rank_masks):
    """What a side holding ``c`` has of an at-least item (1 when it holds ``param`` cards of
    ``mask``, else 0) or of a most_sevens primiera (its counts of 7s, 6s ... aces, base 5)."""
    if kind == _AT_LEAST:
        return np.int64(1) if ctpop(c & mask) >= param else np.int64(0)
    value = np.int64(0)
    digit = 1
    for r in range(7):
        value += ctpop(c & rank_masks[r]) * digit
        digit *= 5
    return value


@njit(cache=True, nogil=True)
def _live(stopped, b):
    """Whether row ``b`` scores more than its scope and tallies (not a deal won by a scopa)."""
    return stopped.shape[0] == 0 or not stopped[b]


@no_wraparound
@njit(cache=True, nogil=True)
def _score_held(captured, stopped, mask, pts, col, points):
    """A named card or set: ``pts`` to each side holding every card of ``mask``."""
    rows, sides = captured.shape
    for b in range(rows):
        if _live(stopped, b):
            for s in range(sides):
                points[b, s, col] = pts if captured[b, s] & mask == mask else 0


@no_wraparound
@njit(cache=True, nogil=True)
def _score_sequence(captured, stopped, shift, low, lengths, pts, col, points):
    """A sequence: ``pts`` per unit of the length ``lengths`` gives the side's suit pattern."""
    rows, sides = captured.shape
    for b in range(rows):
        if _live(stopped, b):
            for s in range(sides):
                points[b, s, col] = pts * lengths[(captured[b, s] >> shift) & low]


@no_wraparound
@njit(cache=True, nogil=True)
def _score_contested(values, stopped, floor, each, pts, col, points):
    """A contested item, from each side's ``values[B, S]``: ``pts`` to the side with strictly
    the most, or under ``each`` to every side tied for it; nobody when the best is below
    ``floor`` (no primiera, no card counted, no threshold met)."""
    rows, sides = values.shape
    for b in range(rows):
        if not _live(stopped, b):
            continue
        best = _BELOW
        tied = 0
        for s in range(sides):
            value = values[b, s]
            tied = 1 if value > best else tied + (value == best)
            best = max(best, value)
        scores = best >= floor and (tied == 1 or each)
        for s in range(sides):
            points[b, s, col] = pts if scores and values[b, s] == best else 0


@no_wraparound
@njit(cache=True, nogil=True)
def _score_rows(
    captured, scope, stopped, tallies, ranks, kinds, masks, params, item_points, each, columns,
    tables, coins_mask, settebello_bit, primiera_item, rank_masks,
    out_cards, out_coins, out_settebello, out_primiera, points,
):  # fmt: skip
    """Score every row of ``captured`` into the ``out_*`` arrays and ``points`` (which starts
    at zero: a column without an item stays 0). ``stopped`` is ``bool[B]`` and ``tallies``
    ``int16[B, S, 3]``, each empty for none. Item by item over all rows, each kind in a loop
    of its own."""
    one = np.uint64(1)
    low = (one << np.uint64(ranks)) - one
    rows, sides = captured.shape
    values = np.empty((rows, sides), np.int64)  # a contested item's value per row and side
    for b in range(rows):
        for s in range(sides):
            c = captured[b, s]
            out_cards[b, s] = ctpop(c)
            out_coins[b, s] = ctpop(c & coins_mask)
            out_settebello[b, s] = ((c >> settebello_bit) & one) != 0
            out_primiera[b, s] = 0
    for i in range(kinds.shape[0]):
        kind, col, pts, mask = kinds[i], columns[i], item_points[i], masks[i]
        if kind == _SCOPE:
            for b in range(rows):
                for s in range(sides):
                    points[b, s, col] = scope[b, s] * pts
        elif kind == _TALLY:
            for b in range(rows if tallies.shape[0] > 0 else 0):
                for s in range(sides):
                    points[b, s, col] = tallies[b, s, params[i]] * pts
        elif kind == _HELD:
            _score_held(captured, stopped, mask, pts, col, points)
        elif kind == _SEQUENCE:
            _score_sequence(captured, stopped, np.uint64(params[i]), low, tables[i], pts, col,
                            points)  # fmt: skip
        else:
            if kind == _COUNT:
                for b in range(rows):
                    for s in range(sides):
                        values[b, s] = ctpop(captured[b, s] & mask)
            elif kind == _PRIMIERA_TABLE:
                for b in range(rows):
                    for s in range(sides):
                        values[b, s] = _primiera_of(captured[b, s], tables, i, ranks, low)
            else:
                for b in range(rows):
                    for s in range(sides):
                        values[b, s] = _side_value(
                            kind, captured[b, s], mask, params[i], rank_masks
                        )
            if i == primiera_item:  # the stored primiera (most_sevens: the side's sevens)
                for b in range(rows):
                    for s in range(sides):
                        out_primiera[b, s] = (
                            max(values[b, s], 0) if kind == _PRIMIERA_TABLE
                            else ctpop(captured[b, s] & rank_masks[6])
                        )  # fmt: skip
            floor = 0 if kind == _PRIMIERA_TABLE else 1
            _score_contested(values, stopped, floor, each[i], pts, col, points)


def score(
    variant: Variant,
    captured: np.ndarray,
    scope: np.ndarray,
    stopped: np.ndarray | None = None,
    tallies: np.ndarray | None = None,
) -> DealScores:
    """Score a batch: ``captured`` is ``uint64[B, S]`` (leftovers included), ``scope`` int.

    Rows of ``stopped`` (``bool[B]``: deals a scopa won outright, docs/rules.md §6) score their
    scope and tallies alone. ``tallies`` (``int[B, S, 3]``, in ``rules.items.TALLIES`` order,
    None for zeros) are the deal-level counts that score like scope.
    """
    last = _LAST_RULES
    rules = last[1] if last[0] is variant else _rules_of(variant)
    captured = np.ascontiguousarray(captured, np.uint64)
    rows, sides = captured.shape
    scope = np.asarray(scope)
    if scope.shape != (rows, sides):  # any shape that broadcasts to [B, S]
        scope = np.broadcast_to(scope, (rows, sides))
    scope = np.ascontiguousarray(scope, np.int16)  # numpy's cast, as the points store it
    stopped = _NOT_STOPPED if stopped is None else np.ascontiguousarray(stopped, np.bool_)
    tallies = _NO_TALLIES if tallies is None else np.ascontiguousarray(tallies, np.int16)
    cards = np.empty((rows, sides), np.int8)
    coins = np.empty((rows, sides), np.int8)
    settebello = np.empty((rows, sides), np.bool_)
    primiera = np.empty((rows, sides), np.int16)
    points = np.zeros((rows, sides, rules.n_columns), np.int16)
    _score_rows(
        captured, scope, stopped, tallies, rules.ranks, rules.kinds, rules.masks, rules.params,
        rules.points, rules.each, rules.columns, rules.tables, rules.coins_mask,
        rules.settebello, rules.primiera_item, rules.rank_masks,
        cards, coins, settebello, primiera, points,
    )  # fmt: skip
    return DealScores(cards, coins, settebello, primiera, points)


#: The variant scored last and its kernel rules: callers score one variant over and over, and
#: an identity test is cheaper than hashing the variant (``_KernelRules.of``'s cache).
_LAST_RULES: tuple[Variant | None, _KernelRules | None] = (None, None)


def _rules_of(variant: Variant) -> _KernelRules:
    global _LAST_RULES
    rules = _KernelRules.of(variant)
    _LAST_RULES = (variant, rules)  # one assignment: safe for threads scoring other variants
    return rules
