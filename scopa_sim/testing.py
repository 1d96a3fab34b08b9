"""A conformance check any player can be run through: :func:`check_player`.

>>> from scopa_sim.testing import check_player
>>> report = check_player("greedy")                      # every preset, two option sets each
>>> report = check_player(MyPlayer(), ["classic", "escoba:forced_capture=true"], deals=200)

It plays the player on real deals and raises :class:`PlayerCheckError` (an ``AssertionError``,
so it reads well in pytest) with a one-paragraph message on the first failure; otherwise it
returns a :class:`CheckReport`. The contract it checks is the one of ``scopa_sim/contract.py``
(explained for authors in docs/players.md):

1. **a frozen dataclass Player**: an instance of :class:`~scopa_sim.players.Player` whose fields
   cannot be set, and hashable (the engine compares players to group the sides they play);
2. **legal actions only**: ``act`` returns a numpy integer array of shape ``(B,)`` whose every
   index is below the row's ``legal.count``;
3. **deterministic**: the same decision points with the same random numbers give the same
   choices, and the same run twice gives the same outcomes;
4. **independent of the batch**: a row's choice does not depend on which other rows share the
   batch (each batch of decision points is also played by a subset of its rows, in reverse order
   and with the padding trimmed as the engine would), and whole runs give the same outcomes in
   batches of any size, a sub-range of deals (the last of those batches, played alone) the same
   outcomes as in the whole run, and games the same outcomes in batches of any size;
5. **blind to hidden cards**: pairs of packs with the same table but other hands and stock
   rearranged (cards shuffled after a hand's block, or two hidden cards swapped) are played
   with the same random numbers; the first play at which a pair's moves differ must be made by
   a seat whose own hand differs between the two packs, since everything else it may know (the
   table, the plays before, the scores, its side) is the same. Skipped for a player that
   declares ``sees_hidden_cards = True`` (an upper bound such as a cheater, which the engine
   hands the hidden cards; the report says so);
6. **a fused row policy agrees with act**: a player that declares a ``fused_policy`` plays the
   same runs on the engine's default (fused) path as on the lockstep path that calls ``act``;
7. **the optional evaluation** ``explain(obs, legal[, rng]) -> float[B, A]``
   (:data:`EXPLAIN_PROTOCOL`), when the player has one: the shape of ``legal.card``, a float
   array, finite on every legal slot, and the same for a row whatever other rows share the
   batch.

Every check runs on each variant given (by default every preset of ``scopa_sim.rules.PRESETS``,
with the default rules and with ``forced_capture``), with the player on every side and with the
player on side 0 against the random player. Checks 2 to 4 and 7 run on every decision point
the player meets (each batch is run three times: as given, again, and as a subset).

What it cannot catch:

* a peek that never changes a choice in the deals it plays (the hidden-card check compares
  moves; it does not watch what the player reads). A player that reads the engine's frames, a
  copy of the pack or another seat's hand, and uses it often enough to change its play, is
  caught; one that uses it in one position in a million may not be;
* hidden information that could not differ between the packs it pairs (its own past hands are
  known to it; everything else hidden is rearranged in some pair, but not in every combination);
* a player that behaves differently when it is being checked, or whose rule depends on the
  wall clock or on state kept between runs in a way the repeated runs do not reveal;
* a fused row policy on decision points outside the deals played (it compares outcomes, and
  only on the engine's default path when the installed engine has one);
* whether the player is any good, or fast: only that it keeps the contract.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from scopa_sim import api, seeding
from scopa_sim.contract import EXPLAIN_PROTOCOL, LegalActions, Observation, Player, explain_values
from scopa_sim.engine import batch as engine
from scopa_sim.players import player as player_of_spec
from scopa_sim.rules import PRESETS, Variant, parse_variant, variant

__all__ = [
    "EXPLAIN_PROTOCOL",
    "CheckReport",
    "PlayerCheckError",
    "check_player",
    "explain_values",
]

#: Option sets every preset is checked with by default.
DEFAULT_OPTIONS: tuple[dict[str, object], ...] = ({}, {"forced_capture": True})

#: Counterfactual packs played per base pack in the hidden-card check.
_PAIRS_PER_PACK = 6


class PlayerCheckError(AssertionError):
    """A player broke its contract; the message says which rule, where, and how to fix it."""


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check_player` checked, when everything passed."""

    player: str
    variants: tuple[str, ...]
    decisions: int  # decision points (rows) checked at the act level
    deals: int  # deals played in the run comparisons
    pairs: int  # pairs of packs compared for hidden information
    explain: bool  # whether the player has the optional explain method (and it was checked)
    blind: bool  # whether the hidden-card check ran (not for a player that sees hidden cards)
    fused: bool  # whether its fused row policy was compared with act
    seconds: float

    def __str__(self) -> str:
        extra = [
            *([] if self.blind else ["sees hidden cards by declaration: blindness not checked"]),
            *(["explain checked"] if self.explain else []),
            *(["fused path agrees with act"] if self.fused else []),
        ]
        return (
            f"{self.player}: passed on {len(self.variants)} variants "
            f"({self.decisions:,} decision points, {self.deals:,} deals, {self.pairs:,} pairs "
            f"of packs for hidden cards{', ' if extra else ''}{', '.join(extra)}) "
            f"in {self.seconds:.1f} s"
        )


