"""``scopa-sim variants``: list the presets, one line each, or describe one in full.

The description is rules prose built from the variant's data (``rules.describe``), so a new
preset or option shows up here without any change to this module.
"""

from __future__ import annotations

from scopa_sim.rules import PRESET_HELP, PRESETS, RulesError
from scopa_sim.rules.describe import RULES_DOC, describe_variant


def add_parser(commands) -> None:
    var = commands.add_parser(
        "variants",
        help="list the variants, one line each, or show one in full",
        description=(
            "Without NAME: every preset, one line each. With NAME: that preset's deal, capture "
            "rule, scoring, target and game end, and every option it accepts with its default "
            f"and allowed values. The rules are explained in {RULES_DOC}."
        ),
    )
    var.set_defaults(parser=var)
    var.add_argument("name", nargs="?", metavar="NAME", help=f"a preset: {', '.join(PRESETS)}")


def run(args, parser) -> int:
    if args.name is None:
        width = max(map(len, PRESETS))
        for name, rules in PRESETS.items():
            print(f"{name:{width}s}  {PRESET_HELP.get(name, name)}; target {rules.target}")
        return 0
    if args.name not in PRESETS:
        raise RulesError(
            f"unknown variant {args.name!r}; choose one of: {', '.join(PRESETS)} (see {RULES_DOC})"
        )
    print(describe_variant(PRESETS[args.name]))
    return 0
