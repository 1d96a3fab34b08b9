"""Players as batch policies, the registry of named players, and player specs.

A player spec is ``NAME[:KEY=VALUE...]`` for a registered player or one installed under the
``scopa_sim.players`` entry-point group, or ``MODULE:ATTRIBUTE[:KEY=VALUE...]`` for a player class
(or instance) importable from your own code, e.g. ``greedy``, ``pimc:samples=64`` or
``mypkg.players:Cautious:margin=2``. Parameters are separated by colons (commas separate the
players of a lineup) and set the fields of the player's frozen dataclass (docs/players.md).
A parameter given twice, one the player does not have, a number that is not finite and an empty
name are refused. The data record a player by its :func:`canonical_spec` (parameters sorted,
those at their defaults left out), so two spellings of one player are one strategy.
"""

import dataclasses
import importlib
import math
import os
import sys
from importlib.metadata import entry_points

from scopa_sim import registry
from scopa_sim.contract import (
    FusedPolicy,
    LegalActions,
    Observation,
    Player,
    PlayerError,
    user_traceback,
)
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
    head, params = _parse(spec)
    base = _lookup(head, spec)
    return _with_params(base, _values(base, params, spec), spec)


def canonical_spec(spec: str) -> str:
    """The one spelling of the player ``spec`` names, as the data record it (the ``strategy``
    column): the name (or ``MODULE:ATTRIBUTE``) as given, then only the parameters that differ
    from the player's defaults, sorted by name, each value written as :func:`spec_text` writes it.
    So ``pimc:samples=64``, ``pimc`` and ``pimc: samples = 64`` are the one strategy ``pimc``,
    and ``pimc:samples=8:endgame=2`` is ``pimc:endgame=2:samples=8``. Raises as
    :func:`player` does for a spec it cannot play."""
    head, params = _parse(spec)
    base = _lookup(head, spec)
    values = _values(base, params, spec)
    _with_params(base, values, spec)  # the values must build a player too
    changed = sorted((k, v) for k, v in values.items() if not _same(v, getattr(base, k)))
    return ":".join([*head, *(f"{k}={spec_text(v)}" for k, v in changed)])


def spec_of(p: Player) -> str:
    """A spec that names the player object ``p``, in :func:`canonical_spec`'s spelling: its
    registered name, or ``MODULE:CLASS``, with the parameters that differ from its class's
    defaults. Never raises (messages call it): a player that cannot be built without
    parameters has all of its parameters spelled out."""
    kind = type(p)
    name = next((n for n, q in PLAYERS.items() if type(q) is kind), None)
    head = name or f"{kind.__module__}:{kind.__qualname__}"
    try:
        base = PLAYERS[name] if name else kind()
    except Exception:
        base = None
    try:
        fields = parameters(p)
        changed = [
            (k, getattr(p, k)) for k in sorted(fields)
            if base is None or not _same(getattr(p, k), getattr(base, k, None))
        ]  # fmt: skip
    except Exception:
        return head
    return ":".join([head, *(f"{k}={spec_text(v)}" for k, v in changed)])


def parameters(p: Player) -> dict[str, object]:
    """The parameters of a player (the fields a spec can set) with their values, in order."""
    if not dataclasses.is_dataclass(p):
        return {}
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(p) if f.init}


def _parse(spec: str) -> tuple[list[str], list[tuple[str, str]]]:
    """``NAME`` or ``MODULE:ATTRIBUTE``, and the ``KEY=VALUE`` pairs after it, checked: no
    empty part, no parameter without a name, none given twice."""
    if not isinstance(spec, str) or not spec.strip():
        raise RulesError(f"a player is missing; name one of: {', '.join(PLAYERS)}")
    parts = [part.strip() for part in spec.strip().split(":")]
    head = [part for part in parts if "=" not in part]
    if parts[: len(head)] != head or not 1 <= len(head) <= 2:
        raise RulesError(
            f"player {spec!r} is not NAME[:KEY=VALUE...] or MODULE:CLASS[:KEY=VALUE...]"
        )
    if not all(head):
        what = "player name" if len(head) == 1 else "module name" if not head[0] else "class name"
        raise RulesError(
            f"player {spec!r} has an empty {what}; write NAME[:KEY=VALUE...] for a registered "
            "player or MODULE:CLASS[:KEY=VALUE...] for your own, e.g. mypkg.players:Cautious"
        )
    params, seen = [], set()
    for item in parts[len(head) :]:
        key, _, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not key:
            raise RulesError(f"player {spec!r}: parameter {item!r} has no name; write KEY=VALUE")
        if key in seen:
            raise RulesError(
                f"player {spec!r} gives parameter {key} twice; give each parameter once"
            )
        seen.add(key)
        params.append((key, text))
    return head, params


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
        target = _build(target, {}, spec)
    if not isinstance(target, Player):
        raise RulesError(
            f"{spec!r} is not a scopa_sim player (a subclass or instance of "
            "scopa_sim.players.Player; docs/players.md)"
        )
    return target


