"""A variant's definition as plain data (the sections of a variant file) and back.

A definition is what a variant file holds once read: ``name``, ``summary`` and the sections
``[players]``, ``[deal]``, ``[capture]``, ``[scoring]`` and ``[game]``, whose keys are the
:class:`Variant` fields the engines read (docs/rules.md, "Write your own variant"). Presets,
users' files and run manifests all go through :func:`from_definition`, so there is one set of
checks, and a key the engine does not read is refused rather than ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import SimpleNamespace

from scopa_sim.cards import FRENCH_52, ITALIAN_40, Pack
from scopa_sim.rules.options import OPTIONS
from scopa_sim.rules.variant import (
    Capture,
    FirstDealer,
    MissingSuit,
    Napola,
    PrimieraRule,
    RulesError,
    Variant,
)

__all__ = ["PACKS", "SCHEMA", "accepted_options", "definition_of", "from_definition"]

PACKS: dict[str, Pack] = {p.name: p for p in (ITALIAN_40, FRENCH_52)}

#: Players the engines are tested with (the presets' range).
MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True)
class Key:
    """One key of a section: the :class:`Variant` field it sets and what it takes."""

    field: str
    kind: object  # bool, int, "pack", "hands", "card", "primiera" or a StrEnum
    help: str


SCHEMA: dict[str, dict[str, Key]] = {
    "players": {
        "count": Key("n_players", int, f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS}"),
        "sides": Key("n_sides", int, "sides scoring apart: = count, or teams sitting opposite"),
    },
    "deal": {
        "pack": Key("pack", "pack", "italian-40 or french-52"),
        "table_cards": Key("table_cards", int, "cards laid on the table at the start of a deal"),
        "hands": Key("hands", "hands", "cards dealt to each player at each hand, e.g. [3, 3]"),
        "throw_in": Key("throw_in", bool, "redeal when 3 or 4 of the 4 table cards are kings"),
        "opening_sweep": Key("opening_sweep", bool, "a table of 15 (30) is the dealer's escoba"),
    },
    "capture": {
        "rule": Key("capture", Capture, "match-or-sum, fifteen or ace-takes-all"),
        "forced_capture": Key("forced_capture", bool, "a player who can capture must capture"),
        "fewest_cards": Key("fewest_cards", bool, "a sum capture uses as few cards as it can"),
    },
    "scoring": {
        "settebello": Key("settebello_card", "card", "the card worth 1 point, e.g. 7D"),
        "primiera": Key("primiera", "primiera", "standard, face_zero, most_sevens or none"),
        "primiera_missing_suit": Key("primiera_missing_suit", MissingSuit, "void or zero"),
        "most_sevens": Key("most_sevens", bool, "1 point for the most sevens (the 52-card game)"),
        "re_bello": Key("re_bello", "re_bello", "false, or the card worth 1 point, e.g. RD"),
        "napola": Key("napola", Napola, "off, sequence or trentino"),
        "last_play_scopa": Key("last_play_scopa", bool, "a sweep on the last play is a scopa"),
        "ace_sweep_scopa": Key("ace_sweep_scopa", bool, "an ace's sweep is a scopa"),
    },
    "game": {
        "target": Key("target", int, "points that win the game, 1 to 1000"),
        "scopa_wins_immediately": Key(
            "scopa_wins_immediately", bool, "a scopa reaching the target wins at once"
        ),
        "count_in_turn_order": Key(
            "count_in_turn_order", bool, "count in turn order; the first to the target wins"
        ),
        "napoleone": Key("napoleone", bool, "all ten coins win the game"),
        "first_dealer": Key("first_dealer", FirstDealer, "random or fixed"),
    },
}

#: Top-level keys besides the sections.
TOP_KEYS = ("name", "summary", "extends")

_FIXED_SCORING = (
    "the engine scores most cards, most of the first suit (coins, hearts), the settebello card, "
    "primiera, most sevens, scope, the re bello card and the napola, 1 point each (the napola 3 "
    "or more); other items and other points are not supported"
)

#: Keys a designer may well try, and what the engine does instead: refused with this line.
UNSUPPORTED = {
    "capture.sum": "captures sum to the played card's value (match-or-sum, ace-takes-all) or to "
    "15 with it (fifteen); another sum is not supported",
    "capture.sums_to": "see capture.sum: another capture sum is not supported",
    "deal.stock": "the engine deals the whole pack and leaves no stock",
    "scoring.ties": "a tie for the most scores nothing; another tie rule is not supported",
    "game.ties": "at the target, the most points win and a level game plays on; another tie "
    "rule is not supported",
    "scoring.suit": "the scoring suit is the pack's first (coins, hearts); it cannot be changed",
    "scoring.points": _FIXED_SCORING,
    "scoring.bonus": _FIXED_SCORING,
    "scoring.items": _FIXED_SCORING,
}

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _where(source: str, section: str, key: str) -> str:
    return f"{source}: {section}.{key}" if section else f"{source}: {key}"


def _value(kind, raw, pack: Pack, where: str):
    """``raw`` (as TOML gives it) checked and converted to the field's type."""
    if kind is bool:
        if not isinstance(raw, bool):
            raise RulesError(f"{where} takes true or false, not {raw!r}")
        return raw
    if kind is int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise RulesError(f"{where} takes a whole number, not {raw!r}")
        return raw
    if kind == "pack":
        if raw not in PACKS:
            raise RulesError(f"{where} = {raw!r} is not a pack; choose {' or '.join(PACKS)}")
        return PACKS[raw]
    if kind == "hands":
        if not isinstance(raw, list) or not raw:
            raise RulesError(f"{where} takes a list of hand sizes, e.g. [3, 3, 3], not {raw!r}")
        for size in raw:
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise RulesError(
                    f"{where} = {raw!r}: every hand deals 1 card or more to each player, "
                    f"not {size!r}"
                )
        return tuple(raw)
    if kind == "re_bello" and isinstance(raw, bool):
        return raw
    if kind in ("card", "re_bello"):
        try:
            card = pack.parse(raw) if isinstance(raw, str) and not raw.isdigit() else None
        except ValueError:
            card = None
        if card is None:
            raise RulesError(
                f"{where} = {raw!r} is not a card of the {pack.name} pack (write a card as "
                f"rank then suit, e.g. {pack.code(pack.card(0, 7))})"
            )
        return card
    if kind == "primiera":
        if raw == "none":
            return None
        kind = PrimieraRule
    choices = [m.value for m in kind]
    if raw not in choices:
        raise RulesError(f"{where} = {raw!r} is unknown; choose one of: {', '.join(choices)}")
    return kind(raw)


