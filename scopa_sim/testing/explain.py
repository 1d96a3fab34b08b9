"""Check 7 of the contract: the optional ``explain(obs, legal[, rng]) -> float[B, A]``
(:data:`~scopa_sim.contract.EXPLAIN_PROTOCOL`) has the shape of ``legal.card``, is a float
array, finite on every legal slot, and the same for a row whatever other rows share the batch.
"""

from __future__ import annotations

import numpy as np

from scopa_sim.contract import EXPLAIN_PROTOCOL, explain_values
from scopa_sim.testing.report import PlayerCheckError


def has_explain(p) -> bool:
    return callable(getattr(p, "explain", None))


def check_explain(label: str, inner, obs, legal, subset, legal_subset, rngs, where) -> None:
    """``inner``'s explain on a batch of decision points and on ``subset`` of its rows (with
    ``legal_subset``, the padding trimmed), with the generators ``rngs`` (fresh ones: the
    numbers act gets)."""

    def call(o, lg, rng):
        try:
            return explain_values(inner, o, lg, rng)
        except Exception as err:
            raise PlayerCheckError(
                f"{label}: explain raised {type(err).__name__}: {err} ({where})"
            ) from err

    def check(values, lg, what):
        if not (isinstance(values, np.ndarray) and np.issubdtype(values.dtype, np.floating)):
            raise PlayerCheckError(
                f"{label}: explain must return a numpy float array, {EXPLAIN_PROTOCOL}, "
                f"got {type(values).__name__} ({where}{what})"
            )
        if values.shape != lg.card.shape:
            raise PlayerCheckError(
                f"{label}: explain must return one value per row and slot, shape "
                f"{lg.card.shape} (that of legal.card), got {values.shape} ({where}{what})"
            )
        valid = np.arange(lg.card.shape[1]) < lg.count[:, None]
        if not np.isfinite(values[valid]).all():
            raise PlayerCheckError(
                f"{label}: explain gave a legal action a value that is not finite "
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
            f"{label}: explain depends on the other rows of the batch ({where}): the "
            "same rows got other values when explained with fewer rows in another order"
        )
