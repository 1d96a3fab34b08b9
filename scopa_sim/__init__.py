"""scopa-sim: Monte Carlo strategy analysis for Scopa and its family.

The data flows one way: rules (``scopa_sim.rules``) → engine (``scopa_sim.engine``) with players
(``scopa_sim.players``) → per-deal outcomes. ``scopa_sim.api`` is the front door.
"""

__version__ = "0.1.0"
