"""Comparisons of variants: ``scopa-sim compare classic classic:forced_capture=true escoba``.

Every arm plays the same number of deals (or games). An arm that deals like the first arm (the
same pack, players, table cards, hands and throw-in rule: :func:`deal_key`) plays the same deal
(game) numbers with the same seed, so it sees the same packs, dealt to the same seats (common
random numbers, ``scopa_sim.seeding``); its differences from the first arm are estimated per unit
(deal, or game) with paired t-tests, which removes most of the deal-to-deal noise. An arm that
deals otherwise does not see the same packs, so pairing would buy nothing; it plays with a seed of
its own (:func:`derived_seed`), which makes its sample independent of the first arm's, and its
differences are Welch's unpaired t intervals. A metric is reported only for arms that have it, and
only when the first arm and at least one other arm have it (points of seat 3 exist only with four
sides).

Multiple comparisons: the differences from the first arm form one family. A difference that is a
fixed combination of others in the family (:func:`derived_reason`: the dealer's edge is the
dealer's side's points minus the others', and with s sides the last side's share of games won is
1 minus the others') is shown with its interval but not tested, so no test counts twice. The
tested differences get Holm-adjusted p-values and, beside their 95 % intervals, Bonferroni
intervals at level 1 - 0.05 / m (m the family size), which exclude 0 only when Holm rejects:
those are the intervals to quote for "the clearest" difference.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from joblib import Parallel, delayed, parallel_config

from scopa_sim import api, sizes, stats
from scopa_sim.engine import deal_rules
from scopa_sim.players import Player
from scopa_sim.precision import Precision, parse_precision
from scopa_sim.rules import RulesError, Variant, parse_variant
from scopa_sim.runner import pools


def metrics(rules: Variant, mode: str) -> dict[str, str]:
    """The metrics compared, with what each measures. Seat ``s`` is counted in play order in
    the deal (seat 0 leads, the last seat deals); one metric per side, named by its first seat.
    """
    n, sides = rules.n_players, rules.n_sides
    out = {
        f"points_seat{s}": f"points per deal of the side of seat {s}"
        + (" (the leader)" if s == 0 else "")
        + (" (the dealer's side)" if s == (n - 1) % sides else "")
        for s in range(sides)
    }
    out["dealer_edge"] = "dealer's side minus the mean of the other sides, points per deal"
    out["scope"] = "scope per deal, all sides"
    if mode == "games":
        out |= {
            f"game_win_seat{s}": f"share of games won by the side of seat {s} of the first deal"
            for s in range(sides)
        }
        out["game_length"] = "deals per game"
    return out


def is_per_deal(metric: str) -> bool:
    return not metric.startswith(("game_win", "game_length"))


def derived_reason(metric: str, base: Variant, other: Variant) -> str:
    """Why the difference of ``metric`` between two arms is not tested (empty when it is): it is
    a fixed combination of differences already in the family. Only when both arms have the same
    sides, so that every term of the combination is compared too."""
    sides = base.n_sides
    if other.n_sides != sides:
        return ""
    if metric == "dealer_edge":
        return "derived: the dealer's side's points minus the mean of the other sides' points"
    if metric == f"game_win_seat{sides - 1}":
        return "derived: 1 minus the other sides' shares of games won"
    return ""


CHUNK = 50_000

PAIRED = "paired"
UNPAIRED = "unpaired"


def deal_key(rules: Variant) -> tuple:
    """What decides which cards each seat holds in deal (game, deal) of a seed.

    The pack of (game, deal, throw-in attempt) depends only on the seed and the pack's size, and
    the first dealer only on the seed and the number of players (``scopa_sim.seeding``); the deal
    shape (table cards, hands) says who gets which card, and the throw-in rule which attempt is
    played. Arms with equal keys hold the same cards in the same seats, deal for deal; rule
    options such as the capture rule, scoring, target or first dealer do not enter.
    """
    throw_in = deal_rules.throws_in(rules)
    if throw_in:  # which tables are thrown in: kings (3 or more), aces (2 or more), ...
        throw_in = (rules.throw_in_rank, rules.throw_in_count, rules.two_aces_fifteen_stands)
    return (rules.pack.name, rules.n_players, rules.table_cards, rules.hands, throw_in)


def difference_reason(base: Variant, other: Variant) -> str:
    """Why ``other`` does not see the packs of ``base`` (empty when it does)."""
    a, b = deal_key(base), deal_key(other)
    reasons = []
    if a[0] != b[0]:
        reasons.append(f"the {b[0]} pack, not the {a[0]}")
    if a[1] != b[1]:
        reasons.append(f"{b[1]} players, not {a[1]}")
    if a[2:4] != b[2:4] and a[:2] == b[:2]:  # other packs or players deal otherwise anyway
        reasons.append("another deal (table cards and hands)")
    if bool(a[4]) != bool(b[4]):
        reasons.append(f"throw-in {'on' if b[4] else 'off'}, not {'on' if a[4] else 'off'}")
    elif a[4] != b[4]:
        reasons.append("another throw-in (other tables are dealt again)")
    return "; ".join(reasons)


def derived_seed(seed: int, rules: Variant) -> int:
    """The seed of an arm that deals otherwise than the first arm: a fixed function of the seed
    and of the arm's deal (:func:`deal_key`), so arms that deal alike share it and a rerun gives
    the same numbers. Its streams are independent of the seed's (SeedSequence of a hash)."""
    text = f"scopa-sim compare/{seed}/{deal_key(rules)!r}".encode()
    digest = int.from_bytes(hashlib.sha256(text).digest()[:8], "big")
    state = np.random.SeedSequence(digest).generate_state(2, np.uint32)
    return (int(state[0]) >> 1) << 31 | int(state[1]) >> 1  # 62 bits, a plain int


