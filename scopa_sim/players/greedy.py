"""The greedy player: the beginner's strategy of taking the most valuable capture in sight."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from scopa_sim.cards import PRIMIERA_STANDARD
from scopa_sim.engine.kernels import lowest_card
from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.rules import Variant
from scopa_sim.seeding import DecisionRandom

_SCOPA = 1 << 40  # a scopa outranks any sum of the card weights below


@cache
def card_weights(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Per card id: its weight when captured, and its worth when laid.

    Capture weights are packed bit fields (settebello, sevens, sixes, aces, coins, cards), so
    summing them over a capture compares captures lexicographically in that order; each field
    is wide enough never to carry into the next.
    """
    pack = variant.pack
    capture = np.zeros(pack.n_cards, np.int64)
    lay = np.zeros(pack.n_cards, np.int64)
    for c in range(pack.n_cards):
        rank, coin = pack.rank(c), pack.suit(c) == 0
        capture[c] = (
            ((c == variant.settebello) << 36)
            | ((rank == 7) << 32)
            | ((rank == 6) << 28)
            | ((rank == 1) << 24)
            | (coin << 16)
            | (1 << 8)
        )
        primiera = PRIMIERA_STANDARD[rank] if rank <= 10 else 0
        lay[c] = (c == variant.settebello) * 1000 + primiera * 10 + coin
    return capture, lay


@njit(cache=True, nogil=True)
def _greedy(card, capture, count, table, ranks, scopa_counts, capture_weight, lay_worth):
    one = np.uint64(1)
    rows = len(count)
    out = np.zeros(rows, np.int64)
    for b in range(rows):
        best_capture, best_capture_key = -1, -1
        best_lay, best_lay_key = -1, 1 << 62
        table_sum = 0
        rest = table[b]
        while rest:
            table_sum += lowest_card(rest) % ranks + 1
            rest &= rest - one
        for k in range(count[b]):
            taken = capture[b, k]
            played = card[b, k]
            if taken:
                key = capture_weight[played]
                rest = taken
                while rest:
                    key += capture_weight[lowest_card(rest)]
                    rest &= rest - one
                if scopa_counts and (table[b] & ~taken) == 0:
                    key += _SCOPA
                if key > best_capture_key:
                    best_capture, best_capture_key = k, key
            else:
                open_to_sweep = table_sum + played % ranks + 1 <= ranks
                key = open_to_sweep * 100_000 + lay_worth[played]
                if key < best_lay_key:
                    best_lay, best_lay_key = k, key
        out[b] = best_capture if best_capture >= 0 else best_lay
    return out


@dataclass(frozen=True)
class GreedyPlayer(Player):
    """Captures whenever it can, taking the capture worth most: a scopa above all, then the
    settebello, sevens, sixes, aces, coins, number of cards (played card included). Otherwise it
    lays its least valuable card (settebello, then primiera value, then coins), preferring a
    card that does not leave the table open to a sweep (table sum above the highest rank).
    Ties go to the lowest slot, so it needs no random numbers."""

    name = "greedy"
    summary = "takes the most valuable capture (scopa, settebello, 7s, 6s, aces, coins, cards)"

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        variant = obs.variant
        capture_weight, lay_worth = card_weights(variant)
        scopa_counts = not obs.last_play or variant.last_play_scopa
        return _greedy(
            legal.card, legal.capture, legal.count, obs.table, variant.pack.ranks,
            scopa_counts, capture_weight, lay_worth,
        )  # fmt: skip
