"""Rules prose: a variant described in words, from its data, for ``scopa-sim variants NAME``.

Built from the :class:`Variant` and the option specs rather than written per preset, so that a
new preset or option is described as soon as it exists; docs/rules.md explains the rules in full.
"""

from __future__ import annotations

from scopa_sim.rules.items import CONTESTED, TALLIES, Item, scoring_table
from scopa_sim.rules.keys import LEGACY_CAPTURE, Capture, applies
from scopa_sim.rules.options import OPTIONS
from scopa_sim.rules.presets import PRESET_HELP
from scopa_sim.rules.variant import Variant

__all__ = ["RULES_DOC", "describe_variant"]

#: The document that explains every variant and option, as messages and help texts cite it.
RULES_DOC = "docs/rules.md"


def _value(value) -> str:
    """An option value as it is typed on the command line."""
    if isinstance(value, bool):
        return str(value).lower()
    return str(getattr(value, "value", value))


def _hands(hands) -> str:
    """``(3, 3, 3, 3, 4)`` -> "4 hands of 3 cards each, then 1 hand of 4"."""
    runs: list[list[int]] = []
    for size in hands:
        if runs and runs[-1][0] == size:
            runs[-1][1] += 1
        else:
            runs.append([size, 1])
    if len(runs) == 1 and runs[0][1] == 1:
        return f"one hand of {runs[0][0]} cards each"
    parts = [f"{count} hand{'s' if count > 1 else ''} of {size}" for size, count in runs]
    parts[0] += " cards each"
    return ", then ".join(parts)


_CAPTURE_TEXT = {
    "match-or-sum": (
        "a played card takes one table card of the same rank; failing that, one set of two or "
        "more table cards summing to its value; failing that, it stays on the table"
    ),
    "fifteen": (
        "a played card of value v takes one set of one or more table cards summing to 15 - v "
        "(no equal-rank rule); otherwise it stays on the table"
    ),
    "ace-takes-all": (
        "as in the classic game (same rank first, else a sum), except that an ace played with no "
        "ace on the table takes every table card (with an ace there it takes that ace; on an "
        "empty table it stays)"
    ),
}


def _legacy_capture(rules) -> Capture | None:
    """The older name of ``rules``' capture kinds, when they are one of today's three."""
    for name, kinds in LEGACY_CAPTURE.items():
        moot = () if rules.match and rules.sum else ("match_priority",)  # it plays no part
        if all(getattr(rules, k) == v for k, v in kinds.items() if k not in moot):
            return name
    return None


def _capture_text(rules) -> str:
    """How a card captures, in words: today's three ways as they always read, any other
    combination of kinds (cirulla.md C3) kind by kind."""
    legacy = _legacy_capture(rules)
    if legacy is not None:
        return _CAPTURE_TEXT[legacy.value]
    kinds = []
    if rules.match:
        kinds.append("one table card of the same rank")
    if rules.sum:
        first = rules.match and rules.match_priority
        unless = " (unless a table card has its rank)" if first else ""
        kinds.append(f"one set of two or more table cards summing to its value{unless}")
    if rules.total:
        kinds.append(f"one set of one or more table cards making {rules.total} with it")
    text = ""
    if kinds:
        text = f"a played card takes {' or '.join(kinds)}, as the player chooses; otherwise it "
        text += "stays on the table"
    if rules.ace_sweeps:
        sweep = (
            "an ace played with no ace on the table takes every table card, its only capture "
            "(with an ace there it captures as any card; on an empty table it stays)"
        )
        text = f"{text}; {sweep}" if text else sweep
    return text


