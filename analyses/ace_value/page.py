"""What is an ace worth for primiera: the page's figures, tables, sections and findings."""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np

from analyses import framework
from analyses.ace_value.measure import (
    MIN_CELL,
    RANKS,
    SITUATIONS,
    WINS,
    AceValues,
    LevelDifference,
)
from scopa_sim import reporting

SITUATION_NAMES = {
    (False, False): "neither the seven nor the six",
    (False, True): "the six, not the seven",
    (True, False): "the seven, not the six",
    (True, True): "both the seven and the six",
}
SITUATION_LABELS = {
    (False, False): "neither 7 nor 6",
    (False, True): "6, not 7",
    (True, False): "7, not 6",
    (True, True): "7 and 6",
}
SITUATION_KEYS = {
    (False, False): "neither",
    (False, True): "six",
    (True, False): "seven",
    (True, True): "both",
}


def _bars(captured: dict, dealt: dict) -> plt.Figure:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    width = 0.38
    x = np.arange(len(SITUATIONS))
    for ax, measure, title in zip(
        axes, ("points", "primiera"), ("deal points", "primiera point"), strict=True
    ):
        for k, (label, table, colour) in enumerate(
            [("captured (rescored)", captured, "#2b5d8a"), ("dealt (replayed)", dealt, "#d08c2b")]
        ):
            est = [table[measure][s] for s in SITUATIONS]
            ax.bar(
                x + (k - 0.5) * width,
                [e.value for e in est],
                width,
                yerr=[[e.value - e.low for e in est], [e.high - e.value for e in est]],
                capsize=3,
                color=colour,
                label=label,
            )
        ax.axhline(0, color="#888", lw=1)
        ax.set_xticks(x, [SITUATION_LABELS[s] for s in SITUATIONS], fontsize=8)
        ax.set_title(f"Value of an ace in {title}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("with the ace minus without, 95% CI")
    axes[0].set_xlabel("the side holds, of the ace's suit", fontsize=8)
    axes[1].set_xlabel("the side holds, of the ace's suit", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, frameon=False, fontsize=8, loc="upper center", ncol=2)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig


def _heatmap(est: dict) -> plt.Figure:
    fig, axes = plt.subplots(1, 5, figsize=(13, 3.3), sharey=True)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#eeeeee")
    for aces, ax in zip(RANKS, axes, strict=True):
        grid = np.full((5, 5), np.nan)
        for sevens in RANKS:
            for sixes in RANKS:
                if (sevens, sixes, aces) in est:
                    grid[sevens, sixes] = est[sevens, sixes, aces].value
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=1, origin="lower")
        for sevens in RANKS:
            for sixes in RANKS:
                if not np.isnan(grid[sevens, sixes]):
                    value = grid[sevens, sixes]
                    ax.text(
                        sixes,
                        sevens,
                        f"{value:.2f}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if value < 0.6 else "black",
                    )
        ax.set_title(f"{aces} ace{'s' if aces != 1 else ''}")
        ax.set_xticks(list(RANKS))
        ax.set_yticks(list(RANKS))
        ax.set_xlabel("sixes captured")
    axes[0].set_ylabel("sevens captured")
    fig.colorbar(image, ax=axes, shrink=0.8, label="P(primiera point)")
    return fig


