"""Does a rule change matter?

Three common rule options, three house rules written as variant files and Cirulla against classic
Scopa, played in-process by :func:`scopa_sim.compare.compare` on the same packs (common random
numbers; Cirulla, whose throw-in differs, on packs of its own): the page does not read the data
folder.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path

from analyses import framework
from analyses.framework import LEVELS, Needs
from scopa_sim import compare, compare_page, reporting, stats
from scopa_sim.stats import LEVEL

ARMS = (
    "classic",
    "classic:forced_capture=true",
    "classic:fewest_cards=true",
    "classic:last_play_scopa=true",
    # House rules written as variant files (docs/rules.md, "Write your own variant").
    "configs/variants/examples/settebello-2.toml",
    "configs/variants/examples/four-aces.toml",
    "configs/variants/examples/scopa-a-undici.toml",
    # Cirulla, the Scopa of Genoa: another throw-in, so it is played on packs of its own.
    "cirulla",
)
#: Each level's players: the level's player against random (random is bound by forced_capture;
#: greedy always captures), so the levels differ only in the player of seat 0.
LEVEL_PLAYERS = {level: (framework.LEVEL_PLAYER[level], "random") for level in LEVELS}
PLAYERS = LEVEL_PLAYERS["beginner"]
MODE = "deals"
COUNT = 200_000  # deals per arm
SEED = 20261129
WORKERS = 2
NEEDS = Needs()  # it plays its own deals

QUESTION = (
    "Does a rule change matter? How do forcing captures, allowing only the fewest-card sum "
    "capture, scoring a sweep on the last play, three house rules (the settebello worth 2, "
    "3 points for the four aces, captures to 11 with the played card) and Cirulla change points "
    "and scope per deal, and the dealer's edge, against classic Scopa, when a beginner (greedy) "
    "and when an expert plays a random player?"
)

#: What the page adds to the method of ``scopa-sim compare``'s page.
METHOD = (
    "In deals mode each deal is a game of its own whose dealer is drawn at random, so "
    "about half the deals are dealt by each player; dealer_edge is the dealer's side minus "
    "the mean of the other sides. The greedy "
    "player always captures when it can, so forced_capture changes only the random "
    "player's choices. Two levels: every arm is played twice on the same deals (the same seeds, "
    f"so the same packs), by a beginner ({framework.BEGINNER}) against random and by an expert "
    f"({framework.EXPERT}) against random; each level is a `scopa-sim compare` of its own (the "
    "commands below). How a rule change differs between the levels is the experts' difference "
    "from classic minus the beginners', per deal: ((arm - classic) for experts - (arm - classic) "
    "for beginners), a paired t interval since both levels play the same packs (for an arm on "
    "packs of its own, Cirulla, the per-deal level differences of the arm and of classic are "
    "independent samples: Welch). Family of tests: one for the whole page, the tested "
    "differences from classic at both levels and these level differences, Holm-adjusted, with "
    "Bonferroni intervals (the tables' Holm p and family intervals are the page's family, not "
    "each level's alone)."
)


@dataclass(frozen=True)
class LevelComparison(compare.Comparison):
    """A level's comparison whose Holm p-values and family intervals are the page's family's
    (so its tables quote the page's family level, not the level's alone)."""

    page_level: float = LEVEL

    @property
    def family_level(self) -> float:
        return self.page_level


@dataclass(frozen=True)
class LevelDifference:
    """How a rule change's effect differs between the levels: experts' difference from the
    first arm minus the beginners', per deal on the same packs (paired) or, for an arm on packs
    of its own, from the per-deal level differences of the two arms (Welch)."""

    metric: str
    arm: str
    diff: stats.Estimate
    p_value: float
    design: str


def play(count: int | None = None, workers: int | None = None):
    """Every arm at both levels on the same deals: each level's comparison (exactly what
    ``scopa-sim compare ARMS --players LEVEL,random`` computes) and its per-deal values."""
    count, workers = count or COUNT, workers or WORKERS
    arms = compare.plan(compare.parse_arms(ARMS), SEED)
    results, units = {}, {}
    for level in LEVELS:
        resolved = compare.arm_players(arms, LEVEL_PLAYERS[level])
        units[level] = compare.play_units(arms, resolved, MODE, range(count), workers, 8192)
        result = compare.analyse(arms, resolved, MODE, units[level], SEED)
        results[level] = dataclasses.replace(result, players=LEVEL_PLAYERS[level])
    return arms, results, units


def level_differences(arms, results: dict, units: dict) -> list[LevelDifference]:
    """Every difference tested at both levels, experts minus beginners (module doc)."""
    out = []
    index = {a.label: i for i, a in enumerate(arms)}
    tested = {(r.metric, r.arm) for r in results["expert"].family}
    for r in results["beginner"].family:
        if (r.metric, r.arm) not in tested:
            continue
        i = index[r.arm]

        def values(level, k, metric=r.metric):
            return compare.metric_values(units[level][k], metric, MODE)

        base = values("expert", 0) - values("beginner", 0)
        arm = values("expert", i) - values("beginner", i)
        if arms[i].design == compare.PAIRED:
            diff, p = stats.paired_difference(base, arm)
        else:
            diff, p = stats.independent_difference(base, arm)
        out.append(LevelDifference(r.metric, r.arm, diff, p, arms[i].design))
    return out


def page_family(results: dict, levels: list[LevelDifference]) -> framework.Family:
    """The page's one family: the tested differences from the first arm at both levels and the
    level differences."""
    family = framework.Family()
    for level, result in results.items():
        for r in result.family:
            family.add((level, r.metric, r.arm), r.diff, r.p_value)
    for d in levels:
        family.add(("levels", d.metric, d.arm), d.diff, d.p_value)
    family.close()
    return family


def in_family(result: compare.Comparison, level: str, family) -> LevelComparison:
    """``result`` with the page family's Holm p-values and Bonferroni intervals."""
    rows = [
        dataclasses.replace(
            r, p_holm=family.p_holm[(level, r.metric, r.arm)], diff_family=family.wide[
                (level, r.metric, r.arm)]
        )
        if r.tested
        else r
        for r in result.rows
    ]  # fmt: skip
    fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    return LevelComparison(**{**fields, "rows": rows}, page_level=family.level)


