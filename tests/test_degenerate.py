"""Samples with no variation are flagged "not estimable at this size" (issue 26, part 4).

When every unit of a sample (or every paired difference) is the same, the sample says nothing
about the variance: a zero-width interval with p = 1 would claim certainty that the data do not
give (a rule change that alters a few percent of deals can show no change in a small sample).
Such an estimate keeps its value, has NaN bounds and a NaN p-value, is left out of Holm
families, and is printed with the flag wherever an interval is printed: the compare table and
page cells, the analyses' percentages, the tournament's tables and JSON.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from analyses import framework, luck_skill
from scopa_sim import compare, compare_page, reporting, stats
from scopa_sim.tournament import estimate as tour_estimate
from scopa_sim.tournament import report as tour_report

FLAG = stats.NOT_ESTIMABLE


@pytest.mark.parametrize(
    "make",
    [
        lambda: (stats.mean_ci(np.full(50, 3.0)), None),
        lambda: stats.paired_difference(np.arange(50.0), np.arange(50.0)),
        lambda: stats.paired_difference(np.arange(50.0), np.arange(50.0) + 1),
        lambda: stats.independent_difference(np.zeros(40), np.ones(40)),
    ],
    ids=["mean", "paired-zero", "paired-shift", "welch"],
)
def test_no_variation_gives_no_interval_and_no_p(make):
    estimate, p = make()
    assert not estimate.estimable
    assert np.isnan(estimate.low) and np.isnan(estimate.high)
    assert p is None or np.isnan(p)
    assert FLAG in str(estimate) and "[" not in str(estimate)


def test_a_sample_that_varies_is_estimable():
    e, p = stats.paired_difference(np.zeros(30), np.r_[np.zeros(29), 1.0])
    assert e.estimable and e.low < e.value < e.high and 0 < p < 1


def test_holm_leaves_the_not_estimable_out_of_the_family():
    adjusted = stats.holm([0.01, float("nan"), 0.04])
    assert adjusted[[0, 2]] == pytest.approx([0.02, 0.04])
    assert np.isnan(adjusted[1])
    family = stats.Family()
    family.add("varies", stats.Estimate(1.0, 0.5, 1.5, 100), 0.01)
    family.add("constant", stats.not_estimable(0.0, 100), float("nan"))
    family.close()
    assert family.size == 1 and family.level == pytest.approx(0.95)
    assert family.p_holm["varies"] == pytest.approx(0.01)
    assert not family.wide["constant"].estimable


def test_printed_wherever_an_interval_is_printed():
    e = stats.not_estimable(0.0, 1234)
    for text in (reporting.ci(e), framework.pct(e), str(e)):
        assert FLAG in text and "1,234" in text and "[" not in text
    assert stats.format_p(float("nan")) == FLAG


def test_the_compare_table_and_json_flag_identical_arms():
    result = compare.compare(["classic", "classic"], ["greedy", "greedy"], mode="deals",
                             count=300, seed=2)  # fmt: skip
    table = compare_page.format_table(result)
    assert FLAG in table
    assert "0.0000 [0.0000, 0.0000]" not in table
    rows = [r.to_json() for r in result.rows if r.diff is not None]
    text = json.dumps(rows, allow_nan=False)  # valid JSON: no NaN
    assert all(r["diff_ci_low"] is None and r["p_value"] is None for r in json.loads(text))


def test_a_tournament_row_without_variation_is_flagged():
    row = tour_estimate.Row("a", "b", "points_per_deal", stats.not_estimable(0.0, 500),
                            float("nan"), float("nan"))  # fmt: skip
    assert tour_report.estimate_text(row) == f"+0.000 ({stats.not_estimable_text(500)})"
    out = row.to_json()
    assert out["ci_low"] is out["ci_high"] is out["p_value"] is out["p_holm"] is None


def test_the_luck_skill_bootstrap_flags_a_pairing_that_does_not_vary():
    x1 = np.random.default_rng(1).normal(size=300)
    d = luck_skill.decompose(x1, -x1, replicates=50, seed=5)  # the same player in both chairs
    assert d.margin.value == 0 and not d.margin.estimable
    assert d.cards.value == 1 and not d.cards.estimable  # a share of exactly 1, no interval
    assert d.var_plain.estimable  # the plain results do vary
