"""How much is luck, how much is skill?

Per preset, from duplicate round robins of the ladder random, greedy, the best fair player and
the cheater (configs/luck_skill.toml, played by ``make luck-skill``; classic deals reuse
``classic-deals`` of configs/tournaments.toml):

1. The cards' share of a deal's and of a game's outcome. For a pairing A against B on unit i (a
   deal, or a whole game), x1_i and x2_i are A's result in the two seatings of the same pack(s):
   its points minus B's for a deal, ``won - 1/2`` for a game. Plain play sees one of them; the
   duplicate value is d_i = (x1_i + x2_i) / 2. The pack's luck follows the seat, so it cancels
   out of d and nothing else does: the cards' share of the plain outcome's variance is
   ``1 - 2 Var(d) / Var(x)`` (= -Cov(x1, x2) / Var(x) when both seatings vary alike), with Var(x)
   the mean of the two seatings' variances. The mean square of a plain result splits into skill
   (the mean gap squared), cards (that share of the variance) and the rest (what the players'
   choices, their own random numbers and the pack's interaction with who plays it add).
2. The relative skill of Borm and van der Genugten (2001): RS = (best fair - beginner) /
   (cheater - beginner), each result the player's duplicate margin in points per deal against
   the beginner (so the beginner's own is exactly 0), on the same packs.

Intervals: percentile bootstrap over packs (units resampled jointly across the pairings of a
tournament, which all play the same packs), fixed seed. The page plays nothing; it reads the
run folders of the tournaments with scopa_sim.tournament.

``python -m analyses.luck_skill --commands`` prints the tournaments' commands, one a line (the
``luck-skill`` target of the Makefile runs them).
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analyses import who_plays_best
from analyses._common import DATA, MissingData, main
from scopa_sim import reporting, stats, storage
from scopa_sim import tournament as tour

#: The tournaments of this page (``make luck-skill``).
CONFIG = Path(__file__).resolve().parent.parent / "configs" / "luck_skill.toml"
BEGINNERS = ("random", "greedy")
UPPER = "cheater"
REPLICATES = 1000
SEED = 20261201
_CHUNK = 100  # bootstrap replicates per weight matrix (memory: chunk x units)


# statistics ------------------------------------------------------------------------------------


def _weights(n: int, replicates: int, seed: int):
    """Bootstrap weights (how often each unit is drawn), ``_CHUNK`` replicates at a time, from
    one fixed seed: the same draws for every column of a tournament."""
    rng = np.random.default_rng(seed)
    done = 0
    while done < replicates:
        k = min(_CHUNK, replicates - done)
        draws = rng.integers(0, n, size=(k, n)) + n * np.arange(k)[:, None]
        yield np.bincount(draws.ravel(), minlength=k * n).reshape(k, n).astype(np.float64)
        done += k


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


def _estimate(value, reps, n: int) -> stats.Estimate:
    reps = np.asarray(reps, np.float64)
    reps = reps[np.isfinite(reps)]
    if not np.isfinite(value) or not len(reps):
        return stats.Estimate(float(value), float("nan"), float("nan"), n)
    low, high = np.percentile(reps, [100 * (1 - stats.LEVEL) / 2, 100 * (1 + stats.LEVEL) / 2])
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
    return Decomposition(
        margin=_estimate(mean, mean_b, n),
        var_plain=_estimate(vp, vp_b, n),
        var_dup=_estimate(vd, vd_b, n),
        cards=_estimate(cards, cards_b, n),
        skill_ms=_estimate(_ratio(mean**2, ms), _ratio(mean_b**2, ms_b), n),
        cards_ms=_estimate(_ratio(cards * vp, ms), _ratio(cards_b * vp_b, ms_b), n),
        rest_ms=_estimate(_ratio((1 - cards) * vp, ms), _ratio((1 - cards_b) * vp_b, ms_b), n),
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


def _plan(spec: who_plays_best.Spec, data: Path) -> tour.Tournament:
    """The tournament of ``spec`` from its folder (nothing is played), refused with one line when
    the folder is missing, incomplete or holds another tournament."""
    return who_plays_best.complete_plan(spec, data, target="luck-skill")


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
        units = tour._load_pairing(t, pairing)
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

    spec: who_plays_best.Spec
    mode: str
    count: int
    rows: list[PairingRow]
    pooled: stats.Estimate


@dataclass(frozen=True)
class Skill:
    beginner: str
    best: str
    rs: stats.Estimate
    best_margin: stats.Estimate  # best minus beginner
    upper_margin: stats.Estimate  # cheater minus beginner
    upper_over_best: stats.Estimate  # cheater minus best, points per deal
    room: stats.Estimate  # cheater's margin minus best's, both against the beginner


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
    spec: who_plays_best.Spec, t: tour.Tournament, with_skill: bool = True
) -> tuple[Level, list[Skill]]:
    """The decomposition over the ladder's pairings and, when asked, the relative skill against
    each beginner, all from one bootstrap of the tournament's packs."""
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

    def margin(a: str, b: str):
        """A's mean duplicate result against B and its replicates (the d column of the pair)."""
        if (a, b) in pairs:
            return m.mean(3 * pairs.index((a, b)) + 2)
        value, reps = m.mean(3 * pairs.index((b, a)) + 2)
        return -value, -reps

    out = []
    for beginner in BEGINNERS:
        if beginner not in _fair(t):
            continue
        best, _ = best_fair(t, beginner)
        (b, b_r), (u, u_r) = margin(best, beginner), margin(UPPER, beginner)
        rs, best_margin, upper_margin = _rs((b, b_r), (u, u_r), m.n)
        gap = _estimate(*margin(UPPER, best), m.n)
        room = _estimate(u - b, u_r - b_r, m.n)
        out.append(Skill(beginner, best, rs, best_margin, upper_margin, gap, room))
    return level, out


