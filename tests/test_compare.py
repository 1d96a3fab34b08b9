"""``scopa-sim compare``: paired comparisons on the same packs, unpaired ones across packs.

A variant compared with itself plays identical deals (same packs, same players' random numbers), so
every difference is exactly zero: not estimable (no variation), no interval and no p. A real rule
change with a known direction (a higher target makes longer games) comes out significant. Arms that
deal otherwise than the first arm (escoba has no throw-in; other packs; other numbers of players)
are played from a seed of their own and compared unpaired (Welch), and every output says which
design each comparison used; metrics an arm lacks (points of seat 3 with two sides) are left out.
The command line prints one JSON object per (metric, arm) with fixed keys, stops ``--precision``
runs as soon as every half-width is below H (or at ``--max``), writes ``--html`` pages, and answers
bad input with exit status 2 and one line on stderr.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from scopa_sim import api, compare, compare_page, stats
from scopa_sim.rules import parse_variant, variant
from tests.support.cli import scopa_sim

PYTHON = sys.executable
KEYS = {
    "metric", "arm", "estimate", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high",
    "p_value", "p_holm", "design", "seed", "tested", "derived", "diff_family_ci_low",
    "diff_family_ci_high",
}  # fmt: skip
DIFF_KEYS = ("diff", "diff_ci_low", "diff_ci_high", "p_value", "p_holm", "design")
PROGRESS = re.compile(r"^([\d,]+) (deals|games) per arm: largest CI half-width ([\d.]+)$")


def strict_json(text: str):
    """JSON without NaN or Infinity, which are not JSON."""

    def refuse(constant):
        raise ValueError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


def by_key(result: compare.Comparison) -> dict:
    return {(r.metric, r.arm): r for r in result.rows}


def check_rows(result: compare.Comparison, arms: list[str], mode: str) -> None:
    metrics = list(compare.metrics(variant("classic"), mode))
    assert [(r.metric, r.arm) for r in result.rows] == [(m, a) for m in metrics for a in arms]
    for r in result.rows:
        e = r.estimate
        assert e.low <= e.value <= e.high and e.n == result.units
        if r.arm == arms[0]:
            assert r.diff is r.p_value is r.p_holm is None
            continue
        assert r.diff.low <= r.diff.value <= r.diff.high
        if r.derived:  # shown, not tested: no p-value, no family interval
            assert r.p_value is r.p_holm is r.diff_family is None
            continue
        assert 0 <= r.p_value <= r.p_holm <= 1
        # the Bonferroni interval holds the 95 % one and agrees with Holm: it excludes 0 only
        # when Holm rejects
        f = r.diff_family
        assert f.low <= r.diff.low <= r.diff.value <= r.diff.high <= f.high
        if f.low > 0 or f.high < 0:
            assert r.p_holm < 0.05


# a variant against itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode, count, players",
    [("deals", 20_000, ["greedy", "greedy"]), ("games", 2_000, ["random", "greedy"])],
)
def test_a_variant_against_itself_has_no_difference(mode, count, players):
    arms = ["classic", "classic", "classic"]
    result = compare.compare(arms, players, mode=mode, count=count, seed=11)
    assert result.mode == mode and result.units == count and result.seed == 11
    rows = result.rows
    metrics = list(compare.metrics(variant("classic"), mode))
    assert [r.metric for r in rows] == [m for m in metrics for _ in arms]
    for i, r in enumerate(rows):
        base = rows[i - i % len(arms)]
        assert r.estimate == base.estimate  # identical play: identical estimates
        assert r.estimate.n == count and r.estimate.low < r.estimate.value < r.estimate.high
        if i % len(arms) == 0:
            assert r.diff is r.p_value is r.p_holm is None
        else:
            # no variation in the differences: flagged, no zero-width interval, no p = 1
            assert (r.diff.value, r.diff.estimable) == (0.0, False), r
            assert np.isnan(r.diff.low) and np.isnan(r.diff.high)
            if not r.derived:
                assert np.isnan(r.p_value) and np.isnan(r.p_holm)
    # the comparison is still honest about the arms' own uncertainty
    assert result.max_half_width > 0


def test_deal_estimates_agree_with_the_api():
    """The compare estimates are the plain per-deal means of the same deals played by the API."""
    result = compare.compare(
        ["classic", "classic:target=16"], ["random", "greedy"], mode="deals", count=5_000, seed=3
    )
    out = api.play_deals("classic", ["random", "greedy"], deals=5_000, seed=3)
    totals = out.totals.astype(float)
    rows = np.arange(len(out))
    # each deal is a game of its own whose dealer is drawn at random; the other player leads
    assert 0.45 < out.dealer_side.mean() < 0.55
    leader = totals[rows, 1 - out.dealer_side]
    dealer = totals[rows, out.dealer_side]
    expect = {
        "points_seat0": leader.mean(),
        "points_seat1": dealer.mean(),
        "dealer_edge": (dealer - leader).mean(),
        "scope": out.scope.sum(axis=1).mean(),
    }
    got = by_key(result)
    for metric, value in expect.items():
        assert got[(metric, "classic")].estimate.value == pytest.approx(value, rel=1e-12, abs=1e-12)
        # the target does not enter a lone deal: same packs, same play, no difference
        assert got[(metric, "classic:target=16")].diff.value == 0.0


def test_game_estimates_are_the_totals_of_the_api():
    """In games mode a per-deal metric is a ratio: its total over all deals of all games divided
    by the number of deals, exactly what api.play_games totals give on the same seed. A mean of
    per-game means would differ, since games have different lengths."""
    arms = ["classic", "classic:target=16"]
    result = compare.compare(arms, ["random", "greedy"], mode="games", count=600, seed=13)
    got = by_key(result)
    for label in arms:
        out = api.play_games(parse_variant(label), ["random", "greedy"], games=600, seed=13)
        totals = out.totals.astype(float)
        rows = np.arange(len(out))
        dealer = totals[rows, out.dealer_side]
        leader = totals[rows, 1 - out.dealer_side]
        deals = len(out)
        expect = {
            "points_seat0": leader.sum() / deals,
            "points_seat1": dealer.sum() / deals,
            "dealer_edge": (dealer - leader).sum() / deals,
            "scope": out.scope.sum() / deals,
            "game_length": deals / 600,
        }
        for metric, value in expect.items():
            assert got[(metric, label)].estimate.value == pytest.approx(value, rel=1e-12), metric
        # the estimator that must not pass: the mean over games of each game's per-deal mean
        per_game = np.bincount(out.game, weights=dealer - leader) / np.bincount(out.game)
        assert abs(per_game.mean() - expect["dealer_edge"]) > 1e-6
        assert got[("dealer_edge", label)].estimate.value != pytest.approx(per_game.mean())
    # the paired difference is the difference of the two ratio estimates
    diff = got[("scope", arms[1])].diff.value
    assert diff == pytest.approx(
        got[("scope", arms[1])].estimate.value - got[("scope", arms[0])].estimate.value, rel=1e-9
    )


# --precision ------------------------------------------------------------------------------------


def test_precision_parsing():
    p = compare.parse_precision("points=0.01,game_win=0.005")
    assert p.target("points_seat0") == p.target("points_seat1") == (0.01, False)
    assert p.target("game_win_seat1") == (0.005, False)
    assert p.target("scope") is None and p.target("dealer_edge") is None
    p = compare.parse_precision("1%")
    assert p.target("scope") == (0.01, True) and p.target("game_length") == (0.01, True)
    p = compare.parse_precision("0.05,points=1%")
    assert p.target("points_seat1") == (0.01, True) and p.target("scope") == (0.05, False)
    assert compare.parse_precision("0.02").target("game_win_seat0") == (0.02, False)
    assert compare.parse_precision(0.02).default == (0.02, False)
    assert compare.parse_precision(None) is None


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("points=", "cannot read"),
        ("points=abc", "'abc' is not a number"),
        ("points=-1", "must be positive"),
        ("0%", "must be positive"),
        ("inf", "must be positive"),
        ("1,2", "at most one bare H"),
        ("points=1,points=2", "given twice"),
        ("points=1=2", "cannot read"),
    ],
)
def test_precision_errors(text, fragment):
    with pytest.raises(compare.RulesError, match=re.escape(fragment)) as err:
        compare.parse_precision(text)
    assert "--precision" in str(err.value)


def test_precision_names_must_be_compared_metrics():
    with pytest.raises(compare.RulesError, match="'game_win' names no compared metric"):
        compare.compare(
            FORCED, ["greedy"], mode="deals", count=100, seed=1, precision="game_win=0.01"
        )


def test_precision_per_metric_targets_only_its_metric():
    """A loose target on scope alone stops long before a bare target as tight would: the other
    metrics' intervals are left wider than it."""
    arms = ["classic", "classic:forced_capture=true"]
    kw = dict(mode="deals", count=500, seed=4, max_units=64_000)
    scope_only = compare.compare(arms, ["random", "random"], precision="scope=0.05", **kw)
    rows = [r for r in scope_only.rows if r.metric == "scope"]
    assert all(e.half_width < 0.05 for r in rows for e in (r.estimate, r.diff) if e is not None)
    others = [r.estimate.half_width for r in scope_only.rows if r.metric != "scope"]
    assert max(others) >= 0.05  # no target there: not narrowed to 0.05
    assert scope_only.units < 64_000
    # a relative target: 2 % of the first arm's estimate, for every interval of the metric
    rel = compare.compare(arms, ["random", "random"], precision="points=2%", **kw)
    for r in (r for r in rel.rows if r.metric.startswith("points")):
        first = next(x for x in rel.rows if x.metric == r.metric and x.diff is None)
        target = 0.02 * abs(first.estimate.value)
        assert r.estimate.half_width < target and (r.diff is None or r.diff.half_width < target)
    assert rel.precision.met(rel)