@dataclass(frozen=True)
class Arm:
    label: str
    rules: Variant
    seed: int | None = None  # the seed this arm plays with (set by :func:`plan`)
    design: str | None = None  # PAIRED or UNPAIRED against the first arm; None for the first
    reason: str = ""  # UNPAIRED: how its deal differs from the first arm's


def parse_arms(texts: Sequence[str]) -> list[Arm]:
    arms = [Arm(text, parse_variant(text)) for text in texts]
    if len(arms) < 2:
        raise RulesError(
            "compare needs at least two arms, e.g. classic classic:forced_capture=true"
        )
    return arms


def plan(arms: Sequence[Arm], seed: int) -> list[Arm]:
    """Each arm with its seed and its design against the first arm (see the module doc)."""
    base = arms[0].rules
    out = [replace(arms[0], seed=seed, design=None, reason="")]
    for arm in arms[1:]:
        if deal_key(arm.rules) == deal_key(base):
            out.append(replace(arm, seed=seed, design=PAIRED, reason=""))
        else:
            reason = difference_reason(base, arm.rules)
            out.append(
                replace(arm, seed=derived_seed(seed, arm.rules), design=UNPAIRED, reason=reason)
            )
    return out


def arm_players(arms: Sequence[Arm], players: Sequence[Player | str]) -> list[tuple[Player, ...]]:
    """The players of each arm: one per side, or one name for every side of every arm."""
    given = list(players)
    out = []
    for arm in arms:
        sides = arm.rules.n_sides
        if len(given) == 1 and sides > 1:
            out.append(api.resolve(arm.rules, given * sides)[1])
            continue
        if len(given) != sides:
            counts = sorted({a.rules.n_sides for a in arms})
            if len(counts) > 1:
                raise RulesError(
                    f"the arms are played by {' and '.join(map(str, counts))} sides: give one "
                    "player for every side of every arm (e.g. --players greedy), or compare arms "
                    "with as many sides as --players names"
                )
        out.append(api.resolve(arm.rules, given)[1])
    return out


