"""How large is the dealer's edge: the page's tables, texts and sections."""

from __future__ import annotations

import numpy as np

from analyses import framework
from analyses.framework import Family
from analyses.seat_advantage.charts import ZOOM, edge_chart, running_chart, win_chart
from analyses.seat_advantage.measure import (
    TOURNAMENTS,
    DuplicateEdge,
    Edge,
    ForcedCapture,
    LevelEdge,
)
from scopa_sim import compare, reporting, stats


def family_text(family: Family, parts: list[str]) -> str:
    """What the page's one family holds, and what it leaves untested."""
    return (
        f"One family for the whole page: {family.size} tests ({'; '.join(parts)}), "
        "Holm-adjusted together; each tested difference also has a Bonferroni interval at "
        f"{family.level_text} (1 - 0.05/{family.size}), which excludes 0 only when its Holm "
        "p-value is below 0.05. Derived quantities are shown but not tested: the points of "
        "the dealer's and the other sides (the edge is their difference), the mean over "
        "strategies, a pairing's edge (the mean of its two players' edges), the first "
        "dealer's share of games won of a single run (a Wilson interval, to read against "
        "1 / sides), and the deal-0 check of forced capture."
    )


def _edge_table(edges: list[Edge], family: Family) -> reporting.Table:
    rows = []
    for e in edges:
        key = ("edge", e.run.name)
        rows.append(
            [
                e.run.name,
                e.run.config["variant_label"],
                ",".join(e.run.config["players"]),
                str(e.shape.sides),
                f"{e.deals:,}",
                "games" if e.games else "deals (independent)",
                reporting.ci(e.dealer),
                reporting.ci(e.other),
                reporting.ci(e.edge),
                family.ci(key),
                family.p(key),
                "—" if e.first_won is None else framework.pct(e.first_won),
                f"{100 / e.shape.sides:.1f} %",
            ]
        )
    return reporting.Table(
        "Points per deal of the dealer's side and of the other side(s) (mean over the other "
        "sides), their difference, and the first dealer's share of games won",
        [
            "run",
            "variant",
            "players",
            "sides",
            "deals",
            "clusters",
            "dealer's side",
            "other side(s)",
            "edge [95% CI]",
            f"edge [{family.level_text} family CI]",
            "p (Holm)",
            "first dealer wins",
            "no-edge share",
        ],
        rows,
    )


def _strategy_section(edges: list[Edge], family: Family) -> reporting.Section | None:
    mixed = [e for e in edges if e.strategies]
    if not mixed:
        return None
    rows = []
    for e in mixed:
        for s in e.strategies:
            key = ("strategy", e.run.name, s.strategy)
            rows.append(
                [
                    e.run.name,
                    s.strategy,
                    reporting.ci(s.dealing),
                    reporting.ci(s.other),
                    reporting.ci(s.gain),
                    family.ci(key),
                    family.p(key),
                    "—",
                ]
            )
        balanced = stats.mean_ci(np.mean([s.values for s in e.strategies], axis=0))
        rows.append(
            [
                e.run.name,
                "mean over strategies",
                "—",
                "—",
                reporting.ci(balanced),
                "not tested",
                "—",
                reporting.ci(e.edge),
            ]
        )
    first_rows = []
    for e in mixed:
        for f in e.first_by_strategy:
            first_rows.append([e.run.name, f.strategy, f"{f.games:,}", framework.pct(f.won), "—"])
        gains = [f.gain for f in e.first_by_strategy if f.gain is not None]
        if gains:  # two sides: the same difference for either strategy (a + b - 1)
            first_rows.append(
                [
                    e.run.name,
                    "either strategy",
                    f"{e.first_won.n:,}",
                    "—",
                    framework.pct(gains[0], unit=" pp"),
                ]
            )
    tables = [
        reporting.Table(
            "Points per side-deal of each strategy when its side deals and when it does not; "
            "the last column is the dealer-minus-other difference of the whole run",
            [
                "run",
                "strategy",
                "dealing",
                "not dealing",
                "gain from dealing [95% CI]",
                f"gain [{family.level_text} family CI]",
                "p (Holm)",
                "dealer minus other, all deals",
            ],
            rows,
        )
    ]
    if first_rows:
        tables.append(
            reporting.Table(
                "Games by the strategy of the side that dealt first (drawn at random): that "
                "side's share of them won; with two sides, how much dealing first raises a "
                "strategy's share of games won (its share when it dealt first minus when the "
                "other did, the same for either strategy; Newcombe interval, not tested)",
                ["run", "first dealer", "games", "first dealer wins", "gain from dealing first"],
                first_rows,
            )
        )
    return reporting.Section(
        "By strategy",
        text=(
            "When the sides play different strategies, the dealer-minus-other difference could mix "
            "the edge with the skill gap, weighted by who dealt how often. The first dealer is "
            "drawn at random, so each strategy deals first in about half the games and deals "
            "about as often as the other over the run: the whole run's difference is the edge "
            "averaged over the strategies (up to a small term from games of odd length, whose "
            "first dealer deals once more). Each strategy is also compared with itself: its "
            "side's points per deal when it deals minus when it does not, paired by game "
            "(cluster-robust); the mean over strategies is the edge with the skill gap balanced "
            "out exactly. "
            "For whole games the random draw also makes dealing first a randomised treatment: a "
            "strategy's share of games won when it dealt first minus when the other side did is "
            "the effect of dealing first on it (Newcombe interval), with no confounding by skill."
        ),
        tables=tables,
    )


