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
missing or is not what its manifest recorded. A run folder holds its manifest (with each chunk's
rows and sha256) and, while it is written, a lock that refuses a second writer; :func:`scan`
reads only the chunks the manifest lists, after checking them.

The modules, low to high: ``config`` (what a run is, and its checks), ``chunks`` (one chunk
played and written; chunks in turn in one process), ``folder`` (the run folder, its manifest
and the chunks done), ``lock`` (one writer per folder), ``backends`` (joblib's and Dask's),
``pools`` (this process and forked or loky workers on one queue; workers exit when it dies),
``orchestration`` (:func:`run`).
"""

from scopa_sim.runner.backends import local_cluster
from scopa_sim.runner.chunks import ChunkResult, Played, play_chunk, play_outcomes, write_played
from scopa_sim.runner.config import BACKENDS, MODES, RunConfig, RunError
from scopa_sim.runner.folder import chunk_files, scan
from scopa_sim.runner.orchestration import RunSummary, run
from scopa_sim.runner.pools import FORKS, forked_workers, shared_executor

__all__ = [
    "BACKENDS",
    "FORKS",
    "MODES",
    "ChunkResult",
    "Played",
    "RunConfig",
    "RunError",
    "RunSummary",
    "chunk_files",
    "forked_workers",
    "local_cluster",
    "play_chunk",
    "play_outcomes",
    "run",
    "scan",
    "shared_executor",
    "write_played",
]
