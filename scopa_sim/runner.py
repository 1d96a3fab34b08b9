"""Seeded runs in chunks on parallel workers, written as Parquet, resumable.

A run is split into fixed-size chunks of games (or deals). Each chunk is played and written by
one worker: processes by default (loky), or joblib's ``Parallel`` under the backend named
(threading, multiprocessing, or a Dask cluster). With the default backend and ``workers`` > 1,
this process is one of the workers: it plays chunks in a thread while ``workers - 1`` other
processes join in, all taking the next chunk from one queue: those :func:`forked_workers`
forked from this one for the command (on Linux), else loky's. With one worker, this process
plays the chunks in turn while a thread writes the chunk before. Every random number is keyed
by game and deal (``scopa_sim.seeding``), so the data do not depend on the number of workers,
the chunk size or the batch size. Rerunning a command completes only the chunks whose file is
missing.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.metadata
import multiprocessing
import os
import platform
import queue
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

import scopa_sim
from scopa_sim import api, registry, storage
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.rules import Variant, variant

if TYPE_CHECKING:
    import polars as pl

MODES = ("games", "deals")
BACKENDS = registry.BACKENDS


class RunError(ValueError):
    """A run cannot start as asked; the message says why and how to fix it."""


@dataclass(frozen=True)
class RunConfig:
    """What decides a run's data. Workers, backend and batch size do not, so they are not here."""

    name: str
    variant: str
    options: tuple[tuple[str, object], ...]
    players: tuple[str, ...]
    mode: str
    count: int
    seed: int
    chunk_size: int
    out: Path = field(compare=False)

    @staticmethod
    def create(
        *,
        variant: str,
        players,
        mode: str,
        count: int,
        seed: int,
        out,
        options=None,
        name: str | None = None,
        chunk_size: int | None = None,
    ) -> RunConfig:
        """Check everything a user can get wrong, before any work starts."""
        if mode not in MODES:
            raise RunError(f"a run plays 'games' or 'deals', not {mode!r}")
        for what, value in (("count", count), ("seed", seed)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise RunError(f"the {what} must be a whole number, not {value!r}")
        if count <= 0:
            raise RunError(f"the number of {mode} must be positive, not {count}")
        if seed < 0:
            raise RunError(f"the seed must be zero or positive, not {seed}")
        chunk_size = (20_000 if mode == "games" else 100_000) if chunk_size is None else chunk_size
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
            raise RunError(f"the chunk size must be a positive whole number, not {chunk_size!r}")
        if isinstance(players, str):
            players = players.split(",")
        if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
            raise RunError(f"players are names, one per side, e.g. greedy,random; not {players!r}")
        if not isinstance(out, str | Path) or (name is not None and not isinstance(name, str)):
            raise RunError("the output folder and the run name are text")
        out = Path(out).absolute()
        out = Path(os.path.normpath(out))
        if not out.name or out == Path.cwd() or out in Path.cwd().parents:
            raise RunError(
                f"--out {out} would hold the run in the current folder or above it; "
                "name a new folder, e.g. --out data/my-run"
            )
        config = RunConfig(
            name=name or out.name,
            variant=variant,
            options=tuple(sorted((options or {}).items())),
            players=tuple(p.strip() for p in players),
            mode=mode,
            count=int(count),
            seed=int(seed),
            chunk_size=int(chunk_size),
            out=out,
        )
        api.resolve(config.rules(), config.players)  # unknown player, wrong number of players
        return config

    def rules(self) -> Variant:
        return variant(self.variant, dict(self.options))

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)

    def chunk_span(self, chunk: int) -> range:
        start = chunk * self.chunk_size
        return range(start, min(start + self.chunk_size, self.count))

    def describe(self) -> dict:
        """The configuration as recorded in the manifest (canonical option values)."""
        data = asdict(self)
        del data["out"]
        data["options"] = self.rules().options()
        data["variant_label"] = self.rules().describe()
        data["players"] = list(self.players)
        return data


@dataclass(frozen=True)
class ChunkResult:
    chunk: int
    games: int
    deals: int
    rows: int
    bytes: int
    simulate_seconds: float
    write_seconds: float


