"""The expert player: the best fair search player distilled into a linear score of each action.

Search (``pimc:samples=256:rollout=mix``) values every legal action of a decision by rolling it
out on hundreds of sampled deals: too slow to play a report's millions of deals. The expert
scores each action by a weighted sum of :data:`FEATURES`, numbers a player can read off the
action and what the seat has seen (what it takes and what that is worth while the points are
still open, the scopa, what it lays, what it leaves the next player to sweep or take, how late
in the deal it is), and plays the highest. The weights are fitted to search's action values
so that the action they pick loses least in search's eyes (``scopa_sim.training`` labels
positions with search and fits them); ``expert_weights.json`` beside this module ships the
result, with the command, data size and seed that made it.

Speed is part of the design (a quarter of greedy's deals per second in the fused engine): the
decision's numbers are computed once and each action changes them only by the cards it moves, a
lone action is played unscored, and the row is inlined into the fused kernel.

One row function (:func:`expert_row`) serves ``act``, the fused engine and the training data
(:func:`action_features`), so the three compute the same features in the same order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import NamedTuple

import numpy as np

from scopa_sim.cards import PRIMIERA_STANDARD
from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.engine.decisions import listing_policy
from scopa_sim.engine.kernels import KernelRules, card_rank, lowest_card, rank_sum
from scopa_sim.jit import njit
from scopa_sim.players.defensive import table_after
from scopa_sim.players.tactics import (
    card_values,
    chance_holds,
    popcount,
    premium_cards,
    rank_masks,
    sweepers_of_sum,
    unseen_cards,
)
from scopa_sim.rules import RulesError, Variant, scoring_table
from scopa_sim.rules.schedule import schedule

#: What the expert reads of each legal action (each also x the share of the deal played, and x
#: "the last hand": :data:`FEATURES`). "Open": no side has yet taken enough of that category
#: (the cards, the suit item's cards, the rank item's cards) to win it outright, so taking more
#: can still change who scores it.
BASE_FEATURES: tuple[str, ...] = (
    "captures",  # 1 for a capture
    "taken_value",  # tactics.card_values of the cards taken (the played card included)
    "taken_cards",  # cards taken
    "taken_cards_open",  # cards taken, while the cards point is open
    "taken_suit_open",  # cards of the suit item (coins) taken, while it is open
    "taken_rank_open",  # cards of the rank item (sevens) taken, while it is open
    "taken_bonus",  # cards that score by themselves (settebello, re bello) taken
    "primiera_gain",  # the side's primiera (best card per suit) raised by the capture, / 21
    "scopa",  # a sweep that scores
    "laid_value",  # card_values of a laid card
    "laid_premium",  # a seven or the settebello laid
    "laid_suit_open",  # a card of the suit item laid while it is open
    "laid_primiera",  # the primiera value of a laid card, / 21
    "laid_matched",  # chance the next player holds the laid card's rank x its value
    "sweep_chance",  # chance the next player can sweep the table left
    "sweep_risk",  # that chance x (a scopa + the table's value)
    "premium_takeable",  # takeable_value of the premium cards (sevens, settebello) left
    "takeable_value",  # sum over the table left of (chance the next player can take it) x value
    "table_cards",  # cards left on the table
    "table_value",  # their card_values
    "left_after_capture",  # a capture x the table's value left
)
#: Every feature the weights weigh: the base features, then each x the share of the deal
#: played, then each x "the last hand" (1 when no stock is left: every unseen card is in a hand).
FEATURES: tuple[str, ...] = (
    *BASE_FEATURES,
    *(f"{name}*stage" for name in BASE_FEATURES),
    *(f"{name}*last_hand" for name in BASE_FEATURES),
)
N_BASE = len(BASE_FEATURES)
N_FEATURES = len(FEATURES)

#: The weights' file, beside this module (``scopa-sim train-expert`` writes it).
WEIGHTS_FILE = "expert_weights.json"


class ExpertParams(NamedTuple):
    """The numbers of the expert's fused row policy."""

    #: float64[plays, N_BASE]: per play, the weights of the base features (the fitted weights
    #: of each, plus its x stage and x last-hand weights times the play's stage and last hand)
    weights: np.ndarray
    value: np.ndarray  # float64[cards]: tactics.card_values
    #: float64[2**ranks]: a suit's best primiera value / 21, by the bits of its cards held
    #: (zeros without primiera)
    prim: np.ndarray
    prim_of: np.ndarray  # float64[cards]: each card's primiera value / 21
    #: uint64[4]: the suit item's cards, the rank item's cards, cards scoring alone, premium
    masks: np.ndarray
    #: int64[4]: cards that win outright the cards point, the suit item, the rank item (0: no
    #: such item), and the plays of a deal
    limits: np.ndarray
    #: float64[plays]: 1.0 for a play in the deal's last hand (no stock left), else 0.0
    last_round: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def _sum_values(cards, value):
    total = 0.0
    rest = cards
    while rest:
        total += value[lowest_card(rest)]
        rest &= rest - np.uint64(1)
    return total


