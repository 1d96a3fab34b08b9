"""``scopa-sim compare``: play variants side by side and report differences with CIs and p-values.

The playing, pairing and statistics are ``scopa_sim.compare``'s; this module reads the command
line, rejects a bad arm or an unwritable page before that module loads, and prints the result.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scopa_sim.cli.checks import check_writable
from scopa_sim.cli.options import add_workers_option, options_help, positive_int, seed_int
from scopa_sim.rules import parse_variant
from scopa_sim.rules.describe import RULES_DOC
from scopa_sim.sizes import MIN_UNITS

#: The exit status of ``compare --precision`` when a target is not met by ``--max``: the output
#: is complete and correct for its size, but not as precise as asked.
EXIT_PRECISION_NOT_MET = 3

_EPILOG = f"""

sizes: at least {MIN_UNITS} deals (games) per arm (fewer give intervals that claim too much),
and at most what this machine's memory holds (compare keeps every deal's values; the cap is
--max with --precision); larger sizes are refused before anything plays.

exit status: 0 done (with --precision: every target met), 2 bad input, 3 --precision targets
not met by --max (the output is complete for its size; a line on stderr names each metric that
missed, its half-width and target, and the size that would meet it, extrapolated as 1/sqrt(n)).

examples:
  scopa-sim compare classic classic:forced_capture=true --players greedy,random \\
      --deals 200000 --seed 1 --workers 2 --html compare.html
  scopa-sim compare classic classic:forced_capture=true --players greedy,random \\
      --deals 20000 --seed 1 --precision points=0.01,scope=0.005 --max 2000000
"""


def add_parser(commands) -> None:
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
    cmp.epilog = "options in an ARM (VARIANT:KEY=VALUE,KEY=VALUE):\n" + options_help() + _EPILOG
    cmp.set_defaults(parser=cmp)
    cmp.add_argument(
        "arms",
        nargs="+",
        metavar="ARM",
        help="VARIANT[:KEY=VALUE,...], VARIANT a preset or a variant file FILE.toml; the first "
        "is the baseline",
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
    add_workers_option(cmp)
    cmp.add_argument(
        "--precision", metavar="H | H% | METRIC=H[%],...",
        help="keep doubling the deals (games) until the 95%% CIs are narrow enough. A bare H "
        "applies to every metric (each arm's estimate and each difference, in the metric's own "
        "unit: points, scope, deals or shares alike); METRIC=H sets one metric's half-width (a "
        "name, or a prefix: points=0.01 covers points_seat0, points_seat1, ...; game_win=0.005). "
        "Prefer these absolute targets: H%% is relative (H percent of the first arm's estimate "
        "of the metric, e.g. points=1%%), which makes when to stop depend on the estimate and "
        "biases it (docs/precision.md), and is refused after the first round for a metric whose "
        "estimate is within its own interval of zero. Metrics a per-metric list leaves out have "
        "no target, unless a bare H is given too (e.g. 0.05,game_win=0.005). The output says "
        "whether the targets were met and at what size; unmet at --max: exit status 3",
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


def run(args, parser) -> int:
    if args.precision is None:  # the checks below, early: an arm only the rules need to read
        if args.html:
            check_writable(args.html)
        for text in args.arms:
            parse_variant(text)  # as compare.parse_arms
    from scopa_sim import compare, compare_page

    precision = compare.parse_precision(args.precision)
    if args.html:
        check_writable(args.html)
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

        args.html.write_text(reporting.render_page(compare_page.page(result)), encoding="utf-8")
    if args.json:
        print(json.dumps([json_row(result, row) for row in result.rows], indent=1))
    else:
        print(compare_page.format_table(result))
    if precision is not None and not result.precision_met:
        print(
            f"scopa-sim: {precision.outcome(result)} Raise --max or loosen the targets.",
            file=sys.stderr,
        )
        return EXIT_PRECISION_NOT_MET
    return 0


def json_row(result, row) -> dict:
    """A row of ``--json``; with ``--precision``, its target and whether its intervals met it."""
    out = row.to_json()
    if result.precision is None:
        return out
    gaps = result.precision.gaps_of(result, row)
    out["precision_target"] = gaps[0][3] if gaps else None
    out["precision_met"] = all(ratio < 1 for ratio, *_ in gaps) if gaps else None
    return out