def _check_keys(data: Mapping, source: str) -> None:
    for key, value in data.items():
        if key in TOP_KEYS:
            if not isinstance(value, str):
                raise RulesError(f"{_where(source, '', key)} takes text, not {value!r}")
            continue
        if key not in SCHEMA:
            keys = ", ".join((*TOP_KEYS, *(f"[{s}]" for s in SCHEMA)))
            raise RulesError(f"{_where(source, '', key)}: unknown key; a variant file has {keys}")
        if not isinstance(value, Mapping):
            raise RulesError(f"{_where(source, '', key)} is a section: write [{key}] above it")
        for name in value:
            if name in SCHEMA[key]:
                continue
            dotted = f"{key}.{name}"
            if dotted in UNSUPPORTED or name.endswith("_points"):
                reason = UNSUPPORTED.get(dotted, _FIXED_SCORING)
                raise RulesError(f"{_where(source, key, name)} is not supported: {reason}")
            raise RulesError(
                f"{_where(source, key, name)}: unknown key; [{key}] takes: {', '.join(SCHEMA[key])}"
            )


def accepted_options(rules: Variant) -> frozenset[str]:
    """The ``--option`` keys that make sense for ``rules``: what the presets accepted before they
    were files, derived from the definition so that a user's variant gets the same."""
    accepted = {"target", "forced_capture", "fewest_cards", "last_play_scopa",
                "scopa_wins_immediately", "first_dealer"}  # fmt: skip
    if rules.pack is ITALIAN_40:
        accepted |= {"primiera", "primiera_missing_suit", "re_bello", "napola", "napoleone"}
        if rules.table_cards >= 4 and not rules.opening_sweep:
            accepted.add("throw_in")
    if rules.capture is Capture.ACE_TAKES_ALL:
        accepted.add("ace_sweep_scopa")
    return frozenset(accepted)


def _check_rules(rules: Variant, given: Mapping[str, str], source: str) -> None:
    """What the engines cannot play, named by the key that asks for it."""

    def at(field: str) -> str:
        return given.get(field, field)

    n, sides = rules.n_players, rules.n_sides
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RulesError(
            f"{source}: {at('n_players')} = {n}: the engine plays {MIN_PLAYERS} to {MAX_PLAYERS} "
            "players"
        )
    if sides < 2 or n % sides:
        raise RulesError(
            f"{source}: {at('n_sides')} = {sides}: {n} players make {n} sides (each on their "
            f"own) or teams of equal size, at least 2 sides (e.g. {n // 2 if n % 2 == 0 else n})"
        )
    if rules.table_cards < 0:
        raise RulesError(f"{source}: {at('table_cards')} = {rules.table_cards} is below 0")
    dealt = rules.table_cards + n * sum(rules.hands)
    if dealt != rules.pack.n_cards:
        stock = rules.pack.n_cards - dealt
        how = f"leaves a stock of {stock}" if stock > 0 else f"needs {-stock} more than it holds"
        raise RulesError(
            f"{source}: {at('hands')} = {list(rules.hands)} with {rules.table_cards} table cards "
            f"and {n} players deals {dealt} cards, but the {rules.pack.name} pack has "
            f"{rules.pack.n_cards}: it {how}; the engine deals the whole pack, so make "
            f"table_cards + players x sum(hands) = {rules.pack.n_cards}"
        )
    if not 1 <= rules.target <= OPTIONS["target"].high:
        raise RulesError(
            f"{source}: {at('target')} = {rules.target}: the target is from 1 to "
            f"{OPTIONS['target'].high}"
        )
    italian = rules.pack is ITALIAN_40
    needs_italian = [
        ("primiera", rules.primiera is not None),
        ("re_bello", rules.re_bello),
        ("napola", rules.napola is not Napola.OFF),
        ("napoleone", rules.napoleone),
        ("throw_in", rules.throw_in),
    ]
    for field, asked in needs_italian:
        if asked and not italian:
            off = "none" if field == "primiera" else "off" if field == "napola" else "false"
            raise RulesError(
                f"{source}: {at(field)} needs the italian-40 pack (its coins, kings and primiera "
                f"values); with {rules.pack.name} set it to {off}"
            )
    if rules.throw_in and (rules.table_cards < 4 or rules.opening_sweep):
        raise RulesError(
            f"{source}: {at('throw_in')} needs 4 table cards and no opening_sweep; set it to false"
        )
    if rules.ace_sweep_scopa and rules.capture is not Capture.ACE_TAKES_ALL:
        raise RulesError(
            f"{source}: {at('ace_sweep_scopa')} goes with capture.rule = 'ace-takes-all'"
        )


