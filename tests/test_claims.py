"""Claims the tests support (issue 26, part 3).

A difference that is not significant leaves two players "not separated", with its interval,
never "level"; a leader is separated from a player only when the difference is significant AND
has the leader ahead. Who-plays-best puts every pairing test of every tournament on the page in
one Holm family, and a rating's n is its packs (every pairing plays the same ones). The
luck-and-skill page picks its best fair player by a stated rule, applied again in every
bootstrap replicate, and decides its claims about the cheater at its family's level; the
ace-value page says that it tests nothing.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from analyses import ace_value, luck_skill, who_plays_best
from analyses.who_plays_best import measure, text
from scopa_sim import stats
from scopa_sim import tournament as tour

SPEC = SimpleNamespace(name="t", mode="deals", count=1000)


def result(rows: dict, ratings: list[tuple[str, float]], packs: int = 1000) -> tour.Result:
    """A tournament result of points-per-deal rows ``{(a, b): (estimate, low, high, p_holm)}``."""
    t = SimpleNamespace(mode="deals", variant="classic", metrics=lambda: ["points_per_deal"],
                        unit="deal", pairings=(), entrants=())  # fmt: skip
    out = [
        tour.Row(a, b, "points_per_deal", stats.Estimate(v, lo, hi, packs), p, p)
        for (a, b), (v, lo, hi, p) in rows.items()
    ]
    rated = [tour.Rating(name, r, r - 20, r + 20, False, packs) for name, r in ratings]
    return tour.Result(t, out, rated, [], None, packs)


def test_a_significant_difference_of_the_wrong_sign_does_not_separate():
    # memory is rated first, but pimc beats it on points, significantly
    r = result({("memory", "pimc"): (-0.3, -0.4, -0.2, 1e-6),
                ("memory", "greedy"): (0.5, 0.4, 0.6, 1e-9),
                ("pimc", "greedy"): (0.8, 0.7, 0.9, 1e-9)},
               [("memory", 30), ("pimc", 25), ("greedy", -55)])  # fmt: skip
    assert not measure.separated(r, "memory", "pimc")
    assert measure.separated(r, "memory", "greedy")
    assert measure.leaders(r) == ["memory", "pimc"]


def test_not_significant_is_not_separated_and_never_level():
    r = result({("memory", "pimc"): (0.07, -0.011, 0.151, 0.09),
                ("memory", "greedy"): (0.5, 0.4, 0.6, 1e-9),
                ("pimc", "greedy"): (0.4, 0.3, 0.5, 1e-9)},
               [("memory", 30), ("pimc", 25), ("greedy", -55)])  # fmt: skip
    assert measure.leaders(r) == ["memory", "pimc"]
    line = text.headline(SPEC, r)
    assert "level" not in line and "not separated from pimc" in line
    assert "memory minus pimc: +0.070 [-0.011, +0.151]" in line
    keys = {(k.a, k.b): k.why for k in measure.key_pairings(r)}
    assert not any("level" in why for why in keys.values())


def test_who_plays_best_holds_one_family_for_the_page():
    first = result({("a", "b"): (1.0, 0.5, 1.5, 0.01)}, [("a", 10), ("b", -10)])
    second = result({("c", "d"): (1.0, 0.5, 1.5, 0.04)}, [("c", 10), ("d", -10)])
    adjusted, size = measure.page_family([("one", first), ("two", second)])
    assert size == 2
    (one,), (two,) = (r.rows for _, r in adjusted)
    assert (one.p_holm, two.p_holm) == pytest.approx((0.02, 0.04))
    assert "One family of tests for the whole page" in who_plays_best.METHOD


def test_a_ratings_n_in_the_json_is_its_packs():
    r = result({("a", "b"): (1.0, 0.5, 1.5, 0.01), ("a", "c"): (1.0, 0.5, 1.5, 0.01),
                ("b", "c"): (1.0, 0.5, 1.5, 0.01)}, [("a", 10), ("b", 0), ("c", -10)],
               packs=10_000)  # fmt: skip
    found = {f.name: f for f in who_plays_best.findings(SPEC, r)}
    assert found["who_plays_best.t.rating.a"].estimate.n == 10_000  # not 2 x 10,000
    assert "deals scale" in found["who_plays_best.t.rating.a"].unit


def test_the_best_fair_player_is_picked_again_in_every_replicate():
    """Two candidates level in the data: the pick flips between replicates, and the
    interval of the picked margin is that of the larger of the two, not of one alone."""
    rng = np.random.default_rng(7)
    packs = 4000
    first = rng.normal(1.0, 1.0, size=packs)
    noise = rng.normal(0.0, 0.5, size=packs)
    margins = np.column_stack([first, first + noise - noise.mean() + 1e-6])  # a tie in the data
    upper = rng.normal(2.0, 1.0, size=packs)
    gaps = rng.normal(1.0, 1.0, size=(packs, 2))
    s = luck_skill.measure.skill("random", ["greedy", "pimc"], margins, upper, gaps, 1000, 3)
    assert 0.1 < s.picked < 0.9
    best = ["greedy", "pimc"].index(s.best)
    _, alone, _ = luck_skill.relative_skill(margins[:, best], upper, 1000, 3)  # the old interval
    assert s.best_margin.value == alone.value
    assert s.best_margin.low > alone.low and s.best_margin.high > alone.high
    assert s.rs.value == pytest.approx(s.best_margin.value / s.upper_margin.value)


def test_the_cheaters_claims_are_decided_at_the_family_level():
    e = stats.Estimate
    s = luck_skill.Skill(
        beginner="random", best="greedy", rs=e(0.8, 0.7, 0.9, 1000),
        best_margin=e(3.0, 2.9, 3.1, 1000), upper_margin=e(3.6, 3.5, 3.7, 1000),
        upper_over_best=e(0.1, 0.02, 0.18, 1000), room=e(0.6, 0.5, 0.7, 1000),
        upper_over_best_family=e(0.1, -0.03, 0.23, 1000), room_family=e(0.6, 0.45, 0.75, 1000),
    )  # fmt: skip
    sentence = luck_skill.skill_sentence(luck_skill.Preset("scopone", None, None, [s]))
    assert "The cheater beats greedy" not in sentence
    assert "do not separate the cheater from greedy" in sentence
    assert "page-family CI" in sentence
    assert "One family of tests for the page" in luck_skill.METHOD


def test_the_ace_page_states_its_one_family_and_that_it_tests_nothing_else():
    text_ = ace_value.METHOD(1000, 100, "g", 50)
    assert "Family of tests: the experts' minus the beginners' points" in text_
    assert "four tests, Holm p-values and Bonferroni intervals" in text_
    assert "Nothing else is tested" in text_
