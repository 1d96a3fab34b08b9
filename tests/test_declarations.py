"""Cirulla's deal-level rules as data (cirulla.md C2.2, C2.3, C5): the throw-in of two aces, the
dealer's opening 15 / 30 with the matta, the declarations of a dealt hand, their tallies and the
cards they show.

The worked examples C9.7 and C9.8 are exact tests of the reference engine and of the compiled
rules (``engine.deal_rules``); the facts of C10 are counted here by exhaustive enumeration over
the reference's functions and compared with cirulla.md's fractions; the lockstep and fused
engines must give the reference's tallies deal by deal (also ``tests/test_agreement.py``), the
declared cards must reach every seat's Observation, and the samplers of the search players must
deal them to their holder.

The variant is ``tests/variants/deal-rules.toml``: classic with these keys (the Cirulla presets
come with the scoring table and the captures).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest

from scopa_sim import seeding
from scopa_sim.cards import cards_of, mask_of
from scopa_sim.contract import Observation, Player
from scopa_sim.engine import batch as engine
from scopa_sim.engine import deal_rules, fused, reference
from scopa_sim.players import player
from scopa_sim.players.sampling import determinise
from scopa_sim.rules import DeclareRounds, MattaOpening, RulesError, variant
from scopa_sim.rules.files import load_variant_file, parse_variant_file
from scopa_sim.testing.hidden import shown_by

RULES = load_variant_file(Path(__file__).parent / "variants" / "deal-rules.toml")
PACK = RULES.pack
PLAIN = replace(RULES, matta_opening=MattaOpening.PLAIN)
NO_MATTA_DECLARING = replace(RULES, matta_declarations=False)
STANDS = replace(RULES, two_aces_fifteen_stands=True)

#: cirulla.md C1: diamonds = coins (D), hearts = cups (C), spades = swords (S), clubs = clubs (B).
_SUIT = {"d": "D", "h": "C", "s": "S", "c": "B"}
_RANK = {"J": "F", "Q": "C", "K": "R"}  # fante, cavallo, re


def ids(text: str) -> list[int]:
    """Card ids of cirulla.md's French notation (``7h 2c 5s``)."""
    return [PACK.parse(_RANK.get(c[:-1], c[:-1]) + _SUIT[c[-1]]) for c in text.split()]


def pack_with(table: list[int], first_hand: list[int] | None = None) -> np.ndarray:
    """A pack whose table is ``table`` and seat 0's first hand ``first_hand``, the rest in id
    order."""
    front = [*table, *(first_hand or [])]
    rest = [c for c in range(PACK.n_cards) if c not in front]
    head = table + [rest.pop(0) for _ in range(RULES.table_cards - len(table))]
    return np.array([*head, *(first_hand or []), *rest], np.int8)


def compiled_declaration(rules, hand: list[int]) -> str | None:
    kinds, _ = deal_rules.declared_hands(rules, pack_with([], hand)[None, :])
    return {0: None, deal_rules.LOW: "low", deal_rules.TRIPLE: "triple"}[int(kinds[0, 0, 0])]


# C9.7 and C9.8 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "rules", "declared"),
    [
        ("7h 2c 5s", RULES, "low"),
        ("7h Qs Qd", RULES, "triple"),
        ("7h 4c 5s", RULES, None),
        ("3c 3s 3d", RULES, "triple"),
        ("Ad 2s 6c", RULES, "low"),
        ("7h 2c 5s", NO_MATTA_DECLARING, None),
    ],
)
def test_declarations_of_c9_7(hand, rules, declared):
    assert reference.declaration(rules, set(ids(hand))) == declared
    assert compiled_declaration(rules, ids(hand)) == declared


def test_declaration_options():
    """triple_points = 0: no three of a kind (a 3-3-3 is then a low hand); low_hand = 0: no low
    hand; declarations off: nothing."""
    no_triple = replace(RULES, triple_points=0)
    assert reference.declaration(no_triple, set(ids("3c 3s 3d"))) == "low"
    assert compiled_declaration(no_triple, ids("3c 3s 3d")) == "low"
    assert compiled_declaration(no_triple, ids("Qc Qs Qd")) is None
    no_low = replace(RULES, low_hand=0)
    assert compiled_declaration(no_low, ids("Ad 2s 6c")) is None
    assert compiled_declaration(no_low, ids("Qc Qs Qd")) == "triple"
    off = replace(RULES, declarations=False)
    assert reference.declaration(off, set(ids("3c 3s 3d"))) is None
    assert compiled_declaration(off, ids("3c 3s 3d")) is None