def finding(results: dict, levels: list[LevelDifference], family) -> str:
    """The beginners' clearest tested difference (largest |diff| / Bonferroni half-width), quoted
    with its Bonferroni interval in the page's family (it was selected from the family, so its
    95 % interval would be too narrow), the experts' difference of the same metric and arm, and
    how many of the family are clear at each level and between the levels."""
    b, e = results["beginner"], results["expert"]
    largest = b.clearest()
    key = (largest.metric, largest.arm)
    unit = " per deal" if compare.is_per_deal(largest.metric) else ""
    text = (
        f"Clearest difference from {b.arms[0].label}: {largest.metric} under {largest.arm}, "
        f"{reporting.ci(largest.diff_family)}{unit} for beginners ({b.players[0]}) "
        f"({100 * family.level:.4g} % Bonferroni interval; Holm p "
        f"{stats.format_p(largest.p_holm, equals=True)})"
    )
    if ("expert", *key) in family.wide:
        text += (
            f", {reporting.ci(family.wide[('expert', *key)])} for experts ({e.players[0]}) "
            f"(Holm p {family.p(('expert', *key))})"
        )
    if ("levels", *key) in family.wide:
        text += (
            f"; experts minus beginners {reporting.ci(family.wide[('levels', *key)])} (paired by "
            f"deal, Holm p {family.p(('levels', *key))})"
        )
    counts = []
    for level, result in results.items():
        clear = sum(family.p_holm[(level, r.metric, r.arm)] < 1 - LEVEL for r in result.family)
        counts.append(f"{clear} of the {len(result.family)} {level}s' differences")
    clear = sum(family.p_holm[("levels", d.metric, d.arm)] < 1 - LEVEL for d in levels)
    counts.append(f"{clear} of the {len(levels)} differences between the levels")
    return (
        f"{text}. Significant at Holm p < {1 - LEVEL:.2g} in the page's one family of "
        f"{family.size} tests: {'; '.join(counts)}."
    )


def detectable(result: compare.Comparison) -> dict[str, float]:
    """Per tested metric, the smallest true difference the paired data detect with 80 % power
    at two-sided alpha 0.05 (the largest over the arms)."""
    out = {}
    for metric in dict.fromkeys(r.metric for r in result.family):
        rows = [r for r in result.family if r.metric == metric]
        out[metric] = max(stats.detectable_effect(r.diff) for r in rows)
    return out


