"""The vectorised engine agrees with the reference engine, deal by deal.

For every preset and option set, 10,000 deals are played on the vectorised engine with a record
of every play. Each deal is then replayed on the reference engine from the same pack: at every
play the reference's legal actions must equal the set the vectorised engine offered, the chosen
action is applied, and at the end the captured cards, scope, leftovers and points per category
must be identical.
"""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import seeding
from scopa_sim.cards import cards_of
from scopa_sim.engine import batch as engine
from scopa_sim.engine import reference, scoring
from scopa_sim.players import player
from scopa_sim.rules import CATEGORIES, PRESETS, variant

DEALS = 10_000
CHUNK = 2_500

CONFIGS = [(name, {}) for name in PRESETS] + [
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


def _id(config):
    name, options = config
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def _replay(rules, pack, steps, row, offered_sets):
    """Replay one recorded deal on the reference engine, checking each play's legal actions."""
    plays = iter(range(len(steps)))

    def choose(view, legal):
        t = next(plays)
        step = steps[t]
        assert view.seat == step.seat
        offered = offered_sets[t]
        assert set(legal) == offered, f"play {t}: legal actions differ"
        k = step.choice[row]
        return int(step.legal.card[row, k]), frozenset(cards_of(step.legal.capture[row, k]))

    return reference.play_deal(rules, pack, choose)


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_engines_agree_deal_by_deal(config):
    name, options = config
    rules = variant(name, **options)
    sides = rules.n_sides
    players = [player("random" if side % 2 == 0 else "greedy") for side in range(sides)]
    pack_key = seeding.stream_key(2024, seeding.PACKS)
    player_key = seeding.stream_key(2024, seeding.PLAYERS)
    checked = 0
    for start in range(0, DEALS, CHUNK):
        game = np.arange(start, start + CHUNK, dtype=np.int64)
        deal = np.zeros(CHUNK, np.int64)
        packs, _ = engine.deal_packs(rules, pack_key, game, deal)
        out = engine.play_batch(
            rules, players, packs, offset=np.zeros(CHUNK, np.int64),
            scores=np.zeros((CHUNK, sides), np.int16), player_key=player_key, game=game,
            deal=deal, record=True,
        )  # fmt: skip
        points = scoring.score(rules, out.captured, out.scope).points
        for row in range(CHUNK):
            offered = []
            for step in out.steps:
                n = step.legal.count[row]
                offered.append(
                    {
                        (int(c), frozenset(cards_of(m)))
                        for c, m in zip(
                            step.legal.card[row, :n], step.legal.capture[row, :n], strict=True
                        )
                    }
                )
            ref = _replay(rules, packs[row].tolist(), out.steps, row, offered)
            assert not ref.throw_in
            for side in range(sides):
                assert set(cards_of(out.captured[row, side])) == ref.captured[side]
                assert out.scope[row, side] == ref.scope[side]
                assert [int(p) for p in points[row, side]] == [
                    ref.points[side][c] for c in CATEGORIES
                ]
            assert set(cards_of(out.leftovers[row])) == ref.leftovers
            checked += 1
    assert checked == DEALS


def test_play_packs_matches_reference_move_log():
    """The public move log (api.play_packs) is the reference engine's log for the same choices."""
    from scopa_sim import api

    rules = variant("classic-4p")
    rng = np.random.default_rng(5)
    packs = [rng.permutation(40).tolist() for _ in range(200)]
    for record in api.play_packs(rules, ["greedy", "random"], packs, seed=3):
        if record.throw_in:
            assert reference.is_throw_in(rules, record.pack)
            continue
        moves = iter(record.moves)

        def choose(view, legal, moves=moves):
            move = next(moves)
            return move.card, frozenset(move.captured)

        ref = reference.play_deal(rules, record.pack, choose)
        assert ref.moves == record.moves
        assert [sorted(c) for c in ref.captured] == [s.captured for s in record.sides]
        assert ref.points == [s.points for s in record.sides]
