"""``scopa_sim.stats`` against known answers, and the coverage of its intervals.

Known answers are computed here independently of the module: textbook t intervals from
``scipy.stats.t`` quantiles, Wilson intervals from their closed form, Holm's adjustment by hand,
OLS by the normal equations. Coverage checks repeat an estimate R times on independent data with
a known true value; the share of 95 % intervals that cover it is itself a binomial proportion, so
it must lie within ``4 * sqrt(0.95 * 0.05 / R)`` of 0.95.

The known value for proportions is the throw-in rate, 29/18278 per deal attempt: the chance that
the first 4 cards of a uniformly shuffled 40-card pack hold 3 or 4 kings (card ids 9, 19, 29, 39),
``(C(4,3) C(36,1) + C(4,4)) / C(40,4)``. The packs come from ``seeding.packs``, disjoint game
numbers giving independent replications.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats as sps

from scopa_sim import seeding, stats
from scopa_sim.stats import Estimate

N_CARDS = 40
KINGS = np.array([9, 19, 29, 39])
THROW_IN_P = 29 / 18278
Z95 = NormalDist().inv_cdf(0.975)


def textbook_t_interval(x, level=0.95) -> tuple[float, float, float]:
    """mean ± t_{(1+level)/2, n-1} · s / sqrt(n), with s the sample standard deviation."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    mean = x.sum() / n
    s = math.sqrt(((x - mean) ** 2).sum() / (n - 1))
    half = sps.t.ppf((1 + level) / 2, n - 1) * s / math.sqrt(n)
    return mean, mean - half, mean + half


def wilson_by_hand(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval from its closed form (Wilson 1927)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def coverage_tolerance(replications: int, level: float = 0.95, z: float = 4.0) -> float:
    return z * math.sqrt(level * (1 - level) / replications)


# Estimate ---------------------------------------------------------------------------------------


def test_estimate_half_width_and_text():
    e = Estimate(1.0, 0.5, 2.0, 10)
    assert e.half_width == 0.75
    assert str(e) == "1.0000 [0.5000, 2.0000]"


# mean_ci ----------------------------------------------------------------------------------------


def test_mean_ci_small_known_sample():
    # 1..5: mean 3, s^2 = 2.5, t_{0.975, 4} = 2.7764451...; half-width 2.7764451 * sqrt(2.5 / 5)
    e = stats.mean_ci([1, 2, 3, 4, 5])
    half = sps.t.ppf(0.975, 4) * math.sqrt(0.5)
    assert e.value == 3.0 and e.n == 5
    assert e.low == pytest.approx(3 - half, abs=1e-12)
    assert e.high == pytest.approx(3 + half, abs=1e-12)
    assert half == pytest.approx(1.963243, abs=1e-6)


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("n", [2, 7, 100, 5000])
def test_mean_ci_is_the_textbook_t_interval(n, level):
    x = np.random.default_rng(n).normal(10.0, 3.0, n)
    mean, low, high = textbook_t_interval(x, level)
    e = stats.mean_ci(x, level=level)
    assert e.n == n
    assert e.value == pytest.approx(mean, rel=1e-12)
    assert e.low == pytest.approx(low, rel=1e-10, abs=1e-12)
    assert e.high == pytest.approx(high, rel=1e-10, abs=1e-12)
    assert e.half_width == pytest.approx((high - low) / 2, rel=1e-10)


def test_mean_ci_degenerate_samples_are_not_estimable():
    for sample, value in (([2.5], 2.5), ([4, 4, 4], 4.0)):
        e = stats.mean_ci(sample)
        assert (e.value, e.n, e.estimable) == (value, len(sample), False)
        assert np.isnan(e.low) and np.isnan(e.high)


# proportion_ci ----------------------------------------------------------------------------------


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (50, 100), (29, 18278), (1, 1)])
def test_proportion_ci_is_the_wilson_interval(k, n):
    low, high = wilson_by_hand(k, n)
    e = stats.proportion_ci(k, n)
    assert e.value == k / n and e.n == n
    assert e.low == pytest.approx(low, abs=1e-12)
    assert e.high == pytest.approx(high, abs=1e-12)
    assert 0 <= e.low <= e.value <= e.high <= 1


