"""Sample-size planning: ``scopa-sim plan ARM ARM ... --metric M --effect D``.

A pilot plays every arm on a few deals (or games) with the machinery of ``scopa-sim compare``
(:mod:`scopa_sim.compare`: the same arms, seeds, pairing and per-unit values), and measures per
arm the SD of the metric's per-unit values, their correlation with the first arm's on the same
packs, and the SD of the per-unit difference. From these, statsmodels' power functions give the
deals (games) per arm a two-sided t-test at ``alpha`` needs to find a true difference ``D`` with
``power``: paired (TTestPower on the differences, SD sqrt(s1^2 + s2^2 - 2 r s1 s2)) and unpaired
(TTestIndPower, equal arms, the two SDs pooled; Welch's variance s1^2/n + s2^2/n is the same).
An arm that deals otherwise than the first arm cannot be paired: only its unpaired size is given.
The pilot's SDs are estimates too, so the sizes are approximate: a larger pilot steadies them.

``compare`` tests every metric of every arm in one Holm family (:func:`compare.family_size`), so
a plan also sizes each test at the Bonferroni level ``alpha / m``, the level Holm's first step
uses: sizes that keep their power under compare's adjustment. Effects the metric cannot take (a
difference wider than the pilot's values span) and effects too small for any run to size (more
than :data:`scopa_sim.sizes.MAX_COUNT` units) are refused with the range in the message.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from scopa_sim import compare, sizes, stats
from scopa_sim.rules import RulesError
from scopa_sim.text import plain_table

MIN_UNITS = 2  # a t-test needs two units


def _normal_size(effect_size: float, alpha: float, power: float, arms: int) -> float:
    """The normal approximation of a t-test's size: per arm, ``arms`` 1 (paired) or 2."""
    z = NormalDist().inv_cdf
    return arms * ((z(1 - alpha / 2) + z(power)) / effect_size) ** 2


@contextmanager
def _quiet():
    """statsmodels warns when its root finder gives up; :func:`_solved` handles that case."""
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def _solved(n, effect_size: float, alpha: float, power: float, arms: int) -> int:
    """statsmodels' size, or where its root finder gives up (NaN): below a handful of units,
    MIN_UNITS; beyond, the normal approximation (exact to a unit at such sizes)."""
    n = float(np.asarray(n).item())
    if math.isnan(n):
        approx = _normal_size(effect_size, alpha, power, arms)
        return MIN_UNITS if approx < 10 else math.ceil(approx)
    return max(MIN_UNITS, math.ceil(n - 1e-9))


def paired_size(sd_diff: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units (pairs) a two-sided paired t-test needs to detect ``effect`` (statsmodels)."""
    from statsmodels.stats.power import TTestPower

    if sd_diff <= 0:
        return MIN_UNITS  # no noise in the difference: any pair shows it
    effect_size = abs(effect) / sd_diff
    if _normal_size(effect_size, alpha, power, 1) > sizes.MAX_COUNT:
        return math.ceil(_normal_size(effect_size, alpha, power, 1))  # past any run: plan refuses
    with _quiet():
        n = TTestPower().solve_power(
            effect_size=effect_size, alpha=alpha, power=power, alternative="two-sided"
        )
    return _solved(n, effect_size, alpha, power, 1)


def unpaired_size(
    sd_first: float, sd_arm: float, effect: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Units per arm a two-sided two-sample t-test (equal arms) needs to detect ``effect``."""
    from statsmodels.stats.power import TTestIndPower

    sd = math.sqrt((sd_first**2 + sd_arm**2) / 2)
    if sd <= 0:
        return MIN_UNITS
    effect_size = abs(effect) / sd
    if _normal_size(effect_size, alpha, power, 2) > sizes.MAX_COUNT:
        return math.ceil(_normal_size(effect_size, alpha, power, 2))  # past any run: plan refuses
    with _quiet():
        n = TTestIndPower().solve_power(
            effect_size=effect_size, alpha=alpha, power=power, ratio=1.0, alternative="two-sided"
        )
    return _solved(n, effect_size, alpha, power, 2)


def sd_of_difference(sd_first: float, sd_arm: float, correlation: float) -> float:
    return math.sqrt(max(sd_first**2 + sd_arm**2 - 2 * correlation * sd_first * sd_arm, 0.0))


@dataclass(frozen=True)
class Need:
    """What one arm needs against the first arm."""

    arm: str
    design: str  # compare.PAIRED or compare.UNPAIRED
    reason: str  # why unpaired
    pilot_diff: stats.Estimate  # the pilot's own estimate of the difference (95 % CI)
    sd_first: float
    sd_arm: float
    correlation: float | None  # paired arms: of the per-unit values on the same packs
    sd_diff: float | None  # paired arms: SD of the per-unit difference
    paired: int | None  # units per arm, paired design (None when the arm cannot be paired)
    unpaired: int  # units per arm, independent samples
    paired_family: int | None = None  # the same at the family level alpha / m
    unpaired_family: int | None = None

    def to_json(self) -> dict:
        d = self.pilot_diff
        return {
            "arm": self.arm,
            "design": self.design,
            "reason": self.reason or None,
            "pilot_diff": d.value,
            "pilot_diff_ci_low": _finite(d.low),  # None: not estimable (no variation)
            "pilot_diff_ci_high": _finite(d.high),
            "sd_first": self.sd_first,
            "sd_arm": self.sd_arm,
            "correlation": self.correlation,
            "sd_diff": self.sd_diff,
            "paired": self.paired,
            "unpaired": self.unpaired,
            "paired_family": self.paired_family,
            "unpaired_family": self.unpaired_family,
        }

    def largest(self) -> int:
        return max(n for n in (self.paired, self.unpaired, self.paired_family,
                               self.unpaired_family) if n is not None)  # fmt: skip


@dataclass(frozen=True)
class Plan:
    arms: list[compare.Arm]
    players: tuple[str, ...]
    metric: str
    description: str
    effect: float
    power: float
    alpha: float
    mode: str
    pilot: int
    seed: int
    needs: list[Need]
    tests: int = 1  # the differences compare tests in one Holm family for these arms

    @property
    def unit(self) -> str:
        return "deals" if self.mode == "deals" else "games"

    @property
    def alpha_family(self) -> float:
        """The Bonferroni level alpha / m, Holm's first step."""
        return self.alpha / max(self.tests, 1)

    def to_json(self) -> dict:
        return {
            "metric": self.metric,
            "effect": self.effect,
            "power": self.power,
            "alpha": self.alpha,
            "tests": self.tests,
            "alpha_family": self.alpha_family,
            "mode": self.mode,
            "unit": self.unit,
            "pilot": self.pilot,
            "seed": self.seed,
            "first_arm": self.arms[0].label,
            "arms": [n.to_json() for n in self.needs],
        }


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _sd(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1)) if len(x) > 1 else 0.0