def test_cli_precision_per_metric_says_which_target_is_widest(capsys):
    status, out, err = scopa_sim(
        capsys, "compare", "classic", "classic:forced_capture=true", "--players", "random,random",
        "--deals", "500", "--seed", "4", "--precision", "scope=0.05,points=1%", "--json",
    )  # fmt: skip
    assert status == 0, err
    lines = err.splitlines()
    assert lines and all("per arm: widest against its target: " in line for line in lines)
    last = re.search(r"half-width ([\d.]+), target ([\d.]+)$", lines[-1])
    assert float(last[1]) < float(last[2])
    rows = strict_json(out)
    assert all(r["n"] == rows[0]["n"] for r in rows)


# a rule change with a known effect --------------------------------------------------------------


def test_a_higher_target_makes_longer_games():
    arms = ["classic", "classic:target=16"]
    result = compare.compare(arms, ["greedy", "greedy"], mode="games", count=2_000, seed=5)
    check_rows(result, arms, "games")
    rows = by_key(result)
    base, longer = rows[("game_length", "classic")], rows[("game_length", "classic:target=16")]
    assert longer.diff.value > 0 and longer.diff.low > 0
    assert longer.p_holm < 1e-6
    assert longer.diff.value == pytest.approx(longer.estimate.value - base.estimate.value, rel=1e-9)
    # game length is deals per game: check it against the games played directly
    out = api.play_games("classic", ["greedy", "greedy"], games=2_000, seed=5)
    assert base.estimate.value == pytest.approx(len(out) / 2_000, rel=1e-12)
    assert out.final.sum() == 2_000
    # the side that leads the first deal (the first dealer is drawn at random: the other side)
    # wins a share of games in [0, 1]
    win = rows[("game_win_seat0", "classic")].estimate
    leader = 1 - out.first_dealer_side[out.final]
    assert win.value == pytest.approx(np.mean(out.winner[out.final] == leader), rel=1e-12)
    assert 0 < win.low < win.value < win.high < 1
    dealt_first = rows[("game_win_seat1", "classic")].estimate
    assert dealt_first.value == pytest.approx(1 - win.value, rel=1e-12)


