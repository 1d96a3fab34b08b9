"""Who plays best?

The default tournaments of configs/tournaments.toml (``make tournament``: classic Scopa on
independent deals, the whole field with pimc and the cheater as an upper bound; Scopone in whole
games, a smaller field), each a duplicate round robin of ``scopa-sim tournament``
(scopa_sim/tournament.py). Per tournament: Bradley-Terry ratings as a forest plot (the cheater,
which sees hidden cards, apart and never ranked), the pairing matrix as a heat map, the key
pairings with 95 % CIs and Holm p-values, and the variance that duplicate play removes. The page
analyses the tournament folders with :func:`scopa_sim.tournament.analyse` and draws with its
chart helpers; it plays nothing.

``python -m analyses.who_plays_best --commands`` prints the command of each tournament, one a
line (the ``tournament`` target of the Makefile runs them).
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

from analyses import framework
from analyses import tournaments as tc
from analyses.framework import DATA, MissingData, Needs
from analyses.tournaments import ConfigError, Spec
from scopa_sim import reporting, stats
from scopa_sim import tournament as tour

#: The default tournaments (``make tournament``).
CONFIG = Path(__file__).resolve().parent.parent / "configs" / "tournaments.toml"
NEEDS = Needs(tournaments=CONFIG)
#: The page's question; :func:`question` names the players and games after it.
QUESTION = "Who plays best?"


def load_config(path: Path = CONFIG) -> list[Spec]:
    """The tournaments of ``path`` (:func:`analyses.tournaments.load_config`)."""
    return tc.load_config(path)


def commands(data: Path = DATA, config: Path = CONFIG, missing: bool = False) -> list[str]:
    """One command per tournament of ``config``, writing into ``data``/tournaments/; with
    ``missing``, only those whose folder is not complete (what ``make tournament`` runs)."""
    return tc.commands(config, data, missing)


# analysis ----------------------------------------------------------------------------------------


def load(spec: Spec, data: Path) -> tour.Result:
    """The analysed tournament of ``spec`` (:func:`analyses.tournaments.complete_plan`)."""
    return tour.analyse(tc.complete_plan(spec, data))


@dataclass(frozen=True)
class Key:
    """A key pairing, stronger player (by rating) first."""

    a: str
    b: str
    why: str


def _rated(result: tour.Result) -> dict[str, tour.Rating]:
    return {r.player: r for r in [*result.ratings, *result.upper_bounds]}


def _baseline(result: tour.Result) -> str | None:
    """The player the best one is measured against: greedy, the simplest sensible player, when it
    plays; else the second-rated."""
    fair = [r.player for r in result.ratings]
    if "greedy" in fair and fair[0] != "greedy":
        return "greedy"
    return fair[1] if len(fair) > 1 else None


def key_pairings(result: tour.Result) -> list[Key]:
    """Adjacent ranks of the fair players, the best fair player against the baseline, and each
    upper bound against the best fair player."""
    fair = [r.player for r in result.ratings]
    keys = [
        Key(a, b, f"ranks {k} and {k + 1}") for k, (a, b) in enumerate(itertools.pairwise(fair), 1)
    ]
    baseline = _baseline(result)
    best = leaders(result)
    for leader in best:
        if baseline and leader != baseline and (leader, baseline) not in {(k.a, k.b) for k in keys}:
            why = "best fair player" if len(best) == 1 else "level at the top"
            keys.append(Key(leader, baseline, f"{why}, against {baseline}"))
    for upper in result.upper_bounds:
        if fair:
            keys.append(Key(upper.player, fair[0], "upper bound against the best fair player"))
    return keys


def _estimate(result: tour.Result, a: str, b: str, metric: str) -> str:
    row = result.row(a, b, metric)
    return tour.estimate_text(row)


def _holm(result: tour.Result, a: str, b: str, metric: str) -> str:
    return stats.format_p(result.row(a, b, metric).p_holm)


def _pct(e: stats.Estimate) -> str:
    return framework.pct(e, 1, "%")


def _rating(r: tour.Rating) -> str:
    return f"{r.rating:+.0f} [{r.ci_low:+.0f}, {r.ci_high:+.0f}]"


def leaders(result: tour.Result) -> list[str]:
    """The best fair player and those the data cannot separate from it: A minus B in points per
    deal not significant after Holm (p >= 1 - the confidence level)."""
    if not result.ratings:
        return []
    top = result.ratings[0].player
    tied = [
        r.player
        for r in result.ratings[1:]
        if result.row(top, r.player, "points_per_deal").p_holm >= 1 - stats.LEVEL
    ]
    return [top, *tied]


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
    rated = _rated(result)
    top = result.ratings[0]
    best = leaders(result)
    where = f"In {t.variant} ({_unit_text(spec)})"
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
    baseline = _baseline(result)
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


def headline(spec: Spec, result: tour.Result) -> str:
    """One clause for the index: the best player (or the players level at the top), its rating
    and its margin over greedy."""
    t = result.tournament
    if not result.ratings:
        return f"{t.variant}: no fair player"
    rated = _rated(result)
    best = leaders(result)
    baseline = _baseline(result)

    def against(leader: str) -> str:
        row = result.row(leader, baseline, "points_per_deal")
        text = f"beating {baseline} by {tour.estimate_text(row)} points per deal"
        if t.mode == "games":
            win = result.row(leader, baseline, "game_win").estimate
            text += f" and winning {_pct(win)} of games"
        return text

    if len(best) == 1:
        (leader,) = best
        text = f"{t.variant}: {leader} rated best ({_rating(rated[leader])})"
        return text + (f", {against(leader)}" if baseline and baseline != leader else "")
    who = " and ".join(f"{p} ({_rating(rated[p])})" for p in best)
    clauses = [f"{p} {against(p)}" for p in best if baseline and baseline != p]
    return f"{t.variant}: {who} level at the top" + (f" ({'; '.join(clauses)})" if clauses else "")


def _unit_text(spec: Spec) -> str:
    unit = "duplicate deals" if spec.mode == "deals" else "duplicate whole games"
    return f"{spec.count:,} {unit} per run"


# page ------------------------------------------------------------------------------------------


def _forest(result: tour.Result):
    """tournament.py's forest plot, with the upper bounds set apart below a line."""
    fig = tour.forest_figure(result)
    if result.upper_bounds and result.ratings:
        ax = fig.axes[0]
        ax.axhline(len(result.upper_bounds) - 0.5, color="#1d232a", lw=0.8)
    return fig


