"""Round robins on duplicate deals: ``scopa-sim tournament --players random,greedy,memory ...``.

Design. For every unordered pair {A, B} of the players the tournament plays two runs of the
runner (:mod:`scopa_sim.runner`) with the same seed and configuration: lineup (A, B) into
``DIR/<a>-vs-<b>/`` and lineup (B, A) into ``DIR/<b>-vs-<a>/``. With more than two sides the
lineups alternate round the table (side s gets A when s is even: A,B,A,B; then B,A,B,A); an odd
number of sides (``classic-3p``) is refused. Packs and first dealers come from the seed alone
(common random numbers, ``scopa_sim.seeding``), so the second run plays every pack of the first
(every game's sequence of packs, in games mode) with the seats swapped: that is duplicate play.
Being runner runs, tournaments resume after a kill (a rerun plays only the missing chunks), run on
joblib or Dask workers, and give the same data for any number of workers.

Estimates, per pairing, A minus B from A's point of view ("A" is the player named first in
``--players``); the two runs are paired by (game, deal) in deals mode and by game in games mode.
With more than two sides, A's points are the mean over A's sides (and likewise for B).

- ``points_per_deal``: deals mode, the mean over deals of the duplicate difference
  ``((A - B in run 1) + (A - B in run 2)) / 2``; games mode, a ratio estimator, the sum over the
  games' deals in both runs of A - B divided by the number of those deals, linearised per game
  (:func:`scopa_sim.stats.linearised_ratio`).
- ``game_win`` (games mode): A's duplicate game-win rate, per game ``(A won run 1 + A won run 2)
  / 2``. The estimate and its CI are the rate itself; the p-value tests rate = 0.5.

Intervals are 95 % t intervals and p-values two-sided paired t-tests on the per-unit duplicate
values (:func:`scopa_sim.stats.paired_difference`), Holm-adjusted across the pairings of each
metric (one family per metric).

Variance reduction. Measured on the same data, per pairing and pooled over pairings::

    variance_reduction = 1 - Var(dup) / (Var(plain) / 2)

``dup`` is the per-unit duplicate value above (two deals, or two plays of a game's packs, with
the seats swapped); ``plain`` is A - B of one run alone, the value plain play gives per unit, its
variance estimated from both runs (the mean of the two runs' variances, so that the figure does
not depend on which player is named first). ``Var(plain) / 2`` is the variance of the mean of two
independent units, so the figure is the share of the variance that duplicate play removes against
playing as many units independently: 0 means no gain, 1 means no noise left. Pooled:
``1 - sum Var(dup) / sum (Var(plain) / 2)`` over pairings (every pairing has as many units).

Ratings. Bradley-Terry strengths fitted by the MM algorithm (Hunter 2004, "MM algorithms for
generalized Bradley-Terry models") to the pairwise outcomes: games mode, the duplicate game wins
(1, 1/2 or 0 per game); deals mode, per duplicate deal A "wins" when its duplicate point
difference is positive, loses when negative, and a tie counts half to each. Every pairing also
gets one virtual tied unit, which keeps the strengths finite when a player wins every unit and is
negligible otherwise. Strengths are anchored so that the mean log-strength is 0 and reported on an
Elo-like scale, ``400 * log10(strength)``. 95 % CIs: percentile bootstrap, 200 replicates, the
units resampled with replacement within each pairing, from a fixed seed derived from the
tournament seed and each pair's names (so the CIs do not depend on the order of ``--players``).

Players that see hidden cards (a ``sees_hidden_cards = True`` attribute on the player, such as a
``cheater``) are never rated with the fair players: the fair ratings come from the fair pairings
alone, and each such player is rated separately against the fair players' fitted strengths (held
fixed), reported apart and labelled an upper bound on what a fair player could reach.

Outputs: ``DIR/summary.parquet`` (the pairings table) and ``DIR/ratings.parquet``. With
``--html FILE``, the page and, in ``<FILE's stem>-swings/`` beside it, a replay page for each of
the packs with the largest duplicate swings of each pairing (:data:`SWING_TEXT`, 5 a pairing),
both seatings one after the other, replayed exactly (checked against the stored points) and
linked from the page by relative links.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from scopa_sim import runner, stats, storage
from scopa_sim.lineup import lineup_problem
from scopa_sim.players import player as player_from_spec
from scopa_sim.rules import variant

METRICS = {
    "points_per_deal": "A minus B, points per deal (duplicate: mean of the two seatings)",
    "game_win": "A's duplicate game-win rate (estimate and CI: the rate; p tests rate = 0.5)",
}
#: Chunk sizes of a tournament's runs: small enough for several workers to share a run.
CHUNK_SIZE = {"deals": 10_000, "games": 2_000}
BOOTSTRAP_REPLICATES = 200
#: Packs per pairing whose two seatings the HTML page links as replays (largest swings first).
SWINGS_PER_PAIRING = 5
SWING_TEXT = (
    "swing = A's margin (A minus B, points) in seating 1 plus A's margin in seating 2 of the "
    "same pack: 0 when both seatings end alike, large when the same cards went very differently "
    "with the seats swapped"
)
UPPER_BOUND_LABEL = "upper bound: sees hidden cards"
VARIANCE_REDUCTION_TEXT = (
    "variance reduction = 1 - Var(dup) / (Var(plain) / 2): dup is the per-unit duplicate value "
    "(the two seatings of the same packs), plain is A - B of one run alone (its variance the mean "
    "of the two runs'); Var(plain) / 2 is what two independent units would give, so this is the "
    "share of the variance duplicate play removes (pooled: summed variances over pairings)"
)
RATINGS_TEXT = (
    "Bradley-Terry strengths (MM algorithm, Hunter 2004) from the duplicate outcomes of each "
    "pairing, with one virtual tied unit per pairing; mean log-strength 0; rating = "
    "400*log10(strength); 95% CI: percentile bootstrap, {replicates} replicates, units resampled "
    "within each pairing"
)


class TournamentError(runner.RunError):
    """A tournament cannot start as asked; the message says why and how to fix it."""


# plan ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    spec: str  # as given on the command line
    folder: str  # the spec as a folder-name part
    sees_hidden_cards: bool


@dataclass(frozen=True)
class Pairing:
    a: Entrant  # named first in --players
    b: Entrant
    runs: tuple[runner.RunConfig, runner.RunConfig]  # lineup (A, B), lineup (B, A)


@dataclass(frozen=True)
class Tournament:
    variant: str
    options: dict
    entrants: tuple[Entrant, ...]
    mode: str
    count: int
    seed: int
    out: Path
    chunk_size: int
    pairings: tuple[Pairing, ...]
    n_sides: int
    plays: int  # plays (decisions) in one deal

    @property
    def unit(self) -> str:
        return "deal" if self.mode == "deals" else "game"

    def metrics(self) -> list[str]:
        return ["points_per_deal"] + (["game_win"] if self.mode == "games" else [])


def default_out(variant_name: str, seed: int, mode: str) -> Path:
    return Path("data") / "tournaments" / f"{variant_name}-{seed}-{mode}"


def folder_name(spec: str) -> str:
    """A player spec as part of a folder name: letters, digits and ``. = + _``, no leading dot."""
    text = re.sub(r"[^A-Za-z0-9.=+_]+", "_", spec.strip()).lstrip("._")
    return text or "player"


def lineup(first: str, second: str, sides: int) -> list[str]:
    """Side s gets ``first`` when s is even: A,B,A,B... round the table."""
    return [first if s % 2 == 0 else second for s in range(sides)]


def plan(
    *,
    variant_name: str,
    players: Sequence[str] | str,
    mode: str,
    count: int,
    seed: int,
    out=None,
    options: dict | None = None,
    chunk_size: int | None = None,
) -> Tournament:
    """Check everything a user can get wrong and lay out the runs; creates nothing on disk."""
    rules = variant(variant_name, dict(options or {}))  # unknown variant or option
    if isinstance(players, str):
        players = players.split(",")
    specs = [p.strip() for p in players]
    if problem := lineup_problem(rules, specs):
        raise TournamentError(problem)
    if mode not in runner.MODES:
        raise TournamentError(f"a tournament plays 'games' or 'deals', not {mode!r}")
    entrants = []
    for spec in specs:
        resolved = player_from_spec(spec)  # unknown player
        hidden = bool(getattr(resolved, "sees_hidden_cards", False))
        entrants.append(Entrant(spec, folder_name(spec), hidden))
    folders = {}
    for e in entrants:
        if e.folder in folders:
            raise TournamentError(
                f"players {folders[e.folder]!r} and {e.spec!r} give the same folder name "
                f"{e.folder!r}; name them otherwise"
            )
        folders[e.folder] = e.spec
    out = default_out(variant_name, seed, mode) if out is None else Path(out)
    out = Path(os.path.normpath(Path(out).absolute()))
    if not out.name or out == Path.cwd() or out in Path.cwd().parents:
        raise TournamentError(
            f"--out {out} would hold the tournament in the current folder or above it; name a "
            "new folder, e.g. --out data/tournaments/mine"
        )
    chunk_size = CHUNK_SIZE[mode] if chunk_size is None else chunk_size
    pairings = []
    for i, a in enumerate(entrants):
        for b in entrants[i + 1 :]:
            runs = tuple(
                runner.RunConfig.create(
                    variant=variant_name,
                    players=lineup(x.spec, y.spec, rules.n_sides),
                    mode=mode,
                    count=count,
                    seed=seed,
                    options=options,
                    out=out / f"{x.folder}-vs-{y.folder}",
                    chunk_size=chunk_size,
                )
                for x, y in ((a, b), (b, a))
            )
            pairings.append(Pairing(a, b, runs))
    tournament = Tournament(
        variant_name, dict(options or {}), tuple(entrants), mode, int(count), int(seed), out,
        int(chunk_size), tuple(pairings), rules.n_sides, rules.plays,
    )  # fmt: skip
    _check_folders(tournament)
    return tournament


def _check_folders(tournament: Tournament) -> None:
    """Refuse, before any run starts, run folders that the runner would refuse: another run (say
    another count or other options in the same --out), another data version, chunk files without
    a manifest. Reads only."""
    for pairing in tournament.pairings:
        for config in pairing.runs:
            manifest = storage.read_manifest(config.out)
            if manifest is None:
                if storage.done_chunks(config.out):
                    raise TournamentError(
                        f"{config.out} holds chunk files but no manifest; choose another --out"
                    )
                continue
            storage.check_versions(config.out, manifest)  # written by another data version
            if manifest.get("config") != config.describe():
                old = manifest.get("config", {})
                raise TournamentError(
                    f"{tournament.out} holds another tournament ({old.get('variant_label')}, "
                    f"{old.get('count')} {old.get('mode')}, seed {old.get('seed')}); choose "
                    "another --out or delete it"
                )


# play ------------------------------------------------------------------------------------------


def play(
    tournament: Tournament,
    *,
    workers: int = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    batch_size: int = 8192,
    progress: bool | None = None,
) -> list[runner.RunSummary]:
    """Play (or complete) every run of the tournament with the runner; returns its summaries."""
    if progress is None:
        progress = sys.stderr.isatty()
    configs = [config for pairing in tournament.pairings for config in pairing.runs]
    if backend == "dask" and not scheduler:
        # One local cluster for every run (the runner would start one per run).
        try:
            from dask.distributed import LocalCluster
        except ImportError:
            raise TournamentError(
                "the dask backend needs the dask extra: pip install 'scopa-sim[dask]'"
            ) from None
        with runner.local_cluster(LocalCluster, workers) as cluster:
            return _play_runs(
                tournament, configs, workers, backend, cluster.scheduler_address, batch_size,
                progress,
            )  # fmt: skip
    return _play_runs(tournament, configs, workers, backend, scheduler, batch_size, progress)


def _play_runs(tournament, configs, workers, backend, scheduler, batch_size, progress):
    summaries = []
    for k, config in enumerate(configs, 1):
        summary = runner.run(
            config, workers=workers, backend=backend, scheduler=scheduler,
            batch_size=batch_size, progress=progress,
        )  # fmt: skip
        summaries.append(summary)
        if progress:
            if summary.chunks_run:
                rate = summary.deals * tournament.plays / max(summary.seconds, 1e-9)
                done = (
                    f"{summary.deals:,} deals in {summary.seconds:.1f} s, {rate:,.0f} decisions/s"
                )
            else:
                done = "already complete"
            print(f"run {k}/{len(configs)} {config.name}: {done}", file=sys.stderr)
    return summaries


# analyse ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    a: str
    b: str
    metric: str
    estimate: stats.Estimate
    p_value: float
    p_holm: float | None = None
    variance_reduction: float | None = None  # points_per_deal only

    def to_json(self) -> dict:
        e = self.estimate
        return {
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "estimate": e.value,
            "ci_low": e.low,
            "ci_high": e.high,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "n": e.n,
        }


@dataclass(frozen=True)
class Rating:
    player: str
    rating: float
    ci_low: float
    ci_high: float
    upper_bound: bool = False

    def to_json(self) -> dict:
        out = {
            "player": self.player,
            "rating": self.rating,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }
        if self.upper_bound:
            out["label"] = UPPER_BOUND_LABEL
        return out


@dataclass(frozen=True)
class Result:
    tournament: Tournament
    rows: list[Row]
    ratings: list[Rating]  # fair players, best first
    upper_bounds: list[Rating]  # players that see hidden cards, best first
    variance_reduction: float | None  # pooled over pairings
    units: int
    outcomes: dict = field(default_factory=dict)  # (a, b) -> (losses, ties, wins) of A

    def row(self, a: str, b: str, metric: str) -> Row | None:
        for r in self.rows:
            if r.metric == metric and {r.a, r.b} == {a, b}:
                if r.a == a:
                    return r
                e = r.estimate
                flipped = (
                    stats.Estimate(1 - e.value, 1 - e.high, 1 - e.low, e.n)
                    if metric == "game_win"
                    else stats.Estimate(-e.value, -e.high, -e.low, e.n)
                )
                return replace(r, a=a, b=b, estimate=flipped)
        return None


def _per_unit(folder: Path, first_side_parity: int, n_sides: int, mode: str) -> pl.DataFrame:
    """One row per deal (deals mode) or per game (games mode) of one run, A's side being the
    sides of parity ``first_side_parity``: A's and B's points (mean over their sides), deals,
    and whether A won the game."""
    half = n_sides // 2
    is_a = (pl.col("side") % 2) == first_side_parity
    points = pl.col("points").cast(pl.Float64)
    per_deal = (
        pl.scan_parquet(folder)
        .select("game", "deal", "side", "points", "won")
        .group_by("game", "deal")
        .agg(
            (points.filter(is_a).sum() / half).alias("a"),
            (points.filter(~is_a).sum() / half).alias("b"),
            (pl.col("won") & is_a).any().alias("a_won"),
        )
    )
    if mode == "deals":
        return per_deal.sort("game", "deal").collect()
    return (
        per_deal.group_by("game")
        .agg(
            pl.col("a").sum(),
            pl.col("b").sum(),
            pl.len().cast(pl.Float64).alias("deals"),
            pl.col("a_won").any(),
        )
        .sort("game")
        .collect()
    )


def _load_pairing(tournament: Tournament, pairing: Pairing) -> dict:
    """The per-unit values of a pairing, the two runs aligned unit by unit."""
    keys = ["game", "deal"] if tournament.mode == "deals" else ["game"]
    first = _per_unit(pairing.runs[0].out, 0, tournament.n_sides, tournament.mode)
    second = _per_unit(pairing.runs[1].out, 1, tournament.n_sides, tournament.mode)
    joined = first.join(second, on=keys, how="full", suffix="_2", coalesce=True)
    if joined.height != tournament.count or joined.null_count().sum_horizontal().item():
        raise TournamentError(
            f"{pairing.runs[0].out} and {pairing.runs[1].out} do not hold the same "
            f"{tournament.count:,} {tournament.mode}; rerun the tournament to complete them"
        )
    return {name: joined[name].to_numpy() for name in joined.columns}


def _variance_reduction(v_dup: float, v_plain: float) -> float | None:
    if not v_plain > 0:
        return None
    return float(1 - v_dup / (v_plain / 2))


def pairing_values(tournament: Tournament, units: dict) -> dict:
    """Per-unit duplicate values of a pairing (A's point of view) and what they derive from:
    ``a``/``b`` (points of A and B per unit, both runs), ``plain1``/``plain2`` (A - B of each run
    alone), ``outcome`` (A's duplicate win: 1, 1/2 or 0) and, in games mode, ``win``."""
    if tournament.mode == "deals":
        a = (units["a"] + units["a_2"]) / 2
        b = (units["b"] + units["b_2"]) / 2
        plain1 = units["a"] - units["b"]
        plain2 = units["a_2"] - units["b_2"]
        dup = a - b
        outcome = np.where(dup > 0, 1.0, np.where(dup < 0, 0.0, 0.5))
        return {"a": a, "b": b, "plain1": plain1, "plain2": plain2, "outcome": outcome}
    deals = units["deals"] + units["deals_2"]
    a = stats.linearised_ratio(units["a"] + units["a_2"], deals)
    b = stats.linearised_ratio(units["b"] + units["b_2"], deals)
    plain1 = stats.linearised_ratio(units["a"] - units["b"], units["deals"])
    plain2 = stats.linearised_ratio(units["a_2"] - units["b_2"], units["deals_2"])
    win = (units["a_won"].astype(np.float64) + units["a_won_2"].astype(np.float64)) / 2
    return {"a": a, "b": b, "plain1": plain1, "plain2": plain2, "outcome": win, "win": win}


def analyse(tournament: Tournament) -> Result:
    """Estimates per pairing, Holm per metric, variance reduction and ratings, from the Parquet
    files of the runs (see the module docstring)."""
    rows: list[Row] = []
    outcomes: dict[tuple[str, str], tuple[int, int, int]] = {}
    v_dup_total = v_plain_total = 0.0
    units = 0
    for pairing in tournament.pairings:
        values = pairing_values(tournament, _load_pairing(tournament, pairing))
        a, b = pairing.a.spec, pairing.b.spec
        diff, p = stats.paired_difference(values["b"], values["a"])
        dup = values["a"] - values["b"]
        v_dup = float(np.var(dup, ddof=1)) if len(dup) > 1 else 0.0
        v_plain = (
            float(np.var(values["plain1"], ddof=1) + np.var(values["plain2"], ddof=1)) / 2
            if len(dup) > 1
            else 0.0
        )
        v_dup_total += v_dup
        v_plain_total += v_plain
        rows.append(
            Row(a, b, "points_per_deal", diff, p, None, _variance_reduction(v_dup, v_plain))
        )
        if tournament.mode == "games":
            win = values["win"]
            edge, p = stats.paired_difference(np.full(len(win), 0.5), win)
            share = stats.Estimate(edge.value + 0.5, edge.low + 0.5, edge.high + 0.5, edge.n)
            rows.append(Row(a, b, "game_win", share, p))
        o = values["outcome"]
        outcomes[(a, b)] = (int((o == 0).sum()), int((o == 0.5).sum()), int((o == 1).sum()))
        units = len(dup)
    for metric in tournament.metrics():
        index = [i for i, r in enumerate(rows) if r.metric == metric]
        adjusted = stats.holm([rows[i].p_value for i in index])
        for i, p in zip(index, adjusted, strict=True):
            rows[i] = replace(rows[i], p_holm=float(p))
    ratings, upper = fit_ratings(tournament, outcomes)
    return Result(
        tournament, rows, ratings, upper, _variance_reduction(v_dup_total, v_plain_total),
        units, outcomes,
    )  # fmt: skip


# ratings ---------------------------------------------------------------------------------------


def bradley_terry(
    n_players: int, pairs: Sequence[tuple[int, int, float, float]], tol: float = 1e-10
) -> np.ndarray:
    """Log-strengths (natural log, mean 0) fitted by Hunter's MM algorithm to ``pairs`` of
    ``(i, j, wins of i, units)``; each pair gets one virtual tied unit (see the module doc)."""
    wins = np.zeros((n_players, n_players))
    games = np.zeros((n_players, n_players))
    for i, j, w, n in pairs:
        wins[i, j] += w + 0.5
        wins[j, i] += n - w + 0.5
        games[i, j] += n + 1
        games[j, i] += n + 1
    total = wins.sum(axis=1)
    strength = np.ones(n_players)
    for _ in range(100_000):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), 1.0)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(strength))) < tol:
            strength = new
            break
        strength = new
    return np.log(strength)


