"""Deals played by the engine, replayed in plain Python: the states before each play and the
reference engine's end of the deal, for the tests that hold a consumer of the rules (the
rollouts, the ISMCTS walk) to the reference engine deal by deal."""

from __future__ import annotations

import numpy as np

from scopa_sim import seeding
from scopa_sim.cards import mask_of
from scopa_sim.engine import reference
from scopa_sim.rules import PRESETS

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


def states_before_each_play(rules, record, *, after_last: bool = False) -> list[dict]:
    """The deal's state just before each play it made, rebuilt from the pack and the moves
    (docs/rules.md §2-§4): plain sets, sides as the record numbers them. ``after_last`` adds the
    state after its last move (the table not yet taken by the last capturer)."""
    pack, n = record.pack, rules.n_players
    side_of = record.seat_sides
    table = set(pack[: rules.table_cards])
    captured = [set() for _ in range(rules.n_sides)]
    scope = [0] * rules.n_sides
    last = -1
    sweeps = reference.opening_sweeps(rules, table)  # escoba's, counted as scope
    if sweeps or reference.opening_units(rules, table):  # or cirulla's 15 / 30 (C2.3)
        dealer = side_of[n - 1]
        captured[dealer] |= table
        table, last = set(), dealer
        scope[dealer] += sweeps
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
    if after_last:
        states.append(
            {
                "hands": [set(h) for h in hands], "table": set(table),
                "captured": [set(c) for c in captured], "scope": list(scope), "last": last,
                "played": set(played), "play": len(record.moves),
            }
        )  # fmt: skip
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
