"""A tournament's results as text, JSON and the Parquet summary tables.

The method texts below are shown as they are by the terminal table, the JSON and the page.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import polars as pl

from scopa_sim import stats
from scopa_sim.text import plain_table
from scopa_sim.tournament.estimate import METRICS, Result, Row
from scopa_sim.tournament.ratings import BOOTSTRAP_REPLICATES, SCALES, UPPER_BOUND_LABEL, Rating

VARIANCE_REDUCTION_TEXT = (
    "variance reduction = 1 - Var(dup) / (Var(plain) / 2): dup is the per-unit duplicate value "
    "(the two seatings of the same packs), plain is A - B of one run alone (its variance the mean "
    "of the two runs'); Var(plain) / 2 is what two independent units would give, so this is the "
    "share of the variance duplicate play removes (pooled: summed variances over pairings)"
)
RATINGS_TEXT = (
    "Davidson (1970) strengths fitted by maximum likelihood to the wins, ties and losses of each "
    "pairing's packs (ties modelled, not scored as half wins), with one virtual unit per pairing "
    "split equally among loss, tie and win; mean log-strength 0; rating = 400*log10(strength); "
    "95% CI: percentile bootstrap, {replicates} replicates, packs resampled jointly (one set of "
    "pack indices per replicate for every pairing, as all pairings play the same packs); n: the "
    "packs a rating rests on"
)
RATING_COLUMNS = ["rank", "player", "rating", "95% CI", "n (packs)"]


def ratings_text(result: Result) -> str:
    """The rating method, the scale of this tournament's mode and the model's fit, one text."""
    text = RATINGS_TEXT.format(replicates=BOOTSTRAP_REPLICATES)
    text += f"; {SCALES[result.tournament.mode]}, not comparable with the other mode's"
    return text + (f"; {result.fit.text()}" if result.fit else "")


def design_text(result: Result, family: str = "the pairings of each metric") -> str:
    """The design in one paragraph; ``family``: what the Holm adjustment runs over (a page that
    puts several tournaments in one family says so)."""
    t = result.tournament
    unit = "deals" if t.mode == "deals" else "games"
    return (
        f"Round robin on duplicate {unit}: {t.variant}"
        + (f" ({', '.join(f'{k}={v}' for k, v in sorted(t.options.items()))})" if t.options else "")
        + f", seed {t.seed}, {len(t.pairings)} pairings. Each pairing plays two runs of "
        f"{t.count:,} {unit} with the same seed, lineup (A, B) and lineup (B, A): the same packs "
        f"and first dealers with the seats swapped. Estimates are A minus B from A's point of "
        f"view, paired by {'deal' if t.mode == 'deals' else 'game'}; 95% t intervals and paired "
        f"t-tests on the per-unit duplicate values; Holm family: {family}."
    )


def to_json(result: Result) -> dict:
    def clean(x):
        return None if x is None or (isinstance(x, float) and not np.isfinite(x)) else x

    t = result.tournament
    return {
        "pairings": [r.to_json() for r in result.rows],
        "ratings": [r.to_json() for r in result.ratings],
        "variance_reduction": clean(result.variance_reduction),
        "upper_bound_ratings": [r.to_json() for r in result.upper_bounds],
        "variance_reduction_by_pairing": [
            {"a": r.a, "b": r.b, "variance_reduction": clean(r.variance_reduction)}
            for r in result.rows
            if r.metric == "points_per_deal"
        ],
        "design": design_text(result),
        "family": "Holm adjustment across the pairings of each metric (one family per metric)",
        "metrics": {m: METRICS[m] for m in t.metrics()},
        "variance_reduction_definition": VARIANCE_REDUCTION_TEXT,
        "ratings_method": RATINGS_TEXT.format(replicates=BOOTSTRAP_REPLICATES),
        "ratings_scale": SCALES[t.mode],
        "ratings_fit": result.fit.to_json() if result.fit else None,
        "packs": result.units,
        "units_per_pairing": result.units,
        "mode": t.mode,
        "seed": t.seed,
        "variant": t.variant,
        "options": {
            k: v if isinstance(v, str | int | float | bool) else str(v)
            for k, v in sorted(t.options.items())
        },
        "players": [e.spec for e in t.entrants],
        "out": str(t.out),
    }


def _signed(x: float, digits: int = 3) -> str:
    return f"{x:+.{digits}f}"


def estimate_text(row: Row) -> str:
    """Estimate and 95% CI; in place of the interval, a flag when the sample did not vary."""
    e = row.estimate
    if not e.estimable:
        value = f"{e.value:.3f}" if row.metric == "game_win" else _signed(e.value)
        return f"{value} ({stats.not_estimable_text(e.n)})"
    if row.metric == "game_win":
        return f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}]"
    return f"{_signed(e.value)} [{_signed(e.low)}, {_signed(e.high)}]"


def format_variance_reduction(x: float | None) -> str:
    """A variance reduction to three decimals; a dash when there is none."""
    return "—" if x is None else f"{x:.3f}"


def pairing_table(result: Result) -> tuple[list[str], list[list[str]]]:
    header = ["metric", "A", "B", "estimate [95% CI]", "p", "p (Holm)", "var. reduction", "n"]
    rows = [
        [
            r.metric,
            r.a,
            r.b,
            estimate_text(r),
            stats.format_p(r.p_value),
            stats.format_p(r.p_holm),
            format_variance_reduction(r.variance_reduction),
            f"{r.estimate.n:,}",
        ]
        for r in result.rows
    ]
    return header, rows


def rating_rows(ratings: list[Rating]) -> list[list[str]]:
    return [
        [
            str(k),
            r.player,
            f"{r.rating:+.0f}",
            f"[{r.ci_low:+.0f}, {r.ci_high:+.0f}]",
            f"{r.packs:,}",
        ]
        for k, r in enumerate(ratings, 1)
    ]


def format_table(result: Result) -> str:
    t = result.tournament
    lines = [design_text(result), ""]
    for metric in t.metrics():
        lines.append(f"{metric}: {METRICS[metric]}")
    header, rows = pairing_table(result)
    lines += plain_table(header, rows)
    pooled = format_variance_reduction(result.variance_reduction)
    lines.append(
        f"variance reduction, pooled over pairings: {pooled}; "
        + VARIANCE_REDUCTION_TEXT.replace("variance reduction = ", "defined as ")
    )
    lines.append("")
    lines.append("ratings: " + ratings_text(result))
    if result.ratings:
        lines += plain_table(RATING_COLUMNS, rating_rows(result.ratings))
    if result.upper_bounds:
        lines.append("")
        lines.append(
            f"{UPPER_BOUND_LABEL}: rated apart, against the fair players' fitted strengths "
            "held fixed; never ranked with them"
        )
        lines += plain_table(RATING_COLUMNS, rating_rows(result.upper_bounds))
    lines.append("")
    lines.append(f"data: {t.out} (summary.parquet: the pairings; ratings.parquet)")
    return "\n".join(lines)


def write_summary(result: Result) -> list[Path]:
    """``summary.parquet`` (the pairings table) and ``ratings.parquet`` in the tournament folder,
    each written under a temporary name and renamed into place."""
    t = result.tournament
    pairings = pl.DataFrame(
        [
            {**r.to_json(), "variance_reduction": r.variance_reduction}
            for r in result.rows
        ],
        schema={
            "a": pl.String, "b": pl.String, "metric": pl.String, "estimate": pl.Float64,
            "ci_low": pl.Float64, "ci_high": pl.Float64, "p_value": pl.Float64,
            "p_holm": pl.Float64, "n": pl.Int64, "variance_reduction": pl.Float64,
        },
    )  # fmt: skip
    ratings = pl.DataFrame(
        [{**asdict_rating(r)} for r in [*result.ratings, *result.upper_bounds]],
        schema={
            "player": pl.String, "rating": pl.Float64, "ci_low": pl.Float64,
            "ci_high": pl.Float64, "upper_bound": pl.Boolean, "packs": pl.Int64,
        },
    )  # fmt: skip
    t.out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in (("summary.parquet", pairings), ("ratings.parquet", ratings)):
        path = t.out / name
        tmp = t.out / f".{name}.{os.getpid()}.tmp"
        frame.write_parquet(tmp)
        os.replace(tmp, path)
        written.append(path)
    return written


def asdict_rating(r: Rating) -> dict:
    return {
        "player": r.player,
        "rating": r.rating,
        "ci_low": r.ci_low,
        "ci_high": r.ci_high,
        "upper_bound": r.upper_bound,
        "packs": r.packs,
    }
