"""The ``scopa-sim`` command line.

Bad input gets exactly one line on stderr saying what is wrong (and how to fix it), exit status
2, no traceback, and leaves no output that looks complete. Good input: the help of every command
names every option; ``variants`` and ``players`` list one line each; ``replay`` prints deals
(text or JSON) from explicit packs or from a recorded run, agreeing with the run's data;
``simulate --config`` runs every run of a batch file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from scopa_sim import cli, runner, seeding, storage
from scopa_sim.players import PLAYERS
from scopa_sim.rules import CATEGORIES, OPTIONS, PRESETS, variant
from tests.support.cli import scopa_sim

PYTHON = sys.executable
KINGS = (9, 19, 29, 39)
PREFIXES = (
    "scopa-sim: error:",
    "scopa-sim simulate: error:",
    "scopa-sim replay: error:",
    "scopa-sim train-expert: error:",
)


def assert_bad_input(status, out, err, *fragments) -> str:
    assert status == 2, f"exit status {status}; stderr: {err!r}"
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, f"stderr must be one line, got:\n{err}"
    assert lines[0].startswith(PREFIXES), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    assert out == ""
    return lines[0]


def complete_manifests(root: Path) -> list[Path]:
    found = [*root.rglob("*.manifest.json"), *root.rglob("manifest.json")]  # layout 1 and 2
    return [p for p in found if json.loads(p.read_text()).get("complete")]


def random_pack(seed: int, index: int = 0) -> list[int]:
    """A shuffled pack that is not a throw-in."""
    key = seeding.stream_key(seed, seeding.PACKS)
    for attempt in range(100):
        pack = seeding.packs(key, np.array([index]), np.array([0]), np.array([attempt]), 40)[0]
        if len(set(KINGS) & set(pack[:4].tolist())) < 3:
            return pack.tolist()
    raise AssertionError("no playable pack")


def throw_in_pack() -> list[int]:
    """A pack whose four table cards hold three kings."""
    table = [9, 19, 0, 29]
    return table + [c for c in range(40) if c not in table]


def joined(pack) -> str:
    return ",".join(map(str, pack))


# bad input -------------------------------------------------------------------------------------

SIM = [
    "simulate",
    "--variant",
    "classic",
    "--players",
    "greedy,random",
    "--games",
    "50",
    "--seed",
    "1",
]


def _with(args: list[str], flag: str, value: str | None) -> list[str]:
    """``args`` with ``flag`` set to ``value`` (removed when ``value`` is None)."""
    out, i = [], 0
    while i < len(args):
        if args[i] == flag:
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out if value is None else [*out, flag, value]


SIMULATE_BAD = {
    # unknown names: the message lists the valid ones
    "unknown variant": (_with(SIM, "--variant", "scopone-x"), ["scopone-x", *PRESETS]),
    "unknown option": ([*SIM, "--option", "speed=3"], ["speed", *OPTIONS]),
    "option not key=value": ([*SIM, "--option", "target"], ["KEY=VALUE"]),
    "unknown player": (_with(SIM, "--players", "greedy,clever"), ["clever", *PLAYERS]),
    "empty player": (_with(SIM, "--players", "greedy,"), list(PLAYERS)),
    # players for the variant
    "3 players for classic": (
        _with(SIM, "--players", "greedy,random,greedy"),
        ["2 players", "got 3"],
    ),
    "2 players for classic-3p": (_with(SIM, "--variant", "classic-3p"), ["3 players", "got 2"]),
    "4 players for classic-4p": (
        _with(_with(SIM, "--variant", "classic-4p"), "--players", "greedy,random,greedy,random"),
        ["2 players", "got 4"],
    ),
    # counts
    "zero games": (_with(SIM, "--games", "0"), ["0", "positive"]),
    "negative games": (_with(SIM, "--games", "-3"), ["-3"]),
    "games not a number": (_with(SIM, "--games", "ten"), ["ten"]),
    "fractional games": (_with(SIM, "--games", "2.5"), ["2.5"]),
    "zero deals": ([*_with(SIM, "--games", None), "--deals", "0"], ["0"]),
    "games and deals": ([*SIM, "--deals", "10"], ["--deals"]),
    "no games or deals": (_with(SIM, "--games", None), ["--games or --deals"]),
    "zero workers": ([*SIM, "--workers", "0"], ["0"]),
    "negative workers": ([*SIM, "--workers", "-2"], ["-2"]),
    "workers not a number": ([*SIM, "--workers", "two"], ["two"]),
    "zero chunk size": ([*SIM, "--chunk-size", "0"], ["0"]),
    "zero batch size": ([*SIM, "--batch-size", "0"], ["0"]),
    "negative seed": (_with(SIM, "--seed", "-1"), ["-1"]),
    "seed not a number": (_with(SIM, "--seed", "x1"), ["x1"]),
    "no seed": (_with(SIM, "--seed", None), ["--seed"]),
    # option values
    "target not a number": ([*SIM, "--option", "target=abc"], ["target", "abc"]),
    "target zero": ([*SIM, "--option", "target=0"], ["target", "0"]),
    "target too big": ([*SIM, "--option", "target=100000"], ["target", "100000"]),
    "bool option": ([*SIM, "--option", "throw_in=maybe"], ["throw_in", "maybe", "true"]),
    "enum option": ([*SIM, "--option", "primiera=best"], ["primiera", "best", "standard"]),
    "napola value": ([*SIM, "--option", "napola=7"], ["napola", "sequence"]),
    # backends
    "unknown backend": ([*SIM, "--backend", "spark"], ["spark", "dask"]),
    "scheduler without dask": ([*SIM, "--scheduler", "tcp://127.0.0.1:8786"], ["--backend dask"]),
}


@pytest.mark.parametrize("case", list(SIMULATE_BAD))
def test_simulate_bad_input(capsys, tmp_path, case):
    args, fragments = SIMULATE_BAD[case]
    out = tmp_path / "out"
    status, stdout, err = scopa_sim(capsys, *args, "--out", out)
    assert_bad_input(status, stdout, err, *fragments)
    assert list(tmp_path.iterdir()) == [], "bad input left files behind"


@pytest.mark.parametrize(
    "where",
    [
        "{tmp}/file.txt/out",  # under a regular file: not even root can write there
        "{tmp}/file.txt/deep/er/out",
        "/proc/scopa-sim-test-out",
    ],
)
def test_simulate_output_folder_that_cannot_be_written(capsys, tmp_path, where):
    (tmp_path / "file.txt").write_text("a file, not a folder\n")
    out = where.format(tmp=tmp_path)
    status, stdout, err = scopa_sim(capsys, *SIM, "--out", out)
    line = assert_bad_input(status, stdout, err, out, "--out")
    assert "cannot write" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]
    assert not Path(out).exists()


def test_simulate_run_folder_of_another_configuration(capsys, tmp_path):
    out = tmp_path / "run"
    status, stdout, err = scopa_sim(capsys, *SIM, "--out", out)
    assert status == 0, err
    before = storage.manifest_path(out).read_text()
    chunks = {p.name: p.read_bytes() for p in out.iterdir()}
    for change in (
        ("--seed", "2"),
        ("--players", "greedy,greedy"),
        ("--games", "60"),
        ("--chunk-size", "10"),
        ("--name", "other"),
    ):
        args = _with(SIM, change[0], None) + list(change)
        status, stdout, err = scopa_sim(capsys, *args, "--out", out)
        assert_bad_input(status, stdout, err, str(out), "another run", "--out")
    status, stdout, err = scopa_sim(capsys, *SIM, "--option", "target=16", "--out", out)
    assert_bad_input(status, stdout, err, "another run")
    assert storage.manifest_path(out).read_text() == before
    assert {p.name: p.read_bytes() for p in out.iterdir()} == chunks
    # the same command again is fine and plays nothing
    status, stdout, err = scopa_sim(capsys, *SIM, "--out", out, "--workers", "1")
    assert status == 0, err
    assert "0 chunks played, 1 already done" in stdout


def test_simulate_folder_with_foreign_files(capsys, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("\\documentclass{article}\n")
    status, stdout, err = scopa_sim(capsys, *SIM, "--out", out)
    assert_bad_input(status, stdout, err, "thesis.tex")
    assert complete_manifests(tmp_path) == []
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


# batch files

GOOD_RUN = (
    '\n[[run]]\nname = "a"\nvariant = "classic"\nplayers = ["greedy", "random"]\ngames = 20\n'
)

TOML_BAD = {
    "malformed": ("[defaults]\nseed = 1\nplayers = [greedy, random]\n", ["line 3"]),
    "malformed later": (GOOD_RUN + 'seed = 1\nout = "x\n', ["line 8"]),
    "unknown table": ("[runs]\nname = 1\n", ["runs", "[[run]]"]),
    "no runs": ("[defaults]\nseed = 1\n", ["[[run]]"]),
    "unknown key": (GOOD_RUN + "seed = 1\ngamez = 5\n", ["gamez"]),
    "games and deals": (GOOD_RUN + "seed = 1\ndeals = 5\n", ["games or deals"]),
    "missing seed": (GOOD_RUN, ["seed"]),
    "missing players": (
        '[[run]]\nname = "a"\nvariant = "classic"\ngames = 20\nseed = 1\n',
        ["players"],
    ),
    "unknown variant": (
        GOOD_RUN.replace('"classic"', '"clasic"') + "seed = 1\n",
        ["clasic", *PRESETS],
    ),
    "unknown player": (GOOD_RUN.replace('"random"', '"smart"') + "seed = 1\n", ["smart", *PLAYERS]),
    "wrong players": (GOOD_RUN.replace('"classic"', '"classic-3p"') + "seed = 1\n", ["3 players"]),
    "unknown option": (GOOD_RUN + "seed = 1\noptions = { speed = 2 }\n", ["speed", *OPTIONS]),
    "option type": (GOOD_RUN + 'seed = 1\noptions = { target = "many" }\n', ["target", "many"]),
    "option range": (GOOD_RUN + "seed = 1\noptions = { target = 0 }\n", ["target"]),
    "option bool": (GOOD_RUN + "seed = 1\noptions = { re_bello = 3 }\n", ["re_bello"]),
    "options not a table": (GOOD_RUN + "seed = 1\noptions = 3\n", ["options"]),
    "zero games": (GOOD_RUN.replace("20", "0") + "seed = 1\n", ["positive"]),
    "games as text": (GOOD_RUN.replace("20", '"20"') + "seed = 1\n", ["'20'"]),
    "fractional games": (GOOD_RUN.replace("20", "2.5") + "seed = 1\n", ["2.5"]),
    "negative seed": (GOOD_RUN + "seed = -4\n", ["-4"]),
    "zero workers": (GOOD_RUN + "seed = 1\nworkers = 0\n", ["workers"]),
    "zero chunk size": (GOOD_RUN + "seed = 1\nchunk_size = 0\n", ["chunk size"]),
    "second run bad": (
        "[defaults]\nseed = 1\n"
        + GOOD_RUN
        + GOOD_RUN.replace('"a"', '"b"').replace("greedy", "gredy"),
        ["run 2", "gredy"],
    ),
}


@pytest.mark.parametrize("case", list(TOML_BAD))
def test_simulate_bad_batch_file(capsys, tmp_path, monkeypatch, case):
    text, fragments = TOML_BAD[case]
    monkeypatch.chdir(tmp_path)  # runs go to ./data/NAME by default
    path = tmp_path / "batch.toml"
    path.write_text(text)
    status, stdout, err = scopa_sim(capsys, "simulate", "--config", path)
    assert_bad_input(status, stdout, err, str(path), *fragments)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["batch.toml"], "no run may start"


def test_malformed_toml_names_the_file_and_line(capsys, tmp_path):
    path = tmp_path / "runs.toml"
    path.write_text('[defaults]\nseed = 3\n\n[[run]]\nname = "a"\nplayers = greedy\n')
    status, stdout, err = scopa_sim(capsys, "simulate", "--config", path)
    line = assert_bad_input(status, stdout, err, str(path), "line 6")
    assert re.search(r"\bline 6\b", line)


def test_batch_file_that_cannot_be_read(capsys, tmp_path):
    path = tmp_path / "missing.toml"
    status, stdout, err = scopa_sim(capsys, "simulate", "--config", path)
    assert_bad_input(status, stdout, err, str(path))
    status, stdout, err = scopa_sim(capsys, "simulate", "--config", tmp_path)  # a folder
    assert_bad_input(status, stdout, err, str(tmp_path))


def test_config_and_single_run_options_together(capsys, tmp_path):
    path = tmp_path / "runs.toml"
    path.write_text(GOOD_RUN + "seed = 1\n")
    status, stdout, err = scopa_sim(capsys, "simulate", "--config", path, "--variant", "classic")
    assert_bad_input(status, stdout, err, "--config", "--variant")


# replay

REPLAY = ["replay", "--variant", "classic", "--players", "greedy,random"]


def _replay_bad_cases():
    pack = random_pack(1)
    return {
        "39 cards": ([*REPLAY, "--deck", joined(pack[:-1])], ["0..39", "39"]),
        "41 cards": ([*REPLAY, "--deck", joined([*pack, 5])], ["0..39"]),
        "repeated card": ([*REPLAY, "--deck", joined([*pack[:-1], pack[0]])], ["0..39"]),
        "unknown card": ([*REPLAY, "--deck", joined([*pack[:-1], 40])], ["40"]),
        "negative card": ([*REPLAY, "--deck", joined([*pack[:-1], -1])], ["-1"]),
        "not numbers": ([*REPLAY, "--deck", "AD,2D,3D"], ["--deck", "card ids"]),
        "empty deck": ([*REPLAY, "--deck", ","], ["--deck"]),
        "unknown variant": (
            [*_with(REPLAY, "--variant", "tressette"), "--deck", joined(pack)],
            list(PRESETS),
        ),
        "unknown player": (
            [*_with(REPLAY, "--players", "greedy,oracle"), "--deck", joined(pack)],
            list(PLAYERS),
        ),
        "wrong players": ([*_with(REPLAY, "--players", "greedy"), "--deck", joined(pack)], ["2"]),
        "option value": (
            [*REPLAY, "--option", "fewest_cards=perhaps", "--deck", joined(pack)],
            ["fewest_cards"],
        ),
        "no deck": (REPLAY, ["--deck"]),
        "no players": ([*_with(REPLAY, "--players", None), "--deck", joined(pack)], ["--players"]),
        "seed": ([*REPLAY, "--seed", "-5", "--deck", joined(pack)], ["-5"]),
        "game not a number": (["replay", "--run", "somewhere", "--game", "first"], ["first"]),
    }


REPLAY_BAD = _replay_bad_cases()


@pytest.mark.parametrize("case", list(REPLAY_BAD))
def test_replay_bad_input(capsys, case):
    args, fragments = REPLAY_BAD[case]
    status, stdout, err = scopa_sim(capsys, *args)
    assert_bad_input(status, stdout, err, *fragments)


def test_replay_bad_decks_file(capsys, tmp_path):
    path = tmp_path / "packs.txt"
    path.write_text(joined(random_pack(1)) + "\n" + "1,2,x\n")
    status, stdout, err = scopa_sim(capsys, *REPLAY, "--decks-file", path)
    assert_bad_input(status, stdout, err, str(path), "line 2")
    path.write_text(joined(random_pack(1)) + "\n" + joined(random_pack(2)[:-1]) + "\n")
    status, stdout, err = scopa_sim(capsys, *REPLAY, "--decks-file", path)
    assert_bad_input(status, stdout, err, "0..39")
    status, stdout, err = scopa_sim(capsys, *REPLAY, "--decks-file", tmp_path / "none.txt")
    assert_bad_input(status, stdout, err, "none.txt")


def test_replay_bad_run(capsys, small_run):
    folder, _ = small_run
    status, stdout, err = scopa_sim(capsys, "replay", "--run", folder.parent / "nowhere")
    assert_bad_input(status, stdout, err, "nowhere")
    for game, deal in ((10**6, 0), (0, 99), (-1, 0)):
        status, stdout, err = scopa_sim(
            capsys, "replay", "--run", folder, "--game", game, "--deal", deal
        )
        assert_bad_input(status, stdout, err, f"game {game}")


# the early checks


def _without_early_checks(monkeypatch) -> None:
    """Leave every check to the runner, as before the early checks."""
    monkeypatch.setattr(cli.checks, "check_run_early", lambda settings: False)
    monkeypatch.setattr(cli.checks, "check_output_early", lambda out, **kwargs: None)


def test_the_player_names_the_cli_offers_are_the_players_built():
    assert cli.PLAYER_NAMES == tuple(PLAYERS)


EARLY_CASES = {
    **{case: args for case, (args, _) in SIMULATE_BAD.items()},
    "player with a bad parameter": _with(SIM, "--players", "greedy,pimc:samples=x"),
    "player of no module": _with(SIM, "--players", "nowhere.mod:Cls,greedy"),
    "unknown player and variant": _with(_with(SIM, "--players", "x,y"), "--variant", "nope"),
    "unknown options": [*SIM, "--option", "zeta=1", "--option", "alpha=2"],
    "blank player": _with(SIM, "--players", "greedy, ,random"),
    "out under a file": [*SIM, "--out", "{tmp}/file.txt/out"],
    "out deep under a file": [*SIM, "--out", "{tmp}/file.txt/a/b"],
    "out is a file": [*SIM, "--out", "{tmp}/file.txt"],
    "out holds other files": [*SIM, "--out", "{tmp}/mine"],
    "out in proc": [*SIM, "--out", "/proc/scopa-sim-test-out"],
    "out is the current folder": [*SIM, "--out", "."],
    "out holds another run": [*_with(SIM, "--seed", "2"), "--out", "{tmp}/done"],
    "unwritable out with a bad player": [*_with(SIM, "--players", "greedy,x"), "--out", "/proc/x"],
}


@pytest.mark.parametrize("case", list(EARLY_CASES))
def test_early_checks_say_what_the_full_checks_say(capsys, tmp_path, monkeypatch, case):
    """Bad input gets the same line, whether the early checks or the runner find it."""
    (tmp_path / "file.txt").write_text("a file\n")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine\n")
    monkeypatch.chdir(tmp_path)
    args = [a.format(tmp=tmp_path) for a in EARLY_CASES[case]]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    if case == "out holds another run":
        assert scopa_sim(capsys, *SIM, "--out", tmp_path / "done")[0] == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    early = scopa_sim(capsys, *args)
    assert early[0] == 2 and early[1] == "" and len(early[2].splitlines()) == 1, early
    _without_early_checks(monkeypatch)
    assert scopa_sim(capsys, *args) == early
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_early_checks_accept_what_the_runner_accepts_and_leave_it_what_they_cannot_check(
    tmp_path,
):
    run = dict(variant="classic", players=" greedy , random ", mode="games", count=5, seed=0,
               out=tmp_path / "r", options={"target": "16"})  # fmt: skip
    assert cli.check_run_early(run) is True
    assert cli.check_run_early({**run, "players": ["greedy", "random"], "chunk_size": 2}) is True
    for change in (
        {"players": "greedy,pimc:samples=4"},  # parameters: the registry reads them
        {"players": "greedy,mypkg.mod:Cls"},
        {"out": "."},  # the runner says why not
        {"count": "5"},
        {"seed": True},
        {"chunk_size": 0},
    ):
        assert cli.check_run_early({**run, **change}) is False, change
    cli.check_output_early(tmp_path / "r", backend=None, scheduler=None)  # nothing to say
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", list(TOML_BAD))
def test_early_checks_of_a_batch_file_say_what_the_full_checks_say(
    capsys, tmp_path, monkeypatch, case
):
    text, _ = TOML_BAD[case]
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "batch.toml"
    path.write_text(text)
    early = scopa_sim(capsys, "simulate", "--config", path)
    _without_early_checks(monkeypatch)
    assert scopa_sim(capsys, "simulate", "--config", path) == early


#: Command lines whose error (or help) comes before the engine, the players or Parquet are
#: imported: (arguments, the start of the line on stderr; None for help on stdout).
CHEAP = [
    (["--help"], None),
    (["simulate", "--help"], None),
    (["tournament", "--help"], None),
    (["compare", "--help"], None),
    (["simulate", "--games", "ten"], "scopa-sim simulate: error: argument --games"),
    (_with(SIM, "--variant", "nope"), "scopa-sim: error: unknown variant 'nope'"),
    ([*SIM, "--option", "speed=3"], "scopa-sim: error: unknown option 'speed'"),
    ([*SIM, "--option", "target=x"], "scopa-sim: error: option target takes a whole number"),
    (_with(SIM, "--players", "greedy,clever"), "scopa-sim: error: unknown player 'clever'"),
    (_with(SIM, "--players", "greedy"), "scopa-sim: error: classic is played by 2 sides"),
    ([*SIM, "--scheduler", "tcp://h:1"], "scopa-sim: error: --scheduler goes with --backend dask"),
    (["variants", "clasic"], "scopa-sim: error: unknown variant 'clasic'"),
    (["compare", "classic", "classic:bogus=1", "--players", "greedy", "--deals", "9", "--seed",
      "1"], "scopa-sim: error: unknown option 'bogus'"),
    (["tournament", "--variant", "nope", "--players", "greedy,random", "--deals", "9", "--seed",
      "1"], "scopa-sim: error: unknown variant 'nope'"),
    (["tournament", "--variant", "classic-3p", "--players", "greedy,random", "--deals", "9",
      "--seed", "1"], "scopa-sim: error: classic-3p is played by 3 sides"),
    (["tournament", "--variant", "classic", "--players", "greedy,smart", "--deals", "9",
      "--seed", "1"], "scopa-sim: error: unknown player 'smart'"),
    ([*_with(REPLAY, "--variant", "nope"), "--deck", "1,2"],
     "scopa-sim: error: unknown variant 'nope'"),
]  # fmt: skip

_CHEAP_SCRIPT = """
import contextlib, io, json, sys
from scopa_sim import cli
lines = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(args)
        except SystemExit as exit:
            status = exit.code
    lines.append([status, out.getvalue()[:200], err.getvalue()])
