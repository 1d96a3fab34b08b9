"""The value of every move of a position: estimates with 95 % intervals, samples as the unit.

Per legal move, from :func:`rollouts.roll_out`: the expected point difference at the end of the
deal (the seat's side minus the others' mean, the captures and scope so far included) with its t
interval; the paired difference to the best move with its t interval (the same samples and
rollout random numbers for every move, so the pairing removes the luck they share): a move whose
paired interval reaches zero is not separable from the best at these samples; the chance that
the seat's side, and that another side, makes at least one scopa after the move, to the end of
the deal (Wilson intervals; the move's own scopa is shown apart); and with a game score (two
sides) the chance of winning the game after the move, each sample's end of the deal valued by
the win table (``winning``), with its paired difference to the best move. Each interval is a
95 % interval on its own (no multiplicity adjustment over the moves). A quantity that does not vary
over the samples (a position with no hidden card left, a certain scopa) has no interval, as
``stats`` has it: its bounds are null, and a move whose difference to the best is the same
negative number in every sample is separable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scopa_sim import stats
from scopa_sim.cards import cards_of
from scopa_sim.players.pimc import PimcPlayer
from scopa_sim.position.model import Position
from scopa_sim.position.rollouts import Rollouts, roll_out
from scopa_sim.position.winning import win_table

#: What the moves can be ranked by.
RANKINGS = ("points", "win")


@dataclass(frozen=True)
class MoveValue:
    """One legal move and what the rollouts say of it."""

    slot: int  # the move's slot in the engine's legal actions
    card: int
    taken: tuple[int, ...]
    scopa: bool  # the move itself sweeps the table for a scopa
    points: stats.Estimate  # expected point difference at the end of the deal
    vs_best: stats.Estimate  # paired: this move minus the best, in points
    scopa_mine: stats.Estimate  # chance of a later scopa by the seat's side, after the move
    scopa_theirs: stats.Estimate  # chance of a scopa by another side, after the move
    win: stats.Estimate | None  # chance of winning the game (with scores, two sides)
    win_vs_best: stats.Estimate | None  # paired: this move minus the best
    best: bool
    separable: bool  # the paired interval to the best (in the ranking's unit) excludes zero


@dataclass(frozen=True)
class Analysis:
    position: Position
    player: PimcPlayer
    seed: int
    samples: int
    rank_by: str
    moves: tuple[MoveValue, ...]  # best first
    win_before: float | None  # the table's chance of winning from the scores before this deal
    notes: tuple[str, ...]

    def to_json(self) -> dict:
        from scopa_sim.players import spec_of

        pack = self.position.variant.pack

        def est(e: stats.Estimate | None):
            if e is None:
                return None
            if not exact_bounds(e):  # no variation over the samples: no interval
                return {"estimate": e.value, "low": None, "high": None, "estimable": False}
            return {"estimate": e.value, "low": e.low, "high": e.high, "estimable": True}

        return {
            "position": self.position.to_json(),
            "player": spec_of(self.player),
            "samples": self.samples,
            "seed": self.seed,
            "rank_by": self.rank_by,
            "level": stats.LEVEL,
            "interval": "t over samples; vs_best paired over samples (same determinisations)",
            "win_before_deal": self.win_before,
            "command": self.position.command()
            + f" --player {spec_of(self.player)} --seed {self.seed}"
            + (" --rank-by win" if self.rank_by == "win" else ""),
            "notes": list(self.notes),
            "moves": [
                {
                    "rank": k + 1,
                    "slot": m.slot,
                    "card": pack.code(m.card),
                    "takes": [pack.code(c) for c in m.taken],
                    "scopa": m.scopa,
                    "points": est(m.points),
                    "vs_best": est(m.vs_best),
                    "scopa_mine": est(m.scopa_mine),
                    "scopa_theirs": est(m.scopa_theirs),
                    "win": est(m.win),
                    "win_vs_best": est(m.win_vs_best),
                    "best": m.best,
                    "separable": m.separable,
                }
                for k, m in enumerate(self.moves)
            ],
        }


def analyse(pos: Position, player: PimcPlayer, seed: int = 0, rank_by: str = "points") -> Analysis:
    """Every legal move of ``pos`` valued by ``player``'s rollouts, best first."""
    if rank_by not in RANKINGS:
        raise ValueError(f"rank_by is one of {RANKINGS}, not {rank_by!r}")
    ends = roll_out(pos, player, seed)
    notes = []
    win = win_before = None
    if pos.scores is not None and pos.variant.n_sides == 2:
        table = win_table(pos.variant, player.rollout if player.rollout != "mix" else "greedy")
        win = _win_chances(pos, ends, table)
        mine, theirs = pos.relative(pos.scores)
        win_before = table.before_deal(mine, theirs, int(pos.dealer_side == pos.side))
    elif pos.scores is not None:
        notes.append("the chance of winning the game is computed for two sides only")
    if rank_by == "win" and win is None:
        raise ValueError("ranking by the chance of winning needs --scores (two sides)")
    score = win if rank_by == "win" else ends.difference
    best = int(np.argmax(score.mean(axis=0)))
    moves = [_move(pos, ends, win, a, best, rank_by) for a in range(ends.difference.shape[1])]
    key = [m.win.value if rank_by == "win" else m.points.value for m in moves]
    order = sorted(range(len(moves)), key=lambda a: (-key[a], a))
    if pos.seen and not any(pos.captured):
        notes.append(
            "no captures given: the cards out of play count for nobody, so the points are those "
            "still to win (give --captured-mine/--captured-theirs for the deal's totals)"
        )
    return Analysis(
        pos, player, seed, ends.samples, rank_by, tuple(moves[a] for a in order), win_before,
        tuple(notes),
    )  # fmt: skip


