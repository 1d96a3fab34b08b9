"""Headlines: each analysis page opens with its answer in one sentence a player understands and a
small chart of its own findings, then the detail; the index shows each page's chart with the
sentence under it. The chart's numbers are read from the page's findings by name, so the chart
and the JSON twin cannot disagree.

The layout is checked in headless Chromium at a phone's width (390 px) and a desktop's (1280 px):
no table wider than the screen without a scroll of its own, no text cut or pushed off the
screen. The checker runs inside the page (a script added to a copy of it) and is itself tested
on a page built to break every rule.
"""

from __future__ import annotations

import html as htmllib
import inspect
import json
import math
import re
from pathlib import Path

import pytest

from analyses import framework, variant_comparison
from scopa_sim import reporting, stats
from tests.support.browser import run_chromium
from tests.test_html import external_references

pytestmark = pytest.mark.xdist_group("html")  # the browser tests share one worker

WIDTHS = (390, 1280)


def estimate(value: float, half: float = 0.1, n: int = 100) -> stats.Estimate:
    return stats.Estimate(value, value - half, value + half, n)


def findings() -> list[reporting.Finding]:
    return [
        reporting.Finding("demo.edge.classic", estimate(0.12, 0.05), "points per deal"),
        reporting.Finding("demo.edge.scopone", estimate(-0.03, 0.04), "points per deal"),
        reporting.Finding("demo.share.classic", estimate(0.61, 0.02), "share"),
    ]


ANSWER = framework.Answer(
    sentence="Dealing is worth about 0.12 points a deal in classic.",
    rows=(("classic", "demo.edge.classic"), ("scopone", "demo.edge.scopone")),
    axis="dealer's side minus the other, points per deal",
    reference=0.0,
)

LONG_WORD = "seat.duplicate_edge.classic-deals.pimc_samples=16-vs-chitarrella.chitarrella"


def wide_table() -> reporting.Table:
    columns = [f"column number {k} with a long heading" for k in range(14)]
    rows = [[f"{k * 1.2345:.4f} [{k:.4f}, {k + 1:.4f}]" for k in range(14)] for _ in range(3)]
    return reporting.Table("A table far wider than a phone", columns, rows)


def demo_page(slug: str = "demo", answer: framework.Answer = ANSWER) -> reporting.Page:
    """A page built the way the analyses build theirs, with what tends to break a narrow
    screen: a wide table, a long unbroken name in the text, long findings, a long command."""
    return framework.page(
        "demo",
        slug=slug,
        title="A demonstration page",
        question="How large is the dealer's edge, and does it hold in every game?",
        method=f"A method whose text names {LONG_WORD} without a space to break at.",
        finding="The dealer's side scores 0.120 [0.070, 0.170] points per deal more.",
        sections=[reporting.Section("Numbers", text="The table scrolls.", tables=[wide_table()])],
        data=[{"run": "demo", "seed": 1, "deals": 100, "players": "greedy,greedy"}],
        findings=findings(),
        answer=answer,
        reproduce_text=".venv/bin/python -m analyses.demo --data data --out reports " * 3,
    )


# the headline ----------------------------------------------------------------------------------


def test_the_chart_reads_the_pages_own_findings_by_name_and_scale():
    h = framework.headline(ANSWER, findings())
    assert h.labels == ("classic", "scopone")
    assert h.estimates == (findings()[0].estimate, findings()[1].estimate)
    share = framework.Answer(
        "The cards decide about 61 % of a deal.", (("classic", "demo.share.classic"),),
        "share of a deal, %", kind="bar", scale=100.0,
    )  # fmt: skip
    (e,) = framework.headline(share, findings()).estimates
    assert (e.value, e.low, e.high) == pytest.approx((61.0, 59.0, 63.0))
    assert e.n == 100


@pytest.mark.parametrize(
    "x, text",
    [(0.0077, "0.0077"), (0.1234, "0.12"), (4.06, "4.1"), (12.3, "12"), (123.4, "123"),
     (-0.38, "-0.38"), (-0.00001, "0"), (0.0, "0")],
)  # fmt: skip
def test_numbers_in_a_sentence_have_two_significant_figures(x, text):
    assert framework.about(x) == text