def test_proportion_ci_zero_successes_hand_value():
    # For k = 0 the Wilson upper bound is z^2 / (n + z^2): 3.8415 / 13.8415 = 0.27753 for n = 10.
    e = stats.proportion_ci(0, 10)
    assert e.low == pytest.approx(0.0, abs=1e-15)
    assert e.high == pytest.approx(Z95**2 / (10 + Z95**2), abs=1e-12)
    assert e.high == pytest.approx(0.27753, abs=1e-5)


def test_proportion_ci_other_level():
    z = NormalDist().inv_cdf(0.995)
    low, high = wilson_by_hand(30, 200, z)
    e = stats.proportion_ci(30, 200, level=0.99)
    assert (e.low, e.high) == pytest.approx((low, high), abs=1e-12)


# paired_difference ------------------------------------------------------------------------------


def test_paired_difference_sign_interval_and_p_value():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 5, 400)  # large unit-to-unit noise, shared by both arms
    y = x + 0.3 + rng.normal(0, 1, 400)
    diff, p = stats.paired_difference(x, y)
    mean, low, high = textbook_t_interval(y - x)
    assert diff.value == pytest.approx(mean, rel=1e-12) and diff.value > 0
    assert (diff.low, diff.high) == pytest.approx((low, high), rel=1e-10)
    assert diff.low > 0 and diff.n == 400
    assert p == pytest.approx(sps.ttest_rel(y, x).pvalue, rel=1e-10)
    assert p < 1e-6
    # the other way round: the same interval mirrored, the same p-value
    back, p_back = stats.paired_difference(y, x)
    assert back.value == pytest.approx(-diff.value, rel=1e-12)
    assert (back.low, back.high) == pytest.approx((-diff.high, -diff.low), rel=1e-10)
    assert p_back == pytest.approx(p, rel=1e-10)
    # pairing matters: the unpaired interval would be far wider
    assert diff.half_width < 0.3 * stats.mean_ci(y).half_width


def test_paired_difference_of_identical_arms_is_not_estimable():
    x = np.random.default_rng(4).normal(0, 1, 100)
    diff, p = stats.paired_difference(x, x.copy())
    assert (diff.value, diff.n, diff.estimable) == (0.0, 100, False)
    assert np.isnan(diff.low) and np.isnan(diff.high) and np.isnan(p)


def test_paired_difference_constant_shift_is_not_estimable():
    x = np.arange(10.0)
    diff, p = stats.paired_difference(x, x + 2)
    assert (diff.value, diff.estimable) == (2.0, False)
    assert np.isnan(p)


# holm -------------------------------------------------------------------------------------------


def holm_by_hand(p) -> np.ndarray:
    """Holm (1979): sort ascending, multiply the i-th smallest (from 0) by m - i, take running
    maxima, cap at 1, and put back in the original order."""
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        adjusted[j] = running
    return adjusted


def test_holm_known_example():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max(0.06, 0.04)
    got = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(got, [0.03, 0.06, 0.06, 0.02], rtol=1e-12)


def test_holm_caps_at_one_and_keeps_order():
    np.testing.assert_allclose(stats.holm([0.5, 0.6]), [1.0, 1.0])
    np.testing.assert_allclose(stats.holm([0.2]), [0.2])
    assert len(stats.holm([])) == 0


def test_holm_matches_hand_implementation():
    rng = np.random.default_rng(5)
    for m in (2, 5, 17):
        p = rng.uniform(0, 0.2, m) ** 2
        adjusted = stats.holm(p)
        np.testing.assert_allclose(adjusted, holm_by_hand(p), rtol=1e-12)
        assert np.all(adjusted >= p) and np.all(adjusted <= 1)


# linearised_ratio -------------------------------------------------------------------------------


def test_linearised_ratio_mean_is_the_ratio():
    rng = np.random.default_rng(6)
    counts = rng.integers(1, 12, 500)
    sums = rng.normal(2.4 * counts, 1.5 * np.sqrt(counts))
    values = stats.linearised_ratio(sums, counts)
    assert len(values) == 500
    assert values.mean() == pytest.approx(sums.sum() / counts.sum(), rel=1e-12)


