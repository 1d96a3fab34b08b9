"""What ``python -m bench`` measures: the cases, their sizes and what each kind of case plays."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from scopa_sim import api

SEED = 1
RUNNER_CHUNK = 5_000  # games per chunk in the runner rows: the same for every size of run
DEALS_CHUNK = 100_000  # deals per chunk: the runner's default in deals mode (growth rows)
GROUPS = ("native", "engine", "memory", "runner", "growth", "process", "presets", "paths",
          "search")  # fmt: skip
#: Groups run only when ``--only`` names them (``instructions``: needs valgrind, takes minutes).
OPT_IN_GROUPS = ("instructions",)
RANDOM = ("random", "random")
GREEDY = ("greedy", "greedy")
EXPERT_ROW = "deals expert vs expert"
#: The expert's speed target, as a share of greedy's deals per second (row ``share_of_greedy``).
EXPERT_TARGET = 0.25


@dataclass(frozen=True)
class Case:
    """One row to measure: what it plays, how much, and how it is timed."""

    name: str
    kind: str  # a key of RUNNERS
    players: tuple[str, ...]
    count: int  # deals, or games for kind "games" and "runner"
    variant: str = "classic"
    workers: int = 1
    fresh: bool = False  # run once in a new process and report the peak RSS growth
    group: str = "engine"
    #: Extra keyword arguments of ``api.play_deals`` (e.g. an engine path), as (name, value).
    engine: tuple[tuple[str, object], ...] = ()
    chunk: int = RUNNER_CHUNK  # games per chunk (kind "runner")
    #: Also measured by ``--quick``, the smoke test (which needs one row of each kind, not both
    #: sizes of a comparison).
    quick: bool = True
    #: Timed in rounds with the native yardstick (``bench.timing.measure``): for the rows that a
    #: target compares with native speed.
    paired: bool = False


def _deals(case: Case, count: int | range, batch_size: int) -> dict:
    out = api.play_deals(
        case.variant, case.players, deals=count, seed=SEED, batch_size=batch_size,
        **dict(case.engine),
    )  # fmt: skip
    return {"deals": len(out), "points_per_deal": float(out.totals.sum(axis=1).mean())}


def _games(case: Case, count: int, batch_size: int) -> int:
    out = api.play_games(case.variant, case.players, games=count, seed=SEED, batch_size=batch_size)
    return len(out)


def _sliced(case: Case, count: int, batch_size: int) -> int:
    """Deals played one batch per call, each batch's outcomes dropped at once."""
    for start in range(0, count, batch_size):
        _deals(case, range(start, min(start + batch_size, count)), batch_size)
    return count


def _chunked(case: Case, count: int, batch_size: int) -> int:
    """Deals played a runner chunk (``DEALS_CHUNK``) per call, each chunk's outcomes dropped."""
    for start in range(0, count, DEALS_CHUNK):
        _deals(case, range(start, min(start + DEALS_CHUNK, count)), batch_size)
    return count


def _runner(case: Case, count: int, batch_size: int) -> dict:
    """Whole games through the runner into Parquet in a scratch folder (workers, writing)."""
    from scopa_sim.runner import RunConfig, run

    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as tmp:
        config = RunConfig.create(
            variant=case.variant, players=case.players, mode="games", count=count, seed=SEED,
            out=Path(tmp) / "run", chunk_size=case.chunk,
        )  # fmt: skip
        summary = run(config, workers=case.workers, batch_size=batch_size, progress=False)
    return {
        "deals": summary.deals,
        "games": count,
        "rows": summary.rows,
        "bytes_per_row": round(summary.bytes / summary.rows, 2),
        "write_share": round(summary.write_seconds / summary.simulate_seconds, 4),
    }


#: kind -> runner(case, count, batch_size) returning the deals played (or a dict with "deals"
#: and extra fields for the row).
RUNNERS: dict[str, Callable[[Case, int, int], int | dict]] = {
    "deals": _deals,
    "games": _games,
    "sliced": _sliced,
    "chunked": _chunked,
    "runner": _runner,
}

