"""The exact value of a deal's last hand: minimax over every way the deal can end.

``pimc`` solves each sample exactly with it when few plays are left (``endgame``), and values every
end of a deal, rolled out or solved, by the same point difference. The moves are the engine's own
(``kernels.row_actions``, ``kernels.apply_row``) and the points ``scoring.score``, so the solver
is no second copy of the rules.
"""

from __future__ import annotations

import numpy as np

from scopa_sim.engine import fused, scoring
from scopa_sim.engine.deal_rules import (
    deal_rules,
    end_deal,
    seat_to_play,
    sweep_counts,
    wins_outright,
)
from scopa_sim.engine.kernels import (
    KernelRules,
    apply_row,
    row_actions,
    row_tables,
    stack_scratch,
)
from scopa_sim.jit import njit
from scopa_sim.rules import Variant


@njit(cache=True, nogil=True)
def _endgame_tree(
    hands0, table0, captured0, scope0, last0, played0, seat_side, scores, p0, rules, ranks,
    rank_mask, rank_of, spread, rule, fewest, forced, node_parent, node_side, node_root,
    leaf_node, leaf_captured, leaf_scope, leaf_stopped, st_rem, st_left, st_set, cap,
):  # fmt: skip
    """Every way each root state can play out to the end of its deal, as a tree.

    Roots are states just before play ``p0`` (layout ``hands0[seat, r]``, ``captured0[side,
    r]``), with every remaining play in hands already dealt. Nodes are numbered in depth-first
    order (a child after its parent): ``node_parent`` (-1 for a root), ``node_side`` (the side
    to move, -1 at a leaf), ``node_root``. Each leaf records the deal's end (the last
    capturer's leftovers taken; a deal stopped by a winning scopa as it stood). Returns
    (nodes, leaves), (-1, -1) when the preallocated arrays are too small, or (-2, actions) when
    a decision point has more legal actions than ``cap``. The moves are the
    engine's own (``kernels.row_actions``, ``kernels.apply_row``), and so are the rules around
    them (``deal_rules``, from ``rules``: whose turn, whether a sweep counts, the stop on a
    winning scopa, the end of the deal). No hand is dealt: every play left is in hand.
    """
    plays, full = rules.plays, rules.full
    n_seats, n_roots = hands0.shape[0], hands0.shape[1]
    n_sides = captured0.shape[0]
    depth_max = plays - p0 + 1
    hands = np.zeros((n_seats, depth_max), np.uint64)
    table = np.zeros(depth_max, np.uint64)
    captured = np.zeros((n_sides, depth_max), np.uint64)
    scope = np.zeros((n_sides, depth_max), np.int16)
    last = np.zeros(depth_max, np.int8)
    played = np.zeros(depth_max, np.uint64)
    stopped = np.zeros(depth_max, np.int8)
    act_card = np.empty((depth_max, cap), np.int8)
    act_capture = np.empty((depth_max, cap), np.uint64)
    act_group = np.empty((depth_max, cap), np.int8)
    count = np.zeros(depth_max, np.int64)
    nxt = np.zeros(depth_max, np.int64)
    node_of = np.zeros(depth_max, np.int64)
    n_nodes, n_leaves = 0, 0
    for r in range(n_roots):
        for t in range(n_seats):
            hands[t, 0] = hands0[t, r]
        table[0], last[0], played[0], stopped[0] = table0[r], last0[r], played0[r], -1
        for s in range(n_sides):
            captured[s, 0], scope[s, 0] = captured0[s, r], scope0[s, r]
        d = 0
        fresh = True
        while d >= 0:
            p = p0 + d
            if fresh:
                fresh = False
                if n_nodes >= len(node_parent):
                    return -1, -1
                node_of[d] = n_nodes
                node_parent[n_nodes] = node_of[d - 1] if d > 0 else -1
                node_root[n_nodes] = r
                if p == plays or stopped[d] >= 0:
                    if n_leaves >= len(leaf_node):
                        return -1, -1
                    node_side[n_nodes] = -1
                    leaf_node[n_leaves] = n_nodes
                    end_deal(d, captured, last[d], table[d], stopped[d] >= 0, full)
                    for s in range(n_sides):
                        leaf_captured[n_leaves, s] = captured[s, d]
                        leaf_scope[n_leaves, s] = scope[s, d]
                    leaf_stopped[n_leaves] = stopped[d]
                    n_leaves += 1
                    n_nodes += 1
                    d -= 1
                    continue
                seat = seat_to_play(p, n_seats)
                node_side[n_nodes] = seat_side[r, seat]
                n_nodes += 1
                count[d] = row_actions(
                    hands[seat, d], table[d], ranks, rank_mask, rank_of, spread, rule, fewest,
                    forced, act_card, act_capture, act_group, d, cap, st_rem, st_left, st_set,
                )  # fmt: skip
                if count[d] > cap:
                    return -2, count[d]
                nxt[d] = 0
            if nxt[d] >= count[d]:
                d -= 1
                continue
            k = nxt[d]
            nxt[d] += 1
            seat = seat_to_play(p, n_seats)
            side = seat_side[r, seat]
            e = d + 1
            for t in range(n_seats):
                hands[t, e] = hands[t, d]
            table[e], last[e], played[e], stopped[e] = table[d], last[d], played[d], -1
            for s in range(n_sides):
                captured[s, e], scope[s, e] = captured[s, d], scope[s, d]
            scopa = apply_row(
                e, act_card[d, k], act_capture[d, k], side, hands[seat], table, captured, scope,
                last, played, sweep_counts(p, rules), rules.ace_mask, rules.ace_no_scopa,
            )  # fmt: skip
            if scopa and wins_outright(rules, scores[r, side], scope[side, e]):
                stopped[e] = side
            d = e
            fresh = True
    return n_nodes, n_leaves