def test_linearised_ratio_with_equal_counts_is_the_cluster_mean():
    sums = np.array([3.0, 5.0, 10.0, 2.0])
    np.testing.assert_allclose(stats.linearised_ratio(sums, np.full(4, 2)), sums / 2, rtol=1e-12)


def test_linearised_ratio_variance_is_the_delta_method():
    # Var(R) ~ sum((s_i - R c_i)^2) / (G (G - 1) cbar^2), the textbook ratio-estimator variance.
    rng = np.random.default_rng(7)
    counts = rng.integers(1, 9, 300).astype(float)
    sums = rng.normal(1.1 * counts, np.sqrt(counts))
    g = len(counts)
    ratio = sums.sum() / counts.sum()
    se = math.sqrt(((sums - ratio * counts) ** 2).sum() / (g * (g - 1) * counts.mean() ** 2))
    e = stats.mean_ci(stats.linearised_ratio(sums, counts))
    assert e.half_width == pytest.approx(sps.t.ppf(0.975, g - 1) * se, rel=1e-10)


# ols --------------------------------------------------------------------------------------------


def test_ols_recovers_known_coefficients():
    rng = np.random.default_rng(8)
    n = 3000
    truth = {"const": 1.5, "a": 2.0, "b": -0.7}
    a, b = rng.normal(0, 1, n), rng.uniform(-2, 2, n)
    x = np.column_stack([np.ones(n), a, b])
    y = x @ np.array(list(truth.values())) + rng.normal(0, 0.5, n)
    fit = stats.ols(y, x, list(truth))
    assert list(fit) == list(truth)
    # textbook: beta = (X'X)^-1 X'y, se = sqrt(diag(s^2 (X'X)^-1)), t quantile with n - p df
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    resid = y - x @ beta
    s2 = resid @ resid / (n - 3)
    se = np.sqrt(np.diag(s2 * np.linalg.inv(x.T @ x)))
    t = sps.t.ppf(0.975, n - 3)
    for i, (name, true) in enumerate(truth.items()):
        e = fit[name]
        assert e.n == n
        assert e.value == pytest.approx(beta[i], rel=1e-9, abs=1e-12)
        assert (e.low, e.high) == pytest.approx(
            (beta[i] - t * se[i], beta[i] + t * se[i]), rel=1e-8
        )
        assert e.low < true < e.high, f"{name}: {e} does not cover {true}"
        assert abs(e.value - true) < 4 * se[i]


def test_ols_cluster_robust_widens_intervals_for_clustered_noise():
    rng = np.random.default_rng(9)
    clusters, size = 200, 10
    groups = np.repeat(np.arange(clusters), size)
    a = np.repeat(rng.normal(0, 1, clusters), size)  # regressor constant within a cluster
    noise = np.repeat(rng.normal(0, 1, clusters), size) + rng.normal(0, 0.3, clusters * size)
    x = np.column_stack([np.ones(clusters * size), a])
    y = 0.5 + 1.0 * a + noise
    naive = stats.ols(y, x, ["const", "a"])
    robust = stats.ols(y, x, ["const", "a"], groups=groups)
    for name in ("const", "a"):
        assert robust[name].value == pytest.approx(naive[name].value, rel=1e-12)
        # within-cluster correlation ~0.9 over 10 rows: the honest interval is ~3x wider
        assert robust[name].half_width > 2 * naive[name].half_width
    assert robust["a"].low < 1.0 < robust["a"].high


# coverage ---------------------------------------------------------------------------------------


def test_throw_in_probability_is_29_over_18278():
    ways = math.comb(4, 3) * math.comb(36, 1) + math.comb(4, 4)
    assert Fraction(ways, math.comb(N_CARDS, 4)) == Fraction(29, 18278)


