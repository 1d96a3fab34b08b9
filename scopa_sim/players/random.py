"""The random player: a uniform hand card, then a uniform capture of that card."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.seeding import DecisionRandom


@dataclass(frozen=True)
class RandomPlayer(Player):
    name = "random"
    summary = "a hand card uniformly at random, then one of its captures uniformly at random"

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        chosen = rng.integers(legal.n_cards)
        in_group = legal.group == chosen[:, None]
        first = in_group.argmax(axis=1)
        return first + rng.integers(in_group.sum(axis=1))
