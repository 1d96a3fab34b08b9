"""How many points is each card worth to the side that captures it?

Regresses the points margin of a deal (side 0 minus side 1) on 40 indicators "side 0 captured
card c", from the captured-cards bitmask of independent deals of classic Scopa. In a two-sided
deal the other side holds every card side 0 does not, so each coefficient is the swing in the
margin from holding the card rather than letting the opponent hold it, every other card fixed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses._common import Run, has_card, main, players_sentence, reproduce, require
from scopa_sim import reporting, stats
from scopa_sim.cards import ITALIAN_40

RUN = "classic-deals"
PACK = ITALIAN_40
#: Deals used, the first ones by number: statsmodels' OLS on all 1M x 42 takes ~10 s here, on
#: 400k ~2 s (x2 with robust intervals), and 400k deals give intervals of about +-0.005.
MAX_DEALS = 400_000
RANK_NAMES = ("", "ace", "2", "3", "4", "5", "6", "7", "fante", "cavallo", "re")
SETTEBELLO = PACK.card(0, 7)

QUESTION = (
    "How many points is each card worth to the side that captures it, all other cards being equal?"
)


def method(deals: int, total: int) -> str:
    used = f"all {deals:,} deals" if deals == total else f"the first {deals:,} of {total:,} deals"
    return (
        f"One row per deal of run {RUN} ({used}, numbered in the order played, so the subset is "
        "deterministic), from side 0's point of view: the outcome is side 0's points minus side "
        "1's, regressed by OLS on an intercept, an indicator that side 0 dealt, and 40 indicators "
        "'side 0 captured card c' read from the bitmask (heteroskedasticity-robust intervals, "
        "every deal its own cluster; deals are independent). Because the two sides' captures "
        "partition the pack, a coefficient is the swing in the margin when side 0 rather than side "
        "1 holds the card, every other card unchanged; we report half of it as the card's value "
        "to its capturer, the points it moves from one side to the other on a zero-sum split (the "
        "settebello point alone is worth 1 on this scale and 2 as a swing). The 40 indicators are "
        "not collinear with the intercept because the number of cards captured varies; the design "
        "matrix is checked to have full column rank."
    )


def card_name(card: int) -> str:
    if card == SETTEBELLO:
        return "settebello"
    return f"{RANK_NAMES[PACK.rank(card)]} {PACK.suit_names[PACK.suit(card)]}"


def fit(run: Run, max_deals: int = MAX_DEALS) -> tuple[dict[str, stats.Estimate], int, int]:
    """Swing coefficients by name ("const", "dealer", "c0".."c39"), deals used, deals in run."""
    scan = run.scan().select("game", "deal", "side", "dealer", "points", "captured")
    shape = (
        scan.group_by("game", "deal")
        .agg(
            pl.len().alias("rows"),
            pl.col("side").min().alias("lo"),
            pl.col("side").max().alias("hi"),
        )
        .select(
            pl.len().alias("deals"),
            (pl.col("rows") == 2).all().alias("two_rows"),
            ((pl.col("lo") == 0) & (pl.col("hi") == 1)).all().alias("sides_01"),
        )
        .collect()
        .row(0, named=True)
    )
    if not (shape["two_rows"] and shape["sides_01"]):
        raise ValueError(f"run {run.name} does not have exactly sides 0 and 1 in every deal")
    total = int(shape["deals"])
    side0 = scan.filter(pl.col("side") == 0).sort("game", "deal").head(max_deals)
    side1 = scan.filter(pl.col("side") == 1).select(
        "game", "deal", pl.col("points").alias("points_1")
    )
    frame = (
        side0.join(side1, on=["game", "deal"], how="left", validate="1:1", maintain_order="left")
        .select(
            (pl.col("points").cast(pl.Float64) - pl.col("points_1").cast(pl.Float64)).alias("y"),
            pl.col("dealer").cast(pl.Int8),
            *[has_card(c).alias(f"c{c}") for c in range(PACK.n_cards)],
        )
        .collect()
    )
    names = ["dealer", *[f"c{c}" for c in range(PACK.n_cards)]]
    x = np.empty((len(frame), len(names) + 1), dtype=np.float64)
    x[:, 0] = 1.0
    x[:, 1:] = frame.select(names).to_numpy()
    rank = np.linalg.matrix_rank(x.T @ x)
    if rank < x.shape[1]:
        raise ValueError(f"the design has rank {rank} < {x.shape[1]} columns; too few deals?")
    y = frame["y"].to_numpy()
    est = stats.ols(y, x, ["const", *names], groups=np.arange(len(y)))
    return est, len(y), total


def halve(e: stats.Estimate) -> stats.Estimate:
    return stats.Estimate(e.value / 2, e.low / 2, e.high / 2, e.n)


def values(est: dict[str, stats.Estimate]) -> dict[int, stats.Estimate]:
    """Each card's value to its capturer: half the swing."""
    return {c: halve(est[f"c{c}"]) for c in range(PACK.n_cards)}


