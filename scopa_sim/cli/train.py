"""``scopa-sim train-expert``: label positions with search and fit the expert's weights.

The work is ``scopa_sim.training``'s; this module reads and checks the command line before
anything is played, shows progress, writes the weights' file and prints how well each preset's
fit agrees with search on deals it was not fitted on.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path

from scopa_sim.cli.checks import check_writable
from scopa_sim.cli.errors import InputError
from scopa_sim.cli.options import add_workers_option, seed_int

#: Deals labelled per preset by default: most where the reports play most (classic, then
#: scopone), a thousand for every other preset. The last tenth of each is held out of the fit.
DEFAULT_DEALS = {
    "classic": 10_000, "scopone": 3_000, "classic-3p": 1_000, "classic-4p": 1_000,
    "classic-6p": 1_000, "scopone-scientifico": 1_000, "escoba": 1_000,
    "asso-piglia-tutto": 1_000, "scopa-52": 1_000, "scopa-52-3p": 1_000, "scopa-52-4p": 1_000,
    "cirulla": 1_000, "cirulla-3p": 1_000, "cirulla-4p": 1_000,
}  # fmt: skip
DEFAULT_SEED = 7
DEFAULT_POSITIONS = Path("build/expert-positions")

_EPILOG = """\
what it does: plays --deals deals of each preset with the labeller (default
pimc:samples=256:rollout=mix, the best fair player) on every seat; at each decision the
labeller values every legal action (its mean point difference over its samples) and plays the
best. The positions are kept in --positions, 500 deals a file, so an interrupted run resumes and
a second run with the same seed and labeller reads them instead of playing them again. Then the
weights are fitted (every preset pooled, then each preset drawn towards the pooled weights):
a least-squares start (scikit-learn's ridge regression of each decision's centred values on
the centred features), refined to the weights whose pick loses least in search's eyes (the
mean regret of a softmax choice, minimised by scipy's L-BFGS). The last tenth of each preset's
deals is held out and measured: the share of decisions where the expert picks search's best
action, and the points per decision it gives up in search's eyes.

output: the weights' file (--out, default the one the package ships,
scopa_sim/players/expert_weights.json), with the command, seed, labeller, positions, labelling
and fitting time that made it; one line per preset on stdout.

cost (2026-12-07, two workers on a 2-core machine): the default deals (25,000 deals, 940,000
decisions) took 47 minutes to label (2,843 s) and 3.6 minutes to fit (214 s, 6 GB of memory).

example:
  scopa-sim train-expert --deals classic=10000,scopone=3000 --seed 7 --workers 2
"""


def add_parser(commands) -> None:
    train = commands.add_parser(
        "train-expert",
        help="label positions with search and fit the expert player's weights",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
        description=(
            "Train the expert player: positions of every preset labelled by a search player, "
            "and a linear model of the expert's features fitted to search's action values."
        ),
    )
    train.set_defaults(parser=train)
    train.add_argument(
        "--deals", metavar="PRESET=N[,...]",
        help="deals to label per preset (default: classic 10000, scopone 3000, every other "
        "preset 1000); presets not named are not trained",
    )  # fmt: skip
    train.add_argument(
        "--seed", type=seed_int, default=DEFAULT_SEED, metavar="S",
        help=f"seed of the packs and of search's samples (default {DEFAULT_SEED})",
    )  # fmt: skip
    train.add_argument(
        "--labeller", default=None, metavar="SPEC",
        help="the search player that labels (default pimc:samples=256:rollout=mix)",
    )  # fmt: skip
    train.add_argument(
        "--positions", type=Path, default=DEFAULT_POSITIONS, metavar="DIR",
        help=f"where labelled positions are kept and resumed from (default {DEFAULT_POSITIONS})",
    )  # fmt: skip
    train.add_argument(
        "--out", type=Path, default=None, metavar="FILE",
        help="the weights' file to write (default: the package's expert_weights.json)",
    )  # fmt: skip
    add_workers_option(train, help_text="processes labelling at once (default 1)")


def deals_of(text: str | None) -> dict[str, int]:
    """``--deals`` as ``{preset: deals}``; one line naming what is wrong."""
    from scopa_sim.rules import presets

    if text is None:
        return dict(DEFAULT_DEALS)
    out = {}
    for item in text.split(","):
        name, _, number = (part.strip() for part in item.partition("="))
        if name not in presets.PRESETS:
            raise InputError(
                f"--deals names {name!r}, which is not a preset; choose among "
                f"{', '.join(presets.PRESETS)} (as PRESET=N,PRESET=N)"
            )
        if not number.isdigit() or int(number) < 10:
            raise InputError(
                f"--deals {name}={number!r}: give a whole number of deals, at least 10 (a tenth "
                "is held out of the fit)"
            )
        out[name] = int(number)
    return out


def _positions_folder(folder: Path) -> None:
    """Create ``--positions`` (an empty folder is no output), or one line saying why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(
            f"--positions {folder}: cannot create the folder ({e.strerror}); choose another"
        ) from None
    if not os.access(folder, os.W_OK):
        raise InputError(f"--positions {folder}: the folder is not writable; choose another")


