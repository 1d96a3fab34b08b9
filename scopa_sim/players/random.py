"""The random player: a uniform hand card, then a uniform capture of that card."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import call_bits, draw, list_captures, listing_policy
from scopa_sim.engine.kernels import lowest_card, popcount
from scopa_sim.jit import njit
from scopa_sim.seeding import DecisionRandom, uniform_index


@njit(cache=True, nogil=True, inline="always")
def pick_row(group, width, n_cards, u_card, u_capture, b):
    """Row ``b``: the ``floor(u_card * n_cards)``-th playable card among the first ``width``
    slots of ``group``, then one of its actions by ``u_capture`` (the fused row policy too)."""
    card = min(int(u_card * n_cards), n_cards - 1)
    first, size = -1, 0
    for k in range(width):
        if group[b, k] == card:
            if first < 0:
                first = k
            size += 1
        elif first >= 0:
            break  # a card's actions are contiguous
    return first + min(int(u_capture * size), size - 1)


@njit(cache=True, nogil=True)
def _pick(group, n_cards, u_card, u_capture):
    """Per row: the ``floor(u_card * n_cards)``-th playable card, then one of its actions."""
    rows = len(n_cards)
    out = np.empty(rows, np.int64)
    for b in range(rows):
        out[b] = pick_row(group, group.shape[1], n_cards[b], u_card[b], u_capture[b], b)
    return out


@njit(cache=True, nogil=True, inline="always")
def _choose_listed(count, params, seen, rules, scratch):
    """``pick_row`` on the listed legal actions, with ``act``'s two draws."""
    u_card, u_capture = draw(seen.draws, 0), draw(seen.draws, 1)
    group = scratch.group
    return pick_row(group, count, group[0, count - 1] + 1, u_card, u_capture, 0)


_listed = listing_policy(_choose_listed)


@njit(cache=True, nogil=True, inline="always")
def random_decide(params, seen, rules, scratch):
    """The fused row policy. Under forced capture some cards may not be playable, so the legal
    actions are listed first (:func:`_choose_listed`). Otherwise every card of the hand is, and
    the choice is ``pick_row``'s on the same draws with only the picked card's captures listed:
    the k-th card by id, k drawn from call 1, then one of its captures from call 2 when it has
    several (indices from ``seeding.uniform_index``, the draws' own integers)."""
    if rules.forced:
        return _listed(params, seen, rules, scratch)
    one = np.uint64(1)
    hand = seen.hand
    n_cards = popcount(hand)
    rest = hand
    if n_cards > 1:
        for _ in range(uniform_index(call_bits(seen.draws, 0), n_cards)):
            rest &= rest - one
    card = lowest_card(rest)
    count = list_captures(card, seen, rules, scratch)
    if count == 0:
        return np.int64(1), np.int64(card), np.uint64(0)  # a lay
    if count > scratch.card.shape[1]:
        return np.int64(count), np.int64(card), np.uint64(0)
    if count == 1:
        return np.int64(count), np.int64(card), scratch.capture[0, 0]
    j = uniform_index(call_bits(seen.draws, 1), count)
    return np.int64(count), np.int64(card), scratch.capture[0, j]


@dataclass(frozen=True)
class RandomPlayer(Player):
    name = "random"
    summary = "a hand card uniformly at random, then one of its captures uniformly at random"
    fused_policy = FusedPolicy("random", random_decide, draws=True, small=True)

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        u_card = rng.random()
        u_capture = rng.random()
        return _pick(legal.group, legal.n_cards, u_card, u_capture)
