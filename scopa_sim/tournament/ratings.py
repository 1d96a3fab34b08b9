"""Ratings of the players from the duplicate outcomes of every pairing: Davidson's model.

An outcome is A's duplicate result on one pack: in deals mode a win, tie or loss as A's
duplicate point difference is positive, zero or negative; in games mode A won the games of both
seatings, one of them, or neither. Ties are common (7-72 % of the packs of a pairing) and
carry information of their own, so they are modelled, not scored as half wins: Davidson (1970),
``P(i wins) = pi_i / D``, ``P(tie) = nu sqrt(pi_i pi_j) / D``, ``P(j wins) = pi_j / D``. Fitted by
maximum likelihood (Newton's method, batched over bootstrap replicates), with one virtual unit
per pairing split equally among loss, tie and win (finite strengths when a player wins every
pack), anchored at mean log-strength 0 and shown on an Elo-like scale ``400 * log10(pi)``: a
400-point gap is 10:1 odds of winning a pack that is not tied.

Every pairing plays the same packs, so the outcomes of pairings are correlated across pairings
(strongly: a pack that suits a player suits it against everyone). The 95 % intervals are
percentile intervals of a bootstrap that draws one set of pack indices per replicate and applies
it to every pairing, seeded from the tournament seed. The model's fit is tested on the same
replicates: a Wald test of the residuals (observed minus fitted shares of every pairing) with
their covariance from the joint bootstrap, so the test allows for the correlation too.

Players that see hidden cards are rated apart, against the fair players' fitted strengths and
tie parameter held fixed (in each replicate): an upper bound on what a fair player could reach,
never ranked with the fair players.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim import stats
from scopa_sim.tournament.schedule import Tournament

BOOTSTRAP_REPLICATES = 1000
UPPER_BOUND_LABEL = "upper bound: sees hidden cards"
#: The virtual unit added to every pairing's (loss, tie, win) counts.
VIRTUAL_UNIT = np.array([1 / 3, 1 / 3, 1 / 3])
#: What a rating is a strength at, by tournament mode: ratings of two modes are not comparable.
SCALES = {
    "deals": (
        "deals scale: strengths at winning a duplicate deal (the sign of the duplicate points "
        "margin of one pack); a 400-point gap is 10:1 odds of winning a deal that is not tied"
    ),
    "games": (
        "games scale: strengths at winning a duplicate game (the games of both seatings won; "
        "one each is a tie); a 400-point gap is 10:1 odds of winning a game pair that is not tied"
    ),
}


@dataclass(frozen=True)
class Rating:
    player: str
    rating: float
    ci_low: float
    ci_high: float
    upper_bound: bool = False
    packs: int = 0  # the packs the rating rests on (every pairing plays the same ones)

    def to_json(self) -> dict:
        out = {
            "player": self.player,
            "rating": self.rating,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "packs": self.packs,
        }
        if self.upper_bound:
            out["label"] = UPPER_BOUND_LABEL
        return out


@dataclass(frozen=True)
class Fit:
    """How well Davidson's model fits the fair pairings, and its tie parameter."""

    statistic: float | None  # Wald chi-square of the residuals; None when not testable
    df: int
    p_value: float | None
    tie_parameter: stats.Estimate  # nu, with its bootstrap interval
    packs: int
    #: Per fair pairing: (A, B, observed (loss, tie, win) shares of A, fitted shares).
    pairings: tuple = ()

    def worst(self) -> tuple | None:
        """The pairing the model fits worst (largest Pearson contribution), or None."""
        if not self.pairings:
            return None

        def pearson(item) -> float:
            _, _, seen, fitted = item
            return float(np.sum((np.subtract(seen, fitted)) ** 2 / np.maximum(fitted, 1e-300)))

        return max(self.pairings, key=pearson)

    def to_json(self) -> dict:
        nu = self.tie_parameter
        return {
            "model": "Davidson (1970) ties",
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "tie_parameter": nu.value,
            "tie_parameter_ci_low": nu.low,
            "tie_parameter_ci_high": nu.high,
            "packs": self.packs,
            "pairings": [
                {"a": a, "b": b, "observed": [float(x) for x in seen],
                 "fitted": [float(x) for x in fitted]}
                for a, b, seen, fitted in self.pairings
            ],
        }  # fmt: skip

    def text(self) -> str:
        nu = self.tie_parameter
        tie = f"tie parameter nu = {nu.value:.3g} [{nu.low:.3g}, {nu.high:.3g}]"
        if self.statistic is None:
            return f"goodness of fit: not testable ({self.df} df); {tie}"
        verdict = (
            "the model is rejected: read the ratings as a summary, the pairings as the result"
            if self.p_value < 1 - stats.LEVEL
            else "not rejected"
        )
        text = (
            f"goodness of fit: Wald chi-square {self.statistic:.1f} on {self.df} df, "
            f"p {stats.format_p(self.p_value, equals=True)} ({verdict}); {tie}"
        )
        worst = self.worst()
        if worst is not None and self.p_value < 1 - stats.LEVEL:
            a, b, seen, fitted = worst
            text += (
                f"; worst fit: {a} vs {b}, (loss, tie, win) of {a} observed "
                f"{'/'.join(f'{x:.2f}' for x in seen)}, fitted "
                f"{'/'.join(f'{x:.2f}' for x in fitted)}"
            )
        return text


