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
from dataclasses import dataclass
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
NEEDS = Needs(runs=tuple(framework.level_run(n, lv) for lv in framework.LEVELS
                         for n in (RUN, ci.GAMES)))  # fmt: skip
#: Deals rescored for the captured values, the first ones by number: enough for simultaneous
#: intervals of a few thousandths of a point.
CAPTURED_DEALS = 100_000
RANK_NAMES = ("", "ace", "2", "3", "4", "5", "6", "7", "fante", "cavallo", "re")
SETTEBELLO = PACK.card(0, 7)
#: The page's family of intervals: per card and level (beginners, experts) the captured value,
#: the dealt value and the dealt change in the chance to win from 0-0; per card the experts'
#: captured and dealt values minus the beginners' (paired by deal). All are Bonferroni-adjusted
#: to hold jointly at 95 %.
MEASURES = ("captured", "dealt", "win")
DIFFERENCES = ("captured", "dealt")
FAMILY = (len(framework.LEVELS) * len(MEASURES) + len(DIFFERENCES)) * PACK.n_cards
LEVEL = ci.simultaneous(stats.LEVEL, FAMILY)
START = ci.STARTS[0]

QUESTION = (
    "How many points is each card worth to the side that holds it, at the end of a deal and "
    "when it is dealt, between beginners and between experts?"
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
        f"{behind:,} side-deals). Two levels: all of this for beginners ({framework.BEGINNER} on "
        f"both sides, runs {RUN} and {games}) and for experts ({framework.EXPERT}, their twins "
        f"{framework.expert_run(RUN)} and {framework.expert_run(games)}: the same seed and "
        "sizes, so the same packs, and the same exchanged cards in the replays). The experts' "
        "value of a card minus the beginners' is paired: captured, over the deals where both "
        "levels' runs captured it (one difference per deal); dealt, over the replayed pairs "
        "of the same deal and exchange. One family of "
        f"{FAMILY} intervals: every card's captured value, dealt value and win change at both "
        "levels, and its two level differences, each a t interval at level "
        f"1 - 0.05/{FAMILY} (Bonferroni), so that all {FAMILY} hold together with probability at "
        "least 95%; a level difference is called clear when its interval excludes 0. A card's "
        "rank range lists the ranks compatible with those intervals: from 1 plus the number of "
        "cards whose interval lies wholly above its own, to 40 minus the number wholly below. A "
        "missing run of either level fails the page."
    )


#: The method as the page protocol reads it: written from the sizes the page measured.
METHOD = method


def card_name(card: int) -> str:
    if card == SETTEBELLO:
        return "settebello"
    return f"{RANK_NAMES[PACK.rank(card)]} {PACK.suit_names[PACK.suit(card)]}"


def captured_points(run, deals: int = CAPTURED_DEALS) -> tuple[np.ndarray, int]:
    """Per deal (the first ``deals``) and card: the capturer's value, NaN where nobody captured
    the card; and the run's total deals."""
    total = int(run.config["count"])
    piles = ci.piles(run, min(deals, total))
    values = iv.captured_values(ci.run_variant(run), piles.captured, piles.scope, piles.stopped)
    points = np.where(values.capturer >= 0, values.points, np.nan)
    return points, total


def captured(run, deals: int = CAPTURED_DEALS, level: float = LEVEL):
    """Each card's captured value (points, with its interval at ``level``); deals used, total."""
    points, total = captured_points(run, deals)
    out = {}
    for card in range(PACK.n_cards):
        held = ~np.isnan(points[:, card])
        out[card] = stats.mean_ci(points[held, card], level)
    return out, len(points), total


def captured_difference(beginner: np.ndarray, expert: np.ndarray, level: float = LEVEL):
    """Per card: the experts' captured value minus the beginners', paired by deal over the deals
    both levels' runs have and where both captured the card."""
    n = min(len(beginner), len(expert))
    out = {}
    for card in range(PACK.n_cards):
        b, e = beginner[:n, card], expert[:n, card]
        both = ~np.isnan(b) & ~np.isnan(e)
        out[card] = stats.mean_ci(e[both] - b[both], level)
    return out


def dealt_difference(beginner: iv.DealtPairs, expert: iv.DealtPairs, level: float = LEVEL):
    """Per card: the experts' dealt value minus the beginners', paired over the replays of the
    same deal and card (the same exchange: the swap is drawn from the packs' own stream)."""

    def keyed(pairs):
        key = pairs.game.astype(np.int64) * 64 + pairs.card.astype(np.int64)
        return key, pairs.points_with.astype(np.int64) - pairs.points_without

    kb, vb = keyed(beginner)
    ke, ve = keyed(expert)
    common, ib, ie = np.intersect1d(kb, ke, assume_unique=True, return_indices=True)
    same = beginner.partner[ib] == expert.partner[ie]  # the same exchange (always, by design)
    diff = (ve[ie] - vb[ib])[same]
    card = common[same] % 64
    return {c: stats.mean_ci(diff[card == c], level) for c in range(PACK.n_cards)}


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


