"""The seat-advantage, deal-shape and variant-comparison pages on small synthetic runs whose
answers are known by construction (fake Parquet runs and manifests written in tmp_path)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analyses import deal_shape, framework, seat_advantage, variant_comparison
from analyses.framework import MissingData, runs
from scopa_sim import stats
from scopa_sim.reporting import ci as reporting_ci
from scopa_sim.reporting import render_page
from scopa_sim.storage import SCHEMA

DEALER_BONUS = 0.5  # expected extra points of the dealer's side per deal
MIXED_FIRST = np.random.default_rng(99).integers(0, 2, 4000)  # synth-mixed's first dealers


def write_run(
    root: Path, name: str, columns: dict, *, variant: str, players, mode="games", complete=True
):
    """A run folder of one Parquet chunk following SCHEMA, and its manifest beside it."""
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
    units = len(np.unique(columns["game"]))
    config = {
        "name": name,
        "mode": mode,
        "players": list(players),
        "seed": 1,
        "count": units,
        "variant": variant.split(":")[0],
        "variant_label": variant,
    }
    (root / f"{name}.manifest.json").write_text(
        json.dumps({"complete": complete, "config": config})
    )


def first_dealers(games: int, n_players: int, seed: int = 7) -> np.ndarray:
    """The player who deals the first deal of each game, drawn at random (docs/rules.md §2)."""
    return np.random.default_rng(seed).integers(0, n_players, games)


def seat_columns(
    rng, *, games, deals, n_players, highs, strategies, winners=None, mode="games", first=None
):
    """Uniform points on 0..high-1 per side, plus a fair coin (mean 0.5) for the dealer's side.

    ``first`` is each game's first dealer (player); the deal passes to the next player after
    each deal, so deal ``d`` is dealt by player ``first + d``. ``winners(first_side)`` gives each
    game's winning side from the side of its first dealer. In --deals mode each deal is a game.
    """
    sides = len(highs)
    first = first_dealers(games, n_players) if first is None else first
    g, d, s = (
        a.ravel()
        for a in np.meshgrid(np.arange(games), np.arange(deals), np.arange(sides), indexing="ij")
    )
    dealer = (first[g] + d) % n_players % sides == s
    first_side = first % sides
    points = rng.integers(0, np.asarray(highs)[s]) + dealer * rng.integers(0, 2, len(s))
    score = points.reshape(games, deals, sides).cumsum(axis=1).ravel()
    final = (d == deals - 1) & (mode == "games")
    won = np.zeros(len(s), bool)
    if winners is not None:
        won = final & (s == winners(first_side)[g])
    return {
        "game": g,
        "deal": d if mode == "games" else np.zeros_like(d),
        "side": s,
        "strategy": np.asarray(strategies)[s],
        "dealer": dealer,
        "first_dealer": first_side[g] == s,
        "points": points,
        "score": score if mode == "games" else points,
        "final": final,
        "won": won,
    }


def write_deals_run(root, name: str, rng, deals: int) -> None:
    """A run of independent classic deals between two greedy players (no dealer bonus)."""
    columns = seat_columns(
        rng, games=deals, deals=1, n_players=2, highs=[5, 5], strategies=["greedy"] * 2,
        mode="deals",
    )  # fmt: skip
    write_run(root, name, columns, variant="classic", players=["greedy"] * 2, mode="deals")


DUPLICATE_GAINS = {"greedy": 0.5, "random": 1.0}  # planted per-player gain from dealing
DUPLICATE_PACKS = 6000


def write_tournament(folder: Path, rng) -> None:
    """Two lineups of a duplicate tournament in deals mode: every deal g is played by
    greedy-vs-random and by random-vs-greedy with the same first dealer (the same side deals),
    each player's points a pack effect shared by both lineups (the same cards), plus its own
    noise, plus its planted gain when it deals (greedy a fair coin, random 0..2)."""
    n = DUPLICATE_PACKS
    first = rng.integers(0, 2, n)
    pack = rng.integers(0, 4, (n, 2))  # what the cards of seat-side s are worth in pack g
    skill = {"greedy": 1.0, "random": 0.0}
    for players in (("greedy", "random"), ("random", "greedy")):
        g, s = np.repeat(np.arange(n), 2), np.tile([0, 1], n)
        who = np.asarray(players)[s]
        dealer = first[g] == s
        bonus = np.where(who == "greedy", rng.integers(0, 2, 2 * n), rng.integers(0, 3, 2 * n))
        points = pack[g, s] + np.vectorize(skill.get)(who) + rng.integers(0, 2, 2 * n)
        points = points + dealer * bonus
        columns = {
            "game": g, "deal": np.zeros_like(g), "side": s, "strategy": who, "dealer": dealer,
            "first_dealer": dealer, "points": points, "score": points,
        }  # fmt: skip
        write_run(
            folder, "-vs-".join(players), columns, variant="classic", players=players, mode="deals"
        )


@pytest.fixture(scope="module")
def seat_data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("seat")
    rng = np.random.default_rng(20261129)

    # Two-player games; the first dealer (drawn at random) wins exactly the games with g % 5 < 3.
    def winners(first_side):
        return np.where(np.arange(4000) % 5 < 3, first_side, 1 - first_side)

    base = seat_columns(
        rng,
        games=4000,
        deals=5,
        n_players=2,
        highs=[5, 5],
        strategies=["greedy"] * 2,
        winners=winners,
    )
    write_run(root, "classic-greedy", base, variant="classic", players=["greedy", "greedy"])
    # The same first 2000 games under another label: the forced-capture section must see identity.
    half = pl.DataFrame(base).filter(pl.col("game") < 2000).to_dict(as_series=False)
    write_run(
        root,
        "classic-forced-capture",
        half,
        variant="classic:forced_capture=true",
        players=["greedy", "greedy"],
    )
    write_deals_run(root, "synth-deals", rng, deals=20000)
    # Three sides: the first dealer (drawn at random) wins every game.
    write_run(
        root,
        "synth-3p",
        seat_columns(
            rng,
            games=3000,
            deals=4,
            n_players=3,
            highs=[5, 5, 5],
            strategies=["greedy"] * 3,
            winners=lambda first_side: first_side,
        ),
        variant="classic-3p",
        players=["greedy"] * 3,
    )
    # Greedy (mean 2) against a weaker random side (mean 1): each gains 0.5 from dealing. The
    # first dealer deals 3 of the 5 deals, but it is drawn at random, so each side deals first in
    # about half the games and the raw dealer-minus-other is 0.5 on average (it was 0.3 when
    # side 1 always dealt first). Greedy (side 0) wins every game.
    write_run(
        root,
        "synth-mixed",
        seat_columns(
            rng,
            games=4000,
            deals=5,
            n_players=2,
            highs=[5, 3],
            strategies=["greedy", "random"],
            winners=lambda first_side: np.zeros_like(first_side),
            first=MIXED_FIRST,
        ),
        variant="classic",
        players=["greedy", "random"],
    )
    # The same games as classic-greedy (same first dealers) where the dealer's side also gets a
    # fair coin more: paired by game, the edge rises by 0.5 per deal; the winners are the same.
    bumped = dict(base)
    bumped["points"] = base["points"] + base["dealer"] * rng.integers(0, 2, len(base["points"]))
    write_run(root, "synth-bumped", bumped, variant="classic", players=["greedy", "greedy"])
    # classic-greedy's expert twin: the same games, the dealer's side a fair coin more than in
    # classic-greedy (experts gain 0.5 more from dealing, paired by game); the same winners
    expert = dict(bumped)
    expert["points"] = base["points"] + base["dealer"] * rng.integers(0, 2, len(base["points"]))
    expert["strategy"] = np.full(len(base["points"]), framework.EXPERT)
    write_run(root, "classic-expert", expert, variant="classic", players=[framework.EXPERT] * 2)
    # synth-3p's twin, dealt from other first dealers: not the same packs, compared unpaired
    write_run(
        root,
        "synth-3p-expert",
        seat_columns(
            rng, games=3000, deals=4, n_players=3, highs=[5, 5, 5],
            strategies=[framework.EXPERT] * 3, winners=lambda first_side: first_side,
            first=first_dealers(3000, 3, seed=8),
        ),
        variant="classic-3p",
        players=[framework.EXPERT] * 3,
    )  # fmt: skip
    # ... and the same games with other first dealers: not the same packs, no pairing
    moved = dict(base)
    moved["first_dealer"] = ~np.asarray(base["first_dealer"])
    write_run(root, "synth-moved", moved, variant="classic", players=["greedy", "greedy"])
    write_tournament(root / "tournaments" / "tiny", rng)
    write_run(
        root,
        "synth-unfinished",
        base,
        variant="classic",
        players=["greedy", "greedy"],
        complete=False,
    )
    return root


def test_seat_edges_recover_the_planted_bonus(seat_data):
    found = runs(seat_data)
    assert "synth-unfinished" not in found
    for name in ("classic-greedy", "synth-deals", "synth-3p"):
        edge = seat_advantage.measure(found[name])
        assert edge.edge.low < DEALER_BONUS < edge.edge.high, name
        assert edge.edge.half_width < 0.06
    games = seat_advantage.measure(found["classic-greedy"])
    assert games.deals == 20000 and games.edge.n == 4000  # clusters are games
    assert games.first_won == stats.proportion_ci(2400, 4000)
    assert seat_advantage.measure(found["synth-3p"]).first_won.value == 1.0
    deals = seat_advantage.measure(found["synth-deals"])
    assert deals.first_won is None and deals.edge.n == 20000

    mixed = seat_advantage.measure(found["synth-mixed"])
    # the first dealer is random, so the raw difference is not tilted by the skill gap
    assert mixed.edge.low < DEALER_BONUS < mixed.edge.high
    assert [s.strategy for s in mixed.strategies] == ["greedy", "random"]
    for s in mixed.strategies:
        assert s.gain.low < DEALER_BONUS < s.gain.high, s.strategy
    # greedy (side 0) wins every game: the first dealer wins exactly when greedy dealt first
    greedy_first = int((MIXED_FIRST == 0).sum())
    assert mixed.first_won == stats.proportion_ci(greedy_first, 4000)
    by = {f.strategy: f for f in mixed.first_by_strategy}
    assert (by["greedy"].games, by["random"].games) == (greedy_first, 4000 - greedy_first)
    assert by["greedy"].won.value == 1.0 and by["random"].won.value == 0.0
    # dealing first changes nothing here: greedy wins 100 % whether or not it dealt first
    assert by["greedy"].gain.value == by["random"].gain.value == 0.0
    assert by["greedy"].gain.low < 0 < by["greedy"].gain.high
    # runs between equal players are not split by strategy
    assert games.first_by_strategy == [] and games.strategies == []


SYNTH_FORCED = ("classic-greedy", "classic-forced-capture")  # the synthetic pair of identical runs


def test_seat_forced_capture_pairs_identical_runs(seat_data, monkeypatch):
    monkeypatch.setattr(seat_advantage, "FORCED", SYNTH_FORCED)
    found = runs(seat_data)
    base, forced = (seat_advantage.measure(found[n]) for n in seat_advantage.FORCED)
    fc = seat_advantage.forced_capture(base, forced)
    assert fc.common_rows == fc.identical_rows == 2000 * 5 * 2
    # identical deals differ by exactly 0 everywhere: not estimable, not a zero-width interval
    assert fc.deal0.value == 0 and not fc.deal0.estimable and fc.deal0.n == 2000
    # 2,000 of the 4,000 games: not the same games, so the runs are compared unpaired
    assert fc.design == "unpaired" and fc.reason == "other games (4,000 and 2,000)"
    assert fc.edge_diff.n == 6000


def test_runs_on_the_same_packs_are_paired_by_game(seat_data):
    found = runs(seat_data)
    base, bumped, moved = (
        seat_advantage.measure(found[n]) for n in ("classic-greedy", "synth-bumped", "synth-moved")
    )
    fc = seat_advantage.forced_capture(base, bumped)
    assert fc.design == "paired" and fc.reason == ""
    # the planted shift (a fair coin for the dealer's side) is inside the paired interval ...
    assert fc.edge_diff.low < DEALER_BONUS < fc.edge_diff.high and fc.edge_diff.n == 4000
    assert fc.edge_diff.value == pytest.approx(bumped.edge.value - base.edge.value, rel=1e-12)
    # ... which is narrower than the unpaired one on the same runs
    unpaired, _ = stats.independent_difference(base.edge_values, bumped.edge_values)
    assert fc.edge_diff.half_width < 0.8 * unpaired.half_width
    # the same games have the same winners: the paired difference is exactly 0
    assert (fc.win_diff.value, fc.win_diff.estimable) == (0.0, False) and np.isnan(fc.win_p)
    # other first dealers: not the same packs, and said so
    other = seat_advantage.forced_capture(base, moved)
    assert other.design == "unpaired" and other.reason == "other first dealers"
    assert other.win_p is None  # Newcombe: an interval, no test


def test_seat_levels_are_paired_by_game_on_the_same_packs(seat_data):
    """classic-expert plays classic-greedy's games with a planted extra edge of 0.5: paired by
    game (narrower than Welch's); synth-3p-expert, other first dealers: unpaired, said why."""
    page = seat_advantage.build(seat_data)
    found = {f.name: f.estimate for f in page.findings}
    edges = {n: seat_advantage.measure(r) for n, r in runs(seat_data).items()}
    levels = {lv.name: lv for lv in seat_advantage.level_edges(list(edges.values()),
                                                                 framework.expert_run)}  # fmt: skip
    assert set(levels) == {"classic-greedy", "synth-3p"}
    classic = levels["classic-greedy"]
    assert classic.design == "paired" and classic.reason == ""
    want, _ = stats.paired_difference(
        edges["classic-greedy"].edge_values, edges["classic-expert"].edge_values
    )
    assert classic.edge_diff == want == found["seat.levels.classic-greedy.edge_diff"]
    assert classic.edge_diff.low < DEALER_BONUS < classic.edge_diff.high
    welch, _ = stats.independent_difference(
        edges["classic-greedy"].edge_values, edges["classic-expert"].edge_values
    )
    assert classic.edge_diff.half_width < 0.8 * welch.half_width
    three = levels["synth-3p"]
    assert three.design == "unpaired" and three.reason == "other first dealers"
    assert three.win_p is None
    # the headline: both levels' classic edges, and the paired difference with its family
    # interval, which is significant here (0.5 a deal on 4,000 games)
    head = page.headline
    assert head.labels[:2] == ("classic, beginners", "classic, experts")
    assert head.estimates[0] == found["seat.edge.classic-greedy"]
    assert head.estimates[1] == found["seat.edge.classic-expert"]
    assert "between beginners (greedy)" in head.sentence
    assert f"between experts ({framework.EXPERT})" in head.sentence
    wide = found["seat.levels.classic-greedy.edge_diff.family"]
    assert f"is {framework.about(wide.value)} [{framework.about(wide.low)}, " in head.sentence
    assert "Between experts (classic-expert) the edge is" in page.finding
    (section,) = [s for s in page.sections if s.heading == "Experts against beginners"]
    assert [r[0] for r in section.tables[0].rows] == ["classic-greedy", "synth-3p"]


def test_seat_page_fails_without_the_headline_expert_run(seat_data, tmp_path):
    for path in seat_data.iterdir():
        if "classic-expert" not in path.name:
            (tmp_path / path.name).symlink_to(path)
    with pytest.raises(MissingData, match="classic-expert"):
        seat_advantage.build(tmp_path)


def test_duplicate_tournament_gives_each_players_edge(seat_data):
    dups, skipped = seat_advantage.duplicate_edges(seat_data)
    assert skipped == [] and len(dups) == 1
    (d,) = dups
    assert (d.tournament, d.a, d.b, d.units, d.deals) == ("tiny", "greedy", "random", 6000, 12000)
    for who, gain in DUPLICATE_GAINS.items():
        assert d.gains[who].low < gain < d.gains[who].high, who
        assert d.gains[who].n == DUPLICATE_PACKS
    # the pairing's edge is the mean of the two: the skill gap (1 point) cancels
    mean = np.mean(list(DUPLICATE_GAINS.values()))
    assert d.edge.low < mean < d.edge.high
    assert d.edge.value == pytest.approx(np.mean([g.value for g in d.gains.values()]), rel=1e-12)


def test_seat_page(seat_data, monkeypatch):
    monkeypatch.setattr(seat_advantage, "FORCED", SYNTH_FORCED)
    page = seat_advantage.build(seat_data)
    headings = [s.heading for s in page.sections]
    assert "By strategy" in headings and "Does forced capture change the edge?" in headings
    assert "Each player's edge on duplicate deals" in headings
    assert "Is the edge of classic-greedy converged?" in headings
    assert {row["run"] for row in page.data} == {
        "classic-greedy",
        "classic-forced-capture",
        "synth-deals",
        "synth-3p",
        "synth-mixed",
        "synth-bumped",
        "synth-moved",
        "classic-expert",
        "synth-3p-expert",
        "tournaments/tiny/greedy-vs-random and random-vs-greedy",
    }
    # one Holm family: 9 run edges, 2 strategies of synth-mixed, 2 duplicate players, the
    # forced-capture edge (unpaired here: no test of the Newcombe share difference) and the two
    # level differences of the edge (classic-greedy's share of games won differs by exactly 0,
    # no test; synth-3p's is unpaired: Newcombe, no test)
    (first,) = [s for s in page.sections if s.heading.startswith("Dealer against")]
    assert "One family for the whole page: 16 tests" in first.text
    assert "Bonferroni interval at 99.69 % (1 - 0.05/16)" in first.text
    edges = {
        n: seat_advantage.measure(r)
        for n, r in runs(seat_data).items()
        if n in page.findings[0].name
    }
    assert edges  # the first finding is a run's edge
    names = [f.name for f in page.findings]
    assert len(names) == len(set(names))
    assert "seat.edge.classic-greedy" in names and "seat.detectable_edge.classic-greedy" in names
    assert "seat.duplicate_edge.tiny.greedy-vs-random.random" in names
    head = next(f for f in page.findings if f.name == "seat.edge.classic-greedy")
    assert reporting_ci(head.estimate) in page.finding  # the sentence's number is a finding
    wide = next(f for f in page.findings if f.name == "seat.edge.classic-greedy.family")
    assert wide.estimate.low < head.estimate.low and wide.estimate.high > head.estimate.high
    mde = next(f for f in page.findings if f.name == "seat.detectable_edge.classic-greedy")
    assert mde.estimate.value == pytest.approx(2.8 * head.estimate.half_width / 1.96, rel=0.02)
    assert page.finding.startswith("In classic-greedy") and "60.00 %" in page.finding
    assert all("<svg" in f.svg for s in page.sections for f in s.figures)
    # the page says the first dealer is random, and what that buys
    assert "first dealer of every game is drawn at random" in page.method
    assert "not the skill gap" in page.method
    (strategy,) = [s for s in page.sections if s.heading == "By strategy"]
    assert [t.columns[1] for t in strategy.tables] == ["strategy", "first dealer"]
    first_rows = strategy.tables[1].rows
    assert [r[1] for r in first_rows] == ["greedy", "random", "either strategy"]
    assert first_rows[0][3].startswith("100.00 %") and first_rows[1][3].startswith("0.00 %")
    assert first_rows[2][4].startswith("0.00 pp")
    assert "python -m analyses.seat_advantage" in page.reproduce
    html = render_page(page)
    assert "<h2>Reproduce</h2>" in html
    assert html == render_page(seat_advantage.build(seat_data))  # deterministic


# Deal shape: games of planted lengths, with planted ties at the target.
LENGTHS = {11: [3, 4, 5, 6], 16: [5, 6, 7], 21: [7, 9]}
TIES = {11: 7, 16: 3, 21: 0}  # games where the leaders tie at the target once, then one more deal


def game_rows(target: int, length: int, tie: bool):
    """(side-0 points, side-1 points) per deal of a game won by side 0 after ``length`` deals."""
    if tie:  # both climb together, both land on the target, then side 0 pulls ahead
        early = [(1, 1)] * (length - 2)
        return [*early, (target - (length - 2),) * 2, (1, 0)]
    return [*[(1, 1)] * (length - 1), (target - (length - 1), 0)]  # tied below the target only


def expert_games(target: int) -> list[tuple[int, bool]]:
    """The expert twin's games: game g one deal longer when g is even, so experts' games last
    half a deal longer on average with a spread; at target 11 no game ties at the target."""
    return [
        (length + (g % 2 == 0), tie and target != 11)
        for g, (length, tie) in enumerate(beginner_games(target))
    ]


def beginner_games(target: int) -> list[tuple[int, bool]]:
    return [(length, False) for length in LENGTHS[target] * 25] + [(5, True)] * TIES[target]


def write_shape_run(root: Path, name: str, target: int, games, player: str) -> None:
    cols = {
        k: []
        for k in ("game", "deal", "side", "dealer", "points", "score", "scope", "final", "won")
    }
    for game, (length, tie) in enumerate(games):
        score = [0, 0]
        deals = game_rows(target, length, tie)
        for deal, pts in enumerate(deals):
            for side in (0, 1):
                score[side] += pts[side]
                last = deal == len(deals) - 1
                cols["game"].append(game)
                cols["deal"].append(deal)
                cols["side"].append(side)
                cols["dealer"].append(side == (deal + 1) % 2)
                cols["points"].append(pts[side])
                cols["score"].append(score[side])
                cols["scope"].append(deal % 2 if side == 0 else 0)  # one scopa in odd deals
                cols["final"].append(last)
                cols["won"].append(last and side == 0)
    variant = "classic" if target == 11 else f"classic:target={target}"
    write_run(root, name, cols, variant=variant, players=[player, player])


SHAPE_RUNS = ((11, "classic-greedy"), (16, "classic-target-16"), (21, "classic-target-21"))


@pytest.fixture(scope="module")
def shape_data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shape")
    for target, name in SHAPE_RUNS:
        write_shape_run(root, name, target, beginner_games(target), "greedy")
        expert = framework.expert_run(name)
        write_shape_run(root, expert, target, expert_games(target), framework.EXPERT)
    rng = np.random.default_rng(3)
    write_deals_run(root, "classic-deals", rng, deals=1000)
    return root


def test_game_lengths_and_ties_are_exact(shape_data):
    found = runs(shape_data)
    for target, name in (
        (11, "classic-greedy"),
        (16, "classic-target-16"),
        (21, "classic-target-21"),
    ):
        g = deal_shape.game_shape(found[name])
        lengths = LENGTHS[target] * 25 + [5] * TIES[target]
        assert g.target == target
        assert g.games == len(lengths) and g.deals == sum(lengths)
        assert g.length.value == pytest.approx(np.mean(lengths))
        assert g.length == stats.mean_ci(lengths)
        assert g.tie_games == g.tie_deals == TIES[target]  # ties below the target are not counted
        assert g.tie_share == stats.proportion_ci(TIES[target], len(lengths))
        assert g.longest == max(lengths)


def test_deal_shape_page(shape_data):
    found = runs(shape_data)
    shape = deal_shape.deal_shape(found["classic-greedy"])
    lengths = LENGTHS[11] * 25 + [5] * TIES[11]
    odd = sum(n // 2 for n in lengths)  # deals with one scopa
    assert shape.deals == sum(lengths)
    assert shape.scope_mean.value == pytest.approx(odd / sum(lengths))
    assert dict(shape.scope.iter_rows()) == {0: sum(lengths) - odd, 1: odd}
    assert int(shape.points["dealer"].sum()) == int(shape.points["other"].sum()) == sum(lengths)

    page = deal_shape.build(shape_data)
    assert [s.heading for s in page.sections] == [
        "Beginners (greedy players): a deal",
        "Beginners (greedy players): a game",
        f"Experts ({framework.EXPERT} players): a deal",
        f"Experts ({framework.EXPERT} players): a game",
        "Experts against beginners",
    ]
    assert [row["run"] for row in page.data] == [
        "classic-greedy",
        "classic-target-16",
        "classic-target-21",
        "classic-deals",
        "classic-expert",
        "classic-target-16-expert",
        "classic-target-21-expert",
    ]  # no classic-deals-expert: its cross-check is optional
    assert f"lasts {np.mean(lengths):.3f} [" in page.finding
    assert sum(len(s.figures) for s in page.sections) == 6


def test_deal_shape_compares_the_levels_paired_by_game(shape_data):
    """Experts minus beginners per target: the planted half deal (and ties at 11 gone), with the
    paired interval of the per-game differences; the headline gives both levels."""
    page = deal_shape.build(shape_data)
    found = {f.name: f.estimate for f in page.findings}
    fam = deal_shape.differences_family([], [])  # an empty family closes
    assert fam.size == 0
    for target, _ in SHAPE_RUNS:
        b = [length for length, _ in beginner_games(target)]
        e = [length for length, _ in expert_games(target)]
        want, _ = stats.paired_difference(b, e)
        got = found[f"deal_shape.target_{target}.levels.deals_per_game"]
        assert got == want and got.value == pytest.approx(0.5 * (1 + (len(b) % 2) / len(b)))
        assert found[f"deal_shape.expert.target_{target}.deals_per_game"] == stats.mean_ci(e)
        tb = [float(t) for _, t in beginner_games(target)]
        te = [float(t) for _, t in expert_games(target)]
        tie, want = found[f"deal_shape.target_{target}.levels.tie_share"], None
        want = stats.paired_difference(tb, te)[0]
        np.testing.assert_equal(
            (tie.value, tie.low, tie.high, tie.n), (want.value, want.low, want.high, want.n)
        )
        assert tie.value == pytest.approx(-7 / len(tb) if target == 11 else 0.0)
        wide = found[f"deal_shape.target_{target}.levels.deals_per_game.family"]
        assert wide.low < got.low and wide.high > got.high  # Bonferroni: wider
    head = page.headline
    assert head.labels[:2] == ("to 11, beginners", "to 11, experts") and len(head.labels) == 6
    lengths = [length for length, _ in beginner_games(11)]
    assert head.estimates[0] == stats.mean_ci(lengths)
    assert (
        "beginners (greedy)" in head.sentence and f"experts ({framework.EXPERT})" in head.sentence
    )
    assert "family interval, Holm p" in head.sentence
    # ties at 11: beginners 7 of 107 games, experts none; the sentence says where they disagree
    assert "ties: it is clearly non-zero for" not in head.sentence or "only" in head.sentence
    assert "On the same packs, experts minus beginners at target 11" in page.finding


def test_deal_shape_fails_without_an_expert_run(shape_data, tmp_path):
    for path in shape_data.iterdir():
        if "classic-target-21-expert" not in path.name:
            (tmp_path / path.name).symlink_to(path)
    with pytest.raises(MissingData, match="classic-target-21-expert"):
        deal_shape.build(tmp_path)


def test_pages_need_their_runs(tmp_path):
    for module in (deal_shape, seat_advantage):
        with pytest.raises(MissingData):
            module.build(tmp_path)


def test_variant_comparison_page(monkeypatch, tmp_path):
    monkeypatch.setattr(variant_comparison, "COUNT", 2000)
    monkeypatch.setattr(variant_comparison, "WORKERS", 1)
    page = variant_comparison.build(tmp_path)  # an empty folder: nothing is read
    assert page.slug == "variant-comparison"
    beginners, experts, _ = page.sections
    assert beginners.heading.startswith("Beginners (greedy against random)")
    assert experts.heading.startswith(f"Experts ({framework.EXPERT} against random)")
    for section in (beginners, experts):
        assert "<svg" in section.figures[0].svg
        assert {row[1] for row in section.tables[0].rows} == set(variant_comparison.ARMS)
    assert [row["arm"] for row in page.data] == list(variant_comparison.ARMS) * 2
    assert [row["players"] for row in page.data] == (
        ["greedy,random"] * len(variant_comparison.ARMS)
        + [f"{framework.EXPERT},random"] * len(variant_comparison.ARMS)
    )
    assert all(
        row["deals"] == "2,000" and "not read from the data folder" in row["source"]
        for row in page.data
    )
    # the random player is bound by forced capture, so that arm plays differently
    forced = [r for r in beginners.tables[0].rows if r[1] == "classic:forced_capture=true"]
    assert any(r[3] != "0.000 [0.000, 0.000]" for r in forced)
    assert page.finding.startswith("Clearest difference from classic:")
    # the clearest difference is quoted with its Bonferroni interval, which is a finding
    family = [f for f in page.findings if f.name.endswith(".diff_family")]
    tested = 3 * (len(variant_comparison.ARMS) - 1)  # seat0, seat1, scope per arm
    assert len(family) == 3 * tested  # beginners, experts, and the levels' differences
    assert any(reporting_ci(f.estimate) in page.finding for f in family)
    assert "% Bonferroni interval; Holm p" in page.finding
    # the family: every tested difference with a spread (a difference of exactly 0 throughout,
    # a rule that changes nothing at this size, has no p-value)
    tested_names = {f.name.removesuffix("_family") for f in family}
    diffs = [f for f in page.findings if f.name in tested_names]
    assert len(diffs) == 3 * tested
    assert f"one family of {sum(f.estimate.estimable for f in diffs)} tests" in page.finding
    assert "smallest true differences these data detect with 80 % power" in page.method
    names = {f.name for f in page.findings}
    assert {"variant.detectable.scope", "variant.scope.classic"} <= names
    assert {"variant.expert.scope.classic", "variant.levels.scope.cirulla.diff"} <= names
    # the headline: both levels per arm, each quoted in the page family's intervals
    head = page.headline
    assert len(head.labels) == 2 * (len(variant_comparison.ARMS) - 1)
    assert head.labels[0].endswith(", beginners") and head.labels[1].endswith(", experts")
    assert f"for experts ({framework.EXPERT})" in head.sentence
    # the tables' Holm p-values are the page's family, not each level's alone
    found = {f.name: f.estimate for f in page.findings}
    checked = 0
    for row in beginners.tables[0].rows:
        name = f"variant.{row[0]}.{row[1]}.diff_family"
        if name in found:
            assert row[4] == reporting_ci(found[name])
            checked += 1
    assert checked == tested
    # every reproduce command is one level's comparison
    assert page.reproduce.count("scopa-sim compare") == 2
    assert f"--players {framework.EXPERT},random" in page.reproduce


def test_variant_level_differences_are_paired_per_deal():
    """The level difference of an arm is the mean per-deal difference of differences, with the
    paired interval; an arm on packs of its own (cirulla) is Welch's over the level
    differences of the two arms; the page family holds both levels and these."""
    arms = variant_comparison.compare.plan(
        variant_comparison.compare.parse_arms(["classic", "classic:last_play_scopa=true",
                                               "cirulla"]), 5)  # fmt: skip
    rng = np.random.default_rng(0)
    n = 400

    def unit(shift):
        return {
            "points_seat0": rng.normal(2 + shift, 1, n),
            "points_seat1": rng.normal(2, 1, n),
            "scope": rng.normal(0.5, 0.2, n),
            "dealer_edge": rng.normal(0, 1, n),
        }

    units = {"beginner": [unit(0), unit(0.5), unit(0)], "expert": [unit(0), unit(0), unit(0)]}
    results = {
        level: variant_comparison.compare.analyse(arms, (), "deals", units[level], 5)
        for level in units
    }
    levels = variant_comparison.level_differences(arms, results, units)
    by = {(d.metric, d.arm): d for d in levels}
    d = by[("points_seat0", "classic:last_play_scopa=true")]
    assert d.design == "paired"
    want, p = stats.paired_difference(
        units["expert"][0]["points_seat0"] - units["beginner"][0]["points_seat0"],
        units["expert"][1]["points_seat0"] - units["beginner"][1]["points_seat0"],
    )
    assert d.diff == want and d.p_value == p and d.diff.high < 0  # experts gain 0.5 less
    c = by[("points_seat0", "cirulla")]
    assert c.design == "unpaired"
    welch, _ = stats.independent_difference(
        units["expert"][0]["points_seat0"] - units["beginner"][0]["points_seat0"],
        units["expert"][2]["points_seat0"] - units["beginner"][2]["points_seat0"],
    )
    assert c.diff == welch
    family = variant_comparison.page_family(results, levels)
    assert family.size == len(results["beginner"].family) * 2 + len(levels)


def test_targets_are_compared_paired_by_game_when_the_runs_share_packs(shape_data, tmp_path):
    """Same seed, players and first dealers: game g of each run is the same packs, so lengths
    are differenced game by game; with other first dealers the page falls back to Welch."""
    found = runs(shape_data)
    low, high = (deal_shape.game_shape(found[n]) for n in ("classic-greedy", "classic-target-16"))
    lengths = {t: LENGTHS[t] * 25 + [5] * TIES[t] for t in (11, 16)}
    n = min(len(lengths[11]), len(lengths[16]))
    d = deal_shape.target_difference(low, high)
    assert d.paired and "paired by game" in d.why
    expected, _ = stats.paired_difference(lengths[11][:n], lengths[16][:n])
    assert d.difference == expected and d.difference.n == n
    page = deal_shape.build(shape_data)
    names = {f.name for f in page.findings}
    assert {"deal_shape.target_16_minus_11.deals_per_game"} <= names
    assert "deal_shape.target_21_minus_16.deals_per_game" in names
    (game,) = [s for s in page.sections if s.heading == "Beginners (greedy players): a game"]
    assert any("simultaneous" in t.caption for t in game.tables)

    # The same lengths, but the higher target's games had other first dealers: not paired.
    frame = pl.read_parquet(found["classic-target-16"].folder)
    moved = tmp_path / "classic-target-16"
    moved.mkdir()
    frame.with_columns(pl.lit(1, frame["first_dealer"].dtype).alias("first_dealer")).write_parquet(
        moved / "chunk-000000.parquet"
    )
    manifest = found["classic-target-16"].folder.with_name("classic-target-16.manifest.json")
    (tmp_path / manifest.name).write_text(manifest.read_text())
    other = deal_shape.game_shape(runs(tmp_path)["classic-target-16"])
    unpaired = deal_shape.target_difference(low, other)
    assert not unpaired.paired and "Welch" in unpaired.why
    welch, _ = stats.independent_difference(lengths[11], lengths[16])
    assert unpaired.difference.value == pytest.approx(welch.value)
    assert unpaired.difference.high - unpaired.difference.low == pytest.approx(
        welch.high - welch.low
    )
