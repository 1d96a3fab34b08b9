"""Scoring items as data: the table a deal is scored by (docs/rules.md §5).

A variant's points are a table of :class:`Item` rows, one per ``pt_<name>`` column: what earns the
point (a kind and its fields) and how many it earns. The standard items come from the variant's
``[scoring]`` keys (:func:`standard_items`); a variant file's ``[[scoring.items]]`` entries
(:attr:`Variant.items`) then change those items field by field or add new ones. Both scoring
engines read only :func:`scoring_table`, so a house rule is an entry of a file, not code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache

from scopa_sim.cards import Pack
from scopa_sim.rules.keys import MissingSuit, Napola, PrimieraRule, RulesError

__all__ = [
    "CONTESTED",
    "KINDS",
    "TALLIES",
    "TIES",
    "Item",
    "entry_of",
    "item_from_entry",
    "point_columns",
    "scoring_table",
    "standard_items",
]

#: The point columns every run has, in this order (``pt_<name>``), zeros where a variant lacks
#: one; a variant's other items follow them. ``sevens`` is the 52-card game's most sevens.
CATEGORIES = (
    "cards", "coins", "settebello", "primiera", "scope", "re_bello", "napola", "sevens",
)  # fmt: skip

#: The deal-level counts that score like scope, in the order of ``tallies[B, S, 3]``.
TALLIES = ("opening", "low", "triple")

#: Kinds contested between the sides: the most (or, for at-least, the threshold) scores.
CONTESTED = ("most-cards", "most-suit", "most-rank", "primiera", "at-least")

#: Every kind, with the fields it takes besides name, kind and points, and those it needs.
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "most-cards": (("tie",), ()),
    "most-suit": (("tie", "suit"), ("suit",)),
    "most-rank": (("tie", "rank"), ("rank",)),
    "primiera": (("tie", "scale", "missing"), ()),
    "at-least": (("tie", "count", "suit"), ("count",)),
    "card": (("cards",), ("cards",)),
    "set": (("cards",), ("cards",)),
    "sequence": (("suit", "count", "cap", "extend"), ("suit",)),
    "scope": ((), ()),
    **{tally: ((), ()) for tally in TALLIES},
}

#: Tie rules of contested kinds: a tie for the most scores nothing, or scores for every side in it.
TIES = ("nobody", "each")
#: How a sequence grows past its first ``count`` cards: the unbroken run, or every card held.
EXTENDS = ("run", "all")
#: Primiera scales by name (a file may give a list of values per rank instead).
SCALES = tuple(rule.value for rule in PrimieraRule)
#: The most points an item gives per unit: the data stores a column in a byte.
MAX_POINTS = 20

_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Item:
    """One scoring item. A field left None is "not given": an entry of a file that names an
    existing item changes only the fields it gives (:func:`scoring_table` fills the rest).

    ``cards`` are card ids (one for ``card``, all held together for ``set``); ``count`` is a
    threshold (``at-least``) or a sequence's shortest scoring length (default 3); ``cap`` caps a
    sequence's length (0: none); ``scale`` is a :class:`PrimieraRule` word or a tuple of values
    per rank; ``missing`` a :class:`MissingSuit` word; ``extend`` ``run`` or ``all``.
    """

    name: str
    kind: str | None = None
    points: int | None = None
    tie: str | None = None
    cards: tuple[int, ...] | None = None
    suit: int | None = None
    rank: int | None = None
    count: int | None = None
    cap: int | None = None
    scale: str | tuple[int, ...] | None = None
    missing: str | None = None
    extend: str | None = None

    def given(self) -> dict[str, object]:
        """The fields this entry sets, by name (name excepted)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "name" and getattr(self, f.name) is not None
        }

    def resolved(self) -> Item:
        """This item with every field a kind reads set: the defaults of the fields not given."""
        count = 3 if self.kind == "sequence" else 0
        defaults = {"points": 1, "tie": "nobody", "count": count, "cap": 0, "scale": "standard",
                    "missing": "void", "extend": "run", "cards": ()}  # fmt: skip
        return replace(self, **{k: v for k, v in defaults.items() if getattr(self, k) is None})


