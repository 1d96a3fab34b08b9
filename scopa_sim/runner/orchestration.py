"""A whole run: :func:`run` checks it, connects to its workers, plays every chunk whose file
is missing on the backend asked for, records each chunk in the manifest as its file lands and
shows the progress on a terminal; :class:`RunSummary` is what it did.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from scopa_sim import storage
from scopa_sim.runner import backends, chunks, folder, lock, pools
from scopa_sim.runner.chunks import ChunkResult
from scopa_sim.runner.config import RunConfig, check_execution


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


def run(
    config: RunConfig,
    *,
    workers: int = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    batch_size: int = 8192,
    progress: bool | None = None,
    kind: str = "simulate",
) -> RunSummary:
    """Play every missing chunk of ``config`` and record it in the manifest. ``kind`` is what
    the manifest records of the command that wrote the folder (``folder.KINDS``): a folder
    another command wrote is refused."""
    backend = check_execution(workers, backend, scheduler)
    started = time.perf_counter()
    if progress is None:
        progress = sys.stderr.isatty()
    # A folder that must not be completed is refused before anything.
    folder.check_folder(config, kind)
    # Connect to the workers before touching the output, so a bad backend leaves nothing.
    with backends.joblib_backend(backend, workers, scheduler):
        folder.create(config.out)
        with lock.writer_lock(config.out):  # one writer at a time; released on any exit
            return _run_chunks(config, started, batch_size, workers, backend, progress, kind)


def _run_chunks(config, started, batch_size, workers, backend, progress, kind) -> RunSummary:
    manifest, done = folder.open_run(config, kind)
    records = {int(c): r for c, r in manifest["chunk_files"].items()}
    summary = RunSummary(config, chunks_skipped=len(done))
    todo = [c for c in range(config.n_chunks) if c not in done]
    bar = _ProgressBar(config, done, enabled=progress)
    with bar:
        if workers == 1 and backend is None:
            results = chunks.chunks_in_turn(config, todo, batch_size)
        elif backend is None:
            results = pools.shared_chunks(config, todo, batch_size, workers)
        else:
            from joblib import Parallel, delayed

            parent = os.getpid()  # its direct children exit when it dies (pools.guarded)
            results = Parallel(return_as="generator_unordered")(
                delayed(pools.guarded)(parent, chunks.play_chunk, config, c, batch_size)
                for c in todo
            )
        for result in results:
            records[result.chunk] = result.record()
            summary.chunks_run += 1
            summary.deals += result.deals
            summary.rows += result.rows
            summary.bytes += result.bytes
            summary.simulate_seconds += result.simulate_seconds
            summary.write_seconds += result.write_seconds
            folder.record_done(config, manifest, records)
            bar.update(result)
    if manifest["complete"]:
        storage.finish(config.out)
    summary.seconds = time.perf_counter() - started
    return summary


class _ProgressBar:
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
