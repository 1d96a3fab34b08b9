"""``scopa_sim.testing.check_player``: the example players pass it on every preset (the
registered players pass its checks in tests/test_players.py); players that break the contract
(peeking at hidden cards two ways, illegal indices, Python's own random numbers, one row's hand
used for every row, a fused policy that disagrees with act, a bad explain, not a frozen
dataclass) each fail with the message of the rule they break, and ``iter_checks`` gives the same
message in the family of that rule. The example players of docs/players.md load
through the real command line.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from examples.cautious import CautiousPlayer
from examples.compiled_cautious import CompiledCautiousPlayer
from scopa_sim import api
from scopa_sim.players import GreedyPlayer, Player
from scopa_sim.rules import PRESETS, variant
from scopa_sim.testing import (
    CHECKS,
    DEFAULT_OPTIONS,
    CheckReport,
    PlayerCheckError,
    check_player,
    iter_checks,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["examples.cautious:CautiousPlayer", "examples.compiled_cautious:CompiledCautiousPlayer"]
#: A few variants for the players that must fail: 2 players, teams, the 52-card pack.
FEW = ["classic", "classic-4p", "scopa-52"]


# every player passes ----------------------------------------------------------------------------


# The registered players pass check_player on every preset in tests/test_players.py (its
# conformance suite is check_player); here, the example players of docs/players.md: the numpy one
# with the defaults a player author gets (every preset, default rules and forced capture), the
# compiled one, which plays exactly as the numpy one (below), on every preset and with forced
# capture on one preset per capture rule (forced capture changes only the legal actions offered).
FORCED = ["classic", "escoba", "asso-piglia-tutto", "scopa-52-3p"]


@pytest.mark.parametrize(
    ("name", "variants"),
    [(EXAMPLES[0], None), (EXAMPLES[1], [*PRESETS, *(f"{n}:forced_capture=true" for n in FORCED)])],
    ids=EXAMPLES,
)
def test_the_example_players_pass_on_every_preset(name, variants):
    deals = 16
    report = check_player(name, variants, deals=deals)
    assert isinstance(report, CheckReport)
    expected = len(PRESETS) * len(DEFAULT_OPTIONS) if variants is None else len(variants)
    assert len(report.variants) == expected
    assert report.decisions > 20 * deals * expected and report.deals > deals * expected
    assert report.blind and report.pairs > 0 and report.explain
    assert "passed" in str(report) and report.player == name


def test_variants_and_parameters_are_accepted_in_every_form():
    report = check_player(
        CautiousPlayer(margin=3),
        [variant("escoba"), "scopa-52-3p", "classic-6p:fewest_cards=true,last_play_scopa=true"],
        deals=16,
        seed=5,
    )
    assert report.variants == (
        "escoba", "scopa-52-3p", "classic-6p:fewest_cards=true,last_play_scopa=true",
    )  # fmt: skip
    assert check_player("examples.cautious:CautiousPlayer:margin=2", "classic", deals=8).explain


# cheats and bugs fail, each with its own message -------------------------------------------------


def _engine_rows(obs):
    """A cheat's bookkeeping: the engine's hands of every seat (from the frame of the engine's
    ``play_batch`` above ``act``) and, per row of ``obs``, its row there. It finds its rows by
    position, or, for a subset of them, by the hand and table it was given, so that it keeps every
    other rule of the contract and only the hidden-card check can catch it."""
    frame = sys._getframe(1)
    while frame is not None and not {"hands", "live", "table"} <= frame.f_locals.keys():
        frame = frame.f_back
    assert frame is not None, "no play_batch frame above act: update this cheat to the engine"
    live = frame.f_locals["live"]
    hands, table = frame.f_locals["hands"][:, live], frame.f_locals["table"][live]
    if len(live) == len(obs.hand) and np.array_equal(hands[obs.seat], obs.hand):
        return hands, np.arange(len(live))
    rows = [
        np.flatnonzero((hands[obs.seat] == h) & (table == t))[0]
        for h, t in zip(obs.hand, obs.table, strict=True)
    ]
    return hands, np.array(rows, np.int64)


def _first_rank_missing(v, legal, held_masks) -> np.ndarray:
    """Per row: the first legal action whose card's rank is not in the row's ``held_masks``."""
    ranks = v.pack.ranks
    out = np.zeros(len(legal.count), np.int64)
    for b, mask in enumerate(held_masks):
        held = {c % ranks for c in range(v.pack.n_cards) if int(mask) >> c & 1}
        for k in range(legal.count[b]):
            if legal.card[b, k] % ranks not in held:
                out[b] = k
                break
    return out


@dataclass(frozen=True)
class FramePeeker(Player):
    """Reads the next player's hand from the engine's frame, and lays a card it cannot match."""

    name = "frame-peeker"

    def act(self, obs, legal, rng):
        hands, rows = _engine_rows(obs)
        following = hands[(obs.seat + 1) % obs.variant.n_players][rows]
        return _first_rank_missing(obs.variant, legal, following)


_SEEN: dict[tuple[int, int], int] = {}


@dataclass(frozen=True)
class Rememberer(Player):
    """In self-play it plays every seat: it remembers each seat's hand (keyed by the cards in
    sight) and uses the previous seat's when it plays the next one."""

    name = "rememberer"

    def act(self, obs, legal, rng):
        seen = obs.table | np.bitwise_or.reduce(obs.captured, axis=1) | obs.played
        previous = []
        for b in range(len(obs.hand)):
            _SEEN[(obs.play, int(seen[b]))] = int(obs.hand[b])
            held = 0
            for c in range(obs.variant.pack.n_cards):
                found = _SEEN.get((obs.play - 1, int(seen[b]) & ~(1 << c)))
                if int(obs.played[b]) >> c & 1 and found is not None:
                    held = found & ~(1 << c)
                    break
            previous.append(held)
        return _first_rank_missing(obs.variant, legal, previous)