@dataclass(frozen=True)
class RatingFit:
    ratings: list[Rating]  # fair players, best first
    upper_bounds: list[Rating]  # players that see hidden cards, best first
    fit: Fit | None  # None with fewer than two fair players


def bradley_terry(
    n_players: int, pairs: Sequence[tuple[int, int, float, float]], tol: float = 1e-10
) -> np.ndarray:
    """Log-strengths (natural log, mean 0) of the plain Bradley-Terry model (no ties), fitted by
    Hunter's MM algorithm to ``pairs`` of ``(i, j, wins of i, units)``, each pair with half a
    virtual win for each side: the model the ratings used before ties were modelled."""
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


# Davidson's model, batched over replicates ------------------------------------------------------


def _newton(design: np.ndarray, counts: np.ndarray, offset=0.0, tol: float = 1e-10):
    """Maximum-likelihood coefficients of a three-outcome multinomial logit, one fit per
    replicate: ``design`` (pairs, 3, d) gives each outcome's linear predictor, ``counts``
    (replicates, pairs, 3) the observed counts, ``offset`` a fixed part of the predictors. The
    log-likelihood is concave; steps are capped so that a far start cannot overshoot."""
    r = counts.shape[0]
    beta = np.zeros((r, design.shape[-1]))
    n = counts.sum(axis=-1)
    outer = np.einsum("pod,poe->pode", design, design)
    for _ in range(200):
        eta = np.einsum("pod,rd->rpo", design, beta) + offset
        eta -= eta.max(axis=-1, keepdims=True)
        p = np.exp(eta)
        p /= p.sum(axis=-1, keepdims=True)
        grad = np.einsum("rpo,pod->rd", counts - n[..., None] * p, design)
        mean = np.einsum("rpo,pod->rpd", p, design)
        second = np.einsum("rpo,pode->rpde", p, outer) - mean[..., :, None] * mean[..., None, :]
        info = np.einsum("rp,rpde->rde", n, second)
        step = np.linalg.solve(info, grad[..., None])[..., 0]
        largest = np.abs(step).max(axis=-1, keepdims=True)
        step *= np.minimum(1.0, 4.0 / np.maximum(largest, 1e-300))
        beta += step
        if np.abs(step).max() < tol:
            break
    return beta


def _probabilities(logs_i, logs_j, log_nu) -> np.ndarray:
    """(loss, tie, win) probabilities of i against j, shapes broadcast, outcomes last."""
    eta = np.stack([logs_j, log_nu + (logs_i + logs_j) / 2, logs_i], axis=-1)
    eta = eta - eta.max(axis=-1, keepdims=True)
    p = np.exp(eta)
    return p / p.sum(axis=-1, keepdims=True)


