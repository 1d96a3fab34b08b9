"""Self-contained HTML pages: Jinja2 templates (autoescaped) with inline SVG charts.

A page states its question, its method, its charts and tables (95 % confidence intervals), the
data it used and the commands that reproduce it; its footer says which scopa-sim built it and
from which runs. Nothing is fetched from a network, and the same inputs and the same commit give
byte-identical pages. The modules, one job each:

- ``page``: the page model (Page, Headline, Section, Figure, Table, Link, Finding).
- ``charts``: matplotlib set up for deterministic inline SVG (``svg``), the headline chart.
- ``tables``: numbers and tables as text (``ci``, the data and findings tables).
- ``provenance``: the build and the runs behind a page, and its footer.
- ``schema``: the JSON twin of a page and its documented shape.
- ``render``: the templates, and writing pages, their twins and a site's index.
- ``replay``: the page that steps through the plays of a deal.

Every name below is re-exported here, so callers use ``scopa_sim.reporting.NAME``.
"""

from markupsafe import Markup

# charts first: it selects matplotlib's backend before anything imports pyplot
from scopa_sim.reporting.charts import headline_svg, svg
from scopa_sim.reporting.page import (
    HEADLINE_KINDS,
    HEADLINE_ROWS,
    WHISKERS,
    Figure,
    Finding,
    Headline,
    Link,
    Page,
    Section,
    Table,
    headline_problems,
)
from scopa_sim.reporting.provenance import (
    FOOTER_KEYS,
    LIBRARIES,
    PACKAGE_PATHS,
    RUN_KEYS,
    Build,
    Footer,
    build_info,
    footer,
    git_commit,
    process_versions,
    run_json,
)
from scopa_sim.reporting.render import (
    render_index,
    render_page,
    render_template,
    write_page,
    write_site,
)
from scopa_sim.reporting.replay import render_replay, replay_deal
from scopa_sim.reporting.schema import PAGE_JSON_SHAPE, json_problems, page_json
from scopa_sim.reporting.tables import ci, data_table, findings_table

__all__ = [
    "FOOTER_KEYS",
    "HEADLINE_KINDS",
    "HEADLINE_ROWS",
    "LIBRARIES",
    "PACKAGE_PATHS",
    "PAGE_JSON_SHAPE",
    "RUN_KEYS",
    "WHISKERS",
    "Build",
    "Figure",
    "Finding",
    "Footer",
    "Headline",
    "Link",
    "Markup",
    "Page",
    "Section",
    "Table",
    "build_info",
    "ci",
    "data_table",
    "findings_table",
    "footer",
    "git_commit",
    "headline_problems",
    "headline_svg",
    "json_problems",
    "page_json",
    "process_versions",
    "render_index",
    "render_page",
    "render_replay",
    "render_template",
    "replay_deal",
    "run_json",
    "svg",
    "write_page",
    "write_site",
]
