"""Players: one conformance suite for every registered player, and the documented behaviour of
the greedy and random players.

The conformance suite runs each player of ``scopa_sim.players.PLAYERS`` through the checks of
``scopa_sim.testing.check_player``, one test per family (``iter_checks``), on every preset (and
with forced capture on one preset per capture rule, and a few other option sets) against the
contract of ``scopa_sim/contract.py``: ``act`` returns one legal index per row, is deterministic
and does not depend on which other rows share the batch; whole runs do not depend on the batch
size; a player cannot see hidden cards (unless it declares ``sees_hidden_cards``); a fused row
policy plays as act; players are frozen. Every player also plays the decision points of random
reference deals. Search players (a ``samples`` parameter) are run with 2 samples and on fewer
deals: the contract does not depend on the sample count, and each of their decisions costs
thousands of rollouts. (tests/test_testing.py checks that check_player catches the players that
break the contract.)

The greedy player's documented behaviour is checked on explicit packs, under each capture rule
(classic, escoba, asso piglia tutto, the 52-card pack) and each scoring.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter, defaultdict
from functools import cache

import numpy as np
import pytest

from scopa_sim import api, seeding
from scopa_sim.cards import ITALIAN_40, mask_of
from scopa_sim.engine import reference
from scopa_sim.players import PLAYERS, LegalActions, Observation, Player, player
from scopa_sim.rules import PRESETS, variant
from scopa_sim.testing import iter_checks

OPTION_SETS = {
    "default": {},
    "forced": {"forced_capture": True},
    "fewest-last-scopa": {"fewest_cards": True, "last_play_scopa": True},
}
#: Every preset with its default rules, and a few presets with each other option set.
RULE_CASES = [pytest.param(name, "default", id=f"{name}-default") for name in PRESETS] + [
    pytest.param(name, label, id=f"{name}-{label}")
    for name, label in (
        ("classic", "forced"), ("classic-4p", "fewest-last-scopa"), ("escoba", "forced"),
        ("asso-piglia-tutto", "fewest-last-scopa"), ("scopa-52-3p", "forced"),
        ("scopone-scientifico", "fewest-last-scopa"),
    )
]  # fmt: skip
PLAYER_NAMES = sorted(PLAYERS)
#: Players that are handed the hidden cards (upper bounds), and search players.
SEEING = {name for name, p in PLAYERS.items() if getattr(p, "sees_hidden_cards", False)}
SEARCH = {name for name, p in PLAYERS.items() if hasattr(p, "samples") or hasattr(p, "iterations")}


def budget(name: str, fused: int, lockstep: int, search: int) -> int:
    """How many deals (or games) a check plays with player ``name``: players with a compiled
    (fused) row policy are cheap, the others pay a Python call per play, search players
    thousands of rollouts per decision."""
    if name in SEARCH:
        return search
    return fused if PLAYERS[name].fused_policy is not None else lockstep


def conformance_player(name: str) -> Player:
    """The registered player; a search player with at most 2 samples (4 tree iterations)."""
    p = PLAYERS[name]
    if hasattr(p, "iterations"):
        return dataclasses.replace(p, iterations=min(p.iterations, 4))
    return dataclasses.replace(p, samples=2) if name in SEARCH and p.samples > 2 else p


def rules(name: str, label: str):
    return variant(name, **OPTION_SETS[label])


def lineup(v, name: str) -> list[Player]:
    return [conformance_player(name)] * v.n_sides


# Decision points built from the reference engine ----------------------------------------------


@dataclasses.dataclass(frozen=True)
class Point:
    """One decision point of a reference deal: the view and legal actions the reference gives,
    and the public scope and last capturer, the pack and every seat's hand (for the
    observation's optional fields)."""

    view: reference.View
    legal: list
    scope: tuple[int, ...]
    last_capturer: int
    pack: tuple[int, ...]
    hands: tuple[int, ...]  # masks, seats in play order


