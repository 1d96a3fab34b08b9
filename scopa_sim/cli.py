"""The ``scopa-sim`` command line: simulate, replay, compare, and list variants and players.

Bad input never shows a traceback: it gets one line saying what is wrong and how to fix it,
and exit status 2. The rules themselves are described for players in docs/rules.md.

Start-up: this module imports the rules (numpy) and nothing heavier. The engine, the players,
the runner and Parquet (numba, polars: about a second of CPU) are imported inside the commands,
once the command line has been read and checked: ``--help``, a bad number, an unknown variant,
player or option, or an output folder that cannot be written get their one line in about a
quarter of that. The early checks (:func:`check_run_early`, :func:`check_output_early`,
:func:`check_tournament_early`) make the checks of ``runner.RunConfig.create``, ``runner.run``
and ``tournament.plan`` that need no engine, in the same order and with the same messages, and
leave every other check to those functions.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import os
import re
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from scopa_sim import __version__
from scopa_sim.lineup import lineup_problem
from scopa_sim.rules import (
    OPTIONS,
    PRESET_HELP,
    PRESETS,
    RulesError,
    Variant,
    parse_assignments,
    parse_variant,
    variant,
)

if TYPE_CHECKING:
    from scopa_sim.runner import RunConfig

EXIT_BAD_INPUT = 2
RULES_DOC = "docs/rules.md"

#: The registered players (``scopa_sim.players.PLAYERS``, in its order) and the runner's
#: backends (``runner.BACKENDS``), named here so that the parser and the early checks need not
#: import the engine; tests/test_cli.py checks that they agree with the modules.
PLAYER_NAMES = ("random", "greedy", "defensive", "memory", "chitarrella", "pimc", "cheater")
BACKENDS = ("loky", "threading", "multiprocessing", "dask")


class InputError(ValueError):
    """Bad input found by an early check; the message is the one the full check gives."""


def user_errors() -> tuple[type[Exception], ...]:
    """The exceptions that mean bad input (one line, exit status 2). The runner's and the
    storage's are looked up only when their modules are loaded: until then nothing raises them."""
    found = [RulesError, InputError, ConfigError]
    for module, name in (("scopa_sim.runner", "RunError"), ("scopa_sim.storage", "StorageError")):
        if module in sys.modules:
            found.append(getattr(sys.modules[module], name))
    return tuple(found)


class ConfigError(ValueError):
    """A batch file is malformed; the message names the file and, where known, the line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


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


def seed_int(text: str) -> int:
    return _checked(text, int, "a whole number", lambda v: v >= 0, "zero or positive", "seed ")


def _options_help() -> str:
    width = max(len(f"{o.name}={o.values}") for o in OPTIONS.values())
    return "\n".join(f"  {f'{o.name}={o.values}':{width}}  {o.help}" for o in OPTIONS.values())


_SIMULATE_EPILOG = f"""\
rule options (--option KEY=VALUE, repeatable; in a batch file: options = {{ KEY = VALUE }}):
{_options_help()}
Which options each variant accepts, and their defaults: scopa-sim variants NAME. The rules of
every variant and option are explained in {RULES_DOC}.

output: DIR/chunk-NNNNNN.parquet (only Parquet: polars.scan_parquet(DIR) reads the run), and
DIR.manifest.json beside it (configuration, seed, versions, chunks done). One row per side per
deal; the columns are described in docs/schema.md.

batch file (--config FILE.toml): a [defaults] table for every run, then one [[run]] table each:
  [defaults]
  seed = 1
  workers = 2
  out = "data"                      # each run writes out/<name>
  players = ["greedy", "greedy"]
  [[run]]
  name = "classic-forced"
  variant = "classic"
  options = {{ forced_capture = true }}
  games = 100000                    # or deals = N
  chunk_size = 20000                # optional

examples:
  scopa-sim simulate --variant classic --players greedy,random --games 100000 --seed 1 \\
      --workers 2 --out data/my-run
  scopa-sim simulate --config configs/default.toml
  scopa-sim simulate ... --backend dask --scheduler tcp://HOST:8786
