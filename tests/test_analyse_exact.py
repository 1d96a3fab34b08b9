"""``scopa-sim analyse`` computes the right numbers: every column against plain references.

``tests/test_analyse.py`` holds the analysis to pimc's own search (its rollouts are
``PimcPlayer.evaluate``) and to statistics of itself; nothing there says that the numbers are the
ones the rules give. Here every column of :func:`scopa_sim.position.analyse` is recomputed, on
small positions where the answer can be enumerated, by code written from docs/rules.md and not
from the package:

* positions in the last plays of a deal where every play after the move is forced (each seat
  holds one card, with a single legal action), so the rollout player never chooses: every deal
  the seat cannot tell from the true one is enumerated and played to its end on the reference
  engine (``engine/reference.py``), with the deal-end rules of its ``play_deal`` (a sweep on the
  deal's last play is no scopa, the last capturer takes the table);
* each sample of the analysis is matched, by its ends, to one of those deals, so every column is
  the exact statistic of the reference's values over the samples' deals (the expected point
  difference, the paired difference to the best move, the chance of a later scopa by the seat's
  side and by another side, the chance of winning the game), and the deals' frequencies are
  tested against the uniform draw of a determinisation; with no hidden card there is one deal,
  so the values are exact and have no interval;
* the chance of winning the game is a plain value of the game of docs/rules.md §6 (past the
  target and strictly ahead wins, a tie there plays on, the deal passes to the other side; with
  ``count_in_turn_order`` the side not dealing counts first), solved as a linear system over the
  score states from the win table's own outcome distribution, for both dealers; the table's
  outcomes are recounted from its deals, and its solver is checked on hand-made distributions.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from scipy import stats as sps

from scopa_sim.cards import ITALIAN_40, cards_of, parse_card_list
from scopa_sim.engine import reference as ref
from scopa_sim.players.pimc import PimcPlayer
from scopa_sim.position import analyse, position, roll_out
from scopa_sim.position.analysis import Analysis
from scopa_sim.position.winning import TABLE_DEALS, TABLE_SEED, WinTable, _solve, win_table
from scopa_sim.rules import variant

#: Classic with its last six cards dealt as a hand of two, then a hand of one: a two-player
#: deal where the seat has hidden cards (the last hand, not dealt yet) and every later play is
#: forced.
SHORT_LAST = """\
name = "short-last"
extends = "classic"
[deal]
hands = [3, 3, 3, 3, 3, 2, 1]
"""

Z = sps.norm.ppf(0.975)  # the 95 % of stats.LEVEL


def ids(text: str) -> list[int]:
    return parse_card_list(ITALIAN_40, text)


@pytest.fixture(scope="module")
def short_last(tmp_path_factory):
    path = tmp_path_factory.mktemp("variant") / "short-last.toml"
    path.write_text(SHORT_LAST, encoding="utf-8")
    rules = variant(str(path))
    assert rules.hands == (3, 3, 3, 3, 3, 2, 1) and rules.n_players == 2
    return rules


def rules_of(name: str, short_last):
    return short_last if name == "short-last" else variant(name)


# The reference: every consistent deal played to its end ---------------------------------------


@dataclass(frozen=True)
class Spec:
    """A position by absolute sides: what the seat holds and sees, who took what so far."""

    variant: str
    seat: int
    hand: str
    table: str
    captured: tuple[str, ...]  # per absolute side
    scope: tuple[int, ...]  # per absolute side
    last: int  # absolute side of the last capture


@dataclass(frozen=True)
class End:
    totals: tuple[int, ...]  # each side's points of the deal
    made: tuple[int, ...]  # scope each side made after the first move (not the move's own)
    scopa: bool  # the first move sweeps for a scopa


def round_starts(rules) -> list[int]:
    starts, q = [], 0
    for size in rules.hands:
        starts.append(q)
        q += size * rules.n_players
    return starts


def held(rules, play: int) -> tuple[list[int], int]:
    """The cards each seat holds before ``play`` (§2: one card a turn, seat 0 first), and the
    round the play is in."""
    starts = round_starts(rules)
    r = max(k for k, s in enumerate(starts) if s <= play)
    done, n = play - starts[r], rules.n_players
    return [rules.hands[r] - (done // n + (t < done % n)) for t in range(n)], r


def consistent_deals(rules, spec: Spec):
    """The play, and every deal the seat cannot tell apart: the other seats' hands now and the
    hands of each round still to deal, from the cards the seat has not seen."""
    hand, table = ids(spec.hand), ids(spec.table)
    seen = [c for text in spec.captured for c in ids(text)]
    play = len(table) + len(seen) - rules.table_cards
    sizes, r = held(rules, play)
    assert len(hand) == sizes[spec.seat]
    unseen = sorted(set(range(rules.pack.n_cards)) - set(hand) - set(table) - set(seen))
    slots = [(None, t, sizes[t]) for t in range(rules.n_players) if t != spec.seat]
    for later in range(r + 1, len(rules.hands)):
        slots += [(later, t, rules.hands[later]) for t in range(rules.n_players)]
    assert sum(size for *_, size in slots) == len(unseen)
    deals = []

    def fill(k, left, chosen):
        if k == len(slots):
            now = [set(hand) if t == spec.seat else set() for t in range(rules.n_players)]
            later: dict[int, list[set[int]]] = {}
            for (rnd, t, _), cards in zip(slots, chosen, strict=True):
                if rnd is None:
                    now[t] = set(cards)
                else:
                    later.setdefault(rnd, [set() for _ in range(rules.n_players)])[t] = set(cards)
            deals.append((now, later))
            return
        for cards in itertools.combinations(left, slots[k][2]):
            fill(k + 1, [c for c in left if c not in cards], [*chosen, cards])

    fill(0, unseen, [])
    return play, deals


def finish(rules, spec: Spec, play: int, deal, action) -> End:
    """``action`` then the rest of the deal, every later play forced, by the reference rules."""
    n, sides = rules.n_players, rules.n_sides
    now, later = deal
    hands = [set(h) for h in now]
    table = set(ids(spec.table))
    captured = [set(ids(text)) for text in spec.captured]
    scope = list(spec.scope)
    last = spec.last if spec.last >= 0 else None
    starts = round_starts(rules)
    own, after = False, scope
    for q in range(play, rules.plays):
        if q > play and q in starts:  # the next round is dealt
            hands = [set(h) for h in later[starts.index(q)]]
        seat = q % n
        legal = ref.legal_actions(rules, hands[seat], table)
        if q == play:
            assert seat == spec.seat and action in legal
            card, taken = action
        else:
            assert len(legal) == 1, f"play {q} is not forced: {legal}"
            card, taken = legal[0]
        hands[seat].remove(card)
        side = seat % sides
        scopa = False
        if taken:
            table -= taken
            captured[side] |= taken | {card}
            last = side
            scopa = not table and (q < rules.plays - 1 or rules.last_play_scopa)
            scope[side] += scopa
        else:
            table.add(card)
        if q == play:
            own, after = scopa, list(scope)
    if last is not None:  # §4: the last capturer takes what is left, not a scopa
        captured[last] |= table
    totals = tuple(sum(p.values()) for p in ref.score_deal(rules, captured, scope))
    return End(totals, tuple(s - a for s, a in zip(scope, after, strict=True)), own)


def build(rules, spec: Spec, scores=None):
    """``spec`` as the user gives it: the seat's side first, then the others in play order."""
    sides = rules.n_sides
    side = spec.seat % sides
    others = [(side + k) % sides for k in range(1, sides)]
    if spec.last == side:
        word = "mine"
    else:
        k = others.index(spec.last)
        word = "theirs" + (str(k + 1) if k else "")
    return position(
        rules, ids(spec.hand), ids(spec.table), seat=spec.seat,
        captured_mine=ids(spec.captured[side]),
        captured_theirs=[ids(spec.captured[s]) for s in others],
        scope_mine=spec.scope[side], scope_theirs=[spec.scope[s] for s in others],
        scores=None if scores is None else [scores[side], *(scores[s] for s in others)],
        last_capturer=word,
    )  # fmt: skip


