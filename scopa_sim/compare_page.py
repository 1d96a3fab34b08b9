"""A comparison of variants (:mod:`scopa_sim.compare`) as a terminal table and a report page.

The page is drawn with :mod:`scopa_sim.reporting`, imported only when a page is asked for, so the
terminal table needs neither jinja2 nor matplotlib.
"""

from __future__ import annotations

import numpy as np

from scopa_sim import stats
from scopa_sim.compare import PAIRED, UNPAIRED, Comparison, Row, deal_key
from scopa_sim.text import plain_table


def _deal_text(key: tuple) -> str:
    pack, players, table, hands, throw_in = key
    same = len(set(hands)) == 1
    dealt = f"{len(hands)} of {hands[0]}" if same else "+".join(str(h) for h in hands)
    return (
        f"{pack} pack, {players} players, {table} on the table, hands of {dealt}, "
        f"throw-in {'on' if throw_in else 'off'}"
    )


def design_lines(result: Comparison) -> list[str]:
    """One sentence per arm: its seed, and how it is compared with the first arm."""
    unit = "deal" if result.mode == "deals" else "game"
    first = result.arms[0]
    lines = [
        f"{first.label}: seed {first.seed}, the first arm ({_deal_text(deal_key(first.rules))})."
    ]
    for arm in result.arms[1:]:
        if arm.design == PAIRED:
            lines.append(
                f"{arm.label}: seed {arm.seed}, the same packs in the same seats as {first.label}: "
                f"paired by {unit} (t interval of the per-{unit} differences)."
            )
        else:
            lines.append(
                f"{arm.label}: seed {arm.seed} (its own, derived from {result.seed}); it deals "
                f"otherwise ({arm.reason}), so its sample is independent of {first.label}'s: "
                "unpaired (Welch's t interval)."
            )
    return lines


def format_table(result: Comparison) -> str:
    """The comparison as a plain terminal table."""
    header = (
        "metric", "arm", "estimate [95% CI]", "diff vs first [95% CI]",
        f"diff [{_level_text(result.family_level)} family CI]", "design", "p", "p (Holm)",
    )  # fmt: skip
    rows = [
        (
            r.metric,
            r.arm,
            str(r.estimate),
            "—" if r.diff is None else str(r.diff),
            _family_cell(r, str),
            r.design or "—",
            stats.format_p(r.p_value),
            stats.format_p(r.p_holm),
        )
        for r in result.rows
    ]
    text = plain_table(header, rows)
    unit = "deals" if result.mode == "deals" else "games"
    text.append(
        f"{result.units:,} {unit} per arm, seed {result.seed}, players {','.join(result.players)}."
    )
    text.append(family_text(result))
    if result.precision is not None:
        text.append(result.precision.outcome(result))
    text += design_lines(result)
    return "\n".join(text)


def _level_text(level: float) -> str:
    return f"{100 * level:.4g}%"


def _family_cell(row: Row, show) -> str:
    if row.diff_family is not None:
        return show(row.diff_family)
    return "not tested (derived)" if row.derived else "—"


def family_text(result: Comparison) -> str:
    """One sentence: the Holm family, its Bonferroni level, and what is shown but not tested."""
    m = len(result.family)
    derived = sorted({r.metric for r in result.rows if r.derived})
    text = (
        f"One family of {m} tested differences from the first arm: Holm-adjusted p-values, and "
        f"Bonferroni intervals at {_level_text(result.family_level)} (= 1 - 0.05/{m}) that "
        "exclude 0 only when Holm p < 0.05."
    )
    if derived:
        text += (
            f" Shown, not tested ({', '.join(derived)}): fixed combinations of tested "
            "differences (the dealer's edge is the dealer's side's points minus the others'; the "
            "last side's share of games won is 1 minus the others')."
        )
    return text


PAIRED_COLOR = "#2b5d8a"
UNPAIRED_COLOR = "#b5472d"


def findings(result: Comparison, prefix: str = "compare") -> list:
    """Every estimate and difference as a reporting.Finding: ``PREFIX.METRIC.ARM`` (95 % CI)
    and ``PREFIX.METRIC.ARM.diff`` (95 % CI; ``.diff_family`` its Bonferroni interval)."""
    from scopa_sim import reporting

    def unit(metric: str) -> str:
        if metric.startswith("game_win"):
            return "share of games"
        if metric == "game_length":
            return "deals per game"
        return "scope per deal" if metric == "scope" else "points per deal"

    out = []
    for r in result.rows:
        name = f"{prefix}.{r.metric}.{r.arm}"
        out.append(reporting.Finding(name, r.estimate, unit(r.metric)))
        if r.diff is not None:
            out.append(reporting.Finding(f"{name}.diff", r.diff, unit(r.metric)))
        if r.diff_family is not None:
            out.append(reporting.Finding(f"{name}.diff_family", r.diff_family, unit(r.metric)))
    return out


