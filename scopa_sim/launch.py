"""The ``scopa-sim`` command's entry point: loky workers start before the heavy imports, the
garbage collector runs less often, and the process ends without the interpreter's last garbage
collections.

Why start workers here: a loky worker is a fresh interpreter that must import numpy, polars and
numba and load the cached kernels, and so must this process before its first chunk. Started
first, the worker boots while this process imports, instead of after; the runner later asks for
the same reusable executor (``runner.pools.shared_chunks``) and finds it ready. On Linux,
``simulate`` forks its workers after its imports instead (``runner.forked_workers``), so there
only ``tournament`` starts loky workers here.

Only commands that play through loky workers with more than one worker start one here;
anything this module cannot read from the command line or the config file is left to the
command itself, which reports it properly.
"""

from __future__ import annotations

import gc
import sys
import tomllib

#: Commands whose work goes to loky workers (``simulate`` forks its own on Linux, as
#: ``runner.FORKS`` says; the test suite checks the two agree).
PARALLEL_COMMANDS = (
    ("tournament",) if sys.platform.startswith("linux") else ("simulate", "tournament")
)


#: The cyclic garbage collector's thresholds in a command (CPython's defaults: 700, 10, 10).
GC_THRESHOLDS = (10_000, 100, 100)


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
    """Run in a fresh worker: import the engine and load its compiled kernels (a few deals),
    with the garbage collector's thresholds raised as in the command (:func:`console`)."""
    gc.set_threshold(*GC_THRESHOLDS)
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


def console() -> None:
    """The console script (and ``python -m scopa_sim``): :func:`main` with the garbage
    collector's thresholds raised, then exit with its status without the interpreter's final
    garbage collections.

    Why the thresholds: the imports and the loaded kernels create several hundred thousand
    long-lived objects, and at CPython's defaults the collector walks them again and again while
    they are made. Cycles are still collected, less often; a run makes few.

    Why freeze at exit: while it tears down the modules, CPython collects garbage several times
    over every object still alive, which is slow with numba's and polars' objects loaded. Frozen
    objects are left out of those collections; their memory goes back with the process. Files
    are closed and ``atexit`` functions run as usual (see docs/design.md#where-the-time-goes)."""
    gc.set_threshold(*GC_THRESHOLDS)
    status = main()
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    console()
