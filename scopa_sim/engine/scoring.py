"""Batch deal scoring (docs/rules.md §5) over captured-card bitmasks, in one compiled pass.

A numba kernel scores each deal row by row: popcounts for cards, coins and sevens, bit tests for
single cards, 2**ranks-entry lookup tables (one per suit pattern) for primiera and napola, and
the strict winner of each contested category kept as it goes. The kernel knows no rule of its
own: every variant feature reaches it as data (masks, flags, tables) built from the
:class:`~scopa_sim.rules.Variant`. The reference engine scores the same deals card by card; the
two must agree (tests/test_scoring.py, tests/test_rules.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from scopa_sim.cards import PRIMIERA_FACE_ZERO, PRIMIERA_STANDARD
from scopa_sim.jit import ctpop, njit
from scopa_sim.rules import CATEGORIES, MissingSuit, Napola, PrimieraRule, Variant

CATEGORY_INDEX = {name: i for i, name in enumerate(CATEGORIES)}


@dataclass(frozen=True)
class DealScores:
    """Per deal and side: the counts behind the points, and the points per category."""

    cards: np.ndarray  # int8[B, S]
    coins: np.ndarray  # int8[B, S]
    settebello: np.ndarray  # bool[B, S]
    primiera: np.ndarray  # int16[B, S]; 0 when the side has none (most_sevens: its sevens)
    points: np.ndarray  # int16[B, S, len(CATEGORIES)]

    @property
    def totals(self) -> np.ndarray:
        return point_totals(self.points)


def point_totals(points: np.ndarray) -> np.ndarray:
    """Points per deal and side over the categories, ``int16[D, S]``, from ``points[D, S, C]``:
    ``.sum(axis=2, dtype=np.int16)`` in a third of its time."""
    return np.einsum("dsc->ds", points, dtype=np.int16, casting="unsafe")


@cache
def _suit_tables(ranks: int, rule: PrimieraRule, missing: MissingSuit) -> np.ndarray:
    """Best primiera value of every pattern of one suit's ranks; -1 for a void suit."""
    values = PRIMIERA_FACE_ZERO if rule is PrimieraRule.FACE_ZERO else PRIMIERA_STANDARD
    table = np.zeros(1 << ranks, np.int16)
    for pattern in range(1, 1 << ranks):
        table[pattern] = max(values[r + 1] for r in range(ranks) if pattern >> r & 1)
    table[0] = -1 if missing is MissingSuit.VOID else 0
    return table


@cache
def _napola_table(ranks: int, rule: Napola) -> np.ndarray:
    """Napola points of every pattern of coins."""
    table = np.zeros(1 << ranks, np.int16)
    for pattern in range(1 << ranks):
        if pattern & 0b111 != 0b111 or rule is Napola.OFF:
            continue
        if rule is Napola.TRENTINO:
            table[pattern] = pattern.bit_count()
        else:
            run = 3
            while pattern >> run & 1:
                run += 1
            table[pattern] = run
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


#: Category columns of ``DealScores.points``, as the kernel's compile-time constants.
_CARDS = CATEGORY_INDEX["cards"]
_COINS = CATEGORY_INDEX["coins"]
_SETTEBELLO = CATEGORY_INDEX["settebello"]
_PRIMIERA = CATEGORY_INDEX["primiera"]
_SCOPE = CATEGORY_INDEX["scope"]
_RE_BELLO = CATEGORY_INDEX["re_bello"]
_NAPOLA = CATEGORY_INDEX["napola"]
_SEVENS = CATEGORY_INDEX["sevens"]

#: How the kernel scores primiera (``_KernelRules.primiera``).
_NO_PRIMIERA, _PRIMIERA_TABLE, _PRIMIERA_SEVENS_KEY = 0, 1, 2
_NO_TABLE = np.zeros(1, np.int16)
_NOT_STOPPED = np.zeros(0, np.bool_)
#: Below every value a contested category takes (counts, a -1 primiera, a sevens key).
_BELOW = -2


