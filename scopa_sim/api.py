"""The Python API: play batches of deals or whole games from a seed, or given packs move by move.

>>> from scopa_sim import api
>>> out = api.play_deals("classic", ["greedy", "random"], deals=1000, seed=7)
>>> out.to_frame().shape
(2000, 22)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scopa_sim import integrity, seeding, storage
from scopa_sim.cards import cards_of
from scopa_sim.engine import batch as engine
from scopa_sim.engine import scoring
from scopa_sim.engine.outcomes import DealOutcomes
from scopa_sim.engine.reference import Move
from scopa_sim.players import Player, PlayerError, canonical_spec, player, spec_of
from scopa_sim.rules import RulesError, Variant, point_columns, variant, variant_of_config

__all__ = [
    "DealRecord",
    "PlayerError",
    "SideRecord",
    "canonical_spec",
    "naming_players",
    "play_deals",
    "play_games",
    "play_packs",
    "replay_run_deal",
    "resolve",
]


def resolve(
    rules: Variant | str, players: Sequence[Player | str]
) -> tuple[Variant, tuple[Player, ...]]:
    """Accept names as well as objects, and check there is one player per side and that each
    compiled player has its numbers for the variant (``policy_params`` raises RulesError with
    the fix when it cannot play it, e.g. an untrained expert): before a run writes anything."""
    rules = variant(rules) if isinstance(rules, str) else rules
    resolved = tuple(player(p) if isinstance(p, str) else p for p in players)
    if len(resolved) != rules.n_sides:
        raise RulesError(
            f"{rules.name} is played by {rules.n_sides} sides: name {rules.n_sides} players, "
            f"one per side (got {len(resolved)})"
        )
    for p in resolved:
        if getattr(p, "fused_policy", None) is not None:
            p.policy_params(rules)
    return rules, resolved


@contextlib.contextmanager
def naming_players(players: Sequence[Player]) -> Iterator[None]:
    """Name the player in a :class:`PlayerError` from the engine by its spec
    (``players.spec_of``): the engine knows a player only by its class and side."""
    try:
        yield
    except PlayerError as err:
        if not 0 <= err.side < len(players):
            raise
        raise err.naming(spec_of(players[err.side])) from err.__cause__


def _span(count: int | range, what: str) -> range:
    if isinstance(count, int | np.integer) and not isinstance(count, bool) and count >= 0:
        return range(int(count))
    if isinstance(count, range) and count.step == 1 and count.start >= 0:
        return count
    raise RulesError(f"{what} must be a count (0 or more) or a range of game numbers from 0 up")


def play_deals(
    rules: Variant | str,
    players: Sequence[Player | str],
    *,
    deals: int | range,
    seed: int,
    batch_size: int = 8192,
    path: str = "auto",
) -> DealOutcomes:
    """Independent deals (no game score), the deal passing round the table; per-deal outcomes.

    ``path`` is the engine path: "auto" (the default: whole deals compiled when every player
    has a fused row policy, as random and greedy do), "fused" or "lockstep"; the outcomes are
    the same on every path (``engine.batch.batch_player``)."""
    rules, players = resolve(rules, players)
    span = _span(deals, "deals")
    with naming_players(players):
        return engine.play_deals(rules, players, seed, span, batch_size, path)


def play_games(
    rules: Variant | str,
    players: Sequence[Player | str],
    *,
    games: int | range,
    seed: int,
    batch_size: int = 8192,
    path: str = "auto",
) -> DealOutcomes:
    """Whole games to the target; per-deal outcomes, ordered by game then deal. ``path``: as
    for :func:`play_deals`."""
    rules, players = resolve(rules, players)
    span = _span(games, "games")
    with naming_players(players):
        return engine.play_games(rules, players, seed, span, batch_size, path)


@dataclass(frozen=True)
class SideRecord:
    side: int
    captured: list[int]
    points: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.points.values())


@dataclass(frozen=True)
class DealRecord:
    """One deal played from a given pack: every move, and each side's cards and points."""

    variant: Variant
    pack: list[int]
    throw_in: bool
    moves: list[Move]
    sides: list[SideRecord]
    leftovers: list[int]
    seat_sides: list[int]  # the side of each seat in play order
    opening: int = 0  # escoba: escobas the dealer's side took from the opening table
    stopped_by: int | None = None  # side whose scopa won the game outright, ending the deal
    #: Per play, the legal actions the player was offered, as (card, captured cards) in the
    #: engine's slot order (the move is one of them); empty for a throw-in.
    legal: list[list[tuple[int, tuple[int, ...]]]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)  # the game scores before the deal, per side
    players: tuple[Player, ...] = ()  # the player of each side
    #: The key of the players' random numbers in this deal (``seeding.deal_keys``): play ``k``'s
    #: generator is ``seeding.DecisionRandom(np.array([decision_key], np.uint64), k)``.
    decision_key: int | None = None

    @property
    def dealer(self) -> int:
        return self.variant.n_players - 1

    def to_json(self) -> dict:
        """The replay format: seat 0 leads, the dealer plays last (docs/rules.md §2)."""
        return {
            "variant": self.variant.describe(),
            "deck": self.pack,
            "dealer": self.dealer,
            "seat_sides": self.seat_sides,
            "throw_in": self.throw_in,
            "moves": [
                {"seat": m.seat, "card": m.card, "captured": list(m.captured), "scopa": m.scopa}
                for m in self.moves
            ],
            "sides": [
                {"side": s.side, "captured": s.captured, "points": s.points, "total": s.total}
                for s in self.sides
            ],
            "leftovers": self.leftovers,
            "opening": self.opening,
            "stopped_by": self.stopped_by,
        }


