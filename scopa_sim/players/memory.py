"""The memory player: counts cards and weighs each play against the next player's best reply.

For each legal action it estimates, in points, what the action gains now (the cards taken, by
``tactics.card_values``, and a scopa) and what it exposes: the chance that the next player holds
a card that sweeps the table left behind (with the unseen cards and the size of that player's
hand, ``tactics.chance_holds``), and, short of a sweep, the chance that a seven or the
settebello left on the table is taken. It plays the action of highest gain minus exposure.
Because it counts unseen cards, the last card of a rank is known to be safe to lay, and a
double (two cards of a rank in hand) is known to leave few matches for the opponent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import listing_policy
from scopa_sim.engine.kernels import (
    MATCH,
    MATCH_PRIORITY,
    SUM,
    TOTAL_SHIFT,
    KernelRules,
    card_rank,
    lowest_card,
)
from scopa_sim.jit import njit
from scopa_sim.players.defensive import table_after
from scopa_sim.players.tactics import (
    card_values,
    chance_holds,
    popcount,
    premium_cards,
    rank_masks,
    sweepers,
    unseen_cards,
)
from scopa_sim.rules import Variant
from scopa_sim.rules.schedule import schedule


class MemoryParams(NamedTuple):
    """The numbers of memory's fused row policy."""

    card_worth: np.ndarray  # float64[cards]: ``MemoryPlayer.card_worths``
    premium: np.uint64  # the sevens and the settebello (``tactics.premium_cards``)
    scopa: float  # the weights of ``MemoryPlayer``
    caution: float
    lay: float


