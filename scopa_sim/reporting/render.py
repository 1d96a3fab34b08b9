"""Rendering and writing: the Jinja2 environment over ``templates/`` and the functions that turn
pages into HTML files (with their JSON twins) and a site with its index.

Templates are autoescaped and strict (an unknown name is an error, not an empty string); styles
and charts are inline, so a page opens from disk with nothing fetched from a network.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2

from scopa_sim.reporting.charts import headline_svg
from scopa_sim.reporting.page import Link, Page
from scopa_sim.reporting.provenance import build_info, footer
from scopa_sim.reporting.schema import json_problems, page_json
from scopa_sim.reporting.tables import data_table, findings_table

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("scopa_sim.reporting", "templates"),
    autoescape=jinja2.select_autoescape(("html", "j2")),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.tests["link"] = lambda value: isinstance(value, Link)
_ENV.globals["build_info"] = build_info  # for templates rendered without a Page (tournaments)


def _headline_chart(page: Page):
    return None if page.headline is None else headline_svg(page.headline)


def render_page(page: Page) -> str:
    """The HTML of ``page``: its answer in a sentence and its chart (when it has a headline),
    then its question and finding, sections, data table, findings and footer."""
    columns, rows = data_table(page.data)
    return _ENV.get_template("page.html.j2").render(
        page=page, footer=footer(page), data_columns=columns, data_rows=rows,
        findings_rows=findings_table(page), headline_chart=_headline_chart(page),
    )  # fmt: skip


def render_index(pages: list[Page], title: str = "scopa-sim reports") -> str:
    """The index of a site: every page as a card, its headline chart with the one-sentence answer
    under it (a page without a headline shows its finding), linked with its twin."""
    cards = [(page, _headline_chart(page)) for page in pages]
    return _ENV.get_template("index.html.j2").render(cards=cards, title=title, build=build_info())


def write_page(page: Page, out: Path) -> list[Path]:
    """Write ``out/SLUG.html`` and ``out/SLUG.json``; returns both paths. A JSON twin that would
    not have the documented shape (:data:`PAGE_JSON_SHAPE`) is refused before anything is
    written."""
    document = json.loads(json.dumps(page_json(page), default=str, allow_nan=False))
    problems = json_problems(document)
    if problems:
        raise ValueError(f"{page.slug}.json would be malformed: {'; '.join(problems[:5])}")
    for name in page.attachments:
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise ValueError(f"{page.slug}: attachment {name!r} must be a path below the page's")
    out.mkdir(parents=True, exist_ok=True)
    html, data = out / f"{page.slug}.html", out / f"{page.slug}.json"
    html.write_text(render_page(page), encoding="utf-8")
    data.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    attached = []
    for name, text in page.attachments.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        attached.append(path)
    return [html, data, *attached]


def write_site(pages: list[Page], out: Path) -> list[Path]:
    """Write every page (HTML and JSON) and the index into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in pages:
        written += write_page(page, out)
    index = out / "index.html"
    index.write_text(render_index(pages), encoding="utf-8")
    return [index, *written]


def render_template(name: str, **context) -> str:
    """Render one of the package's templates (e.g. ``tournament.html.j2``) with ``context``."""
    return _ENV.get_template(name).render(**context)
