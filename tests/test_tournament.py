"""``scopa-sim tournament``: round robins on duplicate deals, over the runner.

A player against itself (the same player under two specs) plays both seatings of every pack
alike, so its duplicate difference is exactly zero (not estimable: no interval, no p; all
variance removed). Naming the
players in another order gives the same pairings with the sign flipped and the same ratings; any
number of workers gives the same results, and so does a tournament killed and rerun. A seeded
tournament of random, greedy and memory in classic ranks them in that order, with the adjacent
differences clear after Holm; the variance reduction matches a direct numpy computation from
``api.play_deals`` on the same seed. The JSON has exactly the documented keys, the page is
self-contained with its heat map and forest plot, players that see hidden cards are rated apart
(the fair ratings do not move), and bad input gets one line and exit status 2, creating nothing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import polars as pl
import pytest

from scopa_sim import api, cli, storage, tournament
from scopa_sim.players import GreedyPlayer

PYTHON = sys.executable
PAIRING_KEYS = {"a", "b", "metric", "estimate", "ci_low", "ci_high", "p_value", "p_holm", "n"}
RATING_KEYS = {"player", "rating", "ci_low", "ci_high", "packs"}
XMLNS = re.compile(r'\sxmlns(?::[\w-]+)?\s*=\s*"http://www\.w3\.org/[^"]*"')
SAME_GREEDY = "scopa_sim.players.greedy:GreedyPlayer"  # greedy under another spec


class Cheater(GreedyPlayer):
    """Plays like greedy but declares that it sees hidden cards: it must be rated apart."""

    name = "cheater"
    sees_hidden_cards = True


def strict_json(text: str):
    def refuse(constant):
        raise ValueError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


def scopa_sim(*args) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main([str(a) for a in args])
        except SystemExit as exit:  # argparse errors
            status = exit.code
    return status, out.getvalue(), err.getvalue()


def run_json(*args) -> dict:
    status, out, err = scopa_sim("tournament", *args, "--json", "--no-progress")
    assert status == 0, err
    return strict_json(out)


def without_out(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "out"}


@pytest.fixture(scope="module")
def classic(tmp_path_factory):
    """random, greedy and memory in classic, 4,000 deals, seed 1: JSON, page and folder."""
    folder = tmp_path_factory.mktemp("classic")
    html = folder / "tournament.html"
    result = run_json(
        "--variant", "classic", "--players", "random,greedy,memory", "--deals", 4000,
        "--seed", 1, "--out", folder / "t", "--html", html,
    )  # fmt: skip
    return result, html, folder / "t"


def pairing(result: dict, a: str, b: str, metric: str = "points_per_deal") -> dict:
    (row,) = [r for r in result["pairings"] if (r["a"], r["b"], r["metric"]) == (a, b, metric)]
    return row


# duplicate play ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant, mode, count",
    [("classic", "--deals", 1500), ("classic", "--games", 150), ("scopa-52-4p", "--deals", 400)],
)
def test_a_player_against_itself_has_exactly_zero_difference(
    tmp_path, monkeypatch, variant, mode, count
):
    monkeypatch.chdir(tmp_path)  # no --out: the default folder, under the current one
    result = run_json("--variant", variant, "--players", f"greedy,{SAME_GREEDY}", mode, count,
                      "--seed", 3)  # fmt: skip
    rows = result["pairings"]
    assert {r["metric"] for r in rows} == (
        {"points_per_deal", "game_win"} if mode == "--games" else {"points_per_deal"}
    )
    for row in rows:
        expected = 0.5 if row["metric"] == "game_win" else 0.0
        # no variation: not estimable at this size (no interval, no p), not "0 [0, 0], p = 1"
        assert row["estimate"] == expected, row
        assert row["ci_low"] is row["ci_high"] is row["p_value"] is row["p_holm"] is None
        assert row["n"] == count
    assert result["variance_reduction"] == 1.0  # nothing left of the deal-to-deal noise
    ratings = {r["player"]: r for r in result["ratings"]}
    assert ratings["greedy"]["rating"] == pytest.approx(0, abs=1e-9)
    mode_name = mode.lstrip("-")
    assert (tmp_path / "data" / "tournaments" / f"{variant}-3-{mode_name}").is_dir()


def test_swapping_the_players_flips_the_signs(tmp_path):
    common = ("--variant", "classic", "--deals", 1500, "--seed", 5)
    first = run_json(*common, "--players", "random,greedy,memory", "--out", tmp_path / "a")
    second = run_json(*common, "--players", "memory,greedy,random", "--out", tmp_path / "b")
    assert len(first["pairings"]) == len(second["pairings"]) == 3
    for row in first["pairings"]:
        other = pairing(second, row["b"], row["a"])
        assert other["estimate"] == -row["estimate"]
        assert other["ci_low"] == pytest.approx(-row["ci_high"], abs=1e-12)
        assert other["ci_high"] == pytest.approx(-row["ci_low"], abs=1e-12)
        assert other["p_value"] == pytest.approx(row["p_value"], rel=1e-9)
        assert other["p_holm"] == pytest.approx(row["p_holm"], rel=1e-9)
        assert other["n"] == row["n"]
    for name in ("ratings", "variance_reduction_by_pairing"):
        assert len(first[name]) == len(second[name])
    ratings = {r["player"]: r for r in second["ratings"]}
    for r in first["ratings"]:
        for key in ("rating", "ci_low", "ci_high"):
            assert ratings[r["player"]][key] == pytest.approx(r[key], abs=1e-6)
    assert second["variance_reduction"] == pytest.approx(first["variance_reduction"], abs=1e-12)


def test_any_number_of_workers_gives_the_same_results(tmp_path):
    common = ("--variant", "classic", "--players", "random,greedy,memory", "--deals", 3000,
              "--seed", 7, "--chunk-size", 1000)  # fmt: skip
    one = run_json(*common, "--workers", 1, "--out", tmp_path / "one")
    two = run_json(*common, "--workers", 2, "--out", tmp_path / "two")
    assert without_out(one) == without_out(two)
    assert pl.read_parquet(tmp_path / "one" / "summary.parquet").equals(
        pl.read_parquet(tmp_path / "two" / "summary.parquet")
    )


def test_a_killed_tournament_resumes_to_the_same_results(tmp_path):
    common = ["--variant", "classic", "--players", "memory,greedy,random", "--deals", "4000",
              "--seed", "11", "--chunk-size", "500"]  # fmt: skip
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [PYTHON, "-m", "scopa_sim", "tournament", *common, "--out", str(killed), "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(list(killed.glob("*/chunk-*.parquet"))) < 3 and time.monotonic() < deadline:
        assert proc.poll() is None, "the tournament ended before it could be killed"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    chunks = len(list(killed.glob("*/chunk-*.parquet")))
    assert 3 <= chunks < 6 * 8, f"{chunks} chunk files after the kill"
    assert not (killed / "summary.parquet").exists()

    resumed = run_json(*common, "--out", killed)
    whole = run_json(*common, "--out", tmp_path / "whole")
    assert without_out(resumed) == without_out(whole)
    # A rerun of a complete tournament plays nothing and says the same.
    stamps = {p: p.stat().st_mtime_ns for p in killed.glob("*/chunk-*.parquet")}
    assert without_out(run_json(*common, "--out", killed)) == without_out(whole)
    assert {p: p.stat().st_mtime_ns for p in killed.glob("*/chunk-*.parquet")} == stamps
    # Lost chunk files (a damaged folder) are replayed as they were.
    for path in sorted(killed.glob("greedy-vs-random/chunk-*.parquet"))[:3]:
        path.unlink()
    assert without_out(run_json(*common, "--out", killed)) == without_out(whole)


# the classic round robin ------------------------------------------------------------------------


def test_classic_ranks_memory_over_greedy_over_random(classic):
    result, _, _ = classic
    ranking = [r["player"] for r in result["ratings"]]
    assert ranking == ["memory", "greedy", "random"]
    ratings = {r["player"]: r for r in result["ratings"]}
    assert ratings["memory"]["ci_low"] > ratings["greedy"]["ci_high"]
    assert ratings["greedy"]["ci_low"] > ratings["random"]["ci_high"]
    assert sum(r["rating"] for r in result["ratings"]) == pytest.approx(0, abs=1e-9)
    # Adjacent pairs: A is named first in --players, so these are greedy - memory, random - greedy.
    greedy_memory = pairing(result, "greedy", "memory")
    random_greedy = pairing(result, "random", "greedy")
    assert -0.45 < greedy_memory["estimate"] < -0.2  # memory beats greedy by about 0.3 points
    assert random_greedy["ci_high"] < -1.0
    for row in (greedy_memory, random_greedy):
        assert row["ci_high"] < 0 and row["p_holm"] < 0.01
        assert row["p_holm"] >= row["p_value"]
    assert result["family"].startswith("Holm")


def test_variance_reduction_matches_numpy_on_the_same_seed(classic):
    result, _, folder = classic
    dup_var, plain_half = [], []
    by_pair = {(v["a"], v["b"]): v["variance_reduction"] for v in
               result["variance_reduction_by_pairing"]}  # fmt: skip
    for a, b in (("random", "greedy"), ("random", "memory"), ("greedy", "memory")):
        first = api.play_deals("classic", [a, b], deals=4000, seed=1).totals.astype(float)
        second = api.play_deals("classic", [b, a], deals=4000, seed=1).totals.astype(float)
        d1 = first[:, 0] - first[:, 1]  # A - B with A at side 0
        d2 = second[:, 1] - second[:, 0]  # A - B with A at side 1
        dup = (d1 + d2) / 2
        plain = (np.var(d1, ddof=1) + np.var(d2, ddof=1)) / 2
        reduction = 1 - np.var(dup, ddof=1) / (plain / 2)
        assert 0 < reduction < 1
        assert by_pair[(a, b)] == pytest.approx(reduction, rel=1e-9)
        assert pairing(result, a, b)["estimate"] == pytest.approx(dup.mean(), rel=1e-12)
        dup_var.append(np.var(dup, ddof=1))
        plain_half.append(plain / 2)
    pooled = 1 - sum(dup_var) / sum(plain_half)
    assert 0 < result["variance_reduction"] < 1
    assert result["variance_reduction"] == pytest.approx(pooled, rel=1e-9)
    summary = pl.read_parquet(folder / "summary.parquet")
    assert summary.height == 3
    assert summary["variance_reduction"].to_list() == pytest.approx(list(by_pair.values()))


def test_json_has_exactly_the_documented_keys(classic):
    result, _, _ = classic
    assert {"pairings", "ratings", "variance_reduction"} <= set(result)
    assert {"design", "family"} <= set(result)
    for row in result["pairings"]:
        assert set(row) == PAIRING_KEYS
    for row in result["ratings"]:
        assert set(row) == RATING_KEYS
    assert isinstance(result["variance_reduction"], float)
    assert "1 - Var(dup) / (Var(plain) / 2)" in result["variance_reduction_definition"]


def test_html_page_is_self_contained_with_heat_map_and_forest_plot(classic):
    result, html, _ = classic
    text = html.read_text(encoding="utf-8")
    assert not re.search(r"(?:https?|ftp)://", XMLNS.sub("", text), re.IGNORECASE)
    assert not re.search(r"<(?:script|link|img|iframe)\b", text, re.IGNORECASE)
    assert text.count("<svg") == 2  # the heat map and the forest plot
    assert "row player A against column player B" in text
    assert "Ratings (Davidson" in text
    # The heat map's cells hold the estimates with their CIs, both ways round.
    row = pairing(result, "greedy", "memory")
    assert f"{row['estimate']:+.2f}" in text and f"{-row['estimate']:+.2f}" in text
    assert f"[{row['ci_low']:+.2f}, {row['ci_high']:+.2f}]" in text
    assert (
        "scopa-sim tournament --variant classic --players random,greedy,memory --deals 4000 "
        "--seed 1 --out "
    ) in text
    assert "1 - Var(dup) / (Var(plain) / 2)" in text


# largest duplicate swings, linked to their replays ----------------------------------------------


def swings_by_numpy(folder, a: str, b: str) -> dict[tuple[int, int], float]:
    """Per (game, deal) of pairing (a, b) in a two-sided tournament: A's margin in run 1 plus
    A's margin in run 2, from the stored rows directly."""
    first = pl.read_parquet(folder / f"{a}-vs-{b}" / "*.parquet").sort("game", "deal", "side")
    second = pl.read_parquet(folder / f"{b}-vs-{a}" / "*.parquet").sort("game", "deal", "side")
    p1 = first["points"].to_numpy().reshape(-1, 2).astype(float)
    p2 = second["points"].to_numpy().reshape(-1, 2).astype(float)
    keys1 = list(zip(first["game"][::2], first["deal"][::2], strict=True))
    keys2 = list(zip(second["game"][::2], second["deal"][::2], strict=True))
    m1 = dict(zip(keys1, p1[:, 0] - p1[:, 1], strict=True))  # A on side 0
    m2 = dict(zip(keys2, p2[:, 1] - p2[:, 0], strict=True))  # A on side 1
    return {k: m1[k] + m2[k] for k in m1.keys() & m2.keys()}


