"""Players of your own that misbehave, and player specs (issue 25, parts 2 and 5).

Each bad player is a small module written to ``tmp_path`` and loaded by import path, as a user
would load one. A misbehaving player gets one line and exit status 2 from every command that
plays, naming the player spec, the decision (variant, game, deal, play) and what was wrong; the
traceback of its own code only with ``SCOPA_SIM_DEBUG=1``. A spec that gives a parameter twice,
an unknown one, a number that is not finite, or an empty module or class name is refused. The
data name a player by its canonical spec, so two spellings of one player are one strategy.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import os
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from scopa_sim import api, seeding
from scopa_sim.contract import PlayerError, choice_problem
from scopa_sim.engine import batch
from scopa_sim.lineup import lineup_problem
from scopa_sim.players import PLAYERS, canonical_spec, player, spec_of, spec_text
from scopa_sim.rules import RulesError, variant
from scopa_sim.testing import PlayerCheckError, check_player
from tests.support.cli import scopa_sim as run_cli

ROOT = Path(__file__).resolve().parents[1]

HEADER = """\
import multiprocessing
import os
from dataclasses import dataclass

import numpy as np

from scopa_sim.players import Player

"""

#: The bodies of ``act`` of the misbehaving players, each with what the message must say.
BAD_ACTS = {
    # An index one past the last legal action, from play 5 on.
    "OutOfRange": (
        "return np.where(obs.play >= 5, legal.count, 0).astype(np.int64)",
        r"returned (\d+) for a position with \1 legal actions?",
    ),
    "WrongShape": (
        "return np.zeros((len(legal.count), 2), np.int64)",
        r"returned shape \((\d+), 2\), expected \(\1,\)",
    ),
    "ReturnsNone": ("return None", r"returned None"),
    "Raises": (
        "if obs.play == 3:\n            raise ValueError('boom')\n"
        "        return np.zeros(len(legal.count), np.int64)",
        r"raised ValueError: boom in act",
    ),
}

_names = itertools.count()


def write_module(tmp_path: Path, body: str) -> str:
    """A module of players in ``tmp_path`` under a fresh name (so no import is cached)."""
    name = f"user_players_{os.getpid()}_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(HEADER + textwrap.dedent(body))
    importlib.invalidate_caches()
    return name


def player_class(name: str, act: str, fields: str = "") -> str:
    fields = textwrap.indent(textwrap.dedent(fields), "    ")
    return f"""
@dataclass(frozen=True)
class {name}(Player):
    name = "{name.lower()}"
{fields}
    def act(self, obs, legal, rng):
        {act}

"""


def bad_module(tmp_path: Path) -> str:
    return write_module(tmp_path, "".join(player_class(n, a) for n, (a, _) in BAD_ACTS.items()))


@pytest.fixture
def importable(tmp_path, monkeypatch):
    """``tmp_path`` on the import path, and the current folder (the command line adds it)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SCOPA_SIM_DEBUG", raising=False)
    return tmp_path


def one_line_error(status: int, err: str) -> str:
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("scopa-sim: error: ")
    return lines[0]


def simulate(out: Path, players: str, *more) -> list[str]:
    return [
        "simulate", "--variant", "classic", "--players", players, "--deals", "300",
        "--seed", "3", "--out", str(out), *more,
    ]  # fmt: skip


def chunk_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix == ".parquet")


def read_rows(folder: Path) -> pl.DataFrame:
    """Every row of a run's chunk files, in a fixed order, without the run's name."""
    files = sorted(folder.glob("chunk-*.parquet"))
    return pl.read_parquet(files).drop("run").sort("game", "deal", "side")


# the engine's checks, through the API ---------------------------------------------------------


