"""``scopa-sim players``: list the registered players, one line each: the name, the summary
and the parameters a spec can set (``NAME:KEY=VALUE``) with their defaults.

The players' registry is imported only when the command runs: it loads the engine.
"""

from __future__ import annotations

EPILOG = (
    "Set a parameter with NAME:KEY=VALUE (colons between parameters, commas between players), "
    "e.g. --players pimc:samples=16,greedy; the data name a player by its canonical spec: "
    "parameters sorted, those left at their defaults omitted (docs/players.md). A player listed "
    "without parameters takes none."
)


def add_parser(commands) -> None:
    commands.add_parser(
        "players",
        help="list the players, one line each, with their parameters' defaults",
        description="List the registered players, each with its parameters and their defaults.",
        epilog=EPILOG,
    )


def player_line(name: str, player) -> str:
    """``NAME  summary (parameters: KEY=DEFAULT, ...)``, values as a spec writes them."""
    from scopa_sim.players import parameters, spec_text

    values = ", ".join(f"{k}={spec_text(v)}" for k, v in parameters(player).items())
    return f"{name:12s} {player.summary}" + (f" (parameters: {values})" if values else "")


def run(args, parser) -> int:
    from scopa_sim.players import PLAYERS

    for name, player in PLAYERS.items():
        print(player_line(name, player))
    return 0
