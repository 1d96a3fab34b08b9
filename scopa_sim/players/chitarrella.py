"""The chitarrella player: the expert rules of the classic literature, as far as each variant
admits them.

The rules are those of Chitarrella's *Regole dello Scopone* (1750) with Saracino's additions,
as they are usually summarised; each branch below cites the rule it encodes. They are rules of
thumb in a fixed order of priority, not a search: the player scores every legal action with a
tuple of priorities (packed into one number) and plays the best.

Captures, in order: a scopa (R1: "la scopa prima di tutto"); the settebello (R2); sevens, then
sixes, then aces, the primiera cards (R3: "la primiera si fa coi sette"); in Scopone, breaking
the pairs when the seat's team deals and keeping them when it leads (R7: "chi è di mano
appariglia, chi è di posta spariglia"); then coins and cards. A capture that leaves the next
player a sweep, judged with the unseen cards, is worth less than one that does not (R4: "non
lasciare scopa").

Lays, in order: never leave a sweep when another lay avoids it (R4); never lay the settebello
or a seven while another card will do (R2, R3), nor a card that lets a premium card be taken;
lay a card of a rank already dead (no unseen copy: nobody can match it) or one of a double
held in hand (R5: "gioca le carte doppie"; R6: "gioca le carte morte"), and lead from doubles
(R5); otherwise the least valuable card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import listing_policy
from scopa_sim.engine.kernels import KernelRules, card_rank, lowest_card
from scopa_sim.jit import njit
from scopa_sim.players.defensive import table_after
from scopa_sim.players.greedy import card_weights
from scopa_sim.players.tactics import (
    popcount,
    premium_cards,
    rank_masks,
    sweepers,
    unseen_cards,
)
from scopa_sim.rules import Variant
from scopa_sim.rules.schedule import schedule

_BIG = 1 << 50


class ChitarrellaParams(NamedTuple):
    """The numbers of chitarrella's fused row policy."""

    capture_weight: np.ndarray  # int64[cards]: ``greedy.card_weights``
    lay_worth: np.ndarray  # int64[cards]
    premium: np.uint64  # the sevens and the settebello (``tactics.premium_cards``)
    spariglio: int  # 1 where R7 applies (``spariglio_applies``), else 0


def spariglio_applies(variant: Variant) -> bool:
    """Whether R7 applies: the four-handed games of two teams dealt in one hand (Scopone)."""
    return variant.n_players == 4 and variant.n_sides == 2 and len(variant.hands) == 1


@njit(cache=True, nogil=True, inline="always")
def chitarrella_row(
    card, capture, count, b, hand, table, unseen, next_cards, scopa_counts, spariglio,
    ranks, rank_mask, rule, ace_mask, ace_no_scopa, capture_weight, lay_worth, premium,
):  # fmt: skip
    """Row ``b``'s choice: the best capture by the capture rules, else the best lay."""
    one = np.uint64(1)
    best_capture, best_capture_key = -1, -(1 << 62)
    best_lay, best_lay_key = -1, -(1 << 62)
    for k in range(count):
        played, taken = card[b, k], capture[b, k]
        bit = one << np.uint64(played)
        after = table_after(played, taken, table)
        leaves_sweep = next_cards > 0 and (
            sweepers(after, unseen, ranks, rank_mask, rule, ace_mask) != 0
        )
        if taken:
            key = capture_weight[played]
            rest = taken
            while rest:
                key += capture_weight[lowest_card(rest)]
                rest &= rest - one
            ace_sweep = (bit & ace_mask) != 0 and (taken & ace_mask) == 0
            if after == 0 and scopa_counts and not (ace_no_scopa and ace_sweep):
                key += 4 * _BIG  # R1: a scopa first
            if leaves_sweep:
                key -= 2 * _BIG  # R4: do not leave a scopa ...
            # R7 (Scopone): the dealing team breaks the pairs (a capture of two or more cards),
            # the leading team keeps them (a capture of one card). Below primiera, above coins.
            if spariglio != 0 and (popcount(taken) >= 2) == (spariglio > 0):
                key += 1 << 20
            if key > best_capture_key:
                best_capture, best_capture_key = k, key
        else:
            r = card_rank(played, ranks)
            key = 0
            if leaves_sweep:
                key -= 4 * _BIG  # R4: never leave a scopa when another lay avoids it
            if (bit & premium) != 0:
                key -= 2 * _BIG  # R2, R3: keep the settebello and the sevens in hand
            # R5: lay one of a double held in hand (its match is likely ours to take back);
            # R6: a dead rank (no copy unseen) cannot be matched at all.
            if (unseen & rank_mask[r]) == 0:
                key += _BIG // 2
            elif popcount(hand & rank_mask[r]) >= 2:
                key += _BIG // 4
            # Do not offer a premium card to a sum: a lay that makes r + (a table 7) reachable.
            rest = after & premium
            while rest:
                t = lowest_card(rest)
                rest &= rest - one
                v = r + card_rank(t, ranks)
                if v <= ranks and (unseen & rank_mask[v]) != 0 and (after & rank_mask[v]) == 0:
                    key -= _BIG // 8
            key -= lay_worth[played]  # otherwise the least valuable card
            if key > best_lay_key:
                best_lay, best_lay_key = k, key
    return best_capture if best_capture >= 0 else best_lay


