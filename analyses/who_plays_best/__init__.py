"""Who plays best?

The default tournaments of configs/tournaments.toml (``make tournament``), each a duplicate round
robin of ``scopa-sim tournament`` (scopa_sim/tournament/). Per variant (classic, scopone, escoba,
scopa-52) a wide round robin of the fast players (the heuristics, ``expert``, ``pimc:samples=16``;
in classic the cheater as an upper bound) on many packs, and a smaller one that seats the search
players (``ismcts``, ``pimc:samples=256:rollout=mix``; in the two-seat variants also
``expert:endgame=6``, the expert that solves the last round exactly) with a few fast anchors that
link the two.
The tournament that seats the leaders of the variant's other tournaments answers for the variant
(``measure.deciding``). Per tournament: ratings (Davidson's model of wins and ties) as a forest
plot (the cheater, which sees hidden cards, apart and never ranked), the pairing matrix as a heat
map, the key pairings with 95 % CIs and Holm p-values (one family for the page), and the variance
that duplicate play removes. The page analyses the tournament folders with
:func:`scopa_sim.tournament.analyse` and draws with its chart helpers; it plays nothing.
``measure`` holds the page's family and picks the key pairings, the leaders and the answering
tournament, ``text`` words the answers, ``page`` shows them.

``python -m analyses.who_plays_best --commands`` prints the command of each tournament, one a
line (the ``tournament`` target of the Makefile runs them).
"""

from __future__ import annotations

from pathlib import Path

from analyses import framework
from analyses import tournaments as tc
from analyses.framework import DATA, MissingData, Needs
from analyses.tournaments import ConfigError, Spec
from analyses.who_plays_best.glance import glance
from analyses.who_plays_best.measure import (
    Key,
    by_variant,
    deciding,
    key_pairings,
    leaders,
    page_family,
)
from analyses.who_plays_best.page import (
    METRIC_UNITS,
    RATING_UNIT,
    SWINGS_PER_KEY,
    findings,
    overview,
    sections,
    swings,
)
from analyses.who_plays_best.text import answer, headline, variant_headline
from scopa_sim import reporting
from scopa_sim import tournament as tour

__all__ = [
    "CONFIG", "METHOD", "METRIC_UNITS", "NEEDS", "QUESTION", "RATING_UNIT", "SWINGS_PER_KEY", "Key",
    "answer", "build", "by_variant", "commands", "deciding", "findings", "glance", "headline",
    "key_pairings", "leaders", "load", "load_config", "overview", "page_family", "question",
    "sections", "swings", "tour", "variant_headline",
]  # fmt: skip

#: The default tournaments (``make tournament``).
CONFIG = Path(__file__).resolve().parent.parent.parent / "configs" / "tournaments.toml"
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


def load(spec: Spec, data: Path) -> tour.Result:
    """The analysed tournament of ``spec`` (:func:`analyses.tournaments.complete_plan`)."""
    return tour.analyse(tc.complete_plan(spec, data))


def question(results: list[tuple[Spec, tour.Result]]) -> str:
    """The question, naming the players and games of the tournaments."""
    fair = dict.fromkeys(e.spec for _, r in results for e in r.tournament.entrants)
    hidden = {e.spec for _, r in results for e in r.tournament.entrants if e.sees_hidden_cards}
    variants = list(dict.fromkeys(r.tournament.variant for _, r in results))
    where = variants[0] if len(variants) == 1 else ", ".join(variants[:-1]) + f" and {variants[-1]}"
    text = (
        f"{QUESTION} Of {', '.join(p for p in fair if p not in hidden)}, which player is "
        f"strongest in {'each of ' if len(variants) > 1 else ''}{where}, by how much, and how "
        "sure can we be?"
    )
    if hidden:
        text += (
            f" A player that sees the hidden cards ({', '.join(sorted(hidden))}) shows how much "
            "room is left above the fair players."
        )
    return text