def test_a_row_naming_no_finding_of_the_page_is_refused():
    answer = framework.Answer("A sentence.", (("x", "demo.nowhere"),), "points")
    with pytest.raises(ValueError, match=r"no finding named demo\.nowhere"):
        framework.headline(answer, findings())


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"sentence": "  "}, "the sentence is empty"),
        ({"sentence": "One line.\nAnother line."}, "not one sentence"),
        ({"sentence": "No full stop"}, "not one sentence"),
        ({"labels": (), "estimates": ()}, "0 rows"),
        ({"labels": ("a", "b"), "estimates": (estimate(1.0),)}, "2 labels for 1 estimates"),
        ({"estimates": (stats.Estimate(math.nan, 0.0, 1.0, 3),)}, "is not finite"),
        ({"estimates": (stats.Estimate(1.0, math.nan, 1.5, 3),)}, "is not finite"),
        ({"kind": "pie"}, "kind 'pie'"),
        ({"axis": ""}, "the axis has no label"),
        ({"labels": ("",)}, "a row has no label"),
        ({"whiskers": " "}, "the whiskers have no caption"),
    ],
)
def test_a_headline_the_index_could_not_draw_is_refused(change, problem):
    fields = {"sentence": "A sentence.", "labels": ("a",), "estimates": (estimate(1.0),),
              "axis": "points", **change}  # fmt: skip
    with pytest.raises(ValueError, match=re.escape(problem)):
        reporting.Headline(**fields)


def test_a_row_without_an_interval_is_drawn_as_a_point():
    """A sample with no variation has no interval (NaN bounds): the chart shows its value."""
    flat = stats.Estimate(2.0, math.nan, math.nan, 300)
    h = reporting.Headline("A sentence.", ("flat", "varied"), (flat, estimate(1.0)), "points")
    assert reporting.headline_svg(h).startswith("<svg")
    rows = h.to_json()["rows"]
    assert rows[0] == {"label": "flat", "estimate": 2.0, "ci_low": None, "ci_high": None}


def test_too_many_rows_are_refused():
    n = reporting.HEADLINE_ROWS + 1
    with pytest.raises(ValueError, match=f"{n} rows"):
        reporting.Headline("A sentence.", ("a",) * n, (estimate(1.0),) * n, "points")


def test_framework_page_cannot_be_called_without_an_answer():
    assert inspect.signature(framework.page).parameters["answer"].default is inspect._empty
    kwargs = dict(slug="x", title="x", question="x", method="x", finding="x", sections=[],
                  data=[], findings=findings())  # fmt: skip
    with pytest.raises(TypeError, match="answer"):
        framework.page("demo", **kwargs)


@pytest.mark.parametrize("kind", reporting.HEADLINE_KINDS)
def test_the_chart_is_inline_svg_with_every_label_and_the_same_bytes_each_time(kind):
    h = framework.headline(
        framework.Answer("A sentence.", ANSWER.rows, "points per deal", kind=kind), findings()
    )
    svg = reporting.headline_svg(h)
    assert svg.startswith("<svg") and svg.count("</svg>") == 1
    for text in ("classic", "scopone", "points per deal"):
        assert text in svg, text
    assert external_references(svg) == []
    assert reporting.headline_svg(h) == svg
    other = "bar" if kind == "interval" else "interval"
    assert (
        reporting.headline_svg(
            framework.headline(
                framework.Answer("A sentence.", ANSWER.rows, "points per deal", kind=other),
                findings(),
            )
        )
        != svg
    )


