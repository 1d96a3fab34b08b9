"""The ``scopa-sim`` command line: the parser of every command, and ``main``, which runs one.

Each command is a module of its own (``simulate``, ``replay``, ``compare``, ``plan``,
``tournament``, ``variants``, ``players``) that adds its subparser and runs it. Bad input never
shows a traceback: it gets one line saying what is wrong and how to fix it, and exit status 2.
Start-up stays light: these modules import the rules and nothing heavier, and each command
imports the engine, the runner or Parquet only once its command line has been read and checked.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from scopa_sim import __version__
from scopa_sim.cli import (
    analyse,
    compare,
    migrate,
    plan,
    players,
    replay,
    simulate,
    tournament,
    train,
    tune,
    variants,
)
from scopa_sim.cli.batch import load_batch
from scopa_sim.cli.checks import (
    PLAYER_NAMES,
    check_output_early,
    check_players_early,
    check_run_early,
    check_scheduler_early,
    check_tournament_early,
    check_writable,
)
from scopa_sim.cli.errors import ConfigError, InputError, user_errors
from scopa_sim.cli.options import BACKENDS, positive_int, seed_int
from scopa_sim.cli.replay import CARD_LEGEND, format_record
from scopa_sim.rules.describe import RULES_DOC, describe_variant

# The check_* names are re-exported for callers; the commands look them up in
# scopa_sim.cli.checks, so a test that replaces one must patch it there.
__all__ = [
    "BACKENDS",
    "CARD_LEGEND",
    "EXIT_BAD_INPUT",
    "EXIT_INTERRUPTED",
    "PLAYER_NAMES",
    "RULES_DOC",
    "ConfigError",
    "InputError",
    "build_parser",
    "check_output_early",
    "check_players_early",
    "check_run_early",
    "check_scheduler_early",
    "check_tournament_early",
    "check_writable",
    "describe_variant",
    "error_text",
    "format_record",
    "load_batch",
    "main",
    "positive_int",
    "seed_int",
    "user_errors",
]

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

#: The commands in the order of ``scopa-sim --help``; each adds its subparser and runs it.
COMMANDS = {
    "simulate": simulate,
    "replay": replay,
    "analyse": analyse,
    "compare": compare,
    "plan": plan,
    "tournament": tournament,
    "variants": variants,
    "tune": tune,
    "train-expert": train,
    "players": players,
    "migrate": migrate,
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="scopa-sim",
        description="Monte Carlo strategy analysis for Scopa and its family.",
        epilog=(
            "Run 'scopa-sim COMMAND --help' for the options of a command. The rules of every "
            f"variant and option: {RULES_DOC}. A player of your own that misbehaves stops the "
            "command with one line naming it and the decision; SCOPA_SIM_DEBUG=1 also prints "
            "the traceback of its code (docs/players.md)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"scopa-sim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command].run(args, getattr(args, "parser", parser))
    except user_errors() as err:
        debug_trace = getattr(err, "traceback", None)  # a PlayerError's: the player's own code
        if debug_trace and os.environ.get("SCOPA_SIM_DEBUG") == "1":
            print(debug_trace, end="", file=sys.stderr)
        print(f"scopa-sim: error: {error_text(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("scopa-sim: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        sys.stderr.close()
        return 0


#: Error messages about variants, options, player counts or packs: the rules explain them.
_RULES_MESSAGE = re.compile(
    r"unknown variant|unknown option|option '?[\w-]+'? (does not apply|takes|is not supported)"
    r"|is played by \d+ sides|\ba pack (is|must)"
)


def error_text(err: Exception) -> str:
    """The one-line message for ``err``; rule-related ones point to the rules document."""
    text = str(err)
    if _RULES_MESSAGE.search(text) and RULES_DOC not in text:
        text += f" (see {RULES_DOC})"
    return text
