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
