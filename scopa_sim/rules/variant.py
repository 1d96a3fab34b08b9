"""A variant of the game as immutable data (docs/rules.md is the prose; this is the contract).

Both engines read only this object, so a rule is changed in exactly one place: a preset or an
option. Every preset of docs/rules.md §7 is a value of this class; none is a fork of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum

from scopa_sim.cards import Pack
from scopa_sim.rules.items import CATEGORIES, Item
from scopa_sim.rules.keys import (
    KEYS,
    DeclareRounds,
    FirstDealer,
    MattaOpening,
    MissingSuit,
    Napola,
    PrimieraRule,
    RulesError,
)

__all__ = ["CATEGORIES", "PRESET_DEFAULTS", "RulesError", "Variant"]

#: Each field's default, from the table of rule keys (what a file that extends base starts from).
_DEFAULT = {key.field: key.default for key in KEYS}


@dataclass(frozen=True)
class Variant:
    """Everything that decides a deal and a game. Build one with :func:`scopa_sim.rules.variant`."""

    name: str
    # The rules: one field per key of the table (rules/keys.py), with its default.
    n_players: int = _DEFAULT["n_players"]
    n_sides: int = _DEFAULT["n_sides"]
    pack: Pack = _DEFAULT["pack"]
    table_cards: int = _DEFAULT["table_cards"]
    #: Cards dealt to each player at each hand of the deal, in order.
    hands: tuple[int, ...] = _DEFAULT["hands"]
    # How a card captures: any combination of the kinds (docs/rules.md §3, cirulla.md C3).
    match: bool = _DEFAULT["match"]
    sum: bool = _DEFAULT["sum"]
    #: Captures of table cards making this total with the played card (escoba 15); 0: none.
    total: int = _DEFAULT["total"]
    ace_sweeps: bool = _DEFAULT["ace_sweeps"]
    #: A match rules out sum captures (total captures stay open).
    match_priority: bool = _DEFAULT["match_priority"]
    forced_capture: bool = _DEFAULT["forced_capture"]
    fewest_cards: bool = _DEFAULT["fewest_cards"]
    last_play_scopa: bool = _DEFAULT["last_play_scopa"]
    ace_sweep_scopa: bool = _DEFAULT["ace_sweep_scopa"]
    #: Escoba: an opening table summing to 15 (or 30) goes to the dealer as escobas.
    opening_sweep: bool = _DEFAULT["opening_sweep"]
    throw_in: bool = _DEFAULT["throw_in"]
    # Deal-level rules of cirulla (cirulla.md C2.2, C2.3, C5). Shown by ``repr`` only when they
    # differ from the default (``_SHOWN_WHEN_SET``), so that a preset's repr stays as it was.
    throw_in_rank: int = field(default=_DEFAULT["throw_in_rank"], repr=False)
    throw_in_count: int = field(default=_DEFAULT["throw_in_count"], repr=False)
    #: Cirulla: an opening table of 15 (30) goes to the dealer for 1 (2) units of "opening".
    opening_fifteen: bool = field(default=_DEFAULT["opening_fifteen"], repr=False)
    #: The wild card of the opening table and the declarations (a card id), None: none.
    matta: int | None = field(default=_DEFAULT["matta"], repr=False)
    matta_opening: MattaOpening = field(default=_DEFAULT["matta_opening"], repr=False)
    opening_low: bool = field(default=_DEFAULT["opening_low"], repr=False)
    two_aces_fifteen_stands: bool = field(default=_DEFAULT["two_aces_fifteen_stands"], repr=False)
    declarations: bool = field(default=_DEFAULT["declarations"], repr=False)
    #: A dealt hand whose values add up to at most this declares low (0: no low declaration).
    low_hand: int = field(default=_DEFAULT["low_hand"], repr=False)
    low_points: int = field(default=_DEFAULT["low_points"], repr=False)
    #: Points of three of a kind (0: no such declaration).
    triple_points: int = field(default=_DEFAULT["triple_points"], repr=False)
    declare_rounds: DeclareRounds = field(default=_DEFAULT["declare_rounds"], repr=False)
    matta_declarations: bool = field(default=_DEFAULT["matta_declarations"], repr=False)
    # Scoring.
    primiera: PrimieraRule | None = _DEFAULT["primiera"]
    primiera_missing_suit: MissingSuit = _DEFAULT["primiera_missing_suit"]
    most_sevens: bool = _DEFAULT["most_sevens"]  # scopa-52's "most sevens" point
    re_bello: bool = _DEFAULT["re_bello"]
    napola: Napola = _DEFAULT["napola"]
    #: Cirulla's grande (fante, cavallo and re of coins held together): its points, 0: none.
    grande_points: int = field(default=_DEFAULT["grande_points"], repr=False)
    #: Cirulla's piccola (ace, 2, 3 of coins and the run beyond): its longest run, 0: none.
    piccola_max: int = field(default=_DEFAULT["piccola_max"], repr=False)
    napoleone: bool = _DEFAULT["napoleone"]
    # The game.
    target: int = _DEFAULT["target"]
    scopa_wins_immediately: bool = _DEFAULT["scopa_wins_immediately"]
    count_in_turn_order: bool = _DEFAULT["count_in_turn_order"]
    first_dealer: FirstDealer = _DEFAULT["first_dealer"]
    #: Names of the options this variant's preset accepts (see ``scopa_sim.rules.options``).
    allowed_options: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    # Named cards of the scoring (a variant file's ``[scoring]``): None is the pack's usual card.
    # Shown by ``repr`` only when set, so that a preset's repr (a cache key) stays as it was.
    settebello_card: int | None = field(default=_DEFAULT["settebello_card"], repr=False)
    re_bello_card: int | None = field(default=None, repr=False)
    #: The file's ``[[scoring.items]]`` entries, merged into the items the keys above describe
    #: (``rules.items.scoring_table``); shown by ``repr`` only when there are some.
    items: tuple[Item, ...] = field(default=(), repr=False)
    #: One line for ``scopa-sim variants`` (a preset's or a variant file's ``summary``).
    summary: str = field(default="", repr=False, compare=False)
    #: The options' values as the variant was defined, which :meth:`describe` lists changes
    #: from; None for a variant built in code, described against the preset of its name.
    option_defaults: tuple[tuple[str, object], ...] | None = field(
        default=None, repr=False, compare=False
    )
    #: The variant file it was read from, as given (``--variant FILE.toml``): how a command that
    #: prints a command line (``analyse``, the deal viewer's links) names it again. None for a
    #: preset, and for a definition read back from a run's manifest.
    source: str | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if f.repr
            or (f.name.endswith("_card") and getattr(self, f.name) is not None)
            or (f.name in _SHOWN_WHEN_SET and getattr(self, f.name) != f.default)
            or (f.name == "items" and self.items)
        ]
        return f"{type(self).__qualname__}({', '.join(shown)})"

    def __post_init__(self) -> None:
        dealt = self.table_cards + self.n_players * sum(self.hands)
        if dealt != self.pack.n_cards:
            raise RulesError(
                f"variant {self.name!r} deals {dealt} cards from a {self.pack.n_cards}-card pack"
            )
        if self.n_players % self.n_sides:
            raise RulesError(
                f"variant {self.name!r}: {self.n_players} players in {self.n_sides} sides"
            )

    # Derived facts the engines use; all cheap and pure.
    @property
    def plays(self) -> int:
        """Plays in one deal: every card of every hand."""
        return self.n_players * sum(self.hands)

    def side_of_seat(self, seat: int) -> int:
        """Partners sit opposite, so sides alternate round the table."""
        return seat % self.n_sides

    @property
    def canonical_capture_order(self) -> bool:
        """Whether each card's captures are listed in cirulla.md C8's canonical order (by the
        sorted tuple of their ids). Today's three ways of capturing (match-or-sum, with or
        without the ace's sweep, and a total alone) keep the order of their search, so that
        their recorded deals stay as they are; every other combination of kinds is canonical."""
        match_or_sum = self.match and self.sum and self.match_priority and not self.total
        total_alone = self.total and not (self.match or self.sum or self.ace_sweeps)
        return not (match_or_sum or total_alone)

    @property
    def settebello(self) -> int:
        """The card of the settebello point: the seven of the scoring suit unless named."""
        return self.pack.card(0, 7) if self.settebello_card is None else self.settebello_card

    @property
    def king_of_coins(self) -> int:
        """The card of the re bello point: the king of coins unless named."""
        return self.pack.card(0, 10) if self.re_bello_card is None else self.re_bello_card

    def options(self) -> dict[str, object]:
        """The current value of every option this variant accepts."""
        return {name: _plain(getattr(self, name)) for name in sorted(self.allowed_options)}

    def describe(self) -> str:
        """``name[:key=value,...]`` listing options that differ from the preset's defaults."""
        if self.option_defaults is None:
            base = PRESET_DEFAULTS[self.name]
            defaults = {k: _plain(getattr(base, k)) for k in self.allowed_options}
        else:
            defaults = dict(self.option_defaults)
        changed = [f"{k}={_text(v)}" for k, v in self.options().items() if v != defaults.get(k)]
        return self.name + (":" + ",".join(changed) if changed else "")


#: Fields ``repr`` shows only when they differ from their default (added after the presets'
#: reprs became cache keys).
_SHOWN_WHEN_SET = frozenset(
    (
        "throw_in_rank", "throw_in_count", "opening_fifteen", "matta", "matta_opening",
        "opening_low", "two_aces_fifteen_stands", "declarations", "low_hand", "low_points",
        "triple_points", "declare_rounds", "matta_declarations", "grande_points", "piccola_max",
    )
)  # fmt: skip

#: Each preset's default rules by name, for :meth:`Variant.describe`. Filled by
#: ``scopa_sim.rules.presets`` (which imports this module, and so is imported with the package
#: before any variant can be described): the table lives above this module, which never imports it.
PRESET_DEFAULTS: dict[str, Variant] = {}


def _plain(value):
    return value.value if isinstance(value, StrEnum) else value


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
