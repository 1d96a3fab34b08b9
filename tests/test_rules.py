"""The rules (docs/rules.md, and the published descriptions it was drawn from) as executable
checks.

Every test names the rule it checks (section numbers refer to docs/rules.md). Rules
that decide legal moves are checked on the reference engine and on the vectorised engine's
legal-action kernel; rules that show in a deal's outcome are checked by playing deliberately
built packs on both engines (``reference.play_deal`` and ``api.play_packs``), which must agree
move by move, and then against outcomes worked out by hand in the test.

How the packs are built: a deal is written as its plays in order (36 in the classic deal, one
hand of 6 plays per line). ``"7S"`` lays the seven of swords, ``"7B:7S"`` plays the seven of
clubs capturing the seven of swords, ``"7D:AS+6S"`` captures two cards. The canonical pack
(docs/rules.md §2: 4 table cards, then each hand's blocks of 3 in turn order) follows from the
plays, and a scripted player makes exactly those plays, failing the test if one of them is not
legal.
Seat 0 leads, so in a two-player deal even plays are seat 0 (side 0) and odd plays seat 1, the
dealer (side 1).

The worked examples of docs/rules.md (the rules for players, §§3-8) are tests here too, each
named after its section and preset.

Card codes: rank A 2 3 4 5 6 7 F(ante) C(avallo) R(e), then suit D(enari, coins) C(oppe, cups)
S(pade, swords) B(astoni, clubs): ``7D`` is the settebello (id 6), ``CD`` the cavallo of coins.
In the 52-card pack of the ``scopa-52`` presets: rank A 2 .. 10 J Q K, then suit H(earts)
D(iamonds) S(pades) C(lubs): ``7H`` is its settebello (id 6), ``KC`` id 51.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np
import pytest

from scopa_sim import api
from scopa_sim.cards import FRENCH_52, ITALIAN_40, Pack, cards_of, mask_of
from scopa_sim.engine import batch, kernels, reference, scoring
from scopa_sim.players import Player
from scopa_sim.rules import CATEGORIES, OPTIONS, RulesError, Variant, parse_variant, variant

PACK = ITALIAN_40
CLASSIC = variant("classic")
ALL_CARDS = frozenset(range(PACK.n_cards))


# =================================================================================================
# Helpers: cards, packs, a scripted player, playing a pack on both engines
# =================================================================================================


def card(code: str, pack: Pack = PACK) -> int:
    return pack.parse(code)


def cards(codes: str, pack: Pack = PACK) -> frozenset[int]:
    """``cards("7D 7C AS")``: a set of cards from space-separated codes."""
    return frozenset(card(code, pack) for code in codes.split())


def french(codes: str) -> frozenset[int]:
    """``french("7H KS")``: a set of cards of the 52-card pack."""
    return cards(codes, FRENCH_52)


def suit_cards(suit: str, ranks: str = "A 2 3 4 5 6 7 F C R") -> frozenset[int]:
    """``suit_cards("D", "A 2 3")``: the given ranks of one suit."""
    return cards(" ".join(rank + suit for rank in ranks.split()))


def ids(codes: str, pack: Pack = PACK) -> list[int]:
    """``ids("2C 4C FS RS")``: card ids in the order given."""
    return [card(code, pack) for code in codes.split()]


def names(ids: Iterable[int], pack: Pack = PACK) -> list[str]:
    return [pack.code(c) for c in sorted(ids)]


def canonical_pack(
    rules: Variant,
    table: Sequence[int],
    hands: Mapping[tuple[int, int], Sequence[int]] | None = None,
) -> list[int]:
    """The pack in canonical order (docs/rules.md §2) with the chosen ``table`` cards and the chosen
    cards of ``hands[(hand, seat)]``; every slot not chosen is filled with the unused cards in
    id order."""
    hands = dict(hands or {})
    everything = frozenset(range(rules.pack.n_cards))
    chosen = list(table) + [c for block in hands.values() for c in block]
    assert len(chosen) == len(set(chosen)), f"a card is chosen twice: {names(chosen, rules.pack)}"
    filler = iter(sorted(everything - set(chosen)))
    pack = list(table) + [next(filler) for _ in range(rules.table_cards - len(table))]
    for h, size in enumerate(rules.hands):
        for seat in range(rules.n_players):
            block = list(hands.pop((h, seat), []))
            assert len(block) <= size, f"hand {h} of seat {seat} has {size} cards"
            pack += block + [next(filler) for _ in range(size - len(block))]
    assert not hands, f"no such hand or seat: {sorted(hands)}"
    assert sorted(pack) == sorted(everything)
    return pack


def parse_play(text: str, pack: Pack = PACK) -> tuple[int, int]:
    """``"7D:AS+6S"`` -> (7D, mask of {AS, 6S}); ``"7S"`` -> (7S, 0), a lay."""
    played, _, taken = text.partition(":")
    return card(played, pack), mask_of(card(c, pack) for c in taken.split("+") if c)


@dataclass(frozen=True)
class ScriptedPlayer(Player):
    """A test-only player that makes scripted plays, on either engine.

    ``script`` holds ``(play, card, capture)``: at play ``play`` of the deal, play ``card`` and
    capture exactly the cards of the bitmask ``capture`` (0 = lay it); a capture of ``None``
    means "that card, taking as many cards as it can". A scripted play that is not legal fails
    the test. At an unscripted play it is reluctant: it lays its lowest card that may be laid,
    and otherwise plays its lowest card taking as many cards as it can (lowest bitmask on a tie),
    a rule both engines can follow exactly since it looks at the legal actions as sets.
    """

    name: ClassVar[str] = "scripted"
    script: tuple[tuple[int, int, int | None], ...] = ()
    pack: Pack = PACK  # for messages

    def pick(self, play: int, options: list[tuple[int, int]]) -> int:
        """Index in ``options`` (``(card, capture mask)`` pairs) of the action to take."""
        wanted = {p: (c, m) for p, c, m in self.script}.get(play)

        def most_cards(i: int):
            return (-int(options[i][1]).bit_count(), options[i][1])

        if wanted is None:
            lays = [i for i, (_, taken) in enumerate(options) if taken == 0]
            if lays:
                return min(lays, key=lambda i: options[i][0])
            low = min(c for c, _ in options)
            return min((i for i, (c, _) in enumerate(options) if c == low), key=most_cards)
        want_card, want_capture = wanted
        mine = [i for i, (c, _) in enumerate(options) if c == want_card]
        if want_capture is None and mine:
            return min(mine, key=most_cards)
        for i in mine:
            if options[i][1] == want_capture:
                return i
        code = self.pack.code
        shown = [f"{code(c)}:{'+'.join(names(cards_of(m), self.pack))}" for c, m in options]
        what = (
            "most" if want_capture is None else "+".join(names(cards_of(want_capture), self.pack))
        )
        raise AssertionError(
            f"play {play}: scripted {code(want_card)}:{what} is not legal; legal: {shown}"
        )

    def act(self, obs, legal, rng) -> np.ndarray:  # the vectorised engine's interface
        out = np.empty(len(legal.count), np.int64)
        for b in range(len(out)):
            options = [
                (int(legal.card[b, k]), int(legal.capture[b, k])) for k in range(legal.count[b])
            ]
            out[b] = self.pick(obs.play, options)
        return out

    def choose(self, view: reference.View, legal: list[reference.Action]) -> reference.Action:
        """The reference engine's chooser interface."""
        return legal[self.pick(view.play, [(c, mask_of(taken)) for c, taken in legal])]


def scripted(plays: Mapping[int, str], pack: Pack = PACK) -> ScriptedPlayer:
    """A player with only some plays scripted: ``{0: "6B:2C+4C"}``; ``"6B:*"`` = most cards."""
    script = []
    for play, text in sorted(plays.items()):
        if text.endswith(":*"):
            script.append((play, card(text[:-2], pack), None))
        else:
            script.append((play, *parse_play(text, pack)))
    return ScriptedPlayer(tuple(script), pack)


def scripted_deal(table: str, plays: Sequence[str], rules: Variant = CLASSIC, complete=True):
    """The canonical pack and the scripted player of a deal written as its plays in order
    (``complete=False``: only its first plays; the other cards fill the pack in id order and
    are played reluctantly, see :class:`ScriptedPlayer`)."""
    pack_ = rules.pack
    parsed = [parse_play(text, pack_) for text in plays]
    if complete:
        assert len(parsed) == rules.plays, f"{len(parsed)} plays, a deal has {rules.plays}"
    hands: dict[tuple[int, int], list[int]] = {}
    i = 0
    for h, size in enumerate(rules.hands):
        for _ in range(size):
            for seat in range(rules.n_players):
                if i < len(parsed):
                    hands.setdefault((h, seat), []).append(parsed[i][0])
                i += 1
    pack = canonical_pack(rules, ids(table, pack_), hands)
    player = ScriptedPlayer(tuple((p, c, m) for p, (c, m) in enumerate(parsed)), pack_)
    return pack, player


@dataclass(frozen=True)
class Played:
    """One deal as both engines played it (already checked to agree)."""

    throw_in: bool
    moves: list[tuple[int, int, tuple[int, ...], bool]]  # (seat, card, captured, scopa)
    captured: list[frozenset[int]]  # per side, leftovers to the last capturer included
    leftovers: frozenset[int]  # the cards of nobody
    scope: list[int]
    points: list[dict[str, int]]
    opening: int = 0
    stopped_by: int | None = None
    result: reference.DealResult | None = None  # the reference engine's

    def total(self, side: int) -> int:
        return sum(self.points[side].values())

    def category(self, name: str) -> list[int]:
        return [p[name] for p in self.points]


def play_both(
    rules: Variant, pack: Sequence[int], player: ScriptedPlayer, scores: Sequence[int] = ()
) -> Played:
    """Play ``pack`` on the reference engine and on the vectorised one (``api.play_packs``, or
    with game ``scores`` before the deal the same recorder fed those scores), check they agree
    on every move, the captured cards, leftovers, opening escobas, the stop and points, and
    that the deal conserves the pack (docs/rules.md §8)."""
    before = list(scores) or [0] * rules.n_sides
    ref = reference.play_deal(rules, pack, player.choose, scores=before)
    (rec,) = api.record_deals(
        rules, [player] * rules.n_sides, np.array([pack], np.int8), seed=0, game=np.zeros(1),
        deal=np.zeros(1), offset=np.zeros(1, np.int64),
        scores=np.array([before], np.int16),
    )  # fmt: skip
    if not any(before):
        (plain,) = api.play_packs(rules, [player] * rules.n_sides, [pack])
        assert plain == rec
    assert rec.throw_in == ref.throw_in, "engines disagree on the throw-in"
    if ref.throw_in:
        assert rec.moves == [] and rec.sides == []
        return Played(True, [], [], frozenset(), [], [])
    ref_moves = [(m.seat, m.card, tuple(m.captured), m.scopa) for m in ref.moves]
    vec_moves = [(m.seat, m.card, tuple(m.captured), m.scopa) for m in rec.moves]
    for i, (a, b) in enumerate(zip(ref_moves, vec_moves, strict=True)):
        assert a == b, f"engines disagree at play {i}: reference {a}, vectorised {b}"
    assert [sorted(c) for c in ref.captured] == [s.captured for s in rec.sides], "captured differ"
    assert sorted(ref.leftovers) == rec.leftovers, "engines disagree on the leftovers"
    assert ref.points == [s.points for s in rec.sides], "engines disagree on the points"
    assert ref.opening == rec.opening, "engines disagree on the opening escobas"
    assert ref.stopped_by == rec.stopped_by, "engines disagree on the stop"
    # §8: the sides' captured cards plus the cards of nobody partition the pack.
    parts = [*ref.captured, ref.leftovers]
    assert sum(len(p) for p in parts) == rules.pack.n_cards
    assert frozenset().union(*parts) == frozenset(range(rules.pack.n_cards))
    return Played(
        False,
        ref_moves,
        [frozenset(c) for c in ref.captured],
        frozenset(ref.leftovers),
        list(ref.scope),
        ref.points,
        ref.opening,
        ref.stopped_by,
        ref,
    )