def _rating_tables(result: tour.Result) -> list[reporting.Table]:
    tables = [
        reporting.Table(
            "Fair players, ranked: Bradley-Terry rating (Elo-like scale, mean 0) with 95% "
            "bootstrap CI",
            ["rank", "player", "rating", "95% CI"],
            tour.rating_rows(result.ratings),
        )
    ]
    if result.upper_bounds:
        tables.append(
            reporting.Table(
                f"Not ranked ({tour.UPPER_BOUND_LABEL}): rated against the fair players' fitted "
                "strengths held fixed",
                ["player", "rating", "95% CI", "label"],
                [
                    [
                        r.player,
                        f"{r.rating:+.0f}",
                        f"[{r.ci_low:+.0f}, {r.ci_high:+.0f}]",
                        "upper bound",
                    ]
                    for r in result.upper_bounds
                ],
            )
        )
    return tables


def _key_table(result: tour.Result) -> reporting.Table:
    t = result.tournament
    metrics = t.metrics()
    columns = ["A", "B", "why", "A minus B, points per deal [95% CI]", "Holm p"]
    if "game_win" in metrics:
        columns += ["A's duplicate game-win rate [95% CI]", "Holm p (rate = 0.5)"]
    rows = []
    for key in key_pairings(result):
        row = [key.a, key.b, key.why]
        for metric in metrics:
            row += [_estimate(result, key.a, key.b, metric), _holm(result, key.a, key.b, metric)]
        rows.append(row)
    n = len(t.pairings)
    return reporting.Table(
        f"Key pairings, A the higher-rated: {', '.join(_metric_label(m) for m in metrics)}; Holm "
        f"p-values adjusted across all {n} pairings of each metric (one family per metric), "
        "the full table below",
        columns,
        rows,
    )


