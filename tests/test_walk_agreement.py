"""The states the ISMCTS walk reaches agree with the reference engine, deal by deal, on every
preset.

``ismcts._walk`` plays the moves of a tree inside a determinised deal with the engine's step
(``deal_rules.play_row``): the move, a scopa that wins the game, the next hands dealt inside the
tree. Here each deal the engine played (``api.play_packs``, random against greedy) is walked from
three points of it to its end along its own moves: a tree is built in which, at every node of
that path, every legal action of the reference engine (``reference.legal_actions``) has a child
and the deal's move is the best of them (exploration 0), and the last node leaves only the deal's
move untried, so that the walk expands it and stops. The state the walk ends in must be the
state after the deal's last move, rebuilt in plain Python from the pack and the moves, and the
walk must have gone through every move (a move the engine lists and the reference does not would
be untried, and the walk would stop there), and stop a deal that a scopa won.
"""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import api
from scopa_sim.cards import mask_of
from scopa_sim.engine import reference
from scopa_sim.engine.deal_rules import deal_rules
from scopa_sim.engine.kernels import KernelRules, row_tables
from scopa_sim.players.ismcts import _walk
from scopa_sim.rules import parse_variant
from tests.support.replayed import GAMES, packs, reference_end, states_before_each_play


def forced_tree(rules, record, start: int, room: int):
    """A tree over the moves of ``record`` from play ``start``: the arrays ``_walk`` reads, for
    one row. Along the deal's moves every reference legal action has a child (the deal's move
    worth 1, the others 0), but at the last move, whose child is left for the walk to add."""
    first_child = np.full(room, -1, np.int64)
    sibling = np.full(room, -1, np.int64)
    move_card = np.full(room, -1, np.int8)
    move_capture = np.zeros(room, np.uint64)
    move_side = np.zeros(room, np.int8)
    visits, avail, total = np.zeros(room), np.zeros(room), np.zeros(room)
    states = states_before_each_play(rules, record)
    node, n_nodes = 0, 1
    moves = record.moves[start:]
    for depth, move in enumerate(moves):
        state = states[start + depth]
        legal = reference.legal_actions(rules, state["hands"][move.seat], state["table"])
        chosen = (move.card, frozenset(move.captured))
        assert chosen in legal
        last = depth == len(moves) - 1
        following = -1
        for card, taken in legal:
            if last and (card, taken) == chosen:
                continue  # the walk adds this one
            child = n_nodes
            n_nodes += 1
            sibling[child] = first_child[node]
            first_child[node] = child
            move_card[child], move_capture[child] = card, mask_of(taken)
            move_side[child] = record.seat_sides[move.seat]
            visits[child] = avail[child] = 1.0
            total[child] = 1.0 if (card, taken) == chosen else 0.0
            if (card, taken) == chosen:
                following = child
        node = following
    tree = (first_child, sibling, move_card, move_capture, move_side, visits, avail, total)
    return n_nodes, tree


@pytest.mark.parametrize("game", GAMES)
def test_the_walk_ends_in_the_state_the_reference_deal_reaches(game):
    rules = parse_variant(game)
    lineup = [["random", "greedy"][s % 2] for s in range(rules.n_sides)]
    records = api.play_packs(rules, lineup, packs(rules, seed=len(game) + 1), seed=4)
    thirds = [(r, sorted({0, len(r.moves) // 3, 2 * len(r.moves) // 3})) for r in records]
    rows = [(r, k) for r, starts in thirds if r.moves for k in starts]  # (no move: opening won)
    n, room = len(rows), 512
    begin = [states_before_each_play(rules, r)[k] for r, k in rows]
    end = [states_before_each_play(rules, r, after_last=True)[-1] for r, _ in rows]
    trees = [forced_tree(rules, r, k, room) for r, k in rows]

    def stack(i):
        return np.ascontiguousarray(np.stack([t[1][i] for t in trees]))

    hands = np.array([[mask_of(h) for h in s["hands"]] for s in begin], np.uint64).T.copy()
    table = np.array([mask_of(s["table"]) for s in begin], np.uint64)
    captured = np.array([[mask_of(c) for c in s["captured"]] for s in begin], np.uint64).T.copy()
    scope = np.array([s["scope"] for s in begin], np.int16).T.copy()
    last = np.array([s["last"] for s in begin], np.int8)
    played = np.array([mask_of(s["played"]) for s in begin], np.uint64)
    stopped = np.full(n, -1, np.int8)
    play = np.array([k for _, k in rows], np.int64)
    path = np.zeros((n, rules.plays + 1), np.int64)
    path_len = np.zeros(n, np.int64)
    move = KernelRules.of(rules)
    _walk(
        hands, table, captured, scope, last, played, stopped, play,
        np.array([r.pack for r, _ in rows], np.int8),
        np.array([r.seat_sides for r, _ in rows], np.int8), np.zeros((n, rules.n_sides), np.int16),
        np.full(n, 0.5), np.array([t[0] for t in trees], np.int64), *map(stack, range(8)),
        path, path_len, 0.0, deal_rules(rules), move.ranks, *row_tables(move.ranks), move.rule,
        move.fewest, move.forced,
    )  # fmt: skip
    for i, ((record, k), want) in enumerate(zip(rows, end, strict=True)):
        where = f"{game}: pack {records.index(record)} from play {k}"
        assert path_len[i] == len(record.moves) - k, where
        assert play[i] == len(record.moves), where
        assert table[i] == mask_of(want["table"]), where
        assert captured[:, i].tolist() == [mask_of(c) for c in want["captured"]], where
        assert scope[:, i].tolist() == want["scope"], where
        assert last[i] == want["last"] and played[i] == mask_of(want["played"]), where
        assert (hands[:, i] == 0).all() or stopped[i] >= 0, where
        assert stopped[i] == reference_end(rules, record)[3], where
