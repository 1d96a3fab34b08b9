"""How do the games of the Scopa family compare: the page's charts, tables, texts and findings."""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np

from analyses import framework
from analyses.family.measure import TIED, LevelDifference, Member
from scopa_sim import reporting

COLOR = "#2b5d8a"
CATEGORY_COLORS = {
    "cards": "#2b5d8a",
    "coins": "#b5472d",
    "primiera": "#5a8f3c",
    "sevens": "#8a5a9b",
}


# charts -----------------------------------------------------------------------------------------


def _forest(members: list[Member], pick, xlabel: str, reference: float | None = None):
    return framework.forest(
        [m.preset for m in members], [pick(m) for m in members], xlabel, color=COLOR,
        reference=reference,
    )  # fmt: skip


def _ties_chart(members: list[Member]):
    fig, ax = plt.subplots(figsize=(7, 0.42 * len(members) + 1.5))
    y = np.arange(len(members))[::-1]
    offsets = dict(zip(TIED, (0.24, 0.08, -0.08, -0.24), strict=True))
    for cat in TIED:
        rows = [(k, m.ties[cat]) for k, m in enumerate(members) if cat in m.ties]
        if not rows:
            continue
        framework.errorbars(
            ax, [framework.percent(e) for _, e in rows], y[[k for k, _ in rows]] + offsets[cat],
            fmt="o", ms=4, capsize=2, color=CATEGORY_COLORS[cat], label=cat,
        )  # fmt: skip
    ax.set_yticks(y, [m.preset for m in members])
    ax.set_ylim(-0.6, len(members) - 0.4)
    ax.set_xlabel("deals where nobody scores the category because it is tied, % (95% CI)")
    ax.grid(axis="x", color="#ddd", lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=4, fontsize="small")
    fig.tight_layout()
    return reporting.svg(fig)


# page -------------------------------------------------------------------------------------------


def _shape(m: Member) -> str:
    r = m.rules
    teams = f", {r.n_sides} teams" if r.n_sides < r.n_players else ""
    return f"{r.n_players} players{teams}"


def who(members: list[Member]) -> str:
    """The players of ``members``' runs, as the page names them ("greedy players")."""
    return f"{'/'.join(dict.fromkeys(p for m in members for p in m.run.config['players']))} players"


def _main_table(members: list[Member]) -> reporting.Table:
    return reporting.Table(
        f"Per preset, {who(members)}: means per deal (all sides together), the dealer's edge and "
        "deals per game (95% CI, cluster-robust by game)",
        [
            "preset",
            "players",
            "games",
            "deals",
            "points per deal",
            "scope per deal",
            "dealer's side, points per deal",
            "other sides (mean), points per deal",
            "dealer's edge",
            "deals per game",
        ],
        [
            [
                m.preset,
                _shape(m),
                f"{m.games:,}",
                f"{m.deals:,}",
                reporting.ci(m.points),
                reporting.ci(m.scope),
                reporting.ci(m.dealer),
                reporting.ci(m.others),
                reporting.ci(m.edge),
                reporting.ci(m.length),
            ]
            for m in members
        ],
    )


def _ties_table(members: list[Member]) -> reporting.Table:
    rows = []
    for m in members:
        rows.append(
            [
                m.preset,
                f"{m.played_out:,}",
                *[framework.pct(m.ties[c]) if c in m.ties else "—" for c in TIED],
                "—" if m.no_primiera is None else framework.pct(m.no_primiera),
            ]
        )
    return reporting.Table(
        "Share of played-out deals in which a category is tied, so nobody scores it (95% CI, "
        "cluster-robust by game); — where the preset does not score the category",
        [
            "preset",
            "deals played out",
            "cards tied",
            "coins (hearts) tied",
            "primiera tied",
            "sevens tied",
            "no side has a primiera",
        ],
        rows,
    )


def headline(members: list[Member]) -> str:
    """The finding: the range of points per deal and of game length, and the largest edge."""
    by = {m.preset: m for m in members}
    most = max(members, key=lambda m: m.points.value)
    least = min(members, key=lambda m: m.points.value)
    edge = max(members, key=lambda m: abs(m.edge.value))
    longest = max(members, key=lambda m: m.length.value)
    shortest = min(members, key=lambda m: m.length.value)
    text = (
        f"Between {who(members)} a deal gives out from {reporting.ci(least.points)} points "
        f"({least.preset}) to {reporting.ci(most.points)} ({most.preset}); games last from "
        f"{reporting.ci(shortest.length)} deals ({shortest.preset}) to "
        f"{reporting.ci(longest.length)} ({longest.preset}); the largest dealer's edge is "
        f"{reporting.ci(edge.edge)} points per deal ({edge.preset})"
    )
    if "classic" in by and edge.preset != "classic":
        text += f", against {reporting.ci(by['classic'].edge)} in classic"
    return text + "."


