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
from dataclasses import replace
from enum import StrEnum
from types import SimpleNamespace

from scopa_sim.cards import ITALIAN_40, Pack
from scopa_sim.rules.items import (
    Item,
    check_table,
    entry_of,
    item_from_entry,
    scoring_table,
    standard_items,
)
from scopa_sim.rules.keys import (
    CAPTURE_KINDS,
    CARD,
    HANDS,
    KEYS,
    LEGACY_CAPTURE,
    MAX_TOTAL,
    PACK,
    PACKS,
    SECTIONS,
    Capture,
    RuleKey,
    RulesError,
    accepted_options,
    rule_key,
)
from scopa_sim.rules.variant import Variant

__all__ = [
    "BASE",
    "LATER_KEYS",
    "PACKS",
    "SCHEMA",
    "accepted_options",
    "check_variant",
    "defaults_definition",
    "definition_of",
    "from_definition",
]

#: Each section's keys by name, from the table of rule keys.
SCHEMA: dict[str, dict[str, RuleKey]] = {
    section: {key.name: key for key in KEYS if key.section == section} for section in SECTIONS
}

#: What ``extends`` names to start from the table's defaults rather than from a preset.
BASE = "base"

#: Keys added after runs were first recorded, as (section, name): a run's recorded definition
#: or a user's file written in full before them may lack them, and then plays their default
#: (what the engine then did).
LATER_KEYS = frozenset(
    (section, name)
    for section, names in (
        ("deal", ("throw_in_rank", "throw_in_count", "opening_fifteen", "matta",
                  "matta_opening", "opening_low", "two_aces_fifteen_stands")),
        ("declarations", ("declarations", "low_hand", "low_points", "triple_points",
                          "declare_rounds", "matta_declarations")),
        ("scoring", ("grande_points", "piccola_max")),
    )
    for name in names
)  # fmt: skip

#: Top-level keys besides the sections.
TOP_KEYS = ("name", "summary", "extends")

_ITEMS_HINT = (
    "points are given per item of the scoring table: write a [[scoring.items]] entry, e.g. "
    'name = "settebello" and points = 2 (docs/rules.md, "Write your own variant")'
)

#: Keys a designer may well try, and what the engine does instead: refused with this line.
UNSUPPORTED = {
    "capture.sums_to": "a capture to a total with the played card is capture.total (e.g. 15)",
    "deal.stock": "the engine deals the whole pack and leaves no stock",
    "game.ties": "at the target, the most points win and a level game plays on; another tie "
    "rule is not supported",
    "scoring.points": _ITEMS_HINT,
    "scoring.ties": 'each item of [[scoring.items]] has its tie rule: tie = "nobody" or "each"',
    "game.cappotto": "Cirulla's cappotto (all ten coins win the game) is the key napoleone: "
    "[game] napoleone in a file, --option napoleone=true|false",
    "declarations.matta_keeps_value": "the matta is a plain seven once played; keeping the rank "
    "of its declaration in play is not played by scopa-sim",
}

#: The key of ``[scoring]`` that holds the file's scoring items (``[[scoring.items]]``).
ITEMS = "items"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _where(source: str, section: str, key: str) -> str:
    return f"{source}: {section}.{key}" if section else f"{source}: {key}"