@dataclass(frozen=True)
class OnePastTheEnd(Player):
    name = "one-past-the-end"

    def act(self, obs, legal, rng):
        return np.where(legal.count > 2, legal.count, 0).astype(np.int64)


@dataclass(frozen=True)
class PythonRandom(Player):
    name = "python-random"

    def act(self, obs, legal, rng):
        return np.array([random.randrange(n) for n in legal.count], np.int64)


@dataclass(frozen=True)
class RowZero(Player):
    """Plays the lowest card of row 0's hand wherever it holds it: the batch leaks into rows."""

    name = "row-zero"

    def act(self, obs, legal, rng):
        lowest = (int(obs.hand[0]) & -int(obs.hand[0])).bit_length() - 1
        first = np.argmax(legal.card == lowest, axis=1)
        return np.where((legal.card == lowest).any(axis=1), first, 0).astype(np.int64)


@dataclass(frozen=True)
class RowZeroInGames(RowZero):
    """Row zero's leak once a game has scores (after its first deal): only whole games show it."""

    name = "row-zero-in-games"

    def act(self, obs, legal, rng):
        leaked = super().act(obs, legal, rng)
        return np.where(obs.scores.any(axis=1), leaked, 0).astype(np.int64)


@dataclass(frozen=True)
class ReturnsAList(Player):
    name = "returns-a-list"

    def act(self, obs, legal, rng):
        return [0] * len(legal.count)


@dataclass(frozen=True)
class Raises(Player):
    name = "raises"

    def act(self, obs, legal, rng):
        raise KeyError("oops")


@dataclass(frozen=True)
class LaysHighest(GreedyPlayer):
    """Changes greedy's act but keeps its fused_policy: the fused engine would still play greedy."""

    name = "lays-highest"

    def act(self, obs, legal, rng):
        return np.maximum(legal.count - 1, 0)


@dataclass(frozen=True)
class BadExplain(CautiousPlayer):
    name = "bad-explain"

    def explain(self, obs, legal):
        return np.zeros((len(legal.count), legal.card.shape[1] + 1))


@dataclass(frozen=True)
class ListParameter(Player):
    name = "list-parameter"
    weights: list = dataclasses.field(default_factory=list)

    def act(self, obs, legal, rng):
        return np.zeros(len(legal.count), np.int64)


class NotAPlayer:
    name = "not-a-player"

    def act(self, obs, legal, rng):
        return np.zeros(len(legal.count), np.int64)


