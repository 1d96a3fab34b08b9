"""The random player: a uniform hand card, then a uniform capture of that card."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.seeding import DecisionRandom


def card_groups(legal: LegalActions) -> tuple[np.ndarray, np.ndarray]:
    """Per slot, the index of its card among the row's playable cards; and cards per row."""
    valid = legal.valid
    starts = valid.copy()
    starts[:, 1:] &= legal.card[:, 1:] != legal.card[:, :-1]
    group = np.cumsum(starts, axis=1) - 1
    return np.where(valid, group, -1), starts.sum(axis=1)


@dataclass(frozen=True)
class RandomPlayer(Player):
    name = "random"
    summary = "a hand card uniformly at random, then one of its captures uniformly at random"

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        group, n_cards = card_groups(legal)
        chosen = rng.integers(n_cards)
        in_group = group == chosen[:, None]
        first = in_group.argmax(axis=1)
        return first + rng.integers(in_group.sum(axis=1))
