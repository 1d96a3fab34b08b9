"""``scopa-sim players``: list the registered players, one line each.

The players' registry is imported only when the command runs: it loads the engine.
"""

from __future__ import annotations


def add_parser(commands) -> None:
    commands.add_parser("players", help="list the players, one line each")


def run(args, parser) -> int:
    from scopa_sim.players import PLAYERS

    for name, player in PLAYERS.items():
        print(f"{name:12s} {player.summary}")
    return 0
