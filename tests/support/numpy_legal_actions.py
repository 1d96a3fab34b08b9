"""An alternative legal-action generator in pure numpy, from precomputed tables.

Kept as the alternative to the numba kernel (``kernels.legal_actions``), slower, and as a
second, independent implementation of docs/rules.md §3 that the tests check it against. Same
contract:
``legal_actions(hands, tables, ranks, fewest, forced)`` returns ``(card int8[B, A],
capture uint64[B, A], group int8[B, A], count int64[B], n_cards int64[B])``, with the
``fewest_cards`` and ``forced_capture`` options. Actions are grouped by card in card
order, as in the kernel, but the captures of one card may come in another order.

How it works, with no per-row Python loop:

1. Tables per pack (built once): for each value ``v``, the rank partitions of ``v`` into two or
   more parts with each part used at most 4 times (there are 4 suits), plus the one-part
   "partition" ``[v]`` that stands for the equal-rank captures. A partition is up to 4
   (rank, multiplicity) slots and its multiplicities packed 4 bits per rank.
2. Per row, the table's count per rank (packed the same way) and suit pattern per rank (4 bits).
3. Candidates: every (row, hand card) pair gets the equal-rank partition of its value if the
   table holds that rank, else the sum partitions of its value that use only ranks on the
   table (a table lookup by the set of ranks present). A candidate is feasible iff each rank's
   table count is at least its multiplicity: one SWAR subtraction on the packed counts.
4. A feasible partition expands to ``prod C(count_r, m_r)`` card sets. Each set's index is
   decoded in mixed radix into one ``m_r``-subset per rank, looked up in a table of the subsets
   of each 4-bit suit pattern, and spread to card bits.
5. Positions inside each row come from cumulative sums, and everything is scattered at once
   into the padded output.

``python -m tests.support.numpy_legal_actions`` checks it against the reference engine on states
from real play and times both implementations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np

_SLOTS = 4  # distinct ranks in a partition: five distinct ranks sum to at least 15 > 13
_HIGH = 0x8  # high bit of each 4-bit field (counts are at most 4, so no borrow crosses fields)


@dataclass(frozen=True)
class Tables:
    """Precomputed tables for a pack of ``ranks`` ranks; a rank index is rank - 1."""

    ranks: int
    # Candidates: partition ``v - 1`` is [v]; the sum partitions of v using only ranks present
    # on the table (``present``, bit r - 1 for rank r < v) are
    # ``flat[start[key] : start[key] + count[key]]`` with ``key = key_base[v - 1] + present``.
    flat: np.ndarray  # int64[F]: partition indices
    start: np.ndarray  # int64[K]
    count: np.ndarray  # int64[K]
    key_base: np.ndarray  # int64[ranks]
    packed: np.ndarray  # int64[P]: multiplicities, 4 bits per rank
    size: np.ndarray  # int64[P]: number of cards taken
    slot_rank: np.ndarray  # int64[P, 4]: rank index of each slot (0 in unused slots)
    slot_mult: np.ndarray  # int64[P, 4]: multiplicity of each slot (0 in unused slots)
    high: np.int64  # _HIGH in every rank's field
    binom: np.ndarray  # int64[5, 5]: C(n, k)
    subsets: np.ndarray  # uint8[16, 5, 6]: the i-th k-subset of a 4-bit suit pattern
    spread: np.ndarray  # uint64[16]: a 4-bit suit set as card bits of rank 1
    deposit: np.ndarray  # int64[2**ranks]: bit r of a suit's ranks moved to bit 4 r
    fives: np.int64  # 0b0101 in every field
    threes: np.int64  # 0b0011 in every field


def _partitions(v: int, largest: int):
    """Partitions of ``v`` into parts <= ``largest``, each part at most 4 times, as
    non-increasing tuples."""
    if v == 0:
        yield ()
        return
    for part in range(min(v, largest), 0, -1):
        for times in range(1, min(4, v // part) + 1):
            for rest in _partitions(v - part * times, part - 1):
                yield (part,) * times + rest


def _exclusive_cumsum(x: np.ndarray) -> np.ndarray:
    out = np.cumsum(x)
    out -= x
    return out


@cache
def tables(ranks: int) -> Tables:
    """The tables for a pack with ``ranks`` ranks (10: Italian, 13: French)."""
    parts: list[tuple[int, ...]] = [(v,) for v in range(1, ranks + 1)]
    flat, start, count, key_base = list(range(ranks)), [], [], []
    for v in range(1, ranks + 1):
        sums = [p for p in _partitions(v, v - 1) if len(p) >= 2]
        uses = np.array([sum(1 << (r - 1) for r in set(p)) for p in sums], np.int64)
        present = np.arange(1 << (v - 1))
        fits = (uses[None, :] & ~present[:, None]) == 0  # [key, partition]
        key_base.append(len(start))
        start += (len(flat) + _exclusive_cumsum(fits.sum(axis=1))).tolist()
        count += fits.sum(axis=1).tolist()
        flat += (len(parts) + np.nonzero(fits)[1]).tolist()
        parts += sums
    n = len(parts)
    packed = np.zeros(n, np.int64)
    slot_rank = np.zeros((n, _SLOTS), np.int64)
    slot_mult = np.zeros((n, _SLOTS), np.int64)
    for i, p in enumerate(parts):
        for j, r in enumerate(sorted(set(p))):
            m = p.count(r)
            packed[i] |= m << (4 * (r - 1))
            slot_rank[i, j], slot_mult[i, j] = r - 1, m
    binom = np.array([[len(list(combinations(range(a), b))) for b in range(5)] for a in range(5)])
    subsets = np.zeros((16, 5, 6), np.uint8)
    for pattern in range(16):
        suits = [s for s in range(4) if pattern >> s & 1]
        for k in range(5):
            for i, chosen in enumerate(combinations(suits, k)):
                subsets[pattern, k, i] = sum(1 << s for s in chosen)
    spread = np.array(
        [sum(1 << (ranks * s) for s in range(4) if x >> s & 1) for x in range(16)], np.uint64
    )
    return Tables(
        ranks=ranks,
        flat=np.array(flat, np.int64),
        start=np.array(start, np.int64),
        count=np.array(count, np.int64),
        key_base=np.array(key_base, np.int64),
        packed=packed,
        size=np.array([len(p) for p in parts], np.int64),
        slot_rank=slot_rank,
        slot_mult=slot_mult,
        high=np.int64(sum(_HIGH << (4 * r) for r in range(ranks))),
        binom=binom.astype(np.int64),
        subsets=subsets,
        spread=spread,
        deposit=np.array(
            [sum(1 << (4 * r) for r in range(ranks) if x >> r & 1) for x in range(1 << ranks)],
            np.int64,
        ),
        fives=np.int64(sum(0x5 << (4 * r) for r in range(ranks))),
        threes=np.int64(sum(0x3 << (4 * r) for r in range(ranks))),
    )


def legal_actions(hands, tables_, ranks: int, fewest: bool, forced: bool, width: int = 16):
    """Padded legal actions of a batch, as ``kernels.legal_actions`` (``width`` is ignored:
    the output is always exactly as wide as the largest row)."""
    t = tables(ranks)
    hands = np.asarray(hands, np.uint64)
    table = np.asarray(tables_, np.uint64)
    n_rows = len(hands)

    # Per row, 4 bits per rank: the table's suit pattern (each suit's ranks deposited into bit
    # ``suit`` of the rank's field), then the count per rank (a SWAR popcount of each field).
    low = np.uint64((1 << ranks) - 1)
    pattern = np.zeros(n_rows, np.int64)
    present = np.zeros(n_rows, np.int64)
    for suit in range(4):
        ranks_of_suit = (table >> np.uint64(ranks * suit)) & low
        pattern |= t.deposit[ranks_of_suit] << suit
        present |= ranks_of_suit.astype(np.int64)
    counts = pattern - ((pattern >> 1) & t.fives)
    counts = (counts & t.threes) + ((counts >> 2) & t.threes)

    # (row, hand card) pairs, in row then card order.
    rest = hands.copy()
    cards = np.empty((n_rows, int(np.bitwise_count(hands).max()) if n_rows else 0), np.int64)
    for j in range(cards.shape[1]):
        lowest = rest & (~rest + np.uint64(1))
        cards[:, j] = np.bitwise_count(lowest - np.uint64(1))  # 64 once the hand is exhausted
        rest ^= lowest
    pair_row, j = np.nonzero(cards < 64)
    pair_card = cards[pair_row, j]
    n_pairs = len(pair_row)

    # Candidate partitions of each pair: [v] if the table holds rank v, else the sum
    # partitions of v whose ranks are all on the table.
    value = pair_card % ranks
    equal = ((counts[pair_row] >> (4 * value)) & 15) > 0
    key = t.key_base[value] + (present[pair_row] & ((1 << value) - 1))
    first = np.where(equal, value, t.start[key])
    n_cand = np.where(equal, 1, t.count[key])
    cand_pair = np.repeat(np.arange(n_pairs), n_cand)
    within = np.arange(len(cand_pair)) - _exclusive_cumsum(n_cand)[cand_pair]
    cand = t.flat[first[cand_pair] + within]

    # Feasible iff every rank's count >= its multiplicity: no field's high bit is borrowed.
    feasible = ((counts[pair_row[cand_pair]] | t.high) - t.packed[cand]) & t.high == t.high
    cand_pair, cand = cand_pair[feasible], cand[feasible]
    if fewest and len(cand):
        fewest_size = np.full(n_pairs, 1 << 30)
        np.minimum.at(fewest_size, cand_pair, t.size[cand])
        keep = t.size[cand] == fewest_size[cand_pair]
        cand_pair, cand = cand_pair[keep], cand[keep]

    # Number of card sets of each feasible partition: prod over slots of C(count, multiplicity).
    cand_row = pair_row[cand_pair]
    slot_rank, slot_mult = t.slot_rank[cand], t.slot_mult[cand]
    slot_count = (counts[cand_row][:, None] >> (4 * slot_rank)) & 15
    radix = t.binom[slot_count, slot_mult]
    n_sets = radix.prod(axis=1)
    pair_sets = np.bincount(cand_pair, weights=n_sets, minlength=n_pairs).astype(np.int64)

    # Which pairs are playable (forced capture drops lays in rows that can capture), their
    # action counts, their group (index among the row's playable cards) and first slot.
    captures = pair_sets > 0
    playable = np.ones(n_pairs, bool)
    if forced:
        row_captures = np.zeros(n_rows, bool)
        row_captures[pair_row[captures]] = True
        playable = captures | ~row_captures[pair_row]
    n_actions = np.where(playable, np.maximum(pair_sets, 1), 0)
    count = np.bincount(pair_row, weights=n_actions, minlength=n_rows).astype(np.int64)
    n_playable = np.bincount(pair_row, weights=playable, minlength=n_rows).astype(np.int64)
    pair_slot = _exclusive_cumsum(n_actions) - _exclusive_cumsum(count)[pair_row]
    pair_group = _exclusive_cumsum(playable) - _exclusive_cumsum(n_playable)[pair_row]

    width = max(int(count.max()) if n_rows else 0, 1)
    out_card = np.full((n_rows, width), -1, np.int8)
    out_capture = np.zeros((n_rows, width), np.uint64)
    out_group = np.full((n_rows, width), -1, np.int8)

    # Lays: one action, capture 0.
    lay = np.flatnonzero(playable & ~captures)
    out_card[pair_row[lay], pair_slot[lay]] = pair_card[lay]
    out_group[pair_row[lay], pair_slot[lay]] = pair_group[lay]

    # Captures: card set k of a partition is decoded in mixed radix, one suit subset per slot.
    set_start = _exclusive_cumsum(n_sets)
    act = np.repeat(np.arange(len(cand)), n_sets)
    k = np.arange(len(act)) - set_start[act]
    pair = cand_pair[act]
    row = pair_row[pair]
    slot = pair_slot[pair] + (set_start - _exclusive_cumsum(pair_sets)[cand_pair])[act] + k
    mask = np.zeros(len(act), np.uint64)
    for j in range(_SLOTS):
        r = radix[act, j]
        rank = slot_rank[act, j]
        chosen = t.subsets[(pattern[row] >> (4 * rank)) & 15, slot_mult[act, j], k % r]
        mask |= t.spread[chosen] << rank.astype(np.uint64)
        k //= r
    out_card[row, slot] = pair_card[pair]
    out_capture[row, slot] = mask
    out_group[row, slot] = pair_group[pair]
    return out_card, out_capture, out_group, count, n_playable


# Verification and measurement (python -m tests.support.numpy_legal_actions) -------------------


def play_states(deals: int, seed: int = 0, players=("random", "random"), rules="classic"):
    """``(hands, tables)``: the acting hand and the table at every decision point met while
    playing ``deals`` deals, in play order."""
    from scopa_sim import api
    from scopa_sim.players import player

    seen: list[tuple[np.ndarray, np.ndarray]] = []

    @dataclass(frozen=True)
    class Recorder:
        inner: object

        def act(self, obs, legal, rng):
            seen.append((obs.hand.copy(), obs.table.copy()))
            return self.inner.act(obs, legal, rng)

    api.play_deals(rules, [Recorder(player(p)) for p in players], deals=deals, seed=seed)
    return np.concatenate([h for h, _ in seen]), np.concatenate([t for _, t in seen])


def random_states(n: int, seed: int = 0, ranks: int = 10, max_table: int = 12, max_hand: int = 3):
    """``n`` random states: a table of 0..``max_table`` cards and a disjoint hand of
    1..``max_hand`` cards, each size uniform."""
    rng = np.random.default_rng(seed)
    order = rng.permuted(np.tile(np.arange(4 * ranks, dtype=np.uint64), (n, 1)), axis=1)
    table_size = rng.integers(0, max_table + 1, n)[:, None]
    hand_end = table_size + rng.integers(1, max_hand + 1, n)[:, None]
    column = np.arange(4 * ranks)[None, :]
    bit = np.uint64(1) << order
    zero = np.uint64(0)
    hands = np.where((column >= table_size) & (column < hand_end), bit, zero)
    tables_ = np.where(column < table_size, bit, zero)
    return np.bitwise_or.reduce(hands, axis=1), np.bitwise_or.reduce(tables_, axis=1)


def as_sets(actions) -> list[set[tuple[int, int]]]:
    """Each row's actions as a set of (card, capture mask)."""
    card, capture, count = actions[0], actions[1], actions[3]
    return [
        set(zip(card[b, : count[b]].tolist(), capture[b, : count[b]].tolist(), strict=True))
        for b in range(len(count))
    ]


