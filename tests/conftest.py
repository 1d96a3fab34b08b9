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


def _start(parts: tuple[str, ...]) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.Popen(
        [sys.executable, str(WARMUP), *parts], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _finish(process: subprocess.Popen, parts: tuple[str, ...]) -> None:
    _, err = process.communicate()
    if process.returncode:  # the tests that need the kernel will compile it (and show any error)
        last = err.strip().splitlines()[-1:] or ["no message"]
        print(f"numba warm-up {', '.join(parts)} failed ({last[0]}); the workers compile instead")


#: The thread pools of numpy's BLAS and of OpenMP, one thread each in a parallel run.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def pytest_configure(config):
    """With ``-n 2`` or more (``make test``): one BLAS thread per worker, then the kernels
    compiled once in two processes side by side (tests/_warmup.py) before xdist starts the
    workers, which then load them from the cache. ``SCOPA_SIM_NO_WARMUP=1`` skips the warm-up.
    With a warm cache it only loads the kernels.

    Why one BLAS thread: each worker's BLAS would start a thread per core, so two workers ran
    four threads on two cores, and the small matrix products of the statistics waited for one
    another (the rating audit's bootstrap ran three times slower). A variable already set is
    kept."""
    if hasattr(config, "workerinput"):
        return
    workers = getattr(config.option, "numprocesses", None)
    if not isinstance(workers, int) or workers < 2 or config.option.collectonly:
        return
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
    if os.environ.get("SCOPA_SIM_NO_WARMUP"):
        return
    from tests._warmup import LANES

    started = time.perf_counter()
    running = {lane: _start(lane) for lane in LANES}
    took = {}
    while running:
        for lane, process in list(running.items()):
            if process.poll() is not None:
                _finish(running.pop(lane), lane)
                took[lane] = time.perf_counter() - started
        time.sleep(0.1)
    lanes = "; ".join(f"{', '.join(lane)} {seconds:.0f} s" for lane, seconds in took.items())
    print(f"numba kernels warmed in {max(took.values()):.0f} s ({lanes})")


@pytest.fixture(autouse=True)
def no_kept_searches():
    """Each test searches afresh: a search player's one-row search kept by an earlier test in
    the worker (``players.kept``) would bypass what a test patches."""
    from scopa_sim.players import kept

    kept.forget()


@pytest.fixture(scope="module")
def chromium() -> str:
    """Headless Chromium's path (tests/support/browser.py): the test skips without it, but not
    on CI."""
    return require_chromium()
