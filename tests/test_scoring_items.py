"""Scoring as a table (rules/items.py): every kind and tie rule on piles worked by hand, the
compiled kernel against the reference over random tables and piles, cirulla.md's worked score
C9.9, designers' files, and bad ``[[scoring.items]]`` entries (one line naming the key, exit 2).

The presets' tables are held to what they scored before by tests/test_row_hashes.py and the golden
deals; here, only that each preset's table is the items its keys describe.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scopa_sim.cards import mask_of
from scopa_sim.engine import reference, scoring
from scopa_sim.rules import (
    CATEGORIES,
    PRESETS,
    Item,
    RulesError,
    definition_of,
    load_variant_file,
    point_columns,
    scoring_table,
    variant,
)
from scopa_sim.rules.definition import from_definition, to_toml
from scopa_sim.rules.items import TALLIES
from tests.support.cli import scopa_sim

CLASSIC, THREE = PRESETS["classic"], PRESETS["classic-3p"]


def cards(pack, text: str) -> set[int]:
    return {pack.parse(code) for code in text.split()}


def kernel_points(rules, piles, scope, stopped=None, tallies=None) -> list[dict[str, int]]:
    """``scoring.score`` of one deal, as the reference's list of dicts per side."""
    captured = np.array([[mask_of(pile) for pile in piles]], np.uint64)
    out = scoring.score(
        rules, captured, np.array([scope]), None if stopped is None else np.array([stopped]),
        None if tallies is None else np.array([tallies]),
    )  # fmt: skip
    names = point_columns(rules)
    return [dict(zip(names, map(int, out.points[0, s]), strict=True)) for s in range(len(piles))]


def both(rules, piles, scope, stopped=False, tallies=None) -> list[dict[str, int]]:
    """The points of one deal; the kernel and the reference must give the same."""
    want = reference.score_deal(rules, piles, scope, tallies, stopped=stopped)
    assert kernel_points(rules, piles, scope, stopped, tallies) == want
    return want


def with_items(rules, *items: Item):
    return replace(rules, items=items)


# --- each kind and tie rule on a pile worked by hand ----------------------------------------------

#: Three sides (classic-3p): 7 cards each for sides 0 and 1 (5 coins each, two sevens each), 2 for
#: side 2 (the two swords). Side 0 holds the coins A 2 3 4 6; side 1 the 5, 7 and faces of coins.
PILES = [
    cards(THREE.pack, "AD 2D 3D 4D 6D 7C 7S"),
    cards(THREE.pack, "5D 7D FD CD RD 7B AC"),
    cards(THREE.pack, "AS 2S"),
]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (Item("x", "most-cards"), [0, 0, 0]),  # 7 : 7 : 2, a tie for the most
        (Item("x", "most-cards", tie="each", points=2), [2, 2, 0]),
        (Item("x", "most-suit", suit=0, tie="each"), [1, 1, 0]),
        (Item("x", "most-suit", suit=2), [0, 0, 1]),  # swords 1 : 0 : 2
        (Item("x", "most-rank", rank=7), [0, 0, 0]),  # sevens 2 : 2 : 0
        (Item("x", "most-rank", rank=1, tie="each"), [1, 1, 1]),  # aces 1 : 1 : 1
        (Item("x", "most-rank", rank=10, tie="each"), [0, 1, 0]),
        (Item("x", "card", cards=(THREE.pack.parse("7D"),), points=2), [0, 2, 0]),
        (Item("x", "set", cards=tuple(sorted(cards(THREE.pack, "FD CD RD"))), points=5), [0, 5, 0]),
        (Item("x", "set", cards=tuple(sorted(cards(THREE.pack, "AD 5D")))), [0, 0, 0]),  # split
        (Item("x", "sequence", suit=0), [4, 0, 0]),  # A-2-3-4, the 5 missing
        (Item("x", "sequence", suit=0, cap=3, points=2), [6, 0, 0]),
        (Item("x", "sequence", suit=0, extend="all"), [5, 0, 0]),  # A-2-3 held: every coin
        (Item("x", "sequence", suit=0, count=5), [0, 0, 0]),
        (Item("x", "at-least", count=5, suit=0), [0, 0, 0]),  # two sides reach it
        (Item("x", "at-least", count=5, suit=0, tie="each"), [1, 1, 0]),
        (Item("x", "at-least", count=2, suit=2), [0, 0, 1]),
        (Item("x", "at-least", count=7, points=3), [0, 0, 0]),
        (Item("x", "primiera", missing="void", tie="each"), [0, 0, 0]),  # each lacks a suit
        (Item("x", "primiera", missing="zero"), [1, 0, 0]),  # 18+21+21 : 21+16+21 : 16
        (Item("x", "primiera", scale="most_sevens"), [1, 0, 0]),  # 2 sevens : 2 : 0, a six : 0
        # A=5, 7=0, faces 2, the rest 1: 5+0+0 : 2+5+0 : 5
        (Item("x", "primiera", scale=(5, 1, 1, 1, 1, 1, 0, 2, 2, 2), missing="zero"), [0, 1, 0]),
    ],
)
def test_each_kind_and_tie_rule_on_a_pile_worked_by_hand(item, expected):
    rules = with_items(THREE, item)
    points = both(rules, PILES, [0, 0, 0])
    assert [p["x"] for p in points] == expected
    assert point_columns(rules) == (*CATEGORIES, "x")


