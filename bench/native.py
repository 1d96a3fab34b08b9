"""The native yardstick: ``bench/native_scopa.c``, built to ``build/native_scopa``, and its row."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path

from bench.cases import RANDOM, SEED, skipped_row

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
    # Built beside it under a name of this process's, then moved into place in one step: another
    # process running the program meanwhile never meets a half-written file.
    partial = NATIVE_BINARY.with_name(f"{NATIVE_BINARY.name}.{os.getpid()}.tmp")
    build = subprocess.run(
        [cc, *NATIVE_FLAGS, "-o", str(partial), str(NATIVE_SOURCE), "-lm"],
        capture_output=True, text=True,
    )  # fmt: skip
    if build.returncode:
        partial.unlink(missing_ok=True)
        return f"{cc} failed to build the native program: {build.stderr.strip()[-300:]}"
    os.replace(partial, NATIVE_BINARY)
    return NATIVE_BINARY


def run_native(binary: Path, deals: int, seed: int = SEED) -> dict:
    """One run of the native program: its JSON line."""
    out = subprocess.run(
        [str(binary), "--deals", str(deals), "--seed", str(seed)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def native_row(deals: int, runs: int) -> dict:
    """The native row: ``deals`` deals, the median of ``runs`` runs (or why it is skipped)."""
    binary = native_binary()
    if not isinstance(binary, Path):
        return skipped_row(NATIVE_NAME, "native", "classic", RANDOM, binary)
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
