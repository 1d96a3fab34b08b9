"""HTML report pages are self-contained, deterministic, and render in a real browser.

A page must open from disk with no network: no external URL in any ``src``/``href``, CSS
``url(...)`` or ``@import`` (the SVG ``xmlns`` namespace names are identifiers, never fetched),
and every chart an inline ``<svg>``. The same inputs give byte-identical pages, also across
processes with different hash seeds.

Pages are rendered in headless Chromium (``tests/support/browser.py``; ``make browser`` installs
it, and ``.ci/run`` calls that before ``make test``): skipped without it, except on CI.
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pytest

from scopa_sim import compare, compare_page, reporting, stats
from tests.support.browser import run_chromium

PYTHON = sys.executable
XMLNS = re.compile(r'\sxmlns(?::[\w-]+)?\s*=\s*"http://www\.w3\.org/[^"]*"')
EXTERNAL = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)  # http://, https://, //
ATTRIBUTE_URL = re.compile(
    r"""\b(?:src|href|srcset|action|formaction|poster|data|background|cite)\s*=\s*
        (?:"([^"]*)"|'([^']*)'|([^\s>]+))""",
    re.IGNORECASE | re.VERBOSE,
)
CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\)""", re.IGNORECASE)
FORBIDDEN_TAGS = ("<img", "<iframe", "<object", "<embed", "<script", "<link", "<base")

# one xdist worker builds the pages and runs the browser (``make test`` runs -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("html")


# pages ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def comparison() -> compare.Comparison:
    return compare.compare(
        ["classic", "classic:target=16"], ["greedy", "greedy"], mode="games", count=300, seed=3
    )


def synthetic_page() -> reporting.Page:
    """A page with two charts, a table and text that needs escaping."""
    x = np.arange(1, 11)
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(x, np.sqrt(x), marker="o", color="#c0392b", label="sqrt")
    ax.fill_between(x, np.sqrt(x) - 0.2, np.sqrt(x) + 0.2, color="#c0392b", alpha=0.2)
    ax.set_xlabel("deals (thousands)")
    ax.legend()
    line = reporting.Figure("A line with a band", reporting.svg(fig))
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(["cards", "coins", "settebello", "primiera"], [0.48, 0.45, 0.5, 0.47], color="#2b5d8a")
    ax.set_ylim(0, 1)
    bars = reporting.Figure("Bars", reporting.svg(fig))
    estimate = stats.proportion_ci(29, 18_278)
    return reporting.Page(
        slug="synthetic",
        title="Synthetic report",
        question="Does <b>escaping</b> work & do charts render?",
        method="Two matplotlib charts inlined as SVG; one table.",
        finding=f"Throw-in rate {reporting.ci(estimate, 5)}.",
        sections=[
            reporting.Section("Charts", text="Both charts are inline.", figures=[line, bars]),
            reporting.Section(
                "Numbers",
                tables=[
                    reporting.Table("A table", ["name", "value"], [["a < b", "1"], ["c & d", "2"]])
                ],
            ),
        ],
        data=[{"run": "synthetic", "seed": 0, "deals": "18,278"}],
        reproduce="make simulate && make report\n.venv/bin/python -m analyses.x --out <dir>",
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory, comparison) -> dict[str, Path]:
    """The comparison page, the synthetic page and their index, written as a site (HTML pages by
    slug; their JSON twins as ``slug.json``)."""
    out = tmp_path_factory.mktemp("site")
    pages = [compare_page.page(comparison), synthetic_page()]
    index, *written = reporting.write_site(pages, out)
    return {"index": index, **{p.stem if p.suffix == ".html" else p.name: p for p in written}}


# self-contained ---------------------------------------------------------------------------------


def external_references(html: str) -> list[str]:
    """Every reference in ``html`` that would be fetched from (or lead to) another host."""
    bad = []
    for pattern in (ATTRIBUTE_URL, CSS_URL):
        for match in pattern.finditer(XMLNS.sub("", html)):
            value = next(g for g in match.groups() if g is not None)
            if EXTERNAL.match(value) or re.match(r"\s*(?:https?|ftp|file):", value, re.I):
                bad.append(match.group(0))
    bad += re.findall(r"@import[^;]*", html, re.IGNORECASE)
    return bad


def test_the_url_checks_catch_external_references():
    """The checker itself: it must flag these and pass the namespace declarations."""
    for snippet in (
        '<img src="https://example.org/a.png">',
        "<link rel=stylesheet href=//cdn.example.org/x.css>",
        "<div style=\"background: url('http://example.org/b.png')\"></div>",
        "<style>@import 'local.css';</style>",
        '<svg><image xlink:href="https://example.org/c.png"/></svg>',
    ):
        assert external_references(snippet), snippet
    inline = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
    inline += '<use xlink:href="#m1"/><g clip-path="url(#p1)"></g></svg><a href="index.html">i</a>'
    assert external_references(inline) == []


@pytest.mark.parametrize("name", ["variant-comparison", "synthetic", "index"])
def test_pages_are_self_contained(site, name):
    html = site[name].read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert external_references(html) == []
    # stricter: apart from the SVG namespace names, no absolute URL appears anywhere
    assert not re.search(r"(?:https?|ftp)://", XMLNS.sub("", html), re.IGNORECASE)
    for tag in FORBIDDEN_TAGS:
        assert tag not in html.lower(), f"{tag} in {name}: charts and styles must be inline"
    # relative links point at pages of the site
    for href in re.findall(r'<a href="([^"#]+)"', html):
        assert (site[name].parent / href).is_file() or href == "index.html", href


@pytest.mark.parametrize("name, charts", [("variant-comparison", 1), ("synthetic", 2)])
def test_every_chart_is_inline_svg(site, name, charts):
    html = site[name].read_text(encoding="utf-8")
    figures = re.findall(r"<figure>(.*?)</figure>", html, re.DOTALL)
    assert len(figures) == charts
    for figure in figures:
        assert figure.strip().startswith("<svg") and figure.count("</svg>") == 1
        assert "<figcaption>" in figure
    assert html.count("<svg") == charts
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html  # fragments, not documents
    assert "<metadata>" not in html and "dc:date" not in html.lower()  # no timestamps


def test_text_is_escaped(site):
    html = site["synthetic"].read_text(encoding="utf-8")
    assert "Does &lt;b&gt;escaping&lt;/b&gt; work &amp; do charts render?" in html
    assert "<td>a &lt; b</td>" in html and "<td>c &amp; d</td>" in html
    assert "<b>" not in html
    # the commands that reproduce a page, as escaped code; a page without them has no block
    assert (
        "<h2>Reproduce</h2>\n<pre><code>make simulate &amp;&amp; make report\n"
        ".venv/bin/python -m analyses.x --out &lt;dir&gt;</code></pre>"
    ) in html
    assert "Reproduce" not in site["variant-comparison"].read_text(encoding="utf-8")


def test_every_page_has_its_provenance_footer_and_json_twin(site, comparison):
    """The comparison plays its arms in-process: its footer gives each arm's seed and size and
    the versions of the process that played it; the synthetic page's run recorded none."""
    build = reporting.build_info()
    for name in ("variant-comparison", "synthetic"):
        html = site[name].read_text(encoding="utf-8")
        footer = html[html.index('<footer class="provenance">') :]
        assert f"commit {build.commit_text}" in footer and "<h2>Provenance</h2>" in footer
        document = json.loads(site[f"{name}.json"].read_text(encoding="utf-8"))
        assert reporting.json_problems(document) == [] and document["page"] == name
    html = site["variant-comparison"].read_text(encoding="utf-8")
    for arm in comparison.arms:
        assert f"<tr><td>{arm.label}</td><td>{arm.seed}</td><td>" in html
    assert html.count("played while building this page: scopa-sim") == len(comparison.arms)
    runs = json.loads(site["variant-comparison.json"].read_text())["runs"]
    assert [r["name"] for r in runs] == [a.label for a in comparison.arms]
    assert all(r["in_process"] and r["games"] == 300 and r["versions"] for r in runs)
    synthetic = site["synthetic"].read_text(encoding="utf-8")
    assert "No versions were recorded for synthetic." in synthetic
    index = site["index"].read_text(encoding="utf-8")
    assert '<a href="synthetic.json">' in index and '<a href="variant-comparison.json">' in index