def _first_four(replications: int, n: int, seed: int, chunk: int = 100_000):
    """Kings among the first 4 cards and the position of card 0, per pack, for R*n packs from
    disjoint game numbers (replication r uses games r*n .. (r+1)*n - 1); shape (R, n) each."""
    key = seeding.stream_key(seed, seeding.PACKS)
    total = replications * n
    kings = np.empty(total, np.int8)
    position = np.empty(total, np.int8)
    for start in range(0, total, chunk):
        game = np.arange(start, min(start + chunk, total), dtype=np.int64)
        zero = np.zeros(len(game), np.int64)
        packs = seeding.packs(key, game, zero, zero, N_CARDS)
        kings[game] = np.isin(packs[:, :4], KINGS).sum(axis=1)
        position[game] = np.argmax(packs == 0, axis=1)
    return kings.reshape(replications, n), position.reshape(replications, n)


@pytest.fixture(scope="module")
def replicated_packs():
    return _first_four(replications=400, n=20_000, seed=20240611)


def exact_wilson_coverage(n: int, p: float) -> float:
    """P(the Wilson interval of Binomial(n, p) covers p), summed over the binomial."""
    k = np.arange(n + 1)
    pmf = sps.binom.pmf(k, n, p)
    likely = k[pmf > 1e-15]
    covered = [stats.proportion_ci(int(i), n) for i in likely]
    return float(sum(pmf[i] for i, e in zip(likely, covered, strict=True) if e.low <= p <= e.high))


@pytest.mark.xdist_group("throw-in-packs")  # one worker draws the 8M packs
def test_proportion_ci_coverage_on_the_throw_in_rate(replicated_packs):
    kings, _ = replicated_packs
    replications, n = kings.shape
    hits = (kings >= 3).sum(axis=1)
    # the packs themselves: the pooled rate is within 4 standard errors of 29/18278
    pooled = hits.sum() / (replications * n)
    assert abs(pooled - THROW_IN_P) < 4 * math.sqrt(
        THROW_IN_P * (1 - THROW_IN_P) / (replications * n)
    )
    intervals = [stats.proportion_ci(int(h), n) for h in hits]
    covered = np.mean([e.low <= THROW_IN_P <= e.high for e in intervals])
    tol = coverage_tolerance(replications)
    exact = exact_wilson_coverage(n, THROW_IN_P)  # 0.9498 at n = 20,000: Wilson is near nominal
    assert abs(exact - 0.95) < 0.01
    assert abs(covered - 0.95) < tol, (
        f"Wilson coverage {covered:.4f} over {replications} replications of {n} packs; "
        f"nominal 0.95 +- {tol:.4f} (exact coverage at this n: {exact:.4f})"
    )
    # misses fall on both sides: the interval is not biased one way
    below = sum(e.high < THROW_IN_P for e in intervals)
    above = sum(e.low > THROW_IN_P for e in intervals)
    assert below > 0 and above > 0


@pytest.mark.xdist_group("throw-in-packs")  # one worker draws the 8M packs
def test_mean_ci_coverage_on_pack_quantities(replicated_packs):
    """Kings among the first 4 cards (hypergeometric, mean 4 * 4/40 = 0.4) and the position of
    card 0 in the pack (uniform on 0..39, mean 19.5)."""
    kings, position = replicated_packs
    replications = kings.shape[0]
    tol = coverage_tolerance(replications)
    for name, values, truth in (
        ("kings in first 4", kings, 0.4),
        ("position of card 0", position, 19.5),
    ):
        intervals = [stats.mean_ci(row) for row in values]
        covered = np.mean([e.low <= truth <= e.high for e in intervals])
        assert abs(covered - 0.95) < tol, f"{name}: t-interval coverage {covered:.4f}"


def test_linearised_ratio_coverage_with_clustered_deals():
    """Games of random length whose deals share a game effect: the per-deal mean is a ratio
    estimator, and the linearised t interval must cover the true per-deal mean."""
    rng = np.random.default_rng(10)
    replications, games, mu = 400, 300, 2.4
    counts = rng.integers(2, 9, (replications, games)).astype(float)
    effect = rng.normal(0, 0.8, (replications, games))  # shared by every deal of a game
    sums = counts * (mu + effect) + rng.normal(0, 1, (replications, games)) * np.sqrt(counts)
    intervals = [
        stats.mean_ci(stats.linearised_ratio(s, c)) for s, c in zip(sums, counts, strict=True)
    ]
    covered = np.mean([e.low <= mu <= e.high for e in intervals])
    assert abs(covered - 0.95) < coverage_tolerance(replications), f"coverage {covered:.4f}"
    # the naive per-deal interval (ignoring clustering) is too narrow and under-covers
    deals = [np.repeat(s / c, c.astype(int)) for s, c in zip(sums[:100], counts[:100], strict=True)]
    naive = np.mean([(lambda e: e.low <= mu <= e.high)(stats.mean_ci(d)) for d in deals])
    assert naive < covered


