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


# Card names, as a player writes them (docs/rules.md, "Card names") -------------------------------

#: Words for the ranks, by pack: the rank codes and numbers are always accepted besides.
_RANK_WORDS = {
    "italian-40": {
        "asso": 1, "ace": 1, "due": 2, "two": 2, "tre": 3, "three": 3, "quattro": 4, "four": 4,
        "cinque": 5, "five": 5, "sei": 6, "six": 6, "sette": 7, "seven": 7, "fante": 8,
        "knave": 8, "jack": 8, "cavallo": 9, "knight": 9, "queen": 9, "re": 10, "king": 10,
    },
    "french-52": {
        "ace": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "jack": 11, "queen": 12, "king": 13,
    },
}  # fmt: skip
#: Words for the suits, by pack (singular and plural, English and Italian).
_SUIT_WORDS = {
    "italian-40": {
        "denari": 0, "denaro": 0, "coins": 0, "coin": 0, "ori": 0, "coppe": 1, "coppa": 1,
        "cups": 1, "cup": 1, "spade": 2, "spada": 2, "swords": 2, "sword": 2, "bastoni": 3,
        "bastone": 3, "clubs": 3, "club": 3,
    },
    "french-52": {
        "hearts": 0, "heart": 0, "diamonds": 1, "diamond": 1, "spades": 2, "spade": 2,
        "clubs": 3, "club": 3,
    },
}  # fmt: skip
#: Cards with a name of their own: the seven (and, Italian, the king) of the scoring suit.
_NICKNAMES = {"settebello": (0, 7), "sette bello": (0, 7)}
_ITALIAN_NICKNAMES = {"rebello": (0, 10), "re bello": (0, 10)}


def parse_card(pack: Pack, text: str) -> int:
    """The card id ``text`` names in ``pack``: an id (``6``), a code in any case (``7D``,
    ``7d``; in the Italian pack also ``8D``..``10D`` for ``FD``, ``CD``, ``RD``), a name
    (``settebello``, ``rebello``) or words (``seven of coins``, ``sette di denari``, ``7 coins``).
    Raises ``ValueError`` naming the text and an example."""
    raw = " ".join(str(text).strip().split())
    word = raw.lower()
    if not word:
        raise ValueError("an empty card name; write e.g. 7D, settebello or a card id")
    nick = {**_NICKNAMES, **(_ITALIAN_NICKNAMES if pack.name == "italian-40" else {})}
    if word in nick:
        return pack.card(*nick[word])
    if word.isdigit():
        card = int(word)
        if card >= pack.n_cards:
            raise ValueError(f"card id {card} is out of range 0..{pack.n_cards - 1}")
        return card
    words = [w for w in word.replace("-", " ").split(" ") if w not in ("of", "di", "de")]
    if len(words) == 2:
        rank = _RANK_WORDS.get(pack.name, {}).get(words[0])
        if rank is None and words[0].isdigit():
            rank = int(words[0])
        suit = _SUIT_WORDS.get(pack.name, {}).get(words[1])
        if rank is not None and suit is not None and 1 <= rank <= pack.ranks:
            return pack.card(suit, rank)
    elif len(words) == 1 and len(word) >= 2:
        rank_code, suit_code = word[:-1].upper(), word[-1].upper()
        if suit_code in pack.suit_codes:
            suit = pack.suit_codes.index(suit_code)
            if rank_code in pack.rank_codes[1:]:
                return pack.card(suit, pack.rank_codes.index(rank_code))
            if rank_code.isdigit() and 1 <= int(rank_code) <= pack.ranks:
                return pack.card(suit, int(rank_code))
    raise ValueError(
        f"{raw!r} is not a card of the {pack.name} pack; write a code such as "
        f"{pack.code(6)} or {pack.code(pack.ranks + 2)}, a name such as settebello, or an id "
        f"0..{pack.n_cards - 1} (docs/rules.md, card names)"
    )


def parse_card_list(pack: Pack, text: str) -> list[int]:
    """The cards of a list, in its order (repeats kept, for the caller to refuse): items
    separated by commas, or by spaces when there is no comma; ``-`` or nothing is no card."""
    text = str(text).strip()
    if text in ("", "-"):
        return []
    items = text.split(",") if "," in text else text.split()
    return [parse_card(pack, item) for item in items if item.strip()]


def card_name(pack: Pack, card: int) -> str:
    """The card in words, e.g. ``seven of coins`` (the settebello) or ``cavallo of cups``."""
    words = {
        "italian-40": ("", "ace", "2", "3", "4", "5", "6", "7", "fante", "cavallo", "re"),
        "french-52": ("", "ace", *map(str, range(2, 11)), "jack", "queen", "king"),
    }.get(pack.name, pack.rank_codes)
    return f"{words[pack.rank(card)]} of {pack.suit_names[pack.suit(card)]}"