def davidson(
    n_players: int, first: Sequence[int], second: Sequence[int], counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Log-strengths (replicates, players; mean 0) and log tie parameter (replicates) of
    Davidson's model, from ``counts`` (replicates, pairs, 3) of (loss, tie, win) of player
    ``first[p]`` against ``second[p]``; a 2-d ``counts`` is one replicate. The virtual unit of
    each pairing is added here."""
    counts = np.asarray(counts, np.float64)
    single = counts.ndim == 2
    counts = (counts[None] if single else counts) + VIRTUAL_UNIT
    k = n_players
    design = np.zeros((len(first), 3, k + 1))
    for p, (i, j) in enumerate(zip(first, second, strict=True)):
        design[p, 0, j] = 1.0
        design[p, 1, [i, j]] = 0.5
        design[p, 1, k] = 1.0
        design[p, 2, i] = 1.0
    beta = _newton(design[:, :, 1:], counts)  # log-strength of player 0 held at 0
    logs = np.concatenate([np.zeros((len(counts), 1)), beta[:, : k - 1]], axis=1)
    logs -= logs.mean(axis=1, keepdims=True)
    log_nu = beta[:, k - 1]
    return (logs[0], log_nu[0]) if single else (logs, log_nu)


def davidson_against(fixed: np.ndarray, log_nu: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Log-strength (per replicate) of one player against opponents whose log-strengths
    ``fixed`` (replicates, opponents) and tie parameter ``log_nu`` (replicates) are held fixed;
    ``counts`` (replicates, opponents, 3): its (loss, tie, win) against each."""
    counts = np.asarray(counts, np.float64) + VIRTUAL_UNIT
    design = np.zeros((counts.shape[1], 3, 1))
    design[:, 1, 0], design[:, 2, 0] = 0.5, 1.0
    offset = np.stack(
        [fixed, log_nu[:, None] + fixed / 2, np.zeros_like(fixed)], axis=-1
    )  # (replicates, opponents, 3)
    return _newton(design, counts, offset)[:, 0]


def goodness_of_fit(
    first, second, observed: np.ndarray, point: tuple, boot_counts: np.ndarray, boot: tuple
) -> float | None:
    """Wald chi-square of the residuals of the model, observed minus fitted shares of the loss
    and win cells of every pairing (the tie cell is the rest), with their covariance from the
    replicates ``boot_counts`` and their fits ``boot`` (log-strengths, log nu): that covariance
    carries the correlation between pairings that play the same packs. Returns the statistic
    on ``2 * pairs - players`` df, or None when the residuals do not vary."""
    first, second = np.asarray(first), np.asarray(second)

    def residuals(counts, logs, log_nu):
        shares = counts / counts.sum(axis=-1, keepdims=True)
        fitted = _probabilities(logs[..., first], logs[..., second], np.asarray(log_nu)[..., None])
        res = (shares - fitted)[..., [0, 2]]
        return res.reshape(*res.shape[:-2], -1)

    n_players = int(max(first.max(), second.max())) + 1
    df = 2 * len(first) - n_players
    if df <= 0:
        return None
    r0 = residuals(np.asarray(observed, np.float64), *point)
    rb = residuals(np.asarray(boot_counts, np.float64), *boot)
    cov = np.cov(rb, rowvar=False)
    values, vectors = np.linalg.eigh(np.atleast_2d(cov))
    keep = np.argsort(values)[::-1][:df]
    if not values[keep[-1]] > 1e-12 * max(values.max(), 1e-300):
        return None
    projected = vectors[:, keep].T @ r0
    return float(np.sum(projected**2 / values[keep]))


# the tournament's ratings -----------------------------------------------------------------------


def outcome_codes(outcome: np.ndarray) -> np.ndarray:
    """A's per-pack duplicate outcomes (0, 1/2, 1) as indices 0 (loss), 1 (tie), 2 (win)."""
    o = np.asarray(outcome, np.float64)
    return np.where(o > 0.5, 2, np.where(o < 0.5, 0, 1)).astype(np.int64)


def pack_bootstrap_counts(codes: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """(loss, tie, win) counts of every pairing in each replicate, shape (replicates, pairings,
    3), from ``codes`` (pairings, packs): one set of pack indices per replicate, applied to every
    pairing (they all play the same packs)."""
    codes = np.asarray(codes)
    cells = np.zeros((codes.shape[1], codes.shape[0] * 3))
    for p, row in enumerate(codes):
        cells[np.arange(codes.shape[1]), 3 * p + row] = 1.0
    rng = np.random.default_rng(seed)
    out = np.concatenate(
        [w @ cells for w in stats.bootstrap_weights(codes.shape[1], replicates, rng)]
    )
    return out.reshape(replicates, codes.shape[0], 3)


def bootstrap_seed(seed: int) -> int:
    """The seed of a tournament's rating bootstrap: its seed alone, so naming the players in
    another order or adding a player that sees hidden cards draws the same packs."""
    digest = hashlib.sha256(f"scopa-sim tournament ratings/{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _elo(log_strength) -> np.ndarray:
    return 400 * np.asarray(log_strength) / np.log(10)


def _interval(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [100 * (1 - stats.LEVEL) / 2, 100 * (1 + stats.LEVEL) / 2])
    return float(low), float(high)


def rate(
    names: Sequence[str],
    hidden: set[str],
    outcomes: dict[tuple[str, str], np.ndarray],
    seed: int,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> RatingFit:
    """Ratings of ``names`` from ``outcomes``: per pairing (A, B), A's duplicate outcome on
    every pack (0, 1/2, 1), the packs in the same order in every pairing; ``hidden``: the
    players rated apart. See the module docstring."""
    fair = [n for n in names if n not in hidden]
    cheaters = [n for n in names if n in hidden]
    all_upper = not fair  # nobody to anchor on: the cheaters among themselves, still labelled
    if all_upper:
        fair, cheaters = cheaters, []
    pairs = list(outcomes)
    codes = np.stack([outcome_codes(outcomes[p]) for p in pairs])
    packs = codes.shape[1]
    observed = np.stack([np.bincount(c, minlength=3) for c in codes]).astype(np.float64)
    boot = pack_bootstrap_counts(codes, replicates, bootstrap_seed(seed))
    index = {n: k for k, n in enumerate(fair)}
    fair_pairs = [k for k, (a, b) in enumerate(pairs) if a in index and b in index]
    first = [index[pairs[k][0]] for k in fair_pairs]
    second = [index[pairs[k][1]] for k in fair_pairs]
    if fair_pairs:
        logs, log_nu = davidson(len(fair), first, second, observed[fair_pairs])
        boot_logs, boot_nu = davidson(len(fair), first, second, boot[:, fair_pairs])
    else:  # one fair player, rated 0 by the anchor: the tie parameter from every pairing
        every = {n: k for k, n in enumerate(names)}
        ends = [[every[a] for a, _ in pairs], [every[b] for _, b in pairs]]
        logs, log_nu = np.zeros(1), davidson(len(names), *ends, observed)[1]
        boot_logs, boot_nu = np.zeros((replicates, 1)), davidson(len(names), *ends, boot)[1]

    def rating(name, value, samples, upper) -> Rating:
        return Rating(name, float(_elo(value)), *_interval(_elo(samples)), upper, packs)

    fair_ratings = sorted(
        (rating(n, logs[k], boot_logs[:, k], all_upper) for n, k in index.items()),
        key=lambda r: -r.rating,
    )
    upper = []
    for c in cheaters:
        rows, opponents = [], []
        for k, (a, b) in enumerate(pairs):
            if c in (a, b) and ({a, b} - {c}) <= set(index):
                opponent = b if a == c else a
                rows.append((k, a == c))
                opponents.append(index[opponent])
        if not rows:
            continue

        def oriented(counts, rows=rows):
            return np.stack([counts[..., k, :] if a_first else counts[..., k, ::-1]
                             for k, a_first in rows], axis=-2)  # fmt: skip

        value = davidson_against(
            logs[None, opponents], np.array([log_nu]), oriented(observed)[None]
        )
        samples = davidson_against(boot_logs[:, opponents], boot_nu, oriented(boot))
        upper.append(rating(c, value[0], samples, True))
    upper.sort(key=lambda r: -r.rating)
    fit = None
    if len(fair) > 1:
        statistic = goodness_of_fit(
            first, second, observed[fair_pairs], (logs, log_nu), boot[:, fair_pairs],
            (boot_logs, boot_nu),
        )  # fmt: skip
        df = 2 * len(fair_pairs) - len(fair)
        p = None if statistic is None else float(stats.sps.chi2.sf(statistic, df))
        nu = stats.Estimate(float(np.exp(log_nu)), *_interval(np.exp(boot_nu)), packs)
        fitted = _probabilities(logs[first], logs[second], log_nu)
        shares = observed[fair_pairs] / packs
        table = tuple(
            (pairs[k][0], pairs[k][1], tuple(shares[q]), tuple(fitted[q]))
            for q, k in enumerate(fair_pairs)
        )
        fit = Fit(statistic, df, p, nu, packs, table)
    if all_upper:
        return RatingFit([], fair_ratings, fit)
    return RatingFit(fair_ratings, upper, fit)


def fit_ratings(
    tournament: Tournament, outcomes: dict, replicates: int = BOOTSTRAP_REPLICATES
) -> RatingFit:
    """Fair ratings, apart the upper-bound ratings of the players that see hidden cards, and the
    model's fit: :func:`rate` on the tournament's players, seeded by its seed."""
    names = [e.spec for e in tournament.entrants]
    hidden = {e.spec for e in tournament.entrants if e.sees_hidden_cards}
    return rate(names, hidden, outcomes, tournament.seed, replicates)