def standard_items(variant) -> tuple[Item, ...]:
    """The items the variant's ``[scoring]`` keys describe, in :data:`CATEGORIES` order, then
    the deal-level tallies the variant produces (read with defaults until every engine has them).
    """
    items = [
        Item("cards", "most-cards"),
        Item("coins", "most-suit", suit=0),
        Item("settebello", "card", cards=(variant.settebello,)),
    ]
    if variant.primiera is not None:
        items.append(Item("primiera", "primiera", scale=variant.primiera.value,
                          missing=variant.primiera_missing_suit.value))  # fmt: skip
    items.append(Item("scope", "scope"))
    if variant.re_bello:
        items.append(Item("re_bello", "card", cards=(variant.king_of_coins,)))
    if variant.napola is not Napola.OFF:
        extend = "all" if variant.napola is Napola.TRENTINO else "run"
        items.append(Item("napola", "sequence", suit=0, count=3, extend=extend))
    if variant.most_sevens:
        items.append(Item("sevens", "most-rank", rank=7))
    if getattr(variant, "opening_fifteen", False) or getattr(variant, "opening_low", False):
        items.append(Item("opening", "opening"))
    if getattr(variant, "declarations", False) and getattr(variant, "low_hand", 0) > 0:
        items.append(Item("low", "low", points=getattr(variant, "low_points", 0)))
    if getattr(variant, "declarations", False) and getattr(variant, "triple_points", 0) > 0:
        items.append(Item("triple", "triple", points=variant.triple_points))
    if variant.grande_points:  # cirulla's: fante, cavallo and re of coins held together
        grande = tuple(variant.pack.card(0, rank) for rank in (8, 9, 10))
        items.append(Item("grande", "set", points=variant.grande_points, cards=grande))
    if variant.piccola_max:  # cirulla's: ace, 2, 3 of coins, then the run, capped
        items.append(Item("piccola", "sequence", suit=0, count=3, cap=variant.piccola_max))
    return tuple(item.resolved() for item in items)


@cache
def scoring_table(variant) -> tuple[Item, ...]:
    """The variant's items, resolved: :func:`standard_items` with the variant's own entries
    (``Variant.items``) merged in: an entry naming an item changes the fields it gives (or, of
    another kind, replaces it in its place), a new name adds an item after the others."""
    table = {item.name: item for item in standard_items(variant)}
    for entry in getattr(variant, "items", ()):
        old = table.get(entry.name)
        if old is None and any(getattr(entry, key) is None for key in KINDS[entry.kind][1]):
            continue  # it changes an item the variant does not have (an option turned it off)
        same_kind = old is not None and entry.kind in (None, old.kind)
        table[entry.name] = (replace(old, **entry.given()) if same_kind else entry).resolved()
    return tuple(table.values())


@cache
def point_columns(variant) -> tuple[str, ...]:
    """The names of the variant's point columns (``pt_<name>``): the eight of
    :data:`CATEGORIES` always, then the variant's other items in table order."""
    extra = [item.name for item in scoring_table(variant) if item.name not in CATEGORIES]
    return (*CATEGORIES, *extra)


# A file's entries -------------------------------------------------------------------------------


def _suit_of(raw, pack: Pack, where: str) -> int:
    names = [name.lower() for name in pack.suit_names]
    if isinstance(raw, str) and raw.strip().lower() in names:
        return names.index(raw.strip().lower())
    if isinstance(raw, str) and len(raw.strip()) == 1 and raw.strip().upper() in pack.suit_codes:
        return pack.suit_codes.index(raw.strip().upper())
    raise RulesError(
        f"{where} = {raw!r} is not a suit of the {pack.name} pack; choose one of: "
        f"{', '.join(names)}"
    )


def _card_of(raw, pack: Pack, where: str) -> int:
    try:
        if isinstance(raw, str) and not raw.strip().isdigit():
            return pack.parse(raw)
    except ValueError:
        pass
    raise RulesError(
        f"{where} = {raw!r} is not a card of the {pack.name} pack (write a card as rank then "
        f"suit, e.g. {pack.code(pack.card(0, 7))})"
    )


def _whole(raw, where: str, low: int, high: int, what: str = "a whole number") -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RulesError(f"{where} = {raw!r}: it takes {what} from {low} to {high}")
    if not low <= raw <= high:
        raise RulesError(f"{where} = {raw}: it takes {what} from {low} to {high}")
    return raw


def _word(raw, choices, where: str) -> str:
    if raw not in choices:
        raise RulesError(f"{where} = {raw!r} is unknown; choose one of: {', '.join(choices)}")
    return raw