@njit(cache=True, nogil=True, inline="always")
def _open(own, opp, mask, limit):
    """1.0 while neither the side nor the others hold ``limit`` cards of ``mask``."""
    if limit == 0:
        return 0.0
    return 1.0 if popcount(own & mask) < limit and popcount(opp & mask) < limit else 0.0


@njit(cache=True, nogil=True, inline="always")
def _primiera(cards, best_of, ranks):
    """The primiera of ``cards``: the sum over the suits of the best card's value, each suit's
    cards looked up at once (``best_of[suit's cards as bits]``)."""
    mask = (np.uint64(1) << np.uint64(ranks)) - np.uint64(1)
    total = 0.0
    for s in range(4):
        total += best_of[(cards >> np.uint64(ranks * s)) & mask]
    return total


@njit(cache=True, nogil=True, inline="always")
def _held(hold, k):
    """``hold[k]`` for k = 0 .. 4 (:func:`_hold_chances`), by constant indices and without a
    branch: a tuple indexed by a variable compiles to a copy on the stack, and a chain of ifs
    mispredicts; either makes the expert a fifth slower."""
    return (k == 1) * hold[1] + (k == 2) * hold[2] + (k == 3) * hold[3] + (k >= 4) * hold[4]


@njit(cache=True, nogil=True, inline="always")
def _takeable(cards, unseen, hold, ranks, rank_mask, value):
    """The sum over ``cards`` of the chance that the next player holds a card of equal rank
    (``hold`` by the count of unseen cards of that rank) x the card's value."""
    total = 0.0
    rest = cards
    while rest:
        t = lowest_card(rest)
        rest &= rest - np.uint64(1)
        total += _held(hold, popcount(unseen & rank_mask[card_rank(t, ranks)])) * value[t]
    return total


@njit(cache=True, nogil=True, inline="always")
def _hold_chances(n_unseen, next_cards):
    """The chance that the next player holds one of k given unseen cards, for k = 0 .. 4 (a
    tuple; a rank has four cards): ``tactics.chance_holds``, 1 - C(U - k, h) / C(U, h), with
    the products of its four ratios over one shared denominator (one division, not twelve)."""
    if next_cards <= 0:
        return (0.0, 0.0, 0.0, 0.0, 0.0)
    if n_unseen < next_cards:
        return (0.0, 1.0, 1.0, 1.0, 1.0)
    whole = none1 = none2 = none3 = none4 = 1.0
    for i in range(next_cards):
        u = n_unseen - i
        whole *= u
        none1 *= max(u - 1, 0)
        none2 *= max(u - 2, 0)
        none3 *= max(u - 3, 0)
        none4 *= max(u - 4, 0)
    inv = 1.0 / whole
    return (0.0, 1.0 - none1 * inv, 1.0 - none2 * inv, 1.0 - none3 * inv, 1.0 - none4 * inv)


