"""Throughput benchmark: ``python -m scopa_sim.bench`` (``make bench``).

Prints one JSON object per line to stdout, one row per case, as each is measured (progress goes
to stderr). Rows come in groups, in this order (``--only GROUP[,GROUP]`` runs a subset):

- ``native``: the native yardstick, ``build/native_scopa`` (``bench/native_scopa.c``, built
  here with ``cc`` when missing or stale): classic random-vs-random deals in plain C. Every
  other row carries ``native_deals_per_second`` and ``share_of_native``: its deals per second
  over the native figure of the same run. Only classic random-vs-random rows play what the C
  program plays; the rest use it as a fixed yardstick. It is always measured, whatever
  ``--only`` says, and gives a ``skipped`` row when there is no C compiler.
- ``engine``: ``play_deals`` and ``play_games`` in this process. The classic random and greedy
  ``play_deals`` rows, which the speed targets compare with native speed, are timed in rounds
  with the native program (native, then the row; ``paired`` in :class:`Case`), and their
  ``share_of_native`` is the median of each round's share.
- ``memory``: the same deals at two sizes, each in a fresh process (``rss_growth_mb``: peak
  RSS during the run minus RSS after the warm-up). Consumed in slices (each slice's outcomes
  dropped), the growth should not depend on the number of deals, only on the batch size;
  retained (one ``play_deals`` call, which returns every outcome), it grows with the deals.
- ``runner``: whole games through the runner into Parquet, one and two workers.
- ``growth``: how cost grows: 10^4 to 10^7 classic random-vs-random deals, each size in a fresh
  process, consumed in chunks of the runner's size so memory stays flat: deals per second and
  peak RSS (the whole process's, imports included) against the number of deals.
- ``process``: the whole command, ``scopa-sim simulate ... --deals 1000000 --workers 1``,
  ``--deals 2000000 --workers 2``, and the first again confined to one CPU, timed by the wall
  clock from start-up to exit (imports, compilation cache loading, workers, Parquet writing),
  in ``runs`` rounds of the native yardstick (1,000,000 deals) followed by each command: the
  times are medians, and the share of native and the 2-worker row's speed-ups (over one
  worker, and over one worker on one core) are medians of each round's ratios
  (:func:`process_rows` says why).
- ``presets``: every preset in the registry (``scopa_sim.rules.PRESETS``), random vs random and
  greedy vs greedy: deals per second, ``ns_per_card`` (seconds / (deals x plays per deal)) and
  ``per_card_vs_classic``; a preset the engines cannot play gives a ``skipped`` row.
- ``paths``: engine paths compared on the same deals (empty until the engine has a choice of
  path; see :func:`path_cases`).

Timing: each in-process case is warmed up first (numba compilation and cache loading are
excluded), then played ``runs`` times; ``seconds`` is the median run. Fresh-process cases
(``fresh``) run once in a new Python process after their own warm-up. Speed is measured with
``make bench`` on an idle machine, never in tests.

To add a row, add a :class:`Case` to ``CASES`` (and a runner to ``RUNNERS`` for a new kind).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

from scopa_sim import api

SEED = 1
RUNNER_CHUNK = 5_000  # games per chunk in the runner rows: the same for every size of run
DEALS_CHUNK = 100_000  # deals per chunk: the runner's default in deals mode (growth rows)
GROUPS = ("native", "engine", "memory", "runner", "growth", "process", "presets", "paths")
RANDOM = ("random", "random")
GREEDY = ("greedy", "greedy")


@dataclass(frozen=True)
class Case:
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
    #: Timed in rounds with the native yardstick (:func:`measure`): for the rows that a target
    #: compares with native speed.
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


# ---- measurement ----


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
    share of native (:func:`process_rows` says why: the machine's speed drifts within minutes).
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
        [sys.executable, "-m", "scopa_sim.bench", "--child", spec],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def _skipped(name: str, group: str, variant: str, players, reason: str) -> dict:
    return {"name": name, "group": group, "variant": variant, "players": list(players),
            "skipped": reason}  # fmt: skip


# ---- the native yardstick ----

ROOT = Path(__file__).resolve().parents[1]
NATIVE_SOURCE = ROOT / "bench" / "native_scopa.c"
NATIVE_BINARY = ROOT / "build" / "native_scopa"
#: The compile command; the Makefile's rule for build/native_scopa uses the same flags.
NATIVE_FLAGS = ("-std=c11", "-O2")
NATIVE_NAME = "native C, random vs random"


def native_binary() -> Path | str:
    """The native program, compiled first if it is missing or older than its source; or the
    reason it cannot be run."""
    if not NATIVE_SOURCE.exists():
        return f"no {NATIVE_SOURCE.name} beside the package (not a source checkout)"
    fresh = NATIVE_BINARY.exists() and (
        NATIVE_BINARY.stat().st_mtime >= NATIVE_SOURCE.stat().st_mtime
    )
    if fresh:
        return NATIVE_BINARY
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        return f"no C compiler ({cc}) to build {NATIVE_BINARY.relative_to(ROOT)}"
    NATIVE_BINARY.parent.mkdir(exist_ok=True)
    build = subprocess.run(
        [cc, *NATIVE_FLAGS, "-o", str(NATIVE_BINARY), str(NATIVE_SOURCE), "-lm"],
        capture_output=True, text=True,
    )  # fmt: skip
    if build.returncode:
        return f"{cc} failed to build the native program: {build.stderr.strip()[-300:]}"
    return NATIVE_BINARY


def run_native(binary: Path, deals: int, seed: int = SEED) -> dict:
    """One run of the native program: its JSON line."""
    out = subprocess.run(
        [str(binary), "--deals", str(deals), "--seed", str(seed)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def native_row(deals: int, runs: int) -> dict:
    binary = native_binary()
    if not isinstance(binary, Path):
        return _skipped(NATIVE_NAME, "native", "classic", RANDOM, binary)
    results = [run_native(binary, deals) for _ in range(runs)]
    seconds = statistics.median(r["seconds"] for r in results)
    first = results[0]
    return {
        "name": NATIVE_NAME,
        "group": "native",
        "variant": "classic",
        "players": list(RANDOM),
        "deals": deals,
        "seconds": round(seconds, 3),
        "deals_per_second": round(deals / seconds),
        "workers": 1,
        "timing": f"median of {runs}" if runs > 1 else "one run",
        "peak_memory_mb": first["peak_memory_mb"],
        "points_per_deal": round(first["points_per_deal"], 4),
        "points_sd": round(first["points_sd"], 4),
        "checksum": first["checksum"],
        "compiler": " ".join(("cc", *NATIVE_FLAGS)),
    }


# ---- whole processes ----

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
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    result = json.loads(out.stdout)
    if result["status"]:
        tail = log.read_text(errors="replace")[-500:]
        raise RuntimeError(f"{' '.join(command)} exited with {result['status']}: {tail}")
    return result


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
    the next chunk (``runner._chunks_in_turn``), on a second core when there is one, so its
    speed is not one core's, and two workers over one understate what a second core buys. The
    2-worker row's ``speedup_vs_one_core`` is its speed over the one-worker command confined to
    one CPU: how the whole command scales from one core to two. (Where this platform cannot
    confine a process, that row is skipped.)"""
    names = [_process_name(workers, cores) for _, workers, cores in PROCESS_RUNS]
    script = Path(sys.executable).parent / "scopa-sim"
    if not script.exists():
        return [
            _skipped(n, "process", "classic", RANDOM, f"no console script {script}") for n in names
        ]
    confinable = hasattr(os, "sched_setaffinity")
    every_cpu = os.sched_getaffinity(0) if confinable else set(range(os.cpu_count() or 1))
    binary = native_binary()
    native_deals = (NATIVE_DEALS // QUICK if quick else NATIVE_DEALS) // 2
    natives: list[float] = []
    timed: list[list[dict]] = [[] for _ in PROCESS_RUNS]
    written = [0] * len(PROCESS_RUNS)
    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as tmp:
        out = Path(tmp) / "run"
        for _ in range(runs):
            if isinstance(binary, Path):
                natives.append(native_deals / run_native(binary, native_deals)["seconds"])
            for k, (deals, workers, cores) in enumerate(PROCESS_RUNS):
                if cores and not confinable:
                    continue
                count = deals // PROCESS_QUICK if quick else deals
                shutil.rmtree(out, ignore_errors=True)
                Path(tmp, "run.manifest.json").unlink(missing_ok=True)
                command = _process_command(script, count, workers, quick, out)
                cpus = set(sorted(every_cpu)[:cores]) if cores else None
                result = timed_command(command, Path(tmp) / "log.txt", cpus)
                timed[k].append({**result, "speed": count / result["seconds"]})
                written[k] = sum(f.stat().st_size for f in out.rglob("*.parquet"))
    rows = []
    one_core = next(k for k, (_, _, cores) in enumerate(PROCESS_RUNS) if cores == 1)
    for k, (deals, workers, cores) in enumerate(PROCESS_RUNS):
        if not timed[k]:
            reason = "this platform cannot confine a process to one CPU (os.sched_setaffinity)"
            rows.append(_skipped(names[k], "process", "classic", RANDOM, reason))
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


# ---- the run ----


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


def _case_jobs(cases, groups, quick, batch_size, runs) -> Iterator[tuple]:
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
    from scopa_sim.rules import PRESETS, RulesError

    try:
        row = measure(case, case.count, batch_size, runs)
    except (NotImplementedError, RulesError, ValueError) as error:
        return _skipped(case.name, case.group, case.variant, case.players, str(error))
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


def annotate(row: dict, seen: dict[str, dict]) -> None:
    """Figures that compare a row with earlier rows of the same run."""
    native = seen.get(NATIVE_NAME, {}).get("deals_per_second")
    if native and row["name"] != NATIVE_NAME and "deals_per_second" in row:
        row.setdefault("native_deals_per_second", native)  # a row may have its own, paired
        row.setdefault("share_of_native", round(row["deals_per_second"] / native, 4))
    if row.get("workers", 1) > 1 and "deals_per_second" in row and "speedup_vs_1_worker" not in row:
        one = seen.get(row["name"].replace(f"{row['workers']} workers", "1 worker"), {})
        if "deals_per_second" in one:
            row["speedup_vs_1_worker"] = round(row["deals_per_second"] / one["deals_per_second"], 2)
    if row["group"] == "presets" and "ns_per_card" in row:
        kind = row["players"][0]  # classic's own row is its reference (ratio 1)
        classic = (
            row if row["variant"] == "classic" else seen.get(f"preset classic {kind} vs {kind}", {})
        )
        if "ns_per_card" in classic:
            row["per_card_vs_classic"] = round(row["ns_per_card"] / classic["ns_per_card"], 3)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(
        description="Deals per second and memory of the engine, as JSON lines (one row a line)."
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (the smoke test)")
    parser.add_argument(
        "--only", metavar="GROUP[,GROUP]",
        help=f"row groups to run, from: {', '.join(GROUPS)} (native is always run: the shares "
             "need it)",
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
        unknown = groups - set(GROUPS)
        if unknown:
            parser.error(f"unknown group {', '.join(sorted(unknown))}; groups: {', '.join(GROUPS)}")
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
            what = row.get("skipped") or f"{row['deals_per_second']:,} deals/s"
            print(f"bench:   {what}", file=sys.stderr, flush=True)
            print(json.dumps(row), flush=True)
    print(f"bench: {len(rows)} rows in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()
