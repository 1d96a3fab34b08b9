"""Seed derivation: the one place that turns a run seed into random numbers.

Every random number is a pure function of (run seed, stream, game, deal, ...): a counter-based
draw, not the next value of a shared generator. That is what makes a run identical whatever the
batch size, chunk size or number of workers, and what gives two runs that differ only in rules or
players the same packs (common random numbers).

The run seed goes through numpy's :class:`~numpy.random.SeedSequence` once per stream to get a
64-bit stream key; draws then hash the key with their counters through the SplitMix64 finaliser
(Steele, Lea and Flood 2014), a bijective mixer with full avalanche. It is vectorised over any
array of counters, which numpy's stateful generators cannot be; packs are shuffled by a compiled
Fisher-Yates loop (:func:`packs`) whose draws are the same hashes, computed one at a time.
"""

from __future__ import annotations

import numpy as np

from scopa_sim.jit import ctlz, njit

#: Independent streams; packs never share a stream with players.
PACKS = 0
PLAYERS = 1

#: Which function of (key, game, deal, attempt) gives a pack. Bump it whenever a seed would deal
#: other packs, since stored runs then no longer match a rerun (the runner refuses to complete
#: them: ``storage.DATA_VERSION``). 1: argsort of 40 hashed keys per pack. 2: Fisher-Yates with
#: one hashed draw per position, mapped to a card by Lemire's multiply-shift (:func:`packs`).
PACK_STREAM_VERSION = 2

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


@njit(cache=True, nogil=True)
def mix64_scalar(x):
    """:func:`mix64` of one ``np.uint64``, compiled (same constants, same bits)."""
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


#: 2**-53: the top 53 bits of a draw, as an integer, times this are a float uniform on [0, 1).
UNIT = 1.0 / 9007199254740992.0


def to_uniform(bits: np.ndarray) -> np.ndarray:
    """``uint64`` bits to floats uniform on [0, 1), using the top 53 bits."""
    return (bits >> _S11).astype(np.float64) * UNIT


_S53 = np.uint64(53)
_TWO53 = np.uint64(1 << 53)
_LOW53 = np.uint64((1 << 53) - 1)


@njit(cache=True, nogil=True, inline="always")
def uniform_index(bits, n):
    """``min(int(to_uniform(bits) * n), n - 1)``, the index ``DecisionRandom.integers`` and the
    random player draw, in integer arithmetic and bit for bit the same, for ``n`` from 1 to 1024.

    Why: the float conversions and products are a long chain of latency on the compiled engine's
    hot path. The float form computes ``fl(m * n) / 2**53`` with ``m = bits >> 11`` (scaling by a
    power of two is exact), then truncates: the exact product ``P = m * n`` (below ``2**63``),
    rounded to 53 significant bits to nearest, ties to even. That rounding changes ``P >> 53``
    only when it carries into the next multiple of ``2**53``: when the low 53 bits of ``P`` are at
    least ``2**53 - 2**(s - 1)``, ``s`` being the bits of ``P`` beyond 53 (a tie rounds up there,
    to an even multiple). ``tests/test_seeding.py`` checks it against the float form.
    """
    product = (bits >> _S11) * np.uint64(n)
    k = product >> _S53
    if k:
        half = np.uint64(1) << np.uint64(10 - ctlz(product))  # 2**(s - 1)
        if (product & _LOW53) >= _TWO53 - half:
            k += np.uint64(1)
    return min(np.int64(k), n - 1)


_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit(cache=True, nogil=True)
def _below(bits, m):
    """``floor(bits * m / 2**64)``: a 64-bit draw mapped to ``0 .. m - 1`` (``m < 2**32``).

    Lemire's multiply-shift, the high word of a 64 x 64-bit product, from 32-bit halves.
    """
    hi = (bits >> _S32) * m
    lo = (bits & _MASK32) * m
    return (hi + (lo >> _S32)) >> _S32


@njit(cache=True, nogil=True, inline="always")
def shuffle_into(h, position_keys, pack, swap):
    """Fisher-Yates of one pack keyed ``h`` (:func:`pack_hash`) into ``pack`` (``swap``:
    scratch of its length), as :func:`packs` deals it: position ``i`` swaps with ``j`` drawn on
    ``0 .. i`` from ``mix64(h ^ position_keys[i])``, which is ``hash_counters(h, i)``. For
    compiled callers that deal packs one at a time; for a batch, hash all its packs first in a
    loop of their own, whose independent hashes the CPU overlaps."""
    n = len(pack)
    # The draws first, independent of each other (the CPU overlaps their hashing), then the
    # swaps, which depend on one another through the pack.
    for i in range(1, n):
        swap[i] = _below(mix64_scalar(h ^ position_keys[i]), np.uint64(i + 1))
    for i in range(n):
        pack[i] = i
    for i in range(n - 1, 0, -1):
        j = swap[i]
        card = pack[i]
        pack[i] = pack[j]
        pack[j] = card


@njit(cache=True, nogil=True, inline="always")
def _counter_key(c):
    """``mix64(c * golden + golden)``: one counter as :func:`hash_counters` mixes it in."""
    return mix64_scalar(np.uint64(c) * _GOLDEN + _GOLDEN)


@njit(cache=True, nogil=True, inline="always")
def _mix_in(h, c):
    """One step of :func:`hash_counters`, compiled: the hash ``h`` with counter ``c`` mixed in."""
    return mix64_scalar(h ^ _counter_key(c))


@njit(cache=True, nogil=True, inline="always")
def pack_hash(key, game, deal, attempt):
    """``hash_counters(key, game, deal, attempt)`` of one pack, compiled: the hash that keys its
    shuffle (:func:`shuffle_into`)."""
    return _mix_in(_mix_in(_mix_in(key, game), deal), attempt)


