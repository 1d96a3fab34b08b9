"""Players as batch policies, the registry of named players, and player specs.

A player spec is ``NAME[:KEY=VALUE...]`` for a registered player or one installed under the
``scopa_sim.players`` entry-point group, or ``MODULE:ATTRIBUTE[:KEY=VALUE...]`` for a player class
(or instance) importable from your own code, e.g. ``greedy``, ``pimc:samples=64`` or
``mypkg.players:Cautious:margin=2``. Parameters are separated by colons (commas separate the
players of a lineup) and set the fields of the player's frozen dataclass (docs/players.md).
"""

import dataclasses
import importlib
import os
import sys
from importlib.metadata import entry_points

from scopa_sim import registry
from scopa_sim.contract import FusedPolicy, LegalActions, Observation, Player
from scopa_sim.players.chitarrella import ChitarrellaPlayer
from scopa_sim.players.compiled import COMPILED
from scopa_sim.players.defensive import DefensivePlayer
from scopa_sim.players.greedy import GreedyPlayer
from scopa_sim.players.memory import MemoryPlayer
from scopa_sim.players.pimc import CheaterPlayer, PimcPlayer
from scopa_sim.players.random import RandomPlayer
from scopa_sim.rules import RulesError

#: The named players (``registry.BUILTIN``): the compiled ones, then the search players.
PLAYERS: dict[str, Player] = {
    **COMPILED,
    **{name: registry.load(path)() for name, path in registry.SEARCH.items()},
}


ENTRY_POINT_GROUP = "scopa_sim.players"


def player(spec: str) -> Player:
    """The player a spec names, with its parameters set (see the module docstring)."""
    if not isinstance(spec, str) or not spec.strip():
        raise RulesError(f"a player is missing; name one of: {', '.join(PLAYERS)}")
    parts = [part.strip() for part in spec.strip().split(":")]
    head = [part for part in parts if "=" not in part]
    params = [part for part in parts if "=" in part]
    if parts[: len(head)] != head or not 1 <= len(head) <= 2:
        raise RulesError(
            f"player {spec!r} is not NAME[:KEY=VALUE...] or MODULE:CLASS[:KEY=VALUE...]"
        )
    base = _lookup(head, spec)
    return _with_params(base, params, spec)


def _lookup(head: list[str], spec: str) -> Player:
    if len(head) == 1:
        name = head[0]
        if name in PLAYERS:
            return PLAYERS[name]
        found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not found:
            raise RulesError(
                f"unknown player {name!r}; choose one of: {', '.join(PLAYERS)}, or give "
                "MODULE:CLASS for your own (docs/players.md)"
            )
        target = _load(found[0].load, spec)
    else:
        module, attribute = head

        def load():
            # Like ``python -m``, the current folder is importable: your own players in the
            # project you run from load without installing them.
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.append(os.getcwd())
            return getattr(importlib.import_module(module), attribute)

        target = _load(load, spec)
    if isinstance(target, type) and issubclass(target, Player):
        try:
            target = target()
        except TypeError as err:
            raise RulesError(f"player {spec!r} cannot be built without parameters: {err}") from None
    if not isinstance(target, Player):
        raise RulesError(
            f"{spec!r} is not a scopa_sim player (a subclass or instance of "
            "scopa_sim.players.Player; docs/players.md)"
        )
    return target


def _load(load, spec: str):
    try:
        return load()
    except (ImportError, AttributeError) as err:
        raise RulesError(f"cannot load player {spec!r}: {err}") from None


def _with_params(base: Player, params: list[str], spec: str) -> Player:
    """``base`` with fields set from ``KEY=VALUE`` texts, each coerced to its default's type."""
    if not params:
        return base
    fields = {f.name: f for f in dataclasses.fields(base)}
    changes = {}
    for item in params:
        key, _, text = item.partition("=")
        key = key.strip()
        if key not in fields:
            accepted = ", ".join(fields) or "none"
            raise RulesError(f"player {spec!r} has no parameter {key!r}; it takes: {accepted}")
        changes[key] = _coerce(getattr(base, key), text.strip(), key, spec)
    try:
        return dataclasses.replace(base, **changes)
    except (TypeError, ValueError) as err:
        raise RulesError(f"player {spec!r}: {err}") from None


def _coerce(default, text: str, key: str, spec: str):
    kind = type(default)
    try:
        if kind is bool:
            if text.lower() in ("true", "1", "yes", "on"):
                return True
            if text.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError(text)
        return kind(text)
    except ValueError:
        raise RulesError(
            f"player {spec!r}: parameter {key} takes a {kind.__name__}, not {text!r}"
        ) from None


__all__ = [
    "PLAYERS",
    "CheaterPlayer",
    "ChitarrellaPlayer",
    "DefensivePlayer",
    "FusedPolicy",
    "GreedyPlayer",
    "LegalActions",
    "MemoryPlayer",
    "Observation",
    "PimcPlayer",
    "Player",
    "RandomPlayer",
    "player",
]
