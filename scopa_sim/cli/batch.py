"""The batch file of ``simulate --config``: a TOML ``[defaults]`` table and ``[[run]]`` tables.

It turns the file into the runner's configurations, checking every run before any plays, so a
mistake in the last run is reported (with the file and run) before the first run writes data.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from scopa_sim import sizes
from scopa_sim.cli import checks
from scopa_sim.cli.errors import ConfigError, user_errors

if TYPE_CHECKING:
    from scopa_sim.runner import RunConfig

__all__ = ["load_batch", "name_problem"]

_RUN_KEYS = {
    "name",
    "variant",
    "options",
    "players",
    "games",
    "deals",
    "seed",
    "out",
    "chunk_size",
    "workers",
}


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a run's folder inside the batch's ``out`` (a run is written to
    ``out/<name>``), or None: a name is one plain folder name, so no run writes elsewhere."""
    if not name.strip():
        return 'is empty; name the run, e.g. name = "classic-forced"'
    if "/" in name or "\\" in name or "\0" in name:
        return (
            "holds a path separator; a run is written to out/<name>, so the name is one folder "
            'name (e.g. "classic-forced"); set out = "..." to choose the folder it goes in'
        )
    if name in (".", "..") or os.path.isabs(name):
        return "would write outside the batch's out folder; give a plain folder name"
    return None


def load_batch(
    path: Path, seed: int | None = None, chunk_size: int | None = None
) -> list[tuple[RunConfig, int | None]]:
    """Read a batch file: ``[defaults]`` for every run, then ``[[run]]`` tables. ``seed`` and
    ``chunk_size`` (``simulate --config F --seed S --chunk-size N``) override every run's, as
    ``--help`` says; the manifest of each run records the values it played with."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not a UTF-8 text file; a batch file is TOML text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: malformed TOML: {err}") from None
    unknown = set(data) - {"defaults", "run"}
    if unknown:
        raise ConfigError(
            f"{path}: unknown table {sorted(unknown)[0]!r}; use [defaults] and [[run]]"
        )
    defaults = data.get("defaults", {})
    runs = data.get("run", [])
    if not isinstance(runs, list) or not runs:
        raise ConfigError(f"{path}: no [[run]] tables; each run is a [[run]] table")
    out, early, names, folders = [], True, {}, {}
    for i, entry in enumerate(runs, 1):
        merged = {**defaults, **entry}
        where = f"{path}: run {i} ({merged.get('name', 'unnamed')})"
        bad = set(merged) - _RUN_KEYS
        if bad:
            raise ConfigError(
                f"{where}: unknown key {sorted(bad)[0]!r}; keys are {', '.join(sorted(_RUN_KEYS))}"
            )
        if ("games" in entry) == ("deals" in entry) and ("games" in merged) == ("deals" in merged):
            raise ConfigError(f"{where}: give exactly one of games or deals")
        mode = "games" if "games" in merged and "deals" not in entry else "deals"
        for key in ("variant", "players", "name"):
            if key not in merged:
                raise ConfigError(f"{where}: missing {key!r}")
        if seed is None and "seed" not in merged:
            raise ConfigError(f"{where}: missing 'seed' (or give --seed)")
        for key in ("variant", "name", "out"):
            if key in merged and not isinstance(merged[key], str):
                raise ConfigError(f"{where}: {key} must be text in quotes, not {merged[key]!r}")
        players = merged["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ConfigError(
                f'{where}: players must be a list of names, e.g. ["greedy", "random"]'
            )
        options = merged.get("options", {})
        if not isinstance(options, dict):
            raise ConfigError(f"{where}: options must be a table, e.g. options = {{ target = 16 }}")
        workers = merged.get("workers")
        if workers is not None and (
            not isinstance(workers, int) or isinstance(workers, bool) or workers <= 0
        ):
            raise ConfigError(f"{where}: workers must be a positive whole number, not {workers!r}")
        if workers is not None and (problem := sizes.workers_problem(workers)):
            raise ConfigError(f"{where}: workers: {problem}")
        if problem := name_problem(merged["name"]):
            raise ConfigError(f"{where}: name {merged['name']!r} {problem}")
        folder = os.path.normpath(Path(merged.get("out", "data")).absolute() / merged["name"])
        for seen, key, value in ((names, "name", merged["name"]), (folders, "folder", folder)):
            if value in seen:
                raise ConfigError(
                    f"{where}: {key} {value!r} is run {seen[value]}'s too; give every run its "
                    "own name (nothing has been played)"
                )
            seen[value] = i
        settings = dict(
            variant=merged["variant"],
            options=options,
            players=merged["players"],
            mode=mode,
            count=merged[mode],
            seed=merged.get("seed") if seed is None else seed,
            out=Path(merged.get("out", "data")) / merged["name"],
            name=merged["name"],
            chunk_size=merged.get("chunk_size") if chunk_size is None else chunk_size,
        )
        try:
            # Until a run needs a check only the runner can make, the early checks do; from
            # that run on, RunConfig.create checks each run in turn, as it always did.
            early = early and checks.check_run_early(settings)
            if not early:
                from scopa_sim.runner import RunConfig

                settings = RunConfig.create(**settings)
        except user_errors() as err:
            raise ConfigError(f"{where}: {err}") from None
        out.append((where, settings, workers))
    from scopa_sim.runner import RunConfig

    configs = []
    for where, settings, workers in out:
        try:
            config = settings if isinstance(settings, RunConfig) else RunConfig.create(**settings)
        except user_errors() as err:
            raise ConfigError(f"{where}: {err}") from None
        configs.append((config, workers))
    return configs
