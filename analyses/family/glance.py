"""The family page at a glance: how long a game lasts in each preset at both levels, in one
sentence, and how much longer or shorter experts' games are than beginners' on the same packs,
per preset, in an interval plot of the page's own findings (95 % paired intervals)."""

from __future__ import annotations

from analyses import framework
from analyses.family.measure import LevelDifference, Member


def _range(members: list[Member]) -> str:
    shortest = min(members, key=lambda m: (m.length.value, m.preset))
    longest = max(members, key=lambda m: (m.length.value, m.preset))
    about = framework.about
    return (
        f"about {about(shortest.length.value)} deals in {shortest.preset} and up to "
        f"{about(longest.length.value)} in {longest.preset}"
    )


def glance(
    members: list[Member],
    experts: list[Member],
    differences: list[LevelDifference],
    family: framework.Family,
) -> framework.Answer:
    """Game length per preset at both levels; the chart: experts minus beginners, per preset."""
    clear = [d for d in differences if family.p_holm[("length", d.preset)] < 0.05]
    longer = sum(d.length.value > 0 for d in clear)
    by = {d.preset: d for d in differences}
    sentence = (
        f"Between beginners (greedy) a game lasts {_range(members)}, between experts "
        f"({framework.EXPERT}) {_range(experts)}; on the same packs the levels' game lengths "
        f"differ clearly in {len(clear)} of {len(differences)} presets ({longer} longer for "
        f"experts, {len(clear) - longer} shorter)"
    )
    if "classic" in by:
        clause = framework.levels_clause(
            None,  # a game lasts at least a deal: no sign to compare
            None,
            family.wide[("length", "classic")],
            family.p_holm[("length", "classic")],
        )
        sentence += f", in classic {clause}" if clause else ""
    return framework.Answer(
        sentence=sentence + ".",
        # 95 % paired intervals, as the chart's caption says; the sentence's claims are read in
        # the page's family (the levels section plots those intervals)
        rows=tuple((d.preset, f"family.{d.preset}.levels.deals_per_game") for d in differences),
        axis="deals a game lasts, experts minus beginners (paired by game)",
        reference=0.0,
    )