# The reference: the game from the scores (docs/rules.md §6) ------------------------------------


def game_after(a, b, outright, dealt, target, in_turn):
    """Where a deal dealt by ``dealt`` (1: my side) leaves the game at scores ``a`` (mine),
    ``b``: a number (won 1, lost 0) or the state of the next deal, dealt by the other side."""
    if outright:
        return 1.0 if outright > 0 else 0.0
    if a >= target or b >= target:
        if in_turn:  # seat 0 counts first: the side that did not deal
            if a >= target and b >= target:
                return 1.0 if dealt == 0 else 0.0
            return 1.0 if a >= target else 0.0
        if a != b:
            return 1.0 if a > b else 0.0
        return ("tie", 1 - dealt)  # level past the target: play on
    return (a, b, 1 - dealt)


def game_values(outcomes, weights, target, in_turn=False) -> dict:
    """My chance of winning from every state before a deal, ``(a, b, d)`` (d = 1: my side
    deals it) and ``("tie", d)``, solving V(state) = E[value after the deal] over the outcome
    distribution of that dealer as one linear system."""
    states = [(a, b, d) for a in range(target) for b in range(target) for d in (0, 1)]
    states += [("tie", 0), ("tie", 1)]
    index = {s: i for i, s in enumerate(states)}
    matrix, rhs = np.eye(len(states)), np.zeros(len(states))
    for s, i in index.items():
        d = s[-1]
        a, b = (target, target) if s[0] == "tie" else s[:2]
        for (mine, theirs, outright, dealt), w in zip(outcomes.tolist(), weights, strict=True):
            if dealt != d:
                continue
            nxt = game_after(a + mine, b + theirs, outright, d, target, in_turn)
            if isinstance(nxt, tuple):
                matrix[i, index[nxt]] -= w
            else:
                rhs[i] += w * nxt
    solved = np.linalg.solve(matrix, rhs)
    return {s: float(solved[i]) for s, i in index.items()}