@dataclass(frozen=True)
class _KernelRules:
    """A variant's scoring as the kernel's arguments (see :func:`_score_rows`)."""

    ranks: int
    coins_mask: np.uint64  # suit 0's cards; the pattern indexes the napola table as it stands
    settebello: np.uint64  # bit of the settebello
    re_bello_mask: np.uint64  # the king of coins under re_bello, else 0 (the point never counts)
    napola: np.ndarray  # int16[2**ranks]: points per coins pattern (all zero when napola=off)
    most_sevens: bool  # the 52-card game's point for most sevens
    sevens_mask: np.uint64
    primiera: int  # _NO_PRIMIERA, _PRIMIERA_TABLE or _PRIMIERA_SEVENS_KEY
    suit_table: np.ndarray  # int16[2**ranks]: a suit pattern's best value, -1 for VOID's void
    rank_masks: np.ndarray  # uint64[7]: the cards of rank 1..7 (the most_sevens key's digits)

    @classmethod
    @cache
    def of(cls, variant: Variant) -> _KernelRules:
        pack, ranks = variant.pack, variant.pack.ranks
        if variant.primiera is None:
            mode, table = _NO_PRIMIERA, _NO_TABLE
        elif variant.primiera is PrimieraRule.MOST_SEVENS:
            mode, table = _PRIMIERA_SEVENS_KEY, _NO_TABLE
        else:
            mode = _PRIMIERA_TABLE
            table = _suit_tables(ranks, variant.primiera, variant.primiera_missing_suit)
        return cls(
            ranks=ranks,
            coins_mask=np.uint64(pack.suit_mask(0)),
            settebello=np.uint64(variant.settebello),
            re_bello_mask=np.uint64(1 << variant.king_of_coins if variant.re_bello else 0),
            napola=_napola_table(ranks, variant.napola),
            most_sevens=bool(variant.most_sevens),
            sevens_mask=np.uint64(pack.rank_mask(7)),
            primiera=mode,
            suit_table=table,
            rank_masks=np.array([pack.rank_mask(r) for r in range(1, 8)], np.uint64),
        )


@njit(cache=True, nogil=True, inline="always")
def _strict_best(value, s, best, win):
    """``(best, win)`` after side ``s`` of ``value``: ``win`` is the side holding the strict
    best so far, -1 while it is shared. Start from ``(_BELOW, -1)``. Selects, not branches:
    on real deals the comparisons are coin flips, which a branch predictor loses."""
    win = s if value > best else (-1 if value == best else win)
    return max(value, best), win


