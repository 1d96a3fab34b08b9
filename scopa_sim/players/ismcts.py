"""Information-set Monte Carlo tree search (SO-ISMCTS: Cowling, Powley and Whitehouse 2012).

One tree per decision, over the moves of every seat as the acting seat sees them: a node is a
sequence of moves (card and capture) from the decision point, whoever made them. Each iteration
deals a fresh determinisation (the hidden cards dealt at random consistently with what the seat
has seen, ``sampling.determinise``) and walks down the tree along moves legal in that deal: while
every legal move has a child, it takes the child of highest UCB value (its side's mean point
difference plus ``exploration * sqrt(ln(availability) / visits)``, availability counting the
iterations in which that move was legal); at the first node where some legal moves have none, it
adds the child of one of them, drawn at random (the iteration's own uniform). From there the
deal is played out on the fused engine by the ``rollout`` player (or a mixture, as ``pimc``'s
``rollout=mix``), scored, and every node of the walk gains its mover's side's point
difference. The move played is the root's most visited child.

Iterations loop in Python over the whole batch: each one walks every row's tree in one compiled
call (the moves are the engine's own, ``kernels.row_actions`` and ``kernels.apply_row``) and plays
every row's rollout in one fused call. The numbers come from the decision's own random numbers,
so the search is deterministic for a seed and does not depend on the batch it runs in. It never
reads hidden cards: every determinisation is sampled from the unseen cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.contract import LegalActions, Observation, Player
from scopa_sim.engine import fused, scoring
from scopa_sim.engine.deal_rules import deal_rules, play_row, seat_sides_around, seat_to_play
from scopa_sim.engine.kernels import KernelRules, row_actions, row_tables
from scopa_sim.jit import njit
from scopa_sim.players.kept import kept_search
from scopa_sim.players.rollouts import play_rollouts, rollout_players
from scopa_sim.players.sampling import determinise
from scopa_sim.rules import RulesError, Variant

#: Largest number of tree nodes held at once (rows of a slice x nodes per tree): bounds memory.
_NODES_PER_SLICE = 1 << 21
#: Legal actions a walk lists in place; a decision point with more ends the walk there (the
#: rollout, which makes room for any number, plays on from it).
_WALK_ACTIONS = 128


@njit(cache=True, nogil=True)
def _walk(
    hands, table, captured, scope, last, played, stopped, play, pack, seat_side, scores, choice,
    n_nodes, first_child, sibling, move_card, move_capture, move_side, visits, avail, total,
    path, path_len, exploration, rules, ranks, rank_mask, rank_of, spread, rule, fewest, forced,
):  # fmt: skip
    """One iteration's selection and expansion for every row ``b``, in place.

    The state (layout ``hands[seat, b]``, ``captured[side, b]``) starts as the row's
    determinisation at the decision point and ends as the state the rollout plays on from
    (``play[b]``, ``stopped[b]`` the side a winning scopa stopped the deal for, else -1);
    ``path[b, :path_len[b]]`` are the nodes the walk went through (the root, node 0, left out).
    ``choice[b]`` in [0, 1) picks the child added among the untried moves. Each move is played
    by ``deal_rules.play_row`` (``rules``: the variant's ``DealRules``), the step of every
    engine: the capture, the stop on a winning scopa, the next hands dealt."""
    n_seats, rows = hands.shape
    cap = _WALK_ACTIONS
    act_card = np.empty((1, cap), np.int8)
    act_capture = np.empty((1, cap), np.uint64)
    act_group = np.empty((1, cap), np.int8)
    child_of = np.empty(cap, np.int64)
    untried = np.empty(cap, np.int64)
    st_rem = np.empty(16, np.uint64)
    st_left = np.empty(16, np.int64)
    st_set = np.empty(16, np.uint64)
    room = first_child.shape[1]
    for b in range(rows):
        node = 0
        depth = 0
        p = play[b]
        while p < rules.plays and stopped[b] < 0:
            seat = seat_to_play(p, n_seats)
            side = seat_side[b, seat]
            count = row_actions(
                hands[seat, b], table[b], ranks, rank_mask, rank_of, spread, rule, fewest, forced,
                act_card, act_capture, act_group, 0, cap, st_rem, st_left, st_set,
            )  # fmt: skip
            if count > cap:
                break
            n_untried = 0
            for k in range(count):
                child = first_child[b, node]
                while child >= 0 and not (
                    move_card[b, child] == act_card[0, k]
                    and move_capture[b, child] == act_capture[0, k]
                ):
                    child = sibling[b, child]
                child_of[k] = child
                if child < 0:
                    untried[n_untried] = k
                    n_untried += 1
                else:
                    avail[b, child] += 1.0
            if n_untried > 0:
                if n_nodes[b] >= room:
                    break
                k = untried[min(int(choice[b] * n_untried), n_untried - 1)]
                child = n_nodes[b]
                n_nodes[b] += 1
                first_child[b, child] = -1
                sibling[b, child] = first_child[b, node]
                first_child[b, node] = child
                move_card[b, child] = act_card[0, k]
                move_capture[b, child] = act_capture[0, k]
                move_side[b, child] = side
                visits[b, child] = 0.0
                avail[b, child] = 1.0
                total[b, child] = 0.0
            else:
                best, best_score = -1, -np.inf
                for k in range(count):
                    c = child_of[k]
                    score = total[b, c] / visits[b, c] + exploration * np.sqrt(
                        np.log(avail[b, c]) / visits[b, c]
                    )
                    if score > best_score:
                        best, best_score = k, score
                k = best
                child = child_of[k]
            play_row(
                b, act_card[0, k], act_capture[0, k], p, side, pack, hands, table, captured,
                scope, last, played, stopped, scores, rules,
            )  # fmt: skip
            p += 1
            path[b, depth] = child
            depth += 1
            node = child
            if n_untried > 0:
                break
        play[b] = p
        path_len[b] = depth


@njit(cache=True, nogil=True)
def _back_up(path, path_len, move_side, visits, total, reward):
    """Every node of each row's walk gains the reward of its mover's side (``reward[b, side]``)."""
    for b in range(len(path_len)):
        for d in range(path_len[b]):
            node = path[b, d]
            visits[b, node] += 1.0
            total[b, node] += reward[b, move_side[b, node]]


@njit(cache=True, nogil=True)
def _root_children(first_child, sibling, move_card, move_capture, visits, total, card, capture):
    """Per row and legal slot: the visits and mean value of the root's child of that move."""
    rows, width = card.shape
    n_visits = np.zeros((rows, width))
    mean = np.full((rows, width), -np.inf)
    for b in range(rows):
        child = first_child[b, 0]
        while child >= 0:
            for k in range(width):
                if card[b, k] == move_card[b, child] and capture[b, k] == move_capture[b, child]:
                    n_visits[b, k] = visits[b, child]
                    if visits[b, child] > 0:
                        mean[b, k] = total[b, child] / visits[b, child]
            child = sibling[b, child]
    return n_visits, mean


def side_rewards(variant: Variant, captured, scope, stopped) -> np.ndarray:
    """``float[B, S]``: each side's deal points minus the mean of the other sides' points."""
    totals = scoring.score(variant, captured, scope, stopped).totals.astype(float)
    others = (totals.sum(axis=1, keepdims=True) - totals) / max(variant.n_sides - 1, 1)
    return totals - others


@dataclass(frozen=True)
class IsmctsPlayer(Player):
    """Information-set MCTS: ``iterations`` walks of one tree over the seat's information set,
    each on a fresh determinisation, rolled out by ``rollout`` (a compiled player, or ``mix``
    over ``mixture``); plays the most visited move. ``exploration`` is the UCB constant in
    points of the deal."""

    name = "ismcts"
    summary = "information-set Monte Carlo tree search: one tree, a new determinisation each walk"
    searches = True
    iterations: int = 256
    exploration: float = 4.0
    rollout: str = "greedy"
    mixture: str = "greedy+memory+chitarrella"

    def __post_init__(self):
        if not 1 <= self.iterations <= 65536:
            raise RulesError(f"ismcts iterations run from 1 to 65536, not {self.iterations}")
        if not 0.0 <= self.exploration <= 100.0:
            raise RulesError(f"ismcts exploration runs from 0 to 100, not {self.exploration}")
        rollout_players(self.rollout, self.mixture)

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        visits, mean = self.search(obs, legal, rng)
        # Most visits; among equals the higher mean, then the lower slot.
        key = np.where(legal.valid, visits + 1e-6 * np.tanh(mean / 16.0), -np.inf)
        return np.argmax(key, axis=1).astype(np.int64)

    def explain(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        """The root's mean point difference of each legal action (``-inf`` in padding). A move
        the search never tried (fewer iterations than moves) gets the position's value, the
        visit-weighted mean of the tried ones: the search knows nothing better of it."""
        visits, mean = self.search(obs, legal, rng)
        tried = visits > 0
        weighted = np.where(tried, visits * np.where(tried, mean, 0.0), 0.0).sum(axis=1)
        position = weighted / np.maximum(visits.sum(axis=1), 1.0)
        values = np.where(tried, mean, position[:, None])
        return np.where(legal.valid, values, -np.inf)

    def search(self, obs: Observation, legal: LegalActions, rng) -> tuple[np.ndarray, np.ndarray]:
        """Per row and legal slot: the visits of the root's child of that move and its mean
        point difference for the seat's side. Rows are searched in slices that bound memory.
        A one-row search is kept for a second asking (:mod:`scopa_sim.players.kept`)."""
        return kept_search(self, obs, legal, rng, self._search)

    def _search(self, obs: Observation, legal: LegalActions, rng) -> tuple[np.ndarray, np.ndarray]:
        rows, width = legal.card.shape
        visits = np.zeros((rows, width))
        mean = np.full((rows, width), -np.inf)
        step = max(1, _NODES_PER_SLICE // (self.iterations + 1))
        for start in range(0, rows, step):
            part = np.arange(start, min(start + step, rows))
            visits[part], mean[part] = self._search_slice(
                obs.take(part), legal.take(part), rng.subset(part)
            )
        return visits, mean

    def _search_slice(self, obs: Observation, legal: LegalActions, rng):
        variant = obs.variant
        rules = KernelRules.of(variant)
        rows, n_cards = len(obs.hand), variant.pack.n_cards
        room = self.iterations + 1
        n_nodes = np.ones(rows, np.int64)
        first_child = np.full((rows, room), -1, np.int64)
        sibling = np.full((rows, room), -1, np.int64)
        move_card = np.full((rows, room), -1, np.int8)
        move_capture = np.zeros((rows, room), np.uint64)
        move_side = np.zeros((rows, room), np.int8)
        visits = np.zeros((rows, room))
        avail = np.zeros((rows, room))
        total = np.zeros((rows, room))
        path = np.zeros((rows, variant.plays + 1), np.int64)
        path_len = np.zeros(rows, np.int64)
        deal = deal_rules(variant)
        rank_mask, rank_of, spread = row_tables(rules.ranks)
        seat_side = np.array(seat_sides_around(variant, obs.seat, obs.side), np.int8, order="C")
        scores = np.array(obs.scores, np.int16, order="C")
        players = rollout_players(self.rollout, self.mixture)
        for _ in range(self.iterations):
            draws = rng.random(size=n_cards + 2)
            hidden_hands, pack = determinise(obs, np.ascontiguousarray(draws[:, None, :n_cards]))
            hands = np.array(hidden_hands.T, np.uint64, order="C")
            table = np.array(obs.table, np.uint64)
            captured = np.array(obs.captured.T, np.uint64, order="C")
            scope = np.array(obs.scope.T, np.int16, order="C")
            last = np.array(obs.last_capturer, np.int8)
            played = np.array(obs.played, np.uint64)
            stopped = np.full(rows, -1, np.int8)
            play = np.full(rows, obs.play, np.int64)
            choice = np.ascontiguousarray(draws[:, n_cards])
            _walk(
                hands, table, captured, scope, last, played, stopped, play, pack, seat_side,
                scores, choice, n_nodes, first_child, sibling, move_card, move_capture,
                move_side, visits, avail, total, path, path_len, float(self.exploration), deal,
                rules.ranks, rank_mask, rank_of, spread, rules.rule, rules.fewest, rules.forced,
            )  # fmt: skip
            end_captured = captured.T.copy()
            end_scope = scope.T.copy()
            done = stopped >= 0
            going = np.flatnonzero(~done)
            if len(going):
                state = fused.DealState(
                    pack=pack[going], hands=hands.T[going], table=table[going],
                    captured=end_captured[going], scope=end_scope[going], played=played[going],
                    last_capturer=last[going], play=play[going], seat_side=seat_side[going],
                    scores=scores[going],
                    deal_keys=(draws[going, n_cards + 1] * 2.0**63).astype(np.uint64),
                )  # fmt: skip
                end = play_rollouts(variant, players, state)
                end_captured[going], end_scope[going] = end.captured, end.scope
                done[going] = end.stopped_by >= 0
            reward = side_rewards(variant, end_captured, end_scope, done)
            _back_up(path, path_len, move_side, visits, total, np.ascontiguousarray(reward))
        return _root_children(
            first_child, sibling, move_card, move_capture, visits, total, legal.card,
            legal.capture,
        )  # fmt: skip