def table_after(deal: Played, play: int) -> set[int]:
    """The table after ``play`` (0-based), rebuilt from the pack order of the moves."""
    table = set(frozenset().union(*deal.captured) | deal.leftovers)  # start from every card
    table -= {m[1] for m in deal.moves}  # not yet played from a hand: the 4 table cards
    for m in deal.moves[: play + 1]:
        if m[2]:
            table -= set(m[2])
        else:
            table.add(m[1])
    return table


def actions_both(rules: Variant, hand: Iterable[int], table: Iterable[int]) -> set:
    """The legal actions as ``{(card, frozenset(captured))}``, from the reference engine and
    from the vectorised engine's kernel, which must agree."""
    hand, table = frozenset(hand), frozenset(table)
    ref = set(reference.legal_actions(rules, hand, table))
    out = kernels.legal_actions(
        np.array([mask_of(hand)], np.uint64),
        np.array([mask_of(table)], np.uint64),
        rules.pack.ranks,
        rules.fewest_cards,
        rules.forced_capture,
        rule=kernels.KernelRules.of(rules).rule,
    )
    card_, capture, _group, count = out[:4]
    vec = {(int(card_[0, k]), frozenset(cards_of(capture[0, k]))) for k in range(count[0])}
    assert ref == vec, f"engines disagree: reference {ref}, vectorised kernel {vec}"
    return ref


def score_both(rules: Variant, captured: Sequence[Iterable[int]], scope=None) -> list[dict]:
    """Points per side and category from ``reference.score_deal`` and from the vectorised
    ``scoring.score`` fed the same captured sets; they must agree."""
    sets = [set(c) for c in captured]
    scope = list(scope or [0] * len(sets))
    ref = reference.score_deal(rules, sets, scope)
    out = scoring.score(
        rules,
        np.array([[mask_of(s) for s in sets]], np.uint64),
        np.array([scope], np.int16),
    )
    vec = [
        {name: int(out.points[0, side, i]) for i, name in enumerate(CATEGORIES)}
        for side in range(len(sets))
    ]
    assert ref == vec, f"engines disagree: reference {ref}, vectorised {vec}"
    return ref


def winner_of(points: list[dict], category: str) -> int | None:
    """The side that scored ``category`` (None if nobody did)."""
    won = [side for side, p in enumerate(points) if p[category]]
    assert len(won) <= 1, f"{category} scored by several sides: {won}"
    return won[0] if won else None


# =================================================================================================
# Deliberately built deals (classic, 2 players). Four cavalli on the table stay there when no
# cavallo is in a hand and no ace lies beside them, so they block sweeps; ranks up to 8 are then
# captured in pairs ("5D", "5C:5D") or as two cards summing to a third ("AS", "6S", "7D:AS+6S").
# =================================================================================================

#: P1 (primiera: standard vs most_sevens; napola; re bello; leftovers).
#: Side 0 ends with 7D 7C 6D 6C, all four aces, 2-3-4-F of coins and cups; side 1 with 7S 7B
#: 6S 6B, all four fives, all kings, 2-3-4-F of swords and clubs, and the four cavalli that
#: never left the table (side 1 made the last capture).
P1_TABLE = "CD CC CS CB"
P1_PLAYS = [
    *("7S", "7B:7S", "6S", "6B:6S", "5D", "5C:5D"),
    *("5S", "5B:5S", "RD", "7D", "7C:7D", "6D"),
    *("6C:6D", "AD", "AC:AD", "AS", "AB:AS", "RC:RD"),
    *("2S", "2B:2S", "3S", "3B:3S", "4S", "4B:4S"),
    *("FS", "FB:FS", "RS", "2D", "2C:2D", "3D"),
    *("3C:3D", "4D", "4C:4D", "FD", "FC:FD", "RB:RS"),
]
P1_SIDE0 = cards("7D 7C 6D 6C AD AC AS AB 2D 2C 3D 3C 4D 4C FD FC")

#: P2 (primiera_missing_suit). Side 0 ends with every ace-to-seven of coins, cups and swords and
#: no club at all: three suits headed by sevens, 63 when a missing suit counts zero. Side 1 has
#: all ten clubs and the twelve face cards: 21 + 10 + 10 + 10 = 51.
P2_TABLE = "CD CC CS CB"
P2_PLAYS = [
    *("AS", "6S", "7D:AS+6S", "AD", "AC:AD", "2D"),
    *("2C:2D", "3D", "3C:3D", "4D", "4C:4D", "5D"),
    *("5C:5D", "6D", "6C:6D", "2B", "4B", "6B:2B+4B"),
    *("2S", "5S", "7C:2S+5S", "AB", "7B", "FD:AB+7B"),
    *("3S", "4S", "7S:3S+4S", "3B", "5B", "FC:3B+5B"),
    *("FS", "FB:FS", "RD", "RC:RD", "RS", "RB:RS"),
]
P2_SIDE0 = (
    suit_cards("D", "A 2 3 4 5 6 7")
    | suit_cards("C", "A 2 3 4 5 6 7")
    | suit_cards("S", "A 2 3 4 5 6 7")
)

#: P3 (primiera = face_zero). Side 0 ends with 7D 7C 7S 6D 6C 6S AD AC AS and, in clubs, only
#: the Fante: 21 + 21 + 21 + 10 = 73 (63 with face cards at 0). Side 1 holds every other club
#: (7B: 21) and coins, cups and swords no better than the fives: 21 + 15 + 15 + 15 = 66.
P3_TABLE = "CD CC CS CB"
P3_PLAYS = [
    *("5D", "5C:5D", "5S", "5B:5S", "2S", "2B:2S"),
    *("3S", "3B:3S", "4S", "4B:4S", "2D", "2C:2D"),
    *("3D", "3C:3D", "4D", "4C:4D", "AS", "6S"),
    *("7S:AS+6S", "AD", "AC:AD", "6D", "6C:6D", "7D"),
    *("7C:7D", "FD", "FB:FD", "AB", "6B", "7B:AB+6B"),
    *("FC", "FS:FC", "RD", "RC:RD", "RS", "RB:RS"),
]
P3_SIDE0 = cards("7D 7C 7S 6D 6C 6S AD AC AS FD FB")

#: P4 (primiera = most_sevens). Side 0 ends with three sevens (7D 7C 7S) and, in clubs, only the
#: Fante: 73. Side 1 has the other seven and the sixes of coins, cups and swords: 21 + 3 x 18 = 75.
P4_TABLE = "CD CC CS CB"
P4_PLAYS = [
    *("6D", "6C:6D", "6S", "6B:6S", "AS", "AB:AS"),
    *("2S", "2B:2S", "5S", "5B:5S", "AD", "AC:AD"),
    *("2D", "2C:2D", "5D", "5C:5D", "3S", "4S"),
    *("7S:3S+4S", "7D", "7C:7D", "FD", "FB:FD", "3D"),
    *("3C:3D", "4D", "4C:4D", "3B", "4B", "7B:3B+4B"),
    *("FC", "FS:FC", "RD", "RC:RD", "RS", "RB:RS"),
]
P4_SIDE0 = cards("7D 7C 7S 3S 4S FD FB 3D 3C 4D 4C")

#: L (leftovers). The last capture is seat 0's at play 34; the dealer then lays the six of cups,
#: which no one takes: the leftovers (the cavalli and 6C) go to side 0, not to the dealer's side.
L_TABLE = "CD CC CS CB"
L_PLAYS = [
    *("AD", "2D", "3D:AD+2D", "AS", "AB:AS", "2S"),
    *("2B:2S", "3S", "3B:3S", "AC", "3C", "4D:AC+3C"),
    *("4S", "4B:4S", "5D", "5C:5D", "5S", "5B:5S"),
    *("7D", "7C:7D", "RD", "RC:RD", "2C", "4C"),
    *("6D:2C+4C", "6S", "6B:6S", "7S", "7B:7S", "FD"),
    *("FC:FD", "RS", "RB:RS", "FS", "FB:FS", "6C"),
]

#: S (sweeps). Kings and cavalli take the table's kings and cavalli one by one; the fourth
#: (seat 1, play 3) sweeps: a scopa. The Fante of coins is laid on the empty table and stays
#: while seat 0 captures pair after pair; seat 1 sweeps it at play 33 (a scopa), seat 0 lays the
#: Fante of swords on the empty table, and the dealer's last card sweeps it (play 35).
S_TABLE = "RC RS CC CS"
S_PLAYS = [
    *("RD:RC", "CD:CC", "RB:RS", "CB:CS", "FD", "AD"),
    *("AC:AD", "AS", "AB:AS", "2D", "2C:2D", "2S"),
    *("2B:2S", "3D", "3C:3D", "3S", "3B:3S", "4D"),
    *("4C:4D", "4S", "4B:4S", "5D", "5C:5D", "5S"),
    *("5B:5S", "6D", "6C:6D", "6S", "6B:6S", "7D"),
    *("7C:7D", "7S", "7B:7S", "FC:FD", "FS", "FB:FS"),
]


def play_deal(table: str, plays: Sequence[str], rules: Variant = CLASSIC) -> Played:
    pack, player = scripted_deal(table, plays, rules)
    return play_both(rules, pack, player)


# =================================================================================================
# §1 Cards
# =================================================================================================


def test_card_ids_follow_the_recommended_numbering():
    """§1: id = 10 * suit + rank - 1, coins cups swords clubs; settebello 6, king of coins 9."""
    assert card("7D") == 6 == CLASSIC.settebello
    assert card("AD") == 0
    assert card("RD") == 9 == CLASSIC.king_of_coins
    assert card("AC") == 10 and card("AS") == 20 and card("RB") == 39
    assert [PACK.rank(c) for c in range(10)] == list(range(1, 11))


def test_deck_total_value_is_220():
    """§8: the capture values of the 40 cards add up to 220."""
    assert sum(PACK.rank(c) for c in ALL_CARDS) == 220


def test_maximum_primiera_is_four_sevens_84():
    """§1: the best primiera is the four sevens, 84, on both engines."""
    sevens = cards("7D 7C 7S 7B")
    assert reference.primiera_value(CLASSIC, sevens) == 84
    assert reference.primiera_value(CLASSIC, set(ALL_CARDS)) == 84
    out = scoring.score(CLASSIC, np.array([[mask_of(sevens), mask_of(ALL_CARDS)]], np.uint64),
                        np.zeros((1, 2), np.int16))  # fmt: skip
    assert out.primiera.tolist() == [[84, 84]]
    # No four-card primiera (one card per suit) beats it.
    best = max(
        reference.primiera_value(CLASSIC, set(combo))
        for combo in itertools.product(*(suit_cards(s) for s in "DCSB"))
    )
    assert best == 84


# =================================================================================================
# §3 Capturing: the worked examples
# =================================================================================================


def test_scopa_page_example_a_five_takes_either_five():
    """§3 (the Scopa rules page): table 3, 5, 5, Fante; a 5 takes one of the 5s, the player's
    choice."""
    table = cards("3D 5C 5S FB")
    assert actions_both(CLASSIC, cards("5B"), table) == {
        (card("5B"), cards("5C")),
        (card("5B"), cards("5S")),
    }


def test_scopa_page_example_a_king_takes_both_fives():
    """§3 (the Scopa rules page): table 3, 5, 5, Fante; a Re (10) takes both 5s, the only set
    making 10."""
    table = cards("3D 5C 5S FB")
    assert actions_both(CLASSIC, cards("RB"), table) == {(card("RB"), cards("5C 5S"))}


def test_scopa_page_example_a_fante_takes_only_the_fante():
    """§3 (the Scopa rules page): a Fante takes the Fante on the table, never the 5 and the 3
    (= 8)."""
    table = cards("3D 5C 5S FB")
    assert actions_both(CLASSIC, cards("FD"), table) == {(card("FD"), cards("FB"))}


