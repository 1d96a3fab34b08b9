"""The packs of each pairing with the largest duplicate swings, and their replay pages.

A pack's swing is A's margin in seating 1 plus A's margin in seating 2 (:data:`SWING_TEXT`). The
replays are checked against the stored points, so a player changed since the tournament was
played is caught rather than shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from scopa_sim import integrity
from scopa_sim.tournament.estimate import Result, per_unit
from scopa_sim.tournament.schedule import Pairing, Tournament, TournamentError

#: Packs per pairing whose two seatings the HTML page links as replays (largest swings first).
SWINGS_PER_PAIRING = 5
SWING_TEXT = (
    "swing = A's margin (A minus B, points) in seating 1 plus A's margin in seating 2 of the "
    "same pack: 0 when both seatings end alike, large when the same cards went very differently "
    "with the seats swapped"
)


@dataclass(frozen=True)
class Swing:
    """One pack of a pairing with a large duplicate swing (see :data:`SWING_TEXT`)."""

    pairing: Pairing
    game: int
    deal: int
    margins: tuple[float, float]  # A minus B in run 1 (lineup A, B) and in run 2 (lineup B, A)

    @property
    def swing(self) -> float:
        return self.margins[0] + self.margins[1]

    @property
    def file_name(self) -> str:
        p = self.pairing
        return f"{p.a.folder}-vs-{p.b.folder}-game{self.game}-deal{self.deal}.html"


def largest_swings(tournament: Tournament, k: int = SWINGS_PER_PAIRING) -> list[Swing]:
    """The ``k`` packs of each pairing with the largest absolute swing, largest first (ties by
    game, then deal). Packs are (game, deal): in games mode a deal that one seating played and
    the other did not (the game ended sooner) has no swing."""
    swings = []
    for pairing in tournament.pairings:
        first = per_unit(pairing.runs[0].out, 0, tournament.n_sides, "deals")
        second = per_unit(pairing.runs[1].out, 1, tournament.n_sides, "deals")
        top = (
            first.join(second, on=["game", "deal"], how="inner", suffix="_2")
            .with_columns(
                (pl.col("a") - pl.col("b")).alias("m1"), (pl.col("a_2") - pl.col("b_2")).alias("m2")
            )
            .with_columns((pl.col("m1") + pl.col("m2")).abs().alias("size"))
            .sort(["size", "game", "deal"], descending=[True, False, False])
            .head(k)
        )
        swings += [
            Swing(pairing, int(g), int(d), (float(m1), float(m2)))
            for g, d, m1, m2 in top.select("game", "deal", "m1", "m2").iter_rows()
        ]
    return swings


def _stored_points(folder: Path, game: int, deal: int) -> list[int]:
    rows = (
        integrity.scan_run(folder)  # the chunks its manifest lists, checked
        .filter((pl.col("game") == game) & (pl.col("deal") == deal))
        .sort("side")
        .select("points")
        .collect()
    )
    return [int(x) for x in rows["points"]]


def replay_swing(swing: Swing) -> list:
    """The two seatings of the swing's pack as ``api.DealRecord`` records (run 1, then run 2),
    replayed with :func:`scopa_sim.api.replay_run_deal` and checked against the stored points:
    a player whose code changed since the tournament was played would replay another deal."""
    from scopa_sim import api

    records = []
    for config in swing.pairing.runs:
        record = api.replay_run_deal(config.out, swing.game, swing.deal)
        replayed = [s.total for s in record.sides]
        stored = _stored_points(config.out, swing.game, swing.deal)
        if replayed != stored:
            raise TournamentError(
                f"replaying game {swing.game}, deal {swing.deal} of {config.out} gives points "
                f"{replayed}, but the run stored {stored}: a player changed since the "
                "tournament was played; delete the tournament folder and play it again"
            )
        records.append(record)
    return records


def swing_page(swing: Swing) -> str:
    """The self-contained replay page of a swing: both seatings of its pack, one after the
    other, titled with the pairing, the pack and the two margins."""
    from scopa_sim import reporting

    p = swing.pairing
    title = (
        f"{p.a.spec} vs {p.b.spec}, game {swing.game}, deal {swing.deal}: swing "
        f"{swing.swing:+g} points (seating 1: {','.join(p.runs[0].players)}, "
        f"{swing.margins[0]:+g}; seating 2: {','.join(p.runs[1].players)}, "
        f"{swing.margins[1]:+g}, A minus B)"
    )
    return reporting.render_replay(replay_swing(swing), title=title)


def write_swings(result: Result, folder: Path, k: int = SWINGS_PER_PAIRING) -> list[Swing]:
    """Write one self-contained replay page per swing into ``folder`` (both seatings, one after
    the other); returns the swings, in the order of :func:`largest_swings`."""
    swings = largest_swings(result.tournament, k)
    folder.mkdir(parents=True, exist_ok=True)
    for swing in swings:
        (folder / swing.file_name).write_text(swing_page(swing), encoding="utf-8")
    return swings


def swing_rows(swings: Sequence[Swing], href_prefix: str) -> list[dict]:
    """Rows of the "Largest duplicate swings" table, each with its relative link."""
    from urllib.parse import quote

    return [
        {
            "pairing": f"{s.pairing.a.spec} vs {s.pairing.b.spec}",
            "pack": f"game {s.game}, deal {s.deal}",
            "swing": f"{s.swing:+g}",
            "margins": f"{s.margins[0]:+g} / {s.margins[1]:+g}",
            "href": f"{quote(href_prefix)}/{quote(s.file_name)}",
        }
        for s in swings
    ]
