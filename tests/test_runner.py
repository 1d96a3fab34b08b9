"""The runner: seeded, chunked, resumable runs whose data do not depend on how they were run.

* the same data for any number of workers, chunk size and batch size, in games and deals mode;
* common random numbers: runs that differ only in players or options see the same packs;
* a run killed with SIGKILL resumes where it stopped and ends with the uninterrupted run's data;
  Ctrl-C or an error stops a run with two workers (this process and a loky one) at once;
  one worker writes each chunk while the next plays, and stops on a write error;
  a worker forked for a command plays the same data and stops with it;
* a run folder of another configuration or data version is refused; rerunning a complete run
  does nothing;
* the Parquet schema and its size on disk;
* the same run on a Dask ``LocalCluster`` (``--backend dask``) gives the local run's data.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from scopa_sim import api, cli, runner, seeding, storage
from scopa_sim.runner import RunConfig, RunError
from scopa_sim.storage import StorageError

PYTHON = sys.executable
KINGS = {9, 19, 29, 39}

#: A classic games run of 40,000 games (two chunks of 20,000): the schema/size test and the
#: kill-and-resume reference.
BIG = dict(variant="classic", players="greedy,greedy", mode="games", count=40_000, seed=11)
#: The killed run writes chunks this small, so that it runs for a few seconds after its first.
KILL_CHUNK = 800
KILL_CHUNKS = BIG["count"] // KILL_CHUNK


def data(folder) -> pl.DataFrame:
    return runner.scan(Path(folder)).sort("game", "deal", "side").collect()


def manifest(folder) -> dict:
    return json.loads(storage.manifest_path(Path(folder)).read_text())


def make(out, *, name="same", chunk_size=None, **kwargs) -> RunConfig:
    settings = dict(variant="classic", players="greedy,random", mode="games", count=3000, seed=7)
    settings.update(kwargs)
    return RunConfig.create(out=out, name=name, chunk_size=chunk_size, **settings)


def simulate_command(out, *, games, seed, chunk_size, name, players="greedy,greedy", extra=()):
    return [
        PYTHON, "-m", "scopa_sim", "simulate", "--variant", "classic", "--players", players,
        "--games", str(games), "--seed", str(seed), "--chunk-size", str(chunk_size),
        "--out", str(out), "--name", name, "--no-progress", *extra,
    ]  # fmt: skip


def rerun_here(capsys, command: list[str], *, workers: int) -> str:
    """The same command again, in this process (whose kernels are loaded), with ``workers``:
    its stdout. (This process's loky worker would outlive the test, so one worker here.)"""
    args = command[3:]  # without PYTHON -m scopa_sim
    k = args.index("--workers")
    status = cli.main([*args[:k], "--workers", str(workers), *args[k + 2 :]])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def assert_whole_run(df: pl.DataFrame, config: RunConfig) -> None:
    """Every game (or deal) of the run, each (game, deal, side) exactly once."""
    keys = df.select("game", "deal", "side")
    assert not keys.is_duplicated().any(), "a (game, deal, side) appears twice"
    assert sorted(df["game"].unique().to_list()) == list(range(config.count))
    sides = config.rules().n_sides
    per_deal = df.group_by("game", "deal").agg(pl.col("side").sort())
    assert per_deal["side"].to_list() == [list(range(sides))] * per_deal.height
    if config.mode == "deals":
        assert (df["deal"] == 0).all()


@pytest.fixture(scope="module")
def big_run(tmp_path_factory) -> Path:
    """40,000 classic games in two chunks, played in this process."""
    out = tmp_path_factory.mktemp("big") / "big"
    config = RunConfig.create(out=out, name="big", **BIG)
    summary = runner.run(config, workers=1, progress=False)
    assert summary.chunks_run == config.n_chunks == 2
    return out


# (a) the same data whatever the workers, chunk size and batch size ----------------------------


@pytest.mark.parametrize(
    ("mode", "variant", "players", "count"),
    [
        ("games", "classic", "greedy,random", 3000),
        ("deals", "classic", "random,greedy", 6000),
        ("deals", "classic-4p", "random,greedy", 2000),
    ],
)
def test_same_data_for_any_workers_chunks_and_batches(tmp_path, mode, variant, players, count):
    setups = [
        dict(workers=1, chunk_size=1000, batch_size=4096),
        dict(workers=2, chunk_size=700, batch_size=256),
        dict(workers=1, chunk_size=count, batch_size=333),
        dict(workers=1, chunk_size=900, batch_size=1024, backend="loky"),  # the default, named
    ]
    frames = []
    for i, setup in enumerate(setups):
        config = make(
            tmp_path / f"run{i}", chunk_size=setup["chunk_size"], mode=mode, variant=variant,
            players=players, count=count,
        )  # fmt: skip
        summary = runner.run(
            config, workers=setup["workers"], batch_size=setup["batch_size"],
            backend=setup.get("backend"), progress=False,
        )  # fmt: skip
        assert summary.chunks_run == config.n_chunks
        assert summary.chunks_skipped == 0
        assert manifest(config.out)["complete"] is True
        assert len(list(config.out.glob("chunk-*.parquet"))) == config.n_chunks
        frames.append(data(config.out))
    assert_whole_run(frames[0], make(tmp_path / "x", mode=mode, variant=variant, count=count))
    for frame in frames[1:]:
        assert_frame_equal(frame, frames[0])


# (b) common random numbers --------------------------------------------------------------------


def _table_kings(pack) -> int:
    return len(KINGS.intersection(pack[:4]))


def test_common_random_numbers_across_players_and_options(tmp_path):
    runs = {
        "greedy": make(tmp_path / "greedy", players="greedy,greedy", seed=99),
        "random": make(tmp_path / "random", players="random,greedy", seed=99),
        "options": make(
            tmp_path / "options",
            players="greedy,greedy",
            seed=99,
            options={"target": 21, "forced_capture": True, "napola": "sequence"},
        ),
    }
    frames = {}
    for key, config in runs.items():
        runner.run(config, progress=False)
        frames[key] = data(config.out).filter(pl.col("side") == 0).select("game", "deal", "redeals")

    base = frames["greedy"]
    redealt = base.filter(pl.col("redeals") > 0)
    assert redealt.height > 0, "no redeal in the run: make it longer"
    rng = np.random.default_rng(0)
    for other in ("random", "options"):
        both = base.join(frames[other], on=["game", "deal"], suffix="_other")
        assert both.height > base.height // 2, "the two runs share too few deals"
        assert (both["redeals"] == both["redeals_other"]).all(), f"redeals differ ({other})"
        shared_redeals = both.filter(pl.col("redeals") > 0).select("game", "deal")
        sample = pl.concat(
            [
                both.select("game", "deal")[rng.choice(both.height, 8, replace=False)],
                shared_redeals[:3],
            ]
        )
        for game, deal in sample.rows():
            mine = api.replay_run_deal(runs["greedy"].out, game, deal)
            theirs = api.replay_run_deal(runs[other].out, game, deal)
            assert mine.pack == theirs.pack, f"game {game} deal {deal}: packs differ ({other})"
            assert _table_kings(mine.pack) < 3  # the pack played is never a throw-in

    # A redealt deal was played from a later attempt; attempt 0 was a throw-in.
    key = seeding.stream_key(99, seeding.PACKS)
    for game, deal, redeals in redealt.rows()[:3]:
        played = api.replay_run_deal(runs["greedy"].out, game, deal).pack
        attempts = seeding.packs(
            key, np.full(redeals + 1, game), np.full(redeals + 1, deal), np.arange(redeals + 1), 40
        ).tolist()
        assert played == attempts[-1]
        assert all(_table_kings(p) >= 3 for p in attempts[:-1])

    # Deals mode: every deal is in both runs, with the same redeals.
    deal_runs = [
        make(tmp_path / f"deals-{p}", players=p, mode="deals", count=5000, seed=3)
        for p in ("greedy,greedy", "random,random")
    ]
    for config in deal_runs:
        runner.run(config, progress=False)
    a, b = (data(c.out) for c in deal_runs)
    assert a["redeals"].sum() > 0
    assert a.select("game", "deal", "side", "redeals").equals(
        b.select("game", "deal", "side", "redeals")
    )
    assert not a["captured"].equals(b["captured"])  # the players did play differently
    for game in (0, 1, 2, 4321):
        assert (
            api.replay_run_deal(deal_runs[0].out, game, 0).pack
            == api.replay_run_deal(deal_runs[1].out, game, 0).pack
        )


# (c) SIGKILL and resume -----------------------------------------------------------------------


def test_killed_run_resumes_to_the_uninterrupted_data(capsys, tmp_path, big_run):
    out = tmp_path / "killed"
    command = simulate_command(
        out, games=BIG["count"], seed=BIG["seed"], chunk_size=KILL_CHUNK, name="big",
        extra=("--workers", "1"),
    )  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(out.glob("chunk-*.parquet")):
            assert proc.poll() is None, (
                f"the run ended before writing a chunk: {proc.stderr.read()}"
            )
            assert time.monotonic() < deadline, "no chunk written within 60 s"
            time.sleep(0.005)
        assert proc.poll() is None, "the run finished before it could be killed: make it longer"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    killed = manifest(out)
    assert killed["complete"] is False
    assert killed["chunks_total"] == KILL_CHUNKS
    written = sorted(int(p.stem.split("-")[1]) for p in out.glob("chunk-*.parquet"))
    assert 1 <= len(written) < KILL_CHUNKS
    assert set(killed["chunks_done"]) <= set(written)  # the manifest never claims a missing chunk
    for path in out.glob("chunk-*.parquet"):  # a chunk in place is a whole chunk
        assert pl.read_parquet(path)["game"].n_unique() == KILL_CHUNK
    # Besides chunks, only the run's own files (manifest, a stale lock, scratch).
    assert all(p.name.startswith("chunk-") or storage.own_name(p.name) for p in out.iterdir())

    resumed = rerun_here(capsys, command, workers=1)
    assert f"{KILL_CHUNKS - len(written)} chunks played, {len(written)} already done" in resumed
    done = manifest(out)
    assert done["complete"] is True
    assert done["chunks_done"] == list(range(KILL_CHUNKS))
    assert not storage.partial_dir(out).exists()

    df = data(out)
    assert_whole_run(df, RunConfig.create(out=out, name="big", **BIG))
    assert_frame_equal(df, data(big_run))


def test_ctrl_c_with_two_workers_stops_at_once_and_resumes(capsys, tmp_path, big_run):
    """Ctrl-C on a run with two workers (this process plays chunks in a thread beside a loky
    worker) ends it within seconds with the usual message; the rerun completes the data."""
    out = tmp_path / "interrupted"
    command = simulate_command(
        out, games=BIG["count"], seed=BIG["seed"], chunk_size=KILL_CHUNK, name="big",
        extra=("--workers", "2"),
    )  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(out.glob("chunk-*.parquet")):
            assert proc.poll() is None, f"the run ended early: {proc.stderr.read()}"
            assert time.monotonic() < deadline, "no chunk written within 60 s"
            time.sleep(0.005)
        assert proc.poll() is None, "the run finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "interrupted; run the same command again to resume" in stderr
    assert manifest(out)["complete"] is False

    rerun_here(capsys, command, workers=1)
    assert manifest(out)["complete"] is True
    assert_frame_equal(data(out), data(big_run))


# (d) another configuration is refused; a complete run is not played again ----------------------


def _snapshot(out: Path) -> dict:
    """The chunk files (contents and times) and the manifest's contents."""
    files = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(out.iterdir())}
    return files | {"manifest": manifest(out)}


