"""Sampled states played to the end of their deal by rollout players, on the fused engine.

The search players (``pimc``, ``ismcts``) and the analysis of a position (``scopa_sim.position``)
name their rollout players the same way (a compiled player, or ``mix``: a mixture drawn per side
from each rollout's key) and play them out here, so they all meet the same opponents; a search
plays the candidate action first (:func:`apply_first_actions`), then the rest on the engine.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from scopa_sim import seeding
from scopa_sim.contract import Player
from scopa_sim.engine import fused
from scopa_sim.engine.deal_rules import play_row
from scopa_sim.jit import njit
from scopa_sim.players.compiled import COMPILED
from scopa_sim.rules import RulesError, Variant


@cache
def rollout_player(name: str) -> Player:
    """The compiled player named ``name`` (:data:`scopa_sim.players.compiled.COMPILED`)."""
    if name not in COMPILED:
        raise RulesError(
            f"pimc rolls out with a compiled player ({', '.join(COMPILED)}); {name!r} is not one"
        )
    return COMPILED[name]


@cache
def rollout_players(rollout: str, mixture: str = "") -> tuple[Player, ...]:
    """The rollout players a search names: ``(rollout_player(rollout),)``, or for ``mix`` the
    players of ``mixture`` (names joined by ``+``), in its order."""
    if rollout != "mix":
        return (rollout_player(rollout),)
    names = [name.strip() for name in mixture.split("+")]
    if not mixture.strip() or not all(names):
        raise RulesError(
            f"a rollout mixture names compiled players joined by '+' (e.g. greedy+memory), "
            f"not {mixture!r}"
        )
    return tuple(rollout_player(name) for name in names)


#: Counter hashed with a rollout's key and a side to draw that side's player from a mixture:
#: apart from the counters the fused engine hashes the key with (plays, calls).
_MIXTURE_COUNTER = np.uint64(0x6D69780000000000)


def mixture_seats(n_players: int, keys: np.ndarray, n_sides: int) -> np.ndarray:
    """``int64[rows, sides]``: the mixture index each side of each rollout plays, uniform and a
    function of the rollout's key alone (so the actions of one sample meet the same players)."""
    out = np.empty((len(keys), n_sides), np.int64)
    for s in range(n_sides):
        bits = seeding.hash_counters(np.asarray(keys, np.uint64), _MIXTURE_COUNTER + np.uint64(s))
        out[:, s] = np.minimum(
            (seeding.to_uniform(bits) * n_players).astype(np.int64), n_players - 1
        )
    return out


def play_rollouts(variant: Variant, players: tuple[Player, ...], state) -> fused.DealEnd:
    """Play each state to its deal's end on the fused engine: with one player on every side, or
    with a mixture, each rollout's sides drawn by :func:`mixture_seats` and the rollouts played
    in groups of one lineup each (a rollout's end depends only on its own state and key)."""
    sides = variant.n_sides
    if len(players) == 1:
        return fused.play_from_states(variant, [players[0]] * sides, state)
    seats = mixture_seats(len(players), state.deal_keys, sides)
    code = seats @ (len(players) ** np.arange(sides))
    rows = len(code)
    captured = np.zeros((rows, sides), np.uint64)
    scope = np.zeros((rows, sides), np.int16)
    leftovers = np.zeros(rows, np.uint64)
    stopped_by = np.full(rows, -1, np.int8)
    for value in np.unique(code):
        group = np.flatnonzero(code == value)
        lineup = [players[i] for i in seats[group[0]]]
        end = fused.play_from_states(variant, lineup, state.take(group))
        captured[group], scope[group] = end.captured, end.scope
        leftovers[group], stopped_by[group] = end.leftovers, end.stopped_by
    return fused.DealEnd(captured, scope, leftovers, stopped_by)


@njit(cache=True, nogil=True)
def apply_first_actions(
    rollout_row, rollout_action, card, capture, side, play, pack, hands, table, captured, scope,
    last, played, stopped, scores, rules,
):  # fmt: skip
    """Play each rollout's first action (the candidate being valued) in its state, in place, by
    ``deal_rules.play_row``: the move, the stop on a scopa that wins the game (``stopped[r]``:
    that side) and the next hands dealt when the action ends a round, as the state of the next
    play must hold them. Rollout ``r`` plays action ``rollout_action[r]`` of decision point
    ``rollout_row[r]`` (``card``, ``capture``, ``side``, ``play`` per decision point); its state
    is row ``r`` (``hands[seat, r]``, ``captured[side, r]``, ``pack[r]``, ``scores[r]``).
    Returns which rollouts scored a scopa with it."""
    out = np.zeros(len(rollout_row), np.bool_)
    for r in range(len(rollout_row)):
        b, a = rollout_row[r], rollout_action[r]
        out[r] = play_row(
            r, card[b, a], capture[b, a], play[b], side[b], pack, hands, table, captured,
            scope, last, played, stopped, scores, rules,
        )  # fmt: skip
    return out