def _whole_number(key: RuleKey, raw, where: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RulesError(f"{where} takes a whole number, not {raw!r}")
    low, high = key.low, key.high
    if (low is not None and raw < low) or (high is not None and raw > high):
        span = f"from {low} to {high}" if high is not None else f"of {low} or more"
        raise RulesError(f"{where} = {raw}: it takes a whole number {span}")
    return raw


def _card(raw, pack: Pack, where: str) -> int:
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


def _value(key: RuleKey, raw, pack: Pack, where: str):
    """``raw`` (as TOML gives it) checked and converted to the key's type."""
    if key.kind is bool:
        if key.or_card and not isinstance(raw, bool):
            return _card(raw, pack, where)
        if not isinstance(raw, bool):
            raise RulesError(f"{where} takes true or false, not {raw!r}")
        return raw
    if key.kind is int:
        return _whole_number(key, raw, where)
    if key.kind is PACK:
        if raw not in PACKS:
            raise RulesError(f"{where} = {raw!r} is not a pack; choose {' or '.join(PACKS)}")
        return PACKS[raw]
    if key.kind is HANDS:
        if not isinstance(raw, list) or not raw:
            raise RulesError(f"{where} takes a list of hand sizes, e.g. [3, 3, 3], not {raw!r}")
        for size in raw:
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise RulesError(
                    f"{where} = {raw!r}: every hand deals 1 card or more to each player, "
                    f"not {size!r}"
                )
        return tuple(raw)
    if key.none and raw == "none":
        return None
    if key.kind is CARD:
        return _card(raw, pack, where)
    if key.none and raw == "none":
        return None
    choices = [*key.choices, *(["none"] if key.none else [])]
    if raw not in choices:
        raise RulesError(f"{where} = {raw!r} is unknown; choose one of: {', '.join(choices)}")
    return key.kind(raw)


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
            if name in SCHEMA[key] or (key, name) == ("scoring", ITEMS):
                continue
            dotted = f"{key}.{name}"
            if dotted in UNSUPPORTED or name.endswith("_points"):
                reason = UNSUPPORTED.get(dotted, _ITEMS_HINT)
                raise RulesError(f"{_where(source, key, name)} is not supported: {reason}")
            raise RulesError(
                f"{_where(source, key, name)}: unknown key; [{key}] takes: {', '.join(SCHEMA[key])}"
            )


def _without_legacy_rule(data: Mapping, source: str) -> Mapping:
    """``data`` with the older key ``capture.rule`` (one name per combination of capture kinds,
    as older run manifests and users' files write it) replaced by the keys it means. A file that
    also gives one of those keys must give it the value the rule means."""
    section = data.get("capture")
    if not isinstance(section, Mapping) or "rule" not in section:
        return data
    raw = section["rule"]
    words = [member.value for member in Capture]
    if raw not in words:
        raise RulesError(
            f"{_where(source, 'capture', 'rule')} = {raw!r} is unknown; choose one of: "
            f"{', '.join(words)} (or write the keys {', '.join(CAPTURE_KINDS)})"
        )
    meant = LEGACY_CAPTURE[Capture(raw)]
    for name, value in meant.items():
        if name in section and section[name] != value:
            raise RulesError(
                f"{_where(source, 'capture', name)} = {_toml_value(section[name])} contradicts "
                f"capture.rule = {raw!r}, which means {name} = {_toml_value(value)}; drop the "
                "older key rule"
            )
    capture = {k: v for k, v in section.items() if k != "rule"}
    return {**data, "capture": {**meant, **capture}}


def _check_captures(rules, at, source: str) -> None:
    """Capture kinds no card could play: a total no card can make, or no kind at all."""
    if rules.total == 1:
        raise RulesError(
            f"{source}: {at('total')} = 1: no capture makes it (the played card and a table "
            f"card make 2 at least); write 2 to {MAX_TOTAL}, or 0 for no capture to a total"
        )
    if not (rules.match or rules.sum or rules.total or rules.ace_sweeps):
        raise RulesError(
            f"{source}: {at('match')}, {at('sum')}, {at('total')} and {at('ace_sweeps')} are "
            "all off: no card could ever capture; set match = true (or another kind)"
        )


def _check_rules(
    rules: Variant, given: Mapping[str, str], source: str, *, needs: bool = True
) -> None:
    """What the engines cannot play, named by the key that asks for it; with ``needs``, also a
    key set where it does not apply (a file's mistake; an option that turns a rule off, such as
    ``declarations=false``, leaves the keys that depend on it idle instead)."""

    def at(field: str) -> str:
        return given.get(field, field)

    n, sides = rules.n_players, rules.n_sides
    if sides < 2 or n % sides:
        raise RulesError(
            f"{source}: {at('n_sides')} = {sides}: {n} players make {n} sides (each on their "
            f"own) or teams of equal size, at least 2 sides (e.g. {n // 2 if n % 2 == 0 else n})"
        )
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
    _check_captures(rules, at, source)
    _check_deal_level(rules, at, source)
    _check_scoring(rules, at, source)
    for key in KEYS if needs else ():
        value = getattr(rules, key.field)
        failed = [c for c in key.needs if not c.holds(rules)]
        if failed and value != key.off:
            off = _file_value(key.off)
            raise RulesError(
                f"{source}: {at(key.field)} needs {failed[0].needs}; set it to "
                f"{str(off).lower() if isinstance(off, bool) else off}"
            )


def _check_scoring(rules, at, source: str) -> None:
    """A piccola shorter than the ace, 2 and 3 it starts with."""
    if 0 < rules.piccola_max < 3:
        raise RulesError(
            f"{source}: {at('piccola_max')} = {rules.piccola_max}: the piccola starts with the "
            "ace, 2 and 3 of coins; write 3 to 10, or 0 for no piccola"
        )


def _check_deal_level(rules, at, source: str) -> None:
    """Deal-level rules (cirulla.md C2.2, C2.3, C5) that cannot occur with the rest: one line
    naming the key."""
    if rules.throw_in and rules.throw_in_count > rules.table_cards and rules.table_cards >= 4:
        raise RulesError(
            f"{source}: {at('throw_in_count')} = {rules.throw_in_count}: a table of "
            f"{rules.table_cards} cards never holds that many; take 1 to {rules.table_cards}"
        )
    if rules.opening_fifteen and rules.opening_sweep:
        raise RulesError(
            f"{source}: {at('opening_fifteen')} = true with {at('opening_sweep')} = true: the "
            "opening table goes to the dealer once, as escobas or as opening points; set one false"
        )
    if not rules.declarations:
        return
    if any(size != 3 for size in rules.hands):
        raise RulesError(
            f"{source}: {at('declarations')} = true needs hands of 3 cards (a declaration is of "
            f"a dealt hand of three), not {at('hands')} = {list(rules.hands)}"
        )
    if 0 < rules.low_hand < 3:
        raise RulesError(
            f"{source}: {at('low_hand')} = {rules.low_hand}: no hand of three cards adds up to "
            "less than 3 (1 + 1 + 1); write 0 for no low-hand declaration, or 3 or more"
        )
    if rules.low_hand == 0 and rules.triple_points == 0:
        raise RulesError(
            f"{source}: {at('declarations')} = true with {at('low_hand')} = 0 and "
            f"{at('triple_points')} = 0 declares nothing; set declarations = false"
        )


def from_definition(data: Mapping, source: str, base: Mapping | None = None) -> Variant:
    """The variant ``data`` defines, on top of the definition ``base`` (a preset's, for a file
    that ``extends`` one). ``source`` names the file in every message."""
    data = _without_legacy_rule(data, source)
    base = base and _without_legacy_rule(base, source)
    _check_keys(data, source)
    merged = {section: dict((base or {}).get(section, {})) for section in SCHEMA}
    for section in SCHEMA:
        merged[section].update(data.get(section, {}))
    for section, name in LATER_KEYS:
        merged[section].setdefault(name, _file_value(rule_key(name).default))
    own = data.get("scoring", {}).get(ITEMS, [])
    if not isinstance(own, list):
        raise RulesError(
            f"{_where(source, 'scoring', ITEMS)} is a list of tables: write each entry under "
            "[[scoring.items]]"
        )
    raw_items = [*(base or {}).get("scoring", {}).get(ITEMS, []), *own]
    merged["scoring"].pop(ITEMS, None)
    missing = [f"{s}.{k}" for s in SCHEMA for k in SCHEMA[s] if k not in merged[s]]
    if missing:
        raise RulesError(
            f"{source}: {missing[0]} is missing; give every key of the sections, or start from "
            f'the defaults with extends = "{BASE}" or from a preset with extends = "classic" '
            "(see configs/variants/)"
        )
    name = data.get("name", (base or {}).get("name"))
    if not name or not _NAME.fullmatch(name):
        raise RulesError(
            f"{source}: name = {name!r}: a variant's name is letters, digits, '-', '_' or '.' "
            '(e.g. name = "my-game")'
        )
    where = _where(source, "deal", "pack")
    pack = _value(rule_key("pack"), merged["deal"]["pack"], ITALIAN_40, where)
    fields, given = {}, {}
    for key in KEYS:
        where = _where(source, key.section, key.name)
        fields[key.field] = _value(key, merged[key.section][key.name], pack, where)
        given[key.field] = f"{key.section}.{key.name}"
    re_bello = fields["re_bello"]
    fields["re_bello"] = re_bello is not False
    fields["re_bello_card"] = None if isinstance(re_bello, bool) else re_bello
    given["re_bello_card"] = given["re_bello"]
    # The usual cards are None, so that a file equal to a preset gives a variant equal to it.
    for field, usual in (("settebello_card", (0, 7)), ("re_bello_card", (0, 10))):
        if fields[field] == pack.card(*usual):
            fields[field] = None
    _check_rules(SimpleNamespace(**fields), given, source)  # before Variant's own deal check
    fields["items"] = _items(Variant(name, **fields), raw_items, len(own), source)
    rules = Variant(name, **fields)
    accepted = accepted_options(rules)
    return Variant(
        name, **fields, allowed_options=accepted, summary=data.get("summary", ""),
        option_defaults=tuple((k, _plain(getattr(rules, k))) for k in sorted(accepted)),
    )  # fmt: skip


def check_variant(rules: Variant, source: str) -> None:
    """The checks of a variant file, on a variant made otherwise (a preset or file with
    ``--option`` values): what the engines cannot play, and a scoring table whose items
    contradict, each one line beginning with ``source``."""
    _check_rules(rules, {}, source, needs=False)
    check_table(scoring_table(rules), {}, rules.pack, _where(source, "scoring", ITEMS))


def _items(rules: Variant, raw: list, own: int, source: str) -> tuple[Item, ...]:
    """The ``[[scoring.items]]`` entries of a definition (its base's, then the last ``own`` of
    ``raw``, the file's own), checked, each merged into an earlier entry of its name."""
    where = _where(source, "scoring", ITEMS)
    first_own = len(raw) - own
    names = [entry.get("name") if isinstance(entry, Mapping) else None for entry in raw]
    known = {item.name: item for item in standard_items(rules)}
    entries: dict[str, Item] = {}
    for i, entry in enumerate(raw):
        at = f"{where}[{i - first_own}]" if i >= first_own else f"{where} (of the base)"
        if i >= first_own and names[i] in names[first_own:i]:
            raise RulesError(
                f"{at}.name = {names[i]!r}: entry {names.index(names[i], first_own) - first_own} "
                "has that name already; give each item once"
            )
        item = item_from_entry(entry, rules.pack, at, known)
        old = entries.get(item.name)
        entries[item.name] = item if old is None else replace(old, **item.given())
        known[item.name] = replace(known[item.name], **item.given()) if item.name in known else item
    items = tuple(entries.values())
    if items:
        owner = {name: i - first_own for i, name in enumerate(names) if i >= first_own}
        check_table(scoring_table(replace(rules, items=items)), owner, rules.pack, where)
    return items


def _plain(value):
    return value.value if isinstance(value, StrEnum) else value


def _file_value(value):
    """A field's value as a variant file writes it (TOML and JSON types)."""
    if isinstance(value, Pack):
        return value.name
    if isinstance(value, tuple):
        return list(value)
    if value is None:
        return "none"
    return _plain(value)


def _key_value(rules: Variant, key: RuleKey):
    """The value of ``key`` in ``rules`` as a file writes it; the named cards by their code."""
    if key.kind is CARD and key.field == "settebello_card":
        return rules.pack.code(rules.settebello)
    if key.kind is CARD:
        card = getattr(rules, key.field)
        return "none" if card is None else rules.pack.code(card)
    if key.or_card:
        return rules.re_bello and rules.pack.code(rules.king_of_coins)
    return _file_value(getattr(rules, key.field))


def definition_of(rules: Variant) -> dict:
    """The full definition of ``rules`` as plain data (TOML and JSON types): what a run's manifest
    records, and what :func:`from_definition` turns back into an equal variant."""
    out: dict = {"name": rules.name}
    if rules.summary:
        out["summary"] = rules.summary
    for section, keys in SCHEMA.items():
        out[section] = {name: _key_value(rules, key) for name, key in keys.items()}
    if rules.items:  # only when there are some: a preset's manifest stays as it was
        out["scoring"][ITEMS] = [entry_of(item, rules.pack) for item in rules.items]
    return out


def defaults_definition() -> dict:
    """The sections of the table's defaults: what a file with ``extends = "base"`` starts from,
    as a file that extends a preset starts from the preset's definition."""
    defaults = definition_of(Variant(BASE))
    return {section: defaults[section] for section in SCHEMA}


def _choices_text(words) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


def comment(key: RuleKey) -> str:
    """What a variant file says beside ``key``'s value: the words it takes if it is a choice,
    else its meaning (and range)."""
    if key.kind is int and key.high is not None:
        return f"{key.help}, {key.low} to {key.high}"
    if key.kind in (bool, CARD):
        return key.help
    words = [*key.choices, *(["none"] if key.none else [])]
    return _choices_text(words) if words else key.help


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
            lines.append(f"{text:{width}}  # {comment(spec)}")
        for entry in definition[section].get(ITEMS, []) if section == "scoring" else []:
            lines += ["", "[[scoring.items]]"]
            lines += [f"{key} = {_toml_value(value)}" for key, value in entry.items()]
    return "\n".join(lines) + "\n"