@njit(cache=True, nogil=True)
def _minimax(node_parent, node_side, leaf_node, leaf_value, my_side, n_nodes, n_leaves, root_of):
    """Back each leaf's value (my side's point difference) up the tree: my side maximises, the
    others minimise. Returns the value of each root, in the order the roots were expanded."""
    value = np.empty(n_nodes)
    for i in range(n_nodes):
        value[i] = -np.inf if node_side[i] == my_side[root_of[i]] else np.inf
    for j in range(n_leaves):
        value[leaf_node[j]] = leaf_value[j]
    roots = []
    for i in range(n_nodes - 1, -1, -1):
        parent = node_parent[i]
        if parent < 0:
            roots.append(value[i])
            continue
        if node_side[parent] == my_side[root_of[parent]]:
            value[parent] = max(value[parent], value[i])
        else:
            value[parent] = min(value[parent], value[i])
    out = np.empty(len(roots))
    for i in range(len(roots)):
        out[i] = roots[len(roots) - 1 - i]
    return out


def point_difference(variant, captured, scope, stopped, side) -> np.ndarray:
    """Each deal's points for ``side`` minus the mean of the other sides' (``scoring.score``)."""
    totals = scoring.score(variant, captured, scope, stopped).totals.astype(float)
    rows = np.arange(len(side))
    mine = totals[rows, side]
    return mine - (totals.sum(axis=1) - mine) / max(variant.n_sides - 1, 1)


def _tree_arrays(room: int, sides: int) -> tuple[np.ndarray, ...]:
    """The arrays ``_endgame_tree`` fills, room for ``room`` nodes and leaves: left
    uninitialised (it writes every entry it reports), so that only the pages a tree uses are
    touched, not the whole room at each call."""
    return (
        np.empty(room, np.int64), np.empty(room, np.int8), np.empty(room, np.int64),
        np.empty(room, np.int64), np.empty((room, sides), np.uint64),
        np.empty((room, sides), np.int16), np.empty(room, np.int8),
    )  # fmt: skip


def solve_endgame(variant: Variant, state: fused.DealState, side: np.ndarray) -> np.ndarray:
    """The exact value of each state (a deal in its last dealt hand) for ``side``: minimax over
    every way the deal can end, ``side`` maximising its point difference, the others minimising
    it. Trees are built in slices of states that fit the preallocated arrays."""
    out = np.empty(len(side))
    rules, deal = KernelRules.of(variant), deal_rules(variant)
    rank_mask, rank_of, spread = row_tables(rules.ranks)
    stacks = stack_scratch()
    p0 = int(state.play[0])
    if (state.play != p0).any():
        raise ValueError("solve_endgame takes states at one play index")
    start, step, room, cap = 0, 1024, 1 << 20, 64
    tree = _tree_arrays(room, variant.n_sides)
    while start < len(side):
        stop = min(start + step, len(side))
        part = state.take(np.arange(start, stop))
        if len(tree[0]) < room:
            tree = _tree_arrays(room, variant.n_sides)
        node_parent, node_side, node_root, leaf_node, leaf_captured, leaf_scope, leaf_stopped = tree
        n_nodes, n_leaves = _endgame_tree(
            np.ascontiguousarray(part.hands.T), part.table.copy(),
            np.ascontiguousarray(part.captured.T), np.ascontiguousarray(part.scope.T),
            part.last_capturer.astype(np.int8), part.played.copy(),
            np.ascontiguousarray(part.seat_side, np.int8), np.ascontiguousarray(part.scores),
            p0, deal, rules.ranks, rank_mask, rank_of, spread, rules.rule, rules.fewest,
            rules.forced, node_parent, node_side, node_root, leaf_node, leaf_captured, leaf_scope,
            leaf_stopped, *stacks, cap,
        )  # fmt: skip
        if n_nodes == -2:  # a decision point with more legal actions than cap: widen it
            cap = int(n_leaves)
            continue
        if n_nodes < 0:
            if step > 1:
                step = max(1, step // 4)
            else:
                room *= 4
            continue
        own = side[start:stop]
        leaf_side = own[node_root[leaf_node[:n_leaves]]]
        leaf_value = point_difference(
            variant, leaf_captured[:n_leaves], leaf_scope[:n_leaves],
            leaf_stopped[:n_leaves] >= 0, leaf_side,
        )  # fmt: skip
        out[start:stop] = _minimax(
            node_parent, node_side, leaf_node, leaf_value, own.astype(np.int8), n_nodes,
            n_leaves, node_root,
        )  # fmt: skip
        start = stop
    return out
