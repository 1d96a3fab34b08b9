"""What does a deal and a game look like: the page's charts, tables, sections and findings."""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import polars as pl

from analyses import framework
from analyses.deal_shape.measure import (
    DealShape,
    GameShape,
    IndependentDeals,
    LevelDifference,
    TargetDifference,
)
from analyses.framework import Family
from scopa_sim import reporting

COLORS = ("#2b5d8a", "#b5472d", "#5a8f3c")


def _points_chart(shape: DealShape) -> reporting.Markup:
    frame = shape.points
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    x = frame["points"].to_numpy()
    for offset, column, label, color in (
        (-0.2, "dealer", "dealer's side", COLORS[0]),
        (0.2, "other", "other side", COLORS[1]),
    ):
        counts = frame[column].to_numpy()
        ax.bar(x + offset, counts / counts.sum(), width=0.4, label=label, color=color)
    ax.set_xlabel("points of a side in a deal")
    ax.set_ylabel("share of side-deals")
    ax.set_xticks(x)
    ax.legend()
    fig.tight_layout()
    return reporting.svg(fig)


def _scope_chart(shape: DealShape) -> reporting.Markup:
    frame = shape.scope
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    x = frame["scope"].to_numpy()
    counts = frame["deals"].to_numpy()
    ax.bar(x, counts / counts.sum(), width=0.7, color=COLORS[0])
    ax.set_xlabel("scope in a deal, all sides together")
    ax.set_ylabel("share of deals")
    ax.set_xticks(x)
    fig.tight_layout()
    return reporting.svg(fig)


def _length_chart(games: list[GameShape]) -> reporting.Markup:
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    width = 0.8 / len(games)
    for i, (g, color) in enumerate(zip(games, COLORS * 3, strict=False)):
        x = g.lengths["length"].to_numpy()
        counts = g.lengths["games"].to_numpy()
        ax.bar(
            x + (i - (len(games) - 1) / 2) * width,
            counts / counts.sum(),
            width=width,
            color=color,
            label=f"target {g.target}",
        )
    ax.set_xlabel("deals in a game")
    ax.set_ylabel("share of games")
    ax.set_xticks(range(1, max(g.longest for g in games) + 1))
    ax.legend()
    fig.tight_layout()
    return reporting.svg(fig)


def _share(count: int, total: int) -> str:
    if count == 0:
        return "0"
    share = 100 * count / total
    return f"{share:.2f} %" if share >= 0.01 else f"{share:.1e} %"


def _deal_section(shape: DealShape, plain: IndependentDeals | None) -> reporting.Section:
    means = [
        ["dealer's side, points per deal", reporting.ci(shape.dealer_points)],
        ["other side, points per deal", reporting.ci(shape.other_points)],
        ["all sides, points per deal", reporting.ci(shape.total_points)],
        ["scope per deal, all sides", reporting.ci(shape.scope_mean)],
        ["deals with at least one scopa", framework.pct(shape.any_scopa)],
    ]
    columns = ["quantity", f"{shape.run.name}, {shape.deals:,} deals in games"]
    if plain is not None:
        columns.append(f"{plain.run.name}, {plain.deals:,} independent deals")
        means[0].append(reporting.ci(plain.dealer_points))
        means[1].append(reporting.ci(plain.other_points))
        means[2].append(reporting.ci(plain.total_points))
        means[3].append(reporting.ci(plain.scope_mean))
        means[4].append(framework.pct(plain.any_scopa))
    points = shape.points
    dealer_total, other_total = int(points["dealer"].sum()), int(points["other"].sum())
    scope_total = int(shape.scope["deals"].sum())
    return reporting.Section(
        "A deal",
        text=(
            "The four categories (cards, coins, settebello, primiera) give 1 to 4 points per deal "
            "in all: the settebello always goes to some side, the other three score nothing when "
            "tied. Every scopa adds one point."
        ),
        figures=[
            reporting.Figure(
                f"Points of a side in a deal ({shape.run.name})", _points_chart(shape)
            ),
            reporting.Figure(f"Scope in a deal, all sides ({shape.run.name})", _scope_chart(shape)),
        ],
        tables=[
            reporting.Table("Means per deal (95% CI)", columns, means),
            reporting.Table(
                f"Points of a side in a deal ({shape.run.name}): share of side-deals",
                ["points", "dealer's side", "other side"],
                [
                    [str(p), _share(d, dealer_total), _share(o, other_total)]
                    for p, d, o in points.select("points", "dealer", "other").iter_rows()
                ],
            ),
            reporting.Table(
                f"Scope in a deal, all sides ({shape.run.name}): share of deals",
                ["scope", "deals", "share"],
                [[str(k), f"{n:,}", _share(n, scope_total)] for k, n in shape.scope.iter_rows()],
            ),
        ],
    )


