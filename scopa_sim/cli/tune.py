"""``scopa-sim tune``: search a heuristic player's weights by duplicate play (CMA-ES).

The search is ``scopa_sim.tuning``'s; this module reads the command line, checks the variant,
players and output file before anything is played, shows progress, and prints the result.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scopa_sim.cli.checks import check_writable
from scopa_sim.cli.errors import InputError
from scopa_sim.cli.options import add_workers_option, positive_float, positive_int, seed_int
from scopa_sim.rules.describe import RULES_DOC

_EPILOG = """\
how a candidate is scored: it plays --deals deals against every player of --pool, each pack
twice with the seats swapped (duplicate play, as scopa-sim tournament plays a pairing), and its
score is its mean point difference per deal over the pool. The candidates of a generation play
the same packs; each generation deals packs of its own. The tuned weights (the mean of the
search distribution at the end, 4 decimals) are then played on packs of their own against the
pool and against the base player, with paired 95 % intervals.

tunable players: memory (weights scopa, caution, lay, extra_settebello, extra_sevens,
extra_coins; docs/players.md says what each weighs and the range searched).

output: the tuned player spec on stdout (and in --out FILE, one line): pass it to --players of
any command. Progress, one line per generation, goes to stderr. --json prints {"spec",
"weights", "settings", "generations": [{"index", "best", "mean", "best_spec"}], "validation":
[{"opponent", "tuned", "base"}], "against_base"} (estimates as {"value", "low", "high", "n"}).

cost: generations x population x pool x 2 x deals deals (defaults: 8 x 8 x 3 x 2 x 2,000, about
770,000 deals of fused players: a minute or two on one core).

examples:
  scopa-sim tune --variant classic --player memory --pool greedy,memory,chitarrella \\
      --deals 2000 --generations 8 --seed 1 --out tuned-memory.txt
  scopa-sim tournament --variant classic --players memory,"$(cat tuned-memory.txt)" \\
      --deals 20000 --seed 2
"""


def add_parser(commands) -> None:
    tune = commands.add_parser(
        "tune",
        help="search a heuristic player's weights with CMA-ES, by duplicate play against a pool",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
        description=(
            "Search the weights of a parameterised heuristic player (--player, e.g. memory) with "
            "CMA-ES (the cma package), scoring every candidate by duplicate play against the "
            "players of --pool, and print the tuned weights as a player spec. "
            f"The variants are explained in {RULES_DOC}."
        ),
    )
    tune.set_defaults(parser=tune)
    tune.add_argument(
        "--variant", default="classic", metavar="NAME",
        help="VARIANT[:KEY=VALUE,...], a preset or a variant file (default classic)",
    )  # fmt: skip
    tune.add_argument(
        "--player", default="memory", metavar="SPEC",
        help="the player to tune, its spec the starting weights (default memory)",
    )  # fmt: skip
    tune.add_argument(
        "--pool", default="greedy,memory,chitarrella", metavar="SPEC[,SPEC,...]",
        help="the fair players a candidate is scored against (default greedy,memory,chitarrella)",
    )  # fmt: skip
    tune.add_argument(
        "--deals", type=positive_int, default=2000, metavar="N",
        help="deals per pairing and candidate, each played twice (default 2000; at least 2)",
    )  # fmt: skip
    tune.add_argument(
        "--generations", type=positive_int, default=8, metavar="G",
        help="CMA-ES generations (default 8)",
    )  # fmt: skip
    tune.add_argument(
        "--population", type=positive_int, default=8, metavar="P",
        help="candidates per generation (default 8; at least 2)",
    )  # fmt: skip
    tune.add_argument(
        "--sigma", type=positive_float, default=0.2, metavar="S",
        help="initial step, as a share of each weight's range (default 0.2; at most 1)",
    )  # fmt: skip
    tune.add_argument("--seed", type=seed_int, default=1, metavar="S", help="seed (default 1)")
    add_workers_option(tune, help_text="processes scoring candidates at once (default 1)")
    tune.add_argument("--out", type=Path, metavar="FILE", help="also write the spec to FILE")
    tune.add_argument("--json", action="store_true", help="print the result as one JSON object")


def settings_of(args):
    from scopa_sim import tuning

    pool = tuple(p.strip() for p in args.pool.split(","))
    if not all(pool):
        raise InputError(f"--pool {args.pool!r} has an empty player; name them NAME,NAME,...")
    return tuning.Settings(
        variant=args.variant, base=args.player.strip(), pool=pool, deals=args.deals,
        generations=args.generations, population=args.population, sigma=args.sigma,
        seed=args.seed, workers=args.workers,
    )  # fmt: skip


def run(args, parser) -> int:
    from scopa_sim import tuning

    settings = settings_of(args)
    tuning.check(settings)
    if args.out is not None:
        if args.out.is_dir():
            raise InputError(f"--out {args.out} is a folder; name a file, e.g. tuned.txt")
        check_writable(args.out)

    def progress(g) -> None:
        print(
            f"tune: generation {g.index + 1}/{settings.generations}: best {g.best:+.4f}, mean "
            f"{g.mean:+.4f} points per deal over the pool",
            file=sys.stderr, flush=True,
        )  # fmt: skip

    result = tuning.tune(settings, progress)
    if args.out is not None:
        args.out.write_text(result.spec + "\n")
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    print(result.spec)
    print(
        f"on packs of their own ({settings.deals:,} deals, each twice), points per deal:",
        file=sys.stderr,
    )
    for v in result.validation:
        print(f"  against {v.opponent}: tuned {v.tuned}, {settings.base} {v.base}", file=sys.stderr)
    print(f"  tuned minus {settings.base}: {result.against_base}", file=sys.stderr)
    return 0
