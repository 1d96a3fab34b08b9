"""The defensive player: greedy, but it never leaves the next player a sweep it could avoid.

"Could sweep" is judged with the cards the seat has not seen (``tactics.sweepers``): a table
whose sum no unseen card makes is safe. Like greedy it captures whenever it can; among its
captures, and among its lays, it picks the best safe one, and greedy's best when none is safe.
(Preferring a safe lay to an unsafe capture was measured: it loses to greedy.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import listing_policy
from scopa_sim.engine.kernels import KernelRules, rank_sum
from scopa_sim.jit import njit
from scopa_sim.players.greedy import GreedyParams, action_key, card_weights
from scopa_sim.players.tactics import (
    rank_masks,
    sweepers,
    unseen_cards,
)
from scopa_sim.rules import Variant
from scopa_sim.rules.schedule import schedule


@njit(cache=True, nogil=True, inline="always")
def table_after(played, taken, table):
    """The table once ``played`` has captured ``taken`` (or been laid, when ``taken`` is 0)."""
    if taken:
        return table & ~taken
    return table | (np.uint64(1) << np.uint64(played))


@njit(cache=True, nogil=True, inline="always")
def defensive_row(
    card, capture, count, b, table, table_total, unseen, next_cards, ranks, rank_mask, rule,
    ace_mask, ace_no_scopa, scopa_counts, capture_weight, lay_worth,
):  # fmt: skip
    """Row ``b``'s choice: greedy's order (a capture before a lay), and within captures and
    within lays, safe actions before unsafe ones."""
    best_capture, best_capture_key, best_capture_safe = -1, -1, False
    best_lay, best_lay_key, best_lay_safe = -1, 1 << 62, False
    for k in range(count):
        played, taken = card[b, k], capture[b, k]
        safe = next_cards == 0 or (
            sweepers(table_after(played, taken, table), unseen, ranks, rank_mask, rule, ace_mask)
            == 0
        )
        key = action_key(
            played, taken, table, table_total, ranks, rule, ace_mask, ace_no_scopa,
            scopa_counts, capture_weight, lay_worth,
        )  # fmt: skip
        if taken:
            if (safe and not best_capture_safe) or (
                safe == best_capture_safe and key > best_capture_key
            ):
                best_capture, best_capture_key, best_capture_safe = k, key, safe
        elif (safe and not best_lay_safe) or (safe == best_lay_safe and key < best_lay_key):
            best_lay, best_lay_key, best_lay_safe = k, key, safe
    # As greedy, a capture beats a lay; within each, a safe action beats an unsafe one.
    return best_capture if best_capture >= 0 else best_lay


@njit(cache=True, nogil=True)
def _defensive(
    card, capture, count, hand, table, captured, played, full, next_cards, ranks, rank_mask,
    rule, ace_mask, ace_no_scopa, scopa_counts, capture_weight, lay_worth,
):  # fmt: skip
    out = np.zeros(len(count), np.int64)
    for b in range(len(count)):
        unseen = unseen_cards(full, hand[b], table[b], captured[b], played[b])
        out[b] = defensive_row(
            card, capture, count[b], b, table[b], rank_sum(table[b], ranks), unseen,
            next_cards, ranks, rank_mask, rule, ace_mask, ace_no_scopa, scopa_counts,
            capture_weight, lay_worth,
        )  # fmt: skip
    return out


@njit(cache=True, nogil=True, _nrt=False)
def _defensive_apart(
    count, card, capture, hand, table, table_total, captured_any, played, next_cards, scopa_ok,
    n_pack_cards, ranks, rank_mask, rule, ace_mask, ace_no_scopa, capture_weight, lay_worth,
):  # fmt: skip
    """:func:`defensive_row` on the listed actions, compiled apart from the kernel (it does real
    work per decision)."""
    full = (np.uint64(1) << np.uint64(n_pack_cards)) - np.uint64(1)
    unseen = unseen_cards(full, hand, table, captured_any, played)
    return defensive_row(
        card, capture, count, 0, table, table_total, unseen, next_cards, ranks, rank_mask, rule,
        ace_mask, ace_no_scopa, scopa_ok, capture_weight, lay_worth,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _defensive_choice(count, params, seen, rules, scratch):
    """The fused row policy's choice: :func:`_defensive_apart` with the side's
    ``greedy.GreedyParams``. Why the bundles are taken apart here, inlined: the call to a
    function compiled apart passes each field of its arguments, so it passes only those read."""
    side = seen.side
    return _defensive_apart(
        count, scratch.card, scratch.capture, seen.hand, seen.table, seen.table_total,
        seen.captured_any, seen.played, seen.next_cards, seen.scopa_ok, rules.n_pack_cards,
        rules.ranks, rules.rank_mask, rules.rule, rules.ace_mask, rules.ace_no_scopa,
        params.capture_weight[side], params.lay_worth[side],
    )  # fmt: skip


defensive_decide = listing_policy(_defensive_choice)


@dataclass(frozen=True)
class DefensivePlayer(Player):
    """Greedy, plus: never leave a table that the next player can sweep when another play
    avoids it, judged with the cards still unseen."""

    name = "defensive"
    summary = "greedy, but never leaves a sweepable table when another play avoids it"
    fused_policy = FusedPolicy("defensive", defensive_decide, tracks_table_total=True)

    def policy_params(self, variant: Variant) -> GreedyParams:
        return GreedyParams(*card_weights(variant))

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        variant = obs.variant
        rules = KernelRules.of(variant)
        capture_weight, lay_worth = card_weights(variant)
        scopa_counts = not obs.last_play or variant.last_play_scopa
        return _defensive(
            legal.card, legal.capture, legal.count, obs.hand, obs.table,
            np.bitwise_or.reduce(obs.captured, axis=1), obs.played, variant.pack.full_mask,
            int(schedule(variant).next_cards[obs.play]), rules.ranks, rank_masks(variant),
            rules.rule, rules.ace_mask, rules.ace_no_scopa, scopa_counts, capture_weight,
            lay_worth,
        )  # fmt: skip