def test_encyclopedia_example_a_knave_takes_only_the_knave():
    """§3 (the encyclopedia article): table 1, 3, 4, Knave; a Knave takes the Knave, not
    1 + 3 + 4."""
    table = cards("AD 3C 4S FB")
    assert actions_both(CLASSIC, cards("FD"), table) == {(card("FD"), cards("FB"))}


def test_encyclopedia_example_a_six_on_two_and_four_must_capture():
    """§3 (the encyclopedia article): with 2 and 4 on the table a 6 cannot be laid; it must take
    them."""
    table = cards("2D 4C")
    assert actions_both(CLASSIC, cards("6S"), table) == {(card("6S"), cards("2D 4C"))}


def test_encyclopedia_example_a_six_on_ace_two_four_five_has_a_choice():
    """§3 (the encyclopedia article): holding a six with an ace, a two, a four and a five on the
    table, the player may take the five and the ace or the two and the four (the article advises
    which)."""
    table = cards("AD 2C 4S 5B")
    assert actions_both(CLASSIC, cards("6S"), table) == {
        (card("6S"), cards("AD 5B")),
        (card("6S"), cards("2C 4S")),
    }


def test_a_player_need_not_play_a_capturing_card():
    """§3: the player may play another card that cannot capture (by default)."""
    table = cards("2D 4C")
    assert actions_both(CLASSIC, cards("6S FB"), table) == {
        (card("6S"), cards("2D 4C")),
        (card("FB"), frozenset()),
    }


def test_every_sum_set_is_offered():
    """§3 rule 2: with no equal rank, every set of two or more cards summing to v is a choice."""
    table = cards("AD 2D 3C 4C 5S")
    assert actions_both(CLASSIC, cards("6B"), table) == {
        (card("6B"), cards("AD 5S")),
        (card("6B"), cards("2D 4C")),
        (card("6B"), cards("AD 2D 3C")),
    }


# =================================================================================================
# §3 options: forced_capture, fewest_cards
# =================================================================================================

#: Seat 0 holds 6B (captures 2 + 4), CD and AD (cannot capture) at the first play.
FORCED_PACK = canonical_pack(CLASSIC, ids("2C 4C FS RS"), {(0, 0): ids("6B CD AD")})


def test_forced_capture_option_removes_the_lays_when_a_capture_exists():
    """§3 option forced_capture: a player who can capture must play a capturing card."""
    hand, table = cards("6B CD AD"), cards("2C 4C FS RS")
    take = (card("6B"), cards("2C 4C"))
    assert actions_both(CLASSIC, hand, table) == {
        take,
        (card("CD"), frozenset()),
        (card("AD"), frozenset()),
    }
    assert actions_both(variant("classic", forced_capture=True), hand, table) == {take}
    # With nothing to capture, forced_capture lets every card be laid.
    assert actions_both(variant("classic", forced_capture=True), cards("CD AD"), table) == {
        (card("CD"), frozenset()),
        (card("AD"), frozenset()),
    }


def test_forced_capture_option_in_a_played_deal():
    """§3 option forced_capture, in a deal: the reluctant player lays the ace at play 0, but
    with forced_capture it must take 2 + 4 with the six."""
    player = scripted({})
    default = play_both(CLASSIC, FORCED_PACK, player)
    forced = play_both(variant("classic", forced_capture=True), FORCED_PACK, player)
    assert default.moves[0] == (0, card("AD"), (), False)
    assert forced.moves[0] == (0, card("6B"), tuple(sorted(cards("2C 4C"))), False)


def test_fewest_cards_option_keeps_only_the_smallest_sum_sets():
    """§3 option fewest_cards: among sum captures only those with the fewest cards are legal."""
    table = cards("AD 2D 3C 4C")
    hand = cards("6B")
    assert actions_both(CLASSIC, hand, table) == {
        (card("6B"), cards("AD 2D 3C")),
        (card("6B"), cards("2D 4C")),
    }
    assert actions_both(variant("classic", fewest_cards=True), hand, table) == {
        (card("6B"), cards("2D 4C"))
    }
    # It does not touch equal-rank captures: a 4 still takes the 4 (one card) either way.
    assert actions_both(variant("classic", fewest_cards=True), cards("4S"), table) == {
        (card("4S"), cards("4C"))
    }


def test_match_priority_option_lets_a_sum_stand_beside_a_match():
    """§3 option match_priority (default on): a card that can take a table card of its rank may
    not take a sum; off (cirulla.md C3.3), the player chooses among both kinds."""
    table = cards("2S 5B 7S")
    hand = cards("7B")
    assert actions_both(CLASSIC, hand, table) == {(card("7B"), cards("7S"))}
    assert actions_both(variant("classic", match_priority=False), hand, table) == {
        (card("7B"), cards("7S")),
        (card("7B"), cards("2S 5B")),
    }


def test_fewest_cards_option_in_a_played_deal():
    """§3 option fewest_cards, in a deal: playing the six to take as many cards as it can
    takes A + 2 + 3 by default, and only 2 + 4 with fewest_cards."""
    pack = canonical_pack(CLASSIC, ids("AD 2D 3C 4C"), {(0, 0): ids("6B")})
    player = scripted({0: "6B:*"})
    default = play_both(CLASSIC, pack, player)
    fewest = play_both(variant("classic", fewest_cards=True), pack, player)
    assert default.moves[0] == (0, card("6B"), tuple(sorted(cards("AD 2D 3C"))), False)
    assert fewest.moves[0] == (0, card("6B"), tuple(sorted(cards("2D 4C"))), False)


# =================================================================================================
# §2 Throw-in
# =================================================================================================


@pytest.mark.parametrize(
    ("table", "thrown"),
    [("RD RC RS 4D", True), ("RD RC RS RB", True), ("RD RC 4D 5D", False), ("CD CC CS CB", False)],
)
def test_throw_in_with_three_or_four_kings_on_the_table(table, thrown):
    """§2 throw-in (default on): 3 or 4 kings among the table cards void the deal; 2 do not.
    Option throw_in=false plays every deal."""
    pack = canonical_pack(CLASSIC, ids(table))
    assert reference.is_throw_in(CLASSIC, pack) is thrown
    assert play_both(CLASSIC, pack, scripted({})).throw_in is thrown
    no_throw_in = variant("classic", throw_in=False)
    assert reference.is_throw_in(no_throw_in, pack) is False
    played = play_both(no_throw_in, pack, scripted({}))
    assert not played.throw_in and len(played.moves) == 36


def test_throw_in_probability_is_29_in_18278():
    """§2/§8: over all C(40, 4) tables, the throw-in chance is exactly 29/18278."""
    tables = list(itertools.combinations(range(PACK.n_cards), 4))
    ref = sum(reference.is_throw_in(CLASSIC, t) for t in tables)
    vec = int(batch.throw_in_rows(CLASSIC, np.array(tables, np.int8)).sum())
    assert ref == vec == 145
    assert Fraction(ref, len(tables)) == Fraction(29, 18278)
    assert not batch.throw_in_rows(
        variant("classic", throw_in=False), np.array(tables, np.int8)
    ).any()


# =================================================================================================
# §4 Scopa, the last play, the leftovers
# =================================================================================================


def test_sweeps_score_scope_but_not_on_the_last_play():
    """§4: a capture emptying the table is a scopa, except on the deal's very last play."""
    deal = play_deal(S_TABLE, S_PLAYS)
    sweeps = [i for i, m in enumerate(deal.moves) if m[2] and table_after(deal, i) == set()]
    assert sweeps == [3, 33, 35]
    scopa_plays = [i for i, m in enumerate(deal.moves) if m[3]]
    assert scopa_plays == [3, 33]
    assert deal.scope == [0, 2]
    assert deal.points[1]["scope"] == 2
    # The last play still captures its cards: the dealer's side holds both Fanti of play 35.
    assert cards("FS FB") <= deal.captured[1]
    assert deal.captured[1] == cards("CD CC CB CS FD FC FS FB")


def test_last_play_scopa_option_counts_the_last_sweep():
    """§4 option last_play_scopa: the last play's sweep is a scopa too."""
    deal = play_deal(S_TABLE, S_PLAYS, variant("classic", last_play_scopa=True))
    assert [i for i, m in enumerate(deal.moves) if m[3]] == [3, 33, 35]
    assert deal.scope == [0, 3]
    assert deal.points[1]["scope"] == 3


def test_sweep_deal_points():
    """§5 on deal S: side 0 has 32 cards, 8 coins, the settebello and the four sevens (84);
    side 1 only its two scope."""
    deal = play_deal(S_TABLE, S_PLAYS)
    assert deal.points[0] == {**dict.fromkeys(CATEGORIES, 0), "cards": 1, "coins": 1,
                              "settebello": 1, "primiera": 1}  # fmt: skip
    assert deal.points[1] == {**dict.fromkeys(CATEGORIES, 0), "scope": 2}


def test_leftovers_go_to_the_last_capturer():
    """§4: the side that captured last takes the cards left on the table (not a scopa), even
    when the other side makes the last play."""
    deal = play_deal(L_TABLE, L_PLAYS)
    last_capture = max(i for i, m in enumerate(deal.moves) if m[2])
    assert last_capture == 34 and deal.moves[34][0] == 0
    assert deal.moves[35] == (1, card("6C"), (), False)  # the dealer lays the last card
    left = cards("CD CC CS CB 6C")
    assert not left & {c for m in deal.moves for c in m[2]}, "no move captured them"
    assert left <= deal.captured[0]
    assert not left & deal.captured[1]
    assert deal.leftovers == frozenset()
    assert deal.scope == [0, 0]


def test_leftovers_go_to_the_last_capturer_when_it_is_the_dealer():
    """§4 on deal P1: the cavalli never leave the table and go to the dealer's side, which
    made the last capture (play 35); that is no scopa."""
    deal = play_deal(P1_TABLE, P1_PLAYS)
    assert deal.moves[35] == (1, card("RB"), (card("RS"),), False)
    assert cards("CD CC CS CB") <= deal.captured[1]
    assert deal.captured[0] == P1_SIDE0
    assert deal.scope == [0, 0]


def _only_lays(monkeypatch) -> None:
    """Both engines' move generators replaced by "every card may only be laid" (the table is
    seen as empty), so a deal's end can be tested on tables nobody captures from."""
    real_ref, real_vec = reference.legal_actions, kernels.legal_actions
    monkeypatch.setattr(
        reference, "legal_actions", lambda rules, hand, table: real_ref(rules, hand, frozenset())
    )
    monkeypatch.setattr(
        kernels,
        "legal_actions",
        lambda hands, tables, *a, **k: real_vec(hands, tables * 0, *a, **k),
    )


def test_nobody_captures_leftovers_belong_to_no_one(monkeypatch):
    """§4: if nobody captured during the deal, the leftovers belong to no one; §8 the pack is
    still conserved (captured sets plus leftovers partition the 40 cards).

    Such a deal cannot occur under §3 with any classic preset: each rank has four cards and a
    card whose rank lies on the table must capture, so the second card of a rank to reach the
    table always captures. The end-of-deal rule is therefore exercised by replacing both
    engines' move generators with "every card may only be laid" (their own generator applied
    to an empty table), and the reluctant scripted player lays card after card.
    """
    _only_lays(monkeypatch)
    pack = canonical_pack(CLASSIC, [])
    deal = play_both(CLASSIC, pack, scripted({}))
    assert all(not m[2] for m in deal.moves)
    assert deal.captured == [frozenset(), frozenset()]
    assert deal.leftovers == ALL_CARDS
    assert deal.points == [dict.fromkeys(CATEGORIES, 0)] * 2


# =================================================================================================
# §5 Scoring: the worked examples
# =================================================================================================

