"""Self-contained HTML pages: Jinja2 templates (autoescaped) with inline SVG charts.

A page states its question, its method, its charts and tables (95 % confidence intervals), the
data it used and, when given, the commands that reproduce it. Nothing is fetched from a network:
styles and charts are inline, so a page opens from disk in any browser. The same inputs give
byte-identical pages.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from markupsafe import Markup

from scopa_sim.stats import Estimate

# Deterministic SVG: fixed ids, no creation date, text kept as text.
matplotlib.rcParams.update({"svg.hashsalt": "scopa-sim", "svg.fonttype": "none"})

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("scopa_sim.reporting", "templates"),
    autoescape=jinja2.select_autoescape(("html", "j2")),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


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
class Page:
    slug: str  # file name without .html
    title: str
    question: str
    method: str
    finding: str  # one sentence with a figure and its CI, for the index
    sections: list[Section]
    data: list[dict]  # provenance: run, variant, players, deals, seed, ...
    reproduce: str = ""  # commands that rebuild the page from nothing, shown as code


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


def ci(estimate: Estimate, digits: int = 3) -> str:
    """``value [low, high]`` for a table cell."""
    f = f"{{:.{digits}f}}"
    return f"{f.format(estimate.value)} [{f.format(estimate.low)}, {f.format(estimate.high)}]"


def render_page(page: Page) -> str:
    return _ENV.get_template("page.html.j2").render(page=page)


def render_index(pages: list[Page], title: str = "scopa-sim reports") -> str:
    return _ENV.get_template("index.html.j2").render(pages=pages, title=title)


def write_site(pages: list[Page], out: Path) -> list[Path]:
    """Write every page and the index into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in pages:
        path = out / f"{page.slug}.html"
        path.write_text(render_page(page), encoding="utf-8")
        written.append(path)
    index = out / "index.html"
    index.write_text(render_index(pages), encoding="utf-8")
    return [index, *written]


def render_template(name: str, **context) -> str:
    """Render one of the package's templates (e.g. ``tournament.html.j2``) with ``context``."""
    return _ENV.get_template(name).render(**context)
