"""The page "Who plays best?" (analyses/who_plays_best/) on a tiny real tournament, and the
players sentence every page carries.

The tournament is random, greedy and memory in classic, 4,000 duplicate deals a run, played by
the very command the page prints (so the Reproduce block is known to work): memory must be rated
above greedy above random with separated intervals, and the page must show what the command's own
ratings.parquet holds (the page re-reads, it never replays). A missing or incomplete tournament
folder is refused with one line. The players sentence of an existing page is read from the data.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

from analyses import __main__ as site
from analyses import who_plays_best
from analyses.framework import MissingData, main, players_sentence, runs
from scopa_sim import cli, registry, reporting, runner
from scopa_sim.reporting import json_problems, render_page

#: The default tournaments seat ``expert``, a compiled player merged from main; until it is there
#: they cannot be planned (their commands name an unknown player).
EXPERT = "expert" in registry.BUILTIN
needs_expert = pytest.mark.skipif(not EXPERT, reason="the default tournaments seat expert")
XMLNS = re.compile(r'\sxmlns(?::[\w-]+)?\s*=\s*"http://www\.w3\.org/[^"]*"')
TINY = """\
[defaults]
seed = 1
workers = 1

[[tournament]]
name = "tiny"
variant = "classic"
players = ["random", "greedy", "memory"]
deals = 4_000
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tournament folder played by the command the page shows: (data, config, command)."""
    root = tmp_path_factory.mktemp("players")
    config = root / "tournaments.toml"
    config.write_text(TINY)
    data = root / "data"
    (command,) = who_plays_best.commands(data, config)
    args = shlex.split(command)
    assert args[0] == ".venv/bin/scopa-sim" and args[1] == "tournament"
    status = cli.main([*args[1:], "--no-progress"])
    assert status == 0
    return data, config, command


@pytest.fixture(scope="module")
def page(tiny):
    data, config, _ = tiny
    return who_plays_best.build(data, config)


def test_the_page_is_built_self_contained_and_names_players_and_method(tiny, page):
    _, _, command = tiny
    html = render_page(page)
    assert page.title == "Who plays best?" and page.slug == "who-plays-best"
    assert "http" not in XMLNS.sub("", html)  # nothing fetched: no http(s) URL but SVG namespaces
    assert html.count("<svg") >= 2  # the forest plot and the heat map, inline
    for player in ("random", "greedy", "memory"):
        assert player in page.method and player in html
    for word in ("Duplicate", "Davidson", "Holm", "One family of tests for the whole page"):
        assert word in page.method
    assert command in page.reproduce  # the exact command that played the folder
    assert "make tournament" in page.reproduce
    assert page.data[0]["tournament"] == "tiny" and page.data[0]["seed"] == 1
    assert "4,000" in page.data[0]["per run"]
    headings = [s.heading for s in page.sections]
    assert any(h.endswith(": ratings") for h in headings)
    assert any(h.endswith(": pairings") for h in headings)
    assert any("duplicate play" in h for h in headings)
    assert "Variance reduction" in html and "Key pairings" in html


def test_the_ratings_rank_memory_over_greedy_over_random(tiny, page):
    data, config, _ = tiny
    (spec,) = who_plays_best.load_config(config)
    result = who_plays_best.load(spec, data)
    ranked = [r.player for r in result.ratings]
    assert ranked == ["memory", "greedy", "random"]
    memory, greedy, random = result.ratings
    assert memory.ci_low > greedy.ci_high and greedy.ci_low > random.ci_high
    # The page shows the command's own ratings (ratings.parquet), not numbers of its own.
    saved = pl.read_parquet(spec.folder(data) / "ratings.parquet").sort("rating", descending=True)
    assert saved["player"].to_list() == ranked
    assert saved["rating"].to_list() == pytest.approx([r.rating for r in result.ratings])
    (table,) = [t for s in page.sections for t in s.tables if t.caption.startswith("Fair players")]
    assert [row[1] for row in table.rows] == ranked
    assert table.rows[0][2] == f"{memory.rating:+.0f}"
    # The answer names the best player and its margin over greedy with an interval.
    assert page.finding.startswith("classic: memory rated best")
    assert "beating greedy by +" in page.finding and "points per deal" in page.finding
    (key,) = [t for s in page.sections for t in s.tables if t.caption.startswith("Key pairings")]
    assert [row[:2] for row in key.rows] == [["memory", "greedy"], ["greedy", "random"]]
    assert "the page's one family" in key.caption
    # the command's own page (scopa-sim tournament --html) names its build too
    html = who_plays_best.tour.page(result, "cmd")
    build = reporting.build_info()
    assert f"Built by scopa-sim {build.version}, commit {build.commit_text}," in html


def test_the_findings_are_the_numbers_of_the_answer_and_the_key_pairings(tiny, page):
    data, config, _ = tiny
    (spec,) = who_plays_best.load_config(config)
    result = who_plays_best.load(spec, data)
    found = {f.name: f for f in page.findings}
    assert len(found) == len(page.findings)  # names are unique
    for r in result.ratings:
        e = found[f"who_plays_best.tiny.rating.{r.player}"].estimate
        assert (e.value, e.low, e.high) == (r.rating, r.ci_low, r.ci_high)
        assert e.n == 4_000  # the packs: its two pairings play the same 4,000 duplicate deals
    leader = found["who_plays_best.tiny.rating.memory"].estimate
    assert f"memory rated best ({leader.value:+.0f} [{leader.low:+.0f}, {leader.high:+.0f}])" in (
        page.finding
    )
    margin = found["who_plays_best.tiny.points_per_deal.memory-vs-greedy"]
    row = result.row("memory", "greedy", "points_per_deal")
    assert margin.estimate == row.estimate and margin.unit.startswith("points per deal")
    assert f"beating greedy by {who_plays_best.tour.estimate_text(row)}" in page.finding
    assert set(found) == {
        *(f"who_plays_best.tiny.rating.{p}" for p in ("memory", "greedy", "random")),
        "who_plays_best.tiny.points_per_deal.memory-vs-greedy",
        "who_plays_best.tiny.points_per_deal.greedy-vs-random",
    }


def test_the_provenance_is_read_from_the_tournament_manifests(tiny, page):
    data, _, _ = tiny
    (row,) = page.data
    assert (row["deals"], row["games"], row["seed"]) == (6 * 4_000, None, 1)
    manifest = json.loads(
        (data / "tournaments" / "tiny" / "greedy-vs-memory" / "manifest.json").read_text()
    )
    assert row["versions"] == manifest["versions"]
    assert (row["schema_version"], row["data_version"], row["pack_stream"]) == (
        manifest["schema_version"], manifest["data_version"], manifest["pack_stream"],
    )  # fmt: skip
    html = render_page(page)
    footer = html[html.index('<footer class="provenance">') :]
    assert "<td>tiny</td><td>1</td><td>24,000 deals</td>" in footer
    assert f"numpy {manifest['versions']['numpy']}" in footer


def test_the_page_writes_alone_and_in_the_site(tiny, tmp_path):
    data, config, _ = tiny

    def build(folder):
        """Who plays best? (the tiny tournament)"""
        return who_plays_best.build(folder, config)

    assert main(build, ["--data", str(data), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "who-plays-best.html").exists()
    document = json.loads((tmp_path / "who-plays-best.json").read_text())
    assert json_problems(document) == [] and document["page"] == "who-plays-best"
    (run,) = document["runs"]
    assert (run["name"], run["mode"], run["deals"], run["seed"]) == ("tiny", "deals", 24_000, 1)
    assert who_plays_best in site.PAGES


@needs_expert
def test_a_missing_tournament_folder_is_refused_with_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    status = main(who_plays_best.build, ["--data", str(tmp_path / "data"), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("error: tournament folder ") and "make tournament" in err


def test_an_incomplete_tournament_folder_is_refused(tiny, tmp_path):
    data, config, _ = tiny
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    run = copy / "tournaments" / "tiny" / "greedy-vs-memory"  # a run not yet started
    shutil.rmtree(run)  # its manifest (inside) with it
    with pytest.raises(MissingData, match=r"incomplete \(1 of 6 runs.*make tournament") as err:
        who_plays_best.build(copy, config)
    assert "\n" not in str(err.value)


VARIANTS = ("classic", "scopone", "escoba", "scopa-52")
FAIR = {"random", "greedy", "defensive", "memory", "chitarrella", "expert", "pimc:samples=16",
        "ismcts", "pimc:samples=256:rollout=mix"}  # fmt: skip
SEARCH = {"ismcts", "pimc:samples=256:rollout=mix"}
ANCHORS = {"greedy", "memory", "expert", "pimc:samples=16"}
#: The expert with the last round solved exactly: seated with the search players where every
#: card can be known in the last round (two seats).
ENDGAME = "expert:endgame=6"
TWO_SEATS = ("classic", "escoba", "scopa-52")
#: CPU ms per decision of the players that search (configs/tournaments.toml, measured
#: 2026-12-03); the compiled players cost next to nothing.
COST_MS = {
    "classic": {"pimc:samples=16": 0.09, "ismcts": 1.36, "pimc:samples=256:rollout=mix": 1.67,
                "cheater": 0.02, ENDGAME: 0.006},
    "scopone": {"pimc:samples=16": 0.57, "ismcts": 2.18, "pimc:samples=256:rollout=mix": 5.59},
    "escoba": {"pimc:samples=16": 0.10, "ismcts": 1.51, "pimc:samples=256:rollout=mix": 1.97,
               ENDGAME: 0.012},
    "scopa-52": {"pimc:samples=16": 0.09, "ismcts": 1.61, "pimc:samples=256:rollout=mix": 2.14,
                 ENDGAME: 0.006},
}  # fmt: skip
#: Deals of a scopone game to 11 (about 3: 1.6 to 3.4 in the luck-and-skill tournaments), high.
SCOPONE_DEALS_PER_GAME = 4


def test_the_default_tournaments_seat_every_fair_player_in_every_variant():
    """Per variant: every fair player seated; the search players in one round robin with the
    anchors (greedy, memory, expert, pimc:samples=16) that every other tournament of the variant
    seats too, on fewer packs, and with expert:endgame=6 where it can solve the last round (two
    seats); the cheater only in classic-deals."""
    from scopa_sim.rules import variant as rules

    specs = who_plays_best.load_config()
    assert {s.variant for s in specs} == set(VARIANTS)
    assert {v for v in VARIANTS if rules(v).n_players == 2} == set(TWO_SEATS)
    for variant in VARIANTS:
        group = [s for s in specs if s.variant == variant]
        assert FAIR <= {p for s in group for p in s.players}, variant
        (search,) = [s for s in group if SEARCH & set(s.players)]
        endgame = {ENDGAME} if variant in TWO_SEATS else set()
        assert SEARCH | ANCHORS | endgame == set(search.players) and search.mode == "deals"
        wide = [s for s in group if s is not search]
        assert len(wide) == 1, variant
        assert ANCHORS <= set(wide[0].players)
        assert FAIR - SEARCH <= set(wide[0].players)
        if wide[0].mode == "deals":
            assert wide[0].count >= 3 * search.count
    (classic,) = [s for s in specs if "cheater" in s.players]
    assert (classic.name, classic.variant, classic.mode) == ("classic-deals", "classic", "deals")
    specs_by_name = {s.name: s for s in specs}
    assert (specs_by_name["scopone-games"].variant, specs_by_name["scopone-games"].mode) == (
        "scopone",
        "games",
    )


def test_the_default_tournaments_fit_their_budget():
    """The searches of the default tournaments (and expert:endgame=6's solves), priced at their
    measured cost per decision, stay within what they cost before (340 CPU s) and 34 minutes on 2
    cores (configs/tournaments.toml: 4,037 CPU s); a player that searches with no price fails,
    so a new one is priced before it is seated."""
    from scopa_sim.rules import variant as rules

    total = 0.0
    for spec in who_plays_best.load_config():
        per_deal = rules(spec.variant).plays  # each side's share of both seatings of a pack
        deals = spec.count if spec.mode == "deals" else spec.count * SCOPONE_DEALS_PER_GAME
        assert spec.mode == "deals" or spec.variant == "scopone"
        for player in spec.players:
            if player in registry.COMPILED:
                continue
            ms = COST_MS[spec.variant][player]
            total += (len(spec.players) - 1) * deals * per_deal * ms / 1e3
    assert 3_800 < total < 4_100, total


@needs_expert
def test_the_default_tournaments_commands_are_what_make_tournament_runs():
    # The Makefile's target runs exactly what --commands prints.
    printed = subprocess.run(
        [sys.executable, "-m", "analyses.who_plays_best", "--commands"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent,
    ).stdout.splitlines()  # fmt: skip
    assert printed == who_plays_best.commands()
    assert len(printed) == len(who_plays_best.load_config())
    assert printed[0].startswith(".venv/bin/scopa-sim tournament --variant classic ")
    assert "--out data/tournaments/classic-deals" in printed[0]


def test_the_players_sentence_names_the_strategies_the_data_record(tmp_path):
    """The sentence every page's method ends with (``framework.page``'s ``used`` runs) is read
    from the strategy column, not from a page's code: a run between memory and chitarrella (no
    page names them) must be named as such."""
    data = tmp_path / "data"
    config = runner.RunConfig.create(
        variant="classic", players=["memory", "chitarrella"], mode="games", count=200, seed=5,
        out=data / "mini", chunk_size=100,
    )  # fmt: skip
    runner.run(config, progress=False)
    found = runs(data)
    sentence = players_sentence(found.values())
    assert sentence == (
        "Players, as the strategy column of the data records them: memory against chitarrella "
        "(run mini)."
    )
    manifest = json.loads((data / "mini" / "manifest.json").read_text())
    assert manifest["config"]["players"] == ["memory", "chitarrella"]


def test_the_page_links_the_largest_swings_of_its_key_pairings_to_exact_replays(
    tiny, page, tmp_path
):
    """Every key pairing gets its largest swings, each a link to an attached replay page of both
    seatings; the links resolve once the page is written, and the swings are the largest."""
    from scopa_sim import tournament as tour

    data, config, _ = tiny
    (spec,) = who_plays_best.load_config(config)
    result = who_plays_best.load(spec, data)
    keys = {frozenset((k.a, k.b)) for k in who_plays_best.key_pairings(result)}
    (section,) = [s for s in page.sections if s.heading.endswith("largest duplicate swings")]
    rows = section.tables[0].rows
    assert len(rows) == who_plays_best.SWINGS_PER_KEY * len(keys)
    links = [row[-1] for row in rows]
    assert all(isinstance(link, reporting.Link) for link in links)
    assert sorted(link.href for link in links) == sorted(page.attachments)
    everything = tour.largest_swings(result.tournament, 10**6)  # every pack of every pairing
    for row in rows:
        pair = frozenset(row[0].split(" vs "))
        assert pair in keys
        biggest = max(abs(s.swing) for s in everything if frozenset(
            (s.pairing.a.spec, s.pairing.b.spec)) == pair)  # fmt: skip
        top = [abs(float(r[2])) for r in rows if frozenset(r[0].split(" vs ")) == pair]
        assert max(top) == biggest
    html = render_page(page)
    written = reporting.write_page(page, tmp_path)
    for link in links:
        assert f'<a href="{link.href}">' in html
        assert (tmp_path / link.href).read_text() == page.attachments[link.href]
        assert (tmp_path / link.href) in written
        assert page.attachments[link.href].count('<section class="deal ') == 2  # both seatings


def test_make_tournament_runs_only_the_tournaments_not_yet_complete(tiny, tmp_path):
    """`make tournament` asks for the missing tournaments only: a complete folder is neither
    played nor re-read (make report stays quick), an absent one is run."""
    data, config, command = tiny
    assert who_plays_best.commands(data, config) == [command]
    assert who_plays_best.commands(data, config, missing=True) == []
    assert who_plays_best.commands(tmp_path, config, missing=True) == who_plays_best.commands(
        tmp_path, config
    )


@needs_expert
def test_make_tournament_asks_for_the_default_tournaments_not_yet_played(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "analyses.who_plays_best", "--commands", "--missing", "--data",
         str(tmp_path)], capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert out.stdout.split("\n")[0] == who_plays_best.commands(tmp_path)[0]


# several tournaments of one variant (the default design: a wide field and a search field) ------


def _spec(name: str, count: int = 1000):
    return SimpleNamespace(name=name, mode="deals", count=count)


def _result(variant: str, ratings: list[tuple[str, float]], rows: dict, hidden=()):
    """A tournament result: fair ``ratings`` best first, points-per-deal ``rows``
    ``{(a, b): (estimate, p_holm)}`` (interval +-0.1), ``hidden`` players seated as upper bounds."""
    from scopa_sim import stats
    from scopa_sim import tournament as tour

    entrants = tuple(
        SimpleNamespace(spec=p, sees_hidden_cards=p in hidden)
        for p in [*(name for name, _ in ratings), *hidden]
    )
    t = SimpleNamespace(mode="deals", variant=variant, metrics=lambda: ["points_per_deal"],
                        unit="deal", pairings=(), entrants=entrants)  # fmt: skip
    out = [
        tour.Row(a, b, "points_per_deal", stats.Estimate(v, v - 0.1, v + 0.1, 1000), p, p)
        for (a, b), (v, p) in rows.items()
    ]
    rated = [tour.Rating(name, r, r - 20, r + 20, False, 1000) for name, r in ratings]
    return tour.Result(t, out, rated, [], None, 1000)


WIDE = _result(
    "classic",
    [("expert", 60), ("memory", 40), ("chitarrella", 30), ("greedy", 0), ("random", -130)],
    {("expert", "memory"): (0.2, 1e-6), ("expert", "chitarrella"): (0.3, 1e-8),
     ("expert", "greedy"): (0.5, 1e-9), ("expert", "random"): (2.0, 1e-12),
     ("chitarrella", "greedy"): (0.2, 1e-5)},
    hidden=("cheater",),
)  # fmt: skip
SEARCH_FIELD = _result(
    "classic",
    [("mix", 80), ("expert", 20), ("memory", 0), ("greedy", -100)],
    {("mix", "expert"): (0.4, 1e-7), ("mix", "memory"): (0.6, 1e-9),
     ("mix", "greedy"): (1.3, 1e-12)},
)  # fmt: skip


def test_the_tournament_that_seats_the_others_leaders_answers_for_the_variant():
    """classic-search seats expert, the leader of classic-deals: it answers for classic, in the
    headline, the glance and the overview, naming the leader it also seats."""
    from analyses.who_plays_best import measure, text

    wide, search = (_spec("classic-deals", 10_000), WIDE), (_spec("classic-search", 1200),
                                                           SEARCH_FIELD)  # fmt: skip
    group = [wide, search]
    assert measure.deciding(group) is search
    assert measure.anchors(group) == ["expert", "memory", "greedy"]
    line = text.variant_headline(group)
    assert line.startswith(
        "classic (6 fair players in 2 tournaments; classic-search also seats expert, the leader "
        "of classic-deals): mix rated best (+80 [+60, +100]), beating greedy by +1.300"
    )
    answer = who_plays_best.glance(group)
    assert answer.sentence == (
        "Of the fair players, mix plays best in classic, about 0.4 points a deal ahead of expert."
    )
    assert answer.rows[0] == ("mix", "who_plays_best.classic-search.rating.mix")
    seats = text.seating(*wide, group)
    assert seats.startswith("classic-deals seats 5 fair players (expert, memory, chitarrella, "
                            "greedy, random) and, as an upper bound, cheater.")  # fmt: skip
    assert "classic-search (1,200 duplicate deals per run), shares expert, memory, greedy" in seats
    (table,) = who_plays_best.overview(group).tables
    assert [row[1] for row in table.rows] == ["classic-deals", "classic-search"]
    assert [row[-1] for row in table.rows] == [
        "its leaders also play in classic-search", "answers for the variant",
    ]  # fmt: skip
    assert table.rows[0][4] == "cheater" and table.rows[1][5] == "mix"


def test_a_leader_seated_in_one_tournament_only_leaves_the_variant_answered_per_tournament():
    """chitarrella is not separated from expert at the top of the wide field and plays nowhere
    else: no tournament answers for classic, so every tournament's leader is named with it."""
    from analyses.who_plays_best import measure, text

    rows = {(r.a, r.b): (r.estimate.value, r.p_holm) for r in WIDE.rows}
    rows[("expert", "chitarrella")] = (0.05, 0.3)  # not separated
    wide = _result("classic", [(r.player, r.rating) for r in WIDE.ratings], rows)
    group = [(_spec("classic-deals"), wide), (_spec("classic-search"), SEARCH_FIELD)]
    assert measure.leaders(wide) == ["expert", "chitarrella"]
    assert measure.deciding(group) is None
    line = text.variant_headline(group)
    assert line.startswith("classic (classic-deals): expert rated highest")
    assert "; classic (classic-search): mix rated best" in line
    sentence = who_plays_best.glance(group).sentence
    assert "expert and chitarrella are not separated at the top in classic (classic-deals)" in (
        sentence
    )
    assert "mix plays best in classic (classic-search)" in sentence
    (table,) = who_plays_best.overview(group).tables
    assert all(row[-1].startswith("no tournament seats") for row in table.rows)