def needs(arms: Sequence[compare.Arm], values: Sequence[np.ndarray], effect, alpha, power, tests=1):
    """Each arm's :class:`Need` from its per-unit values (``values[0]``: the first arm's), at
    ``alpha`` and at the family level ``alpha / tests``."""
    base = values[0]
    family = alpha / max(tests, 1)
    out = []
    for arm, x in zip(arms[1:], values[1:], strict=True):
        s0, s1 = _sd(base), _sd(x)
        unpaired = unpaired_size(s0, s1, effect, alpha, power)
        unpaired_family = unpaired_size(s0, s1, effect, family, power)
        if arm.design == compare.PAIRED:
            diff, _ = stats.paired_difference(base, x)
            r = float(np.corrcoef(base, x)[0, 1]) if s0 > 0 and s1 > 0 else 0.0
            sd_diff = _sd(x - base)
            paired = paired_size(sd_diff, effect, alpha, power)
            paired_family = paired_size(sd_diff, effect, family, power)
            out.append(
                Need(arm.label, arm.design, "", diff, s0, s1, r, sd_diff, paired, unpaired,
                     paired_family, unpaired_family)
            )  # fmt: skip
        else:
            diff, _ = stats.independent_difference(base, x)
            out.append(
                Need(arm.label, arm.design, arm.reason, diff, s0, s1, None, None, None, unpaired,
                     None, unpaired_family)
            )  # fmt: skip
    return out


def check_effect(metric: str, effect: float, values: Sequence[np.ndarray], unit: str) -> None:
    """Refuse an effect no difference of ``metric`` can reach: wider than the span of its
    per-unit values over every arm of the pilot (a difference of two means of values in [lo, hi]
    lies within +-(hi - lo))."""
    lo = min(float(v.min()) for v in values)
    hi = max(float(v.max()) for v in values)
    if effect >= hi - lo:
        raise RulesError(
            f"--effect {effect:g} is outside what {metric} can differ by here: its per-"
            f"{unit[:-1]} values in the pilot span [{lo:g}, {hi:g}], so a difference of means "
            f"lies within +-{hi - lo:g}; give an --effect below {hi - lo:g}"
        )


def check_sizable(p: Plan) -> None:
    """Refuse an effect so small that some size is past any run (sizes.MAX_COUNT), with the
    smallest effect that can be sized (a size scales as 1 / effect^2)."""
    worst = max(p.needs, key=Need.largest)
    n = worst.largest()
    if n > sizes.MAX_COUNT:
        smallest = p.effect * math.sqrt(n / sizes.MAX_COUNT)
        raise RulesError(
            f"--effect {p.effect:g} is too small to size: {worst.arm} would need about {n:.3g} "
            f"{p.unit} per arm, more than the 10^12 a run can hold; the smallest effect in "
            f"{p.metric} this pilot can size is about {smallest:.2g}"
        )


