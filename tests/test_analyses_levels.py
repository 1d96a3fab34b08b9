"""The two levels every report page answers at (analyses.framework: BEGINNER, EXPERT), the
expert twins of configs/default.toml that give the pages their data, and the words a headline
uses when the levels disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyses import ace_value, card_values, deal_shape, family, framework, seat_advantage
from scopa_sim.cli.batch import load_batch
from scopa_sim.stats import Estimate

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "default.toml"
PAGES = (ace_value, card_values, deal_shape, family, seat_advantage)


def test_the_levels_are_named_once():
    assert framework.LEVELS == ("beginner", "expert")
    assert framework.LEVEL_PLAYER == {"beginner": framework.BEGINNER, "expert": framework.EXPERT}
    assert framework.BEGINNER == "greedy" and framework.EXPERT != framework.BEGINNER


def test_expert_twins_are_named_after_their_beginner_run():
    assert framework.expert_run("classic-greedy") == "classic-expert"
    assert framework.expert_run("family-scopone-greedy") == "family-scopone-expert"
    assert framework.expert_run("classic-deals") == "classic-deals-expert"
    assert framework.expert_run("classic-3p") == "classic-3p-expert"
    assert framework.level_run("classic-greedy", "beginner") == "classic-greedy"
    assert framework.level_run("classic-greedy", "expert") == "classic-expert"
    with pytest.raises(ValueError, match="unknown level"):
        framework.level_run("classic-greedy", "master")


def _batch():
    return {config.name: config for config, _ in load_batch(CONFIG)}


def test_every_run_a_page_needs_is_in_the_default_batch_at_both_levels():
    runs = _batch()
    for page in PAGES:
        for name in page.NEEDS.runs:
            assert name in runs, (page.__name__, name)
        # every beginner run a page needs has its expert twin among the needs, and back
        needed = set(page.NEEDS.runs)
        for name in needed:
            if not name.endswith("-expert"):
                assert framework.expert_run(name) in needed, (page.__name__, name)


def test_each_expert_twin_plays_its_beginner_runs_packs_with_the_expert():
    """The same variant, options, mode, size and seed (so the same packs: the pages pair the
    levels game by game), every side played by framework.EXPERT (the one place that names it:
    flip EXPERT and the players of these runs together)."""
    runs = _batch()
    twins = [name for name in runs if name.endswith("-expert")]
    assert len(twins) == 17  # classic, deals, targets 16 and 21, 3p/4p/6p, ten family presets
    for name in twins:
        expert = runs[name]
        (beginner,) = [b for b in runs if framework.expert_run(b) == name]
        base = runs[beginner]
        assert set(expert.players) == {framework.EXPERT}, name
        assert set(base.players) == {framework.BEGINNER}, beginner
        assert len(expert.players) == len(base.players), name
        for field in ("variant", "options", "mode", "count", "seed"):
            assert getattr(expert, field) == getattr(base, field), (name, field)
    # the expert runs together: at most about 20 M deals (about 5 minutes on 2 cores at the
    # expert's 100,000 classic deals a second a core), counted as games times 6 deals at most
    deals = sum(r.count * (6 if r.mode == "games" else 1) for n, r in runs.items() if n in twins)
    assert deals <= 20_000_000


def _e(value, low, high):
    return Estimate(value, low, high, 100)


def test_the_headline_says_where_the_levels_disagree():
    clause = framework.levels_clause
    assert clause(_e(1, 0.5, 1.5), _e(-1, -1.5, -0.5)) == "the two levels disagree in sign"
    assert clause(_e(1, 0.5, 1.5), _e(0.2, -0.3, 0.7)) == (
        "it is clearly non-zero for beginners only"
    )
    assert clause(_e(0.2, -0.3, 0.7), _e(1, 0.5, 1.5)) == "it is clearly non-zero for experts only"
    assert clause(_e(1, 0.5, 1.5), _e(1.2, 0.7, 1.7)) == ""  # they agree: nothing to say
    said = clause(_e(1, 0.5, 1.5), _e(2, 1.5, 2.5), _e(1, 0.4, 1.6), 0.001)
    assert said == (
        "experts differ from beginners by 1 [0.4, 1.6] on the same packs (family interval, "
        "Holm p = 0.001)"
    )
    assert clause(_e(1, 0.5, 1.5), _e(1.2, 0.7, 1.7), _e(0.2, -0.1, 0.5), 0.3) == (
        "the paired difference between the levels is not significant"
    )
    shares = clause(_e(0.1, 0.05, 0.15), _e(0.0, 0.0, 0.0), _e(-0.1, -0.2, -0.05), 0.01,
                    scale=100, unit=" pp")  # fmt: skip
    assert "by -10 pp [-20, -5]" in shares
