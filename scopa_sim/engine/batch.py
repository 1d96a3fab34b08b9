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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim import seeding
from scopa_sim.engine import scoring
from scopa_sim.engine.kernels import apply_actions, legal_actions
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.players.base import LegalActions, Observation, Player
from scopa_sim.rules import CATEGORIES, Variant

_ONE = np.uint64(1)


@dataclass(frozen=True)
class Step:
    """One play of a recorded batch: the legal actions offered and the one chosen, per row."""

    seat: int
    legal: LegalActions
    choice: np.ndarray  # int64[B]
    scopa: np.ndarray  # bool[B]


@dataclass(frozen=True)
class DealBatch:
    """What one lockstep batch produced: captured cards and scope per side, and optionally the
    full record of every play (for move logs and the reference-agreement tests)."""

    captured: np.ndarray  # uint64[B, S], leftovers included
    scope: np.ndarray  # int16[B, S]
    leftovers: np.ndarray  # uint64[B]: table cards that went to nobody
    seat_side: np.ndarray  # int8[B, n_players]
    steps: list[Step] | None


def check_players(variant: Variant, players: Sequence[Player]) -> tuple[Player, ...]:
    players = tuple(players)
    if len(players) != variant.n_sides:
        raise ValueError(
            f"{variant.name} has {variant.n_sides} sides: give {variant.n_sides} players, "
            f"one per side (got {len(players)})"
        )
    if not variant.playable:
        raise NotImplementedError(f"the engines do not play {variant.name} yet")
    return players


def seat_sides(variant: Variant, offset: np.ndarray) -> np.ndarray:
    """Side of each seat per row, ``int8[B, n]``, when seat 0 is player ``offset``."""
    n = variant.n_players
    return ((offset[:, None] + np.arange(n)[None, :]) % n % variant.n_sides).astype(np.int8)


def throw_in_rows(variant: Variant, packs: np.ndarray) -> np.ndarray:
    """Rows whose table (the pack's first cards) holds three or four kings."""
    if not variant.throw_in or variant.table_cards < 4:
        return np.zeros(len(packs), bool)
    ranks = variant.pack.rank_of[packs[:, : variant.table_cards]]
    return (ranks == 10).sum(axis=1) >= 3