def page(result: Comparison, slug: str = "variant-comparison"):
    """The comparison as a report page with a forest plot of the differences."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

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
        for design, marker, color in ((PAIRED, "o", PAIRED_COLOR), (UNPAIRED, "s", UNPAIRED_COLOR)):
            mine = [k for k, r in enumerate(rows) if r.design == design]
            if not mine:
                continue
            values = np.array([rows[k].diff.value for k in mine])
            errors = [
                values - [rows[k].diff.low for k in mine],
                [rows[k].diff.high for k in mine] - values,
            ]
            ax.errorbar(values, y[mine], xerr=errors, fmt=marker, color=color, capsize=3)
        ax.axvline(0, color="#888", lw=1, ls="--")
        ax.set_yticks(y, [r.arm for r in rows])
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.set_title(metric, loc="left", fontsize=10)
    axes[-1, 0].set_xlabel(f"difference from {result.arms[0].label} (95% CI)")
    if len(result.designs) > 1 or UNPAIRED in result.designs:
        handles = [
            Line2D([], [], marker=m, color=c, ls="", label=label)
            for m, c, label, design in (
                ("o", PAIRED_COLOR, "paired (same packs)", PAIRED),
                ("s", UNPAIRED_COLOR, "unpaired (other packs, Welch)", UNPAIRED),
            )
            if design in result.designs
        ]
        fig.legend(handles=handles, loc="lower center", ncols=len(handles), fontsize="small")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    else:
        fig.tight_layout()
    how = {
        PAIRED: "paired: the same packs, t interval of the per-unit differences",
        UNPAIRED: "unpaired: other packs, Welch's t interval",
    }
    table = reporting.Table(
        "Estimates per arm and differences from the first arm ("
        + "; ".join(how[d] for d in (PAIRED, UNPAIRED) if d in result.designs)
        + ")",
        [
            "metric",
            "arm",
            "estimate [95% CI]",
            "diff [95% CI]",
            f"diff [{_level_text(result.family_level)} family CI]",
            "design",
            "p",
            "p (Holm)",
        ],
        [
            [
                r.metric,
                r.arm,
                reporting.ci(r.estimate),
                "—" if r.diff is None else reporting.ci(r.diff),
                _family_cell(r, reporting.ci),
                r.design or "—",
                stats.format_p(r.p_value),
                stats.format_p(r.p_holm),
            ]
            for r in result.rows
        ],
    )
    largest = result.clearest()
    unit = "deals" if result.mode == "deals" else "games"
    method = f"Each arm plays {result.units:,} {unit}. "
    if PAIRED in result.designs:
        method += (
            f"Arms that deal like the first arm (same pack, players, table cards, hands and "
            f"throw-in rule) play the same {unit} with seed {result.seed}, so they see the same "
            f"packs in the same seats; their differences from the first arm are paired per "
            f"{unit[:-1]} (t-test). "
        )
    if UNPAIRED in result.designs:
        method += (
            "Arms that deal otherwise see other packs whatever the seed, so pairing would buy "
            "nothing: each plays with a seed of its own derived from "
            f"{result.seed}, which makes its sample independent of the first arm's, and its "
            "differences are unpaired (Welch's t interval and test). "
        )
    method += (
        "Per-deal metrics in games are ratio estimates linearised per game. A metric is shown "
        "only for arms that have it (points of seat 3 need four sides). " + family_text(result)
    )
    if result.precision is not None:
        method += (
            " The number of units was doubled until the intervals met the precision target "
            "(--precision), so it depends on the data: a relative target (a percentage of the "
            "estimate) makes the stop depend on the estimate itself and biases it; an absolute "
            "one depends only on the spread and biases it far less (docs/precision.md). "
            + result.precision.outcome(result)
        )
    design_text = {None: "first arm", PAIRED: "paired", UNPAIRED: "unpaired"}
    return reporting.Page(
        slug=slug,
        title="Variant comparison",
        question="Does a rule change matter, and by how much? "
        + " vs ".join(a.label for a in result.arms),
        method=method,
        finding=(
            f"Clearest difference: {largest.metric} under {largest.arm}, "
            f"{reporting.ci(largest.diff_family or largest.diff)} "
            f"({_level_text(result.family_level)} family CI; "
            f"Holm p {stats.format_p(largest.p_holm, equals=True)})."
        ),
        findings=findings(result),
        sections=[
            reporting.Section(
                "Differences from the first arm",
                text=" ".join(design_lines(result)),
                figures=[reporting.Figure("Forest plot of the differences", reporting.svg(fig))],
                tables=[table],
            )
        ],
        data=[
            {
                "arm": a.label,
                "variant": a.rules.describe(),
                "players": ",".join(names),
                unit: f"{result.units:,}",
                "seed": a.seed,
                "design": design_text[a.design] + (f" ({a.reason})" if a.reason else ""),
            }
            for a, names in zip(result.arms, result.arm_players, strict=True)
        ],
    )