def test_refuses_another_configuration_and_does_not_replay_a_complete_run(tmp_path):
    out = tmp_path / "run"
    config = make(out, count=500, chunk_size=200, seed=1)
    first = runner.run(config, progress=False)
    assert (first.chunks_run, first.chunks_skipped) == (3, 0)
    before = _snapshot(out)

    # Workers and batch size are not part of the configuration: same run, nothing to do.
    for workers, batch_size in ((1, 8192), (2, 100)):
        again = runner.run(config, workers=workers, batch_size=batch_size, progress=False)
        assert (again.chunks_run, again.chunks_skipped, again.rows) == (0, 3, 0)
        assert _snapshot(out) == before

    changes = [
        dict(seed=2),
        dict(players="greedy,greedy"),
        dict(options={"target": 16}),
        dict(variant="classic-4p"),
        dict(count=600),
        dict(mode="deals"),
        dict(chunk_size=100),
        dict(name="other"),
    ]
    for change in changes:
        settings = {**dict(count=500, chunk_size=200, seed=1), **change}
        other = make(out, **settings)
        with pytest.raises(RunError, match="holds another run") as err:
            runner.run(other, progress=False)
        assert "--out" in str(err.value)
        assert _snapshot(out) == before, f"{change} touched the run folder"

    # Chunk files without a manifest, and stray files, are refused too.
    orphan = tmp_path / "orphan"
    orphan.mkdir()
    (orphan / "chunk-000000.parquet").write_bytes((out / "chunk-000000.parquet").read_bytes())
    with pytest.raises(RunError, match="no manifest"):
        runner.run(make(orphan, count=500, chunk_size=200, seed=1), progress=False)
    assert not storage.manifest_path(orphan).exists()

    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine\n")
    with pytest.raises(StorageError, match=r"notes\.txt"):
        runner.run(make(stray, count=500, chunk_size=200, seed=1), progress=False)
    assert not storage.manifest_path(stray).exists()
    assert [p.name for p in stray.iterdir()] == ["notes.txt"]


