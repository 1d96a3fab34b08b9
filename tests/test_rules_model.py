"""The rules model holds every preset of docs/rules.md §7, as data.

Each preset is checked against the specification's table: players and sides, the pack, the deal
shape (table cards and hands, which must add up to the pack), the capture rule, the scoring
switches, the target and how the game ends, and which options it accepts (docs/rules.md §7,
"Options and their defaults"). The engines' agreement on every preset is tests/test_agreement.py.
"""

from __future__ import annotations

import pytest

from scopa_sim.cards import FRENCH_52, ITALIAN_40
from scopa_sim.rules import (
    OPTIONS,
    PRESETS,
    FirstDealer,
    MissingSuit,
    Napola,
    PrimieraRule,
    RulesError,
    Variant,
    variant,
)

_ITALIAN = dict(
    pack=ITALIAN_40, primiera=PrimieraRule.STANDARD, most_sevens=False, last_play_scopa=False,
    scopa_wins_immediately=False, count_in_turn_order=False, match=True, sum=True, total=0,
    opening_sweep=False, target=11, table_cards=4, throw_in=True,
)  # fmt: skip
_FRENCH = dict(
    pack=FRENCH_52, primiera=None, most_sevens=True, last_play_scopa=True, throw_in=False,
    scopa_wins_immediately=True, count_in_turn_order=True, match=True, sum=True, total=0,
    opening_sweep=False, target=11, table_cards=4,
)  # fmt: skip

#: Cirulla (docs/rules.md §7): two aces throw in; the opening 15 / 30 and declarations with the
#: matta 7C (id 16); match, sum and fifteen, the ace that sweeps (a scopa), no match priority;
#: the cappotto (napoleone); to 51.
_CIRULLA = dict(
    _ITALIAN, throw_in_rank=1, throw_in_count=2, opening_fifteen=True, matta=16,
    declarations=True, low_hand=9, low_points=3, triple_points=10, matta_declarations=True,
    total=15, ace_sweeps=True, match_priority=False, ace_sweep_scopa=True, napoleone=True,
    target=51, grande_points=5, piccola_max=6,
)  # fmt: skip

