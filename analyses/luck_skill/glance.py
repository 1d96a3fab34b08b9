"""Luck and skill at a glance: how much of a deal's outcome the cards decide in each game, in
one sentence and a bar chart (percent) of the page's own findings."""

from __future__ import annotations

import math

from analyses import framework
from analyses.luck_skill.measure import Preset
from scopa_sim.reporting import HEADLINE_ROWS


def _finite(p: Preset) -> bool:
    e = p.deals.pooled if p.deals is not None else None
    return e is not None and all(math.isfinite(v) for v in (e.value, e.low, e.high))


def glance(presets: list[Preset]) -> framework.Answer:
    """The cards' share of a deal's outcome per preset (pooled over the ladder's pairings)."""
    shown = [p for p in presets if _finite(p)][:HEADLINE_ROWS]
    if not shown:
        raise ValueError("luck and skill: no deals tournament gives the cards' share")
    about = framework.about

    def share(p: Preset) -> str:
        return f"{about(100 * p.deals.pooled.value)} %"

    first = shown[0]
    sentence = f"The cards decide about {share(first)} of how a deal turns out in {first.variant}"
    if len(shown) > 1:
        rest = sorted(shown[1:], key=lambda p: (p.deals.pooled.value, p.variant))
        low, high = rest[0], rest[-1]
        if low is high:
            sentence += f" and {share(low)} in {low.variant}"
        else:
            sentence += f", from {share(low)} in {low.variant} to {share(high)} in {high.variant}"
    sentence += "; the rest comes from how the players play."
    return framework.Answer(
        sentence=sentence,
        rows=tuple((p.variant, f"luck_skill.{p.variant}.deal.cards_share") for p in shown),
        axis="share of a deal's outcome the cards decide, %",
        kind="bar",
        scale=100.0,
    )
