"""``scopa-sim tournament``: a round robin of players on duplicate deals, with ratings.

Planning, playing and analysing are ``scopa_sim.tournament``'s; this module reads the command
line, checks the variant and players early (before the engine loads), and prints the result.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scopa_sim.cli import checks
from scopa_sim.cli.checks import PLAYER_NAMES, check_writable
from scopa_sim.cli.options import add_run_options, add_workers_option, positive_int, seed_int
from scopa_sim.rules import OPTIONS, PRESETS, parse_assignments, variant
from scopa_sim.rules.describe import RULES_DOC

_EPILOG = """\
output: DIR/<a>-vs-<b>/ and DIR/<b>-vs-<a>/, one run folder per lineup of every pair (Parquet,
as scopa-sim simulate writes, each with its manifest inside), DIR/summary.parquet (the pairings
table), DIR/ratings.parquet and DIR/manifest.json (a tournament's folder: no other command writes
into it, and a tournament does not write into another command's folder).
Default DIR: data/tournaments/<variant>-<seed>-<mode>.

--json prints {"pairings": [{"a", "b", "metric", "estimate", "ci_low", "ci_high", "p_value",
"p_holm", "n"}, ...], "ratings": [{"player", "rating", "ci_low", "ci_high", "packs"}, ...],
"variance_reduction": X, ...} with the design, the Holm family, the metric definitions,
"upper_bound_ratings" (players that see hidden cards, never ranked with the others), the
variance reduction of each pairing, "ratings_scale" (deals and games ratings are on different
scales) and "ratings_fit" (the rating model's goodness of fit and tie parameter) as extra keys.

examples:
  scopa-sim tournament --variant classic --players random,greedy,defensive,memory,chitarrella \\
      --deals 20000 --seed 1 --workers 2 --out data/example-tournament --html example.html
  scopa-sim tournament --variant classic --players greedy,memory --games 5000 --seed 1 \\
      --out data/example-games --json

sizes: at most 10^12 deals (games) per run, 1,000,000 chunk files per run (raise --chunk-size
for more), 10,000,000 deals (2,000,000 games) per chunk, 1,024 workers. Larger sizes are
refused before anything is written.
"""


def add_parser(commands) -> None:
    tour = commands.add_parser(
        "tournament",
        help="a round robin of players on duplicate deals, with CIs, Holm p-values and ratings",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
        description=(
            "Every pair of players A, B plays two runs with the same seed: lineup A,B and lineup "
            "B,A (with four sides A,B,A,B and B,A,B,A), so every pack (every game's packs) is "
            "played twice with the seats swapped: duplicate play. Per pairing: A minus B in "
            "points per deal (and A's game-win rate with --games), 95% CIs, paired t-test "
            "p-values Holm-adjusted across the pairings of each metric, and the variance "
            "duplicate play removes; ratings (Davidson's model of wins and ties, Elo-like scale) "
            "with pack-bootstrap CIs and the model's goodness of fit. "
            "Players that see hidden cards are rated apart as upper bounds. Runs are resumable: "
            "rerunning an interrupted command plays only what is missing. "
            f"The variants are explained in {RULES_DOC}."
        ),
    )  # fmt: skip
    tour.set_defaults(parser=tour)
    tour.add_argument(
        "--variant", required=True, metavar="NAME|FILE.toml",
        help=f"a preset with 2 or 4 sides: {', '.join(PRESETS)}; or a variant file FILE.toml",
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
    add_workers_option(tour)
    add_run_options(
        tour,
        chunk_help="deals (games) per chunk file (default 10000 deals or 2000 games; 1000 deals "
        "or 200 games when a search player such as pimc plays, so that the workers share a run)",
        bars="progress bars",
    )
    tour.add_argument("--json", action="store_true", help="print the results as one JSON object")
    tour.add_argument(
        "--html", type=Path, metavar="FILE", help="also write a self-contained HTML page"
    )


def run(args, parser) -> int:
    if args.scheduler and args.backend != "dask":
        parser.error("--scheduler goes with --backend dask")
    if args.html:
        check_writable(args.html)
    options = parse_assignments(args.option)
    checks.check_tournament_early(
        variant(args.variant, dict(options)), args.players
    )  # as plan, early
    from scopa_sim import tournament

    mode = "deals" if args.deals else "games"
    plan = tournament.plan(  # every check, before anything is written
        variant_name=args.variant, players=args.players.split(","), mode=mode,
        count=args.deals or args.games, seed=args.seed, out=args.out,
        options=options, chunk_size=args.chunk_size,
    )  # fmt: skip
    note = checks.idle_workers_note(
        "each run", plan.count, plan.chunk_size, args.workers, plan.mode
    )
    if note and any(e.searches for e in plan.entrants):
        print(note, file=sys.stderr)
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
