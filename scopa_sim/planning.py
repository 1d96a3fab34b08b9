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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim import compare, stats
from scopa_sim.rules import RulesError
from scopa_sim.text import plain_table

MIN_UNITS = 2  # a t-test needs two units


def paired_size(sd_diff: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units (pairs) a two-sided paired t-test needs to detect ``effect`` (statsmodels)."""
    from statsmodels.stats.power import TTestPower

    if sd_diff <= 0:
        return MIN_UNITS  # no noise in the difference: any pair shows it
    n = TTestPower().solve_power(
        effect_size=abs(effect) / sd_diff, alpha=alpha, power=power, alternative="two-sided"
    )
    return max(MIN_UNITS, math.ceil(float(np.asarray(n).item()) - 1e-9))


def unpaired_size(
    sd_first: float, sd_arm: float, effect: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Units per arm a two-sided two-sample t-test (equal arms) needs to detect ``effect``."""
    from statsmodels.stats.power import TTestIndPower

    sd = math.sqrt((sd_first**2 + sd_arm**2) / 2)
    if sd <= 0:
        return MIN_UNITS
    n = TTestIndPower().solve_power(
        effect_size=abs(effect) / sd, alpha=alpha, power=power, ratio=1.0, alternative="two-sided"
    )
    return max(MIN_UNITS, math.ceil(float(np.asarray(n).item()) - 1e-9))


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

    def to_json(self) -> dict:
        d = self.pilot_diff
        return {
            "arm": self.arm,
            "design": self.design,
            "reason": self.reason or None,
            "pilot_diff": d.value,
            "pilot_diff_ci_low": d.low,
            "pilot_diff_ci_high": d.high,
            "sd_first": self.sd_first,
            "sd_arm": self.sd_arm,
            "correlation": self.correlation,
            "sd_diff": self.sd_diff,
            "paired": self.paired,
            "unpaired": self.unpaired,
        }


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

    @property
    def unit(self) -> str:
        return "deals" if self.mode == "deals" else "games"

    def to_json(self) -> dict:
        return {
            "metric": self.metric,
            "effect": self.effect,
            "power": self.power,
            "alpha": self.alpha,
            "mode": self.mode,
            "unit": self.unit,
            "pilot": self.pilot,
            "seed": self.seed,
            "first_arm": self.arms[0].label,
            "arms": [n.to_json() for n in self.needs],
        }


def _sd(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1)) if len(x) > 1 else 0.0


def needs(arms: Sequence[compare.Arm], values: Sequence[np.ndarray], effect, alpha, power):
    """Each arm's :class:`Need` from its per-unit values (``values[0]``: the first arm's)."""
    base = values[0]
    out = []
    for arm, x in zip(arms[1:], values[1:], strict=True):
        s0, s1 = _sd(base), _sd(x)
        unpaired = unpaired_size(s0, s1, effect, alpha, power)
        if arm.design == compare.PAIRED:
            diff, _ = stats.paired_difference(base, x)
            r = float(np.corrcoef(base, x)[0, 1]) if s0 > 0 and s1 > 0 else 0.0
            sd_diff = _sd(x - base)
            paired = paired_size(sd_diff, effect, alpha, power)
            out.append(Need(arm.label, arm.design, "", diff, s0, s1, r, sd_diff, paired, unpaired))
        else:
            diff, _ = stats.independent_difference(base, x)
            out.append(
                Need(arm.label, arm.design, arm.reason, diff, s0, s1, None, None, None, unpaired)
            )
    return out


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
    if pilot < 10:
        raise RulesError(f"--pilot must be at least 10 {mode} to estimate an SD, not {pilot}")
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
    units = compare.play_units(arms, resolved, mode, range(pilot), workers, batch_size)
    values = [compare.metric_values(units[i], metric, mode) for i in present]
    return Plan(
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
        needs(kept, values, effect, alpha, power),
    )


def format_plan(p: Plan) -> str:
    """The plan as a terminal table and two sentences."""
    unit = p.unit
    header = (
        "arm", "design", "pilot diff [95% CI]", "SD first", "SD arm", "correlation", "SD of diff",
        f"paired {unit}/arm", f"unpaired {unit}/arm",
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
        )
        for n in p.needs
    ]
    text = plain_table(header, rows)
    text.insert(
        0,
        f"{unit.capitalize()} per arm to detect a difference of {p.effect:g} in {p.metric} "
        f"({p.description}) from {p.arms[0].label}, two-sided t-test, power {p.power:g}, alpha "
        f"{p.alpha:g} (per comparison: with m comparisons give --alpha 0.05/m).",
    )
    text.append(
        f"Pilot: {p.pilot:,} {unit} per arm, seed {p.seed}, players {','.join(p.players)}. "
        "Paired: the arms play the same packs (as compare does when they deal alike), sized "
        "from the SD of the per-unit difference; unpaired: independent packs, the two SDs pooled."
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
