"""How much is luck, how much is skill: the measurement.

From the two seatings of every unit (a deal, or a whole game) of a duplicate pairing, the
cards' share of the outcome variance and its split of the mean square into skill, cards and the
rest; and the relative skill of Borm and van der Genugten from the duplicate margins against a
beginner. Intervals: percentile bootstrap over units resampled jointly across the pairings of a
tournament (they all play the same packs), from fixed seeds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analyses import tournaments as tc
from analyses.framework import MissingData
from scopa_sim import stats, storage
from scopa_sim import tournament as tour

BEGINNERS = ("random", "greedy")
UPPER = "cheater"
REPLICATES = 1000
SEED = 20261201
_CHUNK = 100  # bootstrap replicates per weight matrix (memory: chunk x units)


# statistics ------------------------------------------------------------------------------------


def _weights(n: int, replicates: int, seed: int):
    """Bootstrap weights (how often each unit is drawn), ``_CHUNK`` replicates at a time, from
    one fixed seed: the same draws for every column of a tournament."""
    yield from stats.bootstrap_weights(n, replicates, np.random.default_rng(seed), _CHUNK)


@dataclass(frozen=True)
class Moments:
    """Sums of each column and of its square: the point values (shape k) and the bootstrap
    replicates (shape replicates x k)."""

    n: int
    s: np.ndarray
    q: np.ndarray
    boot_s: np.ndarray
    boot_q: np.ndarray

    def mean(self, j):
        return self.s[j] / self.n, self.boot_s[:, j] / self.n

    def var(self, j):
        n = self.n

        def v(s, q):
            return (q - s * s / n) / (n - 1)

        return v(self.s[j], self.q[j]), v(self.boot_s[:, j], self.boot_q[:, j])


def moments(columns: np.ndarray, replicates: int = REPLICATES, seed: int = SEED) -> Moments:
    """Sums and sums of squares of every column (units in rows), and their bootstrap replicates
    with the units resampled jointly across columns."""
    x = np.asarray(columns, np.float64)
    n = len(x)
    boot_s = np.empty((replicates, x.shape[1]))
    boot_q = np.empty((replicates, x.shape[1]))
    done = 0
    for w in _weights(n, replicates, seed):
        boot_s[done : done + len(w)] = w @ x
        boot_q[done : done + len(w)] = w @ (x * x)
        done += len(w)
    return Moments(n, x.sum(axis=0), (x * x).sum(axis=0), boot_s, boot_q)


def _estimate(value, reps, n: int, level: float = stats.LEVEL) -> stats.Estimate:
    reps = np.asarray(reps, np.float64)
    reps = reps[np.isfinite(reps)]
    if not np.isfinite(value) or not len(reps):
        return stats.Estimate(float(value), float("nan"), float("nan"), n)
    low, high = np.percentile(reps, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return stats.Estimate(float(value), float(low), float(high), n)


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)


@dataclass(frozen=True)
class Decomposition:
    """What the cards and the players decide in a pairing (see the module docstring)."""

    margin: stats.Estimate  # mean duplicate result of A
    var_plain: stats.Estimate  # Var(x), one seating
    var_dup: stats.Estimate  # Var(d), the mean of the two seatings
    cards: stats.Estimate  # 1 - 2 Var(d) / Var(x): the cards' share of the variance
    skill_ms: stats.Estimate  # margin^2 / mean square
    cards_ms: stats.Estimate  # cards * Var(x) / mean square
    rest_ms: stats.Estimate  # (1 - cards) * Var(x) / mean square


def _columns(x1, x2) -> np.ndarray:
    x1, x2 = np.asarray(x1, np.float64), np.asarray(x2, np.float64)
    return np.column_stack([x1, x2, (x1 + x2) / 2])


def _decompose(m: Moments, j: int) -> Decomposition:
    """From the columns x1, x2, d at ``j``, ``j + 1``, ``j + 2`` of ``m``."""
    mean, mean_b = m.mean(j + 2)
    v1, v1_b = m.var(j)
    v2, v2_b = m.var(j + 1)
    vd, vd_b = m.var(j + 2)
    vp, vp_b = (v1 + v2) / 2, (v1_b + v2_b) / 2
    cards, cards_b = 1 - _ratio(2 * vd, vp), 1 - _ratio(2 * vd_b, vp_b)
    ms, ms_b = mean**2 + vp, mean_b**2 + vp_b
    n = m.n

    def of_d(value, reps) -> stats.Estimate:
        """An estimate that rests on the duplicate values: not estimable when they are all the
        same (no variation: stats.not_estimable), whatever the bootstrap repeats."""
        return stats.not_estimable(value, n) if vd == 0 else _estimate(value, reps, n)

    return Decomposition(
        margin=of_d(mean, mean_b),
        var_plain=_estimate(vp, vp_b, n),
        var_dup=of_d(vd, vd_b),
        cards=of_d(cards, cards_b),
        skill_ms=of_d(_ratio(mean**2, ms), _ratio(mean_b**2, ms_b)),
        cards_ms=of_d(_ratio(cards * vp, ms), _ratio(cards_b * vp_b, ms_b)),
        rest_ms=of_d(_ratio((1 - cards) * vp, ms), _ratio((1 - cards_b) * vp_b, ms_b)),
    )


def decompose(x1, x2, replicates: int = REPLICATES, seed: int = SEED) -> Decomposition:
    """The decomposition of one pairing from A's results in the two seatings of each unit."""
    return _decompose(moments(_columns(x1, x2), replicates, seed), 0)