def glance(levels: dict, diff: dict) -> framework.Answer:
    """The card most worth capturing and the one most worth being dealt, for beginners and for
    experts, and how many cards' values differ between the levels (paired by deal), in one
    sentence; the chart: the :data:`GLANCE_CARDS` cards with the largest captured value for
    beginners, at both levels."""
    about = framework.about
    b, e = levels["beginner"], levels["expert"]
    top = sorted(b.cap, key=lambda c: (-b.cap[c].value, c))[:GLANCE_CARDS]

    def best(values):
        return min(values, key=lambda c: (-values[c].value, c))

    parts = []
    for who, m in (("beginners", b), ("experts", e)):
        cap, dealt = best(m.cap), best(m.deal)
        captured_text = f"captured (about {about(m.cap[cap].value)} points)"
        dealt_text = (
            f"dealt (about {about(m.deal[dealt].value)} points over an average card of the "
            "opponent's hand)"
        )
        if cap == dealt:
            parts.append(
                f"for {who} ({m.player}) the {card_name(cap)} adds most, {captured_text} and "
                f"{dealt_text}"
            )
        else:
            parts.append(
                f"for {who} ({m.player}) the {card_name(cap)} adds most {captured_text} and "
                f"the {card_name(dealt)} {dealt_text}"
            )
    clear = {
        k: [c for c in range(PACK.n_cards) if diff[k][c].low > 0 or diff[k][c].high < 0]
        for k in DIFFERENCES
    }
    sentence = (
        f"{parts[0][0].upper()}{parts[0][1:]}; {parts[1]}; on the same packs the captured value "
        f"of {len(clear['captured'])} cards and the dealt value of {len(clear['dealt'])} differ "
        f"clearly between the levels (simultaneous intervals)"
    )
    if clear["dealt"]:
        most = max(clear["dealt"], key=lambda c: (abs(diff["dealt"][c].value), -c))
        sentence += (
            f", most the {card_name(most)} dealt: experts minus beginners "
            f"{about(diff['dealt'][most].value)} [{about(diff['dealt'][most].low)}, "
            f"{about(diff['dealt'][most].high)}] points"
        )
    rows = []
    for c in top:
        rows.append((f"{card_name(c)}, beginners", f"card.captured.points.{PACK.code(c)}"))
        rows.append((f"{card_name(c)}, experts", f"card.expert.captured.points.{PACK.code(c)}"))
    return framework.Answer(
        sentence=sentence + ".",
        rows=tuple(rows),
        axis=f"points a captured card adds to a deal ({FAMILY} simultaneous intervals)",
        reference=0.0,
        whiskers=f"{100 * LEVEL:.4g} % intervals, simultaneous over the {FAMILY} of this page",
    )


@dataclass(frozen=True)
class Level:
    """One level's card values: its runs, the sizes the method quotes, and the estimates."""

    level: str
    player: str
    run: object
    games: object
    points: np.ndarray  # per deal and card, the captured value (NaN: not captured)
    deals: int
    total: int
    pairs: iv.DealtPairs
    replayed: int
    behind: int
    cap: dict
    deal: dict
    win: dict


def measure(data: Path, level: str) -> Level:
    """A level's card values from its runs under ``data`` (framework.level_run)."""
    run = require(data, framework.level_run(RUN, level))
    framework.check_level(run, level, "the card-value page")
    table, games = ci.win_table(data, framework.level_run(ci.GAMES, level))
    points, total = captured_points(run)
    cap = {}
    for card in range(PACK.n_cards):
        held = ~np.isnan(points[:, card])
        cap[card] = stats.mean_ci(points[held, card], LEVEL)
    pairs = ci.replays(data, run)
    deal, win = dealt(pairs, table)
    return Level(
        level, framework.LEVEL_PLAYER[level], run, games, points, len(points), total, pairs,
        int(pairs.game.max()) + 1, ci.fewest_behind(pairs, table, [START]), cap, deal, win,
    )  # fmt: skip