@njit(cache=True, nogil=True, inline="always")
def action_features(
    card, taken, table, unseen, n_unseen, next_cards, next_scopa, scopa_counts, own, opp,
    best, hold, table_worth, table_takeable, table_premium, table_sum, ranks, rank_mask, rule,
    ace_mask, ace_no_scopa, value, prim, prim_of, masks, limits,
):  # fmt: skip
    """The :data:`BASE_FEATURES` of playing ``card`` to take ``taken`` (0: a lay), a tuple.
    ``best`` to ``table_sum`` are the decision's: the side's primiera, :func:`_hold_chances`,
    and the table's card_values, takeable value, premium cards' takeable value and rank sum
    (each action changes them by the cards it moves, not by a walk over the table)."""
    one = np.uint64(1)
    bit = one << np.uint64(card)
    after = table_after(card, taken, table)
    suit_mask, rank_item, bonus = masks[0], masks[1], masks[2]
    captures = taken_value = n_taken = cards_open = suit_open = rank_open = taken_bonus = 0.0
    prim_gain = scopa = laid_value = laid_premium = laid_suit = laid_prim = laid_matched = 0.0
    if taken:
        got = taken | bit
        captures = 1.0
        taken_value = _sum_values(got, value)
        table_value = table_worth - (taken_value - value[card])
        n_taken = float(popcount(got))
        cards_open = n_taken * _open(own, opp, ~np.uint64(0), limits[0])
        suit_open = popcount(got & suit_mask) * _open(own, opp, suit_mask, limits[1])
        rank_open = popcount(got & rank_item) * _open(own, opp, rank_item, limits[2])
        taken_bonus = float(popcount(got & bonus))
        prim_gain = _primiera(own | got, prim, ranks) - best
        ace_sweep = (bit & ace_mask) != 0 and (taken & ace_mask) == 0
        if after == 0 and scopa_counts and not (ace_no_scopa and ace_sweep):
            scopa = 1.0
    else:
        table_value = table_worth + value[card]
        laid_value = value[card]
        laid_premium = 1.0 if bit & masks[3] else 0.0
        laid_suit = _open(own, opp, suit_mask, limits[1]) if bit & suit_mask else 0.0
        laid_prim = prim_of[card]
        laid_matched = (
            _held(hold, popcount(unseen & rank_mask[card_rank(card, ranks)])) * value[card]
        )
    sweep_chance = 0.0
    if after != 0 and next_cards:
        total = table_sum - rank_sum(taken, ranks) if taken else table_sum + card_rank(card, ranks)
        k = popcount(sweepers_of_sum(after, total, unseen, ranks, rank_mask, rule, ace_mask))
        sweep_chance = _held(hold, k) if k <= 4 else chance_holds(k, n_unseen, next_cards)
    sweep_risk = sweep_chance * (next_scopa + table_value)
    # What the next player can take card by card with an equal rank, of every card and of the
    # premium cards: the table's, less the cards taken, or plus the card laid.
    moved = taken if taken else bit
    sign = -1.0 if taken else 1.0
    takeable = table_takeable + sign * _takeable(moved, unseen, hold, ranks, rank_mask, value)
    premium = table_premium + sign * _takeable(
        moved & masks[3], unseen, hold, ranks, rank_mask, value
    )
    return (
        captures, taken_value, n_taken, cards_open, suit_open, rank_open, taken_bonus, prim_gain,
        scopa, laid_value, laid_premium, laid_suit, laid_prim, laid_matched, sweep_chance,
        sweep_risk, premium, takeable, float(popcount(after)), table_value,
        captures * table_value,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _dot(w, f):
    """``sum(w[i] * f[i])`` over the :data:`BASE_FEATURES` tuple ``f``, written out: a tuple
    indexed by a loop variable compiles to a copy on the stack, several times slower here
    (``tests/test_expert.py`` checks that every feature is in the sum)."""
    return (
        w[0] * f[0]
        + w[1] * f[1]
        + w[2] * f[2]
        + w[3] * f[3]
        + w[4] * f[4]
        + w[5] * f[5]
        + w[6] * f[6]
        + w[7] * f[7]
        + w[8] * f[8]
        + w[9] * f[9]
        + w[10] * f[10]
        + w[11] * f[11]
        + w[12] * f[12]
        + w[13] * f[13]
        + w[14] * f[14]
        + w[15] * f[15]
        + w[16] * f[16]
        + w[17] * f[17]
        + w[18] * f[18]
        + w[19] * f[19]
        + w[20] * f[20]
    )


@njit(cache=True, nogil=True, inline="always")
def decision_context(hand, table, own, captured_any, played, full, last_round):
    """What every action of one decision shares: the unseen cards and their count, the others'
    captures, the play's index (the cards played so far), the share of the deal played, and
    whether this play is in the deal's last hand (``last_round[play]``, 1.0 or 0.0)."""
    unseen = unseen_cards(full, hand, table, captured_any, played)
    done = popcount(played)
    return (
        unseen,
        popcount(unseen),
        captured_any & ~own,
        done,
        done / len(last_round),
        last_round[done],
    )


@njit(cache=True, nogil=True, inline="always")
def expert_row(
    card, capture, count, b, hand, table, own, captured_any, played, full, next_cards,
    next_scopa, scopa_counts, ranks, rank_mask, rule, ace_mask, ace_no_scopa, weights, value,
    prim, prim_of, masks, limits, last_round,
):  # fmt: skip
    """Row ``b``'s choice among its ``count`` legal actions: the highest weighted sum of the
    features (a score must beat the best so far by 1e-12: ties go to the lowest slot)."""
    if count == 1:
        return 0
    unseen, n_unseen, opp, done, _, _ = decision_context(
        hand, table, own, captured_any, played, full, last_round
    )
    w = weights[done]
    best_prim = _primiera(own, prim, ranks)
    hold = _hold_chances(n_unseen, next_cards)
    table_worth = _sum_values(table, value)
    table_takeable = _takeable(table, unseen, hold, ranks, rank_mask, value)
    table_premium = _takeable(table & masks[3], unseen, hold, ranks, rank_mask, value)
    table_sum = rank_sum(table, ranks)
    best, best_score = 0, -1e300
    for k in range(count):
        f = action_features(
            card[b, k], capture[b, k], table, unseen, n_unseen, next_cards, next_scopa,
            scopa_counts, own, opp, best_prim, hold, table_worth, table_takeable, table_premium,
            table_sum, ranks, rank_mask, rule, ace_mask, ace_no_scopa, value, prim, prim_of,
            masks, limits,
        )  # fmt: skip
        score = _dot(w, f)
        if score > best_score + 1e-12:
            best, best_score = k, score
    return best


@njit(cache=True, nogil=True)
def _expert(
    card, capture, count, hand, table, own, captured_any, played, next_cards, next_scopa,
    scopa_counts, full, ranks, rank_mask, rule, ace_mask, ace_no_scopa, weights, value, prim,
    prim_of, masks, limits, last_round,
):  # fmt: skip
    out = np.zeros(len(count), np.int64)
    for b in range(len(count)):
        out[b] = expert_row(
            card, capture, count[b], b, hand[b], table[b], own[b], captured_any[b], played[b],
            full, next_cards[b], next_scopa[b], scopa_counts[b], ranks, rank_mask, rule,
            ace_mask, ace_no_scopa, weights, value, prim, prim_of, masks, limits, last_round,
        )  # fmt: skip
    return out


@njit(cache=True, nogil=True)
def _features(
    decision, card, capture, hand, table, own, captured_any, played, next_cards, next_scopa,
    scopa_counts, full, ranks, rank_mask, rule, ace_mask, ace_no_scopa, value, prim, prim_of,
    masks, limits, last_round,
):  # fmt: skip
    """``float64[actions, N_FEATURES]``: the features of action ``i`` (``card[i]`` taking
    ``capture[i]`` at decision ``decision[i]``, whose state is the per-decision arrays)."""
    out = np.zeros((len(card), N_FEATURES))
    d_prev = -1
    unseen, n_unseen, opp, stage, last_hand = np.uint64(0), 0, np.uint64(0), 0.0, 0.0
    best_prim = 0.0
    hold = (0.0,) * 5
    table_worth = table_takeable = table_premium = 0.0
    table_sum = 0
    for i in range(len(card)):
        d = decision[i]
        if d != d_prev:
            unseen, n_unseen, opp, _, stage, last_hand = decision_context(
                hand[d], table[d], own[d], captured_any[d], played[d], full, last_round
            )
            best_prim = _primiera(own[d], prim, ranks)
            hold = _hold_chances(n_unseen, next_cards[d])
            table_worth = _sum_values(table[d], value)
            table_takeable = _takeable(table[d], unseen, hold, ranks, rank_mask, value)
            table_premium = _takeable(table[d] & masks[3], unseen, hold, ranks, rank_mask, value)
            table_sum = rank_sum(table[d], ranks)
            d_prev = d
        f = action_features(
            card[i], capture[i], table[d], unseen, n_unseen, next_cards[d], next_scopa[d],
            scopa_counts[d], own[d], opp, best_prim, hold, table_worth, table_takeable,
            table_premium, table_sum, ranks, rank_mask, rule, ace_mask, ace_no_scopa, value,
            prim, prim_of, masks, limits,
        )  # fmt: skip
        for j in range(N_BASE):
            out[i, j] = f[j]
            out[i, N_BASE + j] = stage * f[j]
            out[i, 2 * N_BASE + j] = last_hand * f[j]
    return out


@njit(cache=True, nogil=True, inline="always")
def _expert_choice(count, params, seen, rules, scratch):
    """The fused row policy's choice: :func:`expert_row` with the side's :class:`ExpertParams`,
    inlined into the kernel. Compiled apart (as ``defensive._defensive_choice`` is), the call
    would pass a dozen arrays field by field on every decision: a seventh of the expert's time,
    against some 10 s more to compile the kernel cold."""
    side = seen.side
    full = (np.uint64(1) << np.uint64(rules.n_pack_cards)) - np.uint64(1)
    return expert_row(
        scratch.card, scratch.capture, count, 0, seen.hand, seen.table, seen.captured_own,
        seen.captured_any, seen.played, full, seen.next_cards, seen.next_scopa, seen.scopa_ok,
        rules.ranks, rules.rank_mask, rules.rule, rules.ace_mask, rules.ace_no_scopa,
        params.weights[side], params.value[side], params.prim[side], params.prim_of[side],
        params.masks[side], params.limits[side], params.last_round[side],
    )  # fmt: skip


expert_decide = listing_policy(_expert_choice)


# The variant's numbers -------------------------------------------------------------------------


@cache
def rule_numbers(variant: Variant) -> tuple[np.ndarray, ...]:
    """``(value, prim, prim_of, masks, limits, last_round)`` of :class:`ExpertParams`, from the
    variant's scoring table and schedule: the first most-suit item's suit (else coins), the
    first most-rank item's rank (else the sevens when primiera scores), the cards of ``card``
    items, and how many cards of each category win it outright."""
    pack = variant.pack
    items = scoring_table(variant)
    kinds = {item.kind for item in items}
    suit = next((i.suit for i in items if i.kind == "most-suit"), 0)
    rank = next((i.rank for i in items if i.kind == "most-rank"), None)
    suit_mask = pack.suit_mask(suit)
    rank_item = pack.rank_mask(rank) if rank else 0
    if not rank and "primiera" in kinds:
        rank_item = pack.rank_mask(7)
    bonus = 0
    for item in items:
        if item.kind == "card":
            for c in item.cards:
                bonus |= 1 << c
    prim_of = np.zeros(pack.n_cards)
    if "primiera" in kinds:
        ranks = np.arange(pack.n_cards) % pack.ranks + 1
        prim_of = np.array([PRIMIERA_STANDARD[r] / 21.0 if r <= 10 else 0.0 for r in ranks])
    # A suit's best value for every set of its cards: the best of one card fewer, or that card.
    prim = np.zeros(1 << pack.ranks)
    for bits in range(1, len(prim)):
        low = (bits & -bits).bit_length() - 1
        prim[bits] = max(prim[bits & (bits - 1)], prim_of[low])
    limits = np.array([
        pack.n_cards // 2 + 1 if "most-cards" in kinds or "at-least" in kinds else 0,
        _bits(suit_mask) // 2 + 1,
        _bits(rank_item) // 2 + 1 if rank_item else 0,
        variant.plays,
    ], np.int64)  # fmt: skip
    masks = np.array([suit_mask, rank_item, bonus, premium_cards(variant)], np.uint64)
    round_of = schedule(variant).round_of
    last_round = (round_of == round_of[-1]).astype(np.float64)
    return card_values(variant), prim, prim_of, masks, limits, last_round


def _bits(mask: int) -> int:
    return bin(int(mask)).count("1")


@cache
def trained() -> dict:
    """The shipped weights' file, read (``{}`` when the expert was never trained)."""
    path = resources.files("scopa_sim.players") / WEIGHTS_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text("utf-8"))
    if list(data.get("features", [])) != list(FEATURES):
        raise RulesError(
            f"{WEIGHTS_FILE} was trained on other features than this version's expert reads; "
            "train it again with scopa-sim train-expert"
        )
    return data