def load(data: Path, config: Path = CONFIG) -> list[Preset]:
    try:
        specs = who_plays_best.load_config(config)
    except who_plays_best.ConfigError as err:
        raise MissingData(str(err)) from None
    variants = list(dict.fromkeys(s.variant for s in specs))
    presets = []
    for variant in variants:
        deals = games = None
        found = []
        for spec in specs:
            if spec.variant != variant:
                continue
            t = _plan(spec, data)
            if spec.mode == "deals" and deals is None:
                deals, found = analyse(spec, t)
            elif spec.mode == "games" and games is None:
                games, _ = analyse(spec, t, with_skill=False)
        presets.append(Preset(variant, deals, games, found))
    return presets


# page ------------------------------------------------------------------------------------------


def _ci(e: stats.Estimate, digits: int = 3, signed: bool = False) -> str:
    f = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
    return f"{f.format(e.value)} [{f.format(e.low)}, {f.format(e.high)}]"


def _pct(e: stats.Estimate) -> str:
    if not np.isfinite(e.value):
        return "— (no variance)"

    def p(x: float) -> str:
        return f"{round(float(100 * x))}"  # an int: no "-0"

    if not (np.isfinite(e.low) and np.isfinite(e.high)):
        return f"{p(e.value)}%"
    return f"{p(e.value)}% [{p(e.low)}, {p(e.high)}]"


def _name(player: str) -> str:
    return tour.folder_name(player)


def _unit(mode: str) -> str:
    return "deal" if mode == "deals" else "game"