def _tables(v: AceValues) -> tuple[reporting.Table, reporting.Table, reporting.Table]:
    """The pooled values, the values by suit situation, and the descriptive strata."""
    cap, dea, cap_sit, dea_sit = v.captured, v.dealt, v.captured_by, v.dealt_by
    cap_share, dea_share = v.captured_share, v.dealt_share
    pct = framework.percent
    overall = reporting.Table(
        "Value of an ace to the side holding it (with minus without), all aces pooled, 95% CI "
        "clustered by deal",
        ["measure", "captured (exact rescoring)", "dealt (paired replays)"],
        [
            ["deal points", reporting.ci(cap["points"]), reporting.ci(dea["points"])],
            ["primiera point", reporting.ci(cap["primiera"]), reporting.ci(dea["primiera"])],
            [
                "margin over the other side",
                reporting.ci(cap["margin"]),
                reporting.ci(dea["margin"]),
            ],
            *[
                [
                    f"chance to win the game from {w[4:]} (percentage points)",
                    "—",
                    reporting.ci(pct(dea[w]), 2),
                ]
                for w in WINS
            ],
            ["aces", f"{cap['points'].n:,}", f"{dea['points'].n:,}"],
        ],
    )
    situation = reporting.Table(
        "Value of an ace by what the side holds of the ace's suit (captured: in its pile; "
        "dealt: in its hands), 95% CI clustered by deal",
        ["the side holds", "share (captured)", "captured: points", "captured: primiera point",
         "share (dealt)", "dealt: points", "dealt: primiera point"],
        [
            [SITUATION_NAMES[s], f"{cap_share[s]:.3f}", reporting.ci(cap_sit["points"][s]),
             reporting.ci(cap_sit["primiera"][s]), f"{dea_share[s]:.3f}",
             reporting.ci(dea_sit["points"][s]), reporting.ci(dea_sit["primiera"][s])]
            for s in SITUATIONS
        ],
    )  # fmt: skip

    est, counts = v.cells, v.counts
    rows = []
    for sevens in RANKS:
        for sixes in RANKS:
            if not any((sevens, sixes, a) in est for a in RANKS):
                continue
            total = sum(counts.get((sevens, sixes, a), 0) for a in RANKS)
            rows.append(
                [str(sevens), str(sixes), f"{total:,}"]
                + [reporting.ci(est[k]) if (k := (sevens, sixes, a)) in est else "—" for a in RANKS]
            )
    cell_table = reporting.Table(
        f"Share of sides winning the primiera point by aces, sevens and sixes captured "
        f"(descriptive), Wilson 95% CI (— : fewer than {MIN_CELL} side-deals)",
        ["sevens", "sixes", "side-deals", *[f"{a} aces" for a in RANKS]],
        rows,
    )
    return overall, situation, cell_table


def headline(v: AceValues) -> str:
    """The finding: a captured ace's value, by the suit's seven, and a dealt ace's."""
    cap, dea, cap_sit = v.captured, v.dealt, v.captured_by
    pct = framework.percent
    none, seven = cap_sit["points"][False, False], cap_sit["points"][True, False]
    win0 = pct(dea[WINS[0]])
    return (
        f"A captured ace is worth {reporting.ci(cap['points'], 2)} points to its capturer at the "
        f"end of a deal ({reporting.ci(cap['primiera'], 2)} of them through the primiera point): "
        f"{reporting.ci(none, 2)} when the side holds neither that suit's seven nor its six, "
        f"{reporting.ci(seven, 2)} when it holds the seven. Dealt to a side in place of one of "
        f"the opponent's cards, an ace changes its deal points by "
        f"{reporting.ci(dea['points'], 2)} and its chance to win a game from 0-0 by "
        f"{reporting.ci(win0, 2)} percentage points."
    )


def findings(v: AceValues, prefix: str = "ace.") -> list[reporting.Finding]:
    """The pooled values of a captured and a dealt ace (``ace.captured.*``, ``ace.dealt.*``),
    the dealt ace's win chances, and both by suit situation (``ace.KIND.MEASURE.SITUATION``);
    under ``prefix`` (``ace.expert.`` for the expert level)."""
    cap, dea, cap_sit, dea_sit = v.captured, v.dealt, v.captured_by, v.dealt_by
    return [
        reporting.Finding(f"{prefix}captured.{m}", cap[m], unit)
        for m, unit in (("points", "points per deal"), ("margin", "points per deal"),
                        ("primiera", "primiera points per deal"))
    ] + [
        reporting.Finding(f"{prefix}dealt.{m}", dea[m], unit)
        for m, unit in (("points", "points per deal"), ("margin", "points per deal"),
                        ("primiera", "primiera points per deal"))
    ] + [
        reporting.Finding(f"{prefix}dealt.{w}", dea[w], "probability") for w in WINS
    ] + [
        reporting.Finding(f"{prefix}{kind}.{m}.{SITUATION_KEYS[s]}", table_[m][s], unit)
        for kind, table_ in (("captured", cap_sit), ("dealt", dea_sit))
        for m, unit in (("points", "points per deal"), ("primiera", "primiera points per deal"))
        for s in SITUATIONS
    ]  # fmt: skip


