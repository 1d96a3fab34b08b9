"""The expert player (``players/expert.py``) and its training (``scopa_sim.training``).

The generic suites hold the expert to the player contract on every preset (``test_players.py``:
act and the fused row policy agree, whole runs repeat); here: the training data are the features
the row scores, the fit picks what planted values say is best, the shipped weights cover every
preset and say how they were made, ``scopa-sim train-expert`` writes them reproducibly and
refuses bad input with one line, and an untrained expert is refused with the fix.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from scopa_sim import training
from scopa_sim.players import expert
from scopa_sim.rules import PRESETS, RulesError, variant
from tests.support.cli import scopa_sim
from tests.test_cli import assert_bad_input

#: A cheap labeller: the tests check what is done with search's values, not their quality.
LABELLER = "pimc:samples=2"
CLASSIC = variant("classic")


@pytest.fixture(scope="module")
def positions() -> training.Positions:
    return training.label_chunk("classic", range(6), seed=3, labeller=LABELLER)


def test_the_score_weighs_every_base_feature_once():
    rng = np.random.default_rng(1)
    w, f = rng.normal(size=expert.N_BASE), rng.normal(size=expert.N_BASE)
    assert expert._dot(w, tuple(f)) == pytest.approx(float(w @ f), rel=1e-12)


def _listed(positions: training.Positions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The recorded actions as the row policy takes them: ``card[decision, slot]``,
    ``capture[decision, slot]`` and each decision's count."""
    count = np.bincount(positions.decision)
    slot = np.arange(len(positions.decision)) - np.repeat(np.cumsum(count) - count, count)
    card = np.zeros((len(count), count.max()), np.int8)
    capture = np.zeros((len(count), count.max()), np.uint64)
    card[positions.decision, slot] = positions.card
    capture[positions.decision, slot] = positions.capture
    return card, capture, count


def test_the_training_features_are_what_the_row_policy_scores(positions):
    """Per decision, the action the compiled row picks scores highest by the training features
    times the weights (the row folds the x stage and x last-hand weights per play first)."""
    weights = expert.weights_for(CLASSIC)
    params = expert.ExpertPlayer().policy_params(CLASSIC)
    card, capture, count = _listed(positions)
    picked = expert._expert(
        card, capture, count, *positions.state, *expert._rule_arguments(CLASSIC),
        params.weights, *params[1:],
    )  # fmt: skip
    score = positions.x(CLASSIC) @ weights
    first = np.cumsum(count) - count
    best = np.maximum.reduceat(score, first)
    assert (count > 1).sum() > 50
    assert np.all(score[first + picked] >= best - 1e-9 * (1 + np.abs(best)))


def test_the_recorder_plays_and_keeps_search_s_best_action(positions):
    first = np.cumsum(np.bincount(positions.decision)) - np.bincount(positions.decision)
    assert positions.decisions == 6 * CLASSIC.plays
    assert len(positions.y) == len(positions.card) == len(positions.capture)
    assert np.isfinite(positions.y).all() and (np.diff(first) > 0).all()


def test_the_fit_picks_what_planted_values_rank_best(positions):
    """Values planted as a linear score of the features: the fitted weights pick the planted
    best action (almost) everywhere, pooled and per preset."""
    x = positions.x(CLASSIC)
    planted = np.random.default_rng(7).normal(size=expert.N_FEATURES)
    data = training.Labelled(x, x @ planted, positions.decision)
    calls = []
    pooled, own = training.fit({"classic": data}, lambda fit, done: calls.append((fit, done)))
    # progress: each fit's iterations, then its end, pooled first (classic's own fit starts
    # from the pooled weights of the same data, where it may have nothing left to do)
    assert [c for c in calls if c[1]] == [("pooled", True), ("classic", True)]
    assert calls[0] == ("pooled", False)
    assert data.agreement(pooled) >= 0.97
    assert data.agreement(own["classic"]) >= 0.97
    assert data.regret(own["classic"]) <= 0.02 * data.regret(np.zeros(expert.N_FEATURES))