def deal_packs(variant: Variant, key: np.uint64, game: np.ndarray, deal: np.ndarray):
    """The packs dealt for (game, deal), redealing throw-ins; returns (packs, throw-ins)."""
    attempt = np.zeros(len(game), np.int64)
    packs = seeding.packs(key, game, deal, attempt, variant.pack.n_cards)
    redo = throw_in_rows(variant, packs)
    while redo.any():
        attempt[redo] += 1
        packs[redo] = seeding.packs(
            key, game[redo], deal[redo], attempt[redo], variant.pack.n_cards
        )
        redo[redo] = throw_in_rows(variant, packs[redo])
    return packs, attempt.astype(np.int16)


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
) -> DealBatch:
    """Play one deal per row of ``packs`` (``int8[B, cards]``, canonical order, RULES.md §2)."""
    players = check_players(variant, players)
    groups = _groups(players)
    rows, n, sides = len(packs), variant.n_players, variant.n_sides
    ranks = variant.pack.ranks
    bits = _ONE << packs.astype(np.uint64)

    seat_side = seat_sides(variant, offset)
    dealer_side = seat_side[:, n - 1]
    table = np.bitwise_or.reduce(bits[:, : variant.table_cards], axis=1)
    hands = np.zeros((n, rows), np.uint64)
    captured = np.zeros((sides, rows), np.uint64)
    scope = np.zeros((sides, rows), np.int16)
    played = np.zeros(rows, np.uint64)
    last_capturer = np.full(rows, -1, np.int8)
    steps: list[Step] | None = [] if record else None
    decision_keys = seeding.deal_keys(player_key, game, deal)

    position, play = variant.table_cards, 0
    for hand_size in variant.hands:
        for seat in range(n):
            hands[seat] = np.bitwise_or.reduce(bits[:, position : position + hand_size], axis=1)
            position += hand_size
        for _ in range(hand_size):
            for seat in range(n):
                arrays = legal_actions(
                    hands[seat], table, ranks, variant.fewest_cards, variant.forced_capture
                )
                legal = LegalActions(*map(_read_only, arrays))
                card, capture = arrays[0], arrays[1]
                side = seat_side[:, seat]
                obs = Observation(
                    variant, _read_only(hands[seat]), _read_only(table), _read_only(captured.T),
                    _read_only(played), _read_only(scores), seat, _read_only(side),
                    _read_only(dealer_side), play,
                )  # fmt: skip
                rng = seeding.DecisionRandom(decision_keys, play)
                choice = _choose(groups, side, obs, legal, rng)

                is_last = play == variant.plays - 1
                scopa = apply_actions(
                    choice, card, capture, side, hands[seat], table, captured, scope,
                    last_capturer, played, not is_last or variant.last_play_scopa,
                )  # fmt: skip
                if record:
                    steps.append(Step(seat, legal, choice, scopa))
                play += 1

    # §4: the last capturer takes what is left on the table; if nobody captured, nobody does.
    took_any = last_capturer >= 0
    who = np.flatnonzero(took_any)
    captured[last_capturer[who], who] |= table[who]
    leftovers = np.where(took_any, np.uint64(0), table)
    return DealBatch(captured.T.copy(), scope.T.copy(), leftovers, seat_side, steps)


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view a player cannot write through: players read the state, never change it."""
    view = array.view()
    view.flags.writeable = False
    return view


def _choose(groups, side, obs, legal, rng) -> np.ndarray:
    if len(groups) == 1:
        choice = np.asarray(groups[0][0].act(obs, legal, rng), dtype=np.int64)
    else:
        choice = np.empty(len(side), np.int64)
        for player, sides in groups:
            rows = np.flatnonzero(np.isin(side, sides))
            if len(rows):
                choice[rows] = player.act(obs.take(rows), legal.take(rows), rng.subset(rows))
    if choice.shape != side.shape or not ((choice >= 0) & (choice < legal.count)).all():
        raise RuntimeError("a player returned an index outside its legal actions")
    return choice


def play_games(
    variant: Variant,
    players: Sequence[Player],
    seed: int,
    games: range,
    batch_size: int = 8192,
) -> DealOutcomes:
    """Play whole games ``games`` (global game numbers) to the target; every deal of each.

    A batch keeps ``batch_size`` games in flight: each round plays one deal of every game in
    flight, and finished games make room for new ones. Randomness is keyed by (game, deal), so
    the outcome does not depend on ``batch_size``.
    """
    players = check_players(variant, players)
    pack_key = seeding.stream_key(seed, seeding.PACKS)
    player_key = seeding.stream_key(seed, seeding.PLAYERS)
    n, sides = variant.n_players, variant.n_sides
    next_game, stop = games.start, games.stop
    game = np.zeros(0, np.int64)
    deal = np.zeros(0, np.int64)
    score = np.zeros((0, sides), np.int16)
    parts: list[DealOutcomes] = []
    while True:
        room = min(batch_size - len(game), stop - next_game)
        if room > 0:
            game = np.concatenate([game, np.arange(next_game, next_game + room)])
            deal = np.concatenate([deal, np.zeros(room, np.int64)])
            score = np.concatenate([score, np.zeros((room, sides), np.int16)])
            next_game += room
        if not len(game):
            break
        packs, redeals = deal_packs(variant, pack_key, game, deal)
        offset = deal % n
        batch = play_batch(
            variant, players, packs, offset=offset, scores=score, player_key=player_key,
            game=game, deal=deal,
        )  # fmt: skip
        points = scoring.score(variant, batch.captured, batch.scope)
        score = (score + points.totals).astype(np.int16)
        winner = _game_winners(score, variant.target)
        final = winner >= 0
        parts.append(_deal_outcomes(batch, points, game, deal, redeals, score, final, winner))
        keep = ~final
        game, deal, score = game[keep], deal[keep] + 1, score[keep]
    return DealOutcomes.concat(parts).sorted() if parts else _empty(sides)


def play_deals(
    variant: Variant,
    players: Sequence[Player],
    seed: int,
    deals: range,
    batch_size: int = 8192,
) -> DealOutcomes:
    """Play independent deals ``deals`` with no game score; the deal passes round the table.

    Deal ``i`` is keyed as game ``i``, deal 0, with player ``i % n`` leading.
    """
    players = check_players(variant, players)
    pack_key = seeding.stream_key(seed, seeding.PACKS)
    player_key = seeding.stream_key(seed, seeding.PLAYERS)
    sides = variant.n_sides
    parts = []
    for start in range(deals.start, deals.stop, batch_size):
        game = np.arange(start, min(start + batch_size, deals.stop), dtype=np.int64)
        deal = np.zeros(len(game), np.int64)
        packs, redeals = deal_packs(variant, pack_key, game, deal)
        zero = np.zeros((len(game), sides), np.int16)
        batch = play_batch(
            variant, players, packs, offset=game % variant.n_players, scores=zero,
            player_key=player_key, game=game, deal=deal,
        )  # fmt: skip
        points = scoring.score(variant, batch.captured, batch.scope)
        final = np.zeros(len(game), bool)
        winner = np.full(len(game), -1, np.int8)
        parts.append(
            _deal_outcomes(batch, points, game, deal, redeals, points.totals, final, winner)
        )
    return DealOutcomes.concat(parts) if parts else _empty(sides)


def _game_winners(score: np.ndarray, target: int) -> np.ndarray:
    """Per row, the side that has won (at or past the target, strictly ahead); else -1."""
    leader = scoring.strict_winner(score)
    reached = score.max(axis=1) >= target
    return np.where(reached & (leader >= 0), leader, -1).astype(np.int8)


def _deal_outcomes(batch, points, game, deal, redeals, score, final, winner) -> DealOutcomes:
    return DealOutcomes(
        game=game.astype(np.int64),
        deal=deal.astype(np.int16),
        redeals=redeals,
        dealer_side=batch.seat_side[:, -1].copy(),
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
        captured=z(np.uint64, sides), cards=z(np.int8, sides), coins=z(np.int8, sides),
        settebello=z(bool, sides), primiera=z(np.int16, sides), scope=z(np.int16, sides),
        points=z(np.int16, sides, len(CATEGORIES)), score=z(np.int16, sides), final=z(bool),
        winner=z(np.int8),
    )  # fmt: skip
