"""Rating intervals that hold up under audit (issue 26, parts 1 and 2).

Every pairing of a tournament plays the same packs, so the outcomes of different pairings are
correlated pack by pack. Small ladders with a known truth reproduce that: each player's play on
a pack is its skill plus a shock of its own (large for the erratic player), so a pack that suits
the erratic player suits it against everyone (pairings that share it correlate by about +0.85)
and pairings in which a player sits on opposite sides correlate negatively. The truth is the
model's fit to the exact outcome probabilities. Over replicated ladders (fixed seeds) the joint
pack bootstrap covers the truth at 95 % within three binomial standard errors; redrawing each
pairing's counts on its own (the method before the fix) falls short of that band, so the test
can tell the two apart. The model's fit test keeps its level on data the model fits and
rejects data it cannot fit; a real tournament reports the fit, the scale and the packs.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from scopa_sim import cli, stats, tournament
from scopa_sim.tournament import ratings

SKILL = np.array([-0.6, 0.0, 0.25, 0.5])
SHOCK = np.array([2.0, 0.7, 0.7, 0.7])  # player 0 is erratic: its packs correlate its pairings
NOISE, TIE = 0.3, 0.3  # per pairing noise of a pack; |margin| <= TIE is a tie
NAMES = [f"p{k}" for k in range(len(SKILL))]
PAIRS = [(i, j) for i in range(len(SKILL)) for j in range(i + 1, len(SKILL))]
# 500 replicates, not the tournament's 1000: the percentile noise of an interval's ends then
# costs about 0.002 of coverage (sd of an end ~ 0.12 of the estimate's sd), against a band of
# 0.046 (three binomial SEs over 200 ladders); 200 ladders keep the two methods apart.
PACKS, LADDERS, REPLICATES = 300, 200, 500

# The coverage fixture is the cost of this file: one worker computes it once for every test.
pytestmark = pytest.mark.xdist_group("rating-audit")


def ladder(rng: np.random.Generator, packs: int = PACKS) -> dict:
    """Per pairing, A's outcome (0, 1/2, 1) on every pack of one ladder."""
    shock = rng.normal(size=(packs, len(SKILL))) * SHOCK
    out = {}
    for i, j in PAIRS:
        margin = SKILL[i] - SKILL[j] + shock[:, i] - shock[:, j] + NOISE * rng.normal(size=packs)
        out[(NAMES[i], NAMES[j])] = np.where(margin > TIE, 1.0, np.where(margin < -TIE, 0.0, 0.5))
    return out


def true_ratings() -> np.ndarray:
    """The model fitted to the exact (loss, tie, win) probabilities of every pairing."""
    rows = []
    for i, j in PAIRS:
        sd = np.sqrt(SHOCK[i] ** 2 + SHOCK[j] ** 2 + NOISE**2)
        gap = SKILL[i] - SKILL[j]
        loss, win = norm.cdf((-TIE - gap) / sd), norm.sf((TIE - gap) / sd)
        rows.append([loss, 1 - loss - win, win])
    counts = 1e12 * np.array(rows)  # the virtual unit vanishes
    logs, _ = ratings.davidson(len(SKILL), *zip(*PAIRS, strict=True), counts)
    return 400 * logs / np.log(10)


def per_pairing_intervals(outcomes: dict, seed: int) -> np.ndarray:
    """The method before the fix: each pairing's counts redrawn on their own (multinomial)."""
    rng = np.random.default_rng(seed)
    counts = np.stack([np.bincount(ratings.outcome_codes(o), minlength=3)
                       for o in outcomes.values()])  # fmt: skip
    boot = np.stack([rng.multinomial(PACKS, c / PACKS, size=REPLICATES) for c in counts], axis=1)
    logs, _ = ratings.davidson(len(SKILL), *zip(*PAIRS, strict=True), boot)
    elo = 400 * logs / np.log(10)
    return np.percentile(elo, [2.5, 97.5], axis=0).T


@pytest.fixture
def coverage() -> tuple[np.ndarray, np.ndarray]:
    return _coverage()


@functools.cache  # not a module fixture: xdist may run other modules' tests between its users
def _coverage() -> tuple[np.ndarray, np.ndarray]:
    """Per player, the share of ladders whose interval covers the truth: joint, per pairing."""
    truth = true_ratings()
    joint = np.zeros(len(SKILL))
    alone = np.zeros(len(SKILL))
    with threadpool_limits(1):  # small matrix products: BLAS threads only contend for the cores
        for k in range(LADDERS):
            outcomes = ladder(np.random.default_rng([26, k]))
            fit = ratings.rate(NAMES, set(), outcomes, seed=k, replicates=REPLICATES)
            by_name = {r.player: r for r in fit.ratings}
            for p, name in enumerate(NAMES):
                joint[p] += by_name[name].ci_low <= truth[p] <= by_name[name].ci_high
            low, high = per_pairing_intervals(outcomes, seed=k).T
            alone += (low <= truth) & (truth <= high)
    return joint / LADDERS, alone / LADDERS


def test_the_synthetic_ladder_correlates_pairings_like_a_tournament():
    outcomes = ladder(np.random.default_rng(0), packs=20_000)
    shared = np.corrcoef(outcomes[("p0", "p1")], outcomes[("p0", "p2")])[0, 1]
    opposite = np.corrcoef(outcomes[("p1", "p2")], outcomes[("p2", "p3")])[0, 1]
    assert shared > 0.7 and opposite < -0.1


