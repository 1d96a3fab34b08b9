"""Packs and card ids: the geometry every other module shares.

A card id is ``ranks * suit + (rank - 1)`` (docs/rules.md §1), so a set of cards is a ``uint64``
bitmask with bit ``id`` set. Suit 0 is the scoring suit: coins in the Italian pack, hearts in
the French one. Everything here is pure data; the engines index these arrays directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

#: Primiera value of each rank 1..10 (index 0 unused), docs/rules.md §1.
PRIMIERA_STANDARD = (0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
#: The same with face cards counting 0 (option ``primiera=face_zero``).
PRIMIERA_FACE_ZERO = (0, 16, 12, 13, 14, 15, 18, 21, 0, 0, 0)


@dataclass(frozen=True)
class Pack:
    """A four-suit pack whose ranks run 1..``ranks``; the rank is the capture value."""

    name: str
    ranks: int
    suit_names: tuple[str, str, str, str]
    suit_codes: str
    rank_codes: tuple[str, ...] = field(repr=False)

    @property
    def n_cards(self) -> int:
        return 4 * self.ranks

    def card(self, suit: int, rank: int) -> int:
        """The id of the card of ``suit`` (0..3) and ``rank`` (1..ranks)."""
        if not (0 <= suit < 4 and 1 <= rank <= self.ranks):
            raise ValueError(f"no card of suit {suit} and rank {rank} in the {self.name} pack")
        return self.ranks * suit + rank - 1

    def rank(self, card: int) -> int:
        return card % self.ranks + 1

    def suit(self, card: int) -> int:
        return card // self.ranks

    @cached_property
    def rank_of(self) -> np.ndarray:
        """Rank (capture value) of each card id, ``int8[n_cards]``."""
        return (np.arange(self.n_cards) % self.ranks + 1).astype(np.int8)

    @cached_property
    def suit_of(self) -> np.ndarray:
        return (np.arange(self.n_cards) // self.ranks).astype(np.int8)

    @cached_property
    def full_mask(self) -> np.uint64:
        return np.uint64((1 << self.n_cards) - 1)

    def suit_mask(self, suit: int) -> int:
        return ((1 << self.ranks) - 1) << (self.ranks * suit)

    def rank_mask(self, rank: int) -> int:
        return sum(1 << self.card(s, rank) for s in range(4))

    def code(self, card: int) -> str:
        """Short readable name, e.g. ``7D`` for the settebello (rank code then suit code)."""
        return self.rank_codes[self.rank(card)] + self.suit_codes[self.suit(card)]

    def parse(self, text: str) -> int:
        """Inverse of :meth:`code`; also accepts a plain integer id."""
        text = text.strip()
        if text.isdigit():
            card = int(text)
            if card >= self.n_cards:
                raise ValueError(f"card id {card} is out of range 0..{self.n_cards - 1}")
            return card
        rank_code, suit_code = text[:-1].upper(), text[-1].upper()
        if rank_code in self.rank_codes[1:] and suit_code in self.suit_codes:
            return self.card(self.suit_codes.index(suit_code), self.rank_codes.index(rank_code))
        raise ValueError(f"{text!r} is not a card of the {self.name} pack (e.g. {self.code(6)})")


ITALIAN_40 = Pack(
    name="italian-40",
    ranks=10,
    suit_names=("coins", "cups", "swords", "clubs"),
    suit_codes="DCSB",  # denari, coppe, spade, bastoni
    rank_codes=("", "A", "2", "3", "4", "5", "6", "7", "F", "C", "R"),  # fante, cavallo, re
)

FRENCH_52 = Pack(
    name="french-52",
    ranks=13,
    suit_names=("hearts", "diamonds", "spades", "clubs"),
    suit_codes="HDSC",
    rank_codes=("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
)


def mask_of(cards) -> int:
    """Bitmask of an iterable of card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def cards_of(mask: int) -> list[int]:
    """Sorted card ids of a bitmask."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