def from_definition(data: Mapping, source: str, base: Mapping | None = None) -> Variant:
    """The variant ``data`` defines, on top of the definition ``base`` (a preset's, for a file
    that ``extends`` one). ``source`` names the file in every message."""
    _check_keys(data, source)
    merged = {section: dict((base or {}).get(section, {})) for section in SCHEMA}
    for section in SCHEMA:
        merged[section].update(data.get(section, {}))
    missing = [f"{s}.{k}" for s in SCHEMA for k in SCHEMA[s] if k not in merged[s]]
    if missing:
        raise RulesError(
            f"{source}: {missing[0]} is missing; give every key of the sections, or start from "
            'a preset with extends = "classic" (see configs/variants/)'
        )
    name = data.get("name", (base or {}).get("name"))
    if not name or not _NAME.fullmatch(name):
        raise RulesError(
            f"{source}: name = {name!r}: a variant's name is letters, digits, '-', '_' or '.' "
            '(e.g. name = "my-game")'
        )
    pack = _value("pack", merged["deal"]["pack"], ITALIAN_40, _where(source, "deal", "pack"))
    fields, given = {}, {}
    for section, keys in SCHEMA.items():
        for key, spec in keys.items():
            where = _where(source, section, key)
            fields[spec.field] = _value(spec.kind, merged[section][key], pack, where)
            given[spec.field] = f"{section}.{key}"
    re_bello = fields["re_bello"]
    fields["re_bello"] = re_bello is not False
    fields["re_bello_card"] = None if isinstance(re_bello, bool) else re_bello
    given["re_bello_card"] = given["re_bello"]
    # The usual cards are None, so that a file equal to a preset gives a variant equal to it.
    for field, usual in (("settebello_card", (0, 7)), ("re_bello_card", (0, 10))):
        if fields[field] == pack.card(*usual):
            fields[field] = None
    _check_rules(SimpleNamespace(**fields), given, source)  # before Variant's own deal check
    rules = Variant(name, **fields)
    accepted = accepted_options(rules)
    return Variant(
        name, **fields, allowed_options=accepted, summary=data.get("summary", ""),
        option_defaults=tuple((k, _plain(getattr(rules, k))) for k in sorted(accepted)),
    )  # fmt: skip


def _plain(value):
    return value.value if isinstance(value, StrEnum) else value


def definition_of(rules: Variant) -> dict:
    """The full definition of ``rules`` as plain data (TOML and JSON types): what a run's manifest
    records, and what :func:`from_definition` turns back into an equal variant."""
    out: dict = {"name": rules.name}
    if rules.summary:
        out["summary"] = rules.summary
    for section, keys in SCHEMA.items():
        values = {}
        for key, spec in keys.items():
            if spec.field == "settebello_card":
                value = rules.pack.code(rules.settebello)
            elif spec.field == "re_bello":
                value = rules.re_bello and rules.pack.code(rules.king_of_coins)
            else:
                value = getattr(rules, spec.field)
            if isinstance(value, Pack):
                value = value.name
            elif isinstance(value, tuple):
                value = list(value)
            elif value is None:
                value = "none"
            values[key] = _plain(value)
        out[section] = values
    return out


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml_value, value)) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_toml(definition: Mapping, header: str = "") -> str:
    """A definition as the text of a variant file, each key with its meaning as a comment, after
    ``header`` (comment lines)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines += [f"{key} = {_toml_value(definition[key])}" for key in TOP_KEYS if key in definition]
    for section, keys in SCHEMA.items():
        lines += ["", f"[{section}]"]
        width = max(len(f"{k} = {_toml_value(definition[section][k])}") for k in keys)
        for key, spec in keys.items():
            text = f"{key} = {_toml_value(definition[section][key])}"
            lines.append(f"{text:{width}}  # {spec.help}")
    return "\n".join(lines) + "\n"
