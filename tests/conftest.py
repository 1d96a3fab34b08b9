"""Suite-wide set-up: on a parallel run, warm numba's cache before the workers start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.browser import require_chromium

ROOT = Path(__file__).resolve().parents[1]
WARMUP = Path(__file__).with_name("_warmup.py")


def _start(part: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    if part == "collect":  # pytest keeps rewritten test modules only where bytecode is written
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.Popen(
        [sys.executable, str(WARMUP), part], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _finish(process: subprocess.Popen, part: str) -> None:
    _, err = process.communicate()
    if process.returncode:  # the tests that need the kernel will compile it (and show any error)
        last = err.strip().splitlines()[-1:] or ["no message"]
        print(f"numba warm-up '{part}' failed ({last[0]}); the workers compile instead")


def _warm_up(schedule, slots: int = 2) -> dict[str, tuple[float, float]]:
    """Run the parts of ``schedule`` (``(part, part it waits for or None)``, in order), at most
    ``slots`` at a time: a free slot takes the first part not started whose wait is over.
    Returns when each part started and ended (seconds)."""
    waiting, running, ended, times = list(schedule), {}, set(), {}
    clock = time.perf_counter
    began = clock()
    while waiting or running:
        for part, process in list(running.items()):
            if process.poll() is not None:
                _finish(running.pop(part), part)
                ended.add(part)
                times[part] = (times[part][0], clock() - began)
        for part, after in list(waiting):
            if len(running) < slots and (after is None or after in ended):
                waiting.remove((part, after))
                running[part] = _start(part)
                times[part] = (clock() - began, float("nan"))
        time.sleep(0.1)
    return times


def pytest_configure(config):
    """With ``-n 2`` or more (``make test``), compile the kernels once in parallel processes
    (tests/_warmup.py) before xdist starts the workers, which then load them from the cache.
    ``SCOPA_SIM_NO_WARMUP=1`` skips it. With a warm cache it only loads the kernels."""
    if hasattr(config, "workerinput") or os.environ.get("SCOPA_SIM_NO_WARMUP"):
        return
    workers = getattr(config.option, "numprocesses", None)
    if not isinstance(workers, int) or workers < 2 or config.option.collectonly:
        return
    from tests._warmup import SCHEDULE

    times = _warm_up(SCHEDULE)
    parts = ", ".join(f"{part} {start:.0f}-{end:.0f}" for part, (start, end) in times.items())
    print(f"numba kernels warmed in {max(end for _, end in times.values()):.0f} s ({parts})")


@pytest.fixture(scope="module")
def chromium() -> str:
    """Headless Chromium's path (tests/support/browser.py): the test skips without it, but not
    on CI."""
    return require_chromium()