def _load(load, spec: str):
    """The player class or instance a spec names, from ``load``; a module that cannot be
    imported gets one line: where its syntax error is, what the contract refused in it, or what
    its code raised."""
    try:
        return load()
    except (ImportError, AttributeError) as err:
        raise RulesError(f"cannot load player {spec!r}: {err}") from None
    except SyntaxError as err:
        raise PlayerError(
            f"cannot be imported: {type(err).__name__} in {err.filename}:{err.lineno}: {err.msg}",
            spec,
        ) from None
    except PlayerError as err:  # the contract refused it (e.g. a policy of an older contract)
        raise err.naming(spec) from None
    except Exception as err:
        raise PlayerError(
            f"raised {type(err).__name__}: {err} while its module was imported", spec,
            traceback=user_traceback(err),
        ) from err  # fmt: skip


def _build(build, changes: dict, spec: str, base: Player | None = None) -> Player:
    """``build(**changes)`` (a class) or ``dataclasses.replace(base, **changes)``: a
    constructor's TypeError or ValueError is a bad parameter (one line); anything else it
    raises is a fault of the player's code (:class:`PlayerError`, with its traceback)."""
    try:
        return build(**changes) if base is None else dataclasses.replace(base, **changes)
    except (TypeError, ValueError) as err:
        if base is None and not changes:
            raise RulesError(f"player {spec!r} cannot be built without parameters: {err}") from None
        raise RulesError(f"player {spec!r}: {err}") from None
    except Exception as err:
        raise PlayerError(
            f"raised {type(err).__name__}: {err} in its constructor", spec,
            traceback=user_traceback(err),
        ) from err  # fmt: skip


def _values(base: Player, params: list[tuple[str, str]], spec: str) -> dict[str, object]:
    """The ``KEY=VALUE`` texts as values, each coerced to its default's type."""
    fields = parameters(base)
    values = {}
    for key, text in params:
        if key not in fields:
            accepted = ", ".join(fields) or "none"
            raise RulesError(f"player {spec!r} has no parameter {key!r}; it takes: {accepted}")
        values[key] = _coerce(fields[key], text, key, spec)
    return values


def _with_params(base: Player, values: dict[str, object], spec: str) -> Player:
    """``base`` with its fields set to ``values``."""
    return _build(None, values, spec, base) if values else base


def _coerce(default, text: str, key: str, spec: str):
    """``text`` as a value of ``default``'s type: true/false for a bool, a whole number, a
    finite number, or text."""
    kind = type(default)
    if kind not in (bool, int, float, str):
        raise RulesError(
            f"player {spec!r}: parameter {key} is a {kind.__name__}, which a spec cannot set "
            "(it sets whole numbers, numbers, true/false and text); set it in Python"
        )
    wanted = {bool: "true or false", int: "whole number", float: "number", str: "text"}[kind]
    try:
        if kind is bool:
            if text.lower() in ("true", "1", "yes", "on"):
                return True
            if text.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError(text)
        value = kind(text)
    except ValueError:
        raise RulesError(
            f"player {spec!r}: parameter {key} takes a {wanted}, not {text!r}"
        ) from None
    if kind is float and not math.isfinite(value):
        raise RulesError(f"player {spec!r}: parameter {key} takes a finite number, not {text!r}")
    return value


def _same(a, b) -> bool:
    """Whether two parameter values are one (``1`` and ``1.0`` of a float field are)."""
    try:
        return (type(a) is type(b) and bool(a == b)) or (_number(a) and _number(b) and a == b)
    except Exception:
        return False


def _number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def spec_text(value) -> str:
    """A parameter's value as a spec writes it: ``true``/``false``, ``repr`` of a float (the
    shortest text that reads back as it: ``0.5``, ``1e-05``), a whole number or text as is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


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
    "PlayerError",
    "RandomPlayer",
    "canonical_spec",
    "parameters",
    "player",
    "spec_of",
    "spec_text",
]