def check_player(
    player: Player | str,
    variants: Iterable[Variant | str] | Variant | str | None = None,
    *,
    deals: int = 96,
    seed: int = 2024,
) -> CheckReport:
    """Run ``player`` (an instance or a player spec such as ``"greedy"`` or
    ``"mypkg.players:Cautious:margin=2"``) through the contract on ``variants`` (Variant objects,
    preset names or ``NAME:KEY=VALUE,...`` texts; default: every preset with the default rules
    and with ``forced_capture``). ``deals`` sets the deals per variant and lineup in the run
    comparisons (and a quarter of it the base packs of the hidden-card check); ``seed`` the
    packs and random numbers. Raises :class:`PlayerCheckError` on the first failure."""
    start = time.perf_counter()
    label = player if isinstance(player, str) else _label(player)
    if isinstance(player, str):
        player = player_of_spec(player)
    _check_frozen(player, label)
    if not isinstance(deals, int) or deals < 4:
        raise ValueError("deals must be a whole number of at least 4")
    rules = _variants(variants)
    # A player that declares it sees the hidden cards (an upper bound, such as a cheater) is
    # handed them by the engine: the probe must declare it too, and blindness is not its rule.
    blind = not getattr(player, "sees_hidden_cards", False)
    probe = (_Probe if blind else _SeeingProbe)(player, label)
    totals = {"deals": 0, "pairs": 0}
    for v in rules:
        _check_runs(player, probe, v, deals, seed, label, totals)
        if blind:
            totals["pairs"] += _check_hidden_cards(player, v, deals, seed, label)
    return CheckReport(
        label, tuple(v.describe() for v in rules), probe.decisions, totals["deals"],
        totals["pairs"], probe.explains, blind, _has_fused_path(player),
        time.perf_counter() - start,
    )  # fmt: skip


# 1. the player object ---------------------------------------------------------------------------


def _label(p) -> str:
    name = getattr(p, "name", None)
    return f"player {name!r} ({type(p).__module__}.{type(p).__qualname__})"


def _check_frozen(p, label: str) -> None:
    if not isinstance(p, Player):
        raise PlayerCheckError(
            f"{label} is not a scopa_sim player: subclass scopa_sim.players.Player (a frozen "
            "dataclass) and implement act(obs, legal, rng) (docs/players.md)"
        )
    if not (dataclasses.is_dataclass(p) and type(p).__dataclass_params__.frozen):
        raise PlayerCheckError(f"{label} is not a frozen dataclass: decorate it with "
                               "@dataclass(frozen=True) (docs/players.md)")  # fmt: skip
    try:
        p.name = p.name  # the same value: harmless if it were allowed
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise PlayerCheckError(
            f"{label} lets its attributes be set: a player is a frozen dataclass of parameters "
            "only (@dataclass(frozen=True), no __setattr__ of its own)"
        )
    try:
        hash(p)
    except TypeError as err:
        raise PlayerCheckError(
            f"{label} is not hashable ({err}): its parameters must be hashable values "
            "(numbers, strings, tuples), not lists or arrays"
        ) from None
    if not callable(getattr(p, "act", None)) or type(p).act is Player.act:
        raise PlayerCheckError(f"{label} does not implement act(obs, legal, rng)")