def pooled_cards(m: Moments, starts: list[int]) -> stats.Estimate:
    """The cards' share pooled over pairings: ``1 - sum 2 Var(d) / sum Var(x)``."""
    vd = sum(m.var(j + 2)[0] for j in starts)
    vd_b = sum(m.var(j + 2)[1] for j in starts)
    vp = sum((m.var(j)[0] + m.var(j + 1)[0]) / 2 for j in starts)
    vp_b = sum((m.var(j)[1] + m.var(j + 1)[1]) / 2 for j in starts)
    return _estimate(1 - _ratio(2 * vd, vp), 1 - _ratio(2 * vd_b, vp_b), m.n)


def relative_skill(
    best, upper, replicates: int = REPLICATES, seed: int = SEED
) -> tuple[stats.Estimate, stats.Estimate, stats.Estimate]:
    """RS = mean(best) / mean(upper) with its bootstrap interval, from the per-pack duplicate
    margins of the best fair player and of the upper bound against the beginner (the same
    packs, resampled jointly); also the two margins."""
    m = moments(np.column_stack([best, upper]), replicates, seed)
    return _rs(m.mean(0), m.mean(1), m.n)


def _rs(best, upper, n: int) -> tuple[stats.Estimate, stats.Estimate, stats.Estimate]:
    """RS and the two margins from (value, replicates) of each margin."""
    (b, b_r), (u, u_r) = best, upper
    return _estimate(_ratio(b, u), _ratio(b_r, u_r), n), _estimate(b, b_r, n), _estimate(u, u_r, n)


# data ------------------------------------------------------------------------------------------


def _plan(spec: tc.Spec, data: Path) -> tour.Tournament:
    """The tournament of ``spec`` from its folder (nothing is played), refused with one line when
    the folder is missing, incomplete or holds another tournament."""
    return tc.complete_plan(spec, data, target="luck-skill")


