"""How much is luck, how much is skill: the page's tables, chart, sentences and findings."""

from __future__ import annotations

import numpy as np

from analyses import framework
from analyses.luck_skill.measure import Level, Preset
from scopa_sim import reporting, stats
from scopa_sim import tournament as tour


def _ci(e: stats.Estimate, digits: int = 3, signed: bool = False) -> str:
    f = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
    if not e.estimable:
        return f"{f.format(e.value)} ({stats.not_estimable_text(e.n)})"
    return f"{f.format(e.value)} [{f.format(e.low)}, {f.format(e.high)}]"


def _pct(e: stats.Estimate) -> str:
    """A share in whole percent; a share with no interval (or no value) said so."""
    if not np.isfinite(e.value):
        return "— (no variance)"
    if not e.estimable:
        return f"{round(float(100 * e.value))}% ({stats.NOT_ESTIMABLE})"
    if not (np.isfinite(e.low) and np.isfinite(e.high)):
        return f"{round(float(100 * e.value))}%"  # an int: no "-0"
    return framework.pct(e, 0, "%")


def _name(player: str) -> str:
    return tour.folder_name(player)


def _unit(mode: str) -> str:
    return "deal" if mode == "deals" else "game"


def _level_table(lv: Level) -> reporting.Table:
    unit = _unit(lv.mode)
    result = "points minus B's" if lv.mode == "deals" else "won - 1/2"
    rows = [
        [
            r.a,
            r.b,
            _ci(r.d.margin, 3, signed=True),
            f"{r.d.var_plain.value:.3f}",
            f"{r.d.var_dup.value:.3f}",
            _pct(r.d.cards),
            _pct(r.d.skill_ms),
            _pct(r.d.cards_ms),
            _pct(r.d.rest_ms),
        ]
        for r in lv.rows
    ]
    rows.append(["pooled", "", "", "", "", _pct(lv.pooled), "", "", ""])
    return reporting.Table(
        f"{lv.spec.variant}, {lv.count:,} duplicate {unit}s a run ({lv.spec.name}): A's result "
        f"per {unit} ({result}), duplicate mean [95% CI]; Var(x) of one seating and Var(d) of "
        "the duplicate mean; the cards' share of Var(x), 1 - 2 Var(d) / Var(x); and the mean "
        "square of a plain result split into skill, cards and the rest (95% bootstrap CIs over "
        "packs; pooled: summed variances over the pairings)",
        ["A", "B", f"A's result per {unit}", "Var(x)", "Var(d)", "cards' share of Var(x)",
         "skill (of mean square)", "cards", "rest"],
        rows,
    )  # fmt: skip


def skill_table(presets: list[Preset]) -> reporting.Table:
    rows = []
    for p in presets:
        for s in p.skills:
            rows.append(
                [
                    p.variant,
                    s.beginner,
                    f"{s.best} ({100 * s.picked:.0f}%)",
                    _ci(s.best_margin, 3, signed=True),
                    _ci(s.upper_margin, 3, signed=True),
                    _ci(s.upper_over_best, 3, signed=True),
                    _ci(s.rs, 3),
                ]
            )
    return reporting.Table(
        "Relative skill RS = (best fair - beginner) / (cheater - beginner), each a duplicate "
        "margin in points per deal against the beginner on the same packs (the beginner's own is "
        "0); 95% percentile bootstrap CIs over packs, resampled jointly, the best fair player "
        "picked again in every replicate (in brackets: the share of replicates that pick the "
        "same player as the data)",
        ["preset", "beginner", "best fair player (picked)", "best minus beginner",
         "cheater minus beginner", "cheater minus best", "RS"],
        rows,
    )  # fmt: skip


