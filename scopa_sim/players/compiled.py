"""The compiled players: the registered players that have a fused row policy (``fused_code``),
by name. The search players (pimc) roll out with one of them; the registry of named players
(:mod:`scopa_sim.players`) lists them first. This module sits below both, so pimc finds its
rollout player without importing the registry that imports pimc.
"""

from __future__ import annotations

from scopa_sim.players.base import Player
from scopa_sim.players.chitarrella import ChitarrellaPlayer
from scopa_sim.players.defensive import DefensivePlayer
from scopa_sim.players.greedy import GreedyPlayer
from scopa_sim.players.memory import MemoryPlayer
from scopa_sim.players.random import RandomPlayer

COMPILED: dict[str, Player] = {
    p.name: p
    for p in (
        RandomPlayer(),
        GreedyPlayer(),
        DefensivePlayer(),
        MemoryPlayer(),
        ChitarrellaPlayer(),
    )
}
assert all(p.fused_code is not None for p in COMPILED.values())