def _heatmap(value: dict[int, stats.Estimate]) -> plt.Figure:
    grid = np.array([[value[PACK.card(s, r)].value for r in range(1, 11)] for s in range(4)])
    fig, ax = plt.subplots(figsize=(9, 3.2))
    image = ax.imshow(grid, cmap="viridis", aspect="auto")
    for s in range(4):
        for r in range(10):
            v = grid[s, r]
            ax.text(
                r,
                s,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=9,
                color="white" if v < 0.6 * grid.max() else "black",
            )
    ax.set_xticks(range(10), RANK_NAMES[1:])
    ax.set_yticks(range(4), PACK.suit_names)
    ax.set_xlabel("rank")
    fig.colorbar(image, ax=ax, label="points to the capturer")
    fig.tight_layout()
    return fig


def _forest(value: dict[int, stats.Estimate]) -> plt.Figure:
    order = sorted(value, key=lambda c: (value[c].value, -c))
    fig, ax = plt.subplots(figsize=(7, 9))
    y = np.arange(len(order))
    est = [value[c] for c in order]
    ax.errorbar(
        [e.value for e in est],
        y,
        xerr=[[e.value - e.low for e in est], [e.high - e.value for e in est]],
        fmt="o",
        ms=4,
        color="#2b5d8a",
        capsize=2,
    )
    ax.set_yticks(y, [card_name(c) for c in order], fontsize=8)
    ax.axvline(0, color="#888", lw=1, ls="--")
    ax.set_xlabel("points to the capturer (half the swing), 95% CI")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def build(data: Path) -> reporting.Page:
    """How many points is each card worth to the side that captures it?"""
    run = require(data, RUN)
    est, deals, total = fit(run)
    value = values(est)
    share = (
        run.scan()
        .filter(pl.col("side") == 0)
        .sort("game", "deal")
        .head(deals)
        .select(has_card(c).alias(f"c{c}").mean() for c in range(PACK.n_cards))
        .collect()
        .row(0)
    )
    order = sorted(value, key=lambda c: (-value[c].value, c))
    card_table = reporting.Table(
        "Value of each card to its capturer (half the swing) and the swing in the margin, 95% CI",
        ["card", "side 0 captured it", "value to capturer", "swing (side 0 - side 1)"],
        [
            [card_name(c), f"{share[c]:.3f}", reporting.ci(value[c]), reporting.ci(est[f"c{c}"])]
            for c in order
        ],
    )
    by_rank = []
    for r in range(1, PACK.ranks + 1):
        others = [value[PACK.card(s, r)].value for s in range(1, 4)]
        by_rank.append(
            [
                RANK_NAMES[r],
                f"{value[PACK.card(0, r)].value:.3f}",
                f"{np.mean(others):.3f}",
                f"{min(others):.3f} to {max(others):.3f}",
            ]
        )
    rank_table = reporting.Table(
        "Values by rank: the coins card and the mean of the other three suits",
        ["rank", "coins", "other suits (mean)", "other suits (range)"],
        by_rank,
    )
    controls = reporting.Table(
        "Other coefficients (on the swing scale)",
        ["term", "estimate [95% CI]"],
        [
            [
                "intercept (side 0 leads and holds no card: an extrapolation)",
                reporting.ci(est["const"]),
            ],
            ["side 0 dealt (plays last)", reporting.ci(est["dealer"])],
        ],
    )
    best = order[0]
    sevens = [value[PACK.card(s, 7)].value for s in range(1, 4)]
    faces = [value[PACK.card(s, r)].value for s in range(1, 4) for r in (8, 9, 10)]
    sb = value[SETTEBELLO]
    finding = (
        f"The settebello is worth {sb.value:.2f} [{sb.low:.2f}, {sb.high:.2f}] points to the side "
        f"that captures it"
        + (
            " (the most of any card)"
            if best == SETTEBELLO
            else f" ({card_name(best)} is worth more)"
        )
        + f", a plain seven {np.mean(sevens):.2f} and a plain face card {np.mean(faces):.2f} on "
        "average."
    )
    provenance = run.provenance(total)
    provenance["deals used"] = f"{deals:,}"
    return reporting.Page(
        slug="card-values",
        title="What is each card worth?",
        question=QUESTION,
        method=f"{method(deals, total)} {players_sentence([run])}",
        finding=finding,
        sections=[
            reporting.Section(
                "Card values",
                "Every card is worth something through the cards point (most cards); coins add "
                "the coins point, sevens, sixes and aces the primiera, and the settebello its own "
                "point. Values are conditional on the other 39 cards, so a card's share in "
                "sweeps (scope) or in the primiera is what it adds given who holds the rest.",
                figures=[
                    reporting.Figure(
                        "Value of each card to its capturer (points per deal, half the swing), by "
                        "suit and rank",
                        reporting.svg(_heatmap(value)),
                    ),
                    reporting.Figure(
                        "All 40 cards, sorted, with 95% confidence intervals",
                        reporting.svg(_forest(value)),
                    ),
                ],
                tables=[rank_table, card_table, controls],
            )
        ],
        data=[provenance],
        reproduce=reproduce("card_values"),
    )


if __name__ == "__main__":
    sys.exit(main(build))