@njit(cache=True, nogil=True)
def _chitarrella(
    card, capture, count, hand, table, captured, played, full, next_cards, scopa_counts,
    spariglio, ranks, rank_mask, rule, ace_mask, ace_no_scopa, capture_weight, lay_worth,
    premium,
):  # fmt: skip
    out = np.zeros(len(count), np.int64)
    for b in range(len(count)):
        unseen = unseen_cards(full, hand[b], table[b], captured[b], played[b])
        out[b] = chitarrella_row(
            card, capture, count[b], b, hand[b], table[b], unseen, next_cards, scopa_counts,
            spariglio[b], ranks, rank_mask, rule, ace_mask, ace_no_scopa, capture_weight,
            lay_worth, premium,
        )  # fmt: skip
    return out


@njit(cache=True, nogil=True, _nrt=False)
def _chitarrella_apart(
    count, card, capture, hand, table, captured_any, played, next_cards, scopa_ok, spariglio,
    n_pack_cards, ranks, rank_mask, rule, ace_mask, ace_no_scopa, capture_weight, lay_worth,
    premium,
):  # fmt: skip
    """:func:`chitarrella_row` on the listed actions, compiled apart from the kernel."""
    full = (np.uint64(1) << np.uint64(n_pack_cards)) - np.uint64(1)
    unseen = unseen_cards(full, hand, table, captured_any, played)
    return chitarrella_row(
        card, capture, count, 0, hand, table, unseen, next_cards, scopa_ok, spariglio, ranks,
        rank_mask, rule, ace_mask, ace_no_scopa, capture_weight, lay_worth, premium,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _chitarrella_choice(count, params, seen, rules, scratch):
    """The fused row policy's choice: :func:`_chitarrella_apart` with the side's
    :class:`ChitarrellaParams` (R7: +1 for the dealer's team, -1 for the other, where it
    applies), the bundles taken apart here, inlined, so that the call passes only the fields it
    reads (``defensive._defensive_choice`` says why)."""
    side = seen.side
    spariglio = params.spariglio[side] * (1 if seen.dealer else -1)
    return _chitarrella_apart(
        count, scratch.card, scratch.capture, seen.hand, seen.table, seen.captured_any,
        seen.played, seen.next_cards, seen.scopa_ok, spariglio, rules.n_pack_cards, rules.ranks,
        rules.rank_mask, rules.rule, rules.ace_mask, rules.ace_no_scopa,
        params.capture_weight[side], params.lay_worth[side], params.premium[side],
    )  # fmt: skip


chitarrella_decide = listing_policy(_chitarrella_choice)


@dataclass(frozen=True)
class ChitarrellaPlayer(Player):
    """The classic expert rules (Chitarrella, with Saracino's additions): primiera cards and the
    settebello first, no scopa left to the next player, doubles and dead cards laid, and in
    Scopone the spariglio for the dealing team."""

    name = "chitarrella"
    summary = "the classic expert rules: primiera cards, settebello, no scopa left, doubles"
    fused_policy = FusedPolicy("chitarrella", chitarrella_decide)

    def policy_params(self, variant: Variant) -> ChitarrellaParams:
        return ChitarrellaParams(
            *card_weights(variant), np.uint64(premium_cards(variant)),
            int(spariglio_applies(variant)),
        )  # fmt: skip

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        variant = obs.variant
        rules = KernelRules.of(variant)
        capture_weight, lay_worth = card_weights(variant)
        scopa_counts = not obs.last_play or variant.last_play_scopa
        # R7 applies to the four-handed games dealt in one hand (Scopone): +1 for the dealer's
        # team (break the pairs), -1 for the leading team (keep them), 0 elsewhere.
        if spariglio_applies(variant):
            spariglio = np.where(obs.side == obs.dealer_side, 1, -1).astype(np.int64)
        else:
            spariglio = np.zeros(len(obs.side), np.int64)
        premium = premium_cards(variant)
        return _chitarrella(
            legal.card, legal.capture, legal.count, obs.hand, obs.table,
            np.bitwise_or.reduce(obs.captured, axis=1), obs.played, variant.pack.full_mask,
            int(schedule(variant).next_cards[obs.play]), scopa_counts, spariglio, rules.ranks,
            rank_masks(variant), rules.rule, rules.ace_mask, rules.ace_no_scopa,
            capture_weight, lay_worth, premium,
        )  # fmt: skip
