"""The built-in names: the players, as ``MODULE:CLASS`` strings (the one list to extend when a
player is added), and the runner's backends.

Static data that imports nothing, so that the command line can list and check names without
loading the engine; ``scopa_sim.players`` builds the players from it.
"""

from __future__ import annotations

#: Players with a compiled row policy (``contract.FusedPolicy``): the search players roll out
#: with them.
COMPILED: dict[str, str] = {
    "random": "scopa_sim.players.random:RandomPlayer",
    "greedy": "scopa_sim.players.greedy:GreedyPlayer",
    "defensive": "scopa_sim.players.defensive:DefensivePlayer",
    "memory": "scopa_sim.players.memory:MemoryPlayer",
    "chitarrella": "scopa_sim.players.chitarrella:ChitarrellaPlayer",
    "expert": "scopa_sim.players.expert:ExpertPlayer",
}

#: Players that search by rolling out on the fused engine (``players/pimc.py``).
SEARCH: dict[str, str] = {
    "pimc": "scopa_sim.players.pimc:PimcPlayer",
    "cheater": "scopa_sim.players.pimc:CheaterPlayer",
    "ismcts": "scopa_sim.players.ismcts:IsmctsPlayer",
}

#: Every built-in player, the compiled ones first.
BUILTIN: dict[str, str] = {**COMPILED, **SEARCH}


#: The runner's joblib backends (``runner.run``), and "dask" for a Dask cluster.
BACKENDS: tuple[str, ...] = ("loky", "threading", "multiprocessing", "dask")


def load(path: str):
    """The class that ``MODULE:CLASS`` names."""
    import importlib

    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
