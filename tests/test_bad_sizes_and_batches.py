"""Absurd sizes, batch files that would write outside their folder, overrides beside --config,
and the docs a newcomer pastes from.

A size no run can hold (``--deals 99999999999999999999``) is refused up front, in one line that
says the limit and why, with memory flat and nothing written: checked in a subprocess under a
memory limit and a time limit, as a user would meet it. A batch file's run names are plain
folder names, unique, checked before anything plays.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim import cli, sizes, storage
from scopa_sim.runner import RunConfig, RunError
from scopa_sim.tournament.schedule import folder_name
from tests.support.cli import scopa_sim

ROOT = Path(__file__).resolve().parents[1]
HUGE = "99999999999999999999"
PREFIXES = ("scopa-sim: error:", "scopa-sim simulate: error:", "scopa-sim compare: error:",
            "scopa-sim plan: error:", "scopa-sim tournament: error:")  # fmt: skip


def one_line_refusal(status, out, err, *fragments) -> str:
    assert status == 2, (status, err)
    assert "Traceback" not in err and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(PREFIXES), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# sizes -----------------------------------------------------------------------------------------

CLASSIC = ["--variant", "classic", "--players", "greedy,random", "--seed", "1"]
ARMS = ["classic", "classic:forced_capture=true", "--players", "greedy,random", "--seed", "1"]

#: Command lines with sizes no run can hold, and what the one line must say.
HUGE_CASES = {
    "simulate --deals": (["simulate", *CLASSIC, "--deals", HUGE], ["10^12", "deals per run"]),
    "simulate --games": (["simulate", *CLASSIC, "--games", HUGE], ["10^12", "games per run"]),
    "simulate too many chunks": (
        ["simulate", *CLASSIC, "--deals", "200000000000", "--chunk-size", "1000"],
        ["200,000,000 chunk files", "1,000,000", "--chunk-size 200,000"],
    ),
    "simulate --chunk-size": (
        ["simulate", *CLASSIC, "--deals", "100", "--chunk-size", "1000000000"],
        ["--chunk-size 1,000,000,000", "at most 10,000,000", "memory"],
    ),
    "simulate --workers": (
        ["simulate", *CLASSIC, "--deals", "100", "--workers", "100000"], ["1,024", "process"]
    ),
    "tournament --deals": (
        ["tournament", *CLASSIC, "--deals", HUGE], ["10^12", "deals per run"]
    ),
    "compare --deals": (["compare", *ARMS, "--deals", HUGE], ["10^12", "--deals"]),
    "compare --max": (
        ["compare", *ARMS, "--deals", "100", "--precision", "0.01", "--max", "999999999999"],
        ["--max", "GB", "memory"],
    ),
    "plan --pilot": (
        ["plan", *ARMS, "--metric", "scope", "--effect", "0.1", "--pilot", HUGE],
        ["--pilot", "10^12"],
    ),
}  # fmt: skip


def _limit_memory() -> None:  # in the child: an allocation past 4 GB fails instead of swapping
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.parametrize("case", list(HUGE_CASES))
def test_absurd_sizes_are_refused_up_front_in_one_line(tmp_path, case):
    args, fragments = HUGE_CASES[case]
    if args[0] in ("simulate", "tournament"):
        args = [*args, "--out", str(tmp_path / "out")]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "scopa_sim", *args], capture_output=True, text=True, timeout=120,
        cwd=tmp_path, preexec_fn=_limit_memory,
        env={"PATH": "/usr/bin:/bin", "NUMBA_CACHE_DIR": "/tmp/numba-helpers",
             "SCOPA_SIM_NO_WARMUP": "1", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert time.monotonic() - started < 60, "a refusal comes before any work"
    one_line_refusal(done.returncode, done.stdout, done.stderr, *fragments)
    assert list(tmp_path.iterdir()) == [], "nothing is written"


def test_run_config_refuses_sizes_past_the_limits(tmp_path):
    kw = dict(variant="classic", players="greedy,random", seed=1, out=tmp_path / "r")
    with pytest.raises(RunError, match="10\\^12"):
        RunConfig.create(mode="deals", count=sizes.MAX_COUNT + 1, chunk_size=10**7, **kw)
    with pytest.raises(RunError, match="--chunk-size 2"):
        RunConfig.create(mode="games", count=2 * sizes.MAX_CHUNKS, chunk_size=1, **kw)
    with pytest.raises(RunError, match="at most 2,000,000"):
        RunConfig.create(mode="games", count=10, chunk_size=sizes.MAX_CHUNK_SIZE["games"] + 1, **kw)
    # the limits themselves are accepted, and nothing is built per chunk
    config = RunConfig.create(mode="deals", count=sizes.MAX_COUNT, chunk_size=10**6, **kw)
    assert config.n_chunks == sizes.MAX_CHUNKS
    assert not (tmp_path / "r").exists()


def test_early_check_and_runner_give_the_same_size_line(capsys, tmp_path, monkeypatch):
    args = ["simulate", *CLASSIC, "--deals", HUGE, "--out", tmp_path / "r"]
    early = scopa_sim(capsys, *args)
    monkeypatch.setattr(cli.checks, "check_run_early", lambda settings: False)
    assert scopa_sim(capsys, *args) == early
    one_line_refusal(*early, "10^12")


# batch files -----------------------------------------------------------------------------------

RUN = '[[run]]\nname = "{name}"\nvariant = "classic"\nplayers = ["greedy", "random"]\ngames = 4\n'


def _batch(tmp_path: Path, *names: str, extra: str = "") -> Path:
    path = tmp_path / "batch" / "runs.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = '[defaults]\nseed = 1\nout = "out"\n' + extra
    text += "".join(RUN.format(name=n) for n in names)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("../../escape", "path separator"),
        ("sub/run", "path separator"),
        ("back\\\\slash", "path separator"),
        ("/tmp/absolute", "path separator"),
        ("..", "outside"),
        (".", "outside"),
        ("  ", "empty"),
    ],
)
def test_a_run_name_cannot_write_outside_the_batch_out_folder(
    capsys, tmp_path, monkeypatch, name, fragment
):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    path = _batch(work, "fine", name)
    status, out, err = scopa_sim(capsys, "simulate", "--config", path)
    shown = name.replace("\\\\", "\\")
    line = one_line_refusal(status, out, err, str(path), "run 2", f"name {shown!r}", fragment)
    assert "run 2 (" in line
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "batch", "runs.toml"]


def test_duplicate_run_names_are_refused_before_anything_plays(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _batch(tmp_path, "one", "two", "one")
    status, out, err = scopa_sim(capsys, "simulate", "--config", path)
    one_line_refusal(status, out, err, "run 3", "'one'", "run 1", "nothing has been played")
    assert not (tmp_path / "out").exists()


def test_too_many_workers_in_a_batch_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _batch(tmp_path, "one", extra="workers = 5000\n")
    status, out, err = scopa_sim(capsys, "simulate", "--config", path)
    one_line_refusal(status, out, err, "run 1", "workers", "1,024")


def test_seed_and_chunk_size_beside_config_override_every_run(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _batch(tmp_path, "one", "two", extra="chunk_size = 4\n")
    args = ["simulate", "--config", path, "--seed", "6", "--chunk-size", "1", "--no-progress"]
    status, _, err = scopa_sim(capsys, *args)
    assert status == 0, err
    for name in ("one", "two"):
        manifest = storage.read_manifest((tmp_path / "out" / name).absolute())
        assert manifest["config"]["seed"] == 6 and manifest["config"]["chunk_size"] == 1
        assert manifest["chunks_total"] == 4 and manifest["complete"]
    help_text = scopa_sim(capsys, "simulate", "--help")[1]
    assert "override every run's seed and chunk size" in " ".join(help_text.split())


# docs a newcomer pastes from --------------------------------------------------------------------


def _commands(text: str) -> list[str]:
    """The command lines of a document's ``sh`` blocks, continuation lines joined."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        out += [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    return out