@pytest.mark.parametrize(
    ("cheat", "message"),
    [
        (FramePeeker(), "sees hidden cards"),
        (Rememberer(), "sees hidden cards"),
        (OnePastTheEnd(), "chose an illegal action"),
        (PythonRandom(), "is not deterministic"),
        (RowZero(), "depends on the other rows of the batch"),
        (RowZeroInGames(), "depends on the batch size or on the other games of its batch"),
        (ReturnsAList(), "must return a numpy integer array"),
        (Raises(), "act raised KeyError"),
        (BadExplain(), "explain must return one value per row and slot"),
        (ListParameter(), "is not hashable"),
        (NotAPlayer(), "is not a scopa_sim player"),
    ],
    ids=lambda x: x if isinstance(x, str) else x.name,
)
def test_players_that_break_the_contract_fail_with_the_rule_they_break(cheat, message):
    with pytest.raises(PlayerCheckError, match=message) as caught:
        check_player(cheat, FEW, deals=16)
    assert isinstance(caught.value, AssertionError)  # reads as a failed assertion in pytest
    text = str(caught.value)
    assert cheat.name in text and "\n" not in text


def test_a_fused_policy_that_disagrees_with_act_fails():
    if not LaysHighest().fused_policy or "path" not in inspect.signature(api.play_deals).parameters:
        pytest.skip("this engine has no fused path")
    with pytest.raises(PlayerCheckError, match=r"fused row policy .* does not choose what act"):
        check_player(LaysHighest(), FEW, deals=16)


def test_the_hidden_card_message_names_the_seat_the_play_and_the_hand():
    with pytest.raises(PlayerCheckError) as caught:
        check_player(FramePeeker(), ["scopa-52"], deals=16)
    text = str(caught.value)
    assert "in scopa-52, two deals identical in everything seat" in text
    assert "its own hand" in text and "differ only in cards hidden from it" in text


@dataclass(frozen=True)
class Dice(Player):
    """Plays a uniformly random legal action; explains with the same draw (explain takes rng)."""

    name = "dice"

    def act(self, obs, legal, rng):
        return np.minimum((rng.random() * legal.count).astype(np.int64), legal.count - 1)

    def explain(self, obs, legal, rng):
        values = np.where(np.arange(legal.card.shape[1]) < legal.count[:, None], 0.0, np.nan)
        values[np.arange(len(legal.count)), self.act(obs, legal, rng)] = 1.0
        return values


def test_an_explain_that_takes_rng_is_checked_with_the_numbers_act_got():
    assert check_player(Dice(), FEW, deals=24).explain  # batch-independent only if it is so


@dataclass(frozen=True)
class DeclaredPeeker(FramePeeker):
    """The frame peeker, declared as a player that sees the hidden cards (an upper bound)."""

    name = "declared-peeker"
    sees_hidden_cards: ClassVar[bool] = True


def test_a_player_that_declares_it_sees_hidden_cards_is_not_checked_for_blindness():
    # Checked for blindness, it would fail (the frame peeker is caught on these variants with 8
    # deals); tests/test_players.py asserts report.blind for every registered player.
    report = check_player(DeclaredPeeker(), FEW, deals=8)
    assert report.blind is False and report.pairs == 0
    assert "sees hidden cards by declaration: blindness not checked" in str(report)


# iter_checks: check_player one family at a time -------------------------------------------------

#: The family of checks in which each player that breaks the contract fails.
FAILS_IN = {
    "frame-peeker": "hidden_cards", "one-past-the-end": "decisions", "row-zero": "decisions",
    "bad-explain": "decisions", "not-a-player": "frozen_dataclass", "lays-highest": "fused_path",
}  # fmt: skip


def test_iter_checks_yields_the_families_that_apply_in_order():
    def names(p):
        return [name for name, _ in iter_checks(p, "classic")]

    assert names("greedy") == list(CHECKS)
    assert names(CautiousPlayer()) == ["frozen_dataclass", "decisions", "runs", "hidden_cards"]
    assert names(DeclaredPeeker()) == ["frozen_dataclass", "decisions", "runs"]
    with pytest.raises(ValueError, match="deals must be"):
        dict(iter_checks("greedy", deals=2))


