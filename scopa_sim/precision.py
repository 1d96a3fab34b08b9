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

__all__ = ["Precision", "parse_precision"]

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
        out = []
        first = {r.metric: r.estimate.value for r in result.rows if r.diff is None}
        for r in result.rows:
            spec = self.target(r.metric)
            if spec is None:
                continue
            value, relative = spec
            target = value * abs(first.get(r.metric, 0.0)) if relative else value
            for e in (r.estimate, r.diff):
                if e is not None:
                    ratio = e.half_width / target if target > 0 else math.inf
                    out.append((ratio if e.half_width > 0 else 0.0, r.metric, e.half_width, target))
        return out

    def met(self, result) -> bool:
        return all(ratio < 1 for ratio, *_ in self.gaps(result))

    def worst(self, result) -> tuple[float, str, float, float]:
        return max(self.gaps(result), default=(0.0, "", 0.0, 0.0))


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
