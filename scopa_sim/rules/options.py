"""Rule options: the keys of the table (``rules.keys``) that ``--option KEY=VALUE`` sets.

An option is a switch of the rules data, never a fork of the engine (docs/rules.md). A variant
accepts the options that apply to it (``keys.accepted_options``); any other option is an
error, not ignored.
"""

from __future__ import annotations

from scopa_sim.rules.keys import KEYS, RuleKey, RulesError

__all__ = ["OPTIONS", "parse_assignments"]

#: The options by name, in the table's order; each parses its value (:meth:`RuleKey.parse`).
OPTIONS: dict[str, RuleKey] = {key.name: key for key in KEYS if key.option}


def parse_assignments(items) -> dict[str, str]:
    """Turn ``["key=value", ...]`` into a dict, with a clear error for a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise RulesError(f"option {item!r} is not KEY=VALUE (e.g. target=16)")
        out[key.strip()] = value.strip()
    return out
