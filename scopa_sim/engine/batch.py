"""The vectorised engine: thousands of deals stepped in lockstep, one Python iteration per play.

Every deal of a variant has the same shape (who plays when, when hands are dealt), so a batch
advances play by play: the acting seat's legal actions for all rows come from one compiled
kernel call, the players choose for all rows at once, and the move is applied with array
operations. State is a struct of arrays; card sets are ``uint64`` bitmasks.

Seats are counted in play order from the leader (seat 0) to the dealer (seat n-1). In a game the
deal passes to the right, so in deal ``d`` seat ``s`` is player ``(d + s) % n``, whose side is
that player modulo the number of sides (partners sit opposite).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from scopa_sim import seeding
from scopa_sim.contract import LegalActions, Observation, Player
from scopa_sim.engine import acting, kernels, scoring
from scopa_sim.engine.deals import (  # the shared data and helpers, re-exported
    DealBatch,
    DealState,
    Step,
    check_players,
    opening_sweeps,
    seat_sides,
)
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.jit import njit
from scopa_sim.rules import CATEGORIES, FirstDealer, Variant

_ONE = np.uint64(1)


def first_dealers(variant: Variant, pack_key: np.uint64, game: np.ndarray) -> np.ndarray:
    """The player who deals each game's first deal (docs/rules.md §2): at random from the game's own
    stream, or player n - 1 under ``first_dealer=fixed``."""
    n = variant.n_players
    if variant.first_dealer is FirstDealer.FIXED:
        return np.full(len(game), n - 1, np.int64)
    return seeding.first_dealers(pack_key, np.asarray(game, np.int64), n)


def seat_offsets(first_dealer: np.ndarray, deal: np.ndarray, n_players: int) -> np.ndarray:
    """The player in seat 0 (who leads) of each deal: the deal passes to the right, so deal ``d``
    is dealt by player ``first + d`` and led by the next one."""
    return (np.asarray(first_dealer) + 1 + np.asarray(deal)) % n_players


@njit(cache=True, nogil=True, inline="always")
def _is_throw_in(pack, rank_of, table_cards):
    """Whether the table (the pack's first ``table_cards`` cards) holds three or four kings."""
    kings = 0
    for i in range(table_cards):
        kings += rank_of[pack[i]] == 10
    return kings >= 3


@njit(cache=True, nogil=True, _nrt=False)
def _throw_ins(packs, rank_of, table_cards, out):
    for r in range(len(packs)):
        out[r] = _is_throw_in(packs[r], rank_of, table_cards)


def _throws_in(variant: Variant) -> bool:
    return variant.throw_in and variant.table_cards >= 4


def throw_in_rows(variant: Variant, packs: np.ndarray) -> np.ndarray:
    """Rows whose table (the pack's first cards) holds three or four kings."""
    out = np.zeros(len(packs), bool)
    if _throws_in(variant) and len(packs):
        packs = np.ascontiguousarray(packs, np.int8)
        _throw_ins(packs, variant.pack.rank_of, variant.table_cards, out)
    return out


@njit(cache=True, nogil=True, _nrt=False)
def _deal_packs(
    key, game, deal, position_keys, rank_of, table_cards, throw_in, packs, attempts, first, swap
):  # fmt: skip
    """Row ``r``: the pack of (``game[r]``, ``deal[r]``, attempt 0, 1, ...) until one is no
    throw-in (when ``throw_in``), and how many were thrown in before it. ``first`` and ``swap``
    are scratch (a hash per row, a draw per card). Compiled without numba's reference counting
    (``_nrt=False``: it allocates nothing), which made taking a row of ``packs`` cost more than
    checking it for kings."""
    for r in range(len(game)):  # independent hashes first (seeding.shuffle_into says why)
        first[r] = seeding.pack_hash(key, game[r], deal[r], 0)
    for r in range(len(game)):
        seeding.shuffle_into(first[r], position_keys, packs[r], swap)
    for r in range(len(game)):  # the throw-ins (one deal in 700), in a loop of their own
        attempt = 0
        while throw_in and _is_throw_in(packs[r], rank_of, table_cards):
            attempt += 1
            h = seeding.pack_hash(key, game[r], deal[r], attempt)
            seeding.shuffle_into(h, position_keys, packs[r], swap)
        attempts[r] = attempt


def deal_packs(variant: Variant, key: np.uint64, game: np.ndarray, deal: np.ndarray):
    """The packs dealt for (game, deal), redealing throw-ins; returns (packs, throw-ins).

    Each pack is ``seeding.packs`` of (game, deal, attempt) for the first attempt that is not a
    throw-in (:func:`throw_in_rows`), dealt in one compiled loop."""
    rows, n_cards = len(game), variant.pack.n_cards
    packs = np.empty((rows, n_cards), np.int8)
    attempts = np.empty(rows, np.int16)
    _deal_packs(
        np.uint64(key), np.ascontiguousarray(game, np.int64), np.ascontiguousarray(deal, np.int64),
        seeding.pack_position_keys(n_cards), variant.pack.rank_of, variant.table_cards,
        _throws_in(variant), packs, attempts, np.empty(rows, np.uint64),
        np.empty(n_cards, np.int64),
    )  # fmt: skip
    return packs, attempts


def _groups(players: tuple[Player, ...]) -> list[tuple[Player, np.ndarray]]:
    """Distinct players with the sides they play, so each is called once per step."""
    out: list[tuple[Player, list[int]]] = []
    for side, p in enumerate(players):
        for q, sides in out:
            if q == p:
                sides.append(side)
                break
        else:
            out.append((p, [side]))
    return [(p, np.array(sides)) for p, sides in out]


def play_batch(
    variant: Variant,
    players: Sequence[Player],
    packs: np.ndarray,
    *,
    offset: np.ndarray,
    scores: np.ndarray,
    player_key: np.uint64,
    game: np.ndarray,
    deal: np.ndarray,
    record: bool = False,
    snapshot: int | None = None,
) -> DealBatch:
    """Play one deal per row of ``packs`` (``int8[B, cards]``, canonical order, docs/rules.md §2).

    ``scores`` are the game scores before the deal, which players see and which decide
    whether a scopa wins outright (``scopa_wins_immediately``: that row's deal stops there).
    ``snapshot=k`` keeps the state of every row just before play ``k`` (``DealBatch.snapshot``),
    from which ``fused.play_from_states`` can continue.
    """
    players = check_players(variant, players)
    groups = _groups(players)
    peeking = any(getattr(p, "sees_hidden_cards", False) for p in players)
    rules = kernels.KernelRules.of(variant)
    rows, n, sides = len(packs), variant.n_players, variant.n_sides
    bits = _ONE << packs.astype(np.uint64)

    seat_side = seat_sides(variant, offset)
    dealer_side = seat_side[:, n - 1]
    table = np.bitwise_or.reduce(bits[:, : variant.table_cards], axis=1)
    hands = np.zeros((n, rows), np.uint64)
    captured = np.zeros((sides, rows), np.uint64)
    scope = np.zeros((sides, rows), np.int16)
    played = np.zeros(rows, np.uint64)
    last_capturer = np.full(rows, -1, np.int8)
    stopped_by = np.full(rows, -1, np.int8)
    state_at = None
    steps: list[Step] | None = [] if record else None
    decision_keys = seeding.deal_keys(player_key, game, deal)
    everyone = np.arange(rows)

    # §7 escoba: an opening table of 15 (or two 15s) goes to the dealer's side as escobas.
    opening = opening_sweeps(variant, packs)
    swept = np.flatnonzero(opening)
    captured[dealer_side[swept], swept] |= table[swept]
    scope[dealer_side[swept], swept] += opening[swept]
    last_capturer[swept] = dealer_side[swept]
    table[swept] = 0
    if variant.scopa_wins_immediately:
        _stop_winners(variant, swept, dealer_side[swept], scores, scope, stopped_by)

    position, play = variant.table_cards, 0
    for hand_size in variant.hands:
        for seat in range(n):
            hands[seat] = np.bitwise_or.reduce(bits[:, position : position + hand_size], axis=1)
            position += hand_size
        for _ in range(hand_size):
            for seat in range(n):
                if play == snapshot:
                    state_at = _snapshot(
                        packs, hands, table, captured, scope, played, last_capturer, play,
                        seat_side, scores, decision_keys,
                    )  # fmt: skip
                live = everyone if stopped_by.max() < 0 else np.flatnonzero(stopped_by < 0)
                arrays = kernels.legal_actions(
                    hands[seat][live], table[live], rules.ranks, rules.fewest, rules.forced,
                    rule=rules.rule,
                )  # fmt: skip
                legal = LegalActions(*map(_read_only, arrays))
                side = seat_side[live, seat]
                obs = Observation(
                    variant, _read_only(hands[seat][live]), _read_only(table[live]),
                    _read_only(captured.T[live]), _read_only(played[live]),
                    _read_only(scores[live]), seat, _read_only(side),
                    _read_only(dealer_side[live]), play, _read_only(scope.T[live]),
                    _read_only(last_capturer[live]),
                )  # fmt: skip
                if peeking:  # only players that say so see the hidden cards (cheater)
                    hidden = (_read_only(hands[:, live].T), _read_only(packs[live]))
                else:
                    hidden = None
                rng = seeding.DecisionRandom(decision_keys[live], play)
                where = acting.Decisions(variant, game, deal, live, play)
                choice = _choose(groups, side, obs, legal, rng, hidden, where)

                is_last = play == variant.plays - 1
                scopa = kernels.apply_actions(
                    live, choice, arrays[0], arrays[1], side, hands[seat], table, captured,
                    scope, last_capturer, played, not is_last or variant.last_play_scopa,
                    rules.ace_mask, rules.ace_no_scopa,
                )  # fmt: skip
                if variant.scopa_wins_immediately and scopa.any():
                    won = live[scopa]
                    _stop_winners(variant, won, side[scopa], scores, scope, stopped_by)
                if record:
                    steps.append(_full_step(seat, live, rows, legal, choice, scopa))
                play += 1

    if snapshot == play:
        state_at = _snapshot(
            packs, hands, table, captured, scope, played, last_capturer, play, seat_side,
            scores, decision_keys,
        )  # fmt: skip

    # §4: the last capturer takes what is left on the table; if nobody captured, nobody does.
    # A stopped deal (§6) leaves every card not captured to nobody: the table, the hands and the
    # cards not dealt yet.
    takes = (last_capturer >= 0) & (stopped_by < 0)
    who = np.flatnonzero(takes)
    captured[last_capturer[who], who] |= table[who]
    leftovers = np.where(takes, np.uint64(0), table | np.bitwise_or.reduce(hands, axis=0))
    stopped = stopped_by >= 0
    pack = np.uint64((1 << variant.pack.n_cards) - 1)
    leftovers[stopped] = pack & ~np.bitwise_or.reduce(captured[:, stopped], axis=0)
    return DealBatch(
        captured.T.copy(), scope.T.copy(), leftovers, seat_side, opening, stopped_by, steps,
        state_at,
    )  # fmt: skip


def _snapshot(
    packs, hands, table, captured, scope, played, last_capturer, play, seat_side, scores, keys
):  # fmt: skip
    return DealState(
        packs.copy(), hands.T.copy(), table.copy(), captured.T.copy(), scope.T.copy(),
        played.copy(), last_capturer.copy(), np.full(len(table), play, np.int64),
        seat_side.copy(), np.array(scores, np.int16), keys.copy(),
    )  # fmt: skip


def _stop_winners(variant, rows, side, scores, scope, stopped_by) -> None:
    """Stop the deals of ``rows`` where a scopa of ``side`` reached the target (§6)."""
    reached = scores[rows, side] + scope[side, rows] >= variant.target
    stopped_by[rows[reached]] = side[reached]


def _full_step(seat, live, rows, legal, choice, scopa) -> Step:
    """A step over every row of the batch, rows that did not play left empty."""
    if len(live) == rows:
        return Step(seat, legal, choice, scopa)
    width = legal.card.shape[1]
    card = np.full((rows, width), -1, np.int8)
    capture = np.zeros((rows, width), np.uint64)
    group = np.full((rows, width), -1, np.int8)
    count = np.zeros(rows, np.int64)
    n_cards = np.zeros(rows, np.int64)
    full_choice = np.full(rows, -1, np.int64)
    full_scopa = np.zeros(rows, bool)
    card[live], capture[live], group[live] = legal.card, legal.capture, legal.group
    count[live], n_cards[live] = legal.count, legal.n_cards
    full_choice[live], full_scopa[live] = choice, scopa
    return Step(seat, LegalActions(card, capture, group, count, n_cards), full_choice, full_scopa)


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view a player cannot write through: players read the state, never change it."""
    view = array.view()
    view.flags.writeable = False
    return view


def _choose(groups, side, obs, legal, rng, hidden, where) -> np.ndarray:
    """Each player chooses for the rows of its sides; only a player that sees hidden cards is
    handed ``hidden`` (every hand and the pack). A player whose answer is not one legal index
    per row, or whose act raises, stops the batch with a ``PlayerError`` saying where
    (``acting.act``; ``where`` locates the rows)."""

    def view(player):
        if hidden is None or not getattr(player, "sees_hidden_cards", False):
            return obs
        return dataclasses.replace(obs, hidden_hands=hidden[0], hidden_pack=hidden[1])

    if len(groups) == 1:
        player, sides = groups[0]
        return acting.act(player, view(player), legal, rng, where, int(sides[0]))
    choice = np.empty(len(side), np.int64)
    for player, sides in groups:
        rows = np.flatnonzero(np.isin(side, sides))
        if len(rows):
            choice[rows] = acting.act(
                player, view(player).take(rows), legal.take(rows), rng.subset(rows),
                where.take(rows), int(sides[0]),
            )  # fmt: skip
    return choice


#: Engine paths of ``play_deals`` and ``play_games``.
PATHS = ("auto", "fused", "lockstep")


def batch_player(players: Sequence[Player], path: str):
    """The function that plays one batch on ``path``: "lockstep" (:func:`play_batch`, any
    players), "fused" (``fused.play_batch``: whole deals compiled, for players that all have a
    fused row policy, ``Player.fused_policy``) or "auto" (fused when every player has one). Both
    give identical outcomes."""
    from scopa_sim.engine import fused

    if path not in PATHS:
        raise ValueError(f"unknown engine path {path!r}; choose one of: {', '.join(PATHS)}")
    if path == "fused":
        fused.check_fusable(players)
    if path == "fused" or (path == "auto" and fused.fusable(players)):
        return fused.play_batch
    return play_batch


def play_games(
    variant: Variant,
    players: Sequence[Player],
    seed: int,
    games: range,
    batch_size: int = 8192,
    path: str = "auto",
) -> DealOutcomes:
    """Play whole games ``games`` (global game numbers) to the target; every deal of each.

    A batch keeps ``batch_size`` games in flight: each round plays one deal of every game in
    flight, and finished games make room for new ones. Randomness is keyed by (game, deal), so
    the outcome does not depend on ``batch_size``, nor on the engine ``path``
    (:func:`batch_player`).
    """
    players = check_players(variant, players)
    play = batch_player(players, path)
    pack_key = seeding.stream_key(seed, seeding.PACKS)
    player_key = seeding.stream_key(seed, seeding.PLAYERS)
    n, sides = variant.n_players, variant.n_sides
    next_game, stop = games.start, games.stop
    game = np.zeros(0, np.int64)
    deal = np.zeros(0, np.int64)
    first = np.zeros(0, np.int64)
    score = np.zeros((0, sides), np.int16)
    parts: list[DealOutcomes] = []
    while True:
        room = min(batch_size - len(game), stop - next_game)
        if room > 0:
            new = np.arange(next_game, next_game + room)
            game = np.concatenate([game, new])
            deal = np.concatenate([deal, np.zeros(room, np.int64)])
            first = np.concatenate([first, first_dealers(variant, pack_key, new)])
            score = np.concatenate([score, np.zeros((room, sides), np.int16)])
            next_game += room
        if not len(game):
            break
        packs, redeals = deal_packs(variant, pack_key, game, deal)
        batch = play(
            variant, players, packs, offset=seat_offsets(first, deal, n), scores=score,
            player_key=player_key, game=game, deal=deal,
        )  # fmt: skip
        points = scoring.score(variant, batch.captured, batch.scope, batch.stopped_by >= 0)
        winner = game_winners(variant, score, points, batch)
        score = (score + points.totals).astype(np.int16)
        final = winner >= 0
        parts.append(
            _deal_outcomes(batch, points, game, deal, first % sides, redeals, score, final, winner)
        )
        keep = ~final
        game, deal, first, score = game[keep], deal[keep] + 1, first[keep], score[keep]
    return DealOutcomes.concat(parts).sorted() if parts else _empty(sides)


def play_deals(
    variant: Variant,
    players: Sequence[Player],
    seed: int,
    deals: range,
    batch_size: int = 8192,
    path: str = "auto",
) -> DealOutcomes:
    """Play independent deals ``deals`` with no game score.

    Deal ``i`` is keyed as game ``i``, deal 0: a one-deal game whose dealer is drawn like any
    game's first dealer. No game is won (``final`` is false), but a deal stops at a scopa that
    reaches the target under ``scopa_wins_immediately``, as in a game. ``path``: see
    :func:`batch_player`.
    """
    players = check_players(variant, players)
    play = batch_player(players, path)
    pack_key = seeding.stream_key(seed, seeding.PACKS)
    player_key = seeding.stream_key(seed, seeding.PLAYERS)
    sides = variant.n_sides
    parts = []
    for start in range(deals.start, deals.stop, batch_size):
        game = np.arange(start, min(start + batch_size, deals.stop), dtype=np.int64)
        deal = np.zeros(len(game), np.int64)
        first = first_dealers(variant, pack_key, game)
        packs, redeals = deal_packs(variant, pack_key, game, deal)
        zero = np.zeros((len(game), sides), np.int16)
        batch = play(
            variant, players, packs, offset=seat_offsets(first, deal, variant.n_players),
            scores=zero, player_key=player_key, game=game, deal=deal,
        )  # fmt: skip
        points = scoring.score(variant, batch.captured, batch.scope, batch.stopped_by >= 0)
        final = np.zeros(len(game), bool)
        winner = np.full(len(game), -1, np.int8)
        parts.append(
            _deal_outcomes(
                batch, points, game, deal, first % sides, redeals, points.totals, final, winner
            )
        )
    return DealOutcomes.concat(parts) if parts else _empty(sides)


def game_winners(variant: Variant, before: np.ndarray, points, batch: DealBatch) -> np.ndarray:
    """Per row, the side that has won the game after this deal (docs/rules.md §6), else -1.

    In order: a scopa that won outright; napoleone (every card of the scoring suit); with
    ``count_in_turn_order`` the first side in seat order at the target; else the side at or
    past the target and strictly ahead of all. ``reference.winner_after_deal`` is the same rule
    for one deal.
    """
    after = before + points.totals
    winner = batch.stopped_by.astype(np.int8).copy()
    if variant.napoleone:
        coins = np.uint64(variant.pack.suit_mask(0))
        has_all = (batch.captured & coins) == coins
        holder = np.where(has_all.any(axis=1), has_all.argmax(axis=1), -1)
        winner = np.where(winner >= 0, winner, holder).astype(np.int8)
    if variant.count_in_turn_order:
        for seat in range(variant.n_players):
            side = batch.seat_side[:, seat].astype(np.int64)
            reached = after[np.arange(len(after)), side] >= variant.target
            winner = np.where((winner < 0) & reached, side, winner).astype(np.int8)
        return winner
    leader = scoring.strict_winner(after)
    reached = after.max(axis=1) >= variant.target
    at_target = np.where(reached & (leader >= 0), leader, -1)
    return np.where(winner >= 0, winner, at_target).astype(np.int8)


def _deal_outcomes(
    batch, points, game, deal, first_side, redeals, score, final, winner
) -> DealOutcomes:
    return DealOutcomes(
        game=game.astype(np.int64),
        deal=deal.astype(np.int16),
        redeals=redeals,
        dealer_side=batch.seat_side[:, -1].copy(),
        first_dealer_side=first_side.astype(np.int8),
        stopped=batch.stopped_by >= 0,
        captured=batch.captured,
        cards=points.cards,
        coins=points.coins,
        settebello=points.settebello,
        primiera=points.primiera,
        scope=batch.scope,
        points=points.points,
        score=score.astype(np.int16),
        final=final,
        winner=winner.astype(np.int8),
    )


def _empty(sides: int) -> DealOutcomes:
    def z(dtype, *shape):
        return np.zeros((0, *shape), dtype)

    return DealOutcomes(
        game=z(np.int64), deal=z(np.int16), redeals=z(np.int16), dealer_side=z(np.int8),
        first_dealer_side=z(np.int8), stopped=z(bool), captured=z(np.uint64, sides),
        cards=z(np.int8, sides), coins=z(np.int8, sides), settebello=z(bool, sides),
        primiera=z(np.int16, sides), scope=z(np.int16, sides),
        points=z(np.int16, sides, len(CATEGORIES)), score=z(np.int16, sides), final=z(bool),
        winner=z(np.int8),
    )  # fmt: skip
