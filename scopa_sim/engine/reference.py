"""The reference engine: one deal at a time, in plain Python, written to be read as the rules.

This is the executable specification. It favours clarity over speed; the vectorised engine in
``scopa_sim.engine.batch`` must agree with it deal by deal (``tests/test_agreement.py``). Section
numbers refer to docs/rules.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from scopa_sim.cards import PRIMIERA_FACE_ZERO, PRIMIERA_STANDARD, mask_of
from scopa_sim.rules import Item, MissingSuit, Napola, PrimieraRule, Variant
from scopa_sim.rules.items import TALLIES, point_columns, scoring_table
from scopa_sim.rules.keys import DeclareRounds, MattaOpening, applies

#: An action: the card played and the table cards it captures (empty: the card is laid).
Action = tuple[int, frozenset[int]]


@dataclass(frozen=True)
class Move:
    seat: int
    card: int
    captured: tuple[int, ...]
    scopa: bool


@dataclass(frozen=True)
class View:
    """What the player at ``seat`` may know when choosing (no other hand, not the pack)."""

    seat: int
    hand: frozenset[int]
    table: frozenset[int]
    captured: tuple[frozenset[int], ...]
    played: frozenset[int]
    play: int  # index of this play in the deal, from 0
    #: Per seat, the cards of its declared hand it still holds, shown from its first turn of
    #: the hand (cirulla.md C5.3); empty sets without declarations.
    shown: tuple[frozenset[int], ...] = ()


Chooser = Callable[[View, list[Action]], Action]


@dataclass
class DealResult:
    throw_in: bool
    moves: list[Move] = field(default_factory=list)
    captured: list[set[int]] = field(default_factory=list)  # per side, leftovers included
    leftovers: set[int] = field(default_factory=set)  # only when nobody captured
    scope: list[int] = field(default_factory=list)
    points: list[dict[str, int]] = field(default_factory=list)  # per side, per category
    #: What the dealer's side took the opening table for: escoba's escobas, or cirulla's units.
    opening: int = 0
    #: Per side, the deal-level counts that score like scope: [opening units, low-hand
    #: declarations, three-of-a-kind declarations] (``deal_rules.TALLIES``).
    tallies: list[list[int]] = field(default_factory=list)
    stopped_by: int | None = None  # side that won outright by a scopa (scopa_wins_immediately)

    @property
    def totals(self) -> list[int]:
        return [sum(p.values()) for p in self.points]


# §2: throw-in ----------------------------------------------------------------------------------


def is_throw_in(variant: Variant, pack: Sequence[int]) -> bool:
    """At least ``throw_in_count`` table cards of ``throw_in_rank`` (three or four kings;
    cirulla's two aces): the same dealer deals again (where the rule applies: the italian pack,
    a table of four). Under ``two_aces_fifteen_stands`` a table that makes 15 or 30 stands."""
    if not (variant.throw_in and applies(variant, "throw_in")):
        return False
    table = pack[: variant.table_cards]
    count = sum(variant.pack.rank(card) == variant.throw_in_rank for card in table)
    if count < variant.throw_in_count:
        return False
    return not (variant.two_aces_fifteen_stands and fifteen_units(variant, table) > 0)


# Cirulla's opening table (cirulla.md C2.3) ------------------------------------------------------


def _table_values(variant: Variant, table) -> list[int | None]:
    """The values of the table cards, None for a matta counted wild in the opening."""
    wild = variant.matta_opening == MattaOpening.WILD
    return [None if card == variant.matta and wild else variant.pack.rank(card) for card in table]


def fifteen_units(variant: Variant, table) -> int:
    """1 when the table's values can add up to 15, 2 when to 30 (a wild matta taking any value
    1..10), else 0."""
    values = _table_values(variant, table)
    fixed = sum(v for v in values if v is not None)
    totals = {fixed + m for m in range(1, 11)} if None in values else {fixed}
    return 1 if 15 in totals else 2 if 30 in totals else 0


def opening_units(variant: Variant, table) -> int:
    """The units of the dealer's opening take under ``opening_fifteen`` (the "opening" tally):
    3 for a table of 9 or less under ``opening_low`` (a wild matta counting 1), before a 15;
    else :func:`fifteen_units`; 0 without the rule."""
    if not variant.opening_fifteen:
        return 0
    if (
        variant.opening_low
        and sum(1 if v is None else v for v in _table_values(variant, table)) <= 9
    ):
        return 3
    return fifteen_units(variant, table)


# Cirulla's declarations (cirulla.md C5) --------------------------------------------------------


def declaration(variant: Variant, hand) -> str | None:
    """The declaration of a dealt hand of three: "triple" (three of one rank), else "low" (its
    values add up to at most ``low_hand``), else None. A matta that declares is whichever rank
    1..10 gives the better declaration."""
    if not variant.declarations:
        return None
    wild = variant.matta_declarations and variant.matta in hand
    others = [variant.pack.rank(c) for c in hand if not (wild and c == variant.matta)]
    choices = [[*others, m] for m in range(1, 11)] if wild else [others]
    if variant.triple_points and any(len(set(ranks)) == 1 for ranks in choices):
        return "triple"
    if any(sum(ranks) <= variant.low_hand for ranks in choices):
        return "low"
    return None


def declaring_round(variant: Variant, round_: int) -> bool:
    """Whether the hands of round ``round_`` (from 0) declare (``declare_rounds``)."""
    return variant.declarations and (round_ == 0 or variant.declare_rounds == DeclareRounds.EVERY)


# §3: capturing ---------------------------------------------------------------------------------


def _sum_sets(cards: list[int], ranks: list[int], target: int, start: int = 0):
    """Every set of ``cards[start:]`` (sorted by rank) whose ranks add up to ``target``."""
    for i in range(start, len(cards)):
        if ranks[i] > target:
            break
        if ranks[i] == target:
            yield (cards[i],)
        else:
            for rest in _sum_sets(cards, ranks, target - ranks[i], i + 1):
                yield (cards[i], *rest)


def _sets_summing(variant: Variant, table, total: int, smallest: int) -> list[frozenset[int]]:
    """Every set of at least ``smallest`` table cards whose ranks add up to ``total``."""
    rank = variant.pack.rank
    ordered = sorted(table, key=lambda c: (rank(c), c))
    sets = [
        frozenset(s)
        for s in _sum_sets(ordered, [rank(c) for c in ordered], total)
        if len(s) >= smallest
    ]
    if variant.fewest_cards and sets:
        fewest = min(len(s) for s in sets)
        sets = [s for s in sets if len(s) == fewest]
    return sets


def captures(variant: Variant, card: int, table: frozenset[int] | set[int]) -> list[frozenset[int]]:
    """The sets of table cards ``card`` may capture; empty when it cannot capture. The variant
    combines kinds of capture (§3, cirulla.md C3): a match, a sum, a total with the played card,
    and the ace that sweeps a table without an ace (then its only capture)."""
    rank = variant.pack.rank
    value = rank(card)
    if variant.ace_sweeps and value == 1 and not any(rank(c) == 1 for c in table):
        # §7 asso piglia tutto: with no ace on the table, an ace takes every table card.
        return [frozenset(table)] if table else []
    same = sorted(c for c in table if rank(c) == value)
    sets = [frozenset([c]) for c in same] if variant.match else []
    if variant.sum and not (variant.match and variant.match_priority and same):
        # A match rules out a sum under match_priority (classic): a set of two or more cards.
        sets += _sets_summing(variant, table, value, smallest=2)
    if variant.total > value:
        # Escoba: a set of one or more table cards making the total with the played card.
        sets += _sets_summing(variant, table, variant.total - value, smallest=1)
    sets = list(dict.fromkeys(sets))  # a set two kinds capture is one capture
    if variant.canonical_capture_order:
        sets.sort(key=lambda s: tuple(sorted(s)))  # cirulla.md C8: by the sorted tuple of ids
    return sets


def is_ace_sweep(variant: Variant, card: int, taken) -> bool:
    """An ace taking table cards but no ace where aces sweep: the sweep of a table without an
    ace (an ace capturing with an ace on the table takes it, or leaves it there)."""
    rank = variant.pack.rank
    return (
        variant.ace_sweeps and rank(card) == 1 and bool(taken) and all(rank(c) != 1 for c in taken)
    )


def opening_sweeps(variant: Variant, table) -> int:
    """Escoba's opening (§7): 1 when the table sums to 15, 2 when it sums to 30 and splits into
    two sets of 15; 0 otherwise (and in every other preset)."""
    if not variant.opening_sweep:
        return 0
    rank = variant.pack.rank
    total = sum(rank(c) for c in table)
    if total == 15:
        return 1
    if total == 30 and any(sum(rank(c) for c in s) == 15 for s in _subsets(sorted(table))):
        return 2
    return 0


def _subsets(cards: list[int]):
    for size in range(1, len(cards)):
        yield from itertools.combinations(cards, size)


def legal_actions(variant: Variant, hand, table) -> list[Action]:
    """Every legal action, by card id then capture. A card that can capture must capture."""
    actions: list[Action] = []
    sets_of_rank: dict[int, list[frozenset[int]]] = {}  # what a card captures depends on its rank
    for card in sorted(hand):
        rank = variant.pack.rank(card)
        if rank not in sets_of_rank:
            sets_of_rank[rank] = captures(variant, card, table)
        sets = sets_of_rank[rank]
        actions += [(card, s) for s in sets] if sets else [(card, frozenset())]
    if variant.forced_capture and any(taken for _, taken in actions):
        actions = [a for a in actions if a[1]]
    return actions


# §2-§4: a deal ---------------------------------------------------------------------------------


def play_deal(
    variant: Variant, pack: Sequence[int], choose: Chooser, scores: Sequence[int] | None = None
) -> DealResult:
    """Play one deal from ``pack`` in canonical order (docs/rules.md §2); seat 0 leads, the last
    seat deals. ``scores`` are the game scores before the deal (for ``scopa_wins_immediately``)."""
    pack = [int(c) for c in pack]
    if sorted(pack) != list(range(variant.pack.n_cards)):
        raise ValueError(f"a pack must be a permutation of the {variant.pack.n_cards} card ids")
    if is_throw_in(variant, pack):
        return DealResult(throw_in=True)

    n, sides = variant.n_players, variant.n_sides
    before = list(scores) if scores is not None else [0] * sides
    table = set(pack[: variant.table_cards])
    position = variant.table_cards
    captured: list[set[int]] = [set() for _ in range(sides)]
    scope = [0] * sides
    played: set[int] = set()
    last_capturer = None
    moves: list[Move] = []

    def wins_now(side: int) -> bool:
        return variant.scopa_wins_immediately and before[side] + scope[side] >= variant.target

    tallies = [[0, 0, 0] for _ in range(sides)]  # opening, low, triple per side
    dealer_side = variant.side_of_seat(n - 1)
    # The opening table goes to the dealer's side: §7 escoba's 15 (or two 15s) as escobas;
    # cirulla's 15 / 30 (or 9 or less) as the opening tally (C2.3). Either take is a capture.
    opening = opening_units(variant, table) or opening_sweeps(variant, table)
    if opening:
        captured[dealer_side] |= table
        table = set()
        last_capturer = dealer_side
        if not variant.opening_sweep:
            tallies[dealer_side][0] = opening
    if opening and variant.opening_sweep:
        scope[dealer_side] += opening
        if wins_now(dealer_side):
            unplayed = set(pack[position:])  # no hand dealt yet
            stop = (moves, opening, dealer_side, unplayed, tallies)
            return _stopped(variant, captured, scope, *stop)

    for round_, hand_size in enumerate(variant.hands):
        hands = []
        for _ in range(n):
            hands.append(set(pack[position : position + hand_size]))
            position += hand_size
        # C5: a hand that declares is shown from its holder's first turn of the round.
        declared = [set() for _ in range(n)]
        kinds = [declaring_round(variant, round_) and declaration(variant, h) for h in hands]
        for seat, kind in enumerate(kinds):
            if kind:
                tallies[variant.side_of_seat(seat)][1 if kind == "low" else 2] += 1
        for turn in range(hand_size):
            for seat in range(n):
                if turn == 0 and kinds[seat]:
                    declared[seat] = hands[seat]  # the same set: a card played leaves it
                legal = legal_actions(variant, hands[seat], table)
                view = View(
                    seat,
                    frozenset(hands[seat]),
                    frozenset(table),
                    tuple(frozenset(c) for c in captured),
                    frozenset(played),
                    len(moves),
                    tuple(frozenset(d) for d in declared),
                )
                card, taken = choose(view, legal)
                if (card, taken) not in legal:
                    raise ValueError(f"illegal action {(card, sorted(taken))} at play {len(moves)}")
                hands[seat].remove(card)
                played.add(card)
                side = variant.side_of_seat(seat)
                scopa = False
                if taken:
                    table -= taken
                    captured[side] |= taken | {card}
                    last_capturer = side
                    last_play = len(moves) == variant.plays - 1
                    scopa = not table and (not last_play or variant.last_play_scopa)
                    if is_ace_sweep(variant, card, taken) and not variant.ace_sweep_scopa:
                        scopa = False  # §7: an ace's sweep is not a scopa unless the option says
                    scope[side] += scopa
                else:
                    table.add(card)
                moves.append(Move(seat, card, tuple(sorted(taken)), scopa))
                if scopa and wins_now(side):
                    # §6 scopa_wins_immediately: the deal stops; only its scope count.
                    unplayed = set().union(*hands) | table | set(pack[position:])
                    stop = (moves, opening, side, unplayed, tallies)
                    return _stopped(variant, captured, scope, *stop)

    leftovers: set[int] = set()
    if last_capturer is None:
        leftovers = table  # nobody captured: the leftovers belong to no one
    else:
        captured[last_capturer] |= table  # §4: last capturer takes the rest, not a scopa
    return DealResult(
        throw_in=False,
        moves=moves,
        captured=captured,
        leftovers=leftovers,
        scope=scope,
        points=score_deal(variant, captured, scope, tallies),
        opening=opening,
        tallies=tallies,
    )


def _stopped(variant, captured, scope, moves, opening, side, unplayed, tallies) -> DealResult:
    """A deal stopped by a winning scopa: the cards not captured (the table, the hands and the
    cards not dealt yet) go to nobody, and the deal scores its scope alone (docs/rules.md §6)."""
    points = score_deal(variant, captured, scope, tallies, stopped=True)
    return DealResult(
        throw_in=False, moves=moves, captured=captured, leftovers=set(unplayed), scope=scope,
        points=points, opening=opening, tallies=tallies, stopped_by=side,
    )  # fmt: skip


# §5: scoring -----------------------------------------------------------------------------------


def strict_winner(values: Sequence) -> int | None:
    """Index of the strictly greatest value; None on a tie for the most (or no values)."""
    if not values:
        return None
    best = max(values)
    winners = [i for i, v in enumerate(values) if v == best]
    return winners[0] if len(winners) == 1 else None


def _scale(variant: Variant) -> tuple[str | tuple[int, ...], str]:
    """The primiera scale and missing-suit rule of the variant's primiera item (its keys' when
    it has none)."""
    for item in scoring_table(variant):
        if item.name == "primiera" and item.kind == "primiera":
            return item.scale, item.missing
    rule = variant.primiera or PrimieraRule.STANDARD
    return rule.value, variant.primiera_missing_suit.value


def scaled_primiera(pack, scale, missing: str, cards: set[int]) -> int | None:
    """Best card of each suit by ``scale`` (a scale's name or a value per rank), summed; None
    when a suit is void under ``missing = void``. ``most_sevens`` sums the standard values."""
    if isinstance(scale, str):
        values = PRIMIERA_FACE_ZERO if scale == PrimieraRule.FACE_ZERO else PRIMIERA_STANDARD
    else:
        values = (0, *scale)
    best: list[list[int]] = [[], [], [], []]  # per suit, the value of each card held
    for c in cards:
        best[pack.suit(c)].append(values[pack.rank(c)])
    total = 0
    for suit in range(4):
        if not best[suit] and missing == MissingSuit.VOID:
            return None
        total += max(best[suit], default=0)
    return total


def primiera_value(variant: Variant, cards: set[int]) -> int | None:
    """The side's primiera (best card of each suit, summed); None when it has none."""
    scale, missing = _scale(variant)
    return scaled_primiera(variant.pack, scale, missing, cards)


def sevens_key(variant: Variant, cards: set[int]) -> tuple[int, ...]:
    """``most_sevens`` primiera: count of sevens, then sixes, ... down to aces."""
    ranks = [variant.pack.rank(c) for c in cards]
    return tuple(ranks.count(r) for r in range(7, 0, -1))


def stored_primiera(variant: Variant, cards: set[int]) -> int:
    """The ``primiera`` column of the data (docs/schema.md) for a side holding ``cards``: its
    primiera value, 0 when it has none (a void suit) or the variant has no primiera, and under
    ``primiera=most_sevens`` its number of sevens."""
    if not any(i.name == "primiera" and i.kind == "primiera" for i in scoring_table(variant)):
        return 0
    scale, _ = _scale(variant)
    if scale == PrimieraRule.MOST_SEVENS:
        return sum(variant.pack.rank(c) == 7 for c in cards)
    value = primiera_value(variant, cards)
    return 0 if value is None else value


def sequence_length(pack, item: Item, cards: set[int]) -> int:
    """The length a sequence item scores for ``cards``: 0 unless its suit's first ``count``
    ranks from the ace are held; then the unbroken run (``extend = run``) or every card of the
    suit held (``all``), at most ``cap``."""
    held = {pack.rank(c) for c in cards if pack.suit(c) == item.suit}
    if not set(range(1, item.count + 1)) <= held:
        return 0
    length = item.count
    if item.extend == "all":
        length = len(held)
    else:
        while length + 1 in held:
            length += 1
    return min(length, item.cap) if item.cap else length


def napola_points(variant: Variant, cards: set[int]) -> int:
    """The napola of ``cards``: 3 for the ace-2-3 of coins, plus the run beyond (``sequence``)
    or every other coin (``trentino``)."""
    if variant.napola is Napola.OFF:
        return 0
    extend = "all" if variant.napola is Napola.TRENTINO else "run"
    napola = Item("napola", "sequence", suit=0, count=3, extend=extend).resolved()
    return sequence_length(variant.pack, napola, cards)


def contested_value(pack, item: Item, cards: set[int]):
    """What a side holding ``cards`` has of a contested item, or None when it has nothing of
    it (no card counted, no primiera, the threshold not met): a count, a primiera value, or
    the most_sevens key."""
    if item.kind == "primiera":
        if item.scale == PrimieraRule.MOST_SEVENS:
            key = tuple(sum(pack.rank(c) == r for c in cards) for r in range(7, 0, -1))
            return key if any(key) else None
        return scaled_primiera(pack, item.scale, item.missing, cards)
    counted = [
        c for c in cards
        if (item.suit is None or pack.suit(c) == item.suit)
        and (item.rank is None or pack.rank(c) == item.rank)
    ]  # fmt: skip
    if item.kind == "at-least":
        return 1 if len(counted) >= item.count else None
    return len(counted) or None


def contest_winners(values: Sequence, tie: str) -> list[int]:
    """The sides that score a contested item: the one with strictly the most, or under
    ``tie = each`` every side tied for the most; nobody when no side has anything of it."""
    held = [v for v in values if v is not None]
    if not held:
        return []
    best = max(held)
    tied = [side for side, v in enumerate(values) if v == best]
    return tied if len(tied) == 1 or tie == "each" else []


def score_deal(
    variant: Variant,
    captured: list[set[int]],
    scope: list[int],
    tallies: Sequence[Sequence[int]] | None = None,
    stopped: bool = False,
) -> list[dict[str, int]]:
    """Points per side and column (§5), item by item of the variant's scoring table.

    ``tallies`` are each side's deal-level counts in ``TALLIES`` order (None: zeros). A
    ``stopped`` deal (won outright by a scopa, §6) scores its scope and tallies alone."""
    pack = variant.pack
    points = [dict.fromkeys(point_columns(variant), 0) for _ in captured]
    for item in scoring_table(variant):
        if item.kind == "scope":
            per_side = scope
        elif item.kind in TALLIES:
            k = TALLIES.index(item.kind)
            per_side = [0] * len(captured) if tallies is None else [t[k] for t in tallies]
        elif stopped:
            continue
        elif item.kind in ("card", "set"):
            per_side = [int(set(item.cards) <= cards) for cards in captured]
        elif item.kind == "sequence":
            per_side = [sequence_length(pack, item, cards) for cards in captured]
        else:
            values = [contested_value(pack, item, cards) for cards in captured]
            winners = contest_winners(values, item.tie)
            per_side = [int(side in winners) for side in range(len(captured))]
        for side, units in enumerate(per_side):
            points[side][item.name] = units * item.points
    return points


# §6: a game ------------------------------------------------------------------------------------


def game_winner(scores: Sequence[int], target: int) -> int | None:
    """The side at or past the target and strictly ahead of all, after a deal; else None."""
    leader = strict_winner(scores)
    return leader if leader is not None and scores[leader] >= target else None


def winner_after_deal(
    variant: Variant,
    before: Sequence[int],
    result: DealResult,
    seat_sides: Sequence[int] | None = None,
) -> int | None:
    """The side that has won the game after ``result`` (§6), or None: play another deal.

    In order: a scopa that won outright; napoleone (all of the scoring suit's cards); with
    ``count_in_turn_order`` the first side in seat order (seat 0 first) at the target; else the
    side at or past the target and strictly ahead of all. ``seat_sides`` is each seat's side
    (default: seat 0 leads, sides alternate).
    """
    if result.stopped_by is not None:
        return result.stopped_by
    if variant.napoleone:
        coins = variant.pack.suit_mask(0)
        for side, cards in enumerate(result.captured):
            if coins & ~mask_of(cards) == 0:
                return side
    after = [b + t for b, t in zip(before, result.totals, strict=True)]
    if variant.count_in_turn_order:
        order = (
            seat_sides
            if seat_sides is not None
            else [variant.side_of_seat(seat) for seat in range(variant.n_players)]
        )
        for side in order:
            if after[side] >= variant.target:
                return side
        return None
    return game_winner(after, variant.target)
