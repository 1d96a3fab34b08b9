"""The fused engine path (engine/fused.py) plays exactly the deals of the lockstep path.

For every preset and the option sets of tests/test_agreement.py, plus deals that stop
(``scopa_wins_immediately`` with a low target) and napoleone in games, the two paths must give
identical ``DealOutcomes`` (every field) for random vs greedy, random vs random, greedy vs
greedy, each of defensive, memory and chitarrella against itself, and the three against each
other (with greedy where there are four sides), in deals mode and in games mode, and the fused
path the same for two batch sizes.
``play_from_states`` continues a lockstep deal from its state at play k to the same end; rows
too wide for the kernel's scratch are replayed to the same result; a kernel over every policy,
compiled with bounds checking, plays all of that to the same outcomes (the kernels index without
wraparound); a kernel is compiled per set of policies; the path argument dispatches and refuses
what it cannot do.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scopa_sim import api, seeding
from scopa_sim.contract import NoParams, PlayerError
from scopa_sim.engine import batch as engine
from scopa_sim.engine import decisions, fused, kernels, scoring
from scopa_sim.players import PLAYERS, MemoryPlayer, Player, player, tactics
from scopa_sim.rules import PRESETS, variant
from tests._warmup import every_policy_kernel

DEALS = 1_000  # per lineup and configuration (halved for the card-counting players)
GAMES = 100

CONFIGS = (
    [(name, {}) for name in PRESETS]
    + [
        ("classic", {"forced_capture": True}),
        ("classic", {"fewest_cards": True}),
        ("classic", {"forced_capture": True, "fewest_cards": True}),
        ("classic", {"last_play_scopa": True, "throw_in": False}),
        ("classic", {"primiera": "face_zero", "primiera_missing_suit": "zero"}),
        ("classic", {"primiera": "most_sevens"}),
        ("classic", {"re_bello": True, "napola": "sequence"}),
        ("classic", {"napola": "trentino", "primiera": "face_zero"}),
        ("classic-3p", {"forced_capture": True, "napola": "sequence", "last_play_scopa": True}),
        ("classic-4p", {"fewest_cards": True, "re_bello": True, "primiera_missing_suit": "zero"}),
        ("classic-6p", {"forced_capture": True, "primiera": "most_sevens", "napola": "trentino"}),
    ]
    + [
        ("classic", {"scopa_wins_immediately": True, "target": 2}),
        ("escoba", {"scopa_wins_immediately": True, "target": 2, "forced_capture": True}),
        ("classic", {"napoleone": True}),
    ]
)

LINEUPS = {
    "random-greedy": ("random", "greedy"),
    "random": ("random",),
    "greedy": ("greedy",),
    "defensive": ("defensive",),
    "memory": ("memory",),
    "chitarrella": ("chitarrella",),
    "mixed": ("memory", "chitarrella", "defensive", "greedy"),
}


def _id(config):
    name, options = config
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def lineup(rules, names):
    return [player(names[side % len(names)]) for side in range(rules.n_sides)]


def assert_same(a, b) -> None:
    for field in dataclasses.fields(a):
        np.testing.assert_array_equal(
            getattr(a, field.name), getattr(b, field.name), err_msg=field.name
        )


@pytest.mark.parametrize("names", LINEUPS.values(), ids=LINEUPS.keys())
@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_fused_equals_lockstep(config, names):
    name, options = config
    rules = variant(name, **options)
    players = lineup(rules, names)
    # The card-counting players cost more per deal on the lockstep path: half the deals.
    small = not set(names) <= {"random", "greedy"}
    n_deals, n_games = (DEALS // 2, GAMES // 2) if small else (DEALS, GAMES)
    deals, batch = range(1_000, 1_000 + n_deals), n_deals // 2 + 24
    fused_deals = engine.play_deals(rules, players, 7, deals, batch, path="fused")
    assert_same(fused_deals, engine.play_deals(rules, players, 7, deals, batch, path="lockstep"))
    assert_same(fused_deals, engine.play_deals(rules, players, 7, deals, n_deals, path="fused"))
    games = range(n_games)
    fused_games = engine.play_games(rules, players, 11, games, 128, path="fused")
    assert_same(fused_games, engine.play_games(rules, players, 11, games, 128, path="lockstep"))
    assert_same(fused_games, engine.play_games(rules, players, 11, games, 37, path="fused"))
    assert fused_games.final.sum() == n_games
    if rules.scopa_wins_immediately and rules.target <= 2:
        assert fused_deals.stopped.any() and fused_games.stopped.any()
    if rules.napoleone and names == ("greedy",):
        assert (fused_games.winner[fused_games.final] >= 0).all()


STATE_CASES = [
    ("classic", {}, ("random", "greedy")),
    ("classic", {"scopa_wins_immediately": True, "target": 2}, ("random", "greedy")),
    ("escoba", {"scopa_wins_immediately": True, "target": 3}, ("greedy", "random")),
    ("classic-4p", {"forced_capture": True, "fewest_cards": True}, ("random",)),
    ("scopone", {}, ("greedy", "random")),
    ("scopa-52-3p", {}, ("random", "greedy", "random")),
    ("asso-piglia-tutto", {}, ("random", "greedy")),
    ("classic", {"last_play_scopa": True}, ("memory", "chitarrella")),
    ("escoba", {"scopa_wins_immediately": True, "target": 3}, ("defensive", "random")),
    ("scopone", {}, ("chitarrella", "memory")),
    ("scopa-52-3p", {}, ("memory", "defensive", "chitarrella")),
    ("asso-piglia-tutto", {}, ("chitarrella", "random")),
]


def _lockstep_record(rules, players, rows, snapshot, scores):
    pack_key = seeding.stream_key(5, seeding.PACKS)
    game = np.arange(rows, dtype=np.int64)
    deal = np.zeros(rows, np.int64)
    packs, _ = engine.deal_packs(rules, pack_key, game, deal)
    offset = engine.seat_offsets(engine.first_dealers(rules, pack_key, game), deal, rules.n_players)
    return engine.play_batch(
        rules, players, packs, offset=offset, scores=scores,
        player_key=seeding.stream_key(5, seeding.PLAYERS), game=game, deal=deal, record=True,
        snapshot=snapshot,
    )  # fmt: skip


@pytest.mark.parametrize("case", STATE_CASES, ids=lambda c: _id(c[:2]))
def test_play_from_states_continues_a_lockstep_deal(case):
    name, options, names = case
    rules = variant(name, **options)
    players = lineup(rules, names)
    rows = 600
    rng = np.random.default_rng(3)
    scores = rng.integers(0, max(rules.target - 1, 1), (rows, rules.n_sides)).astype(np.int16)
    hand_starts = np.cumsum((0, *rules.hands)) * rules.n_players
    checked = 0
    plays = rules.plays
    for k in sorted({0, 1, 5, plays // 2, int(hand_starts[-2]), plays - 1, plays}):
        record = _lockstep_record(rules, players, rows, k, scores)
        state = record.snapshot
        assert isinstance(state, fused.DealState) and (state.play == k).all()
        # Rows still playing at play k (a stopped row's state is its state at the stop).
        if k < rules.plays:
            live = np.flatnonzero(record.steps[k].choice >= 0)
        else:
            live = np.flatnonzero(record.stopped_by < 0)
        end = fused.play_from_states(rules, players, state.take(live))
        np.testing.assert_array_equal(end.captured, record.captured[live])
        np.testing.assert_array_equal(end.scope, record.scope[live])
        np.testing.assert_array_equal(end.leftovers, record.leftovers[live])
        np.testing.assert_array_equal(end.stopped_by, record.stopped_by[live])
        checked += len(live)
    assert checked > 3 * rows
    # The state given is not changed, and the cards partition the pack.
    state = state.take(live)
    before = dataclasses.replace(state, hands=state.hands.copy())
    end = fused.play_from_states(rules, players, state)
    assert_same(before, state)
    union = np.bitwise_or.reduce(end.captured, axis=1) | end.leftovers
    assert (union == np.uint64((1 << rules.pack.n_cards) - 1)).all()


def test_rows_wider_than_the_scratch_are_replayed(monkeypatch):
    """Decision points with more legal actions than the kernel's scratch are played again with
    a larger one: the outcomes do not change (scopone's nine-card hands have the most)."""
    for name, names in (
        ("scopone", ("greedy",)),
        ("scopone-scientifico", ("random", "greedy")),
        ("scopone", ("chitarrella", "memory")),
        ("scopone-scientifico", ("defensive", "random")),
    ):
        rules = variant(name, forced_capture=False)
        players = lineup(rules, names)
        want = engine.play_deals(rules, players, 3, range(400), 400, path="fused")
        monkeypatch.setattr(fused, "_SCRATCH", 2)
        calls = []
        chosen = fused.kernel_for

        def counted_kernel_for(*args, calls=calls, chosen=chosen):
            kernel = chosen(*args)

            def counted(*args):
                calls.append(1)
                return kernel(*args)

            return counted

        monkeypatch.setattr(fused, "kernel_for", counted_kernel_for)
        assert_same(engine.play_deals(rules, players, 3, range(400), 400, path="fused"), want)
        assert len(calls) > 1  # some rows were played again
        record = _lockstep_record(rules, players, 200, 6, np.zeros((200, 2), np.int16))
        end = fused.play_from_states(rules, players, record.snapshot)
        np.testing.assert_array_equal(end.captured, record.captured)
        monkeypatch.undo()


def test_every_index_of_the_fused_kernel_is_in_bounds(monkeypatch):
    """The kernels index without wrapping negative indices (``jit.no_wraparound``), so an index
    out of bounds would read or write outside an array without a word. One kernel over every
    built-in policy, compiled with bounds checking, plays every configuration above (every
    policy; deals and games; from packs, from mid-deal states, and rows replayed with a larger
    scratch) without an IndexError and to the same outcomes as each lineup's own kernel, which
    also shows that a kernel's dispatch among its policies changes nothing."""
    unchecked = (fused.lineup_policies, fused.kernel_for)

    def use(which):
        monkeypatch.setattr(fused, "lineup_policies", which[0])
        monkeypatch.setattr(fused, "kernel_for", which[1])

    checked = every_policy_kernel(checked=True)
    for config in CONFIGS:
        rules = variant(config[0], **config[1])
        for names in (("random",), ("greedy", "random"), LINEUPS["mixed"]):
            players = lineup(rules, names)
            use(unchecked)
            want = engine.play_deals(rules, players, 5, range(120), 60, path="fused")
            games = engine.play_games(rules, players, 5, range(12), 12, path="fused")
            use(checked)
            assert_same(engine.play_deals(rules, players, 5, range(120), 60, path="fused"), want)
            assert_same(engine.play_games(rules, players, 5, range(12), 12, path="fused"), games)
    for case in STATE_CASES:
        name, options, names = case
        rules = variant(name, **options)
        players = lineup(rules, names)
        record = _lockstep_record(rules, players, 60, 5, np.zeros((60, rules.n_sides), np.int16))
        live = np.flatnonzero(record.steps[5].choice >= 0)  # not stopped before play 5
        end = fused.play_from_states(rules, players, record.snapshot.take(live))
        np.testing.assert_array_equal(end.captured, record.captured[live])
        np.testing.assert_array_equal(end.stopped_by, record.stopped_by[live])
    rules = variant("scopone", forced_capture=False)
    players = lineup(rules, ("chitarrella", "greedy"))
    use(unchecked)
    want = engine.play_deals(rules, players, 3, range(100), 100, path="fused")
    use(checked)
    monkeypatch.setattr(fused, "_SCRATCH", 2)
    assert_same(engine.play_deals(rules, players, 3, range(100), 100, path="fused"), want)


@dataclasses.dataclass(frozen=True)
class _PythonOnly(Player):
    name = "python-only"

    def act(self, obs, legal, rng):
        return np.zeros(len(legal.count), np.int64)


def test_path_dispatch():
    rules = variant("classic")
    compiled = [player("random"), player("greedy")]
    mixed = [player("random"), _PythonOnly()]
    assert engine.batch_player(compiled, "auto") is fused.play_batch
    assert engine.batch_player(compiled, "lockstep") is engine.play_batch
    assert engine.batch_player(mixed, "auto") is engine.play_batch
    with pytest.raises(ValueError, match="python-only has none"):
        engine.batch_player(mixed, "fused")
    with pytest.raises(ValueError, match="unknown engine path 'turbo'"):
        api.play_deals(rules, compiled, deals=10, seed=1, path="turbo")
    with pytest.raises(ValueError, match="compiled row policy"):
        api.play_games(rules, mixed, games=2, seed=1, path="fused")
    state = _lockstep_record(rules, compiled, 4, 3, np.zeros((4, 2), np.int16)).snapshot
    with pytest.raises(ValueError, match="compiled row policy"):
        fused.play_from_states(rules, mixed, state)
    with pytest.raises(ValueError, match="no card left"):
        fused.play_from_states(rules, compiled, dataclasses.replace(state, hands=state.hands * 0))
    # "auto" with a Python player is the lockstep path, and plays.
    assert len(api.play_deals(rules, mixed, deals=50, seed=1)) == 50
    # Objects that are not Player subclasses (no fused_policy at all) are fine on auto.
    assert not fused.fusable([object()])


def test_a_kernel_is_compiled_per_set_of_policies_whoever_sits_where():
    """``kernel_for`` is a factory over the lineup's distinct policies: one kernel (the same
    object) for one set of policies in any seating, named after them (its cache file), another
    for another set; a side's slot picks its policy among them."""
    rules = variant("classic-3p")
    one, slots_one, _ = fused.lineup_policies(rules, lineup(rules, ("random", "greedy")))
    two, slots_two, _ = fused.lineup_policies(rules, lineup(rules, ("greedy", "random")))
    assert one == two and [p.name for p in one] == ["greedy", "random"]
    assert slots_one.tolist() == [1, 0, 1] and slots_two.tolist() == [0, 1, 0]
    assert fused.kernel_for(one) is fused.kernel_for(two)
    assert fused.kernel_for(one).py_func.__qualname__.endswith("play_greedy_random")
    alone, slots, _ = fused.lineup_policies(rules, lineup(rules, ("memory",)))
    assert [p.name for p in alone] == ["memory"] and slots.tolist() == [0, 0, 0]
    assert fused.kernel_for(alone) is not fused.kernel_for(one)


def test_fused_policies_are_distinct_and_each_gets_its_sides_numbers_by_name():
    """Each registered player with a fused row policy has a policy of its own name; the kernel
    hands each policy of a lineup one bundle of its class, whose every field stacks the values
    of the sides that play it (zeros for the others' sides), so a side reads its own row by
    name; and the kernel's rank masks are those act uses."""
    policies = [p.fused_policy for p in PLAYERS.values() if p.fused_policy is not None]
    assert len({p.name for p in policies}) == len(policies) == 6
    rules = variant("scopone")
    players = [player("memory"), MemoryPlayer(scopa=2.5), player("chitarrella"), player("greedy")]
    distinct, slots, params = fused.lineup_policies(rules, players)
    assert [p.name for p in distinct] == ["chitarrella", "greedy", "memory"]
    assert slots.tolist() == [2, 2, 0, 1] and len(params) == 3
    for k, bundle in enumerate(params):
        own = [s for s in range(4) if slots[s] == k]
        assert type(bundle) is type(players[own[0]].policy_params(rules))
        for name in bundle._fields:
            stacked = getattr(bundle, name)
            assert stacked.shape[0] == 4 and stacked.flags.c_contiguous
            for side in range(4):
                want = getattr(players[side].policy_params(rules), name) if side in own else 0
                np.testing.assert_array_equal(stacked[side], want)
    assert params[2].scopa.tolist() == [1.0, 2.5, 0.0, 0.0]
    # The kernel's rank masks are the ones act hands the players (tactics.rank_masks).
    for name in PRESETS:
        rules = variant(name)
        np.testing.assert_array_equal(
            kernels.KernelRules.of(rules).rank_mask, tactics.rank_masks(rules)
        )


def test_a_policy_whose_sides_give_unlike_numbers_is_refused_naming_the_side():
    """``stacked_params`` refuses, with a PlayerError naming the side, an answer of
    ``policy_params`` that is not a NamedTuple, or whose class or field shapes differ from
    another side's of the same policy."""
    greedy = player("greedy").policy_params(variant("classic"))
    short = greedy._replace(lay_worth=greedy.lay_worth[:5])
    assert decisions.stacked_params([None, greedy, None]).lay_worth.shape == (3, 40)
    for bundles, side, message in (
        ([greedy, np.zeros(3)], 1, "returned a ndarray from policy_params, not a NamedTuple"),
        ([greedy, None, NoParams()], 2, "returned a NoParams from policy_params where another"),
        ([greedy, short], 1, r"policy_params\(\).lay_worth of shape \(5,\) where another"),
    ):
        with pytest.raises(PlayerError, match=message) as caught:
            decisions.stacked_params(bundles)
        assert caught.value.side == side


def test_seat_sides_follow_the_seats_round_the_table_from_any_offset():
    """``seat_sides`` (a table lookup) gives seat ``s`` the side ``(offset + s) % n % sides``
    for any integer offset, and with offset 0 the variant's own seating."""
    offsets = np.arange(-13, 17)
    for name in PRESETS:
        rules = variant(name)
        n, sides = rules.n_players, rules.n_sides
        got = engine.seat_sides(rules, offsets)
        assert got.dtype == np.int8 and got.shape == (len(offsets), n)
        want = (offsets[:, None] + np.arange(n)[None, :]) % n % sides
        np.testing.assert_array_equal(got, want)
        assert got[offsets == 0][0].tolist() == [rules.side_of_seat(s) for s in range(n)]


def test_strict_winner_matches_its_definition():
    """scoring.strict_winner, column by column, is argmax where the maximum is unique."""
    rng = np.random.default_rng(1)
    for sides in (1, 2, 3, 4):
        values = rng.integers(-2, 4, (20_000, sides)).astype(np.int16)
        best = values.max(axis=1, keepdims=True)
        unique = (values == best).sum(axis=1) == 1
        want = np.where(unique, values.argmax(axis=1), -1)
        np.testing.assert_array_equal(scoring.strict_winner(values), want)
