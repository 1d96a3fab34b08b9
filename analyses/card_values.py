"""How many points is each card worth to the side that holds it?

Each of the 40 cards is valued by intervention, not by regression: at the end of a deal (the card
moved from its capturer's pile to the other side's and the deal rescored exactly) and at the deal
(the deal replayed by the same players on the same random numbers with the card dealt to the other
side in exchange for one of its cards). The scoring is not additive (thresholds for cards and
coins, a per-suit maximum for the primiera), so a coefficient on card indicators is not a card's
value; these differences are. The 40 cards are ranked with intervals that hold jointly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from analyses import _card_interventions as ci
from analyses import framework
from analyses.framework import Needs, require
from scopa_sim import interventions as iv
from scopa_sim import reporting, stats

RUN = ci.RUN
PACK = ci.PACK
NEEDS = Needs(runs=(RUN, ci.GAMES))
#: Deals rescored for the captured values, the first ones by number: enough for simultaneous
#: intervals of a few thousandths of a point.
CAPTURED_DEALS = 100_000
RANK_NAMES = ("", "ace", "2", "3", "4", "5", "6", "7", "fante", "cavallo", "re")
SETTEBELLO = PACK.card(0, 7)
#: The page's family of intervals: per card the captured value, the dealt value and the dealt
#: change in the chance to win from 0-0. All are Bonferroni-adjusted to hold jointly at 95 %.
MEASURES = ("captured", "dealt", "win")
FAMILY = len(MEASURES) * PACK.n_cards
LEVEL = ci.simultaneous(stats.LEVEL, FAMILY)
START = ci.STARTS[0]

QUESTION = (
    "How many points is each card worth to the side that holds it, at the end of a deal and "
    "when it is dealt?"
)


def method(deals: int, total: int, replayed: int, games: str, behind: int) -> str:
    used = f"all {deals:,} deals" if deals == total else f"the first {deals:,} of {total:,} deals"
    return (
        f"Captured value (exact rescoring), over {used} of run {RUN}: for each deal and each "
        "card a side captured, the card is moved to the other side's pile and the deal scored "
        "again by the engine's scoring, scope unchanged; the value is the capturer's deal points "
        "with the card minus without it, averaged over the deals (deals are independent, one "
        f"value per card per deal). Dealt value (paired replays), over the first {replayed:,} "
        "deals of the run: each deal is played again by the same players on the same random "
        "numbers with the card exchanged for a card of the other side's hands drawn at random "
        "(a dedicated random stream); the value is the side's deal points as dealt minus with "
        "the exchange, i.e. against an average card of the opponent's hand, play included "
        "(cards dealt to the table are not replayed). Win chance: the same pairs read through "
        "W(own, other), the chance to win from the scores at the start of a deal estimated from "
        f"the games of run {games} (both sides pooled; a deal that ends the game counts 1 or 0), "
        f"from {START[0]}-{START[1]}; W is taken as known (every cell reached rests on at least "
        f"{behind:,} side-deals). One family of {FAMILY} intervals: "
        f"every card's captured value, dealt value and win change, each a t interval at level "
        f"1 - 0.05/{FAMILY} (Bonferroni), so that all {FAMILY} hold together with probability at "
        "least 95%. A card's rank range lists the ranks compatible with those intervals: from 1 "
        "plus the number of cards whose interval lies wholly above its own, to 40 minus the "
        "number wholly below."
    )


#: The method as the page protocol reads it: written from the sizes the page measured.
METHOD = method


def card_name(card: int) -> str:
    if card == SETTEBELLO:
        return "settebello"
    return f"{RANK_NAMES[PACK.rank(card)]} {PACK.suit_names[PACK.suit(card)]}"


def captured(run, deals: int = CAPTURED_DEALS, level: float = LEVEL):
    """Each card's captured value (points, with its interval at ``level``); deals used, total."""
    total = int(run.config["count"])
    piles = ci.piles(run, min(deals, total))
    values = iv.captured_values(ci.run_variant(run), piles.captured, piles.scope, piles.stopped)
    out = {}
    for card in range(PACK.n_cards):
        held = values.capturer[:, card] >= 0
        out[card] = stats.mean_ci(values.points[held, card], level)
    return out, len(piles.game), total


