"""Check 1 and 2 of the contract: the player is a frozen, hashable dataclass
:class:`~scopa_sim.contract.Player` with an ``act`` of its own (:func:`check_frozen`), and
``act`` returns one legal integer index per row (:func:`check_indices`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from scopa_sim.contract import LegalActions, Player, choice_problem
from scopa_sim.testing.report import PlayerCheckError


def label_of(p) -> str:
    """How the messages name a player given as an object."""
    name = getattr(p, "name", None)
    return f"player {name!r} ({type(p).__module__}.{type(p).__qualname__})"


def check_frozen(p, label: str) -> None:
    """A Player subclass, a frozen dataclass whose fields cannot be set, hashable, with act."""
    if not isinstance(p, Player):
        raise PlayerCheckError(
            f"{label} is not a scopa_sim player: subclass scopa_sim.players.Player (a frozen "
            "dataclass) and implement act(obs, legal, rng) (docs/players.md)"
        )
    if not (dataclasses.is_dataclass(p) and type(p).__dataclass_params__.frozen):
        raise PlayerCheckError(f"{label} is not a frozen dataclass: decorate it with "
                               "@dataclass(frozen=True) (docs/players.md)")  # fmt: skip
    try:
        p.name = p.name  # the same value: harmless if it were allowed
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise PlayerCheckError(
            f"{label} lets its attributes be set: a player is a frozen dataclass of parameters "
            "only (@dataclass(frozen=True), no __setattr__ of its own)"
        )
    try:
        hash(p)
    except TypeError as err:
        raise PlayerCheckError(
            f"{label} is not hashable ({err}): its parameters must be hashable values "
            "(numbers, strings, tuples), not lists or arrays"
        ) from None
    if not callable(getattr(p, "act", None)) or type(p).act is Player.act:
        raise PlayerCheckError(f"{label} does not implement act(obs, legal, rng)")


def check_indices(label: str, choice, legal: LegalActions, where) -> None:
    """What act returned: a numpy integer array of shape ``(B,)``, each index below its row's
    ``legal.count``. ``where`` says where, in a message. The faults are worded as the engine
    words them (``contract.choice_problem``): "returned None", "returned shape (88, 2),
    expected (88,)", "returned 7 for a position with 3 legal actions"."""
    rows = len(legal.count)
    problem = choice_problem(choice, legal.count)
    if choice is not None and not isinstance(choice, np.ndarray) and problem is None:
        raise PlayerCheckError(
            f"{label}: act must return a numpy integer array (int64 indices into legal), got "
            f"{type(choice).__name__} ({where})"
        )
    if problem is None:
        return
    text, b = problem
    if b < 0:
        fix = "one index per row" if "shape" in text else "a numpy integer array of indices"
        raise PlayerCheckError(f"{label}: act must return {fix}; it {text} ({where})")
    answer = np.asarray(choice)
    bad = np.flatnonzero((answer < 0) | (answer >= legal.count))
    raise PlayerCheckError(
        f"{label} chose an illegal action: act {text} ({where}, row {b}; its slots are "
        f"0..{int(legal.count[b]) - 1}, the slots after a row's count are padding). "
        f"{len(bad)} of {rows} rows were illegal"
    )