def reference_sets(variant, hands, tables_) -> list[set[tuple[int, int]]]:
    """The reference engine's actions of each state, as :func:`as_sets`."""
    from scopa_sim.cards import cards_of, mask_of
    from scopa_sim.engine import reference

    return [
        {
            (card, mask_of(taken))
            for card, taken in reference.legal_actions(variant, set(cards_of(h)), set(cards_of(t)))
        }
        for h, t in zip(hands.tolist(), tables_.tolist(), strict=True)
    ]


def well_formed(actions) -> bool:
    """Padding is -1; groups number each row's cards 0, 1, ... in slot order (each card's
    actions contiguous), and ``n_cards`` counts them."""
    card, _, group, count, n_cards = actions
    valid = np.arange(card.shape[1])[None, :] < count[:, None]
    if (card[~valid] != -1).any() or (group[~valid] != -1).any():
        return False
    new_card = np.ones_like(valid)
    new_card[:, 1:] = card[:, 1:] != card[:, :-1]
    expected = np.cumsum(new_card & valid, axis=1) - 1
    distinct = [len(set(card[b, : count[b]].tolist())) for b in range(len(count))]
    return bool(
        (group[valid] == expected[valid]).all()
        and (expected.max(axis=1) + 1 == n_cards).all()
        and (np.array(distinct) == n_cards).all()
    )