def value_after(values, a, b, outright, dealt, target, in_turn=False) -> float:
    nxt = game_after(a, b, outright, dealt, target, in_turn)
    return values[nxt] if isinstance(nxt, tuple) else nxt


def value_before(values, a, b, d, target) -> float:
    return values[("tie", d)] if max(a, b) >= target else values[(a, b, d)]


@cache
def table_values(rules):
    table = win_table(rules, "greedy")
    return table, game_values(table.outcomes, table.weights, rules.target)


def my_side_deals(rules, seat: int) -> int:
    """§2: the last seat deals."""
    return int((rules.n_players - 1) % rules.n_sides == seat % rules.n_sides)


# The analysis against the reference -------------------------------------------------------------


def check_mean(estimate, x, exact: bool):
    """``estimate`` is the mean of ``x`` with the 95 % t interval, none when ``x`` is flat."""
    x = np.asarray(x, float)
    assert estimate.value == pytest.approx(x.mean(), abs=1e-12)
    if np.all(x == x[0]):
        assert not estimate.estimable and math.isnan(estimate.low) and math.isnan(estimate.high)
    else:
        assert not exact
        half = sps.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
        assert (estimate.low, estimate.high) == pytest.approx((x.mean() - half, x.mean() + half))


def check_share(estimate, hits):
    """``estimate`` is the share of ``hits`` with its Wilson interval."""
    n, p = len(hits), float(np.mean(hits))
    assert estimate.value == pytest.approx(p, abs=1e-12)
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z / (1 + Z**2 / n) * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    assert (estimate.low, estimate.high) == pytest.approx((centre - half, centre + half), abs=1e-9)