# the page and the index ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory, monkeypatch_module) -> dict[str, Path]:
    """The demo page, a real analysis page (the variant comparison, played small) and a page
    without a headline (a plain ``scopa-sim compare`` page), with their index."""
    monkeypatch_module.setattr(variant_comparison, "COUNT", 2_000)
    monkeypatch_module.setattr(variant_comparison, "WORKERS", 1)
    plain = reporting.Page(
        slug="plain", title="A page with no headline", question="Is it listed?", method="m.",
        finding="Its finding stands in for a headline.", sections=[], data=[],
    )  # fmt: skip
    pages = [demo_page(), variant_comparison.build(Path("unused")), plain]
    out = tmp_path_factory.mktemp("headlines")
    index, *written = reporting.write_site(pages, out)
    return {"index.html": index, **{p.name: p for p in written}}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_a_page_opens_with_its_answer_then_its_chart_then_the_detail(site):
    html = site["demo.html"].read_text(encoding="utf-8")
    body = html[html.index("<body>") :]
    order = [
        body.index("<h1>A demonstration page</h1>"),
        body.index(f'<p class="answer">{ANSWER.sentence}'.replace("'", "&#39;")),
        body.index('<figure class="headline">\n<svg'),
        body.index('<p class="question">'),
        body.index('<p class="finding">The dealer'),
        body.index("<h2>Method</h2>"),
        body.index("<h2>Numbers</h2>"),
    ]
    assert order == sorted(order)


def test_the_index_shows_each_chart_with_its_sentence_under_it_and_not_the_long_finding(site):
    html = site["index.html"].read_text(encoding="utf-8")
    tiles = re.findall(r'<article class="tile">(.*?)</article>', html, re.DOTALL)
    assert len(tiles) == 3
    demo, variants, plain = tiles
    for tile, slug in ((demo, "demo"), (variants, "variant-comparison")):
        chart, sentence = tile.index("<svg"), tile.index('<p class="answer">')
        assert chart < tile.index("</svg>") < sentence
        assert f'<a href="{slug}.html">' in tile and f'<a href="{slug}.json">' in tile
    assert "0.120 [0.070, 0.170]" not in demo  # the long finding is on the page only
    assert "<svg" not in plain and "Its finding stands in for a headline." in plain
    assert external_references(html) == []


def test_the_json_twin_carries_the_headline_with_the_chart_rows(site):
    document = json.loads(site["demo.json"].read_text(encoding="utf-8"))
    assert reporting.json_problems(document) == []
    h = document["headline"]
    assert h["sentence"] == ANSWER.sentence and h["kind"] == "interval"
    assert h["whiskers"] == "95 % confidence intervals"
    assert [(r["label"], r["estimate"]) for r in h["rows"]] == [("classic", 0.12),
                                                                 ("scopone", -0.03)]  # fmt: skip
    by_name = {f["name"]: f for f in document["findings"]}
    assert h["rows"][0]["ci_low"] == by_name["demo.edge.classic"]["ci_low"]
    assert "headline" not in json.loads(site["plain.json"].read_text(encoding="utf-8"))


def test_the_variant_comparison_headline_is_its_clearest_difference(site):
    document = json.loads(site["variant-comparison.json"].read_text(encoding="utf-8"))
    h = document["headline"]
    by_name = {f["name"]: f for f in document["findings"]}
    # the beginners' clearest difference, then the same metric under every arm at both levels
    clearest = max(
        (
            f
            for f in document["findings"]
            if f["name"].endswith(".diff_family")
            and f["ci_high"] is not None
            and not f["name"].startswith(("variant.expert.", "variant.levels."))
        ),
        key=lambda f: abs(f["estimate"]) / ((f["ci_high"] - f["ci_low"]) / 2),
    )
    metric = clearest["name"].split(".")[1]
    plotted = []
    for name in by_name:
        if name.startswith(f"variant.{metric}.") and name.endswith(".diff_family"):
            plotted += [name, name.replace("variant.", "variant.expert.", 1)]
    assert [r["estimate"] for r in h["rows"]] == [by_name[n]["estimate"] for n in plotted]
    assert metric.replace("_", " ") in h["sentence"]
    assert "=true" not in h["sentence"]  # options in words for a player
    # the chart plots the family's simultaneous intervals, and its caption says so, page and tile
    assert "simultaneous" in h["whiskers"] and "95 %" not in h["whiskers"]
    for page in ("variant-comparison.html", "index.html"):
        assert f"Whiskers: {h['whiskers']}." in site[page].read_text(encoding="utf-8")


# the layout in headless Chromium ---------------------------------------------------------------

