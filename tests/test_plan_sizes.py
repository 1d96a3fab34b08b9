"""``scopa-sim plan``: effects the metric cannot take or no run can size are refused with the
range in the message; the plan counts the tests compare will make and sizes at alpha / m.

The number of tests is checked against a comparison actually run (its Holm family), and the
family-level sizes against the power functions at alpha / m, so a plan that counted otherwise,
or sized at alpha, fails.
"""

from __future__ import annotations

import json

import pytest

from scopa_sim import compare, planning, sizes
from tests.support.cli import scopa_sim

ARMS = ["classic", "classic:forced_capture=true", "escoba"]


def refused(capsys, *args) -> str:
    status, out, err = scopa_sim(capsys, "plan", *args)
    assert status == 2 and out == "" and "Traceback" not in err, (status, err)
    (line,) = err.splitlines()
    assert line.startswith(("scopa-sim: error:", "scopa-sim plan: error:")), line
    return line


PLAN = ["classic", "classic:forced_capture=true", "--players", "greedy,random", "--pilot", "500"]


def test_an_effect_wider_than_the_metric_can_differ_is_refused_with_the_range(capsys):
    line = refused(capsys, *PLAN, "--metric", "scope", "--effect", "10")
    assert "--effect 10 is outside what scope can differ by" in line
    assert "span [0, " in line and "give an --effect below" in line


def test_a_share_of_games_differs_by_less_than_one(capsys):
    args = ["classic", "classic:target=16", "--mode", "games", "--metric", "game_win_seat0"]
    line = refused(capsys, *args, "--effect", "1")
    assert "[0, 1]" in line and "below 1" in line


def test_an_effect_too_small_for_any_run_is_refused_with_the_smallest_it_can_size(capsys):
    line = refused(capsys, *PLAN, "--metric", "scope", "--effect", "1e-9")
    assert "too small to size" in line and "10^12" in line
    smallest = float(line.rsplit("about ", 1)[1])
    status, out, err = scopa_sim(capsys, "plan", *PLAN, "--metric", "scope", "--effect",
                                 str(1.05 * smallest), "--json")  # fmt: skip
    assert status == 0, err  # the smallest it names can be sized
    assert max(a["unpaired_family"] for a in json.loads(out)["arms"]) <= sizes.MAX_COUNT


def test_large_effects_size_to_the_minimum_instead_of_crashing():
    assert planning.paired_size(1.0, 100.0) == planning.MIN_UNITS
    assert planning.unpaired_size(1.0, 1.0, 100.0) == planning.MIN_UNITS
    assert planning.paired_size(1.0, 1e-9) > sizes.MAX_COUNT  # no NaN: plan refuses it


def test_a_pilot_below_the_stated_minimum_is_refused(capsys):
    line = refused(capsys, *PLAN[:-1], str(sizes.MIN_UNITS - 1), "--metric", "scope",
                   "--effect", "0.1")  # fmt: skip
    assert f"at least {sizes.MIN_UNITS} deals per arm" in line


@pytest.mark.parametrize("mode", ["deals", "games"])
def test_the_plan_counts_the_tests_compare_makes_and_sizes_at_alpha_over_m(mode):
    metric = "scope"
    p = planning.plan(ARMS, ["random"], metric=metric, effect=0.05, mode=mode, pilot=200, seed=3)
    result = compare.compare(ARMS, ["random"], mode=mode, count=200, seed=3)
    assert p.tests == len(result.family) > 1
    assert p.alpha_family == pytest.approx(0.05 / p.tests)
    forced, escoba = p.needs
    assert forced.paired_family == planning.paired_size(forced.sd_diff, 0.05, 0.05 / p.tests)
    assert forced.paired_family > forced.paired
    assert escoba.paired_family is None
    assert escoba.unpaired_family == planning.unpaired_size(
        escoba.sd_first, escoba.sd_arm, 0.05, 0.05 / p.tests
    )
    text = planning.format_plan(p)
    assert f"compare with these arms tests {p.tests} differences" in text
    assert f"paired at alpha/{p.tests}" in text.splitlines()[1]
    data = p.to_json()
    assert data["tests"] == p.tests and data["arms"][0]["paired_family"] == forced.paired_family
