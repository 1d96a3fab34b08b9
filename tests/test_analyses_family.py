"""The family page on synthetic runs of every preset whose answers are known by construction.

Each preset gets a small run of games of planted lengths (2, 3, 4 deals in turn, so 3 deals a game
on average), a first dealer drawn at random per game and the deal passing round the table. In
every deal each side scores 2 + e points (e, 0 or 1, shared by all sides of the deal) and the
dealer's side BONUS[preset] more, so the dealer's edge is exactly BONUS and the points per deal
are 2 * sides + BONUS + sides * mean(e). Scope are planted on even deals, category ties on a
fixed pattern, and in the 52-card presets the last deal of every fifth game stopped at a winning
scopa (no category scored), which must not count as a tie.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analyses import family, framework
from analyses.framework import MissingData, runs
from scopa_sim import stats
from scopa_sim.reporting import json_problems, page_json, render_page
from scopa_sim.rules import PRESETS
from scopa_sim.storage import SCHEMA

GAMES = 300
LENGTHS = np.array([2, 3, 4])[np.arange(GAMES) % 3]
BONUS = {name: i % 5 - 2 for i, name in enumerate(PRESETS)}  # whole points; some negative
# The expert twin of each preset plays the same games SHIFT deals longer on average: per game
# SHIFT plus +1, -1, 0 in turn (a spread, so the paired interval exists), never below one deal.
SHIFT = {name: i % 3 - 1 for i, name in enumerate(PRESETS)}  # -1, 0, +1 deals


def expert_lengths(preset: str) -> np.ndarray:
    g = np.arange(GAMES)
    return LENGTHS + SHIFT[preset] + (g % 3 == 0).astype(int) - (g % 3 == 1).astype(int)


def write_run(root: Path, name: str, columns: dict, *, variant: str, players) -> None:
    """A complete run folder of one Parquet chunk following SCHEMA, and its manifest."""
    n = len(columns["game"])
    full = {}
    for column, dtype in SCHEMA.items():
        if column in columns:
            full[column] = pl.Series(column, columns[column]).cast(dtype)
        elif column in ("run", "variant"):
            full[column] = pl.Series(column, [name if column == "run" else variant] * n, dtype)
        else:
            full[column] = pl.Series(column, np.zeros(n, np.int64)).cast(dtype)
    folder = root / name
    folder.mkdir(parents=True)
    pl.DataFrame(full).write_parquet(folder / "chunk-000000.parquet")
    config = {
        "name": name, "mode": "games", "players": list(players), "seed": 17, "count": GAMES,
        "variant": variant, "variant_label": variant,
    }  # fmt: skip
    (root / f"{name}.manifest.json").write_text(json.dumps({"complete": True, "config": config}))


def tie_pattern(g, d, modulus: int) -> np.ndarray:
    return (g * 7 + d) % modulus == 0


def preset_columns(
    preset: str, seed: int, lengths=LENGTHS, player: str = "greedy"
) -> tuple[dict, dict]:
    """The rows of one run, and the answers the page must find."""
    LENGTHS = np.asarray(lengths)  # the module's planted lengths, or the expert's
    rules = PRESETS[preset]
    n, s = rules.n_players, rules.n_sides
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, GAMES)
    game = np.repeat(np.arange(GAMES), LENGTHS)
    deal = np.concatenate([np.arange(k) for k in LENGTHS])
    deals = len(game)
    e = rng.integers(0, 2, deals)
    dealer_side = (first[game] + deal) % n % s
    last = deal == LENGTHS[game] - 1
    stopped = last & (game % 5 == 0) & rules.scopa_wins_immediately
    # per deal: which category is tied (nobody scores it); the rest go to side 0
    tied = {c: tie_pattern(game, deal, m) & ~stopped for c, m in
            (("cards", 4), ("coins", 3), ("primiera", 5), ("sevens", 2))}  # fmt: skip
    no_primiera = ((game * 3 + deal) % 11 == 0) & ~tied["primiera"] & ~stopped
    rows = {k: [] for k in ("game", "deal", "side", "dealer", "first_dealer", "points", "scope",
                            "cards", "primiera", "pt_cards", "pt_coins", "pt_settebello",
                            "pt_primiera", "pt_sevens", "pt_scope", "final", "won", "stopped",
                            "strategy")}  # fmt: skip
    for side in range(s):
        dealer = dealer_side == side
        scope = ((deal % 2 == 0) & dealer).astype(int)
        points = 2 + e + BONUS[preset] * dealer
        cats = {
            "pt_cards": ~tied["cards"],
            "pt_coins": ~tied["coins"],
            "pt_settebello": np.ones(deals, bool),
            "pt_primiera": ~tied["primiera"] & ~no_primiera & (rules.primiera is not None),
            "pt_sevens": ~tied["sevens"] & rules.most_sevens,
        }
        for key, won in cats.items():
            rows[key].append(((won & ~stopped) & (side == 0)).astype(int))
        # primiera values: side 0 best (80) or tied with side 1; nobody has one when planted
        best = np.where(side == 0, 80, np.where((side == 1) & tied["primiera"], 80, 70))
        rows["primiera"].append(np.where(no_primiera, 0, best))
        rows["cards"].append(np.full(deals, 10))
        rows["game"].append(game)
        rows["deal"].append(deal)
        rows["side"].append(np.full(deals, side))
        rows["dealer"].append(dealer)
        rows["first_dealer"].append(np.full(deals, side) == first[game] % s)
        rows["points"].append(points)
        rows["scope"].append(scope)
        rows["pt_scope"].append(scope)
        rows["final"].append(last)
        rows["won"].append(last & (side == 0))
        rows["stopped"].append(stopped)
        rows["strategy"].append(np.full(deals, player))
    # one row per side per deal, ordered by game, deal, side
    order = np.lexsort((np.repeat(np.arange(s), deals), np.tile(np.arange(deals), s)))
    columns = {k: np.concatenate(v)[order] for k, v in rows.items()}
    played = ~stopped
    answers = {
        "deals": deals,
        "played_out": int(played.sum()),
        "points": 2 * s + BONUS[preset] + s * e.mean(),
        "scope": np.mean(deal % 2 == 0),
        "edge": BONUS[preset],
        "length": LENGTHS.mean(),
        "ties": {c: tied[c][played].mean() for c in family.categories(rules)},
        "no_primiera": no_primiera[played].mean() if rules.primiera is not None else None,
        "per_game_points": np.bincount(game, weights=2 * s + BONUS[preset] + s * e),
    }
    return columns, answers


@pytest.fixture(scope="module")
def family_data(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("family")
    answers = {}
    for i, (preset, name) in enumerate(family.FAMILY.items()):
        columns, answers[preset] = preset_columns(preset, seed=100 + i)
        players = ["greedy"] * PRESETS[preset].n_sides
        write_run(root, name, columns, variant=preset, players=players)
        # its expert twin: the same first dealers (same seed), games of other lengths
        lengths = expert_lengths(preset)
        columns, answers[preset]["expert"] = preset_columns(
            preset, 100 + i, lengths, framework.EXPERT
        )
        players = [framework.EXPERT] * PRESETS[preset].n_sides
        write_run(root, framework.expert_run(name), columns, variant=preset, players=players)
    # a run the page must ignore
    columns, _ = preset_columns("classic", seed=1)
    write_run(root, "classic-random", columns, variant="classic", players=["random"] * 2)
    return root, answers


@pytest.fixture(scope="module")
def family_page(family_data):
    """The page built once from the synthetic runs, for the tests that only read it."""
    return family.build(family_data[0])


def test_every_preset_has_a_run():
    assert list(family.FAMILY) == list(PRESETS)
    assert len(set(family.FAMILY.values())) == len(PRESETS)
    experts = family.level_names("expert")
    assert list(experts) == list(PRESETS)
    assert set(experts.values()).isdisjoint(family.FAMILY.values())
    assert set(family.NEEDS.runs) == {*family.FAMILY.values(), *experts.values()}


def test_the_levels_are_compared_paired_by_game(family_data):
    """Experts' game length minus beginners': the planted SHIFT, with the paired t interval of
    the per-game differences (not Welch's, which ignores that game g shares its packs)."""
    root, _ = family_data
    experts = family.family_runs(root, "expert")
    differences = []
    for preset, run in family.family_runs(root).items():
        b, e = family.measure(preset, run), family.measure(preset, experts[preset])
        assert e.length.value == pytest.approx(3.0 + SHIFT[preset])
        d = family.level_difference(b, e)
        assert d.paired and d.why == ""
        want, p = stats.paired_difference(LENGTHS, expert_lengths(preset))
        assert d.length == want and d.p_value == p
        assert d.length.value == pytest.approx(SHIFT[preset])
        welch, _ = stats.independent_difference(LENGTHS, expert_lengths(preset))
        assert d.length.high - d.length.low < welch.high - welch.low
        differences.append(d)
    fam = family.level_family(differences)
    assert fam.size == len(PRESETS)
    # Holm over the presets' tests: the zero shifts are not significant, the others are
    for d in differences:
        assert (fam.p_holm[("length", d.preset)] < 0.05) == (SHIFT[d.preset] != 0), d.preset
        wide = fam.wide[("length", d.preset)]
        assert wide.low < d.length.low and wide.high > d.length.high


def test_runs_on_other_packs_are_compared_unpaired(family_data):
    root, _ = family_data
    b = family.measure("classic", family.family_runs(root)["classic"])
    e = family.measure("classic", family.family_runs(root, "expert")["classic"])
    other = dataclasses.replace(e.run, config={**e.run.config, "seed": 18})
    d = family.level_difference(b, dataclasses.replace(e, run=other))
    assert not d.paired and "other seeds" in d.why
    assert d.length == stats.independent_difference(LENGTHS, expert_lengths("classic"))[0]


def test_the_measures_are_the_planted_ones(family_data):
    root, answers = family_data
    found = family.family_runs(root)
    for preset, run in found.items():
        m = family.measure(preset, run)
        want = answers[preset]
        assert (m.games, m.deals, m.played_out) == (GAMES, want["deals"], want["played_out"])
        assert m.points.value == pytest.approx(want["points"], abs=1e-9), preset
        assert m.scope.value == pytest.approx(want["scope"], abs=1e-9), preset
        assert m.length == stats.mean_ci(LENGTHS)
        assert m.length.value == 3.0
        # the edge is taken against the dealer of each deal (column dealer): exactly BONUS, with
        # no spread, whichever side dealt first and however the sides are teamed
        assert m.edge.value == pytest.approx(want["edge"], abs=1e-9), preset
        assert not m.edge.estimable, preset  # no spread: no interval at any size
        assert m.dealer.value - m.others.value == pytest.approx(want["edge"], abs=1e-9)
        assert set(m.ties) == set(want["ties"]), preset
        for cat, share in want["ties"].items():
            assert m.ties[cat].value == pytest.approx(share, abs=1e-12), (preset, cat)
            assert 0 <= m.ties[cat].low < share < m.ties[cat].high <= 1, (preset, cat)
        if want["no_primiera"] is None:
            assert m.no_primiera is None
        else:
            assert m.no_primiera.value == pytest.approx(want["no_primiera"], abs=1e-12)
        # clusters are games: the per-deal mean is a ratio over games, linearised per game
        expected = stats.mean_ci(stats.linearised_ratio(want["per_game_points"], LENGTHS))
        assert m.points.n == GAMES
        assert m.points.low == pytest.approx(expected.low) and m.points.high == pytest.approx(
            expected.high
        )


def test_categories_per_preset():
    assert family.categories(PRESETS["classic"]) == ["cards", "coins", "primiera"]
    assert family.categories(PRESETS["scopa-52-3p"]) == ["cards", "coins", "sevens"]
    assert family.categories(PRESETS["escoba"]) == ["cards", "coins", "primiera"]


def test_stopped_deals_are_not_ties_without_the_stopped_column(family_data):
    """Without a ``stopped`` column the page reads a stopped deal from the settebello: a deal
    played out with captures always awards it; one stopped by a winning scopa never does."""
    root, answers = family_data
    run = runs(root)["family-scopa-52-greedy"]
    rules = PRESETS["scopa-52"]
    games = family.per_game(run, rules)
    assert int(games["counted"].sum()) == answers["scopa-52"]["played_out"]
    assert answers["scopa-52"]["played_out"] < answers["scopa-52"]["deals"]  # some stopped
    frame = pl.read_parquet(run.folder)
    columns = [c for c in frame.columns if c != "stopped"]
    proxy = frame.group_by("game", "deal").agg(family.stopped(columns).alias("stopped"))
    stopped = proxy.filter(pl.col("stopped")).sort("game")
    assert stopped["game"].to_list() == list(range(0, GAMES, 5))  # every fifth game ...
    assert (stopped["deal"].to_numpy() == LENGTHS[::5] - 1).all()  # ... its last deal
    if "stopped" in frame.columns:  # the data's own column, when the schema has it, agrees
        column = frame.group_by("game", "deal").agg(pl.col("stopped").any())
        assert column.filter(pl.col("stopped")).height == stopped.height


def test_family_page(family_data):
    root, answers = family_data
    page = family.build(root)
    assert page.slug == "family" and page.title == "The Scopa family side by side"
    headings = ["points and scope per deal", "tied categories", "the dealer's edge", "game length"]
    assert [s.heading for s in page.sections] == [
        *[f"Beginners (greedy players): {h}" for h in headings],
        *[f"Experts ({framework.EXPERT} players): {h}" for h in headings],
        "Experts against beginners",
    ]
    figures = [f for s in page.sections for f in s.figures]
    assert len(figures) == 11 and all("<svg" in f.svg for f in figures)
    assert [row["preset"] for row in page.data] == list(PRESETS) * 2
    experts = family.level_names("expert")
    assert [row["run"] for row in page.data] == [*family.FAMILY.values(), *experts.values()]
    assert all(row["seed"] == 17 and row["games"] == GAMES for row in page.data)
    for row in page.data:
        want = answers[row["preset"]]
        want = want["expert"] if row["run"].endswith("-expert") else want
        assert row["deals"] == want["deals"]
    assert "make simulate && make report" in page.reproduce
    assert "python -m analyses.family" in page.reproduce
    assert "random" in page.method and "linearised per game" in page.method
    top = max(PRESETS, key=lambda p: abs(BONUS[p]))
    # the planted edge has no spread, so the page says it cannot put an interval on it
    edge = f"largest dealer's edge is {BONUS[top]:.3f} (not estimable at this size"
    assert edge in page.finding and top in page.finding
    main_table = page.sections[0].tables[0]
    assert [r[0] for r in main_table.rows] == list(PRESETS)
    ties = page.sections[1].tables[0]
    classic = ties.rows[0]
    assert classic[5] == "—"  # no sevens in classic
    scopa52 = ties.rows[list(PRESETS).index("scopa-52")]
    assert scopa52[4] == "—" and scopa52[6] == "—"  # no primiera in the 52-card game
    document = page_json(page)
    assert json_problems(json.loads(json.dumps(document))) == []
    assert [r["details"]["preset"] for r in document["runs"]] == list(PRESETS) * 2
    assert all(r["games"] == GAMES and r["seed"] == 17 for r in document["runs"])
    html = render_page(page)
    assert html == render_page(family.build(root))  # deterministic
    assert html.count("<svg") == 12  # five figures per level, the levels', the headline chart
    # self-contained: apart from the SVG namespace names, nothing points off the page
    text = re.sub(r'xmlns(:\w+)?="[^"]*"', "", html)
    assert not re.search(r"https?://|@import|<img|<script|<link", text)


def test_the_findings_are_the_measures_and_the_finding_quotes_them(family_data, family_page):
    _, answers = family_data
    page = family_page
    found = {f.name: f for f in page.findings}
    assert len(found) == len(page.findings)
    for preset, want in answers.items():
        rules = PRESETS[preset]
        points = found[f"family.{preset}.points_per_deal"]
        assert points.estimate.value == pytest.approx(want["points"])
        assert points.estimate.n == GAMES  # clusters: games
        assert found[f"family.{preset}.dealer_edge"].estimate.value == pytest.approx(want["edge"])
        assert found[f"family.{preset}.deals_per_game"].estimate.value == pytest.approx(3.0)
        for c in family.categories(rules):
            tied = found[f"family.{preset}.tied.{c}"].estimate.value
            assert tied == pytest.approx(want["ties"][c])
        assert (f"family.{preset}.no_primiera" in found) == (rules.primiera is not None)
        assert f"family.{preset}.tied.sevens" in found or not rules.most_sevens
        expert = want["expert"]
        edge = found[f"family.{preset}.expert.dealer_edge"].estimate.value
        assert edge == pytest.approx(expert["edge"])
        points = found[f"family.{preset}.expert.points_per_deal"].estimate.value
        assert points == pytest.approx(expert["points"])
    # every number of the one-sentence finding is a finding
    numbers = re.findall(r"-?\d+\.\d{3} \[-?\d+\.\d{3}, -?\d+\.\d{3}\]", page.finding)
    assert len(numbers) >= 4  # two points, two lengths (the planted edges have no interval)
    for number in numbers:
        value, low, high = (float(x) for x in re.findall(r"-?\d+\.\d+", number))
        assert any(
            (round(e.value, 3), round(e.low, 3), round(e.high, 3)) == (value, low, high)
            for e in (f.estimate for f in page.findings)
        ), number


def test_the_headline_gives_both_levels_and_their_paired_difference(family_page):
    page = family_page
    head = page.headline
    assert head.labels == tuple(PRESETS) and head.reference == 0.0
    found = {f.name: f.estimate for f in page.findings}
    for preset, e in zip(PRESETS, head.estimates, strict=True):
        assert e == found[f"family.{preset}.levels.deals_per_game"]  # 95 %, as captioned
        assert e.value == pytest.approx(SHIFT[preset])
        assert found[f"family.{preset}.expert.deals_per_game"].value == pytest.approx(
            3.0 + SHIFT[preset]
        )
    clear = sum(s != 0 for s in SHIFT.values())
    longer = sum(s > 0 for s in SHIFT.values())
    assert (
        "beginners (greedy)" in head.sentence and f"experts ({framework.EXPERT})" in head.sentence
    )
    assert f"differ clearly in {clear} of {len(PRESETS)} presets ({longer} longer" in head.sentence
    # classic's shift is -1: significant, so the sentence says by how much experts differ
    assert SHIFT["classic"] == -1 and "in classic experts differ from beginners by -1" in (
        head.sentence
    )
    assert f"in {longer} presets" in page.finding and "Holm p < 0.05" in page.finding


def test_family_page_fails_without_an_expert_run(family_data, tmp_path):
    root, _ = family_data
    for path in root.iterdir():
        if "family-escoba-expert" not in path.name:
            (tmp_path / path.name).symlink_to(path)
    with pytest.raises(MissingData, match="family-escoba-expert"):
        family.build(tmp_path)


def test_family_page_needs_its_runs(family_data, tmp_path):
    with pytest.raises(MissingData, match="make simulate"):
        family.build(tmp_path)
    root, _ = family_data
    columns, _ = preset_columns("escoba", seed=3)
    write_run(tmp_path, "family-escoba-greedy", columns, variant="escoba", players=["random"] * 2)
    for name in family.FAMILY.values():
        if name != "family-escoba-greedy":
            for path in (root / name, root / f"{name}.manifest.json"):
                (tmp_path / path.name).symlink_to(path)
    with pytest.raises(MissingData, match="greedy players"):
        family.build(tmp_path)
