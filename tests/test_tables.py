"""The numpy table-based legal-action generator (tests/support/numpy_legal_actions.py) equals
the reference engine.

It is an independent second implementation of the capture rules beside the numba kernel: both
produce the same actions (as sets per row) on states from real play and on random states with
large tables, under every capture option.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import pytest

from scopa_sim.engine import kernels
from scopa_sim.rules import variant
from tests.support import numpy_legal_actions as tables

OPTIONS = {
    "default": {},
    "fewest": {"fewest_cards": True},
    "forced": {"forced_capture": True},
    "fewest-forced": {"fewest_cards": True, "forced_capture": True},
}


@cache
def states(source: str) -> tuple[np.ndarray, np.ndarray]:
    if source == "played":  # 3,600 decision points of 100 random-vs-random deals
        return tables.play_states(100, seed=11)
    return tables.random_states(3000, seed=12, max_table=12, max_hand=3)


@pytest.mark.parametrize("source", ["played", "random"])
@pytest.mark.parametrize("label", list(OPTIONS))
def test_equals_reference(source, label):
    rules = variant("classic", **OPTIONS[label])
    hands, table = states(source)
    actions = tables.legal_actions(hands, table, 10, rules.fewest_cards, rules.forced_capture)
    assert tables.as_sets(actions) == tables.reference_sets(rules, hands, table)
    assert tables.well_formed(actions)
    assert actions[3].dtype == np.int64 and actions[0].dtype == np.int8


@pytest.mark.parametrize("label", list(OPTIONS))
def test_same_shape_as_kernel(label):
    rules = variant("classic", **OPTIONS[label])
    hands, table = states("random")
    mine = tables.legal_actions(hands, table, 10, rules.fewest_cards, rules.forced_capture)
    theirs = kernels.legal_actions(hands, table, 10, rules.fewest_cards, rules.forced_capture)
    assert len(mine) == len(theirs)
    assert mine[0].shape == theirs[0].shape  # both exactly as wide as the largest row
    for a, b in zip(mine, theirs, strict=True):
        assert a.dtype == b.dtype
    np.testing.assert_array_equal(mine[3], theirs[3])
    np.testing.assert_array_equal(mine[4], theirs[4])


def test_empty_batch_and_empty_hands():
    none = np.zeros(0, np.uint64)
    card, _, _, count, n_cards = tables.legal_actions(none, none, 10, False, False)
    assert card.shape == (0, 1) and len(count) == 0 and len(n_cards) == 0
    card, _, _, count, n_cards = tables.legal_actions(
        np.zeros(2, np.uint64), np.array([0, 0b111], np.uint64), 10, False, False
    )
    assert count.tolist() == [0, 0] and n_cards.tolist() == [0, 0] and (card == -1).all()


@pytest.mark.parametrize("ranks", [10, 13])
def test_partition_tables_are_complete(ranks):
    """Each value's sum partitions are exactly its multisets of smaller ranks, >= 2 parts, no
    rank more than 4 times."""
    t = tables.tables(ranks)
    for v in range(1, ranks + 1):
        expected = {
            p
            for k in range(2, min(v, 8) + 1)  # 9 parts sum to at least 4 * 1 + 4 * 2 + 3 = 15
            for p in combinations_with_replacement(range(1, v), k)
            if sum(p) == v and max(p.count(r) for r in p) <= 4
        }
        every_rank = (1 << (v - 1)) - 1  # key: all smaller ranks on the table
        key = t.key_base[v - 1] + every_rank
        found = set()
        for i in t.flat[t.start[key] : t.start[key] + t.count[key]]:
            slots = zip(t.slot_rank[i], t.slot_mult[i], strict=True)
            found.add(tuple(sorted(r + 1 for r, m in slots for _ in range(m))))
        assert found == expected
