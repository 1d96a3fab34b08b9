"""Behaviour pinned: every preset with every built-in player gives the same data rows as when
``tests/golden/row_hashes.json`` was written.

Why: moving the rules of a deal into one home (or any refactor of the engines and the search
players) must change nothing a run writes. The golden deals (``test_golden.py``) keep a few
playthroughs move by move; this keeps, for every preset and every built-in player, a digest of
the rows a seeded run writes (``storage.outcomes_frame``: every column of the Parquet schema),
games played to the target for the compiled players (the game-level rules too) and independent
deals for the search players (a few, as they are slow). A change that alters a row fails here and
must be deliberate: regenerate with ``SCOPA_SIM_REGEN_GOLDEN=1 pytest tests/test_row_hashes.py``
and say why in the commit.

The digest is of each column's values in the schema's order and types (numpy bytes, strings as
UTF-8), not of the Parquet file, so it does not depend on the Parquet writer's version.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from scopa_sim import api, storage
from scopa_sim.players import spec_of
from scopa_sim.rules import PRESETS, variant

HASHES = Path(__file__).parent / "golden" / "row_hashes.json"

#: Compiled players play whole games against random (kernels the suite compiles anyway).
COMPILED = ("random", "greedy", "defensive", "memory", "chitarrella", "expert")
#: Search players play a few independent deals against greedy, at small sizes.
SEARCH = (
    "pimc:samples=2",
    "pimc:samples=2:endgame=3",
    "pimc:samples=2:rollout=mix",
    "ismcts:iterations=6",
    "cheater",
)
GAMES, DEALS, SEED = 3, 2, 5


def lineup(game: str, player: str, other: str) -> list[str]:
    """``player`` on the even sides, ``other`` on the odd ones."""
    return [player if s % 2 == 0 else other for s in range(variant(game).n_sides)]


def rows_digest(game: str, players: list[str], outcomes) -> str:
    """sha256 of the rows ``storage.outcomes_frame`` makes of ``outcomes``, column by column."""
    frame = storage.outcomes_frame(
        outcomes, run="pinned", variant=game, strategies=[spec_of(p) for p in players]
    )
    digest = hashlib.sha256()
    for name in frame.columns:
        column = frame[name]
        digest.update(name.encode())
        if column.dtype.is_numeric() or column.dtype.to_python() is bool:
            digest.update(np.ascontiguousarray(column.to_numpy()).tobytes())
        else:
            digest.update("\0".join(map(str, column.to_list())).encode())
    return digest.hexdigest()


def play(game: str, player: str) -> str:
    if player in COMPILED:
        players = lineup(game, player, "random")
        outcomes = api.play_games(game, players, games=GAMES, seed=SEED)
    else:
        players = lineup(game, player, "greedy")
        outcomes = api.play_deals(game, players, deals=DEALS, seed=SEED)
    resolved = api.resolve(game, players)[1]
    return rows_digest(game, resolved, outcomes)


CASES = [(game, player) for game in sorted(PRESETS) for player in COMPILED + SEARCH]


@pytest.fixture(scope="module")
def pinned() -> dict:
    return json.loads(HASHES.read_text()) if HASHES.exists() else {}


@pytest.mark.parametrize(("game", "player"), CASES)
def test_rows_are_pinned(game, player, pinned):
    """The rows of ``player`` in ``game`` are those recorded."""
    key = f"{game} {player}"
    got = play(game, player)
    if os.environ.get("SCOPA_SIM_REGEN_GOLDEN"):
        pinned[key] = got
        HASHES.write_text(json.dumps(dict(sorted(pinned.items())), indent=1) + "\n")
    assert key in pinned, f"no pinned digest for {key}: regenerate (see the module docstring)"
    assert got == pinned[key], f"the rows of {key} changed"


def test_every_case_is_pinned_and_nothing_else(pinned):
    """The file holds exactly the cases played here: none missing, none left over."""
    assert set(pinned) == {f"{g} {p}" for g, p in CASES}


def test_the_digest_sees_every_column():
    """Changing any one value of any column changes the digest (a digest that skipped a column
    or a type would pin nothing)."""
    game, players = "classic", ["greedy", "random"]
    outcomes = api.play_deals(game, players, deals=4, seed=1)
    base = rows_digest(game, players, outcomes)
    frame = storage.outcomes_frame(outcomes, run="pinned", variant=game, strategies=players)
    assert len(frame.columns) >= 10
    for name in frame.columns:

        class Changed:
            """``outcomes`` with one value of column ``name`` changed."""

            def to_frame(self, name=name):
                out = outcomes.to_frame()
                if name not in out.columns:
                    return out
                col = out[name]
                first = col[0]
                changed = (not first) if isinstance(first, bool) else first + 1
                return out.with_columns(col.scatter(0, changed))

        if name in outcomes.to_frame().columns:
            assert rows_digest(game, players, Changed()) != base, name
