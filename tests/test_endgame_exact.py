"""The exact endgame solver computes the right value, and pimc hands over to it when it should.

``players.endgame.solve_endgame`` values a deal's last dealt hand by minimax over every way it can
end; ``PimcPlayer(endgame=k)`` solves each sample with it when at most ``k`` plays are left after
the action, all in hands already dealt. Both were tested only for their contract, so a solver
backing up the wrong extreme, a side that never takes the leftovers or a hand-over one play late
passed every test. Here they are checked against a brute force written plainly from the rules
over the reference engine (``engine.reference``: its legal actions, its scoring, the deal's end as
``play_deal`` writes it), on hand-made positions that pin one rule each (with values worked out
by hand) and on random last hands of every preset, and pimc's values are checked against the
brute force's at exactly ``endgame`` plays left and against plain rollouts one play beyond.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np
import pytest

from scopa_sim import seeding
from scopa_sim.cards import cards_of, mask_of
from scopa_sim.contract import LegalActions, Observation
from scopa_sim.engine import kernels, reference
from scopa_sim.engine.deals import DealState
from scopa_sim.players.endgame import solve_endgame
from scopa_sim.players.pimc import CheaterPlayer, PimcPlayer
from scopa_sim.rules import PRESETS, variant

# The brute force: the rules of docs/rules.md §3-§6, plainly, over the reference engine --------


@dataclass(frozen=True)
class Position:
    """A deal just before play ``play``: seats in play order, sides absolute, ``last`` -1 when
    nobody has captured yet, ``scores`` the game scores before the deal."""

    play: int
    hands: tuple[frozenset[int], ...]
    table: frozenset[int]
    captured: tuple[frozenset[int], ...]
    scope: tuple[int, ...]
    last: int
    seat_side: tuple[int, ...]
    scores: tuple[int, ...]
    played: frozenset[int] = frozenset()
    pack: tuple[int, ...] = ()


def end_value(rules, captured, scope, stopped: bool, side: int) -> float:
    """``side``'s points of the ended deal minus the mean of the other sides' points. A deal
    stopped by a winning scopa scores its scope alone (reference ``_stopped``)."""
    if stopped:
        totals = list(scope)
    else:
        points = reference.score_deal(rules, [set(c) for c in captured], list(scope))
        totals = [sum(p.values()) for p in points]
    others = [t for s, t in enumerate(totals) if s != side]
    return totals[side] - sum(others) / len(others)


def step(rules, pos: Position, card: int, taken: frozenset[int]) -> tuple[Position, bool]:
    """The position after the player to move plays ``card`` taking ``taken``, and whether a
    scopa that wins the game stopped the deal there (as ``reference.play_deal`` plays it)."""
    seat = pos.play % rules.n_players
    side = pos.seat_side[seat]
    hands = list(pos.hands)
    hands[seat] = hands[seat] - {card}
    table, captured, scope, last = set(pos.table), list(pos.captured), list(pos.scope), pos.last
    scopa = False
    if taken:
        table -= taken
        captured[side] = captured[side] | taken | {card}
        last = side
        last_play = pos.play == rules.plays - 1
        scopa = not table and (not last_play or rules.last_play_scopa)
        if reference.is_ace_sweep(rules, card, taken) and not rules.ace_sweep_scopa:
            scopa = False
        scope[side] += scopa
    else:
        table.add(card)
    stopped = (
        scopa and rules.scopa_wins_immediately and pos.scores[side] + scope[side] >= rules.target
    )
    after = replace(
        pos, play=pos.play + 1, hands=tuple(hands), table=frozenset(table),
        captured=tuple(captured), scope=tuple(scope), last=last, played=pos.played | {card},
    )  # fmt: skip
    return after, stopped


def minimax(rules, pos: Position, side: int) -> float:
    """The deal's value for ``side`` when ``side`` maximises its point difference and every
    other side minimises it, each playing in turn (seat ``play % n_players``)."""
    if pos.play == rules.plays:
        piles = list(pos.captured)
        if pos.last >= 0:  # §4: the last capturer takes the table (no scopa); else nobody
            piles[pos.last] = piles[pos.last] | pos.table
        return end_value(rules, piles, pos.scope, False, side)
    values = action_values(rules, pos, side).values()
    mover = pos.seat_side[pos.play % rules.n_players]
    return max(values) if mover == side else min(values)


def action_values(rules, pos: Position, side: int) -> dict:
    """Each legal action of the player to move, ``(card, taken)``, and the deal's minimax value
    for ``side`` after it."""
    seat = pos.play % rules.n_players
    actions = reference.legal_actions(rules, pos.hands[seat], pos.table)
    assert actions, "a seat to move with no card (not a deal)"
    out = {}
    for card, taken in actions:
        after, stopped = step(rules, pos, card, taken)
        after = dealt(rules, after)
        if stopped:
            out[card, taken] = end_value(rules, after.captured, after.scope, True, side)
        else:
            out[card, taken] = minimax(rules, after, side)
    return out


def dealt(rules, pos: Position) -> Position:
    """``pos`` with the hands of a hand that starts at its play dealt from its pack (canonical
    order, docs/rules.md §2: the table, then each hand one block per seat in turn order)."""
    play, position = 0, rules.table_cards
    for size in rules.hands:
        if play == pos.play and play < rules.plays:
            blocks = [
                pos.pack[position + t * size : position + (t + 1) * size]
                for t in range(rules.n_players)
            ]
            return replace(pos, hands=tuple(frozenset(b) for b in blocks))
        play += size * rules.n_players
        position += size * rules.n_players
    return pos


# Positions -------------------------------------------------------------------------------------


def random_position(rules, rng: np.random.Generator, play: int, offset: int) -> Position:
    """A real deal from a shuffled pack, played with uniformly random legal actions up to just
    before ``play`` (escoba's opening escobas included); seat 0 is player ``offset``. Scores
    before the deal are drawn; under ``scopa_wins_immediately`` each side is one or two scope
    short of the target, so that a scopa in the endgame may stop the deal."""
    n, sides = rules.n_players, rules.n_sides
    pack = tuple(int(c) for c in rng.permutation(rules.pack.n_cards))
    seat_side = tuple((offset + seat) % n % sides for seat in range(n))
    table = frozenset(pack[: rules.table_cards])
    captured = [frozenset()] * sides
    scope, last = [0] * sides, -1
    opening = reference.opening_sweeps(rules, table)
    if opening:
        dealer = seat_side[n - 1]
        captured[dealer], scope[dealer], last, table = table, opening, dealer, frozenset()
    pos = Position(
        0, (frozenset(),) * n, table, tuple(captured), tuple(scope), last, seat_side,
        (0,) * sides, frozenset(), pack,
    )  # fmt: skip
    pos = dealt(rules, pos)
    while pos.play < play:
        actions = reference.legal_actions(rules, pos.hands[pos.play % n], pos.table)
        pos, _ = step(rules, pos, *actions[rng.integers(len(actions))])
        pos = dealt(rules, pos)
    scores = drawn_scores(rules, rng, pos.scope)
    if rules.scopa_wins_immediately:  # else the deal would have stopped before
        assert all(a + b < rules.target for a, b in zip(scores, pos.scope, strict=True))
    return replace(pos, scores=scores)


def drawn_scores(rules, rng, scope) -> tuple[int, ...]:
    if rules.scopa_wins_immediately:
        return tuple(max(0, rules.target - s - int(rng.integers(1, 3))) for s in scope)
    return tuple(int(x) for x in rng.integers(0, rules.target, size=len(scope)))


def deal_state(rules, positions: list[Position]) -> DealState:
    """The positions as the solver takes them (``fused.DealState``)."""

    def masks(sets):
        return [mask_of(s) for s in sets]

    return DealState(
        pack=np.array([p.pack or range(rules.pack.n_cards) for p in positions], np.int8),
        hands=np.array([masks(p.hands) for p in positions], np.uint64),
        table=np.array([mask_of(p.table) for p in positions], np.uint64),
        captured=np.array([masks(p.captured) for p in positions], np.uint64),
        scope=np.array([p.scope for p in positions], np.int16),
        played=np.array([mask_of(p.played) for p in positions], np.uint64),
        last_capturer=np.array([p.last for p in positions], np.int8),
        play=np.array([p.play for p in positions], np.int64),
        seat_side=np.array([p.seat_side for p in positions], np.int8),
        scores=np.array([p.scores for p in positions], np.int16),
        deal_keys=np.arange(len(positions), dtype=np.uint64),
    )


def solved(rules, positions: list[Position], sides: list[int]) -> np.ndarray:
    return solve_endgame(rules, deal_state(rules, positions), np.array(sides, np.int64))


def cards(rules, codes: str) -> frozenset[int]:
    return frozenset(rules.pack.parse(c) for c in codes.split())


def two_player(rules, play, hands, table, piles, last, scope=(0, 0), scores=(0, 0), offset=0):
    """A hand-made 2-player position (cards as codes, ``piles`` each side's captures)."""
    return Position(
        play, tuple(cards(rules, h) for h in hands), cards(rules, table),
        tuple(cards(rules, p) for p in piles), scope, last,
        tuple((offset + seat) % 2 for seat in range(2)), scores,
    )  # fmt: skip


# Hand-made positions, each pinning one rule ----------------------------------------------------

CLASSIC = PRESETS["classic"]
#: Classic, the last two plays: seat 0 holds 2C, the dealer 3C; neither can take anything from
#: 7D 4S, so all four cards are the leftovers. Side 0 holds the other cups and swords and 7B, side
#: 1 the other coins and the other clubs (18 cards each).
LEFTOVER_PILES = (
    "AC 4C 5C 6C 7C FC CC RC AS 2S 3S 5S 6S 7S FS CS RS 7B",
    "AD 2D 3D 4D 5D 6D FD CD RD AB 2B 3B 4B 5B 6B FB CB RB",
)


@pytest.mark.parametrize(
    ("last", "value"),
    [
        # Side 0 takes 7D 4S 2C 3C: 22 cards, the settebello and primiera 84 (side 1 has no cup):
        # 3 points to side 1's 1 (coins, 9 to 1).
        (0, 2.0),
        # Side 1 takes them: 22 cards, 10 coins, the settebello and the only primiera: 4 to 0.
        (1, -4.0),
        # Nobody captured: the four go to nobody; 18-18 cards tie, side 1 scores coins, and
        # neither side has a primiera (side 0 no coin, side 1 no cup): 0 to 1.
        (-1, -1.0),
    ],
)
def test_the_leftover_table_goes_to_the_last_capturer_whoever_that_is(last, value):
    """The table left after the last play goes to the last capturer, whether that is the side
    the solver maximises for or its opponent, and to nobody when nobody captured: the values
    worked out by hand above, for each root side, from the solver and from the brute force."""
    pos = two_player(CLASSIC, 34, ("2C", "3C"), "7D 4S", LEFTOVER_PILES, last)
    expected = [value, -value]
    for side in (0, 1):
        assert minimax(CLASSIC, pos, side) == expected[side]
    np.testing.assert_allclose(solved(CLASSIC, [pos, pos], [0, 1]), expected, atol=1e-9)


def test_a_capture_in_the_endgame_makes_its_side_the_last_capturer():
    """The minimising side captured last before the endgame; seat 0's 4C then takes 4S (equal
    rank, its only action), the dealer's 3C stays, and 7D 2C 3C go to side 0: side 0 ends with
    the same 22 cards as when it takes the leftovers above, worth +2 to it."""
    piles = (LEFTOVER_PILES[0].replace("4C ", ""), LEFTOVER_PILES[1])
    pos = two_player(CLASSIC, 34, ("4C", "3C"), "7D 4S 2C", piles, last=1)
    for side in (0, 1):
        assert minimax(CLASSIC, pos, side) == [2.0, -2.0][side]
    np.testing.assert_allclose(solved(CLASSIC, [pos, pos], [0, 1]), [2.0, -2.0], atol=1e-9)


def rest_split(rules, used: str) -> tuple[str, str]:
    """Every card not in ``used``: coins and cups to side 0, swords and clubs to side 1."""
    taken = cards(rules, used)
    rest = [c for c in range(rules.pack.n_cards) if c not in taken]
    codes = [[rules.pack.code(c) for c in rest if (rules.pack.suit(c) >= 2) == s] for s in (0, 1)]
    return " ".join(codes[0]), " ".join(codes[1])


def values(rules, pos: Position) -> list[float]:
    """The solver's value of ``pos`` for each side, checked against the brute force's."""
    sides = list(range(rules.n_sides))
    out = solved(rules, [pos] * len(sides), sides)
    np.testing.assert_allclose(out, [minimax(rules, pos, s) for s in sides], atol=1e-9)
    return list(out)


def test_a_sweep_on_the_deals_last_play_is_a_scopa_only_under_last_play_scopa():
    """Seat 0 lays 2B on 4S; the dealer's 6C, the deal's last card, takes both and empties the
    table: no scopa in classic, one under ``last_play_scopa``, so the dealer's side is worth
    exactly one point more there. Seat 0's sweep with 4C one play earlier counts in both."""
    lps = variant("classic", last_play_scopa=True)
    last = two_player(CLASSIC, 34, ("2B", "6C"), "4S", rest_split(CLASSIC, "2B 6C 4S"), last=0)
    plain, counted = values(CLASSIC, last), values(lps, last)
    np.testing.assert_allclose(np.subtract(counted, plain), [-1.0, 1.0], atol=1e-9)
    early = two_player(CLASSIC, 34, ("4C", "5B"), "4S", rest_split(CLASSIC, "4C 5B 4S"), last=1)
    np.testing.assert_allclose(values(CLASSIC, early), values(lps, early), atol=1e-9)


def test_an_aces_sweep_is_a_scopa_only_under_ace_sweep_scopa():
    """Asso piglia tutto: seat 0's AC on 4S 2D (no ace there) takes the whole table, which is
    no scopa unless ``ace_sweep_scopa``: side 0 is worth exactly one point more with it. An ace
    taking the one ace on the table is an ordinary capture, a scopa either way."""
    apt, counted = PRESETS["asso-piglia-tutto"], variant("asso-piglia-tutto", ace_sweep_scopa=True)
    sweep = two_player(apt, 34, ("AC", "5B"), "4S 2D", rest_split(apt, "AC 5B 4S 2D"), last=1)
    np.testing.assert_allclose(
        np.subtract(values(counted, sweep), values(apt, sweep)), [1.0, -1.0], atol=1e-9
    )
    pair = two_player(apt, 34, ("AC", "5B"), "AS", rest_split(apt, "AC 5B AS"), last=1)
    np.testing.assert_allclose(values(apt, pair), values(counted, pair), atol=1e-9)
    np.testing.assert_allclose(values(apt, pair), values(CLASSIC, pair), atol=1e-9)


def test_the_side_to_move_picks_its_line_and_a_forced_capture_takes_the_choice_away():
    """Classic, play 33: the dealer (side 1) holds 5C 7B, seat 0 holds 4S, the table is 5S 4D;
    every play after the dealer's choice is forced (equal rank first). Line (i), 5C takes 5S:
    seat 0's 4S takes 4D for a scopa and the dealer's 7B, laid, is side 0's leftover. Line
    (ii), 7B laid: 4S takes 4D, 5C takes 5S, and 7B is side 1's leftover. The dealer picks the
    line best for side 1, whichever side the solver is asked about; under ``forced_capture``
    only 5C may be played, so line (i) is the value. The lines' ends are written out here."""
    forced = variant("classic", forced_capture=True)
    piles = rest_split(CLASSIC, "4S 5C 7B 5S 4D")
    pos = two_player(CLASSIC, 33, ("4S", "5C 7B"), "5S 4D", piles, last=0)

    def line(side0, side1, scope):
        ends = (cards(CLASSIC, f"{piles[0]} {side0}"), cards(CLASSIC, f"{piles[1]} {side1}"))
        return [end_value(CLASSIC, ends, scope, False, side) for side in (0, 1)]

    first, second = line("4S 4D 7B", "5C 5S", (1, 0)), line("4S 4D", "5C 5S 7B", (0, 0))
    assert second[1] > first[1]  # side 1 is better off in line (ii)
    np.testing.assert_allclose(values(CLASSIC, pos), second, atol=1e-9)
    np.testing.assert_allclose(values(forced, pos), first, atol=1e-9)


@pytest.mark.parametrize(("scores", "scope", "stops"), [
    ((10, 10), (0, 0), True),  # 10 + 1 reaches 11: the deal stops, scope alone count
    ((9, 10), (1, 0), True),  # 9 + 1 + 1 reaches 11 exactly, counting the scopa made before
    ((9, 10), (0, 0), False),  # 9 + 1 falls short: the deal is played out and scored in full
])  # fmt: skip
def test_a_scopa_that_wins_the_game_stops_the_deal_under_scopa_wins_immediately(
    scores, scope, stops
):
    """Seat 0's 4C sweeps 4S. When its side's score before the deal plus its scope reaches the
    target, the deal stops there and scores its scope alone (side 0's value is its scope minus
    side 1's); one short, the deal is played out and scored in full."""
    rules = variant("classic", scopa_wins_immediately=True)
    piles = rest_split(rules, "4C 5B 4S")
    pos = two_player(rules, 34, ("4C", "5B"), "4S", piles, 1, scope=scope, scores=scores)
    scope_alone = scope[0] + 1 - scope[1]
    got = values(rules, pos)
    played_out = values(CLASSIC, pos)  # the same deal without the rule
    assert played_out[0] != scope_alone  # the two endings differ
    np.testing.assert_allclose(got, [scope_alone, -scope_alone] if stops else played_out, atol=1e-9)


# Random last hands of every preset ------------------------------------------------------------

#: Plays left in the random endgames, by players at the table (at most the last hand's plays).
PLAYS_LEFT = {2: 6, 3: 6, 4: 8, 6: 7}

VARIANTS = [
    *PRESETS.values(),
    variant("classic", scopa_wins_immediately=True),
    variant("classic-3p", last_play_scopa=True, fewest_cards=True, scopa_wins_immediately=True),
    variant("classic-4p", forced_capture=True, napola="trentino", re_bello=True),
    variant("asso-piglia-tutto", ace_sweep_scopa=True, primiera="most_sevens"),
    variant("escoba", forced_capture=True, last_play_scopa=True),
    variant("classic-6p", primiera_missing_suit="zero", target=3, scopa_wins_immediately=True),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=[v.describe() for v in VARIANTS])
def test_the_solver_agrees_with_the_brute_force_on_random_last_hands(rules):
    """Random real deals of each preset (and options), stopped a few plays before their end:
    the solver's value equals the brute force's for each state solved with the last capturer
    set to each side and to nobody, for root sides taken in turn, all rows in one call (so the
    rows must also come back in their order)."""
    n, sides = rules.n_players, rules.n_sides
    left = min(PLAYS_LEFT[n], n * rules.hands[-1])
    rng = np.random.default_rng(zlib.crc32(rules.describe().encode()))
    positions, roots = [], []
    for i in range(4):
        pos = random_position(rules, rng, rules.plays - left, offset=int(rng.integers(n)))
        for last in range(-1, sides):
            positions.append(replace(pos, last=last))
            roots.append((i + last + 1) % sides)
    assert set(roots) == set(range(sides))
    expected = [minimax(rules, p, s) for p, s in zip(positions, roots, strict=True)]
    np.testing.assert_allclose(solved(rules, positions, roots), expected, atol=1e-9)


def test_a_decision_with_more_legal_actions_than_the_solvers_first_guess_is_solved():
    """Escoba's last play: the dealer's ace can take any cards summing to 14 from a table of
    every 2, 3, 4 and 5, far more ways than the 64 the solver first makes room for. It must
    widen that room and agree with the brute force (it once took the overflow for a lack of
    tree room and grew that until memory ran out)."""
    escoba = PRESETS["escoba"]
    table = "2D 2C 2S 2B 3D 3C 3S 3B 4D 4C 4S 4B 5D 5C 5S 5B"
    hand = "AC"
    assert len(reference.legal_actions(escoba, cards(escoba, hand), cards(escoba, table))) > 64
    piles = rest_split(escoba, f"{hand} {table}")
    pos = two_player(escoba, 35, ("", hand), table, piles, last=0)
    side0, side1 = values(escoba, pos)
    assert side0 == pytest.approx(-side1)


# pimc's hand-over to the solver ----------------------------------------------------------------


def decision_point(rules, positions: list[Position]) -> tuple[Observation, LegalActions]:
    """The observation (hidden cards included, for ``cheater``) and legal actions of the seat
    to move in ``positions`` (one row each, all at one play), as the engine hands them over."""
    play = positions[0].play
    n = rules.n_players
    seat = play % n

    def rows(values, dtype):
        return np.array(values, dtype)

    obs = Observation(
        variant=rules,
        hand=rows([mask_of(p.hands[seat]) for p in positions], np.uint64),
        table=rows([mask_of(p.table) for p in positions], np.uint64),
        captured=rows([[mask_of(c) for c in p.captured] for p in positions], np.uint64),
        played=rows([mask_of(p.played) for p in positions], np.uint64),
        scores=rows([p.scores for p in positions], np.int16),
        seat=seat,
        side=rows([p.seat_side[seat] for p in positions], np.int8),
        dealer_side=rows([p.seat_side[n - 1] for p in positions], np.int8),
        play=play,
        scope=rows([p.scope for p in positions], np.int16),
        last_capturer=rows([p.last for p in positions], np.int8),
        hidden_hands=rows([[mask_of(h) for h in p.hands] for p in positions], np.uint64),
        hidden_pack=rows([p.pack for p in positions], np.int8),
    )
    k = kernels.KernelRules.of(rules)
    legal = LegalActions(
        *kernels.legal_actions(obs.hand, obs.table, k.ranks, k.fewest, k.forced, rule=k.rule)
    )
    return obs, legal


def explained(player, obs, legal) -> np.ndarray:
    """``player.explain`` with the decision's random numbers (fresh, so every call gets the
    same ones)."""
    keys = seeding.deal_keys(seeding.stream_key(3, seeding.PLAYERS), np.arange(len(obs.hand)), 0)
    return player.explain(obs, legal, seeding.DecisionRandom(keys, obs.play))


def brute_force_explained(rules, positions, legal) -> np.ndarray:
    """The brute force's minimax value of each legal action for the side to move (``-inf`` in
    padding); the engine's legal actions must be the reference engine's."""
    out = np.full(legal.card.shape, -np.inf)
    for b, pos in enumerate(positions):
        side = pos.seat_side[pos.play % rules.n_players]
        wanted = action_values(rules, pos, side)
        slots = [
            (int(legal.card[b, j]), frozenset(cards_of(int(legal.capture[b, j]))))
            for j in range(legal.count[b])
        ]
        assert sorted(slots, key=repr) == sorted(wanted, key=repr)
        out[b, : legal.count[b]] = [wanted[a] for a in slots]
    return out


def random_positions(rules, play: int, rows: int, seed: int) -> list[Position]:
    rng = np.random.default_rng(seed)
    n = rules.n_players
    return [random_position(rules, rng, play, int(rng.integers(n))) for _ in range(rows)]


#: (preset, the play of the decision, plays left after its action). ``classic`` at play 29 ends
#: a hand: pimc deals the last hand from the sampled pack before it solves.
HAND_OVERS = [("classic", 31, 4), ("classic", 29, 6), ("classic-4p", 29, 6), ("scopa-52", 43, 4)]


@pytest.mark.parametrize(("name", "play", "left"), HAND_OVERS)
def test_pimc_solves_exactly_at_endgame_plays_left_and_rolls_out_one_play_more(name, play, left):
    """``cheater`` (pimc on the true deal) with ``endgame`` equal to the plays left after the
    action values each action at exactly its minimax value (the brute force's); with
    ``endgame`` one less it rolls out, its values those of plain rollouts (``endgame=0``). The
    rollouts are checked to differ from the minimax on these rows, so either hand-over one play
    early or late fails."""
    rules = PRESETS[name]
    positions = random_positions(rules, play, rows=12, seed=play)
    obs, legal = decision_point(rules, positions)
    exact = brute_force_explained(rules, positions, legal)
    rolled = explained(CheaterPlayer(endgame=0), obs, legal)
    assert np.isfinite(rolled[legal.valid]).all()
    valid = legal.valid
    assert np.abs(rolled[valid] - exact[valid]).max() > 0.1  # rollouts are not the minimax here
    np.testing.assert_allclose(explained(CheaterPlayer(endgame=left), obs, legal), exact)
    np.testing.assert_array_equal(explained(CheaterPlayer(endgame=left - 1), obs, legal), rolled)


def test_pimc_knowing_every_card_by_elimination_values_actions_at_their_minimax():
    """Two players in the last hand: every card the seat has not seen is in its opponent's
    hand, so each of pimc's samples is the true deal, and with ``endgame`` covering the rest of
    the deal its values are the brute force's minimax values."""
    rules = CLASSIC
    positions = random_positions(rules, 31, rows=8, seed=5)
    obs, legal = decision_point(rules, positions)
    obs = replace(obs, hidden_hands=None, hidden_pack=None)  # a fair player sees none
    exact = brute_force_explained(rules, positions, legal)
    np.testing.assert_allclose(explained(PimcPlayer(samples=3, endgame=4), obs, legal), exact)


def test_pimc_never_solves_a_hand_still_to_be_dealt():
    """Seven plays left after the action at play 28 of classic, one of them in the hand still
    to be dealt: however large ``endgame``, pimc rolls out (the solver sees only hands already
    dealt)."""
    rules = CLASSIC
    positions = random_positions(rules, 28, rows=6, seed=9)
    obs, legal = decision_point(rules, positions)
    rolled = explained(CheaterPlayer(endgame=0), obs, legal)
    assert np.isfinite(rolled[legal.valid]).all()
    np.testing.assert_array_equal(explained(CheaterPlayer(endgame=12), obs, legal), rolled)
