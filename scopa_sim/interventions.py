"""Card values by intervention: change who holds one card, everything else fixed, and compare.

Regressions of a deal's points on the cards a side holds measure associations: the scoring is
not additive (the primiera takes each suit's best card, the cards and coins points are
thresholds) and which cards a side captures depends on how it played. Two interventions measure a
card's value instead, as thin layers over the engine (no rule is restated here):

* **captured value** (exact rescoring): a finished deal, with the card moved from its capturer's
  pile to the other side's, scored again by ``scoring.score`` with the scope unchanged. The value
  is the capturer's points (and margin) with the card minus without it: what the card is worth
  *at the end of the deal*, given everything else captured.
* **dealt value** (paired replays): the same deal played twice by the same players on the same
  random numbers, once from its own pack and once from the pack with the card swapped into the
  other side's hands (for a card of the other side's hands, drawn from a dedicated stream). The
  value is the side's points with the card dealt minus without it: what holding the card is
  worth *before play*, play included.

Both are defined for two sides only (a card moved "to the other side" is ambiguous with three);
more sides raise ValueError. Team games with two sides (classic-4p, scopone) are two-sided.

A third piece turns points into the chance of winning the game: :func:`win_table` estimates,
from played games, the chance that a side wins from the scores at the start of a deal, and
:func:`win_after` reads it for the scores after a deal (a deal that ends the game gives 1 or 0).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import polars as pl

from scopa_sim import seeding, stats
from scopa_sim.engine import batch, scoring
from scopa_sim.rules import CATEGORIES, Variant

_ONE = np.uint64(1)
_PRIMIERA = CATEGORIES.index("primiera")

#: Seeding stream of the swap partners (``seeding.PACKS`` and ``seeding.PLAYERS`` are 0 and 1;
#: a high number leaves room for the engine's own future streams).
SWAPS = 101
#: What a seed gives as swap partners and replay rows; bump when the same call would give other
#: rows (cached replays record it and are recomputed when it differs).
VERSION = 1


def _two_sides(variant: Variant) -> None:
    if variant.n_sides != 2:
        raise ValueError(
            f"card values by intervention need two sides (the card moves to the other one); "
            f"{variant.name} has {variant.n_sides}"
        )


# Captured value: exact rescoring ---------------------------------------------------------------


@dataclass(frozen=True)
class CapturedValues:
    """Per deal and card: who captured it and what it was worth to them at the end of the deal.

    Values are the capturer's figure with the card minus with the card moved to the other side;
    0 where nobody captured the card (``capturer`` -1: a leftover nobody took)."""

    capturer: np.ndarray  # int8[B, C]: side that captured the card, -1 if nobody
    points: np.ndarray  # int16[B, C]: change in the capturer's deal points
    margin: np.ndarray  # int16[B, C]: change in capturer's points minus the other side's
    primiera: np.ndarray  # int8[B, C]: change in the capturer's primiera point


def captured_values(
    variant: Variant,
    captured: np.ndarray,
    scope: np.ndarray,
    stopped: np.ndarray | None = None,
    cards: Sequence[int] | None = None,
) -> CapturedValues:
    """Exact rescoring of ``captured`` (``uint64[B, 2]``) with each card of ``cards`` (default:
    the whole pack) moved to the other side, one vectorised ``scoring.score`` per card.

    ``scope`` (``int[B, 2]``) is unchanged by a move; ``stopped`` deals score their scope alone,
    so a card is worth 0 in them. Columns of the result follow ``cards``."""
    _two_sides(variant)
    captured = np.asarray(captured, np.uint64)
    scope = np.asarray(scope)
    cards = list(range(variant.pack.n_cards)) if cards is None else [int(c) for c in cards]
    base = scoring.score(variant, captured, scope, stopped)
    totals = base.totals.astype(np.int16)
    prim = base.points[:, :, _PRIMIERA]
    shape = (len(captured), len(cards))
    capturer = np.full(shape, -1, np.int8)
    points = np.zeros(shape, np.int16)
    margin = np.zeros(shape, np.int16)
    primiera = np.zeros(shape, np.int8)
    for j, card in enumerate(cards):
        bit = _ONE << np.uint64(card)
        has = (captured & bit) != 0  # [B, 2]
        side = np.where(has[:, 0], 0, np.where(has[:, 1], 1, -1)).astype(np.int8)
        # Where one side holds it, XOR moves it to the other; rows where nobody holds it are
        # scored too (cheaper than selecting rows) and their result is discarded.
        after = scoring.score(variant, captured ^ bit, scope, stopped)
        held = side >= 0
        s = np.maximum(side, 0).astype(np.int64)[:, None]
        own = np.take_along_axis(totals, s, 1)[:, 0] - np.take_along_axis(after.totals, s, 1)[:, 0]
        other = (
            np.take_along_axis(totals, 1 - s, 1)[:, 0]
            - np.take_along_axis(after.totals, 1 - s, 1)[:, 0]
        )
        won = np.take_along_axis(prim, s, 1)[:, 0]
        won = won - np.take_along_axis(after.points[:, :, _PRIMIERA], s, 1)[:, 0]
        capturer[:, j] = side
        points[:, j] = np.where(held, own, 0)
        margin[:, j] = np.where(held, own - other, 0)
        primiera[:, j] = np.where(held, won, 0)
    return CapturedValues(capturer, points, margin, primiera)


# Dealt value: paired replays -------------------------------------------------------------------


def pack_seats(variant: Variant) -> np.ndarray:
    """Seat dealt each pack position (``int8[cards]``, -1 for the table): table first, then hand
    by hand one block per seat in turn order (docs/rules.md §2, as the engines deal)."""
    seat = np.full(variant.pack.n_cards, -1, np.int8)
    position = variant.table_cards
    for hand_size in variant.hands:
        for s in range(variant.n_players):
            seat[position : position + hand_size] = s
            position += hand_size
    return seat


@dataclass(frozen=True)
class DealtPairs:
    """One row per (deal, card) replayed: the card's side, the card it swapped with, and the
    side's outcomes with the card dealt (``*_with``, the deal as played) and without it
    (``*_without``, the pack with the two cards exchanged)."""

    game: np.ndarray  # int64[D]: deal key (game, deal 0), as play_deals numbers deals
    card: np.ndarray  # int8[D]
    side: np.ndarray  # int8[D]: the side whose hands the card was dealt to
    partner: np.ndarray  # int8[D]: the other side's card it was exchanged with
    dealt: np.ndarray  # uint64[D]: the side's dealt hand cards in the deal as played
    points_with: np.ndarray  # int16[D]: the side's deal points
    points_without: np.ndarray  # int16[D]
    other_with: np.ndarray  # int16[D]: the other side's deal points
    other_without: np.ndarray  # int16[D]
    primiera_with: np.ndarray  # int8[D]: the side's primiera point
    primiera_without: np.ndarray  # int8[D]

    def __len__(self) -> int:
        return len(self.game)

    def to_frame(self) -> pl.DataFrame:
        return pl.DataFrame({f.name: getattr(self, f.name) for f in fields(self)})

    @staticmethod
    def from_frame(frame: pl.DataFrame) -> DealtPairs:
        return DealtPairs(**{f.name: frame[f.name].to_numpy() for f in fields(DealtPairs)})

    @staticmethod
    def concat(parts: list[DealtPairs]) -> DealtPairs:
        return DealtPairs(
            **{
                f.name: np.concatenate([getattr(p, f.name) for p in parts])
                for f in fields(DealtPairs)
            }
        )


def swap_partners(
    variant: Variant, packs: np.ndarray, offset: np.ndarray, game: np.ndarray, card: int,
    key: np.uint64, deal: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For each pack, where ``card`` lies, the side it was dealt to, and the position of the
    other side's hand card it is exchanged with (uniform over that side's dealt cards, drawn
    from ``key`` by (game, deal, card)). Rows where the card lies on the table get side -1."""
    seats = pack_seats(variant)
    rows = len(packs)
    position = np.argmax(packs == card, axis=1)
    seat = seats[position]
    seat_side = batch.seat_sides(variant, np.asarray(offset))
    in_hand = seat >= 0
    side = np.full(rows, -1, np.int8)
    side[in_hand] = seat_side[np.flatnonzero(in_hand), seat[in_hand]]
    # The other side's hand positions, per row, in pack order; pick one uniformly.
    pos_side = np.where(seats[None, :] >= 0, seat_side[:, np.maximum(seats, 0)], -1)
    other = (pos_side >= 0) & (pos_side != side[:, None])
    count = other.sum(axis=1)
    deal = np.zeros(rows, np.int64) if deal is None else np.asarray(deal)
    u = seeding.to_uniform(seeding.hash_counters(key, game, deal, np.full(rows, card)))
    pick = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    partner = np.argmax(np.cumsum(other, axis=1) > pick[:, None], axis=1)
    return position, side, partner