def strength_against(fixed: np.ndarray, pairs: Sequence[tuple[int, float, float]]) -> float:
    """Log-strength of one player against opponents of fixed log-strengths ``fixed``: ``pairs``
    of ``(opponent, wins, units)``, one virtual tied unit each, MM iterations."""
    wins = sum(w + 0.5 for _, w, _ in pairs)
    s = 1.0
    for _ in range(100_000):
        denom = sum((n + 1) / (s + np.exp(fixed[j])) for j, _, n in pairs)
        new = wins / denom
        if abs(np.log(new) - np.log(s)) < 1e-10:
            return float(np.log(new))
        s = new
    return float(np.log(s))


def _pair_rng(seed: int, a: str, b: str) -> tuple[np.random.Generator, bool]:
    """A generator for the bootstrap of pair {a, b}, keyed by the seed and the sorted names;
    and whether ``a`` comes first in that order (the orientation the draws are made in)."""
    first, second = sorted((a, b))
    digest = hashlib.sha256(f"scopa-sim tournament/{seed}/{first}/{second}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big")), a == first


def _elo(log_strength) -> np.ndarray:
    return 400 * np.asarray(log_strength) / np.log(10)


def fit_ratings(
    tournament: Tournament, outcomes: dict, replicates: int = BOOTSTRAP_REPLICATES
) -> tuple[list[Rating], list[Rating]]:
    """Fair ratings and, apart, upper-bound ratings of the players that see hidden cards."""
    names = [e.spec for e in tournament.entrants]
    hidden = {e.spec for e in tournament.entrants if e.sees_hidden_cards}
    fair = [n for n in names if n not in hidden]
    cheaters = [n for n in names if n in hidden]
    if not fair:  # nobody to anchor on: the cheaters among themselves, still labelled
        fair, cheaters, all_upper = cheaters, [], True
    else:
        all_upper = False

    # Bootstrap wins per pairing: the sum of resampled units, drawn as a multinomial of the
    # pairing's (loss, tie, win) counts, in the orientation of the sorted names.
    def draws(a: str, b: str) -> np.ndarray:
        counts = np.array(outcomes[(a, b)], np.float64)
        rng, forward = _pair_rng(tournament.seed, a, b)
        if not forward:
            counts = counts[::-1]
        n = int(counts.sum())
        sample = rng.multinomial(n, counts / n, size=replicates)
        wins = sample[:, 2] + 0.5 * sample[:, 1]
        return wins if forward else n - wins

    point = {}
    boot = {}
    for (a, b), (loss, tie, win) in outcomes.items():
        point[(a, b)] = (win + 0.5 * tie, loss + tie + win)
        boot[(a, b)] = draws(a, b)

    def fit(wins_of) -> tuple[np.ndarray, dict[str, float]]:
        index = {n: k for k, n in enumerate(fair)}
        pairs = [
            (index[a], index[b], wins_of(a, b), point[(a, b)][1])
            for (a, b) in outcomes
            if a in index and b in index
        ]
        logs = bradley_terry(len(fair), pairs)
        upper = {}
        for c in cheaters:
            against = []
            for (a, b), (_, n) in point.items():
                if a == c and b in index:
                    against.append((index[b], wins_of(a, b), n))
                elif b == c and a in index:
                    against.append((index[a], n - wins_of(a, b), n))
            upper[c] = strength_against(logs, against) if against else float("nan")
        return logs, upper

    logs, upper = fit(lambda a, b: point[(a, b)][0])
    boot_fair = np.empty((replicates, len(fair)))
    boot_upper = np.empty((replicates, len(cheaters)))
    for r in range(replicates):
        logs_r, upper_r = fit(lambda a, b, r=r: boot[(a, b)][r])
        boot_fair[r] = logs_r
        boot_upper[r] = [upper_r[c] for c in cheaters]

    def ratings(names_, values, samples, is_upper) -> list[Rating]:
        out = []
        for k, name in enumerate(names_):
            low, high = np.percentile(_elo(samples[:, k]), [2.5, 97.5])
            out.append(Rating(name, float(_elo(values[k])), float(low), float(high), is_upper))
        return sorted(out, key=lambda r: -r.rating)

    fair_ratings = ratings(fair, logs, boot_fair, all_upper)
    upper_ratings = ratings(cheaters, [upper[c] for c in cheaters], boot_upper, True)
    if all_upper:
        return [], fair_ratings
    return fair_ratings, upper_ratings