def _hands_at(v, pack, play, played) -> tuple[int, ...]:
    """Every seat's hand at ``play``: the blocks dealt so far (docs/rules.md §2) less the cards
    played."""
    hands = [0] * v.n_players
    position, first = v.table_cards, 0
    for size in v.hands:
        if play < first:
            break
        for seat in range(v.n_players):
            hands[seat] |= mask_of(pack[position : position + size])
            position += size
        first += v.n_players * size
    return tuple(h & ~mask_of(played) for h in hands)


@cache
def decision_points(name: str, label: str, n_deals: int = 60, seed: int = 5):
    """Real decision points per play index, from random reference deals."""
    v = rules(name, label)
    rng = random.Random(seed)
    by_play: dict[int, list[Point]] = {}
    n = v.pack.n_cards
    dealer = v.side_of_seat(v.n_players - 1)
    for _ in range(n_deals):
        pack = rng.sample(range(n), n)
        state = {"scope": [0] * v.n_sides, "last": -1, "previous": None}
        opening = reference.opening_sweeps(v, pack[: v.table_cards])
        if opening:
            state["scope"][dealer], state["last"] = opening, dealer

        def choose(view, legal, pack=pack, state=state):
            if state["previous"] is not None:  # the previous play's capture and scopa
                seat, played, taken = state["previous"]
                if taken:
                    state["last"] = v.side_of_seat(seat)
                    ace = reference.is_ace_sweep(v, played, taken) and not v.ace_sweep_scopa
                    state["scope"][v.side_of_seat(seat)] += not view.table and not ace
            point = Point(
                view, legal, tuple(state["scope"]), state["last"], tuple(pack),
                _hands_at(v, pack, view.play, view.played),
            )  # fmt: skip
            by_play.setdefault(view.play, []).append(point)
            action = rng.choice(legal)
            state["previous"] = (view.seat, *action)
            return action

        reference.play_deal(v, pack, choose)
    return v, by_play


def build(cls, **values):
    """An instance of a contract dataclass by field name (fails clearly if the contract grew a
    required field; optional ones keep their defaults)."""
    names = {f.name for f in dataclasses.fields(cls)}
    required = {f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}
    missing = required - values.keys()
    if missing:
        pytest.fail(f"{cls.__name__} has fields this test does not fill: {sorted(missing)}")
    return cls(**{k: v for k, v in values.items() if k in names})


def batch(v, points) -> tuple[Observation, LegalActions]:
    """The contract's padded arrays for a list of decision points of one play index."""
    rows = len(points)
    width = max(len(point.legal) for point in points)
    card = np.full((rows, width), -1, np.int8)
    capture = np.zeros((rows, width), np.uint64)
    group = np.full((rows, width), -1, np.int8)
    count = np.zeros(rows, np.int64)
    n_cards = np.zeros(rows, np.int64)
    for b, point in enumerate(points):
        groups: list[int] = []
        for k, (c, taken) in enumerate(point.legal):
            if not groups or groups[-1] != c:
                groups.append(c)
            card[b, k], capture[b, k], group[b, k] = c, mask_of(taken), len(groups) - 1
        count[b], n_cards[b] = len(point.legal), len(groups)
    views = [point.view for point in points]
    seat, play = views[0].seat, views[0].play
    assert all(w.seat == seat and w.play == play for w in views)
    obs = build(
        Observation,
        variant=v,
        hand=np.array([mask_of(w.hand) for w in views], np.uint64),
        table=np.array([mask_of(w.table) for w in views], np.uint64),
        captured=np.array([[mask_of(c) for c in w.captured] for w in views], np.uint64),
        played=np.array([mask_of(w.played) for w in views], np.uint64),
        scores=np.zeros((rows, v.n_sides), np.int16),
        seat=seat,
        side=np.full(rows, v.side_of_seat(seat), np.int8),
        dealer_side=np.full(rows, v.side_of_seat(v.n_players - 1), np.int8),
        play=play,
        scope=np.array([point.scope for point in points], np.int16),
        last_capturer=np.array([point.last_capturer for point in points], np.int8),
        hidden_hands=np.array([point.hands for point in points], np.uint64),
        hidden_pack=np.array([point.pack for point in points], np.int8),
    )
    legal = build(
        LegalActions, card=card, capture=capture, group=group, count=count, n_cards=n_cards
    )
    return obs, legal


