"""The ace page at a glance: what a captured ace adds to its capturer's deal, by what the side
holds of its suit, for beginners and for experts, in one sentence and an interval plot of the
page's own findings; the sentence gives the experts' minus the beginners' value on the same
packs (paired by deal and ace)."""

from __future__ import annotations

from analyses import framework
from analyses.ace_value.measure import SITUATIONS, AceValues, LevelDifference
from analyses.ace_value.page import SITUATION_KEYS, SITUATION_LABELS
from scopa_sim import stats


def glance(
    values: dict[str, AceValues], levels: list[LevelDifference], family: framework.Family
) -> framework.Answer:
    """A captured ace's points by suit situation at both levels; the sentence sets none against
    the seven, and quotes the paired level difference of a captured ace (family interval)."""
    about = framework.about
    b, e = values["beginner"], values["expert"]

    def pair(v):
        by = v.captured_by["points"]
        return by[False, False].value, by[True, False].value

    (bn, bs), (en, es) = pair(b), pair(e)
    wide = family.wide["captured"]
    sentence = (
        f"An ace you capture adds about {about(bn)} points to your deal when you hold neither "
        f"the seven nor the six of its suit, and about {about(bs)} when you hold its seven, "
        f"between beginners ({framework.BEGINNER}); about {about(en)} and {about(es)} between "
        f"experts ({framework.EXPERT}); experts minus beginners on the same packs, over all "
        f"captured aces: {about(wide.value)} [{about(wide.low)}, {about(wide.high)}] points "
        f"({family.level_text} family interval, Holm p "
        f"{stats.format_p(family.p_holm['captured'], equals=True)})"
    )
    # the sign of a captured ace's worth at each level, read in the page's family
    clause = framework.levels_clause(
        family.wide[("captured", "beginner")], family.wide[("captured", "expert")]
    )
    sentence += f"; {clause}" if clause else ""
    rows = []
    for s in SITUATIONS:
        key = SITUATION_KEYS[s]
        rows.append((f"{SITUATION_LABELS[s]}, beginners", f"ace.captured.points.{key}"))
        rows.append((f"{SITUATION_LABELS[s]}, experts", f"ace.expert.captured.points.{key}"))
    return framework.Answer(
        sentence=sentence + ".",
        rows=tuple(rows),
        axis="points a captured ace adds to a deal, by what you hold of its suit",
        reference=0.0,
    )