heavy = ("numba", "polars", "joblib", "scopa_sim.engine", "scopa_sim.players", "scopa_sim.api")
print(json.dumps({"lines": lines, "heavy": [m for m in heavy if m in sys.modules]}))
"""


def test_help_and_bad_input_come_before_the_heavy_imports(tmp_path):
    """In one fresh process: each command line gets its help or its one line, and none of them
    imports numba, polars, joblib, the engine or the players."""
    (tmp_path / "file.txt").write_text("x\n")
    batch = tmp_path / "batch.toml"
    batch.write_text("[defaults]\nseed = 1\n" + GOOD_RUN + GOOD_RUN.replace('"a"', '"b"')
                     .replace("greedy", "gredy"))  # fmt: skip
    cases = [
        *CHEAP,
        ([*SIM, "--out", str(tmp_path / "file.txt" / "out")], "scopa-sim: error: cannot write"),
        (["simulate", "--config", str(batch)], f"scopa-sim: error: {batch}: run 2 (b): unknown"),
    ]
    argv = [[str(a) for a in args] for args, _ in cases]
    for args in argv:  # a run folder for the single runs
        if args[0] == "simulate" and not {"--help", "--config", "--out"} & set(args):
            args += ["--out", str(tmp_path / "r")]
    result = subprocess.run(
        [PYTHON, "-c", _CHEAP_SCRIPT, json.dumps(argv)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for (args, start), (status, out, err) in zip(cases, report["lines"], strict=True):
        if start is None:
            assert status == 0 and out.startswith("usage: scopa-sim") and err == "", args
        else:
            assert status == 2 and out == "" and err.startswith(start), (args, err)
            assert len(err.splitlines()) == 1, err
    assert report["heavy"] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["batch.toml", "file.txt"]


def test_usage_errors(capsys):
    for args in ([], ["play"], ["simulate", "--frobnicate"], ["replay", "--json", "extra"]):
        status, stdout, err = scopa_sim(capsys, *args)
        assert_bad_input(status, stdout, err)


def test_bad_input_through_the_real_command(capsys, tmp_path):
    """A few of the above through ``python -m scopa_sim``: exit status and stderr of a process."""
    (tmp_path / "file.txt").write_text("x\n")
    toml = tmp_path / "bad.toml"
    toml.write_text("[[run]]\nname = 'a'\nplayers = [greedy]\n")
    existing = tmp_path / "existing"
    commands = {
        "variant": [*_with(SIM, "--variant", "nope"), "--out", tmp_path / "a"],
        "count": [*_with(SIM, "--games", "0"), "--out", tmp_path / "b"],
        "option": [*SIM, "--option", "target=x", "--out", tmp_path / "c"],
        "toml": ["simulate", "--config", toml],
        "out": [*SIM, "--out", tmp_path / "file.txt" / "out"],
        "deck": [*REPLAY, "--deck", "1,2,3"],
        "another run": [*_with(SIM, "--seed", "2"), "--out", existing],
    }
    status, _, err = scopa_sim(capsys, *SIM, "--out", existing)  # a run of another seed
    assert status == 0, err
    procs = {
        name: subprocess.Popen(
            [PYTHON, "-m", "scopa_sim", *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in commands.items()
    }
    errors = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 2, (name, stderr)
        assert "Traceback" not in stderr, name
        assert len(stderr.splitlines()) == 1, (name, stderr)
        assert stderr.startswith(PREFIXES), (name, stderr)
        assert stdout == "", name
        errors[name] = stderr
    assert str(toml) in errors["toml"] and "line 3" in errors["toml"]
    assert all(v in errors["variant"] for v in PRESETS)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.toml", "existing", "file.txt",
    ]  # fmt: skip
    assert complete_manifests(tmp_path) == [tmp_path / "existing" / "manifest.json"]
    assert json.loads((existing / "manifest.json").read_text())["config"]["seed"] == 1


# help and listings -----------------------------------------------------------------------------


def _subparsers():
    parser = cli.build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return parser, action.choices


EXPECTED_OPTIONS = {
    "simulate": [
        "--config", "--variant", "--option", "--players", "--games", "--deals", "--seed",
        "--workers", "--out", "--name", "--backend", "--scheduler", "--chunk-size",
        "--batch-size", "--progress", "--no-progress",
    ],
    "replay": [
        "--run", "--game", "--deal", "--variant", "--option", "--players", "--seed", "--deck",
        "--decks-file", "--json",
    ],
    "variants": [],
    "players": [],
}  # fmt: skip


def test_help_of_every_command_mentions_every_option(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # no wrapping inside names like classic-3p
    _parser, commands = _subparsers()
    assert set(EXPECTED_OPTIONS) <= set(commands)
    status, top, _ = scopa_sim(capsys, "--help")
    assert status == 0
    for name in commands:
        assert name in top
    for name, sub in commands.items():
        status, text, err = scopa_sim(capsys, name, "--help")
        assert status == 0 and err == ""
        declared = [s for a in sub._actions for s in a.option_strings if s.startswith("--")]
        assert set(EXPECTED_OPTIONS.get(name, [])) <= set(declared)
        for option in declared:
            assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), (
                f"{name} --help: {option}"
            )
    status, text, _ = scopa_sim(capsys, "simulate", "--help")
    for word in [*PRESETS, *OPTIONS, *PLAYERS, *runner.BACKENDS]:
        assert word in text, f"simulate --help does not name {word}"


def test_variants_and_players_list_one_line_each(capsys):
    status, out, err = scopa_sim(capsys, "variants")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(PRESETS)
    assert all(len(line.split()) > 1 for line in lines)
    status, out, err = scopa_sim(capsys, "players")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(PLAYERS)
    assert all(len(line.split()) > 1 for line in lines)


# replay ----------------------------------------------------------------------------------------


def check_deal_json(deal: dict, rules, pack) -> None:
    """A played deal's JSON: the keys, and moves that follow from the pack and the rules."""
    assert {"variant", "deck", "dealer", "moves", "sides", "throw_in"} <= set(deal)
    assert deal["variant"] == rules.describe()
    assert deal["deck"] == pack
    assert deal["dealer"] == rules.n_players - 1
    assert deal["throw_in"] is False
    assert len(deal["moves"]) == rules.plays
    seat_sides = deal.get("seat_sides") or [rules.side_of_seat(s) for s in range(rules.n_players)]
    assert sorted(seat_sides) == sorted(rules.side_of_seat(s) for s in range(rules.n_players))
    table = list(pack[: rules.table_cards])
    played = []
    for i, move in enumerate(deal["moves"]):
        assert set(move) == {"seat", "card", "captured", "scopa"}
        assert move["seat"] == i % rules.n_players  # seat 0 leads
        played.append(move["card"])
        rank = move["card"] % 10 + 1
        if move["captured"]:
            assert set(move["captured"]) <= set(table), f"move {i} takes cards not on the table"
            ranks = [c % 10 + 1 for c in move["captured"]]
            assert ranks == [rank] or sum(ranks) == rank
            for card in move["captured"]:
                table.remove(card)
            if move["scopa"]:
                assert table == []
        else:
            assert not move["scopa"]
            table.append(move["card"])
    assert sorted(played) == sorted(pack[rules.table_cards :])
    sides = deal["sides"]
    assert [s["side"] for s in sides] == list(range(rules.n_sides))
    captured = sorted(c for s in sides for c in s["captured"]) + deal.get("leftovers", [])
    assert sorted(captured) == list(range(40))
    for side in sides:
        assert set(side) >= {"side", "captured", "points", "total"}
        assert list(side["points"]) == list(CATEGORIES)
        assert side["total"] == sum(side["points"].values())
        seats = [s for s in range(rules.n_players) if seat_sides[s] == side["side"]]
        scope = sum(m["scopa"] for m in deal["moves"] if m["seat"] in seats)
        assert side["points"]["scope"] == scope