def detectable_text(result: compare.Comparison) -> str:
    """One sentence: the smallest difference per metric these paired deals could detect."""
    parts = [f"{metric} {value:.3f}" for metric, value in detectable(result).items()]
    unit = "deals" if result.mode == "deals" else "games"
    return (
        f"With {result.units:,} paired {unit} per arm, the smallest true differences these data "
        "detect with 80 % power (two-sided alpha 0.05, each test alone; the largest over the "
        f"arms) are: {', '.join(parts)}."
    )


def players_text(result: compare.Comparison) -> str:
    """Which players the comparison's deals were played by (what it played, not this module's
    constants)."""
    lineups = [tuple(dict.fromkeys(players)) for players in result.arm_players]
    texts = dict.fromkeys(
        f"{p[0]} on every side" if len(p) == 1 else " against ".join(p) for p in lineups
    )
    return f"Players, as the comparison played them: {'; '.join(texts)}."


def _arm_words(arm: str) -> str:
    """An arm's label for a player: its options in words, without the preset
    (``classic:forced_capture=true`` is "forced capture", ``target=16`` "target 16")."""
    if arm.endswith(".toml"):
        return Path(arm).stem  # a house rule's file: its name
    if ":" not in arm:
        return arm
    words = []
    for option in arm.split(":", 1)[1].split(","):
        key, _, value = option.partition("=")
        key = key.replace("_", " ")
        words.append(key if value.lower() == "true" else f"{key} {value}".strip())
    return ", ".join(words)


def glance(results: dict, levels: list[LevelDifference], family) -> framework.Answer:
    """The rule change that moves the beginners' clearest metric most, in one sentence with the
    experts' difference and how the levels compare; the chart: that metric's difference from
    the first arm under every other arm at both levels (the page family's intervals)."""
    b = results["beginner"]
    largest = b.clearest()
    base = b.arms[0].label
    arms = [r.arm for r in b.family if r.metric == largest.metric]
    unit = " a deal" if compare.is_per_deal(largest.metric) else ""
    what = largest.metric.replace("_", " ").replace(":", " ")
    key = (largest.metric, largest.arm)
    sentence = (
        f"Of the rule changes tried, {_arm_words(largest.arm)} changes the game the most: "
        f"{what} moves by {_signed(largest.diff_family.value)}{unit} against plain {base} for "
        f"beginners ({framework.BEGINNER})"
    )
    if ("expert", *key) in family.wide:
        sentence += (
            f" and by {_signed(family.wide[('expert', *key)].value)} for experts "
            f"({framework.EXPERT})"
        )
        clause = framework.levels_clause(
            largest.diff_family,
            family.wide[("expert", *key)],
            family.wide.get(("levels", *key)),
            family.p_holm.get(("levels", *key)),
        )
        sentence += f"; {clause}" if clause else ""
    clear = {
        level: sum(family.p_holm[(level, r.metric, r.arm)] < 1 - LEVEL for r in result.family)
        for level, result in results.items()
    }
    between = sum(family.p_holm[("levels", d.metric, d.arm)] < 1 - LEVEL for d in levels)
    sentence += (
        f"; {clear['beginner']} and {clear['expert']} of the {len(b.family)} differences tested "
        f"at each level are clear, and {between} of {len(levels)} differ between the levels."
    )
    rows = []
    for arm in arms:
        for level, who in (("beginner", "beginners"), ("expert", "experts")):
            if (level, largest.metric, arm) in family.wide:
                prefix = "variant" if level == "beginner" else "variant.expert"
                rows.append(
                    (f"{_arm_words(arm)}, {who}", f"{prefix}.{largest.metric}.{arm}.diff_family")
                )
    return framework.Answer(
        sentence=sentence,
        rows=tuple(rows),
        axis=f"{what}{unit}, minus plain {base} ({100 * family.level:.4g} % intervals)",
        reference=0.0,
        whiskers=f"{100 * family.level:.4g} % simultaneous intervals (Bonferroni, over the family "
        "of this page)",
    )


def _signed(x: float) -> str:
    text = framework.about(x)
    return text if text.startswith("-") or text == "0" else f"+{text}"


