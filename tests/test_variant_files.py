"""Variant files (docs/rules.md, "Write your own variant"): presets are such files, a file plays
what its definition says, a run records the definition, and bad files get one line naming the
key.

The preset files' content is held to the presets as they were in code by tests/test_golden.py
and tests/test_agreement.py (every preset's data and rules); here, the user-facing copies in
configs/variants/ must play the same data byte for byte, through the file path of every command.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scopa_sim import api, cli, compare, runner, storage
from scopa_sim.cards import ITALIAN_40
from scopa_sim.rules import (
    CATEGORIES,
    PRESETS,
    RulesError,
    definition_of,
    load_variant_file,
    resolve_variant,
    variant,
    variant_of_config,
)
from scopa_sim.rules.definition import from_definition, to_toml
from scopa_sim.rules.files import parse_variant_file
from scopa_sim.rules.presets import PRESET_NAMES, preset_text
from tests import test_agreement
from tests.support.cli import scopa_sim

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs" / "variants"
PACKAGE = ROOT / "scopa_sim" / "rules" / "presets"
EXAMPLES = sorted((CONFIGS / "examples").glob("*.toml"))


def write(tmp_path: Path, text: str, name: str = "house.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- presets are files ----------------------------------------------------------------------


def test_every_preset_is_a_package_file_and_its_configs_copy_is_identical():
    assert sorted(p.stem for p in PACKAGE.glob("*.toml")) == sorted(PRESET_NAMES)
    assert list(PRESETS) == list(PRESET_NAMES)
    for name in PRESET_NAMES:
        assert (CONFIGS / f"{name}.toml").read_bytes() == (PACKAGE / f"{name}.toml").read_bytes()
        assert preset_text(name) == (PACKAGE / f"{name}.toml").read_text()


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_preset_file_loads_to_the_preset_and_round_trips(name):
    preset = PRESETS[name]
    loaded = load_variant_file(CONFIGS / f"{name}.toml")
    assert loaded == preset
    assert loaded.allowed_options == preset.allowed_options
    assert loaded.summary == preset.summary and loaded.describe() == name
    # The definition a manifest records: JSON, and back to an equal variant.
    definition = json.loads(json.dumps(definition_of(preset)))
    again = from_definition(definition, "manifest")
    assert again == preset and again.allowed_options == preset.allowed_options
    assert parse_variant_file(to_toml(definition), "printed") == preset
    # extends = NAME and nothing else is the preset too.
    assert parse_variant_file(f'extends = "{name}"\nname = "{name}"\n', "x") == preset


def _greedy_run(tmp_path: Path, text: str, name: str, rules, count: int = 300):
    config = runner.RunConfig.create(
        variant=text, players=["greedy"] * rules.n_sides, mode="deals", count=count, seed=11,
        out=tmp_path / name / "run", chunk_size=150,
    )  # fmt: skip
    runner.run(config, workers=1, progress=False)  # the run's name is in its rows: the same
    return config, sorted((tmp_path / name / "run").glob("*.parquet"))


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_configs_file_plays_the_presets_data_byte_for_byte(tmp_path, name):
    rules = PRESETS[name]
    by_name, name_files = _greedy_run(tmp_path, name, "by-name", rules)
    by_file, file_files = _greedy_run(tmp_path, str(CONFIGS / f"{name}.toml"), "by-file", rules)
    assert len(name_files) == len(file_files) == 2
    for a, b in zip(name_files, file_files, strict=True):
        assert a.name == b.name and a.read_bytes() == b.read_bytes()
    # The preset's manifest records no definition (it stays as it was); the file's does.
    assert "definition" not in storage.read_manifest(tmp_path / "by-name" / "run")["config"]
    recorded = storage.read_manifest(tmp_path / "by-file" / "run")["config"]
    assert recorded["definition"] == definition_of(rules) and recorded["variant"] == name
    assert by_file.rules() == by_name.rules() == rules


# --- a file's run is whole without the file ---------------------------------------------------


def test_a_file_run_records_its_definition_and_replays_without_the_file(tmp_path):
    path = shutil.copy(CONFIGS / "examples" / "aces-in-teams.toml", tmp_path / "aces.toml")
    rules = load_variant_file(path)
    config = runner.RunConfig.create(
        variant=str(path), players="greedy,random", mode="games", count=40, seed=5,
        out=tmp_path / "run", options={"target": 11},
    )  # fmt: skip
    runner.run(config, workers=1, progress=False)
    manifest = storage.read_manifest(tmp_path / "run")
    assert manifest["config"]["variant"] == "aces-in-teams"
    assert manifest["config"]["variant_label"] == "aces-in-teams:target=11"
    Path(path).unlink()  # the run no longer needs the file
    rebuilt = variant_of_config(manifest["config"])
    assert rebuilt == variant(str(CONFIGS / "examples" / "aces-in-teams.toml"), target=11)
    assert rebuilt != rules  # the run's option is applied
    record = api.replay_run_deal(tmp_path / "run", game=0, deal=0)
    assert record.variant == rebuilt
    frame = runner.scan(tmp_path / "run").collect()
    assert set(frame["variant"]) == {"aces-in-teams:target=11"}
    first = frame.filter((frame["game"] == 0) & (frame["deal"] == 0)).sort("side")
    assert [s.total for s in record.sides] == first["points"].to_list()


def test_a_changed_file_is_another_run_and_the_same_file_resumes(tmp_path):
    text = (CONFIGS / "examples" / "four-card-hands.toml").read_text()
    path = write(tmp_path, text)
    make = dict(players="greedy,random", mode="deals", count=200, seed=1, out=tmp_path / "run")
    runner.run(runner.RunConfig.create(variant=str(path), **make), workers=1, progress=False)
    again = runner.run(
        runner.RunConfig.create(variant=str(path), **make), workers=1, progress=False
    )
    assert again.chunks_run == 0 and again.chunks_skipped == 1
    path.write_text(text.replace("target = 16", "target = 17"))
    with pytest.raises(runner.RunError, match="holds another run"):
        runner.run(runner.RunConfig.create(variant=str(path), **make), workers=1, progress=False)


# --- files play what they say -----------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_worked_examples_load_play_and_agree_with_the_reference_engine(path):
    rules = load_variant_file(path)
    assert rules.name == path.stem and rules.summary
    # The deal shape the file states, read back from its text.
    data = tomllib.loads(path.read_text())
    if "hands" in data.get("deal", {}):
        assert rules.hands == tuple(data["deal"]["hands"])
    test_agreement.test_engines_agree_deal_by_deal((str(path), {}), 0)


NAMED_CARDS = """\
extends = "classic"
name = "cups-bello"