# determinism ------------------------------------------------------------------------------------


def test_same_inputs_give_byte_identical_pages(comparison):
    again = compare.compare(
        ["classic", "classic:target=16"], ["greedy", "greedy"], mode="games", count=300, seed=3
    )
    assert reporting.render_page(compare_page.page(again)) == reporting.render_page(
        compare_page.page(comparison)
    )
    assert reporting.render_page(synthetic_page()) == reporting.render_page(synthetic_page())


def test_pages_are_identical_across_processes(tmp_path):
    """Two command-line runs with different hash seeds write the same bytes. A page names the
    commit that built it, so a pair during which the checkout changed (a commit, an edit of the
    package) is played again, up to three times."""
    root = Path(reporting.__file__).resolve().parents[2]

    def checkout() -> tuple:
        return reporting.git_commit(root), _package_status(root)

    for attempt in range(3):
        before, pages = checkout(), []
        for hash_seed in ("1", "2"):
            path = tmp_path / f"compare-{attempt}-{hash_seed}.html"
            subprocess.run(
                [PYTHON, "-m", "scopa_sim", "compare", "classic", "classic:forced_capture=true",
                 "--players", "random,random", "--deals", "3000", "--seed", "7", "--html",
                 str(path)],
                check=True, capture_output=True, timeout=120,
                env={**os.environ, "PYTHONHASHSEED": hash_seed},
            )  # fmt: skip
            pages.append(path.read_bytes())
        if checkout() == before:
            break
    assert pages[0] == pages[1]
    assert b"<svg" in pages[0]