# largest duplicate swings ----------------------------------------------------------------------


@dataclass(frozen=True)
class Swing:
    """One pack of a pairing with a large duplicate swing (see :data:`SWING_TEXT`)."""

    pairing: Pairing
    game: int
    deal: int
    margins: tuple[float, float]  # A minus B in run 1 (lineup A, B) and in run 2 (lineup B, A)

    @property
    def swing(self) -> float:
        return self.margins[0] + self.margins[1]

    @property
    def file_name(self) -> str:
        p = self.pairing
        return f"{p.a.folder}-vs-{p.b.folder}-game{self.game}-deal{self.deal}.html"


def largest_swings(tournament: Tournament, k: int = SWINGS_PER_PAIRING) -> list[Swing]:
    """The ``k`` packs of each pairing with the largest absolute swing, largest first (ties by
    game, then deal). Packs are (game, deal): in games mode a deal that one seating played and
    the other did not (the game ended sooner) has no swing."""
    swings = []
    for pairing in tournament.pairings:
        first = _per_unit(pairing.runs[0].out, 0, tournament.n_sides, "deals")
        second = _per_unit(pairing.runs[1].out, 1, tournament.n_sides, "deals")
        top = (
            first.join(second, on=["game", "deal"], how="inner", suffix="_2")
            .with_columns(
                (pl.col("a") - pl.col("b")).alias("m1"), (pl.col("a_2") - pl.col("b_2")).alias("m2")
            )
            .with_columns((pl.col("m1") + pl.col("m2")).abs().alias("size"))
            .sort(["size", "game", "deal"], descending=[True, False, False])
            .head(k)
        )
        swings += [
            Swing(pairing, int(g), int(d), (float(m1), float(m2)))
            for g, d, m1, m2 in top.select("game", "deal", "m1", "m2").iter_rows()
        ]
    return swings


