"""How a row is timed: warm-up and median runs, rounds with the native yardstick, peak memory,
fresh processes, and whole commands confined to given CPUs."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from bench.cases import PAIRED_RUNS, RUNNERS, WARM_UP, Case
from bench.native import ROOT, native_binary, run_native


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
    """Warm up, then time ``runs`` runs of ``count``; the row for ``case``.

    A ``paired`` case is timed in at least :data:`PAIRED_RUNS` rounds, the native program
    playing ``count`` deals just before each run, and its row gives the median of each round's
    share of native (``bench.process.process_rows`` says why: the machine's speed drifts within
    minutes).
    """
    run = RUNNERS[case.kind]
    binary = native_binary() if case.paired else None
    if isinstance(binary, Path):
        runs = max(runs, PAIRED_RUNS)
    # Games are ~4 deals; the runner's warm-up spans several chunks so every worker is started.
    warm_up = {"games": WARM_UP // 4, "runner": 4 * case.chunk}.get(case.kind, WARM_UP)
    run(case, warm_up, batch_size)
    peak = peak_mb()
    if case.fresh:
        reset_peak()
    base = peak_mb()
    times, natives, deals, extra = [], [], 0, {}
    for _ in range(runs):
        if isinstance(binary, Path):
            natives.append(count / run_native(binary, count)["seconds"])
        start = time.perf_counter()
        deals = run(case, count, batch_size)
        times.append(time.perf_counter() - start)
        if isinstance(deals, dict):
            extra, deals = deals, deals["deals"]
    seconds = statistics.median(times)
    timing = f"median of {runs}" if runs > 1 else "one run"
    row = {
        "name": case.name,
        "group": case.group,
        "variant": case.variant,
        "players": list(case.players),
        "deals": deals,
        "seconds": round(seconds, 3),
        "deals_per_second": round(deals / seconds),
        "workers": case.workers,
        "batch_size": batch_size,
        "timing": f"{timing} (rounds: native, then this case)" if natives else timing,
        "peak_memory_mb": round(max(peak, peak_mb()), 1),
    }
    if natives:
        row["native_deals_per_second"] = round(statistics.median(natives))
        shares = [deals / t / n for t, n in zip(times, natives, strict=True)]
        row["share_of_native"] = round(statistics.median(shares), 4)
    if case.kind == "games":
        row["games"] = count
        row["games_per_second"] = round(count / seconds, 1)
    row.update({k: v for k, v in extra.items() if k != "deals"})
    if "points_per_deal" in row:
        row["points_per_deal"] = round(row["points_per_deal"], 4)
    if case.fresh:
        row["rss_growth_mb"] = round(peak_mb() - base, 1)
    return row


def in_fresh_process(case: Case, count: int, batch_size: int, runs: int = 1) -> dict:
    """The row of ``case`` measured by a new Python process."""
    spec = json.dumps(
        {"case": asdict(case), "count": count, "batch_size": batch_size, "runs": runs}
    )
    out = subprocess.run(
        [sys.executable, "-m", "bench", "--child", spec],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    if out.returncode:
        raise RuntimeError(f"{case.name}: the measuring process exited with {out.returncode}: "
                           f"{out.stderr.strip()[-2000:]}")  # fmt: skip
    return json.loads(out.stdout)


#: Run by ``python -S -c``: spawn argv[3:] with output to the file argv[1], confined to the CPUs
#: of argv[2] (comma-separated; empty: all), wait, and print the wall-clock seconds, exit status
#: and peak RSS. The small helper is the command's parent so that its ru_maxrss is its own (and
#: its reaped workers'), not inherited from this process.
_TIMED = """
import json, os, sys, time
if sys.argv[2]:
    os.sched_setaffinity(0, {int(cpu) for cpu in sys.argv[2].split(",")})
with open(sys.argv[1], "wb") as log:
    start = time.perf_counter()
    pid = os.posix_spawn(sys.argv[3], sys.argv[3:], os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, log.fileno(), 1), (os.POSIX_SPAWN_DUP2, log.fileno(), 2)])
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "status": os.waitstatus_to_exitcode(status),
                  "peak_kib": usage.ru_maxrss}))
"""


def timed_command(command: list[str], log: Path, cpus: set[int] | None = None) -> dict:
    """Run ``command`` (its output to ``log``), on ``cpus`` only when given; its wall-clock
    ``seconds``, exit ``status`` and ``peak_kib``."""
    only = ",".join(str(cpu) for cpu in sorted(cpus)) if cpus else ""
    out = subprocess.run(
        [sys.executable, "-S", "-c", _TIMED, str(log), only, *command],
        capture_output=True, text=True,
    )  # fmt: skip
    if out.returncode:
        raise RuntimeError(f"timing {' '.join(command)} failed: {out.stderr.strip()[-2000:]}")
    result = json.loads(out.stdout)
    if result["status"]:
        tail = log.read_text(errors="replace")[-500:]
        raise RuntimeError(f"{' '.join(command)} exited with {result['status']}: {tail}")
    return result
