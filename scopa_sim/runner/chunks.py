"""One chunk of a run: played (:func:`play_outcomes`), written (:func:`write_played`), or both
(:func:`play_chunk`, the unit of work a worker does); and :func:`chunks_in_turn`, one process
playing chunks in turn while a thread writes the chunk before.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from scopa_sim import api, storage
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.runner.config import RunConfig


@dataclass(frozen=True)
class ChunkResult:
    chunk: int
    games: int
    deals: int
    rows: int
    bytes: int
    simulate_seconds: float
    write_seconds: float
    sha256: str = ""  # of the file's bytes, as the manifest records it

    def record(self) -> dict:
        """What the manifest records of the chunk's file (storage.chunk_record)."""
        return {"rows": self.rows, "bytes": self.bytes, "sha256": self.sha256}


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
    storage.write_chunk(frame, config.out, played.chunk)
    # The record is of the file as it landed: its size and sha256, read back once.
    record = storage.chunk_record(storage.chunk_path(config.out, played.chunk), frame.height)
    return ChunkResult(
        played.chunk, played.games, len(played.outcomes), frame.height, record["bytes"],
        played.seconds, time.perf_counter() - started, record["sha256"],
    )  # fmt: skip


def chunks_in_turn(config: RunConfig, todo: list[int], batch_size: int) -> Iterator[ChunkResult]:
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
