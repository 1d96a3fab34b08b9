"""The players of a duplicate tournament, checked without the engine.

One copy of the checks that need only the variant and the names: ``tournament.plan`` raises on
them, and the command line makes them before it imports the engine, so a bad command line
answers at once with the same words.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from scopa_sim.rules import Variant


def lineup_problem(rules: Variant, specs: Sequence[str]) -> str | None:
    """What is wrong with ``specs`` (stripped player specs) as a tournament of ``rules``, in
    the order ``tournament.plan`` checks it; None when nothing is."""
    if len(specs) < 2:
        return f"a tournament needs at least two players, e.g. --players random,greedy; got {specs}"
    seen: dict[str, str] = {}
    for spec in specs:
        key = spelling(spec)
        if key in seen:
            also = "" if seen[key] == spec else f" (as {seen[key]!r}: both are {key!r})"
            return f"player {spec!r} is named twice in --players{also}; name each once"
        seen[key] = spec
    if rules.n_sides % 2:
        return (
            f"{rules.name} is played by {rules.n_sides} sides; a duplicate round robin seats two "
            "players alternately round the table (A,B,A,B...), which needs an even number of "
            "sides: choose a preset with 2 or 4 sides"
        )
    return None


def spelling(spec: str) -> str:
    """The one spelling of a player spec, to tell two spellings of one player apart from two
    players: ``players.canonical_spec`` (parameters sorted, defaults left out) once the players
    are loaded, as they are when a tournament is planned; before that (the command line's early
    check, which must not load the engine) the spec with its parameters sorted and its spaces
    trimmed. A spec that cannot be read is left as it is, for the player check to refuse."""
    players = sys.modules.get("scopa_sim.players")
    if players is not None:
        try:
            return players.canonical_spec(spec)
        except Exception:  # a bad spec: the player check that follows says what is wrong
            return spec
    parts = [part.strip() for part in spec.strip().split(":")]
    head = [part for part in parts if "=" not in part]
    params = sorted(
        "=".join(side.strip() for side in part.partition("=")[::2]) for part in parts if "=" in part
    )
    return ":".join(head + params)
