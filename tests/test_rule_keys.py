"""The one table of rule keys (scopa_sim/rules/keys.py): everything else about a key is built
from it, so these tests hold each place that shows or uses the keys to the table, and check
what the table says of when a key applies.

The presets' rules themselves are held to docs/rules.md §7 by tests/test_rules_model.py and to
their recorded data by tests/test_row_hashes.py and tests/test_golden.py.
"""

from __future__ import annotations

import pickle
import tomllib
from dataclasses import fields, replace
from pathlib import Path

import pytest

from scopa_sim.cards import FRENCH_52
from scopa_sim.rules import KEYS, OPTIONS, PRESETS, RulesError, Variant, applies, definition_of
from scopa_sim.rules.definition import SCHEMA, defaults_definition, to_toml
from scopa_sim.rules.describe import keys_table, options_table
from scopa_sim.rules.files import parse_variant_file
from scopa_sim.rules.keys import accepted_options, rule_key
from scopa_sim.rules.presets import preset_text

ROOT = Path(__file__).resolve().parents[1]

#: Variant fields that are not rule keys: its name, and what a variant carries besides its rules
#: (``items``: a file's [[scoring.items]] entries, read by rules/items.py).
NOT_KEYS = {
    "name", "allowed_options", "re_bello_card", "summary", "option_defaults", "source", "items",
}  # fmt: skip


def test_every_key_is_a_variant_field_with_the_tables_default():
    by_field = {f.name: f for f in fields(Variant)}
    assert {key.field for key in KEYS} == set(by_field) - NOT_KEYS
    for key in KEYS:
        assert by_field[key.field].default == key.default, key.name
    assert len({(key.section, key.name) for key in KEYS}) == len(KEYS)
    assert [name for name, key in OPTIONS.items() if key.name != name] == []


def test_the_variant_of_the_defaults_is_classic_under_another_name():
    assert replace(Variant("base"), name="classic") == PRESETS["classic"]
    base = defaults_definition()
    assert list(base) == list(SCHEMA)
    assert all(list(base[s]) == list(SCHEMA[s]) for s in SCHEMA)


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_preset_file_extends_base_and_gives_only_what_differs(name):
    data = tomllib.loads(preset_text(name))
    assert data["extends"] == "base"
    base, full = defaults_definition(), definition_of(PRESETS[name])
    given = {(s, k) for s in SCHEMA for k in data.get(s, {}) if k != "items"}  # items: a table
    differs = {(s, k) for s in SCHEMA for k in SCHEMA[s] if full[s][k] != base[s][k]}
    assert given == differs
    assert all(data[s][k] == full[s][k] for s, k in given)


def test_toml_prints_every_key_with_its_comment():
    text = to_toml(definition_of(PRESETS["scopa-52"]))
    assert parse_variant_file(text, "printed") == PRESETS["scopa-52"]
    lines = [line for line in text.splitlines() if " = " in line and "#" in line]
    assert [line.split(" = ")[0] for line in lines] == [key.name for key in KEYS]
    assert 'napola = "off"                  # off, sequence or trentino' in text
    assert "target = 11" in text and "1 to 1000" in text


def test_docs_tables_are_built_from_the_table():
    """docs/rules.md shows the tables the code builds; after changing keys.py, paste
    ``describe.options_table(PRESETS)`` and ``describe.keys_table()`` into it."""
    text = (ROOT / "docs" / "rules.md").read_text()
    for table in (options_table(PRESETS), keys_table()):
        assert table in text, f"docs/rules.md should show this table:\n{table}"


def test_applies_states_when_a_key_plays_a_part():
    classic, escoba = PRESETS["classic"], PRESETS["escoba"]
    assert applies(classic, "throw_in")
    assert not applies(PRESETS["scopone-scientifico"], "throw_in")  # no table cards
    assert not applies(escoba, "throw_in")  # the opening sweep takes its place
    assert not applies(PRESETS["scopa-52"], "throw_in")  # the French pack
    assert applies(PRESETS["asso-piglia-tutto"], "ace_sweep_scopa")
    assert not applies(classic, "ace_sweep_scopa")
    assert applies(classic, "primiera_missing_suit")
    assert not applies(PRESETS["scopa-52"], "primiera_missing_suit")  # no primiera
    assert not applies(replace(classic, primiera=None), "primiera_missing_suit")
    assert applies(PRESETS["scopa-52"], "target") and applies(classic, "count")
    assert not applies(replace(classic, table_cards=0, hands=(5,) * 4), "throw_in")
    with pytest.raises(KeyError, match="throw_ins"):
        applies(classic, "throw_ins")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_variant_from_a_pickle_has_the_same_keys_applying(name):
    """Workers get their variant by pickle, with packs of their own: whether a key applies must
    not depend on which Pack object the variant holds (a throw-in read by identity once played
    other packs in a worker than in the command)."""
    v = PRESETS[name]
    copy = pickle.loads(pickle.dumps(v))
    assert copy == v and copy.pack is not v.pack
    for key in KEYS:
        assert applies(copy, key.name) == applies(v, key.name), key.name


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_variant_accepts_the_options_that_apply_to_it(name):
    rules = PRESETS[name]
    assert rules.allowed_options == accepted_options(rules)
    assert rules.allowed_options == {o for o in OPTIONS if applies(rules, o)}


def test_a_key_set_where_it_does_not_apply_is_refused():
    french = 'extends = "scopa-52"\nname = "x"\n'
    assert parse_variant_file(french + "[game]\nnapoleone = false\n", "f").pack is FRENCH_52
    for key, value in [("napoleone", "true"), ("re_bello", '"KH"'), ("napola", '"sequence"')]:
        section = rule_key(key).section
        with pytest.raises(RulesError, match=f"{section}.{key} needs the italian-40 pack"):
            parse_variant_file(french + f"[{section}]\n{key} = {value}\n", "f")
    with pytest.raises(RulesError, match=r"ace_sweep_scopa needs capture\.ace_sweeps = true"):
        parse_variant_file('extends = "base"\nname = "x"\n[scoring]\nace_sweep_scopa = true\n', "f")


def test_a_file_may_extend_base():
    rules = parse_variant_file('extends = "base"\nname = "mine"\n[game]\ntarget = 21\n', "f")
    assert rules == replace(PRESETS["classic"], name="mine", target=21)
    assert rules.summary == "base, changed: game.target"
    assert rules.describe() == "mine"
