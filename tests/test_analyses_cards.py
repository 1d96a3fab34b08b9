"""The card pages (ace value, card values) measure values by intervention on small real runs.

A fixture plays two small runs as ``make simulate`` would (greedy against greedy): independent
deals (``classic-deals``) and whole games (``classic-greedy``, for the win-chance table), and
their expert twins (``classic-deals-expert``, ``classic-expert``: framework.EXPERT on both sides,
the same seed and sizes). The
pages' numbers are then checked against independent computations: the captured values against
the reference engine's scoring of each pile with the card moved, the dealt values against a fresh
set of paired replays, and the simultaneous intervals against their Bonferroni level. The pages
render offline and deterministically, reuse their cached replays and refuse a cache that no
longer matches the run.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from analyses import _card_interventions as ci
from analyses import ace_value, card_values, framework
from analyses.framework import MissingData, require
from scopa_sim import interventions as iv
from scopa_sim import runner, stats
from scopa_sim.cards import ITALIAN_40 as PACK
from scopa_sim.engine import reference
from scopa_sim.players import player
from scopa_sim.reporting import page_json, render_page
from scopa_sim.rules import variant

DEALS = 2_000
GAMES = 20_000
SEED = 20261129
CLASSIC = variant("classic")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    for name, mode, count in (
        ("classic-deals", "deals", DEALS),
        ("classic-greedy", "games", GAMES),
    ):
        for level in framework.LEVELS:
            config = runner.RunConfig.create(
                variant="classic", players=[framework.LEVEL_PLAYER[level]] * 2, mode=mode,
                count=count, seed=SEED, out=root / framework.level_run(name, level),
                chunk_size=count // 2,
            )  # fmt: skip
            runner.run(config, progress=False)
    return root


@pytest.fixture(scope="module")
def card_page(data):
    """The card page built once (its replays cached in ``data``), for the tests that read it."""
    return card_values.build(data)


def _cards(mask: int) -> set[int]:
    return {c for c in range(PACK.n_cards) if mask >> c & 1}


def _reference_value(piles: list[set[int]], scope, side: int, card: int) -> int:
    """The capturer's points with ``card`` minus with it moved, by the reference scoring."""
    with_card = sum(reference.score_deal(CLASSIC, piles, scope)[side].values())
    moved = [set(p) for p in piles]
    moved[side].remove(card)
    moved[1 - side].add(card)
    return with_card - sum(reference.score_deal(CLASSIC, moved, scope)[side].values())


def _no_external_urls(html: str) -> None:
    # Namespace names (xmlns="http://www.w3.org/2000/svg") are identifiers, never fetched.
    text = re.sub(r'xmlns(:\w+)?="[^"]*"', "", html)
    assert not re.search(r"https?://|//[\w.-]+\.\w+/|@import|url\(\s*['\"]?(?!#)", text)


def test_missing_run_is_reported(tmp_path):
    for module in (ace_value, card_values):
        with pytest.raises(MissingData):
            module.build(tmp_path)


def test_captured_aces_are_the_reference_rescoring(data):
    run = require(data, "classic-deals")
    rows = ace_value.captured_aces(run)
    assert rows.pop("deals") == DEALS
    frame = run.scan().sort("game", "side").collect()
    captured = frame["captured"].to_numpy().reshape(-1, 2)
    scope = frame["scope"].to_numpy().reshape(-1, 2)
    expected, games = [], []
    for ace in ace_value.ACES:
        for game in range(DEALS):
            piles = [_cards(int(m)) for m in captured[game]]
            side = 0 if ace in piles[0] else 1 if ace in piles[1] else -1
            if side >= 0:
                expected.append(_reference_value(piles, list(scope[game]), side, ace))
                games.append(game)
    assert np.array_equal(rows["game"], games)
    assert np.array_equal(rows["points"], expected)
    est = ci.mean_by_deal(rows["points"], rows["game"])
    assert est.value == pytest.approx(np.mean(expected))


def test_ace_page_findings_render_and_cache(data, monkeypatch):
    page = ace_value.build(data)
    found = {f.name: f for f in page.findings}
    for name in (
        "ace.captured.points", "ace.captured.margin", "ace.captured.primiera",
        "ace.dealt.points", "ace.dealt.margin", "ace.dealt.primiera",
        "ace.dealt.win.0-0", "ace.dealt.win.8-8", "ace.captured.points.neither",
        "ace.dealt.primiera.both",
    ):  # fmt: skip
        e = found[name].estimate
        assert e.low <= e.value <= e.high and e.n > 0, name
    # The finding sentence quotes the captured value with its interval.
    cap = found["ace.captured.points"].estimate
    assert f"{cap.value:.2f} [{cap.low:.2f}, {cap.high:.2f}]" in page.finding
    html = render_page(page)
    assert "<svg" in html and "<table>" in html
    _no_external_urls(html)
    assert page_json(page)["findings"][0]["name"] == "ace.captured.points"
    assert (data / "interventions" / "classic-deals-dealt.parquet").exists()

    def boom(*a, **k):
        raise AssertionError("replays recomputed")

    monkeypatch.setattr(iv, "dealt_values", boom)
    assert render_page(ace_value.build(data)) == html  # cached, and byte-identical
    assert ace_value.build.__doc__.splitlines()[0].endswith("?")