def test_the_page_links_the_largest_swings_to_exact_replays_of_both_seatings(classic):
    from tests.test_replay_html import ReplayPage, assert_page_matches, assert_self_contained

    _, html, folder = classic
    text = html.read_text(encoding="utf-8")
    assert "Largest duplicate swings" in text
    links = re.findall(r'<a href="([^"]+)">both seatings</a>', text)
    assert len(links) == 3 * tournament.SWINGS_PER_PAIRING  # 3 pairings
    plan = tournament.plan(variant_name="classic", players="random,greedy,memory",
                           mode="deals", count=4000, seed=1, out=folder)  # fmt: skip
    swings = tournament.largest_swings(plan)
    for link, swing in zip(links, swings, strict=True):
        assert link == f"tournament-swings/{swing.file_name}"  # relative: opens offline
        a, b = swing.pairing.a.folder, swing.pairing.b.folder
        # The largest |swing| of the pairing, by a direct computation on the stored rows.
        direct = swings_by_numpy(folder, a, b)
        assert swing.swing == direct[(swing.game, swing.deal)]
        ranked = sorted(abs(x) for x in direct.values())
        k = tournament.SWINGS_PER_PAIRING
        if swing is [s for s in swings if s.pairing == swing.pairing][-1]:
            assert abs(swing.swing) == ranked[-k]  # the k-th largest: nothing larger was left
        # Both seatings replayed exactly as stored: every category of every side.
        records = []
        for config in swing.pairing.runs:
            record = api.replay_run_deal(config.out, swing.game, swing.deal)
            stored = (
                pl.read_parquet(config.out / "*.parquet")
                .filter((pl.col("game") == swing.game) & (pl.col("deal") == swing.deal))
                .sort("side")
            )
            assert [s.total for s in record.sides] == stored["points"].to_list()
            assert [s.points["scope"] for s in record.sides] == stored["scope"].to_list()
            assert [len(s.captured) for s in record.sides] == stored["cards"].to_list()
            records.append(record)
        margins = [records[0].sides[0].total - records[0].sides[1].total,
                   records[1].sides[1].total - records[1].sides[0].total]  # fmt: skip
        assert tuple(margins) == swing.margins
        assert records[0].pack == records[1].pack  # the same pack, the seats swapped
        replay = (html.parent / link).read_text(encoding="utf-8")
        page = ReplayPage(replay)
        assert_self_contained(replay, page)
        assert_page_matches(page, records)  # both seatings, one after the other
    assert max(abs(s.swing) for s in swings) > 0


