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
    return subprocess.Popen(
        [sys.executable, str(WARMUP), part], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _finish(process: subprocess.Popen, part: str) -> None:
    _, err = process.communicate()
    if process.returncode:  # the tests that need the kernel will compile it (and show any error)
        last = err.strip().splitlines()[-1:] or ["no message"]
        print(f"numba warm-up '{part}' failed ({last[0]}); the workers compile instead")


def pytest_configure(config):
    """With ``-n 2`` or more (``make test``), compile the kernels once in parallel processes
    (tests/_warmup.py) before xdist starts the workers, which then load them from the cache.
    ``SCOPA_SIM_NO_WARMUP=1`` skips it. With a warm cache it only loads the kernels."""
    if hasattr(config, "workerinput") or os.environ.get("SCOPA_SIM_NO_WARMUP"):
        return
    workers = getattr(config.option, "numprocesses", None)
    if not isinstance(workers, int) or workers < 2 or config.option.collectonly:
        return
    started = time.perf_counter()
    first = {"fused": _start("fused"), "lockstep": _start("lockstep")}
    # The search part rolls out on the fused part's kernels, so it waits for that part; the
    # checked kernel only for a free core, so it starts when either part ends.
    later = {}
    while first:
        for part, process in list(first.items()):
            if process.poll() is not None:
                _finish(first.pop(part), part)
                if "checked" not in later:
                    later["checked"] = _start("checked")
                if part == "fused":
                    later["search"] = _start("search")
        time.sleep(0.1)
    for part, process in later.items():
        _finish(process, part)
    print(f"numba kernels warmed in {time.perf_counter() - started:.0f} s")


@pytest.fixture(scope="module")
def chromium() -> str:
    """Headless Chromium's path (tests/support/browser.py): the test skips without it, but not
    on CI."""
    return require_chromium()