def _stored_points(folder: Path, game: int, deal: int) -> list[int]:
    rows = (
        pl.scan_parquet(folder)
        .filter((pl.col("game") == game) & (pl.col("deal") == deal))
        .sort("side")
        .select("points")
        .collect()
    )
    return [int(x) for x in rows["points"]]


def replay_swing(swing: Swing) -> list:
    """The two seatings of the swing's pack as ``api.DealRecord`` records (run 1, then run 2),
    replayed with :func:`scopa_sim.api.replay_run_deal` and checked against the stored points:
    a player whose code changed since the tournament was played would replay another deal."""
    from scopa_sim import api

    records = []
    for config in swing.pairing.runs:
        record = api.replay_run_deal(config.out, swing.game, swing.deal)
        replayed = [s.total for s in record.sides]
        stored = _stored_points(config.out, swing.game, swing.deal)
        if replayed != stored:
            raise TournamentError(
                f"replaying game {swing.game}, deal {swing.deal} of {config.out} gives points "
                f"{replayed}, but the run stored {stored}: a player changed since the "
                "tournament was played; delete the tournament folder and play it again"
            )
        records.append(record)
    return records


def swing_page(swing: Swing) -> str:
    """The self-contained replay page of a swing: both seatings of its pack, one after the
    other, titled with the pairing, the pack and the two margins."""
    from scopa_sim import reporting

    p = swing.pairing
    title = (
        f"{p.a.spec} vs {p.b.spec}, game {swing.game}, deal {swing.deal}: swing "
        f"{swing.swing:+g} points (seating 1: {','.join(p.runs[0].players)}, "
        f"{swing.margins[0]:+g}; seating 2: {','.join(p.runs[1].players)}, "
        f"{swing.margins[1]:+g}, A minus B)"
    )
    return reporting.render_replay(replay_swing(swing), title=title)


