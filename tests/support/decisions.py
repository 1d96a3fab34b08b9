"""Decision points of real deals, for tests that search from them: what a seat was shown."""

from __future__ import annotations

import dataclasses

import numpy as np

from scopa_sim import api
from scopa_sim.contract import Player
from scopa_sim.rules import variant

#: (obs, legal, rng) of the decisions a :class:`Recorder` was asked to make.
_SEEN: list = []


@dataclasses.dataclass(frozen=True)
class Recorder(Player):
    """Plays slot 0 and keeps what it was shown (a fresh generator of each decision point)."""

    name = "recorder"

    def act(self, obs, legal, rng):
        _SEEN.append((obs, legal, rng.subset(np.arange(len(legal.count)))))
        return np.zeros(len(legal.count), np.int64)


def decision_points(rules, deals: int, seed: int) -> tuple:
    """Every decision the recorder (side 0, greedy on the other sides) met in ``deals`` deals,
    as (obs, legal, rng), one batch of rows per play."""
    _SEEN.clear()
    v = variant(rules) if isinstance(rules, str) else rules
    api.play_deals(v, [Recorder()] + ["greedy"] * (v.n_sides - 1), deals=deals, seed=seed)
    points = tuple(_SEEN)
    _SEEN.clear()
    return points
