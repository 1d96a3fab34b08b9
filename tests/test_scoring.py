"""The compiled batch scorer (``scoring.score``) against the reference engine's per-deal scoring.

Random partitions of the pack among the sides (some cards to nobody), for every preset and for
option sets covering every scoring option, with scope and stopped rows: every field of
``DealScores`` must equal, entry by entry and dtype by dtype, what ``reference.score_deal`` and
``reference.stored_primiera`` give for the same captured sets.
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

from scopa_sim.cards import cards_of
from scopa_sim.engine import reference, scoring
from scopa_sim.rules import CATEGORIES, PRESETS, MissingSuit, Napola, PrimieraRule, variant
from scopa_sim.rules.items import point_columns

ROWS = 300
DTYPES = {
    "cards": np.int8,
    "coins": np.int8,
    "settebello": np.bool_,
    "primiera": np.int16,
    "points": np.int16,
}

#: Every preset as it stands, then every combination of the scoring options on the Italian pack
#: with two sides and with three (the 52-card presets bring most_sevens and no primiera).
CONFIGS = [(name, {}) for name in PRESETS] + [
    (name, {"primiera": p, "primiera_missing_suit": m, "napola": n, "re_bello": r})
    for name in ("classic", "classic-3p")
    for p, m, n, r in itertools.product(PrimieraRule, MissingSuit, Napola, (False, True))
]


def _config_id(config) -> str:
    name, options = config
    return variant(name, options).describe()


def random_partitions(rng, rows: int, sides: int, n_cards: int) -> np.ndarray:
    """``uint64[rows, sides]``: each card to a side or to nobody, with weights drawn per row
    (lopsided rows lack suits and sevens; even ones tie), and a few fixed rows: everything to
    nobody, everything to one side, the pack dealt round the sides."""
    weights = rng.dirichlet(np.full(sides + 1, 0.8), rows)
    weights[rng.random(rows) < 0.3, sides] = 0.0  # no card to nobody
    weights /= weights.sum(axis=1, keepdims=True)
    owner = (rng.random((rows, n_cards, 1)) > np.cumsum(weights, axis=1)[:, None, :]).sum(axis=2)
    owner[0] = sides  # nobody
    owner[1] = 0
    owner[2] = np.arange(n_cards) % sides
    bits = np.uint64(1) << np.arange(n_cards, dtype=np.uint64)
    none = np.uint64(0)
    held = [np.where(owner == s, bits, none).sum(axis=1, dtype=np.uint64) for s in range(sides)]
    return np.stack(held, axis=1)


def expected(rules, captured, scope, stopped) -> dict[str, np.ndarray]:
    """What the reference engine gives, row by row, as the arrays of ``DealScores``."""
    rows, sides = captured.shape
    out = {field: np.zeros((rows, sides), dtype) for field, dtype in DTYPES.items()}
    columns = point_columns(rules)
    out["points"] = np.zeros((rows, sides, len(columns)), np.int16)
    pack = rules.pack
    for b in range(rows):
        sets = [set(cards_of(captured[b, s])) for s in range(sides)]
        is_stopped = stopped is not None and bool(stopped[b])  # docs/rules.md §6: scope alone
        points = reference.score_deal(rules, sets, [int(n) for n in scope[b]], stopped=is_stopped)
        for s, cards in enumerate(sets):
            out["cards"][b, s] = len(cards)
            out["coins"][b, s] = sum(pack.suit(c) == 0 for c in cards)
            out["settebello"][b, s] = rules.settebello in cards
            out["primiera"][b, s] = reference.stored_primiera(rules, cards)
            out["points"][b, s] = [points[s][name] for name in columns]
    return out


def assert_scores_equal(got: scoring.DealScores, want: dict[str, np.ndarray], label: str) -> None:
    for field, array in want.items():
        value = getattr(got, field)
        assert value.dtype == array.dtype, f"{label}: {field} is {value.dtype}, not {array.dtype}"
        np.testing.assert_array_equal(value, array, err_msg=f"{label}: {field}")


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_score_matches_the_reference_on_random_partitions(config):
    name, options = config
    rules = variant(name, options)
    rng = np.random.default_rng(zlib.crc32(rules.describe().encode()))
    sides = rules.n_sides
    captured = random_partitions(rng, ROWS, sides, rules.pack.n_cards)
    scope = rng.integers(0, 6, (ROWS, sides)).astype(np.int16)
    scope[rng.random(ROWS) < 0.5] = 0
    stopped = rng.random(ROWS) < 0.2
    assert_scores_equal(
        scoring.score(rules, captured, scope, stopped),
        expected(rules, captured, scope, stopped),
        f"{rules.describe()} with stopped rows",
    )
    none_stopped = expected(rules, captured, scope, None)
    assert_scores_equal(scoring.score(rules, captured, scope), none_stopped, "stopped=None")
    assert_scores_equal(
        scoring.score(rules, captured, scope, np.zeros(ROWS, bool)), none_stopped, "none stopped"
    )


def test_score_takes_any_layout_and_integer_scope():
    """A transposed ``captured``, an int64 or broadcast ``scope`` score as the plain arrays."""
    rules = variant("classic")
    rng = np.random.default_rng(5)
    captured = random_partitions(rng, 200, 2, rules.pack.n_cards)
    scope = rng.integers(0, 4, (200, 2)).astype(np.int16)
    want = scoring.score(rules, captured, scope)
    strided = np.asfortranarray(captured)
    assert not strided.flags.c_contiguous
    for got in (
        scoring.score(rules, strided, scope),
        scoring.score(rules, captured, scope.astype(np.int64)),
    ):
        for field in DTYPES:
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    flat = scoring.score(rules, captured, np.int16(0))
    np.testing.assert_array_equal(flat.points[:, :, CATEGORIES.index("scope")], 0)
    np.testing.assert_array_equal(flat.cards, want.cards)


def test_score_of_one_side_alone():
    """One column scores as the reference scores one side: it wins every category it can
    (a void suit still means no primiera)."""
    for options in ({}, {"primiera_missing_suit": "zero"}, {"primiera": "most_sevens"}):
        rules = variant("classic", options)
        rng = np.random.default_rng(9)
        captured = random_partitions(rng, 100, 1, rules.pack.n_cards)
        scope = np.zeros((100, 1), np.int16)
        want = expected(rules, captured, scope, None)
        assert_scores_equal(scoring.score(rules, captured, scope), want, rules.describe())


def test_score_of_an_empty_batch():
    for name in ("classic", "scopa-52-4p"):
        rules = variant(name)
        sides = rules.n_sides
        empty = np.zeros((0, sides), np.uint64)
        out = scoring.score(rules, empty, np.zeros((0, sides), np.int16), np.zeros(0, bool))
        for field, dtype in DTYPES.items():
            value = getattr(out, field)
            assert value.dtype == dtype and value.shape[:2] == (0, sides)
        assert out.points.shape == (0, sides, len(CATEGORIES))