@pytest.mark.parametrize(
    ("table", "rules", "thrown", "units"),
    [
        ("Kc 2s Ad 2h", RULES, False, 1),
        ("7h Js 4c 2d", RULES, False, 1),
        ("7h Js 4c 2d", PLAIN, False, 0),
        ("Kc Qs 7d 4h", RULES, False, 2),
        ("As Ac 6d 7c", RULES, True, 0),
        ("As Ac 6d 7c", STANDS, False, 1),
    ],
)
def test_opening_tables_of_c9_8(table, rules, thrown, units):
    pack = pack_with(ids(table))
    assert reference.is_throw_in(rules, pack.tolist()) is thrown
    assert deal_rules.throw_in_rows(rules, pack[None, :]).tolist() == [thrown]
    if not thrown:
        assert reference.opening_units(rules, ids(table)) == units
        assert deal_rules.opening_takes(rules, pack[None, :]).tolist() == [units]


def test_opening_low_goes_before_fifteen_and_rescues_nothing():
    low = replace(RULES, opening_low=True)
    for rules in (low, replace(low, two_aces_fifteen_stands=True)):
        # 2 + 3 + 3 + the matta: 9 when it counts 1, 15 when it counts 7: 3 units.
        pack = pack_with(ids("2s 3c 3d 7h"))
        assert reference.opening_units(rules, ids("2s 3c 3d 7h")) == 3
        assert deal_rules.opening_takes(rules, pack[None, :]).tolist() == [3]
        # Two aces and 9 or less: thrown in all the same.
        aces = pack_with(ids("As Ac 2d 3c"))
        assert reference.is_throw_in(rules, aces.tolist())
        assert deal_rules.throw_in_rows(rules, aces[None, :]).tolist() == [True]


def test_classic_throw_in_is_unchanged():
    classic = variant("classic")
    kings = pack_with(ids("Kc Ks Kd 2h"))
    two = pack_with(ids("Kc Ks 2d 2h"))
    assert deal_rules.throw_in_rows(classic, np.stack([kings, two])).tolist() == [True, False]
    assert reference.is_throw_in(classic, kings.tolist())
    assert deal_rules.opening_takes(classic, np.stack([kings, two])).tolist() == [0, 0]


# C10: the facts, by enumeration --------------------------------------------------------------


def _tables():
    return itertools.combinations(range(PACK.n_cards), 4)


def test_throw_in_and_opening_probabilities_of_c10():
    """Over the C(40, 4) opening tables: 3925 thrown in; of the 87465 that stand, 15 and 30
    with the matta wild and plain as cirulla.md C10 gives them."""
    thrown = 0
    units = {RULES: [0, 0, 0], PLAIN: [0, 0, 0]}
    for table in _tables():
        if reference.is_throw_in(RULES, table):
            thrown += 1
            continue
        for rules, counts in units.items():
            counts[reference.fifteen_units(rules, table)] += 1
    assert Fraction(thrown, comb(40, 4)) == Fraction(3925, 91390)
    stand = comb(40, 4) - thrown
    assert stand == 87465
    assert [Fraction(k, stand) for k in units[RULES][1:]] == [
        Fraction(5624, 87465), Fraction(4653, 87465),
    ]  # fmt: skip
    assert [Fraction(k, stand) for k in units[PLAIN][1:]] == [
        Fraction(2736, 87465), Fraction(2492, 87465),
    ]  # fmt: skip


def test_compiled_opening_agrees_with_reference_on_every_table():
    tables = np.array(list(_tables()), np.int8)
    packs = np.concatenate([tables, np.zeros((len(tables), 36), np.int8)], axis=1)  # table only
    thrown = deal_rules.throw_in_rows(RULES, packs)
    assert thrown.tolist() == [reference.is_throw_in(RULES, t) for t in tables.tolist()]
    for rules in (RULES, PLAIN, replace(RULES, opening_low=True)):
        got = deal_rules.opening_takes(rules, packs)
        want = [reference.opening_units(rules, t) for t in tables.tolist()]
        assert got.tolist() == want, rules


def test_declaration_probabilities_of_c10():
    """Given the deal stands, a player's hand is three of a kind with probability
    70564/7434525 and a low hand 5028859/52041675: every hand of three, weighted by the opening
    tables of the other 37 cards that stand (which depend only on the hand's aces)."""
    standing = {}  # opening tables of the other 37 cards that stand, by the hand's aces
    for aces in range(4):
        hand = [10 * suit for suit in range(aces)] + [1, 2, 3][: 3 - aces]  # aces, then 2s
        pool = [c for c in range(PACK.n_cards) if c not in hand]
        standing[aces] = sum(
            not reference.is_throw_in(RULES, t) for t in itertools.combinations(pool, 4)
        )
    weight = {"triple": 0, "low": 0, None: 0}
    total = 0
    for hand in itertools.combinations(range(PACK.n_cards), 3):
        w = standing[sum(PACK.rank(c) == 1 for c in hand)]
        weight[reference.declaration(RULES, set(hand))] += w
        total += w
    assert Fraction(weight["triple"], total) == Fraction(70564, 7434525)
    assert Fraction(weight["low"], total) == Fraction(5028859, 52041675)


