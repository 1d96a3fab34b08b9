"""The compiled players (``registry.COMPILED``) by name, built: the search players roll out with
one of them, and the registry of named players (:mod:`scopa_sim.players`) lists them first. This
module sits below both, so pimc finds its rollout player without importing the package that
imports pimc.
"""

from __future__ import annotations

from scopa_sim import registry
from scopa_sim.contract import Player

COMPILED: dict[str, Player] = {
    name: registry.load(path)() for name, path in registry.COMPILED.items()
}
assert all(p.fused_policy is not None and p.name == n for n, p in COMPILED.items())
