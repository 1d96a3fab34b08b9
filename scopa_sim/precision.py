"""The precision targets of ``scopa-sim compare --precision``: how narrow each metric's 95 %
intervals must get before the comparison stops doubling its deals (games).

:func:`parse_precision` reads the option's text (``H``, ``H%`` or ``METRIC=H[%],...``) into a
:class:`Precision`, which says whether a comparison's intervals meet their targets and which
one is furthest from its target.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from scopa_sim.rules import RulesError

__all__ = ["Miss", "Precision", "needed_units", "parse_precision"]

_PRECISION_ITEM = re.compile(r"^(?:([a-z_0-9]+)=)?([^=%]+)(%?)$")


@dataclass(frozen=True)
class Precision:
    """How narrow the intervals of ``compare --precision`` must get, per metric.

    ``targets`` maps a metric name or prefix (``points`` covers points_seat0, points_seat1, ...;
    ``game_win`` the shares of games won) to ``(value, relative)``; ``default`` applies to every
    metric no key names (a bare ``H`` or ``H%``). An absolute target is a half-width in the
    metric's own unit (points, scope, deals, shares); a relative one is a fraction of the first
    arm's estimate of that metric. Each target applies to the metric's 95 % intervals: every
    arm's estimate and every difference from the first arm.
    """

    targets: tuple[tuple[str, float, bool], ...] = ()
    default: tuple[float, bool] | None = None
    text: str = ""

    def target(self, metric: str) -> tuple[float, bool] | None:
        for key, value, relative in self.targets:
            if metric == key or metric.startswith(key + "_"):
                return value, relative
        return self.default

    def check(self, names: Sequence[str]) -> None:
        """Refuse keys that name no compared metric."""
        for key, _, _ in self.targets:
            if not any(m == key or m.startswith(key + "_") for m in names):
                raise RulesError(
                    f"--precision: {key!r} names no compared metric; use one of "
                    f"{', '.join(names)} (or a prefix: points, game_win)"
                )

    def gaps(self, result) -> list[tuple[float, str, float, float]]:
        """(half-width / target, metric, half-width, target) of every interval with a target in
        ``result`` (a :class:`scopa_sim.compare.Comparison`)."""
        return [gap for r in result.rows for gap in self.gaps_of(result, r)]

    def gaps_of(self, result, row) -> list[tuple[float, str, float, float]]:
        """:meth:`gaps` of one row of ``result``: its estimate's and its difference's."""
        spec = self.target(row.metric)
        if spec is None:
            return []
        value, relative = spec
        if relative:
            first = next(r for r in result.rows if r.metric == row.metric and r.diff is None)
            target = value * abs(first.estimate.value)
        else:
            target = value
        out = []
        for e in (row.estimate, row.diff):
            if e is not None:
                ratio = e.half_width / target if target > 0 else math.inf
                out.append((ratio if e.half_width > 0 else 0.0, row.metric, e.half_width, target))
        return out

    def met(self, result) -> bool:
        return all(ratio < 1 for ratio, *_ in self.gaps(result))

    def misses(self, result) -> list[Miss]:
        """Each metric whose intervals miss their target in ``result``, with its widest interval
        and the size that would meet the target (:func:`needed_units`), widest first."""
        worst: dict[str, tuple[float, float, float]] = {}
        for ratio, metric, width, target in self.gaps(result):
            if ratio >= 1 and ratio > worst.get(metric, (0.0,))[0]:
                worst[metric] = (ratio, width, target)
        out = [
            Miss(metric, width, target, needed_units(result.units, width, target))
            for metric, (_, width, target) in worst.items()
        ]
        return sorted(out, key=lambda m: -m.width / m.target if m.target > 0 else -math.inf)

    def relative_near_zero(self, result) -> list[tuple[str, object]]:
        """The metrics with a relative target whose first-arm estimate is within its own 95 %
        interval of zero, with that estimate: a target relative to a value that may be 0 can
        shrink without end, so no size is sure to meet it."""
        out = []
        for r in result.rows:
            spec = self.target(r.metric)
            if r.diff is None and spec is not None and spec[1]:
                if r.estimate.low <= 0 <= r.estimate.high:
                    out.append((r.metric, r.estimate))
        return out

    def check_relative(self, result) -> None:
        """Refuse a relative target on a metric whose first-arm estimate is within its own
        interval of zero (:meth:`relative_near_zero`), suggesting the absolute form: half the
        half-width seen, about four times the units."""
        found = self.relative_near_zero(result)
        if not found:
            return
        metric, estimate = found[0]
        value, _ = self.target(metric)
        unit = "deals" if result.mode == "deals" else "games"
        raise RulesError(
            f"--precision {self.text}: the first arm's {metric} is {estimate} at "
            f"{result.units:,} {unit}, within its own 95% interval of zero, so a target of "
            f"{100 * value:g}% of it may shrink without end and no size is sure to meet it; give "
            "an absolute half-width in the metric's unit instead, e.g. --precision "
            f"{metric}={estimate.half_width / 2:.2g} (half today's half-width: about 4 times the "
            "units)"
        )

    def outcome(self, result) -> str:
        """One sentence: whether the targets were met, and at what size."""
        unit = "deals" if result.mode == "deals" else "games"
        if self.met(result):
            _, metric, width, target = self.worst(result)
            return (
                f"Precision target {self.text} met at {result.units:,} {unit} per arm (widest "
                f"against its target: {metric}, half-width {width:.4g}, target {target:.4g})."
            )
        misses = "; ".join(m.text(unit) for m in self.misses(result))
        return f"Precision target {self.text} NOT met at {result.units:,} {unit} per arm: {misses}."

    def worst(self, result) -> tuple[float, str, float, float]:
        return max(self.gaps(result), default=(0.0, "", 0.0, 0.0))


def needed_units(units: int, width: float, target: float) -> int | None:
    """The size at which a half-width of ``width`` at ``units`` would reach ``target``, by the
    1/sqrt(n) law of a mean's interval (None for a zero target: no size reaches it)."""
    if not target > 0:
        return None
    return math.ceil(units * (width / target) ** 2)


