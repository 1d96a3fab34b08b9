"""A position met at the table, as the acting seat knows it, checked against the variant's deal.

The user says what the seat sees: its hand, the table, the cards already out of play (captured or
played, public), optionally which side captured what, the scope so far and the game score. From
that the position works out the play it is (every card on the table or out of play beyond the
table dealt is one play), checks that the hand fits that play, and builds the engine's
:class:`~scopa_sim.contract.Observation`. Sides are absolute, as everywhere in scopa-sim: the
seat's own side is ``seat % n_sides`` ("mine"), and "theirs" are the other sides in play order
after it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from scopa_sim.cards import mask_of
from scopa_sim.rules import RulesError, Variant
from scopa_sim.rules.schedule import schedule

if TYPE_CHECKING:
    from scopa_sim.contract import Observation


class PositionError(RulesError):
    """A position that cannot occur: the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class Position:
    """What the acting seat knows, checked (build one with :func:`position`). Card lists are
    sorted ids; per-side tuples are indexed by absolute side."""

    variant: Variant
    seat: int
    hand: tuple[int, ...]
    table: tuple[int, ...]
    #: Every card out of play: captured (by a side named or not) or played and taken.
    seen: tuple[int, ...]
    captured: tuple[tuple[int, ...], ...]
    scope: tuple[int, ...]
    #: The game score before this deal, or None for a deal on its own (no game context).
    scores: tuple[int, ...] | None
    last_capturer: int  # absolute side, -1 when none (or not known)

    @property
    def side(self) -> int:
        return self.seat % self.variant.n_sides

    @property
    def dealer_side(self) -> int:
        return (self.variant.n_players - 1) % self.variant.n_sides

    @property
    def others(self) -> tuple[int, ...]:
        """The other sides, in play order after the seat's own."""
        sides = self.variant.n_sides
        return tuple((self.side + k) % sides for k in range(1, sides))

    @cached_property
    def play(self) -> int:
        return play_index(self.variant, len(self.table), len(self.seen))

    def observation(self, rows: int = 1) -> Observation:
        """The seat's observation, the same in each of ``rows`` rows (one row per sample of an
        evaluation: the rows differ only in the random numbers they are handed)."""
        from scopa_sim.contract import Observation

        rules = self.variant

        def rep(value, dtype):
            return np.repeat(np.asarray([value], dtype), rows, axis=0)

        scores = self.scores or (0,) * rules.n_sides
        return Observation(
            variant=rules,
            hand=rep(mask_of(self.hand), np.uint64),
            table=rep(mask_of(self.table), np.uint64),
            captured=rep([mask_of(c) for c in self.captured], np.uint64),
            played=rep(mask_of(self.seen), np.uint64),
            scores=rep(scores, np.int16),
            seat=self.seat,
            side=rep(self.side, np.int8),
            dealer_side=rep(self.dealer_side, np.int8),
            play=self.play,
            scope=rep(self.scope, np.int16),
            last_capturer=rep(self.last_capturer, np.int8),
        )

    def relative(self, per_side: Sequence) -> list:
        """``per_side`` (absolute sides) as [mine, then the others in play order]."""
        return [per_side[self.side], *(per_side[s] for s in self.others)]

    def to_json(self) -> dict:
        pack = self.variant.pack

        def codes(cards):
            return [pack.code(c) for c in cards]

        last = self.last_capturer
        return {
            "variant": self.variant.describe(),
            "seat": self.seat,
            "play": self.play,
            "plays": self.variant.plays,
            "side": self.side,
            "dealer_side": self.dealer_side,
            "hand": codes(self.hand),
            "table": codes(self.table),
            "seen": codes(self.seen),
            "captured_mine": codes(self.captured[self.side]),
            "captured_theirs": [codes(self.captured[s]) for s in self.others],
            "scope_mine": self.scope[self.side],
            "scope_theirs": [self.scope[s] for s in self.others],
            "scores": None if self.scores is None else self.relative(self.scores),
            "last_capturer": None if last < 0 else side_word(self.side, self.others, last),
        }

    def command(self) -> str:
        """The ``scopa-sim analyse`` command line of this position (cards as codes)."""
        return analyse_command(
            self.variant, self.seat, self.hand, self.table, self.seen, self.captured,
            self.scope, self.scores, self.last_capturer,
        )  # fmt: skip


def play_index(variant: Variant, on_table: int, seen: int) -> int:
    """The play a position is at: each play puts one card from a hand on the table or out of
    play, so the cards on the table and out of play beyond the table dealt count the plays."""
    return on_table + seen - variant.table_cards


