"""Per-deal outcomes on disk: the Parquet schema, atomic chunk files and the run manifest.

A run folder holds only Parquet files, one per chunk, so ``polars.scan_parquet(folder)`` reads
the whole run. Its manifest (JSON) sits beside it as ``<folder>.manifest.json``, and chunks are
written under ``.<folder>.partial/`` and renamed into place, so a chunk file is either complete
or absent, whatever kills the process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl

from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.rules import CATEGORIES

SCHEMA_VERSION = 1

#: Column types of a run's Parquet files, in order. docs/schema.md says what each one means.
SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "variant": pl.String(),
    "game": pl.Int64(),
    "deal": pl.Int16(),
    "side": pl.Int8(),
    "strategy": pl.String(),
    "dealer": pl.Boolean(),
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
}


class StorageError(OSError):
    """The output folder cannot be used; the message says why and what to do."""


def outcomes_frame(
    outcomes: DealOutcomes, *, run: str, variant: str, strategies: list[str]
) -> pl.DataFrame:
    """The outcomes as rows of the Parquet schema (one row per side per deal)."""
    frame = outcomes.to_frame()
    side_names = pl.Series("strategy", strategies, dtype=pl.String())
    frame = frame.with_columns(
        pl.lit(run).alias("run"),
        pl.lit(variant).alias("variant"),
        side_names.gather(frame["side"].cast(pl.Int64)).alias("strategy"),
    )
    return frame.select([pl.col(name).cast(dtype) for name, dtype in SCHEMA.items()])


def manifest_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".manifest.json")


def partial_dir(folder: Path) -> Path:
    return folder.with_name("." + folder.name + ".partial")


def chunk_path(folder: Path, chunk: int) -> Path:
    return folder / f"chunk-{chunk:06d}.parquet"


def write_chunk(frame: pl.DataFrame, folder: Path, chunk: int) -> int:
    """Write one chunk atomically (temporary name, then rename); returns its size in bytes."""
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
