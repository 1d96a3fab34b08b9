"""Per-deal outcomes of a batch, as a struct of arrays (one row per deal, one column per side)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

import numpy as np

from scopa_sim.engine.scoring import point_totals
from scopa_sim.rules import CATEGORIES

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class DealOutcomes:
    game: np.ndarray  # int64[D]
    deal: np.ndarray  # int16[D]: deal number within its game, from 0
    redeals: np.ndarray  # int16[D]: throw-ins before this deal
    dealer_side: np.ndarray  # int8[D]
    first_dealer_side: np.ndarray  # int8[D]: side of the player who dealt the game's first deal
    stopped: np.ndarray  # bool[D]: the deal stopped at a scopa that won the game outright
    captured: np.ndarray  # uint64[D, S]
    cards: np.ndarray  # int8[D, S]
    coins: np.ndarray  # int8[D, S]
    settebello: np.ndarray  # bool[D, S]
    primiera: np.ndarray  # int16[D, S]
    scope: np.ndarray  # int16[D, S]
    points: np.ndarray  # int16[D, S, C]: per point column, in ``columns`` order
    score: np.ndarray  # int16[D, S]: game score after the deal
    final: np.ndarray  # bool[D]: last deal of its game
    winner: np.ndarray  # int8[D]: side that won the game on this deal, else -1
    #: The names of the point columns (``rules.point_columns``): CATEGORIES, then the
    #: variant's other items. Not an array: ``take`` and ``concat`` carry it over.
    columns: tuple[str, ...] = field(default=CATEGORIES)

    def __len__(self) -> int:
        return len(self.game)

    @property
    def n_sides(self) -> int:
        return self.captured.shape[1]

    @property
    def totals(self) -> np.ndarray:
        """Points of each side in each deal, ``int16[D, S]``."""
        return point_totals(self.points)

    def take(self, index) -> DealOutcomes:
        return replace(self, **{name: getattr(self, name)[index] for name in _ARRAYS})

    @staticmethod
    def concat(parts: list[DealOutcomes]) -> DealOutcomes:
        return replace(
            parts[0],
            **{name: np.concatenate([getattr(p, name) for p in parts]) for name in _ARRAYS},
        )

    def sorted(self) -> DealOutcomes:
        """Ordered by (game, deal): the order is part of the data, not of how it was computed."""
        return self.take(np.lexsort((self.deal, self.game)))

    def to_frame(self) -> pl.DataFrame:
        """One row per side per deal, with one column per point column (``pt_*``)."""
        import polars as pl  # not before it is needed (storage.py says why)

        d, s = len(self), self.n_sides
        side = np.tile(np.arange(s, dtype=np.int8), d)

        def per_deal(a):
            return np.repeat(a, s)

        columns = {
            "game": per_deal(self.game),
            "deal": per_deal(self.deal),
            "side": side,
            "dealer": per_deal(self.dealer_side) == side,
            "first_dealer": per_deal(self.first_dealer_side) == side,
            "cards": self.cards.ravel(),
            "coins": self.coins.ravel(),
            "settebello": self.settebello.ravel(),
            "primiera": self.primiera.ravel(),
            "scope": self.scope.ravel().astype(np.int8),
            "captured": self.captured.ravel(),
        }
        for i, name in enumerate(self.columns):
            columns[f"pt_{name}"] = self.points[:, :, i].ravel().astype(np.int8)
        columns["points"] = self.totals.ravel().astype(np.int8)
        columns["score"] = self.score.ravel()
        columns["final"] = per_deal(self.final)
        columns["won"] = per_deal(self.winner) == side
        columns["redeals"] = per_deal(self.redeals).astype(np.int8)
        columns["stopped"] = per_deal(self.stopped)
        return pl.DataFrame(columns)

    def to_pandas(self):
        """:meth:`to_frame` as a pandas DataFrame (through pyarrow), for users who live in
        pandas; the same columns, in the same order, with the matching numpy dtypes."""
        return self.to_frame().to_pandas()


#: The fields of :class:`DealOutcomes` that hold one entry per deal.
_ARRAYS = tuple(f.name for f in fields(DealOutcomes) if f.name != "columns")
