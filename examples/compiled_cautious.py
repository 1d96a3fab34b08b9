"""The cautious player compiled with numba: the same choices as ``examples/cautious.py``, one
``@njit`` loop over the rows of the batch (the way ``scopa_sim/players/greedy.py`` is written).

A compiled loop pays off when a player does real work per row (looking at every capture, counting
unseen cards, ...): numpy's whole-array operations then cost more than a plain loop in machine
code. The first call compiles the kernel (``cache=True`` keeps it on disk for the next runs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from examples.cautious import POINT, card_worth
from scopa_sim.players import LegalActions, Observation, Player
from scopa_sim.rules import Capture
from scopa_sim.seeding import DecisionRandom


@njit(cache=True, nogil=True)
def _values(card, capture, count, table, worth, ranks, margin, scopa_counts, ace_mask, ace_rule):
    """Per row and slot, the value of the action in milli-points (the minimum in padding)."""
    rows, width = card.shape
    out = np.full((rows, width), np.iinfo(np.int64).min, np.int64)
    one = np.uint64(1)
    for b in range(rows):
        table_sum = 0
        rest = table[b]
        c = 0
        while rest:  # the sum of the table's ranks
            if rest & one:
                table_sum += c % ranks + 1
            rest >>= one
            c += 1
        for k in range(count[b]):
            played = np.int64(card[b, k])
            taken = capture[b, k]
            if taken:
                gain = worth[played]
                for t in range(len(worth)):
                    if (taken >> np.uint64(t)) & one:
                        gain += worth[t]
                scopa = scopa_counts and (table[b] & ~taken) == 0
                if ace_rule and played % ranks == 0 and (taken & ace_mask) == 0:
                    scopa = False  # an ace's sweep is no scopa
                out[b, k] = gain + scopa * POINT
            else:
                rank = played % ranks + 1
                within_reach = table_sum + rank <= ranks + margin
                out[b, k] = -(worth[played] + rank) - within_reach * POINT
    return out


@njit(cache=True, nogil=True)
def _best(values, count):
    """Per row, the first slot of highest value."""
    out = np.zeros(len(count), np.int64)
    for b in range(len(count)):
        for k in range(1, count[b]):
            if values[b, k] > values[b, out[b]]:
                out[b] = k
    return out


@dataclass(frozen=True)
class CompiledCautiousPlayer(Player):
    """``examples.cautious.CautiousPlayer``, compiled: the same choices, one loop over rows."""

    name = "compiled-cautious"
    summary = "the cautious example player, compiled with numba"
    margin: int = 0

    def _values(self, obs: Observation, legal: LegalActions) -> np.ndarray:
        variant = obs.variant
        ace_rule = variant.capture is Capture.ACE_TAKES_ALL and not variant.ace_sweep_scopa
        scopa_counts = not obs.last_play or variant.last_play_scopa
        return _values(
            legal.card, legal.capture, legal.count, obs.table, card_worth(variant),
            variant.pack.ranks, self.margin, scopa_counts,
            np.uint64(variant.pack.rank_mask(1)), ace_rule,
        )  # fmt: skip

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        return _best(self._values(obs, legal), legal.count)

    def explain(self, obs: Observation, legal: LegalActions) -> np.ndarray:
        values = self._values(obs, legal)
        valid = np.arange(legal.card.shape[1]) < legal.count[:, None]
        return np.where(valid, values / POINT, np.nan)