def test_holm_adjusts_over_every_comparison():
    arms = ["classic", "classic:target=16", "classic:target=21"]
    result = compare.compare(arms, ["random", "random"], mode="games", count=500, seed=8)
    check_rows(result, arms, "games")
    compared = [r for r in result.rows if r.p_value is not None]
    # two sides: dealer_edge (seat 1 minus seat 0) and game_win_seat1 (1 - game_win_seat0) are
    # derived, shown but not tested, so each arm has two tests fewer than metrics
    assert len(compared) == (len(compare.metrics(variant("classic"), "games")) - 2) * 2
    assert compared == result.family
    assert {r.metric for r in result.rows if r.derived} == {"dealer_edge", "game_win_seat1"}
    m = len(compared)
    smallest = min(compared, key=lambda r: r.p_value)
    assert smallest.p_holm == pytest.approx(min(1.0, m * smallest.p_value), rel=1e-9)
    level = 1 - 0.05 / m
    assert result.family_level == pytest.approx(level)
    for r in compared:  # Bonferroni intervals: the t interval at level 1 - 0.05/m, same centre
        ratio = stats.sps.t.ppf(0.5 + level / 2, r.diff.n - 1) / stats.sps.t.ppf(
            0.975, r.diff.n - 1
        )
        assert r.diff_family.half_width == pytest.approx(r.diff.half_width * ratio, rel=1e-9)