def play_chunk(config: RunConfig, chunk: int, batch_size: int) -> ChunkResult:
    """Play one chunk and write its file: the unit of work a worker does."""
    return write_played(config, play_outcomes(config, chunk, batch_size))


@dataclass(frozen=True)
class Played:
    """A chunk played and not written yet (:func:`play_outcomes`)."""

    chunk: int
    games: int
    outcomes: DealOutcomes
    seconds: float


def play_outcomes(config: RunConfig, chunk: int, batch_size: int) -> Played:
    """Play one chunk: its per-deal outcomes, in memory."""
    rules, players = api.resolve(config.rules(), config.players)
    span = config.chunk_span(chunk)
    started = time.perf_counter()
    if config.mode == "games":
        outcomes = api.play_games(
            rules, players, games=span, seed=config.seed, batch_size=batch_size
        )
    else:
        outcomes = api.play_deals(
            rules, players, deals=span, seed=config.seed, batch_size=batch_size
        )
    games = len(span) if config.mode == "games" else 0
    return Played(chunk, games, outcomes, time.perf_counter() - started)


def write_played(config: RunConfig, played: Played) -> ChunkResult:
    """Write a played chunk's file (whole, or not at all: ``storage.write_chunk``)."""
    started = time.perf_counter()
    frame = storage.outcomes_frame(
        played.outcomes,
        run=config.name,
        variant=config.rules().describe(),
        strategies=list(config.players),
    )
    size = storage.write_chunk(frame, config.out, played.chunk)
    return ChunkResult(
        played.chunk, played.games, len(played.outcomes), frame.height, size, played.seconds,
        time.perf_counter() - started,
    )  # fmt: skip


def _chunks_in_turn(config: RunConfig, todo: list[int], batch_size: int) -> Iterator[ChunkResult]:
    """Play ``todo`` in this process, one chunk after another, each chunk's file written on a
    thread while the next chunk plays; results in chunk order.

    Why: the compiled kernel and polars' writer both release the GIL, so with a core to spare
    the writing (building the frame and the Parquet file) overlaps the play. A chunk counts as
    done only when its file is in place, as with any worker: an interrupted run replays the
    chunk whose file was not written, and the write in hand is finished (or its temporary file
    left behind) before this returns.
    """
    with ThreadPoolExecutor(1, thread_name_prefix="scopa-sim-writer") as writer:
        pending = None
        for chunk in todo:
            played = play_outcomes(config, chunk, batch_size)
            following = writer.submit(write_played, config, played)
            if pending is not None:
                yield pending.result()  # raises the writer's exception, if any
            pending = following
        if pending is not None:
            yield pending.result()


@dataclass
class RunSummary:
    config: RunConfig
    chunks_run: int = 0
    chunks_skipped: int = 0
    deals: int = 0
    rows: int = 0
    bytes: int = 0
    simulate_seconds: float = 0.0
    write_seconds: float = 0.0
    seconds: float = 0.0


def _polars_version() -> str:
    """polars' version without importing it (storage.py says why): from its distribution's
    metadata, unless it is imported already or installed under another name (polars-lts-cpu)."""
    if "polars" in sys.modules:
        return sys.modules["polars"].__version__
    try:
        return importlib.metadata.version("polars")
    except importlib.metadata.PackageNotFoundError:
        import polars

        return polars.__version__


def _versions() -> dict:
    return {
        "scopa_sim": scopa_sim.__version__,
        "numpy": np.__version__,
        "polars": _polars_version(),
        "python": platform.python_version(),
    }


def _check_folder(config: RunConfig) -> None:
    """Refuse, before any work, a run folder that this run must not complete: one written by
    another version of the data (storage.check_versions), one of another configuration, or chunk
    files without a manifest. Reads only."""
    manifest = storage.read_manifest(config.out)
    if manifest is None:
        if storage.done_chunks(config.out):
            raise RunError(f"{config.out} holds chunk files but no manifest; choose another --out")
        return
    storage.check_versions(config.out, manifest)
    if manifest.get("config") != config.describe():
        raise RunError(
            f"{config.out} holds another run ({manifest.get('config', {}).get('variant_label')}, "
            f"seed {manifest.get('config', {}).get('seed')}); choose another --out or delete it"
        )


