"""Run folders that are whole and cannot be damaged or misread (issues 23 and 25).

* the manifest is inside the folder, written atomically: ``rm -r DIR`` leaves nothing behind,
  and the same command then plays into DIR again;
* folders of layout 1 (manifest beside) are read, refused for writing with the command that
  converts them, and ``scopa-sim migrate`` converts them to a folder that resumes;
* every chunk's rows, bytes and sha256 are recorded; a truncated or damaged chunk is named by
  readers and replayed by a rerun; a stray chunk is refused;
* a folder of another command (a tournament into a simulate run and back) is refused with one
  line naming what is there, and left untouched;
* a lock refuses a second writer, a stale lock (dead pid) is taken over;
* the workers of a command killed with SIGKILL exit at once;
* ``replay --run`` says when the replayed deal is not the recorded one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from scopa_sim import api, integrity, runner, storage
from scopa_sim.runner import RunConfig, RunError
from scopa_sim.runner.lock import writer_lock
from scopa_sim.storage import StorageError
from tests.support.cli import scopa_sim

PYTHON = sys.executable


def make(out, *, count=900, chunk_size=300, seed=3, players="greedy,random", **kw) -> RunConfig:
    return RunConfig.create(
        variant="classic", players=players, mode="games", count=count, seed=seed, out=out,
        chunk_size=chunk_size, name="r", **kw,
    )  # fmt: skip


def data(folder) -> pl.DataFrame:
    return runner.scan(folder).sort("game", "deal", "side").collect()


def manifest(folder) -> dict:
    return json.loads((Path(folder) / "manifest.json").read_text())


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` with its bytes and time."""
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def simulate_args(out, *, games=900, chunk=300, seed=3, players="greedy,random", extra=()):
    return [
        "simulate", "--variant", "classic", "--players", players, "--games", str(games),
        "--seed", str(seed), "--chunk-size", str(chunk), "--out", str(out), "--name", "r",
        "--no-progress", *extra,
    ]  # fmt: skip


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scopa-sim: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """A complete run (3 chunks of 300 games) that tests copy and damage."""
    out = tmp_path_factory.mktemp("reference") / "run"
    runner.run(make(out), progress=False)
    return out


def copy_of(reference: Path, tmp_path: Path, name: str = "run") -> Path:
    target = tmp_path / name
    shutil.copytree(reference, target)
    return target


# the manifest inside ----------------------------------------------------------------------------


def test_the_manifest_is_inside_and_rm_r_leaves_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    status, _, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # nothing beside the folder
    names = sorted(p.name for p in out.iterdir())
    assert names == ["chunk-000000.parquet", "chunk-000001.parquet", "chunk-000002.parquet",
                     "manifest.json"]  # fmt: skip
    meta = manifest(out)
    assert (meta["layout"], meta["kind"], meta["complete"]) == (storage.LAYOUT, "simulate", True)
    first = data(out)
    shutil.rmtree(out)
    assert list(tmp_path.iterdir()) == []
    status, _, err = scopa_sim(capsys, *simulate_args(out))  # not "holds another run"
    assert status == 0, err
    assert_frame_equal(data(out), first)


def test_the_manifest_records_each_chunk(reference):
    meta = manifest(reference)
    assert sorted(meta["chunk_files"]) == ["0", "1", "2"] and meta["chunks_done"] == [0, 1, 2]
    for chunk, record in meta["chunk_files"].items():
        path = storage.chunk_path(reference, int(chunk))
        assert record["bytes"] == path.stat().st_size
        assert record["sha256"] == storage.file_digest(path)
        assert record["rows"] == pl.read_parquet(path).height
    assert sum(r["rows"] for r in meta["chunk_files"].values()) == data(reference).height


def test_a_manifest_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    """A write that fails before its rename leaves the old manifest as it was."""
    folder = tmp_path / "m"
    folder.mkdir()
    storage.write_manifest(folder, {"a": 1})
    before = (folder / "manifest.json").read_text()

    def failing(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="No space"):
        storage.write_manifest(folder, {"a": 2})
    assert (folder / "manifest.json").read_text() == before


# layout 1 ---------------------------------------------------------------------------------------


