"""The table of rule keys: every key of a variant once, with everything the rest of ``rules``
says about it.

A key is a :class:`Variant` field as a variant file writes it (``[section] name = value``), with
its type, its default (what ``extends = "base"`` starts from), when it applies and one line
saying what it does; the keys marked ``option`` are also ``--option KEY=VALUE``. The variant
files' schema and checks (``definition``), the options, ``Variant``'s defaults, ``scopa-sim
variants`` and the tables of docs/rules.md are built from :data:`KEYS`, so a new rule key is one
row here, its ``Variant`` field and the engine code that plays it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from scopa_sim.cards import FRENCH_52, ITALIAN_40, Pack

__all__ = [
    "CAPTURE_KINDS",
    "KEYS",
    "LEGACY_CAPTURE",
    "MAX_TOTAL",
    "PACKS",
    "SECTIONS",
    "Capture",
    "Condition",
    "DeclareRounds",
    "FirstDealer",
    "MattaOpening",
    "MissingSuit",
    "Napola",
    "PrimieraRule",
    "RuleKey",
    "RulesError",
    "accepted_options",
    "applies",
    "rule_key",
]


class RulesError(ValueError):
    """A variant or option the user asked for does not exist or does not fit; says the fix."""


class Capture(StrEnum):
    """The older key ``capture.rule``: one name for each of the three combinations of capture
    kinds the engine once knew. Still read (run manifests of older runs, users' files) and
    translated by :data:`LEGACY_CAPTURE`; no Variant field holds it."""

    MATCH_OR_SUM = "match-or-sum"  # equal rank first, else a set summing to the rank
    FIFTEEN = "fifteen"  # escoba: a set summing to 15 minus the played value
    ACE_TAKES_ALL = "ace-takes-all"  # asso piglia tutto: MATCH_OR_SUM, and an ace sweeps


#: The capture keys that say how a card captures (the rest, forced_capture and fewest_cards,
#: restrict the choice), as ``[capture]`` writes them.
CAPTURE_KINDS = ("match", "sum", "total", "ace_sweeps", "match_priority")

#: What each value of the older ``capture.rule`` means in the keys of :data:`CAPTURE_KINDS`.
_MATCH_OR_SUM = dict(match=True, sum=True, total=0, ace_sweeps=False, match_priority=True)
LEGACY_CAPTURE: dict[Capture, dict[str, object]] = {
    Capture.MATCH_OR_SUM: _MATCH_OR_SUM,
    Capture.FIFTEEN: dict(match=False, sum=False, total=15, ace_sweeps=False, match_priority=True),
    Capture.ACE_TAKES_ALL: {**_MATCH_OR_SUM, "ace_sweeps": True},
}

#: The largest ``capture.total``: the capture search keeps a stack entry per table card of a
#: set, and 40 - 1 in table cards is the most a set of 15 cards (its 16 entries) can fall short.
MAX_TOTAL = 40


class PrimieraRule(StrEnum):
    STANDARD = "standard"
    FACE_ZERO = "face_zero"
    MOST_SEVENS = "most_sevens"


class MissingSuit(StrEnum):
    VOID = "void"  # a side lacking a suit has no primiera
    ZERO = "zero"  # a missing suit counts 0 in the sum


class Napola(StrEnum):
    OFF = "off"
    SEQUENCE = "sequence"  # 3, plus the unbroken run of coins beyond the three
    TRENTINO = "trentino"  # 3, plus every other coin held


class FirstDealer(StrEnum):
    """Who deals a game's first deal (docs/rules.md §2)."""

    RANDOM = "random"  # drawn from the game's own random stream
    FIXED = "fixed"  # player n - 1, in every game (for designs that assign seats themselves)


class MattaOpening(StrEnum):
    """What the matta (the wild card) counts in the opening table (cirulla.md C2.3)."""

    WILD = "wild"  # any value 1..10, whichever makes 15 or 30
    PLAIN = "plain"  # its own value


class DeclareRounds(StrEnum):
    """At which hands of a deal a dealt hand may declare (cirulla.md C5.3)."""

    EVERY = "every"
    FIRST = "first"  # only the deal's first hand


PACKS: dict[str, Pack] = {p.name: p for p in (ITALIAN_40, FRENCH_52)}

#: Kinds of value besides bool, int and the StrEnums: a pack's name, a list of hand sizes, a card.
PACK, HANDS, CARD = "pack", "hands", "card"

#: The sections of a variant file, in the order files and descriptions list them.
SECTIONS = ("players", "deal", "declarations", "capture", "scoring", "game")


@dataclass(frozen=True)
class Condition:
    """What a key needs of the rest of the rules to apply: ``holds(rules)``, and ``needs`` as the
    message of a file that sets the key where it does not apply says it."""

    holds: Callable[[object], bool]
    needs: str


ITALIAN_PACK = Condition(
    lambda rules: rules.pack == ITALIAN_40,  # by value: a variant from a pickle has its own Pack
    "the italian-40 pack (its coins, kings and primiera values)",
)
FOUR_TABLE_CARDS = Condition(
    lambda rules: rules.table_cards >= 4 and not rules.opening_sweep,
    "4 table cards and no opening_sweep",
)
A_PRIMIERA = Condition(lambda rules: rules.primiera is not None, "a primiera (not none)")
OPENING_FIFTEEN = Condition(lambda rules: rules.opening_fifteen, "deal.opening_fifteen = true")
A_MATTA = Condition(lambda rules: rules.matta is not None, "a matta (deal.matta, a card)")
THREE_CARD_HANDS = Condition(
    lambda rules: all(size == 3 for size in rules.hands), "hands of 3 cards (deal.hands)"
)
A_DECLARATION = Condition(
    lambda rules: rules.low_hand > 0 or rules.triple_points > 0,
    "a declaration to make (declarations.low_hand or declarations.triple_points)",
)
DECLARING = Condition(lambda rules: rules.declarations, "declarations.declarations = true")
ACE_SWEEPS = Condition(lambda rules: rules.ace_sweeps, "capture.ace_sweeps = true")
NO_DEAL_POINTS = Condition(
    lambda rules: not (rules.opening_fifteen or rules.declarations),
    "no opening_fifteen and no declarations (their points are counted at the deal's end)",
)


def _coins_sequences(rules) -> int:
    """The scoring items that are runs of coins from the ace: the napola, the piccola and a
    file's own ``sequence`` items of coins."""
    own = sum(i.kind == "sequence" and i.suit == 0 for i in getattr(rules, "items", ()))
    return own + (rules.napola is not Napola.OFF) + (getattr(rules, "piccola_max", 0) > 0)


NO_COINS_SEQUENCE = Condition(
    lambda rules: _coins_sequences(rules) - (rules.napola is not Napola.OFF) == 0,
    "no other run of coins among the scoring items (such as cirulla's piccola)",
)
NO_NAPOLA = Condition(
    lambda rules: _coins_sequences(rules) - (getattr(rules, "piccola_max", 0) > 0) == 0,
    "no other run of coins among the scoring items (such as the napola)",
)


@dataclass(frozen=True)
class RuleKey:
    """One key of a variant file's ``[section]``: the :class:`Variant` field it sets and what it
    takes. ``default`` is the field's value unless a file says otherwise (Python values: a
    :class:`Pack`, a tuple of hand sizes, a StrEnum member, None for "the pack's usual card").
    """

    section: str
    name: str
    kind: object  # bool, int, a StrEnum, PACK, HANDS or CARD
    default: object
    help: str
    #: The Variant field; "" is the key's own name.
    field: str = ""
    #: ``--option NAME=VALUE`` sets it, on a variant it applies to.
    option: bool = False
    #: It applies only when all of these hold; elsewhere a file must leave it :attr:`off`.
    needs: tuple[Condition, ...] = ()
    low: int | None = None
    high: int | None = None
    #: A file may write ``"none"`` for None (no primiera).
    none: bool = False
    #: A file may name a card instead of ``true`` (the card worth the re bello point).
    or_card: bool = False

    def __post_init__(self) -> None:
        if not self.field:
            object.__setattr__(self, "field", self.name)

    @property
    def off(self):
        """The value that plays nothing, which a key must keep where it does not apply."""
        if self.kind is bool:
            return False
        return None if self.none else self.default

    @property
    def choices(self) -> tuple[str, ...]:
        """The words a choice takes, as an option takes them (a file may add ``none``)."""
        if self.kind is bool:
            return ("true", "false")
        if self.kind is PACK:
            return tuple(PACKS)
        if isinstance(self.kind, type) and issubclass(self.kind, StrEnum):
            return tuple(member.value for member in self.kind)
        return ()

    @property
    def values(self) -> str:
        """The values it takes as an option, for help texts."""
        if self.kind is int:
            return f"{self.low}..{self.high}"
        return "|".join(self.choices)

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
        text = value.value if isinstance(value, StrEnum) else str(value).strip().lower()
        if text not in self.choices:
            raise RulesError(
                f"option {self.name} takes one of {', '.join(self.choices)}; not {value!r}"
            )
        return self.kind(text)


#: Every rule key once, section by section in the order of a variant file.
KEYS: tuple[RuleKey, ...] = (
    RuleKey("players", "count", int, 2, "players at the table", field="n_players", low=2, high=6),
    RuleKey(
        "players", "sides", int, 2,
        "sides scoring apart: count, or a divisor of it for teams of partners sitting opposite",
        field="n_sides", low=2,
    ),
    RuleKey("deal", "pack", PACK, ITALIAN_40, "the pack of cards"),
    RuleKey("deal", "table_cards", int, 4, "cards laid on the table at the start of a deal", low=0),
    RuleKey(
        "deal", "hands", HANDS, (3,) * 6,
        "cards dealt to each player at each hand, in order, e.g. [3, 3]",
    ),
    RuleKey(
        "deal", "throw_in", bool, True,
        "redeal when throw_in_count table cards (or more) are of throw_in_rank (3 kings)",
        option=True, needs=(ITALIAN_PACK, FOUR_TABLE_CARDS),
    ),
    RuleKey(
        "deal", "throw_in_rank", int, 10, "the rank of the throw-in: 10 kings, 1 aces",
        low=1, high=10, needs=(ITALIAN_PACK, FOUR_TABLE_CARDS),
    ),
    RuleKey(
        "deal", "throw_in_count", int, 3, "a throw-in when at least this many table cards have it",
        low=1, high=4, needs=(ITALIAN_PACK, FOUR_TABLE_CARDS),
    ),
    RuleKey(
        "deal", "opening_sweep", bool, False,
        "an opening table of 15 (or 30) goes to the dealer as escobas",
    ),
    RuleKey(
        "deal", "opening_fifteen", bool, False,
        "an opening table of 15 (or 30) goes to the dealer for 1 (or 2) opening points",
    ),
    RuleKey(
        "deal", "matta", CARD, None, "a wild card of the opening and the declarations, e.g. 7C",
        none=True,
    ),
    RuleKey(
        "deal", "matta_opening", MattaOpening, MattaOpening.WILD,
        "the matta counts any value 1..10 in the opening table, or its own",
        option=True, needs=(OPENING_FIFTEEN, A_MATTA),
    ),
    RuleKey(
        "deal", "opening_low", bool, False,
        "an opening table of 9 or less goes to the dealer for 3 opening points",
        option=True, needs=(OPENING_FIFTEEN,),
    ),
    RuleKey(
        "deal", "two_aces_fifteen_stands", bool, False,
        "a throw-in table that makes 15 (or 30) stands and scores instead",
        option=True, needs=(OPENING_FIFTEEN,),
    ),
    RuleKey(
        "declarations", "declarations", bool, False,
        "a dealt hand of 3 cards declares a low hand or three of a kind", option=True,
        needs=(THREE_CARD_HANDS, A_DECLARATION),
    ),
    RuleKey(
        "declarations", "low_hand", int, 0,
        "a hand whose values add up to at most this declares low (0: none)", low=0, high=30,
    ),
    RuleKey(
        "declarations", "low_points", int, 3, "points of a low-hand declaration",
        option=True, low=0, high=100, needs=(DECLARING,),
    ),
    RuleKey(
        "declarations", "triple_points", int, 0,
        "points of a three-of-a-kind declaration (0: none)", option=True, low=0, high=100,
        needs=(DECLARING,),
    ),
    RuleKey(
        "declarations", "declare_rounds", DeclareRounds, DeclareRounds.EVERY,
        "hands declare at every hand of the deal, or only at its first", option=True,
        needs=(DECLARING,),
    ),
    RuleKey(
        "declarations", "matta_declarations", bool, False,
        "the matta counts as any rank 1..10 in declarations",
        option=True, needs=(DECLARING, A_MATTA),
    ),
    RuleKey(
        "capture", "match", bool, True, "a played card takes one table card of its value",
    ),
    RuleKey(
        "capture", "sum", bool, True,
        "a played card takes two or more table cards summing to its value",
    ),
    RuleKey(
        "capture", "total", int, 0,
        "a played card takes one or more table cards making this total with it (escoba 15; "
        "0: none)",
        low=0, high=MAX_TOTAL,
    ),
    RuleKey(
        "capture", "ace_sweeps", bool, False,
        "an ace played with no ace on the table takes the whole table, its only capture",
    ),
    RuleKey(
        "capture", "match_priority", bool, True,
        "a card that can take a table card of its value may not take a sum (totals stay open)",
        option=True,
    ),
    RuleKey(
        "capture", "forced_capture", bool, False,
        "a player who can capture must play a capturing card", option=True,
    ),
    RuleKey(
        "capture", "fewest_cards", bool, False,
        "a sum capture must use as few table cards as possible (a total capture too, among "
        "the totals)", option=True,
    ),
    RuleKey(
        "scoring", "settebello", CARD, None, "the card worth the settebello point, e.g. 7D",
        field="settebello_card",
    ),
    RuleKey(
        "scoring", "primiera", PrimieraRule, PrimieraRule.STANDARD,
        "7=21, 6=18, A=16 ... faces 10; faces 0; or most 7s, then 6s ...",
        option=True, needs=(ITALIAN_PACK,), none=True,
    ),
    RuleKey(
        "scoring", "primiera_missing_suit", MissingSuit, MissingSuit.VOID,
        "a side lacking a suit has no primiera, or it counts 0", option=True, needs=(A_PRIMIERA,),
    ),
    RuleKey(
        "scoring", "most_sevens", bool, False, "1 point for the most sevens (the 52-card game)"
    ),
    RuleKey(
        "scoring", "re_bello", bool, False,
        "1 point for the king of coins (a file may name another card, e.g. RD)",
        option=True, needs=(ITALIAN_PACK,), or_card=True,
    ),
    RuleKey(
        "scoring", "napola", Napola, Napola.OFF,
        "ace-2-3 of coins: 3 + the run beyond, or + every other coin",
        option=True, needs=(ITALIAN_PACK, NO_COINS_SEQUENCE),
    ),
    RuleKey(
        "scoring", "grande_points", int, 0,
        "points for the fante, cavallo and re of coins held together (cirulla's grande; 0: none)",
        option=True, needs=(ITALIAN_PACK,), low=0, high=20,
    ),
    RuleKey(
        "scoring", "piccola_max", int, 0,
        "cirulla's piccola: ace-2-3 of coins 3, +1 a coin of the run up to this length (0: none)",
        option=True, needs=(ITALIAN_PACK, NO_NAPOLA), low=0, high=10,
    ),
    RuleKey(
        "scoring", "last_play_scopa", bool, False,
        "a sweep on the deal's last play counts as a scopa", option=True,
    ),
    RuleKey(
        "scoring", "ace_sweep_scopa", bool, False,
        "asso piglia tutto: an ace's sweep of the table is a scopa",
        option=True, needs=(ACE_SWEEPS,),
    ),
    RuleKey(
        "game", "target", int, 11, "points that win the game (11, 16, 21, ...)",
        option=True, low=1, high=1000,
    ),
    RuleKey(
        "game", "scopa_wins_immediately", bool, False,
        "a scopa that brings a side to the target wins at once, mid-deal",
        option=True, needs=(NO_DEAL_POINTS,),
    ),
    RuleKey(
        "game", "count_in_turn_order", bool, False,
        "count in turn order at a deal's end; the first to the target wins",
    ),
    RuleKey(
        "game", "napoleone", bool, False,
        "a side that captures all ten coins wins the game outright",
        option=True, needs=(ITALIAN_PACK,),
    ),
    RuleKey(
        "game", "first_dealer", FirstDealer, FirstDealer.RANDOM,
        "the first dealer of each game: at random, or player n-1 every time", option=True,
    ),
)  # fmt: skip

_BY_NAME = {key.name: key for key in KEYS}


def rule_key(name: str) -> RuleKey:
    """The key named ``name`` (as a file and ``--option`` write it: ``throw_in``, ``count``)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a rule key; the keys are: {', '.join(_BY_NAME)}") from None


def applies(rules, name: str) -> bool:
    """Whether the key ``name`` plays a part in ``rules``: e.g. a throw-in needs 4 table cards,
    an ace's sweep the ace-takes-all capture. Code that plays a key asks this rather than
    restating its conditions."""
    return all(condition.holds(rules) for condition in rule_key(name).needs)


def accepted_options(rules) -> frozenset[str]:
    """The ``--option`` keys that make sense for ``rules``: the options that apply to it."""
    return frozenset(key.name for key in KEYS if key.option and applies(rules, key.name))