def test_card_values_are_the_interventions(data):
    run = require(data, "classic-deals")
    cap, deals, total = card_values.captured(run, level=stats.LEVEL)
    assert deals == total == DEALS
    frame = run.scan().sort("game", "side").collect()
    captured = frame["captured"].to_numpy().reshape(-1, 2)
    scope = frame["scope"].to_numpy().reshape(-1, 2)
    for card in (card_values.SETTEBELLO, PACK.card(2, 1), PACK.card(3, 10)):
        values = []
        for game in range(DEALS):
            piles = [_cards(int(m)) for m in captured[game]]
            side = 0 if card in piles[0] else 1 if card in piles[1] else -1
            if side >= 0:
                values.append(_reference_value(piles, list(scope[game]), side, card))
        assert cap[card].value == pytest.approx(np.mean(values)), card_values.card_name(card)
        assert cap[card].n == len(values)

    table, _ = ci.win_table(data)
    fresh = iv.dealt_values(CLASSIC, [player("greedy")] * 2, SEED, range(DEALS), cards=[6, 30])
    deal, win = card_values.dealt(ci.replays(data, run), table, level=stats.LEVEL)
    for card in (6, 30):
        rows = fresh.card == card
        diff = fresh.points_with[rows].astype(int) - fresh.points_without[rows]
        assert deal[card].value == pytest.approx(diff.mean())
        assert deal[card].n == rows.sum()
        assert -1 <= win[card].low <= win[card].value <= win[card].high <= 1


def test_simultaneous_intervals_are_bonferroni(data):
    run = require(data, "classic-deals")
    wide, _, _ = card_values.captured(run)
    narrow, _, _ = card_values.captured(run, level=0.95)
    # per card: captured, dealt and win at two levels, and the two level differences
    assert card_values.FAMILY == 320
    assert card_values.LEVEL == pytest.approx(1 - 0.05 / 320)
    card = card_values.SETTEBELLO
    n = narrow[card].n
    ratio = sps.t.ppf(1 - 0.025 / 320, n - 1) / sps.t.ppf(0.975, n - 1)
    assert wide[card].half_width == pytest.approx(ratio * narrow[card].half_width, rel=1e-6)


def test_rank_ranges():
    e = stats.Estimate
    est = {
        0: e(3, 2.9, 3.1, 9),
        1: e(2, 1.5, 2.5, 9),
        2: e(1.8, 1.0, 2.6, 9),
        3: e(0, -0.1, 0.1, 9),
    }
    assert card_values.rank_ranges(est) == {0: (1, 1), 1: (2, 3), 2: (2, 3), 3: (4, 4)}


def test_card_page_renders_with_every_finding(card_page):
    page = card_page
    names = {f.name for f in page.findings}
    for c in range(PACK.n_cards):
        code = PACK.code(c)
        assert {f"card.captured.points.{code}", f"card.dealt.points.{code}"} <= names
    assert len(page.findings) == card_values.FAMILY
    html = render_page(page)
    assert "Bonferroni" in html and "<svg" in html
    _no_external_urls(html)
    assert re.search(r"\[-?\d", page.finding)


def test_a_stale_replay_cache_is_refused(data, tmp_path):
    run = require(data, "classic-deals")
    pairs = ci.replays(data, run)
    folder = data / "interventions"
    frame = pl.read_parquet(folder / "classic-deals-dealt.parquet")
    saved = frame.clone()
    try:
        tampered = frame.with_columns(pl.col("points_with") + 1)
        tampered.write_parquet(folder / "classic-deals-dealt.parquet")
        with pytest.raises(ValueError, match="do not match"):
            ci.replays(data, run)
    finally:
        saved.write_parquet(folder / "classic-deals-dealt.parquet")
    assert len(ci.replays(data, run)) == len(pairs)


