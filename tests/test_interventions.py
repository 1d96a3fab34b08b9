"""Card values by intervention (scopa_sim/interventions.py).

* Captured value: the vectorised rescoring equals the reference engine's scoring of the same
  piles with the card moved, on random captured splits of several presets and option sets.
* A planted truth that is not additive (the cards point is a threshold): exact rescoring gives
  the brute-force value, a regression on card indicators does not.
* Dealt value: swapping a card with itself changes nothing on any deal (A/A); the deal as played
  is the deal ``play_deals`` plays; a swap exchanges two hand cards of opposite sides and leaves
  the table alone; rows are reproducible and do not depend on the batch size or engine path.
* The clustered interval covers a known mean at its nominal rate (binomial tolerance).
* The win table and the chance to win after a deal; the replay cache.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scopa_sim import interventions as iv
from scopa_sim import stats
from scopa_sim.engine import batch, reference, scoring
from scopa_sim.players import player
from scopa_sim.rules import variant

SEED = 20261201
GREEDY = [player("greedy"), player("greedy")]

RESCORE_CONFIGS = [
    ("classic", {}),
    ("classic-4p", {}),
    ("scopone", {}),
    ("escoba", {}),
    ("scopa-52", {}),
    ("classic", {"primiera": "face_zero", "primiera_missing_suit": "zero"}),
    ("classic", {"primiera": "most_sevens"}),
    ("classic", {"re_bello": True, "napola": "trentino"}),
]


def _random_piles(rng, n_cards: int, deals: int, nobody: float = 0.05) -> np.ndarray:
    """Each card to side 0, side 1 or (rarely) nobody; ``uint64[deals, 2]``."""
    owner = rng.choice(3, size=(deals, n_cards), p=[(1 - nobody) / 2, (1 - nobody) / 2, nobody])
    bits = np.uint64(1) << np.arange(n_cards, dtype=np.uint64)
    return np.stack(
        [np.bitwise_or.reduce(np.where(owner == s, bits, np.uint64(0)), axis=1) for s in (0, 1)],
        axis=1,
    )


def _cards(mask: int, n: int) -> set[int]:
    return {c for c in range(n) if mask >> c & 1}


@pytest.mark.parametrize(("name", "options"), RESCORE_CONFIGS, ids=lambda x: str(x))
def test_captured_values_equal_the_reference_rescoring(name, options):
    v = variant(name, options)
    n = v.pack.n_cards
    rng = np.random.default_rng(SEED)
    deals = 40
    captured = _random_piles(rng, n, deals)
    scope = rng.integers(0, 3, size=(deals, 2)).astype(np.int16)
    got = iv.captured_values(v, captured, scope)
    assert got.points.shape == (deals, n)

    def totals(piles, sc):
        return [sum(p.values()) for p in reference.score_deal(v, piles, list(sc))]

    for b in range(deals):
        piles = [_cards(int(captured[b, s]), n) for s in (0, 1)]
        before = totals(piles, scope[b])
        for card in range(n):
            holder = 0 if card in piles[0] else 1 if card in piles[1] else -1
            assert got.capturer[b, card] == holder
            if holder < 0:
                assert got.points[b, card] == got.margin[b, card] == 0
                continue
            moved = [set(p) for p in piles]
            moved[holder].remove(card)
            moved[1 - holder].add(card)
            after = totals(moved, scope[b])
            own = before[holder] - after[holder]
            assert got.points[b, card] == own
            assert got.margin[b, card] == own - (before[1 - holder] - after[1 - holder])


def test_captured_value_in_a_stopped_deal_is_zero():
    v = variant("classic")
    captured = _random_piles(np.random.default_rng(1), 40, 5)
    scope = np.ones((5, 2), np.int16)
    got = iv.captured_values(v, captured, scope, stopped=np.ones(5, bool))
    assert (got.points == 0).all() and (got.margin == 0).all()


@pytest.mark.parametrize("name", ["classic-3p", "classic-6p"])
def test_sides_other_than_two_are_refused_or_allowed(name):
    v = variant(name)
    piles = np.zeros((1, v.n_sides), np.uint64)
    if v.n_sides == 2:
        iv.captured_values(v, piles, np.zeros((1, 2), np.int16))
    else:
        with pytest.raises(ValueError, match="need two sides"):
            iv.captured_values(v, piles, np.zeros((1, v.n_sides), np.int16))
        with pytest.raises(ValueError, match="need two sides"):
            iv.dealt_values(v, [player("greedy")] * 3, SEED, range(2))


def test_non_additive_truth_recovered_where_a_regression_is_not():
    """The cards point is a threshold. In half the deals side 0 holds exactly 20 of the other 39
    cards and the fante of clubs by a fair coin (holding it wins the cards point 21-19, else the
    cards tie 20-20); in the other half side 0 holds 10 of them and the fante almost always (the
    cards point is out of reach either way). The card's mean value to side 0 over the deals
    where side 0 holds it is what exact rescoring returns, and it equals the brute-force
    reference value; OLS on 40 card indicators weights the two halves by the variance of the
    indicator (0.25 against 0.02) and lands near the threshold half's value instead."""
    v = variant("classic")
    rng = np.random.default_rng(SEED)
    deals, card = 20_000, 37
    others = np.array([c for c in range(40) if c != card])
    near = rng.random(deals) < 0.5
    order = np.argsort(rng.random((deals, 39)), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(39)[None, :].repeat(deals, 0), axis=1)
    held = np.zeros((deals, 40), bool)
    held[:, others] = rank < np.where(near, 20, 10)[:, None]
    held[:, card] = rng.random(deals) < np.where(near, 0.5, 0.98)
    mask = (held.astype(np.uint64) << np.arange(40, dtype=np.uint64)).sum(axis=1)
    captured = np.stack([mask, np.uint64((1 << 40) - 1) ^ mask], axis=1)
    scope = np.zeros((deals, 2), np.int16)
    got = iv.captured_values(v, captured, scope, cards=[card])
    mine = held[:, card]

    # Brute force by the reference engine on a subsample: the same values, deal by deal.
    for b in np.flatnonzero(mine)[:150]:
        piles = [_cards(int(captured[b, s]), 40) for s in (0, 1)]
        with_card = sum(reference.score_deal(v, piles, [0, 0])[0].values())
        piles[0].remove(card)
        piles[1].add(card)
        without = sum(reference.score_deal(v, piles, [0, 0])[0].values())
        assert got.points[b, 0] == with_card - without
    truth = stats.mean_ci(got.margin[mine, 0])
    # The threshold half alone is worth about 1 (the cards point); the average is far below.
    assert 0.25 < truth.value < 0.45, truth

    totals = scoring.score(v, captured, scope).totals
    margin = (totals[:, 0] - totals[:, 1]).astype(np.float64)
    x = np.column_stack([np.ones(deals), held.astype(np.float64)])
    fit = stats.ols(margin, x, ["const", *map(str, range(40))])[str(card)]
    gap = abs(fit.value - truth.value)
    assert gap > 5 * (fit.half_width + truth.half_width), (fit, truth)
    assert abs(fit.value / 2 - truth.value) > 5 * (fit.half_width / 2 + truth.half_width)