def _units(rules: Variant, players, mode: str, span: range, seed: int, batch_size: int) -> dict:
    """Per-unit values of one chunk: per deal (deals mode) or per game (games mode)."""
    s = rules.n_sides
    if mode == "deals":
        out = api.play_deals(rules, players, deals=span, seed=seed, batch_size=batch_size)
    else:
        out = api.play_games(rules, players, games=span, seed=seed, batch_size=batch_size)
    rows = np.arange(len(out))
    totals = out.totals.astype(np.float64)
    # Seat k's side (seat 0 leads, the last seat deals): sides alternate round the table.
    seat_sides = deal_rules.seat_sides_around(rules, rules.n_players - 1, out.dealer_side)
    per_deal = {f"points_seat{k}": totals[rows, seat_sides[:, k]] for k in range(s)}
    dealer = totals[rows, out.dealer_side]
    others = (totals.sum(axis=1) - dealer) / (s - 1)
    per_deal["dealer_edge"] = dealer - others
    per_deal["scope"] = out.scope.sum(axis=1).astype(np.float64)
    if mode == "deals":
        return per_deal
    game = out.game - span.start
    deals = np.bincount(game, minlength=len(span)).astype(np.float64)
    units = {
        f"{k}:sum": np.bincount(game, weights=v, minlength=len(span)) for k, v in per_deal.items()
    }
    units["deals"] = deals
    units["game_length"] = deals
    # Seat k of the game's first deal, around the first dealer's side.
    final = out.final
    winners = out.winner[final]
    first = deal_rules.seat_sides_around(rules, rules.n_players - 1, out.first_dealer_side[final])
    for k in range(s):
        units[f"game_win_seat{k}"] = (winners == first[:, k]).astype(np.float64)
    return units


@dataclass(frozen=True)
class Row:
    metric: str
    arm: str
    estimate: stats.Estimate
    diff: stats.Estimate | None
    p_value: float | None
    p_holm: float | None = None
    design: str | None = None  # PAIRED or UNPAIRED; None on the first arm's rows
    seed: int | None = None  # the seed the arm played with
    diff_family: stats.Estimate | None = None  # Bonferroni interval (tested differences only)
    derived: str = ""  # why the difference is shown but not tested (:func:`derived_reason`)

    @property
    def tested(self) -> bool:
        return self.diff is not None and not self.derived

    def to_json(self) -> dict:
        d = self.diff
        finite = stats.finite_or_none  # not estimable (no variation): no bounds, no p (None)
        return {
            "metric": self.metric,
            "arm": self.arm,
            "estimate": self.estimate.value,
            "ci_low": finite(self.estimate.low),
            "ci_high": finite(self.estimate.high),
            "diff": None if d is None else d.value,
            "diff_ci_low": None if d is None else finite(d.low),
            "diff_ci_high": None if d is None else finite(d.high),
            "p_value": finite(self.p_value),
            "p_holm": finite(self.p_holm),
            "design": self.design,
            "seed": self.seed,
            "n": self.estimate.n,
            "tested": self.tested,
            "derived": self.derived or None,
            "diff_family_ci_low": (
                None if self.diff_family is None else finite(self.diff_family.low)
            ),
            "diff_family_ci_high": (
                None if self.diff_family is None else finite(self.diff_family.high)
            ),
        }


@dataclass(frozen=True)
class Comparison:
    arms: list[Arm]  # with their seeds and designs (:func:`plan`)
    players: tuple[str, ...]  # as given
    mode: str
    units: int
    seed: int
    rows: list[Row]
    arm_players: tuple[tuple[str, ...], ...] = ()  # each arm's players, one per side
    precision: Precision | None = None  # compare --precision, when given

    @property
    def max_half_width(self) -> float:
        widths = [r.estimate.half_width for r in self.rows]
        widths += [r.diff.half_width for r in self.rows if r.diff is not None]
        return max(widths)

    @property
    def precision_met(self) -> bool | None:
        """Whether every ``--precision`` target was met (None without targets)."""
        return None if self.precision is None else self.precision.met(self)

    @property
    def designs(self) -> set[str]:
        return {a.design for a in self.arms[1:]}

    @property
    def family(self) -> list[Row]:
        """The tested differences: one Holm family."""
        return [r for r in self.rows if r.tested]

    @property
    def family_level(self) -> float:
        return stats.family_level(len(self.family))

    def clearest(self) -> Row:
        """The tested difference farthest from 0 in units of its Bonferroni half-width."""
        rows = self.family or [r for r in self.rows if r.diff is not None]
        rows = [r for r in rows if r.diff.estimable] or rows  # no variation: nothing to show
        return max(
            rows,
            key=lambda r: abs(r.diff.value) / max((r.diff_family or r.diff).half_width, 1e-12),
        )