def test_card_level_differences_are_paired_by_deal(data, card_page):
    """The experts' card values minus the beginners': captured, per deal where both runs
    captured the card; dealt, per replay of the same deal, card and exchange."""
    runs = {lv: require(data, framework.level_run("classic-deals", lv)) for lv in framework.LEVELS}
    points = {lv: card_values.captured_points(run)[0] for lv, run in runs.items()}
    diff = card_values.captured_difference(points["beginner"], points["expert"])
    frames = {lv: run.scan().sort("game", "side").collect() for lv, run in runs.items()}
    card = card_values.SETTEBELLO
    values = []
    for game in range(DEALS):
        got = []
        for lv in framework.LEVELS:
            captured = frames[lv]["captured"].to_numpy().reshape(-1, 2)[game]
            scope = frames[lv]["scope"].to_numpy().reshape(-1, 2)[game]
            piles = [_cards(int(m)) for m in captured]
            side = 0 if card in piles[0] else 1 if card in piles[1] else -1
            got.append(None if side < 0 else _reference_value(piles, list(scope), side, card))
        if None not in got:
            values.append(got[1] - got[0])
    assert diff[card].value == pytest.approx(np.mean(values)) and diff[card].n == len(values)
    pairs = {lv: ci.replays(data, run) for lv, run in runs.items()}
    assert np.array_equal(pairs["beginner"].partner, pairs["expert"].partner)  # same exchanges
    dealt = card_values.dealt_difference(pairs["beginner"], pairs["expert"])
    b, e = pairs["beginner"], pairs["expert"]
    rows = b.card == card
    want = (e.points_with[rows].astype(int) - e.points_without[rows]) - (
        b.points_with[rows].astype(int) - b.points_without[rows]
    )
    assert dealt[card].value == pytest.approx(want.mean()) and dealt[card].n == rows.sum()

    page = card_page
    found = {f.name: f.estimate for f in page.findings}
    code = PACK.code(card)
    assert found[f"card.levels.captured.points.{code}"] == diff[card]
    assert found[f"card.levels.dealt.points.{code}"] == dealt[card]
    head = page.headline
    assert len(head.labels) == 2 * card_values.GLANCE_CARDS
    assert head.labels[0].endswith(", beginners") and head.labels[1].endswith(", experts")
    assert f"for experts ({framework.EXPERT})" in head.sentence
    assert [s.heading for s in page.sections] == [
        "Card values: beginners (greedy players)",
        f"Card values: experts ({framework.EXPERT} players)",
        "Experts against beginners",
    ]


def test_ace_level_differences_are_paired_by_deal_and_ace(data):
    page = ace_value.build(data)
    found = {f.name: f.estimate for f in page.findings}
    b, e = (ace_value.measure(data, lv) for lv in framework.LEVELS)
    for kind in ("captured", "dealt"):
        rb, re_ = b.rows[kind], e.rows[kind]
        key_b = {(g, a): p for g, a, p in zip(rb["game"], rb["ace"], rb["points"], strict=True)}
        diffs, games = [], []
        for g, a, p in zip(re_["game"], re_["ace"], re_["points"], strict=True):
            if (g, a) in key_b:
                diffs.append(p - key_b[g, a])
                games.append(g)
        want = ci.mean_by_deal(np.array(diffs), np.array(games))
        got = found[f"ace.levels.{kind}.points"]
        assert got.value == pytest.approx(want.value) and got.n == want.n, kind
        assert got.low == pytest.approx(want.low, rel=1e-6), kind
        wide = found[f"ace.levels.{kind}.points.family"]
        assert wide.low < got.low and wide.high > got.high  # four tests: Bonferroni
    assert found["ace.expert.captured.points"] == e.captured["points"]
    for prefix, v in (("ace.", b), ("ace.expert.", e)):  # each level's worth, in the family
        rows = v.rows["captured"]
        plain, _ = ci.clustered_test(rows["points"], rows["game"])
        wide = found[f"{prefix}captured.points.family"]
        assert wide.value == pytest.approx(plain.value) and wide.low < plain.low
    head = page.headline
    assert len(head.labels) == 8 and head.labels[1] == "neither 7 nor 6, experts"
    assert "between beginners (greedy)" in head.sentence
    assert f"between experts ({framework.EXPERT})" in head.sentence
    assert "family interval, Holm p" in head.sentence
    assert "Experts minus beginners on the same packs" in page.finding


def test_card_pages_fail_without_an_expert_run(data, tmp_path):
    for path in data.iterdir():
        if path.name != "classic-deals-expert" and path.name != "interventions":
            (tmp_path / path.name).symlink_to(path)
    for module in (ace_value, card_values):
        with pytest.raises(MissingData, match="classic-deals-expert"):
            module.build(tmp_path)


def test_card_names():
    assert card_values.card_name(card_values.SETTEBELLO) == "settebello"
    assert card_values.card_name(PACK.card(1, 7)) == "7 cups"
    assert card_values.card_name(PACK.card(3, 1)) == "ace clubs"
    assert card_values.card_name(PACK.card(2, 10)) == "re swords"
