"""Check 5 of the contract: a player is blind to hidden cards.

Pairs of packs with the same table but other hands and stock rearranged (cards shuffled after a
hand's block, or two hidden cards swapped) are played with the same random numbers; the first
play at which a pair's moves differ must be made by a seat whose own hand differs between the
two packs, since everything else it may know (the table, the plays before, the scores, its
side, the hands shown to the table by their declarations, cirulla.md C5.3) is the same. A pair
whose shown hands differ by then is not held against the player: those cards are not hidden.
"""

from __future__ import annotations

import numpy as np

from scopa_sim import api, seeding
from scopa_sim.engine import batch as engine
from scopa_sim.engine import deal_rules
from scopa_sim.rules import Variant
from scopa_sim.testing.report import PlayerCheckError

#: Counterfactual packs played per base pack.
PAIRS_PER_PACK = 6


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
    for k in range(PAIRS_PER_PACK):
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


def check_hidden_cards(p, v: Variant, deals: int, seed: int, label: str) -> int:
    """Check 5; returns the number of pairs compared. The base packs and their counterfactuals
    are played in separate batches, so that nothing a player keeps between calls (keyed by what
    the two deals share) can carry one deal's hidden cards into the other."""
    gen = np.random.default_rng([seed, v.pack.n_cards, v.n_players, len(v.hands)])
    n_base = max(4, deals // 4)
    bases = _base_packs(v, n_base, gen)
    others = np.array([o for base in bases for o in _counterfactuals(v, base, gen)], np.int8)
    base_rows = np.arange(n_base)
    other_of = np.repeat(base_rows, PAIRS_PER_PACK)
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


def shown_by(v: Variant, pack: np.ndarray, play: int) -> np.ndarray:
    """The declared hands of ``pack`` shown to the table by play ``play`` (each seat shows its
    declared hand at its first turn of the hand, cirulla.md C5.3), ``uint64[rounds,
    n_players]`` (0: not declared, or not shown yet): cards no player is blind to."""
    _, masks = deal_rules.declared_hands(v, np.asarray(pack, np.int8)[None, :])
    first_plays = np.concatenate([[0], np.cumsum(v.hands)[:-1]]) * v.n_players
    shown = play >= first_plays[:, None] + np.arange(v.n_players)[None, :]
    return np.where(shown, masks[0], np.uint64(0))


def _check_pair(v, pack_a, pack_b, t, seat, move_a, move_b, label) -> None:
    """The seat that plays first differently must hold a different hand, or have been shown
    different declared hands."""
    if v.declarations and not np.array_equal(shown_by(v, pack_a, t), shown_by(v, pack_b, t)):
        return
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