def metric_values(units: dict, metric: str, mode: str) -> np.ndarray:
    """One value per unit whose mean is the arm's estimate: per deal (deals mode), per game for
    game metrics, and per game linearised ratios for per-deal metrics in games mode."""
    if mode == "deals" or not is_per_deal(metric):
        return units[metric]
    return stats.linearised_ratio(units[f"{metric}:sum"], units["deals"])


def shared_metrics(arms: Sequence[Arm], mode: str) -> list[tuple[str, list[int]]]:
    """Each metric of the first arm that some other arm has too, with the arms that have it."""
    have = [metrics(arm.rules, mode) for arm in arms]
    out = []
    for metric in have[0]:
        present = [i for i, m in enumerate(have) if metric in m]
        if len(present) > 1:
            out.append((metric, present))
    return out


def family_size(arms: Sequence[Arm], mode: str) -> int:
    """How many differences a comparison of ``arms`` tests (its Holm family, as :func:`analyse`
    makes it): every metric the first arm shares with another arm, for each such arm, less the
    differences that are fixed combinations of others (:func:`derived_reason`)."""
    return sum(
        1
        for metric, present in shared_metrics(arms, mode)
        for i in present[1:]
        if not derived_reason(metric, arms[0].rules, arms[i].rules)
    )


def analyse(arms: list[Arm], players, mode: str, per_arm: list[dict], seed: int) -> Comparison:
    """Estimates per arm and differences from the first arm: paired t intervals on per-unit
    differences for arms that share its packs, Welch's for the others (independent samples);
    Holm p-values and Bonferroni intervals over the tested differences (the module doc)."""
    if arms[0].seed is None:
        arms = plan(arms, seed)
    rows: list[Row] = []
    for metric, present in shared_metrics(arms, mode):
        base = metric_values(per_arm[0], metric, mode)
        for i in present:
            arm = arms[i]
            values = metric_values(per_arm[i], metric, mode)
            if metric.startswith("game_win"):
                estimate = stats.proportion_ci(int(values.sum()), len(values))
            else:
                estimate = stats.mean_ci(values)
            if i == 0:
                diff, p = None, None
            elif arm.design == PAIRED:
                diff, p = stats.paired_difference(base, values)
            else:
                diff, p = stats.independent_difference(base, values)
            derived = "" if i == 0 else derived_reason(metric, arms[0].rules, arm.rules)
            if derived:
                p = None
            rows.append(
                Row(metric, arm.label, estimate, diff, p, None, arm.design, arm.seed, None, derived)
            )
    compared = [i for i, r in enumerate(rows) if r.tested]
    adjusted = stats.holm([rows[i].p_value for i in compared])
    level = stats.family_level(len(compared))
    for i, p in zip(compared, adjusted, strict=True):
        family = stats.rescale(rows[i].diff, level)
        rows[i] = replace(rows[i], p_holm=float(p), diff_family=family)
    units = len(next(iter(per_arm[0].values())))
    if players and isinstance(players[0], (tuple, list)):
        names = tuple(tuple(p.name for p in group) for group in players)
        given = names[0]
    else:
        given = tuple(p.name for p in players)
        names = tuple(given for _ in arms)
    return Comparison(arms, given, mode, units, seed, rows, names)


