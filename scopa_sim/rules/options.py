"""Rule options: their names, types, ranges and parsing from ``KEY=VALUE`` text.

An option is a switch of the rules data, never a fork of the engine (docs/rules.md). Each
preset lists the options that make sense for it; any other option is an error, not ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from scopa_sim.rules.variant import FirstDealer, MissingSuit, Napola, PrimieraRule, RulesError


@dataclass(frozen=True)
class OptionSpec:
    name: str
    kind: type  # bool, int or a StrEnum
    help: str
    low: int | None = None
    high: int | None = None

    @property
    def values(self) -> str:
        """The values it takes, for help texts."""
        if self.kind is bool:
            return "true|false"
        if self.kind is int:
            return f"{self.low}..{self.high}"
        return "|".join(member.value for member in self.kind)

    def parse(self, value: object):
        """Coerce ``value`` (text from a command line, or a Python value) to this option's type."""
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise RulesError(f"option {self.name} takes true or false, not {value!r}")
        if self.kind is int:
            try:
                number = int(str(value).strip()) if not isinstance(value, int) else value
            except ValueError:
                raise RulesError(
                    f"option {self.name} takes a whole number, not {value!r}"
                ) from None
            if isinstance(value, bool) or not (self.low <= number <= self.high):
                raise RulesError(
                    f"option {self.name} takes a whole number from {self.low} to {self.high}, "
                    f"not {value!r}"
                )
            return number
        choices = [member.value for member in self.kind]
        text = value.value if isinstance(value, StrEnum) else str(value).strip().lower()
        if text not in choices:
            raise RulesError(f"option {self.name} takes one of {', '.join(choices)}; not {value!r}")
        return self.kind(text)


OPTIONS: dict[str, OptionSpec] = {
    spec.name: spec
    for spec in (
        OptionSpec("target", int, "points that win the game (11, 16, 21, ...)", 1, 1000),
        OptionSpec("throw_in", bool, "redeal when 3 or 4 of the table cards are kings"),
        OptionSpec("forced_capture", bool, "a player who can capture must play a capturing card"),
        OptionSpec("fewest_cards", bool, "a sum capture must use as few table cards as possible"),
        OptionSpec(
            "primiera",
            PrimieraRule,
            "7=21, 6=18, A=16 ... faces 10; faces 0; or most 7s, then 6s ...",
        ),
        OptionSpec(
            "primiera_missing_suit",
            MissingSuit,
            "a side lacking a suit has no primiera, or it counts 0",
        ),
        OptionSpec("last_play_scopa", bool, "a sweep on the deal's last play counts as a scopa"),
        OptionSpec("re_bello", bool, "1 point for the king of coins"),
        OptionSpec("napola", Napola, "ace-2-3 of coins: 3 + the run beyond, or + every other coin"),
        OptionSpec("napoleone", bool, "a side that captures all ten coins wins the game outright"),
        OptionSpec(
            "ace_sweep_scopa", bool, "asso piglia tutto: an ace's sweep of the table is a scopa"
        ),
        OptionSpec(
            "scopa_wins_immediately",
            bool,
            "a scopa that brings a side to the target wins at once; the deal stops there",
        ),
        OptionSpec(
            "first_dealer",
            FirstDealer,
            "the first dealer of each game: at random, or player n-1 every time",
        ),
    )
}


def parse_assignments(items) -> dict[str, str]:
    """Turn ``["key=value", ...]`` into a dict, with a clear error for a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise RulesError(f"option {item!r} is not KEY=VALUE (e.g. target=16)")
        out[key.strip()] = value.strip()
    return out
