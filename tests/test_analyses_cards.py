"""The card analyses (ace value, card values) recover known answers from a synthetic run.

The fake run deals each card to side 0 or side 1 by a fair coin and scores each side by a known
rule, so every coefficient the analyses estimate has a true value to compare with:

* primiera point: Bernoulli(0.1 + 0.05 aces + 0.1 sevens), independently for each side;
* points: primiera point + settebello + 1 per ace + 2 for the seven of cups + noise (0 or 1).

Then, holding sevens and sixes fixed, an ace adds 0.05 to P(primiera point) and 2 + 2 x 0.05 = 2.1
to the side's margin (the opponent holds the other aces). Card by card (half the swing in
side 0's margin): each ace 1 + 0.05 = 1.05, the settebello 1 + 0.1, the seven of cups 2 + 0.1,
the other sevens 0.1, every other card 0.

The data come from one fixed seed, so a check "the truth lies in the 95 % interval" would fail for
about one seed in twenty per check; each check instead allows two half-widths (about four
standard errors), which a correct estimator passes for practically every seed and a biased one
(an effect missed, halved or doubled) does not.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from analyses import ace_value, card_values
from analyses._common import MissingData, require
from scopa_sim import stats, storage
from scopa_sim.cards import ITALIAN_40 as PACK
from scopa_sim.reporting import render_page

DEALS = 20_000
SEVEN_OF_CUPS = PACK.card(1, 7)
ACES = [PACK.card(s, 1) for s in range(4)]
SEVENS = [PACK.card(s, 7) for s in range(4)]
SIXES = [PACK.card(s, 6) for s in range(4)]


def covers(estimate, truth: float) -> bool:
    """``truth`` within two half-widths of the 95 % interval (about four standard errors)."""
    return abs(estimate.value - truth) < 2 * estimate.half_width


def true_value(card: int) -> float:
    if card in ACES:
        return 1.05
    if card == card_values.SETTEBELLO:
        return 1.1
    if card == SEVEN_OF_CUPS:
        return 2.1
    if card in SEVENS:
        return 0.1
    return 0.0


def _side_rows(rng, held: np.ndarray, game: np.ndarray, side: int) -> dict:
    aces, sevens = held[:, ACES].sum(1), held[:, SEVENS].sum(1)
    primiera = (rng.random(len(held)) < 0.1 + 0.05 * aces + 0.1 * sevens).astype(np.int64)
    settebello = held[:, card_values.SETTEBELLO].astype(np.int64)
    noise = rng.integers(0, 2, len(held))
    points = primiera + settebello + aces + 2 * held[:, SEVEN_OF_CUPS] + noise
    mask = (held.astype(np.uint64) << np.arange(PACK.n_cards, dtype=np.uint64)).sum(1)
    zeros = np.zeros(len(held), dtype=np.int64)
    return {
        "run": ["classic-deals"] * len(held),
        "variant": ["classic"] * len(held),
        "game": game,
        "deal": zeros,
        "side": zeros + side,
        "strategy": ["greedy"] * len(held),
        "dealer": (game % 2) != side,  # deal i is led by player i % 2
        "first_dealer": (game % 2) != side,  # a --deals run: each deal is a game of its own
        "cards": held.sum(1),
        "coins": held[:, :10].sum(1),
        "settebello": settebello.astype(bool),
        "primiera": 70 * primiera,
        "scope": noise,
        "captured": mask,
        "pt_cards": zeros,
        "pt_coins": zeros,
        "pt_settebello": settebello,
        "pt_primiera": primiera,
        "pt_scope": noise,
        "pt_re_bello": zeros,
        "pt_napola": zeros,
        "points": points,
        "score": points,
        "final": np.zeros(len(held), dtype=bool),
        "won": np.zeros(len(held), dtype=bool),
        "redeals": zeros,
    }


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    rng = np.random.default_rng(20261129)
    side0 = rng.random((DEALS, PACK.n_cards)) < 0.5
    game = np.arange(DEALS, dtype=np.int64)
    frames = [
        pl.DataFrame(_side_rows(rng, held, game, side)) for side, held in enumerate((side0, ~side0))
    ]
    # columns the analyses do not read (pt_sevens, ...) are 0, as in a classic run
    zero = [pl.lit(0).alias(c) for c in storage.SCHEMA if c not in frames[0].columns]
    frame = (
        pl.concat(frames)
        .with_columns(zero)
        .select(pl.col(name).cast(dtype) for name, dtype in storage.SCHEMA.items())
        .sort("game", "deal", "side")
    )
    folder = root / "classic-deals"
    folder.mkdir()
    half = len(frame) // 2  # two chunks, as a real run has several files
    frame[:half].write_parquet(storage.chunk_path(folder, 0))
    frame[half:].write_parquet(storage.chunk_path(folder, 1))
    config = {
        "name": "classic-deals",
        "mode": "deals",
        "count": DEALS,
        "variant": "classic",
        "variant_label": "classic",
        "players": ["greedy", "greedy"],
        "seed": 20261129,
    }
    storage.write_manifest(folder, {"complete": True, "config": config, "schema_version": 1})
    return root


def _no_external_urls(html: str) -> None:
    # Namespace names (xmlns="http://www.w3.org/2000/svg") are identifiers, never fetched.
    text = re.sub(r'xmlns(:\w+)?="[^"]*"', "", html)
    assert not re.search(r"https?://|//[\w.-]+\.\w+/|@import|url\(\s*['\"]?(?!#)", text)


def test_missing_run_is_reported(tmp_path):
    for module in (ace_value, card_values):
        with pytest.raises(MissingData):
            module.build(tmp_path)


def test_ace_value_recovers_the_known_slopes(data):
    run = require(data, "classic-deals")
    slopes = ace_value.marginal(run)
    won, margin = slopes["won"], slopes["margin"]
    assert covers(won, 0.05), won
    assert covers(margin, 2.1), margin
    assert won.n == 2 * DEALS

    strata = ace_value._contested(ace_value._cell_estimates(ace_value.cells(run)))
    assert len(strata) == ace_value.STRATA_SHOWN
    for stratum, slope in ace_value.per_stratum(run, strata).items():
        assert covers(slope, 0.05), (stratum, slope)

    table = ace_value.cells(run)
    assert table["n"].sum() == 2 * DEALS
    cell = table.filter(sevens=2, sixes=2, aces=2).row(0, named=True)
    est = stats.proportion_ci(cell["wins"], cell["n"])
    assert covers(est, 0.1 + 0.05 * 2 + 0.1 * 2), est


def test_card_values_recovers_the_known_values(data):
    run = require(data, "classic-deals")
    est, deals, total = card_values.fit(run)
    assert deals == total == DEALS
    value = card_values.values(est)
    for card, e in value.items():
        assert covers(e, true_value(card)), (card_values.card_name(card), e)
    assert covers(est["dealer"], 0.0), est["dealer"]
    assert value[card_values.SETTEBELLO].half_width < 0.02  # precise enough to mean something


def test_card_values_uses_a_deterministic_prefix(data):
    run = require(data, "classic-deals")
    est, deals, total = card_values.fit(run, max_deals=5_000)
    assert (deals, total) == (5_000, DEALS)
    again, _, _ = card_values.fit(run, max_deals=5_000)
    assert est == again


@pytest.mark.parametrize("module", [ace_value, card_values], ids=lambda m: m.__name__)
def test_page_renders_offline_and_deterministically(data, module):
    page = module.build(data)
    html = render_page(page)
    assert page.question and page.method and page.finding
    assert re.search(r"\[-?\d", page.finding), "the finding quotes a figure with its CI"
    assert "<svg" in html and "<table>" in html
    assert page.data[0]["run"] == "classic-deals"
    _no_external_urls(html)
    assert render_page(module.build(data)) == html
    assert module.build.__doc__.splitlines()[0].endswith("?")


def test_card_names():
    assert card_values.card_name(card_values.SETTEBELLO) == "settebello"
    assert card_values.card_name(SEVEN_OF_CUPS) == "7 cups"
    assert card_values.card_name(PACK.card(3, 1)) == "ace clubs"
    assert card_values.card_name(PACK.card(2, 10)) == "re swords"