def test_players_doc_commands_paste_as_written():
    commands = _commands((ROOT / "docs" / "players.md").read_text(encoding="utf-8"))
    assert len(commands) >= 5
    for line in commands:
        words = line.split("#")[0].split()
        program = next(w for w in words if "=" not in w)  # after VAR=value prefixes
        assert program.startswith(".venv/bin/"), line
        assert "..." not in line, f"a placeholder that fails as pasted: {line}"
        if " simulate " in line:
            assert "--out " in line, f"simulate without --out: {line}"
        if "--run data/my-run" in line:  # the README's run: every game has a deal 0
            assert "--deal 0" in line, line
        if "--deck " in line:
            pack = line.split("--deck ")[1].split()[0].split(",")
            assert sorted(map(int, pack)) == list(range(40)), line


def test_help_examples_do_not_write_into_the_readme_folders(capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    taken = set(re.findall(r"--out (\S+)", readme))
    assert "data/my-run" in taken
    for command in ("simulate", "tournament"):
        text = scopa_sim(capsys, command, "--help")[1]
        examples = text.split("examples:")[1]
        assert not taken & set(re.findall(r"--out (\S+)", examples)), command
        if command == "tournament":
            assert all("--out" in ex for ex in examples.split("scopa-sim tournament")[1:])


def test_tournament_help_has_no_doubled_percent(capsys):
    text = scopa_sim(capsys, "tournament", "--help")[1]
    assert "%%" not in text and "95% CIs" in " ".join(text.split())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("./\\:=_+-aZ9 \0~"), max_size=12))
def test_tournament_folder_names_stay_inside_the_tournament_folder(spec):
    """The lineup folders DIR/<a>-vs-<b>/ are built from player specs: one plain component."""
    name = folder_name(spec)
    assert name and "/" not in name and "\\" not in name and "\0" not in name
    assert not name.startswith(".")  # neither "." nor ".." nor a hidden file
    root = Path("/t/out")
    assert (root / f"{name}-vs-{name}").resolve().parent == root


@pytest.mark.parametrize("name", ["../escape", "/abs", "..", "a/b"])
def test_tournament_config_names_stay_inside_data_tournaments(tmp_path, name):
    from analyses.tournaments import ConfigError, load_config

    path = tmp_path / "t.toml"
    table = '[[tournament]]\nname = "{}"\nvariant = "classic"\nplayers = ["greedy", "random"]\n'
    path.write_text(table.format(name) + "seed = 1\ndeals = 10\n")
    with pytest.raises(ConfigError, match=f"name {re.escape(repr(name))}"):
        load_config(path)
    path.write_text((table.format("same") + "seed = 1\ndeals = 10\n") * 2)
    with pytest.raises(ConfigError, match="given twice"):
        load_config(path)
