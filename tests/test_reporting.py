"""Pages say where they come from, and have a machine-readable twin.

The footer of every page names the scopa-sim that built it (version, git commit, "+ uncommitted
changes" when the package differs from it, "unknown" outside a checkout) and, per run behind the
page, its seed, deals and games and the versions its manifest recorded, saying which versions of
the building process differ. ``NAME.json`` beside each page has one documented shape
(reporting.PAGE_JSON_SHAPE); the index links both. Results convert to pandas, and the README's
pandas example runs as written. Real runs here are tiny runs of the runner, made in the test.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import types
from pathlib import Path

import polars as pl
import pytest

from analyses import __main__ as site
from analyses import deal_shape, framework
from analyses.framework import in_process, main, runs
from scopa_sim import api, reporting, runner, stats

ROOT = Path(__file__).resolve().parent.parent
XMLNS = re.compile(r'\sxmlns(?::[\w-]+)?\s*=\s*"http://www\.w3\.org/[^"]*"')
SEED = 5
TINY_RUNS = {  # name: (options, mode, count): what deal_shape reads, tiny
    "classic-greedy": ({}, "games", 150),
    "classic-target-16": ({"target": 16}, "games", 60),
    "classic-target-21": ({"target": 21}, "games", 60),
    "classic-deals": ({}, "deals", 2_000),
}


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("reporting") / "data"
    for name, (options, mode, count) in TINY_RUNS.items():
        for level in framework.LEVELS:  # deal_shape answers for beginners and experts
            config = runner.RunConfig.create(
                variant="classic", players=[framework.LEVEL_PLAYER[level]] * 2, mode=mode,
                count=count, seed=SEED, out=data / framework.level_run(name, level),
                options=options, chunk_size=count,
            )  # fmt: skip
            runner.run(config, progress=False)
    return data


def manifest(data: Path, name: str) -> dict:
    return json.loads((data / name / "manifest.json").read_text())


def footer_of(html: str) -> str:
    return html[html.index('<footer class="provenance">') : html.index("</footer>")]


# the footer ---------------------------------------------------------------------------------------


def test_a_page_built_from_runs_names_its_build_and_every_run(tiny_data, tmp_path):
    page = deal_shape.build(tiny_data)
    html = reporting.render_page(page)
    footer = footer_of(html)
    build = reporting.build_info()
    import scopa_sim

    assert f"Built by scopa-sim {scopa_sim.__version__}, commit {build.commit_text}," in footer
    recorded = manifest(tiny_data, "classic-greedy")
    assert (
        f"schema version {recorded['schema_version']}, data version {recorded['data_version']}, "
        f"pack stream {recorded['pack_stream']}."
    ) in footer
    for name, (_, mode, count) in TINY_RUNS.items():
        (row,) = [r for r in page.data if r["run"] == name]
        assert row["seed"] == SEED and row["versions"] == manifest(tiny_data, name)["versions"]
        games = pl.scan_parquet(tiny_data / name / "*.parquet").select(pl.col("game").n_unique())
        games = games.collect()
        deals = pl.scan_parquet(tiny_data / name / "*.parquet")
        deals = deals.select(pl.struct("game", "deal").n_unique())
        deals = deals.collect().item()
        assert row["deals"] == deals
        size = f"{deals:,} deals" + (f" in {count:,} games" if mode == "games" else "")
        assert mode == "deals" or games.item() == count == row["games"]
        versions = ", ".join(
            f"{'scopa-sim' if k == 'scopa_sim' else k} {row['versions'][k]}"
            for k in ("scopa_sim", "numpy", "polars", "python")
        )
        assert f"<tr><td>{name}</td><td>{SEED}</td><td>{size}</td><td>{versions}</td></tr>" in (
            footer
        )
    # the runs were made by this process: nothing differs, and the page says so
    assert "has the versions every run was made with" in footer
    # the data table keeps the footer's keys out
    data_table = html[html.index("<h2>Data</h2>") : html.index('<footer class="provenance">')]
    assert "numpy" not in data_table and "pack_stream" not in data_table
    assert "<th>deals</th><th>games</th>" in data_table


def test_the_footer_says_which_versions_differ_and_which_were_not_recorded():
    here = reporting.build_info().versions
    old = {**here, "numpy": "1.0.0"}
    rows = [
        {"run": "same", "seed": 1, "deals": 10, "versions": here, "schema_version": 2,
         "data_version": 2, "pack_stream": 2},
        {"run": "older", "seed": 2, "deals": 10, "versions": old, "schema_version": 2,
         "data_version": 1, "pack_stream": 1},
        {"run": "unknown-run", "seed": 3, "deals": "1,000"},
        in_process({"run": "played", "seed": 4, "deals": 5}),
        {"arm": "classic:target=16", "seed": 6, "games": "300"},  # scopa_sim.compare's row
    ]  # fmt: skip
    page = reporting.Page("p", "P", "Q?", "M.", "F.", [], rows)
    footer = footer_of(reporting.render_page(page))
    assert f"numpy {here['numpy']} here, 1.0.0 in older" in footer
    assert "No versions were recorded for unknown-run." in footer
    assert "every run was made with" not in footer
    # runs played while building the page carry the process's versions and formats
    assert footer.count("played while building this page: scopa-sim") == 2
    assert "<td>classic:target=16</td><td>6</td><td>300 games</td>" in footer
    assert "<td>unknown-run</td><td>3</td><td>1,000 deals</td><td>not recorded</td>" in footer
    # many runs without versions are counted, not listed (the table lists them)
    many = [{"run": f"r{k}", "seed": k} for k in range(5)]
    text = footer_of(reporting.render_page(reporting.Page("m", "M", "Q?", "M.", "F.", [], many)))
    assert "No versions were recorded for 5 runs." in text and "Data format: not recorded." in text
    # formats differ: the table gets a column of them
    assert "Data formats differ between the runs: see the column format." in footer
    assert "<td>schema version 2, data version 1, pack stream 1</td></tr>" in footer
    assert "<td>unknown-run</td>" in footer and footer.count("<td>not recorded</td>") == 2
    document = reporting.page_json(page)
    played = [r for r in document["runs"] if r["in_process"]]
    assert [r["name"] for r in played] == ["played", "classic:target=16"]
    assert all(r["versions"] == here and r["data_version"] is not None for r in played)
    assert document["runs"][2]["versions"] == {} and document["runs"][2]["deals"] == 1000


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_commit_and_uncommitted_changes(tmp_path):
    repo = tmp_path / "repo"
    (repo / "scopa_sim").mkdir(parents=True)
    (repo / "scopa_sim" / "a.py").write_text("x = 1\n")
    (repo / "notes.txt").write_text("not package code\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one")
    head = git(repo, "rev-parse", "--short=10", "HEAD")
    assert reporting.git_commit(repo) == (head, False)
    (repo / "notes.txt").write_text("changed, but not package code\n")
    assert reporting.git_commit(repo) == (head, False)
    (repo / "scopa_sim" / "a.py").write_text("x = 2\n")
    assert reporting.git_commit(repo) == (head, True)
    git(repo, "checkout", "-q", "--", "scopa_sim/a.py")
    (repo / "analyses").mkdir()
    (repo / "analyses" / "new.py").write_text("")  # untracked package code counts
    assert reporting.git_commit(repo) == (head, True)
    # not the top of a checkout (an installed copy inside another tree), or no checkout at all
    assert reporting.git_commit(repo / "scopa_sim") == ("unknown", False)
    outside = tmp_path / "plain"
    outside.mkdir()
    assert reporting.git_commit(outside) == ("unknown", False)
    assert reporting.git_commit(tmp_path / "missing") == ("unknown", False)


def test_this_build_has_a_commit_of_this_checkout():
    build = reporting.build_info()
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        assert build.commit == "unknown"
        return
    assert re.fullmatch(r"[0-9a-f]{10}", build.commit)
    assert git(ROOT, "cat-file", "-t", build.commit) == "commit"
    assert build.commit_text.endswith(" + uncommitted changes") == build.dirty


def test_footer_and_index_are_deterministic_and_fetch_nothing(tiny_data, tmp_path):
    pages = [deal_shape.build(tiny_data), deal_shape.build(tiny_data)]
    assert reporting.render_page(pages[0]) == reporting.render_page(pages[1])
    index, *written = reporting.write_site(pages[:1], tmp_path)
    for path in [index, *written]:
        if path.suffix == ".html":
            text = XMLNS.sub("", path.read_text(encoding="utf-8"))
            assert not re.search(r"(?:https?|ftp|file)://|@import|<script|<link|<img", text)
    # the commit date, the time or the folder built in appear nowhere
    html = (tmp_path / "deal-shape.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in html and str(tiny_data) not in footer_of(html)


# the JSON twin ------------------------------------------------------------------------------------


def test_every_page_writes_its_json_twin_with_the_documented_shape(tiny_data, tmp_path):
    page = deal_shape.build(tiny_data)
    html, data = reporting.write_page(page, tmp_path)
    assert (html.name, data.name) == ("deal-shape.html", "deal-shape.json")
    document = json.loads(data.read_text())
    assert reporting.json_problems(document) == []
    assert document["page"] == "deal-shape"
    assert [f["name"] for f in document["findings"]] == [f.name for f in page.findings]
    for run in document["runs"]:
        recorded = manifest(tiny_data, run["name"])
        assert run["seed"] == recorded["config"]["seed"] == SEED
        assert run["players"] == recorded["config"]["players"]
        assert set(run["players"]) <= {framework.BEGINNER, framework.EXPERT}
        assert run["variant"].startswith("classic")
        assert run["versions"] == recorded["versions"] and run["in_process"] is False
        assert run["pack_stream"] == recorded["pack_stream"]
        beginner = next(n for n in TINY_RUNS if run["name"] in (n, framework.expert_run(n)))
        mode, count = TINY_RUNS[beginner][1:]
        assert run["mode"] == mode
        assert run["games" if mode == "games" else "deals"] == count
    assert document["build"]["commit"] == reporting.build_info().commit


def test_the_shape_check_finds_what_is_wrong():
    good = {
        "page": "p",
        "findings": [
            {"name": "a.b", "estimate": 1.0, "ci_low": None, "ci_high": 2, "n": 3, "unit": "u"}
        ],
        "runs": [],
        "build": {"commit": "unknown", "dirty": False, "scopa_sim": "0", "numpy": "0",
                  "polars": "0", "python": "3"},
    }  # fmt: skip
    assert reporting.json_problems(good) == []
    bad = json.loads(json.dumps(good))
    bad["findings"][0]["n"] = True  # a bool is no count
    bad["findings"].append({**good["findings"][0]})  # the same name twice
    del bad["build"]["commit"]
    bad["extra"] = 1
    problems = reporting.json_problems(bad)
    assert "$.findings[0].n: True is not int/NoneType" in problems
    assert "$.findings: name 'a.b' repeated" in problems
    assert "$.build.commit: missing" in problems and "$.extra: unexpected key" in problems
    assert reporting.json_problems({**good, "runs": [{"name": "x"}]})  # a run lacks its keys


def test_a_page_whose_json_would_be_malformed_is_not_written(tmp_path):
    nan = stats.Estimate(math.nan, math.nan, math.nan, 0)
    page = reporting.Page(
        "p", "P", "Q?", "M.", "F.", [], [], findings=[reporting.Finding("x.nan", nan, "u")]
    )
    reporting.write_page(page, tmp_path / "ok")  # NaN is written as null, valid JSON
    (finding,) = json.loads((tmp_path / "ok" / "p.json").read_text())["findings"]
    assert finding["estimate"] is None and finding["n"] == 0
    twice = reporting.Finding("x.same", stats.Estimate(1.0, 0.5, 1.5, 10), "u")
    page = reporting.Page("q", "Q", "Q?", "M.", "F.", [], [], findings=[twice, twice])
    with pytest.raises(ValueError, match=r"q\.json would be malformed: .*repeated"):
        reporting.write_page(page, tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_the_index_lists_each_pages_html_and_json(tmp_path):
    pages = [
        reporting.Page(slug, slug.title(), "Q?", "M.", "F.", [], []) for slug in ("one", "two")
    ]
    index, *_ = reporting.write_site(pages, tmp_path)
    html = index.read_text(encoding="utf-8")
    for slug in ("one", "two"):
        row = re.search(
            rf"<article class=\"tile\">\s*<h2><a href=\"{slug}\.html\">.*?</article>", html, re.S
        ).group(0)
        assert f'<a href="{slug}.json">{slug}.json</a>' in row
        assert (tmp_path / f"{slug}.html").is_file() and (tmp_path / f"{slug}.json").is_file()
    assert f"commit {reporting.build_info().commit_text}" in html


def test_each_analysis_alone_and_the_site_write_html_and_json(tiny_data, tmp_path, monkeypatch):
    assert main(deal_shape.build, ["--data", str(tiny_data), "--out", str(tmp_path / "one")]) == 0
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [
        "deal-shape.html",
        "deal-shape.json",
    ]

    def fake(slug):
        page = reporting.Page(slug, slug, "Q?", "M.", "F.", [], [])
        return types.SimpleNamespace(build=lambda data: page)

    monkeypatch.setattr(site, "PAGES", (fake("a"), fake("b")))  # in this process: --jobs 1
    assert site.main(["--data", str(tiny_data), "--out", str(tmp_path / "all"), "--jobs", "1"]) == 0
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [
        "a.html", "a.json", "b.html", "b.json", "index.html",
    ]  # fmt: skip


# pages' findings --------------------------------------------------------------------------------


def test_deal_shape_findings_are_its_estimates_and_its_sentence(tiny_data):
    page = deal_shape.build(tiny_data)
    found = {f.name: f.estimate for f in page.findings}
    assert len(found) == len(page.findings)  # unique names
    shape = deal_shape.deal_shape(runs(tiny_data)["classic-greedy"])
    assert found["deal_shape.deal.total_points"] == shape.total_points
    assert found["deal_shape.deal.any_scopa"] == shape.any_scopa
    plain = deal_shape.independent_deals(runs(tiny_data)["classic-deals"])
    assert found["deal_shape.independent_deals.scope"] == plain.scope_mean
    for target, name in (
        (11, "classic-greedy"),
        (16, "classic-target-16"),
        (21, "classic-target-21"),
    ):
        game = deal_shape.game_shape(runs(tiny_data)[name])
        assert found[f"deal_shape.target_{target}.deals_per_game"] == game.length
        assert found[f"deal_shape.target_{target}.tie_share"] == game.tie_share
        assert game.length.n == TINY_RUNS[name][2]
    # the sentence's two numbers are findings: the game length and the tie share (as %)
    length, ties = (
        found["deal_shape.target_11.deals_per_game"],
        found["deal_shape.target_11.tie_share"],
    )
    assert reporting.ci(length) in page.finding
    pct = f"{100 * ties.value:.2f} % [{100 * ties.low:.2f}, {100 * ties.high:.2f}]"
    assert pct in page.finding


# pandas -------------------------------------------------------------------------------------------


def test_outcomes_convert_to_pandas_with_the_columns_and_dtypes_of_to_frame():
    out = api.play_games("classic", ["greedy", "random"], games=40, seed=3)
    frame, df = out.to_frame(), out.to_pandas()
    assert list(df.columns) == frame.columns and len(df) == frame.height
    for column in frame.columns:
        assert df[column].dtype == frame[column].to_numpy().dtype, column
        assert df[column].tolist() == frame[column].to_list(), column


def readme_pandas_example() -> str:
    """The first Python block of the README's section "Reading results into pandas"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Reading results into pandas") :]
    section = section[: section.index("\n## ", 1)]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_pandas_example_runs(tiny_data, tmp_path, monkeypatch, capsys):
    code = readme_pandas_example()
    assert "pd.read_parquet" in code and "to_pandas()" in code
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "classic-greedy").symlink_to(tiny_data / "classic-greedy")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    deals = namespace["deals"]
    expected = pl.read_parquet(tiny_data / "classic-greedy" / "*.parquet")
    assert len(deals) == expected.height and list(deals.columns) == expected.columns
    assert deals["points"].sum() == expected["points"].cast(pl.Int64).sum()
    frame = namespace["frame"]
    again = api.play_games("classic", ["greedy", "random"], games=1_000, seed=1).to_frame()
    assert frame.equals(again.to_pandas())
    printed = capsys.readouterr().out
    assert "dealer" in printed and "side" in printed


