"""A run's folder: refused when this run must not complete it (:func:`check_folder`), opened
with its manifest and the chunks already done (:func:`open_run`, which is what makes a rerun
resume), and read back (:func:`scan`).
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

import scopa_sim
from scopa_sim import integrity, storage
from scopa_sim.runner.config import RunConfig, RunError

if TYPE_CHECKING:
    import polars as pl


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


#: What ``kind`` a manifest records for each command that writes a run folder.
KINDS = ("simulate", "tournament-pairing")


def check_folder(config: RunConfig, kind: str = "simulate") -> None:
    """Refuse, before any work, a run folder that this run must not complete: one written by
    another version of the data (storage.check_versions), one of layout 1 (to convert first:
    storage.refuse_legacy), one another command wrote or another configuration, chunk files
    without a manifest, files that are not the run's. Reads only."""
    out = config.out
    manifest = storage.read_manifest(out)
    if manifest is None:
        if storage.done_chunks(out):
            raise RunError(f"{out} holds chunk files but no manifest; choose another --out")
        _refuse_strays(out, None)
        return
    storage.check_versions(out, manifest)
    storage.refuse_legacy(out, manifest)
    if storage.kind(manifest) != kind:
        raise RunError(
            f"{out} holds {storage.describe_kind(manifest)}, written by another command; "
            "choose another --out or delete it"
        )
    if manifest.get("config") != config.describe():
        raise RunError(
            f"{out} holds another run ({manifest.get('config', {}).get('variant_label')}, "
            f"seed {manifest.get('config', {}).get('seed')}); choose another --out or delete it"
        )
    _refuse_strays(out, manifest)


def _refuse_strays(out: Path, manifest: dict | None) -> None:
    if not (stray := integrity.unknown_files(out, manifest)):
        return
    if manifest is None:  # as storage.prepare (and the command line's early check) says
        raise storage.StorageError(
            f"{out} holds files that are not part of a scopa-sim run ({', '.join(stray[:3])}); "
            "choose an empty or new --out folder"
        )
    raise storage.StorageError(
        f"{out} holds files that are not part of its run ({', '.join(stray[:3])}); "
        "move them out of the folder and rerun"
    )


