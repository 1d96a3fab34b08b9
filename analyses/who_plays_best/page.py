"""Who plays best: the page's figures, tables, sections, findings and replayed swings."""

from __future__ import annotations

from analyses.tournaments import Spec
from analyses.who_plays_best.measure import (
    by_variant,
    deciding,
    fair_players,
    key_pairings,
    leaders,
)
from analyses.who_plays_best.text import answer, seating, unit_text, variant_headline
from scopa_sim import reporting, stats
from scopa_sim import tournament as tour


def _estimate(result: tour.Result, a: str, b: str, metric: str) -> str:
    row = result.row(a, b, metric)
    return tour.estimate_text(row)


def _holm(result: tour.Result, a: str, b: str, metric: str) -> str:
    return stats.format_p(result.row(a, b, metric).p_holm)


def _forest(result: tour.Result):
    """The tournament page's forest plot, with the upper bounds set apart below a line."""
    fig = tour.forest_figure(result)
    if result.upper_bounds and result.ratings:
        ax = fig.axes[0]
        ax.axhline(len(result.upper_bounds) - 0.5, color="#1d232a", lw=0.8)
    return fig


def _rating_tables(result: tour.Result) -> list[reporting.Table]:
    tables = [
        reporting.Table(
            "Fair players, ranked: rating (Davidson's model of wins and ties, Elo-like scale, mean "
            f"0; the {result.tournament.mode} scale) with 95% bootstrap CI over packs, and the "
            "packs it rests on",
            ["rank", "player", "rating", "95% CI", "n (packs)"],
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
    return reporting.Table(
        f"Key pairings, A the higher-rated: {', '.join(_metric_label(m) for m in metrics)}; Holm "
        "p-values adjusted in the page's one family (every pairing test of every tournament on "
        "the page), the full table below",
        columns,
        rows,
    )


def _metric_label(metric: str) -> str:
    return {"points_per_deal": "points per deal", "game_win": "game-win rate"}[metric]


def _pairing_table(result: tour.Result) -> reporting.Table:
    header, rows = tour.pairing_table(result)
    return reporting.Table(
        "Every pairing (A named first in --players): estimate, p, Holm p (the page's one "
        "family), variance reduction of duplicate play, units",
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


def section_title(spec: Spec, result: tour.Result) -> str:
    """A tournament's sections' title: its variant, its name and its size."""
    return f"{result.tournament.variant} ({spec.name}), {unit_text(spec)}"


def overview(results: list[tuple[Spec, tour.Result]]) -> reporting.Section:
    """Which players were seated where, and each variant's answer: one row per tournament (its
    fair players, its upper bounds, its leaders) and one sentence per variant."""
    rows = []
    for variant, group in by_variant(results).items():
        answering = deciding(group) if len(group) > 1 else group[0]
        for spec, result in group:
            hidden = [e.spec for e in result.tournament.entrants if e.sees_hidden_cards]
            if answering is None:
                role = "no tournament seats the others' leaders: answers for itself"
            elif answering[0] is spec:
                role = "answers for the variant"
            else:
                role = f"its leaders also play in {answering[0].name}"
            rows.append(
                [
                    variant,
                    spec.name,
                    unit_text(spec),
                    ", ".join(fair_players(result)),
                    ", ".join(hidden) or "—",
                    ", ".join(leaders(result)) or "—",
                    role,
                ]
            )
    return reporting.Section(
        "Every variant: who was seated where",
        text=(
            "A search player costs hundreds of times a compiled one per decision, and a "
            "tournament gives every pairing the same size, so a variant can have two "
            "tournaments: a wide round robin of the fast players on many packs, and a smaller "
            "one that seats the search players with a few fast anchors (the players both seat, "
            "which link the two). The tournament that seats the leaders of the variant's other "
            "tournaments answers for the variant: each player seated only elsewhere is "
            "separated below one of those leaders there (leaders: the best-rated fair player and "
            "those the data do not separate from it). Per variant: "
            + "; ".join(variant_headline(group) for group in by_variant(results).values())
            + "."
        ),
        tables=[
            reporting.Table(
                "The tournaments of the page: fair players seated, upper bounds (rated apart), "
                "the leaders of each, and which tournament answers for its variant",
                ["variant", "tournament", "size", "fair players", "upper bound", "leaders", "role"],
                rows,
            )
        ],
    )


def sections(
    spec: Spec, result: tour.Result, group: list[tuple[Spec, tour.Result]] | None = None
) -> list[reporting.Section]:
    """A tournament's sections; ``group``: every tournament of its variant on the page (the
    text says what links them), by default the tournament alone."""
    t = result.tournament
    group = [(spec, result)] if group is None else group
    title = section_title(spec, result)
    heat_maps = [
        reporting.Figure(
            f"{title}: {tour.METRICS[metric]}; row player A against column player B, estimate "
            "and 95% CI in each cell"
            + ("; the cheater's row and column are an upper bound" if result.upper_bounds else ""),
            reporting.svg(tour.heat_map_figure(result, metric)),
        )
        for metric in t.metrics()
    ]
    forest_caption = (
        f"{title}: ratings (Davidson's model, Elo-like scale; the {t.mode} scale, not comparable "
        "with the other mode's) with 95% bootstrap CIs over packs"
    ) + (
        "; below the line, squares: players that see hidden cards, an upper bound, not ranked"
        if result.upper_bounds
        else ""
    )
    return [
        reporting.Section(
            f"{title}: ratings",
            text=seating(spec, result, group)
            + " "
            + answer(spec, result)
            + " "
            + tour.design_text(result, "the page's one family (see the method)")
            + " Ratings: "
            + tour.ratings_text(result)
            + ".",
            figures=[reporting.Figure(forest_caption, reporting.svg(_forest(result)))],
            tables=_rating_tables(result),
        ),
        reporting.Section(
            f"{title}: pairings",
            text=(
                "Each cell is the row player's result against the column player on the same "
                "packs in both seatings. The key pairings are the adjacent ranks (does each "
                "player really beat the next one down?), the best fair player (or each player "
                "not separated from it) against greedy"
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


def rating_unit(mode: str) -> str:
    """A rating's unit in the JSON, with its scale: deals and games ratings are not comparable."""
    return f"{RATING_UNIT}; {mode} scale"


METRIC_UNITS = {
    "points_per_deal": "points per deal, A minus B (duplicate)",
    "game_win": "share of duplicate games won by A",
}


def findings(spec: Spec, result: tour.Result) -> list[reporting.Finding]:
    """The numbers of the answer and of the key pairings table, for who-plays-best.json: every
    rating (fair players and upper bounds), and each key pairing's metrics, A the higher-rated
    as on the page. Names: ``who_plays_best.TOURNAMENT.rating.PLAYER`` and
    ``who_plays_best.TOURNAMENT.METRIC.A-vs-B``, players as their folder names
    (``pimc_samples=16``). A rating's n is the packs it rests on: every pairing plays the same
    packs, so they are not summed over the pairings."""
    prefix = f"who_plays_best.{spec.name}"
    out = []
    for r in [*result.ratings, *result.upper_bounds]:
        estimate = stats.Estimate(r.rating, r.ci_low, r.ci_high, r.packs)
        name = f"{prefix}.rating.{tour.folder_name(r.player)}"
        out.append(reporting.Finding(name, estimate, rating_unit(result.tournament.mode)))
    for key in key_pairings(result):
        pair = f"{tour.folder_name(key.a)}-vs-{tour.folder_name(key.b)}"
        for metric in result.tournament.metrics():
            row = result.row(key.a, key.b, metric)
            out.append(
                reporting.Finding(f"{prefix}.{metric}.{pair}", row.estimate, METRIC_UNITS[metric])
            )
    return out


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
    section = reporting.Section(
        f"{section_title(spec, result)}: largest duplicate swings",
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