def _duplicate_section(
    dups: list[DuplicateEdge], skipped: list[str], family: Family
) -> reporting.Section:
    rows = []
    for d in dups:
        unit = "packs" if d.mode == "deals" else "games"
        for who, other in ((d.a, d.b), (d.b, d.a)):
            key = ("duplicate", d.tournament, d.a, d.b, who)
            rows.append(
                [
                    d.tournament,
                    f"{who} (against {other})",
                    f"{d.units:,} {unit}",
                    reporting.ci(d.gains[who]),
                    family.ci(key),
                    family.p(key),
                ]
            )
        rows.append(
            [d.tournament, f"{d.a} and {d.b}: mean", f"{d.deals:,} deals", reporting.ci(d.edge),
             "not tested", "—"]
        )  # fmt: skip
    text = (
        "Between different players the cleanest design is duplicate play: the tournaments in "
        f"the data folder's {TOURNAMENTS}/ (scopa-sim tournament, make tournament) play every "
        "pack twice, lineup A-B and lineup B-A, "
        "with the same first dealer, so the side that deals a pack is the same in both lineups "
        "and the player in it is swapped. Each player therefore deals every pack once and sits "
        "at the other seat once: its edge is its points when it deals minus its points when it "
        "does not, on the same packs (paired by pack, or by game in whole games: per-game "
        "ratios linearised, cluster-robust). The pairing's edge is the mean of its two "
        "players' edges, in which the skill gap cancels: exactly on independent deals, and in "
        "whole games up to the deals one seating played and the other did not (the games "
        "diverge once a deal plays out differently); it is derived, not tested."
    )
    if skipped:
        text += " Left out (the lineups did not play the same packs): " + "; ".join(skipped) + "."
    return reporting.Section(
        "Each player's edge on duplicate deals",
        text=text,
        tables=[
            reporting.Table(
                "Points per deal a player gains from dealing, on the same packs played with the "
                "seats swapped, per tournament pairing",
                [
                    "tournament",
                    "player",
                    "played twice",
                    "gain from dealing [95% CI]",
                    f"gain [{family.level_text} family CI]",
                    "p (Holm)",
                ],
                rows,
            )
        ],
    )


