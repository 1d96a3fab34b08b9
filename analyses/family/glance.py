"""The family page at a glance: how long a game lasts in each preset, in one sentence and a bar
chart of the page's own findings."""

from __future__ import annotations

from analyses import framework
from analyses.family.measure import Member


def glance(members: list[Member]) -> framework.Answer:
    """Game length per preset: the shortest and the longest game, and classic's."""
    by = {m.preset: m for m in members}
    shortest = min(members, key=lambda m: (m.length.value, m.preset))
    longest = max(members, key=lambda m: (m.length.value, m.preset))
    about = framework.about
    sentence = (
        f"Between greedy players a game lasts about {about(shortest.length.value)} deals in "
        f"{shortest.preset} and up to {about(longest.length.value)} in {longest.preset}"
    )
    if "classic" in by and "classic" not in (shortest.preset, longest.preset):
        sentence += f", and about {about(by['classic'].length.value)} in classic"
    return framework.Answer(
        sentence=sentence + ".",
        rows=tuple((m.preset, f"family.{m.preset}.deals_per_game") for m in members),
        axis="deals a game lasts",
        kind="bar",
    )
