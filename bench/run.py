"""The run: the jobs of the selected groups, in order, and the command line of the bench."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from functools import partial

from bench.cases import (
    CASES,
    GREEDY,
    GROUPS,
    GROWTH_QUICK,
    GROWTH_QUICK_SIZES,
    GROWTH_SIZES,
    NATIVE_DEALS,
    OPT_IN_GROUPS,
    PATH_CASES,
    PROCESS_QUICK,
    PROCESS_RUNS,
    QUICK,
    RANDOM,
    RUNNER_QUICK_CHUNK,
    SEED,
    Case,
    preset_cases,
    skipped_row,
)
from bench.instructions import instruction_jobs
from bench.native import NATIVE_NAME, native_row
from bench.output import annotate, show
from bench.process import process_rows
from bench.search import search_jobs
from bench.timing import in_fresh_process, measure
from scopa_sim import api


def jobs(groups: set[str], quick: bool, batch_size: int, runs: int) -> Iterator[tuple]:
    """(what, row maker) for each row of the selected groups, in order."""
    if "native" in groups:
        deals = NATIVE_DEALS // QUICK if quick else NATIVE_DEALS
        yield f"{NATIVE_NAME} ({deals:,})", partial(native_row, deals, runs)
    yield from _case_jobs(CASES, groups, quick, batch_size, runs)
    if "growth" in groups:
        for size in GROWTH_QUICK_SIZES if quick else GROWTH_SIZES:
            count = size // GROWTH_QUICK if quick else size
            case = Case(f"growth {count:,} deals", "chunked", RANDOM, count, fresh=True,
                        group="growth")  # fmt: skip
            # Small sizes are over quickly: the median of several runs steadies them.
            times = runs if count <= 100_000 else 1
            yield case.name, partial(in_fresh_process, case, count, batch_size, times)
    if "process" in groups:
        shown = [
            f"--deals {d // PROCESS_QUICK if quick else d:,} --workers {w}"
            + (" on one core" if cores == 1 else "")
            for d, w, cores in PROCESS_RUNS
        ]
        what = f"scopa-sim simulate {' and '.join(shown)}, in rounds with the native yardstick"
        yield what, partial(process_rows, quick, runs)
    if "presets" in groups:
        for case in preset_cases():
            if quick:
                case = replace(case, count=case.count // QUICK)
            yield f"{case.name} ({case.count:,})", partial(preset_row, case, batch_size, runs)
    yield from _case_jobs(PATH_CASES, groups, quick, batch_size, runs)
    if "search" in groups:
        yield from search_jobs(quick, runs)
    if "instructions" in groups:
        yield from instruction_jobs(quick)


def _case_jobs(cases, groups, quick, batch_size, runs) -> Iterator[tuple]:
    """(what, row maker) for each of ``cases`` in the selected groups (``--quick``: scaled down)."""
    for case in cases:
        if case.group in groups and (case.quick or not quick):
            count = case.count // QUICK if quick else case.count
            if quick:
                case = replace(case, chunk=RUNNER_QUICK_CHUNK)
            if case.fresh:
                yield f"{case.name} ({count:,})", partial(in_fresh_process, case, count, batch_size)
            else:
                yield f"{case.name} ({count:,})", partial(measure, case, count, batch_size, runs)


def preset_row(case: Case, batch_size: int, runs: int) -> dict:
    """A preset's row with its cost per card played, or a skipped row if it cannot be played."""
    from scopa_sim.rules import PRESETS, RulesError

    try:
        row = measure(case, case.count, batch_size, runs)
    except (NotImplementedError, RulesError, ValueError) as error:
        return skipped_row(case.name, case.group, case.variant, case.players, str(error))
    plays = PRESETS[case.variant].plays
    row["plays_per_deal"] = plays
    row["ns_per_card"] = round(1e9 * row["seconds"] / (row["deals"] * plays), 2)
    return row


def warm_compile_cache() -> None:
    """Play a few deals here first, so that numba's on-disk cache is current before any fresh
    process starts: a fresh process then loads the kernels instead of compiling them, and its
    peak memory is not the compiler's (the first run after an edit of the kernels compiles)."""
    for players in (RANDOM, GREEDY):
        api.play_deals("classic", players, deals=100, seed=SEED)
        api.play_games("classic", players, games=10, seed=SEED)


def main(argv: list[str] | None = None) -> list[dict]:
    """Measure the selected groups, printing each row as it is made; the rows."""
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Deals per second and memory of the engine, as JSON lines (one row a line).",
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (the smoke test)")
    parser.add_argument(
        "--only", metavar="GROUP[,GROUP]",
        help=f"row groups to run, from: {', '.join(GROUPS)} (native is always run: the shares "
             f"need it), and {', '.join(OPT_IN_GROUPS)}, run only when named (instructions a "
             "deal, counted by valgrind: bench/instructions.py)",
    )  # fmt: skip
    parser.add_argument("--batch-size", type=int, default=8192, help="deals per batch (8192)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (median; 3)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # a fresh-process measurement
    args = parser.parse_args(argv)

    if args.child:
        spec = json.loads(args.child)
        case = Case(
            **{**spec["case"], "players": tuple(spec["case"]["players"]),
               "engine": tuple(tuple(kv) for kv in spec["case"]["engine"])}
        )  # fmt: skip
        print(json.dumps(measure(case, spec["count"], spec["batch_size"], spec["runs"])))
        return []

    groups = set(GROUPS)
    if args.only:
        groups = {g.strip() for g in args.only.split(",") if g.strip()}
        unknown = groups - set(GROUPS) - set(OPT_IN_GROUPS)
        if unknown:
            known = ", ".join(GROUPS + OPT_IN_GROUPS)
            parser.error(f"unknown group {', '.join(sorted(unknown))}; groups: {known}")
        groups.add("native")

    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) - 1:
        print(f"bench: load average {load:.1f}: timings suffer if other work is running",
              file=sys.stderr)  # fmt: skip
    rows, seen = [], {}
    started = time.perf_counter()
    if groups & {"memory", "runner", "growth", "process"}:
        warm_compile_cache()
    for what, make in jobs(groups, args.quick, args.batch_size, args.runs):
        print(f"bench: {what}...", file=sys.stderr, flush=True)
        made = make()
        for row in made if isinstance(made, list) else [made]:  # a job may give several rows
            annotate(row, seen)
            seen[row["name"]] = row
            rows.append(row)
            show(row)
    print(f"bench: {len(rows)} rows in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return rows