#: The presets' table (docs/rules.md §7), one row per preset.
SECTION_7 = {
    "classic": dict(_ITALIAN, n_players=2, n_sides=2, hands=(3,) * 6),
    "classic-3p": dict(_ITALIAN, n_players=3, n_sides=3, hands=(3,) * 4),
    "classic-4p": dict(_ITALIAN, n_players=4, n_sides=2, hands=(3,) * 3),
    "classic-6p": dict(_ITALIAN, n_players=6, n_sides=2, hands=(3,) * 2),
    "scopone": dict(_ITALIAN, n_players=4, n_sides=2, hands=(9,)),
    "scopone-scientifico": dict(
        _ITALIAN, n_players=4, n_sides=2, table_cards=0, hands=(10,), throw_in=False
    ),
    "escoba": dict(
        _ITALIAN,
        n_players=2,
        n_sides=2,
        hands=(3,) * 6,
        match=False,
        sum=False,
        total=15,
        opening_sweep=True,
        throw_in=False,
        target=15,
    ),
    "asso-piglia-tutto": dict(_ITALIAN, n_players=2, n_sides=2, hands=(3,) * 6, ace_sweeps=True),
    "scopa-52": dict(_FRENCH, n_players=2, n_sides=2, hands=(3,) * 8),
    "scopa-52-3p": dict(_FRENCH, n_players=3, n_sides=3, hands=(3, 3, 3, 3, 4)),
    "scopa-52-4p": dict(_FRENCH, n_players=4, n_sides=4, hands=(3,) * 4),
    **{
        name: dict(_CIRULLA, n_players=players, n_sides=sides, hands=(3,) * (12 // players))
        for name, players, sides in (("cirulla", 2, 2), ("cirulla-3p", 3, 3), ("cirulla-4p", 4, 2))
    },
}

#: Options off by default in every preset (docs/rules.md §5: "all off by default in every
#: preset"), with their off value.
_OFF = dict(
    forced_capture=False, fewest_cards=False, re_bello=False, napola=Napola.OFF,
    napoleone=False, ace_sweep_scopa=False, primiera_missing_suit=MissingSuit.VOID,
    first_dealer=FirstDealer.RANDOM, match_priority=True, grande_points=0, piccola_max=0,
)  # fmt: skip

_COMMON = {"target", "forced_capture", "fewest_cards", "match_priority", "last_play_scopa",
           "scopa_wins_immediately", "first_dealer"}  # fmt: skip
_ITALIAN_OPTIONS = _COMMON | {"primiera", "primiera_missing_suit", "re_bello", "napola",
                              "napoleone", "grande_points", "piccola_max"}  # fmt: skip
#: docs/rules.md §7, "Options and their defaults": the options each preset accepts.
ACCEPTS = {
    "classic": _ITALIAN_OPTIONS | {"throw_in"},
    "classic-3p": _ITALIAN_OPTIONS | {"throw_in"},
    "classic-4p": _ITALIAN_OPTIONS | {"throw_in"},
    "classic-6p": _ITALIAN_OPTIONS | {"throw_in"},
    "scopone": _ITALIAN_OPTIONS | {"throw_in"},
    "scopone-scientifico": _ITALIAN_OPTIONS,
    "escoba": _ITALIAN_OPTIONS,
    "asso-piglia-tutto": _ITALIAN_OPTIONS | {"throw_in", "ace_sweep_scopa"},
    "scopa-52": _COMMON,
    "scopa-52-3p": _COMMON,
    "scopa-52-4p": _COMMON,
    **{
        name: (_ITALIAN_OPTIONS - {"napola", "scopa_wins_immediately"})
        | {
            "throw_in",
            "ace_sweep_scopa",
            "matta_opening",
            "opening_low",
            "two_aces_fifteen_stands",
            "declarations",
            "low_points",
            "triple_points",
            "declare_rounds",
            "matta_declarations",
        }
        for name in ("cirulla", "cirulla-3p", "cirulla-4p")
    },
}


def test_the_registered_presets_are_section_7():
    assert list(PRESETS) == list(SECTION_7)
    assert set(ACCEPTS) == set(PRESETS)


@pytest.mark.parametrize("name", SECTION_7)
def test_every_preset_is_its_section_7_row(name):
    rules = PRESETS[name]
    for key, value in {**_OFF, **SECTION_7[name]}.items():
        assert getattr(rules, key) == value, f"{name}.{key}"
    # The deal shape uses the whole pack (docs/rules.md §2: table first, then the hands).
    assert rules.table_cards + rules.n_players * sum(rules.hands) == rules.pack.n_cards
    assert rules.plays == rules.n_players * sum(rules.hands)
    assert rules.pack.full_mask < 2**64


@pytest.mark.parametrize("name", SECTION_7)
def test_every_preset_accepts_exactly_its_options(name):
    rules = PRESETS[name]
    assert rules.allowed_options == ACCEPTS[name]
    assert set(rules.options()) == ACCEPTS[name]
    for option in set(OPTIONS) - ACCEPTS[name]:
        value = "true" if OPTIONS[option].kind is bool else "1"
        with pytest.raises(RulesError, match=f"option '{option}' does not apply to {name}"):
            variant(name, **{option: value})


def test_sides_alternate_round_the_table():
    """docs/rules.md §2: partners sit opposite, so the seats alternate between the teams."""
    assert [PRESETS["classic-4p"].side_of_seat(s) for s in range(4)] == [0, 1, 0, 1]
    assert [PRESETS["classic-6p"].side_of_seat(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    assert [PRESETS["scopone"].side_of_seat(s) for s in range(4)] == [0, 1, 0, 1]
    assert [PRESETS["scopa-52-4p"].side_of_seat(s) for s in range(4)] == [0, 1, 2, 3]


def test_the_52_card_pack_maps_hearts_to_the_scoring_suit():
    """docs/rules.md §1: French ids 13 * suit + rank - 1, hearts first (the coins of that game)."""
    rules = PRESETS["scopa-52"]
    assert rules.pack.n_cards == 52 and rules.pack.full_mask == 2**52 - 1
    assert rules.pack.code(rules.settebello) == "7H" and rules.settebello == 6
    assert rules.pack.rank(rules.pack.card(3, 13)) == 13 and rules.pack.card(3, 13) == 51
    assert [rules.pack.parse(c) for c in ("AD", "10S", "KC")] == [13, 35, 51]
    assert sum(rules.pack.rank(c) for c in range(52)) == 364  # docs/rules.md §8


def test_a_deal_that_does_not_add_up_is_refused():
    with pytest.raises(RulesError, match="deals 38 cards"):
        Variant("broken", n_players=2, n_sides=2, hands=(3,) * 5 + (2,))
    with pytest.raises(RulesError, match="3 players in 2 sides"):
        Variant("broken", n_players=3, n_sides=2, hands=(3,) * 4)


def test_options_keep_the_preset_and_describe_the_change():
    rules = variant("escoba", forced_capture=True, napola="sequence")
    assert rules.total == 15 and not (rules.match or rules.sum)
    assert rules.target == 15 and rules.opening_sweep
    assert rules.describe() == "escoba:forced_capture=true,napola=sequence"
    assert variant("scopa-52", last_play_scopa=False).describe() == "scopa-52:last_play_scopa=false"
    assert variant("asso-piglia-tutto", ace_sweep_scopa=True).ace_sweep_scopa
