"""``scopa-sim plan``: how many deals (games) a comparison needs, from a pilot of every arm.

The pilot and the power analysis are ``scopa_sim.planning``'s; this module is its command line.
"""

from __future__ import annotations

import argparse
import json

from scopa_sim.cli.options import (
    add_workers_option,
    positive_float,
    positive_int,
    probability,
    seed_int,
)
from scopa_sim.rules.describe import RULES_DOC

_EPILOG = """\
metrics (as scopa-sim compare names them): points_seat0, points_seat1, ... (points per deal of
each side, by its seat in the deal), dealer_edge, scope; with --mode games also game_win_seat0,
game_win_seat1, ... (shares of games won) and game_length (deals per game).

--json prints {"metric", "effect", "power", "alpha", "tests", "alpha_family", "mode", "unit",
"pilot", "seed", "first_arm", "arms": [{"arm", "design", "reason", "pilot_diff",
"pilot_diff_ci_low", "pilot_diff_ci_high", "sd_first", "sd_arm", "correlation", "sd_diff",
"paired", "unpaired", "paired_family", "unpaired_family"}]}.

multiple tests: compare tests every metric of every arm in one Holm family ("tests", m, less
the differences fixed by others), so the plan sizes each arm at --alpha per test and at the
Bonferroni level alpha/m ("alpha_family", Holm's first step; the columns "at alpha/m",
"paired_family"/"unpaired_family"): quote those for a comparison you will run with compare.

refused: --pilot below 30 (too few to estimate an SD from), an --effect at or beyond the span
of the metric's values in the pilot (a share of games won differs by less than 1), and an
--effect so small that a size passes 10^12 (the message gives the smallest it can size).

examples:
  scopa-sim plan classic classic:forced_capture=true --players greedy,random \\
      --metric scope --effect 0.01
  scopa-sim plan classic classic:target=16 --players greedy --mode games --metric game_win_seat0 \\
      --effect 0.01 --power 0.9 --pilot 2000
"""


def add_parser(commands) -> None:
    pln = commands.add_parser(
        "plan",
        help="how many deals (games) a comparison needs: a pilot, then paired and unpaired sizes",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
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
        "arms",
        nargs="+",
        metavar="ARM",
        help="VARIANT[:KEY=VALUE,...], VARIANT a preset or a variant file FILE.toml; the first "
        "is the baseline",
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
        "--effect", required=True, type=positive_float, metavar="D",
        help="the smallest true difference worth finding, in the metric's unit",
    )  # fmt: skip
    pln.add_argument(
        "--power", type=probability, default=0.8, metavar="P",
        help="chance of finding a true difference D (default 0.8)",
    )  # fmt: skip
    pln.add_argument(
        "--alpha", type=probability, default=0.05, metavar="A",
        help="two-sided significance level of each test (default 0.05); the plan also sizes at "
        "alpha/m, m the tests compare will make",
    )  # fmt: skip
    pln.add_argument(
        "--mode", choices=("deals", "games"), default="deals",
        help="size in independent deals (default) or whole games",
    )  # fmt: skip
    pln.add_argument(
        "--pilot", type=positive_int, default=20_000, metavar="N",
        help="pilot deals (games) per arm (default 20000; at least 30)",
    )  # fmt: skip
    pln.add_argument(
        "--seed", type=seed_int, default=1, metavar="S", help="seed of the pilot (default 1)"
    )
    add_workers_option(pln)
    pln.add_argument("--json", action="store_true", help="print the plan as one JSON object")


def run(args, parser) -> int:
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
