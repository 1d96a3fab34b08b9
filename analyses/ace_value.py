"""What is an ace worth for primiera?

A side's primiera takes its best card in each suit (7 = 21, 6 = 18, ace = 16, 5 = 15, ...,
docs/rules.md §5), so an ace should count only in a suit where the side has neither the seven nor
the six. Counting which sides hold aces only shows what goes with aces; this page changes who
holds an ace and measures what changes: at the end of a deal (the ace moved to the other pile and
the deal rescored) and before play (the deal replayed with the ace dealt to the other side), by
the situation of the ace's suit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from analyses import _card_interventions as ci
from analyses import framework
from analyses.framework import Needs, Run, count_rank, require
from scopa_sim import interventions as iv
from scopa_sim import reporting, stats

RUN = ci.RUN
PACK = ci.PACK
NEEDS = Needs(runs=(RUN, ci.GAMES))
ACES = [PACK.card(s, 1) for s in range(4)]
MIN_CELL = 200  # a (sevens, sixes, aces) cell needs this many side-deals to be shown
RANKS = range(5)  # 0..4 cards of a rank
#: The ace's suit, from the side's point of view: (holds its seven, holds its six).
SITUATIONS = ((False, False), (False, True), (True, False), (True, True))
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

QUESTION = (
    "What is an ace worth for primiera? How many points, and how much of the primiera point, "
    "does a side gain by holding an ace rather than letting the other side hold it, at the end "
    "of a deal and when the cards are dealt, depending on whether it holds that suit's seven or "
    "six?"
)


def method(deals: int, replayed: int, games: str, behind: int) -> str:
    return (
        f"Captured value (exact rescoring): for each of the {deals:,} independent deals of run "
        f"{RUN} and each ace a side captured, the ace is moved to the other side's pile and the "
        "deal is scored again by the engine's scoring (scope unchanged); the value is the "
        "capturer's deal points with the ace minus without it (the cards, coins and primiera "
        "points can move), and separately its primiera point and its margin over the other side. "
        "Every captured ace of every deal counts once; the mean's 95% interval is clustered by "
        "deal (the aces of one deal share it). Dealt value (paired replays): the first "
        f"{replayed:,} deals of the run are played again by the same players on the same random "
        "numbers, once as dealt and once with the ace exchanged for a card of the other side's "
        "hands drawn at random (a dedicated random stream); aces dealt to the table are not "
        "replayed. The value is the side's points (primiera point, margin) as dealt minus with "
        "the exchange, so it is the ace's worth against an average card of the opponent's hand, "
        "play included; intervals are clustered by deal. The change in the chance to win a game "
        "reads both arms' scores after the deal in a table W(own score, other score) of the "
        f"chance to win from the scores at the start of a deal, estimated from the games of run "
        f"{games} (both sides of every deal pooled, whatever the deal number or dealer; a deal "
        "that ends the game counts 1 or 0, both sides at or past the target and level 1/2). The "
        "replays are played from 0-0 and read at both starting scores: greedy players do not "
        "look at the score and no rule of this variant depends on it before the deal ends. W is "
        f"an estimate taken as known here: every cell the replays reach rests on at least "
        f"{behind:,} side-deals, and that error is not in the intervals. The suit "
        "situation is what the side held of the ace's suit: captured (rescoring) or dealt to its "
        "hands (replays). The strata table at the end is descriptive: it shows what goes with "
        "aces, not what an ace causes."
    )


#: The method as the page protocol reads it: written from the sizes the page measured.
METHOD = method


def _sides(run: Run) -> pl.LazyFrame:
    """One row per side per deal: aces, sevens, sixes captured and the primiera point."""
    return run.scan().select(
        "game",
        "deal",
        "side",
        pl.col("pt_primiera").cast(pl.Int32).alias("won"),
        count_rank(1).alias("aces"),
        count_rank(7).alias("sevens"),
        count_rank(6).alias("sixes"),
    )


def cells(run: Run) -> pl.DataFrame:
    """Side-deals and primiera wins per (sevens, sixes, aces), sorted (descriptive)."""
    return (
        _sides(run)
        .group_by("sevens", "sixes", "aces")
        .agg(pl.len().alias("n"), pl.col("won").sum().cast(pl.Int64).alias("wins"))
        .sort("sevens", "sixes", "aces")
        .collect()
    )


def _cell_estimates(table: pl.DataFrame) -> dict[tuple[int, int, int], stats.Estimate]:
    return {
        (r["sevens"], r["sixes"], r["aces"]): stats.proportion_ci(r["wins"], r["n"])
        for r in table.iter_rows(named=True)
        if r["n"] >= MIN_CELL
    }


def _suit_holds(piles: np.ndarray, ace: int) -> tuple[np.ndarray, np.ndarray]:
    """Whether each pile holds the seven and the six of the ace's suit."""
    suit = PACK.suit(ace)
    seven = np.uint64(1) << np.uint64(PACK.card(suit, 7))
    six = np.uint64(1) << np.uint64(PACK.card(suit, 6))
    return (piles & seven) != 0, (piles & six) != 0


def captured_aces(run: Run) -> dict[str, np.ndarray]:
    """One row per captured ace of the run: deal, capturer's value (points, margin, primiera
    point) and whether the capturer holds the suit's seven and six."""
    piles = ci.piles(run)
    values = iv.captured_values(
        ci.run_variant(run), piles.captured, piles.scope, piles.stopped, ACES
    )
    out: dict[str, list] = {k: [] for k in ("game", "points", "margin", "primiera", "seven", "six")}
    for j, ace in enumerate(ACES):
        rows = np.flatnonzero(values.capturer[:, j] >= 0)
        side = values.capturer[rows, j].astype(np.int64)
        seven, six = _suit_holds(piles.captured[rows, side], ace)
        out["game"].append(piles.game[rows])
        out["points"].append(values.points[rows, j])
        out["margin"].append(values.margin[rows, j])
        out["primiera"].append(values.primiera[rows, j])
        out["seven"].append(seven)
        out["six"].append(six)
    return {k: np.concatenate(v) for k, v in out.items()} | {"deals": len(piles.game)}


