"""Determinised Monte Carlo search (PIMC), and the same search seeing every hand (``cheater``).

For each decision the player samples ``samples`` deals consistent with everything its seat has
seen: the unseen cards (``tactics.unseen_cards``) dealt at random to the other seats' hands and
to the hands still to come, the known cards where they are. It then plays every legal action
in every sample to the end of the deal with the ``rollout`` player on every seat, on the fused
engine (``engine.fused.play_from_states``: all decision points x samples x actions of a batch
in one compiled call), scores each end with ``scoring.score``, and plays the action of highest
mean point difference (its side's deal points minus the mean of the other sides'). Every action
of a decision is rolled out on the same samples and the same rollout random numbers (common
random numbers), so the comparison between actions is paired.

Samples come from the decision's own random numbers (``DecisionRandom``), so the search is
deterministic for a seed and independent of the batch it runs in.

``cheater`` runs the same search on the true deal (one sample: the real hands and stock, from
``Observation.hidden``): an upper bound on what search can get from the cards, never a fair
player (``sees_hidden_cards``), and kept out of fair rankings.

The pieces pimc shares with ``ismcts`` and ``scopa_sim.position`` live in their own modules:
``sampling`` draws the deals, ``rollouts`` plays them out, ``endgame`` solves a last hand exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from scopa_sim.contract import LegalActions, Observation, Player
from scopa_sim.engine import fused
from scopa_sim.engine.deal_rules import deal_rules, schedule, seat_sides_around
from scopa_sim.players.endgame import point_difference, solve_endgame
from scopa_sim.players.kept import kept_search
from scopa_sim.players.rollouts import apply_first_actions, play_rollouts, rollout_players
from scopa_sim.players.sampling import sample_deals
from scopa_sim.rules import RulesError, Variant

#: Largest number of rollouts handed to the fused engine in one call (bounds memory).
_ROLLOUTS_PER_CALL = 1 << 17


@dataclass(frozen=True)
class PimcPlayer(Player):
    """Determinised search: ``samples`` deals consistent with what the seat has seen, every
    legal action rolled out to the end of the deal by ``rollout`` on every seat, the best mean
    point difference played. When at most ``endgame`` plays remain after the action, all in
    hands already dealt, each sample is solved exactly instead (minimax over every way the deal
    can end, the seat's side maximising its point difference).

    The exact endgame is off by default: it plays as if the opponents played perfectly, and
    against greedy (classic, 2,000 duplicate deals, seed 6) ``endgame=6`` scored +0.95 [0.88,
    1.02] points per deal where rollouts scored +1.12 [1.05, 1.19]."""

    name = "pimc"
    summary = "determinised Monte Carlo search: samples hidden hands, rolls every action out"
    searches = True
    samples: int = 64
    #: A compiled player's name, or ``mix``: each rollout seats on every side a player drawn
    #: from ``mixture`` (see :func:`play_rollouts`), so the opponent model is not one player.
    rollout: str = "greedy"
    endgame: int = 0
    #: The players of ``rollout=mix``, joined by ``+`` (a name twice weighs it twice).
    mixture: str = "greedy+memory+chitarrella"

    def __post_init__(self):
        if not 1 <= self.samples <= 4096:
            raise RulesError(f"pimc samples run from 1 to 4096, not {self.samples}")
        if not 0 <= self.endgame <= 12:
            raise RulesError(
                f"pimc endgame (plays left solved exactly) runs 0..12, not {self.endgame}"
            )
        rollout_players(self.rollout, self.mixture)

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        values = self.evaluate(obs, legal, rng)
        return np.argmax(np.where(legal.valid, values, -np.inf), axis=1).astype(np.int64)

    def explain(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        """Mean point difference of each legal action (``-inf`` in padding)."""
        return np.where(legal.valid, self.evaluate(obs, legal, rng), -np.inf)

    def evaluate(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        """Per row and legal slot: the mean point difference of the action over the sampled
        deals. A one-row evaluation is kept for a second asking (:mod:`scopa_sim.players.kept`)."""
        return kept_search(self, obs, legal, rng, self._evaluate)[0]

    def _evaluate(self, obs: Observation, legal: LegalActions, rng) -> tuple[np.ndarray]:
        variant = obs.variant
        rows, width = legal.card.shape
        values = np.zeros((rows, width))
        hidden = self._deals(obs, rng)
        samples = hidden.hands.shape[0] // max(rows, 1)
        for part in _slices(legal.count * samples, _ROLLOUTS_PER_CALL):
            values[part] = self._rollout_values(variant, obs, legal, hidden, part, samples)
        return (values,)

    # The search ---------------------------------------------------------------------------

    def _deals(self, obs: Observation, rng) -> _Hidden:
        """The sampled hands and packs of every row (``samples`` per row), and their keys."""
        return _Hidden(*sample_deals(obs, rng, self.samples))

    def _rollout_values(self, variant, obs, legal, hidden, part, samples) -> np.ndarray:
        n_actions = legal.count[part]
        # One rollout per (row, action, sample), rows' rollouts contiguous.
        row = np.repeat(part, n_actions * samples)
        action, sample = np.divmod(_ranks_within(n_actions * samples), samples)
        src = row * samples + sample
        count = len(row)
        hands = hidden.hands[src].T.copy()
        table = obs.table[row].copy()
        captured = obs.captured[row].T.copy()
        scope = obs.scope[row].T.astype(np.int16)
        played = obs.played[row].copy()
        last = obs.last_capturer[row].astype(np.int8)
        side = obs.side[row].astype(np.int64)
        play = np.full(count, obs.play, np.int64)
        pack = np.ascontiguousarray(hidden.pack[src])
        scores = obs.scores[row].astype(np.int16)
        # The candidate, played by the engine's step (a scopa that wins the game stops the deal
        # there; one that ends a round deals the next hands, as the next play's state holds them).
        won = np.full(count, -1, np.int8)
        apply_first_actions(
            np.arange(count), action, legal.card[row], legal.capture[row], side, play, pack,
            hands, table, captured, scope, last, played, won, scores, deal_rules(variant),
        )  # fmt: skip
        stopped = won >= 0
        seat_side = seat_sides_around(variant, obs.seat, obs.side)[row]
        state = fused.DealState(
            pack=pack, hands=hands.T, table=table, captured=captured.T,
            scope=scope.T, played=played, last_capturer=last, play=play + 1,
            seat_side=seat_side, scores=scores, deal_keys=hidden.keys[src],
        )  # fmt: skip
        going = np.flatnonzero(~stopped)
        end_captured = captured.T.copy()
        end_scope = scope.T.copy()
        exact = self._solvable(variant, obs.play + 1)
        if len(going) and not exact:
            players = rollout_players(self.rollout, self.mixture)
            end = play_rollouts(variant, players, state.take(going))
            end_captured[going], end_scope[going] = end.captured, end.scope
            stopped[going] = end.stopped_by >= 0
        diff = point_difference(variant, end_captured, end_scope, stopped, side)
        if len(going) and exact:
            diff[going] = solve_endgame(variant, state.take(going), side[going])
        # Mean over samples per (row, action).
        means = diff.reshape(-1, samples).mean(axis=1)
        out = np.full((len(part), legal.card.shape[1]), -np.inf)
        out[np.repeat(np.arange(len(part)), n_actions), _ranks_within(n_actions)] = means
        return out

    def _solvable(self, variant: Variant, play: int) -> bool:
        """Whether the deal from ``play`` on is solved exactly: few plays left, none of them
        in a hand still to be dealt."""
        left = variant.plays - play
        if left > self.endgame:
            return False
        round_of = schedule(variant).round_of
        return left == 0 or round_of[play] == round_of[variant.plays - 1]


def _ranks_within(sizes: np.ndarray) -> np.ndarray:
    """``0 .. size - 1`` for each of ``sizes`` in turn, concatenated (without a loop over
    them: a batch has thousands of rows)."""
    total = int(sizes.sum())
    starts = np.cumsum(sizes) - sizes
    return np.arange(total) - np.repeat(starts, sizes)


def _slices(sizes: np.ndarray, limit: int):
    """Consecutive runs of rows, each as ``arange(start, stop)``, whose ``sizes`` sum to at most
    ``limit`` (a row larger than ``limit`` alone): the rollouts of a run are one engine call."""
    ends = np.cumsum(sizes)
    start = 0
    while start < len(sizes):
        before = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, before + limit, side="right")), start + 1)
        yield np.arange(start, stop)
        start = stop


@dataclass(frozen=True)
class _Hidden:
    hands: np.ndarray  # uint64[rows * samples, n_players]
    pack: np.ndarray  # int8[rows * samples, cards]
    keys: np.ndarray  # uint64[rows * samples]: the rollouts' random keys


@dataclass(frozen=True)
class CheaterPlayer(PimcPlayer):
    """The same search on the true deal: it sees every hand and the stock (one sample, the real
    one). An upper bound for search, labelled as such and never ranked among fair players."""

    name = "cheater"
    summary = "pimc seeing every hand (an upper bound, not a fair player)"
    samples: int = 1
    sees_hidden_cards: ClassVar[bool] = True

    def __post_init__(self):
        if self.samples != 1:
            raise RulesError("cheater searches the one true deal: samples is 1")
        rollout_players(self.rollout, self.mixture)

    def _deals(self, obs: Observation, rng) -> _Hidden:
        if obs.hidden_hands is None or obs.hidden_pack is None:
            raise RuntimeError("cheater needs the hidden cards; the engine gives them to players")
        rows = len(obs.hand)
        keys = (rng.random(size=1) * 2.0**63).astype(np.uint64)
        return _Hidden(obs.hidden_hands.copy(), obs.hidden_pack.copy(), keys.reshape(rows))