def test_scope_and_tallies_score_per_unit_and_alone_in_a_stopped_deal():
    rules = with_items(
        THREE, Item("scope", points=2), Item("opening", "opening"),
        Item("low", "low", points=3), Item("triple", "triple", points=10),
    )  # fmt: skip
    tallies = [[1, 0, 0], [0, 2, 0], [2, 0, 1]]
    for stopped in (False, True):
        points = both(rules, PILES, [1, 0, 2], stopped, tallies)
        assert [p["scope"] for p in points] == [2, 0, 4]
        assert [(p["opening"], p["low"], p["triple"]) for p in points] == [
            (1, 0, 0), (0, 6, 0), (2, 0, 10),
        ]  # fmt: skip
    stopped = both(rules, PILES, [1, 0, 2], True, tallies)
    assert [p["settebello"] + p["cards"] + p["coins"] for p in stopped] == [0, 0, 0]
    assert [p["opening"] for p in both(rules, PILES, [0, 0, 0])] == [0, 0, 0]  # no tallies


# --- cirulla.md C9.9 ------------------------------------------------------------------------

#: cirulla.md's cards: d diamonds (coins), h hearts (cups), s spades (swords), c clubs; J Q K.
_CIRULLA_SUITS, _CIRULLA_RANKS = "dhsc", {"J": 8, "Q": 9, "K": 10, "A": 1}

CIRULLA_SCORING = """\
[[scoring.items]]
name = "grande"
kind = "set"
cards = ["FD", "CD", "RD"]
points = 5

[[scoring.items]]
name = "piccola"
kind = "sequence"
suit = "coins"
cap = 6

[[scoring.items]]
name = "opening"
kind = "opening"

[[scoring.items]]
name = "low"
kind = "low"
points = 3

[[scoring.items]]
name = "triple"
kind = "triple"
points = 10
"""


def cirulla_cards(pack, text: str) -> set[int]:
    out = set()
    for code in text.split():
        rank = _CIRULLA_RANKS.get(code[:-1]) or int(code[:-1])
        out.add(pack.card(_CIRULLA_SUITS.index(code[-1]), rank))
    return out


