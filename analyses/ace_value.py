"""What is an ace worth for primiera?

A side's primiera takes its best card in each suit (7 = 21, 6 = 18, ace = 16, 5 = 15, ...,
docs/rules.md §5), so an ace counts only in a suit where the side has neither the seven nor the six.
This page measures, on independent deals of classic Scopa, how the chance of winning the primiera
point moves with the number of aces a side captured once its sevens and sixes are held fixed, and
what one more ace is worth in points over the opponent.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses._common import Run, count_rank, main, players_sentence, reproduce, require
from scopa_sim import reporting, stats

RUN = "classic-deals"
MIN_CELL = 200  # a (sevens, sixes, aces) cell needs this many side-deals to be shown
STRATA_SHOWN = 4  # strata drawn and fitted one by one: those where aces move the primiera most
CONTESTED = 0.05  # ... by at least this much between their lowest and highest ace counts
RANKS = range(5)  # 0..4 cards of a rank

QUESTION = (
    "What is an ace worth for primiera? How does the chance of winning the primiera point change "
    "with the number of aces a side captures, holding its sevens and sixes fixed, and how many "
    "points is one more ace worth in the deal?"
)
METHOD = (
    f"Each side of each of the independent deals of run {RUN} is one observation: we count its "
    "captured aces, sevens and sixes from the card bitmask and tabulate the share of sides that "
    "win the primiera point in every (sevens, sixes, aces) cell, with Wilson intervals (cells with "
    f"fewer than {MIN_CELL} side-deals are left blank). The marginal value of an ace is the slope "
    "of a linear regression of the primiera point (a linear probability model) and, separately, of "
    "the side's points minus its opponent's points in the deal, on the number of aces with a "
    "fixed effect for every (sevens, sixes) pair (25 dummies, absorbed by demeaning within each "
    "pair, which gives the same slope by Frisch-Waugh-Lovell), with standard errors clustered by "
    "deal because a deal's two sides are mirror images. In a two-sided deal the opponent holds the "
    "aces the side lacks, so the points-difference slope is the swing from moving one ace from the "
    "opponent to the side (half of it is the side's own share)."
)


def _sides(run: Run) -> pl.LazyFrame:
    """One row per side per deal: aces, sevens, sixes, primiera point, margin over the opponent."""
    deal = ["game", "deal"]
    points = pl.col("points").cast(pl.Int32)
    return run.scan().select(
        *deal,
        "side",
        pl.col("pt_primiera").cast(pl.Int32).alias("won"),
        (2 * points - points.sum().over(deal)).alias("margin"),
        count_rank(1).alias("aces"),
        count_rank(7).alias("sevens"),
        count_rank(6).alias("sixes"),
    )


def _check_two_sides(run: Run) -> int:
    """The number of deals; every deal must have exactly two sides (the margin needs it)."""
    shape = (
        run.scan()
        .group_by("game", "deal")
        .agg(pl.len().alias("rows"))
        .select(
            pl.len().alias("deals"),
            pl.col("rows").min().alias("lo"),
            pl.col("rows").max().alias("hi"),
        )
        .collect()
        .row(0, named=True)
    )
    if shape["lo"] != 2 or shape["hi"] != 2:
        raise ValueError(f"run {run.name} does not have exactly two sides in every deal")
    return int(shape["deals"])


def cells(run: Run) -> pl.DataFrame:
    """Side-deals and primiera wins per (sevens, sixes, aces), sorted."""
    return (
        _sides(run)
        .group_by("sevens", "sixes", "aces")
        .agg(pl.len().alias("n"), pl.col("won").sum().cast(pl.Int64).alias("wins"))
        .sort("sevens", "sixes", "aces")
        .collect()
    )


def marginal(run: Run) -> dict[str, stats.Estimate]:
    """Slope per ace of the primiera point and of the points margin, within (sevens, sixes)."""
    strata = ["sevens", "sixes"]

    def within(name: str) -> pl.Expr:
        x = pl.col(name).cast(pl.Float64)
        return (x - x.mean().over(strata)).alias(name)

    frame = (
        _sides(run)
        .select(
            (pl.col("game") * 1024 + pl.col("deal").cast(pl.Int64)).alias("unit"),
            within("aces"),
            within("won"),
            within("margin"),
        )
        .collect()
    )
    x = frame["aces"].to_numpy()[:, None]
    groups = frame["unit"].to_numpy()
    return {
        outcome: stats.ols(frame[outcome].to_numpy(), x, ["aces"], groups=groups)["aces"]
        for outcome in ("won", "margin")
    }


def per_stratum(run: Run, strata: list[tuple[int, int]]) -> dict[tuple[int, int], stats.Estimate]:
    """Slope per ace of the primiera point within each given (sevens, sixes) stratum."""
    if not strata:
        return {}
    wanted = pl.lit(False)
    for sevens, sixes in strata:
        wanted = wanted | ((pl.col("sevens") == sevens) & (pl.col("sixes") == sixes))
    frame = (
        _sides(run)
        .filter(wanted)
        .select(
            (pl.col("game") * 1024 + pl.col("deal").cast(pl.Int64)).alias("unit"),
            "sevens",
            "sixes",
            "aces",
            "won",
        )
        .collect()
    )
    out = {}
    for (sevens, sixes), part in frame.group_by("sevens", "sixes", maintain_order=True):
        x = np.column_stack([np.ones(len(part)), part["aces"].to_numpy().astype(np.float64)])
        fit = stats.ols(
            part["won"].to_numpy(), x, ["const", "aces"], groups=part["unit"].to_numpy()
        )
        out[int(sevens), int(sixes)] = fit["aces"]
    return dict(sorted(out.items()))


def _contested(est: dict) -> list[tuple[int, int]]:
    """The (sevens, sixes) strata where aces move the primiera most (largest range over aces)."""
    spread = {}
    for (sevens, sixes, _), e in est.items():
        lo, hi = spread.get((sevens, sixes), (1.0, 0.0))
        spread[sevens, sixes] = (min(lo, e.value), max(hi, e.value))
    ranked = sorted(spread, key=lambda k: (-(spread[k][1] - spread[k][0]), k))
    return [k for k in ranked if spread[k][1] - spread[k][0] >= CONTESTED][:STRATA_SHOWN]


def _cell_estimates(table: pl.DataFrame) -> dict[tuple[int, int, int], stats.Estimate]:
    return {
        (r["sevens"], r["sixes"], r["aces"]): stats.proportion_ci(r["wins"], r["n"])
        for r in table.iter_rows(named=True)
        if r["n"] >= MIN_CELL
    }


def _heatmap(est: dict) -> plt.Figure:
    fig, axes = plt.subplots(1, 5, figsize=(13, 3.3), sharey=True)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#eeeeee")
    for aces, ax in zip(RANKS, axes, strict=True):
        grid = np.full((5, 5), np.nan)
        for sevens in RANKS:
            for sixes in RANKS:
                if (sevens, sixes, aces) in est:
                    grid[sevens, sixes] = est[sevens, sixes, aces].value
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=1, origin="lower")
        for sevens in RANKS:
            for sixes in RANKS:
                if not np.isnan(grid[sevens, sixes]):
                    value = grid[sevens, sixes]
                    ax.text(
                        sixes,
                        sevens,
                        f"{value:.2f}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if value < 0.6 else "black",
                    )
        ax.set_title(f"{aces} ace{'s' if aces != 1 else ''}")
        ax.set_xticks(list(RANKS))
        ax.set_yticks(list(RANKS))
        ax.set_xlabel("sixes captured")
    axes[0].set_ylabel("sevens captured")
    fig.colorbar(image, ax=axes, shrink=0.8, label="P(primiera point)")
    return fig


def _lines(est: dict, strata: list[tuple[int, int]]) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (sevens, sixes) in enumerate(strata):
        keys = [(sevens, sixes, a) for a in RANKS if (sevens, sixes, a) in est]
        xs = np.array([k[2] for k in keys], dtype=float) + (i - (len(strata) - 1) / 2) * 0.06
        ys = np.array([est[k].value for k in keys])
        err = np.array(
            [[est[k].value - est[k].low for k in keys], [est[k].high - est[k].value for k in keys]]
        )
        ax.errorbar(
            xs, ys, yerr=err, marker="o", capsize=3, label=f"{sevens} sevens, {sixes} sixes"
        )
    ax.set_xticks(list(RANKS))
    ax.set_xlabel("aces captured")
    ax.set_ylabel("P(primiera point), 95% CI")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def build(data: Path) -> reporting.Page:
    """What is an ace worth for primiera?"""
    run = require(data, RUN)
    deals = _check_two_sides(run)
    table = cells(run)
    est = _cell_estimates(table)
    slopes = marginal(run)

    strata = _contested(est)
    within = per_stratum(run, strata)

    counts = {(r["sevens"], r["sixes"], r["aces"]): r["n"] for r in table.iter_rows(named=True)}
    rows = []
    for sevens in RANKS:
        for sixes in RANKS:
            if not any((sevens, sixes, a) in est for a in RANKS):
                continue
            total = sum(counts.get((sevens, sixes, a), 0) for a in RANKS)
            rows.append(
                [str(sevens), str(sixes), f"{total:,}"]
                + [reporting.ci(est[k]) if (k := (sevens, sixes, a)) in est else "—" for a in RANKS]
            )
    cell_table = reporting.Table(
        f"P(primiera point) by aces captured, per (sevens, sixes) captured, Wilson 95% CI "
        f"(— : fewer than {MIN_CELL} side-deals)",
        ["sevens", "sixes", "side-deals", *[f"{a} aces" for a in RANKS]],
        rows,
    )

    won, margin = slopes["won"], slopes["margin"]
    share = stats.Estimate(margin.value / 2, margin.low / 2, margin.high / 2, margin.n)
    slope_table = reporting.Table(
        "Marginal value of one more ace, with a fixed effect per (sevens, sixes), "
        "clustered by deal",
        ["outcome", "per ace [95% CI]", "side-deals"],
        [
            ["P(primiera point)", reporting.ci(won, 4), f"{won.n:,}"],
            ["points minus opponent's points (swing)", reporting.ci(margin), f"{margin.n:,}"],
            ["side's own share (half the swing)", reporting.ci(share), f"{margin.n:,}"],
        ],
    )
    stratum_table = reporting.Table(
        "Slope of P(primiera point) per ace within the strata where aces matter most",
        ["sevens", "sixes", "per ace [95% CI]", "side-deals"],
        [[str(k[0]), str(k[1]), reporting.ci(e, 4), f"{e.n:,}"] for k, e in within.items()],
    )
    finding = (
        f"Holding sevens and sixes fixed, each extra ace raises a side's chance of the primiera "
        f"point by {100 * won.value:.1f} [{100 * won.low:.1f}, {100 * won.high:.1f}] percentage "
        f"points on average"
    )
    if within:
        (sevens, sixes), top = next(iter(sorted(within.items(), key=lambda kv: -kv[1].value)))
        finding += (
            f" ({100 * top.value:.1f} [{100 * top.low:.1f}, {100 * top.high:.1f}] with {sevens} "
            f"sevens and {sixes} sixes)"
        )
    finding += (
        f" and its margin over the opponent by {margin.value:.3f} "
        f"[{margin.low:.3f}, {margin.high:.3f}] points per deal."
    )
    return reporting.Page(
        slug="ace-value",
        title="What is an ace worth for primiera?",
        question=QUESTION,
        method=f"{METHOD} {players_sentence([run])}",
        finding=finding,
        sections=[
            reporting.Section(
                "Primiera point by aces, sevens and sixes",
                "An ace is the third-best primiera card, so it helps only in suits where the side "
                "has neither the seven nor the six. Sevens decide most primiere outright; aces "
                "matter where the sevens are split and the sixes decide the rest.",
                figures=[
                    reporting.Figure(
                        "Share of sides winning the primiera point, by sevens (rows) and sixes "
                        f"(columns) captured, one panel per number of aces (grey: < {MIN_CELL} "
                        "side-deals)",
                        reporting.svg(_heatmap(est)),
                    ),
                    reporting.Figure(
                        "P(primiera point) against aces captured in the (sevens, sixes) strata "
                        "where aces move it most, with Wilson 95% intervals",
                        reporting.svg(_lines(est, strata)),
                    ),
                ],
                tables=[cell_table],
            ),
            reporting.Section(
                "Marginal value of an ace",
                "Slopes of linear regressions on the number of aces captured with one fixed effect "
                "per (sevens, sixes) pair; the average slope mixes the many strata where the "
                "primiera is already decided (slope near 0) with the few where aces decide it. "
                "The points slope is an ace's total association with the margin given sevens "
                "and sixes: it includes the cards and coins points an ace counts towards and "
                "whatever else comes with capturing more cards (the card-values page holds every "
                "other card fixed instead). The two sides of a deal share a cell of the table "
                "above only when each holds two sevens, two sixes and two aces; there their "
                "outcomes are negatively correlated (at most one wins), so that cell's interval "
                "is conservative.",
                tables=[slope_table, stratum_table],
            ),
        ],
        data=[run.provenance(deals)],
        reproduce=reproduce("ace_value"),
    )


if __name__ == "__main__":
    sys.exit(main(build))
