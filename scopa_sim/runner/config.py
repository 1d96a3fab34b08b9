"""What a run is, checked before any work starts: :class:`RunConfig` and :class:`RunError`.

The configuration holds what decides a run's data (variant, options, players, mode, count,
seed, chunk size); how the run is executed (workers, backend, batch size) does not enter it, so
a folder can be completed by any of them. :func:`check_execution` checks those separately.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from scopa_sim import api, registry, sizes
from scopa_sim.rules import Variant, variant
from scopa_sim.rules.files import base_definition, variant_of_definition

MODES = ("games", "deals")
BACKENDS = registry.BACKENDS


class RunError(ValueError):
    """A run cannot start as asked; the message says why and how to fix it."""


@dataclass(frozen=True)
class RunConfig:
    """What decides a run's data. Workers, backend and batch size do not, so they are not here."""

    name: str
    variant: str
    options: tuple[tuple[str, object], ...]
    players: tuple[str, ...]
    mode: str
    count: int
    seed: int
    chunk_size: int
    out: Path = field(compare=False)
    #: A variant file's full definition (``variant`` is then its name), recorded in the manifest
    #: so that the run is replayed and reported without the file; None for a preset.
    definition: dict | None = field(default=None, hash=False)

    @staticmethod
    def create(
        *,
        variant: str,
        players,
        mode: str,
        count: int,
        seed: int,
        out,
        options=None,
        name: str | None = None,
        chunk_size: int | None = None,
    ) -> RunConfig:
        """Check everything a user can get wrong, before any work starts."""
        if mode not in MODES:
            raise RunError(f"a run plays 'games' or 'deals', not {mode!r}")
        for what, value in (("count", count), ("seed", seed)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise RunError(f"the {what} must be a whole number, not {value!r}")
        if count <= 0:
            raise RunError(f"the number of {mode} must be positive, not {count}")
        if seed < 0:
            raise RunError(f"the seed must be zero or positive, not {seed}")
        if chunk_size is not None:
            if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
                raise RunError(
                    f"the chunk size must be a positive whole number, not {chunk_size!r}"
                )
            if problem := sizes.run_size_problem(mode, int(count), chunk_size):
                raise RunError(problem)  # before anything is written: no list of chunks is built
        if isinstance(players, str):
            players = players.split(",")
        if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
            raise RunError(f"players are names, one per side, e.g. greedy,random; not {players!r}")
        if not isinstance(out, str | Path) or (name is not None and not isinstance(name, str)):
            raise RunError("the output folder and the run name are text")
        out = Path(out).absolute()
        out = Path(os.path.normpath(out))
        if not out.name or out == Path.cwd() or out in Path.cwd().parents:
            raise RunError(
                f"--out {out} would hold the run in the current folder or above it; "
                "name a new folder, e.g. --out data/my-run"
            )
        definition = base_definition(variant) if isinstance(variant, str) else None
        config = RunConfig(
            name=name or out.name,
            variant=variant if definition is None else definition["name"],
            options=tuple(sorted((options or {}).items())),
            players=tuple(p.strip() for p in players),
            mode=mode,
            count=int(count),
            seed=int(seed),
            chunk_size=0 if chunk_size is None else int(chunk_size),
            out=out,
            definition=definition,
        )
        # unknown player, wrong number of players
        _, resolved = api.resolve(config.rules(), config.players)
        if chunk_size is None:  # the default, small when a search player plays
            searching = any(p.searches for p in resolved)
            config = replace(config, chunk_size=sizes.default_chunk_size(mode, searching))
            if problem := sizes.run_size_problem(mode, config.count, config.chunk_size):
                raise RunError(problem)
        # The data name each player by its one spelling (players.canonical_spec, docs/players.md).
        return replace(config, players=tuple(map(api.canonical_spec, config.players)))

    def rules(self) -> Variant:
        if self.definition is not None:
            return variant_of_definition(self.definition, dict(self.options))
        return variant(self.variant, dict(self.options))

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)

    def chunk_span(self, chunk: int) -> range:
        start = chunk * self.chunk_size
        return range(start, min(start + self.chunk_size, self.count))

    def describe(self) -> dict:
        """The configuration as recorded in the manifest (canonical option values)."""
        data = asdict(self)
        del data["out"]
        data["options"] = self.rules().options()
        data["variant_label"] = self.rules().describe()
        data["players"] = list(self.players)
        if self.definition is None:
            del data["definition"]  # a preset's manifest stays as it was
        return data


def check_execution(workers, backend: str | None, scheduler: str | None) -> str | None:
    """Refuse workers, backend and scheduler that cannot run; the backend to use (None for the
    default, which a named loky is too: the same run)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0:
        raise RunError(f"the number of workers must be a positive whole number, not {workers!r}")
    if backend is not None and backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise RunError("--scheduler goes with --backend dask")
    return None if backend == "loky" else backend