def test_the_site_builds_pages_in_worker_processes_as_it_does_alone(
    tiny_data, tmp_path, monkeypatch
):
    """--jobs 2 builds each page in a worker process: the same files as one process builds."""
    monkeypatch.setattr(site, "PAGES", (deal_shape,))
    for jobs in ("1", "2"):
        assert (
            site.main(["--data", str(tiny_data), "--out", str(tmp_path / jobs), "--jobs", jobs])
            == 0
        )
    for name in ("deal-shape.html", "deal-shape.json", "index.html"):
        assert (tmp_path / "1" / name).read_text() == (tmp_path / "2" / name).read_text()


def test_a_page_lists_its_findings_with_the_smallest_effect_its_data_detect():
    e = stats.Estimate(0.5, 0.4, 0.6, 10_000)
    exact = stats.Estimate(2.0, 2.0, 2.0, 10)
    page = reporting.Page(
        "p", "P", "Q?", "M.", "F.", [], [],
        findings=[reporting.Finding("p.a", e, "points"), reporting.Finding("p.b", exact, "deals")],
    )  # fmt: skip
    rows = reporting.findings_table(page)
    assert rows[0][:4] == ["p.a", "0.5000 [0.4000, 0.6000]", "10,000", "points"]
    assert float(rows[0][4]) == pytest.approx(stats.detectable_effect(e), rel=0.01)
    assert rows[1][4] == "exact"
    html = reporting.render_page(page)
    assert "smallest effects these data can detect" in html and "2 findings" in html