def weights_for(variant: Variant) -> np.ndarray:
    """The weights the expert plays ``variant`` with: its preset's (a preset with rule options,
    or a file of the preset's name, plays its preset's weights), else the weights fitted on
    every preset's data pooled. Raises RulesError with the fix when nothing was trained."""
    data = trained()
    per_variant = data.get("variants", {})
    if variant.name in per_variant:
        return np.array(per_variant[variant.name], np.float64)
    if "pooled" in data:
        return np.array(data["pooled"], np.float64)
    raise RulesError(
        f"the expert is not trained (no {WEIGHTS_FILE} in scopa_sim/players); train it with "
        "`scopa-sim train-expert` (docs/players.md), or choose another player"
    )


def play_weights(weights: np.ndarray, last_round: np.ndarray) -> np.ndarray:
    """``float64[plays, N_BASE]``: the fitted weights (:data:`FEATURES`' order) folded per play,
    so a decision weighs each base feature once: plain + stage x "x stage" + last hand x "x last
    hand" (stage: the share of the deal played, as :func:`decision_context` gives it)."""
    plain, late, last = weights[:N_BASE], weights[N_BASE : 2 * N_BASE], weights[2 * N_BASE :]
    stage = np.arange(len(last_round)) / len(last_round)
    return np.ascontiguousarray(
        plain + stage[:, None] * late + np.asarray(last_round)[:, None] * last
    )


