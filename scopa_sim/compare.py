"""Paired comparisons of variants: ``scopa-sim compare classic classic:forced_capture=true``.

Every arm plays the same deal (or game) numbers with the same seed, so arms with the same pack
see the same packs (common random numbers, ``scopa_sim.seeding``). Differences from the first
arm are then estimated per unit (deal, or game) with paired t-tests, which removes most of the
deal-to-deal noise; p-values are Holm-adjusted over every comparison made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed, parallel_config

from scopa_sim import api, stats
from scopa_sim.players import Player
from scopa_sim.rules import RulesError, Variant, parse_variant


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


CHUNK = 50_000


@dataclass(frozen=True)
class Arm:
    label: str
    rules: Variant


def parse_arms(texts: Sequence[str]) -> list[Arm]:
    arms = [Arm(text, parse_variant(text)) for text in texts]
    if len(arms) < 2:
        raise RulesError(
            "compare needs at least two arms, e.g. classic classic:forced_capture=true"
        )
    sides = {arm.rules.n_sides for arm in arms}
    if len(sides) > 1:
        raise RulesError("every arm must have the same number of sides, so the same --players fit")
    return arms


def _units(rules: Variant, players, mode: str, span: range, seed: int, batch_size: int) -> dict:
    """Per-unit values of one chunk: per deal (deals mode) or per game (games mode)."""
    n, s = rules.n_players, rules.n_sides
    if mode == "deals":
        out = api.play_deals(rules, players, deals=span, seed=seed, batch_size=batch_size)
        leader = out.game % n  # the player who leads (seat 0)
    else:
        out = api.play_games(rules, players, games=span, seed=seed, batch_size=batch_size)
        leader = out.deal.astype(np.int64) % n
    rows = np.arange(len(out))
    totals = out.totals.astype(np.float64)
    seat_sides = (leader[:, None] + np.arange(s)[None, :]) % n % s  # side of seat k < s
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
    # In the first deal seat k is player k, whose side is k % sides.
    winners = out.winner[out.final]
    for k in range(s):
        units[f"game_win_seat{k}"] = (winners == k).astype(np.float64)
    return units


@dataclass(frozen=True)
class Row:
    metric: str
    arm: str
    estimate: stats.Estimate
    diff: stats.Estimate | None
    p_value: float | None
    p_holm: float | None = None

    def to_json(self) -> dict:
        d = self.diff
        return {
            "metric": self.metric,
            "arm": self.arm,
            "estimate": self.estimate.value,
            "ci_low": self.estimate.low,
            "ci_high": self.estimate.high,
            "diff": None if d is None else d.value,
            "diff_ci_low": None if d is None else d.low,
            "diff_ci_high": None if d is None else d.high,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "n": self.estimate.n,
        }


@dataclass(frozen=True)
class Comparison:
    arms: list[Arm]
    players: tuple[str, ...]
    mode: str
    units: int
    seed: int
    rows: list[Row]

    @property
    def max_half_width(self) -> float:
        widths = [r.estimate.half_width for r in self.rows]
        widths += [r.diff.half_width for r in self.rows if r.diff is not None]
        return max(widths)


def _metric_values(units: dict, metric: str, mode: str) -> np.ndarray:
    if mode == "deals" or not is_per_deal(metric):
        return units[metric]
    return stats.linearised_ratio(units[f"{metric}:sum"], units["deals"])


def analyse(arms: list[Arm], players, mode: str, per_arm: list[dict], seed: int) -> Comparison:
    rows: list[Row] = []
    for metric in metrics(arms[0].rules, mode):
        base = _metric_values(per_arm[0], metric, mode)
        for i, arm in enumerate(arms):
            values = _metric_values(per_arm[i], metric, mode)
            if metric.startswith("game_win"):
                estimate = stats.proportion_ci(int(values.sum()), len(values))
            else:
                estimate = stats.mean_ci(values)
            diff, p = (None, None) if i == 0 else stats.paired_difference(base, values)
            rows.append(Row(metric, arm.label, estimate, diff, p))
    compared = [i for i, r in enumerate(rows) if r.p_value is not None]
    adjusted = stats.holm([rows[i].p_value for i in compared])
    for i, p in zip(compared, adjusted, strict=True):
        r = rows[i]
        rows[i] = Row(r.metric, r.arm, r.estimate, r.diff, r.p_value, float(p))
    units = len(next(iter(per_arm[0].values())))
    return Comparison(arms, tuple(p.name for p in players), mode, units, seed, rows)


def compare(
    arm_texts: Sequence[str],
    players: Sequence[Player | str],
    *,
    mode: str,
    count: int,
    seed: int,
    workers: int = 1,
    precision: float | None = None,
    max_units: int = 5_000_000,
    batch_size: int = 8192,
    progress=None,
) -> Comparison:
    """Play every arm on the same units and compare; with ``precision``, keep doubling the
    number of units until every CI half-width is below it (or ``max_units`` is reached)."""
    arms = parse_arms(arm_texts)
    resolved = api.resolve(arms[0].rules, players)[1]  # every arm has as many sides (parse_arms)
    if count <= 0 or workers <= 0:
        raise RulesError("the count and the number of workers must be positive")
    if precision is not None and precision <= 0:
        raise RulesError(f"--precision must be positive, not {precision}")
    done = 0
    per_arm: list[dict[str, list]] = [{} for _ in arms]
    target = count if precision is None else min(count, max_units)
    while True:
        spans = [range(s, min(s + CHUNK, target)) for s in range(done, target, CHUNK)]
        tasks = [(i, span) for i in range(len(arms)) for span in spans]
        with parallel_config(backend="loky", n_jobs=workers):
            results = Parallel()(
                delayed(_units)(arms[i].rules, resolved, mode, span, seed, batch_size)
                for i, span in tasks
            )
        for (i, _), units in zip(tasks, results, strict=True):
            for key, values in units.items():
                per_arm[i].setdefault(key, []).append(values)
        done = target
        merged = [{k: np.concatenate(v) for k, v in arm.items()} for arm in per_arm]
        result = analyse(arms, resolved, mode, merged, seed)
        if progress:
            progress(result)
        if precision is None or result.max_half_width < precision or done >= max_units:
            return result
        target = min(2 * done, max_units)


def format_table(result: Comparison) -> str:
    """The comparison as a plain terminal table."""
    header = ("metric", "arm", "estimate [95% CI]", "diff vs first [95% CI]", "p", "p (Holm)")
    lines = [header]
    for r in result.rows:
        lines.append(
            (
                r.metric,
                r.arm,
                str(r.estimate),
                "—" if r.diff is None else str(r.diff),
                stats.format_p(r.p_value),
                stats.format_p(r.p_holm),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines
    ]
    text.insert(1, "  ".join("-" * w for w in widths))
    unit = "deals" if result.mode == "deals" else "games"
    text.append(
        f"{result.units:,} {unit} per arm, seed {result.seed}, players {','.join(result.players)}; "
        "arms share packs (paired)."
    )
    return "\n".join(text)


def page(result: Comparison, slug: str = "variant-comparison"):
    """The comparison as a report page with a forest plot of the differences."""
    import matplotlib.pyplot as plt

    from scopa_sim import reporting

    compared = [r for r in result.rows if r.diff is not None]
    metrics = list(dict.fromkeys(r.metric for r in compared))
    arms = len(result.arms) - 1
    # One panel per metric: each has its own scale (points, deals, shares).
    fig, axes = plt.subplots(
        len(metrics), 1, figsize=(7, (0.35 * arms + 0.55) * len(metrics) + 0.6), squeeze=False
    )
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        rows = [r for r in compared if r.metric == metric]
        y = np.arange(len(rows))[::-1]
        values = np.array([r.diff.value for r in rows])
        errors = [values - [r.diff.low for r in rows], [r.diff.high for r in rows] - values]
        ax.errorbar(values, y, xerr=errors, fmt="o", color="#2b5d8a", capsize=3)
        ax.axvline(0, color="#888", lw=1, ls="--")
        ax.set_yticks(y, [r.arm for r in rows])
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.set_title(metric, loc="left", fontsize=10)
    axes[-1, 0].set_xlabel(f"difference from {result.arms[0].label} (95% CI)")
    fig.tight_layout()
    table = reporting.Table(
        "Estimates per arm and paired differences from the first arm",
        ["metric", "arm", "estimate [95% CI]", "diff [95% CI]", "p", "p (Holm)"],
        [
            [
                r.metric,
                r.arm,
                reporting.ci(r.estimate),
                "—" if r.diff is None else reporting.ci(r.diff),
                stats.format_p(r.p_value),
                stats.format_p(r.p_holm),
            ]
            for r in result.rows
        ],
    )
    largest = max(compared, key=lambda r: abs(r.diff.value) / max(r.diff.half_width, 1e-12))
    unit = "deals" if result.mode == "deals" else "games"
    return reporting.Page(
        slug=slug,
        title="Variant comparison",
        question="Does a rule change matter, and by how much? "
        + " vs ".join(a.label for a in result.arms),
        method=(
            f"Each arm plays the same {result.units:,} {unit} with seed {result.seed}, so arms "
            "with the same pack see the same packs. Differences from the first arm are paired per "
            f"{unit[:-1]} (t-test); per-deal metrics in games are ratio estimates linearised per "
            "game. p-values are Holm-adjusted over all comparisons."
        ),
        finding=(
            f"Clearest difference: {largest.metric} under {largest.arm}, "
            f"{reporting.ci(largest.diff)} (Holm p {stats.format_p(largest.p_holm, equals=True)})."
        ),
        sections=[
            reporting.Section(
                "Differences from the first arm",
                figures=[reporting.Figure("Forest plot of paired differences", reporting.svg(fig))],
                tables=[table],
            )
        ],
        data=[
            {
                "arm": a.label,
                "variant": a.rules.describe(),
                "players": ",".join(result.players),
                unit: f"{result.units:,}",
                "seed": result.seed,
            }
            for a in result.arms
        ],
    )
