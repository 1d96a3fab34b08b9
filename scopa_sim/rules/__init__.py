"""Rules as data: a :class:`Variant` is everything the engines need to know about a game."""

from scopa_sim.rules.options import OPTIONS, OptionSpec, parse_assignments
from scopa_sim.rules.presets import PRESET_HELP, PRESETS, parse_variant, variant
from scopa_sim.rules.variant import (
    CATEGORIES,
    Capture,
    FirstDealer,
    MissingSuit,
    Napola,
    PrimieraRule,
    RulesError,
    Variant,
)

__all__ = [
    "CATEGORIES",
    "OPTIONS",
    "PRESETS",
    "PRESET_HELP",
    "Capture",
    "FirstDealer",
    "MissingSuit",
    "Napola",
    "OptionSpec",
    "PrimieraRule",
    "RulesError",
    "Variant",
    "parse_assignments",
    "parse_variant",
    "variant",
]