THREE_SEVENS = cards("7C 7S 7B")  # no coin: 63 if a missing suit counts 0
ONE_SEVEN_THREE_ACES = cards("7D AC AS AB")  # 21 + 3 x 16 = 69


def test_encyclopedia_primiera_example_with_missing_suit_zero():
    """§5 (the encyclopedia article): three sevens alone (63) lose to one seven and three aces
    (69) when a missing suit counts 0."""
    rules = variant("classic", primiera_missing_suit="zero")
    assert reference.primiera_value(rules, THREE_SEVENS) == 63
    assert reference.primiera_value(rules, ONE_SEVEN_THREE_ACES) == 69
    points = score_both(rules, [THREE_SEVENS, ONE_SEVEN_THREE_ACES])
    assert winner_of(points, "primiera") == 1
    out = scoring.score(rules, np.array([[mask_of(THREE_SEVENS), mask_of(ONE_SEVEN_THREE_ACES)]],
                                        np.uint64), np.zeros((1, 2), np.int16))  # fmt: skip
    assert out.primiera.tolist() == [[63, 69]]


def test_primiera_needs_all_four_suits_by_default():
    """§5 default primiera_missing_suit=void: the three sevens have no primiera at all."""
    assert reference.primiera_value(CLASSIC, THREE_SEVENS) is None
    assert reference.primiera_value(CLASSIC, ONE_SEVEN_THREE_ACES) == 69
    assert winner_of(score_both(CLASSIC, [THREE_SEVENS, ONE_SEVEN_THREE_ACES]), "primiera") == 1
    # The void side loses even to a lower primiera (four twos, 48), which its 63 beats when a
    # missing suit counts 0.
    twos = cards("2D 2C 2S 2B")
    assert winner_of(score_both(CLASSIC, [THREE_SEVENS, twos]), "primiera") == 1
    zero = variant("classic", primiera_missing_suit="zero")
    assert winner_of(score_both(zero, [THREE_SEVENS, twos]), "primiera") == 0
    # If no side has a primiera, nobody scores it.
    assert winner_of(score_both(CLASSIC, [THREE_SEVENS, cards("AD AC")]), "primiera") is None


def test_encyclopedia_napola_example():
    """§5 napola (the encyclopedia's cards): A-2-3-4-5 and the Fante of coins score 5 under
    napola=sequence (the run A..5) and 6 under napola=trentino (3 + every other coin)."""
    held = suit_cards("D", "A 2 3 4 5 F")
    expected = {"off": 0, "sequence": 5, "trentino": 6}
    for rule, points in expected.items():
        rules = variant("classic", napola=rule)
        assert reference.napola_points(rules, held) == points
        assert score_both(rules, [held, ALL_CARDS - held])[0]["napola"] == points
    # Without the three the napola is not made at all.
    rules = variant("classic", napola="trentino")
    assert reference.napola_points(rules, suit_cards("D", "A 2 4 5 6 7")) == 0


# =================================================================================================
# §5 Scoring options, on deliberately built deals played on both engines
# =================================================================================================


def test_deal_p1_default_points():
    """§5 on deal P1: side 1 has most cards (24-16); side 0 most coins (7-3), the settebello
    and the primiera (74 vs 72); no scope."""
    deal = play_deal(P1_TABLE, P1_PLAYS)
    assert deal.captured[0] == P1_SIDE0
    assert deal.captured[1] == ALL_CARDS - P1_SIDE0
    assert [len(c) for c in deal.captured] == [16, 24]
    assert deal.points[0] == {**dict.fromkeys(CATEGORIES, 0), "coins": 1, "settebello": 1,
                              "primiera": 1}  # fmt: skip
    assert deal.points[1] == {**dict.fromkeys(CATEGORIES, 0), "cards": 1}
    assert reference.primiera_value(CLASSIC, deal.captured[0]) == 21 + 21 + 16 + 16
    assert reference.primiera_value(CLASSIC, deal.captured[1]) == 21 + 21 + 15 + 15


def test_primiera_most_sevens_option():
    """§5 option primiera=most_sevens, on deal P4: side 1 wins the standard primiera (75 vs
    73), but side 0 has three sevens to one and wins under most_sevens."""
    standard = play_deal(P4_TABLE, P4_PLAYS)
    sevens = play_deal(P4_TABLE, P4_PLAYS, variant("classic", primiera="most_sevens"))
    assert standard.captured[0] == P4_SIDE0
    assert sevens.captured == standard.captured  # a scoring option does not change play
    assert reference.primiera_value(CLASSIC, P4_SIDE0) == 73
    assert reference.primiera_value(CLASSIC, ALL_CARDS - P4_SIDE0) == 75
    assert winner_of(standard.points, "primiera") == 1
    assert winner_of(sevens.points, "primiera") == 0


def test_most_sevens_tie_break_runs_down_in_rank_order():
    """§5 most_sevens: "most sevens wins, a tie goes to most sixes, and so on down to aces".
    Read in rank order (7, 6, 5, 4, 3, 2, A), as both engines do. In P1 sevens and sixes are
    2-2 and side 1 has the four fives, side 0 the four aces: side 1 wins. (Read in primiera
    order, 7, 6, A, 5, ..., side 0 would win; see the report on this ambiguity.)"""
    standard = play_deal(P1_TABLE, P1_PLAYS)
    sevens = play_deal(P1_TABLE, P1_PLAYS, variant("classic", primiera="most_sevens"))
    assert sevens.captured == standard.captured
    assert winner_of(standard.points, "primiera") == 0  # 74 vs 72
    assert winner_of(sevens.points, "primiera") == 1


def test_primiera_most_sevens_full_tie_scores_nothing():
    """§5 most_sevens: a full tie (same count of every rank 7 down to A) scores nothing."""
    rules = variant("classic", primiera="most_sevens")
    coins_and_cups = suit_cards("D") | suit_cards("C")
    assert winner_of(score_both(rules, [coins_and_cups, ALL_CARDS - coins_and_cups]),
                     "primiera") is None  # fmt: skip
    # One more six for side 1 (and everything else tied on sevens) decides it.
    assert winner_of(score_both(rules, [cards("7D 5D"), cards("7C 6C")]), "primiera") == 1


def test_primiera_missing_suit_option_in_a_deal():
    """§5 option primiera_missing_suit, on deal P2: side 0 has no club. By default (void) it
    has no primiera and side 1 (51) scores it; with zero, side 0's 63 wins."""
    void = play_deal(P2_TABLE, P2_PLAYS)
    zero = play_deal(P2_TABLE, P2_PLAYS, variant("classic", primiera_missing_suit="zero"))
    assert void.captured[0] == P2_SIDE0 and zero.captured == void.captured
    assert reference.primiera_value(CLASSIC, P2_SIDE0) is None
    assert reference.primiera_value(CLASSIC, ALL_CARDS - P2_SIDE0) == 51
    assert winner_of(void.points, "primiera") == 1
    assert winner_of(zero.points, "primiera") == 0
    assert [void.total(0), void.total(1)] == [3, 1]  # cards 21-19, coins 7-3, settebello
    assert [zero.total(0), zero.total(1)] == [4, 0]


def test_primiera_face_zero_option_in_a_deal():
    """§5 option primiera=face_zero, on deal P3: side 0's best club is a Fante, so its 73 drops
    to 63 with face cards at 0, below side 1's 66: the point changes sides."""
    standard = play_deal(P3_TABLE, P3_PLAYS)
    face_zero = play_deal(P3_TABLE, P3_PLAYS, variant("classic", primiera="face_zero"))
    assert standard.captured[0] == P3_SIDE0 and face_zero.captured == standard.captured
    rules = variant("classic", primiera="face_zero")
    assert reference.primiera_value(CLASSIC, P3_SIDE0) == 73
    assert reference.primiera_value(rules, P3_SIDE0) == 63
    assert reference.primiera_value(CLASSIC, ALL_CARDS - P3_SIDE0) == 66
    assert reference.primiera_value(rules, ALL_CARDS - P3_SIDE0) == 66
    assert winner_of(standard.points, "primiera") == 0
    assert winner_of(face_zero.points, "primiera") == 1


def test_re_bello_option():
    """§5 option re_bello: the side holding the king of coins scores 1 (side 1 in P1)."""
    plain = play_deal(P1_TABLE, P1_PLAYS)
    bello = play_deal(P1_TABLE, P1_PLAYS, variant("classic", re_bello=True))
    assert card("RD") in bello.captured[1]
    assert plain.category("re_bello") == [0, 0]
    assert bello.category("re_bello") == [0, 1]
    assert bello.total(1) == plain.total(1) + 1 and bello.total(0) == plain.total(0)


def test_napola_option_in_a_deal():
    """§5 option napola, on deal P1: side 0 holds A 2 3 4 6 7 F of coins (not the 5): 4 for the
    run A..4 under sequence, 7 (3 + four other coins) under trentino, nothing when off."""
    coins = {
        rule: play_deal(P1_TABLE, P1_PLAYS, variant("classic", napola=rule)).category("napola")
        for rule in ("off", "sequence", "trentino")
    }
    assert P1_SIDE0 & suit_cards("D") == suit_cards("D", "A 2 3 4 6 7 F")
    assert coins == {"off": [0, 0], "sequence": [4, 0], "trentino": [7, 0]}


# =================================================================================================
# §5 Ties
# =================================================================================================

#: A 20-20 split with 5 coins each and equal primiera (74 each): A-5 of coins and swords and
#: 6-R of cups and clubs against the rest.
HALF = (
    suit_cards("D", "A 2 3 4 5")
    | suit_cards("S", "A 2 3 4 5")
    | suit_cards("C", "6 7 F C R")
    | suit_cards("B", "6 7 F C R")
)


def test_ties_score_nothing_with_two_sides():
    """§5: cards 20-20, coins 5-5 and equal primiera score nothing; the settebello still does."""
    other = ALL_CARDS - HALF
    assert (len(HALF), len(other)) == (20, 20)
    assert reference.primiera_value(CLASSIC, set(HALF)) == 74
    assert reference.primiera_value(CLASSIC, set(other)) == 74
    points = score_both(CLASSIC, [HALF, other])
    for category in ("cards", "coins", "primiera"):
        assert winner_of(points, category) is None, category
    assert points[1]["settebello"] == 1
    assert [sum(p.values()) for p in points] == [0, 1]


def test_each_tied_category_is_independent():
    """§5: breaking one tie awards only that category: moving the Fante of swords makes cards
    21-19, while coins stay 5-5 and both primiere 74."""
    moved = HALF | cards("FS")
    points = score_both(CLASSIC, [moved, ALL_CARDS - moved])
    assert winner_of(points, "cards") == 0
    assert winner_of(points, "coins") is None
    assert winner_of(points, "primiera") is None  # side 0's best sword is still the ace


#: Three sides: sides 0 and 1 tie for the most in cards (15-15-10), coins (4-4-2) and primiera
#: (73-73-71); side 2 is lower in each and holds the settebello.
THREE_SIDES = [
    cards("AD 2D 3D 4D 7C AC 4C 5C FC 6S 2S 3S 6B 2B 3B"),
    cards("5D 6D FD CD 3C 2C CC RC 7S 4S 5S FS 7B 4B 5B"),
    cards("7D RD 6C AS CS RS AB FB CB RB"),
]


def test_three_sides_tie_for_the_most_scores_nothing():
    """§5: with more than two sides a category goes to the side with strictly the most; a tie
    for the most between two sides scores nothing even though the third is lower."""
    rules = variant("classic-3p")
    assert frozenset().union(*THREE_SIDES) == ALL_CARDS and sum(map(len, THREE_SIDES)) == 40
    assert [reference.primiera_value(rules, set(s)) for s in THREE_SIDES] == [73, 73, 71]
    points = score_both(rules, THREE_SIDES)
    for category in ("cards", "coins", "primiera"):
        assert winner_of(points, category) is None, category
    assert [sum(p.values()) for p in points] == [0, 0, 1]  # the settebello


