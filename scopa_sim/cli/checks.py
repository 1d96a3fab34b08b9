"""The early checks: what the runner and the tournament check first, before the engine loads.

Bad input gets its one line without waiting for the numba and polars imports that the full
checks need. Each check raises what the full check would raise, with its message and in its
order, or stops at the first check it cannot make cheaply and leaves the rest to the full
checks, which run afterwards in any case (tests/test_cli.py compares the two). The commands look
these functions up in this module when they run, so a test can replace one here.
"""

from __future__ import annotations

import errno
import importlib.util
import os
from pathlib import Path

from scopa_sim import registry, sizes
from scopa_sim.cli.errors import InputError
from scopa_sim.lineup import lineup_problem
from scopa_sim.rules import RulesError, Variant, variant

__all__ = [
    "PLAYER_NAMES",
    "check_output_early",
    "check_players_early",
    "check_run_early",
    "check_scheduler_early",
    "check_tournament_early",
    "check_writable",
]

#: The built-in players (``registry.BUILTIN``), for help texts and the early checks.
PLAYER_NAMES = tuple(registry.BUILTIN)


def _run_folder(out) -> Path:
    """``--out`` as the runner resolves it (RunConfig.create)."""
    return Path(os.path.normpath(Path(out).absolute()))


def idle_workers_note(what: str, count: int, chunk_size: int, workers: int, mode: str):
    """The note for a run of a search player (each run, in a tournament) with fewer chunks than
    workers, or None: its chunks take minutes, and the other workers would wait for nothing, so
    it names the chunk size that gives each a share. (Heuristic players play a default chunk in
    about a second: an idle worker costs nothing worth a note.)"""
    chunks = -(-count // chunk_size)
    if workers <= chunks:
        return None
    idle, share = workers - chunks, -(-count // workers)
    return (
        f"scopa-sim: note: {what} is {chunks} chunk{'s' if chunks > 1 else ''} of "
        f"{chunk_size:,} {mode} for {workers} workers, so {idle} {'has' if idle == 1 else 'have'} "
        f"nothing to play; --chunk-size {share} gives each a share (the data are the same)"
    )


def check_run_early(settings: dict) -> bool:
    """The checks of ``RunConfig.create(**settings)``, in its order, for a run of registered
    players named plainly: raise what it would raise; True when it will accept the run, False
    at the first check it must make itself (a value of the wrong type, ``--out`` in the current
    folder or above, a player with parameters, of your own or from an entry point)."""
    count, seed, chunk_size = settings["count"], settings["seed"], settings.get("chunk_size")
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (count, seed))
    if settings["mode"] not in ("games", "deals") or not whole or count <= 0 or seed < 0:
        return False
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0
    ):
        return False
    mode = settings["mode"]
    if chunk_size is None:
        # The default depends on whether a search player plays (sizes.default_chunk_size). When
        # the smaller (search) size fits, so does the other; else RunConfig.create, which knows
        # the players, words the problem for the size that applies.
        if sizes.run_size_problem(mode, count, sizes.default_chunk_size(mode, searching=True)):
            return False
    elif problem := sizes.run_size_problem(mode, count, chunk_size):
        raise InputError(problem)
    players, out, name = settings["players"], settings["out"], settings.get("name")
    if isinstance(players, str):
        players = players.split(",")
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
        return False
    if not isinstance(out, str | Path) or (name is not None and not isinstance(name, str)):
        return False
    folder = _run_folder(out)
    if not folder.name or folder == Path.cwd() or folder in Path.cwd().parents:
        return False
    options = dict(sorted((settings.get("options") or {}).items()))  # as RunConfig.rules()
    rules = variant(settings["variant"], options)
    return check_players_early(rules, [p.strip() for p in players])


def check_players_early(rules: Variant, specs: list[str]) -> bool:
    """``api.resolve(rules, specs)`` for registered players named plainly: raise what it would
    raise; True when it will accept them, False at the first spec only the players' registry
    can read (parameters, MODULE:CLASS, or a name an installed package registers)."""
    if not all(map(_registered_player, specs)):
        return False
    if len(specs) != rules.n_sides:
        raise RulesError(
            f"{rules.name} is played by {rules.n_sides} sides: name {rules.n_sides} players, "
            f"one per side (got {len(specs)})"
        )
    return True