def test_swings_in_games_mode_pair_the_deals_both_seatings_played(tmp_path):
    result = tournament.run_tournament(
        variant_name="classic", players="random,greedy", mode="games", count=30, seed=5,
        out=tmp_path / "g",
    )  # fmt: skip
    (swing, *rest) = tournament.largest_swings(result.tournament, k=3)
    direct = swings_by_numpy(tmp_path / "g", "random", "greedy")
    assert len(rest) == 2 and abs(swing.swing) == max(abs(x) for x in direct.values())
    assert swing.swing == direct[(swing.game, swing.deal)]
    written = tournament.write_html(result, "scopa-sim tournament ...", tmp_path / "t.html", 3)
    assert [p.name for p in written[1:]] == [s.file_name for s in [swing, *rest]]
    assert all(p.is_file() for p in written)
    assert "-game" in written[1].name and written[1].parent.name == "t-swings"


def test_a_replay_that_does_not_reproduce_the_stored_deal_is_refused(classic, tmp_path):
    import shutil

    _, _, folder = classic
    copy = tmp_path / "t"
    shutil.copytree(folder, copy)  # the runs, each with its manifest inside
    plan = tournament.plan(variant_name="classic", players="random,greedy",
                           mode="deals", count=4000, seed=1, out=copy)  # fmt: skip
    (swing,) = tournament.largest_swings(plan, k=1)
    run = swing.pairing.runs[0].out
    for chunk in sorted(run.glob("chunk-*.parquet")):  # a stored row the replay cannot match
        frame = pl.read_parquet(chunk)
        hit = (pl.col("game") == swing.game) & (pl.col("deal") == swing.deal)
        if frame.filter(hit).height:
            frame = frame.with_columns(
                pl.when(hit).then(pl.col("points") + 1).otherwise(pl.col("points")).alias("points")
            )
            frame.write_parquet(chunk)
            # Recorded as the run's own rows (else the chunk is refused as damaged first).
            meta = storage.read_manifest(run)
            number = str(int(chunk.stem.split("-")[1]))
            meta["chunk_files"][number] = storage.chunk_record(chunk, frame.height)
            storage.write_manifest(run, meta)
    with pytest.raises(tournament.TournamentError, match="a player changed since"):
        tournament.replay_swing(swing)


