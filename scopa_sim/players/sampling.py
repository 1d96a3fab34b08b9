"""Deals consistent with what a seat has seen: the hidden cards drawn at random.

The determinisation every search player samples from (``pimc``, ``ismcts``) and the analysis of a
position (``scopa_sim.position``), kept in one place so that they all draw the same deals: the
unseen cards (``tactics.unseen_cards``) dealt to the other seats' hands and to the hands still to
come, the known cards where they are: a declared hand shown to the table (``Observation.shown``,
cirulla.md C5.3) stays with its holder.
"""

from __future__ import annotations

import numpy as np

from scopa_sim.contract import Observation
from scopa_sim.engine.kernels import lowest_card, popcount
from scopa_sim.jit import njit
from scopa_sim.players.tactics import unseen_cards
from scopa_sim.rules.schedule import schedule


@njit(cache=True, nogil=True)
def _determinise(
    hand, table, captured_any, played, shown, full, seat, in_hand, round_of_play, round_starts,
    hand_sizes, n_cards, uniforms, out_hands, out_pack,
):  # fmt: skip
    """Sample row ``b``'s hidden cards ``samples`` times.

    The unseen cards are shuffled (Fisher-Yates on ``uniforms``) and dealt in order: first the
    other seats' current hands (``in_hand`` cards each, the cards ``shown[b, seat]`` they have
    shown among them), then the hands of the rounds to come,
    written into the pack at their canonical positions. Pack positions already dealt hold the
    seen cards, so each sampled pack is a permutation. ``out_hands[k, seat]``,
    ``out_pack[k, :]`` for sample ``k`` of row ``b`` (rows are ``k // samples``).
    """
    rows, samples = uniforms.shape[0], uniforms.shape[1]
    n_seats = out_hands.shape[1]
    pool = np.empty(64, np.int64)
    for b in range(rows):
        unseen = unseen_cards(full, hand[b], table[b], captured_any[b], played[b])
        for t in range(n_seats):
            unseen &= ~shown[b, t]
        seen = full & ~unseen
        n_unseen = 0
        rest = unseen
        while rest:
            pool[n_unseen] = lowest_card(rest)
            rest &= rest - np.uint64(1)
            n_unseen += 1
        r0 = round_of_play[b]
        for s in range(samples):
            k = b * samples + s
            # Fisher-Yates over the unseen cards, from this sample's uniforms.
            for i in range(n_unseen - 1, 0, -1):
                j = min(int(uniforms[b, s, i] * (i + 1)), i)
                pool[i], pool[j] = pool[j], pool[i]
            used = 0
            for t in range(n_seats):
                if t == seat[b]:
                    out_hands[k, t] = hand[b]
                    continue
                h = shown[b, t]
                for _ in range(in_hand[b, t] - popcount(h)):
                    h |= np.uint64(1) << np.uint64(pool[used])
                    used += 1
                out_hands[k, t] = h
            # Hands still to come, at their pack positions; seen cards fill the rest.
            future_start = n_cards
            if r0 + 1 < len(round_starts):
                future_start = round_starts[r0 + 1]
            for i in range(future_start, n_cards):
                out_pack[k, i] = pool[used]
                used += 1
            fill = seen
            for t in range(n_seats):
                if t != seat[b]:
                    fill |= out_hands[k, t]
            i = 0
            while fill and i < future_start:
                out_pack[k, i] = lowest_card(fill)
                fill &= fill - np.uint64(1)
                i += 1
            if used != n_unseen:  # only if the layout and the seen cards disagree
                raise RuntimeError("determinisation: unseen cards do not fit the hands to come")


def determinise(obs: Observation, uniforms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deals consistent with what each row's seat has seen, from ``uniforms[rows, samples,
    cards]``: the hands ``uint64[rows * samples, n_players]`` (the seat's own hand and the
    cards shown kept) and the packs ``int8[rows * samples, cards]`` (sample ``s`` of row ``b``
    at ``b * samples + s``)."""
    variant = obs.variant
    rows, samples = uniforms.shape[0], uniforms.shape[1]
    plan = schedule(variant)
    hands = np.zeros((rows * samples, variant.n_players), np.uint64)
    pack = np.zeros((rows * samples, variant.pack.n_cards), np.int8)
    shown = obs.shown if obs.shown is not None else np.zeros((rows, variant.n_players), np.uint64)
    _determinise(
        obs.hand, obs.table, np.bitwise_or.reduce(obs.captured, axis=1), obs.played,
        np.ascontiguousarray(shown, np.uint64), variant.pack.full_mask,
        np.full(rows, obs.seat, np.int64),
        np.repeat(plan.in_hand[obs.play][None, :], rows, axis=0),
        np.full(rows, plan.round_of[obs.play]), plan.round_start,
        np.asarray(variant.hands, np.int64), variant.pack.n_cards, uniforms, hands, pack,
    )  # fmt: skip
    return hands, pack


def sample_deals(obs: Observation, rng, samples: int):
    """``samples`` deals per row consistent with what its seat has seen, and a rollout key per
    deal, drawn from the decision's random numbers ``rng`` (``DecisionRandom``) in the one order
    every sampling search uses (pimc, and the analysis of a position, which stands for pimc):
    the uniforms of the deals, then the keys. Returns ``(hands, pack, keys)``: :func:`determinise`
    of the uniforms, and ``uint64[rows * samples]`` keys (sample ``s`` of row ``b`` at
    ``b * samples + s``)."""
    rows, n_cards = len(obs.hand), obs.variant.pack.n_cards
    uniforms = rng.random(size=samples * n_cards).reshape(rows, samples, n_cards)
    keys = (rng.random(size=samples) * 2.0**63).astype(np.uint64)  # [rows, samples]
    hands, pack = determinise(obs, uniforms)
    return hands, pack, keys.reshape(-1)
