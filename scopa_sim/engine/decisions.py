"""Building blocks of fused row policies (``contract.FusedPolicy``): the random numbers of one
decision, and a policy made from a function that picks a slot among the listed legal actions.

A compiled player's policy is written against these and the capture search of
:mod:`scopa_sim.engine.kernels`, so it shares the engines' rule code and their random numbers
instead of copying them.
"""

from __future__ import annotations

import numpy as np

from scopa_sim import seeding
from scopa_sim.engine.kernels import row_actions_rm
from scopa_sim.jit import njit
from scopa_sim.seeding import mix64_scalar

_S11 = np.uint64(11)


@njit(cache=True, nogil=True, inline="always")
def uniform(bits):
    """``seeding.to_uniform`` of one 64-bit draw."""
    return np.float64(bits >> _S11) * (1.0 / 9007199254740992.0)


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
def list_actions(
    hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, act_card,
    act_capture, act_group, st_rem, st_left, st_set,
):  # fmt: skip
    """``kernels.row_actions_rm`` into scratch row 0, compiled once apart from the kernels: every
    kernel whose lineup lists its actions calls this one copy of the capture search rather than
    inlining its own, which keeps each kernel small and quick to compile."""
    return row_actions_rm(
        hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, act_card,
        act_capture, act_group, 0, act_card.shape[1], st_rem, st_left, st_set,
    )  # fmt: skip


def listing_policy(choose):
    """A fused policy's ``decide`` (``contract.FUSED_POLICY_SIGNATURE``) that lists the decision
    point's legal actions in scratch row 0, as the lockstep engine's ``LegalActions`` lists them,
    and plays the slot ``choose`` returns.

    ``choose(count, params, values, hand, table, table_total, captured_any, played, dealer,
    next_cards, next_scopa, scopa_ok, draws, ranks, rank_mask, rule, ace_mask,
    ace_no_scopa, n_pack_cards, act_card, act_capture, act_group)`` is an njit function: inline
    it when it is cheap, compile it apart (no ``inline``) when it does real work per decision,
    which keeps the kernel quicker to compile and to run."""

    @njit(cache=True, nogil=True, inline="always")
    def decide(
        params, values, hand, table, table_rm, table_total, captured_any, played, dealer,
        next_cards, next_scopa, scopa_ok, draws, ranks, rank_mask, rank_of, rule,
        fewest, forced, ace_mask, ace_no_scopa, n_pack_cards, act_card, act_capture, act_group,
        st_rem, st_left, st_set,
    ):  # fmt: skip
        count = list_actions(
            hand, table, table_rm, ranks, rank_mask, rank_of, rule, fewest, forced, act_card,
            act_capture, act_group, st_rem, st_left, st_set,
        )  # fmt: skip
        if count > act_card.shape[1]:
            return count, np.int64(-1), np.uint64(0)
        j = choose(
            count, params, values, hand, table, table_total, captured_any, played, dealer,
            next_cards, next_scopa, scopa_ok, draws, ranks, rank_mask, rule,
            ace_mask, ace_no_scopa, n_pack_cards, act_card, act_capture, act_group,
        )  # fmt: skip
        if j < 0 or j >= count:
            raise RuntimeError("a fused row policy chose outside its legal actions")
        return count, np.int64(act_card[0, j]), act_capture[0, j]

    return decide
