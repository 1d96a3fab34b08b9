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
from analyses._common import DATA, REPORTS, MissingData
from scopa_sim.reporting import write_site

ANALYSES = (
    family,
    ace_value,
    card_values,
    seat_advantage,
    deal_shape,
    variant_comparison,
    who_plays_best,  # reads data/tournaments/ (`make tournament`)
    luck_skill,  # reads data/tournaments/ (`make luck-skill`)
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Build every report page and the index.")
    parser.add_argument("--data", type=Path, default=DATA, help="folder of simulated runs")
    parser.add_argument("--out", type=Path, default=REPORTS, help="folder for the HTML pages")
    args = parser.parse_args(argv)
    pages = []
    for module in ANALYSES:
        started = time.perf_counter()
        try:
            page = module.build(args.data)
        except MissingData as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        pages.append(page)
        print(f"{page.slug}: {page.finding} ({time.perf_counter() - started:.1f} s)")
    for path in write_site(pages, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