def _level_table(lv: Level) -> reporting.Table:
    unit = _unit(lv.mode)
    result = "points minus B's" if lv.mode == "deals" else "won - 1/2"
    rows = [
        [
            r.a,
            r.b,
            _ci(r.d.margin, 3, signed=True),
            f"{r.d.var_plain.value:.3f}",
            f"{r.d.var_dup.value:.3f}",
            _pct(r.d.cards),
            _pct(r.d.skill_ms),
            _pct(r.d.cards_ms),
            _pct(r.d.rest_ms),
        ]
        for r in lv.rows
    ]
    rows.append(["pooled", "", "", "", "", _pct(lv.pooled), "", "", ""])
    return reporting.Table(
        f"{lv.spec.variant}, {lv.count:,} duplicate {unit}s a run ({lv.spec.name}): A's result "
        f"per {unit} ({result}), duplicate mean [95% CI]; Var(x) of one seating and Var(d) of "
        "the duplicate mean; the cards' share of Var(x), 1 - 2 Var(d) / Var(x); and the mean "
        "square of a plain result split into skill, cards and the rest (95% bootstrap CIs over "
        "packs; pooled: summed variances over the pairings)",
        ["A", "B", f"A's result per {unit}", "Var(x)", "Var(d)", "cards' share of Var(x)",
         "skill (of mean square)", "cards", "rest"],
        rows,
    )  # fmt: skip


def _skill_table(presets: list[Preset]) -> reporting.Table:
    rows = []
    for p in presets:
        for s in p.skills:
            rows.append(
                [
                    p.variant,
                    s.beginner,
                    s.best,
                    _ci(s.best_margin, 3, signed=True),
                    _ci(s.upper_margin, 3, signed=True),
                    _ci(s.upper_over_best, 3, signed=True),
                    _ci(s.rs, 3),
                ]
            )
    return reporting.Table(
        "Relative skill RS = (best fair - beginner) / (cheater - beginner), each a duplicate "
        "margin in points per deal against the beginner on the same packs (the beginner's own is "
        "0); 95% percentile bootstrap CIs over packs, resampled jointly",
        ["preset", "beginner", "best fair player", "best minus beginner", "cheater minus beginner",
         "cheater minus best", "RS"],
        rows,
    )  # fmt: skip


