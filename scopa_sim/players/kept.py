"""One-row searches kept for a second asking: a search player's numbers for one decision point.

A replay page plays each decision with ``act``, then shows its values with ``explain``: a
search player (``pimc``, ``ismcts``) would search the same decision point twice, which cost a
page of a search tournament most of its time. A search is a function of the player (a frozen
configuration), the decision point and the state of its random numbers, so a one-row search is
kept (:data:`KEPT` of them, the most recent), keyed by all three, and taken from memory leaves
the generator as running it would. A batch of rows (a run's search, never asked twice) is not.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from scopa_sim.contract import LegalActions, Observation
from scopa_sim.seeding import DecisionRandom

#: Searches kept: enough for every decision of a deal, each played, then explained.
KEPT = 64
_kept: OrderedDict = OrderedDict()


def _key(player, obs: Observation, legal: LegalActions, rng) -> tuple | None:
    """The player, the rules, the generator's calls so far, and a digest of every array of the
    decision point, of its legal actions and of the generator's keys; None for a batch of rows
    or numbers that are not a ``DecisionRandom``."""
    if len(legal.count) != 1 or not isinstance(rng, DecisionRandom):
        return None
    digest = hashlib.blake2b(digest_size=16)
    for part in (obs, legal):
        for field in dataclasses.fields(part):
            value = getattr(part, field.name)
            if isinstance(value, np.ndarray):
                digest.update(f"{field.name}{value.dtype}{value.shape}".encode())
                digest.update(np.ascontiguousarray(value).tobytes())
            elif field.name != "variant":
                digest.update(f"{field.name}={value!r}".encode())
    rows, calls = rng.state()
    digest.update(rows)
    return player, obs.variant, calls, digest.digest()


def kept_search(
    player, obs: Observation, legal: LegalActions, rng,
    search: Callable[[Observation, LegalActions, object], tuple[np.ndarray, ...]],
) -> tuple[np.ndarray, ...]:  # fmt: skip
    """``search(obs, legal, rng)`` (a tuple of arrays), taken from memory when ``player`` ran it
    on this one-row decision point with ``rng`` in this state (``rng`` is then moved on as the
    search moved it), else run, and kept when it is one row."""
    key = _key(player, obs, legal, rng)
    if key is not None and key in _kept:
        _kept.move_to_end(key)
        arrays, calls = _kept[key]
        rng.skip_to(calls)
        return tuple(a.copy() for a in arrays)
    arrays = search(obs, legal, rng)
    if key is not None:
        _kept[key] = (tuple(a.copy() for a in arrays), rng.state()[1])
        if len(_kept) > KEPT:
            _kept.popitem(last=False)
    return arrays


def forget() -> None:
    """Drop every kept search (a test that patches a search's parts starts afresh)."""
    _kept.clear()