def run(args, parser) -> int:
    from tqdm import tqdm

    from scopa_sim import training
    from scopa_sim.players import player

    deals = deals_of(args.deals)
    labeller = args.labeller or training.LABELLER
    searcher = player(labeller)
    if not callable(getattr(searcher, "explain", None)):
        raise InputError(
            f"--labeller {labeller!r} does not value its actions (no explain); name a search "
            "player such as pimc or ismcts"
        )
    out = args.out or training.weights_path()
    if out.is_dir():
        raise InputError(f"--out {out} is a folder; name a file, e.g. expert_weights.json")
    check_writable(out)
    _positions_folder(args.positions)
    positions = {}
    with tqdm(total=sum(deals.values()), unit="deal", desc="labelling", file=sys.stderr) as bar:
        for name, n in deals.items():
            bar.set_postfix_str(name)
            held = max(1, n // 10)
            fitted = training.labelled_positions(
                args.positions, name, range(0, n - held), args.seed, labeller, args.workers,
                bar.update,
            )  # fmt: skip
            kept_out = training.labelled_positions(
                args.positions, name, range(n - held, n), args.seed, labeller, args.workers,
                bar.update,
            )  # fmt: skip
            positions[name] = (fitted, kept_out)
    command = "scopa-sim train-expert " + " ".join(
        shlex.quote(a) for a in [
            "--deals", ",".join(f"{k}={v}" for k, v in deals.items()), "--seed", str(args.seed),
            "--labeller", labeller,
        ]
    )  # fmt: skip
    provenance = {
        "command": command,
        "seed": args.seed,
        "labeller": labeller,
        "deals": deals,
        "held_out": "the last tenth of each preset's deals",
        "labelling_seconds": round(sum(a.seconds + b.seconds for a, b in positions.values())),
        "workers": args.workers,
    }
    started = time.perf_counter()
    with tqdm(total=1 + len(positions), unit="fit", desc="fitting", file=sys.stderr) as bar:
        iterations = {}

        def progress(fit: str, done: bool) -> None:
            """One bar step per fit (every preset pooled, then each preset's own), with the
            running fit's L-BFGS iteration beside it."""
            if done:
                bar.update()
            else:
                iterations[fit] = iterations.get(fit, 0) + 1
                bar.set_postfix_str(f"{fit}, iteration {iterations[fit]}")

        weights = training.train(positions, provenance, progress)
    weights["trained"]["fit_seconds"] = round(time.perf_counter() - started)
    out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    for name, r in weights["trained"]["presets"].items():
        print(
            f"{name}: {r['decisions']:,} decisions; held out: picks search's best in "
            f"{r['agreement_held_out']:.1%}, gives up {r['regret_held_out']:.3f} points a decision"
        )
    print(f"wrote {out}", file=sys.stderr)
    return 0
