"""The page model: what a report page holds, independent of how it is rendered.

A :class:`Page` states its question, method, sections (figures and tables), the runs behind it
(``data``), the commands that rebuild it and its :class:`Finding` numbers for the JSON twin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from markupsafe import Markup

from scopa_sim.stats import Estimate


@dataclass(frozen=True)
class Link:
    """A table cell that links to another file of the report, by a relative address."""

    text: str
    href: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Table:
    caption: str
    columns: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Figure:
    caption: str
    svg: Markup


@dataclass(frozen=True)
class Section:
    heading: str
    text: str = ""
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


@dataclass(frozen=True)
class Finding:
    """One number a page claims, for ``reports/NAME.json``: a stable dotted name (such as
    ``ace.captured.points``), the estimate with its interval, and its unit."""

    name: str
    estimate: Estimate
    unit: str

    def to_json(self) -> dict:
        """Plain JSON numbers: floats (null when not finite, as JSON has no NaN) and an int n."""
        e = self.estimate
        return {
            "name": self.name,
            "estimate": _number(e.value),
            "ci_low": _number(e.low),
            "ci_high": _number(e.high),
            "n": None if e.n is None else int(e.n),
            "unit": self.unit,
        }


def _number(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Page:
    slug: str  # file name without .html
    title: str
    question: str
    method: str
    finding: str  # one sentence with a figure and its CI, for the index
    sections: list[Section]
    # One row per run behind the page (Run.provenance in analyses: run, variant, players, mode,
    # deals, games, seed, and the manifest's versions, schema_version, data_version, pack_stream).
    # The data table shows the rows without the version keys, the footer shows those. A run the
    # page played itself says "in_process": True (compare's arms need not: see run_json).
    data: list[dict]
    reproduce: str = ""  # commands that rebuild the page from nothing, shown as code
    findings: list[Finding] = field(default_factory=list)  # its numbers, for NAME.json
    # Files the page links to, written beside it: {path relative to the page: HTML text}
    # (e.g. the replay pages of a tournament's largest swings).
    attachments: dict[str, str] = field(default_factory=dict)
