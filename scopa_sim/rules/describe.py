"""Rules prose: a variant described in words, from its data, for ``scopa-sim variants NAME``.

Built from the :class:`Variant` and the option specs rather than written per preset, so that a
new preset or option is described as soon as it exists; docs/rules.md explains the rules in full.
"""

from __future__ import annotations

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
    if "throw_in" in rules.allowed_options:
        deal += f"; throw-in (3 or 4 kings on the table): {'on' if rules.throw_in else 'off'}"
    else:
        deal += "; no throw-in"
    if get(rules, "opening_sweep", False):
        deal += (
            "; an opening table summing to 15 goes to the dealer as 1 escoba, "
            "30 in two 15s as 2 escobas"
        )
    capture = _CAPTURE_TEXT.get(_value(rules.capture), f"{_value(rules.capture)} (see {RULES_DOC})")
    capture += "; a card that can capture must capture"
    if rules.forced_capture:
        capture += ", and a player who can capture must play a capturing card"
    if rules.fewest_cards:
        capture += "; a sum capture uses as few table cards as possible"

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
    scope = "escobas (1 each" if _value(rules.capture) == "fifteen" else "scope (1 each"
    if rules.last_play_scopa:
        scope += "; the last play's sweep counts"
    else:
        scope += "; not on the last play"
    if _value(rules.capture) == "ace-takes-all":
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
        f"  scoring:  {', '.join(scoring)}; {ties}",
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
