"""Every legal move of a position rolled out on the same determinised samples, with the ends kept.

The search is pimc's (``players/pimc.py``, with the deals of ``players/sampling.py`` and the
rollouts of ``players/rollouts.py``), driven here so that each sample's end of the deal is kept
and not only its point difference: the position is replicated in ``samples`` rows of one
observation, each row draws the random numbers ``PimcPlayer(samples=1)`` would draw there (one
determinisation of the hidden cards and one rollout key), every legal action is played in it and
the deal is rolled out to its end with the player's rollout players on the fused engine. Every
action of a sample meets the same hidden cards and the same rollout random numbers (common
random numbers), so samples are the units of paired comparisons between moves.
``tests/test_analyse.py`` holds the point differences to ``PimcPlayer(samples=1).evaluate`` on
the same rows, so this cannot drift from the player it stands for. The rules are the engine's:
legal actions from ``kernels.legal_actions``, the move from ``deal_rules.play_row`` (through
``rollouts.apply_first_actions``, as pimc plays it), the rest of the deal from
``fused.play_from_states``, the points from ``scoring.score``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim import seeding
from scopa_sim.contract import LegalActions
from scopa_sim.engine import kernels, scoring
from scopa_sim.engine.deal_rules import deal_rules, outright_winners, seat_sides_around
from scopa_sim.engine.deals import DealState
from scopa_sim.players.endgame import point_difference
from scopa_sim.players.pimc import PimcPlayer
from scopa_sim.players.rollouts import apply_first_actions, play_rollouts, rollout_players
from scopa_sim.players.sampling import sample_deals
from scopa_sim.position.model import Position


@dataclass(frozen=True)
class Rollouts:
    """The ends of every (sample, legal action) of a position: arrays ``[samples, actions]``."""

    legal: LegalActions  # one row: the position's legal actions
    difference: np.ndarray  # float: the seat's side's deal points minus the others' mean
    points: np.ndarray  # int16[samples, actions, sides]: each side's points of the deal
    scope_made: np.ndarray  # int16[samples, actions, sides]: scope after the move (not its own)
    outright: np.ndarray  # int8: side that won the game in this deal outright, else -1
    scopa_now: np.ndarray  # bool[actions]: whether the move itself sweeps for a scopa

    @property
    def samples(self) -> int:
        return self.difference.shape[0]


def legal_actions(pos: Position) -> LegalActions:
    """The position's legal actions, from the engine's listing (slots ordered by card)."""
    rules = kernels.KernelRules.of(pos.variant)
    obs = pos.observation(1)
    arrays = kernels.legal_actions(
        obs.hand, obs.table, rules.ranks, rules.fewest, rules.forced, rule=rules.rule
    )
    return LegalActions(*arrays)


def sample_random(pos: Position, samples: int, seed: int) -> seeding.DecisionRandom:
    """The random numbers of the ``samples`` rows: row ``s`` is keyed as game ``s`` of a run
    seeded ``seed``, at the position's play, so a seed gives the same samples every time."""
    key = seeding.stream_key(seed, seeding.PLAYERS)
    rows = np.arange(samples, dtype=np.int64)
    return seeding.DecisionRandom(seeding.deal_keys(key, rows, np.zeros_like(rows)), pos.play)


def roll_out(pos: Position, player: PimcPlayer, seed: int = 0) -> Rollouts:
    """Every legal action of ``pos`` in each of ``player.samples`` determinised samples."""
    variant, n = pos.variant, player.samples
    legal = legal_actions(pos)
    obs = pos.observation(n)
    rng = sample_random(pos, n, seed)
    hands, pack, keys = sample_deals(obs, rng, 1)  # PimcPlayer(samples=1)'s draws, per row

    actions = int(legal.count[0])
    # Rollout k = a * n + s: action a in sample s.
    action = np.repeat(np.arange(actions), n)
    sample = np.tile(np.arange(n), actions)
    count = len(action)
    state_hands = hands[sample].T.copy()
    table = np.repeat(obs.table[:1], count)
    captured = np.repeat(obs.captured[:1], count, axis=0).T.copy()
    scope = np.repeat(obs.scope[:1], count, axis=0).T.astype(np.int16)
    played = np.repeat(obs.played[:1], count)
    last = np.repeat(obs.last_capturer[:1], count).astype(np.int8)
    side = np.full(count, pos.side, np.int64)
    scores = np.repeat(np.asarray([pos.scores or (0,) * variant.n_sides], np.int16), count, 0)
    packs = np.ascontiguousarray(pack[sample])
    # The move by the engine's step: a move that wins the game ends the deal there, one that
    # ends a round deals the next hands.
    won = np.full(count, -1, np.int8)
    scopa = apply_first_actions(
        np.zeros(count, np.int64), action, legal.card, legal.capture, side[:1],
        np.array([pos.play], np.int64), packs, state_hands, table, captured, scope, last,
        played, won, scores, deal_rules(variant),
    )  # fmt: skip
    stopped = won >= 0
    state = DealState(
        pack=packs, hands=state_hands.T, table=table, captured=captured.T,
        scope=scope.T, played=played, last_capturer=last,
        play=np.full(count, pos.play + 1, np.int64),
        seat_side=np.repeat(seat_sides_around(variant, pos.seat, [pos.side]), count, axis=0),
        scores=scores, deal_keys=keys[sample],
    )  # fmt: skip
    end_captured, end_scope = captured.T.copy(), scope.T.copy()
    after_move = scope.T.copy()
    outright = np.where(stopped, pos.side, -1).astype(np.int8)
    going = np.flatnonzero(~stopped)
    if len(going):
        end = play_rollouts(
            variant, rollout_players(player.rollout, player.mixture), state.take(going)
        )
        end_captured[going], end_scope[going] = end.captured, end.scope
        outright[going] = end.stopped_by
    stopped = outright >= 0
    points = scoring.score(variant, end_captured, end_scope, stopped).totals
    difference = point_difference(variant, end_captured, end_scope, stopped, side)
    outright = outright_winners(variant, end_captured, outright)  # a scopa's, or napoleone
    made = end_scope - after_move

    def grid(values):
        return np.swapaxes(values.reshape(actions, n, *values.shape[1:]), 0, 1)

    return Rollouts(
        legal=legal, difference=grid(difference), points=grid(points.astype(np.int16)),
        scope_made=grid(made.astype(np.int16)), outright=grid(outright),
        scopa_now=scopa.reshape(actions, n)[:, 0].copy(),
    )  # fmt: skip
