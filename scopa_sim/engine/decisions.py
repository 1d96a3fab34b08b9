"""Building blocks of fused row policies (``contract.FusedPolicy``): the random numbers of one
decision (:func:`draw`), the seat's legal actions or one card's captures listed into the
scratch (:func:`list_actions`, :func:`list_captures`), a policy made from a function that picks
a slot among the listed legal actions (:func:`listing_policy`), and a policy's parameters as
the kernel takes them (:func:`stacked_params`).

A compiled player's policy is written against these, on the bundles of ``contract``, so it
shares the engines' rule code and their random numbers instead of copying them, and never names
the engine's internals (the table in the search's bit order, the search's stacks).
"""

from __future__ import annotations

import numpy as np

from scopa_sim import seeding
from scopa_sim.contract import PlayerError, signature_problem
from scopa_sim.engine.kernels import card_captures, row_actions_rm
from scopa_sim.jit import njit
from scopa_sim.seeding import UNIT, mix64_scalar

_S11 = np.uint64(11)


@njit(cache=True, nogil=True, inline="always")
def uniform(bits):
    """``seeding.to_uniform`` of one 64-bit draw."""
    return np.float64(bits >> _S11) * UNIT


#: Calls to ``DecisionRandom.random()`` a fused policy may make per decision (column 0 each).
CALLS = 4


def _call_keys() -> np.ndarray:
    """The hashed counters of ``DecisionRandom``'s calls ``1 .. CALLS``."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        calls = np.arange(1, CALLS + 1, dtype=np.uint64) << np.uint64(16)
        keys = seeding.mix64(calls * golden + golden)
    keys.flags.writeable = False
    return keys


#: ``DecisionRandom``'s key of each call, a constant of the compiled code.
CALL_KEYS = _call_keys()


@njit(cache=True, nogil=True, inline="always")
def hash_draws(deal_key, play_key, out):
    """A decision's ``draws`` into ``out``: the decision's key (``DecisionRandom`` of the deal
    keyed ``deal_key`` at the play keyed ``play_key``), then the bits of its first call, which
    every policy that draws reads; the fused engine hashes them for a row's plays at once."""
    row_key = mix64_scalar(deal_key ^ play_key)
    out[0] = row_key
    out[1] = mix64_scalar(row_key ^ CALL_KEYS[0])


@njit(cache=True, nogil=True, inline="always")
def call_bits(draws, call):
    """The 64 bits of ``DecisionRandom.random()``'s call ``call + 1`` (column 0) of the decision
    whose ``draws`` are given: the numbers the lockstep engine hands ``act``, hashed only when a
    choice depends on them."""
    if call == 0:
        return draws[1]
    return mix64_scalar(draws[0] ^ CALL_KEYS[call])


@njit(cache=True, nogil=True, inline="always")
def draw(draws, call):
    """``DecisionRandom.random()``'s call ``call + 1`` (column 0) as a float in [0, 1)."""
    return uniform(call_bits(draws, call))