def throughput(fn, hands, tables_, batch: int, ranks: int = 10, repeats: int = 5) -> float:
    """Decision points per second of ``fn`` over the states, ``batch`` at a time (median)."""
    import time

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for i in range(0, len(hands) - batch + 1, batch):
            fn(hands[i : i + batch], tables_[i : i + batch], ranks, False, False)
        times.append(time.perf_counter() - start)
    return (len(hands) // batch) * batch / float(np.median(times))


def engine_throughput(fn, deals: int, players=("greedy", "greedy"), repeats: int = 3) -> float:
    """Deals per second of ``api.play_deals`` with ``fn`` swapped in for the kernel (median),
    on the lockstep path (the one that calls ``engine.legal_actions``)."""
    import time

    from scopa_sim import api
    from scopa_sim.engine import batch as engine

    saved = engine.legal_actions
    engine.legal_actions = fn
    try:
        api.play_deals("classic", players, deals=1000, seed=0, path="lockstep")
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            api.play_deals("classic", players, deals=deals, seed=1, path="lockstep")
            times.append(time.perf_counter() - start)
    finally:
        engine.legal_actions = saved
    return deals / float(np.median(times))


def _main() -> None:
    import argparse
    import json
    import sys

    from scopa_sim.engine import kernels
    from scopa_sim.rules import variant

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals played to record states")
    args = parser.parse_args()

    def say(*text):
        print(*text, file=sys.stderr, flush=True)

    played = play_states(args.deals, seed=1)
    synthetic = random_states(20_000, seed=1)
    say(f"{len(played[0])} states from {args.deals} random-vs-random deals, 20000 synthetic")
    for label, (hands, tables_) in (("played", played), ("synthetic", synthetic)):
        for options in ({}, {"fewest_cards": True}, {"forced_capture": True}):
            rules = variant("classic", **options)
            mine = legal_actions(hands, tables_, 10, rules.fewest_cards, rules.forced_capture)
            same = as_sets(mine) == reference_sets(rules, hands, tables_)
            say(label, rules.describe(), "same as reference:", same, "ok:", well_formed(mine))

    states = np.tile(played[0], 4), np.tile(played[1], 4)  # several batches of 16384
    kernels.legal_actions(played[0][:100], played[1][:100], 10, False, False)  # compile
    rows = []
    for name, fn in (("numba kernel", kernels.legal_actions), ("numpy tables", legal_actions)):
        row = {"implementation": name}
        for batch in (4096, 16384):
            row[f"decisions_per_second_{batch}"] = round(throughput(fn, *states, batch))
        row["engine_deals_per_second"] = round(engine_throughput(fn, 100_000))
        say(row)
        rows.append(row)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    _main()