def test_workers_and_chunks_do_not_change_the_result(monkeypatch):
    arms = ["classic", "classic:target=16"]
    players = ["random", "greedy"]
    one = compare.compare(arms, players, mode="games", count=1_500, seed=9, workers=1)
    monkeypatch.setattr(compare, "CHUNK", 400)
    split = compare.compare(arms, players, mode="games", count=1_500, seed=9, workers=2)
    assert split.rows == one.rows


# arms that deal otherwise: unpaired ------------------------------------------------------------


@pytest.mark.parametrize(
    "base, other, paired, reason",
    [
        ("classic", "classic:forced_capture=true", True, ""),
        ("classic", "classic:target=21,first_dealer=fixed", True, ""),
        ("classic", "asso-piglia-tutto", True, ""),  # the capture rule does not change the deal
        ("classic", "escoba", False, "throw-in off, not on"),
        ("classic:throw_in=false", "escoba", True, ""),  # throw-ins redeal: only they differ
        ("classic", "classic:throw_in=false", False, "throw-in off, not on"),
        ("classic", "scopa-52", False, "pack"),
        ("classic", "classic-4p", False, "4 players, not 2"),
        ("classic-4p", "scopone", False, "another deal"),
        ("scopa-52", "scopa-52-4p", False, "4 players, not 2"),
        ("classic", "cirulla", False, "another throw-in"),  # two aces, not three kings
        ("cirulla", "cirulla:two_aces_fifteen_stands=true", False, "another throw-in"),
        ("cirulla", "cirulla:declarations=false,match_priority=true", True, ""),
        ("classic:throw_in=false", "cirulla:throw_in=false", True, ""),
    ],
)
def test_arms_are_paired_only_when_they_deal_alike(base, other, paired, reason):
    arms = compare.plan(compare.parse_arms([base, other]), seed=7)
    assert arms[0].seed == 7 and arms[0].design is None
    if paired:
        assert arms[1].design == compare.PAIRED and arms[1].seed == 7 and arms[1].reason == ""
    else:
        assert arms[1].design == compare.UNPAIRED and reason in arms[1].reason
        assert arms[1].seed == compare.derived_seed(7, parse_variant(other)) != 7


