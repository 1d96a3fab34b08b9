"""``scopa-sim analyse`` on a designer's variant file, and the deal viewer's analyse commands of
a run: every command line the tool prints names rules it can read back.

A variant file's rules have a name that is no preset, so a command that printed
``--variant NAME`` would be refused. A variant read from a file remembers the file
(``Variant.source``) and the commands name it; a run's deals name their rules by the run
(``analyse --run DIR``), which also covers a run whose file is gone.
"""

from __future__ import annotations

import html
import json
import re
import shlex
import shutil
from pathlib import Path

import numpy as np

from scopa_sim.rules import variant
from tests.support.cli import scopa_sim

EXAMPLE = Path(__file__).resolve().parents[1] / "configs" / "variants" / "examples"
POSITION = ["--hand", "7D,3C,RB,AS", "--table", "4D,3S,2B,FC", "--player", "pimc:samples=8"]


def test_a_variant_read_from_a_file_remembers_it_without_changing_what_it_is():
    path = str(EXAMPLE / "four-card-hands.toml")
    read = variant(path)
    assert read.source == path and variant("classic").source is None
    again = variant(path, forced_capture=True)
    assert again.source == path  # options keep the file
    assert read == variant(path) and hash(read) == hash(variant(path))
    assert "source" not in repr(read)  # a repr is a cache key


def test_analyse_of_a_variant_file_writes_its_page_and_names_the_file(tmp_path, capsys):
    game = tmp_path / "my game.toml"  # a name a shell must quote
    shutil.copy(EXAMPLE / "four-card-hands.toml", game)
    page = tmp_path / "position.html"
    code, out, err = scopa_sim(
        capsys, "analyse", "--variant", game, *POSITION, "--json", "--html", page
    )
    assert code == 0, err
    document = json.loads(out)
    assert document["position"]["variant"] == "four-card-hands"
    assert shlex.split(document["command"])[2:4] == ["--variant", str(game)]
    assert "4D" in page.read_text(encoding="utf-8")
    # the printed command runs as printed and gives the same answer
    code, again, err = scopa_sim(capsys, *shlex.split(document["command"])[1:], "--json")
    assert code == 0, err
    assert json.loads(again)["moves"] == document["moves"]


def test_the_viewer_of_a_file_variant_run_names_the_run_and_its_commands_run(tmp_path, capsys):
    game = tmp_path / "four.toml"
    shutil.copy(EXAMPLE / "four-card-hands.toml", game)
    run = tmp_path / "run"
    code, _, err = scopa_sim(capsys, "simulate", "--variant", game, "--players", "greedy,random",
                             "--deals", 20, "--seed", 4, "--out", run)  # fmt: skip
    assert code == 0, err
    game.unlink()  # the run records its rules: the file is not needed any more
    page = tmp_path / "replay.html"
    code, _, err = scopa_sim(capsys, "replay", "--run", run, "--game", 3, "--html", page)
    assert code == 0, err
    commands = [html.unescape(c) for c in re.findall(r"<pre>(scopa-sim analyse [^<]*)</pre>",
                                                     page.read_text(encoding="utf-8"))]  # fmt: skip
    assert len(commands) == variant(EXAMPLE / "four-card-hands.toml").plays
    for command in commands[::9]:
        words = shlex.split(command)
        assert words[2:4] == ["--run", str(run)]
        code, out, err = scopa_sim(capsys, *words[1:], "--player", "pimc:samples=4", "--json")
        assert code == 0, err
        assert json.loads(out)["position"]["variant"] == "four-card-hands"


def test_analyse_run_without_a_run_is_one_line(tmp_path, capsys):
    code, out, err = scopa_sim(capsys, "analyse", "--run", tmp_path, *POSITION)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "no run there" in err and "--variant" in err
    code, _, err = scopa_sim(capsys, "analyse", "--run", tmp_path, "--variant", "classic",
                             *POSITION)  # fmt: skip
    assert code == 2 and "not allowed with argument" in err


def test_a_preset_s_commands_are_as_before():
    from scopa_sim.position.model import analyse_command

    rules = variant("classic", target=16)
    hand = np.array([0, 1, 2])
    command = analyse_command(rules, 0, hand, [], [], [set(), set()], [0, 0], None, -1)
    assert command.startswith("scopa-sim analyse --variant classic --option target=16 --seat 0")
