"""The cautious player compiled with numba: the same choices as ``examples/cautious.py``, one
``@njit`` loop over the rows of the batch (the way ``scopa_sim/players/greedy.py`` is written),
and the same choice for one row as a fused row policy, so that the engine can play whole deals
of it without returning to Python (``contract.FusedPolicy``).

A compiled loop pays off when a player does real work per row (looking at every capture, counting
unseen cards, ...): numpy's whole-array operations then cost more than a plain loop in machine
code. The first call compiles the kernel (``cache=True`` keeps it on disk for the next runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from examples.cautious import POINT, card_worth
from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import listing_policy
from scopa_sim.rules import Variant
from scopa_sim.seeding import DecisionRandom


@njit(cache=True, nogil=True, inline="always")
def _table_sum(table, ranks):
    """The sum of the ranks of the cards on ``table``."""
    one = np.uint64(1)
    total, rest, c = 0, table, 0
    while rest:
        if rest & one:
            total += c % ranks + 1
        rest >>= one
        c += 1
    return total


@njit(cache=True, nogil=True, inline="always")
def _value(played, taken, table, table_sum, worth, ranks, margin, scopa_counts, ace_mask, ace_rule):
    """The value of one action in milli-points (the one rule of both paths)."""
    one = np.uint64(1)
    if taken:
        gain = worth[played]
        for t in range(len(worth)):
            if (taken >> np.uint64(t)) & one:
                gain += worth[t]
        scopa = scopa_counts and (table & ~taken) == 0
        if ace_rule and played % ranks == 0 and (taken & ace_mask) == 0:
            scopa = False  # an ace's sweep is no scopa
        return gain + scopa * POINT
    rank = played % ranks + 1
    within_reach = table_sum + rank <= ranks + margin
    return -(worth[played] + rank) - within_reach * POINT


@njit(cache=True, nogil=True)
def _values(card, capture, count, table, worth, ranks, margin, scopa_counts, ace_mask, ace_rule):
    """Per row and slot, the value of the action in milli-points (the minimum in padding)."""
    rows, width = card.shape
    out = np.full((rows, width), np.iinfo(np.int64).min, np.int64)
    for b in range(rows):
        table_sum = _table_sum(table[b], ranks)
        for k in range(count[b]):
            out[b, k] = _value(
                np.int64(card[b, k]), capture[b, k], table[b], table_sum, worth, ranks, margin,
                scopa_counts, ace_mask, ace_rule,
            )  # fmt: skip
    return out


class CautiousParams(NamedTuple):
    """The numbers of the fused row policy, by name (``Player.policy_params``)."""

    worth: np.ndarray  # int64[cards]: each card's worth (examples.cautious.card_worth)
    margin: int  # CompiledCautiousPlayer.margin


@njit(cache=True, nogil=True)
def _choose(count, params, seen, rules, scratch):
    """The fused row policy's choice among the listed actions (``count`` of them, in row 0 of
    ``scratch``): the first slot of highest value, with this side's worths and margin."""
    worth, margin = params.worth[seen.side], params.margin[seen.side]
    table, ranks = seen.table, rules.ranks
    table_sum = _table_sum(table, ranks)
    best, best_value = 0, np.iinfo(np.int64).min
    for k in range(count):
        value = _value(
            np.int64(scratch.card[0, k]), scratch.capture[0, k], table, table_sum, worth, ranks,
            margin, seen.scopa_ok, rules.ace_mask, rules.ace_no_scopa,
        )  # fmt: skip
        if value > best_value:
            best, best_value = k, value
    return best


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
    fused_policy = FusedPolicy("compiled_cautious", listing_policy(_choose))
    margin: int = 0

    def policy_params(self, variant: Variant) -> CautiousParams:
        return CautiousParams(card_worth(variant), int(self.margin))

    def _values(self, obs: Observation, legal: LegalActions) -> np.ndarray:
        variant = obs.variant
        ace_rule = variant.ace_sweeps and not variant.ace_sweep_scopa
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