def dealt_values(
    variant: Variant,
    players: Sequence,
    seed: int,
    deals: range,
    cards: Sequence[int] | None = None,
    batch_size: int = 8192,
    scores: Sequence[int] | None = None,
    partner: str = "random",
    path: str = "auto",
) -> DealtPairs:
    """Paired replays of deals ``deals`` keyed as ``batch.play_deals`` keys them (deal ``i`` is
    game ``i``, deal 0: same packs after throw-ins, same first dealer, same player keys).

    For each card of ``cards`` (default: the whole pack) dealt into a hand, the pack with that
    card exchanged with one of the other side's hand cards is played by the same players on the
    same random numbers. Only hand cards move, so the table (throw-ins, escoba openings) is the
    same in both arms and the swapped pack is a valid deal; cards dealt to the table are skipped.
    ``partner="self"`` exchanges each card with itself (the A/A check: no difference at all).
    ``scores`` are the game scores before the deal that the players see (default 0-0). The rows
    depend only on (seed, deal, card), not on ``batch_size``.
    """
    _two_sides(variant)
    if partner not in ("random", "self"):
        raise ValueError(f"partner is 'random' or 'self', not {partner!r}")
    players = batch.check_players(variant, players)
    play = batch.batch_player(players, path)
    cards = list(range(variant.pack.n_cards)) if cards is None else [int(c) for c in cards]
    pack_key = seeding.stream_key(seed, seeding.PACKS)
    player_key = seeding.stream_key(seed, seeding.PLAYERS)
    swap_key = seeding.stream_key(seed, SWAPS)
    start = np.zeros(variant.n_sides, np.int16) if scores is None else np.asarray(scores, np.int16)
    seats = pack_seats(variant)
    parts = []
    for first_deal in range(deals.start, deals.stop, batch_size):
        game = np.arange(first_deal, min(first_deal + batch_size, deals.stop), dtype=np.int64)
        deal = np.zeros(len(game), np.int64)
        offset = batch.seat_offsets(batch.first_dealers(variant, pack_key, game), deal,
                                    variant.n_players)  # fmt: skip
        packs, _ = batch.deal_packs(variant, pack_key, game, deal)
        before = np.broadcast_to(start, (len(game), variant.n_sides)).copy()

        keyed = (variant, players, play, offset, before, player_key, game, deal)
        totals, prim = _replay(keyed, packs, np.arange(len(game)))
        seat_side = batch.seat_sides(variant, offset)
        for card in cards:
            position, side, other = swap_partners(
                variant, packs, offset, game, card, swap_key, deal
            )
            rows = np.flatnonzero(side >= 0)
            if partner == "self":
                other = position
            swapped = packs[rows].copy()
            r = np.arange(len(rows))
            swapped[r, position[rows]] = packs[rows, other[rows]]
            swapped[r, other[rows]] = packs[rows, position[rows]]
            new_totals, new_prim = _replay(keyed, swapped, rows)
            s = side[rows].astype(np.int64)
            mine = seat_side[rows][:, np.maximum(seats, 0)] == s[:, None]
            mine &= seats[None, :] >= 0
            dealt = np.bitwise_or.reduce(
                np.where(mine, _ONE << packs[rows].astype(np.uint64), np.uint64(0)), axis=1
            )
            parts.append(
                DealtPairs(
                    game=game[rows],
                    card=np.full(len(rows), card, np.int8),
                    side=s.astype(np.int8),
                    partner=packs[rows, other[rows]].astype(np.int8),
                    dealt=dealt,
                    points_with=totals[rows, s].astype(np.int16),
                    points_without=new_totals[r, s].astype(np.int16),
                    other_with=totals[rows, 1 - s].astype(np.int16),
                    other_without=new_totals[r, 1 - s].astype(np.int16),
                    primiera_with=prim[rows, s].astype(np.int8),
                    primiera_without=new_prim[r, s].astype(np.int8),
                )
            )
    if not parts:
        raise ValueError("no deals to replay")
    pairs = DealtPairs.concat(parts)
    order = np.lexsort((pairs.card, pairs.game))
    return DealtPairs(**{f.name: getattr(pairs, f.name)[order] for f in fields(DealtPairs)})


