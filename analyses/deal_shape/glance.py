"""The deal-shape page at a glance: how long a game lasts to each target, and how often a tie
at the target forces extra deals, in one sentence and a bar chart of the page's own findings."""

from __future__ import annotations

from analyses import framework


def glance(games, head) -> framework.Answer:
    """Deals per game for each target (``games``, a GameShape each); ``head`` the sentence's."""
    about = framework.about
    return framework.Answer(
        sentence=(
            f"A game to {head.target} lasts about {about(head.length.value)} deals between "
            f"greedy players, and about {about(100 * head.tie_share.value)} % of games need "
            "extra deals because the leaders tie at the target."
        ),
        rows=tuple(
            (f"to {g.target}", f"deal_shape.target_{g.target}.deals_per_game") for g in games
        ),
        axis="deals a game lasts, by target",
        kind="bar",
    )