def _metric_label(metric: str) -> str:
    return {"points_per_deal": "points per deal", "game_win": "game-win rate"}[metric]


def _pairing_table(result: tour.Result) -> reporting.Table:
    header, rows = tour.pairing_table(result)
    return reporting.Table(
        "Every pairing (A named first in --players): estimate, p, Holm p (one family per metric), "
        "variance reduction of duplicate play, units",
        header,
        rows,
    )


def _variance_table(result: tour.Result) -> reporting.Table:
    rows = []
    for r in result.rows:
        if r.metric != "points_per_deal":
            continue
        vr = r.variance_reduction
        factor = "—" if vr is None or vr >= 1 else f"{1 / (1 - vr):.2f}"
        rows.append([r.a, r.b, "—" if vr is None else f"{vr:.3f}", factor])
    pooled = result.variance_reduction
    factor = "—" if pooled is None or pooled >= 1 else f"{1 / (1 - pooled):.2f}"
    rows.append(["pooled", "", "—" if pooled is None else f"{pooled:.3f}", factor])
    return reporting.Table(
        "Variance reduction of duplicate play, points per deal, per pairing and pooled; plain "
        "play needs 1 / (1 - reduction) times as many units for the same precision",
        ["A", "B", "variance reduction", "plain units per duplicate unit"],
        rows,
    )


def _variance_text(result: tour.Result) -> str:
    vrs = [
        r.variance_reduction
        for r in result.rows
        if r.metric == "points_per_deal" and r.variance_reduction is not None
    ]
    pooled = result.variance_reduction
    unit = result.tournament.unit
    if pooled is None or not vrs:
        return "No variance to reduce (every pairing constant)."
    verdict = (
        f"duplicate play removed {100 * pooled:.0f}% of the variance of the points difference, "
        f"so one duplicate {unit} is worth {1 / (1 - pooled):.2f} plain ones"
        if 0 <= pooled < 1
        else f"duplicate play did not reduce the variance of the points difference here (pooled "
        f"reduction {pooled:.3f})"
    )
    return (
        f"Pooled over the pairings, {verdict}; per pairing it ranges from {min(vrs):.3f} to "
        f"{max(vrs):.3f}. "
        + tour.VARIANCE_REDUCTION_TEXT[0].upper()
        + tour.VARIANCE_REDUCTION_TEXT[1:]
        + "."
    )


def sections(spec: Spec, result: tour.Result) -> list[reporting.Section]:
    t = result.tournament
    title = f"{t.variant}, {_unit_text(spec)}"
    heat_maps = [
        reporting.Figure(
            f"{title}: {tour.METRICS[metric]}; row player A against column player B, estimate "
            "and 95% CI in each cell"
            + ("; the cheater's row and column are an upper bound" if result.upper_bounds else ""),
            reporting.svg(tour.heat_map_figure(result, metric)),
        )
        for metric in t.metrics()
    ]
    forest_caption = f"{title}: ratings (Bradley-Terry, Elo-like scale) with 95% bootstrap CIs" + (
        "; below the line, squares: players that see hidden cards, an upper bound, not ranked"
        if result.upper_bounds
        else ""
    )
    return [
        reporting.Section(
            f"{title}: ratings",
            text=answer(spec, result) + " " + tour.design_text(result),
            figures=[reporting.Figure(forest_caption, reporting.svg(_forest(result)))],
            tables=_rating_tables(result),
        ),
        reporting.Section(
            f"{title}: pairings",
            text=(
                "Each cell is the row player's result against the column player on the same "
                "packs in both seatings. The key pairings are the adjacent ranks (does each "
                "player really beat the next one down?), the best fair player (or each player "
                "level at the top) against greedy"
                + (
                    " and the upper bound against the best fair player."
                    if result.upper_bounds
                    else "."
                )
            ),
            figures=heat_maps,
            tables=[_key_table(result), _pairing_table(result)],
        ),
        reporting.Section(
            f"{title}: what duplicate play buys",
            text=_variance_text(result),
            tables=[_variance_table(result)],
        ),
    ]


