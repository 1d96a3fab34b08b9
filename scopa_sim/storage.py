"""Per-deal outcomes on disk: the Parquet schema, atomic chunk files and the run manifest.

A run folder holds only Parquet files, one per chunk, so ``polars.scan_parquet(folder)`` reads
the whole run. Its manifest (JSON) sits beside it as ``<folder>.manifest.json``, and chunks are
written under ``.<folder>.partial/`` and renamed into place, so a chunk file is either complete
or absent, whatever kills the process.

polars is imported when a frame is first built, not with this module (nor with the runner, the
outcomes or ``api``): a one-worker run writes each chunk on a thread of its own, and that
thread's first write imports polars while the first chunks play, the compiled kernel having
released the GIL, instead of every run waiting for the import before its first deal.
``SCHEMA`` is built then too (a module attribute made on first use).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from scopa_sim import seeding
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.rules import CATEGORIES

if TYPE_CHECKING:
    import polars as pl

#: Version of the column layout (SCHEMA). 2: ``first_dealer``, ``pt_sevens`` and ``stopped`` added.
SCHEMA_VERSION = 2

#: Version of the data a configuration and seed produce. Bump it whenever a rerun of the same
#: command would write other rows (other columns or meanings, other packs, other random numbers,
#: other rules by default): a run folder of another data version is refused, never completed
#: with rows that do not match its first chunks. Manifests written before data version 2 do not
#: record it. 2: the first dealer of a game is drawn at random by default (``first_dealer``
#: column), the ``sevens`` point category (``pt_sevens``), the ``stopped`` column, pack stream 2
#: (seeding).
DATA_VERSION = 2


@functools.cache
def _schema() -> dict[str, pl.DataType]:
    """``SCHEMA``: column types of a run's Parquet files, in order; docs/schema.md says what each
    one means."""
    import polars as pl

    return {
        "run": pl.String(),
        "variant": pl.String(),
        "game": pl.Int64(),
        "deal": pl.Int16(),
        "side": pl.Int8(),
        "strategy": pl.String(),
        "dealer": pl.Boolean(),
        "first_dealer": pl.Boolean(),
        "cards": pl.Int8(),
        "coins": pl.Int8(),
        "settebello": pl.Boolean(),
        "primiera": pl.Int16(),
        "scope": pl.Int8(),
        "captured": pl.UInt64(),
        **{f"pt_{name}": pl.Int8() for name in CATEGORIES},
        "points": pl.Int8(),
        "score": pl.Int16(),
        "final": pl.Boolean(),
        "won": pl.Boolean(),
        "redeals": pl.Int8(),
        "stopped": pl.Boolean(),
    }


def __getattr__(name: str):
    """``storage.SCHEMA`` is :func:`_schema`, made on first use (polars is imported then)."""
    if name == "SCHEMA":
        return _schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class StorageError(OSError):
    """The output folder cannot be used; the message says why and what to do."""


def outcomes_frame(
    outcomes: DealOutcomes, *, run: str, variant: str, strategies: list[str]
) -> pl.DataFrame:
    """The outcomes as rows of the Parquet schema (one row per side per deal)."""
    import polars as pl

    frame = outcomes.to_frame()
    side_names = pl.Series("strategy", strategies, dtype=pl.String())
    frame = frame.with_columns(
        pl.lit(run).alias("run"),
        pl.lit(variant).alias("variant"),
        side_names.gather(frame["side"].cast(pl.Int64)).alias("strategy"),
    )
    return frame.select([pl.col(name).cast(dtype) for name, dtype in _schema().items()])


def versions() -> dict[str, int]:
    """What a manifest records of the versions that decide its data (see :data:`DATA_VERSION`)."""
    return {"data_version": DATA_VERSION, "pack_stream": seeding.PACK_STREAM_VERSION}


def check_versions(folder: Path, manifest: dict) -> None:
    """Refuse a run folder whose data another version of scopa-sim wrote (:data:`DATA_VERSION`,
    ``seeding.PACK_STREAM_VERSION``): completing it would mix rows of two kinds."""
    # A manifest without them predates data version 2, which was the first to record them.
    found = {key: manifest.get(key, 1) for key in ("data_version", "pack_stream")}
    wanted = versions()
    if found == wanted:
        return
    older = all(isinstance(v, int) and v <= wanted[k] for k, v in found.items())
    newer = all(isinstance(v, int) and v >= wanted[k] for k, v in found.items())
    who = "an older" if older else "a newer" if newer else "another version of"
    raise StorageError(
        f"{folder} was written by {who} scopa-sim (data version {found['data_version']}, "
        f"pack stream {found['pack_stream']}; this is {wanted['data_version']}, "
        f"{wanted['pack_stream']}); delete {folder} and {manifest_path(folder)} to rebuild it, "
        "or choose another --out"
    )


def manifest_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".manifest.json")


def partial_dir(folder: Path) -> Path:
    return folder.with_name("." + folder.name + ".partial")


def chunk_path(folder: Path, chunk: int) -> Path:
    return folder / f"chunk-{chunk:06d}.parquet"


def write_chunk(frame: pl.DataFrame, folder: Path, chunk: int) -> int:
    """Write one chunk atomically (temporary name, then rename); returns its size in bytes.

    zstd level 1 writes about as fast as lz4 in far fewer bytes (higher levels cost time for
    little); the statistics cost some write time but let readers skip files and row groups by
    game, as a deal's replay does.
    """
    tmp = partial_dir(folder) / f"chunk-{chunk:06d}.{os.getpid()}.parquet"
    frame.write_parquet(tmp, compression="zstd", compression_level=1, statistics=True)
    final = chunk_path(folder, chunk)
    os.replace(tmp, final)
    return final.stat().st_size


def done_chunks(folder: Path) -> set[int]:
    """Chunks whose file is in place (a file in place is complete: it was renamed there)."""
    if not folder.is_dir():
        return set()
    return {int(p.stem.split("-")[1]) for p in folder.glob("chunk-*.parquet")}


def read_manifest(folder: Path) -> dict | None:
    path = manifest_path(folder)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise StorageError(
            f"{path} is not a readable manifest ({err}); delete it and rerun"
        ) from None


def write_manifest(folder: Path, manifest: dict) -> None:
    """Replace the manifest atomically."""
    path = manifest_path(folder)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def prepare(folder: Path) -> None:
    """Create the run folder and its scratch folder, and prove they can be written."""
    stray = (
        [p.name for p in folder.iterdir() if not p.name.startswith("chunk-")]
        if folder.is_dir()
        else []
    )
    if stray:
        raise StorageError(
            f"{folder} holds files that are not part of a scopa-sim run ({', '.join(stray[:3])}); "
            "choose an empty or new --out folder"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        scratch = partial_dir(folder)
        scratch.mkdir(exist_ok=True)
        probe = scratch / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        for stale in scratch.glob("*.parquet"):  # left by a killed run: never renamed, so void
            stale.unlink()
    except OSError as err:
        raise StorageError(
            f"cannot write to {folder} ({err.strerror or err}); choose a writable --out folder"
        ) from None


def finish(folder: Path) -> None:
    """Remove the scratch folder once the run is complete."""
    scratch = partial_dir(folder)
    if scratch.is_dir() and not any(scratch.iterdir()):
        scratch.rmdir()