@dataclass(frozen=True)
class ExpertPlayer(Player):
    """Search distilled: scores each action by a linear model of its features, fitted to the
    action values of ``pimc:samples=256:rollout=mix``; plays the best."""

    name = "expert"
    summary = "search distilled: a linear score of each action fitted to pimc's values"
    #: Plays left (this one included) that the expert solves exactly once it can know every
    #: hidden card: in a deal of two seats, when no stock is left, the other seat holds every
    #: card not yet seen. It then plays as ``pimc:samples=1:endgame=...`` does (its one sample
    #: is the deal itself), by minimax over every way the deal can end (``players.endgame``).
    #: 0, the default: never, and the expert plays on the fused engine; otherwise it has no
    #: fused row policy and plays on the lockstep engine.
    endgame: int = 0

    def __post_init__(self):
        if not 0 <= self.endgame <= 12:
            raise RulesError(
                f"expert endgame (plays left solved exactly) runs 0..12, not {self.endgame}"
            )

    @property
    def fused_policy(self) -> FusedPolicy | None:  # type: ignore[override]
        return None if self.endgame else _FUSED_POLICY

    def policy_params(self, variant: Variant) -> ExpertParams:
        numbers = rule_numbers(variant)
        return ExpertParams(play_weights(weights_for(variant), numbers[-1]), *numbers)

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        if self.endgame and knows_every_card(obs.variant, obs.play, self.endgame):
            from scopa_sim.players.pimc import PimcPlayer

            return PimcPlayer(samples=1, endgame=self.endgame - 1).act(obs, legal, rng)
        p = self.policy_params(obs.variant)
        return _expert(legal.card, legal.capture, legal.count, *decision_state(obs),
                       *_rule_arguments(obs.variant), p.weights, *p[1:])  # fmt: skip