RATING_UNIT = "rating, Elo-like scale (400 log10 strength), mean 0 over the fair players"
METRIC_UNITS = {
    "points_per_deal": "points per deal, A minus B (duplicate)",
    "game_win": "share of duplicate games won by A",
}


def findings(spec: Spec, result: tour.Result) -> list[reporting.Finding]:
    """The numbers of the answer and of the key pairings table, for who-plays-best.json: every
    rating (fair players and upper bounds), and each key pairing's metrics, A the higher-rated
    as on the page. Names: ``who_plays_best.TOURNAMENT.rating.PLAYER`` and
    ``who_plays_best.TOURNAMENT.METRIC.A-vs-B``, players as their folder names
    (``pimc_samples=16``). A rating's n is the duplicate units of the pairings it rests on."""
    prefix = f"who_plays_best.{spec.name}"
    upper = {r.player for r in result.upper_bounds}
    out = []
    for r in [*result.ratings, *result.upper_bounds]:
        pairings = [
            row
            for row in result.rows
            if row.metric == "points_per_deal"
            and r.player in (row.a, row.b)
            and (r.player in upper or not {row.a, row.b} & upper)
        ]
        n = sum(row.estimate.n for row in pairings)
        estimate = stats.Estimate(r.rating, r.ci_low, r.ci_high, n)
        name = f"{prefix}.rating.{tour.folder_name(r.player)}"
        out.append(reporting.Finding(name, estimate, RATING_UNIT))
    for key in key_pairings(result):
        pair = f"{tour.folder_name(key.a)}-vs-{tour.folder_name(key.b)}"
        for metric in result.tournament.metrics():
            row = result.row(key.a, key.b, metric)
            out.append(
                reporting.Finding(f"{prefix}.{metric}.{pair}", row.estimate, METRIC_UNITS[metric])
            )
    return out


def question(results: list[tuple[Spec, tour.Result]]) -> str:
    """The question, naming the players and games of the tournaments."""
    fair = dict.fromkeys(e.spec for _, r in results for e in r.tournament.entrants)
    hidden = {e.spec for _, r in results for e in r.tournament.entrants if e.sees_hidden_cards}
    variants = list(dict.fromkeys(r.tournament.variant for _, r in results))
    text = (
        f"{QUESTION} Of {', '.join(p for p in fair if p not in hidden)}, which player is "
        f"strongest in {' and in '.join(variants)}, by how much, and how sure can we be?"
    )
    if hidden:
        text += (
            f" A player that sees the hidden cards ({', '.join(sorted(hidden))}) shows how much "
            "room is left above the fair players."
        )
    return text


METHOD = (
    "Duplicate round robins (`scopa-sim tournament`, scopa_sim/tournament.py): every pair of "
    "players A, B plays two runs from the same seed, lineup A,B and lineup B,A (four sides: "
    "A,B,A,B and B,A,B,A round the table), so every pack (in games mode every game's packs) is "
    "played twice with the seats swapped and the luck of the cards cancels out of the difference. "
    "Per pairing: A minus B in points per deal, the mean of the two seatings (games mode: a ratio "
    "over the games' deals, linearised per game), and in games mode A's duplicate game-win rate; "
    "95% t intervals and paired t-tests on the per-unit duplicate values, Holm-adjusted across "
    "the pairings of each metric (one family per metric). Ratings: "
    + tour.RATINGS_TEXT.format(replicates=tour.BOOTSTRAP_REPLICATES)
    + ". Players that see hidden cards (the cheater) are rated apart, against the fair players' "
    "fitted strengths held fixed: an upper bound, never ranked with the fair players, and the "
    "fair ratings come from the fair pairings alone. The page reads the tournament folders and "
    "analyses them with scopa_sim.tournament.analyse (the numbers of the command's own table and "
    "summary.parquet); it plays nothing."
)


#: Replayed swings per key pairing (each replay plays both seatings of one pack again).
SWINGS_PER_KEY = 2