@njit(cache=True, nogil=True, _nrt=False)
def _listed_actions(
    hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, act_card,
    act_capture, act_group, st_rem, st_left, st_set,
):  # fmt: skip
    """``kernels.row_actions_rm`` into scratch row 0, compiled once apart from the kernels: every
    kernel whose lineup lists its actions calls this one copy of the capture search rather than
    inlining its own, which keeps each kernel small and quick to compile. Its arguments are
    plain numbers and arrays, so the call copies no bundle."""
    return row_actions_rm(
        hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, act_card,
        act_capture, act_group, 0, act_card.shape[1], st_rem, st_left, st_set,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def list_actions(seen, rules, scratch):
    """The seat's legal actions (``contract.Seen``, ``Rules``) into row 0 of ``scratch``
    (``contract.Scratch``), as the lockstep engine's ``LegalActions`` lists them; returns how
    many there are (more than ``scratch.card.shape[1]``: they did not fit, and the policy
    returns that count for the engine to replay the row with room for them)."""
    st_rem, st_left, st_set = scratch.search
    return _listed_actions(
        seen.hand, seen.table, seen.table_rm, rules.ranks, rules.rank_mask, rules.rank_of,
        rules.rule, rules.fewest, rules.forced, scratch.card, scratch.capture, scratch.group,
        st_rem, st_left, st_set,
    )  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def list_captures(card, seen, rules, scratch):
    """The captures ``card`` can make from the seat's table, into row 0 of ``scratch`` from
    slot 0 in the order the legal actions list them (``kernels.card_captures``: ``fewest``
    applies; ``forced``, a matter of the whole hand, does not); returns how many (0: the card
    can only be laid; more than ``scratch.card.shape[1]``: they did not fit)."""
    st_rem, st_left, st_set = scratch.search
    return card_captures(
        card, rules.rank_of[card], seen.table, seen.table_rm, rules.ranks, rules.rank_mask,
        rules.rule, rules.fewest, scratch.card, scratch.capture, scratch.group, 0,
        scratch.card.shape[1], 0, 0, st_rem, st_left, st_set,
    )  # fmt: skip


def listing_policy(choose):
    """A fused policy's ``decide(params, seen, rules, scratch)`` (``contract.FusedPolicy``) that
    lists the decision point's legal actions in row 0 of ``scratch`` (:func:`list_actions`) and
    plays the slot ``choose`` returns.

    ``choose(count, params, seen, rules, scratch)`` is an njit function of the same bundles and
    the number of listed actions: inline it when it is cheap, compile it apart (no ``inline``)
    when it does real work per decision, which keeps the kernel quicker to compile and to run.
    A ``choose`` of another number of arguments (the 22 of the contract before the bundles) is
    refused with a ``contract.PlayerError`` saying what changed."""
    problem = signature_problem(choose, 5)
    if problem:
        name = getattr(getattr(choose, "py_func", choose), "__qualname__", "choose")
        raise PlayerError(f"hands listing_policy a choose ({name}) that {problem}")

    @njit(cache=True, nogil=True, inline="always")
    def decide(params, seen, rules, scratch):
        count = list_actions(seen, rules, scratch)
        if count > scratch.card.shape[1]:
            return count, np.int64(-1), np.uint64(0)
        j = choose(count, params, seen, rules, scratch)
        if j < 0 or j >= count:
            raise RuntimeError("a fused row policy chose outside its legal actions")
        return count, np.int64(scratch.card[0, j]), scratch.capture[0, j]

    return decide


def stacked_params(bundles: list) -> tuple:
    """One policy's parameter bundle as the fused kernel hands it over: ``bundles[side]`` is the
    NamedTuple its side's player returned (``Player.policy_params``), None for a side that plays
    another policy; each field becomes one C-contiguous array whose leading axis is the side
    (zeros for the other policies' sides), so the policy reads ``params.NAME[seen.side]``.

    Raises ``contract.PlayerError`` (with the side) for an answer that is not a NamedTuple, or
    whose class or field shapes differ from another side's of the same policy."""
    sides = [s for s, b in enumerate(bundles) if b is not None]
    first = bundles[sides[0]]
    for side in sides:
        bundle = bundles[side]
        if not (isinstance(bundle, tuple) and hasattr(bundle, "_fields")):
            problem = f"returned a {type(bundle).__name__} from policy_params, not a NamedTuple"
            raise PlayerError(problem, side=side)
        if type(bundle) is not type(first):
            problem = (
                f"returned a {type(bundle).__name__} from policy_params where another side of "
                f"its policy returned a {type(first).__name__}"
            )
            raise PlayerError(problem, side=side)
    fields = []
    for name in first._fields:
        values = {side: np.asarray(getattr(bundles[side], name)) for side in sides}
        like = values[sides[0]]
        stacked = np.zeros((len(bundles), *like.shape), like.dtype)
        for side, value in values.items():
            if value.shape != like.shape:
                problem = (
                    f"returned policy_params().{name} of shape {value.shape} where another side "
                    f"of its policy has {like.shape}"
                )
                raise PlayerError(problem, side=side)
            stacked[side] = value
        fields.append(stacked)
    return type(first)(*fields)