# Dealt value -----------------------------------------------------------------------------------


def test_pack_seats_follow_the_deal_order():
    classic = iv.pack_seats(variant("classic"))
    assert list(classic[:4]) == [-1] * 4
    assert list(classic[4:13]) == [0, 0, 0, 1, 1, 1, 0, 0, 0]
    scientifico = iv.pack_seats(variant("scopone-scientifico"))
    assert list(scientifico[:11]) == [0] * 10 + [1]
    for name in ("classic", "classic-4p", "classic-6p", "scopone", "escoba"):
        v = variant(name)
        seats = iv.pack_seats(v)
        assert (seats == -1).sum() == v.table_cards
        assert np.bincount(seats[seats >= 0]).tolist() == [sum(v.hands)] * v.n_players


@pytest.mark.parametrize("name", ["classic", "classic-4p", "escoba", "scopone-scientifico"])
def test_a_card_swapped_with_itself_changes_nothing(name):
    v = variant(name)
    pairs = iv.dealt_values(v, GREEDY, SEED, range(300), partner="self")
    assert len(pairs) > 0
    for a, b in [
        (pairs.points_with, pairs.points_without),
        (pairs.other_with, pairs.other_without),
        (pairs.primiera_with, pairs.primiera_without),
    ]:
        assert np.array_equal(a, b)
    assert np.array_equal(pairs.partner, pairs.card)
    real = iv.dealt_values(v, GREEDY, SEED, range(300), cards=[0, 6])
    assert (real.points_with != real.points_without).any()  # the swap does change deals


