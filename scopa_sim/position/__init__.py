"""The analysis of a position met at the table: the value of every legal move.

A thin layer over the engine and the pimc player, never a second copy of the rules:

- ``model``: the :class:`Position` the user describes (hand, table, cards out of play, captures,
  scope, scores), checked against the variant's deal, and its ``Observation``.
- ``rollouts``: every legal move rolled out on the same determinised samples, the ends kept.
- ``winning``: the chance of winning the game from a score (a table over score states).
- ``analysis``: the estimates and intervals per move, best first (``scopa-sim analyse``).

The model is imported at once and the rest on first use, so that reading and checking a
position (the command line's bad input, the replay page's commands) loads no engine.
"""

import importlib

from scopa_sim.position.model import Position, PositionError, analyse_command, position

#: The names of the heavier modules, imported when first asked for.
_LAZY = {
    "RANKINGS": "analysis",
    "Analysis": "analysis",
    "MoveValue": "analysis",
    "analyse": "analysis",
    "Rollouts": "rollouts",
    "legal_actions": "rollouts",
    "roll_out": "rollouts",
    "WinTable": "winning",
    "win_table": "winning",
}

__all__ = ["Position", "PositionError", "analyse_command", "position", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"scopa_sim.position.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
