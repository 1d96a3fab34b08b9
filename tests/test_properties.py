"""Property tests: the facts every deal and game must satisfy (RULES.md §4-§6 and §8).

For every preset and a spread of option sets (together they switch every option of
``scopa_sim.rules.OPTIONS``), over seeds drawn by hypothesis, deals and games are played by the
vectorised engine through the public API and by the reference engine on random packs with a
random chooser, and the outcomes are checked against invariants that hold whatever the players do.

What the data lets us check about conservation of the pack: ``DealOutcomes.captured`` holds each
side's cards with the last capturer's leftovers included, but not the leftovers of a deal in which
nobody captured. Such a deal cannot happen with these presets: a card laid on the table never
shares a rank with a table card (it would have to capture), so without any capture the table
holds at most 4 + 10 cards, fewer than the 40 that would have been laid. So for the batch engine
we require that the sides' masks are disjoint and cover exactly the 40 cards. The reference
engine reports the leftovers, and there we check the general statement: captured sets plus
leftovers partition the pack, and leftovers are non-empty only if nobody captured.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scopa_sim import api
from scopa_sim.cards import cards_of, mask_of
from scopa_sim.engine import reference
from scopa_sim.players import PLAYERS
from scopa_sim.rules import (
    CATEGORIES,
    OPTIONS,
    PRESETS,
    MissingSuit,
    Napola,
    PrimieraRule,
    variant,
)

CAT = {name: i for i, name in enumerate(CATEGORIES)}

#: Option sets used with every preset; together they switch every option at least once.
OPTION_SETS: dict[str, dict[str, object]] = {
    "default": {},
    "forced-target-1": {"forced_capture": True, "target": 1},  # ties at the target play on
    "fewest-no-throw-in": {"fewest_cards": True, "throw_in": False},
    "face-zero-re-bello": {"primiera": "face_zero", "re_bello": True, "target": 16},
    "sevens-napola-last-scopa": {
        "primiera": "most_sevens",
        "napola": "sequence",
        "last_play_scopa": True,
    },
    "missing-zero-trentino": {
        "primiera_missing_suit": "zero",
        "napola": "trentino",
        "forced_capture": True,
        "fewest_cards": True,
        "target": 21,
    },
}

CASES = [
    pytest.param(name, opts, id=f"{name}-{label}")
    for name in PRESETS
    for label, opts in OPTION_SETS.items()
]

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
PROPERTY_SETTINGS = settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def test_option_sets_cover_every_option():
    used = set().union(*(opts for opts in OPTION_SETS.values()))
    assert used == set(OPTIONS)
    for name in PRESETS:
        for opts in OPTION_SETS.values():
            variant(name, **opts)  # every combination is a valid variant


# Checks shared by both engines ---------------------------------------------------------------


def popcount(masks: np.ndarray, within: int | None = None) -> np.ndarray:
    masks = np.asarray(masks, np.uint64)
    if within is not None:
        masks = masks & np.uint64(within)
    return np.bitwise_count(masks).astype(np.int64)


def has_card(masks: np.ndarray, card: int) -> np.ndarray:
    return (np.asarray(masks, np.uint64) >> np.uint64(card)) & np.uint64(1) == 1


def strict_best(values: np.ndarray) -> np.ndarray:
    """Per row, one-hot of the strictly greatest column (all False on a tie for the most)."""
    best = values.max(axis=1, keepdims=True)
    unique = (values == best).sum(axis=1, keepdims=True) == 1
    return (values == best) & unique


def check_deals(v, captured, scope, points, leftovers=None) -> None:
    """Invariants of scored deals: ``captured`` uint64[D, S] (leftovers to the last capturer
    included), ``scope`` int[D, S], ``points`` int[D, S, C]; ``leftovers`` uint64[D] if known."""
    captured = np.asarray(captured, np.uint64)
    points = np.asarray(points, np.int64)
    scope = np.asarray(scope, np.int64)
    d, s = captured.shape
    assert points.shape == (d, s, len(CATEGORIES))
    pack = v.pack
    full = np.uint64(pack.full_mask)

    # Conservation of the pack: the sides' cards are disjoint ...
    for i in range(s):
        for j in range(i + 1, s):
            assert not (captured[:, i] & captured[:, j]).any(), "two sides hold the same card"
    union = np.bitwise_or.reduce(captured, axis=1)
    if leftovers is None:
        # ... and, since a deal without any capture is impossible (module docstring), cover all.
        assert (union == full).all(), "the sides' captured cards do not cover the pack"
    else:
        leftovers = np.asarray(leftovers, np.uint64)
        assert not (union & leftovers).any()
        assert ((union | leftovers) == full).all(), "captured + leftovers is not the pack"
        assert ((leftovers == 0) | (union == 0)).all(), "leftovers although someone captured"

    assert (points >= 0).all() and (scope >= 0).all()
    n_cards = popcount(captured)
    n_coins = popcount(captured, pack.suit_mask(0))

    # Cards, coins, primiera: at most one side, and only with the strict most.
    for cat in ("cards", "coins", "primiera"):
        col = points[:, :, CAT[cat]]
        assert np.isin(col, (0, 1)).all(), cat
        assert (col.sum(axis=1) <= 1).all(), f"{cat} point awarded to more than one side"
    np.testing.assert_array_equal(points[:, :, CAT["cards"]] == 1, strict_best(n_cards))
    np.testing.assert_array_equal(points[:, :, CAT["coins"]] == 1, strict_best(n_coins))
    if s == 2:  # more than 20 of 40 in a two-sided game
        np.testing.assert_array_equal(points[:, :, CAT["cards"]] == 1, n_cards > 20)
    standard = v.primiera in (PrimieraRule.STANDARD, PrimieraRule.FACE_ZERO)
    if standard and v.primiera_missing_suit is MissingSuit.VOID:
        # The primiera winner holds a card of every suit.
        suits = np.stack([popcount(captured, pack.suit_mask(k)) > 0 for k in range(4)])
        winner = points[:, :, CAT["primiera"]] == 1
        assert suits.all(axis=0)[winner].all(), "primiera won by a side missing a suit"

    # Settebello: to the side holding it, so exactly one side whenever the pack is captured.
    sette = points[:, :, CAT["settebello"]]
    np.testing.assert_array_equal(sette == 1, has_card(captured, v.settebello))
    assert (sette.sum(axis=1) == has_card(union, v.settebello)).all()
    if leftovers is None:
        assert (sette.sum(axis=1) == 1).all(), "settebello not awarded to exactly one side"

    np.testing.assert_array_equal(points[:, :, CAT["scope"]], scope)

    rebello = points[:, :, CAT["re_bello"]]
    if v.re_bello:
        np.testing.assert_array_equal(rebello == 1, has_card(captured, v.king_of_coins))
        assert np.isin(rebello, (0, 1)).all()
    else:
        assert not rebello.any()

    napola = points[:, :, CAT["napola"]]
    ace_two_three = popcount(captured, 0b111) == 3
    if v.napola is Napola.OFF:
        assert not napola.any()
    else:
        np.testing.assert_array_equal(napola > 0, ace_two_three)
        assert ((napola == 0) | (napola >= 3)).all() and (napola <= 10).all()
        if v.napola is Napola.TRENTINO:
            np.testing.assert_array_equal(napola, np.where(ace_two_three, n_coins, 0))

    # Points per side are the sum of the categories; a deal without scope awards at most 4 points
    # in cards, coins, settebello and primiera (plus re bello and napola when switched on).
    basic = points[:, :, [CAT[c] for c in ("cards", "coins", "settebello", "primiera")]]
    assert (basic.sum(axis=(1, 2)) <= 4).all()
    no_scope = scope.sum(axis=1) == 0
    bound = 4 + int(v.re_bello) + (10 if v.napola is not Napola.OFF else 0)
    assert (points.sum(axis=(1, 2))[no_scope] <= bound).all()
    if not v.re_bello and v.napola is Napola.OFF:
        assert (points.sum(axis=(1, 2))[no_scope] <= 4).all()


def check_against_reference_scoring(v, captured, scope, points, rows) -> None:
    """The scored points agree with the reference engine's scoring of the same cards."""
    for row in rows:
        sets = [set(cards_of(m)) for m in captured[row]]
        expected = reference.score_deal(v, sets, [int(x) for x in scope[row]])
        got = [{c: int(points[row, side, i]) for i, c in enumerate(CATEGORIES)} for side in
               range(len(sets))]  # fmt: skip
        assert got == expected, f"row {row}: {got} != reference {expected}"