def _registered_player(spec: str) -> bool:
    """``players.player(spec)`` for a plain name: True for a registered player; raise what it
    would raise for a blank or unknown name; False for a spec only it can read."""
    if not spec.strip():
        raise RulesError(f"a player is missing; name one of: {', '.join(PLAYER_NAMES)}")
    if ":" in spec or "=" in spec:
        return False
    name = spec.strip()
    if name in PLAYER_NAMES:
        return True
    from importlib.metadata import entry_points

    if any(ep.name == name for ep in entry_points(group="scopa_sim.players")):
        return False
    raise RulesError(
        f"unknown player {name!r}; choose one of: {', '.join(PLAYER_NAMES)}, or give "
        "MODULE:CLASS for your own (docs/players.md)"
    )


def check_tournament_early(rules: Variant, players: str) -> None:
    """The checks of ``tournament.plan`` after the variant, in its order, as far as they need no
    engine: raise what it would raise; stop at a player only the registry can read."""
    specs = [p.strip() for p in players.split(",")]
    if problem := lineup_problem(rules, specs):
        raise InputError(problem)
    all(map(_registered_player, specs))  # stops at the first it cannot read


def check_output_early(out, *, backend: str | None, scheduler: str | None) -> None:
    """The checks ``runner.run`` makes before its first chunk, in its order, for a run that
    :func:`check_run_early` accepted: raise what it would raise; stop at a folder that holds a
    run (the runner reads it) and at other folder errors than a file where a folder must go."""
    if scheduler and backend != "dask":
        raise InputError("--scheduler goes with --backend dask")
    folder = _run_folder(out)
    # storage.manifest_path, and layout 1's storage.legacy_manifest_path
    manifests = (folder / "manifest.json", folder.with_name(folder.name + ".manifest.json"))
    if any(m.exists() for m in manifests) or (
        folder.is_dir() and any(folder.glob("chunk-*.parquet"))
    ):
        return
    if backend == "dask":  # the runner connects before it prepares the folder
        if scheduler:
            check_scheduler_early(scheduler)
        return
    if folder.is_dir():  # storage.prepare
        # Besides chunks, a run's own names: its lock and scratch folder (storage.own_name).
        stray = [
            p.name
            for p in folder.iterdir()
            if not p.name.startswith(("chunk-", ".lock", ".manifest.")) and p.name != ".partial"
        ]
        if stray:
            raise InputError(
                f"{folder} holds files that are not part of a scopa-sim run "
                f"({', '.join(stray[:3])}); choose an empty or new --out folder"
            )
        return
    existing = folder
    while not os.path.lexists(existing):
        existing = existing.parent
    if existing.is_file():  # folder.mkdir(parents=True, exist_ok=True) fails thus
        error = errno.EEXIST if existing == folder else errno.ENOTDIR
        raise InputError(
            f"cannot write to {folder} ({os.strerror(error)}); choose a writable --out folder"
        )


def check_scheduler_early(address: str) -> None:
    """Fail at once when the connection to a Dask scheduler's tcp address is refused (nothing
    listens there), with the message the runner gives after its 10 s connect timeout: dask
    retries a refused connection until then. Any other outcome is left to dask."""
    if importlib.util.find_spec("distributed") is None:
        return  # the runner says how to install the dask extra
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    if parts.scheme != "tcp" or not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=2).close()
    except ConnectionRefusedError:
        raise InputError(
            f"cannot reach the Dask scheduler at {address} (OSError); "  # what dask raises
            "check the address (tcp://HOST:PORT) and that the scheduler is running"
        ) from None
    except OSError:
        return


def check_writable(path: Path) -> None:
    """Fail before the work, without creating the file, when ``path`` cannot be written."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise RulesError(f"cannot write {path}: folder {folder} does not exist; create it first")
    if (folder / "manifest.json").exists():  # storage.manifest_path: a run's (or tournament's)
        raise RulesError(
            f"cannot write {path}: {folder} is a run folder, which holds its run alone; "
            "write the file elsewhere"
        )
    if path.is_dir() or not os.access(path if path.exists() else folder, os.W_OK):
        raise RulesError(f"cannot write {path}; choose another --html file")