def separable(diff) -> bool:
    """Below the best: the paired t interval lies under zero, or with no variation every
    sample is below."""
    d = np.asarray(diff, float)
    if np.all(d == d[0]):
        return bool(d[0] < 0)
    return d.mean() + sps.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)) < 0


@dataclass(frozen=True)
class Checked:
    """An analysis checked against the reference, and the reference's values per sample and
    slot (``win`` None without scores)."""

    result: Analysis
    diff: np.ndarray
    mine: np.ndarray
    theirs: np.ndarray
    win: np.ndarray | None


def analyse_against_reference(rules, spec, scores, samples, seed, rank_by) -> Checked:
    """Analyse ``spec`` and check every column against the reference."""
    pos = build(rules, spec, scores)
    play, deals = consistent_deals(rules, spec)
    assert (pos.play, pos.seat) == (play, spec.seat)
    actions = ref.legal_actions(rules, set(ids(spec.hand)), set(ids(spec.table)))
    ends = [{a: finish(rules, spec, play, deal, a) for a in actions} for deal in deals]

    player = PimcPlayer(samples=samples)
    rolled = roll_out(pos, player, seed)
    count = rolled.difference.shape[1]
    slots = [
        (int(rolled.legal.card[0, a]), frozenset(cards_of(int(rolled.legal.capture[0, a]))))
        for a in range(count)
    ]
    assert sorted(slots, key=str) == sorted(actions, key=str)  # the rules' legal moves

    # Each sample plays one consistent deal: match it by its ends; deals with the same ends
    # over every move are one group.
    groups: dict[tuple, list[int]] = {}
    for g, end in enumerate(ends):
        groups.setdefault(tuple((end[s].totals, end[s].made) for s in slots), []).append(g)
    drawn = []
    for s in range(samples):
        key = tuple(
            (tuple(map(int, rolled.points[s, a])), tuple(map(int, rolled.scope_made[s, a])))
            for a in range(count)
        )
        assert key in groups, f"sample {s} ends as no consistent deal does"
        drawn.append(key)
    counts = Counter(drawn)
    if len(groups) > 1:  # a determinisation draws every consistent deal alike
        expected = np.array([samples * len(groups[k]) / len(deals) for k in groups])
        assert expected.min() >= 5  # the chi-square approximation holds
        observed = np.array([counts[k] for k in groups])
        assert sps.chisquare(observed, expected).pvalue > 1e-3, (observed, expected)

    side = spec.seat % rules.n_sides
    others = [s for s in range(rules.n_sides) if s != side]
    per = [[ends[groups[key][0]][a] for a in slots] for key in drawn]  # [sample][slot]
    diff = np.array([[e.totals[side] - np.mean([e.totals[o] for o in others]) for e in row]
                     for row in per])  # fmt: skip
    mine = np.array([[e.made[side] > 0 for e in row] for row in per])
    theirs = np.array([[any(e.made[o] > 0 for o in others) for e in row] for row in per])

    win = values = None
    dealer = my_side_deals(rules, spec.seat)
    if scores is not None:
        _, values = table_values(rules)
        a0, b0 = scores[side], scores[others[0]]

        def wins(dealt):
            return np.array([
                [value_after(values, a0 + e.totals[side], b0 + e.totals[others[0]], 0, dealt,
                             rules.target) for e in row]
                for row in per
            ])  # fmt: skip

        win = wins(dealer)

    result = analyse(pos, player, seed=seed, rank_by=rank_by)
    assert result.samples == samples and len(result.moves) == count
    exact = len(deals) == 1
    rank = win if rank_by == "win" else diff
    means = rank.mean(axis=0)
    (best,) = [m.slot for m in result.moves if m.best]
    assert means[best] == pytest.approx(means.max(), abs=1e-12)
    assert result.moves[0].slot == best  # best first, then by value
    order = [means[m.slot] for m in result.moves]
    assert all(x >= y - 1e-12 for x, y in itertools.pairwise(order))
    for m in result.moves:
        a = m.slot
        assert (m.card, frozenset(m.taken)) == slots[a]
        assert m.scopa == per[0][a].scopa  # the move's own scopa, shown apart
        check_mean(m.points, diff[:, a], exact)
        check_mean(m.vs_best, diff[:, a] - diff[:, best], exact)  # this move minus the best
        check_share(m.scopa_mine, mine[:, a])
        check_share(m.scopa_theirs, theirs[:, a])
        assert m.separable == (a != best and separable(rank[:, a] - rank[:, best]))
        if win is None:
            assert m.win is None and m.win_vs_best is None
        else:
            check_mean(m.win, win[:, a], exact)
            check_mean(m.win_vs_best, win[:, a] - win[:, best], exact)
    if scores is not None:
        before = value_before(values, scores[side], scores[others[0]], dealer, rules.target)
        assert result.win_before == pytest.approx(before, abs=1e-9)
        # the other dealer would give other answers: the check above tells them apart
        other = wins(1 - dealer)
        wrong = value_before(values, scores[side], scores[others[0]], 1 - dealer, rules.target)
        assert abs(wrong - before) > 1e-6 and np.abs(other - win).max() > 1e-6
    return Checked(result, diff, mine, theirs, win)