def dealt_aces(pairs: iv.DealtPairs, table: iv.WinTable) -> dict[str, np.ndarray]:
    """One row per replayed ace: with-minus-without points, margin, primiera point, win chance
    at each of ``ci.STARTS``, and whether the side was dealt the suit's seven and six."""
    rows = np.flatnonzero(np.isin(pairs.card, ACES))
    sub = iv.DealtPairs(**{f: getattr(pairs, f)[rows] for f in iv.DealtPairs.__dataclass_fields__})
    seven = np.zeros(len(rows), bool)
    six = np.zeros(len(rows), bool)
    for ace in ACES:
        mine = sub.card == ace
        seven[mine], six[mine] = _suit_holds(sub.dealt[mine], ace)
    pw, po = sub.points_with.astype(np.int64), sub.points_without.astype(np.int64)
    ow, oo = sub.other_with.astype(np.int64), sub.other_without.astype(np.int64)
    out = {
        "game": sub.game,
        "points": pw - po,
        "margin": (pw - ow) - (po - oo),
        "primiera": sub.primiera_with.astype(np.int64) - sub.primiera_without,
        "seven": seven,
        "six": six,
    }
    for start in ci.STARTS:
        out[f"win.{start[0]}-{start[1]}"] = ci.win_change(sub, table, start)
    return out


def _by_situation(rows: dict, measure: str) -> dict[tuple[bool, bool], stats.Estimate]:
    out = {}
    for situation in SITUATIONS:
        mask = (rows["seven"] == situation[0]) & (rows["six"] == situation[1])
        out[situation] = ci.mean_by_deal(rows[measure][mask], rows["game"][mask])
    return out


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


def _share(rows: dict) -> dict[tuple[bool, bool], float]:
    n = len(rows["game"])
    return {
        s: float(((rows["seven"] == s[0]) & (rows["six"] == s[1])).sum() / n) for s in SITUATIONS
    }


def build(data: Path) -> reporting.Page:
    """What is an ace worth for primiera?"""
    run = require(data, RUN)
    table, games = ci.win_table(data)
    captured = captured_aces(run)
    deals = captured.pop("deals")
    pairs = ci.replays(data, run)
    dealt = dealt_aces(pairs, table)
    replayed = int(pairs.game.max()) + 1
    behind = ci.fewest_behind(pairs, table, ci.STARTS)
    wins = [f"win.{a}-{b}" for a, b in ci.STARTS]

    cap = {
        m: ci.mean_by_deal(captured[m], captured["game"]) for m in ("points", "margin", "primiera")
    }
    dea = {
        m: ci.mean_by_deal(dealt[m], dealt["game"]) for m in ("points", "margin", "primiera", *wins)
    }
    cap_sit = {m: _by_situation(captured, m) for m in ("points", "primiera")}
    dea_sit = {m: _by_situation(dealt, m) for m in ("points", "primiera")}
    cap_share, dea_share = _share(captured), _share(dealt)

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
                for w in wins
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

    strata = cells(run)
    est = _cell_estimates(strata)
    counts = {(r["sevens"], r["sixes"], r["aces"]): r["n"] for r in strata.iter_rows(named=True)}
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

    none, seven = cap_sit["points"][False, False], cap_sit["points"][True, False]
    win0 = pct(dea[wins[0]])
    finding = (
        f"A captured ace is worth {reporting.ci(cap['points'], 2)} points to its capturer at the "
        f"end of a deal ({reporting.ci(cap['primiera'], 2)} of them through the primiera point): "
        f"{reporting.ci(none, 2)} when the side holds neither that suit's seven nor its six, "
        f"{reporting.ci(seven, 2)} when it holds the seven. Dealt to a side in place of one of "
        f"the opponent's cards, an ace changes its deal points by "
        f"{reporting.ci(dea['points'], 2)} and its chance to win a game from 0-0 by "
        f"{reporting.ci(win0, 2)} percentage points."
    )
    findings = [
        reporting.Finding(f"ace.captured.{m}", cap[m], unit)
        for m, unit in (("points", "points per deal"), ("margin", "points per deal"),
                        ("primiera", "primiera points per deal"))
    ] + [
        reporting.Finding(f"ace.dealt.{m}", dea[m], unit)
        for m, unit in (("points", "points per deal"), ("margin", "points per deal"),
                        ("primiera", "primiera points per deal"))
    ] + [
        reporting.Finding(f"ace.dealt.{w}", dea[w], "probability") for w in wins
    ] + [
        reporting.Finding(f"ace.{kind}.{m}.{SITUATION_KEYS[s]}", table_[m][s], unit)
        for kind, table_ in (("captured", cap_sit), ("dealt", dea_sit))
        for m, unit in (("points", "points per deal"), ("primiera", "primiera points per deal"))
        for s in SITUATIONS
    ]  # fmt: skip
    provenance = run.provenance(deals)
    provenance["deals replayed"] = f"{replayed:,}"
    return framework.page(
        "ace_value",
        slug="ace-value",
        title="What is an ace worth for primiera?",
        question=QUESTION,
        method=METHOD(deals, replayed, games.name, behind),
        used=[run, games],
        finding=finding,
        sections=[
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
        ],
        data=[provenance, games.provenance()],
        findings=findings,
    )


if __name__ == "__main__":
    sys.exit(framework.main(build))