# The engines: tallies deal by deal, the cards shown ------------------------------------------


@dataclass(frozen=True)
class ShownRecorder(Player):
    """Plays its first legal action and keeps what each Observation showed (a test player)."""

    name = "shown-recorder"
    seen: list = None  # type: ignore[assignment]

    def act(self, obs, legal, rng):
        self.seen.append((obs.play, obs.seat, np.array(obs.shown)))
        return np.zeros(len(obs.hand), np.int64)


def _played(rules, rows: int, players, seed: int = 7, record: bool = False):
    key = seeding.stream_key(seed, seeding.PACKS)
    game, deal = np.arange(rows), np.zeros(rows, np.int64)
    packs, _ = engine.deal_packs(rules, key, game, deal)
    offset = engine.seat_offsets(engine.first_dealers(rules, key, game), deal, rules.n_players)
    scores = np.zeros((rows, rules.n_sides), np.int16)
    args = dict(
        offset=offset, scores=scores, player_key=np.uint64(seed), game=game, deal=deal,
    )  # fmt: skip
    return packs, engine.play_batch(rules, players, packs, record=record, **args), args


@pytest.mark.parametrize(
    "rules",
    [
        RULES,
        replace(RULES, declare_rounds=DeclareRounds.FIRST, opening_low=True),
        variant("classic-4p"),
    ],
    ids=["deal-rules", "first-round-opening-low", "classic-4p"],
)
def test_lockstep_fused_and_reference_tallies_agree(rules):
    if rules.name == "classic-4p":  # four players in two teams, with declarations on
        rules = replace(rules, declarations=True, low_hand=9, triple_points=10)
    players = [player("greedy"), player("random")]
    packs, lockstep, args = _played(rules, 600, players, record=True)
    whole = fused.play_batch(rules, players, packs, **args)
    np.testing.assert_array_equal(lockstep.tallies, whole.tallies)
    np.testing.assert_array_equal(lockstep.opening, whole.opening)
    np.testing.assert_array_equal(lockstep.captured, whole.captured)
    assert lockstep.tallies[:, :, 1:].sum() > 0
    for row, pack in enumerate(packs.tolist()):
        steps = iter(lockstep.steps)

        def choose(view, legal, row=row, steps=steps):
            step = next(steps)
            k = step.choice[row]
            return int(step.legal.card[row, k]), frozenset(
                cards_of(int(step.legal.capture[row, k]))
            )

        ref = reference.play_deal(rules, pack, choose)
        perm = lockstep.seat_side[row][: rules.n_sides]  # reference side r: batch side perm[r]
        for r in range(rules.n_sides):
            assert lockstep.tallies[row, perm[r]].tolist() == ref.tallies[r], row
            assert mask_of(ref.captured[r]) == lockstep.captured[row, perm[r]], row
        assert ref.opening == lockstep.opening[row]