_FUSED_POLICY = FusedPolicy("expert", expert_decide)


def knows_every_card(variant: Variant, play: int, plays_left: int) -> bool:
    """Whether the player of ``play`` can know every hidden card and at most ``plays_left``
    plays (``play`` included) are left: a deal of two seats in its last round (no stock left:
    the other seat holds exactly the cards this one has not seen)."""
    left = variant.plays - play
    rounds = schedule(variant).round_of
    return variant.n_players == 2 and left <= plays_left and rounds[play] == rounds[-1]


def decision_state(obs: Observation) -> tuple[np.ndarray, ...]:
    """Per row, what the expert reads of the observation: ``hand``, ``table``, the side's own
    captures, every side's captures OR-ed, ``played``, the cards the next player holds, 1.0
    when a sweep on the next play scores (else 0.0), and whether a sweep on this play scores:
    the state of a training position (``scopa_sim.training``)."""
    variant = obs.variant
    rows = len(obs.hand)
    own = obs.captured[np.arange(rows), obs.side.astype(np.int64)]
    next_last = obs.play + 1 == variant.plays - 1
    return (
        np.ascontiguousarray(obs.hand, np.uint64),
        np.ascontiguousarray(obs.table, np.uint64),
        np.ascontiguousarray(own, np.uint64),
        np.bitwise_or.reduce(obs.captured, axis=1).astype(np.uint64),
        np.ascontiguousarray(obs.played, np.uint64),
        np.full(rows, int(schedule(variant).next_cards[obs.play]), np.int64),
        np.full(rows, 0.0 if next_last and not variant.last_play_scopa else 1.0),
        np.full(rows, not obs.last_play or variant.last_play_scopa, np.bool_),
    )


