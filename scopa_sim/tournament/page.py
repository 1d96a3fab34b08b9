"""A tournament's HTML page: heat maps of the pairings, a forest plot of the ratings, the tables,
the method, and the replay pages of the largest swings beside it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scopa_sim import stats, storage
from scopa_sim.tournament.estimate import METRICS, Result
from scopa_sim.tournament.ratings import UPPER_BOUND_LABEL
from scopa_sim.tournament.report import (
    RATING_COLUMNS,
    VARIANCE_REDUCTION_TEXT,
    design_text,
    estimate_text,
    format_variance_reduction,
    pairing_table,
    rating_rows,
    ratings_text,
)
from scopa_sim.tournament.schedule import TournamentError
from scopa_sim.tournament.swings import SWING_TEXT, SWINGS_PER_PAIRING, swing_rows, write_swings


def heat_map_figure(result: Result, metric: str):
    """The pairing matrix of ``metric`` as a matplotlib figure: row player A against column
    player B, each cell's estimate and 95 % CI, coloured about no difference."""
    import matplotlib.pyplot as plt

    names = [e.spec for e in result.tournament.entrants]
    k = len(names)
    center = 0.5 if metric == "game_win" else 0.0
    values = np.full((k, k), np.nan)
    texts = [["" for _ in names] for _ in names]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                texts[i][j] = "—"
                continue
            row = result.row(a, b, metric)
            values[i, j] = row.estimate.value
            e = row.estimate
            digits = 3 if metric == "game_win" else 2
            fmt = f"{{:.{digits}f}}" if metric == "game_win" else f"{{:+.{digits}f}}"
            texts[i][j] = (
                f"{fmt.format(e.value)}\n[{fmt.format(e.low)}, {fmt.format(e.high)}]"
                if e.estimable
                else f"{fmt.format(e.value)}\n({stats.NOT_ESTIMABLE})"
            )
    span = np.nanmax(np.abs(values - center)) if k > 1 else 1.0
    span = span if span > 0 else 1.0
    size = max(4.0, 1.15 * k + 1.5)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    image = ax.imshow(values, cmap="RdBu", vmin=center - span, vmax=center + span)
    for i in range(k):
        for j in range(k):
            strong = not np.isnan(values[i, j]) and abs(values[i, j] - center) > 0.6 * span
            ax.text(
                j, i, texts[i][j], ha="center", va="center", fontsize=7,
                color="white" if strong else "#1d232a",
            )  # fmt: skip
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("column player (B)")
    ax.set_ylabel("row player (A)")
    label = "A's duplicate game-win rate" if metric == "game_win" else "A minus B, points per deal"
    fig.colorbar(image, ax=ax, shrink=0.8, label=label)
    fig.tight_layout()
    return fig


def forest_figure(result: Result):
    """The ratings with their 95 % pack-bootstrap CIs as a matplotlib forest plot, best first; the
    upper bounds of players that see hidden cards last, as squares."""
    import matplotlib.pyplot as plt

    items = [(r, "#2b5d8a") for r in result.ratings]
    items += [(r, "#b5472d") for r in result.upper_bounds]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(items) + 1.2))
    y = np.arange(len(items))[::-1]
    for (r, color), yy in zip(items, y, strict=True):
        marker = "s" if r.upper_bound else "o"
        ax.errorbar(
            r.rating, yy, xerr=[[r.rating - r.ci_low], [r.ci_high - r.rating]], fmt=marker,
            color=color, capsize=3,
        )  # fmt: skip
    ax.axvline(0, color="#888", lw=1, ls="--")
    labels = [r.player + (" (upper bound)" if r.upper_bound else "") for r, _ in items]
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.6, len(items) - 0.4)
    ax.set_xlabel(
        f"rating on the {result.tournament.mode} scale, 400·log10(Davidson strength), mean 0 "
        "(95% bootstrap CI)"
    )
    fig.tight_layout()
    return fig


def page(result: Result, command: str, swings: Sequence[dict] = ()) -> str:
    """A self-contained HTML page: the pairing matrix as heat maps, the ratings as a forest plot,
    the tables, the method and the command that reproduces it; with ``swings`` (rows of
    :func:`swing_rows`), the table of the largest duplicate swings linked to their replays."""
    from scopa_sim import reporting  # jinja2 and matplotlib: only when a page is drawn

    t = result.tournament
    heat_maps = [
        reporting.Figure(
            f"{metric}: {METRICS[metric]}; row player A against column player B, estimate and "
            "95% CI in each cell",
            reporting.svg(heat_map_figure(result, metric)),
        )
        for metric in t.metrics()
    ]
    forest = reporting.Figure(
        f"Ratings (Davidson's model of wins and ties, Elo-like scale; {t.mode} scale) with 95% "
        "bootstrap CIs over packs"
        + ("; squares: upper bounds of players that see hidden cards" if result.upper_bounds
           else ""),
        reporting.svg(forest_figure(result)),
    )  # fmt: skip
    header, rows = pairing_table(result)
    runs = [
        {
            "folder": str(config.out),
            "lineup": ",".join(config.players),
            t.mode: f"{t.count:,}",
            "seed": t.seed,
        }
        for pairing in t.pairings
        for config in pairing.runs
    ]
    best = max(
        (r for r in result.rows if r.metric == "points_per_deal"),
        key=lambda r: abs(r.estimate.value),
    )
    top = result.ratings[0] if result.ratings else None
    return reporting.render_template(
        "tournament.html.j2",
        title=f"Tournament: {t.variant}",
        question=(
            "Which player is strongest, and by how much, when every pair plays the same packs "
            "with the seats swapped? " + ", ".join(e.spec for e in t.entrants)
        ),
        finding=(
            (
                f"Top rating: {top.player}, {top.rating:+.0f} [{top.ci_low:+.0f}, "
                f"{top.ci_high:+.0f}]. "
                if top
                else ""
            )
            + f"Largest points gap: {best.a} minus {best.b}, {estimate_text(best)} points per "
            f"deal (Holm p {stats.format_p(best.p_holm, equals=True)})."
        ),
        design=design_text(result),
        metrics=[(m, METRICS[m]) for m in t.metrics()],
        family="Holm adjustment across the pairings of each metric (one family per metric).",
        heat_maps=heat_maps,
        pairing_columns=header,
        pairing_rows=rows,
        variance_reduction=format_variance_reduction(result.variance_reduction),
        variance_reduction_text=VARIANCE_REDUCTION_TEXT,
        ratings_text=ratings_text(result),
        forest=forest,
        rating_columns=RATING_COLUMNS,
        ratings=rating_rows(result.ratings),
        upper_bounds=rating_rows(result.upper_bounds),
        upper_bound_label=UPPER_BOUND_LABEL,
        command=command,
        runs=runs,
        swings=list(swings),
        swing_text=SWING_TEXT,
    )


def write_html(
    result: Result, command: str, path: Path, swings: int = SWINGS_PER_PAIRING
) -> list[Path]:
    """The tournament page at ``path`` and, beside it in ``<stem>-swings/``, the replay pages of
    the ``swings`` largest duplicate swings of each pairing, linked from the page by relative
    links (the page and its folder open offline, and can be moved together)."""
    path = Path(path)
    folder = path.with_name(path.stem + "-swings")
    try:
        found = write_swings(result, folder, swings) if swings > 0 else []
        path.write_text(page(result, command, swing_rows(found, folder.name)), encoding="utf-8")
    except storage.StorageError:
        raise
    except OSError as err:
        raise TournamentError(f"cannot write {err.filename or path}: {err.strerror}") from None
    return [path, *(folder / s.file_name for s in found)]