CASES = [
    Case("deals random vs random", "deals", RANDOM, 300_000, paired=True),
    Case("deals greedy vs greedy", "deals", GREEDY, 300_000, paired=True),
    # The distilled expert (issue 32: at least a quarter of greedy's deals per second, fused).
    Case(EXPERT_ROW, "deals", ("expert", "expert"), 100_000, paired=True),
    Case("games greedy vs greedy", "games", GREEDY, 75_000),  # about 300,000 deals
    Case("memory sliced 100k", "sliced", GREEDY, 100_000, fresh=True, group="memory"),
    Case("memory sliced 400k", "sliced", GREEDY, 400_000, fresh=True, group="memory", quick=False),
    Case("memory retained 100k", "deals", GREEDY, 100_000, fresh=True, group="memory"),
    Case("memory retained 400k", "deals", GREEDY, 400_000, fresh=True, group="memory", quick=False),
    # The runner: chunks of whole games written to Parquet, one and two worker processes.
    Case("runner 1 worker", "runner", RANDOM, 100_000, group="runner"),
    Case("runner 2 workers", "runner", RANDOM, 100_000, workers=2, group="runner"),
    Case("runner memory 50k games", "runner", GREEDY, 50_000, fresh=True, group="runner"),
    Case("runner memory 200k games", "runner", GREEDY, 200_000, fresh=True, group="runner",
         quick=False),
]  # fmt: skip
#: --quick (the smoke test, tests/test_bench.py) divides every count by this (growth sizes by
#: GROWTH_QUICK), plays the runner rows in chunks of RUNNER_QUICK_CHUNK games (2 chunks a row:
#: two workers both have work, and a chunk is still large enough for its bytes per row) and
#: leaves out the cases marked ``quick=False``.
QUICK = 100
RUNNER_QUICK_CHUNK = 500

#: How cost grows: classic random vs random at each size, each in a fresh process.
GROWTH_SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
GROWTH_QUICK = 100
GROWTH_QUICK_SIZES = GROWTH_SIZES[:1]  # --quick: the smallest size (one fresh process), divided

#: Whole-process rows: (deals, workers, cores) of ``scopa-sim simulate``. ``cores`` 1 confines
#: the command to one CPU (its affinity, which everything it starts inherits); None leaves it
#: every CPU this process may use. :func:`process_rows` says why the one-core row.
PROCESS_RUNS = ((1_000_000, 1, None), (2_000_000, 2, None), (1_000_000, 1, 1))
PROCESS_QUICK = 50  # --quick divides the deals by this ...
PROCESS_QUICK_CHUNK = 10_000  # ... and cuts the chunks, so that two workers both have work

PRESET_DEALS = 50_000
NATIVE_DEALS = 2_000_000
WARM_UP = 2_000  # deals (a quarter of that in games)
#: Fewest rounds of a ``paired`` case: a shared machine's speed drifts from one minute to the
#: next, so a median of 3 is not steady, and more rounds are cheap.
PAIRED_RUNS = 7


def path_cases(*paths: str, deals: int = 300_000) -> list[Case]:
    """Rows comparing engine paths on the same deals, random and greedy, one core: for an engine
    whose ``play_deals`` takes ``path=...``, ``PATH_CASES = path_cases("lockstep", "fused")``."""
    cases = []
    for path in paths:
        for p in (RANDOM, GREEDY):
            name = f"path {path} {p[0]} vs {p[1]}"
            cases.append(Case(name, "deals", p, deals, group="paths", engine=(("path", path),)))
    return cases


PATH_CASES: list[Case] = path_cases("lockstep", "fused")


def preset_cases() -> list[Case]:
    """One row per registered preset and pair of players (classic first, the reference)."""
    from scopa_sim.rules import PRESETS

    names = sorted(PRESETS, key=lambda name: name != "classic")
    cases = []
    for name in names:
        for kind in ("random", "greedy"):
            players = (kind,) * PRESETS[name].n_sides
            case = Case(f"preset {name} {kind} vs {kind}", "deals", players, PRESET_DEALS)
            cases.append(replace(case, variant=name, group="presets"))
    return cases


def skipped_row(name: str, group: str, variant: str, players, reason: str) -> dict:
    """The row of a case that cannot be measured here, with the reason."""
    return {"name": name, "group": group, "variant": variant, "players": list(players),
            "skipped": reason}  # fmt: skip