def create(out: Path) -> None:
    """Create the run folder (and its parents), or say why it cannot be."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise storage.StorageError(
            f"cannot write to {out} ({err.strerror or err}); choose a writable --out folder"
        ) from None


def open_run(config: RunConfig, kind: str = "simulate") -> tuple[dict, set[int]]:
    """Reopen (or start) a run folder whose lock this process holds; refuse one that this run
    must not complete. Returns the manifest as written and the chunks counted as done: those it
    recorded whose file is still what was written (sha256), and those whose file is in place
    but not yet recorded (a run killed between a chunk's rename and its record) if they read
    whole as that chunk. Any other chunk is played (again)."""
    check_folder(config, kind)
    storage.prepare(config.out)
    old = storage.read_manifest(config.out) or {}
    recorded = integrity.recorded_chunks(old) if old else {}
    records = {
        c: r for c, r in recorded.items()
        if c < config.n_chunks
        and integrity.chunk_problem(storage.chunk_path(config.out, c), r, full=True) is None
    }  # fmt: skip
    # A recorded chunk that fails its check is played again, never taken as it is now.
    for chunk in sorted(storage.done_chunks(config.out) - set(recorded)):
        if chunk < config.n_chunks and (record := _whole_chunk(config, chunk)):
            records[chunk] = record
    manifest = {
        "layout": storage.LAYOUT,
        "kind": kind,
        "schema_version": storage.SCHEMA_VERSION,
        **storage.versions(),
        "config": config.describe(),
        "versions": _versions(),
        "chunks_total": config.n_chunks,
        "chunk_files": {},
    }
    record_done(config, manifest, records)
    return manifest, set(records)


def _whole_chunk(config: RunConfig, chunk: int) -> dict | None:
    """The record of a chunk file that no manifest lists, if it reads whole as that chunk of
    this run (every game of its span, this run's name); else None."""
    import polars as pl

    path = storage.chunk_path(config.out, chunk)
    try:
        frame = pl.read_parquet(path, columns=["run", "game"])
    except Exception:  # any unreadable file is played again
        return None
    span = config.chunk_span(chunk)
    games = frame["game"].unique()
    whole = (
        len(games) == len(span)
        and games.min() == span.start
        and games.max() == span.stop - 1
        and frame["run"].unique().to_list() == [config.name]
    )
    return storage.chunk_record(path, frame.height) if whole else None


def record_done(config: RunConfig, manifest: dict, records: dict[int, dict]) -> None:
    """Write the manifest with ``records`` as the chunks done: each one's rows, bytes, sha256."""
    manifest["chunk_files"] = {str(c): records[c] for c in sorted(records)}
    manifest["chunks_done"] = sorted(records)
    manifest["complete"] = len(records) == config.n_chunks
    storage.write_manifest(config.out, manifest)


def chunk_files(folder, *, verify: bool = True) -> list[Path]:
    """The chunk files of a run, checked as :func:`scan` checks them: for another reader
    (``pandas.read_parquet(chunk_files(DIR))``)."""
    return integrity.checked_chunks(Path(folder), full=verify)


def scan(folder, *, verify: bool = True) -> pl.LazyFrame:
    """All of a run's rows, lazily, from the chunks its manifest lists, each checked first
    (integrity.scan_run: unknown files, missing, truncated or damaged chunks are refused with a
    line naming them). ``verify=False`` checks sizes only, not checksums."""
    return integrity.scan_run(Path(folder), full=verify)


# a folder of runs (a tournament's) -------------------------------------------------------------


def check_container(out: Path, kind: str, members: set[str]) -> None:
    """Refuse, before any work, a folder of runs (``kind``: a tournament's) that holds a run or
    another command's files: its manifest must be of ``kind``; it may hold ``members`` (the runs
    and files this command writes), runs of its own (``kind``-pairing, e.g. of a tournament with
    other players), and nothing else. A folder of layout 1 is refused with the command that
    converts it. Reads only."""
    out = Path(out)
    manifest = storage.read_manifest(out)
    if manifest is not None and storage.kind(manifest) != kind:
        raise RunError(
            f"{out} holds {storage.describe_kind(manifest)}, written by another command; "
            f"choose another --out or delete it"
        )
    if not out.is_dir():
        return
    legacy = sorted(p.name for p in out.glob("*.manifest.json"))
    if legacy and all("-vs-" in name for name in legacy):  # a tournament's, else other files
        raise storage.StorageError(
            f"{out} was written by an older scopa-sim, with manifests beside its runs "
            f"({legacy[0]}); convert it with `{storage.migrate_hint(out)}` and rerun"
        )
    stray = []
    for entry in sorted(out.iterdir(), key=lambda p: p.name):
        name = entry.name
        if name in members or name == storage.MANIFEST_NAME or name.startswith("."):
            continue  # hidden: a file being written under a temporary name
        inner = storage.read_manifest(entry) if entry.is_dir() else None
        if inner is None or storage.kind(inner) != f"{kind}-pairing":
            stray.append(name)
    if stray:
        raise RunError(
            f"{out} holds files that are not part of a {kind} ({', '.join(stray[:3])}); "
            "choose an empty or new --out folder"
        )


def write_container(out: Path, kind: str, config: dict, runs: list[str]) -> None:
    """Mark a folder of runs as ``kind``'s (its manifest, atomically): no other command may
    write into it (:func:`check_folder` and :func:`check_container` refuse it)."""
    create(out)
    storage.write_manifest(
        out,
        {
            "layout": storage.LAYOUT,
            "kind": kind,
            **storage.versions(),
            "config": config,
            "runs": sorted(runs),
            "versions": _versions(),
        },
    )