@njit(cache=True, nogil=True, _nrt=False)
def _shuffle(rows, position_keys, out, swap):
    """One pack per row of ``out``, row ``r`` keyed by the hash ``rows[r]`` (``swap``: scratch
    of a pack's length). Without numba's reference counting (it allocates nothing), taking a
    row of ``out`` costs nothing."""
    for r in range(len(rows)):
        shuffle_into(rows[r], position_keys, out[r], swap)


def pack_position_keys(n_cards: int) -> np.ndarray:
    """The hashed positions of a pack of ``n_cards`` (:func:`packs`), ``uint64[n_cards]``."""
    with np.errstate(over="ignore"):
        return mix64(np.arange(n_cards, dtype=np.uint64) * _GOLDEN + _GOLDEN)


def packs(key: np.uint64, game: np.ndarray, deal: np.ndarray, attempt: np.ndarray, n_cards: int):
    """One shuffled pack per row, ``int8[rows, n_cards]``, keyed by (game, deal, attempt).

    Pack stream :data:`PACK_STREAM_VERSION` 2. Each row's hash ``h = hash_counters(key, game,
    deal, attempt)`` drives a Fisher-Yates shuffle: for ``i = n_cards - 1 .. 1``, card slot ``i``
    swaps with slot ``j = floor(d * (i + 1) / 2**64)``, where ``d = hash_counters(h, i)`` is a
    64-bit draw (SplitMix64). A pack is therefore a pure function of (key, game, deal, attempt),
    whatever rows share the call.

    Bias: the multiply-shift (without Lemire's rejection step) gives each ``j`` in ``0 .. i``
    either ``floor(2**64 / (i + 1))`` or one more of the 2**64 possible draws, so its probability
    is ``1 / (i + 1)`` within ``2**-64``: a relative error below ``52 / 2**64``, about 3e-18,
    and below 2e-16 for a whole pack's probability. Seeing a bias of 3e-18 through sampling
    noise would take more than 1e36 draws, so the packs are uniform permutations for every
    purpose here (Lemire 2019, "Fast random integer generation in an interval").
    """
    rows = np.ascontiguousarray(hash_counters(key, game, deal, attempt), dtype=np.uint64)
    rows = rows.reshape(-1)
    out = np.empty((len(rows), n_cards), np.int8)
    _shuffle(rows, pack_position_keys(n_cards), out, np.empty(n_cards, np.int64))
    return out


#: Counter standing where a deal number would, for the first-dealer draw: no deal reaches it.
_FIRST_DEALER = np.uint64(1 << 40)


def first_dealers(key: np.uint64, game: np.ndarray, n_players: int) -> np.ndarray:
    """The player who deals a game's first deal, uniform on ``0 .. n_players - 1``, ``int64``.

    Drawn from the pack stream keyed by the game alone (docs/rules.md §2), so runs that differ in
    players or rules (but not in the number of players) see the same first dealers.
    """
    game = np.asarray(game)
    u = to_uniform(hash_pairs(key, game, np.full(game.shape, _FIRST_DEALER)))
    return np.minimum((u * n_players).astype(np.int64), n_players - 1)


def deal_keys(key: np.uint64, game: np.ndarray, deal: np.ndarray) -> np.ndarray:
    """Per-deal keys of a stream, from which each play's :class:`DecisionRandom` derives."""
    return hash_pairs(key, game, deal)


def hash_pairs(key: np.uint64, first, second) -> np.ndarray:
    """``hash_counters(key, first, second)``; compiled when the counters are two integer
    vectors of one length, as a batch's are, to spare the numpy form's temporary array at each
    of its steps."""
    first, second = np.asarray(first), np.asarray(second)
    vectors = first.ndim == second.ndim == 1 and len(first) == len(second) and np.ndim(key) == 0
    if not (vectors and first.dtype.kind in "iu" and second.dtype.kind in "iu"):
        return hash_counters(key, first, second)
    out = np.empty(len(first), np.uint64)
    _hash_pairs(
        np.uint64(key), first.astype(np.uint64, copy=False), second.astype(np.uint64, copy=False),
        out,
    )  # fmt: skip
    return out


@njit(cache=True, nogil=True, _nrt=False)
def _hash_pairs(key, first, second, out):
    for r in range(len(out)):
        out[r] = _mix_in(_mix_in(key, first[r]), second[r])


@njit(cache=True, nogil=True, _nrt=False)
def _uniform_grid(rows, first, out):
    """``out[r, j] = to_uniform(hash_counters(rows[r], first + j))``, compiled: a search draws
    thousands of numbers a row at each call, and the numpy form made a temporary array of them
    at each of its dozen steps."""
    for r in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[r, j] = (_mix_in(rows[r], first + np.uint64(j)) >> _S11) * UNIT


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
        out = np.empty((len(self._rows), width))
        _uniform_grid(self._rows, np.uint64(self._calls << 16), out)
        return out[:, 0] if size is None else out

    def integers(self, high: np.ndarray) -> np.ndarray:
        """One integer in ``[0, high)`` per row (``high`` >= 1, per row)."""
        return np.minimum((self.random() * high).astype(np.int64), np.asarray(high) - 1)

    def state(self) -> tuple[bytes, int]:
        """What its next numbers depend on: the rows' keys and the calls made so far."""
        return self._rows.tobytes(), self._calls

    def skip_to(self, calls: int) -> None:
        """Go on as if ``calls`` calls had been made (a computation known to have made them
        taken from memory, not run again)."""
        self._calls = calls

    def subset(self, rows: np.ndarray) -> DecisionRandom:
        """The generator restricted to ``rows`` (same numbers those rows would have drawn)."""
        sub = object.__new__(DecisionRandom)
        sub._rows = self._rows[rows]
        sub._calls = self._calls
        return sub