def _open_run(config: RunConfig) -> tuple[dict, set[int]]:
    """Create or reopen a run folder; refuse one that this run must not complete."""
    _check_folder(config)
    storage.prepare(config.out)
    done = {c for c in storage.done_chunks(config.out) if c < config.n_chunks}
    manifest = {
        "schema_version": storage.SCHEMA_VERSION,
        **storage.versions(),
        "config": config.describe(),
        "versions": _versions(),
        "chunks_total": config.n_chunks,
        "chunks_done": sorted(done),
        "complete": len(done) == config.n_chunks,
    }
    storage.write_manifest(config.out, manifest)
    return manifest, done


@contextlib.contextmanager
def _backend(backend: str | None, workers: int, scheduler: str | None) -> Iterator[None]:
    """joblib's parallel_config for the backends that play through joblib's ``Parallel``
    (threading, multiprocessing); a Dask client for 'dask'. The default backend (None, which
    :func:`run` makes of a named loky too) needs neither: its chunks go to this process, to the
    forked workers or to loky's own pool (:func:`_shared_chunks`, :func:`_chunks_in_turn`), so
    joblib is not imported for it: its import would delay a forked run's first chunk while every
    worker waited."""
    if backend is None:
        yield
        return
    from joblib import parallel_config

    if backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise RunError(
                "the dask backend needs the dask extra: pip install 'scopa-sim[dask]'"
            ) from None
        if scheduler:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, ValueError, TimeoutError) as err:
                raise RunError(
                    f"cannot reach the Dask scheduler at {scheduler} ({type(err).__name__}); "
                    "check the address (tcp://HOST:PORT) and that the scheduler is running"
                ) from None
        else:
            cluster = local_cluster(LocalCluster, workers)
            client = Client(cluster)
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield
        finally:
            client.close()
            if not scheduler:
                cluster.close()
    else:
        with parallel_config(backend=backend, n_jobs=workers):
            yield


def local_cluster(cluster_class, workers: int):
    """A Dask ``LocalCluster`` (``cluster_class``, imported by the caller, which reports a
    missing dask extra its own way) of ``workers`` one-thread processes. Its scheduler's HTTP
    server takes a free port: left to its default, 8787, it warned on stderr whenever the port
    was taken (another cluster, a notebook's dashboard) and then took another anyway."""
    return cluster_class(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )


