"""The search players' choices of rollout players (pimc's ``rollout=memory`` and ``rollout=mix``)
and information-set MCTS (``ismcts``): reproducible, independent of the batch, fair, and
stronger than the players they must beat. The contract on every preset (hidden cards never
read) is tests/test_players.py's conformance suite, which runs over every registered player.

Kept cheap: few samples or iterations and a few hundred duplicate deals; strength is asserted
only where the paired 95 % interval is far from zero at these sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import api, seeding
from scopa_sim.engine import batch as engine
from scopa_sim.engine import fused
from scopa_sim.players import PLAYERS, player
from scopa_sim.players.ismcts import IsmctsPlayer
from scopa_sim.players.rollouts import mixture_seats, play_rollouts, rollout_players
from scopa_sim.rules import RulesError, variant
from tests.support.decisions import decision_points


def duplicate_difference(game: str, a: str, b: str, deals: int, seed: int) -> np.ndarray:
    """Per pack: ``a``'s mean point difference over ``b`` in both seatings (duplicate play)."""
    first = api.play_deals(game, [a, b], deals=deals, seed=seed).totals.astype(float)
    second = api.play_deals(game, [b, a], deals=deals, seed=seed).totals.astype(float)
    return ((first[:, 0] - first[:, 1]) - (second[:, 0] - second[:, 1])) / 2


def interval(values: np.ndarray) -> tuple[float, float]:
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    return values.mean() - half, values.mean() + half


# pimc's rollout players ------------------------------------------------------------------------


@pytest.mark.parametrize("rollout", ["memory", "chitarrella", "mix"])
def test_pimc_rolls_out_with_the_player_it_names(rollout):
    """Another rollout player changes pimc's values, and the deals stay legal and whole."""
    spec = f"pimc:samples=4:rollout={rollout}"
    out = api.play_deals("classic", [spec, "greedy"], deals=24, seed=3)
    base = api.play_deals("classic", ["pimc:samples=4", "greedy"], deals=24, seed=3)
    assert len(out) == 24
    assert not np.array_equal(out.totals, base.totals)


def test_a_mixture_of_one_player_twice_plays_as_that_player():
    """``mix`` over greedy+greedy goes through the grouped rollouts and must give exactly the
    deals of greedy rollouts: the groups are put back in their rows."""
    mixed = api.play_deals(
        "classic", ["pimc:samples=4:rollout=mix:mixture=greedy+greedy", "greedy"], deals=32, seed=5
    )
    plain = api.play_deals("classic", ["pimc:samples=4", "greedy"], deals=32, seed=5)
    np.testing.assert_array_equal(mixed.totals, plain.totals)


def assert_same_deals_whatever_the_batch(rules, lineup, deals, seed, sizes):
    """Two runs at the first batch size and one at another give the same totals."""
    runs = [api.play_deals(rules, lineup, deals=deals, seed=seed, batch_size=s) for s in sizes]
    for other in runs[1:]:
        np.testing.assert_array_equal(runs[0].totals, other.totals)


def test_mixture_rollouts_are_reproducible_and_independent_of_the_batch():
    spec = "pimc:samples=4:rollout=mix"
    assert_same_deals_whatever_the_batch("scopone", [spec, "memory"], 12, 9, (12, 5, 12))