def dealt(pairs: iv.DealtPairs, table: iv.WinTable, level: float = LEVEL):
    """Each card's dealt value in points and its change in the chance to win from ``START``."""
    points = pairs.points_with.astype(np.int64) - pairs.points_without
    win = ci.win_change(pairs, table, START)
    value, chance = {}, {}
    for card in range(PACK.n_cards):
        rows = pairs.card == card
        value[card] = stats.mean_ci(points[rows], level)
        chance[card] = stats.mean_ci(win[rows], level)
    return value, chance


def rank_ranges(est: dict[int, stats.Estimate]) -> dict[int, tuple[int, int]]:
    """The ranks (1 = most valuable) each card's simultaneous interval allows."""
    out = {}
    for c, e in est.items():
        above = sum(o.low > e.high for d, o in est.items() if d != c)
        below = sum(o.high < e.low for d, o in est.items() if d != c)
        out[c] = (1 + above, len(est) - below)
    return out


def _span(r: tuple[int, int]) -> str:
    return str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"


def _heatmaps(cap: dict, deal: dict) -> plt.Figure:
    fig, axes = plt.subplots(1, 2, figsize=(13, 3.4))
    for ax, est, title in zip(
        axes, (cap, deal), ("captured (end of the deal)", "dealt (play included)"), strict=True
    ):
        grid = np.array([[est[PACK.card(s, r)].value for r in range(1, 11)] for s in range(4)])
        image = ax.imshow(grid, cmap="viridis", aspect="auto")
        for s in range(4):
            for r in range(10):
                v = grid[s, r]
                light = v < grid.min() + 0.6 * (grid.max() - grid.min())
                ax.text(r, s, f"{v:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if light else "black")  # fmt: skip
        ax.set_xticks(range(10), RANK_NAMES[1:], fontsize=8)
        ax.set_yticks(range(4), PACK.suit_names)
        ax.set_title(title)
        fig.colorbar(image, ax=ax, label="points")
    fig.tight_layout()
    return fig


def _forest(cap: dict, deal: dict) -> plt.Figure:
    order = sorted(cap, key=lambda c: (deal[c].value, -c))
    fig, ax = plt.subplots(figsize=(7, 9))
    y = np.arange(len(order))
    for est, shift, colour, label in (
        (cap, -0.15, "#2b5d8a", "captured"),
        (deal, 0.15, "#d08c2b", "dealt"),
    ):
        e = [est[c] for c in order]
        ax.errorbar(
            [x.value for x in e],
            y + shift,
            xerr=[[x.value - x.low for x in e], [x.high - x.value for x in e]],
            fmt="o",
            ms=3,
            color=colour,
            capsize=2,
            label=label,
        )
    ax.set_yticks(y, [card_name(c) for c in order], fontsize=8)
    ax.axvline(0, color="#888", lw=1, ls="--")
    ax.set_xlabel(f"points with the card minus without, simultaneous 95% CI ({FAMILY} intervals)")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


#: The cards the headline chart shows: the most valuable to capture.
GLANCE_CARDS = 6


def glance(cap: dict, deal: dict) -> framework.Answer:
    """The card most worth capturing and the one most worth being dealt, in one sentence; the
    chart: the :data:`GLANCE_CARDS` cards with the largest captured value."""
    about = framework.about
    top = sorted(cap, key=lambda c: (-cap[c].value, c))[:GLANCE_CARDS]
    dealt = max(deal, key=lambda c: (deal[c].value, -c))
    captured_text = f"about {about(cap[top[0]].value)} points to your deal when you capture it"
    dealt_text = (
        f"about {about(deal[dealt].value)} points more than an average card of your opponent's "
        "hand when it is dealt to you"
    )
    if dealt == top[0]:
        sentence = f"The {card_name(dealt)} is the card most worth having: {captured_text}, and "
    else:
        sentence = (
            f"The {card_name(top[0])} is the card most worth capturing, {captured_text}; the "
            f"{card_name(dealt)} is the one most worth being dealt, "
        )
    return framework.Answer(
        sentence=sentence + dealt_text + ".",
        rows=tuple((card_name(c), f"card.captured.points.{PACK.code(c)}") for c in top),
        axis="points a captured card adds to a deal",
        reference=0.0,
    )


def build(data: Path) -> reporting.Page:
    """How many points is each card worth to the side that holds it?"""
    run = require(data, RUN)
    table, games = ci.win_table(data)
    cap, deals, total = captured(run)
    pairs = ci.replays(data, run)
    replayed = int(pairs.game.max()) + 1
    behind = ci.fewest_behind(pairs, table, [START])
    deal, win = dealt(pairs, table)
    cap_rank, deal_rank = rank_ranges(cap), rank_ranges(deal)

    pct = framework.percent
    order = sorted(cap, key=lambda c: (-deal[c].value, c))
    card_table = reporting.Table(
        f"Every card's value to the side holding it, simultaneous 95% CI ({FAMILY} intervals, "
        "Bonferroni), and the ranks (1 = most valuable) the intervals allow",
        ["card", "captured: points", "rank", "dealt: points", "rank",
         f"dealt: win chance from {START[0]}-{START[1]} (pp)", "pairs replayed"],
        [
            [card_name(c), reporting.ci(cap[c]), _span(cap_rank[c]), reporting.ci(deal[c]),
             _span(deal_rank[c]), reporting.ci(pct(win[c]), 2), f"{deal[c].n:,}"]
            for c in order
        ],
    )  # fmt: skip
    by_rank = []
    for r in range(1, PACK.ranks + 1):
        cards = [PACK.card(s, r) for s in range(4)]
        by_rank.append(
            [
                RANK_NAMES[r],
                f"{cap[cards[0]].value:.3f}",
                f"{np.mean([cap[c].value for c in cards[1:]]):.3f}",
                f"{deal[cards[0]].value:.3f}",
                f"{np.mean([deal[c].value for c in cards[1:]]):.3f}",
            ]
        )
    rank_table = reporting.Table(
        "Values by rank: the coins card and the mean of the other three suits (points)",
        ["rank", "captured: coins", "captured: other suits", "dealt: coins", "dealt: other suits"],
        by_rank,
    )

    top_dealt = max(deal, key=lambda c: (deal[c].value, -c))
    low_dealt = min(deal, key=lambda c: (deal[c].value, c))
    sb, sb_deal = cap[SETTEBELLO], deal[SETTEBELLO]
    finding = (
        f"Captured, the settebello is worth {reporting.ci(sb, 2)} points to its capturer at the "
        f"end of a deal (rank {_span(cap_rank[SETTEBELLO])} of 40); dealt, the most valuable "
        f"card is the {card_name(top_dealt)} ({reporting.ci(deal[top_dealt], 2)} points against "
        f"an average card of the opponent's hand) and the least the {card_name(low_dealt)} "
        f"({reporting.ci(deal[low_dealt], 2)}); intervals hold jointly at 95% over the page's "
        f"{FAMILY}."
    )
    if top_dealt != SETTEBELLO:
        finding += f" The settebello dealt: {reporting.ci(sb_deal, 2)}."
    findings = []
    for c in range(PACK.n_cards):
        code = PACK.code(c)
        findings += [
            reporting.Finding(f"card.captured.points.{code}", cap[c], "points per deal"),
            reporting.Finding(f"card.dealt.points.{code}", deal[c], "points per deal"),
            reporting.Finding(
                f"card.dealt.win.{START[0]}-{START[1]}.{code}", win[c], "probability"
            ),
        ]
    provenance = run.provenance(total)
    provenance["deals rescored"] = f"{deals:,}"
    provenance["deals replayed"] = f"{replayed:,}"
    return framework.page(
        "card_values",
        slug="card-values",
        title="What is each card worth?",
        question=QUESTION,
        method=METHOD(deals, total, replayed, games.name, behind),
        used=[run, games],
        finding=finding,
        sections=[
            reporting.Section(
                "Card values",
                "Captured value: what the card adds at the end of the deal, everything else "
                "captured unchanged (the cards point, coins, the settebello, the primiera). Dealt "
                "value: what holding the card from the deal on is worth against an average card "
                "of the opponent's hand, with the play it changes; low cards that capture little "
                "can be worth less than that average. Intervals and ranks are simultaneous over "
                f"the page's {FAMILY} intervals.",
                figures=[
                    reporting.Figure(
                        "Value of each card (points, with the card minus without), by suit and "
                        "rank: captured and dealt",
                        reporting.svg(_heatmaps(cap, deal)),
                    ),
                    reporting.Figure(
                        "All 40 cards, sorted by dealt value, with simultaneous 95% intervals",
                        reporting.svg(_forest(cap, deal)),
                    ),
                ],
                tables=[card_table, rank_table],
            )
        ],
        data=[provenance, games.provenance()],
        findings=findings,
        answer=glance(cap, deal),
    )


if __name__ == "__main__":
    sys.exit(framework.main(build))
