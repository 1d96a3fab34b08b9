"""Instructions a deal, counted by valgrind: a speed figure that the machine's drift does not move.

Why: the speed of the machines we measure on drifts by 10 to 20 % within an hour, so a change of
a few per cent in the engine cannot be told from noise by the clock, even in alternating rounds.
Valgrind's cachegrind counts the instructions a process executes, the same from run to run to
a few thousand in two billion when every pool has one thread (:data:`SINGLE_THREADED`). A row's
figure is the count of a process that plays ``deals`` deals after its warm-up, less the count of
the same process playing none, over ``deals``.

What it does not see: what an instruction costs (cache misses, mispredicted branches, how many
run at once). Two kernels of one count can run at different speeds, so a count that holds still
while the clock moves points at the machine or at code layout, not at the work done. And valgrind
shows the program a CPU of its own (haswell, where the host may be newer): numba compiles the
kernels for that CPU (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``), natively first, so that the
counted processes load them from numba's cache instead of compiling them under valgrind, which
takes minutes.

``python -m bench --only instructions`` (not part of the default run: it needs valgrind and
takes a few minutes). ``python -m bench.instructions VARIANT PLAYER,PLAYER DEALS`` is the
process that is counted.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial

from bench.cases import GREEDY, QUICK, RANDOM, SEED, skipped_row

#: What is counted: classic deals with each of these lineups.
LINEUPS = (RANDOM, GREEDY, ("expert", "expert"))
DEALS = 100_000
WARM_UP = 16  # deals each counted process plays before the counted ones (compiles or loads)
COUNT = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")
#: One thread in every pool, and a fixed hash seed: a pool's idle threads spin, and valgrind
#: counts their spinning (the count of a process then varied by tens of millions from run to
#: run; so, by a few thousand).
SINGLE_THREADED = {
    name: "1"
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                 "POLARS_MAX_THREADS")
} | {"PYTHONHASHSEED": "0"}  # fmt: skip
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instruction_jobs(quick: bool) -> Iterator[tuple]:
    """(what, row maker) for each lineup counted (``quick``: a hundredth of the deals)."""
    deals = DEALS // QUICK if quick else DEALS
    for players in LINEUPS:
        yield (
            f"instructions {' vs '.join(players)} ({deals:,} deals, under valgrind)",
            partial(instructions_row, "classic", players, deals),
        )


def instructions_row(variant: str, players: tuple[str, ...], deals: int) -> dict:
    """The row of one lineup: instructions a deal, or a skipped row without valgrind."""
    name = f"instructions {' vs '.join(players)}"
    if shutil.which("valgrind") is None:
        reason = "valgrind is not installed (apt-get install valgrind)"
        return skipped_row(name, "instructions", variant, players, reason)
    started = time.perf_counter()
    cpu, features = valgrind_cpu()
    env = {**os.environ, **SINGLE_THREADED, "NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": features}
    _run(_play(variant, players, 0), env)  # compiles for valgrind's CPU, natively
    idle = count_instructions(_run([*COUNT, *_play(variant, players, 0)], env))
    busy = count_instructions(_run([*COUNT, *_play(variant, players, deals)], env))
    return {
        "name": name,
        "group": "instructions",
        "variant": variant,
        "players": list(players),
        "deals": deals,
        "instructions_per_deal": round((busy - idle) / deals),
        "cpu": cpu,
        "seconds": round(time.perf_counter() - started, 1),
    }


@functools.cache
def valgrind_cpu() -> tuple[str, str]:
    """The CPU name and features LLVM sees under valgrind."""
    probe = (
        "import llvmlite.binding as ll; print(ll.get_host_cpu_name()); "
        "print(ll.get_host_cpu_features().flatten())"
    )
    out = _run(["valgrind", "--tool=none", "-q", sys.executable, "-c", probe], dict(os.environ))
    name, features = out.stdout.split()[-2:]
    return name, features


def count_instructions(out: subprocess.CompletedProcess) -> int:
    """The instructions cachegrind counted, from its summary on stderr."""
    found = _REFS.findall(out.stderr)
    if not found:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(found[-1].replace(",", ""))


def _play(variant: str, players: tuple[str, ...], deals: int) -> list[str]:
    return [sys.executable, "-m", "bench.instructions", variant, ",".join(players), str(deals)]


def _run(command: list[str], env: dict) -> subprocess.CompletedProcess:
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode:
        shown = " ".join(command)
        raise RuntimeError(f"{shown} exited with {out.returncode}:\n{out.stderr[-2000:]}")
    return out


def play(variant: str, players: list[str], deals: int) -> None:
    """The counted process: a warm-up, then ``deals`` deals."""
    from scopa_sim import api

    api.play_deals(variant, players, deals=WARM_UP, seed=SEED)
    if deals:
        api.play_deals(variant, players, deals=deals, seed=SEED)


if __name__ == "__main__":
    play(sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]))
