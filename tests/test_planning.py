"""``scopa-sim plan``: sample sizes from a pilot, against closed forms and the pilot's own data.

The power calculations come from statsmodels; here they are checked against the textbook normal
approximations with the usual t correction (one-sample: n = ((z_a + z_b) s / D)^2 + z_a^2 / 2;
two-sample, per arm: n = 2 ((z_a + z_b) s / D)^2 + z_a^2 / 4), which agree to within a unit for
these sizes. The pilot's SDs and correlation are recomputed from the same deals played through
the API, so a plan that sized from other numbers (another seed, unpaired values for a paired arm)
fails.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import numpy as np
import pytest

from scopa_sim import api, planning
from scopa_sim.rules import parse_variant
from tests.support.cli import scopa_sim

Z = NormalDist().inv_cdf


def closed_paired(sd: float, effect: float, alpha=0.05, power=0.8) -> float:
    za, zb = Z(1 - alpha / 2), Z(power)
    return ((za + zb) * sd / effect) ** 2 + za**2 / 2


def closed_unpaired(sd: float, effect: float, alpha=0.05, power=0.8) -> float:
    za, zb = Z(1 - alpha / 2), Z(power)
    return 2 * ((za + zb) * sd / effect) ** 2 + za**2 / 4


@pytest.mark.parametrize(
    "sd, effect, alpha, power",
    [(1.0, 0.1, 0.05, 0.8), (2.5, 0.05, 0.05, 0.9), (0.3, 0.01, 0.01, 0.8), (1.0, 0.5, 0.05, 0.8)],
)
def test_sizes_match_the_closed_forms_for_a_known_sd(sd, effect, alpha, power):
    paired = planning.paired_size(sd, effect, alpha, power)
    assert abs(paired - closed_paired(sd, effect, alpha, power)) <= 1.5
    unpaired = planning.unpaired_size(sd, sd, effect, alpha, power)
    assert abs(unpaired - closed_unpaired(sd, effect, alpha, power)) <= 1.5
    # unequal SDs pool their variances
    assert planning.unpaired_size(sd, 0, effect, alpha, power) == planning.unpaired_size(
        sd / math.sqrt(2), sd / math.sqrt(2), effect, alpha, power
    )


def test_correlation_shrinks_the_paired_size():
    sd = planning.sd_of_difference(1.0, 1.0, 0.75)
    assert sd == pytest.approx(math.sqrt(0.5))
    assert planning.sd_of_difference(1.0, 1.0, 0.0) == pytest.approx(math.sqrt(2))
    # uncorrelated pairs need as many units per arm as independent samples (within a unit)
    independent = planning.paired_size(math.sqrt(2), 0.1)
    assert abs(independent - planning.unpaired_size(1.0, 1.0, 0.1)) <= 2
    assert planning.paired_size(sd, 0.1) < independent / 3.5
    assert planning.paired_size(0.0, 0.1) == planning.MIN_UNITS


def test_plan_sizes_from_the_pilot_deals():
    arms = ["classic", "classic:forced_capture=true", "escoba"]
    plan = planning.plan(
        arms, ["random"], metric="scope", effect=0.02, mode="deals", pilot=2000, seed=6
    )
    assert [n.arm for n in plan.needs] == arms[1:]
    forced, escoba = plan.needs
    scope = []
    for label in arms[:2]:
        out = api.play_deals(parse_variant(label), ["random", "random"], deals=2000, seed=6)
        scope.append(out.scope.sum(axis=1).astype(float))
    s0, s1 = scope
    assert forced.sd_first == pytest.approx(s0.std(ddof=1), rel=1e-12)
    assert forced.sd_arm == pytest.approx(s1.std(ddof=1), rel=1e-12)
    assert forced.correlation == pytest.approx(np.corrcoef(s0, s1)[0, 1], rel=1e-9)
    assert forced.sd_diff == pytest.approx((s1 - s0).std(ddof=1), rel=1e-12)
    assert forced.pilot_diff.value == pytest.approx(s1.mean() - s0.mean(), rel=1e-9)
    assert forced.paired == planning.paired_size(forced.sd_diff, 0.02)
    assert forced.unpaired == planning.unpaired_size(forced.sd_first, forced.sd_arm, 0.02)
    assert 0.3 < forced.correlation < 1 and forced.paired < forced.unpaired
    # escoba deals otherwise (no throw-in): no paired size, and the reason
    assert escoba.design == "unpaired" and escoba.paired is None and "throw-in" in escoba.reason
    assert escoba.correlation is None


def test_plan_in_games_sizes_per_game_ratios():
    plan = planning.plan(
        ["classic", "classic:target=16"], ["greedy"], metric="points_seat0", effect=0.05,
        mode="games", pilot=300, seed=2,
    )  # fmt: skip
    (need,) = plan.needs
    assert plan.unit == "games" and need.design == "paired"
    assert need.paired == planning.paired_size(need.sd_diff, 0.05)


def test_cli_plan_table_and_json(capsys):
    args = ["plan", "classic", "classic:forced_capture=true", "--players", "greedy,random",
            "--metric", "scope", "--effect", "0.02", "--pilot", "1000", "--seed", "3"]  # fmt: skip
    status, out, err = scopa_sim(capsys, *args)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("Deals per arm to detect a difference of 0.02 in scope")
    assert "paired deals/arm" in lines[1] and "unpaired deals/arm" in lines[1]
    assert lines[3].split()[:2] == ["classic:forced_capture=true", "paired"]
    assert lines[4].startswith("Pilot: 1,000 deals per arm, seed 3")
    status, out, _ = scopa_sim(capsys, *args, "--json")
    data = json.loads(out)
    assert data["metric"] == "scope" and data["unit"] == "deals" and data["pilot"] == 1000
    (arm,) = data["arms"]
    assert arm["paired"] == planning.paired_size(arm["sd_diff"], 0.02)
    assert f"{arm['paired']:,}" in lines[3]


BAD = {
    "unknown metric": (["--metric", "nope", "--effect", "1"], "'nope' is not compared"),
    "game metric in deals mode": (["--metric", "game_length", "--effect", "1"], "deals mode"),
    "zero effect": (["--metric", "scope", "--effect", "0"], "--effect"),
    "effect not a number": (["--metric", "scope", "--effect", "big"], "--effect"),
    "power above 1": (["--metric", "scope", "--effect", "1", "--power", "1.2"], "--power"),
    "alpha 0": (["--metric", "scope", "--effect", "1", "--alpha", "0"], "--alpha"),
    "tiny pilot": (["--metric", "scope", "--effect", "1", "--pilot", "5"], "--pilot"),
    "no metric": (["--effect", "1"], "--metric"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_cli_plan_bad_input(capsys, case):
    extra, fragment = BAD[case]
    status, out, err = scopa_sim(
        capsys, "plan", "classic", "classic", "--players", "greedy", *extra
    )
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(("scopa-sim: error:", "scopa-sim plan: error:")), lines[0]
    assert fragment in lines[0]


def test_cli_plan_players_default_to_greedy(capsys):
    status, out, err = scopa_sim(
        capsys, "plan", "classic", "classic:target=16", "--metric", "scope", "--effect", "0.05",
        "--pilot", "200", "--json",
    )  # fmt: skip
    assert status == 0, err
    again = planning.plan(
        ["classic", "classic:target=16"], ["greedy"], metric="scope", effect=0.05, pilot=200
    )
    assert json.loads(out) == json.loads(json.dumps(again.to_json()))


def test_cli_plan_bad_arm(capsys):
    status, out, err = scopa_sim(
        capsys, "plan", "classic", "nope", "--players", "greedy", "--metric", "scope",
        "--effect", "1",
    )  # fmt: skip
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and "'nope'" in err


def test_planned_sizes_reach_the_planned_power():
    """Data drawn with the planned SD and effect, at the planned sizes: the share of
    replications whose t-test rejects at alpha is the power asked for (a binomial proportion:
    within 4 standard errors)."""
    from scopa_sim import stats

    rng = np.random.default_rng(17)
    replications, sd, effect, power = 600, 1.5, 0.3, 0.8
    tol = 4 * math.sqrt(power * (1 - power) / replications)
    n = planning.paired_size(sd, effect, power=power)
    hits = [
        stats.paired_difference(np.zeros(n), rng.normal(effect, sd, n))[1] < 0.05
        for _ in range(replications)
    ]
    assert abs(np.mean(hits) - power) < tol, (n, np.mean(hits))
    m = planning.unpaired_size(sd, sd, effect, power=power)
    hits = [
        stats.independent_difference(rng.normal(0, sd, m), rng.normal(effect, sd, m))[1] < 0.05
        for _ in range(replications)
    ]
    assert abs(np.mean(hits) - power) < tol, (m, np.mean(hits))
    # half the planned pairs fall well short of the power
    half = [
        stats.paired_difference(np.zeros(n // 2), rng.normal(effect, sd, n // 2))[1] < 0.05
        for _ in range(replications)
    ]
    assert np.mean(half) < power - tol