def test_the_deal_as_played_is_play_deals():
    v = variant("classic")
    deals = iv.dealt_values(v, GREEDY, SEED, range(500), cards=[6, 17])
    played = batch.play_deals(v, GREEDY, SEED, range(500))
    totals = played.totals
    prim = played.points[:, :, 3]
    rows = deals.game
    assert np.array_equal(deals.points_with, totals[rows, deals.side])
    assert np.array_equal(deals.other_with, totals[rows, 1 - deals.side])
    assert np.array_equal(deals.primiera_with, prim[rows, deals.side])


@pytest.mark.parametrize("name", ["classic", "classic-4p", "escoba"])
def test_a_swap_exchanges_hand_cards_of_opposite_sides(name):
    v = variant(name)
    key = np.uint64(12345)
    pack_key = np.uint64(777)
    game = np.arange(2000)
    deal = np.zeros(2000, np.int64)
    packs, _ = batch.deal_packs(v, pack_key, game, deal)
    offset = batch.seat_offsets(batch.first_dealers(v, pack_key, game), deal, v.n_players)
    seat_side = batch.seat_sides(v, offset)
    seats = iv.pack_seats(v)
    card = 23
    position, side, partner = iv.swap_partners(v, packs, offset, game, card, key, deal)
    assert (packs[np.arange(2000), position] == card).all()
    on_table = position < v.table_cards
    assert np.array_equal(side < 0, on_table)
    rows = np.flatnonzero(~on_table)
    assert (partner[rows] >= v.table_cards).all()
    partner_side = seat_side[rows, seats[partner[rows]]]
    assert (partner_side != side[rows]).all()
    assert (side[rows] == seat_side[rows, seats[position[rows]]]).all()
    # Uniform over the other side's hand cards: each of the k slots (in pack order) about
    # equally often; a chi-square test at a fixed seed, alpha 0.001.
    k = (v.pack.n_cards - v.table_cards) // 2
    slot = np.array(
        [
            int(
                np.sum(
                    (seats[: partner[r]] >= 0)
                    & (seat_side[r, np.maximum(seats[: partner[r]], 0)] != side[r])
                )
            )
            for r in rows
        ]
    )
    counts = np.bincount(slot, minlength=k)
    from scipy.stats import chisquare

    assert len(counts) == k and chisquare(counts).pvalue > 1e-3


def test_replays_reproducible_and_independent_of_batch_size_and_path():
    v = variant("classic")
    cards = [0, 6, 25]
    a = iv.dealt_values(v, GREEDY, SEED, range(100, 400), cards=cards, batch_size=1000)
    b = iv.dealt_values(v, GREEDY, SEED, range(100, 400), cards=cards, batch_size=37)
    c = iv.dealt_values(v, GREEDY, SEED, range(100, 400), cards=cards, path="lockstep")
    for f in iv.DealtPairs.__dataclass_fields__:
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
        assert np.array_equal(getattr(a, f), getattr(c, f)), f
    other = iv.dealt_values(v, GREEDY, SEED + 1, range(100, 400), cards=cards)
    assert not np.array_equal(a.partner, other.partner)