def position(
    variant: Variant,
    hand: Sequence[int],
    table: Sequence[int] = (),
    seen: Sequence[int] = (),
    *,
    seat: int | None = None,
    captured_mine: Sequence[int] = (),
    captured_theirs: Sequence[Sequence[int]] = (),
    scope_mine: int = 0,
    scope_theirs: Sequence[int] = (),
    scores: Sequence[int] | None = None,
    last_capturer: str | None = None,
) -> Position:
    """The checked position of card-id lists as the user gave them (repeats included, so that
    they are refused). ``captured_theirs``, ``scope_theirs`` and ``scores[1:]`` list the other
    sides in play order after the seat's own; ``scores`` starts with the seat's side.
    ``last_capturer``: ``mine``, ``theirs`` (the first other side; ``theirs2`` ... the next),
    ``none``, or None to infer it (the only side with captures, else none). Raises
    :class:`PositionError`."""
    rules = variant
    sides = rules.n_sides
    theirs = [list(c) for c in captured_theirs]
    if len(theirs) > sides - 1:
        raise PositionError(
            f"{rules.name} has {sides - 1} other side(s): give --captured-theirs at most "
            f"{sides - 1} time(s), in play order after yours"
        )
    theirs += [[] for _ in range(sides - 1 - len(theirs))]
    lists = {
        "--hand": list(hand), "--table": list(table), "--seen": list(seen),
        "--captured-mine": list(captured_mine),
        **{("--captured-theirs" + (f" #{k + 1}" if sides > 2 else "")): c
           for k, c in enumerate(theirs)},
    }  # fmt: skip
    _check_lists(rules, lists)
    seen_all = set(seen) | set(captured_mine)
    for c in theirs:
        seen_all |= set(c)
    _check_places(rules, {"--hand": hand, "--table": table, "out of play": seen_all})
    play = _check_shape(rules, len(hand), len(table), len(seen_all), seat)
    seat = play % rules.n_players
    side = seat % sides
    others = [(side + k) % sides for k in range(1, sides)]
    captured = [()] * sides
    captured[side] = tuple(sorted(set(captured_mine)))
    for s, c in zip(others, theirs, strict=True):
        captured[s] = tuple(sorted(set(c)))
    if play == 0:
        _check_throw_in(rules, table)
    scope = _per_side(rules, side, others, scope_mine, scope_theirs, "scope")
    score = None if scores is None else tuple(_per_side(rules, side, others, *_split(scores)))
    if score is not None:
        _check_scores(rules, score, side, others)
    last = _last_capturer(last_capturer, captured, side, others)
    return Position(
        rules, seat, tuple(sorted(hand)), tuple(sorted(table)), tuple(sorted(seen_all)),
        tuple(captured), tuple(scope), score, last,
    )  # fmt: skip


def _check_lists(rules: Variant, lists: dict[str, list[int]]) -> None:
    pack = rules.pack
    for name, cards in lists.items():
        for c in cards:
            if not 0 <= c < pack.n_cards:
                raise PositionError(f"{name}: card id {c} is not in the {pack.name} pack")
        repeated = sorted({c for c in cards if cards.count(c) > 1})
        if repeated:
            raise PositionError(
                f"{name} lists {pack.code(repeated[0])} twice: each card is in the pack once"
            )
    mine, theirs = (
        set(lists["--captured-mine"]),
        [(k, set(v)) for k, v in lists.items() if k.startswith("--captured-theirs")],
    )
    groups = [("--captured-mine", mine), *theirs]
    for i, (a, x) in enumerate(groups):
        for b, y in groups[i + 1 :]:
            if x & y:
                raise PositionError(
                    f"{pack.code(min(x & y))} is in {a} and {b}: a card is captured by one side"
                )


def _check_places(rules: Variant, places: dict[str, object]) -> None:
    pack = rules.pack
    names = list(places)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = set(places[a]) & set(places[b])
            if both:
                where = "--seen or a --captured list" if b == "out of play" else b
                raise PositionError(
                    f"{pack.code(min(both))} is in {a} and in {where}: a card is in one place "
                    "(in a hand, on the table, or out of play)"
                )


def _check_shape(rules: Variant, n_hand: int, n_table: int, n_seen: int, seat) -> int:
    """The play index the card counts give, checked against the deal's shape and the hand."""
    name, n = rules.name, rules.n_players
    if seat is not None and not 0 <= seat < n:
        raise PositionError(f"--seat runs 0..{n - 1} in {name} (seat 0 leads, {n - 1} deals)")
    biggest = max(rules.hands)
    if n_hand > biggest:
        raise PositionError(
            f"--hand holds {n_hand} cards, but {name} deals at most {biggest} to a hand"
        )
    total = n_hand + n_table + n_seen
    if total > rules.pack.n_cards:
        raise PositionError(
            f"the hand, table and out-of-play cards make {total} cards, more than {name}'s "
            f"{rules.pack.n_cards}-card pack"
        )
    play = play_index(rules, n_table, n_seen)
    counted = (
        f"{n_table} on the table and {n_seen} out of play, {rules.table_cards} of them dealt to "
        "the table"
    )
    if play >= rules.plays:
        raise PositionError(
            f"too many cards for {name}'s deal: {counted} make play {play + 1}, but a deal has "
            f"{rules.plays} plays"
        )
    if play < 0:
        raise PositionError(
            f"too few cards: {name} deals {rules.table_cards} to the table, so the table and "
            f"the out-of-play cards hold at least {rules.table_cards} (got {n_table + n_seen})"
        )
    turn = play % n
    if seat is not None and seat != turn:
        raise PositionError(
            f"{counted} make this play {play + 1} of {rules.plays}, which is seat {turn}'s "
            f"turn, not seat {seat}'s; check --seen and --table"
        )
    need = int(schedule(rules).in_hand[play, turn])
    if n_hand != need:
        raise PositionError(
            f"impossible hand size: at play {play + 1} of {rules.plays} ({counted}) seat {turn} "
            f"holds {need} card{'s' * (need != 1)}, not {n_hand}; check --hand and --seen"
        )
    return play