def run(
    config: RunConfig,
    *,
    workers: int = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    batch_size: int = 8192,
    progress: bool | None = None,
) -> RunSummary:
    """Play every missing chunk of ``config`` and record it in the manifest."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0:
        raise RunError(f"the number of workers must be a positive whole number, not {workers!r}")
    if backend is not None and backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise RunError("--scheduler goes with --backend dask")
    backend = None if backend == "loky" else backend  # the default, named: the same run
    started = time.perf_counter()
    if progress is None:
        progress = sys.stderr.isatty()
    _check_folder(config)  # a folder that must not be completed is refused before anything
    # Connect to the workers before touching the output, so a bad backend leaves nothing.
    with _backend(backend, workers, scheduler):
        return _run_chunks(config, started, batch_size, workers, backend, progress)


def _run_chunks(config, started, batch_size, workers, backend, progress) -> RunSummary:
    manifest, done = _open_run(config)
    summary = RunSummary(config, chunks_skipped=len(done))
    todo = [c for c in range(config.n_chunks) if c not in done]
    bar = _progress_bar(config, done, enabled=progress)
    with bar:
        if workers == 1 and backend is None:
            results = _chunks_in_turn(config, todo, batch_size)
        elif backend is None:
            results = _shared_chunks(config, todo, batch_size, workers)
        else:
            from joblib import Parallel, delayed

            results = Parallel(return_as="generator_unordered")(
                delayed(play_chunk)(config, c, batch_size) for c in todo
            )
        for result in results:
            done.add(result.chunk)
            summary.chunks_run += 1
            summary.deals += result.deals
            summary.rows += result.rows
            summary.bytes += result.bytes
            summary.simulate_seconds += result.simulate_seconds
            summary.write_seconds += result.write_seconds
            manifest["chunks_done"] = sorted(done)
            manifest["complete"] = len(done) == config.n_chunks
            storage.write_manifest(config.out, manifest)
            bar.update(result)
    if manifest["complete"]:
        storage.finish(config.out)
    summary.seconds = time.perf_counter() - started
    return summary


def shared_executor(workers: int):
    """The process's reusable pool of ``workers`` loky processes, as joblib's ``Parallel``
    (compare, tournaments) creates and reuses it: loky keeps one such pool per process, and a
    pool made by loky's own ``get_reusable_executor`` lacks what joblib adds to it, so a later
    ``Parallel`` call in the same process would fail on it (``_temp_folder_manager``)."""
    from joblib.executor import get_memmapping_executor

    return get_memmapping_executor(workers)


#: Where :func:`forked_workers` forks: Linux, where ``fork`` is the platform's own way to start
#: a process. (macOS's system libraries are not safe to use after a fork; Windows has none.)
FORKS = sys.platform.startswith("linux")

_forked: tuple[ProcessPoolExecutor, int] | None = None  # forked_workers's pool and size


def _ignore_ctrl_c() -> None:
    """A forked worker leaves Ctrl-C to this process, which stops it (``_stop``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: polars' query threads (``polars-0``...) and its runtime's; not the two its import starts
#: (``jemalloc_bg_thd``, ``polars-ooc-clea``), which hold no lock a worker waits for.
_POOL_THREAD = re.compile(r"polars-\d|tokio-|async-executor")


def _own_threads() -> list[str]:
    """Names of the threads this process runs beside the calling one that a fork would leave
    holding locks in the child: any Python thread, and polars' thread pool (started by its
    first query, not by its import)."""
    names = [t.name for t in threading.enumerate() if t is not threading.current_thread()]
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/comm") as f:
                name = f.read().strip()
            if _POOL_THREAD.match(name):
                names.append(name)
    return names


@contextlib.contextmanager
def forked_workers(workers: int) -> Iterator[bool]:
    """Fork ``workers`` worker processes from this one for the runs made inside the block
    (``_shared_chunks`` gives them chunks); yield whether it did. The block's end stops them.

    Why: a forked worker starts with numpy, polars, numba and this package already imported,
    so it plays its first chunk as soon as this process does, where a fresh (loky) interpreter
    first imports them all; and it is forked once for a whole batch of runs.

    A fork copies only the calling thread: a lock that another thread holds at that moment is
    never released in the child. So this forks only on Linux (:data:`FORKS`) and only while no
    other thread runs, as at the start of a command, after its imports (``cli/``); otherwise
    it yields False and the runner uses loky's workers.
    """
    global _forked
    if workers < 1 or not FORKS or _forked is not None or _own_threads():
        yield False
        return
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=_ignore_ctrl_c
    )
    pool.submit(os.getpid)  # the first task forks them all, before the pool starts its thread
    _forked = pool, workers
    try:
        yield True
    finally:  # every chunk handed out has been collected: nothing of value is lost
        _stop(pool)


def _stop(executor) -> None:
    """Stop ``executor``'s workers now, whatever they are doing (a chunk is written whole or
    not at all, so none is left half written)."""
    global _forked
    if isinstance(executor, ProcessPoolExecutor):
        if _forked is not None and _forked[0] is executor:
            _forked = None  # no later run may use it
        # (Python 3.14's ProcessPoolExecutor.terminate_workers does this.)
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            process.terminate()
        # Then wait for its thread, which sees them gone at once: left running, it could race
        # the interpreter's exit (an OSError from concurrent.futures at exit).
        executor.shutdown(wait=True, cancel_futures=True)
    else:  # loky's
        executor.shutdown(wait=False, kill_workers=True)