def _variants(variants) -> list[Variant]:
    if variants is None:
        return [variant(name, **options) for name in PRESETS for options in DEFAULT_OPTIONS]
    if isinstance(variants, Variant | str):
        variants = [variants]
    out = [v if isinstance(v, Variant) else parse_variant(v) for v in variants]
    if not out:
        raise ValueError("no variants to check the player on")
    return out


# 2-4 and 7. every decision point, through a probe the engine calls instead of the player --------


def _trimmed(legal: LegalActions, rows: np.ndarray) -> LegalActions:
    """The legal actions of ``rows`` as the engine would pad them for a batch of those rows
    alone: as wide as their largest count."""
    sub = legal.take(rows)
    width = max(1, int(sub.count.max(initial=0)))
    return dataclasses.replace(
        sub, card=sub.card[:, :width], capture=sub.capture[:, :width], group=sub.group[:, :width]
    )


class _Where:
    """Where a batch of decision points is, for a message: written only when one is raised."""

    __slots__ = ("obs", "suffix")

    def __init__(self, obs: Observation, suffix: str = ""):
        self.obs, self.suffix = obs, suffix

    def __add__(self, more: str) -> _Where:
        return _Where(self.obs, self.suffix + more)

    def __str__(self) -> str:
        o = self.obs
        return f"at play {o.play + 1} (seat {o.seat}) of {o.variant.describe()}{self.suffix}"