@cache
def decision_batches(name: str, label: str, search: bool, seeing: bool) -> tuple:
    """(play, obs, legal) for every play index of ``decision_points(name, label, 24)``: the first
    4 points of each for a search player, the hidden cards only for a player that sees them.
    Built once per process and shared by the players (the arrays are read-only)."""
    v, by_play = decision_points(name, label, 24)
    out = []
    for play, points in sorted(by_play.items()):
        obs, legal = batch(v, points[:4] if search else points)
        if not seeing:
            obs = dataclasses.replace(obs, hidden_hands=None, hidden_pack=None)
        out.append((play, obs, legal))
    return tuple(out)


def decision_random(rows: int, play: int, seed: int = 3) -> seeding.DecisionRandom:
    """The generator of play ``play`` of deals 0 of games 0 .. rows - 1 of a run."""
    key = seeding.stream_key(seed, seeding.PLAYERS)
    game, deal = np.arange(rows, dtype=np.int64), np.zeros(rows, np.int64)
    return seeding.DecisionRandom(seeding.deal_keys(key, game, deal), play)


# Conformance: every player x every preset x option sets ---------------------------------------
#
# The contract is checked once per player and rule case, by the checks of
# scopa_sim.testing.check_player, one test per family of checks (iter_checks; check_player is the
# function player authors run, so it is tested on every registered player here rather than
# a second time in tests/test_testing.py): legal integer indices, determinism, independence of
# the batch (rows, batch sizes, sub-ranges, games), blindness to hidden cards, the fused row
# policy against act, and explain. Its run and hidden-card checks replace this file's own copies
# of them (deterministic and batch-size invariant runs; packs with the hidden cards rearranged):
# check_player plays the same lineups (the player everywhere, and on side 0 against random),
# with the same comparisons and a stricter hidden-card rule (the first differing move must be
# made by a seat whose own hand differs). What is left here is what check_player does not do:
# decision points from random reference deals (states the player's own play may never reach),
# built by this file from the reference engine rather than by the batch engine.


#: Forced capture under check_player: one preset per capture rule (match or sum, fifteen, the ace
#: that takes all) and the 52-card pack. Forced capture changes only which legal actions a player
#: is offered, whatever the number of players or the hands; every player also meets it on the
#: reference decision points of every forced rule case below, and the engines play it with 2, 3,
#: 4 and 6 players and both packs in tests/test_fused.py and tests/test_agreement.py.
FORCED_PRESETS = ("classic", "escoba", "asso-piglia-tutto", "scopa-52-3p")


def contract_cases() -> list:
    """(player, preset, option label) for check_player: every player on every preset with the
    default rules; non-search players also with forced capture on FORCED_PRESETS and with the
    fewest-cards/last-play-scopa set on three presets; search players with two option sets."""
    cases = []
    for who in PLAYER_NAMES:
        cases += [(who, name, "default") for name in PRESETS]
        extra = (
            [("classic", "forced"), ("scopone-scientifico", "fewest-last-scopa")]
            if who in SEARCH
            else [(n, "forced") for n in FORCED_PRESETS]
            + [(n, "fewest-last-scopa")
               for n in ("classic-4p", "asso-piglia-tutto", "scopone-scientifico")]
        )  # fmt: skip
        cases += [(who, name, label) for name, label in extra]
    return [pytest.param(*c, id=f"{c[0]}-{c[1]}-{c[2]}") for c in cases]


