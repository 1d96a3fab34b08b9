"""Named variants (docs/rules.md §7) and the one way to build a variant with options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from scopa_sim.cards import FRENCH_52
from scopa_sim.rules.options import OPTIONS
from scopa_sim.rules.variant import PRESET_DEFAULTS, Capture, RulesError, Variant

#: Options every preset accepts.
_COMMON = frozenset(
    {"target", "forced_capture", "fewest_cards", "last_play_scopa", "scopa_wins_immediately",
     "first_dealer"}
)  # fmt: skip
#: Options that need the Italian pack's coins, kings and primiera.
_ITALIAN = _COMMON | {"primiera", "primiera_missing_suit", "re_bello", "napola", "napoleone"}
#: ... and a four-card opening table that can hold three kings.
_ITALIAN_TABLE = _ITALIAN | {"throw_in"}


def _preset(name: str, n_players: int, n_sides: int, hands, allowed, **rules) -> Variant:
    return Variant(
        name, n_players=n_players, n_sides=n_sides, hands=tuple(hands), allowed_options=allowed,
        **rules,
    )  # fmt: skip


#: The 52-card pub game (docs/rules.md §7): its own pack, scoring and game end.
_SCOPA_52 = {
    "pack": FRENCH_52,
    "throw_in": False,
    "primiera": None,
    "most_sevens": True,
    "last_play_scopa": True,
    "scopa_wins_immediately": True,
    "count_in_turn_order": True,
}

PRESETS: dict[str, Variant] = {
    v.name: v
    for v in (
        _preset("classic", 2, 2, (3,) * 6, _ITALIAN_TABLE),
        _preset("classic-3p", 3, 3, (3,) * 4, _ITALIAN_TABLE),
        _preset("classic-4p", 4, 2, (3,) * 3, _ITALIAN_TABLE),
        _preset("classic-6p", 6, 2, (3,) * 2, _ITALIAN_TABLE),
        _preset("scopone", 4, 2, (9,), _ITALIAN_TABLE),
        _preset("scopone-scientifico", 4, 2, (10,), _ITALIAN, table_cards=0, throw_in=False),
        _preset(
            "escoba",
            2,
            2,
            (3,) * 6,
            _ITALIAN,
            capture=Capture.FIFTEEN,
            opening_sweep=True,
            throw_in=False,
            target=15,
        ),
        _preset(
            "asso-piglia-tutto",
            2,
            2,
            (3,) * 6,
            _ITALIAN_TABLE | {"ace_sweep_scopa"},
            capture=Capture.ACE_TAKES_ALL,
        ),
        _preset("scopa-52", 2, 2, (3,) * 8, _COMMON, **_SCOPA_52),
        _preset("scopa-52-3p", 3, 3, (3, 3, 3, 3, 4), _COMMON, **_SCOPA_52),
        _preset("scopa-52-4p", 4, 4, (3,) * 4, _COMMON, **_SCOPA_52),
    )
}

PRESET_HELP = {
    "classic": "2 players; 4 on the table, 3 cards each per hand, 6 hands",
    "classic-3p": "3 players, each on their own; 4 hands",
    "classic-4p": "4 players in two teams of partners opposite; 3 hands",
    "classic-6p": "6 players in two teams of three; 2 hands",
    "scopone": "4 players in two teams; 4 on the table and 9 cards each, one hand",
    "scopone-scientifico": "4 players in two teams; no table, 10 cards each, one hand",
    "escoba": "scopa a quindici: capture sets summing to 15 with the played card; to 15 points",
    "asso-piglia-tutto": "classic, but an ace takes the whole table (unless an ace lies there)",
    "scopa-52": "52-card pub game, 2 players: most cards, hearts, sevens, 7 of hearts, scope",
    "scopa-52-3p": "52-card pub game, 3 players: four hands of 3, then a last hand of 4",
    "scopa-52-4p": "52-card pub game, 4 players each on their own; 4 hands",
}

PRESET_DEFAULTS.update(PRESETS)  # what Variant.describe compares options with


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