def make_legacy(folder: Path) -> None:
    """Turn a run folder into one of layout 1: the manifest beside it, no chunk records."""
    meta = manifest(folder)
    for key in ("layout", "kind", "chunk_files"):
        meta.pop(key)
    (folder / "manifest.json").unlink()
    storage.legacy_manifest_path(folder).write_text(json.dumps(meta, indent=2, sort_keys=True))


def test_a_folder_of_layout_1_is_read_refused_for_writing_and_migrated(reference, tmp_path, capsys):
    old = copy_of(reference, tmp_path)
    make_legacy(old)
    assert_frame_equal(data(old), data(reference))  # read as it is
    assert api.replay_run_deal(old, 5, 0).pack == api.replay_run_deal(reference, 5, 0).pack

    (old / "chunk-000002.parquet").unlink()  # an interrupted run of layout 1
    before = snapshot(tmp_path)
    status, out, err = scopa_sim(capsys, *simulate_args(old))
    assert status == 2 and out == ""
    assert f"convert it with `scopa-sim migrate {old}` and rerun" in one_error_line(err)
    assert snapshot(tmp_path) == before

    status, out, err = scopa_sim(capsys, *["migrate", old])
    assert status == 0, err
    assert out.strip() == f"converted {old} (2 chunks recorded)"
    assert not storage.legacy_manifest_path(old).exists()
    meta = manifest(old)
    assert (meta["layout"], meta["kind"], meta["chunks_done"], meta["complete"]) == (
        storage.LAYOUT, "simulate", [0, 1], False
    )  # fmt: skip
    status, out, err = scopa_sim(capsys, *simulate_args(old))  # resumes
    assert status == 0, err
    assert "1 chunks played, 2 already done" in out
    assert_frame_equal(data(old), data(reference))
    assert manifest(old)["chunk_files"] == manifest(reference)["chunk_files"]  # same bytes

    status, out, err = scopa_sim(capsys, *["migrate", old])
    assert status == 0 and "already in the current layout" in out


def test_migrate_converts_a_folder_of_runs_and_refuses_one_without(reference, tmp_path, capsys):
    root = tmp_path / "data"
    for name in ("a", "b"):
        make_legacy(copy_of(reference, root, name))
    (root / "interventions").mkdir()  # a cache beside the runs, with a manifest of its own
    (root / "interventions" / "x.manifest.json").write_text('{"name": "x"}')
    status, out, err = scopa_sim(capsys, *["migrate", root])
    assert status == 0, err
    assert out.splitlines() == [f"converted {root / n} (3 chunks recorded)" for n in ("a", "b")]
    assert (root / "interventions" / "x.manifest.json").exists()
    for name in ("a", "b"):
        assert_frame_equal(data(root / name), data(reference))
    empty = tmp_path / "empty"
    empty.mkdir()
    status, out, err = scopa_sim(capsys, *["migrate", empty])
    assert status == 2 and "holds no scopa-sim run of the older layout" in one_error_line(err)


# damaged, truncated and stray chunks -------------------------------------------------------------


def test_a_truncated_chunk_is_named_by_readers_and_replayed_by_a_rerun(reference, tmp_path, capsys):
    out = copy_of(reference, tmp_path)
    path = out / "chunk-000001.parquet"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(StorageError, match=r"chunk-000001\.parquet has [\d,]+ bytes where"):
        runner.scan(out)
    with pytest.raises(StorageError, match=r"chunk-000001\.parquet"):
        api.replay_run_deal(out, 0, 0)
    status, stdout, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 0, err
    assert "1 chunks played, 2 already done" in stdout
    assert_frame_equal(data(out), data(reference))


def test_a_chunk_with_flipped_bytes_is_named_and_replayed(reference, tmp_path, capsys):
    out = copy_of(reference, tmp_path)
    path = out / "chunk-000002.parquet"
    raw = bytearray(path.read_bytes())
    middle = len(raw) // 2
    for k in range(middle, middle + 200):  # 200 bytes flipped inside the data pages
        raw[k] ^= 0xFF
    path.write_bytes(bytes(raw))
    assert path.stat().st_size == manifest(out)["chunk_files"]["2"]["bytes"]  # size unchanged
    with pytest.raises(StorageError, match=r"chunk-000002\.parquet has other bytes .*sha256"):
        runner.scan(out).collect()
    status, _, err = scopa_sim(capsys, *["replay", "--run", out, "--game", "1", "--deal", "0"])
    assert status == 2 and "chunk-000002.parquet" in one_error_line(err)
    status, stdout, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 0, err
    assert "1 chunks played, 2 already done" in stdout
    assert_frame_equal(data(out), data(reference))


