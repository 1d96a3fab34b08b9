"""Captures as a combination of kinds (issue 31, /work/shared/rules/cirulla.md C3 and C8).

A variant file's ``[capture]`` combines a match, a sum, a total with the played card and the ace
that sweeps a table without an ace, with ``match_priority`` saying whether a match rules out the
sums. The compiled kernels and the reference engine must list the same legal actions in the same
order for every combination: today's three ways of capturing in their search's order (their
recorded deals are held by tests/test_row_hashes.py and tests/golden), every other combination in
C8's canonical order (each card's captures by the sorted tuple of their ids, a prefix first).
Cirulla's worked examples C9.1-C9.5 are exact tests; a designer's file capturing to 11 loads and
plays; bad capture keys get one line naming the key; the older key ``capture.rule`` reads to the
same variant as the keys it stands for.

Card ids are those of docs/rules.md §1 (``id = 10 * suit + rank - 1``, suits coins, cups,
swords, clubs), which cirulla.md C1 maps the French suits onto (diamonds, hearts, spades, clubs).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from scopa_sim import api
from scopa_sim.cards import cards_of, mask_of
from scopa_sim.engine import kernels, reference
from scopa_sim.rules import PRESETS, RulesError, definition_of
from scopa_sim.rules.definition import from_definition
from scopa_sim.rules.files import parse_variant_file
from tests.support.cli import scopa_sim

CLASSIC = PRESETS["classic"]

#: Cirulla's capture kinds (C3.1, C3.2) on the classic deal, C3.3's option left at its default.
CIRULLA_CAPTURES = """
name = "cirulla-captures"
extends = "classic"

[capture]
match = true
sum = true
total = 15
ace_sweeps = true
match_priority = false

[scoring]
ace_sweep_scopa = true
"""


def cirulla(**changes):
    return replace(parse_variant_file(CIRULLA_CAPTURES, "cirulla"), **changes)


def kernel_actions(rules, hand, table) -> list[tuple[int, tuple[int, ...]]]:
    """The compiled kernel's legal actions, in its order, as ``(card, sorted ids taken)``."""
    code = kernels.KernelRules.of(rules).rule
    card, capture, _group, count, _n_cards = kernels.legal_actions(
        np.array([mask_of(hand)], np.uint64), np.array([mask_of(table)], np.uint64),
        rules.pack.ranks, rules.fewest_cards, rules.forced_capture, width=4, rule=code,
    )  # fmt: skip
    return [(int(card[0, k]), tuple(cards_of(int(capture[0, k])))) for k in range(count[0])]


def reference_actions(rules, hand, table) -> list[tuple[int, tuple[int, ...]]]:
    return [(c, tuple(sorted(t))) for c, t in reference.legal_actions(rules, hand, table)]


def captures_of(rules, card: int, table) -> list[tuple[int, ...]]:
    """The captures ``card`` may make, in order, after checking both engines list them alike."""
    actions = kernel_actions(rules, {card}, table)
    assert actions == reference_actions(rules, {card}, table)
    return [taken for _, taken in actions if taken]


# --- C9: the worked examples ------------------------------------------------------------------


def test_c9_1_match_sum_and_fifteen_together():
    """Table 2s 5c 7s Jh, the 7c played: the Jh by fifteen, 2s 5c by sum, the 7s by match, in
    C8's order; with match_priority the sum goes (the 7s matches) and the fifteen stays."""
    table = {21, 34, 26, 17}
    assert captures_of(cirulla(), 36, table) == [(17,), (21, 34), (26,)]
    assert captures_of(cirulla(match_priority=True), 36, table) == [(17,), (26,)]


def test_c9_2_a_fifteen_that_sweeps():
    """Table 4c 6d, the 5s played: the fifteen 5 + 4 + 6 takes both, a scopa; a Kc onto a lone
    5d takes it the same way (10 + 5)."""
    assert captures_of(cirulla(), 24, {33, 5}) == [(5, 33)]
    assert captures_of(cirulla(), 39, {4}) == [(4,)]
    both = np.uint64(mask_of({5, 33}))
    table, scopa = kernels.apply_move(np.uint64(1 << 24), both, both, True, np.uint64(0), False)
    assert table == 0 and scopa


