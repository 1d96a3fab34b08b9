"""Checks 3 and 4 on whole runs: the lineups the checks play (the player on every side, and on
side 0 against random), the same deals played twice give the same outcomes, and runs give the
same outcomes in batches of any size, a sub-range of deals (the last batch, played alone) the
same as in the whole run, and whole games the same in a batch and, the later ones, alone."""

from __future__ import annotations

import dataclasses

import numpy as np

from scopa_sim import api
from scopa_sim.rules import Variant
from scopa_sim.testing.report import PlayerCheckError


def lineups(p, v: Variant) -> list[tuple[list, str]]:
    """The lineups every run check plays, with how a message names them."""
    others = ["random"] * (v.n_sides - 1)
    return [([p] * v.n_sides, "on every side"), ([p, *others], "on side 0 against random")]


def where(v: Variant, who: str) -> str:
    return f"{v.describe()} with the player {who}"


def first_difference(a, b) -> str | None:
    """Where two DealOutcomes differ first, or None when they are equal."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if not isinstance(x, np.ndarray):  # the names of the point columns
            if x != y:
                return f"{f.name} are {x} in one and {y} in the other"
            continue
        if x.shape != y.shape:
            return f"{f.name} has shape {x.shape} in one and {y.shape} in the other"
        if not np.array_equal(x, y):
            differ = (x != y).reshape(len(x), -1).any(axis=1)
            return f"{f.name} of deal {int(np.flatnonzero(differ)[0])}"
    return None


def play_whole(v: Variant, lineup, deals: int, seed: int):
    """``deals`` deals in one batch, on the engine's default path."""
    return api.play_deals(v, lineup, deals=range(deals), seed=seed, batch_size=deals)


def check_same_twice(lockstep, whole, where: str, deals: int, label: str) -> None:
    """The same deals played twice (through the probe, and as the lineup) are the same."""
    differ = first_difference(whole, lockstep)
    if differ:
        raise PlayerCheckError(
            f"{label} is not deterministic: {where}, the same {deals} deals played twice "
            f"with the same seed differ first in {differ}"
        )


def check_batch_sizes(v: Variant, lineup, whole, where: str, deals: int, seed: int, label: str):
    """The deals of ``whole`` played in two batches, of a size that does not divide the run:
    the second batch is also the sub-range check (deals split..deals-1 played alone)."""
    split = deals // 2 + 1
    parts = api.play_deals(v, lineup, deals=range(deals), seed=seed, batch_size=split)
    differ = first_difference(parts, whole)
    if differ:
        raise PlayerCheckError(
            f"{label} depends on the batch size or on the other deals of its batch: {where}, "
            f"{deals} deals played in one batch and in batches of {split} (deals "
            f"0..{split - 1}, then {split}..{deals - 1} alone) differ first in {differ}. A "
            "row's choice must depend on its own obs, legal and rng row only"
        )


def check_games(p, v: Variant, deals: int, seed: int, label: str) -> int:
    """Whole games (``deals // 16``, at least 2) in one batch, and the later half of them
    (from game ``games // 2``) played alone, a batch of another size starting at another game:
    the later games must be the same in both. Returns the deals they played."""
    games = max(2, deals // 16)
    start = games // 2
    lineup = [p] * v.n_sides
    one = api.play_games(v, lineup, games=games, seed=seed, batch_size=games)
    part = api.play_games(v, lineup, games=range(start, games), seed=seed, batch_size=games - start)
    differ = first_difference(part, one.take(np.flatnonzero(one.game >= start)))
    if differ:
        raise PlayerCheckError(
            f"{label} depends on the batch size or on the other games of its batch: "
            f"{v.describe()}, {games} whole games played in one batch, and games "
            f"{start}..{games - 1} alone, differ first in {differ}"
        )
    return len(one.game) + len(part.game)
