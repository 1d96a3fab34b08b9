"""A player's ``act`` as the lockstep engine calls it: the answer checked, and a misbehaving
player turned into one :class:`~scopa_sim.contract.PlayerError` that says what was wrong and at
which decision (variant, game, deal, play).

Why here and not in the player: the engine is the one place every player's answer passes
through, whoever wrote it, and it knows where each row of a batch is. The checks cost a few
array operations per play; a failure costs more (the rows are retried alone to find the one
that raises), but only once, as the run stops.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from scopa_sim.contract import (
    LegalActions,
    Observation,
    Player,
    PlayerError,
    choice_problem,
    user_traceback,
)
from scopa_sim.rules import Variant
from scopa_sim.seeding import DecisionRandom

#: When act raises on a batch, its rows are played alone, in order, to find the first that
#: raises: at most this many rows, for at most this many seconds.
RETRY_ROWS = 64
RETRY_SECONDS = 2.0


@dataclass(frozen=True)
class Decisions:
    """Where the rows of one play are: row ``r`` is deal ``deal[rows[r]]`` of game
    ``game[rows[r]]`` (the data's numbers, from 0), at play ``play`` of ``variant``. Indexed
    only when a message is written."""

    variant: Variant
    game: np.ndarray
    deal: np.ndarray
    rows: np.ndarray
    play: int

    def take(self, rows: np.ndarray) -> Decisions:
        return Decisions(self.variant, self.game, self.deal, self.rows[rows], self.play)

    def at(self, row: int) -> str:
        r = self.rows[row]
        return (
            f"{self.variant.describe()}, game {int(self.game[r])}, deal {int(self.deal[r])}, "
            f"play {self.play}"
        )

    def batch(self) -> str:
        """The batch as a whole: its first row, and how many others share it."""
        others = len(self.rows) - 1
        more = f", in a batch with {others} other deals" if others > 0 else ""
        return self.at(0) + more


def label(player: Player) -> str:
    """A player's name in a message until the layer that knows its spec names it."""
    return f"{type(player).__module__}:{type(player).__qualname__}"


def act(
    player: Player,
    obs: Observation,
    legal: LegalActions,
    rng: DecisionRandom,
    decisions: Decisions,
    side: int,
) -> np.ndarray:
    """``player.act`` of the batch as ``int64[B]``, checked: one index per row, each below its
    row's ``legal.count``. Anything else, or an exception from act, raises :class:`PlayerError`
    naming the decision (``side``: the first side the player plays, for the caller)."""
    fresh = rng.subset(slice(None))  # the same numbers, undrawn: for the retries on a failure
    try:
        choice = player.act(obs, legal, rng)
    except PlayerError:
        raise
    except Exception as err:
        where = _first_raising_row(player, obs, legal, fresh, decisions)
        raise PlayerError(
            f"raised {type(err).__name__}: {err} in act", label(player), where,
            user_traceback(err), side,
        ) from err  # fmt: skip
    problem = choice_problem(choice, legal.count)
    if problem is not None:
        text, row = problem
        where = decisions.at(row) if row >= 0 else decisions.batch()
        raise PlayerError(text, label(player), where, side=side)
    return np.asarray(choice, np.int64)


def _first_raising_row(player, obs, legal, rng, decisions) -> str:
    """The decision of the first row that raises when act is given it alone; the batch when
    none does within :data:`RETRY_ROWS` rows and :data:`RETRY_SECONDS`."""
    started = time.perf_counter()
    for row in range(min(len(legal.count), RETRY_ROWS)):
        one = np.array([row])
        try:
            player.act(obs.take(one), legal.take(one), rng.subset(one))
        except Exception:
            return decisions.at(row)
        if time.perf_counter() - started > RETRY_SECONDS:
            break
    return decisions.batch()