def seatings(t: tour.Tournament, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    """A's results against B in the two seatings of every unit of the tournament, units in the
    order of the packs: points minus B's per deal (deals mode), ``won - 1/2`` per game (games)."""
    for pairing in t.pairings:
        if {pairing.a.spec, pairing.b.spec} == {a, b}:
            break
    else:
        raise MissingData(f"{t.out} has no pairing {a} against {b}")
    stamps = tuple(
        storage.manifest_path(c.out).stat().st_mtime_ns
        if storage.manifest_path(c.out).exists()
        else None
        for c in pairing.runs
    )
    key = (str(pairing.runs[0].out), str(pairing.runs[1].out), t.mode, t.count, stamps)
    if key not in _READ:
        if len(_READ) >= 64:
            _READ.clear()
        _READ[key] = _seatings(t, pairing)
    x1, x2 = _READ[key]
    sign = 1.0 if pairing.a.spec == a else -1.0
    return sign * x1, sign * x2


#: The pairings read so far, by their run folders, size and manifests' times (a replayed run is
#: read again): a page reads each pairing once.
_READ: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _seatings(t: tour.Tournament, pairing: tour.Pairing) -> tuple[np.ndarray, np.ndarray]:
    """A's results in ``pairing`` (A its first player), both seatings."""
    try:
        units = tour.load_pairing(t, pairing)
    except tour.TournamentError as err:
        raise MissingData(str(err)) from None
    if t.mode == "deals":
        x1, x2 = units["a"] - units["b"], units["a_2"] - units["b_2"]
    else:
        x1 = units["a_won"].astype(np.float64) - 0.5
        x2 = units["a_won_2"].astype(np.float64) - 0.5
    x1.flags.writeable = x2.flags.writeable = False
    return x1, x2


def _seed(name: str) -> int:
    digest = hashlib.sha256(f"scopa-sim luck-skill/{SEED}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class PairingRow:
    a: str
    b: str
    d: Decomposition


@dataclass(frozen=True)
class Level:
    """The decomposition of one tournament (deals or games) over its ladder pairings."""

    spec: tc.Spec
    mode: str
    count: int
    rows: list[PairingRow]
    pooled: stats.Estimate


@dataclass(frozen=True)
class Skill:
    """The relative skill against one beginner. The best fair player is picked by a rule (the
    largest mean duplicate margin against the beginner), applied to the data and again in every
    bootstrap replicate, so every interval carries the uncertainty of the pick; ``picked`` is the
    share of replicates that pick the same player as the data. ``*_family``: the intervals of
    the page's two claims about the cheater at the page's family level (None: not computed)."""

    beginner: str
    best: str
    rs: stats.Estimate
    best_margin: stats.Estimate  # best minus beginner
    upper_margin: stats.Estimate  # cheater minus beginner
    upper_over_best: stats.Estimate  # cheater minus best, points per deal
    room: stats.Estimate  # cheater's margin minus best's, both against the beginner
    picked: float = 1.0
    upper_over_best_family: stats.Estimate | None = None
    room_family: stats.Estimate | None = None


@dataclass(frozen=True)
class Preset:
    variant: str
    deals: Level | None
    games: Level | None
    skills: list[Skill]


def _fair(t: tour.Tournament) -> list[str]:
    return [e.spec for e in t.entrants if not e.sees_hidden_cards]


def ladder(t: tour.Tournament) -> list[str]:
    """The players of the page in a tournament: the beginners, the fair players that beat them
    most, the upper bound; in the tournament's order."""
    best = {best_fair(t, beginner)[0] for beginner in BEGINNERS if beginner in _fair(t)}
    keep = set(BEGINNERS) | best | {UPPER}
    return [e.spec for e in t.entrants if e.spec in keep]


def pick_best(point: np.ndarray, reps: np.ndarray) -> tuple[int, np.ndarray]:
    """The choice rule of the best fair player: the largest mean duplicate margin against the
    beginner. Applied to the data (``point``, one value per candidate) and to every bootstrap
    replicate (``reps``, replicates x candidates): the pick of the data and of each replicate."""
    return int(np.argmax(point)), np.argmax(np.asarray(reps), axis=1)


def skill(
    beginner: str,
    candidates: list[str],
    margins: np.ndarray,
    upper: np.ndarray,
    gaps: np.ndarray,
    replicates: int = REPLICATES,
    seed: int = SEED,
    family_level: float = stats.LEVEL,
) -> Skill:
    """The relative skill against ``beginner`` from per-pack duplicate results: ``margins``
    (packs x candidates) of each fair candidate against the beginner, ``upper`` the cheater's,
    ``gaps`` (packs x candidates) the cheater's against each candidate; packs resampled jointly
    and the best candidate picked again in every replicate (:func:`pick_best`)."""
    k = len(candidates)
    m = moments(np.column_stack([margins, upper, gaps]), replicates, seed)
    point, reps = m.s[:k] / m.n, m.boot_s[:, :k] / m.n
    best, picks = pick_best(point, reps)
    rows = np.arange(len(reps))
    b, b_r = point[best], reps[rows, picks]
    u, u_r = m.mean(k)
    g, g_r = m.s[k + 1 + best] / m.n, m.boot_s[rows, k + 1 + picks] / m.n
    rs, best_margin, upper_margin = _rs((b, b_r), (u, u_r), m.n)
    return Skill(
        beginner, candidates[best], rs, best_margin, upper_margin, _estimate(g, g_r, m.n),
        _estimate(u - b, u_r - b_r, m.n), float(np.mean(picks == best)),
        _estimate(g, g_r, m.n, family_level), _estimate(u - b, u_r - b_r, m.n, family_level),
    )  # fmt: skip


def best_fair(t: tour.Tournament, beginner: str) -> tuple[str, dict[str, float]]:
    """The fair player with the largest mean duplicate result against ``beginner`` (points per
    deal, or wins - 1/2 per game), and every fair player's result."""
    margins = {}
    for player in _fair(t):
        if player == beginner:
            continue
        x1, x2 = seatings(t, player, beginner)
        margins[player] = float(np.mean((x1 + x2) / 2))
    return max(margins, key=margins.get), margins


def analyse(
    spec: tc.Spec, t: tour.Tournament, with_skill: bool = True, family_level: float = stats.LEVEL
) -> tuple[Level, list[Skill]]:
    """The decomposition over the ladder's pairings and, when asked, the relative skill against
    each beginner (:func:`skill`, its claims also at ``family_level``), all from one bootstrap
    of the tournament's packs (the same seed: the same draws of packs)."""
    players = ladder(t)
    pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]
    # The stronger-looking player first: the upper bound, then the best fair player, ...
    order = {p: k for k, p in enumerate([UPPER, *[q for q in reversed(players) if q != UPPER]])}
    pairs = [(a, b) if order[a] <= order[b] else (b, a) for a, b in pairs]
    pairs.sort(key=lambda p: (order[p[0]], order[p[1]]))
    columns = np.column_stack([_columns(*seatings(t, a, b)) for a, b in pairs])
    m = moments(columns, REPLICATES, _seed(spec.name))
    rows = [PairingRow(a, b, _decompose(m, 3 * k)) for k, (a, b) in enumerate(pairs)]
    level = Level(spec, t.mode, t.count, rows, pooled_cards(m, [3 * k for k in range(len(pairs))]))
    if not with_skill or UPPER not in players:
        return level, []

    def dup(a: str, b: str) -> np.ndarray:
        x1, x2 = seatings(t, a, b)
        return (x1 + x2) / 2

    out = []
    for beginner in BEGINNERS:
        if beginner not in _fair(t):
            continue
        candidates = [p for p in _fair(t) if p != beginner]
        margins = np.column_stack([dup(p, beginner) for p in candidates])
        gaps = np.column_stack([dup(UPPER, p) for p in candidates])
        out.append(
            skill(beginner, candidates, margins, dup(UPPER, beginner), gaps, REPLICATES,
                  _seed(spec.name), family_level)
        )  # fmt: skip
    return level, out


#: The claims the page decides per relative skill: whether the cheater gains more than the best
#: fair player against the beginner (the room) and whether it beats that player (the gap).
CLAIMS_PER_SKILL = 2


def family_size(specs: list[tc.Spec]) -> int:
    """The page's one family: the claims about the cheater of every relative skill it reports
    (each deals tournament, each beginner), decided by intervals at the family's level."""
    deals = {s.variant for s in specs if s.mode == "deals"}
    return CLAIMS_PER_SKILL * len(BEGINNERS) * len(deals)


def load(data: Path, config: Path) -> list[Preset]:
    """Every preset of the tournaments of ``config``: its deals and games decompositions and
    the relative skill against each beginner."""
    try:
        specs = tc.load_config(config)
    except tc.ConfigError as err:
        raise MissingData(str(err)) from None
    variants = list(dict.fromkeys(s.variant for s in specs))
    level = stats.family_level(family_size(specs))
    presets = []
    for variant in variants:
        deals = games = None
        found = []
        for spec in specs:
            if spec.variant != variant:
                continue
            t = _plan(spec, data)
            if spec.mode == "deals" and deals is None:
                deals, found = analyse(spec, t, family_level=level)
            elif spec.mode == "games" and games is None:
                games, _ = analyse(spec, t, with_skill=False)
        presets.append(Preset(variant, deals, games, found))
    return presets