def test_c9_3_an_ace_sweeps_a_table_without_an_ace():
    """Table Kd 4s 5h, the Ac played: the whole table is its only capture; the fifteen Kd 4s is
    not offered apart. The sweep is a scopa (ace_sweep_scopa), and none without the option."""
    rules = cirulla()
    assert captures_of(rules, 30, {9, 23, 14}) == [(9, 14, 23)]
    ace_mask = np.uint64(rules.pack.rank_mask(1))
    whole = np.uint64(mask_of({9, 14, 23}))
    for counts in (True, False):
        _, scopa = kernels.apply_move(np.uint64(1 << 30), whole, whole, True, ace_mask, not counts)
        assert scopa == counts
    assert reference.is_ace_sweep(rules, 30, frozenset({9, 14, 23}))


def test_c9_4_an_ace_with_an_ace_on_the_table_does_not_sweep():
    """Table Ah 4s Kd Qc, the Ac played: Kd 4s by fifteen, the Ah by match, Ah 4s Qc by
    fifteen, in that order; none empties the table."""
    assert captures_of(cirulla(), 30, {10, 23, 9, 38}) == [(9, 23), (10,), (10, 23, 38)]


def test_c9_5_an_ace_onto_an_empty_table_stays_and_the_next_takes_it():
    """An ace onto an empty table is laid; the next ace takes that lone ace by match (an ace is
    on the table, so no sweep rule), emptying the table."""
    rules = cirulla()
    assert kernel_actions(rules, {0}, set()) == [(0, ())] == reference_actions(rules, {0}, set())
    assert captures_of(cirulla(), 30, {0}) == [(0,)]


def test_c9_6_the_matta_in_play_is_a_plain_seven():
    """Table 3s 4c Jd, the 7h (the matta, id 16) played in the preset: by default a plain seven,
    so the Jd by fifteen (7 + 8) or 3s 4c by sum (3 + 4), in C8's order."""
    rules = PRESETS["cirulla"]
    assert rules.matta == 16
    assert captures_of(rules, 16, {22, 33, 7}) == [(7,), (22, 33)]


def test_the_presets_capture_as_the_worked_examples():
    """The cirulla presets are the combination the worked examples use."""
    for name in ("cirulla", "cirulla-3p", "cirulla-4p"):
        rules = PRESETS[name]
        assert kernels.KernelRules.of(rules).rule == kernels.KernelRules.of(cirulla()).rule
        assert captures_of(rules, 36, {21, 34, 26, 17}) == [(17,), (21, 34), (26,)]


def test_fewest_cards_applies_among_sums_and_among_totals_apart():
    """cirulla.md C3.3: ``fewest_cards`` keeps the sums with the fewest cards, and the totals
    with the fewest apart. The 6D onto AD 2D 3D 4B 5B: sums AD 5B, 2D 4B, AD 2D 3D; totals (9
    with the 6) 4B 5B, AD 3D 5B, 2D 3D 4B."""
    table = {0, 1, 2, 33, 34}
    every = captures_of(cirulla(), 5, table)
    fewest = captures_of(cirulla(fewest_cards=True), 5, table)
    ranks = {c: CLASSIC.pack.rank(c) for c in table}
    sums = [t for t in every if sum(ranks[c] for c in t) == 6 and len(t) >= 2]
    totals = [t for t in every if sum(ranks[c] for c in t) == 9]
    assert len(sums) == 3 and len(totals) >= 3  # the position is the one described
    keep = {t for group in (sums, totals) for t in group if len(t) == min(map(len, group))}
    assert fewest == [t for t in every if t in keep]