def test_three_sides_strict_most_scores():
    """§5 control for the tie test: the same split with one card moved from side 1 to side 0
    gives side 0 strictly the most cards (16-14-10), and only that changes."""
    rules = variant("classic-3p")
    moved = [THREE_SIDES[0] | cards("FS"), THREE_SIDES[1] - cards("FS"), THREE_SIDES[2]]
    points = score_both(rules, moved)
    assert winner_of(points, "cards") == 0
    assert winner_of(points, "coins") is None
    assert winner_of(points, "primiera") is None


# =================================================================================================
# §6 A game: the target and the winner
# =================================================================================================


def test_game_winner_one_side_reaches_the_target():
    """§6: the first side to reach the target at the end of a deal wins."""
    assert reference.game_winner([11, 7], 11) == 0
    assert reference.game_winner([9, 13], 11) == 1
    assert reference.game_winner([10, 10], 11) is None
    assert reference.game_winner([5, 11, 7], 11) == 1


def test_game_winner_both_reach_it_with_different_scores():
    """§6: if several sides reach the target in the same deal, the most points wins."""
    assert reference.game_winner([12, 14], 11) == 1
    assert reference.game_winner([17, 16], 16) == 0
    assert reference.game_winner([13, 12, 11], 11) == 0


def test_game_winner_equal_scores_at_the_target_play_on():
    """§6: equal scores at or over the target: no winner yet, more deals are played."""
    assert reference.game_winner([11, 11], 11) is None
    assert reference.game_winner([14, 14], 11) is None
    assert reference.game_winner([12, 12, 3], 11) is None


@pytest.mark.parametrize("target", [11, 16])
def test_target_option_ends_games_on_the_vectorised_engine(target):
    """§6 option target: play_games ends a game exactly when reference.game_winner says a side
    has won with that target; with 16, games go on past leads that would win at 11."""
    out = api.play_games(variant("classic", target=target), ["greedy", "random"], games=40, seed=5)
    for score, final, winner in zip(out.score.tolist(), out.final, out.winner, strict=True):
        expected = reference.game_winner(score, target)
        assert bool(final) == (expected is not None), score
        assert int(winner) == (-1 if expected is None else expected), score
    assert out.final.sum() == 40
    would_win_at_11 = [reference.game_winner(s, 11) is not None for s in out.score.tolist()]
    if target == 16:
        assert any(w and not f for w, f in zip(would_win_at_11, out.final, strict=True))
    else:
        assert would_win_at_11 == out.final.tolist()


# =================================================================================================
# docs/rules.md worked examples: §3 capturing, §5 scoring
# =================================================================================================


def test_docs_3_capture_example():
    """docs/rules.md §3: table 3S 5C 5B FD. 5D takes 5C or 5B (a choice); RB takes 5C 5B, the
    only group worth 10; FS takes FD, not 3S 5C; 2C takes nothing and stays."""
    table = cards("3S 5C 5B FD")
    assert actions_both(CLASSIC, cards("5D"), table) == {
        (card("5D"), cards("5C")),
        (card("5D"), cards("5B")),
    }
    assert actions_both(CLASSIC, cards("RB"), table) == {(card("RB"), cards("5C 5B"))}
    assert actions_both(CLASSIC, cards("FS"), table) == {(card("FS"), cards("FD"))}
    assert actions_both(CLASSIC, cards("2C"), table) == {(card("2C"), frozenset())}


def test_docs_3_a_card_that_can_capture_must_capture():
    """docs/rules.md §3: table 2B 4C, hand 6S 3D: 6S must take both (a scopa), 3D may be laid
    instead; under forced_capture only 6S may be played."""
    table, hand = cards("2B 4C"), cards("6S 3D")
    take = (card("6S"), cards("2B 4C"))
    assert actions_both(CLASSIC, hand, table) == {take, (card("3D"), frozenset())}
    assert actions_both(variant("classic", forced_capture=True), hand, table) == {take}
    assert take[1] == table  # it empties the table


def test_docs_3_fewest_cards_example():
    """docs/rules.md §3: with AC 2S 4B 5D on the table a seven takes 2S 5D or AC 2S 4B; under
    fewest_cards only 2S 5D."""
    table = cards("AC 2S 4B 5D")
    assert actions_both(CLASSIC, cards("7C"), table) == {
        (card("7C"), cards("2S 5D")),
        (card("7C"), cards("AC 2S 4B")),
    }
    fewest = variant("classic", fewest_cards=True)
    assert actions_both(fewest, cards("7C"), table) == {(card("7C"), cards("2S 5D"))}


def test_docs_5_napola_example():
    """docs/rules.md §5: AD 2D 3D 4D 6D 7D RD scores 4 under sequence (the run stops at the
    missing five) and 7 under trentino (3 + 4D 6D 7D RD)."""
    held = cards("AD 2D 3D 4D 6D 7D RD")
    for rule, expected in {"off": 0, "sequence": 4, "trentino": 7}.items():
        rules = variant("classic", napola=rule)
        assert reference.napola_points(rules, held) == expected
        assert score_both(rules, [held, ALL_CARDS - held])[0]["napola"] == expected


def test_docs_5_classic_scoring_example():
    """docs/rules.md §5 (classic, two players): A has 23 cards, 6 coins with 7D, best cards
    7D 7C 7S 6B (81) and 1 scopa; B 17 cards, 4 coins, 6D 6C 6S 7B (75) and 2 scope. A scores
    cards, coins, settebello, primiera and its scopa: 5; B its 2 scope."""
    a = cards("7D 7C 7S 6B AD 2D 3D 4D 5D") | suit_cards("C", "A 2 3 4 5 F C") | suit_cards(
        "S", "A 2 3 4 5 F C"
    )  # fmt: skip
    b = ALL_CARDS - a
    assert (len(a), len(b)) == (23, 17)
    assert len(a & suit_cards("D")) == 6 and card("7D") in a
    assert cards("6D 6C 6S 7B") <= b
    assert reference.primiera_value(CLASSIC, a) == 81
    assert reference.primiera_value(CLASSIC, b) == 75
    points = score_both(CLASSIC, [a, b], [1, 2])
    assert points[0] == {**dict.fromkeys(CATEGORIES, 0), "cards": 1, "coins": 1,
                         "settebello": 1, "primiera": 1, "scope": 1}  # fmt: skip
    assert points[1] == {**dict.fromkeys(CATEGORIES, 0), "scope": 2}
    assert [sum(p.values()) for p in points] == [5, 2]


def test_docs_5_primiera_missing_suit_example():
    """docs/rules.md §5: A took every ace and numeral of coins, cups and swords (21 cards) and
    no clubs; B the nine court cards of those suits and all ten clubs. A's 63 has a missing
    suit, B has 51: B scores under void, A under zero."""
    a = frozenset().union(*(suit_cards(s, "A 2 3 4 5 6 7") for s in "DCS"))
    b = ALL_CARDS - a
    assert len(a) == 21 and not a & suit_cards("B")
    assert reference.primiera_value(CLASSIC, a) is None
    assert reference.primiera_value(variant("classic", primiera_missing_suit="zero"), a) == 63
    assert reference.primiera_value(CLASSIC, b) == 51
    assert winner_of(score_both(CLASSIC, [a, b]), "primiera") == 1
    zero = variant("classic", primiera_missing_suit="zero")
    assert winner_of(score_both(zero, [a, b]), "primiera") == 0


@pytest.mark.parametrize("rule", ["standard", "face_zero"])
def test_stored_primiera_of_a_side_without_one_is_zero(rule):
    """docs/schema.md: the primiera column is the side's primiera, 0 when it has none (never
    negative); under most_sevens its number of sevens. Both engines."""
    a = frozenset().union(*(suit_cards(s, "A 2 3 4 5 6 7") for s in "DCS"))
    rules = variant("classic", primiera=rule)
    out = scoring.score(rules, np.array([[mask_of(a), mask_of(ALL_CARDS - a)]], np.uint64),
                        np.zeros((1, 2), np.int16))  # fmt: skip
    expected = [reference.stored_primiera(rules, set(s)) for s in (a, ALL_CARDS - a)]
    assert expected[0] == 0
    assert out.primiera.tolist() == [expected]
    sevens = variant("classic", primiera="most_sevens")
    out = scoring.score(sevens, np.array([[mask_of(a), mask_of(ALL_CARDS - a)]], np.uint64),
                        np.zeros((1, 2), np.int16))  # fmt: skip
    assert out.primiera.tolist() == [[3, 1]]
    assert [reference.stored_primiera(sevens, set(s)) for s in (a, ALL_CARDS - a)] == [3, 1]
    assert reference.stored_primiera(variant("scopa-52"), set(range(52))) == 0


# =================================================================================================
# docs/rules.md §7: the presets' worked examples
# =================================================================================================


def test_docs_7_classic_example():
    """docs/rules.md §7 classic: the dealer lays 3S 5C 5B FD; seat 0 holds 5D RB 2C and may
    play 5D (taking one five), RB (both fives) or 2C (nothing). It plays RB; the dealer's FS
    must take FD; seat 0's 2C stays; the dealer's 5S takes 3S 2C: a scopa."""
    table = cards("3S 5C 5B FD")
    assert actions_both(CLASSIC, cards("5D RB 2C"), table) == {
        (card("5D"), cards("5C")), (card("5D"), cards("5B")),
        (card("RB"), cards("5C 5B")), (card("2C"), frozenset()),
    }  # fmt: skip
    assert actions_both(CLASSIC, cards("FS 5S 4B"), cards("3S FD")) >= {(card("FS"), cards("FD"))}
    assert (card("FS"), cards("3S 5C")) not in actions_both(CLASSIC, cards("FS"), cards("3S FD"))
    plays = ["RB:5C+5B", "FS:FD", "2C", "5S:3S+2C", "5D", "4B"]
    pack, player = scripted_deal("3S 5C 5B FD", plays, CLASSIC, complete=False)
    deal = play_both(CLASSIC, pack, player)
    assert deal.moves[:4] == [
        (0, card("RB"), tuple(sorted(cards("5C 5B"))), False),
        (1, card("FS"), (card("FD"),), False),
        (0, card("2C"), (), False),
        (1, card("5S"), tuple(sorted(cards("3S 2C"))), True),
    ]
    assert table_after(deal, 3) == set()
    # Three kings on the table: thrown in, and dealt again by the same dealer.
    thrown = play_both(CLASSIC, canonical_pack(CLASSIC, ids("RD RC 4B RS")), scripted({}))
    assert thrown.throw_in


def test_docs_7_classic_3p_example():
    """docs/rules.md §7 classic-3p: A 15 cards, 4 coins, 7D, primiera 78; B 13 cards, 4 coins,
    78; C 12 cards, 2 coins, 63 and 2 scope. Cards to A; coins and primiera tied: nobody. A
    scores 2 (cards, settebello), B 0, C 2 (scope)."""
    rules = variant("classic-3p")
    a = cards("7D FD CD RD 7C 6S 6B 2C 3C 4C 5C FC CC RC 2S")
    b = cards("6D AD 3D 4D 6C 7S 7B 3S 4S 5S FS CS RS")
    c = cards("5D 2D AC AS AB") | suit_cards("B", "2 3 4 5 F C R")
    assert a | b | c == ALL_CARDS and (len(a), len(b), len(c)) == (15, 13, 12)
    assert [len(s & suit_cards("D")) for s in (a, b, c)] == [4, 4, 2]
    assert [reference.primiera_value(rules, set(s)) for s in (a, b, c)] == [78, 78, 63]
    points = score_both(rules, [a, b, c], [0, 0, 2])
    assert winner_of(points, "cards") == 0
    assert winner_of(points, "coins") is None and winner_of(points, "primiera") is None
    assert [sum(p.values()) for p in points] == [2, 0, 2]