METHOD = (
    "Duplicate round robins (`scopa-sim tournament`, scopa_sim/tournament/): every pair of "
    "players A, B plays two runs from the same seed, lineup A,B and lineup B,A (four sides: "
    "A,B,A,B and B,A,B,A round the table), so every pack (in games mode every game's packs) is "
    "played twice with the seats swapped and the luck of the cards cancels out of the difference. "
    "Per pairing: A minus B in points per deal, the mean of the two seatings (games mode: a ratio "
    "over the games' deals, linearised per game), and in games mode A's duplicate game-win rate; "
    "95% t intervals and paired t-tests on the per-unit duplicate values. One family of tests for "
    "the whole page: every pairing of every tournament, each metric, Holm-adjusted together (the "
    "p-values of the tables and the key pairings; `scopa-sim tournament` itself adjusts per "
    "metric of one tournament, so its own Holm p-values can be smaller). A leader is separated "
    "from a player only when the leader minus that player is positive and significant after "
    "Holm; otherwise the two are not separated, which is no evidence that they are level: the "
    "page gives the interval of the difference. Ratings: "
    + tour.RATINGS_TEXT.format(replicates=tour.BOOTSTRAP_REPLICATES)
    + ". Ratings of a deals tournament and of a games tournament are on different scales "
    "(winning a duplicate deal, winning a duplicate game) and are never compared; each "
    "tournament's section gives its scale and the model's goodness of fit. Players that see "
    "hidden cards (the cheater) are rated apart, against the fair players' "
    "fitted strengths held fixed: an upper bound, never ranked with the fair players, and the "
    "fair ratings come from the fair pairings alone. The page reads the tournament folders and "
    "analyses them with scopa_sim.tournament.analyse (the numbers of the command's own table and "
    "summary.parquet); it plays nothing. A search player costs hundreds of times a compiled "
    "one per decision and a tournament gives every pairing the same size, so a variant may have "
    "two tournaments: a wide round robin of the fast players on many packs and a smaller one that "
    "seats the search players with fast anchors (the players both seat). The tournament that "
    "seats the leaders of the variant's other tournaments answers for the variant: every player "
    "seated only elsewhere is separated (positive and significant after Holm) below one of those "
    "leaders, so the answer rests on a chain of tested pairings, never on comparing the ratings "
    "of two tournaments. When no tournament seats the others' leaders, the page answers per "
    "tournament."
)


def build(data: Path, config: Path = CONFIG) -> reporting.Page:
    """Who plays best?

    Per default tournament (configs/tournaments.toml, played by ``make tournament``): ratings,
    the pairing matrix, the key pairings with Holm p-values, and the variance duplicate play
    removes, analysed from the tournament folders under ``data``/tournaments/; first, which
    players each tournament seats and each variant's answer.
    """
    try:
        specs = load_config(config)
    except ConfigError as err:
        raise MissingData(str(err)) from None
    results, family_size = page_family([(spec, load(spec, data)) for spec in specs])
    groups = by_variant(results)
    page_sections, attachments = [overview(results)], {}
    for spec, result in results:
        swing_section, pages = swings(spec, result)
        group = groups[result.tournament.variant]
        page_sections += [*sections(spec, result, group), swing_section]
        attachments.update(pages)
    return framework.page(
        "who_plays_best",
        slug="who-plays-best",
        title="Who plays best?",
        question=question(results),
        method=METHOD
        + f" The page's family: {family_size} tests."
        + " Players, as the tournaments' run manifests record them: "
        + "; ".join(
            f"{spec.name} ({r.tournament.variant}): "
            + ", ".join(e.spec for e in r.tournament.entrants)
            for spec, r in results
        )
        + ".",
        finding="; ".join(variant_headline(group) for group in groups.values()) + ".",
        sections=page_sections,
        data=[_provenance(spec, result, data) for spec, result in results],
        reproduce_text=_reproduce(specs, data),
        findings=[f for spec, result in results for f in findings(spec, result)],
        attachments=attachments,
        answer=glance(results),
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