def plan(
    arm_texts: Sequence[str],
    players: Sequence[str],
    *,
    metric: str,
    effect: float,
    power: float = 0.8,
    alpha: float = 0.05,
    mode: str = "deals",
    pilot: int = 20_000,
    seed: int = 1,
    workers: int = 1,
    batch_size: int = 8192,
) -> Plan:
    """Play the pilot and size the comparison (the module doc)."""
    if not (effect > 0 and math.isfinite(effect)):
        raise RulesError(f"--effect must be a positive number, not {effect}")
    if not 0 < power < 1:
        raise RulesError(f"--power must be between 0 and 1, not {power}")
    if not 0 < alpha < 1:
        raise RulesError(f"--alpha must be between 0 and 1, not {alpha}")
    unit = "deals" if mode == "deals" else "games"
    if problem := sizes.too_few_problem(pilot, unit, "--pilot", "a plan's pilot"):
        raise RulesError(problem)
    if metric.startswith("game_win") and effect >= 1:
        raise RulesError(
            f"--effect {effect:g} is outside what {metric} can differ by: a share of games won "
            "lies in [0, 1], so a difference lies within +-1; give an --effect below 1"
        )
    arms = compare.plan(compare.parse_arms(arm_texts), seed)
    resolved = compare.arm_players(arms, players)
    shared = dict(compare.shared_metrics(arms, mode))
    if metric not in shared:
        raise RulesError(
            f"--metric {metric!r} is not compared in {mode} mode here; choose one of "
            + ", ".join(shared)
        )
    present = shared[metric]
    kept = [arms[i] for i in present]
    per_unit = compare.values_per_unit(arms, mode)
    if problem := sizes.memory_problem("a plan's pilot", pilot, per_unit, "--pilot"):
        raise RulesError(problem)
    units = compare.play_units(arms, resolved, mode, range(pilot), workers, batch_size)
    values = [compare.metric_values(units[i], metric, mode) for i in present]
    check_effect(metric, effect, values, unit)
    tests = compare.family_size(arms, mode)
    result = Plan(
        kept,
        tuple(players),
        metric,
        compare.metrics(arms[0].rules, mode)[metric],
        effect,
        power,
        alpha,
        mode,
        pilot,
        seed,
        needs(kept, values, effect, alpha, power, tests),
        tests,
    )
    check_sizable(result)
    return result


def format_plan(p: Plan) -> str:
    """The plan as a terminal table and two sentences."""
    unit = p.unit
    header = (
        "arm", "design", "pilot diff [95% CI]", "SD first", "SD arm", "correlation", "SD of diff",
        f"paired {unit}/arm", f"unpaired {unit}/arm",
        f"paired at alpha/{p.tests}", f"unpaired at alpha/{p.tests}",
    )  # fmt: skip
    rows = [
        (
            n.arm,
            n.design,
            str(n.pilot_diff),
            f"{n.sd_first:.4g}",
            f"{n.sd_arm:.4g}",
            "—" if n.correlation is None else f"{n.correlation:.3f}",
            "—" if n.sd_diff is None else f"{n.sd_diff:.4g}",
            "—" if n.paired is None else f"{n.paired:,}",
            f"{n.unpaired:,}",
            "—" if n.paired_family is None else f"{n.paired_family:,}",
            "—" if n.unpaired_family is None else f"{n.unpaired_family:,}",
        )
        for n in p.needs
    ]
    text = plain_table(header, rows)
    text.insert(
        0,
        f"{unit.capitalize()} per arm to detect a difference of {p.effect:g} in {p.metric} "
        f"({p.description}) from {p.arms[0].label}, two-sided t-test, power {p.power:g}, alpha "
        f"{p.alpha:g} per test, and at alpha/{p.tests} = {p.alpha_family:.3g}.",
    )
    text.append(
        f"Pilot: {p.pilot:,} {unit} per arm, seed {p.seed}, players {','.join(p.players)}. "
        "Paired: the arms play the same packs (as compare does when they deal alike), sized "
        "from the SD of the per-unit difference; unpaired: independent packs, the two SDs pooled."
    )
    text.append(
        f"compare with these arms tests {p.tests} difference{'s' if p.tests != 1 else ''} (every "
        "metric of every arm, less those fixed by others) in one Holm family: the sizes 'at "
        f"alpha/{p.tests}' test at the Bonferroni level {p.alpha_family:.3g}, Holm's first step, "
        "so they keep the power asked for under compare's adjustment; the others are for this "
        "one test alone."
    )
    for n in p.needs:
        if n.paired is None:
            text.append(f"{n.arm} deals otherwise ({n.reason}): it cannot be paired.")
        elif n.sd_diff == 0:
            text.append(
                f"{n.arm}: every pilot {unit[:-1]} gave the same value in both arms (identical "
                "play), so there is no noise to size the paired design against."
            )
    return "\n".join(text)