def test_cirulla_c9_9_a_complete_end_of_deal_score(tmp_path):
    """A: 2 scope, one low hand; B: an opening 15, 1 scopa, three of a kind. 11 : 14."""
    path = tmp_path / "cirulla-scoring.toml"
    path.write_text('name = "cirulla-scoring"\nextends = "classic"\n\n' + CIRULLA_SCORING)
    rules = load_variant_file(path)
    a = cirulla_cards(
        rules.pack, "Ad 2d 3d 4d 6d Jd Qd 2h 3h 4h Jh Qh As 7s Js Qs Ks 2c 6c 7c Jc Qc"
    )
    b = cirulla_cards(rules.pack, "5d 7d Kd Ah 5h 6h 7h Kh 2s 3s 4s 5s 6s Ac 3c 4c 5c Kc")
    assert (len(a), len(b), a & b) == (22, 18, set())
    assert [reference.primiera_value(rules, pile) for pile in (a, b)] == [74, 76]
    points = both(rules, [a, b], [2, 1], tallies=[[0, 1, 0], [1, 0, 1]])
    shown = ("cards", "coins", "settebello", "primiera", "scope", "opening", "low", "triple",
             "grande", "piccola")  # fmt: skip
    assert [[p[name] for name in shown] for p in points] == [
        [1, 1, 0, 0, 2, 0, 3, 0, 0, 4],
        [0, 0, 1, 1, 1, 1, 0, 10, 0, 0],
    ]
    assert [sum(p.values()) for p in points] == [11, 14]
    # The piccola: 3 for A-2-3, 1 more per card of the run, at most 6.
    piccola = next(item for item in scoring_table(rules) if item.name == "piccola")
    for held, length in [("Ad 2d", 0), ("Ad 2d 3d", 3), ("Ad 2d 3d 4d 5d 6d 7d", 6)]:
        assert reference.sequence_length(rules.pack, piccola, cirulla_cards(rules.pack, held)) == (
            length
        )


# --- designers' files ---------------------------------------------------------------------------


def test_a_designers_file_settebello_worth_two_and_the_four_aces(tmp_path, capsys):
    path = tmp_path / "house.toml"
    path.write_text(
        'name = "house"\nextends = "classic"\n\n[[scoring.items]]\nname = "settebello"\n'
        'points = 2\n\n[[scoring.items]]\nname = "aces"\nkind = "set"\n'
        'cards = ["AD", "AC", "AS", "AB"]\npoints = 3\n'
    )
    rules = load_variant_file(path)
    assert point_columns(rules) == (*CATEGORIES, "aces")
    settebello = next(item for item in scoring_table(rules) if item.name == "settebello")
    assert (settebello.kind, settebello.points, settebello.cards) == ("card", 2, (6,))
    aces = cards(rules.pack, "AD AC AS AB 7D")
    points = both(rules, [aces, set(range(40)) - aces], [0, 0])
    assert (points[0]["settebello"], points[0]["aces"], points[1]["aces"]) == (2, 3, 0)
    # The file's entries are kept as given, round-trip, and print back.
    assert from_definition(definition_of(rules), "manifest") == rules
    text = to_toml(definition_of(rules))
    assert text.count("[[scoring.items]]") == 2 and 'name = "aces"' in text
    status, out, err = scopa_sim(capsys, "variants", str(path))
    assert status == 0 and err == ""
    assert (
        "pt_settebello  2 for the 7D" in out and "pt_aces  3 for AD AC AS AB held together" in out
    )


def test_a_file_run_writes_its_extra_columns_and_plays_as_classic_otherwise(tmp_path):
    """The extra item adds a column; every other column is classic's, row for row (a deal's
    points and, in independent deals, its score count the aces too)."""
    from scopa_sim import api

    path = tmp_path / "aces.toml"
    path.write_text(
        'name = "aces"\nextends = "classic"\n\n[[scoring.items]]\nname = "aces"\nkind = "set"\n'
        'cards = ["AD", "AC", "AS", "AB"]\npoints = 3\n'
    )
    rules = load_variant_file(path)
    mine = api.play_deals(rules, ["greedy", "greedy"], deals=400, seed=3).to_frame()
    theirs = api.play_deals(CLASSIC, ["greedy", "greedy"], deals=400, seed=3).to_frame()
    assert mine.columns == [*theirs.columns[: theirs.columns.index("points")], "pt_aces",
                            *theirs.columns[theirs.columns.index("points"):]]  # fmt: skip
    assert mine.drop("pt_aces", "points", "score").equals(theirs.drop("points", "score"))
    for total in ("points", "score"):
        assert (mine[total] - mine["pt_aces"]).to_list() == theirs[total].to_list()
    assert mine["pt_aces"].sum() > 0