def write_swings(result: Result, folder: Path, k: int = SWINGS_PER_PAIRING) -> list[Swing]:
    """Write one self-contained replay page per swing into ``folder`` (both seatings, one after
    the other); returns the swings, in the order of :func:`largest_swings`."""
    swings = largest_swings(result.tournament, k)
    folder.mkdir(parents=True, exist_ok=True)
    for swing in swings:
        (folder / swing.file_name).write_text(swing_page(swing), encoding="utf-8")
    return swings


def swing_rows(swings: Sequence[Swing], href_prefix: str) -> list[dict]:
    """Rows of the "Largest duplicate swings" table, each with its relative link."""
    from urllib.parse import quote

    return [
        {
            "pairing": f"{s.pairing.a.spec} vs {s.pairing.b.spec}",
            "pack": f"game {s.game}, deal {s.deal}",
            "swing": f"{s.swing:+g}",
            "margins": f"{s.margins[0]:+g} / {s.margins[1]:+g}",
            "href": f"{quote(href_prefix)}/{quote(s.file_name)}",
        }
        for s in swings
    ]


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


# outputs ---------------------------------------------------------------------------------------


def design_text(result: Result) -> str:
    t = result.tournament
    unit = "deals" if t.mode == "deals" else "games"
    return (
        f"Round robin on duplicate {unit}: {t.variant}"
        + (f" ({', '.join(f'{k}={v}' for k, v in sorted(t.options.items()))})" if t.options else "")
        + f", seed {t.seed}, {len(t.pairings)} pairings. Each pairing plays two runs of "
        f"{t.count:,} {unit} with the same seed, lineup (A, B) and lineup (B, A): the same packs "
        f"and first dealers with the seats swapped. Estimates are A minus B from A's point of "
        f"view, paired by {'deal' if t.mode == 'deals' else 'game'}; 95% t intervals and paired "
        "t-tests on the per-unit duplicate values; Holm family: the pairings of each metric."
    )


