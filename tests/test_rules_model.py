"""The rules model expresses every preset of RULES.md §7, not only those the engines play yet.

A later issue adds Scopone, Escoba, Asso piglia tutto and the 52-card game as presets; these tests
pin that the data model already holds them (deal shapes add up, the right pack, the right capture
rule and scoring switches), so adding them is data plus engine work, never a redesign.
"""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import seeding
from scopa_sim.cards import FRENCH_52, ITALIAN_40, cards_of
from scopa_sim.engine import batch as engine
from scopa_sim.engine import reference, scoring
from scopa_sim.players import player
from scopa_sim.rules import CATEGORIES, PRESETS, Capture, PrimieraRule, RulesError, Variant

SECTION_7 = {
    "scopone": dict(n_players=4, n_sides=2, hands=(9,)),
    "scopone-scientifico": dict(n_players=4, n_sides=2, table_cards=0, hands=(10,)),
    "escoba": dict(
        n_players=2, n_sides=2, capture=Capture.FIFTEEN, opening_sweep=True, throw_in=False,
        target=15,
    ),
    "asso-piglia-tutto": dict(n_players=2, n_sides=2, capture=Capture.ACE_TAKES_ALL),
    "scopa-52 (2 players)": dict(
        n_players=2, n_sides=2, pack=FRENCH_52, hands=(3,) * 8, throw_in=False, primiera=None,
        most_sevens=True, scopa_wins_immediately=True, count_in_turn_order=True,
    ),
    "scopa-52 (3 players)": dict(
        n_players=3, n_sides=3, pack=FRENCH_52, hands=(3, 3, 3, 3, 4), throw_in=False,
        primiera=None, most_sevens=True, scopa_wins_immediately=True, count_in_turn_order=True,
    ),
    "scopa-52 (4 players)": dict(
        n_players=4, n_sides=4, pack=FRENCH_52, hands=(3,) * 4, throw_in=False, primiera=None,
        most_sevens=True, scopa_wins_immediately=True, count_in_turn_order=True,
    ),
}  # fmt: skip


#: The §7 shapes the engines already play: classic capture on the Italian pack.
PLAYABLE = {"scopone", "scopone-scientifico"}


@pytest.mark.parametrize("name", SECTION_7)
def test_every_section_7_preset_is_expressible(name):
    rules = Variant(name, **SECTION_7[name])
    assert rules.table_cards + rules.n_players * sum(rules.hands) == rules.pack.n_cards
    # honest: the engines refuse a capture rule, pack or scoring they do not implement yet
    assert rules.playable == (name in PLAYABLE)


@pytest.mark.parametrize("name", sorted(PLAYABLE))
def test_scopone_deal_shapes_agree_with_the_reference(name):
    """One nine- or ten-card hand per player (and no table in scientifico) needs no new engine
    code: both engines agree deal by deal on these shapes too."""
    rules = Variant(name, **SECTION_7[name])
    n = 500
    game, deal = np.arange(n), np.zeros(n, np.int64)
    packs, _ = engine.deal_packs(rules, seeding.stream_key(9, seeding.PACKS), game, deal)
    out = engine.play_batch(
        rules, [player("random"), player("greedy")], packs, offset=deal,
        scores=np.zeros((n, 2), np.int16), player_key=seeding.stream_key(9, seeding.PLAYERS),
        game=game, deal=deal, record=True,
    )  # fmt: skip
    points = scoring.score(rules, out.captured, out.scope).points
    for row in range(n):
        steps = iter(out.steps)

        def choose(view, legal, steps=steps, row=row):
            step = next(steps)
            k, count = step.choice[row], step.legal.count[row]
            offered = zip(
                step.legal.card[row, :count], step.legal.capture[row, :count], strict=True
            )
            assert set(legal) == {(int(c), frozenset(cards_of(m))) for c, m in offered}
            card, taken = step.legal.card[row, k], step.legal.capture[row, k]
            return int(card), frozenset(cards_of(taken))

        ref = reference.play_deal(rules, packs[row].tolist(), choose)
        assert points[row].tolist() == [[p[c] for c in CATEGORIES] for p in ref.points]


def test_the_52_card_pack_maps_hearts_to_the_scoring_suit():
    rules = Variant("scopa-52", **SECTION_7["scopa-52 (2 players)"])
    assert rules.pack.n_cards == 52 and rules.pack.full_mask < 2**64
    assert rules.pack.code(rules.settebello) == "7H"  # the seven of hearts plays the settebello
    assert rules.pack.rank(rules.pack.card(3, 13)) == 13


def test_a_deal_that_does_not_add_up_is_refused():
    with pytest.raises(RulesError, match="deals 38 cards"):
        Variant("broken", n_players=2, n_sides=2, hands=(3,) * 5 + (2,))


def test_the_registered_presets_are_the_classic_family():
    assert set(PRESETS) == {"classic", "classic-3p", "classic-4p", "classic-6p"}
    for rules in PRESETS.values():
        assert rules.playable and rules.pack == ITALIAN_40
        assert rules.primiera is PrimieraRule.STANDARD
