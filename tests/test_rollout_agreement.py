"""The rollouts' continuations agree with the reference engine, deal by deal, on every preset.

Every search (pimc, ismcts, ``analyse``) plays the rest of a deal from a state in its middle with
``fused.play_from_states``: the next hands dealt from the pack at their turn, the leftovers to the
last capturer, a deal stopped by a scopa that wins the game. ``tests/test_agreement.py`` holds
whole deals to the reference engine; this holds the continuations. Each pack is played once from
the start (``api.play_packs``, random against greedy), its move log replayed on the reference
engine (``reference.play_deal``), and the state before every play ``k`` rebuilt here in plain
Python from the pack and the first ``k`` moves. Played on from that state by the same players on
the same random numbers (the deal's decision key), every continuation must end as the reference
deal ended: each side's captured cards and scope, the cards of nobody and the side that won
outright.
"""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import api
from scopa_sim.cards import mask_of
from scopa_sim.engine import fused
from scopa_sim.engine.deals import DealState
from scopa_sim.rules import parse_variant
from tests.support.replayed import GAMES, packs, reference_end, states_before_each_play


@pytest.mark.parametrize("game", GAMES)
def test_continuations_end_as_the_reference_deal(game):
    rules = parse_variant(game)
    lineup = [["random", "greedy"][s % 2] for s in range(rules.n_sides)]
    records = api.play_packs(rules, lineup, packs(rules, seed=len(game)), seed=3)
    rows, want = [], []
    for record in records:
        end = reference_end(rules, record)
        for state in states_before_each_play(rules, record):
            rows.append((record, state))
            want.append(end)
    n = len(rows)
    state = DealState(
        pack=np.array([r.pack for r, _ in rows], np.int8),
        hands=np.array([[mask_of(h) for h in s["hands"]] for _, s in rows], np.uint64),
        table=np.array([mask_of(s["table"]) for _, s in rows], np.uint64),
        captured=np.array([[mask_of(c) for c in s["captured"]] for _, s in rows], np.uint64),
        scope=np.array([s["scope"] for _, s in rows], np.int16),
        played=np.array([mask_of(s["played"]) for _, s in rows], np.uint64),
        last_capturer=np.array([s["last"] for _, s in rows], np.int8),
        play=np.array([s["play"] for _, s in rows], np.int64),
        seat_side=np.array([r.seat_sides for r, _ in rows], np.int8),
        scores=np.zeros((n, rules.n_sides), np.int16),
        deal_keys=np.array([r.decision_key for r, _ in rows], np.uint64),
    )
    end = fused.play_from_states(rules, api.resolve(rules, lineup)[1], state)
    for i, (captured, scope, leftovers, stopped) in enumerate(want):
        where = f"{game}: pack {records.index(rows[i][0])} from play {rows[i][1]['play']}"
        assert end.captured[i].tolist() == captured, where
        assert end.scope[i].tolist() == scope, where
        assert int(end.leftovers[i]) == leftovers, where
        assert int(end.stopped_by[i]) == stopped, where
    if "target=1" in game:  # the stop is what these games are here for
        assert any(w[3] >= 0 for w in want), game