def contract_checks() -> list:
    """(check,) for every case of :func:`contract_cases` and every family of checks that
    iter_checks yields for the player: one test per player, rule case and family. A case's
    families run in order on one worker (its xdist group), so the run checks reuse the
    decision check's lockstep runs: together they play what check_player plays."""
    out = []
    for case in contract_cases():
        who, name, label = case.values
        checks = iter_checks(
            conformance_player(who), [rules(name, label)], deals=budget(who, 32, 32, 4), seed=2024
        )
        out += [
            pytest.param(check, id=f"{case.id}-{family}", marks=pytest.mark.xdist_group(case.id))
            for family, check in checks
        ]
    return out


@pytest.mark.parametrize("check", contract_checks())
def test_every_player_keeps_the_contract_on_every_preset(check):
    assert check() > 0  # decision points, deals or pairs of packs checked


@pytest.mark.parametrize("who", PLAYER_NAMES)
def test_every_player_gets_the_checks_its_declarations_call_for(who):
    """No hidden-card check for a player that sees the hidden cards, a fused-path check for
    every player with a fused row policy."""
    names = [family for family, _ in iter_checks(conformance_player(who), "classic")]
    assert ("hidden_cards" in names) == (who not in SEEING)
    assert ("fused_path" in names) == (PLAYERS[who].fused_policy is not None)
    assert {"frozen_dataclass", "decisions", "runs"} <= set(names)


@pytest.mark.parametrize("who", PLAYER_NAMES)
@pytest.mark.parametrize(("name", "label"), RULE_CASES)
def test_act_returns_one_legal_index_per_row(who, name, label):
    """On decision points of random reference deals (not of the player's own play): one legal
    integer index per row, deterministic, independent of the other rows. Search players get
    the first 4 points of each play index (each decision costs them thousands of rollouts)."""
    p = conformance_player(who)
    for play, obs, legal in decision_batches(name, label, who in SEARCH, who in SEEING):
        rows = len(legal.count)
        choice = p.act(obs, legal, decision_random(rows, play))
        assert isinstance(choice, np.ndarray) and np.issubdtype(choice.dtype, np.integer)
        assert choice.shape == (rows,)
        assert ((choice >= 0) & (choice < legal.count)).all(), f"illegal index at play {play}"
        # Deterministic for the same seed and decision points.
        again = p.act(obs, legal, decision_random(rows, play))
        np.testing.assert_array_equal(choice, again)
        # A row's choice does not depend on the other rows of the batch.
        subset = np.arange(rows)[::3][::-1]
        part = p.act(
            obs.take(subset), legal.take(subset), decision_random(rows, play).subset(subset)
        )
        np.testing.assert_array_equal(part, choice[subset])


@pytest.mark.parametrize("who", PLAYER_NAMES)
def test_players_are_frozen_and_registered(who):
    p = player(who)
    assert (who in SEEING) == p.sees_hidden_cards
    assert isinstance(p, Player) and p is PLAYERS[who] and p.name == who
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.anything = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.name = "other"
    hash(p)  # frozen dataclasses are hashable: usable as keys by the engine and reports


# The greedy player: documented behaviour on explicit packs --------------------------------------

CARD = ITALIAN_40.parse


def make_pack(table, *hands) -> list[int]:
    """A pack in canonical order: the table, then seats' first hands, then every other card."""
    front = [CARD(c) for c in (*table, *(c for h in hands for c in h))]
    assert len(set(front)) == len(front)
    return front + [c for c in range(40) if c not in front]


def greedy_moves(pack, **options):
    record = api.play_packs(variant("classic", **options), ["greedy", "greedy"], [pack])[0]
    assert not record.throw_in
    return record.moves


def move(card, *captured):
    return CARD(card), tuple(sorted(CARD(c) for c in captured))