def _level_section(m: Level) -> reporting.Section:
    cap, deal, win = m.cap, m.deal, m.win
    cap_rank, deal_rank = rank_ranges(cap), rank_ranges(deal)
    pct = framework.percent
    order = sorted(cap, key=lambda c: (-deal[c].value, c))
    card_table = reporting.Table(
        f"Every card's value to the side holding it, {m.level}s ({m.player}), simultaneous 95% "
        f"CI ({FAMILY} intervals, Bonferroni), and the ranks (1 = most valuable) the intervals "
        "allow",
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
    return reporting.Section(
        f"Card values: {m.level}s ({m.player} players)",
        "Captured value: what the card adds at the end of the deal, everything else "
        "captured unchanged (the cards point, coins, the settebello, the primiera). Dealt "
        "value: what holding the card from the deal on is worth against an average card "
        "of the opponent's hand, with the play it changes; low cards that capture little "
        "can be worth less than that average. Intervals and ranks are simultaneous over "
        f"the page's {FAMILY} intervals.",
        figures=[
            reporting.Figure(
                "Value of each card (points, with the card minus without), by suit and "
                f"rank: captured and dealt, {m.level}s",
                reporting.svg(_heatmaps(cap, deal)),
            ),
            reporting.Figure(
                f"All 40 cards, sorted by dealt value, with simultaneous 95% intervals, {m.level}s",
                reporting.svg(_forest(cap, deal)),
            ),
        ],
        tables=[card_table, rank_table],
    )


def _levels_section(levels: dict, diff: dict) -> reporting.Section:
    b, e = levels["beginner"], levels["expert"]
    order = sorted(range(PACK.n_cards), key=lambda c: (-abs(diff["dealt"][c].value), c))
    return reporting.Section(
        "Experts against beginners",
        "Each card's value for experts minus its value for beginners, on the same packs: "
        "captured, one difference per deal where both levels' runs captured the card; dealt, "
        "one per replayed pair of the same deal and exchange. Simultaneous intervals over the "
        f"page's {FAMILY}; a difference is clear when its interval excludes 0.",
        tables=[
            reporting.Table(
                "Experts minus beginners, points (simultaneous 95% CI), by the size of the dealt "
                "difference",
                ["card", "captured: beginners", "captured: experts", "experts minus beginners",
                 "dealt: beginners", "dealt: experts", "experts minus beginners"],
                [
                    [card_name(c), reporting.ci(b.cap[c]), reporting.ci(e.cap[c]),
                     reporting.ci(diff["captured"][c]), reporting.ci(b.deal[c]),
                     reporting.ci(e.deal[c]), reporting.ci(diff["dealt"][c])]
                    for c in order
                ],
            )
        ],
    )  # fmt: skip


def build(data: Path) -> reporting.Page:
    """How many points is each card worth to the side that holds it?"""
    levels = {level: measure(data, level) for level in framework.LEVELS}
    b, e = levels["beginner"], levels["expert"]
    diff = {
        "captured": captured_difference(b.points, e.points),
        "dealt": dealt_difference(b.pairs, e.pairs),
    }
    finding = []
    for m in levels.values():
        cap, deal, cap_rank = m.cap, m.deal, rank_ranges(m.cap)
        top_dealt = max(deal, key=lambda c: (deal[c].value, -c))
        low_dealt = min(deal, key=lambda c: (deal[c].value, c))
        text = (
            f"{m.level.capitalize()}s ({m.player}): captured, the settebello is worth "
            f"{reporting.ci(cap[SETTEBELLO], 2)} points to its capturer at the end of a deal "
            f"(rank {_span(cap_rank[SETTEBELLO])} of 40); dealt, the most valuable card is the "
            f"{card_name(top_dealt)} ({reporting.ci(deal[top_dealt], 2)} points against an "
            f"average card of the opponent's hand) and the least the {card_name(low_dealt)} "
            f"({reporting.ci(deal[low_dealt], 2)})."
        )
        if top_dealt != SETTEBELLO:
            text += f" The settebello dealt: {reporting.ci(deal[SETTEBELLO], 2)}."
        finding.append(text)
    sb = diff["dealt"][SETTEBELLO]
    finding.append(
        f"Experts minus beginners, the settebello dealt: {reporting.ci(sb, 2)} points (paired). "
        f"Intervals hold jointly at 95% over the page's {FAMILY}."
    )
    findings = []
    for m in levels.values():
        prefix = "card" if m.level == "beginner" else f"card.{m.level}"
        for c in range(PACK.n_cards):
            code = PACK.code(c)
            findings += [
                reporting.Finding(f"{prefix}.captured.points.{code}", m.cap[c], "points per deal"),
                reporting.Finding(f"{prefix}.dealt.points.{code}", m.deal[c], "points per deal"),
                reporting.Finding(
                    f"{prefix}.dealt.win.{START[0]}-{START[1]}.{code}", m.win[c], "probability"
                ),
            ]
    for k in DIFFERENCES:
        for c in range(PACK.n_cards):
            findings.append(
                reporting.Finding(f"card.levels.{k}.points.{PACK.code(c)}", diff[k][c],
                                  "points per deal, experts minus beginners")
            )  # fmt: skip
    data_rows, used = [], []
    for m in levels.values():
        provenance = m.run.provenance(m.total)
        provenance["deals rescored"] = f"{m.deals:,}"
        provenance["deals replayed"] = f"{m.replayed:,}"
        data_rows += [provenance, m.games.provenance()]
        used += [m.run, m.games]
    return framework.page(
        "card_values",
        slug="card-values",
        title="What is each card worth?",
        question=QUESTION,
        method=METHOD(b.deals, b.total, b.replayed, b.games.name, min(b.behind, e.behind)),
        used=used,
        finding=" ".join(finding),
        sections=[*(_level_section(m) for m in levels.values()), _levels_section(levels, diff)],
        data=data_rows,
        findings=findings,
        answer=glance(levels, diff),
    )


if __name__ == "__main__":
    sys.exit(framework.main(build))
