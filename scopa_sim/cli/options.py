"""Options and argument converters shared by several commands.

``simulate`` and ``tournament`` both hand their runs to the runner, so they take its options
(backend, scheduler, chunk and batch sizes, progress bars) from one function here rather than
from two copies; the converters turn a bad number into argparse's one-line error.
"""

from __future__ import annotations

import argparse

from scopa_sim import registry, sizes
from scopa_sim.rules import OPTIONS

__all__ = [
    "BACKENDS",
    "add_run_options",
    "add_workers_option",
    "options_help",
    "positive_float",
    "positive_int",
    "probability",
    "seed_int",
    "worker_count",
]

BACKENDS = registry.BACKENDS


def _checked(text: str, convert, kind: str, ok, need: str, what: str = ""):
    """``convert(text)`` for argparse, or one line saying what is wrong with it."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}{text!r} is not {kind}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{what}{text!r} must be {need}")
    return value


def positive_int(text: str) -> int:
    return _checked(
        text, lambda t: int(t.replace("_", "")), "a whole number", lambda v: v > 0, "positive"
    )


def worker_count(text: str) -> int:
    """``--workers``: a positive whole number, at most :data:`scopa_sim.sizes.MAX_WORKERS`."""
    value = positive_int(text)
    if problem := sizes.workers_problem(value):
        raise argparse.ArgumentTypeError(problem)
    return value


def seed_int(text: str) -> int:
    return _checked(text, int, "a whole number", lambda v: v >= 0, "zero or positive", "seed ")


def probability(text: str) -> float:
    return _checked(text, float, "a number", lambda v: 0 < v < 1, "between 0 and 1")


def positive_float(text: str) -> float:
    return _checked(text, float, "a number", lambda v: 0 < v < float("inf"), "a positive number")


def options_help() -> str:
    """Every rule option, one line each: ``name=values  help``."""
    width = max(len(f"{o.name}={o.values}") for o in OPTIONS.values())
    return "\n".join(f"  {f'{o.name}={o.values}':{width}}  {o.help}" for o in OPTIONS.values())


def add_workers_option(
    parser, *, default: int | None = 1, help_text: str = "parallel workers (default 1)"
) -> None:
    """``--workers``; only simulate's default differs (None: the batch file may say)."""
    parser.add_argument(
        "--workers", type=worker_count, default=default, metavar="W", help=help_text
    )


def add_run_options(parser, *, chunk_help: str, bars: str) -> None:
    """The runner's options, after a command's own: ``--backend``, ``--scheduler``,
    ``--chunk-size`` (``chunk_help`` says its default), ``--batch-size`` and
    ``--progress``/``--no-progress`` ("always show ``bars``")."""
    parser.add_argument(
        "--backend", choices=BACKENDS, default=None,
        help="joblib backend (default: loky processes); dask runs on a Dask cluster",
    )  # fmt: skip
    parser.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="Dask scheduler address (with --backend dask; default: a local cluster)",
    )  # fmt: skip
    parser.add_argument("--chunk-size", type=positive_int, metavar="N", help=chunk_help)
    parser.add_argument(
        "--batch-size", type=positive_int, default=8192, metavar="N",
        help="deals in lockstep per worker (default 8192)",
    )  # fmt: skip
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", dest="progress", action="store_true", default=None,
        help=f"always show {bars}",
    )  # fmt: skip
    bar.add_argument(
        "--no-progress", dest="progress", action="store_false", help=f"never show {bars}"
    )