"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="scopa-sim",
        description="Monte Carlo strategy analysis for Scopa and its family.",
        epilog=(
            "Run 'scopa-sim COMMAND --help' for the options of a command. The rules of every "
            f"variant and option: {RULES_DOC}."
        ),
    )
    parser.add_argument("--version", action="version", version=f"scopa-sim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = commands.add_parser(
        "simulate",
        help="play seeded games or deals on parallel workers into Parquet",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_SIMULATE_EPILOG,
        description=(
            "Play seeded games (or independent deals) and write one row per side per deal to "
            "Parquet files in --out. The same seed and configuration give the same data "
            "whatever --workers, --chunk-size or --batch-size; rerunning an interrupted command "
            "completes only what is missing."
        ),
    )
    sim.set_defaults(parser=sim)
    sim.add_argument(
        "--config", type=Path, metavar="FILE.toml", help="a batch file of several runs"
    )
    sim.add_argument(
        "--variant", metavar="NAME",
        help=f"one of: {', '.join(PRESETS)} (scopa-sim variants NAME; {RULES_DOC} §7)",
    )  # fmt: skip
    sim.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help=f"a rule option, repeatable; options: {', '.join(OPTIONS)}",
    )  # fmt: skip
    sim.add_argument(
        "--players", metavar="NAME,NAME[,...]",
        help=f"one player per side, from: {', '.join(PLAYER_NAMES)}",
    )  # fmt: skip
    count = sim.add_mutually_exclusive_group()
    count.add_argument("--games", type=positive_int, metavar="N", help="whole games to the target")
    count.add_argument(
        "--deals", type=positive_int, metavar="N",
        help="independent deals, each a one-deal game (first_dealer applies), no game score",
    )  # fmt: skip
    sim.add_argument("--seed", type=seed_int, metavar="S", help="the run seed (required)")
    sim.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="W",
        help="parallel workers (default 1; one worker writes each chunk's file on a second "
        "thread while it plays the next)",
    )
    sim.add_argument("--out", type=Path, metavar="DIR", help="run folder for the Parquet files")
    sim.add_argument("--name", help="the run's name in the data (default: the --out folder's name)")
    sim.add_argument(
        "--backend", choices=BACKENDS, default=None,
        help="joblib backend (default: loky processes); dask runs on a Dask cluster",
    )  # fmt: skip
    sim.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="Dask scheduler address (with --backend dask; default: a local cluster)",
    )  # fmt: skip
    sim.add_argument(
        "--chunk-size", type=positive_int, metavar="N",
        help="games (or deals) per chunk file (default 20000 games or 100000 deals)",
    )  # fmt: skip
    sim.add_argument(
        "--batch-size",
        type=positive_int,
        default=8192,
        metavar="N",
        help="deals in lockstep per worker (default 8192)",
    )
    bar = sim.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show a progress bar",
    )
    bar.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show a progress bar"
    )

    rep = commands.add_parser(
        "replay",
        help="print a deal move by move",
        description=(
            "Print a deal move by move: a deal recorded in a run (--run DIR --game G --deal D), "
            "or explicit packs (--variant, --players, --seed and --deck or --decks-file). "
            f"Packs are in canonical order ({RULES_DOC} §2): the table cards, then each hand's "
            "blocks in turn order. Seat 0 leads; the last seat deals."
        ),
    )  # fmt: skip
    rep.set_defaults(parser=rep)
    rep.add_argument("--run", type=Path, metavar="DIR", help="a run folder written by simulate")
    rep.add_argument("--game", type=int, default=0, metavar="G", help="game number (from 0)")
    rep.add_argument("--deal", type=int, default=0, metavar="D", help="deal number within the game")
    rep.add_argument("--variant", metavar="NAME", help="variant for explicit packs")
    rep.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option, repeatable",
    )
    rep.add_argument("--players", metavar="NAME,NAME[,...]", help="one player per side")
    rep.add_argument(
        "--seed", type=seed_int, default=0, metavar="S", help="seed of the players' random numbers"
    )
    rep.add_argument("--deck", metavar="ID,ID,...", help="one pack: card ids separated by commas")
    rep.add_argument("--decks-file", type=Path, metavar="FILE", help="packs, one per line")
    rep.add_argument("--json", action="store_true", help="one JSON object per deal instead of text")
    rep.add_argument(
        "--html", type=Path, metavar="FILE",
        help="also write a self-contained page that steps through the deal(s): the table and "
        "every hand before each play, the legal alternatives, and the player's evaluation of "
        "each when it has one (explain, docs/players.md)",
    )  # fmt: skip

    cmp = commands.add_parser(
        "compare",
        help="compare variants (paired on the same packs, or unpaired), with CIs and Holm p-values",
        description=(
            "Play every ARM on as many deals (or games) and report per arm each metric with its "
            "95% CI, the difference from the first arm with its CI, a p-value and Holm-adjusted "
            "p-values. The tested differences form one family: beside the Holm p-values each "
            "has a Bonferroni interval at 1 - 0.05/m (m tested differences; the column 'family "
            "CI', diff_family_ci_low/high in --json), which excludes 0 only when Holm p < 0.05: "
            "quote it when picking the clearest difference. Differences that are fixed "
            "combinations of others (dealer_edge, the dealer's side minus the others; the last "
            "side's share of games won) are shown but not tested (\"tested\": false). "
            "An ARM that deals like the first arm (the same pack, number of players, "
            "table cards, hands and throw-in rule) plays the same deals with the same seed, so "
            "it sees the same packs in the same seats: its differences are paired per deal "
            "(game). Any other ARM (e.g. escoba, which has no throw-in, against classic, or a "
            "4-player preset against a 2-player one) plays with a seed of its own derived from "
            "--seed, independent of the first arm: its differences are unpaired (Welch). The "
            "output says which for every arm (the design column; \"design\" in --json). A "
            "metric is reported only for arms that have it (points_seat3 needs four sides). An "
            "ARM is VARIANT[:KEY=VALUE,...], e.g. classic:forced_capture=true. "
            f"The variants and options are explained in {RULES_DOC}."
        ),
    )  # fmt: skip
    cmp.formatter_class = argparse.RawDescriptionHelpFormatter
    cmp.epilog = (
        "options in an ARM (VARIANT:KEY=VALUE,KEY=VALUE):\n"
        + _options_help()
        + "\n\nexample:\n  scopa-sim compare classic classic:forced_capture=true "
        "--players greedy,random \\\n      --deals 200000 --seed 1 --workers 2 --html compare.html"
    )
    cmp.set_defaults(parser=cmp)
    cmp.add_argument(
        "arms", nargs="+", metavar="ARM", help="VARIANT[:KEY=VALUE,...]; the first is the baseline"
    )
    cmp.add_argument(
        "--players",
        required=True,
        metavar="NAME[,NAME,...]",
        help="one player per side, for every arm; or one NAME for every side of every arm "
        "(needed when the arms have different numbers of sides)",
    )
    unit = cmp.add_mutually_exclusive_group(required=True)
    unit.add_argument("--deals", type=positive_int, metavar="N", help="independent deals per arm")
    unit.add_argument("--games", type=positive_int, metavar="N", help="whole games per arm")
    cmp.add_argument(
        "--seed", type=seed_int, required=True, metavar="S",
        help="the seed of the first arm and of every arm dealt like it (the others derive theirs)",
    )  # fmt: skip
    cmp.add_argument(
        "--workers", type=positive_int, default=1, metavar="W", help="parallel workers (default 1)"
    )
    cmp.add_argument(
        "--precision", metavar="H | H% | METRIC=H[%],...",
        help="keep doubling the deals (games) until the 95%% CIs are narrow enough. A bare H "
        "applies to every metric (each arm's estimate and each difference, in the metric's own "
        "unit: points, scope, deals or shares alike); METRIC=H sets one metric's half-width (a "
        "name, or a prefix: points=0.01 covers points_seat0, points_seat1, ...; game_win=0.005); "
        "H%% is relative: H percent of the first arm's estimate of the metric (1%% or "
        "points=1%%). Metrics a per-metric list leaves out have no target, unless a bare H "
        "is given too (e.g. 0.05,game_win=0.005)",
    )  # fmt: skip
    cmp.add_argument(
        "--max", type=positive_int, default=5_000_000, metavar="N",
        help="cap on deals (games) per arm with --precision (default 5000000)",
    )  # fmt: skip
    cmp.add_argument(
        "--batch-size",
        type=positive_int,
        default=8192,
        metavar="N",
        help="deals in lockstep per worker",
    )
    cmp.add_argument("--json", action="store_true", help="print a JSON list of result objects")
    cmp.add_argument(
        "--html", type=Path, metavar="FILE", help="also write a self-contained HTML page"
    )

    _add_plan_parser(commands)
    _add_tournament_parser(commands)

    var = commands.add_parser(
        "variants",
        help="list the variants, one line each, or show one in full",
        description=(
            "Without NAME: every preset, one line each. With NAME: that preset's deal, capture "
            "rule, scoring, target and game end, and every option it accepts with its default "
            f"and allowed values. The rules are explained in {RULES_DOC}."
        ),
    )
    var.set_defaults(parser=var)
    var.add_argument("name", nargs="?", metavar="NAME", help=f"a preset: {', '.join(PRESETS)}")
    commands.add_parser("players", help="list the players, one line each")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return {
            "simulate": _simulate,
            "replay": _replay,
            "compare": _compare,
            "plan": _plan,
            "tournament": _tournament,
            "variants": _variants,
            "players": _players,
        }[args.command](args, getattr(args, "parser", parser))
    except user_errors() as err:
        print(f"scopa-sim: error: {error_text(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("scopa-sim: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        sys.stderr.close()
        return 0


#: Error messages about variants, options, player counts or packs: the rules explain them.
_RULES_MESSAGE = re.compile(
    r"unknown variant|unknown option|option '?[\w-]+'? (does not apply|takes)"
    r"|is played by \d+ sides|\ba pack (is|must)"
)


def error_text(err: Exception) -> str:
    """The one-line message for ``err``; rule-related ones point to the rules document."""
    text = str(err)
    if _RULES_MESSAGE.search(text) and RULES_DOC not in text:
        text += f" (see {RULES_DOC})"
    return text


# simulate ---------------------------------------------------------------------------------------


def _simulate(args, parser) -> int:
    if args.config:
        single = [
            f"--{k}"
            for k in ("variant", "players", "games", "deals", "out", "name")
            if getattr(args, k)
        ]
        if single or args.option:
            parser.error(
                f"--config replaces {', '.join(single or ['--option'])}; give one or the other"
            )
        runs = load_batch(args.config, seed=args.seed)
    else:
        missing = [
            f"--{k}" for k in ("variant", "players", "seed", "out") if getattr(args, k) is None
        ]
        if args.games is None and args.deals is None:
            missing.append("--games or --deals")
        if missing:
            parser.error(f"simulate needs {', '.join(missing)} (or --config FILE.toml)")
        settings = dict(
            variant=args.variant,
            options=parse_assignments(args.option),
            players=args.players,
            mode="games" if args.games else "deals",
            count=args.games or args.deals,
            seed=args.seed,
            out=args.out,
            name=args.name,
            chunk_size=args.chunk_size,
        )
        if check_run_early(settings):
            check_output_early(settings["out"], backend=args.backend, scheduler=args.scheduler)
        from scopa_sim.runner import RunConfig

        runs = [(RunConfig.create(**settings), None)]
    from scopa_sim.runner import forked_workers, run

    workers = [args.workers or file_workers or 1 for _, file_workers in runs]
    # The other workers of every run, forked once now, before anything starts a thread, and
    # with polars imported once, here, for all of them (a one-worker run imports it on its
    # writing thread: storage.py).
    forks = max(workers, default=1) - 1 if args.backend in (None, "loky") else 0
    if forks:
        import polars  # noqa: F401
    with forked_workers(forks):
        for (config, _), run_workers in zip(runs, workers, strict=True):
            summary = run(
                config,
                workers=run_workers,
                backend=args.backend,
                scheduler=args.scheduler,
                batch_size=args.batch_size,
                progress=args.progress,
            )
            rate = summary.deals / summary.simulate_seconds if summary.simulate_seconds else 0
            print(
                f"{config.name}: {config.rules().describe()} {','.join(config.players)}, "
                f"{config.count:,} {config.mode} -> {config.out} "
                f"({summary.chunks_run} chunks played, {summary.chunks_skipped} already done; "
                f"{summary.deals:,} deals, {summary.rows:,} rows, {summary.bytes / 1e6:.1f} MB, "
                f"{summary.seconds:.1f} s, {rate:,.0f} deals/s per worker)"
            )
    return 0


# The early checks: what runner.RunConfig.create, api.resolve and runner.run check first, made
# without importing them. Each raises the error the full check would raise, with its message,
# or stops at the first check it cannot make cheaply and leaves that one and the rest to the
# full checks, which run afterwards in any case (tests/test_cli.py compares the two).


def _run_folder(out) -> Path:
    """``--out`` as the runner resolves it (RunConfig.create)."""
    return Path(os.path.normpath(Path(out).absolute()))


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
    manifest = folder.with_name(folder.name + ".manifest.json")  # storage.manifest_path
    if manifest.exists() or (folder.is_dir() and any(folder.glob("chunk-*.parquet"))):
        return
    if backend == "dask":  # the runner connects before it prepares the folder
        if scheduler:
            check_scheduler_early(scheduler)
        return
    if folder.is_dir():  # storage.prepare
        stray = [p.name for p in folder.iterdir() if not p.name.startswith("chunk-")]
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


def load_batch(path: Path, seed: int | None = None) -> list[tuple[RunConfig, int | None]]:
    """Read a batch file: ``[defaults]`` for every run, then ``[[run]]`` tables."""
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
    out, early = [], True
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
        settings = dict(
            variant=merged["variant"],
            options=options,
            players=merged["players"],
            mode=mode,
            count=merged[mode],
            seed=merged.get("seed") if seed is None else seed,
            out=Path(merged.get("out", "data")) / merged["name"],
            name=merged["name"],
            chunk_size=merged.get("chunk_size"),
        )
        try:
            # Until a run needs a check only the runner can make, the early checks do; from
            # that run on, RunConfig.create checks each run in turn, as it always did.
            early = early and check_run_early(settings)
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


# replay -----------------------------------------------------------------------------------------


def _replay(args, parser) -> int:
    if args.html:
        _check_writable(args.html)
    if args.run:
        from scopa_sim import api

        records = [api.replay_run_deal(args.run, args.game, args.deal)]
    else:
        missing = [f"--{k}" for k in ("variant", "players") if getattr(args, k) is None]
        if missing or not (args.deck or args.decks_file):
            parser.error(
                "replay needs --run DIR, or --variant, --players and --deck or --decks-file"
            )
        rules = variant(args.variant, parse_assignments(args.option))
        lines = [args.deck] if args.deck else _read_lines(args.decks_file)
        from scopa_sim import api

        packs = []
        for n, line in enumerate(lines, 1):
            where = f"{args.decks_file} line {n}" if args.decks_file else "--deck"
            try:
                packs.append(api.check_pack(rules, line.replace(" ", "").split(",")))
            except RulesError as err:
                raise RulesError(f"{where}: {err}") from None
        records = api.play_packs(rules, args.players.split(","), packs, seed=args.seed)
    if args.html:
        from scopa_sim import reporting

        page = reporting.render_replay(records, title=_replay_title(args))
        try:
            args.html.write_text(page, encoding="utf-8")
        except OSError as err:
            raise RulesError(f"cannot write {args.html}: {err.strerror}") from None
    for record in records:
        print(json.dumps(record.to_json()) if args.json else format_record(record))
    return 0


def _replay_title(args) -> str:
    if args.run:
        return f"Replay of {args.run.name}, game {args.game}, deal {args.deal}"
    return f"Replay: {args.players}, seed {args.seed}"


def _read_lines(path: Path) -> list[str]:
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as err:
        raise RulesError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{path} is not a text file; write one pack per line") from None
    if not lines:
        raise RulesError(f"{path} holds no packs; write one pack per line (card ids and commas)")
    return lines


CARD_LEGEND = (
    "cards: rank (A, 2-7, F fante, C cavallo, R re) then suit (D denari/coins, C coppe/cups, "
    "S spade/swords, B bastoni/clubs); 7D is the settebello"
)


def format_record(record) -> str:
    """A deal as readable text: the table, each hand as dealt, every play, the points."""
    rules = record.variant
    n = rules.n_players

    def cards(ids) -> str:
        return " ".join(rules.pack.code(c) for c in ids)

    lines = [f"{rules.describe()}: seat 0 leads, seat {n - 1} deals", CARD_LEGEND]
    table = record.pack[: rules.table_cards]
    if record.throw_in:
        lines.append(
            f"table {cards(table)}: thrown in (three or four kings); the dealer deals again"
        )
        return "\n".join(lines)
    lines.append(f"table: {cards(table)}")
    position, play = rules.table_cards, 0
    for hand, size in enumerate(rules.hands, 1):
        dealt = []
        for seat in range(n):
            dealt.append(f"seat {seat} {cards(sorted(record.pack[position : position + size]))}")
            position += size
        lines.append(f"hand {hand}: " + "; ".join(dealt))
        for move in record.moves[play : play + n * size]:
            play += 1
            taken = f" takes {cards(move.captured)}" if move.captured else ""
            side = record.seat_sides[move.seat]
            lines.append(
                f"{play:3d}. seat {move.seat} (side {side}) plays {rules.pack.code(move.card)}"
                + taken
                + ("  SCOPA" if move.scopa else "")
            )
    if record.leftovers:
        lines.append(f"left on the table for nobody: {cards(record.leftovers)}")
    for side in record.sides:
        detail = ", ".join(
            f"{k} {v}" for k, v in side.points.items() if v or k in ("cards", "coins")
        )
        lines.append(f"side {side.side}: {len(side.captured)} cards; {detail}; total {side.total}")
    return "\n".join(lines)


# compare ----------------------------------------------------------------------------------------


def _compare(args, parser) -> int:
    if args.precision is None:  # the checks below, early: an arm only the rules need to read
        if args.html:
            _check_writable(args.html)
        for text in args.arms:
            parse_variant(text)  # as compare.parse_arms
    from scopa_sim import compare

    precision = compare.parse_precision(args.precision)
    if args.html:
        _check_writable(args.html)
    compare.parse_arms(args.arms)  # bad arms fail before any work

    def progress(result):
        unit = "deals" if result.mode == "deals" else "games"
        if precision.targets or precision.default[1]:  # per metric or relative: say which
            _, metric, width, target = precision.worst(result)
            print(
                f"{result.units:,} {unit} per arm: widest against its target: {metric} "
                f"half-width {width:.4f}, target {target:.4f}",
                file=sys.stderr,
            )
            return
        print(
            f"{result.units:,} {unit} per arm: largest CI half-width {result.max_half_width:.4f}",
            file=sys.stderr,
        )

    result = compare.compare(
        args.arms,
        args.players.split(","),
        mode="deals" if args.deals else "games",
        count=args.deals or args.games,
        seed=args.seed,
        workers=args.workers,
        precision=precision,
        max_units=args.max,
        batch_size=args.batch_size,
        progress=progress if precision else None,
    )
    if args.html:
        from scopa_sim import reporting  # matplotlib: only for the page

        args.html.write_text(reporting.render_page(compare.page(result)), encoding="utf-8")
    if args.json:
        print(json.dumps([row.to_json() for row in result.rows], indent=1))
    else:
        print(compare.format_table(result))
    return 0


# plan -------------------------------------------------------------------------------------------

_PLAN_EPILOG = """\
metrics (as scopa-sim compare names them): points_seat0, points_seat1, ... (points per deal of
each side, by its seat in the deal), dealer_edge, scope; with --mode games also game_win_seat0,
game_win_seat1, ... (shares of games won) and game_length (deals per game).

--json prints {"metric", "effect", "power", "alpha", "mode", "unit", "pilot", "seed",
"first_arm", "arms": [{"arm", "design", "reason", "pilot_diff", "pilot_diff_ci_low",
"pilot_diff_ci_high", "sd_first", "sd_arm", "correlation", "sd_diff", "paired", "unpaired"}]}.

examples:
  scopa-sim plan classic classic:forced_capture=true --players greedy,random \\
      --metric scope --effect 0.01
  scopa-sim plan classic classic:target=16 --players greedy --mode games --metric game_win_seat0 \\
      --effect 0.01 --power 0.9 --pilot 2000
"""


def _probability(text: str) -> float:
    return _checked(text, float, "a number", lambda v: 0 < v < 1, "between 0 and 1")


def _positive_float(text: str) -> float:
    return _checked(text, float, "a number", lambda v: 0 < v < float("inf"), "a positive number")


def _add_plan_parser(commands) -> None:
    pln = commands.add_parser(
        "plan",
        help="how many deals (games) a comparison needs: a pilot, then paired and unpaired sizes",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_PLAN_EPILOG,
        description=(
            "Play a pilot of every ARM (as scopa-sim compare plays them: the same arms, seeds "
            "and pairing) and print the deals (or games) per arm a two-sided t-test needs to "
            "detect a difference of --effect in --metric from the first arm with --power at "
            "--alpha: paired (arms on the same packs, from the SD of the per-unit differences; "
            "statsmodels TTestPower) and unpaired (independent packs, the pooled SD; "
            "TTestIndPower). An ARM that deals otherwise than the first arm gets the unpaired "
            "size only. The sizes are as good as the pilot's SDs: a larger --pilot steadies "
            f"them. ARM is VARIANT[:KEY=VALUE,...] ({RULES_DOC})."
        ),
    )
    pln.set_defaults(parser=pln)
    pln.add_argument(
        "arms", nargs="+", metavar="ARM", help="VARIANT[:KEY=VALUE,...]; the first is the baseline"
    )
    pln.add_argument(
        "--players", default="greedy", metavar="NAME[,NAME,...]",
        help="one player per side, or one NAME for every side of every arm (as compare; "
        "default greedy on every side)",
    )  # fmt: skip
    pln.add_argument(
        "--metric", required=True, metavar="M", help="the metric to size for (see below)"
    )
    pln.add_argument(
        "--effect", required=True, type=_positive_float, metavar="D",
        help="the smallest true difference worth finding, in the metric's unit",
    )  # fmt: skip
    pln.add_argument(
        "--power", type=_probability, default=0.8, metavar="P",
        help="chance of finding a true difference D (default 0.8)",
    )  # fmt: skip
    pln.add_argument(
        "--alpha", type=_probability, default=0.05, metavar="A",
        help="two-sided significance level of each comparison (default 0.05)",
    )  # fmt: skip
    pln.add_argument(
        "--mode", choices=("deals", "games"), default="deals",
        help="size in independent deals (default) or whole games",
    )  # fmt: skip
    pln.add_argument(
        "--pilot", type=positive_int, default=20_000, metavar="N",
        help="pilot deals (games) per arm (default 20000; at least 10)",
    )  # fmt: skip
    pln.add_argument(
        "--seed", type=seed_int, default=1, metavar="S", help="seed of the pilot (default 1)"
    )
    pln.add_argument(
        "--workers", type=positive_int, default=1, metavar="W", help="parallel workers (default 1)"
    )
    pln.add_argument("--json", action="store_true", help="print the plan as one JSON object")


def _plan(args, parser) -> int:
    from scopa_sim import planning

    result = planning.plan(
        args.arms,
        args.players.split(","),
        metric=args.metric,
        effect=args.effect,
        power=args.power,
        alpha=args.alpha,
        mode=args.mode,
        pilot=args.pilot,
        seed=args.seed,
        workers=args.workers,
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=1, allow_nan=False))
    else:
        print(planning.format_plan(result))
    return 0