def test_a_set_two_kinds_capture_is_one_action():
    """With a total of 10 a 5 takes a 5 by match and by total, and 2 + 3 by sum and by total:
    each set once (C8: one action per capture)."""
    rules = replace(CLASSIC, total=10, match_priority=False)
    assert captures_of(rules, 4, {14, 21, 22}) == [(14,), (21, 22)]  # 5D onto 5C 2S 3S


# --- both engines, every combination ----------------------------------------------------------

#: Every combination of kinds, with totals where a set is a capture of two kinds (10 and 20:
#: a 5, or a king, matches or sums to what makes the total with it) and where none is.
COMBINATIONS = [
    dict(match=m, sum=s, total=t, ace_sweeps=a, match_priority=p)
    for m, s, t, a, p in itertools.product(
        (True, False), (True, False), (0, 10, 11, 15, 20, 30), (True, False), (True, False)
    )
    if m or s or t or a
]


def _random_positions(rules, rng, count: int):
    """Random hands (1-4 cards) and tables (0-12 cards) of the pack, disjoint."""
    for _ in range(count):
        cards = rng.permutation(rules.pack.n_cards)
        hand_size, table_size = int(rng.integers(1, 5)), int(rng.integers(0, 13))
        yield set(cards[:hand_size].tolist()), set(cards[hand_size : hand_size + table_size])


@pytest.mark.parametrize("pack", ["classic", "scopa-52"])
def test_kernels_and_reference_list_the_same_actions_in_the_same_order(pack):
    """For every combination of kinds (with fewest_cards and forced_capture at random), on
    random positions: the same actions, in the same order; C8's order where the variant is
    canonical."""
    rng = np.random.default_rng(31)
    base = PRESETS[pack]
    seen_orders = set()
    for kinds in COMBINATIONS:
        options = dict(fewest_cards=bool(rng.integers(2)), forced_capture=bool(rng.integers(2)))
        rules = replace(base, **kinds, **options)
        for hand, table in _random_positions(rules, rng, 60):
            got = kernel_actions(rules, hand, table)
            assert got == reference_actions(rules, hand, table), (kinds, options, hand, table)
            if rules.canonical_capture_order:
                for c in hand:
                    taken = [t for card, t in got if card == c]
                    assert taken == sorted(taken), (kinds, c, table)
                    seen_orders.add(len(taken) > 1)
    assert seen_orders == {True, False}  # cards with several captures were met


def test_todays_three_ways_keep_their_search_order():
    """Classic's sums come in the search's (rank, suit) order, not C8's: AS 4D before 2C 3D
    for a 5 (their ids: (3, 20) after (2, 11) in C8's order)."""
    table = {20, 3, 11, 2}  # AS, 4D, 2C, 3D
    assert captures_of(CLASSIC, 4, table) == [(3, 20), (2, 11)]
    canonical = replace(CLASSIC, match_priority=False)
    assert canonical.canonical_capture_order and not CLASSIC.canonical_capture_order
    assert captures_of(canonical, 4, table) == [(2, 11), (3, 20)]


def test_the_kernel_codes_of_todays_three_ways_are_their_fast_paths():
    assert kernels.KernelRules.of(CLASSIC).rule == kernels.MATCH_OR_SUM
    assert kernels.KernelRules.of(PRESETS["escoba"]).rule == kernels.FIFTEEN
    assert kernels.KernelRules.of(PRESETS["asso-piglia-tutto"]).rule == kernels.ACE_TAKES_ALL
    assert kernels.KernelRules.of(cirulla()).rule & kernels.SORTED


def test_a_combined_variant_plays_alike_on_both_engines():
    """Whole deals of Cirulla's captures: the public move log is the reference engine's for
    the same choices, and every seat's legal actions on the way were the reference's."""
    rules = cirulla()
    rng = np.random.default_rng(9)
    packs = [rng.permutation(40).tolist() for _ in range(80)]
    sweeps = 0
    for record in api.play_packs(rules, ["greedy", "random"], packs, seed=2):
        if record.throw_in:
            continue
        moves = iter(record.moves)

        def choose(view, legal, moves=moves):
            move = next(moves)
            action = (move.card, frozenset(move.captured))
            assert action in legal
            return action

        ref = reference.play_deal(rules, record.pack, choose)
        assert ref.moves == record.moves
        assert ref.points == [s.points for s in record.sides]
        sweeps += sum(m.scopa and CLASSIC.pack.rank(m.card) == 1 for m in ref.moves)
    assert sweeps > 0  # aces swept, and scored


