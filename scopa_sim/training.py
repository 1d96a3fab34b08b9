"""Training the expert (``scopa_sim.players.expert``): positions labelled by search, a fit.

1. **Positions.** Deals of each preset played by the labeller (``pimc:samples=256:rollout=mix``
   by default, the best fair player) on every seat, on the lockstep engine. At every decision
   the labeller's ``explain`` values each legal action (its mean point difference over its
   samples) and plays the best; the expert's features of every action are recorded beside the
   values. Deals are cut into chunks, each played by a joblib worker; a chunk's positions depend
   only on the seed and its deals, so the data do not depend on the number of workers.
2. **Fit.** Within a decision only the differences between actions matter, so each decision's
   values and features are centred (their mean over its actions subtracted). One linear model
   is fitted on every preset's positions pooled (ridge regression of the centred values on the
   centred features, the features scaled to unit spread; scikit-learn), then each preset's own
   correction to it (a ridge fit of what the pooled model leaves, with a stronger penalty,
   shrinking a preset with few positions towards the pooled weights).
3. **Weights.** ``scopa_sim/players/expert_weights.json``: the features, the pooled and per-preset
   weights, and how they were made (the command, the seed, the positions per preset, the
   labeller, the fit's penalties, how well each preset's fit picks search's best action).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from scopa_sim import api
from scopa_sim.contract import LegalActions, Observation, Player
from scopa_sim.players import player as player_of
from scopa_sim.players.expert import FEATURES, WEIGHTS_FILE, decision_state, features
from scopa_sim.rules import presets

#: The labeller the issue names: the best fair player of the search tournaments.
LABELLER = "pimc:samples=256:rollout=mix"
#: The ridge penalty of the least-squares start (per position, on features scaled to unit
#: spread).
POOLED_ALPHA = 1e-3
#: The choice objective's temperature (points): the fitted player picks an action with
#: probability softmax(score / TEMPERATURE) while fitting; a tenth of a point tells the best
#: actions apart without flattening on the few decisions search finds close.
TEMPERATURE = 0.1
#: How strongly a preset's own weights are drawn to the pooled ones (per decision, on scaled
#: features): a preset with few positions keeps near the pooled weights.
PRESET_PENALTY = 1e-4
MAX_ITERATIONS = 300
#: A slight pull of the pooled weights towards 0, so directions the data leave free stay put.
POOLED_PENALTY = 1e-7


@dataclass(frozen=True)
class Recorder(Player):
    """Plays as ``labeller`` and keeps, per decision, what the expert reads of the state, every
    legal action and search's value of it."""

    name = "recorder"
    summary = "search that records its action values (training data of the expert)"
    labeller: Player | None = None
    kept: list = field(default_factory=list, compare=False, repr=False)

    def act(self, obs: Observation, legal: LegalActions, rng) -> np.ndarray:
        values = self.labeller.explain(obs, legal, rng)
        valid = legal.valid
        self.kept.append(
            (decision_state(obs), legal.count.copy(), legal.card[valid], legal.capture[valid],
             values[valid])
        )  # fmt: skip
        return np.argmax(np.where(valid, values, -np.inf), axis=1).astype(np.int64)


#: The per-decision arrays of a position (``expert.decision_state``), by name.
STATE = ("hand", "table", "own", "captured_any", "played", "next_cards", "next_scopa",
         "scopa_counts")  # fmt: skip


