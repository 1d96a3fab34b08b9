"""Card values by intervention, exactly (scopa_sim/interventions.py), against plain rescorings.

What this file vouches for, and why it is needed beside tests/test_interventions.py:

* **Every column of ``captured_values``** (``capturer``, ``points``, ``margin``, ``primiera``)
  on finished deals actually played (seeded, cheap presets: classic, scopa-52, the team game
  classic-4p, and the ``most_sevens`` and ``face_zero``/``zero`` primiera options), for every
  (deal, card), equals a plain rescoring of the same deal on Python sets: the card taken out of
  its capturer's pile and put into the other side's, both deals scored by
  ``reference.score_deal`` (a stopped deal scores its scope alone, docs/rules.md §6), category by
  category. The older test checks points and margin on random piles but not the primiera column,
  which a rescoring of the wrong side's primiera would pass.
* **Hand-made deals at the boundaries**, each value worked out by hand from docs/rules.md §5 in
  its docstring: a move that breaks a tie for cards or coins, one that creates it, the
  settebello, a primiera that becomes void (on one side, then on both), a card nobody captured.
* **Dealt values swap what they say**: the pack replayed without the card differs from the pack
  as dealt by exactly that exchange, of a card the side played with a card the other side played
  (both read from a recorded replay of the deal as dealt), and ``dealt`` is what that side
  played from its hands.
"""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import interventions as iv
from scopa_sim import seeding
from scopa_sim.engine import batch, reference
from scopa_sim.players import player
from scopa_sim.rules import CATEGORIES, variant

SEED = 20260311
PLAYERS = [player("random"), player("greedy")]

# (preset, options, deals): a few hundred deals in all; the plain rescoring costs ~100 us a call.
PLAYED = [
    ("classic", {}, 110),
    ("scopa-52", {}, 70),
    ("classic-4p", {}, 70),
    ("classic", {"primiera": "most_sevens"}, 50),
    ("classic", {"primiera": "face_zero", "primiera_missing_suit": "zero"}, 50),
]


# The plain rescoring ---------------------------------------------------------------------------


def _pile(mask: int, n_cards: int) -> set[int]:
    return {c for c in range(n_cards) if mask >> c & 1}


def plain_points(v, piles: list[set[int]], scope, stopped: bool) -> list[dict[str, int]]:
    """Points per side and category: the reference scoring, or the scope alone in a deal a
    winning scopa stopped (docs/rules.md §6)."""
    if stopped:
        return [{c: int(scope[s]) if c == "scope" else 0 for c in CATEGORIES} for s in (0, 1)]
    return reference.score_deal(v, piles, [int(x) for x in scope])


def plain_value(v, piles, scope, stopped: bool, card: int) -> tuple[int, int, int, int]:
    """(capturer, points, margin, primiera) of ``card``: the capturer's figure with the card
    minus with the card moved into the other side's pile, everything else as it was; (-1, 0, 0,
    0) for a card nobody captured."""
    holders = [s for s in (0, 1) if card in piles[s]]
    assert len(holders) <= 1, "a card in two piles"
    if not holders:
        return -1, 0, 0, 0
    mine = holders[0]
    moved = [set(p) for p in piles]
    moved[mine].remove(card)
    moved[1 - mine].add(card)
    before = plain_points(v, piles, scope, stopped)
    after = plain_points(v, moved, scope, stopped)
    own = {c: before[mine][c] - after[mine][c] for c in CATEGORIES}
    other = {c: before[1 - mine][c] - after[1 - mine][c] for c in CATEGORIES}
    return mine, sum(own.values()), sum(own.values()) - sum(other.values()), own["primiera"]


def _got(values: iv.CapturedValues, b: int, j: int) -> tuple[int, int, int, int]:
    return (
        int(values.capturer[b, j]),
        int(values.points[b, j]),
        int(values.margin[b, j]),
        int(values.primiera[b, j]),
    )


# Played deals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options", "deals"), PLAYED, ids=lambda x: str(x))
def test_every_column_equals_the_plain_rescoring_on_played_deals(name, options, deals):
    """For every played deal and every card (in a shuffled order given as ``cards``), capturer,
    points, margin and primiera equal the plain rescoring; about one deal in eight is marked
    stopped, where every card is worth 0 to the side that still holds it."""
    v = variant(name, options)
    n = v.pack.n_cards
    out = batch.play_deals(v, PLAYERS, SEED, range(deals))
    rng = np.random.default_rng(SEED)
    stopped = rng.random(deals) < 0.125
    cards = rng.permutation(n).tolist()
    got = iv.captured_values(v, out.captured, out.scope, stopped, cards=cards)
    assert got.points.shape == got.capturer.shape == (deals, n)
    seen_primiera = seen_margin_only = 0
    for b in range(deals):
        piles = [_pile(int(out.captured[b, s]), n) for s in (0, 1)]
        for j, card in enumerate(cards):
            want = plain_value(v, piles, out.scope[b], bool(stopped[b]), card)
            assert _got(got, b, j) == want, (b, card, v.pack.code(card))
            seen_primiera += want[3] != 0
            seen_margin_only += want[1] == 0 and want[2] != 0
    # The deals exercise what the columns tell apart (not a check of the code: of the data).
    if v.primiera is not None:
        assert seen_primiera > 0
    assert seen_margin_only > 0


