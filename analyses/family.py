"""How do the games of the Scopa family compare?

Every preset of docs/rules.md §7, played whole games by two to six greedy players: points and scope
per deal, how often cards, coins, primiera and (52-card game) sevens are tied so that nobody scores
them, the dealer's edge, and how many deals a game lasts, each with a 95 % interval that allows
for deals clustering in games.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses import framework
from analyses.framework import MissingData, Needs, Run
from scopa_sim import reporting, stats
from scopa_sim.rules import PRESETS, Variant, parse_variant

#: The run of each preset (greedy against greedy, whole games) in the data of `make simulate`.
FAMILY: dict[str, str] = {
    "classic": "classic-greedy",
    "classic-3p": "classic-3p",
    "classic-4p": "classic-4p",
    "classic-6p": "classic-6p",
    **{
        name: f"family-{name}-greedy"
        for name in (
            "scopone",
            "scopone-scientifico",
            "escoba",
            "asso-piglia-tutto",
            "scopa-52",
            "scopa-52-3p",
            "scopa-52-4p",
        )
    },
}
NEEDS = Needs(runs=tuple(FAMILY.values()))
#: The categories whose point nobody scores on a tie (docs/rules.md §5), in table order.
TIED = ("cards", "coins", "primiera", "sevens")
KEY = (pl.col("game") * 4096 + pl.col("deal").cast(pl.Int64)).alias("key")  # one deal of a game
COLOR = "#2b5d8a"
CATEGORY_COLORS = {
    "cards": "#2b5d8a",
    "coins": "#b5472d",
    "primiera": "#5a8f3c",
    "sevens": "#8a5a9b",
}

QUESTION = (
    "How do the games of the Scopa family compare? Per preset, with greedy players: how many "
    "points and scope a deal gives out, how often cards, coins, primiera and sevens are tied so "
    "that nobody scores them, how large the dealer's edge is, and how many deals a game lasts."
)
METHOD = (
    "One run of whole games per preset, every side played by the greedy player, each preset with "
    "its own rules and no options. Deals within a game are not independent (the score, and with it "
    "the end of the game, links them), so each per-deal figure is a ratio over games: the sum over "
    "a game divided by its number of deals, pooled over games, with a cluster-robust 95 % t "
    "interval from the ratio linearised per game (the estimator `scopa-sim compare` uses, "
    "scopa_sim.stats.linearised_ratio). Points and scope per deal are those of all sides "
    "together. A category is tied when nobody scores it (docs/rules.md §5: with three or more "
    "sides, two or more share the most); for primiera a tie means the best primiera is shared, and "
    "a deal where no side has a primiera (a suit missing from every side's cards) is counted "
    "apart. Ties are counted over the deals that were played out: a deal that stopped at a scopa "
    "winning the game outright (the 52-card game) scores no category. The dealer's edge is, per "
    "deal, the points of the dealer's side minus the mean points of the other sides; the dealer "
    "is read from the data (column dealer), and the first dealer of every game is drawn at "
    "random. Game length is the number of deals in a game, with a t interval over games."
)


@dataclass(frozen=True)
class Member:
    """The measures of one preset."""

    preset: str
    run: Run
    rules: Variant
    games: int
    deals: int
    played_out: int  # deals that scored their categories (not stopped by a winning scopa)
    points: stats.Estimate  # all sides, per deal
    scope: stats.Estimate  # all sides, per deal
    dealer: stats.Estimate  # the dealer's side, per deal
    others: stats.Estimate  # mean of the other sides, per deal
    edge: stats.Estimate  # dealer - others, per deal
    length: stats.Estimate  # deals per game
    ties: dict[str, stats.Estimate]  # category -> share of played-out deals where it is tied
    no_primiera: stats.Estimate | None  # share of played-out deals where no side has a primiera

    @property
    def sides(self) -> int:
        return self.rules.n_sides


def categories(rules: Variant) -> list[str]:
    """The tie-able categories a preset scores."""
    have = {"cards": True, "coins": True, "primiera": rules.primiera is not None}
    have["sevens"] = rules.most_sevens
    return [c for c in TIED if have[c]]


def _stopped(columns: list[str]) -> pl.Expr:
    """Per deal: it stopped at a scopa that won the game outright, so no category was scored.

    Read from the column ``stopped`` when the data have it; otherwise from the settebello (the
    seven of coins, or of hearts), which a deal played out with any capture always awards to some
    side (every card ends with a side) and a stopped deal never awards.
    """
    if "stopped" in columns:
        return pl.col("stopped").any()
    return (pl.col("pt_settebello").cast(pl.Int64).sum() == 0) & (
        pl.col("cards").cast(pl.Int64).sum() > 0
    )


def per_game(run: Run, rules: Variant) -> pl.DataFrame:
    """One row per game: deals, and the sums over its deals that the measures are ratios of."""
    lf = run.scan()
    columns = lf.collect_schema().names()
    points = pl.col("points").cast(pl.Int64)
    cats = categories(rules)
    per_deal = lf.group_by(KEY).agg(
        pl.col("game").first(),
        points.sum().alias("points"),
        points.filter(pl.col("dealer")).sum().alias("dealer"),
        pl.col("scope").cast(pl.Int64).sum().alias("scope"),
        (~_stopped(columns)).alias("counted"),
        *[(pl.col(f"pt_{c}").cast(pl.Int64).sum() == 0).alias(f"void_{c}") for c in cats],
        pl.col("primiera").max().alias("best"),
        (pl.col("primiera") == pl.col("primiera").max()).sum().alias("at_best"),
    )
    if "primiera" in cats:  # a void point is a tie only when some side has a primiera
        per_deal = per_deal.with_columns(
            (pl.col("void_primiera") & (pl.col("best") > 0) & (pl.col("at_best") > 1)).alias(
                "tie_primiera"
            ),
            (pl.col("best") == 0).alias("no_primiera"),
        )
    ties = ["tie_primiera" if c == "primiera" else f"void_{c}" for c in cats]
    counted = pl.col("counted")
    return (
        per_deal.group_by("game")
        .agg(
            pl.len().cast(pl.Int64).alias("deals"),
            pl.col("points").sum(),
            pl.col("dealer").sum(),
            pl.col("scope").sum(),
            counted.sum().cast(pl.Int64).alias("counted"),
            *[
                (pl.col(t) & counted).sum().cast(pl.Int64).alias(f"tied_{c}")
                for t, c in zip(ties, cats, strict=True)
            ],
            *(
                [(pl.col("no_primiera") & counted).sum().cast(pl.Int64).alias("no_primiera")]
                if "primiera" in cats
                else []
            ),
        )
        .sort("game")
        .collect()
    )


def _ratio(sums, counts) -> stats.Estimate:
    """A per-deal ratio over games with its cluster-robust interval (games with no deal counted
    contribute nothing to the sums and their zero count)."""
    return stats.mean_ci(stats.linearised_ratio(sums, counts))


def _share(events, counts) -> stats.Estimate:
    """A share of deals, cluster-robust like :func:`_ratio` and kept within [0, 1]. When it is 0
    or 1 the per-game values do not vary and say nothing about the spread, so the interval is
    Wilson's over the deals (deals in games are then as good as independent)."""
    k, n = int(np.sum(events)), int(np.sum(counts))
    if k in (0, n):
        return stats.proportion_ci(k, n)
    e = _ratio(events, counts)
    return stats.Estimate(e.value, max(e.low, 0.0), min(e.high, 1.0), e.n)


