"""``scopa-sim simulate``: play seeded games or deals on parallel workers into Parquet.

It reads one run from the options or several from a batch file, checks them (early where it
can, so bad input is rejected before the engine loads), then hands each run to the runner.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scopa_sim.cli import checks
from scopa_sim.cli.batch import load_batch
from scopa_sim.cli.checks import PLAYER_NAMES
from scopa_sim.cli.options import (
    add_run_options,
    add_workers_option,
    options_help,
    positive_int,
    seed_int,
)
from scopa_sim.rules import OPTIONS, PRESETS, parse_assignments
from scopa_sim.rules.describe import RULES_DOC

_EPILOG = f"""\
rule options (--option KEY=VALUE, repeatable; in a batch file: options = {{ KEY = VALUE }}):
{options_help()}
Which options each variant accepts, and their defaults: scopa-sim variants NAME. The rules of
every variant and option are explained in {RULES_DOC}.

output: DIR/chunk-NNNNNN.parquet and DIR/manifest.json (configuration, seed, versions, each
chunk's rows and sha256): the folder is the whole run. Read it with scopa_sim.runner.scan(DIR),
which refuses stray or damaged files. A rerun verifies the chunks done and plays the others; a
folder another command (or another scopa-sim, at once) is writing is refused; a folder of an
older scopa-sim (DIR.manifest.json beside it) is converted by scopa-sim migrate DIR. One row per
side per deal; the columns are described in docs/schema.md.

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
Every run's name is one plain folder name (no /, \\, .. or absolute path), and no two runs
share a name: the file is refused before anything plays. Beside --config, --seed S and
--chunk-size N override every run's seed and chunk size (each run's manifest records the
values it played with), and --workers, --backend, --batch-size and --progress apply to every
run; --variant, --players, --games, --deals, --option, --out and --name are refused.

sizes: at most 10^12 games (deals) per run, at most 1,000,000 chunk files (raise --chunk-size
for more), at most 2,000,000 games (10,000,000 deals) per chunk, at most 1,024 workers. Larger
sizes are refused before anything is written.

examples:
  scopa-sim simulate --variant classic --players greedy,random --games 100000 --seed 1 \\
      --workers 2 --out data/example-run
  scopa-sim simulate --config configs/default.toml
  scopa-sim simulate ... --backend dask --scheduler tcp://HOST:8786
"""


def add_parser(commands) -> None:
    sim = commands.add_parser(
        "simulate",
        help="play seeded games or deals on parallel workers into Parquet",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
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
        "--variant", metavar="NAME|FILE.toml",
        help=f"a preset: {', '.join(PRESETS)}; or a variant file FILE.toml (scopa-sim variants "
        f"NAME|FILE; {RULES_DOC} §7 and 'Write your own variant')",
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
    sim.add_argument(
        "--seed", type=seed_int, metavar="S",
        help="the run seed (required; with --config it overrides every run's seed)",
    )  # fmt: skip
    add_workers_option(
        sim,
        default=None,
        help_text="parallel workers (default 1; one worker writes each chunk's file on a second "
        "thread while it plays the next)",
    )
    sim.add_argument("--out", type=Path, metavar="DIR", help="run folder for the Parquet files")
    sim.add_argument("--name", help="the run's name in the data (default: the --out folder's name)")
    add_run_options(
        sim,
        chunk_help="games (or deals) per chunk file (default 20000 games or 100000 deals; 200 "
        "games or 1000 deals when a search player such as pimc plays, so that the workers share "
        "the run; with --config it overrides every run's chunk_size)",
        bars="a progress bar",
    )


def run(args, parser) -> int:
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
        runs = load_batch(args.config, seed=args.seed, chunk_size=args.chunk_size)
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
        if checks.check_run_early(settings):
            checks.check_output_early(
                settings["out"], backend=args.backend, scheduler=args.scheduler
            )
        from scopa_sim.runner import RunConfig

        runs = [(RunConfig.create(**settings), None)]
    from scopa_sim import api, runner

    workers = [args.workers or file_workers or 1 for _, file_workers in runs]
    for (config, _), run_workers in zip(runs, workers, strict=True):
        note = checks.idle_workers_note(
            config.name, config.count, config.chunk_size, run_workers, config.mode
        )
        if note and any(p.searches for p in api.resolve(config.rules(), config.players)[1]):
            print(note, file=sys.stderr)
    # The other workers of every run, forked once now, before anything starts a thread, and
    # with polars imported once, here, for all of them (a one-worker run imports it on its
    # writing thread: storage.py).
    forks = max(workers, default=1) - 1 if args.backend in (None, "loky") else 0
    if forks:
        import polars  # noqa: F401
    with runner.forked_workers(forks):
        for (config, _), run_workers in zip(runs, workers, strict=True):
            summary = runner.run(
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
