"""The ``search`` rows: decisions per second of the search players (``pimc``, ``ismcts``) at
their default settings in classic and scopone, and how the cost grows with samples (pimc) and
iterations (ismcts).

The search player sits on every side, so every decision of a deal is one of its searches; a
deal's plays are its decisions. The rows also give the CPU time per decision (this process's,
so a shared machine's other load does not count), the figure the players' budget is stated in.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from bench.timing import peak_mb
from scopa_sim import api

SEED = 1


@dataclass(frozen=True)
class SearchCase:
    """One search row: the player spec, the variant and the deals per timed run."""

    name: str
    spec: str
    variant: str
    deals: int
    quick: bool = True  # measured by --quick, the smoke test


SEARCH_CASES = (
    SearchCase("search pimc classic", "pimc", "classic", 200),
    SearchCase("search pimc scopone", "pimc", "scopone", 100),
    # A tree search pays its Python loop once per iteration for the whole batch, so a smoke
    # test's few deals would time the loop, not the search: not in --quick.
    SearchCase("search ismcts classic", "ismcts", "classic", 100, False),
    SearchCase("search ismcts scopone", "ismcts", "scopone", 50, False),
    # The strongest fair setting of the search tournaments (docs/players.md).
    SearchCase("search pimc mix256 classic", "pimc:samples=256:rollout=mix", "classic", 50, False),
    SearchCase("search pimc mix256 scopone", "pimc:samples=256:rollout=mix", "scopone", 25, False),
    # pimc rolling out with the distilled expert, at the default and at a quarter of the samples.
    SearchCase("search pimc expert classic", "pimc:rollout=expert", "classic", 100, False),
    SearchCase(
        "search pimc 16 expert classic", "pimc:samples=16:rollout=expert", "classic", 200, False
    ),
    # The expert solving the last round exactly where every card can be known (two seats): what
    # configs/tournaments.toml prices it at.
    *(
        SearchCase(f"search expert endgame=6 {v}", "expert:endgame=6", v, d, False)
        for v, d in (("classic", 4000), ("escoba", 2000), ("scopa-52", 2000))
    ),
    *(
        SearchCase(f"search pimc samples={n} classic", f"pimc:samples={n}", "classic", d, False)
        for n, d in ((16, 400), (64, 200), (256, 50), (1024, 12))
    ),
    *(
        SearchCase(
            f"search ismcts iterations={n} classic", f"ismcts:iterations={n}", "classic", d, False
        )
        for n, d in ((64, 200), (256, 100), (1024, 25))
    ),
)
#: --quick divides the deals by this (at least 2 deals a row).
SEARCH_QUICK = 25


def search_jobs(quick: bool, runs: int) -> Iterator[tuple]:
    """(what, row maker) for each search row (``--quick``: the default settings, scaled down)."""
    for case in SEARCH_CASES:
        if quick and not case.quick:
            continue
        deals = max(2, case.deals // SEARCH_QUICK) if quick else case.deals
        yield f"{case.name} ({deals:,} deals)", partial(search_row, case, deals, runs)


def search_row(case: SearchCase, deals: int, runs: int) -> dict:
    """Warm up (compile), then time ``runs`` runs of ``deals`` deals; the row."""
    from scopa_sim.rules import variant

    v = variant(case.variant)
    lineup = [case.spec] * v.n_sides
    api.play_deals(v, lineup, deals=2, seed=SEED)
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        out = api.play_deals(v, lineup, deals=deals, seed=SEED)
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    seconds, cpu = statistics.median(walls), statistics.median(cpus)
    decisions = len(out) * v.plays
    return {
        "name": case.name,
        "group": "search",
        "variant": case.variant,
        "players": lineup,
        "deals": len(out),
        "seconds": round(seconds, 3),
        "deals_per_second": round(len(out) / seconds, 2),
        "workers": 1,
        "batch_size": deals,
        "timing": f"median of {runs}" if runs > 1 else "one run",
        "peak_memory_mb": round(peak_mb(), 1),
        "decisions": decisions,
        "decisions_per_second": round(decisions / seconds, 1),
        "cpu_ms_per_decision": round(1e3 * cpu / decisions, 4),
    }