def _replay(keyed, packs: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Play ``packs`` as deals ``rows`` of the batch ``keyed``; each side's points and primiera
    point."""
    variant, players, play, offset, before, player_key, game, deal = keyed
    out = play(
        variant, players, packs, offset=offset[rows], scores=before[rows],
        player_key=player_key, game=game[rows], deal=deal[rows],
    )  # fmt: skip
    sc = scoring.score(variant, out.captured, out.scope, out.stopped_by >= 0, out.tallies)
    return sc.totals, sc.points[:, :, _PRIMIERA]


def cached_dealt_values(
    folder: Path, name: str, variant: Variant, players: Sequence, player_specs: Sequence[str],
    seed: int, deals: range, source: dict | None = None, **kwargs,
) -> DealtPairs:  # fmt: skip
    """:func:`dealt_values`, kept in ``folder/NAME.parquet`` beside ``NAME.manifest.json``;
    recomputed only when the file is missing or its manifest differs (seed, deals, players,
    variant, pack stream, data and swap versions, and ``source``: e.g. what identifies the run
    the replays stand beside)."""
    import scopa_sim
    from scopa_sim import storage

    manifest = {
        "name": name,
        "seed": int(seed),
        "deals": [deals.start, deals.stop],
        "players": list(player_specs),
        "variant": repr(variant),
        "options": {k: str(v) for k, v in sorted(kwargs.items())},
        "scopa_sim": scopa_sim.__version__,
        "data_version": storage.DATA_VERSION,
        "pack_stream": seeding.PACK_STREAM_VERSION,
        "interventions_version": VERSION,
        "source": source or {},
    }
    folder = Path(folder)
    data, meta = folder / f"{name}.parquet", folder / f"{name}.manifest.json"
    if data.exists() and meta.exists():
        try:
            if json.loads(meta.read_text()) == manifest:
                return DealtPairs.from_frame(pl.read_parquet(data))
        except (ValueError, OSError):
            pass  # unreadable: compute again
    if (run := storage.read_manifest(folder)) is not None or storage.done_chunks(folder):
        # A run folder holds its run alone: a file of another command breaks its readers.
        what = storage.describe_kind(run) if run else "chunk files of a run"
        raise storage.StorageError(
            f"{folder} holds {what}; keep the interventions' files in a folder of their own"
        )
    pairs = dealt_values(variant, players, seed, deals, **kwargs)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.{os.getpid()}.parquet"
    pairs.to_frame().write_parquet(tmp)
    os.replace(tmp, data)
    tmp_meta = folder / f".{name}.{os.getpid()}.json"
    tmp_meta.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    os.replace(tmp_meta, meta)
    return pairs


# The chance to win the game from a score -------------------------------------------------------


@dataclass(frozen=True)
class WinTable:
    """W[a, b]: share of side-deals starting at own score ``a`` and other score ``b`` whose side
    went on to win the game; ``n`` the side-deals behind each cell (NaN where none)."""

    w: np.ndarray  # float64[G, G]
    n: np.ndarray  # int64[G, G]
    target: int


def win_table(own: np.ndarray, other: np.ndarray, won: np.ndarray, target: int) -> WinTable:
    """Estimate W from side-deals of played games: scores before each deal and whether that side
    won the game. Pass both sides of every deal (pooled: W then conditions on the two scores
    only, not on the deal number nor on who deals), so W[a, a] is 1/2 exactly."""
    own, other = np.asarray(own, np.int64), np.asarray(other, np.int64)
    size = int(max(own.max(), other.max(), target)) + 1
    cell = own * size + other
    n = np.bincount(cell, minlength=size * size).reshape(size, size)
    wins = np.bincount(cell, weights=np.asarray(won, np.float64), minlength=size * size)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = wins.reshape(size, size) / n
    return WinTable(w, n, int(target))


def win_after(table: WinTable, own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The chance to win from scores ``own``, ``other`` after a deal: 1 or 0 when the deal ended
    the game (a side at or past the target and strictly ahead, docs/rules.md §6), 1/2 when both
    are level at or past it, else the estimated W. Raises ValueError on a score W never saw."""
    own, other = np.asarray(own, np.int64), np.asarray(other, np.int64)
    t = table.target
    out = np.full(len(own), np.nan)
    out[(own >= t) & (own > other)] = 1.0
    out[(other >= t) & (other > own)] = 0.0
    out[(own >= t) & (own == other)] = 0.5
    rest = np.isnan(out)
    size = len(table.w)
    if (own[rest] >= size).any() or (other[rest] >= size).any():
        raise ValueError("a score past the win table's range")
    out[rest] = table.w[own[rest], other[rest]]
    if np.isnan(out).any():
        raise ValueError("a score the win table has no games for")
    return out


# Statistics ------------------------------------------------------------------------------------


def clustered_mean(values, clusters, level: float = stats.LEVEL) -> stats.Estimate:
    """Mean of ``values`` with a t interval clustered by ``clusters`` (e.g. several aces of one
    deal): the ratio of per-cluster sums to per-cluster counts, linearised per cluster
    (``stats.linearised_ratio``). ``n`` is the number of values."""
    values = np.asarray(values, np.float64)
    clusters = np.asarray(clusters)
    if clusters.dtype.kind in "iu" and len(clusters) and clusters.min() >= 0:
        index = clusters  # whole numbers (deal numbers): no sort needed
    else:
        _, index = np.unique(clusters, return_inverse=True)
    counts = np.bincount(index)
    sums = np.bincount(index, weights=values)[counts > 0]
    est = stats.mean_ci(stats.linearised_ratio(sums, counts[counts > 0]), level)
    return stats.Estimate(est.value, est.low, est.high, len(values))
