"""Who plays best: the sentences of the page, the answer per tournament and the headline."""

from __future__ import annotations

from analyses import framework
from analyses.tournaments import Spec
from analyses.who_plays_best.measure import (
    anchors,
    baseline_player,
    deciding,
    fair_players,
    leaders,
    ratings_by_player,
)
from scopa_sim import stats
from scopa_sim import tournament as tour


def _pct(e: stats.Estimate) -> str:
    return framework.pct(e, 1, "%")


def _rating(r: tour.Rating) -> str:
    return f"{r.rating:+.0f} [{r.ci_low:+.0f}, {r.ci_high:+.0f}]"


def _margin(result: tour.Result, a: str, b: str) -> str:
    row = result.row(a, b, "points_per_deal")
    return (
        f"{tour.estimate_text(row)} points per deal (Holm p "
        f"{stats.format_p(row.p_holm, equals=True)})"
    )


def _wins(result: tour.Result, a: str, b: str) -> str:
    return f"{_pct(result.row(a, b, 'game_win').estimate)} of its duplicate games"


def answer(spec: Spec, result: tour.Result) -> str:
    """The page's answer for one tournament: the best fair player with its rating and its margin
    over the next one (or the players it cannot be separated from), each leader against greedy,
    and what the upper bound adds, each with its interval."""
    t = result.tournament
    if not result.ratings:
        return f"{spec.name}: no fair player to rank."
    rated = ratings_by_player(result)
    top = result.ratings[0]
    best = leaders(result)
    where = f"In {spec.name} ({t.variant}, {unit_text(spec)})"
    if len(best) == 1:
        text = f"{where}, {top.player} plays best of the fair players: rating {_rating(top)}"
        if len(result.ratings) > 1:
            second = result.ratings[1]
            text += (
                f", ahead of {second.player} ({_rating(second)}) by "
                f"{_margin(result, top.player, second.player)}"
            )
        parts = [text]
    else:

        def level(other: str) -> str:
            text = (
                f"{other} ({_rating(rated[other])}; {top.player} minus {other}: "
                f"{_margin(result, top.player, other)}"
            )
            if t.mode == "games":
                text += f", {top.player} wins {_wins(result, top.player, other)}"
            return text + ")"

        parts = [
            f"{where}, {top.player} is rated highest ({_rating(top)}) but the data do not "
            f"separate it from " + ", ".join(level(other) for other in best[1:])
        ]
    baseline = baseline_player(result)
    for leader in best:
        if not baseline or baseline == leader:
            continue
        text = f"{leader} beats {baseline} by {_margin(result, leader, baseline)}"
        if t.mode == "games":
            text += f" and wins {_wins(result, leader, baseline)} against it"
        parts.append(text)
    for upper in result.upper_bounds:
        parts.append(
            f"{upper.player}, which sees the hidden cards (an upper bound, not ranked), beats "
            f"{top.player} by {_margin(result, upper.player, top.player)}"
        )
    return "; ".join(parts) + "."


def headline(spec: Spec, result: tour.Result, where: str | None = None) -> str:
    """One clause for the index: the best player (or the best-rated and the players the data do
    not separate from it, each with the interval of the difference: not separated, not level),
    its rating and its margin over greedy; ``where`` (the variant by default) opens it."""
    t = result.tournament
    where = t.variant if where is None else where
    if not result.ratings:
        return f"{where}: no fair player"
    rated = ratings_by_player(result)
    best = leaders(result)
    baseline = baseline_player(result)

    def against(leader: str) -> str:
        row = result.row(leader, baseline, "points_per_deal")
        text = f"beating {baseline} by {tour.estimate_text(row)} points per deal"
        if t.mode == "games":
            win = result.row(leader, baseline, "game_win").estimate
            text += f" and winning {_pct(win)} of games"
        return text

    if len(best) == 1:
        (leader,) = best
        text = f"{where}: {leader} rated best ({_rating(rated[leader])})"
        return text + (f", {against(leader)}" if baseline and baseline != leader else "")
    top = best[0]
    others = ", ".join(
        f"{p} ({_rating(rated[p])}; {top} minus {p}: {_margin(result, top, p)})" for p in best[1:]
    )
    clauses = [f"{p} {against(p)}" for p in best if baseline and baseline != p]
    return f"{where}: {top} rated highest ({_rating(rated[top])}), not separated from " + (
        others + (f" ({'; '.join(clauses)})" if clauses else "")
    )


def unit_text(spec: Spec) -> str:
    """The size of a tournament's runs, in its units."""
    unit = "duplicate deals" if spec.mode == "deals" else "duplicate whole games"
    return f"{spec.count:,} {unit} per run"


def variant_headline(group: list[tuple[Spec, tour.Result]]) -> str:
    """One clause per variant for the index: the headline of the tournament that answers for
    the variant (:func:`measure.deciding`), naming it and the tournaments whose leaders it also
    seats; when none does, each tournament's headline, named."""
    variant = group[0][1].tournament.variant
    if len(group) == 1:
        return headline(*group[0])
    found = deciding(group)
    if found is None:
        return "; ".join(
            headline(spec, result, f"{variant} ({spec.name})") for spec, result in group
        )
    spec, result = found
    others = "; ".join(
        f"{' and '.join(leaders(r))}, the leader{'s' if len(leaders(r)) > 1 else ''} of {s.name}"
        for s, r in group
        if s is not spec
    )
    seated = len(dict.fromkeys(p for _, r in group for p in fair_players(r)))
    where = (
        f"{variant} ({seated} fair players in {len(group)} tournaments; {spec.name} also seats "
        f"{others})"
    )
    return headline(spec, result, where)


def seating(spec: Spec, result: tour.Result, group: list[tuple[Spec, tour.Result]]) -> str:
    """Who this tournament seats, and how it is linked to the variant's other tournaments: the
    players they share (ratings of two tournaments are never compared; the link is the pairings
    of the shared players, tested in each)."""
    t = result.tournament
    fair = fair_players(result)
    hidden = [e.spec for e in t.entrants if e.sees_hidden_cards]
    text = f"{spec.name} seats {len(fair)} fair players ({', '.join(fair)})"
    if hidden:
        text += f" and, as an upper bound, {', '.join(hidden)}"
    others = [(s, r) for s, r in group if s is not spec]
    if others:
        shared = anchors(group)
        text += (
            f". The other {t.variant} tournament{'s' if len(others) > 1 else ''}, "
            + ", ".join(f"{s.name} ({unit_text(s)})" for s, _ in others)
            + (
                f", share{'s' if len(others) == 1 else ''} {', '.join(shared)} with it: "
                "the players that link the two fields (ratings of two tournaments are on "
                "scales of their own and never compared; the shared players' pairings are)"
                if shared
                else ", shares no player with it"
            )
        )
    return text + "."
