"""Chart of how cost grows, from a saved ``make bench`` output.

    make bench > bench.jsonl
    .venv/bin/python bench/chart.py bench.jsonl            # writes docs/bench-scaling.svg
    .venv/bin/python bench/chart.py bench.jsonl -o chart.png

Left: deals per second of the ``growth`` rows (classic, random vs random, one core, each size
in a fresh process) against the number of deals, with the whole-process rows (``scopa-sim
simulate``, start-up and Parquet writing included) as points and the native C yardstick as a
line. Right: the peak memory of the same processes, and its growth after the warm-up. Both x
axes are logarithmic. The format follows the output's extension (.svg, .png, .pdf).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from matplotlib.figure import Figure

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "bench-scaling.svg"


def read_rows(path: Path) -> list[dict]:
    """Rows of a bench output: JSON lines (one object a line), or one JSON list."""
    text = path.read_text()
    if text.lstrip().startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def _whole_process(row: dict) -> str:
    """A process row's legend: its workers, and its cores when it was confined to fewer."""
    label = f"whole process, {row['workers']} worker(s)"
    return label + (", one core" if row.get("cores") == 1 else "")


def chart(rows: list[dict], out: Path) -> Path:
    growth = sorted(
        (r for r in rows if r.get("group") == "growth" and "skipped" not in r),
        key=lambda r: r["deals"],
    )
    if not growth:
        raise SystemExit("no growth rows in the output: run make bench (or --only growth)")
    process = [r for r in rows if r.get("group") == "process" and "skipped" not in r]
    native = next((r for r in rows if r.get("group") == "native" and "skipped" not in r), None)
    deals = [r["deals"] for r in growth]

    fig = Figure(figsize=(10, 4), layout="constrained")  # no pyplot: no display needed
    speed, memory = fig.subplots(1, 2)
    speed.plot(deals, [r["deals_per_second"] for r in growth], "o-", label="engine, one core")
    for i, row in enumerate(process):  # the same colours in both panels
        label = _whole_process(row)
        speed.plot(row["deals"], row["deals_per_second"], "s", color=f"C{i + 2}", label=label)
    if native:
        speed.axhline(native["deals_per_second"], color="grey", linestyle="--",
                      label=f"native C: {native['deals_per_second']:,} deals/s")  # fmt: skip
        speed.set_yscale("log")
    speed.set(xscale="log", xlabel="deals", ylabel="deals per second",
              title="Throughput, classic random vs random")  # fmt: skip
    speed.legend(fontsize="small")
    speed.grid(True, which="both", alpha=0.3)

    memory.plot(deals, [r["peak_memory_mb"] for r in growth], "o-", label="peak RSS (process)")
    memory.plot(deals, [r.get("rss_growth_mb", 0) for r in growth], "o--",
                label="growth after warm-up")  # fmt: skip
    for i, row in enumerate(process):
        label = f"{_whole_process(row)}: largest process"
        memory.plot(row["deals"], row["peak_memory_mb"], "s", color=f"C{i + 2}", label=label)
    memory.set(xscale="log", xlabel="deals", ylabel="MiB", title="Peak memory", ylim=(0, None))
    memory.legend(fontsize="small")
    memory.grid(True, which="both", alpha=0.3)

    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Chart the growth rows of a make bench output.")
    parser.add_argument("output", type=Path, help="a saved make bench output (JSON lines)")
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT,
                        help="the chart file (default docs/bench-scaling.svg)")  # fmt: skip
    args = parser.parse_args(argv)
    print(chart(read_rows(args.output), args.out))


if __name__ == "__main__":
    main()