# Exact positions: no hidden card -----------------------------------------------------------------

#: Classic, play 34: seat 0 (side 0, not dealing) holds 5D, which takes 4C+AS or 2C+3C; seat 1
#: holds the last card (2S), forced. Nothing is hidden from seat 0.
LAST_BUT_ONE = Spec(
    "classic", 0, "5D", "2C 3C 4C AS FB",
    ("AD 2D 3D 7D FD 6C CC RC 3S 4S 7S CS 3B 5B 6B 7B",
     "4D 6D CD RD AC 5C 7C FC 5S 6S FS RS AB 2B 4B CB RB"),
    (1, 2), 1,
)  # fmt: skip

#: Classic, play 33: seat 1 (side 1, the dealer's) holds 6S, which sweeps 4D+2S for a scopa,
#: and 3B, which is laid and lets seat 0's last card sweep; then seat 1's last card.
SWEEP = Spec(
    "classic", 1, "6S 3B", "4D 2S",
    ("2D 6D FD CD RD AC 3C 5C 6C 7C AS 3S 7S FS RS AB 7B FB CB RB",
     "AD 3D 5D 7D 2C 4C FC RC 4S 5S CS 2B 4B 5B 6B"),
    (2, 1), 0,
)  # fmt: skip


#: Classic, the last play: seat 1 (the dealer's side) sweeps 2C+5S with 7B, its only move,
#: and no scopa (docs/rules.md §4: a sweep on the deal's last play is none).
LAST_PLAY = Spec(
    "classic", 1, "7B", "2C 5S",
    ("AD 3D 5D 7D CD AC 4C 6C FC RC 2S 4S 7S CS AB 3B 5B FB RB",
     "2D 4D 6D FD RD 3C 5C 7C CC AS 3S 6S FS RS 2B 4B 6B CB"),
    (0, 1), 0,
)  # fmt: skip


@pytest.mark.parametrize("rank_by", ["points", "win"])
@pytest.mark.parametrize(
    "spec, scores",
    [(LAST_BUT_ONE, (2, 3)), (LAST_BUT_ONE, (6, 7)), (SWEEP, (4, 3)), (SWEEP, (11, 11)),
     (LAST_PLAY, (3, 5))],
    ids=["last-but-one-low", "last-but-one-crossing", "sweep-low", "sweep-tied-past-target",
         "last-play"],
)  # fmt: skip
def test_a_position_with_nothing_hidden_has_the_reference_s_exact_values(
    short_last, spec, scores, rank_by
):
    """With nothing hidden every sample is the one deal: per move the point difference, its
    difference to the best, the later scope of each side, the move's own scopa and the chance
    of winning the game (the seat's side dealing or not, from scores short of the target, past
    it, and tied past it) are the reference's exactly, with no interval."""
    rules = rules_of(spec.variant, short_last)
    checked = analyse_against_reference(rules, spec, scores, samples=6, seed=3, rank_by=rank_by)
    assert len({tuple(row) for row in checked.diff}) == 1  # one deal
    assert len(set(checked.diff[0])) == len(checked.diff[0])  # the moves differ
    if spec is LAST_PLAY:
        (move,) = checked.result.moves
        assert not move.scopa and move.best and not move.separable