@dataclass(frozen=True, eq=False)
class _Probe(Player):
    """Plays as ``inner`` and checks every call: the engine sees the inner player's choices."""

    name = "probe"
    inner: Player
    label: str
    _counts: dict = dataclasses.field(default_factory=lambda: {"decisions": 0, "explains": False})

    @property
    def decisions(self) -> int:
        return self._counts["decisions"]

    @property
    def explains(self) -> bool:
        return self._counts["explains"]

    def act(self, obs: Observation, legal: LegalActions, rng: seeding.DecisionRandom):
        rows = len(legal.count)
        everyone = np.arange(rows)
        subset = everyone[::-1][::2]  # every other row, in reverse order
        rng_again, rng_subset = rng.subset(everyone), rng.subset(subset)
        explains = callable(getattr(self.inner, "explain", None))
        if explains:  # fresh generators for explain: the numbers act gets
            rng_explain = (rng.subset(everyone), rng.subset(subset))
        where = _Where(obs)

        choice = self._call(obs, legal, rng, where)
        self._check_indices(choice, legal, where)
        again = self._call(obs, legal, rng_again, where)
        if not np.array_equal(again, choice):
            b = int(np.flatnonzero(again != choice)[0]) if again.shape == choice.shape else 0
            raise PlayerCheckError(
                f"{self.label} is not deterministic: {where}, the same decision points with the "
                f"same random numbers gave different choices (row {b}: slot {choice[b]}, then "
                f"{again[b] if again.shape == choice.shape else again}). Draw every random "
                "number from the rng argument (rng.random(), rng.integers()), never from "
                "Python's random module, numpy's global generator or the clock"
            )
        legal_subset = _trimmed(legal, subset)
        part = self._call(obs.take(subset), legal_subset, rng_subset, where)
        self._check_indices(part, legal_subset, where + " (a subset of the batch's rows)")
        if not np.array_equal(part, choice[subset]):
            k = int(np.flatnonzero(part != choice[subset])[0])
            raise PlayerCheckError(
                f"{self.label} depends on the other rows of the batch: {where}, row "
                f"{subset[k]} chose slot {choice[subset][k]} among all {rows} rows but slot "
                f"{part[k]} when played with {len(subset)} of them in another order (and the "
                "padding trimmed). Each row is a different deal: compute each row from its own "
                "obs and legal row only (no row 0, no batch-wide max or sum, no padding width)"
            )
        if explains:
            self._check_explain(obs, legal, subset, legal_subset, rng_explain, where)
        self._counts["decisions"] += rows
        return choice

    def _call(self, obs, legal, rng, where) -> np.ndarray:
        try:
            return self.inner.act(obs, legal, rng)
        except PlayerCheckError:
            raise
        except Exception as err:
            raise PlayerCheckError(
                f"{self.label}: act raised {type(err).__name__}: {err} ({where}, "
                f"{len(legal.count)} rows)"
            ) from err

    def _check_indices(self, choice, legal: LegalActions, where) -> None:
        rows = len(legal.count)
        if not (isinstance(choice, np.ndarray) and np.issubdtype(choice.dtype, np.integer)):
            got = type(choice).__name__
            if isinstance(choice, np.ndarray):
                got = f"an array of {choice.dtype}"
            raise PlayerCheckError(
                f"{self.label}: act must return a numpy integer array (int64 indices into "
                f"legal), got {got} ({where})"
            )
        if choice.shape != (rows,):
            raise PlayerCheckError(
                f"{self.label}: act must return one index per row, shape ({rows},), got shape "
                f"{choice.shape} ({where})"
            )
        bad = np.flatnonzero((choice < 0) | (choice >= legal.count))
        if len(bad):
            b = int(bad[0])
            raise PlayerCheckError(
                f"{self.label} chose an illegal action: {where}, row {b} chose slot "
                f"{int(choice[b])} but has {int(legal.count[b])} legal actions (slots 0.."
                f"{int(legal.count[b]) - 1}; the slots after a row's count are padding). "
                f"{len(bad)} of {rows} rows were illegal"
            )

    def _check_explain(self, obs, legal, subset, legal_subset, rngs, where) -> None:
        self._counts["explains"] = True

        def call(o, lg, rng):
            try:
                return explain_values(self.inner, o, lg, rng)
            except Exception as err:
                raise PlayerCheckError(
                    f"{self.label}: explain raised {type(err).__name__}: {err} ({where})"
                ) from err

        def check(values, lg, what):
            if not (isinstance(values, np.ndarray) and np.issubdtype(values.dtype, np.floating)):
                raise PlayerCheckError(
                    f"{self.label}: explain must return a numpy float array, {EXPLAIN_PROTOCOL}, "
                    f"got {type(values).__name__} ({where}{what})"
                )
            if values.shape != lg.card.shape:
                raise PlayerCheckError(
                    f"{self.label}: explain must return one value per row and slot, shape "
                    f"{lg.card.shape} (that of legal.card), got {values.shape} ({where}{what})"
                )
            valid = np.arange(lg.card.shape[1]) < lg.count[:, None]
            if not np.isfinite(values[valid]).all():
                raise PlayerCheckError(
                    f"{self.label}: explain gave a legal action a value that is not finite "
                    f"({where}{what}); only padding slots may hold NaN"
                )
            return valid

        values = call(obs, legal, rngs[0])
        check(values, legal, "")
        part = call(obs.take(subset), legal_subset, rngs[1])
        valid = check(part, legal_subset, ", a subset of the batch's rows")
        whole = values[subset][:, : legal_subset.card.shape[1]]
        if not np.allclose(part[valid], whole[valid], rtol=1e-9, atol=1e-12):
            raise PlayerCheckError(
                f"{self.label}: explain depends on the other rows of the batch ({where}): the "
                "same rows got other values when explained with fewer rows in another order"
            )


@dataclass(frozen=True, eq=False)
class _SeeingProbe(_Probe):
    """The probe of a player that declares ``sees_hidden_cards``: the engine hands it (and so
    the player) the hidden hands and pack."""

    sees_hidden_cards: ClassVar[bool] = True