def chart(presets: list[Preset]):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 0.5 * max(len(presets), 2) + 1.8))
    ax = axes[0]
    y = np.arange(len(presets))[::-1]
    for mode, colour, shift in (("deals", "#2b5d8a", 0.12), ("games", "#b5472d", -0.12)):
        for p, yy in zip(presets, y, strict=True):
            lv = p.deals if mode == "deals" else p.games
            if lv is None or not np.isfinite(lv.pooled.low):
                continue
            e = lv.pooled
            err = [[100 * (e.value - e.low)], [100 * (e.high - e.value)]]
            ax.errorbar(
                100 * e.value, yy + shift, xerr=err, fmt="o", color=colour, capsize=3,
                label=f"a {_unit(mode)}'s outcome" if p is presets[0] else None,
            )  # fmt: skip
    ax.set_yticks(y, [p.variant for p in presets])
    ax.set_xlabel("cards' share of the outcome variance, pooled over the ladder (%)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
    ax = axes[1]
    for beginner, colour, shift in (("random", "#2b5d8a", 0.12), ("greedy", "#b5472d", -0.12)):
        for p, yy in zip(presets, y, strict=True):
            for s in p.skills:
                if s.beginner != beginner or not np.isfinite(s.rs.low):
                    continue
                e = s.rs
                ax.errorbar(
                    e.value, yy + shift, xerr=[[e.value - e.low], [e.high - e.value]], fmt="s",
                    color=colour, capsize=3,
                    label=f"beginner {beginner}" if p is presets[0] else None,
                )  # fmt: skip
    ax.axvline(0, color="#888", lw=1, ls="--")
    ax.axvline(1, color="#888", lw=1, ls="--")
    ax.set_yticks(y, [p.variant for p in presets])
    ax.set_xlabel("relative skill RS (95% bootstrap CI)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
    fig.tight_layout()
    return fig


def _claim(s_family: stats.Estimate | None, s_95: stats.Estimate) -> stats.Estimate:
    """The interval a claim of the page is decided and quoted with: at the page's family level
    when it was computed, else the 95 % one."""
    return s_family if s_family is not None else s_95


def _claim_ci(s_family: stats.Estimate | None, s_95: stats.Estimate) -> str:
    """The claim's interval as quoted, saying which level it is at."""
    text = _ci(_claim(s_family, s_95), 2, True)
    return text + (" (page-family CI)" if s_family is not None else "")


def skill_sentence(p: Preset) -> str:
    parts = []
    for s in p.skills:
        text = (
            f"Against {s.beginner}, {s.best} gains {_ci(s.best_margin, 2, True)} points per deal "
            f"and the cheater {_ci(s.upper_margin, 2, True)}, so RS = {_ci(s.rs, 2)}"
        )
        if s.picked < 1:
            text += (
                f" ({s.best} is the best fair player in {100 * s.picked:.0f}% of the bootstrap "
                "replicates; the intervals allow for the pick)"
            )
        room = _claim(s.room_family, s.room)
        if room.high < 0:
            text += (
                f" (against {s.beginner} the cheater gains LESS than {s.best}, by "
                f"{_claim_ci(s.room_family, s.room)} points per deal: measured against "
                f"{s.beginner} it is no upper bound here, and an RS above 1 is no share of "
                "anything)"
            )
        elif room.low <= 0:
            text += (
                f" (against {s.beginner} the cheater's gain cannot be told from {s.best}'s: "
                f"cheater minus {s.best} {_claim_ci(s.room_family, s.room)} points per deal)"
            )
        parts.append(text)
    text = "; ".join(parts)
    seen = set()
    for s in p.skills:
        if s.best in seen:
            continue
        seen.add(s.best)
        claim = _claim(s.upper_over_best_family, s.upper_over_best)
        gap = _claim_ci(s.upper_over_best_family, s.upper_over_best)
        if claim.low > 0:
            text += f". The cheater beats {s.best} by {gap} points per deal"
        elif claim.high < 0:
            text += (
                f". The cheater does NOT beat {s.best} here: cheater minus {s.best} is {gap} "
                "points per deal, so it is no upper bound above that player and RS is no share "
                "of the room between the beginner and perfect information"
            )
        else:  # not separated: no evidence either way, not evidence that they are level
            text += (
                f". The data do not separate the cheater from {s.best}: cheater minus {s.best} "
                f"is {gap} points per deal, so it cannot be read as an upper bound above that "
                "player, nor RS as a share of the room between the beginner and perfect "
                "information"
            )
    return text


def _level_sentence(lv: Level) -> str:
    unit = _unit(lv.mode)
    best = max(lv.rows, key=lambda r: r.d.cards.value)
    least = min(lv.rows, key=lambda r: r.d.cards.value)
    return (
        f"Over the ladder the cards decide {_pct(lv.pooled)} of the variance of a {unit}'s "
        f"outcome (from {_pct(least.d.cards)} for {least.a} against {least.b} to "
        f"{_pct(best.d.cards)} for {best.a} against {best.b})"
    )


def sections(presets: list[Preset]) -> list[reporting.Section]:
    out = []
    for p in presets:
        texts, tables = [], []
        for lv in (p.deals, p.games):
            if lv is not None:
                texts.append(_level_sentence(lv))
                tables.append(_level_table(lv))
        if p.skills:
            texts.append(skill_sentence(p))
        out.append(reporting.Section(f"{p.variant}", text=". ".join(texts) + ".", tables=tables))
    return out


CHESS = (
    "Duersch, Lambrecht and Oechssler (\u201cMeasuring skill and chance in games\u201d, European "
    "Economic Review, 2020) propose a different yardstick: fit Elo-type ratings to the results of "
    "a population of players and compare how widely those ratings spread with how widely they "
    "spread in chess, so that a game is described as a percentage of chess. It rests on game "
    "wins among many (human) players, not on points against named programs, so it is not "
    "computed here: four programs are no population, and RS and the cards' share above answer "
    "other questions. The ratings of the page 'Who plays best?' are this "
    "project's nearest Elo-like figures, but the two scales are not comparable and this page "
    "quotes no figure from that paper."
)


def findings(presets: list[Preset]) -> list[reporting.Finding]:
    """Every figure the page's sentences give (an undefined share, where a pairing's results do
    not vary, is left out). Names ``luck_skill.PRESET.deal|game.cards_share[.A_vs_B]``,
    ``....margin.A_vs_B``, ``....skill_share.A_vs_B``, ``luck_skill.PRESET.relative_skill.BEGINNER``
    and its parts; players as folder names (``pimc_samples=16``)."""
    return [f for f in _findings(presets) if np.isfinite(f.estimate.value)]


def _findings(presets: list[Preset]) -> list[reporting.Finding]:
    out = []
    for p in presets:
        base = f"luck_skill.{p.variant}"
        for lv in (p.deals, p.games):
            if lv is None:
                continue
            unit = _unit(lv.mode)
            out.append(reporting.Finding(f"{base}.{unit}.cards_share", lv.pooled, "share"))
            for r in lv.rows:
                pair = f"{_name(r.a)}_vs_{_name(r.b)}"
                result = "points per deal" if lv.mode == "deals" else "game won - 1/2"
                out += [
                    reporting.Finding(f"{base}.{unit}.cards_share.{pair}", r.d.cards, "share"),
                    reporting.Finding(f"{base}.{unit}.margin.{pair}", r.d.margin, result),
                    reporting.Finding(f"{base}.{unit}.skill_share.{pair}", r.d.skill_ms, "share"),
                ]
        for s in p.skills:
            out += [
                reporting.Finding(f"{base}.relative_skill.{s.beginner}", s.rs, "ratio"),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.best_margin", s.best_margin,
                    "points per deal",
                ),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.cheater_margin", s.upper_margin,
                    "points per deal",
                ),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.cheater_minus_best", s.upper_over_best,
                    "points per deal",
                ),
                reporting.Finding(
                    f"{base}.relative_skill.{s.beginner}.room", s.room,
                    "points per deal (cheater's margin minus best's, against the beginner)",
                ),
            ]  # fmt: skip
    return out


def headline(presets: list[Preset]) -> str:
    parts = []
    for p in presets:
        bits = []
        if p.deals is not None:
            bits.append(f"cards {_pct(p.deals.pooled)} of a deal's variance")
        if p.games is not None:
            bits.append(f"{_pct(p.games.pooled)} of a game's")
        for s in p.skills:
            text = f"RS vs {s.beginner} {_ci(s.rs, 2)}"
            if _claim(s.room_family, s.room).high < 0:
                text += f" (the cheater gains less than {s.best} against {s.beginner})"
            elif _claim(s.upper_over_best_family, s.upper_over_best).high <= 0:
                text += f" (the cheater does not beat {s.best})"
            bits.append(text)
        parts.append(f"{p.variant}: " + ", ".join(bits))
    return "; ".join(parts) + "."