def to_json(result: Result) -> dict:
    def clean(x):
        return None if x is None or (isinstance(x, float) and not np.isfinite(x)) else x

    t = result.tournament
    return {
        "pairings": [r.to_json() for r in result.rows],
        "ratings": [r.to_json() for r in result.ratings],
        "variance_reduction": clean(result.variance_reduction),
        "upper_bound_ratings": [r.to_json() for r in result.upper_bounds],
        "variance_reduction_by_pairing": [
            {"a": r.a, "b": r.b, "variance_reduction": clean(r.variance_reduction)}
            for r in result.rows
            if r.metric == "points_per_deal"
        ],
        "design": design_text(result),
        "family": "Holm adjustment across the pairings of each metric (one family per metric)",
        "metrics": {m: METRICS[m] for m in t.metrics()},
        "variance_reduction_definition": VARIANCE_REDUCTION_TEXT,
        "ratings_method": RATINGS_TEXT.format(replicates=BOOTSTRAP_REPLICATES),
        "units_per_pairing": result.units,
        "mode": t.mode,
        "seed": t.seed,
        "variant": t.variant,
        "options": {
            k: v if isinstance(v, str | int | float | bool) else str(v)
            for k, v in sorted(t.options.items())
        },
        "players": [e.spec for e in t.entrants],
        "out": str(t.out),
    }


