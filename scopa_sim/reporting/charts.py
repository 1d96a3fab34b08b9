"""Charts as inline SVG: matplotlib set up for files (the Agg backend, no display needed) and for
deterministic output (fixed ids, no creation date, text kept as text), so the same figure gives
the same bytes on every run.

Importing this module selects the backend; ``scopa_sim.reporting`` imports it first, before
anything imports ``matplotlib.pyplot``.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # before pyplot is imported
import matplotlib.pyplot as plt
from markupsafe import Markup

matplotlib.rcParams.update({"svg.hashsalt": "scopa-sim", "svg.fonttype": "none"})


def svg(fig) -> Markup:
    """A matplotlib figure as inline SVG markup (the figure is closed)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    start, end = text.find("<metadata>"), text.find("</metadata>")
    if start >= 0 and end > start:  # drop the RDF block: nothing a page needs, only noise
        text = text[:start] + text[end + len("</metadata>") :]
    return Markup(text)


#: The headline chart's colours: the estimates, and the line of no effect.
HEADLINE_COLOR, REFERENCE_COLOR = "#2b5d8a", "#888888"


def headline_svg(headline) -> Markup:
    """The small chart of a :class:`~scopa_sim.reporting.page.Headline` as inline SVG: one row
    per estimate, first on top, with its 95 % interval, as a point (``interval``) or a bar from
    zero (``bar``); narrow enough for a phone and drawn as text, so it scales without blurring."""
    import numpy as np

    labels, estimates = headline.labels, headline.estimates
    values = np.array([e.value for e in estimates], float)
    err = np.array([values - [e.low for e in estimates], [e.high for e in estimates] - values])
    err = np.nan_to_num(err, nan=0.0)  # no interval (a sample with no variation): no whiskers
    y = np.arange(len(labels))[::-1]
    fig, ax = plt.subplots(figsize=(4.2, 0.3 * len(labels) + 0.85))
    if headline.kind == "bar":
        ax.barh(y, values, height=0.6, color=HEADLINE_COLOR, alpha=0.85)
        ax.errorbar(values, y, xerr=err, fmt="none", ecolor="#1d232a", capsize=2, lw=1)
        ax.axvline(0, color="#1d232a", lw=0.8)
    else:
        ax.errorbar(values, y, xerr=err, fmt="o", ms=4, color=HEADLINE_COLOR, capsize=3)
    if headline.reference is not None:
        ax.axvline(headline.reference, color=REFERENCE_COLOR, lw=1, ls="--")
    ax.set_yticks(y, list(labels), fontsize=8)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel(headline.axis, fontsize=8)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return svg(fig)