def describe_variant(rules: Variant) -> str:
    """Everything about a preset, built from its data: new presets and options appear here."""
    get = getattr
    n, sides, pack = rules.n_players, rules.n_sides, rules.pack
    coins = pack.suit_names[0]
    if sides == n:
        who = f"{n} players, each on their own"
    else:
        who = f"{n} players in {sides} teams of {n // sides}, partners sitting opposite"
    table = f"{rules.table_cards} cards on the table" if rules.table_cards else "no table cards"
    deal = f"{pack.name} pack ({pack.n_cards} cards); {table}; {_hands(rules.hands)}"
    if applies(rules, "throw_in"):
        rank, count = get(rules, "throw_in_rank", 10), get(rules, "throw_in_count", 3)
        names = {1: "aces", 7: "sevens", 8: "fanti", 9: "cavalli", 10: "kings"}
        cards = names.get(rank, f"cards of rank {rank}")
        what = "3 or 4 kings" if (rank, count) == (10, 3) else f"{count} or more {cards}"
        deal += f"; throw-in ({what} on the table): {'on' if rules.throw_in else 'off'}"
    else:
        deal += "; no throw-in"
    if get(rules, "opening_sweep", False):
        deal += (
            "; an opening table summing to 15 goes to the dealer as 1 escoba, "
            "30 in two 15s as 2 escobas"
        )
    if get(rules, "opening_fifteen", False):
        deal += "; an opening table of 15 (30) goes to the dealer for 1 (2) opening points"
    if get(rules, "declarations", False):
        deal += (
            f"; hands declare: three of a kind {rules.triple_points}, a hand of "
            f"{rules.low_hand} or less {rules.low_points}"
        )
    capture = _capture_text(rules)
    capture += "; a card that can capture must capture"
    if rules.forced_capture:
        capture += ", and a player who can capture must play a capturing card"
    if rules.fewest_cards:
        capture += "; a sum capture uses as few table cards as possible"
        capture += ", and so does a total capture" if rules.total else ""

    scoring = ["most cards", f"most {coins}"]
    if get(rules, "most_sevens", False):
        scoring.append("most sevens")
    if get(rules, "settebello_card", None) is None:
        scoring.append(f"seven of {coins}")
    else:
        scoring.append(f"the {pack.code(rules.settebello)} (the settebello point)")
    if get(rules, "primiera", None) is not None:
        scoring.append(
            f"primiera ({_value(rules.primiera)}; a missing suit: "
            f"{_value(rules.primiera_missing_suit)})"
        )
    else:
        scoring.append("no primiera")
    escoba = _legacy_capture(rules) is Capture.FIFTEEN
    scope = "escobas (1 each" if escoba else "scope (1 each"
    if rules.last_play_scopa:
        scope += "; the last play's sweep counts"
    else:
        scope += "; not on the last play"
    if rules.ace_sweeps:
        ace = get(rules, "ace_sweep_scopa", False)
        scope += "; an ace sweep counts" if ace else "; not an ace sweep"
    scoring.append(scope + ")")
    if get(rules, "re_bello", False) and get(rules, "re_bello_card", None) is None:
        scoring.append(f"king of {coins} (re bello)")
    elif get(rules, "re_bello", False):
        scoring.append(f"the {pack.code(rules.king_of_coins)} (the re bello point)")
    if _value(get(rules, "napola", "off")) != "off":
        scoring.append(f"napola ({_value(rules.napola)})")
    sides_word = "team" if sides < n else "player"
    ties = "ties for the most score nothing"

    end = []
    if get(rules, "scopa_wins_immediately", False):
        end.append(
            f"a scopa that brings a {sides_word} to the target wins at once (the deal stops)"
        )
    if get(rules, "count_in_turn_order", False):
        end.append(
            "at the end of a deal the players count in turn order (seat 0 first, the dealer "
            "last); the first to reach the target wins"
        )
    else:
        end.append(
            f"at the end of a deal the {sides_word} that reaches the target wins; if several "
            "do, the most points; if level, play on"
        )
    if get(rules, "napoleone", False):
        end.append(f"all ten {coins} win the game outright (napoleone)")
    if hasattr(rules, "first_dealer"):
        end.append(f"first dealer: {_value(rules.first_dealer)}")

    lines = [
        f"{rules.name}: {get(rules, 'summary', '') or PRESET_HELP.get(rules.name, '')}".rstrip(
            ": "
        ),
        f"  players:  {who}",
        f"  deal:     {deal}",
        f"  capture:  {capture}",
        # With [[scoring.items]] of its own the variant's table below says it all.
        *([] if get(rules, "items", ()) else [f"  scoring:  {', '.join(scoring)}; {ties}"]),
        "  points (the scoring table; [[scoring.items]] in a variant file changes it):",
        *(f"    pt_{item.name}  {item_text(item, pack)}" for item in scoring_table(rules)),
        f"  target:   {rules.target}",
        f"  game end: {'; '.join(end)}",
        "  options (--option KEY=VALUE; default, then allowed values):",
    ]
    accepted = [o for o in OPTIONS.values() if o.name in rules.allowed_options]
    width = max((len(o.name) for o in accepted), default=0)
    defaults = [_value(get(rules, o.name, "")) for o in accepted]
    dwidth = max(map(len, defaults), default=0)
    vwidth = max((len(o.values) for o in accepted), default=0)
    for spec, default in zip(accepted, defaults, strict=True):
        lines.append(
            f"    {spec.name:{width}}  {default:{dwidth}}  {spec.values:{vwidth}}  {spec.help}"
        )
    refused = [name for name in OPTIONS if name not in rules.allowed_options]
    if refused:
        lines.append(f"  not accepted: {', '.join(refused)}")
    lines.append(f"  rules: {RULES_DOC} (§7 for the presets)")
    return "\n".join(lines)