def _first_difference(a, b) -> str | None:
    """Where two DealOutcomes differ first, or None when they are equal."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if x.shape != y.shape:
            return f"{f.name} has shape {x.shape} in one and {y.shape} in the other"
        if not np.array_equal(x, y):
            differ = (x != y).reshape(len(x), -1).any(axis=1)
            return f"{f.name} of deal {int(np.flatnonzero(differ)[0])}"
    return None


def _has_fused_path(p: Player) -> bool:
    return (
        getattr(p, "fused_policy", None) is not None
        and "path" in inspect.signature(api.play_deals).parameters
    )


def _check_runs(p, probe, v: Variant, deals: int, seed: int, label: str, totals: dict) -> None:
    """Checks 2-4 and 7 on every decision point of whole runs, then the same runs again, in
    batches of another size (the last batch a sub-range of deals played alone) and games in two
    batch sizes against them (and the fused path against act)."""
    others = ["random"] * (v.n_sides - 1)
    span = range(deals)
    split = deals // 2 + 1  # two batches, of a size that does not divide the run
    for lineup, probed, who in (
        ([p] * v.n_sides, [probe] * v.n_sides, "on every side"),
        ([p, *others], [probe, *others], "on side 0 against random"),
    ):
        where = f"{v.describe()} with the player {who}"
        checked = api.play_deals(v, probed, deals=span, seed=seed, batch_size=deals)
        whole = api.play_deals(v, lineup, deals=span, seed=seed, batch_size=deals)
        differ = _first_difference(whole, checked)
        if differ and _has_fused_path(p):
            raise PlayerCheckError(
                f"{label}: its fused row policy ({p.fused_policy.name}) does not choose what "
                f"act chooses: {where}, {deals} deals on the fused path and on the lockstep path "
                f"differ first in {differ}. Set fused_policy = None on a player whose act differs "
                "from the policy it inherits (scopa_sim/contract.py)"
            )
        if differ:
            raise PlayerCheckError(
                f"{label} is not deterministic: {where}, the same {deals} deals played twice "
                f"with the same seed differ first in {differ}"
            )
        # The second batch is also the sub-range check: deals split..deals-1 played alone.
        parts = api.play_deals(v, lineup, deals=span, seed=seed, batch_size=split)
        differ = _first_difference(parts, whole)
        if differ:
            raise PlayerCheckError(
                f"{label} depends on the batch size or on the other deals of its batch: {where}, "
                f"{deals} deals played in one batch and in batches of {split} (deals "
                f"0..{split - 1}, then {split}..{deals - 1} alone) differ first in {differ}. A "
                "row's choice must depend on its own obs, legal and rng row only"
            )
        totals["deals"] += 3 * deals
    games = max(3, deals // 16)
    lineup = [p] * v.n_sides
    one = api.play_games(v, lineup, games=games, seed=seed, batch_size=games)
    many = api.play_games(v, lineup, games=games, seed=seed, batch_size=games // 2 + 1)
    differ = _first_difference(many, one)
    if differ:
        raise PlayerCheckError(
            f"{label} depends on the batch size: {v.describe()}, {games} whole games played in "
            f"one batch and in batches of {games // 2 + 1} differ first in {differ}"
        )
    totals["deals"] += 2 * len(one.game)


# 5. hidden cards --------------------------------------------------------------------------------


def _blocks(v: Variant) -> list[tuple[int, int]]:
    """(first pack position, size) of every hand block, in canonical order (docs/rules.md §2)."""
    out, position = [], v.table_cards
    for size in v.hands:
        for _ in range(v.n_players):
            out.append((position, size))
            position += size
    return out


def _base_packs(v: Variant, count: int, gen: np.random.Generator) -> np.ndarray:
    """``count`` random packs that are played (no throw-in)."""
    packs = np.empty((0, v.pack.n_cards), np.int8)
    while len(packs) < count:
        more = np.argsort(gen.random((2 * count, v.pack.n_cards)), axis=1).astype(np.int8)
        packs = np.concatenate([packs, more[~engine.throw_in_rows(v, more)]])
    return packs[:count]


def _counterfactuals(v: Variant, base: np.ndarray, gen: np.random.Generator) -> list[np.ndarray]:
    """Packs with the same table as ``base`` and hidden cards rearranged: alternately every card
    after a hand block's start shuffled, and two cards of different blocks swapped."""
    blocks = _blocks(v)
    out = []
    for k in range(_PAIRS_PER_PACK):
        other = base.copy()
        if k % 2 == 0:
            start = blocks[int(gen.integers(1, len(blocks)))][0] if len(blocks) > 1 else 0
            start = max(start, v.table_cards)
            while np.array_equal(other, base):
                other[start:] = gen.permutation(base[start:])
        else:
            a, b = gen.choice(len(blocks), size=2, replace=False)
            i = blocks[a][0] + int(gen.integers(blocks[a][1]))
            j = blocks[b][0] + int(gen.integers(blocks[b][1]))
            other[i], other[j] = base[j], base[i]
        out.append(other)
    return out


