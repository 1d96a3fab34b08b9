"""A cautious player in plain numpy: the worked example of docs/players.md.

It values every legal action in milli-points and plays the best one:

* a capture is worth the cards it gains (the card played and the cards taken, each at its rough
  worth from the scoring: a share of the cards and coins points, the settebello, the primiera
  weight of sevens, sixes and aces), plus a point for a scopa;
* a lay costs the card laid, and a point more when it leaves the table within reach of one card:
  a table whose sum is at most the top rank plus ``margin`` can be swept by a single card.

So it always captures when it can (the capture worth most), and otherwise lays its cheapest card
that leaves the table sum above the top rank (``margin`` above it), or its cheapest card when
every lay leaves the table within reach. Ties go to the lowest slot. Everything is vectorised
over the batch with numpy: no Python loop over rows (sums over card masks are byte lookups).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from scopa_sim.players import LegalActions, Observation, Player
from scopa_sim.rules import Variant
from scopa_sim.seeding import DecisionRandom

POINT = 1000  # values are integers in milli-points, so that every sum is exact


@cache
def card_worth(variant: Variant) -> np.ndarray:
    """Rough worth of capturing each card id, in milli-points (``int64[n_cards]``)."""
    pack = variant.pack
    rank = pack.rank_of.astype(np.int64)
    coin = pack.suit_of == 0
    worth = np.full(pack.n_cards, POINT // (pack.n_cards // 2 + 1), np.int64)  # cards point
    worth += coin * (2 * POINT // pack.ranks)  # coins (hearts) point
    worth[variant.settebello] += POINT
    if variant.primiera is not None:
        worth += np.select([rank == 7, rank == 6, rank == 1], [250, 120, 80], 0)
    if variant.most_sevens:
        worth += (rank == 7) * 300
    worth.flags.writeable = False  # shared by every call (cached): nobody may change it
    return worth


@cache
def byte_sums(variant: Variant, what: str) -> np.ndarray:
    """Lookup tables to sum a per-card quantity over card masks: ``[k, byte]`` is the sum over
    the cards of ``byte`` taken as bits ``8k .. 8k + 7`` of a mask (``int64[bytes, 256]``).
    ``what`` is "worth" (:func:`card_worth`) or "rank" (the capture value)."""
    per_card = card_worth(variant) if what == "worth" else variant.pack.rank_of.astype(np.int64)
    n_bytes = -(-len(per_card) // 8)
    padded = np.zeros(8 * n_bytes, np.int64)
    padded[: len(per_card)] = per_card
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # [byte, bit]
    table = np.stack([bits @ padded[8 * k : 8 * k + 8] for k in range(n_bytes)])
    table.flags.writeable = False
    return table


def mask_sum(masks: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Sum of the per-card quantity of ``table`` (:func:`byte_sums`) over each ``uint64`` card
    mask of ``masks``, one lookup per byte: a handful of whole-array operations."""
    total = np.zeros(masks.shape, np.int64)
    for k in range(len(table)):
        total += table[k][(masks >> np.uint64(8 * k)) & np.uint64(255)]
    return total


def action_values(obs: Observation, legal: LegalActions, margin: int) -> np.ndarray:
    """Value of every slot in milli-points, ``int64[B, A]`` (the minimum in padding)."""
    variant = obs.variant
    pack = variant.pack
    worth = card_worth(variant)
    valid = np.arange(legal.card.shape[1]) < legal.count[:, None]
    card = np.where(valid, legal.card, 0).astype(np.int64)
    taken = legal.capture  # uint64[B, A]: the cards each action takes (0 for a lay)

    # A capture gains the card played and the cards taken.
    gain = worth[card] + mask_sum(taken, byte_sums(variant, "worth"))
    # A scopa: the capture clears the table (not on the last play, unless the variant says so;
    # in asso piglia tutto an ace's sweep is no scopa unless ace_sweep_scopa).
    scopa = (taken != 0) & ((obs.table[:, None] & ~taken) == 0)
    if obs.last_play and not variant.last_play_scopa:
        scopa[:] = False
    if variant.ace_sweeps and not variant.ace_sweep_scopa:
        aces = np.uint64(pack.rank_mask(1))
        scopa &= ~((pack.rank_of[card] == 1) & ((taken & aces) == 0))
    capture_value = gain + scopa * POINT

    # A lay costs the card's worth (and its rank, so the lowest of equal worth goes first), and
    # a point more when it leaves the table within reach of one card.
    table_sum = mask_sum(obs.table, byte_sums(variant, "rank"))
    within_reach = table_sum[:, None] + pack.rank_of[card] <= pack.ranks + margin
    lay_value = -(worth[card] + pack.rank_of[card]) - within_reach * POINT

    value = np.where(taken != 0, capture_value, lay_value)
    return np.where(valid, value, np.iinfo(np.int64).min)


@dataclass(frozen=True)
class CautiousPlayer(Player):
    """Captures the most valuable set; otherwise lays its cheapest card that keeps the table sum
    above the top rank (plus ``margin``)."""

    name = "cautious"
    summary = "captures the most valuable set; lays so that no single card can sweep the table"
    margin: int = 0  # how far above the top rank the table sum must stay after a lay

    def act(self, obs: Observation, legal: LegalActions, rng: DecisionRandom) -> np.ndarray:
        # argmax returns the first maximum: ties go to the lowest slot. No random numbers.
        return np.argmax(action_values(obs, legal, self.margin), axis=1).astype(np.int64)

    def explain(self, obs: Observation, legal: LegalActions) -> np.ndarray:
        """The optional evaluation protocol (docs/players.md): each slot's value in points,
        higher is better, NaN in padding; ``act`` plays the first maximum."""
        values = action_values(obs, legal, self.margin)
        valid = np.arange(legal.card.shape[1]) < legal.count[:, None]
        return np.where(valid, values / POINT, np.nan)