@pytest.mark.parametrize("name", BAD_ACTS)
def test_the_api_names_the_player_the_decision_and_the_fault(importable, name):
    module = bad_module(importable)
    spec = f"{module}:{name}"
    # The player plays both sides: the batch's first row is the first deal asked for.
    with pytest.raises(PlayerError) as caught:
        api.play_deals("classic", [spec, spec], deals=range(100, 140), seed=1)
    err = caught.value
    assert err.player == spec
    assert re.search(BAD_ACTS[name][1], err.problem), err.problem
    play = {"OutOfRange": 5, "Raises": 3}.get(name, 0)
    assert err.where.startswith(f"classic, game 100, deal 0, play {play}")
    assert "\n" not in str(err)


def test_a_wrong_index_names_the_first_row_that_is_wrong(importable):
    """Only rows whose hand holds card 0 answer out of range: the message names the first deal
    whose leader holds it at play 0, found here from the packs themselves."""
    module = write_module(
        importable,
        player_class(
            "SomeRows",
            "return np.where(obs.hand & np.uint64(1) > 0, legal.count + 4, 0).astype(np.int64)",
        ),
    )
    spec = f"{module}:SomeRows"
    with pytest.raises(PlayerError) as caught:
        api.play_deals("classic", [spec, spec], deals=200, seed=2)
    rules = variant("classic")
    games = np.arange(200, dtype=np.int64)
    packs, _ = batch.deal_packs(
        rules, seeding.stream_key(2, seeding.PACKS), games, np.zeros(200, np.int64)
    )
    # Seat 0 (who leads, play 0) is dealt the first cards after the table's.
    lead = packs[:, rules.table_cards : rules.table_cards + rules.hands[0]]
    first = int(np.flatnonzero((lead == 0).any(axis=1))[0])
    assert caught.value.where == f"classic, game {first}, deal 0, play 0"
    assert caught.value.problem.endswith("legal actions") or "legal action" in caught.value.problem


def test_player_error_crosses_a_process_boundary_whole():
    err = PlayerError("returned None", "mod:Cls", "classic, game 1, deal 0, play 2", "tb", 1)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is PlayerError and str(again) == str(err)
    assert (again.problem, again.player, again.where, again.traceback, again.side) == (
        "returned None", "mod:Cls", "classic, game 1, deal 0, play 2", "tb", 1,
    )  # fmt: skip


def test_choice_problem_words_each_fault():
    count = np.array([3, 1, 2])
    assert choice_problem(np.array([0, 0, 1]), count) is None
    assert choice_problem([0, 0, 1], count) is None  # a list is an array of indices too
    assert choice_problem(None, count)[0].startswith("returned None")
    assert choice_problem(np.array([0, 1, 0]), count) == (
        "returned 1 for a position with 1 legal action", 1,
    )  # fmt: skip
    assert choice_problem(np.array([7, 0, 0]), count)[0] == (
        "returned 7 for a position with 3 legal actions"
    )
    assert choice_problem(np.array([-1, 0, 0]), count)[1] == 0
    assert choice_problem(np.zeros((3, 2), np.int64), count)[0] == (
        "returned shape (3, 2), expected (3,)"
    )
    assert "float64" in choice_problem(np.zeros(3), count)[0]
    assert "not an array" in choice_problem([[0], [0, 1], 0], count)[0]


# the command line --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BAD_ACTS)
def test_simulate_gives_one_line_naming_spec_decision_and_fault(importable, capsys, name):
    module = bad_module(importable)
    spec = f"{module}:{name}"
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{spec},greedy"))
    line = one_line_error(status, err)
    assert f"player {spec!r}" in line
    assert re.search(BAD_ACTS[name][1], line), line
    assert "(classic, game " in line and ", deal 0, play " in line
    assert ("SCOPA_SIM_DEBUG=1" in line) is (name == "Raises")
    assert not list((importable / "run").glob("chunk-*.parquet"))  # nothing looks complete