def _forced_section(fc: ForcedCapture, family: Family) -> reporting.Section:
    common = fc.common_rows
    paired = fc.design == compare.PAIRED
    if common and fc.identical_rows == common:
        verdict = (
            f"In fact the two runs agree row for row on all {common:,} side-deals they share "
            f"(same game, deal and side: same cards captured, same points): no play changed, "
            "so these data cannot show any effect of the rule."
        )
    else:
        verdict = (
            f"Of the {common:,} side-deals the two runs share (same game, deal and side), "
            f"{common - fc.identical_rows:,} differ in cards captured or points."
        )
    if paired:
        design = (
            f"{fc.base.run.name} and {fc.forced.run.name} share every pack: the same seed, deal "
            f"shape and games ({len(fc.base.game_ids):,}), and the same side deals the first "
            "deal of every game (checked on the column first_dealer). Game g therefore starts "
            "from the same pack in both; once a deal plays out differently the games may "
            "diverge in length, but every deal (g, d) still gets the same pack. The runs are "
            "compared paired by game: the per-game linearised edges (cluster-robust) and the "
            "per-game indicator that the first dealer's side won, each a paired t interval. "
        )
        method = f"paired by game, {fc.edge_diff.n:,} games"
    else:
        design = (
            f"{fc.base.run.name} and {fc.forced.run.name} cannot be paired ({fc.reason}), so "
            "they are compared as independent samples (Welch's t interval on the per-game "
            "linearised edges; Newcombe's interval for the shares of games won, not tested). "
        )
        method = "independent samples"
    edge_key, win_key = ("forced", "edge"), ("forced", "first_won")
    rows = [
        [
            "dealer's edge, points per deal (all deals)",
            reporting.ci(fc.base.edge),
            reporting.ci(fc.forced.edge),
            reporting.ci(fc.edge_diff),
            family.ci(edge_key),
            family.p(edge_key),
            method,
        ]
    ]
    if fc.win_diff is not None:
        rows.append(
            [
                "first dealer's share of games won",
                framework.pct(fc.base.first_won),
                framework.pct(fc.forced.first_won),
                framework.pct(fc.win_diff, unit=" pp"),
                framework.pct(family.wide[win_key], unit=" pp")
                if win_key in family.wide
                else "not tested",
                family.p(win_key),
                method if paired else "independent samples (Newcombe)",
            ]
        )
    rows.append(
        [
            "dealer's edge in deal 0, points (a check)",
            "—",
            "—",
            f"{reporting.ci(fc.deal0)} (p {stats.format_p(fc.deal0_p, equals=True)})",
            "not tested",
            "—",
            f"paired by game, {fc.deal0.n:,} games",
        ]
    )
    detect = stats.detectable_effect(fc.edge_diff)
    return reporting.Section(
        "Does forced capture change the edge?",
        text=(
            design
            + verdict
            + f" With these {fc.edge_diff.n:,} pairs, the smallest change of the edge this "
            f"design would detect (80 % power, two-sided alpha 0.05) is {detect:.4f} points per "
            "deal."
        ),
        tables=[
            reporting.Table(
                f"{fc.forced.run.name} minus {fc.base.run.name}",
                [
                    "quantity",
                    fc.base.run.name,
                    fc.forced.run.name,
                    "difference [95% CI]",
                    f"difference [{family.level_text} family CI]",
                    "p (Holm)",
                    "design",
                ],
                rows,
            )
        ],
    )