def play_units(
    arms: Sequence[Arm], resolved, mode: str, span: range, workers: int, batch_size: int
) -> list[dict[str, np.ndarray]]:
    """Per-unit values of every arm over units ``span`` (chunks in parallel)."""
    spans = [range(s, min(s + CHUNK, span.stop)) for s in range(span.start, span.stop, CHUNK)]
    tasks = [(i, part) for i in range(len(arms)) for part in spans]
    parent = os.getpid()  # its workers exit when it dies (pools.guarded)
    with parallel_config(backend="loky", n_jobs=workers):
        results = Parallel()(
            delayed(pools.guarded)(
                parent, _units, arms[i].rules, resolved[i], mode, part, arms[i].seed, batch_size
            )
            for i, part in tasks
        )
    per_arm: list[dict[str, list]] = [{} for _ in arms]
    for (i, _), units in zip(tasks, results, strict=True):
        for key, values in units.items():
            per_arm[i].setdefault(key, []).append(values)
    return [{k: np.concatenate(v) for k, v in arm.items()} for arm in per_arm]


def compare(
    arm_texts: Sequence[str],
    players: Sequence[Player | str],
    *,
    mode: str,
    count: int,
    seed: int,
    workers: int = 1,
    precision: float | str | Precision | None = None,
    max_units: int = 5_000_000,
    batch_size: int = 8192,
    progress=None,
) -> Comparison:
    """Play every arm on as many units and compare; with ``precision`` (:class:`Precision`,
    or its text as ``--precision`` takes it), keep doubling the number of units until every
    targeted CI half-width is below its target (or ``max_units`` is reached).

    ``players`` names one player per side (every arm then needs that many sides) or a single
    player for every side of every arm.
    """
    arms = plan(parse_arms(arm_texts), seed)
    resolved = arm_players(arms, players)
    if count <= 0 or workers <= 0:
        raise RulesError("the count and the number of workers must be positive")
    precision = parse_precision(precision)
    check_sizes(arms, mode, count, precision is not None, max_units)
    if precision is not None:
        precision.check([m for m, _ in shared_metrics(arms, mode)])
    given = tuple(p if isinstance(p, str) else p.name for p in players)
    done = 0
    parts: list[list[dict]] = []
    target = count if precision is None else min(count, max_units)
    while True:
        parts.append(play_units(arms, resolved, mode, range(done, target), workers, batch_size))
        done = target
        merged = [
            {k: np.concatenate([part[i][k] for part in parts]) for k in parts[0][i]}
            for i in range(len(arms))
        ]
        result = analyse(arms, resolved, mode, merged, seed)
        result = replace(result, players=given, precision=precision)
        if progress:
            progress(result)
        if precision is not None and len(parts) == 1:
            precision.check_relative(result)  # after the first stage: a target that can shrink
        if precision is None or precision.met(result) or done >= max_units:
            return result
        target = min(2 * done, max_units)


def values_per_unit(arms: Sequence[Arm], mode: str) -> int:
    """Bytes a comparison holds per unit (deal or game) of every arm: the per-unit values of
    each metric (:func:`_units`), as float64, twice over while the stages are joined."""
    per_arm = [
        arm.rules.n_sides + 2 if mode == "deals" else 2 * arm.rules.n_sides + 4 for arm in arms
    ]
    return 2 * 8 * sum(per_arm)


def check_sizes(arms, mode: str, count: int, precision: bool, max_units: int) -> None:
    """Refuse, before anything plays, too few units per arm to estimate from, and more than
    this machine's memory holds (with ``precision``, the cap ``max_units`` is what may be
    reached)."""
    unit = "deals" if mode == "deals" else "games"
    flag = f"--{unit}"
    first = min(count, max_units) if precision else count  # the first round's size
    first_flag = "--max" if precision and max_units < count else flag
    if problem := sizes.too_few_problem(first, unit, first_flag, "compare"):
        raise RulesError(problem)
    most, flag = (max_units, "--max") if precision else (count, flag)
    if problem := sizes.memory_problem("compare", most, values_per_unit(arms, mode), flag):
        raise RulesError(problem)
