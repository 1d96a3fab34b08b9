"""Confidence intervals, paired comparisons and multiplicity adjustment, from scipy/statsmodels.

Every interval the reports and ``scopa-sim compare`` print comes from here, so the method is
stated once: t intervals for means (n is large, the CLT applies), Wilson intervals for
proportions, paired t-tests on per-unit differences (same packs in both arms), Welch's unpaired
t-tests for independent samples (arms that see other packs), ratio estimators linearised per game
when deals cluster in games, and Holm's step-down adjustment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.value:.4f} [{self.low:.4f}, {self.high:.4f}]"


def mean_ci(x, level: float = LEVEL) -> Estimate:
    """Mean of ``x`` with its t confidence interval."""
    x = np.asarray(x, dtype=np.float64)
    mean = float(x.mean())
    if len(x) < 2 or np.all(x == x[0]):
        return Estimate(mean, mean, mean, len(x))
    ci = sps.ttest_1samp(x, 0.0).confidence_interval(level)
    return Estimate(mean, float(ci.low), float(ci.high), len(x))


def proportion_ci(successes: int, n: int, level: float = LEVEL) -> Estimate:
    """A proportion with its Wilson score interval."""
    low, high = proportion_confint(int(successes), int(n), alpha=1 - level, method="wilson")
    p = successes / n  # the closed form can round the bound at 0 or 1 past the estimate
    return Estimate(p, min(float(low), p), max(float(high), p), int(n))


def paired_difference(x, y, level: float = LEVEL) -> tuple[Estimate, float]:
    """Mean of ``y - x`` over paired units, its t interval, and the two-sided p-value."""
    d = np.asarray(y, dtype=np.float64) - np.asarray(x, dtype=np.float64)
    if len(d) < 2 or np.all(d == d[0]):
        value = float(d.mean()) if len(d) else 0.0
        return Estimate(value, value, value, len(d)), 1.0 if value == 0 else 0.0
    test = sps.ttest_1samp(d, 0.0)
    ci = test.confidence_interval(level)
    return Estimate(float(d.mean()), float(ci.low), float(ci.high), len(d)), float(test.pvalue)


def independent_difference(x, y, level: float = LEVEL) -> tuple[Estimate, float]:
    """Mean of ``y`` minus mean of ``x`` for independent samples: Welch's t interval and p.

    When neither sample varies there is nothing to estimate: the difference is exact (a
    zero-width interval; p = 1 if it is 0, else 0), as in :func:`paired_difference`.
    """
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if len(x) < 2 or len(y) < 2 or (np.all(x == x[0]) and np.all(y == y[0])):
        value = float(y.mean() - x.mean()) if len(x) and len(y) else 0.0
        return Estimate(value, value, value, len(x) + len(y)), 1.0 if value == 0 else 0.0
    test = sps.ttest_ind(y, x, equal_var=False)
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


def holm(p_values) -> np.ndarray:
    """Holm-adjusted p-values (family-wise error control)."""
    p = np.asarray(p_values, dtype=np.float64)
    if not len(p):
        return p
    return multipletests(p, method="holm")[1]


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
    """A p-value for people: '—' when there is none, '< 1e-300' when it underflowed to 0."""
    if p is None:
        return "—"
    if p < 1e-300:
        return "< 1e-300"
    return f"= {p:.3g}" if equals else f"{p:.3g}"
