"""The default backend's workers: this process (a thread) and ``workers - 1`` other processes,
all taking the next chunk from one queue (:func:`shared_chunks`). The other processes are those
:func:`forked_workers` forked from this one for the command (on Linux), else loky's reusable
pool (:func:`shared_executor`).
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
import queue
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from scopa_sim.runner import chunks
from scopa_sim.runner.chunks import ChunkResult


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


def _ignore_ctrl_c(parent: int | None = None) -> None:
    """A forked worker leaves Ctrl-C to this process, which stops it (``_stop``), and exits
    when this process dies (:func:`watch_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None:
        watch_parent(parent)


#: How often a worker looks whether its parent still runs (seconds).
PARENT_POLL = 0.2

_watched: int | None = None  # the parent this process watches (watch_parent), if any


def watch_parent(parent: int) -> None:
    """Make this process exit as soon as ``parent``, whose direct child it is, dies: a thread
    that polls ``os.getppid()``, which changes when the parent is gone (the child is handed to
    init or a subreaper), SIGKILL included. The chunk in hand is lost, never half written (its
    temporary file is cleared by the next run). Nothing is done in the parent itself, nor in a
    process that is not its child (a Dask worker, whose nanny looks after it).

    Why: a worker of a killed command would otherwise play its chunk to the end, then wait
    minutes for work (loky's idle timeout) or for ever (a forked worker on its queue). A thread
    rather than Linux's ``PR_SET_PDEATHSIG``: that one fires when the parent's *thread* that
    started the worker ends, which for loky's pool need not be the parent's end."""
    global _watched
    if _watched == parent or os.getpid() == parent:
        return
    if os.getppid() != parent:
        if not _runs(parent):  # it died before this worker got its task: do not play it
            os._exit(1)
        return  # not its child: nothing to watch from here
    _watched = parent

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="scopa-sim-parent-watch", daemon=True).start()


def _runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def guarded(parent: int, play, *args):
    """``play(*args)`` in a worker that exits when ``parent`` dies (:func:`watch_parent`): how
    this process hands chunks to other processes."""
    watch_parent(parent)
    return play(*args)


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
    (:func:`shared_chunks` gives them chunks); yield whether it did. The block's end stops them.

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
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_ignore_ctrl_c,
        initargs=(os.getpid(),),
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


def shared_chunks(config, todo, batch_size, workers) -> Iterator[ChunkResult]:
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
        yield from (chunks.play_chunk(config, c, batch_size) for c in todo)
        return
    pending = collections.deque(todo)
    parent = os.getpid()
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
                arrived.put(chunks.play_chunk(config, chunk, batch_size))
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
            future = executor.submit(guarded, parent, chunks.play_chunk, config, chunk, batch_size)
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