def build(data: Path) -> reporting.Page:
    """Does a rule change matter?

    Plays every arm on the same deals with :func:`scopa_sim.compare.compare` (``data`` is not
    read) and returns its page: paired differences from classic, a forest plot, Holm p-values.
    """
    arms, played, units = play()
    levels = level_differences(arms, played, units)
    family = page_family(played, levels)
    results = {level: in_family(r, level, family) for level, r in played.items()}
    pages = {level: compare_page.page(r) for level, r in results.items()}
    page = pages["beginner"]
    kind = "independent deals" if MODE == "deals" else "whole games"
    source = f"simulated in-process by scopa_sim.compare ({kind}; not read from the data folder)"
    findings = (
        compare_page.findings(results["beginner"], "variant")
        + compare_page.findings(results["expert"], "variant.expert")
        + [
            framework.detectable_finding(
                f"variant.detectable.{metric}",
                value,
                "scope per deal" if metric == "scope" else "points per deal",
                results["beginner"].units,
            )
            for metric, value in detectable(results["beginner"]).items()
        ]
    )
    for d in levels:
        unit = "scope per deal" if d.metric == "scope" else "points per deal"
        name = f"variant.levels.{d.metric}.{d.arm}"
        findings.append(reporting.Finding(f"{name}.diff", d.diff, f"{unit}, experts - beginners"))
        findings.append(
            reporting.Finding(f"{name}.diff_family", family.wide[("levels", d.metric, d.arm)],
                              f"{unit}, experts - beginners")
        )  # fmt: skip
    own = compare_page.family_text(played["beginner"])
    method = page.method.replace(own, "")
    sections = []
    for level, p in pages.items():
        who = " against ".join(LEVEL_PLAYERS[level])
        for section in p.sections:
            sections.append(dataclasses.replace(
                section, heading=f"{level.capitalize()}s ({who}): {section.heading[0].lower()}"
                f"{section.heading[1:]}"))  # fmt: skip
    sections.append(_levels_section(levels, family))
    commands = "\n".join(
        f".venv/bin/scopa-sim compare {' '.join(ARMS)} --players {','.join(LEVEL_PLAYERS[lv])} "
        f"\\\n    --{MODE} {COUNT} --seed {SEED} --workers {WORKERS}"
        for lv in LEVELS
    )
    return framework.page(
        "variant_comparison",
        slug=page.slug,
        title=page.title,
        question=QUESTION,
        finding=finding(results, levels, family),
        method=(
            f"{method} {METHOD} {detectable_text(results['beginner'])} "
            f"{players_text(results['beginner'])} {players_text(results['expert'])}"
        ),
        sections=sections,
        data=[
            {**row, "players": ",".join(LEVEL_PLAYERS[level]), "mode": MODE, "source": source}
            for level, p in pages.items()
            for row in p.data
        ],
        findings=findings,
        answer=glance(results, levels, family),
        reproduce_text="make report    # this page plays its own deals; it reads no data\n"
        "# or this page alone:\n"
        ".venv/bin/python -m analyses.variant_comparison --out reports\n"
        "# or the same comparisons on the command line, one per level (the page's family\n"
        "# adjusts both together with the level differences):\n" + commands,
    )


def _levels_section(levels: list[LevelDifference], family) -> reporting.Section:
    rows = [
        [
            d.metric,
            d.arm,
            reporting.ci(d.diff),
            family.ci(("levels", d.metric, d.arm)),
            d.design,
            family.p(("levels", d.metric, d.arm)),
        ]
        for d in levels
    ]
    return reporting.Section(
        "Does a rule change matter differently to experts?",
        text=(
            "Per tested difference: the experts' difference from classic minus the beginners', "
            "on the same deals (paired per deal; Welch for an arm on packs of its own). A Holm p "
            "below 0.05 says the rule change moves the metric by a different amount when an "
            "expert rather than a beginner plays; the tests are part of the page's one family."
        ),
        tables=[
            reporting.Table(
                "Experts' difference from classic minus beginners'",
                ["metric", "arm", "experts minus beginners [95% CI]",
                 f"[{100 * family.level:.4g} % family CI]", "design", "p (Holm)"],
                rows,
            )
        ],
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(framework.main(build))
