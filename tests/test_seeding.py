"""Keyed randomness: packs and decision numbers are uniform, reproducible and shared between runs.

Statistical checks use fixed seeds and tolerances derived from standard errors: a frequency
``p_hat`` of an event of probability ``p`` over ``n`` independent trials must satisfy
``|p_hat - p| < z * sqrt(p (1 - p) / n)``, with ``z = 4`` for a single check and a Bonferroni
``z`` when many cells are checked at once.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest

from scopa_sim import api, seeding
from scopa_sim.cards import cards_of
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


def test_packs_throw_in_rate_permutations_and_uniform_positions():
    n, chunk = 2_000_000, 250_000
    key = seeding.stream_key(20240601, seeding.PACKS)
    throw_ins = 0
    position_counts = np.zeros((N_CARDS, N_CARDS), np.int64)  # [position, card]
    cells = np.arange(N_CARDS) * N_CARDS
    for start in range(0, n, chunk):
        packs = pack_rows(key, np.arange(start, start + chunk))
        assert packs.shape == (chunk, N_CARDS)
        # Every pack is a permutation of the 40 card ids.
        assert (np.sort(packs, axis=1) == np.arange(N_CARDS)).all()
        throw_ins += int(((packs[:, :4] % 10 == KING).sum(axis=1) >= 3).sum())
        position_counts += np.bincount(
            (cells[None, :] + packs).ravel(), minlength=N_CARDS * N_CARDS
        ).reshape(N_CARDS, N_CARDS)

    p = float(THROW_IN_P)
    assert within(throw_ins, n, p), f"throw-in rate {throw_ins / n:.6f}, expected {p:.6f}"

    # Positions are uniform: the settebello (id 6) leads the pack 1/40 of the time ...
    assert within(int(position_counts[0, 6]), n, 1 / N_CARDS)
    # ... and so does every card at every position, all 1600 cells at once.
    q = 1 / N_CARDS
    z = np.abs(position_counts / n - q) / math.sqrt(q * (1 - q) / n)
    assert z.max() < bonferroni_z(N_CARDS * N_CARDS), f"max |z| {z.max():.2f}"
    assert (position_counts.sum(axis=0) == n).all() and (position_counts.sum(axis=1) == n).all()


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
    # Every coordinate of the counter matters: game, deal, attempt, seed and stream.
    assert len({a.tobytes() for a in alone}) == len(alone)
    other_seed = pack_rows(seeding.stream_key(8, seeding.PACKS), game, deal, attempt)
    other_stream = pack_rows(seeding.stream_key(7, seeding.PLAYERS), game, deal, attempt)
    assert not (other_seed == alone).all(axis=1).any()
    assert not (other_stream == alone).all(axis=1).any()


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
    checked = 0
    for i in range(0, n, 2):  # even deals: player 0 leads
        assert not records[i].throw_in
        assert [s.captured for s in records[i].sides] == [cards_of(m) for m in out.captured[i]]
        checked += 1
    assert checked == n // 2
