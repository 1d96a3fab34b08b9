"""Tuning a heuristic player's weights by simulation: ``scopa-sim tune --player memory``.

The weights a player class declares (``WEIGHTS``: field name -> the range searched, e.g.
``MemoryPlayer.WEIGHTS``) are searched with CMA-ES (the ``cma`` package), in coordinates scaled
to [0, 1] per weight. Each candidate is scored by duplicate play against a pool of players, as
``scopa-sim tournament`` plays a pairing (:func:`scopa_sim.tournament.lineup`: the seats
alternate round the table, and each pack is played twice with the seats swapped): its mean
point difference per deal over the pool. Every candidate of a generation plays the same packs
(common random numbers, so the ranking within a generation is paired); each generation draws
packs of its own, so the search does not fit one set of packs. The tuned weights (the search
distribution's mean at the end, rounded to 4 decimals) are then played on packs of their own
against the pool and against the base player, with paired 95 % intervals, and written as a
player spec that ``--players`` accepts.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim import api, stats
from scopa_sim.players import Player, player
from scopa_sim.rules import RulesError, Variant, parse_variant
from scopa_sim.tournament import lineup

#: The generation index that seeds the validation packs (apart from every generation's).
_VALIDATION = 1 << 30


@dataclass(frozen=True)
class Settings:
    """What ``tune`` searches and how hard: the variant, the base player spec (a player whose
    class declares ``WEIGHTS``), the pool it is scored against, the deals per pairing and
    candidate, the generations and candidates per generation, the initial step (a share of
    each weight's range), the seed and the worker processes."""

    variant: str
    base: str = "memory"
    pool: tuple[str, ...] = ("greedy", "memory", "chitarrella")
    deals: int = 2000
    generations: int = 8
    population: int = 8
    sigma: float = 0.2
    seed: int = 1
    workers: int = 1


@dataclass(frozen=True)
class Generation:
    index: int
    best: float  # the best candidate's score (points per deal over the pool)
    mean: float  # the generation's mean score
    best_spec: str


@dataclass(frozen=True)
class Validation:
    opponent: str
    tuned: stats.Estimate  # the tuned player's duplicate point difference per deal
    base: stats.Estimate  # the base player's, on the same packs


@dataclass(frozen=True)
class Result:
    settings: Settings
    spec: str  # the tuned player, as a spec
    weights: dict[str, float]
    generations: tuple[Generation, ...]
    validation: tuple[Validation, ...]
    against_base: stats.Estimate  # tuned minus base, duplicate, points per deal

    def to_json(self) -> dict:
        def estimate(e: stats.Estimate) -> dict:
            return {"value": e.value, "low": e.low, "high": e.high, "n": e.n}

        return {
            "spec": self.spec,
            "weights": self.weights,
            "settings": dataclasses.asdict(self.settings),
            "generations": [dataclasses.asdict(g) for g in self.generations],
            "validation": [
                {"opponent": v.opponent, "tuned": estimate(v.tuned), "base": estimate(v.base)}
                for v in self.validation
            ],
            "against_base": estimate(self.against_base),
        }


def weight_ranges(base: Player) -> dict[str, tuple[float, float]]:
    """The weights ``base``'s class declares, with their ranges; RulesError if it has none."""
    ranges = getattr(type(base), "WEIGHTS", None)
    if not ranges:
        raise RulesError(
            f"player {base.name!r} declares no weights to tune; tune a player whose class has "
            "WEIGHTS, e.g. --player memory"
        )
    return dict(ranges)


def with_weights(base_spec: str, weights: dict[str, float]) -> tuple[str, Player]:
    """The spec ``base_spec`` with ``weights`` set (4 decimals; a weight the base spec sets is
    replaced, its other parameters kept), and the player it names."""
    parts = [part.strip() for part in base_spec.split(":")]
    kept = [part for part in parts if part.partition("=")[0].strip() not in weights]
    spec = ":".join(kept + [f"{name}={value:.4f}" for name, value in weights.items()])
    return spec, player(spec)


def seed_of(seed: int, generation: int) -> int:
    """The packs' seed of one generation (or of the validation), derived from the run seed."""
    return int(np.random.SeedSequence([seed, generation]).generate_state(1, np.uint32)[0])


def duplicate(rules: Variant, a: Player | str, b: Player | str, deals: int, seed: int):
    """Per pack, ``a``'s points minus ``b``'s averaged over both seatings (``tournament.lineup``
    round the table, then swapped): the tournament's duplicate value of a deals pairing."""
    sides = rules.n_sides
    first = api.play_deals(rules, lineup(a, b, sides), deals=deals, seed=seed).totals
    second = api.play_deals(rules, lineup(b, a, sides), deals=deals, seed=seed).totals
    own = np.arange(sides) % 2 == 0  # the sides the first-named player holds

    def points(totals, mine):
        return totals[:, mine].sum(axis=1) / max(int(mine.sum()), 1)

    a_points = (points(first, own) + points(second, ~own)) / 2
    b_points = (points(first, ~own) + points(second, own)) / 2
    return a_points, b_points


def score(rules: Variant, candidate: Player, pool: Sequence[str], deals: int, seed: int) -> float:
    """The candidate's mean duplicate point difference per deal over the pool."""
    diffs = []
    for opponent in pool:
        a, b = duplicate(rules, candidate, opponent, deals, seed)
        diffs.append(float((a - b).mean()))
    return float(np.mean(diffs))


def check(settings: Settings) -> tuple[Variant, Player, dict[str, tuple[float, float]]]:
    """Everything a user can get wrong, before anything is played (RulesError)."""
    rules = parse_variant(settings.variant)
    if rules.n_sides < 2:
        raise RulesError(f"{rules.name} has one side: tuning plays a candidate against others")
    base = player(settings.base)
    ranges = weight_ranges(base)
    if not settings.pool:
        raise RulesError("the pool is empty; name the players to tune against, e.g. greedy,memory")
    for spec in settings.pool:
        opponent = player(spec)
        if getattr(opponent, "sees_hidden_cards", False):
            raise RulesError(f"{spec!r} sees the hidden cards: tune against fair players only")
    for name, low in (("deals", 2), ("generations", 1), ("population", 2), ("workers", 1)):
        if getattr(settings, name) < low:
            raise RulesError(
                f"tune needs --{name} of at least {low}, not {getattr(settings, name)}"
            )
    if not 0 < settings.sigma <= 1:
        raise RulesError(
            f"--sigma is a share of each weight's range, in (0, 1], not {settings.sigma}"
        )
    return rules, base, ranges


def tune(settings: Settings, progress: Callable[[Generation], None] | None = None) -> Result:
    """Search the base player's weights (see the module docstring)."""
    import cma

    rules, base, ranges = check(settings)
    names = list(ranges)
    low = np.array([ranges[n][0] for n in names])
    high = np.array([ranges[n][1] for n in names])
    start = np.array([float(getattr(base, n)) for n in names])
    z0 = np.clip((start - low) / (high - low), 0.0, 1.0)
    options = {
        "bounds": [0.0, 1.0], "popsize": settings.population, "seed": settings.seed + 1,
        "verbose": -9, "maxiter": settings.generations,
    }  # fmt: skip
    es = cma.CMAEvolutionStrategy(z0.tolist(), settings.sigma, options)

    def weights_of(z) -> dict[str, float]:
        x = low + np.clip(np.asarray(z), 0.0, 1.0) * (high - low)
        return {n: round(float(v), 4) for n, v in zip(names, x, strict=True)}

    generations = []
    for g in range(settings.generations):
        zs = es.ask()
        candidates = [with_weights(settings.base, weights_of(z)) for z in zs]
        seed = seed_of(settings.seed, g)
        values = _scores(rules, [p for _, p in candidates], settings, seed)
        es.tell(zs, [-v for v in values])
        best = int(np.argmax(values))
        done = Generation(g, values[best], float(np.mean(values)), candidates[best][0])
        generations.append(done)
        if progress is not None:
            progress(done)
    weights = weights_of(es.result.xfavorite)
    spec, tuned = with_weights(settings.base, weights)
    seed = seed_of(settings.seed, _VALIDATION)
    validation = []
    for opponent in settings.pool:
        t_a, t_b = duplicate(rules, tuned, opponent, settings.deals, seed)
        b_a, b_b = duplicate(rules, base, opponent, settings.deals, seed)
        validation.append(
            Validation(
                opponent, stats.paired_difference(t_b, t_a)[0], stats.paired_difference(b_b, b_a)[0]
            )
        )
    t_a, b_a = duplicate(rules, tuned, base, settings.deals, seed)
    against = stats.paired_difference(b_a, t_a)[0]
    return Result(settings, spec, weights, tuple(generations), tuple(validation), against)


def _scores(rules, candidates, settings: Settings, seed: int) -> list[float]:
    """Every candidate's score on the generation's packs, on ``settings.workers`` processes."""
    pool, deals = settings.pool, settings.deals
    if settings.workers == 1:
        return [score(rules, c, pool, deals, seed) for c in candidates]
    from joblib import Parallel, delayed

    from scopa_sim.runner import pools  # its workers exit when this process dies

    parent = os.getpid()
    jobs = (delayed(pools.guarded)(parent, score, rules, c, pool, deals, seed) for c in candidates)
    return list(Parallel(n_jobs=settings.workers)(jobs))