def levels_headline(differences: list[LevelDifference], family: framework.Family) -> str:
    """The finding's second sentence: how the experts' game length differs from the beginners'
    on the same packs, counted over the page's family."""
    longer = [d for d in differences if family.p_holm[("length", d.preset)] < 0.05 and
              d.length.value > 0]  # fmt: skip
    shorter = [d for d in differences if family.p_holm[("length", d.preset)] < 0.05 and
               d.length.value < 0]  # fmt: skip
    return (
        f"Experts' games ({who([differences[0].expert])}) last longer than beginners' "
        f"({who([differences[0].beginner])}) on the same packs in {len(longer)} presets "
        f"({_names(longer)}) and shorter in {len(shorter)} ({_names(shorter)}), of "
        f"{len(differences)} (Holm p < 0.05 in the page's family of {family.size} tests)."
    )


def _names(members: list[Member]) -> str:
    return ", ".join(m.preset for m in members) if members else "none"


def _scope_text(members: list[Member]) -> str:
    most = max(members, key=lambda m: m.scope.value)
    fewest = min(members, key=lambda m: m.scope.value)
    return (
        f"The most scope per deal: {most.preset}, {reporting.ci(most.scope)}; the fewest: "
        f"{fewest.preset}, {reporting.ci(fewest.scope)}."
    )


def _ties_text(members: list[Member]) -> str:
    parts = []
    for cat in TIED:
        shares = [(m.ties[cat], m.preset) for m in members if cat in m.ties]
        if not shares:
            continue
        low, high = min(shares, key=lambda x: x[0].value), max(shares, key=lambda x: x[0].value)
        parts.append(
            f"{cat} from {100 * low[0].value:.1f} % ({low[1]}) to "
            f"{100 * high[0].value:.1f} % ({high[1]})"
        )
    return "Across the presets, the share of played-out deals tied is: " + "; ".join(parts) + "."


def _edge_text(members: list[Member]) -> str:
    ahead = [m for m in members if m.edge.low > 0]
    behind = [m for m in members if m.edge.high < 0]
    neither = [m for m in members if m.edge.low <= 0 <= m.edge.high]
    parts = [
        f"{what} in {len(group)} ({_names(group)})"
        for what, group in (
            ("ahead (95 % CI above 0)", ahead),
            ("behind (95 % CI below 0)", behind),
            ("within noise of no edge (95 % CI across 0)", neither),
        )
        if group
    ]
    return f"Of the {len(members)} presets, the dealer's side is " + "; ".join(parts) + "."


def findings(
    members: list[Member],
    experts: list[Member] | None = None,
    differences: list[LevelDifference] = (),
    family: framework.Family | None = None,
) -> list[reporting.Finding]:
    """Per preset, every estimate of the two tables (so every number of the finding):
    ``family.PRESET.points_per_deal`` ... ``family.PRESET.tied.CATEGORY`` for beginners, the
    same under ``family.PRESET.expert.`` for experts, and the level difference in game length,
    ``family.PRESET.levels.deals_per_game`` (95 %) and its ``.family`` (Bonferroni) interval."""
    out = _level_findings(members, "")
    if experts is not None:
        out += _level_findings(experts, "expert.")
    for d in differences:
        name = f"family.{d.preset}.levels.deals_per_game"
        unit = "deals per game, experts minus beginners"
        out.append(reporting.Finding(name, d.length, unit))
        if family is not None:
            out.append(reporting.Finding(f"{name}.family", family.wide[("length", d.preset)], unit))
    return out


def _level_findings(members: list[Member], prefix: str) -> list[reporting.Finding]:
    out = []
    for m in members:
        measures = [
            ("points_per_deal", m.points, "points per deal, all sides"),
            ("scope_per_deal", m.scope, "scope per deal, all sides"),
            ("dealer_points_per_deal", m.dealer, "points per deal, the dealer's side"),
            ("other_points_per_deal", m.others, "points per deal, mean of the other sides"),
            ("dealer_edge", m.edge, "points per deal, dealer's side minus the others' mean"),
            ("deals_per_game", m.length, "deals per game"),
            *[
                (f"tied.{c}", e, f"share of played-out deals with {c} tied")
                for c, e in m.ties.items()
            ],
        ]
        if m.no_primiera is not None:
            measures.append(
                ("no_primiera", m.no_primiera, "share of played-out deals with no primiera")
            )
        out += [reporting.Finding(f"family.{m.preset}.{prefix}{k}", e, u) for k, e, u in measures]
    return out


