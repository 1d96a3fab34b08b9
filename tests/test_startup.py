"""Start-up stays light: a process that plays imports neither scipy.linalg (numba would load it
for BLAS, scopa_sim/jit.py) nor scipy.stats and statsmodels (scopa_sim/stats.py imports them on
first use), and both still work when an analysis asks for them afterwards; nothing imports
polars before a frame of outcomes is built (scopa_sim/storage.py); and a run on the default
backend does not import joblib (scopa_sim/runner/backends.py, ``joblib_backend``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scopa_sim import runner

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import sys
import numpy as np
from scopa_sim import api, compare, stats, tournament  # what a worker of compare imports
api.play_deals("classic", ["random", "greedy"], deals=20, seed=0)
loaded = [m for m in ("scipy.linalg", "scipy.stats", "statsmodels") if m in sys.modules]
assert not loaded, f"a process that only plays imported {loaded}"
import scipy.linalg
assert scipy.linalg.cho_factor(np.eye(2))[0][0, 0] == 1.0
x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 1.0, 2.0])
estimate, p = stats.paired_difference(x, y)
assert estimate.low < estimate.value < estimate.high and 0 < p < 1
print("ok")
"""


def test_a_process_that_plays_imports_no_scipy_linalg_or_stats():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


POLARS_PROBE = """
import sys
from scopa_sim import api, runner, storage
assert "polars" not in sys.modules, "importing the runner imported polars"
out = api.play_deals("classic", ["random", "random"], deals=20, seed=0)
versions = runner.folder._versions()  # what a manifest records, polars' version among them
assert "polars" not in sys.modules, "playing or reading the versions imported polars"
frame = storage.outcomes_frame(out, run="r", variant="classic", strategies=["random", "random"])
assert "polars" in sys.modules and dict(frame.schema) == storage.SCHEMA
assert versions["polars"] == sys.modules["polars"].__version__
print("ok")
"""


def test_the_runner_and_the_engine_import_polars_only_to_build_a_frame():
    """A one-worker run imports polars on its writing thread while its first chunks play
    (storage.py), so nothing on the way to the first deal may import it."""
    out = subprocess.run(
        [sys.executable, "-c", POLARS_PROBE], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


JOBLIB_PROBE = """
import sys
from scopa_sim import launch
out = sys.argv[1]
status = launch.main(["simulate", "--variant", "classic", "--players", "random,random",
                      "--deals", "4000", "--chunk-size", "1000", "--workers", "2", "--seed", "1",
                      "--out", out, "--no-progress"])
assert status == 0
assert "joblib" not in sys.modules, "a forked two-worker run imported joblib"
print("ok")
"""


@pytest.mark.skipif(not runner.FORKS, reason="workers are forked on Linux only")
def test_a_forked_two_worker_run_does_not_import_joblib(tmp_path):
    """Its chunks go to this process and the forked worker, not through joblib's ``Parallel``,
    so configuring joblib (0.06 s of imports) would only delay every worker's first chunk."""
    out = subprocess.run(
        [sys.executable, "-c", JOBLIB_PROBE, str(tmp_path / "run")], cwd=ROOT,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")
    assert len(list((tmp_path / "run").glob("chunk-*.parquet"))) == 4
