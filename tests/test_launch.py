"""The command's entry point: which command lines get their workers started before the imports."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from scopa_sim import launch, runner
from scopa_sim.launch import requested_workers


@pytest.mark.parametrize(
    ("argv", "workers"),
    [
        ([], 1),
        (["simulate", "--workers", "2"], 2),
        (["simulate", "--workers=3"], 3),
        (["tournament", "--workers", "2", "--deals", "10"], 2),
        (["simulate", "--workers", "2", "--backend", "dask"], 1),  # dask has its own workers
        (["simulate", "--workers", "2", "--backend=threading"], 1),
        (["simulate", "--workers", "2", "--backend", "loky"], 2),
        (["simulate", "--workers", "2", "--help"], 1),
        (["compare", "--workers", "2"], 1),  # joblib's own executor, of another size
        (["simulate", "--workers", "two"], 1),  # the command itself reports the bad number
        (["simulate", "--config", "/nonexistent/batch.toml"], 1),
        (["simulate"], 1),
    ],
)
def test_requested_workers_from_the_command_line(monkeypatch, argv, workers):
    monkeypatch.setattr(launch, "PARALLEL_COMMANDS", ("simulate", "tournament"))  # any platform
    assert requested_workers(argv) == workers


def test_simulate_prestarts_loky_workers_only_where_it_cannot_fork_its_own():
    """Where the runner forks (Linux), simulate starts no loky worker; tournament always does."""
    assert ("simulate" in launch.PARALLEL_COMMANDS) is not runner.FORKS
    assert "tournament" in launch.PARALLEL_COMMANDS
    expected = 1 if runner.FORKS else 2
    assert requested_workers(["simulate", "--workers", "2"]) == expected


def test_requested_workers_from_a_config_file(monkeypatch, tmp_path):
    monkeypatch.setattr(launch, "PARALLEL_COMMANDS", ("simulate", "tournament"))
    config = tmp_path / "batch.toml"
    config.write_text('[defaults]\nworkers = 2\n\n[[run]]\nname = "a"\nworkers = 3\n')
    assert requested_workers(["simulate", "--config", str(config)]) == 3
    assert requested_workers(["simulate", "--config", str(config), "--workers", "1"]) == 1
    config.write_text("not = [toml")
    assert requested_workers(["simulate", "--config", str(config)]) == 1
    config.write_text("[defaults]\nworkers = true\n")
    assert requested_workers(["simulate", "--config", str(config)]) == 1


def test_a_bad_command_line_fails_fast_and_cleanly_with_workers_started(tmp_path):
    """A prestarted worker must neither hide the error nor keep the command waiting for it."""
    argv = ["simulate", "--workers", "2", "--variant", "nope", "--players", "random,random"]
    argv += ["--deals", "10", "--seed", "1", "--out", str(tmp_path / "r")]
    out = subprocess.run(
        [sys.executable, "-m", "scopa_sim", *argv], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "nope" in out.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--workers", "2", "--variant", "nope", "--players", "random,random"],
        ["simulate", "--workers", "2", "--games", "ten"],  # argparse: SystemExit
    ],
)
def test_prestarted_workers_are_stopped_when_the_command_ends(monkeypatch, capsys, tmp_path, argv):
    """Not left to exit, where Python would first wait for their warm-up to finish."""
    calls = []
    monkeypatch.setattr(launch, "PARALLEL_COMMANDS", ("simulate", "tournament"))

    class Executor:
        def shutdown(self, **kwargs):
            calls.append(kwargs)

    monkeypatch.setattr(launch, "prestart", lambda workers: Executor())
    try:
        status = launch.main([*argv, "--deals", "10", "--seed", "1", "--out", str(tmp_path / "r")])
    except SystemExit as exit:
        status = exit.code
    err = capsys.readouterr().err
    assert status == 2 and ("nope" in err or "ten" in err), err
    assert calls == [{"wait": False, "kill_workers": True}]


def test_the_console_script_exits_with_the_status_of_main_after_freezing_the_heap(monkeypatch):
    """``scopa-sim`` runs ``launch.console``, which runs main with the collector's thresholds
    raised, ends with main's status and freezes the objects left, so that the interpreter's
    final collections skip them (docstring)."""
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="scopa-sim")
    assert script.value == "scopa_sim.launch:console"
    assert launch.GC_THRESHOLDS[0] > gc.get_threshold()[0]  # pytest runs at the defaults
    events = []
    monkeypatch.setattr(launch, "main", lambda: events.append(("main", gc.get_threshold())) or 3)
    monkeypatch.setattr(launch.gc, "freeze", lambda: events.append("freeze"))
    before = gc.get_threshold()
    try:
        with pytest.raises(SystemExit) as exit:
            launch.console()
    finally:
        gc.set_threshold(*before)
    assert exit.value.code == 3
    assert events == [("main", launch.GC_THRESHOLDS), "freeze"]


def test_a_prestarted_worker_warms_up_with_the_commands_collector_thresholds():
    """``warm_up`` (the first task of a prestarted loky worker) raises the collector's
    thresholds as ``console`` does, before its imports, and loads the kernels."""
    before = gc.get_threshold()
    try:
        launch.warm_up()
        assert gc.get_threshold() == launch.GC_THRESHOLDS
    finally:
        gc.set_threshold(*before)