def test_the_table_names_the_family_and_the_upper_bounds_apart(tmp_path):
    common = ("--variant", "classic", "--deals", 1000, "--seed", 2, "--no-progress")
    spec = "tests.test_tournament:Cheater"
    status, table, err = scopa_sim(
        "tournament", *common, "--players", f"random,greedy,{spec}", "--out", tmp_path / "c"
    )
    assert status == 0, err
    assert "Holm family: the pairings of each metric" in table
    assert tournament.UPPER_BOUND_LABEL in table
    with_cheater = run_json(*common, "--players", f"random,greedy,{spec}", "--out", tmp_path / "c")
    fair_only = run_json(*common, "--players", "random,greedy", "--out", tmp_path / "f")
    assert [r["player"] for r in with_cheater["ratings"]] == ["greedy", "random"]
    (upper,) = with_cheater["upper_bound_ratings"]
    assert upper["player"] == spec and upper["label"] == tournament.UPPER_BOUND_LABEL
    # The cheater does not move the fair ratings: they come from the fair pairings alone.
    assert with_cheater["ratings"] == fair_only["ratings"]
    # Its pairings are still reported (greedy against a greedy in disguise: exactly even).
    assert pairing(with_cheater, "greedy", spec)["estimate"] == 0.0


def test_bradley_terry_recovers_known_strengths():
    rng = np.random.default_rng(0)
    truth = np.log([1.0, 2.0, 4.0])
    truth -= truth.mean()
    pairs = []
    for i in range(3):
        for j in range(i + 1, 3):
            p = np.exp(truth[i]) / (np.exp(truth[i]) + np.exp(truth[j]))
            pairs.append((i, j, float(rng.binomial(200_000, p)), 200_000.0))
    fitted = tournament.bradley_terry(3, pairs)
    assert fitted.mean() == pytest.approx(0, abs=1e-12)
    assert fitted == pytest.approx(truth, abs=0.02)