def sections(
    edges: list[Edge],
    dups: list[DuplicateEdge],
    skipped: list[str],
    fc: ForcedCapture | None,
    family: Family,
    parts: list[str],
    head: Edge,
) -> list[reporting.Section]:
    """The page's sections: every run's edge, the headline run's convergence, the first
    dealer's games, and (when there are any) strategies, duplicate deals and forced capture."""
    detect = stats.detectable_effect(head.edge)
    unit = "games" if head.games else "deals"
    sections = [
        reporting.Section(
            "Dealer against non-dealer, per run",
            text=(
                "The edge is the dealer's side's points per deal minus the mean of the other "
                "sides' points per deal. With three sides the other two are the leader and the "
                "middle seat; with teams (4 and 6 players) it is the dealer's team against the "
                "leader's team. " + family_text(family, parts)
            ),
            figures=[
                reporting.Figure(
                    "Dealer's edge per run, points per deal (95% CI)", edge_chart(edges)
                )
            ],
            tables=[_edge_table(edges, family)],
        ),
        reporting.Section(
            f"Is the edge of {head.run.name} converged?",
            text=(
                f"The estimate of {head.run.name} and its 95 % interval (cluster-robust) as its "
                f"{unit} accumulate, in the order they were played: the band narrows like one "
                "over the square root of the deals, and the final value stays inside the band "
                f"once the band is narrow. With its {head.edge.n:,} {unit}, the smallest edge "
                f"these data could detect (80 % power, two-sided alpha 0.05) is {detect:.4f} "
                "points per deal."
            ),
            figures=[
                reporting.Figure(
                    f"Running estimate of the dealer's edge in {head.run.name}, points per deal, "
                    "against deals played (log scale), with its 95% CI; the vertical axis spans "
                    f"the final estimate +- {ZOOM} final half-widths",
                    running_chart(head),
                )
            ],
        ),
    ]
    if any(e.first_won is not None for e in edges):
        sections.append(
            reporting.Section(
                "Games won by the first dealer",
                text=(
                    "The first dealer of each game is drawn at random (docs/rules.md §2; column "
                    "first_dealer), and the deal then passes to the right after each deal, so the "
                    "side that deals first also deals deals 2, 4, ... of a two-player game: over a "
                    "game both sides deal about equally often (the first dealer once more in games "
                    "of odd length), and a per-deal edge moves the share of games won only a "
                    "little. Because the draw is random, the share is the same whoever the "
                    "players are: in a run between different players it is not tilted towards "
                    "the stronger one (as it was when the last player always dealt first)."
                ),
                figures=[
                    reporting.Figure(
                        "Share of games won by the side that dealt the first deal (95% Wilson "
                        "CI); the mark is 1 / sides",
                        win_chart(edges),
                    )
                ],
            )
        )
    strategy = _strategy_section(edges, family)
    if strategy is not None:
        sections.append(strategy)
    if dups or skipped:
        sections.append(_duplicate_section(dups, skipped, family))
    if fc is not None:
        sections.append(_forced_section(fc, family))
    return sections


def levels_section(levels: list[LevelEdge], family: Family) -> reporting.Section:
    """Every run against its expert twin: both edges and their difference, paired by game."""
    rows = []
    for lv in levels:
        key = ("levels", lv.name, "edge")
        rows.append(
            [
                lv.name,
                lv.expert.run.name,
                reporting.ci(lv.beginner.edge),
                reporting.ci(lv.expert.edge),
                reporting.ci(lv.edge_diff),
                family.ci(key),
                family.p(key),
                "—" if lv.win_diff is None else framework.pct(lv.win_diff, unit=" pp"),
                family.p(("levels", lv.name, "first_won")),
                "paired by game" if lv.design == "paired" else f"unpaired: {lv.reason}",
            ]
        )
    return reporting.Section(
        "Experts against beginners",
        text=(
            "Each expert run is the twin of a beginner run: the same rules, seed and size, so "
            "game g of both is dealt the same packs from the same first dealer, and the "
            "difference of the edges is the players' doing, paired by game (the per-game "
            "linearised edges keep the interval cluster-robust). A difference whose Holm p is "
            "below 0.05 says the dealer's seat is worth more (or less) to experts than to "
            "beginners; the tests are part of the page's one family."
        ),
        figures=[
            reporting.Figure(
                f"Dealer's edge, experts minus beginners, points per deal "
                f"({family.level_text} family intervals); the line is no difference",
                framework.forest(
                    [lv.name for lv in levels],
                    [family.wide[("levels", lv.name, "edge")] for lv in levels],
                    "experts minus beginners, points per deal",
                    color="#2b5d8a",
                    reference=0.0,
                ),
            )
        ],
        tables=[
            reporting.Table(
                "The dealer's edge per run and its expert twin (points per deal); the share of "
                "games won by the first dealer, experts minus beginners",
                ["beginner run", "expert run", "beginners' edge (95% CI)",
                 "experts' edge (95% CI)", "experts minus beginners (95% CI)",
                 f"difference ({family.level_text} CI)", "Holm p",
                 "first dealer's games won, experts minus beginners", "Holm p", "design"],
                rows,
            )
        ],
    )  # fmt: skip
