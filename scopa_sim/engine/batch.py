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
from scopa_sim.engine import acting, deal_rules, kernels, scoring
from scopa_sim.engine.deal_rules import (  # the rules of a deal, re-exported for the callers
    deal_packs,
    first_dealers,
    opening_sweeps,
    seat_offsets,
    seat_sides,
    throw_in_rows,
)
from scopa_sim.engine.deals import (  # the shared data and helpers, re-exported
    DealBatch,
    DealState,
    Step,
    check_players,
)
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.rules import CATEGORIES, Variant

__all__ = [
    "DealBatch", "DealState", "Step", "batch_player", "check_players", "deal_packs",
    "first_dealers", "game_winners", "opening_sweeps", "play_batch", "play_deals", "play_games",
    "seat_offsets", "seat_sides", "throw_in_rows",
]  # fmt: skip


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
    move = kernels.KernelRules.of(variant)
    rules = deal_rules.deal_rules(variant)
    packs = np.ascontiguousarray(packs, np.int8)
    scores = np.ascontiguousarray(scores, np.int16)
    rows, n, sides = len(packs), variant.n_players, variant.n_sides

    seat_side = seat_sides(variant, offset)
    dealer_side = seat_side[:, n - 1]
    hands = np.zeros((n, rows), np.uint64)
    table = np.zeros(rows, np.uint64)
    captured = np.zeros((sides, rows), np.uint64)
    scope = np.zeros((sides, rows), np.int16)
    played = np.zeros(rows, np.uint64)
    last_capturer = np.full(rows, -1, np.int8)
    stopped_by = np.full(rows, -1, np.int8)
    state_at = None
    steps: list[Step] | None = [] if record else None
    decision_keys = seeding.deal_keys(player_key, game, deal)
    everyone = np.arange(rows)

    # The opening table (§7 escoba: its escobas to the dealer's side; cirulla's 15 / 30), the
    # first hands dealt; the declared hands, shown at their holder's first turn.
    opening = deal_rules.opening_takes(variant, packs)
    kinds, declared = deal_rules.declared_hands(variant, packs)
    no_shown = np.zeros((rows, n), np.uint64)
    deal_rules.start_deals(
        rules, packs, opening, seat_side,
        (hands, table, captured, scope, last_capturer, stopped_by), scores,
    )  # fmt: skip

    for play in range(variant.plays):
        seat = deal_rules.seat_to_play(play, n)
        if play == snapshot:
            state_at = _snapshot(
                packs, hands, table, captured, scope, played, last_capturer, play, seat_side,
                scores, decision_keys,
            )  # fmt: skip
        live = everyone if stopped_by.max() < 0 else np.flatnonzero(stopped_by < 0)
        arrays = kernels.legal_actions(
            hands[seat][live], table[live], move.ranks, move.fewest, move.forced, rule=move.rule,
        )  # fmt: skip
        legal = LegalActions(*map(_read_only, arrays))
        side = seat_side[live, seat]
        if variant.declarations:
            shown = deal_rules.shown_cards(variant, declared[live], hands[:, live], play)
        else:
            shown = no_shown[live]
        obs = Observation(
            variant, _read_only(hands[seat][live]), _read_only(table[live]),
            _read_only(captured.T[live]), _read_only(played[live]), _read_only(scores[live]),
            seat, _read_only(side), _read_only(dealer_side[live]), play,
            _read_only(scope.T[live]), _read_only(last_capturer[live]), shown=_read_only(shown),
        )  # fmt: skip
        if peeking:  # only players that say so see the hidden cards (cheater)
            hidden = (_read_only(hands[:, live].T), _read_only(packs[live]))
        else:
            hidden = None
        rng = seeding.DecisionRandom(decision_keys[live], play)
        where = acting.Decisions(variant, game, deal, live, play)
        choice = _choose(groups, side, obs, legal, rng, hidden, where)
        # The move, the stop on a scopa that wins the game, the next hands when a round ends.
        scopa = deal_rules.play_rows(
            rules, live, choice, arrays[:2], side, play, packs,
            (hands, table, captured, scope, last_capturer, played, stopped_by), scores,
        )  # fmt: skip
        if record:
            steps.append(_full_step(seat, live, rows, legal, choice, scopa))

    if snapshot == variant.plays:
        state_at = _snapshot(
            packs, hands, table, captured, scope, played, last_capturer, variant.plays,
            seat_side, scores, decision_keys,
        )  # fmt: skip

    # §4, §6: the last capturer takes the table; a stopped deal leaves the rest to nobody.
    leftovers = deal_rules.end_deals(rules, captured, last_capturer, table, stopped_by)
    return DealBatch(
        captured.T.copy(), scope.T.copy(), leftovers, seat_side, opening, stopped_by, steps,
        state_at, deal_rules.tallies_of(variant, opening, kinds, seat_side),
    )  # fmt: skip


def _snapshot(
    packs, hands, table, captured, scope, played, last_capturer, play, seat_side, scores, keys
):  # fmt: skip
    return DealState(
        packs.copy(), hands.T.copy(), table.copy(), captured.T.copy(), scope.T.copy(),
        played.copy(), last_capturer.copy(), np.full(len(table), play, np.int64),
        seat_side.copy(), np.array(scores, np.int16), keys.copy(),
    )  # fmt: skip


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
        points = scoring.score(
            variant, batch.captured, batch.scope, batch.stopped_by >= 0, tallies=batch.tallies
        )
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
        points = scoring.score(
            variant, batch.captured, batch.scope, batch.stopped_by >= 0, tallies=batch.tallies
        )
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
    winner = deal_rules.outright_winners(variant, batch.captured, batch.stopped_by)
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