def _check_writable(path: Path) -> None:
    """Fail before the work, without creating the file, when ``path`` cannot be written."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise RulesError(f"cannot write {path}: folder {folder} does not exist; create it first")
    if path.is_dir() or not os.access(path if path.exists() else folder, os.W_OK):
        raise RulesError(f"cannot write {path}; choose another --html file")


# tournament -------------------------------------------------------------------------------------

_TOURNAMENT_EPILOG = """\
output: DIR/<a>-vs-<b>/ and DIR/<b>-vs-<a>/, one run folder per lineup of every pair (Parquet,
as scopa-sim simulate writes, with a manifest beside each), DIR/summary.parquet (the pairings
table) and DIR/ratings.parquet. Default DIR: data/tournaments/<variant>-<seed>-<mode>.

--json prints {"pairings": [{"a", "b", "metric", "estimate", "ci_low", "ci_high", "p_value",
"p_holm", "n"}, ...], "ratings": [{"player", "rating", "ci_low", "ci_high"}, ...],
"variance_reduction": X, ...} with the design, the Holm family, the metric definitions,
"upper_bound_ratings" (players that see hidden cards, never ranked with the others) and the
variance reduction of each pairing as extra keys.

examples:
  scopa-sim tournament --variant classic --players random,greedy,defensive,memory,chitarrella \\
      --deals 20000 --seed 1 --workers 2 --html tournament.html
  scopa-sim tournament --variant classic --players greedy,memory --games 5000 --seed 1 --json