@njit(cache=True, nogil=True, inline="always")
def exposure(
    after, unseen, n_unseen, next_cards, next_scopa, ranks, rank_mask, rule, ace_mask, value,
    premium,
):  # fmt: skip
    """Expected points the next player takes from the table ``after``: a sweep (with its scopa
    when it counts), else the premium cards (sevens, settebello) it can take one by one."""
    if next_cards == 0 or after == 0:
        return 0.0
    one = np.uint64(1)
    k = popcount(sweepers(after, unseen, ranks, rank_mask, rule, ace_mask))
    p_sweep = chance_holds(k, n_unseen, next_cards)
    table_value = 0.0
    rest = after
    while rest:
        table_value += value[lowest_card(rest)]
        rest &= rest - one
    return premium_risk(
        p_sweep * (next_scopa + table_value), p_sweep, after, unseen, n_unseen, next_cards,
        ranks, rank_mask, rule, value, premium,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def premium_risk(
    risk, p_sweep, after, unseen, n_unseen, next_cards, ranks, rank_mask, rule, value, premium
):  # fmt: skip
    """``risk`` (a sweep's, when the next player sweeps with chance ``p_sweep``) plus, short of
    a sweep, what it expects to take of the premium cards of ``after`` one by one: by an equal
    rank, or with one other table card."""
    one = np.uint64(1)
    rest = after & premium
    while rest:
        t = lowest_card(rest)
        rest &= rest - one
        r = card_rank(t, ranks)
        # By each kind of capture the rule enables: a match, a sum with one other table card
        # (unless a table card matches that sum first), the rank making the total with it.
        takers = unseen & rank_mask[r] if rule & MATCH else np.uint64(0)
        if rule & SUM:
            others = after & ~(one << np.uint64(t))
            while others:
                u = lowest_card(others)
                others &= others - one
                v = r + card_rank(u, ranks)
                if v <= ranks and not ((rule & MATCH_PRIORITY) and (after & rank_mask[v]) != 0):
                    takers |= unseen & rank_mask[v]
        need = (rule >> TOTAL_SHIFT) - r
        if rule >> TOTAL_SHIFT and 1 <= need <= ranks:
            takers |= unseen & rank_mask[need]
        p_take = chance_holds(popcount(takers), n_unseen, next_cards)
        risk += (1.0 - p_sweep) * p_take * value[t]
    return risk


@njit(cache=True, nogil=True, inline="always")
def memory_row(
    card, capture, count, b, table, unseen, next_cards, next_scopa, scopa_counts, ranks,
    rank_mask, rule, ace_mask, ace_no_scopa, value, premium, scopa_worth, caution, lay_cost,
):  # fmt: skip
    """Row ``b``'s choice among its ``count`` legal actions: the highest gain minus exposure
    (a score must beat the best so far by 1e-12, so ties go to the lowest slot). ``act`` and
    the fused engine both call this, so their floating-point sums are the same. The weights
    (:class:`MemoryPlayer`'s fields) are 1.0, 1.0 and 0.01 by default: a product by 1.0 is
    exact, so the defaults play bit for bit as the unweighted rule did."""
    one = np.uint64(1)
    n_unseen = popcount(unseen)
    best, best_score = 0, -1e300
    for k in range(count):
        played_card, taken = card[b, k], capture[b, k]
        after = table_after(played_card, taken, table)
        gain = 0.0
        if taken:
            gain = value[played_card]
            rest = taken
            while rest:
                gain += value[lowest_card(rest)]
                rest &= rest - one
            ace_sweep = ((one << np.uint64(played_card)) & ace_mask) != 0 and (
                taken & ace_mask
            ) == 0
            if after == 0 and scopa_counts and not (ace_no_scopa and ace_sweep):
                gain += scopa_worth
        else:
            gain = -value[played_card] * lay_cost  # lay the cheapest card, other things equal
        score = gain - caution * exposure(
            after, unseen, n_unseen, next_cards, next_scopa * scopa_worth, ranks, rank_mask,
            rule, ace_mask, value, premium,
        )  # fmt: skip
        if score > best_score + 1e-12:
            best, best_score = k, score
    return best


@njit(cache=True, nogil=True)
def _memory(
    card, capture, count, hand, table, captured, played, full, next_cards, next_scopa,
    scopa_counts, ranks, rank_mask, rule, ace_mask, ace_no_scopa, value, premium, weights,
):  # fmt: skip
    out = np.zeros(len(count), np.int64)
    for b in range(len(count)):
        unseen = unseen_cards(full, hand[b], table[b], captured[b], played[b])
        out[b] = memory_row(
            card, capture, count[b], b, table[b], unseen, next_cards, next_scopa, scopa_counts,
            ranks, rank_mask, rule, ace_mask, ace_no_scopa, value, premium, weights[0],
            weights[1], weights[2],
        )  # fmt: skip
    return out


@njit(cache=True, nogil=True, _nrt=False)
def _memory_apart(
    count, card, capture, hand, table, captured_any, played, next_cards, next_scopa, scopa_ok,
    n_pack_cards, ranks, rank_mask, rule, ace_mask, ace_no_scopa, value, premium, scopa_worth,
    caution, lay_cost,
):  # fmt: skip
    """:func:`memory_row` on the listed actions, compiled apart from the kernel."""
    full = (np.uint64(1) << np.uint64(n_pack_cards)) - np.uint64(1)
    unseen = unseen_cards(full, hand, table, captured_any, played)
    return memory_row(
        card, capture, count, 0, table, unseen, next_cards, next_scopa, scopa_ok, ranks,
        rank_mask, rule, ace_mask, ace_no_scopa, value, premium, scopa_worth, caution, lay_cost,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _memory_choice(count, params, seen, rules, scratch):
    """The fused row policy's choice: :func:`_memory_apart` with the side's
    :class:`MemoryParams`, the bundles taken apart here, inlined, so that the call passes only
    the fields it reads (``defensive._defensive_choice`` says why)."""
    side = seen.side
    return _memory_apart(
        count, scratch.card, scratch.capture, seen.hand, seen.table, seen.captured_any,
        seen.played, seen.next_cards, seen.next_scopa, seen.scopa_ok, rules.n_pack_cards,
        rules.ranks, rules.rank_mask, rules.rule, rules.ace_mask, rules.ace_no_scopa,
        params.card_worth[side], params.premium[side], params.scopa[side], params.caution[side],
        params.lay[side],
    )  # fmt: skip


memory_decide = listing_policy(_memory_choice)


@dataclass(frozen=True)
class MemoryPlayer(Player):
    """Counts cards: plays the action worth most now minus what it exposes to the next player
    (a sweep, a seven or the settebello), with the chances computed from the unseen cards."""

    name = "memory"
    summary = "counts cards; weighs each play against the next player's chance to sweep or take 7s"
    fused_policy = FusedPolicy("memory", memory_decide)
    #: Its weights, in points (``scopa-sim tune`` searches them; the defaults are the rule as
    #: first written): a scopa's worth, the weight of what a play exposes, the cost of a laid
    #: card per point of its value, and what a settebello, a seven and a coin are worth on top
    #: of ``tactics.card_values``.
    scopa: float = 1.0
    caution: float = 1.0
    lay: float = 0.01
    extra_settebello: float = 0.0
    extra_sevens: float = 0.0
    extra_coins: float = 0.0

    #: The weights ``scopa-sim tune`` (:mod:`scopa_sim.tuning`) searches, each with the range
    #: it searches it in.
    WEIGHTS: ClassVar[dict[str, tuple[float, float]]] = {
        "scopa": (0.0, 4.0), "caution": (0.0, 3.0), "lay": (0.0, 0.2),
        "extra_settebello": (-1.0, 2.0), "extra_sevens": (-0.5, 1.0), "extra_coins": (-0.3, 0.6),
    }  # fmt: skip

    def card_worths(self, variant: Variant) -> np.ndarray:
        """``tactics.card_values(variant)`` with the extra worths added (a sum of 0.0 leaves
        a value as it was)."""
        value = card_values(variant).copy()
        pack = variant.pack
        for c in range(pack.n_cards):
            if c == variant.settebello:
                value[c] += self.extra_settebello
            if pack.rank(c) == 7:
                value[c] += self.extra_sevens
            if pack.suit(c) == 0:
                value[c] += self.extra_coins
        return value

    def policy_params(self, variant: Variant) -> MemoryParams:
        return MemoryParams(
            self.card_worths(variant), np.uint64(premium_cards(variant)), float(self.scopa),
            float(self.caution), float(self.lay),
        )  # fmt: skip

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        variant = obs.variant
        rules = KernelRules.of(variant)
        scopa_counts = not obs.last_play or variant.last_play_scopa
        next_last = obs.play + 1 == variant.plays - 1
        next_scopa = 1.0 if (not next_last or variant.last_play_scopa) else 0.0
        return _memory(
            legal.card, legal.capture, legal.count, obs.hand, obs.table,
            np.bitwise_or.reduce(obs.captured, axis=1), obs.played, variant.pack.full_mask,
            int(schedule(variant).next_cards[obs.play]), next_scopa, scopa_counts, rules.ranks,
            rank_masks(variant), rules.rule, rules.ace_mask, rules.ace_no_scopa,
            self.card_worths(variant), premium_cards(variant),
            np.array([self.scopa, self.caution, self.lay]),
        )  # fmt: skip