def test_debug_shows_the_players_own_traceback_and_not_the_engines(importable, capsys, monkeypatch):
    module = bad_module(importable)
    monkeypatch.setenv("SCOPA_SIM_DEBUG", "1")
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{module}:Raises,greedy"))
    assert status == 2
    assert err.startswith("Traceback (most recent call last):")
    assert f"{module}.py" in err and "raise ValueError('boom')" in err
    assert "ValueError: boom" in err
    assert "scopa_sim" not in err.split("scopa-sim: error:")[0]  # the player's frames only
    assert err.strip().splitlines()[-1].startswith("scopa-sim: error: player ")


def test_debug_shows_a_module_that_raises_on_import_without_the_import_machinery(
    importable, capsys, monkeypatch
):
    module = write_module(importable, "\n\nraise KeyError('at import')\n")
    monkeypatch.setenv("SCOPA_SIM_DEBUG", "1")
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{module}:X,greedy"))
    assert status == 2
    trace = err.split("scopa-sim: error:")[0]
    assert f'{module}.py", line 11, in <module>' in trace  # the header's 8 lines, 2 blank
    assert "importlib" not in trace and "scopa_sim" not in trace


@pytest.mark.parametrize(
    ("body", "spec_tail", "message"),
    [
        (
            player_class(
                "BadInit",
                "return None",
                "margin: int = 1\ndef __post_init__(self):\n    raise RuntimeError('no init')\n",
            ),
            ":BadInit",
            r"player '[\w.]+:BadInit' raised RuntimeError: no init in its constructor; "
            r"SCOPA_SIM_DEBUG=1",
        ),
        (
            "raise KeyError('at import')\n",
            ":Anything",
            r"raised KeyError: 'at import' while its module was imported",
        ),
        ("x = (\n", ":Anything", r"cannot be imported: SyntaxError in .+\.py:\d+: "),
        (player_class("Fine", "return None"), ":Missing", r"cannot load player .+Missing"),
        (player_class("Fine", "return None"), ":", r"has an empty class name"),
    ],
    ids=["constructor", "import-raises", "syntax-error", "missing-class", "empty-class"],
)
def test_players_that_cannot_be_built_get_one_line(importable, capsys, body, spec_tail, message):
    module = write_module(importable, body)
    spec = module + spec_tail
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{spec},greedy"))
    line = one_line_error(status, err)
    assert re.search(message, line), line
    assert spec in line
    assert not (importable / "run").exists()


#: A compiled player written to the contract before the bundles, three ways: a ``decide`` of the
#: 28 positional arguments, a ``listing_policy`` choose of the 22, and the numbers of
#: ``fused_params``.
OLD_COMPILED = {
    "decide": (
        "from numba import njit\n"
        "from scopa_sim.contract import FusedPolicy\n\n"
        "@njit(inline='always')\n"
        "def decide(" + ", ".join(f"a{i}" for i in range(28)) + "):\n"
        "    return 1, a2, a3\n"
        + player_class("OldDecide", "return None", "fused_policy = FusedPolicy('old', decide)"),
        r"has a fused row policy \(old\) whose decide takes 28 arguments \(a0, a1, a2, \.\.\.\), "
        r"not 4: the contract of fused row policies changed: decide\(params, seen, rules, "
        r"scratch\)",
    ),
    "choose": (
        "from numba import njit\n"
        "from scopa_sim.contract import FusedPolicy\n"
        "from scopa_sim.engine.decisions import listing_policy\n\n"
        "@njit\n"
        "def choose(" + ", ".join(f"a{i}" for i in range(22)) + "):\n"
        "    return 0\n"
        + player_class(
            "OldChoose", "return None", "fused_policy = FusedPolicy('old', listing_policy(choose))"
        ),
        r"hands listing_policy a choose \(choose\) that takes 22 arguments .+ "
        r"choose\(count, params, seen, rules, scratch\)",
    ),
    "fused_params": (
        player_class(
            "OldParams", "return None", "def fused_params(self, variant):\n    return np.zeros(0)\n"
        ),
        r"defines fused_params \(OldParams\): .+ policy_params\(variant\) instead of "
        r"fused_params/fused_values \(docs/players.md",
    ),
}