def test_derived_seeds_are_fixed_and_shared_by_arms_that_deal_alike():
    escoba, escoba21 = parse_variant("escoba"), parse_variant("escoba:target=21")
    assert compare.derived_seed(7, escoba) == compare.derived_seed(7, escoba21)
    assert compare.derived_seed(7, escoba) != compare.derived_seed(8, escoba)
    assert compare.derived_seed(7, escoba) != compare.derived_seed(7, parse_variant("scopa-52"))
    seeds = [compare.derived_seed(s, escoba) for s in range(200)]
    assert len(set(seeds)) == 200 and all(0 <= x < 2**62 for x in seeds)


def test_classic_against_escoba_is_unpaired_and_says_so():
    arms = ["classic", "classic:forced_capture=true", "escoba"]
    players = ["greedy", "random"]
    result = compare.compare(arms, players, mode="games", count=600, seed=12)
    check_rows(result, arms, "games")
    escoba_seed = compare.derived_seed(12, variant("escoba"))
    assert [(a.design, a.seed) for a in result.arms] == [
        (None, 12), (compare.PAIRED, 12), (compare.UNPAIRED, escoba_seed),
    ]  # fmt: skip
    for r in result.rows:
        assert r.design == {"classic": None, "escoba": "unpaired"}.get(r.arm, "paired")
        assert r.seed == (escoba_seed if r.arm == "escoba" else 12)
    rows = by_key(result)
    # the escoba arm is exactly escoba played alone from its own seed ...
    alone = api.play_games("escoba", players, games=600, seed=escoba_seed)
    assert rows[("game_length", "escoba")].estimate.value == pytest.approx(len(alone) / 600)
    # ... and its difference is Welch's, on the per-game values
    base = api.play_games("classic", players, games=600, seed=12)
    length = [np.bincount(o.game, minlength=600) for o in (base, alone)]
    welch, p = stats.independent_difference(*length)
    got = rows[("game_length", "escoba")]
    assert (got.diff, got.p_value) == (welch, p)
    assert got.diff != stats.paired_difference(*length)[0]

    table = compare_page.format_table(result)
    lines = table.splitlines()
    assert lines[0].split()[:5] == ["metric", "arm", "estimate", "[95%", "CI]"]
    assert "design" in lines[0]
    assert any(line.startswith("escoba") and " unpaired " in line for line in lines)
    footer = lines[-3:]
    assert footer[0].startswith("classic: seed 12, the first arm")
    assert "paired by game" in footer[1]
    assert footer[2].startswith(f"escoba: seed {escoba_seed} (its own, derived from 12)")
    assert "throw-in off, not on" in footer[2] and "unpaired (Welch" in footer[2]


def test_two_players_against_four_compares_only_the_shared_metrics():
    for arms in (["scopa-52", "scopa-52-4p"], ["scopa-52-4p", "scopa-52"]):
        sides = [variant(a).n_sides for a in arms]
        result = compare.compare(arms, ["greedy"], mode="games", count=300, seed=4)
        assert result.arms[1].design == compare.UNPAIRED
        assert f"{sides[1]} players, not {sides[0]}" in result.arms[1].reason
        shared = list(compare.metrics(variant("scopa-52"), "games"))
        assert [(r.metric, r.arm) for r in result.rows] == [(m, a) for m in shared for a in arms]
        assert not any(r.metric in ("points_seat3", "game_win_seat2") for r in result.rows)
        sides = [variant(a).n_sides for a in arms]
        assert result.arm_players == tuple(("greedy",) * n for n in sides)
        assert all(r.design in (None, "unpaired") for r in result.rows)
    # classic (2 players) against classic-4p (4 players, 2 teams): every metric is shared
    result = compare.compare(
        ["classic", "classic-4p"], ["greedy", "greedy"], mode="deals", count=2000, seed=4
    )
    assert [r.metric for r in result.rows[::2]] == list(
        compare.metrics(variant("classic"), "deals")
    )
    assert {r.design for r in result.rows[1::2]} == {"unpaired"}


