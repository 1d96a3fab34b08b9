"""The players of a duplicate tournament, checked without the engine.

One copy of the checks that need only the variant and the names: ``tournament.plan`` raises on
them, and the command line makes them before it imports the engine, so a bad command line
answers at once with the same words.
"""

from __future__ import annotations

from collections.abc import Sequence

from scopa_sim.rules import Variant


def lineup_problem(rules: Variant, specs: Sequence[str]) -> str | None:
    """What is wrong with ``specs`` (stripped player specs) as a tournament of ``rules``, in
    the order ``tournament.plan`` checks it; None when nothing is."""
    if len(specs) < 2:
        return f"a tournament needs at least two players, e.g. --players random,greedy; got {specs}"
    seen = set()
    for spec in specs:
        if spec in seen:
            return f"player {spec!r} is named twice in --players; name each once"
        seen.add(spec)
    if rules.n_sides % 2:
        return (
            f"{rules.name} is played by {rules.n_sides} sides; a duplicate round robin seats two "
            "players alternately round the table (A,B,A,B...), which needs an even number of "
            "sides: choose a preset with 2 or 4 sides"
        )
    return None
