"""What keeps a stray or damaged file out of a run's readers: the chunks a run folder's manifest
lists (:func:`recorded_chunks`), the files it does not account for (:func:`unknown_files`), and
each listed chunk checked against its record (size, then sha256: :func:`chunk_problem`).
:func:`scan_run` is how the project reads a run: only the listed chunks, each checked, or one
line naming what is wrong.

The sha256 of a file is checked once per process while its size and time are unchanged
(``_VERIFIED``): a report reads one run many times.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scopa_sim import storage

if TYPE_CHECKING:
    import polars as pl


def unknown_files(folder: Path, manifest: dict | None) -> list[str]:
    """Names in a run folder that its manifest does not account for: any file but the run's own
    (:func:`own_name`), and chunk files it does not list (a stray ``chunk-000099.parquet``).
    Layout 1 lists chunks as ``chunks_done``."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    listed = set(recorded_chunks(manifest, folder)) if manifest else set()
    total = (manifest or {}).get("chunks_total")
    unknown = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if storage.own_name(entry.name):
            continue
        number = storage.chunk_number(entry.name)
        if number is None or (manifest is not None and number not in listed):
            if number is not None and total and number < total:
                continue  # written, not yet recorded: an interrupted run's; a rerun replays it
            unknown.append(entry.name)
    return unknown


def recorded_chunks(manifest: dict, folder: Path | None = None) -> dict[int, dict]:
    """The chunks a manifest counts as done, with their records ({} for layout 1's). A manifest
    of layout 1 that lists none (``chunks_done``: one written by hand) stands for every chunk
    file in ``folder``, as layout 1's readers took them."""
    if storage.layout(manifest) >= storage.LAYOUT:
        return {int(k): v for k, v in (manifest.get("chunk_files") or {}).items()}
    if "chunks_done" not in manifest and folder is not None:
        return {c: {} for c in storage.done_chunks(folder)}
    return {int(c): {} for c in manifest.get("chunks_done", [])}


def chunk_problem(path: Path, record: dict, *, full: bool = True) -> str | None:
    """What is wrong with a recorded chunk file, or None: missing, another size (truncated),
    other bytes (``full``: sha256; cached per process while size and time are unchanged)."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return "is missing"
    if not record:  # layout 1: nothing recorded to compare with
        return None
    if stat.st_size != record.get("bytes"):
        return f"has {stat.st_size:,} bytes where {record.get('bytes'):,} were written (truncated?)"
    if full:
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        digest = _VERIFIED.get(key) or storage.file_digest(path)
        if digest != record.get("sha256"):
            return "has other bytes than were written (its sha256 differs: damaged)"
        _VERIFIED[key] = digest
    return None


#: sha256 of the chunk files this process has verified, by (path, size, mtime): a report that
#: reads one run many times checks each file once.
_VERIFIED: dict[tuple[str, int, int], str] = {}


def damaged_chunks(folder: Path, manifest: dict, *, full: bool = True) -> dict[int, str]:
    """The recorded chunks whose file is missing or is not what was written, with the reason."""
    found = {}
    for chunk, record in recorded_chunks(manifest, folder).items():
        if problem := chunk_problem(storage.chunk_path(folder, chunk), record, full=full):
            found[chunk] = problem
    return found


def checked_chunks(folder: Path, *, full: bool = True) -> list[Path]:
    """The chunk files of a run, checked against its manifest, for a reader: refuse a folder
    that is not a run, unknown files in it and a damaged or missing chunk, each with one line
    naming it, so a stray or corrupted file never reaches an analysis."""
    folder = Path(folder)
    manifest = storage.read_manifest(folder)
    if manifest is None:
        raise storage.StorageError(
            f"{folder} is not a scopa-sim run (no {storage.MANIFEST_NAME}); give the folder a run "
            "was written to"
        )
    if storage.kind(manifest) == "tournament":
        raise storage.StorageError(
            f"{folder} holds a tournament, not one run; read one of its pairing folders "
            f"({', '.join(manifest.get('runs', [])[:2]) or 'X-vs-Y'})"
        )
    if unknown := unknown_files(folder, manifest):
        raise storage.StorageError(
            f"{folder} holds files that are not part of its run ({', '.join(unknown[:3])}); "
            "move them out of the folder"
        )
    if damaged := damaged_chunks(folder, manifest, full=full):
        chunk, problem = next(iter(sorted(damaged.items())))
        more = f" (and {len(damaged) - 1} more)" if len(damaged) > 1 else ""
        raise storage.StorageError(
            f"{storage.chunk_path(folder, chunk)} {problem}{more}; rerun the command that wrote "
            f"{folder} to replay it"
        )
    return [storage.chunk_path(folder, c) for c in sorted(recorded_chunks(manifest, folder))]


def scan_run(folder: Path, *, full: bool = True) -> pl.LazyFrame:
    """A run's rows, lazily, from its checked chunk files (:func:`checked_chunks`)."""
    import polars as pl

    files = checked_chunks(folder, full=full)
    if not files:
        return pl.LazyFrame(schema=storage.SCHEMA)
    return pl.scan_parquet(files)
