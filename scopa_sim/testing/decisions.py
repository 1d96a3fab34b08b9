"""Checks 2 to 4 (and 7) at every decision point the player meets: a probe that the engine
calls instead of the player, and that calls the player three times on each batch (as given,
again with the same random numbers, and on a subset of its rows in reverse order with the
padding trimmed), checking each answer (``shape.check_indices``, ``explain.check_explain``).
The engine sees the player's first answer, so a run through the probe plays as the player.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from scopa_sim import seeding
from scopa_sim.contract import LegalActions, Observation, Player
from scopa_sim.testing.explain import check_explain, has_explain
from scopa_sim.testing.report import PlayerCheckError
from scopa_sim.testing.shape import check_indices


def _trimmed(legal: LegalActions, rows: np.ndarray) -> LegalActions:
    """The legal actions of ``rows`` as the engine would pad them for a batch of those rows
    alone: as wide as their largest count."""
    sub = legal.take(rows)
    width = max(1, int(sub.count.max(initial=0)))
    return dataclasses.replace(
        sub, card=sub.card[:, :width], capture=sub.capture[:, :width], group=sub.group[:, :width]
    )


class _Where:
    """Where a batch of decision points is, for a message: written only when one is raised."""

    __slots__ = ("obs", "suffix")

    def __init__(self, obs: Observation, suffix: str = ""):
        self.obs, self.suffix = obs, suffix

    def __add__(self, more: str) -> _Where:
        return _Where(self.obs, self.suffix + more)

    def __str__(self) -> str:
        o = self.obs
        return f"at play {o.play + 1} (seat {o.seat}) of {o.variant.describe()}{self.suffix}"


@dataclass(frozen=True, eq=False)
class Probe(Player):
    """Plays as ``inner`` and checks every call: the engine sees the inner player's choices.
    With ``checks`` False it only checks what act returns (legal indices), once per batch: the
    lockstep path of a player, for the checks that compare whole runs with it."""

    name = "probe"
    inner: Player
    label: str
    checks: bool = True
    _counts: dict = dataclasses.field(default_factory=lambda: {"decisions": 0, "explains": False})

    @property
    def decisions(self) -> int:
        return self._counts["decisions"]

    @property
    def explains(self) -> bool:
        return self._counts["explains"]

    def act(self, obs: Observation, legal: LegalActions, rng: seeding.DecisionRandom):
        if not self.checks:
            choice = self._call(obs, legal, rng, _Where(obs))
            check_indices(self.label, choice, legal, _Where(obs))
            return choice
        rows = len(legal.count)
        everyone = np.arange(rows)
        subset = everyone[::-1][::2]  # every other row, in reverse order
        rng_again, rng_subset = rng.subset(everyone), rng.subset(subset)
        explains = has_explain(self.inner)
        if explains:  # fresh generators for explain: the numbers act gets
            rng_explain = (rng.subset(everyone), rng.subset(subset))
        where = _Where(obs)

        choice = self._call(obs, legal, rng, where)
        check_indices(self.label, choice, legal, where)
        again = self._call(obs, legal, rng_again, where)
        if not np.array_equal(again, choice):
            b = int(np.flatnonzero(again != choice)[0]) if again.shape == choice.shape else 0
            raise PlayerCheckError(
                f"{self.label} is not deterministic: {where}, the same decision points with the "
                f"same random numbers gave different choices (row {b}: slot {choice[b]}, then "
                f"{again[b] if again.shape == choice.shape else again}). Draw every random "
                "number from the rng argument (rng.random(), rng.integers()), never from "
                "Python's random module, numpy's global generator or the clock"
            )
        legal_subset = _trimmed(legal, subset)
        part = self._call(obs.take(subset), legal_subset, rng_subset, where)
        check_indices(self.label, part, legal_subset, where + " (a subset of the batch's rows)")
        if not np.array_equal(part, choice[subset]):
            k = int(np.flatnonzero(part != choice[subset])[0])
            raise PlayerCheckError(
                f"{self.label} depends on the other rows of the batch: {where}, row "
                f"{subset[k]} chose slot {choice[subset][k]} among all {rows} rows but slot "
                f"{part[k]} when played with {len(subset)} of them in another order (and the "
                "padding trimmed). Each row is a different deal: compute each row from its own "
                "obs and legal row only (no row 0, no batch-wide max or sum, no padding width)"
            )
        if explains:
            self._counts["explains"] = True
            check_explain(
                self.label, self.inner, obs, legal, subset, legal_subset, rng_explain, where
            )
        self._counts["decisions"] += rows
        return choice

    def _call(self, obs, legal, rng, where) -> np.ndarray:
        try:
            return self.inner.act(obs, legal, rng)
        except PlayerCheckError:
            raise
        except Exception as err:
            raise PlayerCheckError(
                f"{self.label}: act raised {type(err).__name__}: {err} ({where}, "
                f"{len(legal.count)} rows)"
            ) from err


@dataclass(frozen=True, eq=False)
class SeeingProbe(Probe):
    """The probe of a player that declares ``sees_hidden_cards``: the engine hands it (and so
    the player) the hidden hands and pack."""

    sees_hidden_cards: ClassVar[bool] = True


def probe_of(p: Player, label: str, *, checks: bool = True) -> Probe:
    """The probe of ``p``: one that sees the hidden cards when ``p`` declares it does."""
    seeing = getattr(p, "sees_hidden_cards", False)
    return (SeeingProbe if seeing else Probe)(p, label, checks)