"""


def _add_tournament_parser(commands) -> None:
    tour = commands.add_parser(
        "tournament",
        help="a round robin of players on duplicate deals, with CIs, Holm p-values and ratings",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_TOURNAMENT_EPILOG,
        description=(
            "Every pair of players A, B plays two runs with the same seed: lineup A,B and lineup "
            "B,A (with four sides A,B,A,B and B,A,B,A), so every pack (every game's packs) is "
            "played twice with the seats swapped: duplicate play. Per pairing: A minus B in "
            "points per deal (and A's game-win rate with --games), 95%% CIs, paired t-test "
            "p-values Holm-adjusted across the pairings of each metric, and the variance "
            "duplicate play removes; Bradley-Terry ratings (Elo-like scale) with bootstrap CIs. "
            "Players that see hidden cards are rated apart as upper bounds. Runs are resumable: "
            "rerunning an interrupted command plays only what is missing. "
            f"The variants are explained in {RULES_DOC}."
        ),
    )  # fmt: skip
    tour.set_defaults(parser=tour)
    tour.add_argument(
        "--variant", required=True, metavar="NAME",
        help=f"a preset with 2 or 4 sides: {', '.join(PRESETS)}",
    )  # fmt: skip
    tour.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help=f"a rule option, repeatable; options: {', '.join(OPTIONS)}",
    )  # fmt: skip
    tour.add_argument(
        "--players", required=True, metavar="NAME,NAME[,...]",
        help=f"two or more players, each once (specs such as pimc:samples=64 or "
        f"mypkg.mod:Class); from: {', '.join(PLAYER_NAMES)}",
    )  # fmt: skip
    unit = tour.add_mutually_exclusive_group(required=True)
    unit.add_argument(
        "--deals", type=positive_int, metavar="N", help="independent deals per run (paired by deal)"
    )
    unit.add_argument(
        "--games", type=positive_int, metavar="N", help="whole games per run (paired by game)"
    )
    tour.add_argument("--seed", type=seed_int, required=True, metavar="S", help="the seed")
    tour.add_argument(
        "--out", type=Path, metavar="DIR",
        help="tournament folder (default data/tournaments/<variant>-<seed>-<mode>)",
    )  # fmt: skip
    tour.add_argument(
        "--workers", type=positive_int, default=1, metavar="W", help="parallel workers (default 1)"
    )
    tour.add_argument(
        "--backend", choices=BACKENDS, default=None,
        help="joblib backend (default: loky processes); dask runs on a Dask cluster",
    )  # fmt: skip
    tour.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="Dask scheduler address (with --backend dask; default: a local cluster)",
    )  # fmt: skip
    tour.add_argument(
        "--chunk-size", type=positive_int, metavar="N",
        help="deals (games) per chunk file (default 10000 deals or 2000 games)",
    )  # fmt: skip
    tour.add_argument(
        "--batch-size", type=positive_int, default=8192, metavar="N",
        help="deals in lockstep per worker (default 8192)",
    )  # fmt: skip
    bar = tour.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", dest="progress", action="store_true", default=None,
        help="always show progress bars",
    )  # fmt: skip
    bar.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show progress bars"
    )
    tour.add_argument("--json", action="store_true", help="print the results as one JSON object")
    tour.add_argument(
        "--html", type=Path, metavar="FILE", help="also write a self-contained HTML page"
    )


def _tournament(args, parser) -> int:
    if args.scheduler and args.backend != "dask":
        parser.error("--scheduler goes with --backend dask")
    if args.html:
        _check_writable(args.html)
    options = parse_assignments(args.option)
    check_tournament_early(variant(args.variant, dict(options)), args.players)  # as plan, early
    from scopa_sim import tournament

    mode = "deals" if args.deals else "games"
    plan = tournament.plan(  # every check, before anything is written
        variant_name=args.variant, players=args.players.split(","), mode=mode,
        count=args.deals or args.games, seed=args.seed, out=args.out,
        options=options, chunk_size=args.chunk_size,
    )  # fmt: skip
    tournament.play(
        plan, workers=args.workers, backend=args.backend, scheduler=args.scheduler,
        batch_size=args.batch_size, progress=args.progress,
    )  # fmt: skip
    result = tournament.analyse(plan)
    tournament.write_summary(result)
    if args.html:
        # the page, and beside it the replays of the largest duplicate swings it links
        tournament.write_html(result, tournament.command_line(plan, args.out), args.html)
    if args.json:
        print(json.dumps(tournament.to_json(result), indent=1, allow_nan=False))
    else:
        print(tournament.format_table(result))
    return 0


# listings ---------------------------------------------------------------------------------------


def _variants(args, parser) -> int:
    if args.name is None:
        width = max(map(len, PRESETS))
        for name, rules in PRESETS.items():
            print(f"{name:{width}s}  {PRESET_HELP.get(name, name)}; target {rules.target}")
        return 0
    if args.name not in PRESETS:
        raise RulesError(
            f"unknown variant {args.name!r}; choose one of: {', '.join(PRESETS)} (see {RULES_DOC})"
        )
    print(describe_variant(PRESETS[args.name]))
    return 0


def _value(value) -> str:
    """An option value as it is typed on the command line."""
    if isinstance(value, bool):
        return str(value).lower()
    return str(getattr(value, "value", value))


def _hands(hands) -> str:
    """``(3, 3, 3, 3, 4)`` -> "4 hands of 3 cards each, then 1 hand of 4"."""
    runs: list[list[int]] = []
    for size in hands:
        if runs and runs[-1][0] == size:
            runs[-1][1] += 1
        else:
            runs.append([size, 1])
    if len(runs) == 1 and runs[0][1] == 1:
        return f"one hand of {runs[0][0]} cards each"
    parts = [f"{count} hand{'s' if count > 1 else ''} of {size}" for size, count in runs]
    parts[0] += " cards each"
    return ", then ".join(parts)


_CAPTURE_TEXT = {
    "match-or-sum": (
        "a played card takes one table card of the same rank; failing that, one set of two or "
        "more table cards summing to its value; failing that, it stays on the table"
    ),
    "fifteen": (
        "a played card of value v takes one set of one or more table cards summing to 15 - v "
        "(no equal-rank rule); otherwise it stays on the table"
    ),
    "ace-takes-all": (
        "as in the classic game (same rank first, else a sum), except that an ace played with no "
        "ace on the table takes every table card (with an ace there it takes that ace; on an "
        "empty table it stays)"
    ),
}


def describe_variant(rules: Variant) -> str:
    """Everything about a preset, built from its data: new presets and options appear here."""
    get = getattr
    n, sides, pack = rules.n_players, rules.n_sides, rules.pack
    coins = pack.suit_names[0]
    if sides == n:
        who = f"{n} players, each on their own"
    else:
        who = f"{n} players in {sides} teams of {n // sides}, partners sitting opposite"
    table = f"{rules.table_cards} cards on the table" if rules.table_cards else "no table cards"
    deal = f"{pack.name} pack ({pack.n_cards} cards); {table}; {_hands(rules.hands)}"
    if "throw_in" in rules.allowed_options:
        deal += f"; throw-in (3 or 4 kings on the table): {'on' if rules.throw_in else 'off'}"
    else:
        deal += "; no throw-in"
    if get(rules, "opening_sweep", False):
        deal += (
            "; an opening table summing to 15 goes to the dealer as 1 escoba, "
            "30 in two 15s as 2 escobas"
        )
    capture = _CAPTURE_TEXT.get(_value(rules.capture), f"{_value(rules.capture)} (see {RULES_DOC})")
    capture += "; a card that can capture must capture"
    if rules.forced_capture:
        capture += ", and a player who can capture must play a capturing card"
    if rules.fewest_cards:
        capture += "; a sum capture uses as few table cards as possible"

    scoring = ["most cards", f"most {coins}"]
    if get(rules, "most_sevens", False):
        scoring.append("most sevens")
    scoring.append(f"seven of {coins}")
    if get(rules, "primiera", None) is not None:
        scoring.append(
            f"primiera ({_value(rules.primiera)}; a missing suit: "
            f"{_value(rules.primiera_missing_suit)})"
        )
    else:
        scoring.append("no primiera")
    scope = "escobas (1 each" if _value(rules.capture) == "fifteen" else "scope (1 each"
    if rules.last_play_scopa:
        scope += "; the last play's sweep counts"
    else:
        scope += "; not on the last play"
    if _value(rules.capture) == "ace-takes-all":
        ace = get(rules, "ace_sweep_scopa", False)
        scope += "; an ace sweep counts" if ace else "; not an ace sweep"
    scoring.append(scope + ")")
    if get(rules, "re_bello", False):
        scoring.append(f"king of {coins} (re bello)")
    if _value(get(rules, "napola", "off")) != "off":
        scoring.append(f"napola ({_value(rules.napola)})")
    sides_word = "team" if sides < n else "player"
    ties = "ties for the most score nothing"

    end = []
    if get(rules, "scopa_wins_immediately", False):
        end.append(
            f"a scopa that brings a {sides_word} to the target wins at once (the deal stops)"
        )
    if get(rules, "count_in_turn_order", False):
        end.append(
            "at the end of a deal the players count in turn order (seat 0 first, the dealer "
            "last); the first to reach the target wins"
        )
    else:
        end.append(
            f"at the end of a deal the {sides_word} that reaches the target wins; if several "
            "do, the most points; if level, play on"
        )
    if get(rules, "napoleone", False):
        end.append(f"all ten {coins} win the game outright (napoleone)")
    if hasattr(rules, "first_dealer"):
        end.append(f"first dealer: {_value(rules.first_dealer)}")

    lines = [
        f"{rules.name}: {PRESET_HELP.get(rules.name, '')}".rstrip(": "),
        f"  players:  {who}",
        f"  deal:     {deal}",
        f"  capture:  {capture}",
        f"  scoring:  {', '.join(scoring)}; {ties}",
        f"  target:   {rules.target}",
        f"  game end: {'; '.join(end)}",
        "  options (--option KEY=VALUE; default, then allowed values):",
    ]
    accepted = [o for o in OPTIONS.values() if o.name in rules.allowed_options]
    width = max((len(o.name) for o in accepted), default=0)
    defaults = [_value(get(rules, o.name, "")) for o in accepted]
    dwidth = max(map(len, defaults), default=0)
    vwidth = max((len(o.values) for o in accepted), default=0)
    for spec, default in zip(accepted, defaults, strict=True):
        lines.append(
            f"    {spec.name:{width}}  {default:{dwidth}}  {spec.values:{vwidth}}  {spec.help}"
        )
    refused = [name for name in OPTIONS if name not in rules.allowed_options]
    if refused:
        lines.append(f"  not accepted: {', '.join(refused)}")
    lines.append(f"  rules: {RULES_DOC} (§7 for the presets)")
    return "\n".join(lines)


def _players(args, parser) -> int:
    from scopa_sim.players import PLAYERS

    for name, player in PLAYERS.items():
        print(f"{name:12s} {player.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