def test_replay_json_of_an_explicit_deck(capsys):
    rules = variant("classic")
    pack = random_pack(5)
    status, out, err = scopa_sim(capsys, *REPLAY, "--seed", "9", "--deck", joined(pack), "--json")
    assert status == 0, err
    lines = out.splitlines()
    assert len(lines) == 1
    check_deal_json(json.loads(lines[0]), rules, pack)
    # spaces are allowed; the same seed gives the same deal
    status, again, err = scopa_sim(
        capsys, *REPLAY, "--seed", "9", "--deck", ", ".join(map(str, pack)), "--json"
    )
    assert status == 0 and again == out


def test_replay_json_of_a_decks_file_with_a_throw_in(capsys, tmp_path):
    rules = variant("classic-4p")
    pack, thrown = random_pack(8), throw_in_pack()
    path = tmp_path / "packs.txt"
    path.write_text(f"{joined(pack)}\n\n{joined(thrown)}\n")
    args = [
        "replay",
        "--variant",
        "classic-4p",
        "--players",
        "random,greedy",
        "--decks-file",
        path,
        "--json",
    ]
    status, out, err = scopa_sim(capsys, *args)
    assert status == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    first, second = map(json.loads, lines)
    check_deal_json(first, rules, pack)
    assert second["throw_in"] is True
    assert second["moves"] == []
    assert second["deck"] == thrown
    assert second["variant"] == "classic-4p" and second["dealer"] == 3
    # without the throw-in rule that pack is played
    status, out, err = scopa_sim(capsys, *args, "--option", "throw_in=false")
    assert status == 0, err
    played = json.loads(out.splitlines()[1])
    check_deal_json(played, variant("classic-4p", throw_in=False), thrown)
    # four kings are a throw-in too
    four = [9, 19, 29, 39] + [c for c in range(40) if c not in KINGS]
    status, out, err = scopa_sim(capsys, *REPLAY, "--deck", joined(four), "--json")
    assert status == 0, err
    assert json.loads(out)["throw_in"] is True and json.loads(out)["moves"] == []