@njit(cache=True, nogil=True)
def _score_rows(
    captured, scope, stopped, ranks, coins_mask, settebello_bit, re_bello_mask, napola,
    most_sevens, sevens_mask, primiera_rule, suit_table, rank_masks,
    out_cards, out_coins, out_settebello, out_primiera, points,
):  # fmt: skip
    """Score every row of ``captured`` into the ``out_*`` arrays and ``points`` (each entry
    written). ``stopped`` is ``bool[B]``, or empty for no stopped row."""
    one = np.uint64(1)
    low = (one << np.uint64(ranks)) - one
    has_stopped = stopped.shape[0] > 0
    rows, sides = captured.shape
    for b in range(rows):
        live = not (has_stopped and stopped[b])
        best_cards = best_coins = best_sevens = best_primiera = _BELOW
        win_cards = win_coins = win_sevens = win_primiera = -1
        for s in range(sides):
            c = captured[b, s]
            n_cards = ctpop(c)
            coins = c & coins_mask
            n_coins = ctpop(coins)
            has_settebello = ((c >> settebello_bit) & one) != 0
            out_cards[b, s] = n_cards
            out_coins[b, s] = n_coins
            out_settebello[b, s] = has_settebello
            value = 0
            if primiera_rule == _PRIMIERA_TABLE:  # best card per suit, summed
                void = False
                for suit in range(4):
                    best = suit_table[(c >> np.uint64(ranks * suit)) & low]
                    void |= best < 0
                    value += best
                value = -1 if void else value
                out_primiera[b, s] = max(value, 0)
            elif primiera_rule == _PRIMIERA_SEVENS_KEY:  # counts of 7s, 6s ... aces, base 5
                digit = 1
                for r in range(7):
                    value += ctpop(c & rank_masks[r]) * digit
                    digit *= 5
                out_primiera[b, s] = ctpop(c & rank_masks[6])
            else:
                out_primiera[b, s] = 0
            points[b, s, _SETTEBELLO] = has_settebello and live
            points[b, s, _SCOPE] = scope[b, s]
            points[b, s, _RE_BELLO] = (c & re_bello_mask) != 0 and live
            points[b, s, _NAPOLA] = napola[coins] if live else 0
            best_cards, win_cards = _strict_best(n_cards, s, best_cards, win_cards)
            best_coins, win_coins = _strict_best(n_coins, s, best_coins, win_coins)
            best_sevens, win_sevens = _strict_best(
                ctpop(c & sevens_mask), s, best_sevens, win_sevens
            )
            best_primiera, win_primiera = _strict_best(value, s, best_primiera, win_primiera)
        # Nobody scores a contested category in a stopped deal; nobody has a primiera when the
        # best is -1 (a void suit everywhere), or when the variant has none.
        win_cards = win_cards if live else -1
        win_coins = win_coins if live else -1
        win_sevens = win_sevens if live and most_sevens else -1
        no_primiera = not live or primiera_rule == _NO_PRIMIERA or best_primiera < 0
        win_primiera = -1 if no_primiera else win_primiera
        for s in range(sides):
            points[b, s, _CARDS] = s == win_cards
            points[b, s, _COINS] = s == win_coins
            points[b, s, _PRIMIERA] = s == win_primiera
            points[b, s, _SEVENS] = s == win_sevens


def score(
    variant: Variant,
    captured: np.ndarray,
    scope: np.ndarray,
    stopped: np.ndarray | None = None,
    tallies: np.ndarray | None = None,
) -> DealScores:
    """Score a batch: ``captured`` is ``uint64[B, S]`` (leftovers included), ``scope`` int.

    Rows of ``stopped`` (``bool[B]``: deals a scopa won outright, docs/rules.md §6) score their
    scope alone. ``tallies`` (``int16[B, S, 3]``, ``deal_rules.TALLIES``) are the deal-level
    counts that score like scope; not scored yet (the scoring table scores them).
    """
    del tallies  # placeholder until the scoring table (issue 31, track A) scores them
    last = _LAST_RULES
    rules = last[1] if last[0] is variant else _rules_of(variant)
    captured = np.ascontiguousarray(captured, np.uint64)
    rows, sides = captured.shape
    scope = np.asarray(scope)
    if scope.shape != (rows, sides):  # any shape that broadcasts to [B, S]
        scope = np.broadcast_to(scope, (rows, sides))
    scope = np.ascontiguousarray(scope, np.int16)  # numpy's cast, as the points store it
    stopped = _NOT_STOPPED if stopped is None else np.ascontiguousarray(stopped, np.bool_)
    cards = np.empty((rows, sides), np.int8)
    coins = np.empty((rows, sides), np.int8)
    settebello = np.empty((rows, sides), np.bool_)
    primiera = np.empty((rows, sides), np.int16)
    points = np.empty((rows, sides, len(CATEGORIES)), np.int16)
    _score_rows(
        captured, scope, stopped, rules.ranks, rules.coins_mask,
        rules.settebello, rules.re_bello_mask, rules.napola, rules.most_sevens,
        rules.sevens_mask, rules.primiera, rules.suit_table, rules.rank_masks,
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
