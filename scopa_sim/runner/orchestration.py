"""A whole run: :func:`run` checks it, connects to its workers, plays every chunk whose file
is missing on the backend asked for, records each chunk in the manifest as its file lands and
shows the progress on a terminal; :class:`RunSummary` is what it did.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from scopa_sim import storage
from scopa_sim.runner import backends, chunks, folder, pools
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
) -> RunSummary:
    """Play every missing chunk of ``config`` and record it in the manifest."""
    backend = check_execution(workers, backend, scheduler)
    started = time.perf_counter()
    if progress is None:
        progress = sys.stderr.isatty()
    folder.check_folder(config)  # a folder that must not be completed is refused before anything
    # Connect to the workers before touching the output, so a bad backend leaves nothing.
    with backends.joblib_backend(backend, workers, scheduler):
        return _run_chunks(config, started, batch_size, workers, backend, progress)


def _run_chunks(config, started, batch_size, workers, backend, progress) -> RunSummary:
    manifest, done = folder.open_run(config)
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

            results = Parallel(return_as="generator_unordered")(
                delayed(chunks.play_chunk)(config, c, batch_size) for c in todo
            )
        for result in results:
            done.add(result.chunk)
            summary.chunks_run += 1
            summary.deals += result.deals
            summary.rows += result.rows
            summary.bytes += result.bytes
            summary.simulate_seconds += result.simulate_seconds
            summary.write_seconds += result.write_seconds
            folder.record_done(config, manifest, done)
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