def test_docs_7_classic_4p_example():
    """docs/rules.md §7 classic-4p: partners pool their cards: seats 0 and 2 took 9 and 13 (22)
    and win the cards point against 14 + 4 = 18, though seat 1 alone took more than either; a
    scopa by seat 2 counts for the team of seats 0 and 2."""
    rules = variant("classic-4p")
    assert [rules.side_of_seat(s) for s in range(4)] == [0, 1, 0, 1]
    order = sorted(ALL_CARDS)
    seat = [order[:9], order[9:23], order[23:36], order[36:]]
    assert [len(s) for s in seat] == [9, 14, 13, 4]
    teams = [set(seat[0]) | set(seat[2]), set(seat[1]) | set(seat[3])]
    assert winner_of(score_both(rules, teams), "cards") == 0
    # In a deal: seat 2 sweeps at play 2 and the scopa is its team's.
    plays = ["AS:AD", "AB:AC", "4D:2S+2B"]
    pack, player = scripted_deal("AD AC 2S 2B", plays, rules, complete=False)
    deal = play_both(rules, pack, player)
    assert deal.moves[2] == (2, card("4D"), tuple(sorted(cards("2S 2B"))), True)
    per_side = [0, 0]
    for m in deal.moves:
        per_side[rules.side_of_seat(m[0])] += m[3]
    assert deal.scope == per_side and deal.scope[0] >= 1


#: The classic-6p worked example: the deal's last play (the dealer's 6D) takes 4C 2S.
SIX_P_TABLE = "RD RC CD CC"
SIX_P_PLAYS = [
    *("RS:RD", "RB:RC", "CS:CD", "CB:CC", "FD", "FC:FD"),
    *("FS", "FB:FS", "AD", "AS:AD", "AB", "AC:AB"),
    *("3D", "3C:3D", "3S", "3B:3S", "5D", "5C:5D"),
    *("5S", "5B:5S", "2D", "2C:2D", "4D", "4S:4D"),
    *("6C", "6S:6C", "7D", "7C:7D", "7S", "7B:7S"),
    *("4B", "2B", "6B:4B+2B", "4C", "2S", "6D:4C+2S"),
]


def test_docs_7_classic_6p_example():
    """docs/rules.md §7 classic-6p: in the last hand, with 4C 2S on the table, the dealer (seat
    5) plays the deal's last card, 6D, and takes both: the table is empty, but it is the last
    play, so no scopa unless last_play_scopa=true. (The example's alternative, a last card AC
    leaving 4C 2S AC, cannot arise from a whole pack: every capture takes cards worth as much as
    the card played, so the cards left at the end always add up to an even number.)"""
    rules = variant("classic-6p")
    deal = play_deal(SIX_P_TABLE, SIX_P_PLAYS, rules)
    assert table_after(deal, 34) == set(cards("4C 2S"))
    assert deal.moves[35] == (5, card("6D"), tuple(sorted(cards("4C 2S"))), False)
    assert deal.moves[32][3], "seat 2's sweep before it is a scopa"
    counted = play_deal(SIX_P_TABLE, SIX_P_PLAYS, variant("classic-6p", last_play_scopa=True))
    assert counted.moves[35][3] and counted.scope[1] == deal.scope[1] + 1
    # The parity fact: captures take twice the played values, so the leftovers are even.
    captured_value = sum(2 * PACK.rank(m[1]) for m in deal.moves if m[2])
    assert captured_value == 220


def test_docs_7_scopone_example():
    """docs/rules.md §7 scopone: table 2D 5C 5S 7B. Seat 0's 7C must take 7B (not 2D 5C);
    seat 1's 5B takes a five (5C); seat 2's 2C takes 2D; the dealer's 5D takes 5S and empties
    the table: a scopa for seats 1 and 3. A seven instead of 2C would take 2D 5S: a spariglio."""
    rules = variant("scopone")
    assert actions_both(rules, cards("7C"), cards("2D 5C 5S 7B")) == {(card("7C"), cards("7B"))}
    assert actions_both(rules, cards("5B"), cards("2D 5C 5S")) == {
        (card("5B"), cards("5C")), (card("5B"), cards("5S"))
    }  # fmt: skip
    assert actions_both(rules, cards("7S"), cards("2D 5S")) == {(card("7S"), cards("2D 5S"))}
    plays = ["7C:7B", "5B:5C", "2C:2D", "5D:5S"]
    pack, player = scripted_deal("2D 5C 5S 7B", plays, rules, complete=False)
    deal = play_both(rules, pack, player)
    assert [m[3] for m in deal.moves[:4]] == [False, False, False, True]
    assert rules.side_of_seat(deal.moves[3][0]) == 1
    assert len(deal.moves) == 36 and rules.hands == (9,)


def test_docs_7_scopone_scientifico_example():
    """docs/rules.md §7 scopone-scientifico: no table cards; seat 0 leads 4D onto the empty
    table, where it stays; seat 1's 4S takes it: a scopa on the deal's second card for the team
    of seats 1 and 3. With last_play_scopa the dealer's tenth card may sweep for a scopa."""
    rules = variant("scopone-scientifico")
    plays = ["4D", "4S:4D"]
    pack, player = scripted_deal("", plays, rules, complete=False)
    deal = play_both(rules, pack, player)
    assert deal.moves[:2] == [(0, card("4D"), (), False), (1, card("4S"), (card("4D"),), True)]
    assert deal.scope[1] >= 1 and len(deal.moves) == 40


# Escoba ------------------------------------------------------------------------------------------

ESCOBA = variant("escoba")


def test_docs_7_escoba_captures_to_fifteen():
    """docs/rules.md §7 escoba: table 3C 5S FB RD. Seat 0's 7D needs 8: FB alone or 3C 5S (no
    equal-rank rule). It takes FB. The dealer's 2B needs 13: only 3C RD (5S RD makes 15, not
    13). Seat 0's RC needs 5: takes 5S and empties the table: an escoba."""
    assert actions_both(ESCOBA, cards("7D"), cards("3C 5S FB RD")) == {
        (card("7D"), cards("FB")), (card("7D"), cards("3C 5S"))
    }  # fmt: skip
    assert actions_both(ESCOBA, cards("2B"), cards("3C 5S RD")) == {(card("2B"), cards("3C RD"))}
    assert actions_both(ESCOBA, cards("RC"), cards("5S")) == {(card("RC"), cards("5S"))}
    # fewest_cards keeps only FB; a single card of the played rank is no capture in escoba.
    fewest = variant("escoba", fewest_cards=True)
    assert actions_both(fewest, cards("7D"), cards("3C 5S FB RD")) == {(card("7D"), cards("FB"))}
    assert actions_both(ESCOBA, cards("7D"), cards("7C")) == {(card("7D"), frozenset())}
    plays = ["7D:FB", "2B:3C+RD", "RC:5S"]
    pack, player = scripted_deal("3C 5S FB RD", plays, ESCOBA, complete=False)
    deal = play_both(ESCOBA, pack, player)
    assert deal.opening == 0
    assert deal.moves[:3] == [
        (0, card("7D"), (card("FB"),), False),
        (1, card("2B"), tuple(sorted(cards("3C RD"))), False),
        (0, card("RC"), (card("5S"),), True),
    ]


@pytest.mark.parametrize(
    ("table", "escobas"),
    [("AD 3C 5S 6B", 1), ("7D FC 5S RB", 2), ("RD RC CS AB", 0)],
)
def test_docs_7_escoba_openings(table, escobas):
    """docs/rules.md §7 escoba: an opening table worth 15 gives the dealer 1 escoba (AD 3C 5S
    6B); worth 30 in two fifteens, 2 (7D FC 5S RB: 7 + 8 and 5 + 10); worth 30 with no group of
    15 (RD RC CS AB), nothing, and the cards stay on the table. The opening cards are the
    dealer's captures, so the dealer takes the leftovers until someone else captures."""
    pack = canonical_pack(ESCOBA, ids(table))
    assert reference.opening_sweeps(ESCOBA, ids(table)) == escobas
    assert batch.opening_sweeps(ESCOBA, np.array([pack], np.int8)).tolist() == [escobas]
    deal = play_both(ESCOBA, pack, scripted({}))
    assert deal.opening == escobas
    dealer = ESCOBA.side_of_seat(ESCOBA.n_players - 1)
    from_moves = [0, 0]
    for m in deal.moves:
        from_moves[ESCOBA.side_of_seat(m[0])] += m[3]
    from_moves[dealer] += escobas
    assert deal.scope == from_moves
    if escobas:
        assert cards(table) <= deal.captured[dealer]
    # Elsewhere the rule does not apply.
    assert reference.opening_sweeps(CLASSIC, ids(table)) == 0


def test_escoba_opening_makes_the_dealer_last_capturer(monkeypatch):
    """docs/rules.md §7 escoba: the opening cards count as the dealer's captures, so the dealer
    is the last capturer until someone else captures: in a deal where nobody else captures,
    every card left at the end is the dealer's side's, not nobody's. As in the test of §4's
    leftovers, both engines' move generators are replaced by "every card may only be laid"."""
    _only_lays(monkeypatch)
    pack = canonical_pack(ESCOBA, ids("AD 3C 5S 6B"))
    deal = play_both(ESCOBA, pack, scripted({}))
    assert deal.opening == 1 and all(not m[2] for m in deal.moves)
    assert deal.captured == [frozenset(), ALL_CARDS] and deal.leftovers == frozenset()
    assert deal.scope == [0, 1]
    # Without an opening, the same deal leaves everything to nobody.
    pack = canonical_pack(ESCOBA, ids("AD 3C 5S 7B"))
    deal = play_both(ESCOBA, pack, scripted({}))
    assert deal.opening == 0 and deal.leftovers == ALL_CARDS


def test_escoba_opening_rates_are_3120_and_876_of_91390():
    """docs/rules.md §8: over all C(40, 4) = 91,390 opening tables, 3,120 add up
    to 15 and 876 to 30 split into two fifteens, on both engines."""
    tables = list(itertools.combinations(range(40), 4))
    assert len(tables) == 91390
    ref = [reference.opening_sweeps(ESCOBA, t) for t in tables]
    vec = batch.opening_sweeps(ESCOBA, np.array(tables, np.int8)).tolist()
    assert ref == vec
    assert (ref.count(1), ref.count(2)) == (3120, 876)


@pytest.mark.parametrize(("escobas", "count"), [(1, 3120), (2, 876)])
def test_escoba_opening_rates_over_seeded_packs(escobas, count):
    """docs/rules.md §8: the openings of 200,000 seeded packs (the engine's own pack stream) occur
    at the rates 3120/91390 and 876/91390, within 4 binomial standard errors."""
    from scopa_sim import seeding

    n = 200_000
    key = seeding.stream_key(8, seeding.PACKS)
    game, deal = np.arange(n, dtype=np.int64), np.zeros(n, np.int64)
    packs, redeals = batch.deal_packs(ESCOBA, key, game, deal)
    assert not redeals.any()  # escoba has no throw-in
    hits = int((batch.opening_sweeps(ESCOBA, packs) == escobas).sum())
    p = count / 91390
    assert abs(hits / n - p) < 4 * (p * (1 - p) / n) ** 0.5, (hits, n * p)


# Asso piglia tutto -------------------------------------------------------------------------------

ASSO = variant("asso-piglia-tutto")


def test_docs_7_asso_piglia_tutto_ace_sweeps_the_table():
    """docs/rules.md §7 asso-piglia-tutto: with 3C 5S RB on the table, AD takes all three (no
    ace there); with AC 4S 6B, AS takes only AC; onto an empty table an ace stays."""
    assert actions_both(ASSO, cards("AD"), cards("3C 5S RB")) == {(card("AD"), cards("3C 5S RB"))}
    assert actions_both(ASSO, cards("AS"), cards("AC 4S 6B")) == {(card("AS"), cards("AC"))}
    assert actions_both(ASSO, cards("AS"), frozenset()) == {(card("AS"), frozenset())}
    # Other cards capture as in §3; in classic the ace takes nothing here.
    assert actions_both(ASSO, cards("RS"), cards("4S 6B")) == {(card("RS"), cards("4S 6B"))}
    assert actions_both(CLASSIC, cards("AD"), cards("3C 5S RB")) == {(card("AD"), frozenset())}