def test_proportion_difference_matches_newcombes_worked_example():
    """Newcombe (1998), example (a): 56/70 against 48/80, hybrid score interval 0.0524 to 0.3339."""
    d = stats.proportion_difference(48, 80, 56, 70)
    assert d.value == pytest.approx(0.2)
    assert (d.low, d.high) == (pytest.approx(0.0524, abs=5e-4), pytest.approx(0.3339, abs=5e-4))


def test_independent_difference_is_welchs_interval():
    """Welch's interval computed from its textbook formula, independently of the module."""
    rng = np.random.default_rng(12)
    x, y = rng.normal(0, 1, 50), rng.normal(0.5, 2, 80)
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    df = (vx + vy) ** 2 / (vx**2 / (len(x) - 1) + vy**2 / (len(y) - 1))
    half = sps.t.ppf(0.975, df) * np.sqrt(vx + vy)
    d, p = stats.independent_difference(x, y)
    assert d.value == pytest.approx(y.mean() - x.mean())
    assert d.low == pytest.approx(d.value - half) and d.high == pytest.approx(d.value + half)
    assert 0 < p < 1


def test_format_p_shows_an_underflowed_p_value_as_a_bound():
    assert stats.format_p(None) == "—"
    assert stats.format_p(0.0) == "< 1e-300" and stats.format_p(0.0, equals=True) == "< 1e-300"
    assert stats.format_p(0.01234) == "0.0123" and stats.format_p(0.5, equals=True) == "= 0.5"


# paired designs, families, power ------------------------------------------------------------------


def test_paired_difference_coverage_on_a_known_pack_quantity():
    """Kings among the first 6 cards minus kings among the first 4 of the same pack: the two
    counts are strongly correlated and the difference (kings in cards 5 and 6) has mean
    2 * 4/40 = 0.2 exactly. The paired t interval must cover it in 95 % of the replications
    (within 4 binomial standard errors), and be narrower than the unpaired Welch interval."""
    replications, n = 400, 500
    key = seeding.stream_key(77, seeding.PACKS)
    game = np.arange(replications * n, dtype=np.int64)
    zero = np.zeros(len(game), np.int64)
    packs = seeding.packs(key, game, zero, zero, N_CARDS)
    four = np.isin(packs[:, :4], KINGS).sum(axis=1).reshape(replications, n)
    six = np.isin(packs[:, :6], KINGS).sum(axis=1).reshape(replications, n)
    paired = [stats.paired_difference(f, s)[0] for f, s in zip(four, six, strict=True)]
    covered = np.mean([e.low <= 0.2 <= e.high for e in paired])
    assert abs(covered - 0.95) < coverage_tolerance(replications), f"coverage {covered:.4f}"
    unpaired = stats.independent_difference(four[0], six[0])[0]
    assert paired[0].half_width < 0.8 * unpaired.half_width


