"""Rules as data: a :class:`Variant` is everything the engines need to know about a game.

Every rule key is one row of :data:`KEYS` (``keys``), which says its type, default, when it
applies (:func:`applies`) and what it does. A preset and a user's variant file are read by the
same code (``definition``, ``files``); :func:`resolve_variant` is how every command turns
``--variant TEXT`` into rules.
"""

from scopa_sim.rules.definition import definition_of
from scopa_sim.rules.files import (
    load_variant_file,
    parse_variant,
    resolve_variant,
    variant,
    variant_of_config,
)
from scopa_sim.rules.keys import (
    KEYS,
    Capture,
    DeclareRounds,
    FirstDealer,
    MattaOpening,
    MissingSuit,
    Napola,
    PrimieraRule,
    RuleKey,
    RulesError,
    applies,
)
from scopa_sim.rules.options import OPTIONS, parse_assignments
from scopa_sim.rules.presets import PRESET_HELP, PRESETS
from scopa_sim.rules.variant import CATEGORIES, Variant

__all__ = [
    "CATEGORIES",
    "KEYS",
    "OPTIONS",
    "PRESETS",
    "PRESET_HELP",
    "Capture",
    "DeclareRounds",
    "FirstDealer",
    "MattaOpening",
    "MissingSuit",
    "Napola",
    "PrimieraRule",
    "RuleKey",
    "RulesError",
    "Variant",
    "applies",
    "definition_of",
    "load_variant_file",
    "parse_assignments",
    "parse_variant",
    "resolve_variant",
    "variant",
    "variant_of_config",
]
