"""The deal-shape page at a glance: how long a game lasts to each target between beginners and
between experts, in a bar chart of the page's own findings, and in one sentence the experts'
difference from the beginners on the same packs (paired by game) and the ties at the target."""

from __future__ import annotations

from analyses import framework
from scopa_sim import stats


def glance(games, experts, level, family) -> framework.Answer:
    """Deals per game for each target (``games`` and ``experts``, a GameShape each per level);
    the sentence: ``level``, the LevelDifference of the headline target, with its Holm p-value
    in the page's ``family``."""
    about = framework.about
    d = level
    p = stats.format_p(family.p_holm[d.key("length")], equals=True)
    wide = family.wide[d.key("length")]
    sentence = (
        f"A game to {d.target} lasts about {about(d.beginner.length.value)} deals between "
        f"beginners ({framework.BEGINNER}) and about {about(d.expert.length.value)} between "
        f"experts ({framework.EXPERT}); on the same packs experts minus beginners is "
        f"{about(wide.value)} [{about(wide.low)}, {about(wide.high)}] deals a game (paired by "
        f"game, {family.level_text} family interval, Holm p {p}); about "
        f"{about(100 * d.beginner.tie_share.value)} % and "
        f"{about(100 * d.expert.tie_share.value)} % of their games need extra deals because "
        "the leaders tie at the target"
    )
    clause = framework.levels_clause(
        None,  # a share: no sign to compare, only the paired difference
        None,
        family.wide[d.key("tie")],
        family.p_holm[d.key("tie")],
        scale=100,
        unit=" pp",
    )
    sentence += f" (ties: {clause})" if clause else ""
    rows = []
    for b, e in zip(games, experts, strict=True):
        rows.append((f"to {b.target}, beginners", f"deal_shape.target_{b.target}.deals_per_game"))
        rows.append(
            (f"to {e.target}, experts", f"deal_shape.expert.target_{e.target}.deals_per_game")
        )
    return framework.Answer(
        sentence=sentence + ".",
        rows=tuple(rows),
        axis="deals a game lasts, by target and level",
        kind="bar",
    )