def _check_throw_in(rules: Variant, table) -> None:
    from scopa_sim.engine.deal_rules import throw_in_rows

    pack = np.zeros((1, rules.pack.n_cards), np.int8)
    pack[0, : len(table)] = sorted(table)
    if len(table) == rules.table_cards and throw_in_rows(rules, pack)[0]:
        raise PositionError(
            f"a {rules.name} table of three or four kings is thrown in and dealt again "
            "(option throw_in=false plays it)"
        )


def _split(scores):
    scores = list(scores)
    return (scores[0] if scores else 0), scores[1:], "scores"


def _per_side(rules: Variant, side: int, others, mine, theirs, what: str) -> list[int]:
    theirs = list(theirs)
    if len(theirs) > len(others) or (what == "scores" and len(theirs) != len(others)):
        need = (
            f"{rules.n_sides} scores (yours first)"
            if what == "scores"
            else f"--scope-theirs at most {len(others)} time(s)"
        )
        raise PositionError(f"--{what}: {rules.name} has {rules.n_sides} sides, so give {need}")
    theirs += [0] * (len(others) - len(theirs))
    out = [0] * rules.n_sides
    out[side] = int(mine)
    for s, v in zip(others, theirs, strict=True):
        out[s] = int(v)
    if min(out) < 0:
        raise PositionError(f"--{what} counts are zero or more")
    return out


def _check_scores(rules: Variant, scores, side, others) -> None:
    target, top = rules.target, max(scores)
    leaders = [s for s in range(rules.n_sides) if scores[s] == top]
    if top >= rules.target and (len(leaders) == 1 or rules.count_in_turn_order):
        raise PositionError(
            f"--scores: at {'-'.join(map(str, [scores[side], *(scores[s] for s in others)]))} "
            f"the game to {target} is already over; give the scores before this deal"
        )


def _last_capturer(text, captured, side, others) -> int:
    if text is None:
        holders = [s for s, c in enumerate(captured) if c]
        return holders[0] if len(holders) == 1 else -1
    choice = {"mine": side, "none": -1}
    for k, s in enumerate(others):
        choice["theirs" if k == 0 else f"theirs{k + 1}"] = s
    if text not in choice:
        raise PositionError(f"--last-capturer is {', '.join(choice)}, not {text!r}")
    return choice[text]


def side_word(side: int, others, which: int) -> str:
    """How ``--last-capturer`` names the absolute side ``which``: mine, theirs, theirs2, ..."""
    if which == side:
        return "mine"
    k = list(others).index(which) + 1
    return "theirs" + (str(k) if k > 1 else "")


def analyse_command(
    variant: Variant, seat, hand, table, seen, captured, scope, scores, last_capturer,
    variant_words: Sequence[str] | None = None,
) -> str:  # fmt: skip
    """The ``scopa-sim analyse`` command of a position given by absolute sides (what the
    replay page shows for each play). The variant is named by ``variant_words`` when given
    (``--run DIR``: the rules of a run), else by its file (``Variant.source``) or preset, with
    the options that differ from its defaults."""
    pack, sides = variant.pack, variant.n_sides
    side = seat % sides
    others = [(side + k) % sides for k in range(1, sides)]

    def codes(cards) -> str:
        return ",".join(pack.code(c) for c in sorted(cards)) or "-"

    name, _, options = variant.describe().partition(":")
    words = ["scopa-sim", "analyse"]
    if variant_words is not None:
        words += list(variant_words)
    else:
        words += ["--variant", variant.source or name]
        for item in filter(None, options.split(",")):
            words += ["--option", item]
    words += ["--seat", str(seat), "--hand", codes(hand), "--table", codes(table)]
    words += ["--seen", codes(seen)]
    if captured[side]:
        words += ["--captured-mine", codes(captured[side])]
    for s in others:
        if captured[s] or len(others) > 1:
            words += ["--captured-theirs", codes(captured[s])]
    if scope[side]:
        words += ["--scope-mine", str(scope[side])]
    for s in others:
        if scope[s] or (len(others) > 1 and any(scope[o] for o in others)):
            words += ["--scope-theirs", str(scope[s])]
    if scores is not None and any(scores):
        words += ["--scores", ",".join(str(scores[s]) for s in [side, *others])]
    if last_capturer >= 0:
        words += ["--last-capturer", side_word(side, others, last_capturer)]
    return shlex.join(words)