def _set_manifest(folder: Path, **changes) -> None:
    """Rewrite a manifest with keys changed (a value None deletes the key)."""
    meta = manifest(folder)
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    storage.manifest_path(folder).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def test_refuses_a_folder_of_another_data_version(capsys, tmp_path):
    """A folder written by another data version or pack stream (or before they were recorded)
    is refused before any work, with one line saying how to rebuild it; never completed."""
    out = tmp_path / "run"
    config = make(out, count=500, chunk_size=200, seed=1)
    runner.run(config, progress=False)
    meta = manifest(out)
    assert meta["data_version"] == storage.DATA_VERSION == 2
    assert meta["pack_stream"] == seeding.PACK_STREAM_VERSION == 2
    assert meta["schema_version"] == storage.SCHEMA_VERSION == 3
    (out / "chunk-000001.parquet").unlink()  # an incomplete run: a rerun would complete it
    here = f"this is {storage.DATA_VERSION}, {seeding.PACK_STREAM_VERSION}"
    cases = [
        (dict(data_version=1), f"an older scopa-sim (data version 1, pack stream 2; {here})"),
        (dict(pack_stream=1), f"an older scopa-sim (data version 2, pack stream 1; {here})"),
        (dict(data_version=3), f"a newer scopa-sim (data version 3, pack stream 2; {here})"),
        # Written before the versions were recorded: data version 1, pack stream 1.
        (
            dict(data_version=None, pack_stream=None),
            f"an older scopa-sim (data version 1, pack stream 1; {here})",
        ),
    ]
    for change, words in cases:
        _set_manifest(out, **change)
        before = _snapshot(out)
        for workers in (1, 2):
            with pytest.raises(StorageError) as err:
                runner.run(config, workers=workers, progress=False)
            message = str(err.value)
            assert message == (
                f"{out} was written by {words}; delete {out} to rebuild it, or choose another --out"
            )
            assert "\n" not in message
            assert _snapshot(out) == before, f"{change} touched the run folder"
            assert not (out / "chunk-000001.parquet").exists()
        _set_manifest(out, data_version=2, pack_stream=2)

    # The command line says the same in one line, and writes nothing. (A process's exit status
    # and stderr for a folder that holds another run: tests/test_cli.py.)
    _set_manifest(out, data_version=None, pack_stream=None)
    before = _snapshot(out)
    status = cli.main(
        ["simulate", "--variant", "classic", "--players", "greedy,random", "--games", "500",
         "--seed", "1", "--chunk-size", "200", "--out", str(out), "--name", "same",
         "--no-progress"]
    )  # fmt: skip
    stdout, stderr = capsys.readouterr()
    assert status == 2 and stdout == "", stderr
    assert stderr.splitlines() == [
        f"scopa-sim: error: {out} was written by an older scopa-sim (data version 1, pack "
        f"stream 1; {here}); delete {out} to rebuild it, or choose another --out"
    ]
    assert _snapshot(out) == before

    # With the versions of this scopa-sim, the same folder resumes.
    _set_manifest(out, data_version=2, pack_stream=2)
    summary = runner.run(config, progress=False)
    assert (summary.chunks_run, summary.chunks_skipped) == (1, 2)
    assert manifest(out)["complete"] is True
    fresh = make(tmp_path / "fresh", count=500, chunk_size=200, seed=1)
    runner.run(fresh, progress=False)
    assert_frame_equal(data(out), data(fresh.out))