def test_shown_cards_reach_every_observation():
    seen: list = []
    recorder = ShownRecorder(seen=seen)
    packs, out, _ = _played(RULES, 300, [recorder, recorder], record=True)
    assert len(seen) == RULES.plays
    shown_any = 0
    for play, seat, shown in seen:
        for row, pack in enumerate(packs):
            # Each seat's declared cards of this hand, less the cards it has played.
            declared = shown_by(RULES, pack, play)[play // 6]
            played = 0
            for t in range(play - play % 6, play):
                step = out.steps[t]
                played |= 1 << int(step.legal.card[row, step.choice[row]])
            want = [int(d) & ~played for d in declared]
            assert shown[row].tolist() == want, (row, play, seat)
            shown_any += any(want)
    assert shown_any > 0


def test_reference_view_shows_the_declared_hand_from_its_first_turn():
    hand = ids("3c 3s 3d")
    pack = pack_with(ids("2s 4c 5d Kh"), hand)
    views = []

    def first(view, legal):
        views.append(view)
        return legal[0]

    ref = reference.play_deal(RULES, pack.tolist(), first)
    assert ref.tallies[0][2] >= 1
    assert views[0].shown[0] == frozenset(hand)  # seat 0 declares before its first play
    assert views[1].shown[0] == frozenset(hand) - {ref.moves[0].card}


def test_samplers_deal_shown_cards_to_their_holder():
    """The determinisation every search samples from keeps the cards seat 1 has shown in seat
    1's hand, and deals no shown card elsewhere."""
    shown_hand = ids("3c 3s 3d")
    pack = pack_with(ids("2s 4c 5d Kh"), None)
    own = mask_of(pack[4:7].tolist())
    seat1 = [c for c in pack[7:10].tolist()]
    base = pack.tolist()
    # Seat 1 holds 3c 3s 3d (swap them into its block), and has shown them: play 1, seat 1.
    for card, place in zip(shown_hand, range(7, 10), strict=True):
        i = base.index(card)
        base[i], base[place] = base[place], base[i]
    assert sorted(base[7:10]) == sorted(shown_hand) and seat1
    own = mask_of(base[4:7])
    rows, samples = 1, 64
    obs = Observation(
        RULES, np.array([own], np.uint64), np.array([mask_of(base[:4])], np.uint64),
        np.zeros((1, 2), np.uint64), np.zeros(1, np.uint64), np.zeros((1, 2), np.int16), 0,
        np.zeros(1, np.int8), np.ones(1, np.int8), 0,
        shown=np.array([[0, mask_of(shown_hand)]], np.uint64),
    )  # fmt: skip
    uniforms = np.random.default_rng(3).random((rows, samples, PACK.n_cards))
    hands, packs = determinise(obs, uniforms)
    assert (hands[:, 1] == mask_of(shown_hand)).all()
    assert (hands[:, 0] == own).all()
    for sample in packs:
        assert sorted(sample.tolist()) == list(range(PACK.n_cards))
        assert not set(sample[10:].tolist()) & set(shown_hand)
    # Without the shown cards, seat 1's hand is drawn at random.
    hidden = replace(obs, shown=None)
    hands, _ = determinise(hidden, uniforms)
    assert (hands[:, 1] != mask_of(shown_hand)).any()


def test_hidden_card_check_counts_shown_cards_as_seen():
    a = pack_with(ids("2s 4c 5d Kh"), ids("3c 3s 3d"))
    b = a.copy()
    b[[4, 10]] = b[[10, 4]]  # a card of the declared hand swapped with one of seat 2's block
    assert not np.array_equal(shown_by(RULES, a, 0), shown_by(RULES, b, 0))
    np.testing.assert_array_equal(shown_by(RULES, a, 0), shown_by(RULES, a, 0))
    assert shown_by(RULES, a, 0)[0, 0] == mask_of(ids("3c 3s 3d"))
    assert shown_by(RULES, a, 0)[0, 1] == 0  # seat 1 has not had its turn


# Bad input ------------------------------------------------------------------------------------


BASE_FILE = 'name = "x"\nextends = "classic"\n'


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[deal]\nhands = [4, 4, 4, 4, 2]\n[declarations]\ndeclarations = true", "declarations"),
        ("[declarations]\ndeclarations = true\nlow_hand = 2", "declarations.low_hand"),
        ("[declarations]\ndeclarations = true\nlow_points = -1", "declarations.low_points"),
        ("[declarations]\ndeclarations = true\ntriple_points = 2.5", "declarations.triple_points"),
        ('[deal]\nmatta = "9X"', "deal.matta"),
        ("[deal]\nthrow_in_count = 5", "deal.throw_in_count"),
        ("[deal]\nthrow_in_rank = 12", "deal.throw_in_rank"),
        ("[deal]\nopening_fifteen = true\nopening_sweep = true", "deal.opening_fifteen"),
        ("[deal]\nopening_low = true", "deal.opening_low"),
        ('[declarations]\ndeclare_rounds = "first"', "declarations.declare_rounds"),
    ],
)
def test_bad_deal_rules_are_one_line_naming_the_key(text, named):
    with pytest.raises(RulesError) as caught:
        parse_variant_file(BASE_FILE + text + "\n", "x.toml")
    message = str(caught.value)
    assert "\n" not in message and named in message, message


def test_old_definitions_without_the_new_keys_still_read():
    from scopa_sim.rules.definition import definition_of
    from scopa_sim.rules.files import variant_of_definition

    old = definition_of(variant("classic"))
    del old["declarations"]
    for key in ("throw_in_rank", "throw_in_count", "opening_fifteen", "matta"):
        del old["deal"][key]
    assert variant_of_definition(old) == variant("classic")
    assert variant_of_definition(definition_of(RULES)) == RULES