#: Added to a copy of a page: measures it as laid out and writes what is wrong into the DOM.
LAYOUT_CHECK = """<script>
(function () {
  var width = document.documentElement.clientWidth, problems = [];
  function scrolls(el) {
    for (var p = el; p && p !== document.body; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") { return p; }
    }
    return null;
  }
  function outside(r) { return r.right > width + 1 || r.left < -1; }
  if (document.documentElement.scrollWidth > width + 1) {
    problems.push("the page is " + document.documentElement.scrollWidth + " px wide");
  }
  document.querySelectorAll("table").forEach(function (t, k) {
    if (!outside(t.getBoundingClientRect())) { return; }
    var box = scrolls(t);
    if (!box) { problems.push("table " + k + " is wider than the screen with no scroll"); }
    else if (outside(box.getBoundingClientRect())) { problems.push("table " + k + "'s scroll"); }
  });
  document.querySelectorAll("body *").forEach(function (el) {
    var s = getComputedStyle(el);
    var hides = s.overflowX === "hidden" || s.overflowX === "clip";
    if ((hides || s.textOverflow === "ellipsis") && el.scrollWidth > el.clientWidth + 1) {
      problems.push("text cut in <" + el.tagName.toLowerCase() + ">");
    }
  });
  var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node;
  while ((node = walk.nextNode())) {
    var el = node.parentElement;
    if (!node.textContent.trim() || el.closest("script") || scrolls(el)) { continue; }
    var range = document.createRange();
    range.selectNodeContents(node);
    Array.prototype.forEach.call(range.getClientRects(), function (r) {
      if (r.width && outside(r)) {
        problems.push("text off the screen: " + node.textContent.trim().slice(0, 40));
      }
    });
  }
  document.querySelectorAll("svg").forEach(function (svg, k) {
    if (outside(svg.getBoundingClientRect())) { problems.push("chart " + k + " off the screen"); }
  });
  parent.document.getElementById("layout").textContent =
    JSON.stringify({width: width, problems: problems});
}());
</script>"""


def layout_problems(chromium_path: str, page: Path, width: int, work: Path) -> dict:
    """The layout checker's report on ``page`` laid out ``width`` px wide: the page (with the
    checker) in a frame of that width, as a browser window cannot be made narrower than 500 px
    in headless Chromium; the checker writes its report into the frame's parent."""
    work.mkdir(parents=True, exist_ok=True)
    probe = work / f"{page.stem}-{width}.html"
    inner = page.read_text(encoding="utf-8").replace("</body>", LAYOUT_CHECK + "\n</body>")
    probe.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
        f'<iframe style="width:{width}px;height:900px;border:0;display:block" '
        f'srcdoc="{htmllib.escape(inner, quote=True)}"></iframe><pre id="layout"></pre>'
        "</body></html>",
        encoding="utf-8",
    )
    dom = run_chromium(
        chromium_path, work / f"profile-{width}", f"--window-size={width + 200},1000",
        "--hide-scrollbars", "--dump-dom", probe.as_uri(),
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="layout">(.+?)</pre>', dom, re.DOTALL)
    assert found, f"the checker wrote no report: {dom[-2000:]}"
    return json.loads(htmllib.unescape(found.group(1)))


def test_the_layout_checker_finds_what_breaks_a_phone(chromium, tmp_path):
    bad = tmp_path / "bad.html"
    cells = "".join(f"<td>cell {k} of a row far too long for a phone</td>" for k in range(12))
    bad.write_text(
        "<!DOCTYPE html><html><head><meta name='viewport' content='width=device-width'>"
        "<style>.cut { width: 8rem; overflow: hidden; white-space: nowrap; }</style></head>"
        f"<body><table><tr>{cells}</tr></table><p class='cut'>{LONG_WORD} cut off</p>"
        f"<p>{LONG_WORD}{LONG_WORD}</p></body></html>",
        encoding="utf-8",
    )
    report = layout_problems(chromium, bad, 390, tmp_path)
    assert report["width"] == 390
    problems = "\n".join(report["problems"])
    assert "table 0 is wider than the screen with no scroll" in problems
    assert "text cut in <p>" in problems
    assert "text off the screen" in problems and "the page is" in problems


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["index.html", "demo.html", "variant-comparison.html"])
def test_pages_fit_a_phone_and_a_desktop(chromium, site, tmp_path, name, width):
    report = layout_problems(chromium, site[name], width, tmp_path)
    assert report["width"] == width
    assert report["problems"] == []
