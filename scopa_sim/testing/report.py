"""What a conformance check gives back: :class:`PlayerCheckError` on the first broken rule,
else a :class:`CheckReport` of what was checked."""

from __future__ import annotations

from dataclasses import dataclass


class PlayerCheckError(AssertionError):
    """A player broke its contract; the message says which rule, where, and how to fix it."""


@dataclass(frozen=True)
class CheckReport:
    """What :func:`~scopa_sim.testing.check_player` checked, when everything passed."""

    player: str
    variants: tuple[str, ...]
    decisions: int  # decision points (rows) checked at the act level
    deals: int  # deals played in the run comparisons
    pairs: int  # pairs of packs compared for hidden information
    explain: bool  # whether the player has the optional explain method (and it was checked)
    blind: bool  # whether the hidden-card check ran (not for a player that sees hidden cards)
    fused: bool  # whether its fused row policy was compared with act
    seconds: float

    def __str__(self) -> str:
        extra = [
            *([] if self.blind else ["sees hidden cards by declaration: blindness not checked"]),
            *(["explain checked"] if self.explain else []),
            *(["fused path agrees with act"] if self.fused else []),
        ]
        return (
            f"{self.player}: passed on {len(self.variants)} variants "
            f"({self.decisions:,} decision points, {self.deals:,} deals, {self.pairs:,} pairs "
            f"of packs for hidden cards{', ' if extra else ''}{', '.join(extra)}) "
            f"in {self.seconds:.1f} s"
        )
