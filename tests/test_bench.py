"""``make bench`` keeps working: well-formed JSON lines, one row per case (speed is not tested),
and the native yardstick plays the same game as the engine (its mean points per deal agree)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bench.cases
import bench.instructions
import bench.native
import bench.run
import bench.search
import bench.timing
from scopa_sim import api
from scopa_sim.rules import PRESETS

MEASURED = {"name", "group", "variant", "players", "deals", "seconds", "deals_per_second",
            "workers", "timing", "peak_memory_mb"}  # fmt: skip


@pytest.mark.xdist_group("bench")
def test_quick_bench_prints_one_json_row_per_case():
    out = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--runs", "1"],
        capture_output=True, text=True, timeout=600, cwd=bench.native.ROOT,
    )  # fmt: skip
    assert out.returncode == 0, f"bench exited with {out.returncode}:\n{out.stderr[-4000:]}"
    # stdout is JSON lines alone, one object a line; progress goes to stderr.
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert all(isinstance(row, dict) for row in rows)
    by_group: dict[str, list[dict]] = {}
    for row in rows:
        assert row["group"] in bench.cases.GROUPS
        by_group.setdefault(row["group"], []).append(row)
    assert list(by_group) == [g for g in bench.cases.GROUPS if g in by_group]  # groups in order

    native = by_group["native"][0]
    assert len(by_group["native"]) == 1 and native["name"] == bench.native.NATIVE_NAME
    has_cc = "skipped" not in native
    if has_cc:
        assert MEASURED <= set(native) and native["points_per_deal"] > 0 and native["checksum"]
    else:
        assert shutil.which("cc") is None

    paired = {case.name for case in bench.cases.CASES if case.paired}
    assert {"deals random vs random", "deals greedy vs greedy"} <= paired
    for row in rows:
        if "skipped" in row:
            assert row["group"] in ("native", "presets") and row["skipped"]
            continue
        assert MEASURED <= set(row), row["name"]
        assert row["deals"] > 0 and row["seconds"] > 0 and row["deals_per_second"] > 0
        assert row["peak_memory_mb"] > 0
        if has_cc and row is not native:
            assert row["share_of_native"] > 0
            # Rows timed in rounds have the native figure of their own rounds.
            if row["group"] == "process" or row["name"] in paired:
                assert "rounds" in row["timing"] and row["native_deals_per_second"] > 0
            else:
                assert row["native_deals_per_second"] == native["deals_per_second"]

    cases = [c for c in bench.cases.CASES if c.group in by_group and c.quick]
    kept = [row for row in rows if row["group"] in ("engine", "memory", "runner")]
    assert [row["name"] for row in kept] == [case.name for case in cases]
    for row, case in zip(kept, cases, strict=True):
        assert row["workers"] == case.workers and ("rss_growth_mb" in row) == case.fresh
        if case.kind == "runner":
            assert 0 < row["write_share"] and 0 < row["bytes_per_row"] <= 40
    by_name = {row["name"]: row for row in rows}
    assert by_name["runner 2 workers"]["speedup_vs_1_worker"] > 0

    growth = by_group["growth"]
    sizes = bench.cases.GROWTH_QUICK_SIZES
    assert [row["deals"] for row in growth] == [n // bench.cases.GROWTH_QUICK for n in sizes]
    assert all(row["rss_growth_mb"] >= 0 for row in growth)

    one, two, one_core = by_group["process"]
    assert (one["workers"], two["workers"]) == (1, 2) and two["speedup_vs_1_worker"] > 0
    assert one["command"].startswith("scopa-sim simulate") and one["parquet_mb"] > 0
    assert one_core["name"] == "process simulate 1 worker, one core"
    if hasattr(os, "sched_setaffinity"):  # the command confined to one CPU, the same deals
        assert (one_core["workers"], one_core["cores"], one_core["deals"]) == (1, 1, one["deals"])
        assert two["cores"] == len(os.sched_getaffinity(0)) and two["speedup_vs_one_core"] > 0
    else:
        assert "sched_setaffinity" in one_core["skipped"] and "speedup_vs_one_core" not in two
    # Timed in rounds, each with the native program (when there is a C compiler).
    for row in (one, two):
        assert "rounds" in row["timing"]
        assert ("native_deals_per_second" in row) == has_cc

    presets = by_group["presets"]
    assert [row["variant"] for row in presets[::2]] == sorted(PRESETS, key=lambda n: n != "classic")
    for row in presets:
        if "skipped" not in row:
            assert row["plays_per_deal"] == PRESETS[row["variant"]].plays
            assert row["ns_per_card"] > 0 and row["per_card_vs_classic"] > 0


def test_the_full_bench_measures_every_case_at_its_size_and_quick_one_of_each_kind():
    """``make bench`` (no --quick) measures every case, growth size and preset at full size;
    --quick measures a subset of the same rows at small sizes. Nothing is run here."""
    full = list(bench.run.jobs(set(bench.cases.GROUPS), False, 8192, 3))
    quick = list(bench.run.jobs(set(bench.cases.GROUPS), True, 8192, 1))
    names = [what for what, _ in full]
    assert names[0] == f"{bench.native.NATIVE_NAME} ({bench.cases.NATIVE_DEALS:,})"
    cases = [*bench.cases.CASES, *bench.cases.preset_cases(), *bench.cases.PATH_CASES]
    assert {f"{c.name} ({c.count:,})" for c in cases} < set(names)
    assert [n for n in names if n.startswith("growth")] == [
        f"growth {n:,} deals" for n in bench.cases.GROWTH_SIZES
    ]
    (process,) = [n for n in names if n.startswith("scopa-sim")]  # one job, both commands
    for n, w, cores in bench.cases.PROCESS_RUNS:
        assert f"--deals {n:,} --workers {w}{' on one core' if cores == 1 else ''}" in process
    searches = [f"{c.name} ({c.deals:,} deals)" for c in bench.search.SEARCH_CASES]
    assert [n for n in names if n.startswith("search ")] == searches
    assert len(names) == 1 + len(cases) + len(bench.cases.GROWTH_SIZES) + 1 + len(searches)
    for what, make in full:  # the runner rows play chunks of the full size
        if "runner" in what:
            assert make.args[0].chunk == bench.cases.RUNNER_CHUNK, what
    assert 0 < len(quick) < len(names)
    assert {what.split(" (")[0] for what, _ in quick if "(" in what} <= {
        what.split(" (")[0] for what in names
    }
    left_out = {c.name for c in bench.cases.CASES if not c.quick}
    assert left_out and left_out.isdisjoint(what.split(" (")[0] for what, _ in quick)


@pytest.mark.xdist_group("bench")
def test_only_runs_the_named_groups_and_rejects_unknown_ones(capsys):
    rows = bench.run.main(["--quick", "--runs", "1", "--only", "native"])
    assert [row["group"] for row in rows] == ["native"]
    with pytest.raises(SystemExit):
        bench.run.main(["--only", "engine,nonsense"])
    err = capsys.readouterr().err
    assert "unknown group nonsense" in err and "instructions" in err  # named among the groups


def test_instructions_are_opt_in_and_one_row_a_lineup():
    """The valgrind group runs only when ``--only`` names it."""
    assert "instructions" not in bench.cases.GROUPS
    every = [what for what, _ in bench.run.jobs(set(bench.cases.GROUPS), False, 8192, 3)]
    assert not [what for what in every if what.startswith("instructions")]
    named = list(bench.run.jobs({"instructions"}, False, 8192, 3))
    lineups = bench.instructions.LINEUPS
    assert [make.args[1] for _, make in named] == list(lineups)
    assert {make.args[2] for _, make in named} == {bench.instructions.DEALS}
    quick = list(bench.run.jobs({"instructions"}, True, 8192, 1))
    assert {make.args[2] for _, make in quick} == {bench.instructions.DEALS // bench.cases.QUICK}


def test_instructions_a_deal_are_the_busy_count_less_the_idle_one_over_the_deals(monkeypatch):
    """The row's arithmetic and the processes it counts, on a stand-in for valgrind: the kernels
    compiled natively first, for valgrind's CPU; then the idle and the busy process counted, with
    that CPU and one thread in every pool."""
    ran = []

    def run(command, env):
        ran.append((command, env))
        deals = int(command[-1])
        refs = 2_089_438_678 + 16_321 * deals if command[0] == "valgrind" else 0
        err = f"==1== Collected : {refs}\n==1==\n==1== I   refs:      {refs:,}\n"
        return subprocess.CompletedProcess(command, 0, "", err)

    monkeypatch.setattr(bench.instructions, "_run", run)
    monkeypatch.setattr(bench.instructions, "valgrind_cpu", lambda: ("haswell", "+avx2,+popcnt"))
    monkeypatch.setattr(bench.instructions.shutil, "which", lambda name: f"/usr/bin/{name}")
    row = bench.instructions.instructions_row("classic", ("greedy", "greedy"), 1_000)
    assert row["instructions_per_deal"] == 16_321 and row["cpu"] == "haswell"
    assert row["name"] == "instructions greedy vs greedy" and row["deals"] == 1_000
    (warm, _), (idle, _), (busy, env) = ran
    assert warm[0] == sys.executable and warm[-1] == "0"  # natively, nothing counted
    assert idle[: len(bench.instructions.COUNT)] == list(bench.instructions.COUNT)
    assert idle[-1] == "0" and busy[-1] == "1000" and busy[-2] == "greedy,greedy"
    assert env["NUMBA_CPU_NAME"] == "haswell" and env["NUMBA_CPU_FEATURES"] == "+avx2,+popcnt"
    assert all(env[name] == value for name, value in bench.instructions.SINGLE_THREADED.items())


def test_instructions_without_valgrind_give_a_skipped_row_and_a_bad_count_an_error(monkeypatch):
    monkeypatch.setattr(bench.instructions.shutil, "which", lambda name: None)
    row = bench.instructions.instructions_row("classic", ("random", "random"), 10)
    assert row["group"] == "instructions" and "valgrind is not installed" in row["skipped"]
    with pytest.raises(RuntimeError, match="no instruction count"):
        bench.instructions.count_instructions(subprocess.CompletedProcess([], 0, "", "==1== oops"))


def test_the_counted_process_plays_its_deals(monkeypatch):
    played = []
    monkeypatch.setattr(api, "play_deals", lambda *a, **k: played.append(k["deals"]))
    bench.instructions.play("classic", ["greedy", "greedy"], 0)
    bench.instructions.play("classic", ["greedy", "greedy"], 500)
    warm = bench.instructions.WARM_UP
    assert played == [warm, warm, 500]  # the idle process is the busy one without its deals


@pytest.mark.xdist_group("bench")
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_native_yardstick_agrees_with_the_engine(tmp_path):
    """Mean points per deal (both sides), random vs random: C and Python agree within 4
    standard errors of the difference (different random numbers, the same game)."""
    binary = tmp_path / "native_scopa"
    source = str(bench.native.NATIVE_SOURCE)
    subprocess.run(
        ["cc", *bench.native.NATIVE_FLAGS, "-o", str(binary), source, "-lm"],
        check=True, timeout=120,
    )  # fmt: skip
    deals = 200_000
    native = bench.native.run_native(binary, deals, seed=7)
    assert native["deals"] == deals and native["deals_per_s"] > 0
    points = api.play_deals("classic", ["random", "random"], deals=deals, seed=7).totals.sum(1)
    se = math.hypot(native["points_sd"], points.std(ddof=1)) / math.sqrt(deals)
    assert abs(native["points_per_deal"] - points.mean()) < 4 * se
    # Throw-ins: 29/18278 of deal attempts (docs/rules.md §2), within 5 standard deviations.
    p = 29 / 18278
    expected = deals * p / (1 - p)  # redeals before `deals` deals that were played
    assert abs(native["throw_ins"] - expected) < 5 * math.sqrt(expected)
    # Same seed, same deals: the checksum is reproducible; another seed changes it.
    checksum = {
        seed: bench.native.run_native(binary, 1000, seed=seed)["checksum"] for seed in (7, 8)
    }
    assert bench.native.run_native(binary, 1000, seed=7)["checksum"] == checksum[7] != checksum[8]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_a_timed_command_runs_on_the_cpus_it_is_given(tmp_path):
    """The one-core process row is the command confined to one CPU: what it starts inherits it."""
    log = tmp_path / "log.txt"
    show = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
    cpu = max(os.sched_getaffinity(0))
    assert bench.timing.timed_command(show, log, {cpu})["status"] == 0
    assert log.read_text().strip() == f"[{cpu}]"
    bench.timing.timed_command(show, log)
    assert log.read_text().strip() == str(sorted(os.sched_getaffinity(0)))


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_the_native_program_is_built_aside_then_moved_into_place(tmp_path, monkeypatch):
    """Another process may be running build/native_scopa while this one builds it (two test
    workers, a bench and a test): the compiler writes another file, moved into place whole."""
    target = tmp_path / "build" / "native_scopa"
    monkeypatch.setattr(bench.native, "NATIVE_BINARY", target)
    seen, real = [], subprocess.run

    def run(command, **kwargs):
        seen.append((Path(command[command.index("-o") + 1]), target.exists()))
        return real(command, **kwargs)

    monkeypatch.setattr(bench.native.subprocess, "run", run)
    assert bench.native.native_binary() == target and os.access(target, os.X_OK)
    ((written, existed),) = seen
    assert written != target and written.parent == target.parent
    assert not existed and not written.exists()