def _differences_table(differences: list[TargetDifference], family: Family) -> reporting.Table:
    return reporting.Table(
        "Extra deals per game from a higher target: 95% CI, and the simultaneous (Bonferroni) "
        f"interval of the {family.size} comparisons, each at level {family.level:.4f}: the page's "
        "one family of differences",
        ["higher target minus lower", "games compared", "deals per game [95% CI]",
         "simultaneous interval", "design"],
        [
            [
                f"{d.high.target} minus {d.low.target}",
                f"{d.difference.n:,}" if d.paired else f"{d.low.games:,} and {d.high.games:,}",
                reporting.ci(d.difference),
                family.ci(d.key),
                d.why,
            ]
            for d in differences
        ],
    )  # fmt: skip


def _game_section(
    games: list[GameShape], differences: list[TargetDifference], family: Family
) -> reporting.Section:
    rows = [
        [
            str(g.target),
            g.run.name,
            f"{g.games:,}",
            reporting.ci(g.length),
            str(g.median),
            str(g.p99),
            str(g.longest),
            framework.pct(g.tie_share),
            f"{g.tie_deals:,}",
            f"{g.extra_if_tied:.2f}",
        ]
        for g in games
    ]
    longest = max(g.longest for g in games)
    shares = [
        [str(n)]
        + [
            _share(int(g.lengths.filter(pl.col("length") == n)["games"].sum()), g.games)
            for g in games
        ]
        for n in range(1, longest + 1)
    ]
    return reporting.Section(
        "A game",
        text=(
            "Points are added at the end of each deal; the first side to reach the target at the "
            "end of a deal wins, and if the leading sides are tied at or above it, further deals "
            "are played (docs/rules.md §6). 'Tie deals' counts the deals after which that "
            "happened; "
            "each one forced a further deal."
        ),
        figures=[reporting.Figure("Deals per game, by target", _length_chart(games))],
        tables=[
            reporting.Table(
                "Game length and ties at the target",
                [
                    "target",
                    "run",
                    "games",
                    "deals per game [95% CI]",
                    "median",
                    "99th percentile",
                    "longest",
                    "games with a tie at the target [95% CI]",
                    "tie deals",
                    "tied games: mean extra deals over the others",
                ],
                rows,
            ),
            reporting.Table(
                "Share of games by length (deals)",
                ["deals", *(f"target {g.target}" for g in games)],
                shares,
            ),
            *([_differences_table(differences, family)] if differences else []),
        ],
    )


def sections(
    shape: DealShape,
    plain: IndependentDeals | None,
    games: list[GameShape],
    differences: list[TargetDifference],
    family: Family,
) -> list[reporting.Section]:
    """The page's sections: a deal (its points and scope, with the independent deals'
    cross-check when present) and a game (its length per target, ties, the differences)."""
    return [_deal_section(shape, plain), _game_section(games, differences, family)]


DEAL_MEASURES = (  # attribute, finding name, unit
    ("dealer_points", "dealer_points", "points per deal, the dealer's side"),
    ("other_points", "other_points", "points per deal, a side that did not deal"),
    ("total_points", "total_points", "points per deal, all sides"),
    ("scope_mean", "scope", "scope per deal, all sides"),
    ("any_scopa", "any_scopa", "share of deals with at least one scopa"),
)


