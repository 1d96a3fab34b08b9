"""The ace page at a glance: what a captured ace adds to its capturer's deal, by what the side
holds of its suit, in one sentence and an interval plot of the page's own findings."""

from __future__ import annotations

from analyses import framework
from analyses.ace_value.measure import SITUATIONS, AceValues
from analyses.ace_value.page import SITUATION_KEYS, SITUATION_LABELS


def glance(v: AceValues) -> framework.Answer:
    """A captured ace's points by suit situation; the sentence sets none against the seven."""
    by = v.captured_by["points"]
    none, seven = by[False, False].value, by[True, False].value
    about = framework.about
    return framework.Answer(
        sentence=(
            f"An ace you capture adds about {about(none)} points to your deal when you hold "
            f"neither the seven nor the six of its suit, and about {about(seven)} when you hold "
            "its seven."
        ),
        rows=tuple(
            (f"you hold {SITUATION_LABELS[s]}", f"ace.captured.points.{SITUATION_KEYS[s]}")
            for s in SITUATIONS
        ),
        axis="points a captured ace adds to a deal",
        reference=0.0,
    )