def _signed(x: float, digits: int = 3) -> str:
    return f"{x:+.{digits}f}"


def estimate_text(row: Row) -> str:
    e = row.estimate
    if row.metric == "game_win":
        return f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}]"
    return f"{_signed(e.value)} [{_signed(e.low)}, {_signed(e.high)}]"


def _vr_text(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _table(header, lines) -> list[str]:
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in [header, *lines]
    ]
    text.insert(1, "  ".join("-" * w for w in widths))
    return text


def pairing_table(result: Result) -> tuple[list[str], list[list[str]]]:
    header = ["metric", "A", "B", "estimate [95% CI]", "p", "p (Holm)", "var. reduction", "n"]
    rows = [
        [
            r.metric,
            r.a,
            r.b,
            estimate_text(r),
            stats.format_p(r.p_value),
            stats.format_p(r.p_holm),
            _vr_text(r.variance_reduction),
            f"{r.estimate.n:,}",
        ]
        for r in result.rows
    ]
    return header, rows


def rating_rows(ratings: list[Rating]) -> list[list[str]]:
    return [
        [str(k), r.player, f"{r.rating:+.0f}", f"[{r.ci_low:+.0f}, {r.ci_high:+.0f}]"]
        for k, r in enumerate(ratings, 1)
    ]


def format_table(result: Result) -> str:
    t = result.tournament
    lines = [design_text(result), ""]
    for metric in t.metrics():
        lines.append(f"{metric}: {METRICS[metric]}")
    header, rows = pairing_table(result)
    lines += _table(header, rows)
    lines.append(
        f"variance reduction, pooled over pairings: {_vr_text(result.variance_reduction)}; "
        + VARIANCE_REDUCTION_TEXT.replace("variance reduction = ", "defined as ")
    )
    lines.append("")
    lines.append("ratings: " + RATINGS_TEXT.format(replicates=BOOTSTRAP_REPLICATES))
    if result.ratings:
        lines += _table(["rank", "player", "rating", "95% CI"], rating_rows(result.ratings))
    if result.upper_bounds:
        lines.append("")
        lines.append(
            f"{UPPER_BOUND_LABEL}: rated apart, against the fair players' fitted strengths "
            "held fixed; never ranked with them"
        )
        lines += _table(["rank", "player", "rating", "95% CI"], rating_rows(result.upper_bounds))
    lines.append("")
    lines.append(f"data: {t.out} (summary.parquet: the pairings; ratings.parquet)")
    return "\n".join(lines)


