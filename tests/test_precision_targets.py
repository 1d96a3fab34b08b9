"""``compare --precision``: targets met or not, said on every output; exit status 3 when unmet;
relative targets on a metric that may be zero refused; too few deals refused.

The size a missed target would need is the 1/sqrt(n) extrapolation of the widest half-width
seen, recomputed here from the JSON rows, so a message with another number fails.
"""

from __future__ import annotations

import json
import math

import pytest

from scopa_sim import compare, compare_page, precision, sizes
from tests.support.cli import scopa_sim

FORCED = ["classic", "classic:forced_capture=true"]


def test_unmet_target_exits_3_naming_each_metric_its_size_and_what_would_be_needed(capsys):
    status, out, err = scopa_sim(
        capsys, "compare", *FORCED, "--players", "random,random", "--deals", "1000", "--seed", "4",
        "--precision", "scope=0.01,points=0.02", "--max", "2000", "--json",
    )  # fmt: skip
    assert status == 3, err
    rows = json.loads(out)  # the output is complete for its size
    assert all(r["n"] == 2000 for r in rows)
    assert all(r["precision_met"] is False for r in rows if r["metric"] != "dealer_edge")
    assert all(r["precision_met"] is None for r in rows if r["metric"] == "dealer_edge")
    line = err.splitlines()[-1]
    assert line.startswith("scopa-sim: Precision target scope=0.01,points=0.02 NOT met at 2,000")
    assert "Traceback" not in err and "dealer_edge" not in line  # no target: not named
    for metric in ("scope", "points_seat0", "points_seat1"):
        mine = [r for r in rows if r["metric"] == metric]
        widths = [(r["ci_high"] - r["ci_low"]) / 2 for r in mine]
        widths += [
            (r["diff_ci_high"] - r["diff_ci_low"]) / 2 for r in mine if r["diff"] is not None
        ]
        target = 0.01 if metric == "scope" else 0.02
        needed = math.ceil(2000 * (max(widths) / target) ** 2)
        assert f"{metric} half-width {max(widths):.4g} > target {target:.4g}" in line
        assert f"about {needed:,} deals per arm would be needed" in line
    status, out, err = scopa_sim(capsys, "compare", "--help")
    assert "exit status" in out and "3 --precision targets" in " ".join(out.split())


def test_met_target_says_so_and_at_what_size(capsys):
    status, out, err = scopa_sim(
        capsys, "compare", *FORCED, "--players", "random,random", "--deals", "1000", "--seed", "4",
        "--precision", "scope=0.06",
    )  # fmt: skip
    assert status == 0, err
    units = int(err.splitlines()[-1].split()[0].replace(",", ""))
    assert units > 1000  # it doubled at least once
    assert f"Precision target scope=0.06 met at {units:,} deals per arm" in out


def test_the_page_and_the_json_say_whether_the_target_was_met():
    result = compare.compare(
        FORCED, ["random", "random"], mode="deals", count=500, seed=4, precision="scope=0.2"
    )
    assert result.precision_met is True
    page = compare_page.page(result)
    assert f"met at {result.units:,} deals per arm" in page.method
    assert "relative target" in page.method  # and the bias of relative targets is named
    assert (
        compare.compare(FORCED, ["random"], mode="deals", count=500, seed=4).precision_met is None
    )


def test_relative_target_on_a_metric_within_its_interval_of_zero_is_refused(capsys):
    # the dealer's edge of greedy against random is near zero: within its own interval at 2,000
    status, out, err = scopa_sim(
        capsys, "compare", *FORCED, "--players", "greedy,random", "--deals", "2000", "--seed", "4",
        "--precision", "dealer_edge=40%",
    )  # fmt: skip
    assert status == 2 and out == "" and "Traceback" not in err
    line = err.splitlines()[-1]
    assert line.startswith("scopa-sim: error: --precision dealer_edge=40%: the first arm's ")
    assert "within its own 95% interval of zero" in line
    assert "--precision dealer_edge=0." in line  # the absolute form, suggested
    assert all("2,000 deals per arm" in x for x in err.splitlines()[:-1])  # after one stage only


def test_relative_targets_away_from_zero_still_run():
    result = compare.compare(
        FORCED, ["random", "random"], mode="deals", count=500, seed=4, max_units=64_000,
        precision="points=5%",
    )  # fmt: skip
    assert result.precision_met


def test_needed_units_follows_the_square_root_law():
    assert precision.needed_units(1000, 0.2, 0.1) == 4000
    assert precision.needed_units(1000, 0.1, 0.1) == 1000
    assert precision.needed_units(1000, 0.1, 0.0) is None


@pytest.mark.parametrize("deals", ["1", str(sizes.MIN_UNITS - 1)])
def test_compare_refuses_too_few_deals_per_arm(capsys, deals):
    status, out, err = scopa_sim(
        capsys, "compare", *FORCED, "--players", "greedy,random", "--deals", deals, "--seed", "1"
    )
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"at least {sizes.MIN_UNITS} deals per arm" in err and f"--deals {deals}" in err


def test_compare_at_the_minimum_gives_intervals_of_width():
    result = compare.compare(FORCED, ["random", "random"], mode="deals", count=30, seed=1)
    assert result.units == sizes.MIN_UNITS and result.max_half_width > 0