@dataclass(frozen=True)
class Positions:
    """Labelled decisions of one variant: ``state`` (per decision, :data:`STATE`), and per
    action its ``decision``, ``card``, ``capture`` and search's value ``y``."""

    state: tuple[np.ndarray, ...]
    decision: np.ndarray  # int64[actions]
    card: np.ndarray  # int8[actions]
    capture: np.ndarray  # uint64[actions]
    y: np.ndarray  # float64[actions]
    seconds: float = 0.0  # the labelling's time (wall clock, summed over blocks)

    @property
    def decisions(self) -> int:
        return len(self.state[0])

    def x(self, variant) -> np.ndarray:
        """The expert's features of every action."""
        return features(variant, self.state, self.decision, self.card, self.capture)

    def take(self, first: int, stop: int) -> Positions:
        """Decisions ``first .. stop - 1`` (renumbered from 0)."""
        lo, hi = np.searchsorted(self.decision, [first, stop])
        return Positions(
            tuple(a[first:stop] for a in self.state), self.decision[lo:hi] - first,
            self.card[lo:hi], self.capture[lo:hi], self.y[lo:hi],
        )  # fmt: skip

    @staticmethod
    def of(kept: list) -> Positions:
        state = tuple(np.concatenate([k[0][i] for k in kept]) for i in range(len(STATE)))
        counts = np.concatenate([k[1] for k in kept])
        return Positions(
            state, np.repeat(np.arange(len(counts)), counts),
            np.concatenate([k[2] for k in kept]), np.concatenate([k[3] for k in kept]),
            np.concatenate([k[4] for k in kept]),
        )  # fmt: skip

    @staticmethod
    def join(parts: Sequence[Positions]) -> Positions:
        offsets = np.cumsum([0] + [p.decisions for p in parts[:-1]])
        return Positions(
            tuple(np.concatenate([p.state[i] for p in parts]) for i in range(len(STATE))),
            np.concatenate([p.decision + o for p, o in zip(parts, offsets, strict=True)]),
            np.concatenate([p.card for p in parts]),
            np.concatenate([p.capture for p in parts]),
            np.concatenate([p.y for p in parts]),
            sum(p.seconds for p in parts),
        )

    def save(self, path: Path) -> None:
        arrays = dict(zip(STATE, self.state, strict=True))
        np.savez_compressed(path, decision=self.decision, card=self.card, capture=self.capture,
                            y=self.y, seconds=self.seconds, **arrays)  # fmt: skip

    @staticmethod
    def load(path: Path) -> Positions:
        with np.load(path) as f:
            return Positions(tuple(f[k] for k in STATE), f["decision"], f["card"],
                             f["capture"], f["y"], float(f["seconds"]))  # fmt: skip


def label_chunk(variant: str, deals: range, seed: int, labeller: str) -> Positions:
    """The positions of ``deals`` (a range of deal indices) of ``variant``, played by the
    labeller on every side."""
    recorder = Recorder(player_of(labeller))
    n = presets.PRESETS[variant].n_sides
    api.play_deals(variant, [recorder] * n, deals=deals, seed=seed, path="lockstep")
    return Positions.of(recorder.kept)


def label(
    variant: str, deals: range, seed: int, labeller: str = LABELLER, workers: int = 2,
    chunk: int = 100, progress: Callable[[int], None] | None = None,
) -> Positions:  # fmt: skip
    """The positions of the ``deals`` (a range of deal indices) of ``variant``, in chunks of
    ``chunk`` deals on ``workers`` joblib workers; ``progress(deals)`` after each chunk."""
    from joblib import Parallel, delayed

    spans = [range(s, min(s + chunk, deals.stop)) for s in range(deals.start, deals.stop, chunk)]
    jobs = (delayed(label_chunk)(variant, span, seed, labeller) for span in spans)
    parts = []
    for span, part in zip(
        spans, Parallel(n_jobs=workers, return_as="generator")(jobs), strict=True
    ):
        parts.append(part)
        if progress:
            progress(len(span))
    return Positions.join(parts)