@dataclass(frozen=True)
class Miss:
    """A metric whose widest interval is wider than its target."""

    metric: str
    width: float
    target: float
    needed: int | None  # units per arm that would meet it (extrapolated), None: none would

    def text(self, unit: str) -> str:
        need = (
            "no size would meet a zero target"
            if self.needed is None
            else f"about {self.needed:,} {unit} per arm would be needed"
        )
        return f"{self.metric} half-width {self.width:.4g} > target {self.target:.4g} ({need})"


def parse_precision(text: str | float | Precision | None) -> Precision | None:
    """``--precision``: ``H`` (every metric, absolute), ``H%`` (every metric, relative to the
    first arm's estimate), or ``METRIC=H[%],...`` per metric, optionally with a bare default."""
    if text is None or isinstance(text, Precision):
        return text
    if isinstance(text, (int, float)):
        if not text > 0 or not math.isfinite(text):
            raise RulesError(f"--precision must be positive, not {text}")
        return Precision((), (float(text), False), str(text))
    targets, default = [], None
    for item in str(text).replace(" ", "").split(","):
        match = _PRECISION_ITEM.match(item)
        if not match:
            raise RulesError(
                f"--precision: cannot read {item!r}; give H, H%, or METRIC=H[%],... "
                "(e.g. points=0.01,game_win=0.005 or 1%)"
            )
        key, number, percent = match.groups()
        try:
            value = float(number)
        except ValueError:
            raise RulesError(
                f"--precision: {number!r} is not a number (e.g. 0.01, 1% or points=0.01)"
            ) from None
        if not value > 0 or not math.isfinite(value):
            raise RulesError(f"--precision must be positive, not {number}{percent}")
        spec = (value / 100 if percent else value, bool(percent))
        if key is None:
            if default is not None:
                raise RulesError("--precision: give at most one bare H (the default)")
            default = spec
        elif any(k == key for k, _, _ in targets):
            raise RulesError(f"--precision: {key!r} is given twice")
        else:
            targets.append((key, *spec))
    return Precision(tuple(targets), default, str(text))