def test_each_presets_table_is_the_items_its_keys_describe():
    assert [(item.name, item.kind) for item in scoring_table(CLASSIC)] == [
        ("cards", "most-cards"), ("coins", "most-suit"), ("settebello", "card"),
        ("primiera", "primiera"), ("scope", "scope"),
    ]  # fmt: skip
    for name, rules in PRESETS.items():
        table = {item.name: item for item in scoring_table(rules)}
        if name.startswith("cirulla"):  # its own items (docs/rules.md §7), tested apart
            continue
        assert point_columns(rules) == CATEGORIES, name
        assert ("primiera" in table) == (rules.primiera is not None), name
        assert ("re_bello" in table) == rules.re_bello, name
        assert ("sevens" in table) == rules.most_sevens, name
        assert table["settebello"].cards == (rules.settebello,), name
        assert all(item.points == 1 and item.tie == "nobody" for item in table.values()), name
        assert repr(rules).count("items=") == 0, name  # a preset's repr (a cache key) unchanged


# --- the kernel against the reference over random tables ------------------------------------------


def _items(pack):
    """Random item tables for ``pack``; names x0, x1, ... (their kernel needs no checks)."""
    suit = st.integers(0, 3)
    card = st.integers(0, pack.n_cards - 1)
    kinds = {
        "most-cards": st.fixed_dictionaries({}),
        "most-suit": st.fixed_dictionaries({"suit": suit}),
        "most-rank": st.fixed_dictionaries({"rank": st.integers(1, pack.ranks)}),
        "at-least": st.fixed_dictionaries(
            {"count": st.integers(1, pack.ranks), "suit": st.none() | suit}
        ),
        "primiera": st.fixed_dictionaries({
            "scale": (st.sampled_from(["standard", "face_zero", "most_sevens"])
                      if pack.ranks == 10 else st.just("most_sevens"))
            | st.lists(st.integers(0, 30), min_size=pack.ranks, max_size=pack.ranks).map(tuple),
            "missing": st.sampled_from(["void", "zero"]),
        }),
        "card": st.fixed_dictionaries({"cards": st.tuples(card)}),
        "set": st.fixed_dictionaries(
            {"cards": st.sets(card, min_size=1, max_size=4).map(lambda c: tuple(sorted(c)))}
        ),
        "sequence": st.fixed_dictionaries({
            "suit": suit, "count": st.integers(1, 4), "cap": st.sampled_from([0, 4, 6]),
            "extend": st.sampled_from(["run", "all"]),
        }),
        "scope": st.fixed_dictionaries({}),
        **{tally: st.fixed_dictionaries({}) for tally in TALLIES},
    }  # fmt: skip
    item = st.sampled_from(sorted(kinds)).flatmap(
        lambda kind: st.tuples(
            st.just(kind), kinds[kind], st.integers(0, 5), st.sampled_from(["nobody", "each"])
        )
    )
    contested = ("most-cards", "most-suit", "most-rank", "at-least", "primiera")

    def table(drawn):
        return tuple(
            Item(f"x{i}", kind, points=points, tie=tie if kind in contested else None, **fields)
            for i, (kind, fields, points, tie) in enumerate(drawn)
        )

    return st.lists(item, min_size=1, max_size=6).map(table)


