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
from scopa_sim import storage
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


def check_folder(config: RunConfig) -> None:
    """Refuse, before any work, a run folder that this run must not complete: one written by
    another version of the data (storage.check_versions), one of another configuration, or chunk
    files without a manifest. Reads only."""
    manifest = storage.read_manifest(config.out)
    if manifest is None:
        if storage.done_chunks(config.out):
            raise RunError(f"{config.out} holds chunk files but no manifest; choose another --out")
        return
    storage.check_versions(config.out, manifest)
    if manifest.get("config") != config.describe():
        raise RunError(
            f"{config.out} holds another run ({manifest.get('config', {}).get('variant_label')}, "
            f"seed {manifest.get('config', {}).get('seed')}); choose another --out or delete it"
        )


def open_run(config: RunConfig) -> tuple[dict, set[int]]:
    """Create or reopen a run folder; refuse one that this run must not complete. Returns the
    manifest as written and the chunks whose file is in place."""
    check_folder(config)
    storage.prepare(config.out)
    done = {c for c in storage.done_chunks(config.out) if c < config.n_chunks}
    manifest = {
        "schema_version": storage.SCHEMA_VERSION,
        **storage.versions(),
        "config": config.describe(),
        "versions": _versions(),
        "chunks_total": config.n_chunks,
        "chunks_done": sorted(done),
        "complete": len(done) == config.n_chunks,
    }
    storage.write_manifest(config.out, manifest)
    return manifest, done


def record_done(config: RunConfig, manifest: dict, done: set[int]) -> None:
    """Write the manifest with ``done`` as the chunks whose file is in place."""
    manifest["chunks_done"] = sorted(done)
    manifest["complete"] = len(done) == config.n_chunks
    storage.write_manifest(config.out, manifest)


def scan(folder) -> pl.LazyFrame:
    """All of a run's rows, lazily."""
    import polars as pl

    return pl.scan_parquet(Path(folder))