def _chart(presets: list[Preset]):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 0.5 * max(len(presets), 2) + 1.8))
    ax = axes[0]
    y = np.arange(len(presets))[::-1]
    for mode, colour, shift in (("deals", "#2b5d8a", 0.12), ("games", "#b5472d", -0.12)):
        for p, yy in zip(presets, y, strict=True):
            lv = p.deals if mode == "deals" else p.games
            if lv is None or not np.isfinite(lv.pooled.low):
                continue
            e = lv.pooled
            err = [[100 * (e.value - e.low)], [100 * (e.high - e.value)]]
            ax.errorbar(
                100 * e.value, yy + shift, xerr=err, fmt="o", color=colour, capsize=3,
                label=f"a {_unit(mode)}'s outcome" if p is presets[0] else None,
            )  # fmt: skip
    ax.set_yticks(y, [p.variant for p in presets])
    ax.set_xlabel("cards' share of the outcome variance, pooled over the ladder (%)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
    ax = axes[1]
    for beginner, colour, shift in (("random", "#2b5d8a", 0.12), ("greedy", "#b5472d", -0.12)):
        for p, yy in zip(presets, y, strict=True):
            for s in p.skills:
                if s.beginner != beginner or not np.isfinite(s.rs.low):
                    continue
                e = s.rs
                ax.errorbar(
                    e.value, yy + shift, xerr=[[e.value - e.low], [e.high - e.value]], fmt="s",
                    color=colour, capsize=3,
                    label=f"beginner {beginner}" if p is presets[0] else None,
                )  # fmt: skip
    ax.axvline(0, color="#888", lw=1, ls="--")
    ax.axvline(1, color="#888", lw=1, ls="--")
    ax.set_yticks(y, [p.variant for p in presets])
    ax.set_xlabel("relative skill RS (95% bootstrap CI)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
    fig.tight_layout()
    return fig


def _skill_sentence(p: Preset) -> str:
    parts = []
    for s in p.skills:
        text = (
            f"Against {s.beginner}, {s.best} gains {_ci(s.best_margin, 2, True)} points per deal "
            f"and the cheater {_ci(s.upper_margin, 2, True)}, so RS = {_ci(s.rs, 2)}"
        )
        if s.room.high < 0:
            text += (
                f" (against {s.beginner} the cheater gains LESS than {s.best}, by "
                f"{_ci(s.room, 2, True)} points per deal: measured against {s.beginner} it is no "
                "upper bound here, and an RS above 1 is no share of anything)"
            )
        elif s.room.low <= 0:
            text += (
                f" (against {s.beginner} the cheater's gain cannot be told from {s.best}'s: "
                f"cheater minus {s.best} {_ci(s.room, 2, True)} points per deal)"
            )
        parts.append(text)
    text = "; ".join(parts)
    seen = set()
    for s in p.skills:
        if s.best in seen:
            continue
        seen.add(s.best)
        gap = _ci(s.upper_over_best, 2, True)
        if s.upper_over_best.low > 0:
            text += f". The cheater beats {s.best} by {gap} points per deal"
        else:
            text += (
                f". The cheater does NOT beat {s.best} here: cheater minus {s.best} is {gap} "
                "points per deal, so it is no upper bound above that player and RS is no share "
                "of the room between the beginner and perfect information"
            )
    return text


def _level_sentence(lv: Level) -> str:
    unit = _unit(lv.mode)
    best = max(lv.rows, key=lambda r: r.d.cards.value)
    least = min(lv.rows, key=lambda r: r.d.cards.value)
    return (
        f"Over the ladder the cards decide {_pct(lv.pooled)} of the variance of a {unit}'s "
        f"outcome (from {_pct(least.d.cards)} for {least.a} against {least.b} to "
        f"{_pct(best.d.cards)} for {best.a} against {best.b})"
    )


def sections(presets: list[Preset]) -> list[reporting.Section]:
    out = []
    for p in presets:
        texts, tables = [], []
        for lv in (p.deals, p.games):
            if lv is not None:
                texts.append(_level_sentence(lv))
                tables.append(_level_table(lv))
        if p.skills:
            texts.append(_skill_sentence(p))
        out.append(reporting.Section(f"{p.variant}", text=". ".join(texts) + ".", tables=tables))
    return out


CHESS = (
    "Duersch, Lambrecht and Oechssler (\u201cMeasuring skill and chance in games\u201d, European "
    "Economic Review, 2020) propose a different yardstick: fit Elo-type ratings to the results of "
    "a population of players and compare how widely those ratings spread with how widely they "
    "spread in chess, so that a game is described as a percentage of chess. It rests on game "
    "wins among many (human) players, not on points against named programs, so it is not "
    "computed here: four programs are no population, and RS and the cards' share above answer "
    "other questions. The Bradley-Terry ratings of the page 'Who plays best?' are this "
    "project's nearest Elo-like figures, but the two scales are not comparable and this page "
    "quotes no figure from that paper."
)

METHOD = (
    "Duplicate round robins (`scopa-sim tournament`): every pair of players A, B plays the same "
    "packs twice with the seats swapped. For a unit i (a deal, or a whole game) let x1_i and x2_i "
    "be A's result in the two seatings: A's points minus B's for a deal; won - 1/2 for a game "
    "(+1/2 a win, -1/2 a loss). Plain play sees one of them, with variance Var(x) (the mean of "
    "the two seatings' variances); duplicate play sees d_i = (x1_i + x2_i) / 2. The pack's luck "
    "follows the seat, so it changes sign between the seatings and cancels out of d; nothing "
    "else does. Writing x = skill gap + cards + rest, Var(x) = Var(cards) + Var(rest) and, the "
    "rest of the two seatings uncorrelated, Var(d) = Var(rest) / 2, so the cards' share of the "
    "outcome variance is 1 - 2 Var(d) / Var(x). That is the definition used, with no model: it "
    "equals -Cov(x1, x2) / Var(x), how strongly the two seatings of the same pack oppose each "
    "other (a part of the rest that favours one player on both seatings lowers it), and it is "
    "tournament.py's variance reduction read as a share. The mean square of a plain "
    "result, mean(d)^2 + Var(x), splits into skill (the squared mean gap: what the better player "
    "gains on average), cards (the share above) and the rest: the players' own random numbers "
    "(random, pimc's samples), and how a pack suits one player more than the other (which does "
    "not follow the seat). The ladder: the beginners random and greedy, the fair player with the "
    "largest duplicate margin against them (chosen by its point estimate; pimc:samples=16 "
    "wherever it plays) and the cheater (pimc seeing every hidden card). Relative skill (Borm and "
    "van der Genugten, 2001, \u201cOn a relative measure of skill for games with chance "
    "elements\u201d, TOP 9): RS = (best fair - beginner) / (fictive player - beginner), the "
    "fictive player knowing the chance moves; here each result is the player's mean duplicate "
    "margin in points per deal against the beginner on the deals tournament (so the beginner "
    "scores exactly 0) and the cheater stands in for the fictive player. Both stand-ins fall "
    "short: the best fair player is no optimal player (RS understated) and the cheater no "
    "optimal full-information player (RS overstated). Intervals: 95% percentile bootstrap, "
    f"{REPLICATES} replicates, packs (deals, or games) resampled jointly across the pairings of "
    "a tournament (they all play the same packs; fixed seeds). Games: the duplicate games follow "
    "the same sequence of packs while both seatings last. Deals of a preset come from its deals "
    "tournament (classic: classic-deals of 'Who plays best?', 10,000 deals a run), games from "
    "its games tournament. The section 'Another yardstick' relates RS to the x %-chess measure."
)


def findings(presets: list[Preset]) -> list[reporting.Finding]:
    """Every figure the page's sentences give (an undefined share, where a pairing's results do
    not vary, is left out). Names ``luck_skill.PRESET.deal|game.cards_share[.A_vs_B]``,
    ``....margin.A_vs_B``, ``....skill_share.A_vs_B``, ``luck_skill.PRESET.relative_skill.BEGINNER``
    and its parts; players as folder names (``pimc_samples=16``)."""
    return [f for f in _findings(presets) if np.isfinite(f.estimate.value)]


def _findings(presets: list[Preset]) -> list[reporting.Finding]:
    out = []
    for p in presets:
        base = f"luck_skill.{p.variant}"
        for lv in (p.deals, p.games):
            if lv is None:
                continue
            unit = _unit(lv.mode)
            out.append(reporting.Finding(f"{base}.{unit}.cards_share", lv.pooled, "share"))
            for r in lv.rows:
                pair = f"{_name(r.a)}_vs_{_name(r.b)}"
                result = "points per deal" if lv.mode == "deals" else "game won - 1/2"
                out += [
                    reporting.Finding(f"{base}.{unit}.cards_share.{pair}", r.d.cards, "share"),
                    reporting.Finding(f"{base}.{unit}.margin.{pair}", r.d.margin, result),
                    reporting.Finding(f"{base}.{unit}.skill_share.{pair}", r.d.skill_ms, "share"),
                ]
        for s in p.skills:
            out += [
                reporting.Finding(f"{base}.relative_skill.{s.beginner}", s.rs, "ratio"),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.best_margin", s.best_margin,
                    "points per deal",
                ),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.cheater_margin", s.upper_margin,
                    "points per deal",
                ),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.cheater_minus_best", s.upper_over_best,
                    "points per deal",
                ),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.room", s.room,
                    "points per deal (cheater's margin minus best's, against the beginner)",
                ),
            ]  # fmt: skip
    return out