def _rule_arguments(variant: Variant) -> tuple:
    """``full`` to ``ace_no_scopa`` of :func:`_expert`, from the variant: inserted after the
    first five state arrays."""
    rules = KernelRules.of(variant)
    return (variant.pack.full_mask, rules.ranks, rank_masks(variant), rules.rule,
            rules.ace_mask, rules.ace_no_scopa)  # fmt: skip


def features(variant: Variant, state: tuple, decision, card, capture) -> np.ndarray:
    """``float64[actions, N_FEATURES]``: the features the expert reads of each action, for
    actions given flat (action ``i`` plays ``card[i]`` taking ``capture[i]`` at decision
    ``decision[i]`` of ``state``, :func:`decision_state`'s arrays): the training data."""
    hand, table, own, any_, played, next_cards, next_scopa, scopa_counts = state
    full, ranks, rank_mask, rule, ace_mask, ace_no_scopa = _rule_arguments(variant)
    value, prim, prim_of, masks, limits, last_round = rule_numbers(variant)
    return _features(
        np.asarray(decision, np.int64), np.asarray(card, np.int64),
        np.asarray(capture, np.uint64), hand, table, own, any_, played, next_cards, next_scopa,
        scopa_counts, full, ranks, rank_mask, rule, ace_mask, ace_no_scopa, value, prim, prim_of,
        masks, limits, last_round,
    )  # fmt: skip