def findings(
    shape: DealShape,
    plain: IndependentDeals | None,
    games: list[GameShape],
    differences: list[TargetDifference] = (),
    prefix: str = "deal_shape.",
) -> list[reporting.Finding]:
    """The estimates of the means table (``deal_shape.deal.*``, and the independent deals'
    cross-check ``deal_shape.independent_deals.*``) and per target the game length and the share
    of games tied at the target (``deal_shape.target_T.*``), the two numbers of the finding;
    under ``prefix`` (``deal_shape.expert.`` for the expert level)."""
    out = [
        reporting.Finding(f"{prefix}deal.{name}", getattr(shape, attr), unit)
        for attr, name, unit in DEAL_MEASURES
    ]
    if plain is not None:
        out += [
            reporting.Finding(f"{prefix}independent_deals.{name}", getattr(plain, attr), unit)
            for attr, name, unit in DEAL_MEASURES
        ]
    for g in games:
        out += [
            reporting.Finding(f"{prefix}target_{g.target}.deals_per_game", g.length, "deals"),
            reporting.Finding(
                f"{prefix}target_{g.target}.tie_share",
                g.tie_share,
                "share of games needing extra deals for a tie at the target",
            ),
        ]
    out += [
        reporting.Finding(
            f"{prefix}target_{d.high.target}_minus_{d.low.target}.deals_per_game",
            d.difference,
            "deals per game, higher target minus lower" + (", paired by game" if d.paired else ""),
        )
        for d in differences
    ]
    return out


def level_findings(levels: list[LevelDifference], family: Family) -> list[reporting.Finding]:
    """Per target, experts minus beginners: ``deal_shape.target_T.levels.deals_per_game`` and
    ``.tie_share`` (95 %, paired by game), each with its ``.family`` (Bonferroni) interval."""
    out = []
    for d in levels:
        for measure, name, est, unit in (
            ("length", "deals_per_game", d.length, "deals per game, experts minus beginners"),
            ("tie", "tie_share", d.tie, "share of games tied at the target, experts - beginners"),
        ):
            base = f"deal_shape.target_{d.target}.levels.{name}"
            out.append(reporting.Finding(base, est, unit))
            out.append(reporting.Finding(f"{base}.family", family.wide[d.key(measure)], unit))
    return out


def level_sections(
    by_level: dict[str, list[reporting.Section]],
    who: dict[str, str],
    levels: list[LevelDifference],
    family: Family,
) -> list[reporting.Section]:
    """Each level's sections (their headings say which), then the two levels compared."""
    out = [
        dataclasses.replace(section, heading=f"{level.capitalize()}s ({who[level]}): "
                            f"{section.heading[0].lower()}{section.heading[1:]}")
        for level, part in by_level.items()
        for section in part
    ]  # fmt: skip
    rows = []
    for d in levels:
        rows.append(
            [
                str(d.target),
                reporting.ci(d.beginner.length),
                reporting.ci(d.expert.length),
                reporting.ci(d.length),
                family.ci(d.key("length")),
                family.p(d.key("length")),
                framework.pct(d.tie, unit=" pp"),
                family.p(d.key("tie")),
                d.why,
            ]
        )
    text = (
        "Each expert run is the twin of a beginner run (the same target, seed and number of "
        "games), so game g of both is dealt the same packs from the same first dealer and the "
        "difference is the players' doing, game by game. The page's one family of tests: the "
        f"differences between adjacent targets at each level and these {2 * len(levels)} level "
        f"differences, {family.size} in all, Holm-adjusted, with Bonferroni intervals at "
        f"{family.level_text}."
    )
    return [
        *out,
        reporting.Section(
            "Experts against beginners",
            text=text,
            tables=[
                reporting.Table(
                    "Per target: deals per game at both levels, and experts minus beginners",
                    [
                        "target",
                        "beginners",
                        "experts",
                        "experts minus beginners (95% CI)",
                        f"difference ({family.level_text} CI)",
                        "Holm p",
                        "games tied at the target, experts minus beginners (95% CI)",
                        "Holm p",
                        "design",
                    ],
                    rows,
                )
            ],
        ),
    ]