def _moves(v: Variant, players, packs, base_of, offset, scores, seed):
    """The move of every row at every play, ``(card int[R, plays], taken uint64[R, plays])``
    (card -1 after a stop), and each row's side per seat."""
    played = engine.play_batch(
        v, players, packs, offset=offset[base_of], scores=scores[base_of],
        player_key=seeding.stream_key(seed, seeding.PLAYERS), game=base_of,
        deal=np.zeros(len(packs), np.int64), record=True,
    )  # fmt: skip
    rows = np.arange(len(packs))
    cards = np.stack(
        [np.where(s.choice >= 0, s.legal.card[rows, s.choice], -1) for s in played.steps], 1
    )
    taken = np.stack(
        [np.where(s.choice >= 0, s.legal.capture[rows, s.choice], 0) for s in played.steps], 1
    )
    return cards, taken, played.seat_side


def _check_hidden_cards(p, v: Variant, deals: int, seed: int, label: str) -> int:
    """Check 5; returns the number of pairs compared. The base packs and their counterfactuals
    are played in separate batches, so that nothing a player keeps between calls (keyed by what
    the two deals share) can carry one deal's hidden cards into the other."""
    gen = np.random.default_rng([seed, v.pack.n_cards, v.n_players, len(v.hands)])
    n_base = max(4, deals // 4)
    bases = _base_packs(v, n_base, gen)
    others = np.array([o for base in bases for o in _counterfactuals(v, base, gen)], np.int8)
    base_rows = np.arange(n_base)
    other_of = np.repeat(base_rows, _PAIRS_PER_PACK)
    scores = gen.integers(0, v.target, size=(n_base, v.n_sides)).astype(np.int16)
    offset = np.arange(n_base) % v.n_players
    seat = np.arange(v.plays) % v.n_players  # plays go round the table from seat 0
    pairs = 0
    for lineup, only_side_0 in (
        ([p] * v.n_sides, False),
        ([p] + ["random"] * (v.n_sides - 1), True),
    ):
        _, players = api.resolve(v, lineup)
        cards_a, taken_a, _ = _moves(v, players, bases, base_rows, offset, scores, seed)
        cards_b, taken_b, sides = _moves(v, players, others, other_of, offset, scores, seed)
        cards_a, taken_a = cards_a[other_of], taken_a[other_of]
        differ = (cards_a != cards_b) | (taken_a != taken_b)
        pairs += len(others)
        for row in np.flatnonzero(differ.any(axis=1)):
            t = int(np.flatnonzero(differ[row])[0])
            if only_side_0 and sides[row, seat[t]] != 0:
                continue  # another player's move: not the one checked
            _check_pair(
                v, bases[other_of[row]], others[row], t, int(seat[t]),
                (cards_a[row, t], taken_a[row, t]), (cards_b[row, t], taken_b[row, t]), label,
            )  # fmt: skip
    return pairs


def _check_pair(v, pack_a, pack_b, t, seat, move_a, move_b, label) -> None:
    """The seat that plays first differently must hold a different hand."""
    ends = np.cumsum(v.hands) * v.n_players  # the play that ends each hand (round)
    r = int(np.searchsorted(ends, t, side="right"))
    start = v.table_cards + v.n_players * sum(v.hands[:r]) + seat * v.hands[r]
    hand_a = set(pack_a[start : start + v.hands[r]].tolist())
    hand_b = set(pack_b[start : start + v.hands[r]].tolist())
    if hand_a != hand_b:
        return
    code = v.pack.code

    def move(card_taken) -> str:
        card, taken = int(card_taken[0]), int(card_taken[1])
        if card < 0:
            return "no play (the deal had stopped)"
        captured = [code(c) for c in range(v.pack.n_cards) if taken >> c & 1]
        return code(card) + (" taking " + " ".join(captured) if captured else " laid")

    moved = [code(int(c)) for c in pack_a[pack_a != pack_b]]
    raise PlayerCheckError(
        f"{label} sees hidden cards: in {v.describe()}, two deals identical in everything seat "
        f"{seat} may know at play {t + 1} (the table, the {t} plays before, the scores and its own "
        f"hand {' '.join(code(c) for c in sorted(hand_a))}) got different moves from it: "
        f"{move(move_a)} in one and {move(move_b)} in the other. The packs differ only in cards "
        f"hidden from it ({' '.join(moved[:12])}{' ...' if len(moved) > 12 else ''} are dealt "
        "elsewhere). A player may use only its Observation and legal actions: no copy of the "
        "pack, no other hand, no look at the engine's frames, nothing remembered from playing "
        "another seat"
    )