def write_summary(result: Result) -> list[Path]:
    """``summary.parquet`` (the pairings table) and ``ratings.parquet`` in the tournament folder,
    each written under a temporary name and renamed into place."""
    t = result.tournament
    pairings = pl.DataFrame(
        [
            {**r.to_json(), "variance_reduction": r.variance_reduction}
            for r in result.rows
        ],
        schema={
            "a": pl.String, "b": pl.String, "metric": pl.String, "estimate": pl.Float64,
            "ci_low": pl.Float64, "ci_high": pl.Float64, "p_value": pl.Float64,
            "p_holm": pl.Float64, "n": pl.Int64, "variance_reduction": pl.Float64,
        },
    )  # fmt: skip
    ratings = pl.DataFrame(
        [{**asdict_rating(r)} for r in [*result.ratings, *result.upper_bounds]],
        schema={
            "player": pl.String, "rating": pl.Float64, "ci_low": pl.Float64,
            "ci_high": pl.Float64, "upper_bound": pl.Boolean,
        },
    )  # fmt: skip
    t.out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in (("summary.parquet", pairings), ("ratings.parquet", ratings)):
        path = t.out / name
        tmp = t.out / f".{name}.{os.getpid()}.tmp"
        frame.write_parquet(tmp)
        os.replace(tmp, path)
        written.append(path)
    return written


def asdict_rating(r: Rating) -> dict:
    return {
        "player": r.player,
        "rating": r.rating,
        "ci_low": r.ci_low,
        "ci_high": r.ci_high,
        "upper_bound": r.upper_bound,
    }


def command_line(tournament: Tournament, out_given: Path | None = None) -> str:
    """The command that reproduces the tournament (workers and backend change nothing)."""
    t = tournament
    args = ["scopa-sim", "tournament", "--variant", t.variant]
    for key, value in sorted(t.options.items()):
        value = str(value).lower() if isinstance(value, bool) else value
        args += ["--option", f"{key}={value}"]
    args += ["--players", ",".join(e.spec for e in t.entrants)]
    args += [f"--{t.mode}", str(t.count), "--seed", str(t.seed)]
    if t.chunk_size != CHUNK_SIZE[t.mode]:
        args += ["--chunk-size", str(t.chunk_size)]
    if out_given is not None:
        args += ["--out", str(out_given)]
    return shlex.join(args)


# report page -----------------------------------------------------------------------------------


def _heat_map(result: Result, metric: str):
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
            texts[i][j] = f"{fmt.format(e.value)}\n[{fmt.format(e.low)}, {fmt.format(e.high)}]"
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


def _forest(result: Result):
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
    ax.set_xlabel("rating, 400·log10(Bradley-Terry strength), mean 0 (95% bootstrap CI)")
    fig.tight_layout()
    return fig


def page(result: Result, command: str, swings: Sequence[dict] = ()) -> str:
    """A self-contained HTML page: the pairing matrix as heat maps, the ratings as a forest plot,
    the tables, the method and the command that reproduces it; with ``swings`` (rows of
    :func:`swing_rows`), the table of the largest duplicate swings linked to their replays."""
    from scopa_sim import reporting

    t = result.tournament
    heat_maps = [
        reporting.Figure(
            f"{metric}: {METRICS[metric]}; row player A against column player B, estimate and "
            "95% CI in each cell",
            reporting.svg(_heat_map(result, metric)),
        )
        for metric in t.metrics()
    ]
    forest = reporting.Figure(
        "Ratings (Bradley-Terry, Elo-like scale) with 95% bootstrap CIs"
        + ("; squares: upper bounds of players that see hidden cards" if result.upper_bounds
           else ""),
        reporting.svg(_forest(result)),
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
        variance_reduction=_vr_text(result.variance_reduction),
        variance_reduction_text=VARIANCE_REDUCTION_TEXT,
        ratings_text=RATINGS_TEXT.format(replicates=BOOTSTRAP_REPLICATES),
        forest=forest,
        rating_columns=["rank", "player", "rating", "95% CI"],
        ratings=rating_rows(result.ratings),
        upper_bounds=rating_rows(result.upper_bounds),
        upper_bound_label=UPPER_BOUND_LABEL,
        command=command,
        runs=runs,
        swings=list(swings),
        swing_text=SWING_TEXT,
    )


def run_tournament(
    *,
    variant_name: str,
    players,
    mode: str,
    count: int,
    seed: int,
    out=None,
    options: dict | None = None,
    chunk_size: int | None = None,
    workers: int = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    batch_size: int = 8192,
    progress: bool | None = False,
) -> Result:
    """Plan, play (or complete), analyse and write the summary: the whole tournament."""
    started = time.perf_counter()
    tournament = plan(
        variant_name=variant_name, players=players, mode=mode, count=count, seed=seed, out=out,
        options=options, chunk_size=chunk_size,
    )  # fmt: skip
    play(
        tournament, workers=workers, backend=backend, scheduler=scheduler,
        batch_size=batch_size, progress=progress,
    )  # fmt: skip
    result = analyse(tournament)
    write_summary(result)
    if progress:
        print(f"tournament done in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return result


__all__ = [
    "Result",
    "Swing",
    "Tournament",
    "TournamentError",
    "analyse",
    "bradley_terry",
    "format_table",
    "largest_swings",
    "page",
    "plan",
    "play",
    "run_tournament",
    "to_json",
    "write_html",
    "write_summary",
    "write_swings",
]