def test_a_stray_chunk_is_refused_by_readers_and_writers(reference, tmp_path, capsys):
    out = copy_of(reference, tmp_path)
    shutil.copy(out / "chunk-000000.parquet", out / "chunk-000099.parquet")
    with pytest.raises(StorageError, match=r"not part of its run \(chunk-000099\.parquet\)"):
        runner.scan(out)
    before = snapshot(out)
    status, _, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 2 and "chunk-000099.parquet" in one_error_line(err)
    assert snapshot(out) == before
    (out / "chunk-000099.parquet").unlink()
    assert_frame_equal(data(out), data(reference))  # rows of the run, each once


# another command's folder ----------------------------------------------------------------------


def tournament_args(out, players="random,greedy"):
    return ["tournament", "--variant", "classic", "--players", players, "--deals", "300",
            "--seed", "1", "--out", out]  # fmt: skip


def test_tournament_into_a_simulate_folder_is_refused_and_back(reference, tmp_path, capsys):
    run = copy_of(reference, tmp_path)
    before = snapshot(tmp_path)
    status, out, err = scopa_sim(capsys, *tournament_args(run))
    assert status == 2 and out == ""
    line = one_error_line(err)
    assert f"{run} holds a simulate run (" in line and "seed 3" in line
    assert snapshot(tmp_path) == before
    assert_frame_equal(data(run), data(reference))  # still readable

    tour = tmp_path / "tour"
    status, _, err = scopa_sim(capsys, *tournament_args(tour))
    assert status == 0, err
    assert manifest(tour)["kind"] == "tournament"
    pairing = tour / "random-vs-greedy"
    assert manifest(pairing)["kind"] == "tournament-pairing"
    before = snapshot(tmp_path)
    for target, what in ((tour, "holds a tournament"), (pairing, "holds a run of a tournament")):
        status, _, err = scopa_sim(capsys, *simulate_args(target))
        assert status == 2 and f"{target} {what}" in one_error_line(err)
    with pytest.raises(StorageError, match="holds a tournament, not one run"):
        runner.scan(tour)
    assert snapshot(tmp_path) == before
    status, _, err = scopa_sim(capsys, *tournament_args(tour))  # the same tournament: complete
    assert status == 0, err


def test_a_folder_of_other_files_is_refused_by_a_tournament(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    status, _, err = scopa_sim(capsys, *tournament_args(folder))
    assert status == 2 and "notes.txt" in one_error_line(err)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_interventions_refuse_a_run_folder(reference, tmp_path):
    from scopa_sim import interventions as iv
    from scopa_sim.players import player
    from scopa_sim.rules import variant

    run = copy_of(reference, tmp_path)
    before = snapshot(run)
    with pytest.raises(StorageError, match="holds a simulate run"):
        iv.cached_dealt_values(
            run, "x", variant("classic"), [player("greedy")] * 2, ["greedy", "greedy"], 1,
            range(4), cards=[6],
        )  # fmt: skip
    assert snapshot(run) == before


# the lock -------------------------------------------------------------------------------------


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(reference, tmp_path, capsys):
    out = copy_of(reference, tmp_path)
    (out / "chunk-000001.parquet").unlink()
    with writer_lock(out):
        before = snapshot(out)
        status, _, err = scopa_sim(capsys, *simulate_args(out))
        assert status == 2
        assert f"{out} is being written by another scopa-sim (process {os.getpid()}" in (
            one_error_line(err)
        )
        assert snapshot(out) == before
    assert not (out / ".lock").exists()  # released
    status, _, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 0, err
    assert_frame_equal(data(out), data(reference))


def test_a_stale_lock_of_a_dead_process_is_taken_over(reference, tmp_path, capsys):
    out = copy_of(reference, tmp_path)
    (out / "chunk-000000.parquet").unlink()
    dead = subprocess.Popen([PYTHON, "-c", "pass"])
    dead.wait()
    import socket

    (out / ".lock").write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname()}))
    status, _, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 0, err
    assert not (out / ".lock").exists()
    assert_frame_equal(data(out), data(reference))