def test_cache_is_reused_and_refreshed(tmp_path, monkeypatch):
    v = variant("classic")
    args = (tmp_path, "x", v, GREEDY, ["greedy", "greedy"], SEED, range(50))
    first = iv.cached_dealt_values(*args, cards=[6])
    meta = json.loads((tmp_path / "x.manifest.json").read_text())
    assert meta["deals"] == [0, 50] and meta["seed"] == SEED

    def boom(*a, **k):
        raise AssertionError("recomputed")

    monkeypatch.setattr(iv, "dealt_values", boom)
    again = iv.cached_dealt_values(*args, cards=[6])
    assert np.array_equal(first.points_without, again.points_without)
    with pytest.raises(AssertionError, match="recomputed"):
        iv.cached_dealt_values(*args, cards=[7])


# Statistics ------------------------------------------------------------------------------------


def test_clustered_interval_covers_at_its_nominal_rate():
    """Clusters of 1 to 4 values sharing a cluster effect (intra-cluster correlation 0.5): the
    clustered interval covers the true mean in 95 % of 400 data sets, within three binomial
    standard errors; an interval that treats values as independent covers visibly less."""
    rng = np.random.default_rng(SEED)
    reps, clusters, truth = 400, 200, 0.3
    hits = naive_hits = 0
    for _ in range(reps):
        size = rng.integers(1, 5, clusters)
        ids = np.repeat(np.arange(clusters), size)
        values = truth + rng.normal(size=clusters)[ids] + rng.normal(size=len(ids))
        est = iv.clustered_mean(values, ids)
        hits += est.low <= truth <= est.high
        naive = stats.mean_ci(values)
        naive_hits += naive.low <= truth <= naive.high
        assert est.n == len(values)
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(hits / reps - 0.95) < 3 * se, hits / reps
    assert naive_hits / reps < 0.95 - 3 * se, naive_hits / reps


def test_win_table_and_win_after():
    # Four side-deals from 0-0 (two wins: pooled sides), one from 3-1 (won), one from 1-3 (lost).
    own = np.array([0, 0, 0, 0, 3, 1])
    other = np.array([0, 0, 0, 0, 1, 3])
    won = np.array([1, 0, 1, 0, 1, 0])
    table = iv.win_table(own, other, won, target=11)
    assert table.w[0, 0] == 0.5 and table.n[0, 0] == 4
    assert table.w[3, 1] == 1.0 and table.w[1, 3] == 0.0
    got = iv.win_after(table, np.array([12, 9, 11, 12, 3]), np.array([10, 11, 11, 13, 1]))
    assert got.tolist() == [1.0, 0.0, 0.5, 0.0, 1.0]
    with pytest.raises(ValueError, match="no games"):
        iv.win_after(table, np.array([2]), np.array([2]))


def test_the_exchanged_deal_is_the_recorded_replay_of_the_exchanged_pack():
    """Independently of the replay code: exchange the two recorded cards in the deal's pack,
    replay it with a move record (``api.record_deals``), and find the same points, the card
    played from the other side's hand and the partner from the side's own."""
    from scopa_sim import api, seeding

    v = variant("classic")
    deals = range(40)
    pairs = iv.dealt_values(v, GREEDY, SEED, deals, cards=[0, 6, 27])
    pack_key = seeding.stream_key(SEED, seeding.PACKS)
    game = np.asarray(pairs.game, np.int64)
    deal = np.zeros(len(game), np.int64)
    packs, _ = batch.deal_packs(v, pack_key, game, deal)
    for i in range(len(packs)):
        a, b = int(pairs.card[i]), int(pairs.partner[i])
        pa, pb = list(packs[i]).index(a), list(packs[i]).index(b)
        packs[i, pa], packs[i, pb] = b, a
    offset = batch.seat_offsets(batch.first_dealers(v, pack_key, game), deal, v.n_players)
    records = api.record_deals(
        v, GREEDY, packs, seed=SEED, game=game, deal=deal, offset=offset,
        scores=np.zeros((len(game), 2), np.int16),
    )  # fmt: skip
    for i, record in enumerate(records):
        s = int(pairs.side[i])
        assert record.sides[s].total == pairs.points_without[i]
        assert record.sides[1 - s].total == pairs.other_without[i]
        played_by = {m.card: record.seat_sides[m.seat] for m in record.moves}
        assert played_by[int(pairs.card[i])] == 1 - s
        assert played_by[int(pairs.partner[i])] == s
