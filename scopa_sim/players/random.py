"""The random player: a uniform hand card, then a uniform capture of that card."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.jit import njit
from scopa_sim.players.base import FUSED_RANDOM, LegalActions, Observation, Player
from scopa_sim.seeding import DecisionRandom


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


@dataclass(frozen=True)
class RandomPlayer(Player):
    name = "random"
    summary = "a hand card uniformly at random, then one of its captures uniformly at random"
    fused_code = FUSED_RANDOM  # draws the same two uniforms per decision (engine/fused.py)

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        u_card = rng.random()
        u_capture = rng.random()
        return _pick(legal.group, legal.n_cards, u_card, u_capture)