def test_the_page_reads_two_tournaments_of_a_variant(tiny, tmp_path):
    """A second classic tournament beside tiny: the overview comes first, every section names
    its tournament, the finding answers once for classic, the method names who played where."""
    data, _, _ = tiny
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    config = tmp_path / "tournaments.toml"
    # chitarrella, not defensive: every pairing is then a lineup whose fused kernel the suite
    # compiles anyway (tests/_warmup.py); defensive with greedy or memory is played nowhere else,
    # and compiling those two kernels on a cold cache cost this test about 20 s.
    config.write_text(
        TINY + '\n[[tournament]]\nname = "linked"\nvariant = "classic"\n'
        'players = ["greedy", "memory", "chitarrella"]\ndeals = 500\n'
    )
    command = who_plays_best.commands(copy, config, missing=True)
    assert len(command) == 1 and "--out " + str(copy / "tournaments" / "linked") in command[0]
    assert cli.main([*shlex.split(command[0])[1:], "--no-progress"]) == 0
    page = who_plays_best.build(copy, config)
    headings = [s.heading for s in page.sections]
    assert headings[0] == "Every variant: who was seated where"
    assert any(h.startswith("classic (tiny), 4,000 duplicate deals per run") for h in headings)
    assert any(h.startswith("classic (linked), 500 duplicate deals per run") for h in headings)
    assert page.finding.startswith("classic (4 fair players in 2 tournaments; ")
    assert (
        "tiny (classic): random, greedy, memory; linked (classic): greedy, memory, chitarrella"
        in (page.method)
    )
    names = [f.name for f in page.findings]
    assert len(names) == len(set(names))
    assert any(n.startswith("who_plays_best.linked.rating.") for n in names)
