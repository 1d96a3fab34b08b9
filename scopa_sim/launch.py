"""The ``scopa-sim`` command's entry point: parallel workers start before the heavy imports.

Why: a loky worker is a fresh interpreter that spends about a second importing numpy, polars
and numba and loading the compiled kernels from numba's cache, and this process spends as long
before it plays its first chunk. Started first, the worker boots while this process imports,
instead of after: two workers then finish a run in about half the time of one, start-up
included (docs/design.md, "Whole process"). The runner later asks for the same reusable
executor (``runner._shared_chunks``), so it finds the worker up and its kernels loaded.

Only commands that play through the runner's loky workers (``simulate``, ``tournament``) with
more than one worker start one here; anything this module cannot read from the command line
or the config file is left to the command itself, which reports it properly.
"""

from __future__ import annotations

import sys
import tomllib

#: Commands whose work goes to the runner's loky workers.
PARALLEL_COMMANDS = ("simulate", "tournament")


def _option(argv: list[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` (the last one given), else None."""
    value = None
    for k, arg in enumerate(argv):
        if arg == name and k + 1 < len(argv):
            value = argv[k + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def requested_workers(argv: list[str]) -> int:
    """How many workers the command line asks for: 1 when it is not a parallel command on the
    default backend, or when it cannot tell (the command then says what is wrong)."""
    if not argv or argv[0] not in PARALLEL_COMMANDS or any(a in ("-h", "--help") for a in argv):
        return 1
    if (_option(argv, "--backend") or "loky") != "loky":
        return 1
    try:
        given = _option(argv, "--workers")
        if given is not None:
            return max(int(given), 1)
        config = _option(argv, "--config")
        if config is None:
            return 1
        with open(config, "rb") as f:
            data = tomllib.load(f)
        sections = [data.get("defaults", {}), *data.get("run", []), *data.get("tournament", [])]
        found = [s.get("workers") for s in sections if isinstance(s, dict)]
        return max([w for w in found if isinstance(w, int) and not isinstance(w, bool)] or [1])
    except (OSError, ValueError, TypeError, tomllib.TOMLDecodeError):
        return 1


def warm_up() -> None:
    """Run in a fresh worker: import the engine and load its compiled kernels (a few deals)."""
    from scopa_sim import api

    api.play_deals("classic", ["random", "greedy"], deals=8, seed=0)


def prestart(workers: int):
    """Start the ``workers - 1`` loky processes the runner will use, each warming up; the
    executor."""
    from joblib.executor import get_memmapping_executor  # the pool runner.shared_executor reuses

    executor = get_memmapping_executor(workers - 1)
    for _ in range(workers - 1):
        executor.submit(warm_up)
    return executor


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    workers = requested_workers(argv)
    executor = prestart(workers) if workers > 1 else None
    try:
        from scopa_sim.cli import main as cli_main

        return cli_main(argv)
    finally:
        # A command that stops early (bad input, nothing left to play) must not wait for a
        # warm-up, and by now the runner has collected every chunk it handed out: stop the
        # workers. (Not at exit: Python waits for an executor's pending work before it runs
        # the atexit functions, so a bad command line would wait for the warm-up to finish.)
        if executor is not None:
            executor.shutdown(wait=False, kill_workers=True)


if __name__ == "__main__":
    sys.exit(main())
