"""The rows as printed: figures comparing a row with earlier rows, a JSON line on stdout for
each row and progress on stderr."""

from __future__ import annotations

import json
import sys

from bench.cases import EXPERT_ROW, EXPERT_TARGET
from bench.native import NATIVE_NAME


def annotate(row: dict, seen: dict[str, dict]) -> None:
    """Figures that compare a row with earlier rows of the same run."""
    native = seen.get(NATIVE_NAME, {}).get("deals_per_second")
    if native and row["name"] != NATIVE_NAME and "deals_per_second" in row:
        row.setdefault("native_deals_per_second", native)  # a row may have its own, paired
        share = row["deals_per_second"] / native  # a search row's is tiny: 3 figures kept
        row.setdefault(
            "share_of_native", round(share, 4) if share >= 1e-3 else float(f"{share:.3g}")
        )
    greedy = seen.get("deals greedy vs greedy", {})
    if row["name"] == EXPERT_ROW and "share_of_native" in greedy and "share_of_native" in row:
        # Each a median of rounds against the native yardstick, so the machine's drift cancels.
        row["share_of_greedy"] = round(row["share_of_native"] / greedy["share_of_native"], 3)
        row["target_share_of_greedy"] = EXPERT_TARGET
    if row.get("workers", 1) > 1 and "deals_per_second" in row and "speedup_vs_1_worker" not in row:
        one = seen.get(row["name"].replace(f"{row['workers']} workers", "1 worker"), {})
        if "deals_per_second" in one:
            row["speedup_vs_1_worker"] = round(row["deals_per_second"] / one["deals_per_second"], 2)
    if row["group"] == "presets" and "ns_per_card" in row:
        kind = row["players"][0]  # classic's own row is its reference (ratio 1)
        classic = (
            row if row["variant"] == "classic" else seen.get(f"preset classic {kind} vs {kind}", {})
        )
        if "ns_per_card" in classic:
            row["per_card_vs_classic"] = round(row["ns_per_card"] / classic["ns_per_card"], 3)


def show(row: dict) -> None:
    """Print ``row``: its speed (or why it was skipped) to stderr, the row as JSON to stdout."""
    if "instructions_per_deal" in row:
        what = f"{row['instructions_per_deal']:,} instructions/deal"
    else:
        what = row.get("skipped") or f"{row['deals_per_second']:,} deals/s"
    print(f"bench:   {what}", file=sys.stderr, flush=True)
    print(json.dumps(row), flush=True)