@pytest.mark.parametrize(
    ("table", "hand", "expected", "why"),
    [
        (("AC", "2C", "3S", "4B"), ("RC", "7D", "FB"), move("RC", "AC", "2C", "3S", "4B"),
         "a scopa above all, even above the settebello"),
        (("7D", "7C", "3S", "FB"), ("7B", "RS", "2C"), move("7B", "7D"),
         "the settebello: a seven takes the seven of coins rather than another seven"),
        (("4C", "3S", "CC", "CB"), ("7B", "7D", "FB"), move("7D", "4C", "3S"),
         "the settebello: the same capture is made with the seven of coins"),
        (("7C", "6S", "FB", "CC"), ("7B", "6B", "RS"), move("7B", "7C"),
         "sevens above sixes"),
        (("6C", "AS", "FB", "CC"), ("6B", "AB", "3S"), move("6B", "6C"),
         "sixes above aces"),
        (("AC", "4D", "FB", "CC"), ("AB", "4S", "3S"), move("AB", "AC"),
         "aces above coins"),
        (("4D", "2C", "3S", "FB"), ("4S", "5B", "RC"), move("4S", "4D"),
         "coins above number of cards"),
        (("2C", "3S", "5B", "CC"), ("5S", "FS", "4B"), move("FS", "3S", "5B"),
         "more cards when nothing else differs"),
        (("FC", "CS", "FB", "CD"), ("RB", "7C", "AS"), move("RB"),
         "no capture: lays its least valuable card"),
    ],
)  # fmt: skip
def test_greedy_first_move(table, hand, expected, why):
    first = greedy_moves(make_pack(table, hand))[0]
    assert (first.card, first.captured) == expected, why
    # The settebello and scopa flags follow from the capture.
    assert first.scopa == (why.startswith("a scopa"))


@pytest.mark.parametrize(
    ("second_hand", "expected", "why"),
    [
        (("2B", "3C", "7S"), "7S", "lays a card that keeps the table out of reach of a sweep"),
        (("2B", "3C", "5C"), "2B", "every lay leaves the table sweepable: the least valuable"),
    ],
)
def test_greedy_lay_avoids_leaving_the_table_sweepable(second_hand, expected, why):
    # Seat 0 takes 2+3+5 with its king (its aces cannot capture), leaving the 4 of clubs alone.
    pack = make_pack(("2C", "3S", "5B", "4B"), ("RC", "AS", "AB"), second_hand)
    first, second = greedy_moves(pack)[:2]
    assert (first.card, first.captured) == move("RC", "2C", "3S", "5B")
    assert (second.card, second.captured) == move(expected), why


def recorded_decisions(v, record):
    """(play, table, legal actions, chosen action) of every play of a recorded deal: the legal
    actions the engine offered (``DealRecord.legal``, as (card, frozenset) pairs) and the table
    before the play, followed from the pack and the moves (escoba's opening escobas take the
    whole opening table). Every capture takes cards on the table, and the move's scopa flag is
    set exactly when it clears it (where a scopa counts)."""
    table = set() if record.opening else set(record.pack[: v.table_cards])
    out = []
    for play, (m, offered) in enumerate(zip(record.moves, record.legal, strict=True)):
        legal = [(c, frozenset(t)) for c, t in offered]
        action = (m.card, frozenset(m.captured))
        assert action in legal
        out.append((play, frozenset(table), legal, action))
        if m.captured:
            assert set(m.captured) <= table, f"play {play} takes cards not on the table"
            table -= set(m.captured)
            counts = play < v.plays - 1 or v.last_play_scopa
            ace = reference.is_ace_sweep(v, m.card, m.captured) and not v.ace_sweep_scopa
            assert m.scopa == (counts and not table and not ace), f"scopa flag at play {play}"
        else:
            assert not m.scopa
            table.add(m.card)
    return out


