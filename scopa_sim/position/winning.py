"""The chance of winning the game from a score, for two sides: a table over score states.

Deals are independent of the score (the players here do not look at it), so a game is a Markov
chain over (my score, their score, who deals next): each deal adds a pair of point totals drawn
from the deal's distribution, which depends on whether my side deals, and the dealer passes to
the other side. The distribution is estimated once per variant and player by simulating deals
(``engine.batch.play_deals``, a fixed seed) and the chain is solved exactly by dynamic
programming from the highest scores down, with the game's end as ``engine.batch.game_winners``
decides it: past the target and strictly ahead (a tie there plays on), or, with
``count_in_turn_order``, the first side in play order at the target, which is the side not
dealing; napoleone wins outright. Not modelled in the deals to come: a scopa that wins at once
(``scopa_wins_immediately``) stops a deal that would have reached the target by its end anyway,
so the table ignores it; the deal in progress does stop there (``rollouts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from scopa_sim.jit import njit
from scopa_sim.rules import Variant

#: Deals simulated to estimate the distribution of a deal's points.
TABLE_DEALS = 20_000
#: Seed of those deals (any fixed number: the table is the same in every process).
TABLE_SEED = 22


@dataclass(frozen=True)
class WinTable:
    """``win[a, b, d]``: my side's chance of winning from scores ``a`` (mine) and ``b`` (theirs)
    before a deal, ``d`` = 1 when my side deals it; ``tie[d]`` the same from a tie at or past
    the target (sudden death). Built by :func:`win_table`."""

    variant: Variant
    win: np.ndarray  # float64[target, target, 2]
    tie: np.ndarray  # float64[2]
    outcomes: np.ndarray  # int64[K, 4]: mine, theirs, outright (1 mine, -1 theirs, 0), dealer
    weights: np.ndarray  # float64[K]: probability of each outcome given its dealer flag
    deals: int

    def after_deal(self, mine, theirs, outright, dealer: int) -> np.ndarray:
        """My chance of winning once a deal dealt by ``dealer`` (1: my side) has ended with
        the scores ``mine``, ``theirs`` (arrays) and ``outright`` (1 I won, -1 they won, 0)."""
        mine, theirs = np.asarray(mine, np.int64), np.asarray(theirs, np.int64)
        out = np.empty(mine.shape)
        flat = zip(mine.ravel(), theirs.ravel(), np.asarray(outright).ravel(), strict=True)
        rules = self.variant
        for i, (a, b, o) in enumerate(flat):
            out.flat[i] = _value(
                a, b, o, dealer, rules.target, rules.count_in_turn_order, self.win, self.tie
            )
        return out

    def before_deal(self, mine: int, theirs: int, dealer: int) -> float:
        """My chance of winning from scores before a deal dealt by ``dealer``."""
        target = self.variant.target
        if mine >= target or theirs >= target:
            return float(self.tie[dealer])
        return float(self.win[mine, theirs, dealer])


@njit(cache=True, nogil=True)
def _value(a, b, outright, dealer, target, in_turn, win, tie):
    """The value of the state a deal leaves (scores ``a``, ``b``), the next deal dealt by the
    other side: a won or lost game, a tie past the target, or the table."""
    if outright != 0:
        return 1.0 if outright > 0 else 0.0
    nxt = 1 - dealer
    if a >= target or b >= target:
        if in_turn:
            if a >= target and b >= target:  # the side not dealing counts first
                return 0.0 if dealer == 1 else 1.0
            return 1.0 if a >= target else 0.0
        if a > b:
            return 1.0
        if b > a:
            return 0.0
        return tie[nxt]
    return win[a, b, nxt]


@njit(cache=True, nogil=True)
def _solve(outcomes, weights, target, in_turn, win, tie):
    """Fill ``tie`` then ``win`` from the highest scores down. A deal scoring nothing leaves the
    scores and passes the deal: per state the two dealer flags solve a 2 x 2 system."""
    k = len(outcomes)
    const = np.zeros(2)
    still = np.zeros(2)
    for d in range(2):  # sudden death past the target: the next deal decides unless tied
        for j in range(k):
            mine, theirs, outright = outcomes[j, 0], outcomes[j, 1], outcomes[j, 2]
            if outcomes[j, 3] != d:
                continue
            if outright != 0:
                const[d] += weights[j] * (outright > 0)
            elif mine > theirs:
                const[d] += weights[j]
            elif mine == theirs:
                still[d] += weights[j]
    tie[0] = (const[0] + still[0] * const[1]) / (1 - still[0] * still[1])
    tie[1] = (const[1] + still[1] * const[0]) / (1 - still[0] * still[1])
    for total in range(2 * target - 2, -1, -1):
        for a in range(min(total, target - 1), -1, -1):
            b = total - a
            if b >= target:
                continue
            const[:] = 0.0
            still[:] = 0.0
            for j in range(k):
                mine, theirs, outright, d = (
                    outcomes[j, 0],
                    outcomes[j, 1],
                    outcomes[j, 2],
                    outcomes[j, 3],
                )
                if outright == 0 and mine == 0 and theirs == 0:
                    still[d] += weights[j]
                else:
                    const[d] += weights[j] * _value(
                        a + mine, b + theirs, outright, d, target, in_turn, win, tie
                    )
            det = 1 - still[0] * still[1]
            win[a, b, 0] = (const[0] + still[0] * const[1]) / det
            win[a, b, 1] = (const[1] + still[1] * const[0]) / det


@cache
def win_table(variant: Variant, player: str = "greedy", deals: int = TABLE_DEALS) -> WinTable:
    """The table of ``variant`` (two sides), its deals played by the compiled ``player`` on
    both sides (a search player would cost a great deal for a table of many deals)."""
    from scopa_sim.engine.batch import play_deals
    from scopa_sim.engine.deal_rules import outright_winners
    from scopa_sim.players.rollouts import rollout_player

    if variant.n_sides != 2:
        raise ValueError("the win table is for games of two sides")
    lineup = [rollout_player(player)] * 2
    out = play_deals(variant, lineup, TABLE_SEED, range(deals))
    totals = out.points.sum(axis=2).astype(np.int64)
    dealer = out.dealer_side.astype(np.int64)
    # Napoleone: +1 for the side that won outright, -1 for the other (a stop is not modelled).
    holder = outright_winners(variant, out.captured, np.full(len(dealer), -1, np.int8))
    won = (holder[:, None] == np.arange(2)[None, :]).astype(np.int64)
    outright = won - won[:, ::-1]
    rows = []
    for me in (0, 1):  # every deal seen from each side: mine, theirs, outright, I deal
        rows.append(
            np.stack([totals[:, me], totals[:, 1 - me], outright[:, me], dealer == me], axis=1)
        )
    outcomes, counts = np.unique(np.concatenate(rows).astype(np.int64), axis=0, return_counts=True)
    per_dealer = np.array([counts[outcomes[:, 3] == d].sum() for d in (0, 1)])
    weights = counts / per_dealer[outcomes[:, 3]]
    target = variant.target
    win = np.zeros((target, target, 2))
    tie = np.zeros(2)
    _solve(outcomes, weights, target, variant.count_in_turn_order, win, tie)
    return WinTable(variant, win, tie, outcomes, weights, deals)