def measure(preset: str, run: Run) -> Member:
    rules = parse_variant(run.config["variant_label"])
    games = per_game(run, rules)
    deals = games["deals"].to_numpy()
    s = rules.n_sides
    total = games["points"].to_numpy()
    dealer = games["dealer"].to_numpy()
    others = (total - dealer) / (s - 1)
    # The edge is linearised as one ratio (sum of per-deal differences over deals), as the
    # dealer_edge metric of `scopa-sim compare`; it equals the dealer's minus the others' ratio.
    edge = _ratio(dealer - others, deals)
    counted = games["counted"].to_numpy()
    cats = categories(rules)
    ties = {c: _share(games[f"tied_{c}"].to_numpy(), counted) for c in cats}
    return Member(
        preset=preset,
        run=run,
        rules=rules,
        games=games.height,
        deals=int(deals.sum()),
        played_out=int(counted.sum()),
        points=_ratio(total, deals),
        scope=_ratio(games["scope"].to_numpy(), deals),
        dealer=_ratio(dealer, deals),
        others=_ratio(others, deals),
        edge=edge,
        length=stats.mean_ci(deals),
        ties=ties,
        no_primiera=(
            _share(games["no_primiera"].to_numpy(), counted) if "primiera" in cats else None
        ),
    )


def family_runs(data: Path) -> dict[str, Run]:
    """The run of every preset, checked: the preset with no options, greedy players, games."""
    found = framework.require_all(data, NEEDS.runs)
    out = {}
    for preset, name in FAMILY.items():
        run = found[name]
        players = set(run.config["players"])
        if run.config["variant_label"] != preset or players != {"greedy"} or run.mode != "games":
            raise MissingData(
                f"run {name} in {data}/ is {run.config['variant_label']} "
                f"({','.join(run.config['players'])}, {run.mode}); the family page needs {preset} "
                "without options, greedy players, whole games (configs/default.toml)"
            )
        out[preset] = run
    return out


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