def level_sections(
    levels: dict[str, list[Member]],
    differences: list[LevelDifference],
    family: framework.Family,
) -> list[reporting.Section]:
    """Every section once per level (its title says which), then the two levels compared."""
    out = []
    for level, members in levels.items():
        for section in sections(members):
            heading = section.heading
            title = f"{level.capitalize()}s ({who(members)}): {heading[0].lower()}{heading[1:]}"
            out.append(dataclasses.replace(section, heading=title))
    return [*out, _levels_section(differences, family)]


def _levels_section(differences: list[LevelDifference], family: framework.Family):
    paired = all(d.paired for d in differences)
    rows = [
        [
            d.preset,
            reporting.ci(d.beginner.length),
            reporting.ci(d.expert.length),
            reporting.ci(d.length),
            family.ci(("length", d.preset)),
            family.p(("length", d.preset)),
            "paired by game" if d.paired else f"Welch: {d.why}",
        ]
        for d in differences
    ]
    return reporting.Section(
        "Experts against beginners",
        text=(
            "Each expert run is the twin of a beginner run: the same preset, seed and number of "
            "games, so game g of both is dealt the same packs from the same first dealer, and "
            "the difference in its length is the players' doing, game by game. "
            + ("Every preset is paired by game. " if paired else "")
            + f"The page's one family of tests is the {family.size} level differences of game "
            f"length, one per preset: Holm-adjusted p-values, and Bonferroni intervals at "
            f"{family.level_text} beside the 95 % ones. " + levels_headline(differences, family)
        ),
        figures=[
            reporting.Figure(
                f"Deals per game, experts minus beginners ({family.level_text} Bonferroni "
                "intervals); the line is no difference",
                framework.forest(
                    [d.preset for d in differences],
                    [family.wide[("length", d.preset)] for d in differences],
                    "experts minus beginners, deals per game",
                    color=COLOR,
                    reference=0.0,
                ),
            )
        ],
        tables=[
            reporting.Table(
                "Deals per game at both levels and their difference",
                [
                    "preset",
                    "beginners",
                    "experts",
                    "experts minus beginners (95% CI)",
                    f"difference ({family.level_text} CI)",
                    "Holm p",
                    "design",
                ],
                rows,
            )
        ],
    )


def sections(members: list[Member]) -> list[reporting.Section]:
    """The page's sections: points and scope per deal, tied categories, the dealer's edge and
    game length, each with its chart."""
    return [
        reporting.Section(
            "Points and scope per deal",
            text=(
                "All sides together. Cards, coins, settebello and primiera give at most 4 points "
                "a deal (the 52-card game: cards, hearts, sevens and the seven of hearts), and "
                "every scopa (escoba) adds one; a tied category gives nothing, and a deal "
                "stopped by a winning scopa counts only its scope. " + _scope_text(members)
            ),
            figures=[
                reporting.Figure(
                    "Points per deal, all sides (95% CI)",
                    _forest(members, lambda m: m.points, "points per deal, all sides (95% CI)"),
                ),
                reporting.Figure(
                    "Scope per deal, all sides (95% CI)",
                    _forest(members, lambda m: m.scope, "scope per deal, all sides (95% CI)"),
                ),
            ],
            tables=[_main_table(members)],
        ),
        reporting.Section(
            "Tied categories",
            text=(
                "With two sides a tie is an even split (20 cards each, 5 coins each, equal "
                "primiera; in the 52-card game 26 cards each or equal sevens, while its 13 hearts "
                "cannot split evenly). With three or more sides a category goes only to a side "
                "with strictly the most, so it is tied whenever two sides share the most. "
                + _ties_text(members)
            ),
            figures=[reporting.Figure("Tied categories per preset (95% CI)", _ties_chart(members))],
            tables=[_ties_table(members)],
        ),
        reporting.Section(
            "The dealer's edge",
            text=(
                "Points per deal of the dealer's side minus the mean of the other sides; with "
                "teams the dealer's side is the dealer's team. The dealer plays last in every "
                "round (and the last capturer takes the cards left on the table), while the "
                "leader plays first. The first dealer of each game is drawn at random and the "
                "deal then passes round the table, so every seat deals about equally often. "
                + _edge_text(members)
            ),
            figures=[
                reporting.Figure(
                    "Dealer's edge, points per deal (95% CI); the line is no edge",
                    _forest(
                        members,
                        lambda m: m.edge,
                        "dealer's side minus the other sides, points per deal (95% CI)",
                        reference=0.0,
                    ),
                )
            ],
        ),
        reporting.Section(
            "Game length",
            text=(
                "Deals until a side wins (docs/rules.md §6): target 11, Escoba 15; Scopone deals "
                "every card at once, so a deal is the whole pack in one hand; in the 52-card game "
                "a scopa that reaches the target ends the game at once."
            ),
            figures=[
                reporting.Figure(
                    "Deals per game (95% CI)",
                    _forest(members, lambda m: m.length, "deals per game (95% CI)"),
                )
            ],
        ),
    ]