def test_the_sweep_position_shows_each_side_s_scope_apart():
    """The move that sweeps is a scopa of its own and leaves no later scopa; the card laid
    leaves the opponent a sweep: a later scopa of the other side, none of the seat's."""
    checked = analyse_against_reference(
        variant("classic"), SWEEP, None, samples=4, seed=1, rank_by="points"
    )
    by_card = {ITALIAN_40.code(m.card): m for m in checked.result.moves}
    assert by_card["6S"].scopa and not by_card["3B"].scopa
    assert (by_card["6S"].scopa_mine.value, by_card["6S"].scopa_theirs.value) == (0, 0)
    assert (by_card["3B"].scopa_mine.value, by_card["3B"].scopa_theirs.value) == (0, 1)
    assert by_card["6S"].best and by_card["3B"].separable


# Hidden cards: every consistent deal enumerated ---------------------------------------------------

#: short-last, play 32: seat 0 (not dealing) holds CB, which takes 6D+AC+2B, 2B+3B+4B or 6D+3B;
#: hidden are seat 1's card and the last hand (3 cards: 6 deals). After the move seat 1 plays,
#: then each seat its last card, all forced: a scopa of either side can follow.
TWO_CARD_HAND = Spec(
    "short-last", 0, "CB", "6D AC 2B 3B 4B",
    ("5D 7D FD CD RD 2C 3C 4C CC AS 3S 4S 7S CS RS 5B 6B 7B RB",
     "AD 2D 3D 4D 5C 6C FC RC 2S 5S 6S FB"),
    (1, 1), 1,
)  # fmt: skip

#: short-last, play 33: seat 1 (the dealer's side) holds CC (AD+FB, AS+FB or 6C+3S); hidden is
#: the last hand (2 cards: 2 deals).
TWO_CARD_HAND_DEALER = Spec(
    "short-last", 1, "CC", "AD 6C AS 3S FB",
    ("2D 3D 6D RD AC 2C 3C 4C 5C 7C FC 6S FS CS RS 3B 4B 6B 7B RB",
     "4D 5D 7D FD CD 4S 5S 7S AB 2B 5B CB"),
    (0, 0), 1,
)  # fmt: skip

#: short-last, play 32: seat 0 holds RD (AS+2S+4S+3B, or CD+AS): neither move is better in
#: every deal, and at these samples they are not told apart.
CLOSE_CALL = Spec(
    "short-last", 0, "RD", "CD AS 2S 4S 3B",
    ("AD 6D AC 2C 7C FC 7S FS CS RS AB 2B FB RB",
     "2D 3D 4D 5D 7D FD 3C 5C 6C RC 3S 5S 6S 4B 6B 7B CB"),
    (0, 2), 1,
)  # fmt: skip

#: classic-3p, play 33: seat 0 holds CS (7D+2S or 5D+4S); seats 1 and 2 hold one hidden card
#: each (2 deals). Three sides: the difference is to the others' mean.
THREE_SIDES = Spec(
    "classic-3p", 0, "CS", "5D 7D 2S 4S",
    ("AD 4D AC 3C 6C RC 2B 5B 6B RB", "3D CD 2C 4C 5C 7C FC 3S 5S 7S RS AB 4B FB CB",
     "2D 6D FD RD 6S FS 3B 7B"),
    (2, 2, 0), 2,
)  # fmt: skip