def swings(spec: Spec, result: tour.Result) -> tuple[reporting.Section, dict[str, str]]:
    """The largest duplicate swings of each key pairing, replayed as pages beside this one: the
    section that links them and the pages (``Page.attachments``). A swing is a pack that went
    very differently with the seats swapped: where to look to see why one player wins."""
    keys = {(k.a, k.b) for k in key_pairings(result)}
    found = [
        s
        for s in tour.largest_swings(result.tournament, SWINGS_PER_KEY)
        if (s.pairing.a.spec, s.pairing.b.spec) in keys
        or (s.pairing.b.spec, s.pairing.a.spec) in keys
    ]
    folder = f"who-plays-best-swings/{spec.name}"
    pages = {f"{folder}/{s.file_name}": tour.swing_page(s) for s in found}
    rows = [
        [
            f"{s.pairing.a.spec} vs {s.pairing.b.spec}",
            f"game {s.game}, deal {s.deal}",
            f"{s.swing:+g}",
            f"{s.margins[0]:+g} / {s.margins[1]:+g}",
            reporting.Link("replay both seatings", f"{folder}/{s.file_name}"),
        ]
        for s in found
    ]
    t = result.tournament
    section = reporting.Section(
        f"{t.variant}, {_unit_text(spec)}: largest duplicate swings",
        text=(
            f"The {SWINGS_PER_KEY} packs of each key pairing where the two seatings ended most "
            f"differently ({tour.SWING_TEXT}). Each link opens a replay of both seatings, play "
            "by play with every legal alternative (and the player's own evaluation of each, "
            "where it gives one): the deals where one player's choices made the difference."
        ),
        tables=[
            reporting.Table(
                "Largest duplicate swings of the key pairings (A vs B; margins A minus B in "
                "seating 1 / seating 2)",
                ["pairing", "pack", "swing (points)", "margins", "replay"],
                rows,
            )
        ],
    )
    return section, pages


def build(data: Path, config: Path = CONFIG) -> reporting.Page:
    """Who plays best?

    Per default tournament (configs/tournaments.toml, played by ``make tournament``): ratings,
    the pairing matrix, the key pairings with Holm p-values, and the variance duplicate play
    removes, analysed from the tournament folders under ``data``/tournaments/.
    """
    try:
        specs = load_config(config)
    except ConfigError as err:
        raise MissingData(str(err)) from None
    results = [(spec, load(spec, data)) for spec in specs]
    page_sections, attachments = [], {}
    for spec, result in results:
        swing_section, pages = swings(spec, result)
        page_sections += [*sections(spec, result), swing_section]
        attachments.update(pages)
    return framework.page(
        "who_plays_best",
        slug="who-plays-best",
        title="Who plays best?",
        question=question(results),
        method=METHOD
        + " Players, as the tournaments' run manifests record them: "
        + "; ".join(
            f"{r.tournament.variant}: {', '.join(e.spec for e in r.tournament.entrants)}"
            for _, r in results
        )
        + ".",
        finding="; ".join(headline(spec, result) for spec, result in results) + ".",
        sections=page_sections,
        data=[_provenance(spec, result, data) for spec, result in results],
        reproduce_text=_reproduce(specs, data),
        findings=[f for spec, result in results for f in findings(spec, result)],
        attachments=attachments,
    )


def _provenance(spec: Spec, result: tour.Result, data: Path) -> dict:
    """The tournament's row of the data table, with what the footer needs."""
    note = " (runs <a>-vs-<b>/, summary.parquet, ratings.parquet)"
    return tc.data_row(spec, data, result.tournament, note)


def _reproduce(specs: list[Spec], data: Path) -> str:
    return tc.reproduce(
        "tournament", "configs/tournaments.toml", specs, data, "who_plays_best",
        "resumable: rerun to complete",
        notes=(
            "# a complete folder is re-read, not replayed, while its configuration matches: "
            "after a",
            "# change to a player's code, delete data/tournaments/<name>/ to play it again",
        ),
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(framework.main(build, commands=commands))