@pytest.mark.parametrize("name", ["greedy", "defensive", "memory", "chitarrella"])
def test_the_heuristic_players_play_a_combined_variant(name):
    out = api.play_deals(cirulla(), [name, "random"], deals=range(40), seed=1)
    assert len(out.to_frame()) == 80


# --- variant files ------------------------------------------------------------------------------

ELEVEN = """
name = "eleven"
summary = "classic, but a card takes table cards making 11 with it"
extends = "classic"

[capture]
match = false
sum = false
total = 11
"""


def test_a_designers_total_of_eleven_loads_and_plays(capsys, tmp_path):
    path = tmp_path / "eleven.toml"
    path.write_text(ELEVEN)
    rules = parse_variant_file(ELEVEN, "eleven")
    assert (rules.match, rules.sum, rules.total) == (False, False, 11)
    assert captures_of(rules, 36, {23, 5, 6}) == [(23,)]  # a 7 takes a 4
    assert captures_of(rules, 9, {0, 26}) == [(0,)]  # a king takes an ace
    status, out, err = scopa_sim(
        capsys, "simulate", "--variant", str(path), "--players", "greedy,random", "--games", "4",
        "--seed", "1", "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert status == 0, err
    status, out, err = scopa_sim(capsys, "variants", str(path))
    assert status == 0 and "making 11 with it" in out


@pytest.mark.parametrize("rule", ["match-or-sum", "fifteen", "ace-takes-all"])
def test_the_older_capture_rule_reads_as_its_keys(rule):
    """Run manifests of older runs and users' files write ``capture.rule``: it reads to the
    variant the keys give, and a definition is written back with the keys."""
    preset = {"match-or-sum": "classic", "fifteen": "escoba", "ace-takes-all": "asso-piglia-tutto"}
    rules = PRESETS[preset[rule]]
    old = definition_of(rules)
    for key in ("match", "sum", "total", "ace_sweeps", "match_priority"):
        del old["capture"][key]
    old["capture"]["rule"] = rule
    assert from_definition(old, "an older manifest") == rules
    assert "rule" not in definition_of(rules)["capture"]
    text = f'extends = "classic"\nname = "x"\n[capture]\nrule = "{rule}"\n'
    same = parse_variant_file(text, "f")
    assert [getattr(same, k) for k in ("match", "sum", "total", "ace_sweeps")] == [
        getattr(rules, k) for k in ("match", "sum", "total", "ace_sweeps")
    ]
    agreeing = text + f"total = {rules.total}\n"
    assert parse_variant_file(agreeing, "f") == same


@pytest.mark.parametrize(
    ("capture", "fragments"),
    [
        ("total = 1", ["capture.total = 1", "no capture makes it"]),
        ("total = 41", ["capture.total = 41", "0 to 40"]),
        ("match = false\nsum = false", ["capture.match", "no card could ever capture"]),
        ('rule = "fifteen"\nmatch = true', ["capture.match = true", "contradicts"]),
        ('rule = "eleven"', ["capture.rule = 'eleven'", "fifteen"]),
    ],
)
def test_bad_capture_keys_get_one_line_naming_the_key(capture, fragments):
    with pytest.raises(RulesError) as caught:
        parse_variant_file(f'extends = "classic"\nname = "x"\n[capture]\n{capture}\n', "f.toml")
    line = str(caught.value)
    assert "\n" not in line and line.startswith("f.toml: ")
    for fragment in fragments:
        assert fragment in line, (fragment, line)