@pytest.mark.parametrize(
    "spec, scores, samples, rank_by",
    [(TWO_CARD_HAND, (5, 5), 60, "points"), (TWO_CARD_HAND, (3, 6), 60, "win"),
     (TWO_CARD_HAND_DEALER, (6, 4), 40, "points"), (TWO_CARD_HAND_DEALER, (8, 9), 40, "win"),
     (CLOSE_CALL, (7, 1), 60, "points"), (THREE_SIDES, None, 40, "points")],
    ids=["two-card-hand-points", "two-card-hand-win", "dealer-points", "dealer-win", "close-call",
         "three-sides"],
)  # fmt: skip
def test_with_hidden_cards_each_column_is_the_reference_s_over_the_sampled_deals(
    short_last, spec, scores, samples, rank_by
):
    """With hidden cards each sample is one of the deals the seat cannot tell apart, drawn
    alike (a chi-square over the deals), and every column is the statistic of the reference's
    values over the samples' deals: means with t intervals, paired differences to the best
    (this move minus the best), Wilson shares of a later scopa by the seat's side and by any
    other side, the chance of winning the game with the seat's side dealing or not, and the
    best and separable moves of the ranking."""
    rules = rules_of(spec.variant, short_last)
    checked = analyse_against_reference(
        rules, spec, scores, samples=samples, seed=7, rank_by=rank_by
    )
    assert checked.diff.std(axis=0).min() > 0  # the hidden cards matter to every move
    assert (checked.mine != checked.theirs).any()  # the two sides' scope are told apart
    if spec is CLOSE_CALL:  # the paired interval of the move not best reaches zero
        assert not any(m.separable for m in checked.result.moves)


def test_with_hidden_cards_the_samples_estimate_the_exact_expectation(short_last):
    """Over every consistent deal, equally likely, the expected point difference of each move
    and its chance of a later scopa by each side: the analysis is within three standard
    errors of each (the estimates are means of independent draws of a deal)."""
    rules, spec, samples = short_last, TWO_CARD_HAND, 60
    play, deals = consistent_deals(rules, spec)
    actions = ref.legal_actions(rules, set(ids(spec.hand)), set(ids(spec.table)))
    result = analyse(build(rules, spec), PimcPlayer(samples=samples), seed=7)
    for m in result.moves:
        action = (m.card, frozenset(m.taken))
        assert action in actions
        ends = [finish(rules, spec, play, deal, action) for deal in deals]
        for got, values in [
            (m.points, [e.totals[0] - e.totals[1] for e in ends]),
            (m.scopa_mine, [e.made[0] > 0 for e in ends]),
            (m.scopa_theirs, [e.made[1] > 0 for e in ends]),
        ]:
            values = np.asarray(values, float)
            se = values.std() / math.sqrt(samples)  # over the deals, equally likely
            assert abs(got.value - values.mean()) <= 3 * se + 1e-12, (m.card, got, values)


# The win table ------------------------------------------------------------------------------------

#: A hand-made deal distribution per dealer flag (mine, theirs, outright, my side deals):
#: deals scoring nothing (the deal passes, the scores stay), level deals, outright wins.
HAND_MADE = (
    [(0, 0, 0, 1), 0.15], [(1, 1, 0, 1), 0.2], [(2, 1, 0, 1), 0.25], [(0, 3, 0, 1), 0.15],
    [(4, 4, 0, 1), 0.1], [(1, 0, 1, 1), 0.05], [(3, 2, 0, 1), 0.1],
    [(0, 0, 0, 0), 0.1], [(1, 2, 0, 0), 0.3], [(3, 1, 0, 0), 0.2], [(2, 2, 0, 0), 0.2],
    [(0, 1, -1, 0), 0.1], [(1, 3, 0, 0), 0.1],
)  # fmt: skip


