"""Runs and tournaments that seat a search player are cut into small chunks by default.

A search player spends thousands of rollouts a decision, so a chunk of the usual size (100,000
deals for a run, 10,000 for a tournament's) is hours of one worker's time, and a run of a few
thousand deals would be one chunk that one worker plays while the others wait. Players declare
``searches`` (``Player.searches``); the runner and the tournament then default to
``sizes.SEARCH_CHUNK_SIZE``. A chunk size given is kept, and the data do not depend on it.
"""

from __future__ import annotations

import dataclasses

import pytest

from scopa_sim import sizes, tournament
from scopa_sim.cli.checks import check_run_early
from scopa_sim.players import PLAYERS
from scopa_sim.runner import RunConfig, RunError

SEARCHING = {"pimc", "cheater", "ismcts"}


def test_the_search_players_and_only_they_declare_that_they_search():
    assert {name for name, p in PLAYERS.items() if p.searches} == SEARCHING
    searchers = {n for n, p in PLAYERS.items() if {"samples", "iterations"} & _fields(p)}
    assert searchers == SEARCHING  # what makes them search: samples or iterations


def _fields(p) -> set[str]:
    return {f.name for f in dataclasses.fields(p)}


def _run(tmp_path, players: str, mode: str = "deals", count: int = 3000, **kw) -> RunConfig:
    return RunConfig.create(
        variant="classic", players=players, mode=mode, count=count, seed=1,
        out=tmp_path / "run", **kw,
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["deals", "games"])
def test_a_run_with_a_search_player_defaults_to_small_chunks(tmp_path, mode):
    plain = _run(tmp_path, "greedy,memory", mode)
    searching = _run(tmp_path, "pimc:samples=8,greedy", mode)
    assert plain.chunk_size == sizes.DEFAULT_CHUNK_SIZE[mode]
    assert searching.chunk_size == sizes.SEARCH_CHUNK_SIZE[mode] < plain.chunk_size
    assert _run(tmp_path, "greedy,ismcts", mode).chunk_size == sizes.SEARCH_CHUNK_SIZE[mode]
    assert searching.n_chunks >= 2  # 3,000 deals (games): both workers get a share
    given = _run(tmp_path, "pimc,greedy", mode, chunk_size=777)
    assert given.chunk_size == 777  # what the user asks for is kept


def test_the_manifest_records_the_chunk_size_the_run_plays(tmp_path):
    config = _run(tmp_path, "pimc,greedy")
    assert config.describe()["chunk_size"] == sizes.SEARCH_CHUNK_SIZE["deals"]


def test_too_many_small_chunks_are_refused_for_the_size_that_applies(tmp_path):
    """2 x 10^9 deals fit in chunks of 100,000 but not of 1,000 (more than a folder holds):
    refused for a search lineup with the chunk size it would play, accepted otherwise; the
    command line's early check leaves that case to RunConfig.create, which knows the players."""
    count = 2 * sizes.MAX_CHUNKS * sizes.SEARCH_CHUNK_SIZE["deals"]
    with pytest.raises(RunError, match=r"in chunks of 1,000 makes 2,000,000 chunk files"):
        _run(tmp_path, "pimc,greedy", count=count)
    assert _run(tmp_path, "greedy,greedy", count=count).n_chunks == count // 100_000
    settings = dict(variant="classic", players="greedy,greedy", mode="deals", count=count,
                    seed=1, out=tmp_path / "run")  # fmt: skip
    assert check_run_early(settings) is False
    assert check_run_early({**settings, "count": 3000}) is True


def test_a_tournament_with_a_search_player_defaults_to_small_chunks(tmp_path):
    def plan(players: str, **kw):
        return tournament.plan(
            variant_name="classic", players=players, mode="deals", count=5000, seed=3,
            out=tmp_path / "t", **kw,
        )  # fmt: skip

    plain, searching = plan("greedy,memory"), plan("greedy,pimc:samples=4,memory")
    assert plain.chunk_size == tournament.CHUNK_SIZE["deals"]
    assert searching.chunk_size == sizes.SEARCH_CHUNK_SIZE["deals"]
    assert {c.chunk_size for p in searching.pairings for c in p.runs} == {searching.chunk_size}
    # the command that reproduces it names a chunk size only when it is not the default
    assert "--chunk-size" not in tournament.command_line(plain)
    assert "--chunk-size" not in tournament.command_line(searching)
    given = plan("greedy,pimc:samples=4", chunk_size=10_000)
    assert "--chunk-size 10000" in tournament.command_line(given)


def test_a_search_run_with_fewer_chunks_than_workers_says_which_chunk_size_shares_it():
    from scopa_sim.cli.checks import idle_workers_note

    note = idle_workers_note("run", 1500, 1000, 4, "deals")
    assert "2 chunks of 1,000 deals for 4 workers, so 2 have nothing to play" in note
    assert "--chunk-size 375" in note
    assert idle_workers_note("run", 2000, 1000, 2, "deals") is None


def test_the_command_line_notes_idle_workers_for_search_runs_only(tmp_path, capsys):
    from tests.support.cli import scopa_sim

    common = ("--deals", 30, "--seed", 1, "--workers", 2, "--chunk-size", 50)
    code, _, err = scopa_sim(capsys, "simulate", "--variant", "classic", "--players",
                             "pimc:samples=2,random", *common, "--out", tmp_path / "a")  # fmt: skip
    assert code == 0 and "note: a is 1 chunk of 50 deals for 2 workers" in err
    assert "--chunk-size 15 gives each a share" in err
    code, _, err = scopa_sim(capsys, "simulate", "--variant", "classic", "--players",
                             "greedy,random", *common, "--out", tmp_path / "b")  # fmt: skip
    assert code == 0 and "note:" not in err
    code, _, err = scopa_sim(capsys, "tournament", "--variant", "classic", "--players",
                             "pimc:samples=2,random", *common, "--out", tmp_path / "t")  # fmt: skip
    assert code == 0 and "note: each run is 1 chunk of 50 deals for 2 workers" in err
