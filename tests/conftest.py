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


def pytest_configure(config):
    """With ``-n 2`` or more (``make test``), compile the kernels once in two processes side by
    side (tests/_warmup.py) before xdist starts the workers, which then load them from the
    cache. ``SCOPA_SIM_NO_WARMUP=1`` skips it. With a warm cache it only loads the kernels."""
    if hasattr(config, "workerinput") or os.environ.get("SCOPA_SIM_NO_WARMUP"):
        return
    workers = getattr(config.option, "numprocesses", None)
    if not isinstance(workers, int) or workers < 2 or config.option.collectonly:
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


@pytest.fixture(scope="module")
def chromium() -> str:
    """Headless Chromium's path (tests/support/browser.py): the test skips without it, but not
    on CI."""
    return require_chromium()