def test_metrics_only_one_arm_has_are_left_out():
    arms = compare.parse_arms(["scopa-52-4p", "scopa-52", "scopa-52-3p"])
    shared = dict(compare.shared_metrics(arms, "deals"))
    assert shared["points_seat1"] == [0, 1, 2]
    assert shared["points_seat2"] == [0, 2]  # the 3-player arm has a seat 2, the 2-player not
    assert "points_seat3" not in shared  # only the first arm has it


# command line -----------------------------------------------------------------------------------

FORCED = ["classic", "classic:forced_capture=true"]


def test_cli_json_one_object_per_metric_and_arm():
    proc = subprocess.run(
        [PYTHON, "-m", "scopa_sim", "compare", *FORCED, "--players", "greedy,greedy",
         "--deals", "20000", "--seed", "1", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    rows = strict_json(proc.stdout)
    assert isinstance(rows, list)
    assert [(r["metric"], r["arm"]) for r in rows] == [
        (m, a) for m in compare.metrics(variant("classic"), "deals") for a in FORCED
    ]
    for r in rows:
        assert set(r) - {"n"} == KEYS, sorted(r)
        assert r["n"] == 20_000
        assert r["ci_low"] <= r["estimate"] <= r["ci_high"]
        assert r["seed"] == 1
        if r["arm"] == FORCED[0]:
            assert all(r[k] is None for k in DIFF_KEYS), r
        else:
            assert r["design"] == "paired"
            if r["metric"] == "dealer_edge":  # seat 1 minus seat 0: shown, not tested
                assert r["tested"] is False and r["derived"].startswith("derived")
                assert r["p_value"] is r["p_holm"] is r["diff_family_ci_low"] is None
                continue
            assert r["tested"] is True and r["derived"] is None
            # greedy captures whenever it can, so forcing captures changes no play: the arms
            # play the same packs, hence exactly the same deals; no variation, so not
            # estimable: no interval and no p-value, never a zero-width interval with p = 1
            assert r["diff"] == 0
            assert r["diff_ci_low"] is r["diff_ci_high"] is r["p_value"] is r["p_holm"] is None
    assert len({(r["metric"], r["arm"]) for r in rows}) == len(rows)


def test_cli_table(capsys):
    status, out, err = scopa_sim(
        capsys, "compare", "classic", "classic:target=16", "--players", "random,random",
        "--games", "300", "--seed", "2",
    )  # fmt: skip
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["metric", "arm"]
    assert set(lines[1]) <= {"-", " "}
    body = lines[2:-4]
    assert len(body) == 2 * len(compare.metrics(variant("classic"), "games"))
    assert sum(line.startswith("game_length") for line in body) == 2
    assert all(" paired " in line for line in body if "target=16" in line)
    assert lines[-4] == "300 games per arm, seed 2, players random,random."
    assert lines[-3].startswith("One family of 5 tested differences from the first arm")
    assert "Bonferroni intervals at 99% (= 1 - 0.05/5)" in lines[-3]
    assert lines[-2].startswith("classic: seed 2, the first arm")
    assert lines[-1].startswith("classic:target=16: seed 2, the same packs in the same seats")


def test_cli_json_says_which_comparisons_are_unpaired(capsys):
    status, out, err = scopa_sim(
        capsys, "compare", "classic", "escoba", "classic:forced_capture=true", "--players",
        "greedy", "--deals", "3000", "--seed", "1", "--json",
    )  # fmt: skip
    assert status == 0, err
    rows = strict_json(out)
    escoba = compare.derived_seed(1, variant("escoba"))
    for r in rows:
        assert set(r) - {"n"} == KEYS
        expected = {"classic": (None, 1), "escoba": ("unpaired", escoba)}.get(
            r["arm"], ("paired", 1)
        )
        assert (r["design"], r["seed"]) == expected, r
        if r["design"] == "unpaired":
            assert r["diff_ci_low"] < r["diff"] < r["diff_ci_high"]


def progress_lines(err: str) -> list[tuple[int, float]]:
    found = []
    for line in err.splitlines():
        match = PROGRESS.match(line)
        assert match, f"unexpected stderr line {line!r}"
        found.append((int(match[1].replace(",", "")), float(match[3])))
    return found


def max_half_width(rows: list[dict]) -> float:
    widths = [(r["ci_high"] - r["ci_low"]) / 2 for r in rows]
    widths += [(r["diff_ci_high"] - r["diff_ci_low"]) / 2 for r in rows if r["diff"] is not None]
    return max(widths)


def test_cli_precision_stops_once_every_half_width_is_below_h(capsys):
    h = 0.08
    status, out, err = scopa_sim(
        capsys, "compare", "classic", "classic:forced_capture=true", "--players", "random,random",
        "--deals", "1000", "--seed", "4", "--precision", h, "--json",
    )  # fmt: skip
    assert status == 0, err
    steps = progress_lines(err)
    units = [n for n, _ in steps]
    assert units == [1000 * 2**i for i in range(len(steps))]  # doubling from --deals
    assert len(steps) >= 2, "H should need more than the first round"
    assert all(width >= h for _, width in steps[:-1]), steps  # it did not stop early
    rows = strict_json(out)
    assert all(r["n"] == units[-1] for r in rows)
    assert max_half_width(rows) < h  # ... and stopped as soon as every CI was narrow enough
    assert max_half_width(rows) == pytest.approx(steps[-1][1], abs=5e-5)


def test_cli_precision_respects_max(capsys):
    status, out, err = scopa_sim(
        capsys, "compare", *FORCED, "--players", "random,random", "--deals", "1000", "--seed", "4",
        "--precision", "1e-6", "--max", "3000", "--json",
    )  # fmt: skip
    assert status == 3, err  # the target was not met: tests/test_precision_targets.py
    *steps, unmet = err.splitlines()
    assert unmet.startswith("scopa-sim: Precision target 1e-6 NOT met at 3,000 deals per arm")
    assert [n for n, _ in progress_lines("\n".join(steps))] == [1000, 2000, 3000]
    rows = strict_json(out)
    assert all(r["n"] == 3000 for r in rows)
    assert max_half_width(rows) >= 1e-6  # stopped by the cap, not by the precision


def test_precision_first_round_is_capped_by_max(capsys):
    status, out, _ = scopa_sim(
        capsys, "compare", *FORCED, "--players", "greedy,greedy", "--deals", "3000", "--seed", "4",
        "--precision", "1e-6", "--max", "2000", "--json",
    )  # fmt: skip
    assert status == 2 or all(r["n"] <= 2000 for r in strict_json(out))


def test_cli_html_page(capsys, tmp_path):
    page = tmp_path / "compare.html"
    status, out, err = scopa_sim(
        capsys, "compare", "classic", "classic:target=16", "--players", "greedy,greedy",
        "--games", "400", "--seed", "3", "--html", page,
    )  # fmt: skip
    assert status == 0, err
    assert "game_length" in out  # the table is still printed
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "<title>Variant comparison" in html
    assert html.count("<svg") == 1
    assert "classic:target=16" in html and "game_length" in html
    assert "Each arm plays 400 games" in html and "paired per game" in html
    assert "unpaired" not in html  # no arm deals otherwise


def test_cli_html_page_marks_unpaired_arms(capsys, tmp_path):
    page = tmp_path / "compare.html"
    status, _, err = scopa_sim(
        capsys, "compare", "classic", "classic:target=16", "scopa-52", "--players", "greedy",
        "--games", "200", "--seed", "3", "--html", page,
    )  # fmt: skip
    assert status == 0, err
    html = page.read_text(encoding="utf-8")
    assert "<td>unpaired</td>" in html and "<td>paired</td>" in html
    assert "Welch" in html and "unpaired (other packs, Welch)" in html  # text and chart legend
    assert str(compare.derived_seed(3, variant("scopa-52"))) in html  # its seed, to reproduce it


# bad input --------------------------------------------------------------------------------------

GOOD = ["--players", "greedy,greedy", "--deals", "100", "--seed", "1"]
TWO = ["classic", "classic"]
BAD = {
    "unknown variant": (["classic", "nope", *GOOD], ["'nope'", "classic"]),
    "unknown option in an arm": (["classic", "classic:bogus=1", *GOOD], ["'bogus'"]),
    "option without a value": (["classic", "classic:target", *GOOD], ["KEY=VALUE"]),
    "option value out of range": (["classic", "classic:target=0", *GOOD], ["target"]),
    "option value not a number": (["classic", "classic:target=abc", *GOOD], ["target", "'abc'"]),
    "one arm only": (["classic", *GOOD], ["two arms"]),
    "arms with different sides and a player per side": (
        ["classic", "classic-3p", *GOOD], ["2 and 3 sides", "--players greedy"]
    ),
    "wrong number of players": (
        [*TWO, "--players", "greedy,greedy,greedy", "--deals", "9", "--seed", "1"], ["2 players"]
    ),
    "unknown player": (
        [*TWO, "--players", "greedy,nobody", "--deals", "9", "--seed", "1"], ["'nobody'"]
    ),
    "negative precision": ([*TWO, *GOOD, "--precision", "-1"], ["--precision"]),
    "zero precision": ([*TWO, *GOOD, "--precision", "0"], ["--precision"]),
    "nan precision": ([*TWO, *GOOD, "--precision", "nan"], ["--precision"]),
    "precision not a number": ([*TWO, *GOOD, "--precision", "tight"], ["--precision"]),
    "zero deals": ([*TWO, "--players", "greedy,greedy", "--deals", "0", "--seed=1"], ["--deals"]),
    "deals and games": ([*TWO, *GOOD, "--games", "5"], ["--games"]),
    "neither deals nor games": (
        [*TWO, "--players", "greedy,greedy", "--seed", "1"], ["--deals", "--games"]
    ),
    "no seed": ([*TWO, "--players", "greedy,greedy", "--deals", "9"], ["--seed"]),
    "negative seed": ([*TWO, "--players", "greedy,greedy", "--deals", "9", "--seed=-1"], ["seed"]),
    "zero max": ([*TWO, *GOOD, "--max", "0"], ["--max"]),
    "zero workers": ([*TWO, *GOOD, "--workers", "0"], ["--workers"]),
    "html folder missing": ([*TWO, *GOOD, "--html", "/no-such-dir/x.html"], ["/no-such-dir"]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD))
def test_cli_bad_input(capsys, case):
    args, fragments = BAD[case]
    status, out, err = scopa_sim(capsys, "compare", *args)
    assert status == 2, f"exit status {status}; stderr: {err!r}"
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, f"stderr must be one line, got:\n{err}"
    assert lines[0].startswith(("scopa-sim: error:", "scopa-sim compare: error:")), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    assert out == ""


def test_bad_input_leaves_no_html_file(capsys, tmp_path):
    page = tmp_path / "compare.html"
    status, _, _ = scopa_sim(capsys, "compare", "classic", "nope", *GOOD, "--html", page)
    assert status == 2
    assert not page.exists()


def test_cli_bad_input_in_a_subprocess_has_no_traceback():
    proc = subprocess.run(
        [PYTHON, "-m", "scopa_sim", "compare", "classic", "classic:bogus=1", *GOOD, "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
