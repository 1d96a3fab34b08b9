"""Seed derivation: the one place that turns a run seed into random numbers.

Every random number is a pure function of (run seed, stream, game, deal, ...): a counter-based
draw, not the next value of a shared generator. That is what makes a run identical whatever the
batch size, chunk size or number of workers, and what gives two runs that differ only in rules or
players the same packs (common random numbers).

The run seed goes through numpy's :class:`~numpy.random.SeedSequence` once per stream to get a
64-bit stream key; draws then hash the key with their counters through the SplitMix64 finaliser
(Steele, Lea and Flood 2014), a bijective mixer with full avalanche. It is vectorised over any
array of counters, which numpy's stateful generators cannot be.
"""

from __future__ import annotations

import numpy as np

#: Independent streams; packs never share a stream with players.
PACKS = 0
PLAYERS = 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = (np.uint64(s) for s in (30, 27, 31, 11))


def stream_key(seed: int, stream: int) -> np.uint64:
    """64-bit key of one stream of a run, derived from the run seed by SeedSequence."""
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"a seed is a non-negative whole number, not {seed!r}")
    state = np.random.SeedSequence(int(seed), spawn_key=(stream,)).generate_state(2, np.uint64)
    return np.uint64(state[0] ^ state[1])


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, elementwise on ``uint64`` (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> _S30)) * _M1
        x = (x ^ (x >> _S27)) * _M2
        return x ^ (x >> _S31)


def hash_counters(key: np.uint64, *counters) -> np.ndarray:
    """Hash ``key`` with each counter in turn (counters broadcast together); ``uint64``."""
    h = np.asarray(key, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for counter in counters:
            c = np.asarray(counter).astype(np.uint64)
            h = mix64(h ^ mix64(c * _GOLDEN + _GOLDEN))
    return h


def to_uniform(bits: np.ndarray) -> np.ndarray:
    """``uint64`` bits to floats uniform on [0, 1), using the top 53 bits."""
    return (bits >> _S11).astype(np.float64) * (1.0 / 9007199254740992.0)


def packs(key: np.uint64, game: np.ndarray, deal: np.ndarray, attempt: np.ndarray, n_cards: int):
    """One shuffled pack per row, ``int8[rows, n_cards]``, keyed by (game, deal, attempt).

    A pack is the argsort of ``n_cards`` hashed keys: a uniform random permutation (ties among
    64-bit keys have negligible probability and are broken by card id, so it stays a permutation).
    """
    row = hash_counters(key, game, deal, attempt)[:, None]
    keys = hash_counters(row, np.arange(n_cards, dtype=np.uint64)[None, :])
    return np.argsort(keys, axis=1, kind="stable").astype(np.int8)


#: Counter standing where a deal number would, for the first-dealer draw: no deal reaches it.
_FIRST_DEALER = np.uint64(1 << 40)


def first_dealers(key: np.uint64, game: np.ndarray, n_players: int) -> np.ndarray:
    """The player who deals a game's first deal, uniform on ``0 .. n_players - 1``, ``int64``.

    Drawn from the pack stream keyed by the game alone (RULES.md §2), so runs that differ in
    players or rules (but not in the number of players) see the same first dealers.
    """
    u = to_uniform(hash_counters(key, game, _FIRST_DEALER))
    return np.minimum((u * n_players).astype(np.int64), n_players - 1)


def deal_keys(key: np.uint64, game: np.ndarray, deal: np.ndarray) -> np.ndarray:
    """Per-deal keys of a stream, from which each play's :class:`DecisionRandom` derives."""
    return hash_counters(key, game, deal)


class DecisionRandom:
    """The random generator a player receives: independent uniforms per decision point.

    Each row is one decision point identified by (game, deal, play): ``deal_keys`` are
    :func:`deal_keys` of the rows' (game, deal) and ``play`` the play number. Each call draws fresh
    numbers for every row. A row's numbers depend only on the run seed and its identity, never
    on which other rows share the batch, so results do not change with batch size.
    """

    __slots__ = ("_calls", "_rows")

    def __init__(self, deal_keys: np.ndarray, play: int):
        self._rows = hash_counters(deal_keys, play)
        self._calls = 0

    def random(self, size: int | None = None) -> np.ndarray:
        """Uniform [0, 1) floats: shape ``(rows,)``, or ``(rows, size)`` when ``size`` is given."""
        self._calls += 1
        width = 1 if size is None else size
        counters = np.arange(width, dtype=np.uint64)[None, :] + np.uint64(self._calls << 16)
        out = to_uniform(hash_counters(self._rows[:, None], counters))
        return out[:, 0] if size is None else out

    def integers(self, high: np.ndarray) -> np.ndarray:
        """One integer in ``[0, high)`` per row (``high`` >= 1, per row)."""
        return np.minimum((self.random() * high).astype(np.int64), np.asarray(high) - 1)

    def subset(self, rows: np.ndarray) -> DecisionRandom:
        """The generator restricted to ``rows`` (same numbers those rows would have drawn)."""
        sub = object.__new__(DecisionRandom)
        sub._rows = self._rows[rows]
        sub._calls = self._calls
        return sub
