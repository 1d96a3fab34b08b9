"""Confidence intervals, paired comparisons and multiplicity adjustment, from scipy/statsmodels.

Every interval the reports and ``scopa-sim compare`` print comes from here, so the method is
stated once: t intervals for means (n is large, the CLT applies), Wilson intervals for
proportions, paired t-tests on per-unit differences (same packs in both arms), Welch's unpaired
t-tests for independent samples (arms that see other packs), ratio estimators linearised per game
when deals cluster in games, and Holm's step-down adjustment with Bonferroni intervals beside it
(one family per page or comparison). Power: the smallest effect an interval could detect.

A sample with no variation (every unit the same value, or every paired difference the same)
estimates nothing about the variance, so it gives no interval and no test: the estimate is
flagged ``estimable=False`` with NaN bounds and a NaN p-value, printed as "not estimable at this
size" (:data:`NOT_ESTIMABLE`), and left out of Holm families, never as a zero-width interval
with p = 1: a larger sample of the same comparison may well vary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LEVEL = 0.95
NOT_ESTIMABLE = "not estimable at this size"


def _sps():
    """``scipy.stats``, imported on first use: it takes seconds, which a process that only plays
    (a worker of ``compare`` or of a tournament imports this module with its caller's) never
    needs. ``stats.sps`` is the same module."""
    from scipy import stats

    return stats


def __getattr__(name: str):
    if name == "sps":
        return _sps()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n: int
    estimable: bool = True  # False: the sample had no variation (NaN bounds; see the module doc)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        if not self.estimable:
            return f"{self.value:.4f} ({not_estimable_text(self.n)})"
        return f"{self.value:.4f} [{self.low:.4f}, {self.high:.4f}]"


def not_estimable_text(n: int) -> str:
    """What is printed in place of the interval of a sample with no variation."""
    return f"{NOT_ESTIMABLE}: no variation in {n:,} units"


def finite_or_none(x: float | None) -> float | None:
    """A number for JSON: None for a bound or p-value that does not exist (NaN, infinite)."""
    return None if x is None or not np.isfinite(x) else float(x)


def not_estimable(value: float, n: int) -> Estimate:
    """The estimate of a sample with no variation: its value, no interval."""
    return Estimate(float(value), float("nan"), float("nan"), int(n), estimable=False)


def mean_ci(x, level: float = LEVEL) -> Estimate:
    """Mean of ``x`` with its t confidence interval."""
    x = np.asarray(x, dtype=np.float64)
    mean = float(x.mean())
    if len(x) < 2 or np.all(x == x[0]):
        return not_estimable(mean, len(x))
    ci = _sps().ttest_1samp(x, 0.0).confidence_interval(level)
    return Estimate(mean, float(ci.low), float(ci.high), len(x))


def proportion_ci(successes: int, n: int, level: float = LEVEL) -> Estimate:
    """A proportion with its Wilson score interval."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(int(successes), int(n), alpha=1 - level, method="wilson")
    p = successes / n  # the closed form can round the bound at 0 or 1 past the estimate
    return Estimate(p, min(float(low), p), max(float(high), p), int(n))


def paired_difference(x, y, level: float = LEVEL) -> tuple[Estimate, float]:
    """Mean of ``y - x`` over paired units, its t interval, and the two-sided p-value; when the
    differences do not vary, :func:`not_estimable` and p NaN (the module doc)."""
    d = np.asarray(y, dtype=np.float64) - np.asarray(x, dtype=np.float64)
    if len(d) < 2 or np.all(d == d[0]):
        value = float(d.mean()) if len(d) else 0.0
        return not_estimable(value, len(d)), float("nan")
    test = _sps().ttest_1samp(d, 0.0)
    ci = test.confidence_interval(level)
    return Estimate(float(d.mean()), float(ci.low), float(ci.high), len(d)), float(test.pvalue)


def independent_difference(x, y, level: float = LEVEL) -> tuple[Estimate, float]:
    """Mean of ``y`` minus mean of ``x`` for independent samples: Welch's t interval and p.

    When neither sample varies there is no variance to estimate: :func:`not_estimable` and p
    NaN, as in :func:`paired_difference`.
    """
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if len(x) < 2 or len(y) < 2 or (np.all(x == x[0]) and np.all(y == y[0])):
        value = float(y.mean() - x.mean()) if len(x) and len(y) else 0.0
        return not_estimable(value, len(x) + len(y)), float("nan")
    test = _sps().ttest_ind(y, x, equal_var=False)
    ci = test.confidence_interval(level)
    value = float(np.mean(y) - np.mean(x))
    return Estimate(value, float(ci.low), float(ci.high), len(x) + len(y)), float(test.pvalue)


def proportion_difference(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL) -> Estimate:
    """``k2/n2 - k1/n1`` for independent proportions, Newcombe's hybrid score interval."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    low, high = confint_proportions_2indep(
        k2, n2, k1, n1, method="newcomb", compare="diff", alpha=1 - level
    )
    return Estimate(k2 / n2 - k1 / n1, float(low), float(high), n1 + n2)


def linearised_ratio(sums, counts) -> np.ndarray:
    """Per-cluster values whose mean is the ratio ``sum(sums) / sum(counts)``.

    A per-deal mean over deals that cluster in games is a ratio estimator; its delta-method
    (linearisation) variance is the variance of the mean of these values, so :func:`mean_ci` and
    :func:`paired_difference` on them give cluster-robust intervals.
    """
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    ratio = sums.sum() / counts.sum()
    return ratio + (sums - ratio * counts) / counts.mean()


def bootstrap_weights(n: int, replicates: int, rng: np.random.Generator, chunk: int = 100):
    """Bootstrap weights (how often each of ``n`` units is drawn), ``chunk`` replicates at a time
    as (replicates, n) arrays: one draw of unit indices per replicate, to apply to every column
    that was measured on the same units (a joint resample)."""
    done = 0
    while done < replicates:
        k = min(chunk, replicates - done)
        draws = rng.integers(0, n, size=(k, n)) + n * np.arange(k)[:, None]
        yield np.bincount(draws.ravel(), minlength=k * n).reshape(k, n).astype(np.float64)
        done += k


def holm(p_values) -> np.ndarray:
    """Holm-adjusted p-values (family-wise error control). A NaN p-value (a comparison that is
    not estimable) stays NaN and is no member of the family: the others are adjusted among
    themselves."""
    p = np.asarray(p_values, dtype=np.float64)
    tested = np.isfinite(p)
    out = np.full(len(p), np.nan)
    if not tested.any():
        return out
    from statsmodels.stats.multitest import multipletests

    out[tested] = multipletests(p[tested], method="holm")[1]
    return out


def family_level(m: int, level: float = LEVEL) -> float:
    """The Bonferroni level of each of ``m`` intervals that hold together with ``level``.

    An interval at this level excludes 0 only if the Holm-adjusted p-value of its test is below
    ``1 - level`` (Holm rejects at least what Bonferroni rejects), so a page that picks "the
    clearest" of ``m`` tested differences can quote intervals that agree with its p-values.
    """
    return 1 - (1 - level) / max(int(m), 1)


def rescale(estimate: Estimate, level: float, base: float = LEVEL) -> Estimate:
    """A symmetric t interval (``mean_ci``, ``paired_difference``, ``independent_difference``)
    at another level, from its half-width at ``base``: the centre stays, the width scales by the
    ratio of t quantiles (df n - 1; for Welch's df this is exact only for large n, as here)."""
    if not estimate.estimable:
        return estimate
    df = max(estimate.n - 1, 1)
    ratio = _sps().t.ppf(0.5 + level / 2, df) / _sps().t.ppf(0.5 + base / 2, df)
    half = estimate.half_width * ratio
    centre = (estimate.low + estimate.high) / 2
    return Estimate(estimate.value, centre - half, centre + half, estimate.n)


def detectable_effect(
    estimate: Estimate, alpha: float = 0.05, power: float = 0.8, base: float = LEVEL
) -> float:
    """The smallest true effect a two-sided test at ``alpha`` finds with ``power``, given the
    standard error behind a t interval (``estimate`` at level ``base``): the effect size in SDs
    from statsmodels' TTestPower for its n, times the SD of one unit. With many units this is
    (z(1 - alpha/2) + z(power)) * SE, about 2.8 SE at the defaults."""
    from statsmodels.stats.power import TTestPower

    if not estimate.estimable:
        return math.nan
    n = max(estimate.n, 2)
    se = estimate.half_width / _sps().t.ppf(0.5 + base / 2, n - 1)
    size = TTestPower().solve_power(nobs=n, alpha=alpha, power=power, alternative="two-sided")
    # solve_power answers with a one-element array for some n: take its one value.
    return float(np.ravel(size)[0] * se * np.sqrt(n))


def detectable_effect_approx(
    estimate: Estimate, alpha: float = 0.05, power: float = 0.8, base: float = LEVEL
) -> float:
    """:func:`detectable_effect` in closed form, (t(1 - alpha/2) + t(power)) * SE with the
    interval's degrees of freedom: the usual approximation, within a percent of the exact
    power solution from n = 30 on, and fast enough for every finding of a page."""
    df = max(estimate.n - 1, 1)
    se = estimate.half_width / _sps().t.ppf(0.5 + base / 2, df)
    return float((_sps().t.ppf(1 - alpha / 2, df) + _sps().t.ppf(power, df)) * se)


def running_ratio(sums, counts, points: int = 60, level: float = LEVEL):
    """The ratio estimate ``sum(sums[:k]) / sum(counts[:k])`` over the first k clusters, with
    its linearised (cluster-robust) t interval, at about ``points`` values of k spaced evenly on
    a log scale: a convergence chart's line and band. Returns (k, estimate, low, high) arrays;
    the last point is the whole sample, equal to ``mean_ci(linearised_ratio(sums, counts))``.
    """
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    n = len(sums)
    k = np.unique(np.geomspace(min(10, n), n, points).astype(np.int64))
    cs, cn = np.cumsum(sums)[k - 1], np.cumsum(counts)[k - 1]
    css, csn, cnn = (np.cumsum(v)[k - 1] for v in (sums**2, sums * counts, counts**2))
    ratio = cs / cn
    mean_count = cn / k
    # Sample variance of (s - r c) / mean(c), whose mean is 0: sum of squares over k - 1.
    sq = (css - 2 * ratio * csn + ratio**2 * cnn) / mean_count**2
    se = np.sqrt(np.maximum(sq, 0) / (k - 1) / k)
    t = _sps().t.ppf(0.5 + level / 2, np.maximum(k - 1, 1))
    return k, ratio, ratio - t * se, ratio + t * se


def ols(y, x, names, groups=None, level: float = LEVEL):
    """OLS coefficients with confidence intervals; cluster-robust by ``groups`` when given.

    Returns ``{name: Estimate}``.
    """
    import statsmodels.api as sm

    model = sm.OLS(np.asarray(y, np.float64), np.asarray(x, np.float64))
    fit = (
        model.fit(cov_type="cluster", cov_kwds={"groups": np.asarray(groups)})
        if groups is not None
        else model.fit()
    )
    ci = np.asarray(fit.conf_int(alpha=1 - level))
    return {
        name: Estimate(float(b), float(lo), float(hi), int(fit.nobs))
        for name, b, (lo, hi) in zip(names, np.asarray(fit.params), ci, strict=True)
    }


def format_p(p: float | None, equals: bool = False) -> str:
    """A p-value for people: '—' when there is none, '< 1e-300' when it underflowed to 0, and
    :data:`NOT_ESTIMABLE` when it is NaN (a sample with no variation)."""
    if p is None:
        return "—"
    if np.isnan(p):
        return NOT_ESTIMABLE
    if p < 1e-300:
        return "< 1e-300"
    return f"= {p:.3g}" if equals else f"{p:.3g}"


class Family:
    """One Holm family: tests added by key, then closed together.

    After :meth:`close`, ``p_holm[key]`` is each test's Holm-adjusted p-value and ``wide[key]``
    its interval rescaled to the Bonferroni level of the family (:func:`family_level`), so a
    page states one family for all its tests and quotes intervals that agree with its p-values.
    """

    def __init__(self, level: float = LEVEL) -> None:
        self.base = level
        self.tests: dict = {}
        self.p_holm: dict = {}
        self.wide: dict = {}

    def add(self, key, estimate: Estimate, p: float) -> None:
        self.tests[key] = (estimate, p)

    def close(self) -> None:
        keys = list(self.tests)
        adjusted = holm([self.tests[k][1] for k in keys])
        for k, p in zip(keys, adjusted, strict=True):
            self.p_holm[k] = float(p)
            self.wide[k] = rescale(self.tests[k][0], self.level, self.base)

    @property
    def size(self) -> int:
        """The tests of the family: those with a p-value (not the ones not estimable)."""
        return sum(1 for _, p in self.tests.values() if p is not None and np.isfinite(p))

    @property
    def level(self) -> float:
        return family_level(self.size, self.base)
