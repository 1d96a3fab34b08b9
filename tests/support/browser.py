"""Headless Chromium for the tests that render pages: found once, started the same way.

Without the browser those tests skip on a developer machine but fail on CI (``CI=true``), so CI
cannot pass without rendering. ``make browser`` installs Debian's ``chromium``; ``CHROMIUM``
names another binary. The flags keep it off the network (this machine's is closed, and a page
that needed the network must render without it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ON_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
MISSING = "headless Chromium not found (Debian package 'chromium'); run `make browser`"


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_chromium() -> str:
    """The browser's path; the calling test skips without it, or fails on CI."""
    found = find_chromium()
    if found is None:
        if ON_CI:
            pytest.fail(f"{MISSING}: on CI the rendering tests must run, not skip")
        pytest.skip(MISSING)
    return found


def run_chromium(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    """``chromium --headless ARGS`` with a fresh profile in ``profile``; it must exit 0."""
    profile.mkdir(parents=True, exist_ok=True)
    command = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}",
        # no name resolves: a page that needed the network would render without its resources
        "--host-resolver-rules=MAP * ~NOTFOUND",
        *args,
    ]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"chromium exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc
