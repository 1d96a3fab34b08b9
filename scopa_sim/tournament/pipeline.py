"""The whole tournament in one call: plan, play (or complete), analyse, write the summary."""

from __future__ import annotations

import sys
import time

from scopa_sim.tournament.estimate import Result, analyse
from scopa_sim.tournament.report import write_summary
from scopa_sim.tournament.schedule import plan, play


def run_tournament(
    *,
    workers: int = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    batch_size: int = 8192,
    progress: bool | None = False,
    **plan_keywords,
) -> Result:
    """Plan, play (or complete), analyse and write the summary: the whole tournament.

    ``plan_keywords`` are :func:`~scopa_sim.tournament.schedule.plan`'s (``variant_name``,
    ``players``, ``mode``, ``count``, ``seed``, ``out``, ``options``, ``chunk_size``); the others
    are :func:`~scopa_sim.tournament.schedule.play`'s."""
    started = time.perf_counter()
    tournament = plan(**plan_keywords)
    play(
        tournament, workers=workers, backend=backend, scheduler=scheduler,
        batch_size=batch_size, progress=progress,
    )  # fmt: skip
    result = analyse(tournament)
    write_summary(result)
    if progress:
        print(f"tournament done in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return result