def test_the_shipped_weights_cover_every_preset_and_say_how_they_were_made():
    data = expert.trained()
    assert data["features"] == list(expert.FEATURES)
    assert set(data["variants"]) == set(PRESETS)
    assert all(len(w) == expert.N_FEATURES for w in [data["pooled"], *data["variants"].values()])
    made = data["trained"]
    assert made["command"].startswith("scopa-sim train-expert --deals ")
    assert made["labeller"] == training.LABELLER and isinstance(made["seed"], int)
    assert set(made["deals"]) == set(PRESETS) and set(made["presets"]) == set(PRESETS)
    for report in made["presets"].values():
        assert report["decisions"] > report["held_out_decisions"] > 0
        assert 0.3 < report["agreement_held_out"] <= 1.0


def test_a_variant_file_of_no_preset_plays_the_pooled_weights():
    renamed = dataclasses.replace(CLASSIC, name="my-house-rules")
    assert expert.weights_for(renamed).tolist() == expert.trained()["pooled"]


def test_an_untrained_expert_is_refused_with_the_fix(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(expert, "trained", lambda: {})
    with pytest.raises(RulesError, match="scopa-sim train-expert"):
        expert.weights_for(CLASSIC)
    args = ["simulate", "--variant", "classic", "--players", "expert,greedy", "--deals", "10"]
    out = tmp_path / "run"
    status = scopa_sim(capsys, *args, "--seed", "1", "--out", out)
    assert_bad_input(*status, "not trained", "train-expert")
    assert not out.exists()


def test_train_expert_writes_weights_with_their_provenance_and_repeats(tmp_path, capsys):
    args = [
        "train-expert", "--deals", "classic=10", "--labeller", LABELLER, "--seed", "5",
        "--positions", tmp_path / "positions",
    ]  # fmt: skip
    status, out, err = scopa_sim(capsys, *args, "--out", tmp_path / "a.json")
    assert status == 0 and out.startswith("classic: ")
    assert "labelling" in err and "fitting" in err and "2/2" in err  # the pooled fit and classic's
    blocks = sorted(p.name for p in (tmp_path / "positions").iterdir())
    assert blocks == [f"classic_seed5_pimc-samples-2_{span}.npz" for span in ("0-9", "9-10")]
    stamps = [p.stat().st_mtime_ns for p in (tmp_path / "positions").iterdir()]
    assert scopa_sim(capsys, *args, "--out", tmp_path / "b.json")[0] == 0
    assert [p.stat().st_mtime_ns for p in (tmp_path / "positions").iterdir()] == stamps
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a["variants"] == b["variants"] and a["pooled"] == b["pooled"]
    made = a["trained"]
    assert made["deals"] == {"classic": 10} and made["seed"] == 5
    assert "--deals classic=10 --seed 5 --labeller pimc:samples=2" in made["command"]
    assert made["presets"]["classic"]["held_out_decisions"] == CLASSIC.plays


@pytest.mark.parametrize(
    "extra, fragments",
    [
        (["--deals", "classic=5"], ["classic=", "at least 10"]),
        (["--deals", "clasic=100"], ["'clasic'", "not a preset"]),
        (["--labeller", "greedy"], ["greedy", "explain"]),
        (["--seed", "-1"], ["--seed"]),
    ],
    ids=["too few deals", "unknown preset", "labeller that does not search", "bad seed"],
)
def test_train_expert_refuses_bad_input_with_one_line(extra, fragments, tmp_path, capsys):
    args = ["train-expert", "--positions", tmp_path / "p", "--out", tmp_path / "w.json", *extra]
    assert_bad_input(*scopa_sim(capsys, *args), *fragments)
    assert not (tmp_path / "w.json").exists()


def test_train_expert_refuses_outputs_it_cannot_write(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    for args, fragment in (
        (["--out", tmp_path], "is a folder"),
        (["--positions", tmp_path / "file" / "p"], "--positions"),
    ):
        status = scopa_sim(capsys, "train-expert", "--deals", "classic=10", *args)
        assert_bad_input(*status, fragment)


# The exact endgame (expert:endgame=K) -------------------------------------------------------


def test_the_expert_knows_every_card_only_in_the_last_round_of_a_two_seat_deal():
    """classic deals its last round at plays 30..35; four seats never know every card."""
    classic = variant("classic")
    assert classic.plays == 36
    assert expert.knows_every_card(classic, 30, 6) and expert.knows_every_card(classic, 35, 1)
    assert not expert.knows_every_card(classic, 30, 5)  # six plays left, five solved
    assert not expert.knows_every_card(classic, 29, 12)  # a round still to be dealt
    four = variant("classic-4p")
    assert not expert.knows_every_card(four, four.plays - 1, 12)


_CHOICES: list = []


@dataclasses.dataclass(frozen=True)
class _Watched(expert.ExpertPlayer):
    """expert:endgame=6, recording its choice beside the solver's and the plain expert's."""

    endgame: int = 6

    def act(self, obs, legal, rng):
        from scopa_sim.players.pimc import PimcPlayer

        got = super().act(obs, legal, rng)
        solved = PimcPlayer(samples=1, endgame=self.endgame - 1).act(obs, legal, rng)
        plain = expert.ExpertPlayer().act(obs, legal, rng)
        _CHOICES.append((obs.play, legal.count.copy(), got, solved, plain))
        return got


def test_the_endgame_expert_plays_the_exact_solve_in_the_last_round_and_the_expert_before():
    from scopa_sim import api
    from scopa_sim.players import player

    _CHOICES.clear()
    watched = _Watched()
    assert watched.fused_policy is None and player("expert").fused_policy is not None
    api.play_deals("classic", [watched, player("greedy")], deals=60, seed=5, path="lockstep")
    late, differ = set(), 0
    for play, count, got, solved, plain in _CHOICES:
        if play >= 30:
            assert np.array_equal(got, solved), play
            late.add(play)
            differ += int(np.sum((got != plain) & (count > 1)))
        else:
            assert np.array_equal(got, plain), play
    assert late == set(range(30, 36))  # it sits in both seats: every play of the last round
    assert differ > 0  # and the solve changed some of its choices there


def test_the_endgame_expert_beats_the_expert_on_duplicate_deals():
    """Classic, 300 duplicate deals (seed 3): the mean point difference per deal, over both
    seatings, is above zero by more than three standard errors (measured: +0.34 +- 0.03 on
    2,000 deals, seed 11)."""
    from scopa_sim import api
    from scopa_sim.players import player

    a, b = player("expert:endgame=6"), player("expert")

    def difference(x, y):
        totals = api.play_deals("classic", [x, y], deals=300, seed=3).totals.astype(float)
        return totals[:, 0] - totals[:, 1]

    d = (difference(a, b) - difference(b, a)) / 2
    assert d.mean() > 3 * d.std(ddof=1) / np.sqrt(len(d))


@pytest.mark.parametrize("preset", ["classic", "escoba", "cirulla", "classic-4p"])
def test_the_endgame_expert_keeps_the_contract(preset):
    """check_player on three presets of two seats (it solves; cirulla with its declared cards on
    show) and one of four (it never does)."""
    from scopa_sim.players import player
    from scopa_sim.testing import check_player

    check_player(player("expert:endgame=6"), [variant(preset)], deals=32, seed=2024)


def test_an_endgame_out_of_range_is_refused_with_its_range():
    from scopa_sim.players import player

    with pytest.raises(RulesError, match=r"expert endgame .* runs 0\.\.12, not 13"):
        player("expert:endgame=13")
