"""``make bench`` keeps working: one JSON document of well-formed rows (speed is not tested)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scopa_sim import bench


@pytest.mark.xdist_group("bench")
def test_quick_bench_prints_one_json_row_per_case():
    out = subprocess.run(
        [sys.executable, "-m", "scopa_sim.bench", "--quick", "--runs", "1"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    rows = json.loads(out.stdout)  # stdout is the JSON document alone; progress goes to stderr
    assert [row["name"] for row in rows] == [case.name for case in bench.CASES]
    for row, case in zip(rows, bench.CASES, strict=True):
        assert row["deals"] > 0 and row["seconds"] > 0 and row["deals_per_second"] > 0
        assert row["workers"] == case.workers and row["peak_memory_mb"] > 0
        assert ("rss_growth_mb" in row) == case.fresh
        if case.kind == "runner":
            assert 0 < row["write_share"] and 0 < row["bytes_per_row"] <= 40
    by_name = {row["name"]: row for row in rows}
    assert by_name["runner 2 workers"]["speedup_vs_1_worker"] > 0
