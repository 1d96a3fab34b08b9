"""Named variants (RULES.md §7) and the one way to build a variant with options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from scopa_sim.rules.options import OPTIONS
from scopa_sim.rules.variant import RulesError, Variant

_CLASSIC_OPTIONS = frozenset(OPTIONS)

PRESETS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "classic", n_players=2, n_sides=2, hands=(3,) * 6, allowed_options=_CLASSIC_OPTIONS
        ),
        Variant(
            "classic-3p", n_players=3, n_sides=3, hands=(3,) * 4, allowed_options=_CLASSIC_OPTIONS
        ),
        Variant(
            "classic-4p", n_players=4, n_sides=2, hands=(3,) * 3, allowed_options=_CLASSIC_OPTIONS
        ),
        Variant(
            "classic-6p", n_players=6, n_sides=2, hands=(3,) * 2, allowed_options=_CLASSIC_OPTIONS
        ),
    )
}

PRESET_HELP = {
    "classic": "2 players; 4 on the table, 3 cards each per hand, 6 hands",
    "classic-3p": "3 players, each on their own; 4 hands",
    "classic-4p": "4 players in two teams of partners opposite; 3 hands",
    "classic-6p": "6 players in two teams of three; 2 hands",
}


def variant(name: str, options: Mapping[str, object] | None = None, **kwargs) -> Variant:
    """The preset ``name`` with ``options`` applied (values may be text, as from a command line).

    >>> variant("classic", target=16).target
    16
    """
    if name not in PRESETS:
        raise RulesError(f"unknown variant {name!r}; choose one of: {', '.join(PRESETS)}")
    base = PRESETS[name]
    wanted = {**(options or {}), **kwargs}
    changes = {}
    for key, value in wanted.items():
        if key not in OPTIONS:
            raise RulesError(f"unknown option {key!r}; options are: {', '.join(OPTIONS)}")
        if key not in base.allowed_options:
            raise RulesError(
                f"option {key!r} does not apply to {name}; it accepts: "
                f"{', '.join(sorted(base.allowed_options))}"
            )
        changes[key] = OPTIONS[key].parse(value)
    return replace(base, **changes)


def parse_variant(text: str) -> Variant:
    """Parse ``NAME[:KEY=VALUE,...]`` (the form used by ``scopa-sim compare``)."""
    name, _, rest = text.partition(":")
    options = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(f"{item!r} in {text!r} is not KEY=VALUE (e.g. classic:target=16)")
        options[key.strip()] = value.strip()
    return variant(name.strip(), options)