def sections(v: AceValues) -> list[reporting.Section]:
    """The intervention section (the bars, the pooled and per-situation tables) and the
    descriptive strata (the heat map and its table)."""
    overall, situation, cell_table = _tables(v)
    cap_sit, dea_sit, est = v.captured_by, v.dealt_by, v.cells
    return [
        reporting.Section(
            "An ace's value, by intervention",
            "Captured value: what the ace adds at the end of the deal, everything else the "
            "two sides captured unchanged. Besides the primiera it counts towards the cards "
            "point (and the ace of coins towards the coins point). Dealt value: what holding "
            "the ace from the deal on is worth against an average card of the opponent's "
            "hand, the play that follows included; an ace is a weak capturing card, so this "
            "can be below zero even where the primiera gains. The primiera point is a "
            "contest: an ace the side captured is worth nothing to its own primiera when it "
            "holds the suit's seven or six, but where it holds both, the other side holds "
            "neither, and the ace moved there would become that side's best card of the "
            "suit (or its only one): keeping it away is worth a primiera point too. Where the "
            "side holds exactly one of the seven and the six, the other side holds the "
            "other, which beats the ace, so the captured ace is worth no primiera at all.",
            figures=[
                reporting.Figure(
                    "Value of an ace by what the side holds of its suit: deal points and the "
                    "primiera point, captured and dealt, 95% CI clustered by deal",
                    reporting.svg(_bars(cap_sit, dea_sit)),
                )
            ],
            tables=[overall, situation],
        ),
        reporting.Section(
            "Aces, sevens and sixes together (descriptive)",
            "How often sides win the primiera point given the aces, sevens and sixes they "
            "captured. These cells compare different deals, so they show what goes with "
            "aces, not what an ace does: the intervention section above answers that.",
            figures=[
                reporting.Figure(
                    "Share of sides winning the primiera point, by sevens (rows) and sixes "
                    f"(columns) captured, one panel per number of aces (grey: < {MIN_CELL} "
                    "side-deals)",
                    reporting.svg(_heatmap(est)),
                )
            ],
            tables=[cell_table],
        ),
    ]


def level_findings(levels: list[LevelDifference], family: framework.Family) -> list:
    """Experts minus beginners, an ace's points captured and dealt (``ace.levels.KIND.points``,
    95 %, and ``.family``, the Bonferroni interval of the page's family)."""
    out = []
    for d in levels:
        unit = "points per deal, experts minus beginners"
        out.append(reporting.Finding(f"ace.levels.{d.kind}.points", d.diff, unit))
        out.append(
            reporting.Finding(f"ace.levels.{d.kind}.points.family", family.wide[d.kind], unit)
        )
    return out


def levels_text(levels: list[LevelDifference], family: framework.Family) -> str:
    parts = [
        f"{d.kind}, {reporting.ci(d.diff, 3)} ({family.level_text} interval "
        f"{family.ci(d.kind)}, Holm p {family.p(d.kind)})"
        for d in levels
    ]
    return f"Experts minus beginners on the same packs, an ace's points: {'; '.join(parts)}."


def level_sections(
    values: dict[str, AceValues], levels: list[LevelDifference], family: framework.Family
) -> list[reporting.Section]:
    """Every section once per level (its heading says which), then the two levels compared."""
    out = []
    for level, v in values.items():
        for section in sections(v):
            heading = f"{level.capitalize()}s ({v.player} players): "
            out.append(
                dataclasses.replace(
                    section, heading=heading + section.heading[0].lower() + section.heading[1:]
                )
            )
    table = reporting.Table(
        "An ace's points, experts minus beginners, pooled over the aces of the same deals "
        "(clustered by deal)",
        ["value", "pairs", "experts minus beginners (95% CI)",
         f"({family.level_text} family CI)", "Holm p"],
        [[d.kind, f"{d.pairs:,}", reporting.ci(d.diff, 3), family.ci(d.kind), family.p(d.kind)]
         for d in levels],
    )  # fmt: skip
    return [
        *out,
        reporting.Section(
            "Experts against beginners",
            "The expert runs are the beginner runs' twins (the same seed and sizes), so deal g "
            "of both is the same pack and an ace's replay exchanges it for the same card: the "
            "difference is paired per deal and ace (captured: where both levels captured it; "
            "dealt: the same replay). By suit situation the levels are not paired (what a side "
            "holds of the suit depends on the play), so the page sets the two levels' intervals "
            "side by side there and tests nothing. The page's one family of tests: these "
            "two differences and, at each level, a captured ace's points against 0 (Holm; "
            "Bonferroni intervals). " + levels_text(levels, family),
            tables=[table],
        ),
    ]