@pytest.mark.parametrize(
    "cheat",
    [FramePeeker(), OnePastTheEnd(), RowZero(), BadExplain(), NotAPlayer(), LaysHighest()],
    ids=lambda p: p.name,
)
def test_iter_checks_fails_in_the_family_of_the_rule_with_check_players_message(cheat):
    """The families before the broken rule's pass, and its family fails with the message of
    check_player; the fused-path check gives it also when it runs alone (without the lockstep
    runs of the decision check)."""
    with pytest.raises(PlayerCheckError) as whole:
        check_player(cheat, FEW, deals=16)
    family = FAILS_IN[cheat.name]
    checks = dict(iter_checks(cheat, FEW, deals=16))
    for name in list(checks)[: list(checks).index(family)]:
        checks[name]()
    with pytest.raises(PlayerCheckError) as caught:
        checks[family]()
    assert str(caught.value) == str(whole.value)
    if family == "fused_path":
        with pytest.raises(PlayerCheckError) as alone:
            dict(iter_checks(cheat, FEW, deals=16))[family]()
        assert str(alone.value) == str(whole.value)


def test_iter_checks_in_any_order_check_what_check_player_checks():
    """Run last to first (each run check plays its own lockstep runs), the checks pass and
    count what check_player's report counts."""
    report = check_player(Dice(), FEW[:2], deals=8)
    counts = {
        name: check() for name, check in reversed(list(iter_checks(Dice(), FEW[:2], deals=8)))
    }
    assert counts == {
        "hidden_cards": report.pairs, "runs": report.deals, "decisions": report.decisions,
        "frozen_dataclass": 1,
    }  # fmt: skip


# the example players -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "escoba", "asso-piglia-tutto", "scopa-52-3p"])
def test_the_compiled_example_plays_exactly_as_the_numpy_one(name):
    v = variant(name, forced_capture=name == "escoba")
    for margin in (0, 2):
        outcomes = [
            api.play_deals(v, [p] + ["random"] * (v.n_sides - 1), deals=600, seed=11)
            for p in (CautiousPlayer(margin=margin), CompiledCautiousPlayer(margin=margin))
        ]
        for field in dataclasses.fields(outcomes[0]):
            np.testing.assert_array_equal(
                getattr(outcomes[0], field.name), getattr(outcomes[1], field.name)
            )


def test_cautious_captures_when_it_can_and_lays_to_keep_the_table_out_of_reach():
    v = variant("classic")
    rng = random.Random(4)
    packs = [rng.sample(range(40), 40) for _ in range(60)]
    checked = {"capture": 0, "safe lay": 0}
    for record in api.play_packs(v, ["examples.cautious:CautiousPlayer", "random"], packs):
        table = set(record.pack[:4])
        for move, legal in zip(record.moves, record.legal, strict=True):
            if record.seat_sides[move.seat] == 0:
                if any(taken for _, taken in legal):
                    assert move.captured, "cautious laid a card although it could capture"
                    checked["capture"] += 1
                else:
                    total = sum(c % 10 + 1 for c in table)
                    safe = [c for c, _ in legal if total + c % 10 + 1 > 10]
                    if safe:
                        assert move.card in safe, "cautious left the table within reach"
                        checked["safe lay"] += 1
            if move.captured:
                table -= set(move.captured)
            else:
                table.add(move.card)
    assert min(checked.values()) > 20, checked


# the command line loads the examples by import path --------------------------------------------


def run_cli(*args: str, env_path: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if env_path:
        env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [*args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.parametrize("spec", ["examples.cautious:CautiousPlayer", f"{EXAMPLES[1]}:margin=2"])
def test_the_real_command_line_plays_the_examples(tmp_path, spec):
    script = Path(sys.executable).with_name("scopa-sim")
    out = tmp_path / "run"
    proc = run_cli(
        str(script), "simulate", "--variant", "classic", "--players", f"{spec},greedy",
        "--deals", "2000", "--seed", "3", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert sorted(out.glob("*.parquet")) and "2,000 deals" in proc.stdout + proc.stderr
    import polars as pl

    frame = pl.read_parquet(out / "*.parquet")
    assert frame.height == 4000 and spec in frame["strategy"].unique().to_list()


def test_python_m_loads_the_examples_from_the_current_folder(tmp_path):
    proc = run_cli(
        sys.executable, "-m", "scopa_sim", "simulate", "--variant", "scopa-52", "--players",
        "examples.cautious:CautiousPlayer,greedy", "--deals", "300", "--seed", "3",
        "--out", str(tmp_path / "run"), "--no-progress", env_path=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
