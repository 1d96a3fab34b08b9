"""``scopa-sim variants``: list the presets, one line each, or describe one (or a file) in full.

The description is rules prose built from the variant's data (``rules.describe``), so a new
preset, option or variant file is described without any change to this module.
"""

from __future__ import annotations

from scopa_sim.rules import PRESET_HELP, PRESETS, RulesError, resolve_variant
from scopa_sim.rules.describe import RULES_DOC, describe_variant


def add_parser(commands) -> None:
    var = commands.add_parser(
        "variants",
        help="list the variants, one line each, or show one (or a variant file) in full",
        description=(
            "Without NAME: every preset, one line each. With NAME (a preset, or a variant file "
            "FILE.toml): its deal, capture rule, scoring, target and game end, and every option "
            "it accepts with its default and allowed values; a file with a mistake gets one "
            "line naming the key. --toml prints the definition as a variant file, to start "
            f"your own from. The rules are explained in {RULES_DOC}."
        ),
    )
    var.set_defaults(parser=var)
    var.add_argument(
        "name",
        nargs="?",
        metavar="NAME|FILE.toml",
        help=f"a preset: {', '.join(PRESETS)}; or a variant file",
    )
    var.add_argument(
        "--toml",
        action="store_true",
        help="print the full definition as a variant file (e.g. > my-game.toml) instead",
    )


def run(args, parser) -> int:
    if args.name is None:
        if args.toml:
            parser.error("--toml goes with NAME (a preset or a variant file)")
        width = max(map(len, PRESETS))
        for name, rules in PRESETS.items():
            print(f"{name:{width}s}  {PRESET_HELP.get(name, name)}; target {rules.target}")
        return 0
    try:
        rules = resolve_variant(args.name)
    except RulesError as error:
        if str(error).startswith("unknown variant"):
            raise RulesError(f"{error} (see {RULES_DOC})") from None
        raise
    if args.toml:
        from scopa_sim.rules.definition import definition_of, to_toml

        print(to_toml(definition_of(rules)), end="")
        return 0
    print(describe_variant(rules))
    return 0
