"""Throughput benchmark: ``python -m scopa_sim.bench`` (``make bench``).

Prints one JSON document to stdout, a list of rows (progress goes to stderr). Each row is one
:class:`Case`: ``name, variant, players, deals, seconds, deals_per_second, workers`` plus
``batch_size``, ``timing`` and ``peak_memory_mb`` (the process's peak resident set, ru_maxrss).

Timing: each case is warmed up first (numba compilation and cache loading are excluded), then
played ``runs`` times; ``seconds`` is the median run. Cases marked ``fresh`` run once in a new
Python process and also report ``rss_growth_mb``: the peak RSS during the run minus the RSS after
the warm-up. The memory rows play the same deals at two sizes: consumed in slices (each slice's
outcomes dropped), the growth should not depend on the number of deals, only on the batch size;
retained (one ``play_deals`` call, which returns every outcome), it grows with the deals.

To add a row, add a :class:`Case` to ``CASES`` (and a runner to ``RUNNERS`` for a new kind).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from scopa_sim import api

SEED = 1
RUNNER_CHUNK = 5_000  # games per chunk in the runner rows: the same for every size of run


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # a key of RUNNERS
    players: tuple[str, ...]
    count: int  # deals, or games for kind "games"
    variant: str = "classic"
    workers: int = 1
    fresh: bool = False  # run once in a new process and report the peak RSS growth


def _deals(case: Case, count: int | range, batch_size: int) -> int:
    out = api.play_deals(case.variant, case.players, deals=count, seed=SEED, batch_size=batch_size)
    return len(out)


def _games(case: Case, count: int, batch_size: int) -> int:
    out = api.play_games(case.variant, case.players, games=count, seed=SEED, batch_size=batch_size)
    return len(out)


def _sliced(case: Case, count: int, batch_size: int) -> int:
    """Deals played one batch per call, each batch's outcomes dropped at once."""
    for start in range(0, count, batch_size):
        _deals(case, range(start, min(start + batch_size, count)), batch_size)
    return count


def _runner(case: Case, count: int, batch_size: int) -> dict:
    """Whole games through the runner into Parquet in a scratch folder (workers, writing)."""
    from scopa_sim.runner import RunConfig, run

    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as tmp:
        config = RunConfig.create(
            variant=case.variant, players=case.players, mode="games", count=count, seed=SEED,
            out=Path(tmp) / "run", chunk_size=RUNNER_CHUNK,
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
    "runner": _runner,
}

GREEDY = ("greedy", "greedy")
CASES = [
    Case("deals random vs random", "deals", ("random", "random"), 300_000),
    Case("deals greedy vs greedy", "deals", GREEDY, 300_000),
    Case("games greedy vs greedy", "games", GREEDY, 75_000),  # about 300,000 deals
    Case("memory sliced 100k", "sliced", GREEDY, 100_000, fresh=True),
    Case("memory sliced 400k", "sliced", GREEDY, 400_000, fresh=True),
    Case("memory retained 100k", "deals", GREEDY, 100_000, fresh=True),
    Case("memory retained 400k", "deals", GREEDY, 400_000, fresh=True),
    # The runner: chunks of whole games written to Parquet, one and two worker processes.
    Case("runner 1 worker", "runner", ("random", "random"), 100_000),
    Case("runner 2 workers", "runner", ("random", "random"), 100_000, workers=2),
    Case("runner memory 50k games", "runner", GREEDY, 50_000, fresh=True),
    Case("runner memory 200k games", "runner", GREEDY, 200_000, fresh=True),
]
QUICK = 10  # --quick divides every count by this
WARM_UP = 2_000  # deals (a quarter of that in games)


def peak_mb() -> float:
    """Peak RSS of this process in MiB: ru_maxrss, read as VmHWM where /proc has it. (A child's
    ru_maxrss starts at its parent's peak, inherited through fork and exec; VmHWM does not.)"""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def reset_peak() -> None:
    """Reset the peak RSS to the current RSS (Linux >= 4.0), so that a growth is not hidden by
    the import-time peak; where that is not possible the growth is a lower bound."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        print("bench: cannot reset the peak RSS; growth is a lower bound", file=sys.stderr)


def measure(case: Case, count: int, batch_size: int, runs: int) -> dict:
    """Warm up, then time ``runs`` runs of ``count``; the row for ``case``."""
    run = RUNNERS[case.kind]
    # Games are ~4 deals; the runner's warm-up spans several chunks so every worker is started.
    warm_up = {"games": WARM_UP // 4, "runner": 4 * RUNNER_CHUNK}.get(case.kind, WARM_UP)
    run(case, warm_up, batch_size)
    peak = peak_mb()
    if case.fresh:
        reset_peak()
    base = peak_mb()
    times, deals, extra = [], 0, {}
    for _ in range(runs):
        start = time.perf_counter()
        deals = run(case, count, batch_size)
        times.append(time.perf_counter() - start)
        if isinstance(deals, dict):
            extra, deals = deals, deals["deals"]
    seconds = statistics.median(times)
    row = {
        "name": case.name,
        "variant": case.variant,
        "players": list(case.players),
        "deals": deals,
        "seconds": round(seconds, 3),
        "deals_per_second": round(deals / seconds),
        "workers": case.workers,
        "batch_size": batch_size,
        "timing": f"median of {runs}" if runs > 1 else "one run",
        "peak_memory_mb": round(max(peak, peak_mb()), 1),
    }
    if case.kind == "games":
        row["games"] = count
        row["games_per_second"] = round(count / seconds, 1)
    row.update({k: v for k, v in extra.items() if k != "deals"})
    if case.fresh:
        row["rss_growth_mb"] = round(peak_mb() - base, 1)
    return row


def in_fresh_process(case: Case, count: int, batch_size: int) -> dict:
    """The row of ``case`` measured by a new Python process (one run)."""
    spec = json.dumps({"case": asdict(case), "count": count, "batch_size": batch_size})
    out = subprocess.run(
        [sys.executable, "-m", "scopa_sim.bench", "--child", spec],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description="Deals per second of the engine, as JSON rows.")
    parser.add_argument("--quick", action="store_true", help=f"counts divided by {QUICK}")
    parser.add_argument("--batch-size", type=int, default=8192, help="deals per batch (8192)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (median; 3)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # a fresh-process measurement
    args = parser.parse_args(argv)

    if args.child:
        spec = json.loads(args.child)
        case = Case(**{**spec["case"], "players": tuple(spec["case"]["players"])})
        print(json.dumps(measure(case, spec["count"], spec["batch_size"], runs=1)))
        return []

    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) - 1:
        print(f"bench: load average {load:.1f}: timings suffer if other work is running",
              file=sys.stderr)  # fmt: skip
    rows = []
    for case in CASES:
        count = case.count // QUICK if args.quick else case.count
        print(f"bench: {case.name} ({count:,})...", file=sys.stderr, flush=True)
        if case.fresh:
            row = in_fresh_process(case, count, args.batch_size)
        else:
            row = measure(case, count, args.batch_size, args.runs)
        print(f"bench:   {row['deals_per_second']:,} deals/s", file=sys.stderr, flush=True)
        rows.append(row)
    by_name = {row["name"]: row for row in rows}
    one, two = by_name.get("runner 1 worker"), by_name.get("runner 2 workers")
    if one and two:
        two["speedup_vs_1_worker"] = round(two["deals_per_second"] / one["deals_per_second"], 2)
    print(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