def test_rerun_completes_only_missing_chunks(tmp_path):
    config = make(tmp_path / "run", count=900, chunk_size=200, seed=4)
    runner.run(config, progress=False)
    full = data(config.out)
    (config.out / "chunk-000002.parquet").unlink()
    kept = {p.name: p.stat().st_mtime_ns for p in config.out.glob("chunk-*.parquet")}
    summary = runner.run(config, workers=1, batch_size=64, progress=False)
    assert (summary.chunks_run, summary.chunks_skipped) == (1, 4)
    assert all(config.out.joinpath(n).stat().st_mtime_ns == t for n, t in kept.items())
    assert manifest(config.out)["complete"] is True
    assert_frame_equal(data(config.out), full)


def test_one_worker_writes_each_chunk_while_the_next_plays(tmp_path, monkeypatch):
    """With one worker, chunk k's file is written on another thread while chunk k + 1 plays
    (runner.chunks.chunks_in_turn): each write waits here until the next chunk has started playing,
    which a write in turn would never see. Results come in chunk order, with the data of a run
    that plays and writes in turn."""
    config = make(tmp_path / "run", count=800, chunk_size=200, seed=5)
    playing = {c: threading.Event() for c in range(config.n_chunks)}
    writers = []
    play, write = runner.play_outcomes, storage.write_chunk

    def play_outcomes(config, chunk, batch_size):
        playing[chunk].set()
        return play(config, chunk, batch_size)

    def write_chunk(frame, folder, chunk):
        writers.append(threading.current_thread().name)
        if chunk + 1 in playing:
            assert playing[chunk + 1].wait(30), f"chunk {chunk + 1} did not play during a write"
        return write(frame, folder, chunk)

    monkeypatch.setattr(runner.chunks, "play_outcomes", play_outcomes)
    monkeypatch.setattr(storage, "write_chunk", write_chunk)
    recorded = []
    monkeypatch.setattr(
        storage, "write_manifest", lambda out, m, w=storage.write_manifest: recorded.append(
            list(m["chunks_done"])) or w(out, m)
    )  # fmt: skip
    runner.run(config, workers=1, batch_size=128, progress=False)
    assert recorded == [[], [0], [0, 1], [0, 1, 2], [0, 1, 2, 3]]  # each once its file is in
    assert all(name.startswith("scopa-sim-writer") for name in writers) and len(writers) == 4
    monkeypatch.undo()
    in_turn = make(tmp_path / "in-turn", count=800, chunk_size=200, seed=5)
    monkeypatch.setattr(
        runner.chunks,
        "chunks_in_turn",
        lambda c, todo, b: (runner.play_chunk(c, k, b) for k in todo),
    )
    runner.run(in_turn, workers=1, batch_size=128, progress=False)
    assert_frame_equal(data(config.out), data(in_turn.out))


