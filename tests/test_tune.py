"""``scopa-sim tune`` and memory's weights: the weights are player parameters that both engine
paths honour, the defaults play as before, and tuning by duplicate play is reproducible, finds
weights better than a poor start, and writes a spec ``--players`` accepts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scopa_sim import api, cli, tuning
from scopa_sim.players import MemoryPlayer, player
from scopa_sim.rules import RulesError, variant
from scopa_sim.testing import check_player

WEIGHTED = MemoryPlayer(
    scopa=2.0, caution=0.5, lay=0.05, extra_settebello=0.5, extra_sevens=0.2, extra_coins=0.1
)


def test_memory_defaults_are_the_weights_it_always_had():
    v = variant("classic")
    base = MemoryPlayer()
    assert (base.scopa, base.caution, base.lay) == (1.0, 1.0, 0.01)
    from scopa_sim.players.tactics import card_values

    np.testing.assert_array_equal(base.card_worths(v), card_values(v))
    params = base.policy_params(v)
    assert (params.scopa, params.caution, params.lay) == (1.0, 1.0, 0.01)
    np.testing.assert_array_equal(params.card_worth, card_values(v))


def test_weighted_memory_keeps_the_contract_on_both_paths():
    """check_player compares the fused row policy with act, with weights that are not the
    defaults (so both paths must read them), in classic and in scopone."""
    report = check_player(WEIGHTED, ["classic", "scopone"], deals=16)
    assert report.decisions > 0


def test_weights_change_the_play():
    default = api.play_deals("classic", ["memory", "greedy"], deals=300, seed=2).totals
    careless = api.play_deals("classic", ["memory:caution=0", "greedy"], deals=300, seed=2).totals
    assert not np.array_equal(default, careless)


def test_with_weights_is_a_spec_players_accept():
    spec, p = tuning.with_weights("memory", {"scopa": 1.23456, "caution": 0.5})
    assert spec == "memory:scopa=1.2346:caution=0.5000"
    assert p == player(spec) and p.scopa == 1.2346 and p.caution == 0.5


def test_duplicate_plays_each_pack_in_both_seatings():
    rules = variant("classic")
    a, b = tuning.duplicate(rules, "memory", "greedy", 200, seed=4)
    b2, a2 = tuning.duplicate(rules, "greedy", "memory", 200, seed=4)
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    # Duplicate play removes the luck of the cards: the variance of the difference is below
    # that of a single seating's.
    single = api.play_deals(rules, ["memory", "greedy"], deals=200, seed=4).totals
    assert np.var(a - b) < np.var(single[:, 0] - single[:, 1])


def test_tuning_is_reproducible_and_beats_a_poor_start():
    """From weights that ignore scopas and exposure, a short search finds weights that beat
    that start on packs of their own, the paired interval above zero."""
    settings = tuning.Settings(
        variant="classic", base="memory:scopa=0:caution=0:extra_settebello=-1", pool=("greedy",),
        deals=300, generations=4, population=6, sigma=0.3, seed=5,
    )  # fmt: skip
    seen = []
    result = tuning.tune(settings, seen.append)
    assert [g.index for g in seen] == [0, 1, 2, 3]
    assert result.against_base.low > 0, str(result.against_base)
    assert player(result.spec).caution == result.weights["caution"]
    again = tuning.tune(settings)
    assert again.spec == result.spec


@pytest.mark.parametrize(
    "changes",
    [
        {"base": "greedy"},  # no weights
        {"pool": ()},
        {"pool": ("cheater",)},
        {"deals": 1},
        {"population": 1},
        {"sigma": 1.5},
        {"variant": "nope"},
        {"base": "memory:nope=1"},
    ],
)
def test_bad_settings_are_refused_before_playing(changes):
    settings = tuning.Settings(**{"variant": "classic", **changes})
    with pytest.raises(RulesError):
        tuning.check(settings)


@pytest.mark.parametrize(
    "args",
    [
        ["--player", "greedy"],
        ["--pool", "greedy,,memory"],
        ["--pool", "cheater"],
        ["--deals", "0"],
        ["--population", "1"],
        ["--sigma", "3"],
        ["--variant", "nope"],
        ["--out", "/nonexistent-folder/tuned.txt"],
        ["--out", "."],
    ],
)
def test_bad_command_lines_get_one_line_and_exit_2(args, capsys):
    try:  # the later option wins: the case's own comes last
        code = cli.main(["tune", "--deals", "10", "--generations", "1", *args])
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error" in err[0] and "Traceback" not in err[0]


def test_tune_writes_the_spec_and_json(tmp_path, capsys):
    out = tmp_path / "tuned.txt"
    code = cli.main(
        ["tune", "--pool", "greedy", "--deals", "40", "--generations", "1", "--population", "2",
         "--seed", "3", "--out", str(out), "--json"]
    )  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert out.read_text().strip() == data["spec"]
    assert player(data["spec"]).name == "memory"
    assert "generation 1/1" in captured.err
    assert {"weights", "generations", "validation", "against_base"} <= set(data)


def test_help_names_the_search_and_the_output(capsys):
    with pytest.raises(SystemExit):
        cli.main(["tune", "--help"])
    text = capsys.readouterr().out
    for word in ("CMA-ES", "--pool", "duplicate", "--out", "--json", "memory"):
        assert word in text
