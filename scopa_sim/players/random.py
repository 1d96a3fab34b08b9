"""The random player: a uniform hand card, then a uniform capture of that card."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.seeding import DecisionRandom


@njit(cache=True, nogil=True)
def _pick(group, n_cards, u_card, u_capture):
    """Per row: the ``floor(u_card * n_cards)``-th playable card, then one of its actions."""
    rows = len(n_cards)
    out = np.empty(rows, np.int64)
    for b in range(rows):
        card = min(int(u_card[b] * n_cards[b]), n_cards[b] - 1)
        first, size = -1, 0
        for k in range(group.shape[1]):
            if group[b, k] == card:
                if first < 0:
                    first = k
                size += 1
            elif first >= 0:
                break  # a card's actions are contiguous
        out[b] = first + min(int(u_capture[b] * size), size - 1)
    return out


@dataclass(frozen=True)
class RandomPlayer(Player):
    name = "random"
    summary = "a hand card uniformly at random, then one of its captures uniformly at random"

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        u_card = rng.random()
        u_capture = rng.random()
        return _pick(legal.group, legal.n_cards, u_card, u_capture)
