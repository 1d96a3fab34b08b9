"""``scopa-sim migrate DIR``: convert run folders of layout 1 (the manifest beside the folder,
``DIR.manifest.json``) to the current one (``DIR/manifest.json``, with each chunk's rows, bytes
and sha256), so that they can be completed, copied, moved or deleted as one folder.

DIR is a run folder, a tournament's folder or a folder of runs (``data``): every run of layout 1
found in it, at any depth, is converted. The chunks are recorded as they are on disk: layout 1
recorded nothing to check them against, so a chunk damaged before the conversion is recorded
damaged (a chunk whose file is missing is left out, and a rerun plays it).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from scopa_sim.cli.errors import InputError

#: Files a tournament's folder holds beside its runs (scopa_sim.tournament.report).
_TOURNAMENT_FILES = ("summary.parquet", "ratings.parquet")


def add_parser(commands) -> None:
    mig = commands.add_parser(
        "migrate",
        help="convert run folders written by an older scopa-sim to the current layout",
        description=(
            "Convert run folders of the older layout, whose manifest sits beside the folder "
            "(DIR.manifest.json), to the current one, where it is inside (DIR/manifest.json) and "
            "records each chunk's rows and sha256. DIR is a run folder, a tournament folder or "
            "a folder of runs (e.g. data): every older run in it is converted, in place; the "
            "data files are not touched. A folder already converted is left as it is."
        ),
    )
    mig.set_defaults(parser=mig)
    mig.add_argument("folder", type=Path, metavar="DIR", help="a run folder or a folder of runs")


def run(args, parser) -> int:
    root = Path(os.path.normpath(args.folder.absolute()))
    if not root.is_dir():
        raise InputError(f"{args.folder} is not a folder; give a run folder or a folder of runs")
    from scopa_sim import storage

    runs = _older_runs(root, storage)
    if not runs:
        if storage.manifest_path(root).exists() or any(root.glob(f"*/{storage.MANIFEST_NAME}")):
            print(f"{args.folder}: already in the current layout; nothing to convert")
            return 0
        raise InputError(
            f"{args.folder} holds no scopa-sim run of the older layout (no "
            f"{root.name}.manifest.json beside it, no NAME.manifest.json in it); nothing to convert"
        )
    for folder in runs:
        kind = "tournament-pairing" if _is_tournament(folder.parent) else "simulate"
        chunks = migrate_run(folder, kind, storage)
        print(f"converted {folder} ({chunks} chunks recorded)")
    for parent in sorted({f.parent for f in runs}):
        if _is_tournament(parent) and not storage.manifest_path(parent).exists():
            _mark_tournament(parent, storage)
            print(f"converted {parent} (a tournament)")
    return 0


def _older_runs(root: Path, storage) -> list[Path]:
    """The run folders of layout 1 at or under ``root``: those with a manifest beside them."""
    if storage.legacy_manifest_path(root).is_file():
        return [root]
    found = []
    for manifest in sorted(root.rglob("*.manifest.json")):
        folder = manifest.with_name(manifest.name.removesuffix(".manifest.json"))
        if (folder.is_dir() or not folder.exists()) and _is_run_manifest(manifest):
            found.append(folder)
    return found


def _is_run_manifest(path: Path) -> bool:
    """Whether a NAME.manifest.json is a run's (not, say, a cache's of interventions)."""
    try:
        found = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return True  # migrate_run says it is unreadable
    return isinstance(found, dict) and "config" in found and "chunks_total" in found


def _is_tournament(folder: Path) -> bool:
    """A tournament's folder of layout 1: its summary files, or runs named A-vs-B."""
    if any((folder / name).exists() for name in _TOURNAMENT_FILES):
        return True
    names = [p.name.removesuffix(".manifest.json") for p in folder.glob("*.manifest.json")]
    return bool(names) and all("-vs-" in name for name in names)


def migrate_run(folder: Path, kind: str, storage) -> int:
    """Convert one run folder; returns the number of chunks recorded."""
    from scopa_sim import integrity
    from scopa_sim.runner.lock import writer_lock

    beside = storage.legacy_manifest_path(folder)
    try:
        old = json.loads(beside.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(
            f"{beside} is not a readable manifest ({err}); nothing converted"
        ) from None
    if not isinstance(old, dict) or "config" not in old:
        raise InputError(f"{beside} is not a scopa-sim run manifest; nothing converted")
    folder.mkdir(exist_ok=True)  # a run killed before its first chunk had no folder yet
    with writer_lock(folder):
        if stray := [n for n in integrity.unknown_files(folder, old) if not n.startswith(".")]:
            raise InputError(
                f"{folder} holds files that are not part of its run ({', '.join(stray[:3])}); "
                "move them out and run migrate again"
            )
        records = {}
        for chunk in sorted(int(c) for c in old.get("chunks_done", [])):
            path = storage.chunk_path(folder, chunk)
            if path.exists():
                records[chunk] = storage.chunk_record(path, _rows(path))
        new = {
            **old,
            "layout": storage.LAYOUT,
            "kind": kind,
            "chunk_files": {str(c): records[c] for c in sorted(records)},
            "chunks_done": sorted(records),
            "complete": len(records) == old.get("chunks_total"),
        }
        storage.write_manifest(folder, new)  # inside first: a crash now leaves it read first
        beside.unlink()
    scratch = folder.with_name(f".{folder.name}.partial")  # layout 1's: only void files
    if scratch.is_dir():
        shutil.rmtree(scratch, ignore_errors=True)
    return len(records)


def _rows(path: Path) -> int:
    """A Parquet file's row count, from its footer (no data read)."""
    import polars as pl

    return pl.scan_parquet(path).select(pl.len()).collect().item()


def _mark_tournament(folder: Path, storage) -> None:
    from scopa_sim.runner import folder as run_folder

    runs = [p.name for p in folder.iterdir() if storage.manifest_path(p).exists()]
    run_folder.write_container(folder, "tournament", {}, runs)
