"""The page model: what a report page holds, independent of how it is rendered.

A :class:`Page` states its question, method, sections (figures and tables), the runs behind it
(``data``), the commands that rebuild it and its :class:`Finding` numbers for the JSON twin; its
:class:`Headline` is the answer at a glance that the index and the top of the page show.
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


#: The kinds of headline chart: points with their intervals, or bars from zero with them.
HEADLINE_KINDS = ("interval", "bar")
#: The most rows a headline chart holds: it is a glance, the page has the rest.
HEADLINE_ROWS = 16  # the family page: one bar per preset


#: What a headline chart's whiskers are, unless its page says otherwise.
WHISKERS = "95 % confidence intervals"


@dataclass(frozen=True)
class Headline:
    """A page's answer at a glance: one sentence a player understands, and the few numbers of its
    small chart, each an estimate with its interval (none, NaN bounds, for a sample with no
    variation), drawn as points with intervals (``interval``) or as bars from zero (``bar``),
    with a dashed line at ``reference`` (the value of no effect). ``axis`` says what the numbers
    are, in their unit; ``whiskers`` what the intervals are, as the chart's caption says it (a
    page whose chart shows simultaneous intervals says so). Checked when made, so a page cannot
    carry a headline the index could not draw."""

    sentence: str
    labels: tuple[str, ...]
    estimates: tuple[Estimate, ...]
    axis: str
    kind: str = "interval"
    reference: float | None = None
    whiskers: str = WHISKERS

    def __post_init__(self):
        object.__setattr__(self, "labels", tuple(self.labels))
        object.__setattr__(self, "estimates", tuple(self.estimates))
        problems = headline_problems(self)
        if problems:
            raise ValueError(f"headline: {'; '.join(problems)}")

    def to_json(self) -> dict:
        return {
            "sentence": self.sentence,
            "axis": self.axis,
            "kind": self.kind,
            "reference": None if self.reference is None else _number(self.reference),
            "whiskers": self.whiskers,
            "rows": [
                {"label": label, "estimate": _number(e.value), "ci_low": _number(e.low),
                 "ci_high": _number(e.high)}
                for label, e in zip(self.labels, self.estimates, strict=True)
            ],
        }  # fmt: skip


def headline_problems(h: Headline) -> list[str]:
    """What keeps ``h`` from being a headline: a sentence that is empty or more than one
    sentence, no rows or too many, labels and estimates that do not pair up, a value that is
    not finite (an interval may be absent: both bounds NaN), an unknown kind, an empty axis; []
    when it is one."""
    problems = []
    sentence = h.sentence.strip()
    if not sentence:
        problems.append("the sentence is empty")
    elif "\n" in sentence or not sentence.endswith((".", "?", "!")):
        problems.append(f"{sentence!r} is not one sentence ending with a full stop")
    if not 1 <= len(h.labels) <= HEADLINE_ROWS:
        problems.append(f"{len(h.labels)} rows: a headline chart holds 1 to {HEADLINE_ROWS}")
    if len(h.labels) != len(h.estimates):
        problems.append(f"{len(h.labels)} labels for {len(h.estimates)} estimates")
    if any(not label.strip() for label in h.labels):
        problems.append("a row has no label")
    for label, e in zip(h.labels, h.estimates, strict=False):
        bounds = [math.isfinite(float(v)) for v in (e.low, e.high)]
        if not math.isfinite(float(e.value)) or (any(bounds) and not all(bounds)):
            problems.append(f"row {label!r}: {e.value} [{e.low}, {e.high}] is not finite")
    if h.kind not in HEADLINE_KINDS:
        problems.append(f"kind {h.kind!r} is not one of {', '.join(HEADLINE_KINDS)}")
    if not h.axis.strip():
        problems.append("the axis has no label")
    if not h.whiskers.strip():
        problems.append("the whiskers have no caption")
    return problems


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
    # The answer at a glance (the analyses' pages all have one): the index shows its chart and
    # sentence, the page opens with them; None on a page that has only its finding.
    headline: Headline | None = None
