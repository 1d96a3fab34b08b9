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

from scopa_sim import api, seeding
from scopa_sim.cards import mask_of
from scopa_sim.engine import fused, reference
from scopa_sim.engine.deals import DealState
from scopa_sim.rules import PRESETS, parse_variant

PACKS = 6
#: The presets, and a game a scopa wins at once (target 1): continuations that stop.
GAMES = [
    *sorted(PRESETS),
    "classic:scopa_wins_immediately=true,target=1",
    "escoba:target=1,scopa_wins_immediately=true",
]


def packs(rules, seed: int) -> list[list[int]]:
    """``PACKS`` packs from the pack stream that do not throw in."""
    key = seeding.stream_key(seed, seeding.PACKS)
    out, game = [], 0
    while len(out) < PACKS:
        one = np.array([game])
        pack = seeding.packs(key, one, one * 0, one * 0, rules.pack.n_cards)[0].tolist()
        if not reference.is_throw_in(rules, pack):
            out.append(pack)
        game += 1
    return out


def states_before_each_play(rules, record) -> list[dict]:
    """The deal's state just before each play it made, rebuilt from the pack and the moves
    (docs/rules.md §2-§4): plain sets, sides as the record numbers them."""
    pack, n = record.pack, rules.n_players
    side_of = record.seat_sides
    table = set(pack[: rules.table_cards])
    captured = [set() for _ in range(rules.n_sides)]
    scope = [0] * rules.n_sides
    last = -1
    opening = reference.opening_sweeps(rules, table)
    if opening:
        dealer = side_of[n - 1]
        captured[dealer] |= table
        table, last = set(), dealer
        scope[dealer] += opening
    hands: list[set[int]] = [set() for _ in range(n)]
    position, played, states = rules.table_cards, set(), []
    starts = np.cumsum([0] + [size * n for size in rules.hands])
    for k, move in enumerate(record.moves):
        if k in starts:
            size = rules.hands[list(starts).index(k)]
            hands = [set(pack[position + t * size : position + (t + 1) * size]) for t in range(n)]
            position += size * n
        states.append(
            {
                "hands": [set(h) for h in hands], "table": set(table),
                "captured": [set(c) for c in captured], "scope": list(scope), "last": last,
                "played": set(played), "play": k,
            }
        )  # fmt: skip
        side = side_of[move.seat]
        hands[move.seat].remove(move.card)
        played.add(move.card)
        if move.captured:
            table -= set(move.captured)
            captured[side] |= {*move.captured, move.card}
            last = side
            scope[side] += move.scopa
        else:
            table.add(move.card)
    return states


def reference_end(rules, record):
    """The reference engine's deal, its moves those of ``record``; sides as the record's."""
    moves = iter(record.moves)

    def choose(view, legal):
        move = next(moves)
        action = move.card, frozenset(move.captured)
        assert action in legal
        return action

    result = reference.play_deal(rules, record.pack, choose)
    # The reference numbers a seat's side side_of_seat(seat); the record, seat_sides[seat].
    to_record = {rules.side_of_seat(s): record.seat_sides[s] for s in range(rules.n_players)}
    captured = [0] * rules.n_sides
    scope = [0] * rules.n_sides
    for r in range(rules.n_sides):
        captured[to_record[r]] = mask_of(result.captured[r])
        scope[to_record[r]] = result.scope[r]
    stopped = -1 if result.stopped_by is None else to_record[result.stopped_by]
    return captured, scope, mask_of(result.leftovers), stopped


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
