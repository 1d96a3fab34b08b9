"""Compile the engine's numba kernels once, before the test workers start (``conftest.py``).

Why: numba compiles a kernel on its first call and keeps it in its on-disk cache, but two pytest
workers starting on a cold cache (a fresh clone, as on CI) each compile every kernel they touch:
the same few minutes of CPU twice. Here the work is cut into parts (:data:`PARTS`) that
``conftest.py`` runs in two processes side by side (:data:`LANES`): the fused kernels (one per
set of policies a lineup of the suite seats, ``engine/fused.py``), then the bounds-checked
kernel over every policy; the lockstep engine with the compiled players' batch kernels, then
the search players' kernels. One part compiles nothing: it writes pytest's rewritten test
modules to ``__pycache__``, so that the workers load them instead of each rewriting every
assert. The workers then load the kernels from the cache. A kernel this misses is compiled by
the worker that needs it, as before: the warm-up changes how long the suite takes, never what it
tests.

``python tests/_warmup.py PART [PART ...]`` runs parts in turn; ``conftest.py`` runs them all.
"""

from __future__ import annotations

import sys

COMPILED = ("random", "greedy", "defensive", "memory", "chitarrella", "expert")
CAUTIOUS = "examples.compiled_cautious:CompiledCautiousPlayer"

#: The lineups whose fused kernels the suite plays (a kernel per set of policies, engine/fused.py),
#: by part; a 3- or 4-policy set is played in a preset with that many sides. The kernels the
#: search players roll out on (greedy's alone; random with greedy, and chitarrella, greedy and
#: memory, for the mixed rollouts) come first, and the "search" part waits for "lockstep".
FUSED_KERNELS = {
    "fused": (
        ("random", "greedy"),
        ("memory", "random"),
        ("defensive", "random"),
        ("chitarrella", "random"),
        (CAUTIOUS, "random"),
        (CAUTIOUS,),
        ("greedy", "memory"),
        ("chitarrella", "memory"),
        ("chitarrella", "defensive", "greedy", "memory"),
        (CAUTIOUS, "greedy"),
        ("chitarrella", "greedy"),
        ("chitarrella", "defensive", "memory"),
    ),
    "lockstep": (
        ("greedy",),
        ("chitarrella", "greedy", "memory"),
        ("random",),
        ("memory",),
        ("defensive",),
        ("chitarrella",),
        ("expert",),
        ("expert", "random"),
    ),
}


def _fused_kernels(part: str) -> None:
    from scopa_sim import api
    from scopa_sim.rules import variant

    sides = {1: "classic", 2: "classic", 3: "classic-3p", 4: "scopa-52-4p"}
    for names in FUSED_KERNELS[part]:
        rules = sides[len(names)]
        lineup = [names[s % len(names)] for s in range(variant(rules).n_sides)]
        api.play_deals(rules, lineup, deals=16, seed=0, path="fused")


def fused() -> None:
    """Fused kernels, from packs (deals and games)."""
    from scopa_sim import api

    api.play_games("classic", ["greedy", "random"], games=4, seed=0)
    _fused_kernels("fused")


def lockstep() -> None:
    """The lockstep engine with every compiled player's batch kernel, and the fused kernels of
    each player alone and of lineups of two to four compiled players."""
    from scopa_sim import api

    _fused_kernels("lockstep")
    for name in COMPILED:
        api.play_deals("classic", [name, "random"], deals=16, seed=0, path="lockstep")
    api.play_deals("classic", [CAUTIOUS, "greedy"], deals=8, seed=0, path="lockstep")


def search() -> None:
    """The search players' kernels: they play on the lockstep engine and roll out on fused
    kernels, so this runs after "lockstep"."""
    from scopa_sim import api
    from scopa_sim.rules import variant

    api.play_deals("classic", ["pimc:samples=2:endgame=4", "cheater"], deals=4, seed=0)
    api.play_deals(
        "classic", ["ismcts:iterations=4", "pimc:samples=2:rollout=mix"], deals=2, seed=0
    )
    from scopa_sim.position.winning import win_table

    win_table(variant("classic"), deals=200)  # the game-win solver of scopa-sim analyse
    from scopa_sim import training

    # The expert's training features (tests/test_expert.py), on positions a cheap search labels.
    training.label_chunk("classic", range(1), 0, "pimc:samples=2").x(variant("classic"))


def every_policy_kernel(checked: bool = False):
    """``(lineup_policies, kernel_for)`` stand-ins for ``engine.fused`` that play any lineup of
    the built-in compiled players on one kernel over all their policies (``checked``: with
    bounds checking), each side's slot taken among all of them (a policy the lineup does not
    seat gets the numbers of its built-in player on side 0, which no side reads)."""
    import numpy as np

    from scopa_sim.engine import decisions, fused
    from scopa_sim.players.compiled import COMPILED

    builtin = {p.fused_policy: p for p in COMPILED.values()}
    every = tuple(sorted(builtin, key=lambda q: q.name))
    kernel = fused.kernel_for(every, checked)
    own = fused.lineup_policies

    def lineup_policies(variant, players):
        seated, _, params = own(variant, players)
        sides = len(players)

        def bundle(policy):
            if policy in seated:
                return params[seated.index(policy)]
            numbers = builtin[policy].policy_params(variant)
            return decisions.stacked_params([numbers] + [None] * (sides - 1))

        slots = np.array([every.index(p.fused_policy) for p in players], np.int64)
        return every, slots, tuple(bundle(q) for q in every)

    return lineup_policies, lambda policies: kernel


def checked() -> None:
    """The kernel over every policy compiled with bounds checking (tests/test_fused.py)."""
    from unittest import mock

    from scopa_sim import api
    from scopa_sim.engine import fused

    lineup_policies, kernel_for = every_policy_kernel(checked=True)
    with (
        mock.patch.object(fused, "lineup_policies", lineup_policies),
        mock.patch.object(fused, "kernel_for", kernel_for),
    ):
        api.play_deals("classic", ["random", "greedy"], deals=16, seed=0)


def collect() -> None:
    """Collect the suite with bytecode written, so that pytest keeps every test module's
    rewritten asserts in ``__pycache__``, where the workers find them (``PYTHONDONTWRITEBYTECODE``
    may be set, as on CI; pytest reads ``sys.dont_write_bytecode`` when it rewrites)."""
    import pytest

    sys.dont_write_bytecode = False
    status = pytest.main(["--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"])
    if status:
        raise SystemExit(f"collecting the suite failed with exit status {status}")


PARTS = {
    "fused": fused,
    "lockstep": lockstep,
    "search": search,
    "checked": checked,
    "collect": collect,
}

#: The parts in two lanes, one process each, run side by side: about as long as each other, and
#: "search" after "lockstep" (the search players play on the lockstep engine, and roll out on
#: the kernels "lockstep" and the start of "fused" compile).
LANES = (("fused", "checked"), ("lockstep", "search", "collect"))

if __name__ == "__main__":
    for name in sys.argv[1:]:
        PARTS[name]()