@pytest.mark.parametrize("in_turn", [False, True], ids=["ahead", "in-turn"])
def test_the_win_table_solves_the_game_of_a_hand_made_distribution(in_turn):
    """The table's solver on a small distribution with empty, level and outright deals is the
    game of §6 solved as a linear system (a tie past the target plays on; counting in turn
    order, the side not dealing counts first), and ``after_deal``/``before_deal`` read it."""
    from scopa_sim.rules import parse_variant

    target = 4
    outcomes = np.array([o for o, _ in HAND_MADE], np.int64)
    weights = np.array([w for _, w in HAND_MADE])
    for d in (0, 1):
        assert weights[outcomes[:, 3] == d].sum() == pytest.approx(1.0)
    win, tie = np.zeros((target, target, 2)), np.zeros(2)
    _solve(outcomes, weights, target, in_turn, win, tie)
    values = game_values(outcomes, weights, target, in_turn)
    for (a, b, d), v in ((s, v) for s, v in values.items() if s[0] != "tie"):
        assert win[a, b, d] == pytest.approx(v, abs=1e-12), (a, b, d)
    if not in_turn:  # with counting in turn order no tie past the target is left
        assert tie == pytest.approx([values[("tie", 0)], values[("tie", 1)]], abs=1e-12)
        assert tie[0] != pytest.approx(tie[1])  # the dealers differ

    rules = parse_variant(f"classic:target={target}")
    rules = rules if not in_turn else parse_variant(f"scopa-52:target={target}")
    assert rules.count_in_turn_order == in_turn and rules.target == target
    table = WinTable(rules, win, tie, outcomes, weights, 0)
    grid = [(a, b, o) for a in range(target + 4) for b in range(target + 4) for o in (-1, 0, 1)]
    for dealt in (0, 1):
        mine, theirs, outright = (np.array(x) for x in zip(*grid, strict=True))
        got = table.after_deal(mine, theirs, outright, dealt)
        want = [value_after(values, a, b, o, dealt, target, in_turn) for a, b, o in grid]
        np.testing.assert_allclose(got, want, atol=1e-12)
        for a, b in itertools.product(range(target), repeat=2):
            assert table.before_deal(a, b, dealt) == pytest.approx(values[(a, b, dealt)])
        if not in_turn:
            assert table.before_deal(target + 1, target + 1, dealt) == pytest.approx(
                values[("tie", dealt)]
            )


def test_the_win_table_counts_each_deal_from_each_side():
    """The table's outcomes are its deals seen from the dealer's side (flag 1) and from the
    other (flag 0), each weighted one over the number of deals: recounted in plain Python
    from the same deals."""
    from scopa_sim.engine.batch import play_deals
    from scopa_sim.players.rollouts import rollout_player

    rules = variant("classic")
    table, _ = table_values(rules)
    out = play_deals(rules, [rollout_player("greedy")] * 2, TABLE_SEED, range(TABLE_DEALS))
    totals = out.points.sum(axis=2).tolist()
    counted = Counter()
    for dealer, points in zip(out.dealer_side.tolist(), totals, strict=True):
        counted[(points[dealer], points[1 - dealer], 0, 1)] += 1
        counted[(points[1 - dealer], points[dealer], 0, 0)] += 1
    got = {tuple(o): w for o, w in zip(table.outcomes.tolist(), table.weights, strict=True)}
    assert set(got) == set(counted)
    for key, n in counted.items():
        assert got[key] == pytest.approx(n / TABLE_DEALS, rel=1e-12)


@pytest.mark.parametrize("name", ["classic", "short-last"])
def test_the_win_table_is_the_game_solved_from_its_outcomes(short_last, name):
    """Every entry of the table (scores short of the target, each dealer) and its tie past
    the target are the §6 game solved from the table's own outcome distribution."""
    rules = rules_of(name, short_last)
    table, values = table_values(rules)
    for (a, b, d), v in ((s, v) for s, v in values.items() if s[0] != "tie"):
        assert table.win[a, b, d] == pytest.approx(v, abs=1e-9), (a, b, d)
    assert table.tie == pytest.approx([values[("tie", 0)], values[("tie", 1)]], abs=1e-9)
    assert table.tie.sum() == pytest.approx(1.0)  # a tie seen from either side