# Hand-made deals at the boundaries ---------------------------------------------------------------

CLASSIC = variant("classic")


def _cards(text: str) -> set[int]:
    return {CLASSIC.pack.parse(code) for code in text.split()}


def _split(side0: str, nobody: str = "") -> list[set[int]]:
    """Side 0's pile as written; side 1 holds every other card but ``nobody``'s."""
    mine, left = _cards(side0), _cards(nobody)
    assert not mine & left
    return [mine, set(range(40)) - mine - left]


def _value_of(piles, card_code: str, scope=(0, 0)) -> tuple[int, int, int, int]:
    """The value of one card by ``captured_values``, after checking that the plain rescoring
    gives the same (so a hand expectation that disagrees with both is the hand's error)."""
    card = CLASSIC.pack.parse(card_code)
    captured = np.array([[sum(1 << c for c in p) for p in piles]], np.uint64)
    got = _got(
        iv.captured_values(CLASSIC, captured, np.array([scope], np.int16), cards=[card]), 0, 0
    )
    assert got == plain_value(CLASSIC, piles, scope, False, card)
    return got


# 21 cards against 19: all the coins, every suit's seven, three court cups, swords 6 5 4 and
# clubs 6 5 for side 0 (primiera 84); side 1 has no coin (void: no primiera).
TWENTY_ONE = "AD 2D 3D 4D 5D 6D 7D FD CD RD 7C FC CC RC 7S 6S 5S 4S 7B 6B 5B"


def test_a_move_that_breaks_a_tie_for_cards_away_from_the_capturer():
    """21-19 cards: moving side 0's FC makes it 20-20, a tie nobody scores. Side 0 loses the
    cards point (points 1) and side 1 gains nothing (margin 1); side 0 keeps 7C, so its primiera
    and everything else stand (primiera 0). Side 1's AS moved to side 0 makes 22-18: worth 0."""
    piles = _split(TWENTY_ONE)
    assert [len(p) for p in piles] == [21, 19]
    assert _value_of(piles, "FC") == (0, 1, 1, 0)
    assert _value_of(piles, "AS") == (1, 0, 0, 0)


def test_a_move_that_hands_a_tie_for_cards_to_the_other_side():
    """20-20 cards (side 0 without 4S): moving side 0's FC makes 19-21, so side 1 wins the cards
    point: side 0's points do not change (0) but its margin does (1). Side 1's AS moved to side
    0 makes 21-19 the other way: worth 0 points and 1 of margin to side 1."""
    piles = _split(TWENTY_ONE.replace(" 4S", ""))
    assert [len(p) for p in piles] == [20, 20]
    assert _value_of(piles, "FC") == (0, 0, 1, 0)
    assert _value_of(piles, "AS") == (1, 0, 1, 0)


def test_moves_across_the_tie_for_coins():
    """Side 0 has 6 coins (3D 4D 5D 6D 7D RD) and 24 cards, side 1 has 4 coins (AD 2D FD CD)
    and 16 cards; both have every suit, side 0's primiera is 84 (four sevens), side 1's 64 (four
    aces, whatever coin moves). Moving 3D makes the coins 5-5: side 0 loses the coins point
    (points 1, margin 1). Moving side 1's 2D to side 0 makes 7-3: nothing changes (0, 0).
    Then with 5-5 coins (side 0 without 3D, 23 cards; still ahead): moving side 0's 5D
    gives 4-6, the coins point goes to side 1 (points 0, margin 1), and side 1's FD moved to
    side 0 gives 6-4 to side 0 (points 0, margin 1 to side 1)."""
    side0 = "3D 4D 5D 6D 7D RD 7C 6C 5C 4C 3C 2C 7S 6S 5S 4S 3S 2S 7B 6B 5B 4B 3B 2B"
    piles = _split(side0)
    assert [len(p) for p in piles] == [24, 16]
    assert _value_of(piles, "3D") == (0, 1, 1, 0)
    assert _value_of(piles, "2D") == (1, 0, 0, 0)
    level = _split(side0.replace("3D ", ""))
    assert [len(p) for p in level] == [23, 17]
    assert _value_of(level, "5D") == (0, 0, 1, 0)
    assert _value_of(level, "FD") == (1, 0, 1, 0)


def test_the_settebello_moves_one_point_each_way():
    """Side 0 has 8 coins with 7D and 6D and 25 cards; side 1 has no cup (void: no primiera).
    Moving 7D: settebello lost by side 0 and won by side 1 (points 1, margin 2); coins 7-3 and
    cards 24-16 stay side 0's, side 0 still has every suit and the only primiera (its coins'
    best drops from 21 to 18), so primiera 0. The same deal with 2 scope a side changes
    nothing: the scope are not moved."""
    side0 = "AD 2D 3D 4D 5D 6D 7D RD AC 2C 3C 4C 5C 6C 7C FC CC RC 7S 6S 5S 7B 6B 5B 4B"
    piles = _split(side0)
    assert [len(p) for p in piles] == [25, 15]
    assert _value_of(piles, "7D") == (0, 1, 2, 0)
    assert _value_of(piles, "7D", scope=(2, 2)) == (0, 1, 2, 0)


