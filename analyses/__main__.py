"""``python -m analyses``: every analysis page and the index, into ``reports/``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from analyses import (
    ace_value,
    card_values,
    deal_shape,
    family,
    luck_skill,
    seat_advantage,
    variant_comparison,
    who_plays_best,
)
from analyses.framework import DATA, REPORTS, MissingData
from scopa_sim.reporting import write_site

#: Every page, in the order of the index (each follows ``analyses.Page``).
PAGES = (
    family,
    ace_value,
    card_values,
    seat_advantage,
    deal_shape,
    variant_comparison,
    who_plays_best,  # reads data/tournaments/ (`make tournament`)
    luck_skill,  # reads data/tournaments/ (`make luck-skill`)
)


def _build(module, data: Path):
    """One page: ``(page, seconds)``, or ``(None, error)`` when its data are missing.
    ``module`` is an analysis module, or its name (in a worker process)."""
    import importlib

    started = time.perf_counter()
    try:
        if isinstance(module, str):
            module = importlib.import_module(module)
        page = module.build(data)
    except MissingData as err:
        return None, str(err)
    return page, time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Build every report page and the index.")
    parser.add_argument("--data", type=Path, default=DATA, help="folder of simulated runs")
    parser.add_argument("--out", type=Path, default=REPORTS, help="folder for the HTML pages")
    parser.add_argument(
        "--jobs", type=int, default=2, metavar="N",
        help="pages built at once, each in its own process (default 2; the pages are the same)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.jobs == 1:
        built = (_build(module, args.data) for module in PAGES)
    else:
        from joblib import Parallel, delayed

        built = Parallel(n_jobs=args.jobs, return_as="generator")(
            delayed(_build)(module.__name__, args.data) for module in PAGES
        )  # in PAGES order, whichever finishes first
    pages = []
    for page, detail in built:
        if page is None:
            print(f"error: {detail}", file=sys.stderr)
            return 2
        pages.append(page)
        print(f"{page.slug}: {page.finding} ({detail:.1f} s)")
    for path in write_site(pages, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
