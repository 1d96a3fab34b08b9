"""How large is the dealer's edge: the page's charts (edges, first dealers' wins, convergence)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from analyses import framework
from analyses.seat_advantage.measure import Edge
from scopa_sim import reporting, stats

COLOR = "#2b5d8a"
ZOOM = 10  # the running chart shows the final estimate +- ZOOM final half-widths


def edge_chart(edges: list[Edge]) -> reporting.Markup:
    """Every run's edge with its 95 % interval, a dashed line at no edge."""
    return framework.forest(
        [e.run.name for e in edges],
        [e.edge for e in edges],
        "dealer's side minus other side(s), points per deal (95% CI)",
        color=COLOR, reference=0, row=0.4, pad=1.2, framed=False,
    )  # fmt: skip


def win_chart(edges: list[Edge]) -> reporting.Markup:
    """The first dealer's share of games won per run (Wilson), marked against 1 / sides."""
    shown = [e for e in edges if e.first_won is not None]
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(shown) + 1.5))
    y = np.arange(len(shown))[::-1]
    framework.errorbars(
        ax, [e.first_won for e in shown], y, fmt="o", color=COLOR, capsize=3,
        label="first dealer's side",
    )  # fmt: skip
    ax.scatter(
        [1 / e.shape.sides for e in shown],
        y,
        marker="|",
        s=200,
        color="#b5472d",
        label="no edge (1 / sides)",
    )
    ax.set_yticks(y, [e.run.name for e in shown])
    ax.set_xlabel("share of games won by the side that dealt the first deal (95% CI)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2, fontsize="small")
    fig.tight_layout()
    return reporting.svg(fig)


def running_chart(e: Edge) -> reporting.Markup:
    """The headline edge as the deals accumulate, with its 95 % band: is it converged?"""
    k, value, low, high = stats.running_ratio(e.edge_sums, e.deal_counts)
    deals = np.cumsum(e.deal_counts)[k - 1]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.fill_between(deals, low, high, color=COLOR, alpha=0.2, lw=0, label="95% CI")
    ax.plot(deals, value, color=COLOR, lw=1.5, label="estimate")
    ax.axhline(e.edge.value, color="#888", lw=1, ls="--", label="final estimate")
    ax.axhline(0, color="#b5472d", lw=1, ls=":", label="no edge")
    ax.set_xscale("log")
    # The early band is wide; the question is the late part, so the axis shows the final
    # estimate +- ZOOM final half-widths (the early band runs off it).
    span = max(ZOOM * e.edge.half_width, 1e-9)
    ax.set_ylim(e.edge.value - span, e.edge.value + span)
    ax.set_xlabel(f"deals played ({'games in order' if e.games else 'in order'})")
    ax.set_ylabel("dealer's edge, points per deal")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncols=4, fontsize="small")
    fig.tight_layout()
    return reporting.svg(fig)
