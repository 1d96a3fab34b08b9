"""Bradley-Terry ratings of the players from the duplicate outcomes of every pairing.

An outcome is A's duplicate win per unit: the game wins in games mode; in deals mode 1, 1/2 or 0
as A's duplicate point difference is positive, zero or negative. Strengths are fitted by the MM
algorithm (Hunter 2004) with one virtual tied unit per pairing (finite strengths when a player
wins every unit), anchored at mean log-strength 0 and shown on an Elo-like scale,
``400 * log10(strength)``; 95 % CIs by a percentile bootstrap seeded from the tournament seed and
each pair's names only. Players that see hidden cards are rated apart, against the fair players'
fitted strengths held fixed: an upper bound on what a fair player could reach, never ranked with
the fair players.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim.tournament.schedule import Tournament

BOOTSTRAP_REPLICATES = 200
UPPER_BOUND_LABEL = "upper bound: sees hidden cards"


@dataclass(frozen=True)
class Rating:
    player: str
    rating: float
    ci_low: float
    ci_high: float
    upper_bound: bool = False

    def to_json(self) -> dict:
        out = {
            "player": self.player,
            "rating": self.rating,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }
        if self.upper_bound:
            out["label"] = UPPER_BOUND_LABEL
        return out


def bradley_terry(
    n_players: int, pairs: Sequence[tuple[int, int, float, float]], tol: float = 1e-10
) -> np.ndarray:
    """Log-strengths (natural log, mean 0) fitted by Hunter's MM algorithm to ``pairs`` of
    ``(i, j, wins of i, units)``; each pair gets one virtual tied unit (see the module doc)."""
    wins = np.zeros((n_players, n_players))
    games = np.zeros((n_players, n_players))
    for i, j, w, n in pairs:
        wins[i, j] += w + 0.5
        wins[j, i] += n - w + 0.5
        games[i, j] += n + 1
        games[j, i] += n + 1
    total = wins.sum(axis=1)
    strength = np.ones(n_players)
    for _ in range(100_000):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), 1.0)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(strength))) < tol:
            strength = new
            break
        strength = new
    return np.log(strength)


def strength_against(fixed: np.ndarray, pairs: Sequence[tuple[int, float, float]]) -> float:
    """Log-strength of one player against opponents of fixed log-strengths ``fixed``: ``pairs``
    of ``(opponent, wins, units)``, one virtual tied unit each, MM iterations."""
    wins = sum(w + 0.5 for _, w, _ in pairs)
    s = 1.0
    for _ in range(100_000):
        denom = sum((n + 1) / (s + np.exp(fixed[j])) for j, _, n in pairs)
        new = wins / denom
        if abs(np.log(new) - np.log(s)) < 1e-10:
            return float(np.log(new))
        s = new
    return float(np.log(s))


def _pair_rng(seed: int, a: str, b: str) -> tuple[np.random.Generator, bool]:
    """A generator for the bootstrap of pair {a, b}, keyed by the seed and the sorted names;
    and whether ``a`` comes first in that order (the orientation the draws are made in)."""
    first, second = sorted((a, b))
    digest = hashlib.sha256(f"scopa-sim tournament/{seed}/{first}/{second}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big")), a == first


def _elo(log_strength) -> np.ndarray:
    return 400 * np.asarray(log_strength) / np.log(10)


def fit_ratings(
    tournament: Tournament, outcomes: dict, replicates: int = BOOTSTRAP_REPLICATES
) -> tuple[list[Rating], list[Rating]]:
    """Fair ratings and, apart, upper-bound ratings of the players that see hidden cards."""
    names = [e.spec for e in tournament.entrants]
    hidden = {e.spec for e in tournament.entrants if e.sees_hidden_cards}
    fair = [n for n in names if n not in hidden]
    cheaters = [n for n in names if n in hidden]
    if not fair:  # nobody to anchor on: the cheaters among themselves, still labelled
        fair, cheaters, all_upper = cheaters, [], True
    else:
        all_upper = False

    # Bootstrap wins per pairing: the sum of resampled units, drawn as a multinomial of the
    # pairing's (loss, tie, win) counts, in the orientation of the sorted names.
    def draws(a: str, b: str) -> np.ndarray:
        counts = np.array(outcomes[(a, b)], np.float64)
        rng, forward = _pair_rng(tournament.seed, a, b)
        if not forward:
            counts = counts[::-1]
        n = int(counts.sum())
        sample = rng.multinomial(n, counts / n, size=replicates)
        wins = sample[:, 2] + 0.5 * sample[:, 1]
        return wins if forward else n - wins

    point = {}
    boot = {}
    for (a, b), (loss, tie, win) in outcomes.items():
        point[(a, b)] = (win + 0.5 * tie, loss + tie + win)
        boot[(a, b)] = draws(a, b)

    def fit(wins_of) -> tuple[np.ndarray, dict[str, float]]:
        index = {n: k for k, n in enumerate(fair)}
        pairs = [
            (index[a], index[b], wins_of(a, b), point[(a, b)][1])
            for (a, b) in outcomes
            if a in index and b in index
        ]
        logs = bradley_terry(len(fair), pairs)
        upper = {}
        for c in cheaters:
            against = []
            for (a, b), (_, n) in point.items():
                if a == c and b in index:
                    against.append((index[b], wins_of(a, b), n))
                elif b == c and a in index:
                    against.append((index[a], n - wins_of(a, b), n))
            upper[c] = strength_against(logs, against) if against else float("nan")
        return logs, upper

    logs, upper = fit(lambda a, b: point[(a, b)][0])
    boot_fair = np.empty((replicates, len(fair)))
    boot_upper = np.empty((replicates, len(cheaters)))
    for r in range(replicates):
        logs_r, upper_r = fit(lambda a, b, r=r: boot[(a, b)][r])
        boot_fair[r] = logs_r
        boot_upper[r] = [upper_r[c] for c in cheaters]

    def ratings(names_, values, samples, is_upper) -> list[Rating]:
        out = []
        for k, name in enumerate(names_):
            low, high = np.percentile(_elo(samples[:, k]), [2.5, 97.5])
            out.append(Rating(name, float(_elo(values[k])), float(low), float(high), is_upper))
        return sorted(out, key=lambda r: -r.rating)

    fair_ratings = ratings(fair, logs, boot_fair, all_upper)
    upper_ratings = ratings(cheaters, [upper[c] for c in cheaters], boot_upper, True)
    if all_upper:
        return [], fair_ratings
    return fair_ratings, upper_ratings