def check_outcome_columns(v, out) -> None:
    """Columns derived from ``captured`` and ``points`` in a ``DealOutcomes`` are consistent."""
    np.testing.assert_array_equal(out.cards, popcount(out.captured))
    np.testing.assert_array_equal(out.coins, popcount(out.captured, v.pack.suit_mask(0)))
    np.testing.assert_array_equal(out.settebello, has_card(out.captured, v.settebello))
    np.testing.assert_array_equal(out.totals, out.points.sum(axis=2))
    assert (out.redeals >= 0).all()
    if not v.throw_in:
        assert not out.redeals.any()
    frame = out.to_frame()
    assert frame.height == len(out) * out.n_sides
    by_category = sum(frame[f"pt_{c}"].to_numpy().astype(np.int64) for c in CATEGORIES)
    np.testing.assert_array_equal(by_category, frame["points"].to_numpy())
    np.testing.assert_array_equal(frame["points"].to_numpy(), out.totals.ravel())


# The vectorised engine through the API --------------------------------------------------------


def players_for(v):
    return st.lists(st.sampled_from(sorted(PLAYERS)), min_size=v.n_sides, max_size=v.n_sides)


@pytest.mark.parametrize(("name", "opts"), CASES)
@PROPERTY_SETTINGS
@given(seed=SEEDS, data=st.data())
def test_deals_properties(name, opts, seed, data):
    v = variant(name, **opts)
    names = data.draw(players_for(v), label="players")
    out = api.play_deals(v, names, deals=300, seed=seed)
    assert len(out) == 300
    np.testing.assert_array_equal(out.game, np.arange(300))
    assert not out.deal.any() and not out.final.any() and (out.winner == -1).all()
    np.testing.assert_array_equal(out.score, out.totals)  # independent deals: no game score
    # Deal i is led by player i % n; its dealer is the player before, on that player's side.
    n = v.n_players
    np.testing.assert_array_equal(out.dealer_side, (out.game + n - 1) % n % v.n_sides)
    check_deals(v, out.captured, out.scope, out.points)
    check_outcome_columns(v, out)
    check_against_reference_scoring(v, out.captured, out.scope, out.points, range(60))