def test_a_primiera_that_becomes_void():
    """Side 0 holds coins A-7, AC (its only cup), swords A-7 and clubs A-7: primiera 79 against
    side 1's 51 (FD CD RD, cups 2C-RC, FS CS RS, FB CB RB); side 0 wins it. Moving AC voids side
    0's cups: side 1 now holds the only primiera, so side 0 loses the point and side 1 wins it
    (points 1, margin 2, primiera 1); cards (22-18 to 21-19) and coins (7-3) stay side 0's.
    With FS CS RS in side 0's pile too, side 1 is void in swords from the start (only side 0 has
    a primiera) and the move leaves nobody with one: (points 1, margin 1, primiera 1)."""
    side0 = "AD 2D 3D 4D 5D 6D 7D AC AS 2S 3S 4S 5S 6S 7S AB 2B 3B 4B 5B 6B 7B"
    piles = _split(side0)
    assert [len(p) for p in piles] == [22, 18]
    assert _value_of(piles, "AC") == (0, 1, 2, 1)
    both = _split(side0 + " FS CS RS")
    assert not any(CLASSIC.pack.suit(c) == 2 for c in both[1])
    assert _value_of(both, "AC") == (0, 1, 1, 1)


def test_a_card_nobody_captured_is_worth_nothing_and_has_no_capturer():
    """Leftovers (nobody captured: the deal had no capture) belong to no side: capturer -1 and
    0 everywhere, the settebello too; the sides' own cards are valued as usual beside them
    (side 0 without 7D has 20 cards to side 1's 18 without AS: moving FC ties them 19-19, so it
    is worth the cards point, points 1 and margin 1)."""
    piles = _split(TWENTY_ONE.replace("7D ", ""), nobody="7D AS")
    assert [len(p) for p in piles] == [20, 18]
    assert _value_of(piles, "7D") == (-1, 0, 0, 0)
    assert _value_of(piles, "AS") == (-1, 0, 0, 0)
    assert _value_of(piles, "FC") == (0, 1, 1, 0)


# Dealt values: the swap ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "classic-4p"])
def test_the_replayed_pack_is_the_dealt_pack_with_the_card_swapped_across(name, monkeypatch):
    """The packs ``dealt_values`` replays, caught on their way to the replay: first the packs
    as dealt (``deal_packs`` on the seed's pack stream), then, per card, one pack per deal whose
    card lay in a hand, differing from the dealt pack in exactly two places, the card and its
    partner exchanged. A recorded replay of the dealt packs says who held what: the card was
    played by the row's side, the partner by the other side, and ``dealt`` is every card that
    side played (its hands, not the table)."""
    from scopa_sim import api

    v = variant(name)
    deals, cards = 30, [6, 0, 27]
    calls = []
    replay = iv._replay

    def spy(keyed, packs, rows):
        calls.append((np.array(packs, copy=True), np.array(rows, copy=True)))
        return replay(keyed, packs, rows)

    monkeypatch.setattr(iv, "_replay", spy)
    pairs = iv.dealt_values(v, PLAYERS, SEED, range(deals), cards=cards)
    assert len(calls) == 1 + len(cards)

    pack_key = seeding.stream_key(SEED, seeding.PACKS)
    game, deal = np.arange(deals, dtype=np.int64), np.zeros(deals, np.int64)
    dealt, _ = batch.deal_packs(v, pack_key, game, deal)
    assert np.array_equal(calls[0][0], dealt)
    offset = batch.seat_offsets(batch.first_dealers(v, pack_key, game), deal, v.n_players)
    records = api.record_deals(
        v, PLAYERS, dealt, seed=SEED, game=game, deal=deal, offset=offset,
        scores=np.zeros((deals, 2), np.int16),
    )  # fmt: skip
    played_by = [{m.card: r.seat_sides[m.seat] for m in r.moves} for r in records]
    keys = zip(pairs.game.tolist(), pairs.card.tolist(), strict=True)
    row_of = {key: i for i, key in enumerate(keys)}
    assert len(row_of) == len(pairs)

    for card, (swapped, rows) in zip(cards, calls[1:], strict=True):
        in_hand = [g for g in range(deals) if card in played_by[g]]
        assert rows.tolist() == in_hand
        assert sorted(g for g, c in row_of if c == card) == in_hand
        for packed, g in zip(swapped, rows, strict=True):
            i = row_of[(int(g), card)]
            side, partner = int(pairs.side[i]), int(pairs.partner[i])
            where = np.flatnonzero(packed != dealt[g])
            assert len(where) == 2
            assert sorted(dealt[g][where].tolist()) == sorted([card, partner])
            assert packed[where].tolist() == dealt[g][where][::-1].tolist()
            assert played_by[g][card] == side and played_by[g][partner] == 1 - side
            mine = [c for c, s in played_by[g].items() if s == side]
            assert int(pairs.dealt[i]) == sum(1 << c for c in mine)
