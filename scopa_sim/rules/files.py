"""Variant files and the one way every command turns ``--variant TEXT`` into rules.

``TEXT`` is a preset's name or a path ending in ``.toml``, optionally followed by
``:KEY=VALUE,...`` options (:func:`resolve_variant`). A file either ``extends`` a preset (or
``base``, the defaults of the table of rule keys) and changes some keys, or defines every key
of the sections (docs/rules.md, "Write your own
variant"). A run records the definition in its manifest, and :func:`variant_of_config` rebuilds
the rules from it, so a run is replayed and reported without the file.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from scopa_sim.rules.definition import (
    BASE,
    SCHEMA,
    defaults_definition,
    definition_of,
    from_definition,
)
from scopa_sim.rules.presets import PRESETS, with_options
from scopa_sim.rules.variant import RulesError, Variant

__all__ = [
    "is_variant_file",
    "load_variant_file",
    "parse_variant",
    "parse_variant_file",
    "resolve_variant",
    "variant",
    "variant_of_config",
]

_SUFFIX = ".toml"


def is_variant_file(text: str) -> bool:
    """A ``--variant`` value names a file when it ends in ``.toml`` (before any options)."""
    return _split(text)[0].lower().endswith(_SUFFIX)


def _split(text: str) -> tuple[str, str]:
    """``FILE.toml:opts`` or ``NAME:opts`` -> (the variant, the options text). A path may hold a
    colon (``C:\\rules\\x.toml``), so a file's options follow its ``.toml``."""
    at = text.lower().rfind(_SUFFIX + ":")
    if text.lower().endswith(_SUFFIX):
        return text.strip(), ""
    if at >= 0:
        end = at + len(_SUFFIX)
        return text[:end].strip(), text[end + 1 :]
    name, _, rest = text.partition(":")
    return name.strip(), rest


def parse_variant_file(text: str, source: str, stem: str | None = None) -> Variant:
    """The variant the TOML ``text`` defines; ``source`` names it in messages and ``stem`` (the
    file's name without ``.toml``) is its name unless it gives one."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{source} is not valid TOML: {error}") from None
    base = None
    extends = data.get("extends")
    if extends is not None:
        if extends != BASE and extends not in PRESETS:
            raise RulesError(
                f"{source}: extends = {extends!r} is not a preset; choose one of: "
                f"{', '.join(PRESETS)}, or {BASE} (the defaults of every key)"
            )
        base = (
            defaults_definition() if extends == BASE else _sections(definition_of(PRESETS[extends]))
        )
        if "summary" not in data:
            changed = [f"{s}.{k}" for s in SCHEMA if isinstance(data.get(s), Mapping)
                       for k in data[s]]  # fmt: skip
            data = {**data, "summary": f"{extends}, changed: {', '.join(changed) or 'nothing'}"}
    if "name" not in data and stem is not None:
        data = {**data, "name": stem}
    if base is not None and "name" not in data:
        raise RulesError(f'{source}: give the variant a name, e.g. name = "my-game"')
    rules = from_definition(data, source, base)
    preset = PRESETS.get(rules.name)
    if preset is not None and (rules != preset or rules.allowed_options != preset.allowed_options):
        raise RulesError(
            f"{source}: name = {rules.name!r} is a preset's, but the rules differ from it; give "
            'the variant a name of its own (e.g. name = "my-game")'
        )
    return rules


def _sections(definition: Mapping) -> dict:
    """A preset's definition as a base to extend: its sections, without its name and summary."""
    return {section: definition[section] for section in SCHEMA}


def load_variant_file(path) -> Variant:
    """The variant defined by the file ``path``."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise RulesError(
            f"variant file {path} does not exist; give a preset's name or a FILE.toml "
            "(configs/variants/ holds examples)"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise RulesError(f"cannot read variant file {path}: {error}") from None
    return replace(parse_variant_file(text, str(path), stem=path.stem), source=str(path))


def _options(text: str, whole: str) -> dict[str, str]:
    options = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(f"{item!r} in {whole!r} is not KEY=VALUE (e.g. classic:target=16)")
        options[key.strip()] = value.strip()
    return options


def resolve_variant(text: str, options: Mapping[str, object] | None = None) -> Variant:
    """The rules ``--variant TEXT`` asks for: ``NAME`` or ``FILE.toml``, then optionally
    ``:KEY=VALUE,...``; ``options`` (e.g. ``--option``) are applied after those. Every command
    resolves its variants here."""
    if not isinstance(text, str):
        raise RulesError(f"a variant is a preset's name or a FILE.toml, not {text!r}")
    spec, rest = _split(text)
    wanted = {**_options(rest, text), **(options or {})}
    return variant(spec, wanted)


def variant(
    name: str | os.PathLike, options: Mapping[str, object] | None = None, **kwargs
) -> Variant:
    """The preset ``name``, or the variant file ``name`` (a path ending in ``.toml``), with
    ``options`` applied (values may be text, as from a command line).

    >>> variant("classic", target=16).target
    16
    """
    wanted = {**(options or {}), **kwargs}
    if isinstance(name, os.PathLike):  # a file's path given as a Path
        name = os.fspath(name)
    if isinstance(name, str) and name.strip().lower().endswith(".toml"):
        return with_options(load_variant_file(name.strip()), wanted)
    if name not in PRESETS:
        raise RulesError(
            f"unknown variant {name!r}; choose one of: {', '.join(PRESETS)}, or a variant "
            "file FILE.toml"
        )
    return with_options(PRESETS[name], wanted)


def parse_variant(text: str) -> Variant:
    """Parse ``NAME[:KEY=VALUE,...]`` or ``FILE.toml[:KEY=VALUE,...]`` (the form used by
    ``scopa-sim compare``): :func:`resolve_variant`."""
    return resolve_variant(text)


def base_definition(text: str) -> dict | None:
    """The definition a run records for the variant ``text`` (a name or ``FILE.toml``, no
    options): None for a preset, whose name is enough and whose manifest stays as it was."""
    if not is_variant_file(text):
        return None
    return definition_of(load_variant_file(_split(text)[0]))


def variant_of_definition(definition: Mapping, options: Mapping | None = None) -> Variant:
    """Rules from a definition recorded in a manifest, with the run's options."""
    return with_options(from_definition(definition, "the run's recorded variant"), options or {})


def variant_of_config(config: Mapping) -> Variant:
    """A run's rules from its manifest's ``config``: the recorded definition with the run's
    options when there is one (a variant file's run); else the preset and options its label
    names (``variant_label``, as ``Variant.describe`` wrote it)."""
    options = dict(config.get("options") or {})
    definition = config.get("definition")
    if definition is not None:
        return variant_of_definition(definition, options)
    if config.get("variant_label"):
        return resolve_variant(config["variant_label"])
    return variant(config["variant"], options)