@pytest.mark.parametrize("old", sorted(OLD_COMPILED))
def test_a_compiled_player_of_the_old_contract_gets_one_line_saying_what_changed(
    importable, capsys, old
):
    """Through the command line: one line naming the spec, what changed and where to read,
    exit status 2; through the API, the same ``PlayerError`` when its module is imported."""
    body, message = OLD_COMPILED[old]
    module = write_module(importable, body)
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{module}:X,greedy"))
    line = one_line_error(status, err)
    assert re.search(message, line), line
    assert f"player '{module}:X'" in line and "docs/players.md" in line
    assert not (importable / "run").exists()
    with pytest.raises(PlayerError, match=message):
        importlib.import_module(write_module(importable, body))


def test_a_syntax_error_names_the_file_and_line(importable, capsys):
    module = write_module(importable, "x = 1\ny = (\n")
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{module}:X,greedy"))
    line = one_line_error(status, err)
    assert f"{importable / module}.py:" in line


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (":Foo", "has an empty module name"),
        ("nosuchmodule_h3:Foo", "cannot load player 'nosuchmodule_h3:Foo': No module named"),
        ("pimc:samples=2:samples=3", "gives parameter samples twice; give each parameter once"),
        ("pimc:depth=3", "has no parameter 'depth'; it takes: samples, rollout"),
        ("pimc:samples=1.5", "parameter samples takes a whole number, not '1.5'"),
        ("pimc:=3", "has no name"),
    ],
)
def test_bad_specs_are_refused_with_one_line(importable, capsys, spec, message):
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{spec},greedy"))
    assert message in one_line_error(status, err)
    assert not (importable / "run").exists()


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "NaN", "1e999"])
def test_a_number_that_is_not_finite_is_refused(importable, text):
    module = write_module(
        importable, player_class("Weighted", "return None", "weight: float = 0.5\n")
    )
    with pytest.raises(RulesError, match=f"parameter weight takes a finite number, not '{text}'"):
        player(f"{module}:Weighted:weight={text}")
    assert player(f"{module}:Weighted:weight=2").weight == 2.0