@pytest.mark.parametrize(("name", "opts"), CASES)
@PROPERTY_SETTINGS
@given(seed=SEEDS, data=st.data())
def test_games_properties(name, opts, seed, data):
    v = variant(name, **opts)
    names = data.draw(players_for(v), label="players")
    n_games = 40
    out = api.play_games(v, names, games=n_games, seed=seed)
    check_deals(v, out.captured, out.scope, out.points)
    check_outcome_columns(v, out)

    # Ordered by (game, deal); every game is played to its end.
    order = np.lexsort((out.deal, out.game))
    np.testing.assert_array_equal(order, np.arange(len(out)))
    np.testing.assert_array_equal(np.unique(out.game), np.arange(n_games))
    for g in range(n_games):
        rows = np.flatnonzero(out.game == g)
        np.testing.assert_array_equal(out.deal[rows], np.arange(len(rows)))
        # Scores are the running sums of the deal points.
        np.testing.assert_array_equal(out.score[rows], np.cumsum(out.totals[rows], axis=0))
        # The game ends exactly when game_winner says so, and its winner is unique.
        for k, row in enumerate(rows):
            w = reference.game_winner([int(x) for x in out.score[row]], v.target)
            last = k == len(rows) - 1
            assert (w is not None) == last, f"game {g} deal {k}: winner {w}, last deal {last}"
            assert bool(out.final[row]) == last
            assert out.winner[row] == (-1 if w is None else w)
        assert (out.winner[rows] >= 0).sum() == 1
        final_score = out.score[rows[-1]]
        assert final_score.max() >= v.target
        assert (final_score == final_score.max()).sum() == 1
        # The deal passes to the right: the dealer's side advances by one each deal.
        dealer = out.dealer_side[rows].astype(np.int64)
        np.testing.assert_array_equal(dealer[1:], (dealer[:-1] + 1) % v.n_sides)


