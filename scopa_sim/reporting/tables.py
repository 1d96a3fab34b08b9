"""Numbers and tables as text for a page: an estimate with its interval, the data table of the
runs behind a page, and the table of its findings.
"""

from __future__ import annotations

import math

from scopa_sim import stats
from scopa_sim.reporting.page import Page
from scopa_sim.reporting.provenance import FOOTER_KEYS
from scopa_sim.stats import Estimate
from scopa_sim.stats import detectable_effect_approx as detectable_effect


def ci(estimate: Estimate, digits: int = 3) -> str:
    """``value [low, high]`` for a table cell; the value and a flag in place of the interval
    when the sample did not vary (``stats.not_estimable``)."""
    f = f"{{:.{digits}f}}"
    if not estimate.estimable:
        return f"{f.format(estimate.value)} ({stats.not_estimable_text(estimate.n)})"
    return f"{f.format(estimate.value)} [{f.format(estimate.low)}, {f.format(estimate.high)}]"


def data_table(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The data table of a page: the rows' keys but the footer's, in first-seen order; numbers of
    deals and games with thousands separators, lists joined by commas, "—" for a missing key."""
    columns = list(dict.fromkeys(k for row in rows for k in row if k not in FOOTER_KEYS))

    def cell(key: str, value) -> str:
        if value is None:
            return "—"
        if isinstance(value, int) and not isinstance(value, bool) and key in ("deals", "games"):
            return f"{value:,}"
        if isinstance(value, (list, tuple)):
            return ",".join(str(v) for v in value)
        return str(value)

    return columns, [[cell(k, row.get(k)) for k in columns] for row in rows]


def findings_table(page: Page) -> list[list[str]]:
    """Rows of a page's findings table: name, estimate with its 95 % interval, n, unit, and the
    smallest effect its data could detect (:func:`scopa_sim.stats.detectable_effect_approx`:
    a difference from the estimate that a two-sided test at the 5 % level finds with 80 % power;
    "exact" where the interval has no width)."""
    rows = []
    for f in page.findings:
        e = f.estimate
        finite = all(math.isfinite(v) for v in (e.value, e.low, e.high))
        if not finite:
            shown, detect = "—", "—"
        else:
            shown = ci(e, 4)
            detect = "exact" if e.high == e.low else f"{detectable_effect(e):.3g}"
        rows.append([f.name, shown, f"{e.n:,}", f.unit, detect])
    return rows
