"""Named variants (docs/rules.md §7), each defined by a variant file shipped with the package.

``scopa_sim/rules/presets/NAME.toml`` is read by the same function as a user's variant file
(:func:`scopa_sim.rules.definition.from_definition`), so a preset is one such file and a user's
file can do whatever a preset does. Each ``extends = "base"`` (the defaults of the table of rule
keys) and gives only the keys where it differs. ``configs/variants/NAME.toml`` are
byte-identical copies for users to start from (tests/test_variant_files.py keeps them so).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources

from scopa_sim.rules.definition import (
    BASE,
    UNSUPPORTED,
    check_variant,
    defaults_definition,
    from_definition,
)
from scopa_sim.rules.options import OPTIONS
from scopa_sim.rules.variant import PRESET_DEFAULTS, RulesError, Variant

#: The presets in the order they are listed (``scopa-sim variants``, docs/rules.md §7).
PRESET_NAMES = (
    "classic", "classic-3p", "classic-4p", "classic-6p", "scopone", "scopone-scientifico",
    "escoba", "asso-piglia-tutto", "scopa-52", "scopa-52-3p", "scopa-52-4p", "cirulla",
    "cirulla-3p", "cirulla-4p",
)  # fmt: skip


def preset_text(name: str) -> str:
    """The text of a preset's variant file, as shipped in the package."""
    return (resources.files("scopa_sim.rules") / "presets" / f"{name}.toml").read_text("utf-8")


def _load_preset(name: str) -> Variant:
    data = tomllib.loads(preset_text(name))
    if data.get("extends") != BASE:
        raise RulesError(f'preset file {name}.toml does not say extends = "{BASE}"')
    rules = from_definition(data, f"preset {name}", defaults_definition())
    if rules.name != name:
        raise RulesError(f"preset file {name}.toml names itself {rules.name!r}")
    return rules


PRESETS: dict[str, Variant] = {name: _load_preset(name) for name in PRESET_NAMES}

PRESET_HELP = {name: rules.summary for name, rules in PRESETS.items()}

PRESET_DEFAULTS.update(PRESETS)  # what Variant.describe compares options with


def with_options(base: Variant, options: Mapping[str, object]) -> Variant:
    """``base`` with ``options`` applied (values may be text, as from a command line); an option
    ``base`` does not accept is an error, not ignored."""
    changes = {}
    for key, value in options.items():
        if key not in OPTIONS:
            hint = next((why for k, why in UNSUPPORTED.items() if k.endswith(f".{key}")), None)
            if hint:
                raise RulesError(f"option {key!r} is not supported: {hint}")
            raise RulesError(f"unknown option {key!r}; options are: {', '.join(OPTIONS)}")
        if key not in base.allowed_options:
            raise RulesError(
                f"option {key!r} does not apply to {base.name}; it accepts: "
                f"{', '.join(sorted(base.allowed_options))}"
            )
        changes[key] = OPTIONS[key].parse(value)
    if not changes:
        return base
    rules = replace(base, **changes)
    shown = ",".join(f"{key}={_text(value)}" for key, value in options.items())
    check_variant(rules, f"{base.name} with --option {shown}")
    return rules


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