def test_one_worker_stops_on_a_write_error_and_resumes(tmp_path, monkeypatch):
    """A write that fails on the writer thread ends a one-worker run with its error once the
    chunks before it are recorded (the next chunk, played by then, is written whole before the
    run stops); the failed chunk has no file, and a rerun plays what is missing and completes the
    run with the data of an uninterrupted one."""
    config = make(tmp_path / "run", count=1000, chunk_size=200, seed=8)
    write = storage.write_chunk

    def failing(frame, folder, chunk):
        if chunk == 2:
            raise OSError(28, "No space left on device")
        return write(frame, folder, chunk)

    monkeypatch.setattr(storage, "write_chunk", failing)
    with pytest.raises(OSError, match="No space left"):
        runner.run(config, workers=1, progress=False)
    assert manifest(config.out)["chunks_done"] == [0, 1]
    assert storage.done_chunks(config.out) == {0, 1, 3}
    monkeypatch.undo()
    summary = runner.run(config, workers=1, progress=False)
    assert (summary.chunks_run, summary.chunks_skipped) == (2, 3)
    assert manifest(config.out)["complete"] is True
    whole = make(tmp_path / "whole", count=1000, chunk_size=200, seed=8)
    runner.run(whole, workers=1, progress=False)
    assert_frame_equal(data(config.out), data(whole.out))