@pytest.mark.parametrize(("name", "label"), RULE_CASES)
def test_greedy_captures_when_it_can_and_prefers_scopa_then_settebello(name, label):
    v = rules(name, label)
    rng = random.Random(31)
    n = v.pack.n_cards
    packs = [rng.sample(range(n), n) for _ in range(150)]
    seen = Counter()
    for record in api.play_packs(v, lineup(v, "greedy"), packs, seed=4):
        if record.throw_in:
            continue
        for play, table, legal, (card, taken) in recorded_decisions(v, record):
            last = play == v.plays - 1
            if any(t for _, t in legal):
                assert taken, "greedy laid a card although it could capture"
                seen["capture"] += 1
            scopa_counts = not last or v.last_play_scopa

            def is_scopa(c, t, table=table, scopa_counts=scopa_counts):
                # An ace's sweep in asso piglia tutto is a scopa only with ace_sweep_scopa.
                ace_sweep = reference.is_ace_sweep(v, c, t) and not v.ace_sweep_scopa
                return scopa_counts and bool(t) and t == table and not ace_sweep

            if any(is_scopa(c, t) for c, t in legal):
                assert is_scopa(card, taken), "greedy missed a scopa"
                seen["scopa"] += 1
            elif any(t and v.settebello in t | {c} for c, t in legal):
                assert v.settebello in taken | {card}, "greedy missed the settebello"
                seen["settebello"] += 1
    assert min(seen["capture"], seen["scopa"], seen["settebello"]) > 0, seen


# The greedy player under each capture rule and scoring ----------------------------------------


def first_moves(name: str, table, *hands, **options):
    """The greedy players' moves of a deal of preset ``name`` whose pack starts with ``table``
    and the first hands ``hands`` (card codes of the preset's pack), in canonical order."""
    v = variant(name, **options)
    parse = v.pack.parse
    front = [parse(c) for c in (*table, *(c for h in hands for c in h))]
    assert len(set(front)) == len(front)
    pack = front + [c for c in range(v.pack.n_cards) if c not in front]
    (record,) = api.play_packs(v, lineup(v, "greedy"), [pack])
    assert not record.throw_in and record.opening == 0
    return [(v.pack.code(m.card), sorted(v.pack.code(c) for c in m.captured)) for m in
            record.moves]  # fmt: skip


def test_greedy_lays_under_the_escoba_rule():
    """Escoba: a lay that leaves the table worth 5 to 14 (one card makes 15 with all of it) is
    open to an escoba and avoided when another lay exists. Table AD AC AS RB (13); seat 0 holds
    AB, 6S, 7C, none of which captures: AB (its least valuable card) would leave 14, open; 6S
    leaves 19, closed, and is laid. When every lay is open, the least valuable is laid."""
    moves = first_moves("escoba", ("AD", "AC", "AS", "RB"), ("AB", "6S", "7C"))
    assert moves[0] == ("6S", [])
    # Table AD AC AS 2D (5): every lay (up to 9) leaves 6..14, all open: the least valuable.
    moves = first_moves("escoba", ("AD", "AC", "AS", "2D"), ("FB", "CB", "6S"))
    assert moves[0] == ("FB", [])  # 8 and 9 are both worth 10; the lower card id


def test_greedy_lays_under_the_asso_piglia_tutto_rule():
    """Asso piglia tutto: a lay that leaves no ace on the table is open (the next ace takes it
    all), whatever the table adds up to. Seat 0's F takes AD 3D 4C, leaving 2S. The dealer
    holds FB, CB, 3B (no capture): in classic FB leaves 10 (open to a king) and CB 11 (closed),
    so it lays CB; in asso piglia tutto both leave no ace, both are open, and it lays the least
    valuable (FB and CB tie; the lower card id)."""
    table, seat0, dealer = ("AD", "3D", "4C", "2S"), ("FD", "FC", "FS"), ("FB", "CB", "3B")
    classic = first_moves("classic", table, seat0, dealer)
    asso = first_moves("asso-piglia-tutto", table, seat0, dealer)
    assert classic[0] == asso[0] == ("FD", ["3D", "4C", "AD"])
    assert classic[1] == ("CB", [])
    assert asso[1] == ("FB", [])


