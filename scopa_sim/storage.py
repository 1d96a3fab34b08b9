"""Per-deal outcomes on disk: the Parquet schema, atomic chunk files and the run manifest.

A run folder is one unit to copy, move or delete: its Parquet chunks, its manifest
(``manifest.json``, replaced atomically and durably), and while it is written a lock file
(``.lock``) and a scratch folder (``.partial/``) where chunks are written before they are
renamed into place, so a chunk file is either complete or absent, whatever kills the process.
The manifest records each chunk's rows, bytes and sha256; readers (``integrity.scan_run``) read
only the chunks it lists, after checking them, so a stray, truncated or damaged file never
reaches an analysis. Layout 1 (before this) kept the manifest beside the folder as
``<folder>.manifest.json`` and recorded no chunk: such folders are read, and refused for
writing with the command that converts them (``scopa-sim migrate``).

polars is imported when a frame is first built, not with this module (nor with the runner, the
outcomes or ``api``): a one-worker run writes each chunk on a thread of its own, and that
thread's first write imports polars while the first chunks play, the compiled kernel having
released the GIL, instead of every run waiting for the import before its first deal.
``SCHEMA`` is built then too (a module attribute made on first use).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from scopa_sim import seeding
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.rules import CATEGORIES

if TYPE_CHECKING:
    import polars as pl

#: Version of the column layout (SCHEMA). 2: ``first_dealer``, ``pt_sevens`` and ``stopped`` added.
#: 3: the point columns are the variant's scoring items: the eight ``pt_*`` of ``CATEGORIES``
#: as before, then one ``pt_<name>`` per other item of its table (none for the presets of
#: version 2, whose rows are unchanged); version 2 folders read as they are.
SCHEMA_VERSION = 3

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
    """``SCHEMA``: column types of a run's Parquet files, in order, for a variant whose points
    are the eight of ``CATEGORIES``; docs/schema.md says what each one means."""
    return schema_of(CATEGORIES)


@functools.cache
def schema_of(columns: tuple[str, ...]) -> dict[str, pl.DataType]:
    """The column types of a run whose variant has the point columns ``columns``
    (``rules.point_columns``): ``pt_<name>`` for each, in order, where SCHEMA has the eight."""
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
        **{f"pt_{name}": pl.Int8() for name in columns},
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


#: The layout of a run folder. 1: the manifest beside the folder, no record of the chunks.
#: 2: ``manifest.json`` inside, with each chunk's rows, bytes and sha256 (``chunk_files``) and
#: what kind of command wrote it (``kind``).
LAYOUT = 2

MANIFEST_NAME = "manifest.json"
LOCK_NAME = ".lock"
_CHUNK_NAME = re.compile(r"chunk-(\d{6,})\.parquet")
_MANIFEST_TMP = re.compile(r"\.manifest\.\d+\.tmp")


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
    columns = schema_of(tuple(name[3:] for name in frame.columns if name.startswith("pt_")))
    return frame.select([pl.col(name).cast(dtype) for name, dtype in columns.items()])


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
        f"{wanted['pack_stream']}); delete {folder} to rebuild it, or choose another --out"
    )


def manifest_path(folder: Path) -> Path:
    """Where a run's manifest is: inside its folder, so the folder is one unit to copy, move or
    delete (``rm -r DIR`` leaves nothing behind)."""
    return Path(folder) / MANIFEST_NAME


def legacy_manifest_path(folder: Path) -> Path:
    """Where layout 1 (scopa-sim before the manifest moved inside) kept it: beside the folder."""
    folder = Path(folder)
    return folder.with_name(folder.name + ".manifest.json")


def partial_dir(folder: Path) -> Path:
    return Path(folder) / ".partial"


def chunk_path(folder: Path, chunk: int) -> Path:
    return Path(folder) / f"chunk-{chunk:06d}.parquet"


def chunk_name(chunk: int) -> str:
    return f"chunk-{chunk:06d}.parquet"


def chunk_number(name: str) -> int | None:
    """The chunk number of a chunk file's name, else None. Only :func:`chunk_name`'s spelling
    counts: ``chunk-0000001.parquet`` or other digits than ASCII ones name no chunk (a reader
    would never open such a file, so it is a stray, not chunk 1)."""
    match = _CHUNK_NAME.fullmatch(name)
    number = int(match.group(1)) if match else None
    return number if number is not None and chunk_name(number) == name else None


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


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, hex (hashlib's, which is fast where the CPU has SHA
    instructions)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def chunk_record(path: Path, rows: int) -> dict:
    """What a manifest records of a chunk file: its rows, bytes and sha256."""
    return {"rows": int(rows), "bytes": path.stat().st_size, "sha256": file_digest(path)}


def done_chunks(folder: Path) -> set[int]:
    """Chunks whose file is in place (a file in place was renamed there whole; whether its
    bytes are still the ones recorded is :func:`damaged_chunks`'s question)."""
    if not Path(folder).is_dir():
        return set()
    numbers = (chunk_number(p.name) for p in Path(folder).glob("chunk-*.parquet"))
    return {n for n in numbers if n is not None}


# reading a manifest ----------------------------------------------------------------------------


def read_manifest(folder: Path) -> dict | None:
    """The run's manifest, from inside the folder or, for a folder of layout 1, from beside it
    (its ``layout`` is then absent: :func:`layout`); None when there is none."""
    for path in (manifest_path(folder), legacy_manifest_path(folder)):
        if path.exists():
            try:
                found = json.loads(path.read_text())
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
                raise StorageError(
                    f"{path} is not a readable manifest ({err}); delete the run folder and rerun"
                ) from None
            if not isinstance(found, dict):
                raise StorageError(f"{path} is not a scopa-sim manifest; delete it and rerun")
            return found
    return None


def layout(manifest: dict) -> int:
    """The folder layout a manifest was written for (layout 1 did not record it)."""
    return manifest.get("layout", 1)


def kind(manifest: dict) -> str:
    """What wrote the folder (layout 1 recorded only runs of ``simulate`` and the pairings of a
    tournament, and did not say which)."""
    return manifest.get("kind", "run")


def describe_kind(manifest: dict) -> str:
    """What a folder holds, for a message: 'a simulate run (classic, seed 7)'."""
    what = {
        "simulate": "a simulate run",
        "tournament": "a tournament",
        "tournament-pairing": "a run of a tournament",
    }.get(kind(manifest), f"a {kind(manifest)} run")
    cfg = manifest.get("config") or {}
    label = cfg.get("variant_label") or cfg.get("variant")
    return f"{what} ({label}, seed {cfg.get('seed')})" if label else what


def migrate_hint(folder: Path) -> str:
    return f"scopa-sim migrate {folder}"


def refuse_legacy(folder: Path, manifest: dict) -> None:
    """Refuse to write into a folder of layout 1: its chunks are not recorded (rows, checksums),
    and its manifest would stay beside it."""
    if layout(manifest) < LAYOUT:
        raise StorageError(
            f"{folder} was written by an older scopa-sim, with its manifest beside it "
            f"({legacy_manifest_path(folder).name}); convert it with `{migrate_hint(folder)}` "
            "and rerun"
        )


# writing a manifest ----------------------------------------------------------------------------


def write_manifest(folder: Path, manifest: dict) -> None:
    """Replace the manifest atomically and durably: a temporary file, flushed to disk, renamed
    over the old one, then the folder's entry flushed too; a crash leaves the old manifest or
    the new one, never a torn one."""
    path = manifest_path(folder)
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    with contextlib.suppress(OSError):
        if path.read_text() == text:
            return  # unchanged: a complete run rerun touches nothing
    tmp = path.with_name(f".manifest.{os.getpid()}.tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform opens a folder for reading
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# what a folder holds ---------------------------------------------------------------------------


def own_name(name: str) -> bool:
    """A name a run folder holds besides its chunks: the manifest, the lock, the scratch folder,
    a manifest being replaced."""
    return (
        name in (MANIFEST_NAME, ".partial")
        or name.startswith(LOCK_NAME)
        or bool(_MANIFEST_TMP.fullmatch(name))
    )


# preparing a folder ----------------------------------------------------------------------------


def prepare(folder: Path) -> None:
    """Create the run folder and its scratch folder, and prove they can be written."""
    folder = Path(folder)
    stray = sorted(
        p.name
        for p in (folder.iterdir() if folder.is_dir() else ())
        if not own_name(p.name) and chunk_number(p.name) is None
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
        for stale in folder.glob(".manifest.*.tmp"):  # likewise
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