#: Asso piglia tutto: plays 0-10 of the docs/rules.md §7 example (seat 0's AD sweeps 3C 5S RB at
#: play 2; the dealer's AS takes only AC at play 9; seat 0's RS sweeps 4S 6B at play 10).
ASSO_TABLE = "3C 5S RB 2D"
ASSO_PLAYS = [
    *("4B", "6D:2D+4B", "AD:3C+5S+RB", "FD", "2B", "RC:FD+2B"),
    *("AC", "4S", "6B", "AS:AC", "RS:4S+6B"),
]


@pytest.mark.parametrize("ace_sweep_scopa", [False, True])
def test_docs_7_asso_piglia_tutto_example(ace_sweep_scopa):
    """docs/rules.md §7 asso-piglia-tutto: the table is 3C 5S RB; seat 0's AD takes all three
    (no scopa by default; 1 with ace_sweep_scopa=true). Later an ace laid on the empty table
    stays; with AC 4S 6B on the table the dealer's AS takes only AC, leaving 4S 6B for seat 0,
    whose RS takes both: a scopa."""
    rules = variant("asso-piglia-tutto", ace_sweep_scopa=ace_sweep_scopa)
    pack, player = scripted_deal(ASSO_TABLE, ASSO_PLAYS, rules, complete=False)
    deal = play_both(rules, pack, player)
    assert table_after(deal, 1) == set(cards("3C 5S RB"))
    assert deal.moves[2] == (0, card("AD"), tuple(sorted(cards("3C 5S RB"))), ace_sweep_scopa)
    assert deal.moves[5][3]  # the dealer's king sweeps FD 2B: an ordinary scopa
    assert deal.moves[6] == (0, card("AC"), (), False)  # onto an empty table: it stays
    assert table_after(deal, 8) == set(cards("AC 4S 6B"))
    assert deal.moves[9] == (1, card("AS"), (card("AC"),), False)
    assert deal.moves[10] == (0, card("RS"), tuple(sorted(cards("4S 6B"))), True)
    assert reference.is_ace_sweep(rules, card("AD"), cards("3C 5S RB"))
    assert not reference.is_ace_sweep(rules, card("AS"), cards("AC"))
    # The option changes only the ace sweeps' scopa flags, never the play.
    other = play_both(variant("asso-piglia-tutto", ace_sweep_scopa=not ace_sweep_scopa), pack,
                      player)  # fmt: skip
    flips = [i for i, (a, b) in enumerate(zip(deal.moves, other.moves, strict=True))
             if a != b]  # fmt: skip
    assert 2 in flips
    for i in flips:
        seat, played, taken, _ = deal.moves[i]
        assert other.moves[i][:3] == (seat, played, taken)
        assert reference.is_ace_sweep(rules, played, taken)


def test_asso_piglia_tutto_ace_on_a_lone_ace_is_a_scopa():
    """docs/rules.md §7: an ace that takes the only card on the table because that card is an
    ace is an ordinary equal-rank capture, a scopa as usual (ace_sweep_scopa=false)."""
    plays = ["RD:2C+3S+5D", "4C:4B", "AD", "AC:AD"]
    pack, player = scripted_deal("2C 3S 4B 5D", plays, ASSO, complete=False)
    deal = play_both(ASSO, pack, player)
    assert deal.moves[1][3], "the table swept by the four"
    assert deal.moves[2] == (0, card("AD"), (), False)  # onto an empty table: it stays
    assert deal.moves[3] == (1, card("AC"), (card("AD"),), True)


# scopa-52 ----------------------------------------------------------------------------------------


def test_docs_7_scopa_52_example_captures():
    """docs/rules.md §7 scopa-52: table 6H 7C 2S 9D. Seat 0's KS (13): no king on the table,
    6H 7C is the only group worth 13. The dealer's JD (11) takes 2S 9D and empties the table: a
    scopa. Before the deal both have 9, so 9 + 1 does not end the game on the spot."""
    rules = variant("scopa-52")
    assert actions_both(rules, french("KS"), french("6H 7C 2S 9D")) == {
        (card("KS", FRENCH_52), french("6H 7C"))
    }
    assert actions_both(rules, french("JD"), french("2S 9D")) == {
        (card("JD", FRENCH_52), french("2S 9D"))
    }
    plays = ["KS:6H+7C", "JD:2S+9D"]
    pack, player = scripted_deal("6H 7C 2S 9D", plays, rules, complete=False)
    deal = play_both(rules, pack, player, scores=[9, 9])
    assert deal.moves[1] == (1, card("JD", FRENCH_52), tuple(sorted(french("2S 9D"))), True)
    assert len(deal.moves) > 2 and (deal.stopped_by is None or deal.stopped_by == 1)


def _deal_with(rules, points, captured=None, stopped_by=None):
    """A reference DealResult with the given points per side (only the totals matter)."""
    return reference.DealResult(
        throw_in=False,
        captured=captured or [set() for _ in points],
        scope=[p.get("scope", 0) for p in points],
        points=[{**dict.fromkeys(CATEGORIES, 0), **p} for p in points],
        stopped_by=stopped_by,
    )


def _vector_winner(rules, before, points, seat_side, captured=None, stopped_by=-1) -> int:
    """``batch.game_winners`` of one constructed deal."""
    sides = rules.n_sides
    pts = np.zeros((1, sides, len(CATEGORIES)), np.int16)
    for side, p in enumerate(points):
        for name, value in p.items():
            pts[0, side, CATEGORIES.index(name)] = value
    scores = scoring.DealScores(*(np.zeros((1, sides), np.int16) for _ in range(4)), pts)
    masks = [mask_of(c) for c in (captured or [set()] * sides)]
    dealt = batch.DealBatch(
        captured=np.array([masks], np.uint64), scope=np.zeros((1, sides), np.int16),
        leftovers=np.zeros(1, np.uint64), seat_side=np.array([seat_side], np.int8),
        opening=np.zeros(1, np.int8), stopped_by=np.array([stopped_by], np.int8), steps=None,
    )  # fmt: skip
    return int(batch.game_winners(rules, np.array([before], np.int16), scores, dealt)[0])


def test_docs_7_scopa_52_count_in_turn_order():
    """docs/rules.md §7 scopa-52: both at 9 before the deal; seat 0 wins cards and hearts (+2),
    the dealer sevens, the seven of hearts and a scopa (+3). Seat 0 counts first and reaches
    11: it wins, although the dealer would finish with 12. Both engines."""
    rules = variant("scopa-52")
    points = [{"cards": 1, "coins": 1}, {"sevens": 1, "settebello": 1, "scope": 1}]
    result = _deal_with(rules, points)
    assert result.totals == [2, 3]
    assert reference.winner_after_deal(rules, [9, 9], result, [0, 1]) == 0
    assert reference.game_winner([11, 12], 11) == 1  # the plain rule would give it the dealer
    assert _vector_winner(rules, [9, 9], points, [0, 1]) == 0
    # The seat order decides, whatever the side numbers: with side 1 leading, side 1 wins.
    assert reference.winner_after_deal(rules, [9, 9], result, [1, 0]) == 1
    assert _vector_winner(rules, [9, 9], points, [1, 0]) == 1
    # In three- and four-player games too: the first seat at the target wins.
    four = variant("scopa-52-4p")
    points4 = [{"cards": 1}, {"scope": 2}, {"coins": 1, "sevens": 1}, {"scope": 3}]
    result4 = _deal_with(four, points4)
    assert reference.winner_after_deal(four, [10, 9, 9, 9], result4, [2, 3, 0, 1]) == 2
    assert _vector_winner(four, [10, 9, 9, 9], points4, [2, 3, 0, 1]) == 2
    assert reference.winner_after_deal(four, [10, 9, 9, 9], result4, [3, 0, 1, 2]) == 3
    assert _vector_winner(four, [10, 9, 9, 9], points4, [3, 0, 1, 2]) == 3
    assert reference.winner_after_deal(four, [0, 0, 0, 0], result4, [0, 1, 2, 3]) is None


#: scopa-52-3p: the first two hands (18 plays); the dealer (seat 2) sweeps at play 11.
THREE_52_TABLE = "KH KD QH QD"
THREE_52_PLAYS = [
    *("KS:KH", "KC:KD", "QS:QH"), *("QC:QD", "JH", "2H"), *("JD:JH", "2D:2H", "3H"),
    *("3D:3H", "4H", "4D:4H"), *("5H", "5D:5H", "6H"), *("6D:6H", "7H", "7D:7H"),
]  # fmt: skip


def test_docs_7_scopa_52_3p_immediate_win():
    """docs/rules.md §7 scopa-52-3p (4 + 3 x (4 x 3 + 4) = 52 cards): the dealer (seat 2) has
    10 points; in the second hand it sweeps the table: 10 + 1 reaches 11, it wins at once, the
    deal stops and nothing else in it is counted. Both engines."""
    rules = variant("scopa-52-3p")
    assert rules.table_cards + rules.n_players * sum(rules.hands) == 52
    pack, player = scripted_deal(THREE_52_TABLE, THREE_52_PLAYS, rules, complete=False)
    deal = play_both(rules, pack, player, scores=[0, 0, 10])
    assert len(deal.moves) == 12  # plays 9-11 are the second hand's first round
    assert deal.moves[-1] == (2, card("4D", FRENCH_52), (card("4H", FRENCH_52),), True)
    assert deal.stopped_by == 2
    assert deal.scope == [2, 1, 1]  # seat 0 swept at plays 3 and 9, seat 1 at play 7
    assert deal.points == [{**dict.fromkeys(CATEGORIES, 0), "scope": k} for k in (2, 1, 1)]
    assert reference.winner_after_deal(rules, [0, 0, 10], deal.result) == 2
    # The cards not captured (hands, stock) belong to nobody.
    taken = frozenset().union(*deal.captured)
    assert deal.leftovers == frozenset(range(52)) - taken
    # Without the option the deal is played out and counted at its end.
    rules_off = variant("scopa-52-3p", scopa_wins_immediately=False)
    played = play_both(rules_off, pack, player, scores=[0, 0, 10])
    assert played.stopped_by is None and len(played.moves) == rules.plays


def test_docs_7_scopa_52_4p_ties():
    """docs/rules.md §7 scopa-52-4p: cards 14, 14, 13, 11: the two 14s tie, nobody scores;
    hearts 5, 4, 2, 2: the player with 5 scores. Sevens 2-2-0-0 score nothing."""
    rules = variant("scopa-52-4p")
    hearts = [french(x) for x in ("AH 2H 3H 4H 5H", "6H 8H 9H 10H", "JH QH", "KH 7H")]
    others = sorted(frozenset(range(52)) - frozenset().union(*hearts) - french("7D 7S 7C"))
    sizes = [14, 14, 13, 11]
    sets, start = [], 0
    for side, size in enumerate(sizes):
        extra = french("7D 7S") if side == 0 else french("7C") if side == 1 else frozenset()
        need = size - len(hearts[side]) - len(extra)
        sets.append(hearts[side] | extra | frozenset(others[start : start + need]))
        start += need
    assert start == len(others) and [len(s) for s in sets] == sizes
    assert [len(s & french("7H 7D 7S 7C")) for s in sets] == [2, 1, 0, 1]
    points = score_both(rules, sets)
    assert winner_of(points, "cards") is None
    assert winner_of(points, "coins") == 0
    assert winner_of(points, "sevens") == 0
    assert points[3]["settebello"] == 1
    # A 2-2 split of the sevens scores nothing.
    two_two = [french("7H 7D 2C"), french("7S 7C 3C")]
    rest = frozenset(range(52)) - two_two[0] - two_two[1]
    points = score_both(rules, [two_two[0], two_two[1], rest, frozenset()])
    assert winner_of(points, "sevens") is None and winner_of(points, "cards") == 2