def test_two_workers_stop_on_an_error_and_resume(tmp_path, monkeypatch):
    """With two workers this process plays chunks too, in a thread beside a loky worker: an
    error in a chunk ends the run with that error (no hang, no further chunk started), and a
    rerun completes the run with the data of an uninterrupted one."""
    config = make(tmp_path / "run", count=1800, chunk_size=200, seed=6)
    reference = make(tmp_path / "reference", count=1800, chunk_size=200, seed=6)
    runner.run(reference, progress=False)

    played_here = []

    def failing(config, chunk, batch_size):  # the loky worker gets this function too
        played_here.append(chunk)
        raise RuntimeError(f"chunk {chunk} failed")

    monkeypatch.setattr(runner.chunks, "play_chunk", failing)
    with pytest.raises(RuntimeError, match=r"chunk \d+ failed"):
        runner.run(config, workers=2, progress=False)
    assert played_here, "this process played no chunk"
    assert manifest(config.out)["complete"] is False
    assert not list(config.out.glob("chunk-*.parquet"))

    monkeypatch.undo()
    summary = runner.run(config, workers=2, batch_size=500, progress=False)
    assert (summary.chunks_run, summary.chunks_skipped) == (config.n_chunks, 0)
    assert manifest(config.out)["complete"] is True
    assert_frame_equal(data(config.out), data(reference.out))


#: Run in a fresh process (a fork needs a process without other threads; pytest's workers have
#: some): two workers, the second forked by runner.forked_workers, no loky worker allowed.
#: Every chunk leaves a file naming the process that played it.
FORKED_RUN = """
import os, sys
from pathlib import Path
from scopa_sim import runner

out = Path(sys.argv[1])
play_chunk = runner.play_chunk

def traced(config, chunk, batch_size):  # the forked worker has this module as it was
    (out / f"played-{chunk}-by-{os.getpid()}").touch()
    return play_chunk(config, chunk, batch_size)

def no_loky(workers):
    raise AssertionError("a loky worker was asked for")

runner.chunks.play_chunk, runner.pools.shared_executor = traced, no_loky
config = runner.RunConfig.create(
    out=out / "run", name="same", variant="classic", players="greedy,random", mode="games",
    count=3000, seed=7, chunk_size=250,
)
with runner.forked_workers(1) as forked:
    assert forked, runner.pools._own_threads()
    workers = list(runner.pools._forked[0]._processes.values())
    runner.run(config, workers=2, batch_size=256, progress=False)
assert runner.pools._forked is None
print(os.getpid(), *(w.pid for w in workers if not w.is_alive()))
"""