[scoring]
settebello = "7C"
re_bello = "AD"
"""


def test_named_cards_score_the_card_the_file_names(tmp_path):
    rules = load_variant_file(write(tmp_path, NAMED_CARDS))
    seven_of_cups, ace_of_coins = ITALIAN_40.card(1, 7), ITALIAN_40.card(0, 1)
    assert (rules.settebello, rules.king_of_coins, rules.re_bello) == (
        seven_of_cups, ace_of_coins, True,
    )  # fmt: skip
    players = ["random", "random"]
    got = api.play_deals(rules, players, deals=2000, seed=3)
    base = api.play_deals(PRESETS["classic"], players, deals=2000, seed=3)
    # Random play does not read the scoring: the same captures, scored on other cards.
    np.testing.assert_array_equal(got.captured, base.captured)
    captured = got.captured.astype(np.uint64)
    has_seven = (captured >> np.uint64(seven_of_cups)) & np.uint64(1)
    has_ace = (captured >> np.uint64(ace_of_coins)) & np.uint64(1)
    points = np.asarray(got.points)
    np.testing.assert_array_equal(got.settebello, has_seven.astype(bool))
    np.testing.assert_array_equal(points[..., CATEGORIES.index("settebello")], has_seven)
    np.testing.assert_array_equal(points[..., CATEGORIES.index("re_bello")], has_ace)
    assert (got.settebello != base.settebello).any()
    assert "the 7C (the settebello point)" in cli.describe_variant(rules)
    assert "the AD (the re bello point)" in cli.describe_variant(rules)


def test_named_cards_agree_with_the_reference_engine(tmp_path):
    path = write(tmp_path, NAMED_CARDS.replace("cups-bello", "house"))
    test_agreement.test_engines_agree_deal_by_deal((str(path), {}), 1)


def test_options_apply_to_file_variants_and_describe_against_the_file(tmp_path):
    path = CONFIGS / "examples" / "four-card-hands.toml"
    rules = resolve_variant(f"{path}:target=21,forced_capture=true")
    assert (rules.target, rules.forced_capture, rules.hands) == (21, True, (4, 4, 4, 4, 2))
    assert rules.describe() == "four-card-hands:forced_capture=true,target=21"
    assert resolve_variant(str(path)).describe() == "four-card-hands"  # its own target, 16
    assert resolve_variant(str(path), {"target": "9"}).target == 9
    with pytest.raises(RulesError, match="'ace_sweep_scopa' does not apply to four-card-hands"):
        resolve_variant(f"{path}:ace_sweep_scopa=true")
    arms = compare.parse_arms(["classic", str(path), f"{path}:target=11"])
    assert [a.rules.describe() for a in arms] == [
        "classic", "four-card-hands", "four-card-hands:target=11",
    ]  # fmt: skip


def test_variants_command_describes_a_file_as_its_preset_and_prints_it_back(capsys, tmp_path):
    status, by_file, _ = scopa_sim(capsys, "variants", CONFIGS / "scopone.toml")
    assert status == 0
    assert by_file == scopa_sim(capsys, "variants", "scopone")[1]
    status, text, _ = scopa_sim(capsys, "variants", "escoba", "--toml")
    assert status == 0 and text == to_toml(definition_of(PRESETS["escoba"]))
    mine = parse_variant_file(text.replace('name = "escoba"', 'name = "mine"'), "printed")
    assert mine == replace(PRESETS["escoba"], name="mine")
    assert mine.allowed_options == PRESETS["escoba"].allowed_options


def test_a_tournament_of_a_file_is_named_after_the_variant(tmp_path):
    from scopa_sim import tournament

    plan = tournament.plan(
        variant_name=str(CONFIGS / "examples" / "four-card-hands.toml"),
        players=["greedy", "random"], mode="deals", count=20, seed=4,
    )  # fmt: skip
    assert plan.out.name == "four-card-hands-4-deals"
    assert all(r.definition["name"] == "four-card-hands" for p in plan.pairings for r in p.runs)


# --- bad files: one line, exit 2, naming the key ------------------------------------------------

#: Classic with every key, as ``scopa-sim variants classic --toml`` prints it (the preset's own
#: file gives only where it differs from base).
CLASSIC = to_toml(definition_of(PRESETS["classic"]))

BAD = {
    "unknown key": ('extends = "classic"\n[deal]\nhand_size = 4\n', ["deal.hand_size", "hands"]),
    "unknown section": ('extends = "classic"\n[rules]\nx = 1\n', ["rules", "unknown key"]),
    "unknown top key": ('extends = "classic"\ncolour = "red"\n', ["colour", "unknown key"]),
    "a stock": ('extends = "classic"\n[deal]\nhands = [3, 3, 3, 3, 3]\n',
                ["deal.hands", "stock of 6", "40"]),
    "too many cards": ('extends = "classic"\n[deal]\ntable_cards = 10\n',
                       ["deal.hands", "needs 6 more"]),
    "hand of zero": ('extends = "classic"\n[deal]\nhands = [3, 0, 3]\n', ["deal.hands", "not 0"]),
    "unknown capture rule": ('extends = "classic"\n[capture]\nrule = "eleven"\n',
                             ["capture.rule", "'eleven'", "fifteen"]),
    "capture sum": ('extends = "classic"\n[capture]\nsum = 11\n', ["capture.sum", "true or false"]),
    "a total no card makes": ('extends = "classic"\n[capture]\ntotal = 1\n',
                              ["capture.total = 1", "no capture makes it"]),
    "a total past the search": ('extends = "classic"\n[capture]\ntotal = 41\n',
                                ["capture.total = 41", "0 to 40"]),
    "a negative total": ('extends = "classic"\n[capture]\ntotal = -15\n', ["capture.total"]),
    "no capture kind": ('extends = "escoba"\nname = "x"\n[capture]\ntotal = 0\n',
                        ["capture.match", "no card could ever capture"]),
    "a rule and a key against it": ('extends = "classic"\n[capture]\nrule = "fifteen"\n'
                                    'match = true\n', ["capture.match = true", "contradicts",
                                                        "capture.rule = 'fifteen'"]),
    "ace_sweep_scopa without the sweep": ('extends = "classic"\n[scoring]\n'
                                          'ace_sweep_scopa = true\n',
                                          ["scoring.ace_sweep_scopa", "capture.ace_sweeps"]),
    "card not in the pack": ('extends = "classic"\n[scoring]\nsettebello = "7X"\n',
                             ["scoring.settebello", "'7X'", "italian-40"]),
    "French card in the Italian pack": ('extends = "classic"\n[scoring]\nre_bello = "10H"\n',
                                        ["scoring.re_bello", "'10H'"]),
    "points": ('extends = "classic"\n[scoring]\nscope_points = 2\n',
               ["scoring.scope_points", "not supported"]),
    "Cirulla's cappotto by its name": ('extends = "cirulla"\nname = "x"\n[game]\n'
                                       'cappotto = false\n',
                                       ["game.cappotto", "not supported", "napoleone"]),
    "a matta that keeps its value": ('extends = "cirulla"\nname = "x"\n[declarations]\n'
                                     'matta_keeps_value = true\n',
                                     ["declarations.matta_keeps_value", "plain seven"]),
    "target below 1": ('extends = "classic"\n[game]\ntarget = 0\n', ["game.target", "from 1"]),
    "target not a number": ('extends = "classic"\n[game]\ntarget = "11"\n',
                            ["game.target", "whole number"]),
    "syntax error": ('extends = "classic"\n[deal\nhands = [4]\n', ["not valid TOML", "line 2"]),
    "extends unknown": ('extends = "clasic"\n', ["extends = 'clasic'", "classic"]),
    "a key missing": (CLASSIC.replace("napoleone = false", ""), ["game.napoleone is missing"]),
    "primiera on the French pack": ('extends = "scopa-52"\nname = "x"\n[scoring]\n'
                                    'primiera = "standard"\n', ["scoring.primiera", "italian-40"]),
    "seven players": ('extends = "classic"\n[players]\ncount = 7\n', ["players.count", "2 to 6"]),
    "sides": ('extends = "classic-4p"\n[players]\nsides = 3\n', ["players.sides"]),
    "throw-in without a table": ('extends = "scopone-scientifico"\n[deal]\nthrow_in = true\n',
                                 ["deal.throw_in", "4 table cards", "set it to false"]),
    "a missing suit without a primiera": ('extends = "base"\n[scoring]\nprimiera = "none"\n'
                                          'primiera_missing_suit = "zero"\n',
                                          ["scoring.primiera_missing_suit", "a primiera", "void"]),
    "extends nothing known": ('extends = "bass"\n', ["extends = 'bass'", "base"]),
    "a preset's name": ('extends = "classic"\nname = "classic"\n[game]\ntarget = 5\n',
                        ["'classic' is a preset's"]),
}  # fmt: skip


def _one_line(status, out, err, fragments):
    assert status == 2, err
    assert "Traceback" not in err and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("scopa-sim"), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.mark.parametrize("case", BAD)
def test_a_bad_file_gets_one_line_naming_the_key(capsys, tmp_path, case):
    text, fragments = BAD[case]
    path = write(tmp_path, text)
    _one_line(*scopa_sim(capsys, "variants", path), fragments)
    out = tmp_path / "run"
    status, so, err = scopa_sim(
        capsys, "simulate", "--variant", path, "--players", "greedy,random", "--deals", "10",
        "--seed", "1", "--out", out,
    )  # fmt: skip
    _one_line(status, so, err, fragments)
    assert not out.exists()  # nothing written


@pytest.mark.parametrize(
    ("option", "fragments"),
    [("cappotto=false", ["'cappotto' is not supported", "--option napoleone"]),
     ("matta_keeps_value=true", ["'matta_keeps_value' is not supported", "plain seven"])],
)  # fmt: skip
def test_cirulla_options_of_other_names_say_what_to_write(capsys, option, fragments):
    """cirulla.md's names for a rule scopa-sim writes otherwise, or does not play, given as
    options: one line that says so (and points to the rules), exit 2."""
    status, out, err = scopa_sim(
        capsys, "compare", "cirulla", f"cirulla:{option}", "--players", "greedy,random",
        "--deals", "100", "--seed", "1",
    )  # fmt: skip
    _one_line(status, out, err, [*fragments, "docs/rules.md"])


def test_a_missing_file_and_bad_files_in_every_command(capsys, tmp_path):
    missing = tmp_path / "nope.toml"
    _one_line(*scopa_sim(capsys, "variants", missing), ["nope.toml", "does not exist"])
    bad = write(tmp_path, BAD["target below 1"][0])
    commands = [
        ["compare", "classic", bad, "--players", "greedy,random", "--deals", "100", "--seed", "1"],
        ["plan", "classic", f"{bad}:forced_capture=true", "--players", "greedy,random",
         "--metric", "scope", "--effect", "0.01"],
        ["tournament", "--variant", bad, "--players", "greedy,random", "--deals", "10",
         "--seed", "1", "--out", tmp_path / "t"],
        ["replay", "--variant", bad, "--players", "greedy,random", "--seed", "1", "--deck",
         "0,1,2"],
    ]  # fmt: skip
    for args in commands:
        _one_line(*scopa_sim(capsys, *args), ["game.target"])
    assert not (tmp_path / "t").exists()


def test_the_worked_files_of_the_docs_are_the_shipped_examples():
    text = (ROOT / "docs" / "rules.md").read_text()
    section = text.split("## Write your own variant", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```toml\n")[1:]]
    assert len(blocks) == 6 == len(EXAMPLES)
    shown = {parse_variant_file(b, "docs").name: parse_variant_file(b, "docs") for b in blocks}
    for path in EXAMPLES:
        shipped = load_variant_file(path)
        assert shown[shipped.name] == shipped and shown[shipped.name].summary == shipped.summary