BAND = 3 * np.sqrt(stats.LEVEL * (1 - stats.LEVEL) / LADDERS)  # three binomial SEs


def test_the_joint_pack_bootstrap_covers_the_true_ratings(coverage):
    joint, _ = coverage
    assert np.all(np.abs(joint - stats.LEVEL) <= BAND), joint


def test_redrawing_each_pairing_alone_undercovers(coverage):
    _, alone = coverage
    assert alone.min() < stats.LEVEL - BAND, alone


def test_the_ratings_recover_a_known_davidson_truth():
    rng = np.random.default_rng(1)
    logs = np.log([0.5, 1.0, 3.0])
    logs -= logs.mean()
    nu = 0.8
    counts = []
    first, second = zip(*[(0, 1), (0, 2), (1, 2)], strict=True)
    for i, j in zip(first, second, strict=True):
        p = ratings._probabilities(logs[i], logs[j], np.log(nu))
        counts.append(rng.multinomial(200_000, p))
    fitted, log_nu = ratings.davidson(3, first, second, np.array(counts))
    assert fitted.mean() == pytest.approx(0, abs=1e-12)
    assert fitted == pytest.approx(logs, abs=0.02)
    assert np.exp(log_nu) == pytest.approx(nu, rel=0.02)


def test_the_fit_test_keeps_its_level_where_the_model_holds():
    """Data drawn from the model itself (independent packs per pairing): the fit test rejects
    at about 5 %, within three binomial SEs over 100 datasets."""
    logs = np.log([0.5, 1.0, 1.5, 3.0])
    logs -= logs.mean()
    rejected = 0
    datasets = 100
    for k in range(datasets):
        rng = np.random.default_rng([2026, k])
        outcomes = {}
        for i, j in PAIRS:
            p = ratings._probabilities(logs[i], logs[j], np.log(0.6))
            outcomes[(NAMES[i], NAMES[j])] = rng.choice([0.0, 0.5, 1.0], size=400, p=p)
        fit = ratings.rate(NAMES, set(), outcomes, seed=k, replicates=400).fit
        assert fit.df == 2 * len(PAIRS) - len(NAMES)
        rejected += fit.p_value < 0.05
    assert rejected / datasets <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / datasets)


def test_the_fit_test_rejects_ties_scored_as_a_model_does_not_make_them():
    """Ties only between neighbours, never far apart: no single tie parameter fits that."""
    rng = np.random.default_rng(3)
    outcomes = {}
    for i, j in PAIRS:
        p = [0.3, 0.4, 0.3] if j == i + 1 else [0.05, 0.0, 0.95]
        outcomes[(NAMES[i], NAMES[j])] = rng.choice([0.0, 0.5, 1.0], size=2000, p=p)
    fit = ratings.rate(NAMES, set(), outcomes, seed=0, replicates=400).fit
    assert fit.p_value < 1e-6
    assert "rejected" in fit.text()


def test_a_ratings_n_is_its_packs_not_the_sum_over_pairings():
    outcomes = ladder(np.random.default_rng(4))
    fit = ratings.rate(NAMES, {"p3"}, outcomes, seed=4, replicates=200)
    assert {r.packs for r in [*fit.ratings, *fit.upper_bounds]} == {PACKS}
    assert fit.ratings[0].to_json()["packs"] == PACKS


def test_the_tournament_reports_the_fit_the_scale_and_the_packs(tmp_path, capsys, monkeypatch):
    # The page without the replays of its largest swings: they cost most of this test, and
    # tests/test_tournament.py checks them on the same players' tournament page.
    without_swings = functools.partial(tournament.write_html, swings=0)
    monkeypatch.setattr(tournament, "write_html", without_swings)
    args = ["tournament", "--variant", "classic", "--players", "random,greedy,memory", "--deals",
            "600", "--seed", "3", "--out", str(tmp_path / "t"), "--json", "--no-progress",
            "--html", str(tmp_path / "t.html")]  # fmt: skip
    assert cli.main(args) == 0
    out = json.loads(capsys.readouterr().out, parse_constant=lambda c: 1 / 0)
    fit = out["ratings_fit"]
    assert fit["df"] == 2 * 3 - 3 and fit["statistic"] >= 0 and 0 <= fit["p_value"] <= 1
    assert len(fit["pairings"]) == 3
    assert all(sum(p["observed"]) == pytest.approx(1) for p in fit["pairings"])
    assert out["ratings_scale"].startswith("deals scale")
    assert {r["packs"] for r in out["ratings"]} == {600}
    html = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert "goodness of fit: Wald chi-square" in html and "deals scale" in html


def test_one_fair_player_and_an_upper_bound_are_rated():
    outcomes = ladder(np.random.default_rng(5))
    two = {("p0", "p1"): outcomes[("p0", "p1")]}
    fit = ratings.rate(["p0", "p1"], {"p1"}, two, seed=5, replicates=200)
    (fair,), (upper,) = fit.ratings, fit.upper_bounds
    assert fair.rating == 0 and upper.upper_bound
    # p1 is the stronger: its upper-bound rating is above the fair player's, interval included
    assert upper.ci_low > 0