@pytest.mark.parametrize("preset", ["classic", "classic-3p", "scopa-52-4p"])
def test_the_kernel_scores_random_tables_as_the_reference(preset):
    base = PRESETS[preset]
    sides, n_cards = base.n_sides, base.pack.n_cards

    @settings(max_examples=40, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(_items(base.pack), st.integers(0, 2**32 - 1))
    def check(items, seed):
        rules = with_items(base, *items)
        rng = np.random.default_rng(seed)
        rows = 24
        owner = rng.integers(-1, sides, size=(rows, n_cards))
        owner[: rows // 4] = rng.integers(0, 2, size=(rows // 4, n_cards))  # some 2-way ties
        scope = rng.integers(0, 3, size=(rows, sides))
        stopped = rng.random(rows) < 0.2
        tallies = rng.integers(0, 3, size=(rows, sides, len(TALLIES)))
        piles = [[{c for c in range(n_cards) if owner[b, c] == s} for s in range(sides)]
                 for b in range(rows)]  # fmt: skip
        captured = np.array([[mask_of(p) for p in row] for row in piles], np.uint64)
        out = scoring.score(rules, captured, scope, stopped, tallies)
        names = point_columns(rules)
        for b in range(rows):
            want = reference.score_deal(rules, piles[b], list(scope[b]), tallies[b].tolist(),
                                        stopped=bool(stopped[b]))  # fmt: skip
            got = [dict(zip(names, map(int, out.points[b, s]), strict=True)) for s in range(sides)]
            assert got == want, (b, items)
            assert out.primiera[b].tolist() == [
                reference.stored_primiera(rules, pile) for pile in piles[b]
            ]

    check()


# --- bad entries: one line naming the key, exit 2, nothing written --------------------------

_HEAD = 'name = "house"\nextends = "classic"\n\n'

BAD_ITEMS = {
    "unknown kind": ('[[scoring.items]]\nname = "x"\nkind = "most-kings"\n',
                     ["scoring.items[0].kind = 'most-kings'", "most-cards"]),
    "a kind missing": ('[[scoring.items]]\nname = "x"\npoints = 2\n',
                       ["scoring.items[0].kind is missing"]),
    "a field of the kind missing": ('[[scoring.items]]\nname = "x"\nkind = "most-suit"\n',
                                    ["scoring.items[0].suit is missing", "most-suit"]),
    "a field the kind does not take": ('[[scoring.items]]\nname = "x"\nkind = "card"\n'
                                       'card = "7D"\nsuit = "coins"\n',
                                       ["scoring.items[0].suit", "takes no suit"]),
    "a card not in the pack": ('[[scoring.items]]\nname = "x"\nkind = "card"\ncard = "11D"\n'
                               '\n[[scoring.items]]\nname = "y"\nkind = "most-cards"\n',
                               ["scoring.items[0].card = '11D'", "italian-40"]),
    "a card of a set not in the pack": ('[[scoring.items]]\nname = "x"\nkind = "set"\n'
                                        'cards = ["AD", "KH"]\n',
                                        ["scoring.items[0].cards = 'KH'", "italian-40"]),
    "negative points": ('[[scoring.items]]\nname = "settebello"\npoints = -1\n',
                        ["scoring.items[0].points = -1", "from 0"]),
    "points not whole": ('[[scoring.items]]\nname = "settebello"\npoints = 1.5\n',
                         ["scoring.items[0].points = 1.5", "whole number"]),
    "a count past the pack": ('[[scoring.items]]\nname = "x"\nkind = "at-least"\ncount = 41\n',
                              ["scoring.items[0].count = 41", "from 1 to 40"]),
    "a count past a suit": ('[[scoring.items]]\nname = "x"\nkind = "at-least"\ncount = 11\n'
                            'suit = "coins"\n', ["scoring.items[0].count = 11", "from 1 to 10"]),
    "a sequence past its suit": ('[[scoring.items]]\nname = "x"\nkind = "sequence"\n'
                                 'suit = "cups"\ncount = 12\n', ["scoring.items[0].count = 12"]),
    "an unknown suit": ('[[scoring.items]]\nname = "x"\nkind = "most-suit"\nsuit = "hearts"\n',
                        ["scoring.items[0].suit = 'hearts'", "coins"]),
    "an unknown tie rule": ('[[scoring.items]]\nname = "cards"\ntie = "split"\n',
                            ["scoring.items[0].tie = 'split'", "nobody, each"]),
    "the same name twice": ('[[scoring.items]]\nname = "x"\nkind = "most-cards"\n\n'
                            '[[scoring.items]]\nname = "x"\nkind = "scope"\n',
                            ["scoring.items[1].name = 'x'", "entry 0"]),
    "two items over one card": ('[[scoring.items]]\nname = "sette"\nkind = "card"\n'
                                'card = "7D"\n', ["scoring.items[0]", "'sette' and 'settebello'",
                                                  "card items"]),
    "two most-cards": ('[[scoring.items]]\nname = "more"\nkind = "most-cards"\ntie = "each"\n',
                       ["scoring.items[0]", "'more' and 'cards'"]),
    "another kind, incomplete": ('[[scoring.items]]\nname = "settebello"\nkind = "set"\n',
                                 ["scoring.items[0].cards is missing"]),
    "a cap below the count": ('[[scoring.items]]\nname = "x"\nkind = "sequence"\n'
                              'suit = "coins"\ncap = 2\n', ["scoring.items[0].cap = 2", "count"]),
    "a bad name": ('[[scoring.items]]\nname = "Big Points"\nkind = "scope"\n',
                   ["scoring.items[0].name = 'Big Points'"]),
    "items not a list": ('[scoring]\nitems = 3\n', ["scoring.items", "[[scoring.items]]"]),
}  # fmt: skip


@pytest.mark.parametrize("case", BAD_ITEMS)
def test_a_bad_item_gets_one_line_naming_the_key(capsys, tmp_path, case):
    text, fragments = BAD_ITEMS[case]
    path = tmp_path / "house.toml"
    path.write_text(_HEAD + text)
    simulate = ["simulate", "--variant", path, "--players", "greedy,random", "--deals", "10",
                "--seed", "1", "--out", tmp_path / "run"]  # fmt: skip
    for args in (["variants", path], simulate):
        status, out, err = scopa_sim(capsys, *args)
        assert status == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith("scopa-sim") and "house.toml" in err, err
        for fragment in fragments:
            assert fragment in err, (fragment, err)
    assert not (tmp_path / "run").exists()  # nothing written
    with pytest.raises(RulesError):
        load_variant_file(Path(path))


def test_an_entry_changing_an_item_an_option_turns_off_scores_nothing(tmp_path):
    """A file worth 2 for the re bello, played with --option re_bello=false: no re bello item."""
    path = tmp_path / "rebello.toml"
    path.write_text(
        'name = "rebello"\nextends = "classic"\n[scoring]\nre_bello = true\n\n'
        '[[scoring.items]]\nname = "re_bello"\npoints = 2\n'
    )
    rules = load_variant_file(path)
    assert [i.points for i in scoring_table(rules) if i.name == "re_bello"] == [2]
    off = replace(rules, re_bello=False)
    assert "re_bello" not in [item.name for item in scoring_table(off)]
    every = set(range(40))
    assert [p["re_bello"] for p in both(off, [every, set()], [0, 0])] == [0, 0]


def test_an_entry_of_another_kind_replaces_the_item_in_its_place():
    """Cirulla's cards point is a threshold (21 or more): an entry named ``cards`` of kind
    ``at-least`` replaces the most-cards item, and its column stays first."""
    rules = PRESETS["cirulla"]
    table = {item.name: item for item in scoring_table(rules)}
    assert table["cards"].kind == "at-least" and table["cards"].count == 21
    assert table["coins"].kind == "at-least" and table["coins"].suit == 0
    assert point_columns(rules)[:2] == ("cards", "coins")


def test_grande_and_piccola_are_options_on_the_italian_presets():
    """cirulla.md C6's grande_points and piccola_max: options of cirulla and of classic (off
    there by default), scored as the set and the run they are; a piccola below its ace-2-3 and
    one beside the napola are refused."""
    pack = PRESETS["classic"].pack
    rules = variant("classic", grande_points=4, piccola_max=5)
    assert point_columns(rules) == (*CATEGORIES, "grande", "piccola")
    piles = [cards(pack, "AD 2D 3D 4D 5D 6D FD CD RD"), set()]
    points = both(rules, piles, [0, 0])
    assert (points[0]["grande"], points[0]["piccola"]) == (4, 5)  # the run capped at 5
    cirulla = variant("cirulla", grande_points=3, piccola_max=7)
    assert [(p["grande"], p["piccola"]) for p in both(cirulla, piles, [0, 0])] == [(3, 6), (0, 0)]
    with pytest.raises(RulesError, match="piccola_max = 2: the piccola starts"):
        variant("classic", piccola_max=2)
    with pytest.raises(RulesError, match="'piccola' and 'napola'"):
        variant("classic", piccola_max=6, napola="sequence")