def _package_status(root: Path) -> str:
    """The uncommitted changes of the package's files, contents included (empty outside git)."""
    try:
        return subprocess.run(
            ["git", "-C", str(root), "diff", "HEAD", "--", *reporting.PACKAGE_PATHS],
            capture_output=True, text=True, timeout=30,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""


# headless Chromium ------------------------------------------------------------------------------


def dump_dom(chromium: str, tmp_path: Path, page: Path) -> str:
    return run_chromium(chromium, tmp_path / "profile", "--dump-dom", page.as_uri()).stdout


@pytest.mark.parametrize(
    "name, title, texts",
    [
        ("variant-comparison", "Variant comparison", ["game_length", "classic:target=16"]),
        ("synthetic", "Synthetic report", ["a &lt; b", "Both charts are inline."]),
        ("index", "scopa-sim reports", ["Variant comparison", "Synthetic report"]),
    ],
)
def test_pages_render_in_headless_chromium(chromium, site, tmp_path, name, title, texts):
    dom = dump_dom(chromium, tmp_path, site[name])
    source = site[name].read_text(encoding="utf-8")
    assert re.search(rf"<title>{re.escape(title)}[^<]*</title>", dom), dom[:500]
    assert f"<h1>{title}</h1>" in dom
    # every inline chart survived parsing as SVG elements, with its drawing inside
    charts = source.count("<svg")
    assert dom.count("<svg") == charts
    assert len(re.findall(r"<svg[^>]*>.*?<path", dom, re.DOTALL)) == charts
    for text in texts:
        assert text in dom, text
    # tables were parsed into rows
    assert dom.count("<tr>") >= source.count("<tr>")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize(
    "name, ink", [("variant-comparison", (0x2B, 0x5D, 0x8A)), ("synthetic", (0xC0, 0x39, 0x2B))]
)
def test_screenshot_is_a_non_trivial_png(chromium, site, tmp_path, name, ink):
    shot = tmp_path / "shot.png"
    run_chromium(
        chromium, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1000,1400",
        "--hide-scrollbars", site[name].as_uri(),
    )  # fmt: skip
    data = shot.read_bytes()
    assert png_size(data) == (1000, 1400)
    assert len(data) > 20_000, f"{len(data)} bytes: the screenshot looks blank"
    pixels = (matplotlib.image.imread(shot)[..., :3] * 255).round().astype(np.uint8)
    colours = np.unique(pixels.reshape(-1, 3), axis=0)
    assert len(colours) > 50, "too few colours for text, tables and a chart"
    not_white = np.any(pixels < 250, axis=2).mean()
    assert 0.01 < not_white < 0.9, f"{not_white:.3f} of the pixels are not white"
    # the chart is drawn, not just laid out: its data colour is on screen
    exact = np.all(pixels == np.array(ink, np.uint8), axis=2).sum()
    assert exact >= 20, f"chart colour #{bytes(ink).hex()} on {exact} pixels only"


def test_renders_are_deterministic(chromium, site, tmp_path):
    """Two renders of the same page, each in a fresh profile: the same DOM, the same pixels."""
    page = site["variant-comparison"]
    assert dump_dom(chromium, tmp_path / "a", page) == dump_dom(chromium, tmp_path / "b", page)
    shots = []
    for run in ("a", "b"):
        shot = tmp_path / f"{run}.png"
        run_chromium(
            chromium, tmp_path / run, f"--screenshot={shot}", "--window-size=800,1000",
            "--hide-scrollbars", page.as_uri(),
        )  # fmt: skip
        shots.append(shot.read_bytes())
    assert shots[0] == shots[1]