def _move(pos, ends: Rollouts, win, a: int, best: int, rank_by: str) -> MoveValue:
    legal = ends.legal
    n = ends.samples
    diff = ends.difference
    made = ends.scope_made[:, a]
    others = list(pos.others)
    mine_scopa = int((made[:, pos.side] > 0).sum())
    theirs_scopa = int((made[:, others] > 0).any(axis=1).sum()) if others else 0
    vs_best = _paired(diff[:, best], diff[:, a])
    win_est = win_vs = None
    if win is not None:
        win_est = stats.mean_ci(win[:, a])
        win_vs = _paired(win[:, best], win[:, a])
    ranked = win_vs if rank_by == "win" else vs_best
    return MoveValue(
        slot=a, card=int(legal.card[0, a]), taken=tuple(cards_of(int(legal.capture[0, a]))),
        scopa=bool(ends.scopa_now[a]), points=stats.mean_ci(diff[:, a]), vs_best=vs_best,
        scopa_mine=stats.proportion_ci(mine_scopa, n),
        scopa_theirs=stats.proportion_ci(theirs_scopa, n), win=win_est, win_vs_best=win_vs,
        best=a == best, separable=a != best and below_best(ranked),
    )  # fmt: skip


def exact_bounds(e: stats.Estimate) -> bool:
    """Whether ``e`` has an interval: a sample with no variation has none (``stats``)."""
    return bool(np.isfinite(e.low) and np.isfinite(e.high)) and e.high > e.low


def below_best(vs_best: stats.Estimate) -> bool:
    """Separable from the best: the paired interval lies below zero, or, when the difference
    does not vary over the samples (no interval), every sample puts the move below the best."""
    if exact_bounds(vs_best):
        return vs_best.high < 0
    return vs_best.value < 0


def _paired(best: np.ndarray, move: np.ndarray) -> stats.Estimate:
    estimate, _ = stats.paired_difference(best, move)
    return estimate


def _win_chances(pos: Position, ends: Rollouts, table) -> np.ndarray:
    """``[samples, actions]``: the chance of winning the game once each sample's deal ends."""
    mine, theirs = pos.relative(pos.scores)
    other = pos.others[0]
    got_mine = mine + ends.points[:, :, pos.side].astype(np.int64)
    got_theirs = theirs + ends.points[:, :, other].astype(np.int64)
    outright = np.where(ends.outright == pos.side, 1, np.where(ends.outright >= 0, -1, 0))
    dealer = int(pos.dealer_side == pos.side)
    return table.after_deal(got_mine, got_theirs, outright, dealer)