def test_scopa_52_scores_no_primiera_and_values_hearts():
    """docs/rules.md §5: the 52-card game scores cards, hearts (``coins``), sevens, the seven of
    hearts and scope, no primiera; 26-26 cards scores nothing."""
    rules = variant("scopa-52")
    half = frozenset(range(26))  # hearts and diamonds
    points = score_both(rules, [half, frozenset(range(26, 52))])
    assert winner_of(points, "cards") is None
    assert winner_of(points, "coins") == 0 and points[0]["settebello"] == 1
    assert winner_of(points, "primiera") is None
    assert winner_of(points, "sevens") is None  # 2-2


# =================================================================================================
# §6 A game: scopa_wins_immediately, napoleone, first_dealer
# =================================================================================================


def test_scopa_wins_immediately_stops_the_deal_on_both_engines():
    """docs/rules.md §6 scopa_wins_immediately: side 1 has 10 of 11; its scopa at play 3 of deal S
    takes it to 11: the deal stops there, its other plays are not played, the deal scores its
    scope alone, the cards not captured belong to nobody, and side 1 has won the game."""
    rules = variant("classic", scopa_wins_immediately=True)
    pack, player = scripted_deal(S_TABLE, S_PLAYS)
    deal = play_both(rules, pack, player, scores=[4, 10])
    assert len(deal.moves) == 4 and deal.moves[3][3]
    assert deal.stopped_by == 1
    assert deal.scope == [0, 1]
    assert deal.points == [dict.fromkeys(CATEGORIES, 0),
                           {**dict.fromkeys(CATEGORIES, 0), "scope": 1}]  # fmt: skip
    assert deal.captured == [cards("RD RC RB RS"), cards("CD CC CB CS")]
    assert deal.leftovers == ALL_CARDS - deal.captured[0] - deal.captured[1]
    assert reference.winner_after_deal(rules, [4, 10], deal.result) == 1
    # One point short, that scopa does not stop the deal; its second scopa (play 33) does.
    later = play_both(rules, pack, player, scores=[4, 9])
    assert later.stopped_by == 1 and len(later.moves) == 34 and later.scope == [0, 2]
    # By default nothing is won during a deal (the encyclopedia article: at 10 to 9 a scopa does
    # not win on the spot): the deal is played out.
    default = play_both(CLASSIC, pack, player, scores=[4, 10])
    assert default.stopped_by is None and len(default.moves) == 36
    assert default.scope == [0, 2]


def test_scopa_wins_immediately_by_the_escoba_opening():
    """docs/rules.md §6 with escoba's opening: an opening table of 15 is an escoba for the dealer;
    if it takes the dealer's side to the target, the deal stops before the first play."""
    rules = variant("escoba", scopa_wins_immediately=True)
    pack = canonical_pack(rules, ids("AD 3C 5S 6B"))
    deal = play_both(rules, pack, scripted({}), scores=[3, 14])
    assert deal.moves == [] and deal.opening == 1 and deal.stopped_by == 1
    assert deal.captured == [frozenset(), cards("AD 3C 5S 6B")]
    assert deal.leftovers == ALL_CARDS - cards("AD 3C 5S 6B")
    assert deal.points[1] == {**dict.fromkeys(CATEGORIES, 0), "scope": 1}
    assert play_both(rules, pack, scripted({}), scores=[3, 13]).moves, "13 + 1 is not 15"


def test_a_sweep_on_the_first_play_is_a_scopa_on_both_engines():
    """docs/rules.md §4: a capture that empties the table is a scopa, the deal's first play
    included: seat 0's RC takes AD 2C 3S 4B (1 + 2 + 3 + 4 = 10)."""
    pack, player = scripted_deal("AD 2C 3S 4B", ["RC:AD+2C+3S+4B"], CLASSIC, complete=False)
    deal = play_both(CLASSIC, pack, player)
    assert deal.moves[0] == (0, card("RC"), tuple(sorted(cards("AD 2C 3S 4B"))), True)
    assert deal.scope[0] >= 1 and deal.points[0]["scope"] == deal.scope[0]
    # In escoba (a 5 needs 10 = A + 2 + 3 + 4) and by an ace sweep with ace_sweep_scopa.
    pack, player = scripted_deal("AD 2C 3S 4B", ["5C:AD+2C+3S+4B"], ESCOBA, complete=False)
    assert play_both(ESCOBA, pack, player).moves[0][3]
    rules = variant("asso-piglia-tutto", ace_sweep_scopa=True)
    pack, player = scripted_deal("2C 3S 4B 5D", ["AC:2C+3S+4B+5D"], rules, complete=False)
    assert play_both(rules, pack, player).moves[0][3]


def test_napoleone_wins_the_game_outright():
    """docs/rules.md §5/§6 napoleone: a side that takes all ten coins wins the game at the end of
    the deal whatever the scores, even against another side at the target in the same deal."""
    rules = variant("classic", napoleone=True)
    coins = set(suit_cards("D"))
    points = [{"coins": 1}, {"cards": 1, "scope": 5}]
    result = _deal_with(rules, points, captured=[coins, set(ALL_CARDS - coins)])
    assert reference.winner_after_deal(rules, [0, 10], result) == 0
    assert _vector_winner(rules, [0, 10], points, [0, 1], [coins, ALL_CARDS - coins]) == 0
    plain = variant("classic")
    assert reference.winner_after_deal(plain, [0, 10], result) == 1
    assert _vector_winner(plain, [0, 10], points, [0, 1], [coins, ALL_CARDS - coins]) == 1
    # Nine coins are not enough.
    nine = [coins - {card("AD")}, set(ALL_CARDS - coins) | {card("AD")}]
    assert reference.winner_after_deal(rules, [0, 0], _deal_with(rules, points, nine)) is None


def test_napoleone_ends_a_game_below_the_target():
    """docs/rules.md §6 napoleone, in whole games: a game ends on the deal in which a side took all
    ten coins, won by that side, far below the target (found by seed: target 1000)."""
    rules = variant("classic", napoleone=True, target=1000)
    out = api.play_games(rules, ["greedy", "random"], games=8, seed=1)
    coins = np.uint64(rules.pack.suit_mask(0))
    all_coins = ((out.captured & coins) == coins).any(axis=1)
    reached = out.score.max(axis=1) >= 1000
    np.testing.assert_array_equal(out.final, all_coins | reached)
    below = np.flatnonzero(all_coins)
    assert len(below) >= 2 and (out.score[below].max(axis=1) < 1000).all()
    for row in below:
        winner = int(out.winner[row])
        assert (out.captured[row, winner] & coins) == coins


def test_first_dealer_option():
    """docs/rules.md §2 first_dealer: random (default) draws each game's first dealer; fixed makes
    player n - 1 deal first in every game. The deal then passes to the right."""
    fixed = api.play_games(variant("classic-3p", first_dealer="fixed"), ["random"] * 3,
                           games=30, seed=2)  # fmt: skip
    assert (fixed.first_dealer_side == 2).all()
    np.testing.assert_array_equal(fixed.dealer_side, (2 + fixed.deal) % 3)
    drawn = api.play_games(variant("classic-3p"), ["random"] * 3, games=30, seed=2)
    assert set(drawn.first_dealer_side.tolist()) == {0, 1, 2}
    np.testing.assert_array_equal(drawn.dealer_side, (drawn.first_dealer_side + drawn.deal) % 3)


# =================================================================================================
# Variants and options: validation and parsing
# =================================================================================================


def test_every_option_has_a_behaviour_test():
    """Guard: the options this file checks, the deal-level ones tests/test_declarations.py
    checks and the scoring ones tests/test_scoring_items.py checks are exactly
    scopa_sim.rules.OPTIONS (low_points and triple_points are scored by the scoring table: their
    points are tested there)."""
    checked = {
        "target", "throw_in", "forced_capture", "fewest_cards", "primiera",
        "primiera_missing_suit", "last_play_scopa", "re_bello", "napola", "napoleone",
        "ace_sweep_scopa", "scopa_wins_immediately", "first_dealer", "match_priority",
    }  # fmt: skip
    in_test_declarations = {
        "matta_opening", "opening_low", "two_aces_fifteen_stands", "declarations",
        "low_points", "triple_points", "declare_rounds", "matta_declarations",
    }  # fmt: skip
    in_test_scoring_items = {"grande_points", "piccola_max"}  # cirulla's grande and piccola
    assert set(OPTIONS) == checked | in_test_declarations | in_test_scoring_items


def test_unknown_variant_names_the_choices():
    with pytest.raises(RulesError) as err:
        variant("clasic")
    message = str(err.value)
    assert "clasic" in message
    for name in ("classic", "classic-3p", "classic-4p", "classic-6p"):
        assert name in message


def test_unknown_option_names_the_options():
    with pytest.raises(RulesError) as err:
        variant("classic", forced_captures=True)
    message = str(err.value)
    assert "forced_captures" in message
    for name in OPTIONS:
        assert name in message


@pytest.mark.parametrize(
    ("option", "value", "expected_in_message"),
    [
        ("target", "eleven", ["target", "whole number"]),
        ("target", 0, ["target", "1", "1000"]),
        ("target", 1001, ["target", "1", "1000"]),
        ("target", True, ["target", "1", "1000"]),
        ("throw_in", "maybe", ["throw_in", "true", "false"]),
        ("forced_capture", 2, ["forced_capture", "true", "false"]),
        ("primiera", "best", ["standard", "face_zero", "most_sevens"]),
        ("primiera_missing_suit", "skip", ["void", "zero"]),
        ("napola", "on", ["off", "sequence", "trentino"]),
        ("first_dealer", "left", ["random", "fixed"]),
        ("scopa_wins_immediately", "soon", ["true", "false"]),
    ],
)
def test_bad_option_values_name_the_valid_choices(option, value, expected_in_message):
    """A value of the wrong type or out of range is a RulesError naming what is accepted."""
    with pytest.raises(RulesError) as err:
        variant("classic", **{option: value})
    for text in expected_in_message:
        assert text in str(err.value)
    assert isinstance(err.value, ValueError)


def test_parse_variant_with_options():
    """``NAME:KEY=VALUE,...`` builds the preset with the options applied, the rest default."""
    rules = parse_variant("classic:forced_capture=true,target=16")
    assert rules.name == "classic"
    assert rules.forced_capture is True and rules.target == 16
    assert rules.fewest_cards is False and rules.throw_in is True
    assert rules == variant("classic", forced_capture=True, target=16)
    assert parse_variant("classic-4p").n_sides == 2
    assert parse_variant(" classic : napola = trentino ").napola == "trentino"


@pytest.mark.parametrize("text", ["classic:target", "classic:bogus=1", "scopa:target=11"])
def test_parse_variant_rejects_malformed_text(text):
    with pytest.raises(RulesError):
        parse_variant(text)


# =================================================================================================
# §8 Facts over many played deals
# =================================================================================================


def test_facts_over_random_deals():
    """§8: every deal conserves the pack; cards, coins and primiera go to at most one side; a
    deal without scope awards at most 4 points (cards, coins, settebello, primiera)."""
    out = api.play_deals("classic", ["greedy", "random"], deals=2000, seed=11)
    captured = out.captured
    assert (np.bitwise_or.reduce(captured, axis=1) == np.uint64((1 << 40) - 1)).all()
    assert (captured[:, 0] & captured[:, 1] == 0).all()
    for category in ("cards", "coins", "primiera"):
        assert (out.points[:, :, CATEGORIES.index(category)].sum(axis=1) <= 1).all(), category
    no_scope = out.scope.sum(axis=1) == 0
    assert no_scope.any()
    assert (out.totals[no_scope].sum(axis=1) <= 4).all()