def _shared_chunks(config, todo, batch_size, workers) -> Iterator[ChunkResult]:
    """Play ``todo`` in this process (a thread) and in ``workers - 1`` other processes: forked
    ones (:func:`forked_workers`) when there are enough, else loky's.

    Why: a loky worker is a fresh interpreter that must import numpy, polars and numba and load
    the compiled kernels before its first chunk. This process has paid most of that already, so
    it plays chunks from the start while the other workers boot, rather than waiting idle. Each
    worker takes the next chunk from one queue when it is free (one chunk at a time), so all end
    within about a chunk of each other. Results arrive in any order; the data do not depend on
    who played what. (The loky executor is used directly: joblib runs ``n_jobs=1`` in the
    calling thread, not in a process.)
    """
    if len(todo) <= 1:  # no work for another process: do not start one
        yield from (play_chunk(config, c, batch_size) for c in todo)
        return
    pending = collections.deque(todo)
    lock = threading.Lock()
    stop = threading.Event()
    # What the main thread waits for: this process's results (then None when its thread is done),
    # an exception of its thread, or a finished future of a loky worker.
    arrived: queue.SimpleQueue = queue.SimpleQueue()

    def claim() -> int | None:
        with lock:
            return pending.popleft() if pending and not stop.is_set() else None

    def play_here() -> None:
        try:
            while (chunk := claim()) is not None:
                arrived.put(play_chunk(config, chunk, batch_size))
        except BaseException as err:  # handed to the main thread, which raises it
            stop.set()  # and no worker starts another chunk
            arrived.put(err)
        finally:
            arrived.put(None)

    thread = threading.Thread(target=play_here, name="scopa-sim-chunks", daemon=True)
    thread.start()  # first, so that this process starts on a chunk at once
    executor = None
    in_flight = 0

    def submit_next() -> None:
        nonlocal in_flight
        if (chunk := claim()) is not None:
            future = executor.submit(play_chunk, config, chunk, batch_size)
            in_flight += 1
            future.add_done_callback(arrived.put)

    here_done = False
    ok = interrupted = False
    try:
        forked = _forked is not None and _forked[1] >= workers - 1
        executor = _forked[0] if forked else shared_executor(workers - 1)
        for _ in range(workers - 1):
            submit_next()
        while in_flight or not here_done:
            item = _wait(arrived)
            if item is None:
                here_done = True
            elif isinstance(item, BaseException):
                raise item
            elif isinstance(item, ChunkResult):
                yield item
            else:  # a loky worker's future
                in_flight -= 1
                result = item.result()  # raises the worker's exception, if any
                submit_next()
                yield result
        ok = True
    except (KeyboardInterrupt, SystemExit):
        interrupted = True
        raise
    finally:
        stop.set()  # on an error: no new chunk; this process finishes the one in hand
        if not ok and executor is not None:  # their chunks in hand would not be recorded
            _stop(executor)
        if not interrupted:  # on Ctrl-C, return at once: a chunk is written whole or not at all
            thread.join()


def _wait(items: queue.SimpleQueue):
    """The next item; a blocking ``get`` without a timeout would not see Ctrl-C."""
    while True:
        try:
            return items.get(timeout=0.25)
        except queue.Empty:
            pass


class _progress_bar:
    """Deals done, rate and time left on a terminal (tqdm); silent elsewhere."""

    def __init__(self, config: RunConfig, done: set[int], enabled: bool):
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(
                total=config.count,
                initial=sum(len(config.chunk_span(c)) for c in done),
                unit=config.mode[:-1],
                desc=config.name,
                dynamic_ncols=True,
                file=sys.stderr,
            )
            self.deals = 0
            self.t0 = time.perf_counter()
            self.config = config

    def update(self, result: ChunkResult) -> None:
        if self.bar is not None:
            self.deals += result.deals
            rate = self.deals / max(time.perf_counter() - self.t0, 1e-9)
            self.bar.set_postfix_str(f"{self.deals:,} deals, {rate:,.0f} deals/s")
            self.bar.update(len(self.config.chunk_span(result.chunk)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()


def scan(folder) -> pl.LazyFrame:
    """All of a run's rows, lazily."""
    import polars as pl

    return pl.scan_parquet(Path(folder))
