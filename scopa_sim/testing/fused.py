"""Check 6 of the contract: a player that declares a ``fused_policy`` plays the same runs on
the engine's default (fused) path as on the lockstep path that calls ``act``."""

from __future__ import annotations

import inspect

from scopa_sim import api
from scopa_sim.contract import Player
from scopa_sim.testing.report import PlayerCheckError
from scopa_sim.testing.runs import first_difference


def has_fused_path(p: Player) -> bool:
    """Whether ``p`` has a fused row policy and the engine a path that plays it."""
    return (
        getattr(p, "fused_policy", None) is not None
        and "path" in inspect.signature(api.play_deals).parameters
    )


def check_fused_path(p: Player, lockstep, whole, where: str, deals: int, label: str) -> None:
    """The same deals on the lockstep path (``lockstep``) and on the default path (``whole``)."""
    differ = first_difference(whole, lockstep)
    if differ:
        raise PlayerCheckError(
            f"{label}: its fused row policy ({p.fused_policy.name}) does not choose what "
            f"act chooses: {where}, {deals} deals on the fused path and on the lockstep path "
            f"differ first in {differ}. Set fused_policy = None on a player whose act differs "
            "from the policy it inherits (scopa_sim/contract.py)"
        )