def _main_table(members: list[Member]) -> reporting.Table:
    return reporting.Table(
        "Per preset, greedy players: means per deal (all sides together), the dealer's edge and "
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


def _finding(members: list[Member]) -> str:
    by = {m.preset: m for m in members}
    most = max(members, key=lambda m: m.points.value)
    least = min(members, key=lambda m: m.points.value)
    edge = max(members, key=lambda m: abs(m.edge.value))
    longest = max(members, key=lambda m: m.length.value)
    shortest = min(members, key=lambda m: m.length.value)
    text = (
        f"Between greedy players a deal gives out from {reporting.ci(least.points)} points "
        f"({least.preset}) to {reporting.ci(most.points)} ({most.preset}); games last from "
        f"{reporting.ci(shortest.length)} deals ({shortest.preset}) to "
        f"{reporting.ci(longest.length)} ({longest.preset}); the largest dealer's edge is "
        f"{reporting.ci(edge.edge)} points per deal ({edge.preset})"
    )
    if "classic" in by and edge.preset != "classic":
        text += f", against {reporting.ci(by['classic'].edge)} in classic"
    return text + "."


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


def findings(members: list[Member]) -> list[reporting.Finding]:
    """Per preset, every estimate of the two tables (so every number of the finding):
    ``family.PRESET.points_per_deal`` ... ``family.PRESET.tied.CATEGORY``."""
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
        out += [reporting.Finding(f"family.{m.preset}.{k}", e, u) for k, e, u in measures]
    return out


def build(data: Path) -> reporting.Page:
    """How do the games of the Scopa family compare?

    Per preset (greedy players, whole games): points and scope per deal, tied categories, the
    dealer's edge and game length, with cluster-robust 95 % intervals and one chart per measure.
    """
    found = family_runs(data)
    members = [measure(preset, found[preset]) for preset in PRESETS if preset in found]
    sections = [
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
    return framework.page(
        "family",
        slug="family",
        title="The Scopa family side by side",
        question=QUESTION,
        method=METHOD,
        used=(m.run for m in members),
        finding=_finding(members),
        sections=sections,
        data=[{"preset": m.preset, **m.run.provenance(m.deals, games=m.games)} for m in members],
        findings=findings(members),
    )


if __name__ == "__main__":
    sys.exit(framework.main(build))
