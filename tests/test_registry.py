"""The registry of built-in players (``scopa_sim/registry.py``) is the one list a new player is
added to: every name loads the player of that name, and every player class of the package is
in it, so a new file under ``players/`` cannot be forgotten."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import scopa_sim.players
from scopa_sim import registry
from scopa_sim.contract import Player
from scopa_sim.players import PLAYERS
from scopa_sim.players.compiled import COMPILED


def test_every_registered_name_loads_the_player_of_that_name():
    for name, path in registry.BUILTIN.items():
        cls = registry.load(path)
        assert issubclass(cls, Player) and cls.name == name, path
    assert list(PLAYERS) == list(registry.BUILTIN)
    assert list(COMPILED) == list(registry.COMPILED)


def test_compiled_players_have_a_fused_policy_and_search_players_do_not():
    assert all(p.fused_policy is not None for p in COMPILED.values())
    assert all(PLAYERS[name].fused_policy is None for name in registry.SEARCH)


def test_every_player_class_of_the_package_is_registered():
    registered = {registry.load(path) for path in registry.BUILTIN.values()}
    found = set()
    for info in pkgutil.iter_modules(scopa_sim.players.__path__):
        module = importlib.import_module(f"scopa_sim.players.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Player) and cls is not Player and cls.__module__ == module.__name__:
                found.add(cls)
    assert found and found <= registered, f"not in registry.BUILTIN: {found - registered}"