def test_forked_workers_play_the_same_data_and_are_stopped_after(tmp_path):
    """``forked_workers`` (what ``scopa-sim simulate`` uses on Linux) forks a worker that plays
    some of the chunks, gives the data of a one-worker run, and stops it when the block ends."""
    if not runner.FORKS:
        pytest.skip("workers are forked on Linux only")
    done = subprocess.run(
        [PYTHON, "-c", FORKED_RUN, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    main, *stopped = (int(pid) for pid in done.stdout.split())
    assert len(stopped) == 1, "the forked worker was still running after the block"
    players = {int(p.name.split("-by-")[1]) for p in tmp_path.glob("played-*")}
    assert players == {main, *stopped}, "both processes play chunks"
    assert len(list(tmp_path.glob("played-*"))) == 12  # each chunk once
    reference = make(tmp_path / "reference", count=3000, chunk_size=1000)
    runner.run(reference, progress=False)
    assert_frame_equal(data(tmp_path / "run"), data(reference.out))


def test_forked_workers_fork_nothing_while_another_thread_runs():
    """A fork copies only the calling thread; what another one holds would stay locked in the
    worker, so then the runner keeps to loky's workers."""
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        with runner.forked_workers(1) as forked:
            assert forked is False
            assert runner.pools._forked is None
    finally:
        release.set()
        other.join()


# (e) the schema --------------------------------------------------------------------------------


def test_schema_and_bytes_per_row(big_run):
    lazy = pl.scan_parquet(big_run / "*.parquet")
    schema = lazy.collect_schema()
    assert list(schema) == list(storage.SCHEMA)
    assert dict(schema) == storage.SCHEMA
    files = sorted(big_run.glob("*.parquet"))
    assert files and all(p.suffix == ".parquet" for p in files)
    for path in files:
        assert pl.read_parquet_schema(path) == storage.SCHEMA
    rows = lazy.select(pl.len()).collect().item()
    assert rows == runner.scan(big_run).select(pl.len()).collect().item()
    size = sum(p.stat().st_size for p in files)
    assert size / rows <= 40, f"{size / rows:.1f} bytes per row on disk"

    df = data(big_run)
    assert_whole_run(df, RunConfig.create(out=big_run, name="big", **BIG))
    assert (df["run"] == "big").all()
    assert (df["variant"] == "classic").all()
    assert (df["strategy"] == "greedy").all()
    # deals of a game run from 0 without a gap; the last one, and only it, is final
    per_game = df.group_by("game").agg(
        pl.col("deal").max().alias("last"), pl.col("deal").n_unique().alias("n"),
        pl.col("final").sum().alias("finals"),
        pl.col("won").sum().alias("winners"),
    )  # fmt: skip
    assert (per_game["n"] == per_game["last"] + 1).all()
    assert (per_game["finals"] == 2).all()  # one row per side on the final deal
    assert (per_game["winners"] == 1).all()
    meta = manifest(big_run)
    assert meta["schema_version"] == storage.SCHEMA_VERSION
    assert meta["config"]["seed"] == BIG["seed"] and meta["config"]["count"] == BIG["count"]


# (f) Dask --------------------------------------------------------------------------------------


def run_within(command, seconds: int) -> subprocess.CompletedProcess:
    """Run a command line; fail the test, rather than hang, if it takes longer than ``seconds``."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the run did not finish within {seconds} s")


def test_dask_local_cluster_gives_the_local_data(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "dask"
    command = simulate_command(
        out, games=2000, seed=21, chunk_size=700, name="same", players="random,greedy",
        extra=("--backend", "dask", "--workers", "2", "--batch-size", "512"),
    )  # fmt: skip
    result = run_within(command, seconds=180)
    assert result.returncode == 0, result.stderr[-3000:]
    assert manifest(out)["complete"] is True
    assert "3 chunks played" in result.stdout

    local = make(tmp_path / "local", players="random,greedy", count=2000, seed=21)
    runner.run(local, progress=False)
    assert_frame_equal(data(out), data(local.out))


def test_dask_scheduler_address_gives_the_local_data(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    out = tmp_path / "dask"
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", dashboard_address=":0"
    ) as cluster:
        command = simulate_command(
            out, games=1000, seed=22, chunk_size=300, name="same",
            extra=("--backend", "dask", "--scheduler", cluster.scheduler_address),
        )  # fmt: skip
        result = run_within(command, seconds=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "4 chunks played" in result.stdout
    assert manifest(out)["complete"] is True

    local = make(tmp_path / "local", players="greedy,greedy", count=1000, seed=22)
    runner.run(local, progress=False)
    assert_frame_equal(data(out), data(local.out))


def test_a_local_dask_cluster_leaves_the_dashboard_port_alone(recwarn):
    """With port 8787 taken, the runner's local cluster starts without a word on stderr (left
    to its default port, its scheduler warned that 8787 was in use, then took another)."""
    distributed = pytest.importorskip("dask.distributed")
    with socket.socket() as taken:
        try:
            taken.bind(("", 8787))
            taken.listen()
        except OSError:
            pass  # taken already, by something else: the same case
        with runner.local_cluster(distributed.LocalCluster, 1) as cluster:
            assert cluster.scheduler_address.startswith("tcp://")
    ports = [str(w.message) for w in recwarn if "already in use" in str(w.message)]
    assert not ports


def test_joblib_still_works_in_a_process_after_a_two_worker_run(tmp_path):
    """The runner's worker pool is the one joblib's Parallel reuses (compare and tournaments run
    Parallel in the same process): a pool made by loky's own factory broke Parallel."""
    from joblib import Parallel, delayed

    config = make(tmp_path / "two", count=400, chunk_size=100)
    runner.run(config, workers=2, progress=False)
    assert Parallel(n_jobs=2)(delayed(abs)(-k) for k in range(4)) == [0, 1, 2, 3]