def test_paired_ratio_difference_covers_with_clustered_deals_of_unequal_lengths():
    """Two arms played on the same games (shared game effect), each game of its own length in
    each arm (as when a rule change makes games diverge): the per-game linearised ratios,
    paired by game, give a cluster-robust interval for the difference of per-deal means that
    covers the true difference; treating deals as independent would under-cover."""
    rng = np.random.default_rng(21)
    replications, games, mu, shift = 400, 300, 2.4, 0.15
    intervals, naive = [], []
    for r in range(replications):
        effect = rng.normal(0, 0.8, games)  # the game's packs: shared by both arms
        c0 = rng.integers(2, 9, games).astype(float)
        c1 = np.maximum(c0 + rng.integers(-1, 2, games), 1)  # lengths differ a little
        s0 = c0 * (mu + effect) + rng.normal(0, 1, games) * np.sqrt(c0)
        s1 = c1 * (mu + shift + effect) + rng.normal(0, 1, games) * np.sqrt(c1)
        d, _ = stats.paired_difference(
            stats.linearised_ratio(s0, c0), stats.linearised_ratio(s1, c1)
        )
        assert d.value == pytest.approx(s1.sum() / c1.sum() - s0.sum() / c0.sum(), rel=1e-9)
        intervals.append(d)
        if r < 100:
            deals0, deals1 = (np.repeat(s / c, c.astype(int)) for s, c in ((s0, c0), (s1, c1)))
            naive.append(stats.independent_difference(deals0, deals1)[0])
    covered = np.mean([e.low <= shift <= e.high for e in intervals])
    assert abs(covered - 0.95) < coverage_tolerance(replications), f"coverage {covered:.4f}"
    # deals as independent units (Welch on per-deal values): below nominal by 2 standard errors
    assert np.mean([e.low <= shift <= e.high for e in naive]) < 0.95 - coverage_tolerance(100, z=2)


def test_rescale_gives_the_t_interval_at_another_level():
    x = np.random.default_rng(3).normal(1, 2, 200)
    wide = stats.rescale(stats.mean_ci(x), 0.99)
    assert (wide.low, wide.high) == pytest.approx(textbook_t_interval(x, 0.99)[1:], rel=1e-9)
    assert stats.family_level(10) == pytest.approx(0.995) and stats.family_level(0) == 0.95


def test_bonferroni_intervals_cover_simultaneously():
    """Five independent t intervals at level 1 - 0.05/5 all cover their means together in at
    least about 95 % of replications (Bonferroni is conservative: 1 - 0.99**5 = 4.9 % misses);
    plain 95 % intervals would miss at least one in 1 - 0.95**5 = 23 %."""
    rng = np.random.default_rng(31)
    replications, m = 400, 5
    level = stats.family_level(m)
    together, plain = [], []
    for _ in range(replications):
        est = [stats.mean_ci(rng.normal(0, 1, 60)) for _ in range(m)]
        together.append(all(stats.rescale(e, level).low <= 0 <= stats.rescale(e, level).high
                            for e in est))  # fmt: skip
        plain.append(all(e.low <= 0 <= e.high for e in est))
    assert np.mean(together) > 0.95 - coverage_tolerance(replications)
    assert np.mean(plain) < 0.95 - coverage_tolerance(replications)


def test_detectable_effect_is_about_2_8_standard_errors():
    x = np.random.default_rng(5).normal(0, 3, 10_000)
    e = stats.mean_ci(x)
    se = x.std(ddof=1) / np.sqrt(len(x))
    closed = (NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)) * se
    assert stats.detectable_effect(e) == pytest.approx(closed, rel=1e-3)
    assert stats.detectable_effect(e, power=0.9) > stats.detectable_effect(e)


def test_running_ratio_ends_at_the_whole_sample_estimate():
    rng = np.random.default_rng(8)
    counts = rng.integers(1, 9, 5000).astype(float)
    sums = counts * 0.3 + rng.normal(0, 2, 5000) * counts
    k, value, low, high = stats.running_ratio(sums, counts)
    whole = stats.mean_ci(stats.linearised_ratio(sums, counts))
    assert k[-1] == 5000 and np.all(np.diff(k) > 0)
    assert (value[-1], low[-1], high[-1]) == pytest.approx((whole.value, whole.low, whole.high))
    # every prefix is the ratio of its own sums, and the band narrows
    assert value[3] == pytest.approx(sums[: k[3]].sum() / counts[: k[3]].sum())
    assert (high - low)[-1] < (high - low)[0] / 5


@pytest.mark.parametrize("n", [30, 200, 50_000])
def test_the_closed_form_detectable_effect_agrees_with_the_power_solution(n):
    e = stats.mean_ci(np.random.default_rng(n).normal(size=n))
    exact, approx = stats.detectable_effect(e), stats.detectable_effect_approx(e)
    assert approx == pytest.approx(exact, rel=0.01)
    assert approx == pytest.approx(2.8 * e.half_width / 1.96, rel=0.05)