def check_pack(rules: Variant, pack: Sequence[int]) -> list[int]:
    """A pack must be a permutation of the card ids; say what is wrong when it is not."""
    n = rules.pack.n_cards
    try:
        cards = [int(c) for c in pack]
    except (TypeError, ValueError):
        raise RulesError(f"a pack is {n} card ids separated by commas") from None
    if sorted(cards) != list(range(n)):
        missing = sorted(set(range(n)) - set(cards))
        extra = sorted(c for c in set(cards) if not 0 <= c < n or cards.count(c) > 1)
        raise RulesError(
            f"a pack must hold each card id 0..{n - 1} exactly once "
            f"(got {len(cards)} ids; missing {missing[:5]}, repeated or unknown {extra[:5]})"
        )
    return cards


def play_packs(
    rules: Variant | str,
    players: Sequence[Player | str],
    packs: Sequence[Sequence[int]],
    *,
    seed: int = 0,
) -> list[DealRecord]:
    """Play each pack as one deal with seat 0 leading; a throw-in pack is reported, not played.

    The players' random numbers are keyed by (seed, pack index), as deal ``i`` of a run.
    """
    rules, players = resolve(rules, players)
    if not len(packs):
        raise RulesError("no packs to play; give at least one pack")
    cards = np.array([check_pack(rules, p) for p in packs], np.int8)
    n = len(cards)
    return record_deals(
        rules, players, cards, seed=seed, game=np.arange(n), deal=np.zeros(n, np.int64),
        offset=np.zeros(n, np.int64), scores=np.zeros((n, rules.n_sides), np.int16),
    )  # fmt: skip