def item_text(item: Item, pack) -> str:
    """One item of the scoring table in words: its points, what earns them, its tie rule."""
    suit = pack.suit_names[item.suit] if item.suit is not None else ""
    cards = " ".join(pack.code(card) for card in item.cards)
    scale = item.scale if isinstance(item.scale, str) else list(item.scale)
    per = {"scope": "per scopa", **{t: f"per {t} tally" for t in TALLIES}}.get(item.kind)
    if per:
        return f"{item.points} {per}"
    what = {
        "most-cards": "to the most cards",
        "most-suit": f"to the most {suit}",
        "most-rank": f"to the most of rank {item.rank}",
        "primiera": f"to the best primiera ({scale}; a missing suit: {item.missing})",
        "at-least": f"to holding at least {item.count} {suit or 'cards'}",
        "card": f"for the {cards}",
        "set": f"for {cards} held together",
        "sequence": f"per card of the {suit} sequence from the ace, at least {item.count} long"
        + (f", up to {item.cap}" if item.cap else "")
        + (", then every card of the suit" if item.extend == "all" else ""),
    }[item.kind]
    tie = {"nobody": "; a tie scores nothing", "each": "; each side tied scores"}
    return f"{item.points} {what}{tie[item.tie] if item.kind in CONTESTED else ''}"


# --- the tables of docs/rules.md, built from the table of rule keys ------------------------------


def _md_words(words) -> str:
    return ", ".join(f"`{word}`" for word in words)


def _md_value(value) -> str:
    """A value of a variant file as docs/rules.md writes it: numbers bare, the rest as code."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        return "`[" + ", ".join(map(str, value)) + "]`"
    return f"`{_value(value)}`"


def _presets_text(names, every) -> str:
    """``names`` among the presets ``every``, a family ``classic*`` as one when all of it is in."""
    out, rest = [], list(names)
    while rest:
        head = rest[0]
        family = [n for n in every if n == head or n.startswith(head + "-")]
        if len(family) > 1 and all(n in rest for n in family):
            out.append(f"`{head}*`")
            rest = [n for n in rest if n not in family]
        else:
            out.append(f"`{head}`")
            rest.pop(0)
    return ", ".join(out)


def _accepted_by(name: str, presets) -> str:
    every = list(presets)
    accepting = [n for n in every if name in presets[n].allowed_options]
    refusing = [n for n in every if n not in accepting]
    if not refusing:
        return "every preset"
    if len(accepting) == 1:
        return f"{_presets_text(accepting, every)} only"
    if len(_presets_text(refusing, every).split(", ")) == 1:
        return f"every preset except {_presets_text(refusing, every)}"
    return f"{_presets_text(accepting, every)} (not {_presets_text(refusing, every)})"


def options_table(presets) -> str:
    """docs/rules.md §7 "Options and their defaults": each option's values, default (and the
    presets that differ from it) and the presets that accept it."""
    from scopa_sim.rules.definition import definition_of

    lines = ["| option | values | default | accepted by |", "| --- | --- | --- | --- |"]
    for name, key in OPTIONS.items():
        values = f"{key.low}..{key.high}" if key.kind is int else _md_words(key.choices)
        usual = definition_of(Variant("base"))[key.section][name]
        unusual: dict[str, list[str]] = {}
        for preset, rules in presets.items():
            value = definition_of(rules)[key.section][name]
            if name in rules.allowed_options and value != usual:
                unusual.setdefault(_md_value(value), []).append(preset)
        default = "; ".join(
            [_md_value(usual)]
            + [f"{v} in {_presets_text(names, list(presets))}" for v, names in unusual.items()]
        )
        lines.append(f"| `{name}` | {values} | {default} | {_accepted_by(name, presets)} |")
    return "\n".join(lines) + "\n"


def _file_values(key) -> str:
    """What a variant file may write for ``key``, for docs/rules.md."""
    if key.kind is int:
        return f"{key.low} to {key.high}" if key.high is not None else f"{key.low} or more"
    if key.kind == "hands":
        return "a list of sizes, each 1 or more"
    if key.kind == "card":
        return "a card of the pack, e.g. `7D`"
    if key.or_card:
        return "`true`, `false`, or a card, e.g. `RD`"
    return _md_words([*key.choices, *(["none"] if key.none else [])])


def keys_table() -> str:
    """docs/rules.md "Write your own variant": every key of a variant file, with what it takes,
    its default (what ``extends = "base"`` starts from), whether ``--option`` sets it, and what it
    does and needs."""
    from scopa_sim.rules.definition import defaults_definition
    from scopa_sim.rules.keys import KEYS

    base = defaults_definition()
    lines = [
        "| key | values | default | option | what it sets |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key in KEYS:
        needs = ", and ".join(condition.needs for condition in key.needs)
        what = key.help + (f"; needs {needs}" if needs else "")
        option = "yes" if key.option else ""
        default = _md_value(base[key.section][key.name])
        lines.append(
            f"| `[{key.section}]` `{key.name}` | {_file_values(key)} | {default} | {option} | "
            f"{what} |"
        )
    return "\n".join(lines) + "\n"