def headline(presets: list[Preset]) -> str:
    parts = []
    for p in presets:
        bits = []
        if p.deals is not None:
            bits.append(f"cards {_pct(p.deals.pooled)} of a deal's variance")
        if p.games is not None:
            bits.append(f"{_pct(p.games.pooled)} of a game's")
        for s in p.skills:
            text = f"RS vs {s.beginner} {_ci(s.rs, 2)}"
            if s.room.high < 0:
                text += f" (the cheater gains less than {s.best} against {s.beginner})"
            elif s.upper_over_best.high <= 0:
                text += f" (the cheater does not beat {s.best})"
            bits.append(text)
        parts.append(f"{p.variant}: " + ", ".join(bits))
    return "; ".join(parts) + "."


def build(data: Path, config: Path = CONFIG) -> reporting.Page:
    """How much is luck, how much is skill?

    Per preset of configs/luck_skill.toml: the cards' share of a deal's and of a game's outcome
    from duplicate play, and the relative skill of Borm and van der Genugten, from the
    tournament folders under ``data``/tournaments/ (``make luck-skill``).
    """
    presets = load(data, config)
    specs = who_plays_best.load_config(config)
    return reporting.Page(
        slug="luck-skill",
        title="How much is luck, how much is skill?",
        question=(
            "In each game of the family, how much of a deal's and of a game's outcome do the "
            "cards decide and how much the players, and how much of the room between a beginner "
            "and a player who sees every card does the best fair player cover?"
        ),
        method=METHOD,
        finding=headline(presets),
        sections=[
            reporting.Section(
                "Overview",
                text=(
                    "Left: the cards' share of the outcome variance pooled over the ladder's "
                    "pairings, for a deal (points) and a whole game (who wins). Right: relative "
                    "skill with random and with greedy as the beginner."
                ),
                figures=[
                    reporting.Figure(
                        "Cards' share (pooled over the pairings) and relative skill, 95% "
                        "bootstrap CIs over packs",
                        reporting.svg(_chart(presets)),
                    )
                ],
                tables=[_skill_table(presets)],
            ),
            *sections(presets),
            reporting.Section("Another yardstick: x %-chess", text=CHESS),
        ],
        data=[_provenance(spec, data) for spec in specs],
        reproduce=_reproduce(specs, data),
        findings=findings(presets),
    )