def test_replay_text_mentions_every_move(capsys):
    rules = variant("classic")
    code = rules.pack.code
    pack = random_pack(13)
    status, text, err = scopa_sim(capsys, *REPLAY, "--seed", "2", "--deck", joined(pack))
    assert status == 0, err
    status, out, err = scopa_sim(capsys, *REPLAY, "--seed", "2", "--deck", joined(pack), "--json")
    moves = json.loads(out)["moves"]
    pattern = re.compile(
        r"^\s*(\d+)\. seat (\d+) \(side (\d+)\) plays (\S+)( takes ([^\n]*?))?(  SCOPA)?$"
    )
    found = [m for m in map(pattern.match, text.splitlines()) if m]
    assert len(found) == len(moves)
    for i, (m, move) in enumerate(zip(found, moves, strict=True), 1):
        assert int(m[1]) == i
        assert int(m[2]) == move["seat"]
        assert int(m[3]) == rules.side_of_seat(move["seat"])
        assert m[4] == code(move["card"])
        assert (m[6] or "").split() == [code(c) for c in move["captured"]]
        assert bool(m[7]) == move["scopa"]
    assert "table: " + " ".join(code(c) for c in pack[:4]) in text
    # each hand as dealt, seat 0 first, before its plays
    for hand in range(6):
        blocks = [pack[4 + 6 * hand + 3 * seat : 7 + 6 * hand + 3 * seat] for seat in range(2)]
        dealt = "; ".join(
            f"seat {seat} " + " ".join(code(c) for c in sorted(block))
            for seat, block in enumerate(blocks)
        )
        assert f"hand {hand + 1}: {dealt}" in text
    for side in json.loads(out)["sides"]:
        assert f"side {side['side']}: " in text and f"total {side['total']}" in text
    # a throw-in says so
    status, text, err = scopa_sim(capsys, *REPLAY, "--deck", joined(throw_in_pack()))
    assert status == 0, err
    assert "thrown in" in text and "seat 0 (" not in text


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A small recorded run (classic, greedy against random), and its data."""
    out = tmp_path_factory.mktemp("small") / "small"
    config = runner.RunConfig.create(
        variant="classic", players="greedy,random", mode="games", count=2500, seed=17, out=out,
        chunk_size=900,
    )  # fmt: skip
    runner.run(config, progress=False)
    return out, pl.read_parquet(out / "*.parquet").sort("game", "deal", "side")


def _check_against_row(deal: dict, rows: pl.DataFrame) -> None:
    assert deal["throw_in"] is False
    for side, row in zip(deal["sides"], rows.iter_rows(named=True), strict=True):
        assert side["side"] == row["side"]
        assert side["total"] == row["points"]
        for category in CATEGORIES:
            assert side["points"][category] == row[f"pt_{category}"], category
        assert sum(1 << c for c in side["captured"]) == row["captured"]
        assert len(side["captured"]) == row["cards"]


def test_replay_a_deal_of_a_run(capsys, small_run):
    folder, df = small_run
    rules = variant("classic")
    last = df.filter(pl.col("final")).row(0, named=True)  # the final deal of game 0
    redealt = df.filter(pl.col("redeals") > 0)
    assert redealt.height > 0, "no redeal in the run: make it longer"
    middle = df.filter(pl.col("game") == 1234)["deal"].max() // 2
    picks = [
        (0, 0),
        (last["game"], last["deal"]),
        (redealt["game"][0], redealt["deal"][0]),
        (1234, middle),
    ]
    for game, deal in picks:
        rows = df.filter((pl.col("game") == game) & (pl.col("deal") == deal))
        assert rows.height == 2
        status, out, err = scopa_sim(
            capsys, "replay", "--run", folder, "--game", game, "--deal", deal, "--json"
        )
        assert status == 0, err
        lines = out.splitlines()
        assert len(lines) == 1
        record = json.loads(lines[0])
        check_deal_json(record, rules, record["deck"])
        _check_against_row(record, rows)
        # the text form of the same deal
        status, text, err = scopa_sim(
            capsys, "replay", "--run", folder, "--game", game, "--deal", deal
        )
        assert status == 0, err
        assert sum(bool(re.match(r"^\s*\d+\. seat", line)) for line in text.splitlines()) == len(
            record["moves"]
        )
        for side in record["sides"]:
            assert f"total {side['total']}" in text


def test_replay_a_deal_of_a_deals_run_with_partners(capsys, tmp_path):
    out = tmp_path / "partners"
    status, _, err = scopa_sim(
        capsys, "simulate", "--variant", "classic-4p", "--players", "random,greedy", "--deals",
        "300", "--seed", "4", "--out", out, "--option", "forced_capture=true",
    )  # fmt: skip
    assert status == 0, err
    df = pl.read_parquet(out / "*.parquet").sort("game", "deal", "side")
    rules = variant("classic-4p", forced_capture=True)
    for game in (0, 1, 2, 3, 299):
        status, text, err = scopa_sim(capsys, "replay", "--run", out, "--game", game, "--json")
        assert status == 0, err
        record = json.loads(text)
        check_deal_json(record, rules, record["deck"])
        assert record["variant"] == "classic-4p:forced_capture=true"
        _check_against_row(record, df.filter(pl.col("game") == game))


# simulate --------------------------------------------------------------------------------------


def test_simulate_config_with_two_runs(capsys, tmp_path):
    path = tmp_path / "batch.toml"
    path.write_text(
        f"""