def item_from_entry(raw, pack: Pack, where: str, known: Mapping[str, Item]) -> Item:
    """One ``[[scoring.items]]`` entry (``where`` is ``FILE: scoring.items[i]``) checked and
    read: an entry naming an item of ``known`` (the table so far) may give only some fields."""
    if not isinstance(raw, Mapping):
        raise RulesError(f"{where} takes a table of fields (name, kind, points, ...), not {raw!r}")
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RulesError(
            f"{where}.name = {name!r}: an item's name is lower-case letters, digits and '_' "
            '(its column is pt_<name>), e.g. name = "grande"'
        )
    old = known.get(name)
    kind = raw.get("kind", old.kind if old else None)
    if kind is None:
        raise RulesError(
            f"{where}.kind is missing: {name!r} is a new item; give its kind, one of: "
            f"{', '.join(KINDS)}"
        )
    kind = _word(kind, tuple(KINDS), f"{where}.kind")
    if old is not None and kind != old.kind:
        old = None  # an item of another kind replaces the one of that name: all fields anew
    takes, needs = KINDS[kind]
    file_fields = {"name", "kind", "points", *takes}
    file_fields |= {"card"} if kind == "card" else set()
    file_fields -= {"cards"} if kind == "card" else set()
    for key in raw:
        if key not in file_fields:
            raise RulesError(
                f"{where}.{key}: a {kind} item takes no {key}; it takes "
                f"{', '.join(sorted(file_fields))}"
            )
    if old is None:
        for key in needs:
            file_key = "card" if kind == "card" and key == "cards" else key
            if file_key not in raw:
                raise RulesError(f"{where}.{file_key} is missing: a {kind} item needs it")
    got: dict[str, object] = {"kind": kind}
    if "points" in raw:
        got["points"] = _whole(raw["points"], f"{where}.points", 0, MAX_POINTS)
    if "tie" in raw:
        got["tie"] = _word(raw["tie"], TIES, f"{where}.tie")
    if "card" in raw:
        got["cards"] = (_card_of(raw["card"], pack, f"{where}.card"),)
    if "cards" in raw:
        listed = raw["cards"]
        if not isinstance(listed, list) or not listed:
            raise RulesError(f'{where}.cards takes a list of cards, e.g. ["FD", "CD", "RD"]')
        cards = tuple(_card_of(c, pack, f"{where}.cards") for c in listed)
        if len(set(cards)) != len(cards):
            raise RulesError(f"{where}.cards = {listed!r} names a card twice")
        got["cards"] = tuple(sorted(cards))
    if "suit" in raw:
        got["suit"] = _suit_of(raw["suit"], pack, f"{where}.suit")
    if "rank" in raw:
        got["rank"] = _whole(raw["rank"], f"{where}.rank", 1, pack.ranks, "a rank")
    suit_given = got.get("suit", old.suit if old else None) is not None
    if "count" in raw:
        most = pack.ranks if kind == "sequence" or suit_given else pack.n_cards
        got["count"] = _whole(raw["count"], f"{where}.count", 1, most, "a count a side can reach,")
    if "cap" in raw:
        got["cap"] = _whole(raw["cap"], f"{where}.cap", 1, pack.ranks, "a length")
    if "extend" in raw:
        got["extend"] = _word(raw["extend"], EXTENDS, f"{where}.extend")
    if "missing" in raw:
        got["missing"] = _word(
            raw["missing"], tuple(m.value for m in MissingSuit), f"{where}.missing"
        )
    if "scale" in raw:
        scale = raw["scale"]
        if isinstance(scale, list):
            got["scale"] = tuple(_whole(v, f"{where}.scale", 0, 99, "values") for v in scale)
            if len(scale) != pack.ranks:
                raise RulesError(
                    f"{where}.scale has {len(scale)} values; give one per rank, {pack.ranks}"
                )
        else:
            got["scale"] = _word(scale, SCALES, f"{where}.scale")
    return Item(name, **got)


def check_table(table: tuple[Item, ...], owner: Mapping[str, int], pack: Pack, where: str) -> None:
    """What the merged ``table`` cannot score, named by the entry that asks for it (``owner``:
    the file's entry of each name it gives; ``where`` is ``FILE: scoring.items``): two items of
    one kind over the same cards, suit or rank; a sequence capped below its start; a named
    primiera scale off the italian pack; a count past a suit."""
    index = owner
    seen: dict[tuple, Item] = {}
    for item in table:
        at = f"{where}[{index[item.name]}]" if item.name in index else f"{where} ({item.name})"
        if item.kind == "sequence" and item.cap and item.cap < item.count:
            raise RulesError(f"{at}.cap = {item.cap} is below its count, {item.count}")
        if item.kind == "primiera" and isinstance(item.scale, str) and pack.ranks != 10:
            raise RulesError(
                f"{at}.scale = {item.scale!r} is for the italian-40 pack; give a list of "
                f"{pack.ranks} values, one per rank"
            )
        if item.kind == "at-least" and item.suit is not None and item.count > pack.ranks:
            raise RulesError(f"{at}.count = {item.count}: a suit holds {pack.ranks} cards")
        over = {"card": item.cards, "set": item.cards, "most-suit": item.suit,
                "sequence": item.suit, "most-rank": item.rank,
                "at-least": (item.suit, item.count)}.get(item.kind)  # fmt: skip
        key = (item.kind, over)
        if key in seen:
            other = seen[key]
            first, second = sorted((other, item), key=lambda it: it.name in index)
            at = f"{where}[{index[second.name]}]" if second.name in index else at
            raise RulesError(
                f"{at}: {second.name!r} and {first.name!r} are both {item.kind} items over the "
                "same cards; keep one (an entry named after an item changes it)"
            )
        seen[key] = item


def entry_of(item: Item, pack: Pack) -> dict[str, object]:
    """An entry as a variant file writes it (TOML types): cards by code, a suit by name."""
    out: dict[str, object] = {"name": item.name}
    for key, value in item.given().items():
        if key == "cards":
            codes = [pack.code(card) for card in value]
            if item.kind == "card" or (item.kind is None and len(codes) == 1):
                out["card"] = codes[0]
            else:
                out["cards"] = codes
        elif key == "suit":
            out["suit"] = pack.suit_names[value]
        elif key == "scale" and isinstance(value, tuple):
            out["scale"] = list(value)
        else:
            out[key] = value
    return out
