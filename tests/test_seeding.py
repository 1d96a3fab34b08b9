"""Keyed randomness: packs and decision numbers are uniform, reproducible and shared between runs.

Statistical checks use fixed seeds and tolerances derived from standard errors: a frequency
``p_hat`` of an event of probability ``p`` over ``n`` independent trials must satisfy
``|p_hat - p| < z * sqrt(p (1 - p) / n)``, with ``z = 4`` for a single check and a Bonferroni
``z`` when many cells are checked at once. Distribution checks are chi-square tests whose
limits come from the chi-square distribution at a stated false-alarm rate (``ALPHA``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

from scopa_sim import api, seeding
from scopa_sim.cards import cards_of
from scopa_sim.engine import batch as engine
from scopa_sim.engine import deal_rules
from scopa_sim.jit import njit
from scopa_sim.rules import variant

N_CARDS = 40
KING = 9  # rank 10: card id % 10 == 9
THROW_IN_P = Fraction(29, 18278)


def within(hits: int, n: int, p: float, z: float = 4.0) -> bool:
    return abs(hits / n - p) < z * math.sqrt(p * (1 - p) / n)


def bonferroni_z(cells: int, alpha: float = 1e-3) -> float:
    """Two-sided normal quantile making ``cells`` checks fail together with probability alpha."""
    return NormalDist().inv_cdf(1 - alpha / (2 * cells))


def pack_rows(key, game, deal=None, attempt=None):
    game = np.asarray(game, np.int64)
    zero = np.zeros(len(game), np.int64)
    deal = zero if deal is None else np.asarray(deal, np.int64)
    attempt = zero if attempt is None else np.asarray(attempt, np.int64)
    return seeding.packs(key, game, deal, attempt, N_CARDS)


def test_throw_in_probability_is_exact():
    """29/18278 is P(3 or 4 kings among 4 cards of 40): (C(4,3) C(36,1) + C(4,4)) / C(40,4)."""
    ways = math.comb(4, 3) * math.comb(36, 1) + math.comb(4, 4)
    assert Fraction(ways, math.comb(40, 4)) == THROW_IN_P


def test_mix64_scalar_agrees_with_numpy_bit_for_bit():
    rng = np.random.default_rng(5)
    xs = np.concatenate(
        [
            rng.integers(0, 2**64, 20_000, dtype=np.uint64, endpoint=False),
            np.array([0, 1, 2**63, 2**64 - 1, 0x9E3779B97F4A7C15], np.uint64),
        ]
    )
    vectorised = seeding.mix64(xs)
    for x, want in zip(xs, vectorised, strict=True):
        got = seeding.mix64_scalar(x)
        assert got == want, f"mix64({x:#x}): compiled {int(got):#x}, numpy {int(want):#x}"


def test_hash_pairs_is_hash_counters_of_two_counters():
    """The compiled form (two integer vectors of one length) and the numpy form it stands for
    give the same bits, for any counters, negative ones included (both take them modulo 2**64);
    other shapes go to the numpy form."""
    rng = np.random.default_rng(6)
    key = seeding.stream_key(11, seeding.PLAYERS)
    first = np.concatenate([rng.integers(-(2**62), 2**62, 5_000), [0, -1, 2**63 - 1, -(2**63)]])
    second = rng.permutation(first)
    for a, b in [(first, second), (first.astype(np.uint64), second), (first[:3], second[:3])]:
        assert np.array_equal(seeding.hash_pairs(key, a, b), seeding.hash_counters(key, a, b))
    game = np.arange(10)
    for b in [np.uint64(1 << 40), 3, np.arange(10).reshape(1, 10)]:  # broadcast: numpy form
        assert np.array_equal(seeding.hash_pairs(key, game, b), seeding.hash_counters(key, game, b))
    assert len(seeding.hash_pairs(key, game[:0], game[:0])) == 0


@njit
def _uniform_indices(bits, n, out):
    for i in range(len(bits)):
        out[i] = seeding.uniform_index(bits[i], n)


def _near_cut_points(n):
    """Draws whose float product lands within a few units of every cut point k / n, where the
    float rounding can carry into the next index: the cases an integer shortcut gets wrong."""
    m = [((k << 53) // n) + d for k in range(1, n) for d in range(-3, 4)]
    m = np.array([x for x in m if 0 <= x < 2**53], np.uint64) << np.uint64(11)
    return np.concatenate([m, m | np.uint64(2047)])


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 10, 13, 40, 52, 64, 97, 1000, 1024])
def test_uniform_index_is_the_float_index_bit_for_bit(n):
    rng = np.random.default_rng(n)
    bits = np.concatenate(
        [
            rng.integers(0, 2**64, 50_000, dtype=np.uint64, endpoint=False),
            _near_cut_points(n),
            np.array([0, 1, 2**11 - 1, 2**64 - 2**11, 2**64 - 1], np.uint64),
        ]
    )
    want = np.minimum((seeding.to_uniform(bits) * n).astype(np.int64), n - 1)
    got = np.empty(len(bits), np.int64)
    _uniform_indices(bits, n, got)
    assert np.array_equal(got, want), bits[got != want][:5]
    # The cut points are where rounding matters: a plain (m * n) >> 53 differs on some of them
    # (not for a power of two, whose float product is exact).
    plain = np.minimum(((bits >> np.uint64(11)) * np.uint64(n)) >> np.uint64(53), n - 1)
    if n & (n - 1):
        assert (plain.astype(np.int64) != want).any()


def reference_packs(key, game, deal, attempt, n_cards):
    """Pack stream 2 as its docstring states it, in plain Python with exact integers."""
    rows = seeding.hash_counters(key, game, deal, attempt)
    out = []
    for row in rows:
        pack = list(range(n_cards))
        for i in range(n_cards - 1, 0, -1):
            draw = int(seeding.hash_counters(np.uint64(row), i))
            j = draw * (i + 1) >> 64
            pack[i], pack[j] = pack[j], pack[i]
        out.append(pack)
    return np.array(out, np.int8)


@pytest.mark.parametrize("n_cards", [40, 52])
def test_packs_follow_the_documented_stream(n_cards):
    """The compiled shuffle is the stream its docstring states (version 2): a change to it is a
    new stream, and must bump PACK_STREAM_VERSION (and storage.DATA_VERSION)."""
    assert seeding.PACK_STREAM_VERSION == 2
    key = seeding.stream_key(2024, seeding.PACKS)
    rng = np.random.default_rng(3)
    game, deal = rng.integers(0, 10**9, 300), rng.integers(0, 60, 300)
    attempt = rng.integers(0, 4, 300)
    got = seeding.packs(key, game, deal, attempt, n_cards)
    assert got.dtype == np.int8 and got.shape == (300, n_cards)
    np.testing.assert_array_equal(got, reference_packs(key, game, deal, attempt, n_cards))


@pytest.mark.parametrize("name", ["classic", "scopone", "escoba", "scopa-52"])
def test_dealt_packs_are_the_first_pack_that_is_no_throw_in(name):
    """``batch.deal_packs`` (one compiled loop) deals, for each (game, deal), the pack of the
    first attempt whose table is not a throw-in, ``seeding.packs`` of that attempt (which is
    the stream as stated: the test above), and counts the attempts thrown in."""
    rules = variant(name)
    key = seeding.stream_key(77, seeding.PACKS)
    game = np.arange(6_000, dtype=np.int64)
    deal = game % 5
    packs, thrown = engine.deal_packs(rules, key, game, deal)
    assert packs.dtype == np.int8 and thrown.dtype == np.int16
    want = seeding.packs(key, game, deal, thrown, rules.pack.n_cards)
    np.testing.assert_array_equal(packs, want)
    assert not engine.throw_in_rows(rules, packs).any()
    redealt = np.flatnonzero(thrown)
    if rules.throw_in and rules.table_cards >= 4:
        assert len(redealt) > 0
        n_cards = rules.pack.n_cards
        earlier = seeding.packs(key, game[redealt], deal[redealt], thrown[redealt] - 1, n_cards)
        assert engine.throw_in_rows(rules, earlier).all()
    else:
        assert len(redealt) == 0


def test_the_dealing_loop_redeals_until_a_table_is_no_throw_in():
    """The compiled loop behind ``deal_packs``, with half the cards counted as kings so that
    tables are thrown in one time in three: rows redealt five times and more get the pack of
    their last attempt, and every attempt before it was a throw-in."""
    key, n = seeding.stream_key(78, seeding.PACKS), 3_000
    game, deal = np.arange(n, dtype=np.int64), np.zeros(n, np.int64)
    kings = np.where(np.arange(40) < 20, 10, 1).astype(np.int8)  # cards 0-19 "kings"
    packs, thrown = np.empty((n, 40), np.int8), np.empty(n, np.int16)
    deal_rules._deal_packs(
        key, game, deal, seeding.pack_position_keys(40), kings,
        deal_rules.deal_rules(variant("classic")), True, packs, thrown,
        np.empty(n, np.uint64), np.empty(40, np.int64),
    )  # fmt: skip
    assert thrown.max() >= 5 and (thrown == 0).mean() > 0.5
    np.testing.assert_array_equal(packs, seeding.packs(key, game, deal, thrown, 40))
    assert ((packs[:, :4] < 20).sum(axis=1) < 3).all()
    for attempt in range(int(thrown.max())):
        rows = np.flatnonzero(thrown > attempt)
        tried = seeding.packs(key, game[rows], deal[rows], np.full(len(rows), attempt), 40)
        assert ((tried[:, :4] < 20).sum(axis=1) >= 3).all()


#: Family-wise false-alarm rate of each statistical test below (fixed seeds: a pass is a pass).
ALPHA = 1e-3


def chi2_limit(df: int, alpha: float = ALPHA) -> float:
    return float(stats.chi2.ppf(1 - alpha, df))


def test_packs_throw_in_rate_permutations_and_uniform_positions():
    """Every pack is a permutation; the card at each position is uniform (chi-square).

    ``counts[position, card]`` over n packs. Each row of the table is multinomial(n, 1/40), so
    its Pearson statistic is chi-square with 39 df; the 40 rows are tested at alpha/40 each
    (Bonferroni). The whole table's statistic has both margins fixed at n (every pack is a
    permutation): under uniformity it is (40/39) chi-square with 39 * 39 df, tested at alpha.
    """
    n, chunk = 2_000_000, 250_000
    key = seeding.stream_key(20240601, seeding.PACKS)
    throw_ins = 0
    counts = np.zeros((N_CARDS, N_CARDS), np.int64)  # [position, card]
    cells = np.arange(N_CARDS) * N_CARDS
    for start in range(0, n, chunk):
        packs = pack_rows(key, np.arange(start, start + chunk))
        assert packs.shape == (chunk, N_CARDS) and packs.dtype == np.int8
        # Every pack is a permutation of the 40 card ids.
        assert (np.sort(packs, axis=1) == np.arange(N_CARDS)).all()
        throw_ins += int(((packs[:, :4] % 10 == KING).sum(axis=1) >= 3).sum())
        counts += np.bincount(
            (cells[None, :] + packs).ravel(), minlength=N_CARDS * N_CARDS
        ).reshape(N_CARDS, N_CARDS)

    p = float(THROW_IN_P)
    assert within(throw_ins, n, p), f"throw-in rate {throw_ins / n:.6f}, expected {p:.6f}"
    assert (counts.sum(axis=0) == n).all() and (counts.sum(axis=1) == n).all()

    expected = n / N_CARDS
    per_position = ((counts - expected) ** 2 / expected).sum(axis=1)
    limit = chi2_limit(N_CARDS - 1, ALPHA / N_CARDS)
    worst = int(per_position.argmax())
    assert per_position.max() < limit, (
        f"position {worst}: chi-square {per_position[worst]:.1f} >= {limit:.1f} (39 df)"
    )
    whole = per_position.sum() * (N_CARDS - 1) / N_CARDS
    assert whole < chi2_limit((N_CARDS - 1) ** 2), f"whole table: {whole:.1f}"


def test_two_positions_of_a_pack_are_independent():
    """The cards at two positions form a uniform pair of distinct cards (chi-square on the
    40 x 39 ordered pairs, 1559 df), for pairs of positions that the shuffle sets at its first
    and last swaps, the table and the first hand, and far apart; alpha split between them."""
    n = 1_000_000
    key = seeding.stream_key(77, seeding.PACKS)
    packs = pack_rows(key, np.arange(n), np.full(n, 3), np.ones(n, np.int64)).astype(np.int64)
    pairs = [(0, 1), (38, 39), (3, 4), (0, 39), (1, 20)]
    limit = chi2_limit(N_CARDS * (N_CARDS - 1) - 1, ALPHA / len(pairs))
    expected = n / (N_CARDS * (N_CARDS - 1))
    off_diagonal = ~np.eye(N_CARDS, dtype=bool)
    for a, b in pairs:
        table = np.bincount(packs[:, a] * N_CARDS + packs[:, b], minlength=N_CARDS**2)
        table = table.reshape(N_CARDS, N_CARDS)
        assert not np.diagonal(table).any()  # two positions never hold the same card
        statistic = ((table[off_diagonal] - expected) ** 2 / expected).sum()
        assert statistic < limit, f"positions {a}, {b}: chi-square {statistic:.1f} >= {limit:.1f}"


def test_52_card_packs_are_uniform_permutations():
    n, cards = 400_000, 52
    key = seeding.stream_key(52, seeding.PACKS)
    zero = np.zeros(n, np.int64)
    packs = seeding.packs(key, np.arange(n), zero, zero, cards)
    assert packs.shape == (n, cards) and packs.dtype == np.int8
    assert (np.sort(packs, axis=1) == np.arange(cards)).all()
    counts = np.bincount((np.arange(cards) * cards + packs).ravel(), minlength=cards**2)
    expected = n / cards
    per_position = ((counts.reshape(cards, cards) - expected) ** 2 / expected).sum(axis=1)
    assert per_position.max() < chi2_limit(cards - 1, ALPHA / cards)


def test_packs_are_the_same_for_any_batch_split():
    key = seeding.stream_key(12, seeding.PACKS)
    rng = np.random.default_rng(8)
    n = 20_000
    game, deal, attempt = rng.integers(0, 10**7, n), rng.integers(0, 30, n), rng.integers(0, 3, n)
    whole = pack_rows(key, game, deal, attempt)
    for _ in range(5):
        cuts = np.sort(rng.choice(np.arange(1, n), rng.integers(1, 40), replace=False))
        parts = [
            pack_rows(key, g, d, a)
            for g, d, a in zip(*(np.split(x, cuts) for x in (game, deal, attempt)), strict=True)
        ]
        np.testing.assert_array_equal(np.concatenate(parts), whole)
    # Any order of the rows: each row keeps its pack.
    order = rng.permutation(n)
    np.testing.assert_array_equal(pack_rows(key, game[order], deal[order], attempt[order]),
                                  whole[order])  # fmt: skip


def test_every_counter_changes_the_pack():
    """Another game, deal, attempt, seed or stream gives another pack, row by row."""
    key = seeding.stream_key(7, seeding.PACKS)
    rng = np.random.default_rng(9)
    n = 5000
    game, deal, attempt = rng.integers(0, 10**9, n), rng.integers(0, 30, n), rng.integers(0, 3, n)
    base = pack_rows(key, game, deal, attempt)
    assert len({row.tobytes() for row in base}) == n
    others = {
        "game": pack_rows(key, game + 1, deal, attempt),
        "deal": pack_rows(key, game, deal + 1, attempt),
        "attempt": pack_rows(key, game, deal, attempt + 1),
        "seed": pack_rows(seeding.stream_key(8, seeding.PACKS), game, deal, attempt),
        "stream": pack_rows(seeding.stream_key(7, seeding.PLAYERS), game, deal, attempt),
    }
    for what, other in others.items():
        same = (other == base).all(axis=1)
        assert not same.any(), f"another {what} dealt the same pack in {int(same.sum())} rows"
        # ... and not a near copy either: about one card in 40 stays in place.
        assert abs((other == base).mean() - 1 / N_CARDS) < 0.002, what


def test_pack_of_a_row_does_not_depend_on_the_batch():
    key = seeding.stream_key(7, seeding.PACKS)
    game, deal, attempt = [3, 7, 11, 7], [0, 2, 1, 2], [0, 0, 1, 1]
    alone = pack_rows(key, game, deal, attempt)
    rng = np.random.default_rng(1)
    big_game = rng.integers(0, 10**9, 997)
    big_deal = rng.integers(0, 40, 997)
    big_attempt = rng.integers(0, 3, 997)
    where = [5, 900, 0, 431]
    for k, row in enumerate(where):
        big_game[row], big_deal[row], big_attempt[row] = game[k], deal[k], attempt[k]
    big = pack_rows(key, big_game, big_deal, big_attempt)
    np.testing.assert_array_equal(big[where], alone)
    for k in range(len(game)):  # one row at a time
        np.testing.assert_array_equal(
            pack_rows(key, [game[k]], [deal[k]], [attempt[k]])[0], alone[k]
        )
    assert len({a.tobytes() for a in alone}) == len(alone)


def test_stream_keys():
    keys = {
        (seed, stream): seeding.stream_key(seed, stream)
        for seed in range(200)
        for stream in (seeding.PACKS, seeding.PLAYERS, 2, 3)
    }
    assert len(set(keys.values())) == len(keys), "two (seed, stream) pairs share a key"
    assert seeding.PACKS != seeding.PLAYERS
    for (seed, stream), key in list(keys.items())[:20]:
        assert isinstance(key, np.uint64)
        assert seeding.stream_key(seed, stream) == key  # a pure function of (seed, stream)
    with pytest.raises(ValueError):
        seeding.stream_key(-1, seeding.PACKS)


def decision_random(seed, game, deal, play):
    key = seeding.stream_key(seed, seeding.PLAYERS)
    game = np.asarray(game, np.int64)
    deal = np.asarray(deal, np.int64)
    return seeding.DecisionRandom(seeding.deal_keys(key, game, deal), play)


def test_decision_random_is_uniform():
    n = 400_000
    rng = decision_random(11, np.arange(n), np.zeros(n), play=5)
    first = rng.random()
    second = rng.random()
    wide = rng.random(size=6)
    assert first.shape == (n,) and wide.shape == (n, 6)
    for values in (first, second, wide[:, 0], wide[:, 5]):
        assert ((values >= 0) & (values < 1)).all()
        # Mean 1/2, variance 1/12: within 4 standard errors.
        assert abs(values.mean() - 0.5) < 4 * math.sqrt(1 / 12 / len(values))
        # A quarter of the values below 1/4 (a check on the shape, not only the mean).
        assert within(int((values < 0.25).sum()), len(values), 0.25)
    # Successive draws and columns are fresh numbers: correlation within 4 SE of 0 (1/sqrt(n)).
    for a, b in ((first, second), (wide[:, 0], wide[:, 1]), (second, wide[:, 0])):
        assert abs(np.corrcoef(a, b)[0, 1]) < 4 / math.sqrt(n)
    # integers(high): uniform on 0 .. high - 1 per row, here with high = 7.
    draws = rng.integers(np.full(n, 7))
    assert draws.min() >= 0 and draws.max() <= 6
    counts = np.bincount(draws, minlength=7)
    z = bonferroni_z(7)
    assert all(within(int(c), n, 1 / 7, z) for c in counts), counts
    # Per-row highs are respected.
    highs = np.arange(n) % 5 + 1
    assert (rng.integers(highs) < highs).all()


def test_decision_random_draws_the_documented_hashes_bit_for_bit():
    """Call ``k`` of ``random(size=w)`` gives row ``r``, column ``j`` the uniform of
    ``hash_counters(row key, (k << 16) + j)`` (the compiled loop is that numpy form, bit for
    bit), with one column for ``random()``, and no rows for an empty batch."""
    game = np.array([4, 10, 99, 1234, 7, 2**40])
    rng = decision_random(9, game, np.arange(6), play=17)
    rows = seeding.hash_counters(
        seeding.deal_keys(seeding.stream_key(9, seeding.PLAYERS), game, np.arange(6)), 17
    )
    for call, size in enumerate((None, 1, 42, None, 3), start=1):
        counters = np.arange(size or 1, dtype=np.uint64) + np.uint64(call << 16)
        want = seeding.to_uniform(seeding.hash_counters(rows[:, None], counters[None, :]))
        got = rng.random(size=size)
        np.testing.assert_array_equal(got, want[:, 0] if size is None else want)
    np.testing.assert_array_equal(rng.subset(np.array([4, 1])).random(4), rng.random(4)[[4, 1]])
    assert rng.subset(np.array([], np.int64)).random(size=5).shape == (0, 5)


def test_decision_random_rows_do_not_depend_on_the_batch():
    game = np.array([4, 10, 99, 1234, 7])
    deal = np.array([0, 3, 1, 0, 2])
    full = decision_random(3, game, deal, play=12)
    a, b = full.random(), full.random(size=3)
    # The same decision points in a different batch (other rows around them, shuffled).
    order = np.array([3, 0, 4, 2, 1])
    extra_game, extra_deal = np.arange(50, 60), np.ones(10, np.int64)
    other = decision_random(
        3, np.concatenate([extra_game, game[order]]), np.concatenate([extra_deal, deal[order]]), 12
    )
    np.testing.assert_array_equal(other.random()[10:], a[order])
    np.testing.assert_array_equal(other.random(size=3)[10:], b[order])
    # subset: the numbers those rows would have drawn.
    full = decision_random(3, game, deal, play=12)
    rows = np.array([4, 1])
    sub = full.subset(rows)
    np.testing.assert_array_equal(sub.random(), a[rows])
    # A different play, deal or seed gives different numbers.
    assert not (decision_random(3, game, deal, play=13).random() == a).any()
    assert not (decision_random(3, game, deal + 1, play=12).random() == a).any()
    assert not (decision_random(4, game, deal, play=12).random() == a).any()


# Common random numbers between runs -----------------------------------------------------------


def expected_redeals(seed: int, game: np.ndarray, deal: np.ndarray) -> np.ndarray:
    """Throw-ins before each deal, from seeding.packs alone: attempts until the table holds at
    most two kings."""
    key = seeding.stream_key(seed, seeding.PACKS)
    redeals = np.zeros(len(game), np.int64)
    pending = np.arange(len(game))
    while len(pending):
        packs = pack_rows(key, game[pending], deal[pending], redeals[pending])
        thrown = (packs[:, :4] % 10 == KING).sum(axis=1) >= 3
        pending = pending[thrown]
        redeals[pending] += 1
    return redeals


def test_runs_with_other_players_or_rules_see_the_same_packs():
    seed, n = 424242, 40_000
    runs = {
        "random": api.play_deals("classic", ["random", "random"], deals=n, seed=seed),
        "greedy": api.play_deals("classic", ["greedy", "greedy"], deals=n, seed=seed),
        "forced": api.play_deals(
            variant("classic", forced_capture=True), ["greedy", "random"], deals=n, seed=seed
        ),
        "4p": api.play_deals("classic-4p", ["random", "greedy"], deals=n, seed=seed),
    }
    expected = expected_redeals(seed, np.arange(n), np.zeros(n, np.int64))
    assert expected.sum() > 0, "no throw-in: the comparison would be vacuous"
    for name, out in runs.items():
        np.testing.assert_array_equal(out.redeals, expected, err_msg=name)
    # The packs differ between seeds, so agreement above is not a coincidence.
    other = api.play_deals("classic", ["random", "random"], deals=n, seed=seed + 1)
    assert not np.array_equal(other.redeals, expected)
    # With throw-ins off, every deal is the first attempt.
    off = api.play_deals(variant("classic", throw_in=False), ["greedy", "greedy"], deals=n,
                         seed=seed)  # fmt: skip
    assert not off.redeals.any()


def test_games_with_other_players_see_the_same_packs():
    seed, games = 99, 3000
    a = api.play_games("classic", ["random", "random"], games=games, seed=seed)
    b = api.play_games("classic", ["greedy", "random"], games=games, seed=seed)
    for out in (a, b):
        np.testing.assert_array_equal(
            out.redeals,
            expected_redeals(seed, out.game.astype(np.int64), out.deal.astype(np.int64)),
        )
    assert a.redeals.sum() > 0


def test_deals_are_dealt_from_seeding_packs():
    """Deal i of a run is seeding.packs(PACKS key, game i, deal 0, its throw-ins): replaying that
    pack with play_packs (whose player numbers are keyed as deal i of a run) gives the same deal,
    for the deals led by player 0 (play_packs always has player 0 lead)."""
    seed, n = 31337, 600
    out = api.play_deals("classic", ["random", "random"], deals=n, seed=seed)
    game = np.arange(n)
    packs = pack_rows(seeding.stream_key(seed, seeding.PACKS), game, None, out.redeals)
    records = api.play_packs("classic", ["random", "random"], packs.tolist(), seed=seed)
    # Two players: player 1 dealt the deals that player 0 led.
    led_by_0 = np.flatnonzero(out.dealer_side == 1)
    assert len(led_by_0) > n // 4
    for i in led_by_0:
        assert not records[i].throw_in
        assert [s.captured for s in records[i].sides] == [cards_of(m) for m in out.captured[i]]