def test_two_simulate_commands_at_once(tmp_path):
    """Two processes on one folder: the second is refused with one line (exit 2) while the
    first plays; the first, stopped with Ctrl-C, releases the lock, and the folder resumes."""
    out = tmp_path / "run"
    args = simulate_args(out, games=2_000_000, chunk=5_000, players="greedy,greedy")
    first = subprocess.Popen([PYTHON, "-m", "scopa_sim", *args], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "manifest.json").exists():
            assert first.poll() is None, first.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        second = subprocess.run(
            [PYTHON, "-m", "scopa_sim", *args], capture_output=True, text=True, timeout=120
        )
        assert first.poll() is None, "the first run ended before the second started"
        assert second.returncode == 2, second.stderr
        assert "is being written by another scopa-sim (process" in one_error_line(second.stderr)
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=60) == 130, first.stderr.read()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert manifest(out)["complete"] is False
    assert not (out / ".lock").exists()  # released on Ctrl-C: the same command resumes


# workers die with their parent -----------------------------------------------------------------


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


LOKY_RUN = """
import sys
from scopa_sim import runner
config = runner.RunConfig.create(variant="classic", players="greedy,greedy", mode="games",
    count=400_000, seed=1, out=sys.argv[1], chunk_size=2_000)
runner.run(config, workers=2, progress=False)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("pool", ["forked", "loky", "compare"])
def test_workers_exit_when_their_parent_is_killed(tmp_path, pool):
    """SIGKILL of a run with two workers: its worker processes (forked by simulate, or loky's;
    compare's joblib workers) are gone within seconds, not after their chunk or an idle
    timeout."""
    out = tmp_path / "run"
    if pool == "compare":  # plays only in its workers, writes nothing: wait for them to work
        command = [PYTHON, "-m", "scopa_sim", "compare", "classic", "classic:forced_capture=true",
                   "--players", "greedy,greedy", "--deals", "4000000", "--seed", "1",
                   "--workers", "2"]  # fmt: skip
        out.mkdir()
        (out / "chunk-000000.parquet").touch()  # nothing to wait for but its workers
    elif pool == "forked":
        command = [PYTHON, "-m", "scopa_sim", *simulate_args(
            out, games=400_000, chunk=2_000, players="greedy,greedy", extra=("--workers", "2")
        )]  # fmt: skip
    else:
        command = [PYTHON, "-c", LOKY_RUN, str(out)]
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        workers: set[int] = set()
        while not any(out.glob("chunk-*.parquet")) or not workers:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "no chunk and worker within 90 s"
            workers = {p for p in descendants(proc.pid) if alive(p)}
            time.sleep(0.02)
        if pool == "compare":  # until two workers have booted and play (a second of CPU each)
            while len([p for p in workers if cpu_seconds(p) > 1.0]) < 2:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "two working workers within 90 s"
                workers = {p for p in descendants(proc.pid) if alive(p)}
                time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while (left := {p for p in workers if alive(p)}) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"workers {left} outlived their parent by 10 s"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in descendants(os.getpid()) - {os.getpid()}:
            if pid in workers:
                os.kill(pid, signal.SIGKILL)


# replay --run ----------------------------------------------------------------------------------


FICKLE = """
from dataclasses import dataclass

import numpy as np

from scopa_sim.players import Player

FLIP = False  # what a player that is not deterministic depends on: not its inputs


@dataclass(frozen=True)
class Fickle(Player):
    name = "fickle"
    summary = "plays its first legal action, or its last when FLIP is set"

    def act(self, obs, legal, rng):
        if FLIP:
            return (np.asarray(legal.count) - 1).astype(np.int64)
        return np.zeros(len(obs.hand), np.int64)
"""


def test_replay_of_a_run_warns_when_the_deal_is_not_the_recorded_one(tmp_path, capsys, monkeypatch):
    (tmp_path / "fickle_player.py").write_text(textwrap.dedent(FICKLE))
    monkeypatch.syspath_prepend(str(tmp_path))
    import fickle_player

    out = tmp_path / "run"
    status, _, err = scopa_sim(
        capsys, *simulate_args(out, games=20, chunk=20, players="fickle_player:Fickle,greedy")
    )
    assert status == 0, err
    replay = ["replay", "--run", out, "--game", "0", "--deal", "0"]
    status, shown, err = scopa_sim(capsys, *replay)
    assert status == 0 and err == "" and "seat 0" in shown  # as recorded: no warning

    monkeypatch.setattr(fickle_player, "FLIP", True)
    status, shown, err = scopa_sim(capsys, *replay)
    assert status == 0 and "seat 0" in shown
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scopa-sim: warning: the replay of game 0, ")
    assert "differs from what" in lines[0] and "not deterministic" in lines[0]


def test_a_run_reads_fast_after_its_first_check(reference):
    """A report reads one run many times: the checksums are verified once per process while
    the files are unchanged (size and time), and sizes are checked every time."""
    runner.scan(reference)
    started = time.perf_counter()
    for _ in range(50):
        runner.scan(reference)
    assert time.perf_counter() - started < 5
    path = reference / "chunk-000000.parquet"
    stat = path.stat()
    assert (str(path), stat.st_size, stat.st_mtime_ns) in integrity._VERIFIED


def test_refuses_the_same_fault_through_the_runner_api(reference, tmp_path):
    """runner.run on a folder of another kind raises RunError naming it (no CLI)."""
    tour = tmp_path / "t"
    runner.folder.write_container(tour, "tournament", {}, [])
    with pytest.raises(RunError, match="holds a tournament, written by another command"):
        runner.run(make(tour), progress=False)
    assert not threading.active_count() > 50


def test_a_chunk_in_place_but_not_recorded_is_kept_only_if_whole(reference, tmp_path, capsys):
    """A run killed between a chunk's rename and its record: the rerun keeps that chunk when it
    reads whole as that chunk of the run, and plays a file that does not (another chunk's rows
    under its name)."""
    out = copy_of(reference, tmp_path)
    meta = manifest(out)
    del meta["chunk_files"]["1"], meta["chunk_files"]["2"]
    meta["chunks_done"], meta["complete"] = [0], False
    storage.write_manifest(out, meta)
    shutil.copy(out / "chunk-000000.parquet", out / "chunk-000002.parquet")  # not chunk 2's rows
    kept = (out / "chunk-000001.parquet").stat().st_mtime_ns
    status, stdout, err = scopa_sim(capsys, *simulate_args(out))
    assert status == 0, err
    assert "1 chunks played, 2 already done" in stdout
    assert (out / "chunk-000001.parquet").stat().st_mtime_ns == kept
    assert_frame_equal(data(out), data(reference))
    assert manifest(out)["chunk_files"] == manifest(reference)["chunk_files"]


def test_a_tournament_folder_of_layout_1_is_refused_then_migrated(tmp_path, capsys):
    tour = tmp_path / "tour"
    status, _, err = scopa_sim(capsys, *tournament_args(tour))
    assert status == 0, err
    (tour / "manifest.json").unlink()
    for pairing in ("random-vs-greedy", "greedy-vs-random"):
        make_legacy(tour / pairing)
    before = snapshot(tmp_path)
    status, _, err = scopa_sim(capsys, *tournament_args(tour))
    assert status == 2
    assert f"convert it with `scopa-sim migrate {tour}`" in one_error_line(err)
    assert snapshot(tmp_path) == before
    status, out, err = scopa_sim(capsys, *["migrate", tour])
    assert status == 0, err
    assert out.splitlines()[-1] == f"converted {tour} (a tournament)"
    assert manifest(tour / "random-vs-greedy")["kind"] == "tournament-pairing"
    chunks = {p: p.stat().st_mtime_ns for p in tour.rglob("chunk-*.parquet")}
    status, _, err = scopa_sim(capsys, *tournament_args(tour))
    assert status == 0, err
    assert {p: p.stat().st_mtime_ns for p in tour.rglob("chunk-*.parquet")} == chunks  # resumed


def test_a_page_is_not_written_into_a_run_folder(reference, tmp_path, capsys):
    """--html FILE (and tune's --out FILE) inside a run folder would be a stray file there."""
    run = copy_of(reference, tmp_path)
    before = snapshot(run)
    page = run / "deal.html"
    status, out, err = scopa_sim(capsys, *["replay", "--run", run, "--game", "0", "--html", page])
    assert status == 2 and out == ""
    assert f"cannot write {page}: {run} is a run folder" in one_error_line(err)
    assert snapshot(run) == before
