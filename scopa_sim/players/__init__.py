"""Players as batch policies, and the registry of named players."""

from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.players.chitarrella import ChitarrellaPlayer
from scopa_sim.players.defensive import DefensivePlayer
from scopa_sim.players.greedy import GreedyPlayer
from scopa_sim.players.memory import MemoryPlayer
from scopa_sim.players.random import RandomPlayer
from scopa_sim.rules import RulesError

PLAYERS: dict[str, Player] = {
    p.name: p
    for p in (
        RandomPlayer(),
        GreedyPlayer(),
        DefensivePlayer(),
        MemoryPlayer(),
        ChitarrellaPlayer(),
    )
}


def player(name: str) -> Player:
    """The registered player called ``name``."""
    try:
        return PLAYERS[name.strip()]
    except KeyError:
        raise RulesError(f"unknown player {name!r}; choose one of: {', '.join(PLAYERS)}") from None


__all__ = [
    "PLAYERS",
    "ChitarrellaPlayer",
    "DefensivePlayer",
    "GreedyPlayer",
    "LegalActions",
    "MemoryPlayer",
    "Observation",
    "Player",
    "RandomPlayer",
    "player",
]
