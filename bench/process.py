"""The whole-process rows: ``scopa-sim simulate`` timed from start-up to exit, in rounds with
the native yardstick."""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench.cases import (
    NATIVE_DEALS,
    PROCESS_QUICK,
    PROCESS_QUICK_CHUNK,
    PROCESS_RUNS,
    QUICK,
    RANDOM,
    SEED,
    skipped_row,
)
from bench.native import native_binary, run_native
from bench.timing import timed_command


def _process_command(script: Path, deals: int, workers: int, quick: bool, out: Path) -> list[str]:
    command = [
        str(script), "simulate", "--variant", "classic", "--players", "random,random",
        "--deals", str(deals), "--workers", str(workers), "--seed", str(SEED), "--out", str(out),
    ]  # fmt: skip
    if quick:
        command += ["--chunk-size", str(PROCESS_QUICK_CHUNK)]
    return command


def _process_name(workers: int, cores: int | None) -> str:
    name = f"process simulate {workers} worker{'s' if workers > 1 else ''}"
    return name + (", one core" if cores == 1 else "")


def process_rows(quick: bool, runs: int) -> list[dict]:
    """The whole-command rows (``PROCESS_RUNS``: one worker, two, then one worker on one CPU),
    measured in ``runs`` rounds of the native yardstick followed by each command.

    Why rounds: a shared machine's speed drifts within minutes, so a command timed minutes
    away from the native figure, or from the command it is compared with, says more of the
    drift than of the command. Each round's ratios (the command's deals per second over the
    native program's in the same round; two workers over one) are paired, and a row gives their
    median, beside the median times.

    Why the one-core row: one worker writes each chunk's Parquet file on a thread while it plays
    the next chunk (``runner.chunks.chunks_in_turn``), on a second core when there is one, so its
    speed is not one core's, and two workers over one understate what a second core buys. The
    2-worker row's ``speedup_vs_one_core`` is its speed over the one-worker command confined to
    one CPU: how the whole command scales from one core to two. (Where this platform cannot
    confine a process, that row is skipped.)"""
    names = [_process_name(workers, cores) for _, workers, cores in PROCESS_RUNS]
    script = Path(sys.executable).parent / "scopa-sim"
    if not script.exists():
        return [
            skipped_row(n, "process", "classic", RANDOM, f"no console script {script}")
            for n in names
        ]
    confinable = hasattr(os, "sched_setaffinity")
    every_cpu = os.sched_getaffinity(0) if confinable else set(range(os.cpu_count() or 1))
    binary = native_binary()
    native_deals = (NATIVE_DEALS // QUICK if quick else NATIVE_DEALS) // 2
    natives: list[float] = []
    timed: list[list[dict]] = [[] for _ in PROCESS_RUNS]
    written = [0] * len(PROCESS_RUNS)
    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as tmp:
        for round_ in range(runs):
            if isinstance(binary, Path):
                natives.append(native_deals / run_native(binary, native_deals)["seconds"])
            for k, (deals, workers, cores) in enumerate(PROCESS_RUNS):
                if cores and not confinable:
                    continue
                count = deals // PROCESS_QUICK if quick else deals
                # a folder of its own: nothing a command left behind meets the next one
                out = Path(tmp) / f"run-{round_}-{k}"
                command = _process_command(script, count, workers, quick, out)
                cpus = set(sorted(every_cpu)[:cores]) if cores else None
                result = timed_command(command, Path(tmp) / "log.txt", cpus)
                timed[k].append({**result, "speed": count / result["seconds"]})
                written[k] = sum(f.stat().st_size for f in out.rglob("*.parquet"))
                shutil.rmtree(out, ignore_errors=True)  # the disk it took, for the next one
    rows = []
    one_core = next(k for k, (_, _, cores) in enumerate(PROCESS_RUNS) if cores == 1)
    for k, (deals, workers, cores) in enumerate(PROCESS_RUNS):
        if not timed[k]:
            reason = "this platform cannot confine a process to one CPU (os.sched_setaffinity)"
            rows.append(skipped_row(names[k], "process", "classic", RANDOM, reason))
            continue
        count = deals // PROCESS_QUICK if quick else deals
        seconds = statistics.median(r["seconds"] for r in timed[k])
        command = _process_command(script, count, workers, quick, Path("<tmpdir>"))
        row = {
            "name": names[k],
            "group": "process",
            "variant": "classic",
            "players": list(RANDOM),
            "deals": count,
            "seconds": round(seconds, 3),
            "deals_per_second": round(count / seconds),
            "workers": workers,
            "cores": cores or len(every_cpu),
            "timing": f"median of {runs} rounds (native, then each command), wall clock "
            "from start-up to exit",
            # the largest single process, over the runs
            "peak_memory_mb": round(max(r["peak_kib"] for r in timed[k]) / 1024, 1),
            "parquet_mb": round(written[k] / 2**20, 2),
            "command": " ".join([Path(command[0]).name, *command[1:]]),
        }
        speeds = [r["speed"] for r in timed[k]]
        if natives:
            row["native_deals_per_second"] = round(statistics.median(natives))
            shares = [a / b for a, b in zip(speeds, natives, strict=True)]
            row["share_of_native"] = round(statistics.median(shares), 4)
        if workers > 1:
            ratios = [a / b["speed"] for a, b in zip(speeds, timed[0], strict=True)]
            row["speedup_vs_1_worker"] = round(statistics.median(ratios), 2)
            if timed[one_core]:
                ratios = [a / b["speed"] for a, b in zip(speeds, timed[one_core], strict=True)]
                row["speedup_vs_one_core"] = round(statistics.median(ratios), 2)
        rows.append(row)
    return rows
