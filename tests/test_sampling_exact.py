"""Determinisations (``scopa_sim.players.sampling``): the deals a search player imagines are
exactly the deals consistent with what its seat has seen, each one equally likely.

pimc, ismcts and the position analysis reason only over the deals ``determinise`` draws, so a
biased shuffle, a hand one card short or the hands to come laid one position off skew every
answer built on them while the contract tests (legal moves, hidden cards never read) still pass.
The sampler is held here to references written in plain Python from docs/rules.md alone, never
from the code under test:

* the shape of a deal (``rules.schedule``): the cards each seat holds before each play and where
  each hand starts in the pack, derived by dealing and playing the turn order through (§2, §7);
* consistency, on random positions at every play of every preset: every sampled deal keeps the
  seat's own hand, gives each other seat as many cards as it holds, deals only unseen cards to the
  other hands and to the hands to come, lays those at their pack positions, and is a whole pack;
* uniformity, on small positions whose every consistent deal is enumerated with itertools: the
  frequencies of many samples (fresh rows; many samples of one row, which share the shuffled
  pool; and ``PimcPlayer._deals`` with a real ``DecisionRandom``) against the uniform distribution
  over all of them, and successive samples of one row against independence. Chi-square tests at
  alpha = 1e-4 with fixed seeds, about 40 expected draws per cell.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from scopa_sim import seeding
from scopa_sim.cards import cards_of, mask_of
from scopa_sim.contract import Observation
from scopa_sim.players.pimc import PimcPlayer
from scopa_sim.players.sampling import determinise
from scopa_sim.rules import PRESETS, variant
from scopa_sim.rules.schedule import schedule

ALPHA = 1e-4
#: Expected draws per cell of a chi-square test (the test's approximation wants 5 or more).
PER_CELL = 40

#: docs/rules.md §7: players, table cards, cards per hand in each hand of the deal, pack size.
SHAPES = {
    "classic": (2, 4, (3,) * 6, 40),
    "classic-3p": (3, 4, (3,) * 4, 40),
    "classic-4p": (4, 4, (3,) * 3, 40),
    "classic-6p": (6, 4, (3,) * 2, 40),
    "scopone": (4, 4, (9,), 40),
    "scopone-scientifico": (4, 0, (10,), 40),
    "escoba": (2, 4, (3,) * 6, 40),
    "asso-piglia-tutto": (2, 4, (3,) * 6, 40),
    "scopa-52": (2, 4, (3,) * 8, 52),
    "scopa-52-3p": (3, 4, (3, 3, 3, 3, 4), 52),
    "scopa-52-4p": (4, 4, (3,) * 4, 52),
    "cirulla": (2, 4, (3,) * 6, 40),
    "cirulla-3p": (3, 4, (3,) * 4, 40),
    "cirulla-4p": (4, 4, (3,) * 3, 40),
}


# References, from the rules ------------------------------------------------------------------


def reference_layout(name: str) -> tuple[list[int], list[tuple[int, ...]], list[int]]:
    """The round of each play, each seat's cards in hand just before it, and the pack position
    where each round's hands start, by dealing and playing through (docs/rules.md §2): the table
    cards first, then per hand one block per seat in turn order; seat 0 plays first, each seat
    plays one card per turn until the hands are empty, then the next hand is dealt."""
    n, table, hands, cards = SHAPES[name]
    rounds, held, starts = [], [], []
    dealt = table
    for r, size in enumerate(hands):
        starts.append(dealt)
        dealt += n * size
        in_hand = [size] * n
        for _turn in range(size):
            for seat in range(n):
                rounds.append(r)
                held.append(tuple(in_hand))
                in_hand[seat] -= 1
        assert in_hand == [0] * n
    assert dealt == cards
    return rounds, held, starts


def hidden_groups(name: str, play: int) -> list[tuple[str, int, int, int]]:
    """What the acting seat cannot see, in a fixed order: each other seat's current hand
    ``("hand", seat, size, -1)``, then each hand still to come ``("pack", seat, size, start)``
    (its cards at pack positions ``start .. start + size - 1``)."""
    n, _, hands, _ = SHAPES[name]
    rounds, held, starts = reference_layout(name)
    seat, r0 = play % n, rounds[play]
    out = [("hand", t, held[play][t], -1) for t in range(n) if t != seat]
    for r in range(r0 + 1, len(hands)):
        out += [("pack", t, hands[r], starts[r] + t * hands[r]) for t in range(n)]
    return out


def every_deal(unseen: list[int], sizes: list[int]):
    """Every way to deal the cards ``unseen`` into groups of ``sizes`` (in order): masks."""
    if not sizes:
        yield ()
        return
    for first in itertools.combinations(unseen, sizes[0]):
        rest = [c for c in unseen if c not in first]
        for tail in every_deal(rest, sizes[1:]):
            yield (mask_of(first), *tail)


def drawn_groups(groups, hands: np.ndarray, pack: np.ndarray) -> np.ndarray:
    """The drawn deals as rows of group masks, in the order of :func:`hidden_groups`."""
    columns = []
    for kind, seat, size, start in groups:
        if kind == "hand":
            columns.append(hands[:, seat].astype(np.uint64))
        else:
            block = pack[:, start : start + size].astype(np.uint64)
            columns.append(np.bitwise_or.reduce(np.uint64(1) << block, axis=1))
    return np.stack(columns, axis=1)


# Positions -----------------------------------------------------------------------------------


def random_observation(name: str, play: int, rows: int, seed: int) -> Observation:
    """``rows`` random positions of preset ``name`` at ``play``: the acting seat's hand of the
    size the rules give, and the ``table_cards + play`` cards laid so far split at random
    between the table and out of play (captured by some side, and some of them marked played).
    The search players only use which cards are where, so any such split is a position."""
    v = variant(name)
    n, table_cards, _, n_cards = SHAPES[name]
    _, held, _ = reference_layout(name)
    seat = play % n
    rng = np.random.default_rng(seed)
    hand, table, captured, played = [], [], [], []
    for _ in range(rows):
        cards = rng.permutation(n_cards)
        mine = cards[: held[play][seat]]
        laid = cards[len(mine) : len(mine) + table_cards + play]
        on_table = rng.integers(0, min(len(laid), 5) + 1)
        taken = laid[on_table:]
        side = rng.integers(0, v.n_sides, size=len(taken))
        marked = rng.random(len(laid)) < 0.5
        hand.append(mask_of(mine))
        table.append(mask_of(laid[:on_table]))
        captured.append([mask_of(taken[side == s]) for s in range(v.n_sides)])
        played.append(mask_of(laid[marked]))
    return Observation(
        variant=v,
        hand=np.array(hand, np.uint64),
        table=np.array(table, np.uint64),
        captured=np.array(captured, np.uint64).reshape(rows, v.n_sides),
        played=np.array(played, np.uint64),
        scores=np.zeros((rows, v.n_sides), np.int16),
        seat=seat,
        side=np.full(rows, seat % v.n_sides, np.int8),
        dealer_side=np.full(rows, (n - 1) % v.n_sides, np.int8),
        play=play,
        scope=np.zeros((rows, v.n_sides), np.int16),
        last_capturer=np.full(rows, -1, np.int8),
    )


def unseen_of(obs: Observation, b: int) -> int:
    """Row ``b``'s cards its seat has not seen: not in its hand, on the table, captured or
    played (docs/rules.md: every other card is face down)."""
    seen = int(obs.hand[b]) | int(obs.table[b]) | int(obs.played[b])
    for m in obs.captured[b]:
        seen |= int(m)
    return mask_of(range(obs.variant.pack.n_cards)) & ~seen


def assert_consistent(obs: Observation, hands: np.ndarray, pack: np.ndarray, samples: int):
    """Every sampled deal (sample ``k`` of row ``k // samples``) is one the seat could be in."""
    name = obs.variant.name
    n, _, _, n_cards = SHAPES[name]
    rounds, held, starts = reference_layout(name)
    r0 = rounds[obs.play]
    future = starts[r0 + 1] if r0 + 1 < len(starts) else n_cards
    where = f"{name} play {obs.play}"
    assert hands.shape == (len(obs.hand) * samples, n), where
    assert pack.shape == (len(obs.hand) * samples, n_cards), where
    for k in range(len(hands)):
        b = k // samples
        unseen = unseen_of(obs, b)
        assert int(hands[k, obs.seat]) == int(obs.hand[b]), f"{where}: own hand not kept"
        dealt = 0
        for t in range(n):
            if t == obs.seat:
                continue
            h = int(hands[k, t])
            assert h.bit_count() == held[obs.play][t], f"{where}: seat {t} holds {h.bit_count()}"
            assert h & ~unseen == 0, f"{where}: a card seat {obs.seat} has seen in seat {t}'s hand"
            assert h & dealt == 0, f"{where}: a card in two hands"
            dealt |= h
        assert sorted(pack[k].tolist()) == list(range(n_cards)), f"{where}: not a whole pack"
        to_come = mask_of(pack[k, future:])
        assert to_come == unseen & ~dealt, f"{where}: the hands to come are not the rest unseen"
        # So the positions dealt already hold what was seen and the other seats' hands.
        assert mask_of(pack[k, :future]) == (mask_of(range(n_cards)) & ~unseen) | dealt, where


def pimc_deals(obs: Observation, samples: int, seed: int):
    """``PimcPlayer._deals`` on ``obs`` with the player's own random numbers (one
    ``DecisionRandom`` row per observation row, as the engine hands them)."""
    rows = np.arange(len(obs.hand), dtype=np.int64)
    key = seeding.stream_key(seed, seeding.PLAYERS)
    rng = seeding.DecisionRandom(seeding.deal_keys(key, rows, np.zeros_like(rows)), obs.play)
    hidden = PimcPlayer(samples=samples)._deals(obs, rng)
    return hidden.hands, hidden.pack


# The shape of the deal -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_schedule_is_the_deal_played_through(name):
    """``rules.schedule`` gives, for every preset, each play's round and each seat's cards in
    hand just before it, each round's first pack position, the hands dealt before a play (where
    and how many) and the cards of the next play's player, as dealing and playing the turn order
    through gives them; the preset has the shape docs/rules.md §7 states."""
    v = variant(name)
    _, table_cards, _, n_cards = SHAPES[name]
    assert (v.n_players, v.table_cards, tuple(v.hands), v.pack.n_cards) == SHAPES[name]
    rounds, held, starts = reference_layout(name)
    assert v.plays == len(rounds) == n_cards - table_cards
    plan = schedule(v)
    assert plan.round_of.tolist() == rounds
    assert [tuple(row) for row in plan.in_hand.tolist()] == held
    assert plan.round_start.tolist() == starts
    n = v.n_players
    first = [p == 0 or rounds[p] != rounds[p - 1] for p in range(v.plays)]
    assert plan.hand_at.tolist() == [starts[rounds[p]] if first[p] else -1 for p in range(v.plays)]
    sizes = [v.hands[rounds[p]] if first[p] else 0 for p in range(v.plays)]
    assert plan.hand_size.tolist() == sizes
    following = [held[p + 1][(p + 1) % n] for p in range(v.plays - 1)]
    assert plan.next_cards.tolist() == [*following, 0]


# Consistency ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_sampled_deal_is_consistent_at_every_play(name):
    """At every play of the preset, on three different positions (rows) and three samples each:
    the seat's hand kept, each other seat dealt the cards it holds and only unseen ones, the
    rest of the unseen cards exactly in the hands to come at their pack positions, the pack
    whole."""
    v = variant(name)
    rng = np.random.default_rng(17)
    for play in range(v.plays):
        obs = random_observation(name, play, rows=3, seed=1000 + play)
        uniforms = rng.random((3, 3, v.pack.n_cards))
        hands, pack = determinise(obs, uniforms)
        assert_consistent(obs, hands, pack, samples=3)


@pytest.mark.parametrize(("name", "play"), [("classic", 23), ("scopa-52-3p", 34), ("scopone", 5)])
def test_pimc_samples_are_consistent(name, play):
    """The deals pimc draws for itself (``_deals``, several rows of different positions) are
    consistent deals of each row, ``samples`` of them per row in row order."""
    obs = random_observation(name, play, rows=4, seed=play)
    hands, pack = pimc_deals(obs, samples=5, seed=3)
    assert_consistent(obs, hands, pack, samples=5)


# Uniformity ----------------------------------------------------------------------------------

#: (preset, play, cells): the number of consistent deals, from the multinomial coefficient.
#: classic 31: last hand, only the opponent's two cards hidden (one deal); classic 28: the
#: opponent's last card and the whole last hand to come; classic-3p 28 and classic-4p 29: two
#: and three hidden hands in the last hand; scopone 28: everything dealt at the start, three
#: hidden hands of two.
POSITIONS = [
    ("classic", 31, 1),
    ("classic", 28, math.factorial(7) // (math.factorial(3) ** 2)),
    ("classic-3p", 28, math.comb(5, 2)),
    ("classic-4p", 29, math.factorial(5) // 4),
    ("scopone", 28, math.factorial(6) // 8),
]


def enumerated(name: str, play: int, obs: Observation) -> tuple[list, dict]:
    """The hidden groups and every consistent deal of row 0, each with its cell index."""
    groups = hidden_groups(name, play)
    unseen = cards_of(unseen_of(obs, 0))
    sizes = [size for _, _, size, _ in groups]
    assert sum(sizes) == len(unseen)
    deals = list(every_deal(unseen, sizes))
    assert len(set(deals)) == len(deals)
    return groups, {deal: i for i, deal in enumerate(deals)}


def cell_counts(groups, cells: dict, hands, pack) -> np.ndarray:
    """How often each consistent deal was drawn; fails on a drawn deal that is none of them."""
    rows = drawn_groups(groups, hands, pack)
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    index = []
    for row in unique:
        deal = tuple(int(x) for x in row)
        assert deal in cells, f"drawn deal {deal} is not consistent with what the seat saw"
        index.append(cells[deal])
    counts = np.zeros(len(cells), np.int64)
    np.add.at(counts, np.asarray(index)[inverse.reshape(-1)], 1)
    return counts


def assert_uniform(counts: np.ndarray, what: str):
    if len(counts) == 1:
        return  # one consistent deal: cell_counts already checked every draw is it
    p = chisquare(counts).pvalue
    assert p > ALPHA, f"{what}: {len(counts)} deals not drawn uniformly (chi-square p = {p:.2g})"


def draws_for(cells: int) -> int:
    return max(PER_CELL * cells, 200)


@pytest.mark.parametrize(("name", "play", "cells"), POSITIONS)
def test_fresh_rows_draw_every_consistent_deal_equally_often(name, play, cells):
    """One sample in each of many rows of one position (as the position analysis and ismcts
    draw them): every consistent deal (enumerated) equally likely, no other deal drawn."""
    obs = random_observation(name, play, rows=1, seed=7)
    groups, deals = enumerated(name, play, obs)
    assert len(deals) == cells
    n = draws_for(cells)
    uniforms = np.random.default_rng(11).random((n, 1, obs.variant.pack.n_cards))
    hands, pack = determinise(obs.take(np.zeros(n, np.int64)), uniforms)
    assert_uniform(cell_counts(groups, deals, hands, pack), f"{name} play {play}, fresh rows")


@pytest.mark.parametrize(("name", "play", "cells"), POSITIONS)
def test_many_samples_of_one_row_draw_every_consistent_deal_equally_often(name, play, cells):
    """Many samples of one row (the samples share the shuffled pool): every consistent deal
    equally likely, no other deal drawn."""
    obs = random_observation(name, play, rows=1, seed=7)
    groups, deals = enumerated(name, play, obs)
    n = draws_for(cells)
    uniforms = np.random.default_rng(12).random((1, n, obs.variant.pack.n_cards))
    hands, pack = determinise(obs, uniforms)
    assert_uniform(cell_counts(groups, deals, hands, pack), f"{name} play {play}, one row")


@pytest.mark.parametrize(("name", "play", "cells"), POSITIONS)
def test_pimc_draws_every_consistent_deal_equally_often(name, play, cells):
    """Through pimc's own path (``_deals``: its uniforms laid out from a ``DecisionRandom``,
    8 samples in each of many rows): every consistent deal equally likely."""
    obs = random_observation(name, play, rows=1, seed=7)
    groups, deals = enumerated(name, play, obs)
    rows = -(-draws_for(cells) // 8)
    hands, pack = pimc_deals(obs.take(np.zeros(rows, np.int64)), samples=8, seed=5)
    assert hands.shape[0] == rows * 8
    assert_uniform(cell_counts(groups, deals, hands, pack), f"{name} play {play}, pimc")


#: scopone, seat 2 before play 30: seats 0 and 1 hold one card each, seat 3 two (12 deals).
PAIR_POSITION = ("scopone", 30, 12)


def assert_pairs_independent(counts_first, counts_second, cells, what):
    pairs = counts_first * cells + counts_second
    table = np.bincount(pairs, minlength=cells * cells)
    p = chisquare(table).pvalue
    assert p > ALPHA, f"{what}: successive samples not independent (chi-square p = {p:.2g})"


def cell_index(groups, deals, hands, pack) -> np.ndarray:
    rows = drawn_groups(groups, hands, pack)
    return np.array([deals[tuple(int(x) for x in row)] for row in rows])


def test_successive_samples_of_one_row_are_independent():
    """Samples of one row reuse the shuffled pool of the previous one; a shuffle that is
    uniform only from the sorted start (or samples that reuse uniforms) makes sample ``2i + 1``
    depend on sample ``2i``. The pairs must be uniform over all pairs of consistent deals."""
    name, play, cells = PAIR_POSITION
    obs = random_observation(name, play, rows=1, seed=8)
    groups, deals = enumerated(name, play, obs)
    assert len(deals) == cells
    n = 2 * PER_CELL * cells * cells
    uniforms = np.random.default_rng(13).random((1, n, obs.variant.pack.n_cards))
    index = cell_index(groups, deals, *determinise(obs, uniforms))
    assert_pairs_independent(index[0::2], index[1::2], cells, "one row")


def test_pimc_successive_samples_are_independent():
    """The same through ``PimcPlayer._deals`` (4 samples per row; pairs 0-1 and 2-3 of each
    row): pimc's samples of one decision are independent draws."""
    name, play, cells = PAIR_POSITION
    obs = random_observation(name, play, rows=1, seed=8)
    groups, deals = enumerated(name, play, obs)
    rows = PER_CELL * cells * cells // 2
    hands, pack = pimc_deals(obs.take(np.zeros(rows, np.int64)), samples=4, seed=9)
    index = cell_index(groups, deals, hands, pack)
    assert_pairs_independent(index[0::2], index[1::2], cells, "pimc")