def test_mixture_seats_are_uniform_and_a_function_of_the_key():
    keys = np.arange(30_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    seats = mixture_seats(3, keys, 2)
    np.testing.assert_array_equal(seats, mixture_seats(3, keys, 2))
    np.testing.assert_array_equal(seats[::7], mixture_seats(3, keys[::7], 2))
    # Each of the 9 lineups about a ninth of the time (binomial standard error, 5 sigma).
    share = np.bincount(seats[:, 0] * 3 + seats[:, 1], minlength=9) / len(keys)
    assert np.abs(share - 1 / 9).max() < 5 * np.sqrt((1 / 9) * (8 / 9) / len(keys))
    assert (seats[:, 0] != seats[:, 1]).any()  # the sides are drawn apart


def test_play_rollouts_seats_the_drawn_player_on_each_side():
    """Rollouts whose lineup was drawn as (random, greedy) end exactly as the fused engine plays
    them with that lineup."""
    v = variant("classic")
    snap = lockstep_snapshot(v, rows=64, play=6)
    players = rollout_players("mix", "random+greedy")
    end = play_rollouts(v, players, snap)
    seats = mixture_seats(2, snap.deal_keys, 2)
    for lineup in ((0, 1), (1, 0), (0, 0), (1, 1)):
        rows = np.flatnonzero((seats == lineup).all(axis=1))
        assert len(rows) > 0
        alone = fused.play_from_states(v, [players[i] for i in lineup], snap.take(rows))
        np.testing.assert_array_equal(end.captured[rows], alone.captured)
        np.testing.assert_array_equal(end.scope[rows], alone.scope)


def lockstep_snapshot(v, rows: int, play: int):
    """The state of ``rows`` greedy deals just before ``play`` (``engine.play_batch``)."""
    pack_key = seeding.stream_key(5, seeding.PACKS)
    game, deal = np.arange(rows, dtype=np.int64), np.zeros(rows, np.int64)
    packs, _ = engine.deal_packs(v, pack_key, game, deal)
    offset = engine.seat_offsets(engine.first_dealers(v, pack_key, game), deal, v.n_players)
    return engine.play_batch(
        v, [PLAYERS["greedy"]] * v.n_sides, packs, offset=offset,
        scores=np.zeros((rows, v.n_sides), np.int16),
        player_key=seeding.stream_key(5, seeding.PLAYERS), game=game, deal=deal, snapshot=play,
    ).snapshot  # fmt: skip


@pytest.mark.parametrize(
    "spec",
    [
        "pimc:rollout=mix:mixture=greedy+nobody",
        "pimc:rollout=mix:mixture=",
        "pimc:rollout=mix:mixture=greedy++memory",
        "pimc:rollout=pimc",
        "ismcts:iterations=0",
        "ismcts:exploration=-1",
        "ismcts:rollout=mix:mixture=cheater",
    ],
)
def test_bad_search_parameters_are_refused(spec):
    with pytest.raises(RulesError):
        player(spec)


# ismcts ----------------------------------------------------------------------------------------


def test_ismcts_is_registered_fair_and_not_compiled():
    p = PLAYERS["ismcts"]
    assert isinstance(p, IsmctsPlayer)
    assert p.fused_policy is None and not p.sees_hidden_cards


def test_ismcts_is_reproducible_and_independent_of_the_batch():
    assert_same_deals_whatever_the_batch(
        "classic", ["ismcts:iterations=8", "greedy"], 10, 4, (10, 3, 10)
    )


def test_ismcts_beats_random_on_duplicate_deals():
    diff = duplicate_difference("classic", "ismcts:iterations=24", "random", deals=150, seed=8)
    low, _ = interval(diff)
    assert low > 0, f"ismcts over random: {diff.mean():+.2f}, interval from {low:+.2f}"


def test_ismcts_beats_random_in_scopone():
    diff = duplicate_difference("scopone", "ismcts:iterations=16", "random", deals=80, seed=8)
    low, _ = interval(diff)
    assert low > 0, f"ismcts over random in scopone: {diff.mean():+.2f}, from {low:+.2f}"


def test_search_visits_each_root_move_within_its_iterations_and_explains_finite_values():
    points = decision_points("classic", deals=12, seed=1)
    obs, legal, rng = points[3]  # a decision point past the first hand's lead
    for iterations in (3, 40):
        p = IsmctsPlayer(iterations=iterations)
        visits, mean = p.search(obs, legal, rng.subset(np.arange(len(legal.count))))
        np.testing.assert_array_equal(visits.sum(axis=1), iterations)
        tried = visits > 0
        assert np.isfinite(mean[tried]).all() and (~tried | legal.valid).all()
        if iterations >= 40:  # every root move is expanded before any is revisited
            assert tried[legal.valid].all()
        values = p.explain(obs, legal, rng.subset(np.arange(len(legal.count))))
        assert np.isfinite(values[legal.valid]).all()


def test_pimc_evaluates_a_one_row_decision_once_for_act_then_explain(monkeypatch):
    """A replay page plays a decision, then shows its values: pimc evaluates the one-row
    decision point once (``players.kept``), with the values and generator state of a fresh
    evaluation; a batch of rows is evaluated every time."""
    from scopa_sim.players import kept
    from scopa_sim.players.pimc import PimcPlayer

    obs, legal, rng = decision_points("classic", 4, 3)[4]
    row = np.array([int(np.argmax(legal.count))])
    one = obs.take(row), legal.take(row)
    pimc = PimcPlayer(samples=4)
    monkeypatch.setattr(kept, "KEPT", 0)  # nothing kept: every call evaluates
    afresh = [rng.subset(row) for _ in range(2)]
    want = pimc.act(*one, afresh[0]), pimc.explain(*one, afresh[1])
    monkeypatch.setattr(kept, "KEPT", 64)
    evaluated = []
    evaluate = PimcPlayer._evaluate
    monkeypatch.setattr(
        PimcPlayer, "_evaluate", lambda self, *a: evaluated.append(1) or evaluate(self, *a)
    )
    again = [rng.subset(row) for _ in range(2)]
    got = pimc.act(*one, again[0]), pimc.explain(*one, again[1])
    assert len(evaluated) == 1
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert [r.state() for r in again] == [r.state() for r in afresh]
    both = np.arange(2)
    for _ in range(2):
        pimc.act(obs.take(both), legal.take(both), rng.subset(both))
    assert len(evaluated) == 3


def test_pimc_values_do_not_depend_on_how_the_rollouts_are_cut_into_engine_calls(monkeypatch):
    """pimc hands the rollouts of whole rows to the engine in calls of at most
    ``_ROLLOUTS_PER_CALL``: a cap of one row per call (and one that cuts between rows of unlike
    sizes) gives the values of one call for the batch, each in its row and slot."""
    from scopa_sim.players import pimc as pimc_module
    from scopa_sim.players.pimc import PimcPlayer

    obs, legal, rng = decision_points("classic", 12, 8)[0]
    rows = np.arange(len(legal.count))
    assert len(set(legal.count.tolist())) > 1  # rows of unlike sizes
    pimc = PimcPlayer(samples=3)
    whole = pimc.explain(obs, legal, rng.subset(rows))
    for cap in (1, 7):
        monkeypatch.setattr(pimc_module, "_ROLLOUTS_PER_CALL", cap)
        np.testing.assert_array_equal(pimc.explain(obs, legal, rng.subset(rows)), whole)
    assert np.isfinite(whole[legal.valid]).all() and np.isneginf(whole[~legal.valid]).all()


def test_pimc_slices_cover_the_rows_in_order_within_the_cap():
    from scopa_sim.players.pimc import _ranks_within, _slices

    sizes = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    for cap in (1, 4, 5, 9, 10, 100):
        parts = list(_slices(sizes, cap))
        np.testing.assert_array_equal(np.concatenate(parts), np.arange(len(sizes)))
        for part in parts:  # as many whole rows as fit, at least one
            assert len(part) == 1 or sizes[part].sum() <= cap
            nxt = part[-1] + 1
            assert nxt == len(sizes) or sizes[part].sum() + sizes[nxt] > cap
    np.testing.assert_array_equal(_ranks_within(np.array([2, 0, 3])), [0, 1, 0, 1, 2])