@dataclass(frozen=True)
class Labelled:
    """Features ``x``, search's values ``y`` and decision numbers of one variant's actions."""

    x: np.ndarray
    y: np.ndarray
    decision: np.ndarray

    @staticmethod
    def of(positions: Positions, variant) -> Labelled:
        return Labelled(positions.x(variant), positions.y, positions.decision)

    @staticmethod
    def join(parts: Sequence[Labelled]) -> Labelled:
        """Several variants' actions as one set (their decisions numbered on)."""
        offsets = np.cumsum([0] + [p.decision[-1] + 1 for p in parts[:-1]])
        return Labelled(
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.y for p in parts]),
            np.concatenate([p.decision + o for p, o in zip(parts, offsets, strict=True)]),
        )

    def centred(self) -> tuple[np.ndarray, np.ndarray]:
        """Features and values with each decision's mean over its actions subtracted."""
        counts = np.bincount(self.decision)
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        mean_x = np.add.reduceat(self.x, starts, axis=0) / counts[:, None]
        mean_y = np.bincount(self.decision, self.y) / counts
        return self.x - mean_x[self.decision], self.y - mean_y[self.decision]

    def picked(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per decision: search's value of the action the weights pick, search's best value,
        and the decision's number of actions."""
        score = self.x @ weights
        order = np.lexsort((-score, self.decision))  # per decision, the best score first
        first = np.r_[True, self.decision[order][1:] != self.decision[order][:-1]]
        best = np.full(self.decision[-1] + 1, -np.inf)
        np.maximum.at(best, self.decision, self.y)
        return self.y[order[first]], best, np.bincount(self.decision)

    def agreement(self, weights: np.ndarray) -> float:
        """Share of the decisions with two or more actions where the weights pick an action
        search values highest."""
        got, best, counts = self.picked(weights)
        many = counts > 1
        return float((got >= best - 1e-12)[many].mean())

    def regret(self, weights: np.ndarray) -> float:
        """Mean, over decisions, of search's best value minus its value of the weights' pick:
        points per decision lost in search's eyes."""
        got, best, _ = self.picked(weights)
        return float(np.mean(best - got))


def _ridge(x: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    """Ridge weights of ``y`` on ``x`` (no intercept: both are centred), fitted on columns scaled
    to unit spread and returned on the original scale; a column that never varies gets 0."""
    from sklearn.linear_model import Ridge

    scale = _spread(x)
    fitted = Ridge(alpha=alpha * len(y), fit_intercept=False).fit(x / scale, y)
    return fitted.coef_ / scale


def _spread(x: np.ndarray) -> np.ndarray:
    """Each column's standard deviation, 1 where it is 0 (a column that never varies)."""
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return scale


def _choice(
    data: Labelled, start: np.ndarray, anchor: np.ndarray, penalty: float, scale: np.ndarray,
    step: Callable[[], None] | None = None,
) -> np.ndarray:  # fmt: skip
    """Weights that lose least in search's eyes: they minimise, over the decisions, the mean
    regret (search's best value minus its value of the action) of a player that picks each
    action with probability softmax(score / :data:`TEMPERATURE`), plus ``penalty`` x the squared
    distance from ``anchor`` on columns scaled by ``scale``; from ``start`` (L-BFGS, scipy;
    ``step()`` after each of its iterations).

    Least squares (the start) weighs every difference of values alike, between two poor actions
    as much as between the two best; this objective weighs what a choice costs."""
    from scipy.optimize import minimize

    x = data.x / scale
    counts = np.bincount(data.decision)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    regret = (np.maximum.reduceat(data.y, starts)[data.decision] - data.y) / len(counts)
    origin = anchor * scale

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = x @ w / TEMPERATURE
        e = np.exp(s - np.maximum.reduceat(s, starts)[data.decision])
        p = e / np.add.reduceat(e, starts)[data.decision]
        expected = np.add.reduceat(p * regret, starts)
        grad = x.T @ (p * (regret - expected[data.decision])) / TEMPERATURE
        away = w - origin
        return float(expected.sum() + penalty * away @ away), grad + 2 * penalty * away

    found = minimize(loss, start * scale, jac=True, method="L-BFGS-B",
                     options={"maxiter": MAX_ITERATIONS},
                     callback=None if step is None else lambda *_: step())  # fmt: skip
    return found.x / scale


def fit(
    data: dict[str, Labelled], progress: Callable[[str, bool], None] | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:  # fmt: skip
    """The pooled weights, and each variant's: least squares on every variant's positions
    pooled, refined by the choice objective (:func:`_choice`); then per variant the choice
    objective again, from the pooled weights and drawn towards them by :data:`PRESET_PENALTY`.
    ``progress(fit, done)``: after each iteration of a fit (``fit`` is "pooled" or the
    variant's name), and with ``done`` when the fit ends."""
    report = progress or (lambda fit, done: None)
    parts = {name: d.centred() for name, d in data.items()}
    x = np.concatenate([cx for cx, _ in parts.values()])
    y = np.concatenate([cy for _, cy in parts.values()])
    scale = _spread(x)
    least_squares = _ridge(x, y, POOLED_ALPHA)
    pooled_data = Labelled.join(list(data.values()))
    pooled = _choice(pooled_data, least_squares, np.zeros_like(least_squares), POOLED_PENALTY,
                     scale, lambda: report("pooled", False))  # fmt: skip
    report("pooled", True)
    own = {}
    for name, d in data.items():
        own[name] = _choice(d, pooled, pooled, PRESET_PENALTY, scale,
                            lambda name=name: report(name, False))  # fmt: skip
        report(name, True)
    return pooled, own


def weights_path() -> Path:
    """Where the shipped weights live (``scopa_sim/players/expert_weights.json``)."""
    from scopa_sim import players

    return Path(players.__file__).resolve().parent / WEIGHTS_FILE


def train(
    positions: dict[str, tuple[Positions, Positions]], provenance: dict,
    progress: Callable[[str, bool], None] | None = None,
) -> dict:  # fmt: skip
    """The weights' file content: fitted on the first positions of each preset, measured on the
    second (held-out deals); ``provenance`` (the command, seed, labeller, deals, time) is kept
    under ``trained``; ``progress`` as :func:`fit`'s."""
    fitting = {n: Labelled.of(p, presets.PRESETS[n]) for n, (p, _) in positions.items()}
    held = {n: Labelled.of(h, presets.PRESETS[n]) for n, (_, h) in positions.items()}
    pooled, own = fit(fitting, progress)
    report = {
        name: {
            "decisions": p.decisions + h.decisions,
            "actions": len(p.y) + len(h.y),
            "held_out_decisions": h.decisions,
            "agreement_held_out": round(held[name].agreement(own[name]), 4),
            "regret_held_out": round(held[name].regret(own[name]), 4),
            "agreement_pooled_held_out": round(held[name].agreement(pooled), 4),
        }
        for name, (p, h) in positions.items()
    }
    return {
        "features": list(FEATURES),
        "pooled": [round(float(w), 6) for w in pooled],
        "variants": {n: [round(float(w), 6) for w in w_v] for n, w_v in own.items()},
        "trained": {
            **provenance,
            "model": (
                f"a linear score of the features; every preset pooled: ridge regression of each "
                f"decision's centred action values on the centred features (scikit-learn, alpha "
                f"{POOLED_ALPHA} x positions, features scaled to unit spread), then the mean "
                f"regret of a softmax(score / {TEMPERATURE}) choice minimised (scipy L-BFGS, "
                f"{MAX_ITERATIONS} iterations at most); per preset the same objective from the "
                f"pooled weights, penalty {PRESET_PENALTY} x squared distance from them"
            ),
            "presets": report,
        },
    }


#: Deals labelled per file of a positions folder: an interrupted labelling resumes from the
#: last whole block.
BLOCK = 500


def block_path(folder: Path, variant: str, seed: int, labeller: str, span: range) -> Path:
    """The file of one block of positions: its variant, seed, labeller and deals in its name."""
    tag = re.sub(r"[^A-Za-z0-9]+", "-", labeller).strip("-")
    return folder / f"{variant}_seed{seed}_{tag}_{span.start}-{span.stop}.npz"


def labelled_positions(
    folder: Path, variant: str, deals: range, seed: int, labeller: str = LABELLER,
    workers: int = 2, progress: Callable[[int], None] | None = None,
) -> Positions:  # fmt: skip
    """The positions of ``deals``, labelled block by block (:data:`BLOCK` deals) into ``folder``
    (a block already there is read, not played again)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for start in range(deals.start, deals.stop, BLOCK):
        span = range(start, min(start + BLOCK, deals.stop))
        path = block_path(folder, variant, seed, labeller, span)
        if path.exists():
            part = Positions.load(path)
            if progress:
                progress(len(span))
        else:
            start_time = time.perf_counter()
            part = label(variant, span, seed, labeller, workers, progress=progress)
            part = replace(part, seconds=time.perf_counter() - start_time)
            tmp = path.with_suffix(".partial.npz")
            part.save(tmp)
            tmp.replace(path)
        parts.append(part)
    return Positions.join(parts)
