"""The largest sizes a command accepts, and the one-line reason when a size is beyond them.

A size that cannot be played (more deals than any plan needs, more chunk files than a run
folder's names can number, more per-deal values than memory holds) is refused before anything
is written, so a mistyped ``--deals 99999999999999999999`` gets one line instead of an
out-of-memory kill. The checks are pure arithmetic on the numbers asked for, so they cost
nothing however large those numbers are, and the early checks of the command line and the
runner's own checks share them (one message for both).
"""

from __future__ import annotations

import os

__all__ = [
    "MAX_CHUNKS",
    "MAX_CHUNK_SIZE",
    "MAX_COUNT",
    "MAX_WORKERS",
    "MIN_UNITS",
    "default_chunk_size",
    "memory_bytes",
    "memory_problem",
    "run_size_problem",
    "too_few_problem",
    "workers_problem",
]

#: Deals (or games) in one run or per arm: 10^12, core-months of play; beyond it a size is a
#: typing slip, not a plan.
MAX_COUNT = 10**12

#: Chunk files in one run folder: the names are ``chunk-NNNNNN.parquet`` (six digits), and a
#: folder of a million files is already past what file systems list comfortably.
MAX_CHUNKS = 1_000_000

#: Games (deals) per chunk: a worker plays a chunk in memory, some 300 bytes a deal (a game is a
#: few deals), so past these a chunk alone is gigabytes per worker.
MAX_CHUNK_SIZE = {"deals": 10_000_000, "games": 2_000_000}

#: Parallel workers: each is a process (or a Dask task slot); more is a typing slip.
MAX_WORKERS = 1024

#: Games (deals) per chunk file of a run when none is given: a chunk of heuristic players plays
#: in seconds. A run that seats a search player (``Player.searches``) takes minutes for a chunk
#: of this size, so it gets chunks of ``SEARCH_CHUNK_SIZE``: a run of a few thousand deals then
#: still has a chunk for every worker, and an interrupted run loses little.
DEFAULT_CHUNK_SIZE = {"deals": 100_000, "games": 20_000}
SEARCH_CHUNK_SIZE = {"deals": 1_000, "games": 200}


def default_chunk_size(mode: str, searching: bool = False) -> int:
    """The chunk size of a run of ``mode`` given none; ``searching``: a search player plays."""
    sizes = SEARCH_CHUNK_SIZE if searching else DEFAULT_CHUNK_SIZE
    return sizes.get(mode, sizes["games"])


def _count_text(count: int) -> str:
    return f"{count:,}"


def run_size_problem(mode: str, count: int, chunk_size: int) -> str | None:
    """Why a run of ``count`` games or deals in chunks of ``chunk_size`` cannot be played, or
    None when it can. Flag names are the command line's (``--deals``, ``--chunk-size``); a
    batch file's keys are the same words."""
    if count > MAX_COUNT:
        return (
            f"--{mode} {_count_text(count)} is more than a run can hold: at most 10^12 {mode} "
            "per run (beyond that a size is a typing slip, not days of computing); split the "
            "work into several runs with their own seeds"
        )
    most = MAX_CHUNK_SIZE.get(mode, MAX_CHUNK_SIZE["games"])
    if chunk_size > most:
        return (
            f"--chunk-size {_count_text(chunk_size)} is more {mode} than a chunk can hold: at "
            f"most {most:,} (a worker plays a whole chunk in memory, some 300 bytes a deal)"
        )
    chunks = -(-count // chunk_size)
    if chunks > MAX_CHUNKS:
        least = -(-count // MAX_CHUNKS)
        return (
            f"--{mode} {_count_text(count)} in chunks of {chunk_size:,} makes "
            f"{_count_text(chunks)} chunk files, more than a run folder holds ({MAX_CHUNKS:,}: "
            f"the files are numbered chunk-NNNNNN); give --chunk-size {least:,} or more"
        )
    return None


def workers_problem(workers: int) -> str | None:
    if workers > MAX_WORKERS:
        return (
            f"{_count_text(workers)} workers are more than {MAX_WORKERS:,}; each worker is a "
            f"process (this machine has {os.cpu_count() or 1} cores)"
        )
    return None


def memory_bytes() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def memory_problem(what: str, units: int, bytes_per_unit: int, flag: str) -> str | None:
    """Why holding ``bytes_per_unit`` for each of ``units`` in memory cannot work here (more
    than this machine's physical memory), or None. ``what`` names the command's work;
    ``flag`` the option to lower."""
    if units > MAX_COUNT:
        return (
            f"{flag} {_count_text(units)} is more than {what} can take: at most 10^12 "
            f"per arm (beyond that a size is a typing slip, not days of computing)"
        )
    memory = memory_bytes()
    need = units * bytes_per_unit
    if memory is None or need <= memory:
        return None
    most = max(memory // bytes_per_unit, 1)
    return (
        f"{flag} {_count_text(units)} is more than {what} can hold: it keeps every unit's values "
        f"in memory, about {need / 1e9:,.1f} GB, and this machine has {memory / 1e9:,.1f} GB; "
        f"give at most about {most:,} (or play a run with simulate and read it from disk)"
    )


#: The fewest deals (games) per arm that ``compare`` estimates from, and ``plan`` pilots with:
#: its intervals are t intervals of means, which rest on the central limit theorem; below some
#: thirty values a skewed metric (scope, a share of games won) makes them miss, and a handful of
#: identical values gives a zero-width interval that claims a certainty it does not have.
MIN_UNITS = 30


def too_few_problem(units: int, unit: str, flag: str, what: str) -> str | None:
    """Why ``units`` deals (games) per arm are too few for ``what``, or None."""
    if units < MIN_UNITS:
        return (
            f"{flag} {units:,}: {what} needs at least {MIN_UNITS} {unit} per arm (its t "
            f"intervals rest on the central limit theorem, which a handful of {unit} does not "
            f"satisfy); give {flag} {MIN_UNITS} or more"
        )
    return None