# bad input --------------------------------------------------------------------------------------

GOOD = ["--deals", "100", "--seed", "1"]
BAD = {
    "one player": (["--variant", "classic", "--players", "greedy", *GOOD], ["two players"]),
    "a name twice": (
        ["--variant", "classic", "--players", "greedy,random,greedy", *GOOD],
        ["'greedy'", "twice"],
    ),
    "unknown player": (["--variant", "classic", "--players", "greedy,nobody", *GOOD], ["nobody"]),
    "unknown variant": (["--variant", "klassik", "--players", "greedy,random", *GOOD], ["klassik"]),
    "unknown option": (
        ["--variant", "classic", "--option", "bogus=1", "--players", "greedy,random", *GOOD],
        ["bogus"],
    ),
    "bad option value": (
        ["--variant", "classic", "--option", "target=many", "--players", "greedy,random", *GOOD],
        ["target"],
    ),
    "three sides": (
        ["--variant", "classic-3p", "--players", "greedy,random", *GOOD],
        ["3 sides", "even"],
    ),
    "deals and games": (
        ["--variant", "classic", "--players", "greedy,random", *GOOD, "--games", "5"],
        ["--games"],
    ),
    "neither deals nor games": (
        ["--variant", "classic", "--players", "greedy,random", "--seed", "1"],
        ["--deals"],
    ),
    "zero deals": (
        ["--variant", "classic", "--players", "greedy,random", "--deals", "0", "--seed", "1"],
        ["--deals", "positive"],
    ),
    "negative games": (
        ["--variant", "classic", "--players", "greedy,random", "--games=-3", "--seed", "1"],
        ["--games"],
    ),
    "zero workers": (
        ["--variant", "classic", "--players", "greedy,random", *GOOD, "--workers", "0"],
        ["--workers"],
    ),
    "no seed": (["--variant", "classic", "--players", "greedy,random", "--deals", "9"], ["--seed"]),
    "scheduler without dask": (
        ["--variant", "classic", "--players", "greedy,random", *GOOD, "--scheduler", "tcp://x:1"],
        ["--scheduler"],
    ),
    "html folder missing": (
        ["--variant", "classic", "--players", "greedy,random", *GOOD, "--html", "/no-such/x.html"],
        ["/no-such"],
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_one_line_exit_2_nothing_created(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    args, fragments = BAD[case]
    status, out, err = scopa_sim("tournament", *args, "--out", tmp_path / "t")
    assert status == 2, f"exit status {status}; stderr: {err!r}"
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(("scopa-sim: error:", "scopa-sim tournament: error:")), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    assert out == ""
    assert list(tmp_path.iterdir()) == []  # no output folder, no data/


EARLY = {
    **{case: args for case, (args, _) in BAD.items()},
    "one player of three sides": ["--variant", "classic-3p", "--players", "greedy", *GOOD],
    "blank player": ["--variant", "classic", "--players", "greedy, ,random", *GOOD],
    "player with a bad parameter": ["--variant", "classic", "--players", "greedy,pimc:x=1", *GOOD],
    "unknown after a spec": ["--variant", "classic", "--players", f"{SAME_GREEDY},x", *GOOD],
}


@pytest.mark.parametrize("case", list(EARLY))
def test_early_checks_say_what_the_full_checks_say(tmp_path, monkeypatch, case):
    """cli checks the players of a tournament before importing the engine: the same line as
    tournament.plan's checks, which come after in any case."""
    monkeypatch.chdir(tmp_path)
    args = ["tournament", *EARLY[case], "--out", tmp_path / "t"]
    early = scopa_sim(*args)
    assert early[0] == 2 and len(early[2].splitlines()) == 1, early
    monkeypatch.setattr(cli.checks, "check_tournament_early", lambda rules, players: None)
    assert scopa_sim(*args) == early
    assert list(tmp_path.iterdir()) == []


def test_another_tournament_in_the_same_folder_is_refused_before_any_work(tmp_path):
    common = ("--variant", "classic", "--players", "random,greedy", "--seed", "1")
    run_json(*common, "--deals", 300, "--out", tmp_path / "t")
    before = sorted(p.name for p in (tmp_path / "t").iterdir())
    status, out, err = scopa_sim("tournament", *common, "--deals", 400, "--out", tmp_path / "t")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "another tournament" in err and "300 deals" in err
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == before
    # A run folder of another data version is refused too, before any run is touched.
    manifest = tmp_path / "t" / "random-vs-greedy" / "manifest.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "data_version": 1}))
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "t").rglob("*")}
    status, out, err = scopa_sim("tournament", *common, "--deals", 300, "--out", tmp_path / "t")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "older scopa-sim" in err
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "t").rglob("*")} == stamps


def test_bad_input_through_the_real_command_line(tmp_path):
    out = tmp_path / "t"
    proc = subprocess.run(
        [PYTHON, "-m", "scopa_sim", "tournament", "--variant", "classic-3p", "--players",
         "greedy,random", "--deals", "10", "--seed", "1", "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not out.exists()
