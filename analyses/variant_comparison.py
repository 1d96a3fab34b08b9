"""Does a rule change matter?

Three common rule options, three house rules written as variant files and Cirulla against classic
Scopa, played in-process by :func:`scopa_sim.compare.compare` on the same packs (common random
numbers; Cirulla, whose throw-in differs, on packs of its own): the page does not read the data
folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

from analyses import framework
from analyses.framework import Needs
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
PLAYERS = ("greedy", "random")  # random is bound by forced_capture; greedy always captures
MODE = "deals"
COUNT = 200_000  # deals per arm
SEED = 20261129
WORKERS = 2
NEEDS = Needs()  # it plays its own deals

QUESTION = (
    "Does a rule change matter? How do forcing captures, allowing only the fewest-card sum "
    "capture, scoring a sweep on the last play, three house rules (the settebello worth 2, "
    "3 points for the four aces, captures to 11 with the played card) and Cirulla change points "
    "and scope per deal, and the dealer's edge, against classic Scopa between a greedy and a "
    "random player?"
)

#: What the page adds to the method of ``scopa-sim compare``'s page.
METHOD = (
    "In deals mode each deal is a game of its own whose dealer is drawn at random, so "
    "about half the deals are dealt by each player; dealer_edge is the dealer's side minus "
    "the mean of the other sides. The greedy "
    "player always captures when it can, so forced_capture changes only the random "
    "player's choices."
)


def finding(result: compare.Comparison) -> str:
    """The clearest tested difference (largest |diff| / Bonferroni half-width), quoted with its
    Bonferroni interval (it was selected from the family, so its 95 % interval would be too
    narrow), and how many of the family are clear."""
    family = result.family
    largest = result.clearest()
    clear = sum(r.p_holm < 1 - LEVEL for r in family)
    unit = " per deal" if compare.is_per_deal(largest.metric) else ""
    return (
        f"Clearest difference from {result.arms[0].label}: {largest.metric} under {largest.arm}, "
        f"{reporting.ci(largest.diff_family)}{unit} "
        f"({100 * result.family_level:.4g} % Bonferroni interval; Holm p "
        f"{stats.format_p(largest.p_holm, equals=True)}); {clear} of the {len(family)} tested "
        f"paired differences are significant at Holm p < {1 - LEVEL:.2g}."
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


def glance(result: compare.Comparison) -> framework.Answer:
    """The rule change that moves the clearest metric most, in one sentence; the chart: that
    metric's difference from the first arm under every other arm (Bonferroni intervals)."""
    largest = result.clearest()
    base = result.arms[0].label
    rows = [r for r in result.family if r.metric == largest.metric and r.diff_family is not None]
    unit = " a deal" if compare.is_per_deal(largest.metric) else ""
    clear = sum(r.p_holm < 1 - LEVEL for r in result.family)
    what = largest.metric.replace("_", " ").replace(":", " ")
    return framework.Answer(
        sentence=(
            f"Of the rule changes tried, {_arm_words(largest.arm)} changes the game the most: "
            f"{what} moves by {_signed(largest.diff.value)}{unit} against plain {base}; "
            f"{clear} of the {len(result.family)} differences tested are clear."
        ),
        rows=tuple((_arm_words(r.arm), f"variant.{r.metric}.{r.arm}.diff_family") for r in rows),
        axis=f"{what}{unit}, minus plain {base} ({100 * result.family_level:.4g} % intervals)",
        reference=0.0,
    )


def _signed(x: float) -> str:
    text = framework.about(x)
    return text if text.startswith("-") or text == "0" else f"+{text}"


def build(data: Path) -> reporting.Page:
    """Does a rule change matter?

    Plays every arm on the same deals with :func:`scopa_sim.compare.compare` (``data`` is not
    read) and returns its page: paired differences from classic, a forest plot, Holm p-values.
    """
    result = compare.compare(ARMS, PLAYERS, mode=MODE, count=COUNT, seed=SEED, workers=WORKERS)
    page = compare_page.page(result)
    units = "independent deals" if MODE == "deals" else "whole games"
    source = f"simulated in-process by scopa_sim.compare ({units}; not read from the data folder)"
    findings = compare_page.findings(result, "variant") + [
        framework.detectable_finding(
            f"variant.detectable.{metric}",
            value,
            "scope per deal" if metric == "scope" else "points per deal",
            result.units,
        )
        for metric, value in detectable(result).items()
    ]
    return framework.page(
        "variant_comparison",
        slug=page.slug,
        title=page.title,
        question=QUESTION,
        finding=finding(result),
        method=f"{page.method} {METHOD} {detectable_text(result)} {players_text(result)}",
        sections=page.sections,
        data=[{**row, "mode": MODE, "source": source} for row in page.data],
        findings=findings,
        answer=glance(result),
        reproduce_text="make report    # this page plays its own deals; it reads no data\n"
        "# or this page alone:\n"
        ".venv/bin/python -m analyses.variant_comparison --out reports\n"
        "# or the same comparison on the command line:\n"
        f".venv/bin/scopa-sim compare {' '.join(ARMS)} --players {','.join(PLAYERS)} \\\n"
        f"    --{MODE} {COUNT} --seed {SEED} --workers {WORKERS}",
    )


if __name__ == "__main__":
    sys.exit(framework.main(build))
