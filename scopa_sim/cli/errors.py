"""The errors that mean bad input on the command line, and the list of every such error.

Each of them gets one line and exit status 2 from :func:`scopa_sim.cli.main`. They live apart
from ``main`` because the early checks and the batch loader raise and catch them too.
"""

from __future__ import annotations

import sys

from scopa_sim.rules import RulesError

__all__ = ["ConfigError", "InputError", "user_errors"]


class InputError(ValueError):
    """Bad input found by an early check; the message is the one the full check gives."""


class ConfigError(ValueError):
    """A batch file is malformed; the message names the file and, where known, the line."""


def user_errors() -> tuple[type[Exception], ...]:
    """The exceptions that mean bad input (one line, exit status 2). The runner's and the
    storage's are looked up only when their modules are loaded: until then nothing raises them."""
    found = [RulesError, InputError, ConfigError]
    for module, name in (
        ("scopa_sim.runner", "RunError"),
        ("scopa_sim.storage", "StorageError"),
        ("scopa_sim.contract", "PlayerError"),  # a player of your own that misbehaves
    ):
        if module in sys.modules:
            found.append(getattr(sys.modules[module], name))
    return tuple(found)