def test_greedy_lays_under_the_52_card_rule():
    """scopa-52: the whole table is within one card's reach up to 13 (J 11, Q 12, K 13), not 10.
    Table AH AD AS AC (4); seat 0 holds 9S, 10S, KS, none of which captures: 9S would leave 13,
    open in this pack (closed in the Italian one), so it lays 10S (14, closed; 10S and KS are
    worth nothing: the lower card id)."""
    moves = first_moves("scopa-52", ("AH", "AD", "AS", "AC"), ("9S", "10S", "KS"))
    assert moves[0] == ("10S", [])
    moves = first_moves("scopa-52", ("AH", "AD", "AS", "AC"), ("8S", "9S", "JS"))
    assert moves[0] == ("JS", [])  # 12 and 13 open, 15 closed


@pytest.mark.parametrize(
    ("name", "table", "hand", "expected", "why"),
    [
        ("scopa-52", ("6S", "4H", "QC", "JD"), ("6C", "4D", "2C"), ("4D", ["4H"]),
         "scopa-52: a heart (its coins) above a six, which scores nothing there"),
        ("classic", ("6S", "4D", "CC", "FD"), ("6C", "4S", "2C"), ("6C", ["6S"]),
         "classic: a six (primiera) above a coin"),
        ("scopa-52", ("AS", "5H", "QC", "JD"), ("AC", "5D", "2C"), ("5D", ["5H"]),
         "scopa-52: a heart above an ace, which scores nothing there"),
        ("classic", ("AS", "5D", "CC", "FD"), ("AC", "5S", "2C"), ("AC", ["AS"]),
         "classic: an ace (primiera) above a coin"),
        ("scopa-52", ("7S", "4H", "QC", "JD"), ("7C", "4D", "2C"), ("7C", ["7S"]),
         "scopa-52: a seven (most sevens) above a heart"),
        ("scopa-52", ("7D", "7H", "QC", "JD"), ("7C", "2C", "3C"), ("7C", ["7H"]),
         "scopa-52: the seven of hearts is its settebello"),
    ],
)  # fmt: skip
def test_greedy_capture_values_follow_the_scoring(name, table, hand, expected, why):
    assert first_moves(name, table, hand)[0] == expected, why


# The random player: uniform over playable cards, then over that card's captures ---------------


def within_standard_errors(hits: int, n: int, p: float, z: float = 4.0) -> bool:
    return abs(hits / n - p) < z * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("label", ["default", "forced"])
def test_random_player_is_uniform(label):
    v = rules("classic", label)
    rng = np.random.default_rng(20240501)
    packs = [rng.permutation(40).tolist() for _ in range(1500)]
    card_hits = defaultdict(Counter)  # number of playable cards -> index of the chosen card
    capture_hits = defaultdict(Counter)  # captures of the chosen card -> index of the capture
    for record in api.play_packs(v, lineup(v, "random"), packs, seed=77):
        if record.throw_in:
            continue
        for _, _, legal, (card, taken) in recorded_decisions(v, record):
            playable = sorted({c for c, _ in legal})
            card_hits[len(playable)][playable.index(card)] += 1
            options = [t for c, t in legal if c == card]
            capture_hits[len(options)][options.index(taken)] += 1
    assert set(card_hits) >= {2, 3}
    for hits_by_size in (card_hits, capture_hits):
        for k, hits in hits_by_size.items():
            n = sum(hits.values())
            if k == 1 or n * (1 / k) * (1 - 1 / k) < 10:
                continue  # no choice, or too few draws for the normal approximation
            for j in range(k):
                assert within_standard_errors(hits[j], n, 1 / k), (k, j, hits[j], n)
    assert sum(sum(h.values()) for k, h in capture_hits.items() if k > 1) > 500


@dataclasses.dataclass(frozen=True)
class _Tamperer(Player):
    """A buggy player that tries to change the table it is shown."""

    name = "tamperer"

    def act(self, obs, legal, rng):
        obs.table[:] = 0
        return np.zeros(len(legal.count), np.int64)


def test_players_cannot_write_the_state_they_are_shown():
    with pytest.raises(ValueError, match="read-only"):
        api.play_deals("classic", [_Tamperer(), _Tamperer()], deals=10, seed=1)