def test_game_winner():
    assert reference.game_winner([11, 4], 11) == 0
    assert reference.game_winner([10, 4], 11) is None
    assert reference.game_winner([12, 12], 11) is None  # tied past the target: play on
    assert reference.game_winner([12, 13, 3], 11) == 1
    assert reference.game_winner([3, 13, 13], 11) is None


# The reference engine on random packs ---------------------------------------------------------


def random_chooser(rng: random.Random):
    def choose(view, legal):
        return rng.choice(legal)

    return choose


@pytest.mark.parametrize(("name", "opts"), CASES)
@PROPERTY_SETTINGS
@given(seed=SEEDS)
def test_reference_deal_properties(name, opts, seed):
    v = variant(name, **opts)
    rng = random.Random(seed)
    choose = random_chooser(rng)
    all_cards = list(range(v.pack.n_cards))
    captured, scope, points, leftovers = [], [], [], []
    for _ in range(25):
        pack = rng.sample(all_cards, len(all_cards))
        result = reference.play_deal(v, pack, choose)
        kings = sum(v.pack.rank(c) == 10 for c in pack[:4])
        assert result.throw_in == (v.throw_in and kings >= 3)
        if result.throw_in:
            assert not result.moves
            continue
        # Every hand card is played once, seat 0 first, in turn order.
        assert len(result.moves) == v.plays
        assert [m.seat for m in result.moves] == [k % v.n_players for k in range(v.plays)]
        assert sorted(m.card for m in result.moves) == sorted(pack[4:])
        # Scope counted from the moves; a sweep on the last play only with last_play_scopa.
        per_side = [0] * v.n_sides
        for m in result.moves:
            assert not m.scopa or m.captured, "a scopa without a capture"
            per_side[v.side_of_seat(m.seat)] += m.scopa
        assert per_side == result.scope
        if not v.last_play_scopa:
            assert not result.moves[-1].scopa
        assert result.totals == [sum(p.values()) for p in result.points]
        captured.append([mask_of(c) for c in result.captured])
        scope.append(result.scope)
        points.append([[p[c] for c in CATEGORIES] for p in result.points])
        leftovers.append(mask_of(result.leftovers))
    if captured:
        check_deals(
            v,
            np.array(captured, np.uint64),
            np.array(scope),
            np.array(points),
            np.array(leftovers, np.uint64),
        )


def test_throw_in_pack():
    """Three kings among the four table cards: the deal is thrown in (unless switched off)."""
    kings = [9, 19, 29]
    rest = [c for c in range(40) if c not in kings]
    pack = [*kings, *rest]
    for name in PRESETS:
        v = variant(name)
        assert reference.play_deal(v, pack, random_chooser(random.Random(0))).throw_in
        players = ["random"] * v.n_sides
        assert api.play_packs(v, players, [pack])[0].throw_in
        off = variant(name, throw_in=False)
        assert not reference.play_deal(off, pack, random_chooser(random.Random(0))).throw_in
        assert not api.play_packs(off, players, [pack])[0].throw_in


# The two engines on the same moves -------------------------------------------------------------


def replay(v, record):
    """Replay a move log through the reference engine, checking each move is legal there."""
    moves = iter(record.moves)

    def choose(view, legal):
        move = next(moves)
        assert move.seat == view.seat
        action = (move.card, frozenset(move.captured))
        assert action in legal, f"play {view.play}: {action} is not legal for the reference"
        return action

    return reference.play_deal(v, record.pack, choose)


@pytest.mark.parametrize(("name", "opts"), CASES)
@PROPERTY_SETTINGS
@given(seed=SEEDS, data=st.data())
def test_batch_move_logs_replay_in_reference(name, opts, seed, data):
    """Every move the vectorised engine offers and plays is legal for the reference engine, and
    replaying the log there gives the same captures, scope, leftovers and points."""
    v = variant(name, **opts)
    names = data.draw(players_for(v), label="players")
    rng = random.Random(seed)
    packs = [rng.sample(range(40), 40) for _ in range(20)]
    for record in api.play_packs(v, names, packs, seed=seed):
        if record.throw_in:
            continue
        expected = replay(v, record)
        assert [s.captured for s in record.sides] == [sorted(c) for c in expected.captured]
        assert [s.points for s in record.sides] == expected.points
        assert sorted(record.leftovers) == sorted(expected.leftovers)
        assert [m.scopa for m in record.moves] == [m.scopa for m in expected.moves]