def replay_run_deal(folder, game: int, deal: int) -> DealRecord:
    """Replay deal ``deal`` of game ``game`` of a recorded run, exactly as it was played."""
    folder = Path(folder)
    manifest = storage.read_manifest(folder)
    if manifest is None:
        raise RulesError(f"{folder} is not a scopa-sim run (no {storage.MANIFEST_NAME})")
    # Packs and rows of another data version are not what this version would replay.
    storage.check_versions(folder, manifest)
    # The manifest's configuration, as the runner checked and wrote it (runner.RunConfig.rules:
    # the variant with its options; one player spec per side).
    cfg = manifest["config"]
    rules, players = resolve(variant_of_config(cfg), list(cfg["players"]))  # file runs too
    import polars as pl  # not before it is needed (storage.py says why)

    rows = (
        integrity.scan_run(folder)  # the chunks its manifest lists, checked (storage.py)
        .filter((pl.col("game") == game) & (pl.col("deal") == deal))
        .sort("side")
        .collect()
    )
    if rows.is_empty():
        raise RulesError(f"{folder} has no deal {deal} in game {game}; games run from 0")
    before = (rows["score"] - rows["points"]).to_numpy().astype(np.int16)
    if cfg["mode"] == "deals":
        before[:] = 0
    game_a, deal_a = np.array([game], np.int64), np.array([deal], np.int64)
    attempt = np.array([int(rows["redeals"][0])], np.int64)
    seed = int(cfg["seed"])
    pack = seeding.packs(
        seeding.stream_key(seed, seeding.PACKS), game_a, deal_a, attempt, rules.pack.n_cards
    )
    first = engine.first_dealers(rules, seeding.stream_key(seed, seeding.PACKS), game_a)
    offset = engine.seat_offsets(first, deal_a, rules.n_players)
    return record_deals(
        rules, players, pack, seed=seed, game=game_a, deal=deal_a, offset=offset,
        scores=before[None, :],
    )[0]  # fmt: skip


def record_deals(rules, players, cards, *, seed, game, deal, offset, scores) -> list[DealRecord]:
    """Play packs on the vectorised engine with a record of every play; one record per pack."""
    thrown = engine.throw_in_rows(rules, cards)
    playing = np.flatnonzero(~thrown)
    keys = seeding.deal_keys(
        seeding.stream_key(seed, seeding.PLAYERS), np.asarray(game, np.int64),
        np.asarray(deal, np.int64),
    )  # fmt: skip
    records: list[DealRecord | None] = [None] * len(cards)
    for i in np.flatnonzero(thrown):
        records[i] = DealRecord(
            rules, cards[i].tolist(), True, [], [], [], [], scores=np.asarray(scores)[i].tolist(),
            players=tuple(players), decision_key=int(keys[i]),
        )  # fmt: skip
    if not len(playing):
        return records
    with naming_players(players):
        played = engine.play_batch(
            rules, players, cards[playing], offset=np.asarray(offset)[playing],
            scores=np.asarray(scores)[playing],
            player_key=seeding.stream_key(seed, seeding.PLAYERS),
            game=np.asarray(game, np.int64)[playing], deal=np.asarray(deal, np.int64)[playing],
            record=True,
        )  # fmt: skip
    stopped = played.stopped_by >= 0
    points = scoring.score(rules, played.captured, played.scope, stopped, played.tallies).points
    for row, i in enumerate(playing):
        moves, legal = [], []
        for step in played.steps:
            k = step.choice[row]
            if k < 0:  # the deal stopped before this play
                break
            legal.append(
                [
                    (int(step.legal.card[row, j]), tuple(cards_of(step.legal.capture[row, j])))
                    for j in range(step.legal.count[row])
                ]
            )
            moves.append(
                Move(
                    step.seat,
                    int(step.legal.card[row, k]),
                    tuple(cards_of(step.legal.capture[row, k])),
                    bool(step.scopa[row]),
                )
            )
        sides = [
            SideRecord(
                side,
                cards_of(played.captured[row, side]),
                {c: int(points[row, side, j]) for j, c in enumerate(point_columns(rules))},
            )
            for side in range(rules.n_sides)
        ]
        records[i] = DealRecord(
            rules, cards[i].tolist(), False, moves, sides, cards_of(played.leftovers[row]),
            played.seat_side[row].tolist(), int(played.opening[row]),
            int(played.stopped_by[row]) if stopped[row] else None, legal,
            np.asarray(scores)[i].tolist(), tuple(players), int(keys[i]),
        )  # fmt: skip
    return records
