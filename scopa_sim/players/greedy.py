"""The greedy player: the beginner's strategy of taking the most valuable capture in sight."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim.cards import PRIMIERA_STANDARD
from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.seeding import DecisionRandom

_ONE = np.uint64(1)


def _count(cards: np.ndarray, mask: int) -> np.ndarray:
    return np.bitwise_count(cards & np.uint64(mask)).astype(np.int64)


def table_sum(obs: Observation) -> np.ndarray:
    """Sum of the ranks on the table, per row."""
    pack = obs.variant.pack
    return sum(r * _count(obs.table, pack.rank_mask(r)) for r in range(1, pack.ranks + 1))


@dataclass(frozen=True)
class GreedyPlayer(Player):
    """Captures whenever it can, taking the capture worth most: a scopa above all, then the
    settebello, sevens, sixes, aces, coins, number of cards. Otherwise it lays its least
    valuable card, preferring a card that does not leave the table open to a sweep."""

    name = "greedy"
    summary = "takes the most valuable capture (scopa, settebello, 7s, 6s, aces, coins, cards)"

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        variant, pack = obs.variant, obs.variant.pack
        valid = legal.valid
        card = legal.card.astype(np.int64)
        card_bit = np.where(valid, _ONE << card.clip(0).astype(np.uint64), np.uint64(0))
        gain = legal.capture | card_bit
        is_capture = valid & (legal.capture != 0)

        sweeps = (obs.table[:, None] & ~legal.capture) == 0
        scopa = sweeps & (not obs.last_play or variant.last_play_scopa)
        capture_key = (
            (scopa.astype(np.int64) << 40)
            | (((gain >> np.uint64(variant.settebello)) & _ONE).astype(np.int64) << 36)
            | (_count(gain, pack.rank_mask(7)) << 32)
            | (_count(gain, pack.rank_mask(6)) << 28)
            | (_count(gain, pack.rank_mask(1)) << 24)
            | (_count(gain, pack.suit_mask(0)) << 16)
            | (np.bitwise_count(gain).astype(np.int64) << 8)
        )
        capture_key = np.where(is_capture, capture_key, -1)

        # Worth of a laid card: settebello, then its primiera value, then being a coin.
        rank = card % pack.ranks + 1
        worth = (
            (card == variant.settebello) * 1000
            + np.asarray(PRIMIERA_STANDARD)[rank.clip(1, 10)] * 10
            + (card // pack.ranks == 0)
        )
        open_to_sweep = table_sum(obs)[:, None] + rank <= pack.ranks
        lay_key = np.where(valid & ~is_capture, open_to_sweep * 100_000 + worth, np.iinfo(np.int64).max)

        return np.where(is_capture.any(axis=1), capture_key.argmax(axis=1), lay_key.argmin(axis=1))