def _provenance(spec: who_plays_best.Spec, data: Path) -> dict:
    """A tournament's row of the data table, with its size and the versions its runs recorded
    for the footer (who_plays_best.recorded)."""
    size = who_plays_best.recorded(spec, data)
    return {
        "tournament": spec.name,
        "folder": f"{spec.folder(data)}/",
        "variant": spec.variant,
        "players": ",".join(spec.players),
        "mode": spec.mode,
        "per run": f"{spec.count:,} {spec.mode}",
        "deals": size.pop("deals"),
        "games": size.pop("games"),
        "seed": spec.seed,
        **size,
    }


def _reproduce(specs: list[who_plays_best.Spec], data: Path) -> str:
    return "\n".join(
        [
            "make luck-skill && make report    # the tournaments of configs/luck_skill.toml, then "
            "every page",
            "# or each tournament alone (resumable; workers change only the speed):",
            *[spec.command(data) for spec in specs],
            "# then this page alone:",
            f".venv/bin/python -m analyses.luck_skill --data {data} --out reports",
        ]
    )


def commands(data: Path = DATA, config: Path = CONFIG, missing: bool = False) -> list[str]:
    """The commands of this page's tournaments (who_plays_best's, for another configuration);
    with ``missing``, only those not yet complete."""
    return who_plays_best.commands(data, config, missing)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--commands"]:  # the Makefile's `luck-skill` target
        argv = sys.argv[2:]
        data = Path(argv[argv.index("--data") + 1]) if "--data" in argv else DATA
        try:
            print("\n".join(commands(data, missing="--missing" in argv)))
        except (ValueError, OSError) as err:
            print(f"error: {err}", file=sys.stderr)
            sys.exit(2)
        sys.exit(0)
    sys.exit(main(build))