def test_workers_carry_the_error_back_from_their_processes(tmp_path):
    """The player fails only in worker processes: the error crosses the process boundary."""
    module = write_module(
        tmp_path,
        player_class(
            "FailsInWorkers",
            "if multiprocessing.parent_process() is not None:\n"
            "            raise ValueError('boom in a worker')\n"
            "        return np.zeros(len(legal.count), np.int64)",
        ),
    )
    args = simulate(tmp_path / "run", f"{module}:FailsInWorkers,greedy", "--workers", "2")
    args[args.index("300")] = "4000"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    env.pop("SCOPA_SIM_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-m", "scopa_sim", *args, "--chunk-size", "500"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    line = one_line_error(done.returncode, done.stderr)
    assert f"player '{module}:FailsInWorkers' raised ValueError: boom in a worker in act" in line
    assert "(classic, game " in line


# nothing that looks complete is left; a fixed player resumes the run -----------------------------

COUNTING = """
CALLS = [0]


@dataclass(frozen=True)
class Flaky(Player):
    name = "flaky"

    def act(self, obs, legal, rng):
        CALLS[0] += 1
        if FAIL_AT and CALLS[0] == FAIL_AT:
            raise ValueError("boom")
        return (rng.random() * legal.count).astype(np.int64)
"""


def test_the_chunk_being_played_is_not_written_and_a_fixed_player_resumes(tmp_path):
    """200 deals a chunk, the player on both sides: 36 act calls a chunk (classic has 36
    plays), so call 73 is the first play of chunk 2. Chunks 0 and 1 stay; chunk 2 is never
    written; the same command with the fixed player (same spec) plays only the chunks missing,
    and its data are those of a fresh run of the fixed player."""
    name = f"flaky_{os.getpid()}"
    path = tmp_path / f"{name}.py"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    env.pop("SCOPA_SIM_DEBUG", None)

    def run(out: Path) -> subprocess.CompletedProcess:
        args = simulate(out, f"{name}:Flaky,{name}:Flaky", "--chunk-size", "200")
        args[args.index("300")] = "1000"
        return subprocess.run(
            [sys.executable, "-m", "scopa_sim", *args], cwd=tmp_path, env=env,
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip

    path.write_text(HEADER + "FAIL_AT = 73\n" + COUNTING)
    failed = run(tmp_path / "run")
    line = one_line_error(failed.returncode, failed.stderr)
    # Played alone, no row raises again (the fault is in the count of calls): the batch is named.
    assert "raised ValueError: boom in act (classic, game 400, deal 0, play 0, in a batch" in line
    assert chunk_files(tmp_path / "run") == ["chunk-000000.parquet", "chunk-000001.parquet"]
    kept = {p: (tmp_path / "run" / p).stat().st_mtime_ns for p in chunk_files(tmp_path / "run")}

    path.write_text(HEADER + "FAIL_AT = 0\n" + COUNTING)  # fixed
    resumed = run(tmp_path / "run")
    assert resumed.returncode == 0, resumed.stderr
    assert chunk_files(tmp_path / "run") == [f"chunk-{c:06d}.parquet" for c in range(5)]
    assert {p: (tmp_path / "run" / p).stat().st_mtime_ns for p in kept} == kept  # not replayed
    fresh = run(tmp_path / "fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert read_rows(tmp_path / "run").equals(read_rows(tmp_path / "fresh"))


# every command that plays ----------------------------------------------------------------------


def test_compare_plan_tournament_and_replay_name_the_player(importable, capsys, monkeypatch):
    module = write_module(
        importable,
        player_class(
            "FailsOnCue",
            "if os.environ.get('H3_FAIL'):\n            return None\n"
            "        return np.zeros(len(legal.count), np.int64)",
        ),
    )
    spec = f"{module}:FailsOnCue"
    monkeypatch.setenv("H3_FAIL", "1")
    commands = {
        "compare": ["compare", "classic", "classic:forced_capture=true", "--players",
                    f"{spec},greedy", "--deals", "200", "--seed", "1"],
        "plan": ["plan", "classic", "classic:forced_capture=true", "--players", f"{spec},greedy",
                 "--metric", "scope", "--effect", "0.1", "--pilot", "200"],
        "tournament": ["tournament", "--variant", "classic", "--players", f"greedy,{spec}",
                       "--deals", "100", "--seed", "1", "--out", str(importable / "tour")],
        "replay": ["replay", "--variant", "classic", "--players", f"{spec},greedy",
                   "--deck", ",".join(map(str, range(40)))],
    }  # fmt: skip
    for command, args in commands.items():
        status, _, err = run_cli(capsys, *args)
        line = one_line_error(status, err)
        assert f"player {spec!r} returned None" in line, (command, line)
        assert "(classic" in line, (command, line)

    monkeypatch.delenv("H3_FAIL")
    status, _, err = run_cli(capsys, *simulate(importable / "run", f"{spec},greedy"))
    assert status == 0, err
    monkeypatch.setenv("H3_FAIL", "1")
    status, _, err = run_cli(
        capsys, "replay", "--run", importable / "run", "--game", 5, "--deal", 0
    )
    line = one_line_error(status, err)
    assert f"player {spec!r} returned None" in line and "game 5, deal 0, play" in line


# check_player names the same faults ----------------------------------------------------------


@pytest.mark.parametrize("name", BAD_ACTS)
def test_check_player_reports_the_same_faults_by_name(importable, name):
    module = bad_module(importable)
    with pytest.raises(PlayerCheckError) as caught:
        check_player(f"{module}:{name}", "classic", deals=8)
    text = str(caught.value)
    assert re.search(BAD_ACTS[name][1].replace(" in act", ""), text), text
    assert "\n" not in text


def test_check_player_names_a_constructor_that_raises(importable):
    module = write_module(
        importable,
        player_class(
            "BadInit", "return None", "def __post_init__(self):\n    raise OSError('x')\n"
        ),
    )
    with pytest.raises(PlayerCheckError, match="raised OSError: x in its constructor"):
        check_player(f"{module}:BadInit", "classic", deals=8)


# canonical specs -------------------------------------------------------------------------------


def test_the_default_specs_keep_their_names():
    for name in PLAYERS:
        assert canonical_spec(name) == name
        assert spec_of(player(name)) == name


def test_two_spellings_of_one_player_are_one_spec(importable):
    module = write_module(
        importable,
        player_class(
            "Tuned", "return None", "depth: int = 2\nweight: float = 0.5\nbold: bool = False\n"
        ),
    )
    base = f"{module}:Tuned"
    assert canonical_spec(f"{base}:depth=2:weight=0.50:bold=no") == base  # the defaults
    assert canonical_spec(f" {base} : weight = 1e-1 : depth = 3 ") == f"{base}:depth=3:weight=0.1"
    assert canonical_spec(f"{base}:bold=on:depth=3") == f"{base}:bold=true:depth=3"
    assert canonical_spec(f"{base}:weight=2") == f"{base}:weight=2.0"
    assert canonical_spec("pimc:samples=64") == "pimc"
    assert canonical_spec("pimc:samples=8:endgame=2") == "pimc:endgame=2:samples=8"
    tuned = player(f"{base}:weight=0.1:depth=3")
    assert spec_of(tuned) == canonical_spec(f"{base}:depth=3:weight=0.1")
    assert player(spec_of(tuned)) == tuned


def test_the_data_record_the_canonical_spec_and_a_rerun_in_another_spelling_resumes(
    importable, capsys
):
    module = write_module(
        importable,
        player_class("Tuned", "return np.zeros(len(legal.count), np.int64)", "depth: int = 2\n"),
    )
    out = importable / "run"
    status, _, err = run_cli(capsys, *simulate(out, f"{module}:Tuned:depth=2,greedy"))
    assert status == 0, err
    strategies = read_rows(out).filter(pl.col("side") == 0)["strategy"].unique().to_list()
    assert strategies == [f"{module}:Tuned"]
    # Another spelling of the same lineup is the same run: the rerun finds it complete.
    status, _, err = run_cli(capsys, *simulate(out, f" {module}:Tuned ,greedy"))
    assert status == 0, err
    status, _, err = run_cli(capsys, *simulate(out, f"{module}:Tuned:depth=3,greedy"))
    assert status == 2  # another player: another run


def test_a_tournament_refuses_one_player_named_twice_in_two_spellings():
    rules = variant("classic")
    assert "named twice" in lineup_problem(rules, ["pimc", "greedy", "pimc:samples=64"])
    assert "named twice" in lineup_problem(
        rules, ["pimc:endgame=1:samples=3", "pimc:samples=3:endgame=1"]
    )
    assert lineup_problem(rules, ["pimc", "pimc:samples=3"]) is None


# scopa-sim players -----------------------------------------------------------------------------


def test_players_lists_each_players_parameters_with_their_defaults(capsys):
    status, out, err = run_cli(capsys, "players")
    assert status == 0 and err == ""
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert list(lines) == list(PLAYERS)
    for name, p in PLAYERS.items():
        defaults = {
            f.name: f.default for f in dataclasses.fields(type(p))
            if f.init and f.default is not dataclasses.MISSING
        }  # fmt: skip
        for key, value in defaults.items():
            assert f"{key}={spec_text(value)}" in lines[name], (name, key)
        assert ("parameters:" in lines[name]) is bool(defaults)
    assert "samples=64" in lines["pimc"]