[defaults]
out = "{tmp_path / "data"}"
players = ["greedy", "random"]

[[run]]
name = "plain"
variant = "classic"
games = 300
chunk_size = 120

[[run]]
name = "partners-16"
variant = "classic-4p"
players = ["random", "random"]
options = {{ target = 16, re_bello = true }}
deals = 500
workers = 1
"""
    )
    status, out, err = scopa_sim(capsys, "simulate", "--config", path, "--seed", "6")
    assert status == 0, err
    assert len(out.splitlines()) == 2
    first, second = tmp_path / "data" / "plain", tmp_path / "data" / "partners-16"
    for folder, name, count in ((first, "plain", 300), (second, "partners-16", 500)):
        meta = json.loads(storage.manifest_path(folder).read_text())
        assert meta["complete"] is True
        assert meta["config"]["name"] == name and meta["config"]["seed"] == 6
        df = pl.scan_parquet(folder / "*.parquet").collect()
        assert df["run"].unique().to_list() == [name]
        assert df["game"].n_unique() == count
    assert json.loads(storage.manifest_path(first).read_text())["chunks_total"] == 3
    meta = json.loads(storage.manifest_path(second).read_text())["config"]
    assert meta["mode"] == "deals" and meta["players"] == ["random", "random"]
    assert meta["options"]["target"] == 16 and meta["options"]["re_bello"] is True
    assert meta["variant_label"] == "classic-4p:re_bello=true,target=16"
    # running the batch again plays nothing
    status, out, err = scopa_sim(capsys, "simulate", "--config", path, "--seed", "6")
    assert status == 0, err
    assert out.count("0 chunks played") == 2


# bad input that once ended in a traceback (regression tests)

WRONG_TYPES = {
    "toml out not a string": "out = 5\n",
    "toml name not a string": 'name = 5\nout = "data"\n',
    "toml players not a list": "players = 5\n",
    "toml players not names": "players = [1, 2]\n",
}


@pytest.mark.parametrize("case", list(WRONG_TYPES))
def test_bad_input_batch_value_of_the_wrong_type(capsys, tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "batch.toml"
    base = "[defaults]\nseed = 1\n" + GOOD_RUN
    key = WRONG_TYPES[case].split(" =")[0]
    lines = [line for line in base.splitlines() if not line.startswith(f"{key} =")]
    path.write_text("\n".join(lines) + "\n" + WRONG_TYPES[case])
    status, stdout, err = scopa_sim(capsys, "simulate", "--config", path)
    assert_bad_input(status, stdout, err, str(path), key)


def test_bad_input_empty_decks_file(capsys, tmp_path):
    path = tmp_path / "packs.txt"
    path.write_text("\n  \n")
    status, stdout, err = scopa_sim(capsys, *REPLAY, "--decks-file", path)
    assert_bad_input(status, stdout, err, str(path))


@pytest.mark.parametrize("command", ["replay", "simulate"])
def test_bad_input_file_not_utf8(capsys, tmp_path, command):
    path = tmp_path / "binary"
    path.write_bytes(b"\xff\xfe\x00junk\n")
    args = (
        [*REPLAY, "--decks-file", path] if command == "replay" else ["simulate", "--config", path]
    )
    status, stdout, err = scopa_sim(capsys, *args)
    assert_bad_input(status, stdout, err, str(path))


@pytest.mark.parametrize("out", [".", "/"])
def test_bad_input_out_without_a_name(capsys, tmp_path, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    status, stdout, err = scopa_sim(capsys, *SIM, "--out", out)
    assert_bad_input(status, stdout, err, "--out")


def test_bad_input_out_dot_dot_scratch_in_the_wrong_place(capsys, tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    status, stdout, err = scopa_sim(capsys, *SIM, "--out", "..")
    assert_bad_input(status, stdout, err, "--out")  # ".." holds "here": refused
    assert list((tmp_path / "here").iterdir()) == [], "a scratch folder was left in the cwd"


UNREACHABLE = "tcp://127.0.0.1:9"  # nothing listens on the discard port
UNREACHABLE_LINE = (
    f"scopa-sim: error: cannot reach the Dask scheduler at {UNREACHABLE} (OSError); check the "
    "address (tcp://HOST:PORT) and that the scheduler is running"
)


def test_bad_input_unreachable_scheduler(tmp_path):
    """A refused connection fails at once (the early check), not after dask's 10 s of retries."""
    pytest.importorskip("dask.distributed")
    out = tmp_path / "out"
    args = [*SIM, "--out", out, "--backend", "dask", "--scheduler", UNREACHABLE]
    result = subprocess.run(
        [PYTHON, "-m", "scopa_sim", *map(str, args)], capture_output=True, text=True, timeout=90
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [UNREACHABLE_LINE]
    assert complete_manifests(tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_unreachable_scheduler_through_the_runner_says_the_same(capsys, tmp_path, monkeypatch):
    """Without the early checks the runner's own connection fails (dask's timeout, shortened
    here) with the same line."""
    distributed = pytest.importorskip("dask.distributed")
    client = distributed.Client

    def quick(address, timeout):  # the runner's Client(address, timeout="10s")
        return client(address, timeout="0.5s")

    monkeypatch.setattr(distributed, "Client", quick)
    _without_early_checks(monkeypatch)
    args = [*SIM, "--out", tmp_path / "out", "--backend", "dask", "--scheduler", UNREACHABLE]
    status, stdout, err = scopa_sim(capsys, *args)
    assert_bad_input(status, stdout, err)
    assert err.splitlines() == [UNREACHABLE_LINE]
    assert list(tmp_path.iterdir()) == []


def test_progress_bar_shows_deals_rate_and_time_left(capsys, tmp_path):
    """--progress forces the bar that a terminal gets: games done, deals, deals/s, time left."""
    out = tmp_path / "run"
    args = ["simulate", "--variant", "classic", "--players", "greedy,random", "--games", "3000",
            "--seed", "2", "--chunk-size", "1000", "--out", str(out), "--progress"]  # fmt: skip
    status, _, err = scopa_sim(capsys, *args)
    assert status == 0, err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "3000/3000" in last and "deals/s" in last and "deals," in last
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", last)  # elapsed < time left


# variants NAME: one preset in full, from the rules data ----------------------------------------


def _command(*args) -> subprocess.CompletedProcess:
    """The real command line, in its own process."""
    return subprocess.run(
        [PYTHON, "-m", "scopa_sim", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def _option_lines(text: str) -> dict[str, list[str]]:
    """The option rows of ``variants NAME``: name -> [default, allowed values, help...]."""
    rows = {}
    for line in text.splitlines():
        words = line.split()
        if line.startswith("    ") and words and words[0] in OPTIONS:
            rows[words[0]] = words[1:]
    return rows


def _plain(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(getattr(value, "value", value))


def test_variants_lists_every_preset_through_the_real_command():
    from scopa_sim.rules import PRESET_HELP

    result = _command("variants")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(PRESETS)
    for line, (name, rules) in zip(lines, PRESETS.items(), strict=True):
        assert PRESET_HELP[name] in line
        assert line.endswith(f"target {rules.target}")


def test_variants_classic_through_the_real_command():
    result = _command("variants", "classic")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    text = result.stdout
    assert text.splitlines()[0].startswith("classic: ")
    for fragment in [
        "2 players, each on their own",
        "40 cards",
        "4 cards on the table",
        "6 hands of 3 cards each",
        "throw-in (3 or 4 kings on the table): on",
        "same rank",
        "most cards, most coins, seven of coins, primiera (standard; a missing suit: void)",
        "not on the last play",
        "target:   11",
        "the most points",
        "docs/rules.md",
    ]:
        assert fragment in text, fragment
    rows = _option_lines(text)
    rules = PRESETS["classic"]
    assert set(rows) == set(rules.allowed_options)
    for name, row in rows.items():
        assert row[0] == _plain(getattr(rules, name)), name  # the default
        assert row[1] == OPTIONS[name].values, name  # the allowed values
        assert " ".join(row[2:]) == OPTIONS[name].help, name
    assert "ace_sweep_scopa" not in rows
    assert re.search(r"not accepted: .*\bace_sweep_scopa\b", text)


def test_variants_unknown_name_through_the_real_command():
    result = _command("variants", "clasic")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("scopa-sim: error: unknown variant 'clasic'; choose one of: ")
    assert lines[0].endswith(" (see docs/rules.md)")
    assert all(name in lines[0] for name in PRESETS)


@pytest.mark.parametrize("name", list(PRESETS))
def test_variants_name_shows_every_accepted_option_with_its_default(capsys, name):
    rules = PRESETS[name]
    status, out, err = scopa_sim(capsys, "variants", name)
    assert status == 0 and err == ""
    rows = _option_lines(out)
    assert list(rows) == [o for o in OPTIONS if o in rules.allowed_options]  # in OPTIONS order
    for option, row in rows.items():
        assert row[:2] == [_plain(getattr(rules, option)), OPTIONS[option].values], option
    refused = [o for o in OPTIONS if o not in rules.allowed_options]
    if refused:
        assert f"not accepted: {', '.join(refused)}" in out
    else:
        assert "not accepted" not in out
    rules_part = out.split("\n  options (")[0]  # the description, without the option rows
    assert f"target:   {rules.target}\n" in rules_part
    assert f"({rules.pack.n_cards} cards)" in rules_part
    assert f"{rules.n_players} players" in rules_part
    assert ("primiera (" in rules_part) == (rules.primiera is not None)
    assert ("most sevens" in rules_part) == rules.most_sevens
    assert ("count in turn order" in rules_part) == rules.count_in_turn_order
    assert ("wins at once" in rules_part) == rules.scopa_wins_immediately


def test_variants_name_follows_the_deal_shape(capsys):
    expected = {
        "classic-6p": ["6 players in 2 teams of 3", "2 hands of 3 cards each"],
        "scopone": [
            "4 players in 2 teams of 2",
            "one hand of 9 cards each",
            "4 cards on the table",
        ],
        "scopone-scientifico": ["no table cards", "one hand of 10 cards each", "no throw-in"],
        "escoba": ["15 - v", "1 escoba", "2 escobas", "no throw-in"],
        "asso-piglia-tutto": ["an ace played with no ace on the table takes every table card"],
        "scopa-52-3p": ["52 cards", "4 hands of 3 cards each, then 1 hand of 4", "most hearts"],
        "scopa-52-4p": ["4 players, each on their own", "4 hands of 3 cards each"],
    }
    for name, fragments in expected.items():
        status, out, _ = scopa_sim(capsys, "variants", name)
        assert status == 0
        for fragment in fragments:
            assert fragment in out, (name, fragment)


def test_help_and_rule_errors_point_to_the_rules_document(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "250")
    for args in (["--help"], ["simulate", "--help"], ["variants", "--help"], ["compare", "--help"],
                 ["replay", "--help"]):  # fmt: skip
        status, out, _ = scopa_sim(capsys, *args)
        assert status == 0 and "docs/rules.md" in out, args
    out_dir = tmp_path / "run"
    bad = {
        "option": ([*SIM, "--option", "ace_sweep_scopa=true"], "does not apply to classic"),
        "value": ([*SIM, "--option", "primiera=best"], "primiera"),
        "variant": (_with(SIM, "--variant", "scopa"), "unknown variant 'scopa'"),
        "arm": (
            [
                "compare",
                "classic",
                "escoba:throw_in=true",
                *"--players greedy,random --deals 9 --seed 1".split(),
            ],
            "does not apply to escoba",
        ),
    }
    for what, (args, fragment) in bad.items():
        if args[0] == "simulate":
            args = [*args, "--out", out_dir]
        status, out, err = scopa_sim(capsys, *args)
        line = assert_bad_input(status, out, err, fragment, "docs/rules.md")
        assert line.count("docs/rules.md") == 1, (what, line)
    assert not out_dir.exists()
