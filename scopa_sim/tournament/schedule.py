"""The schedule of a round robin on duplicate deals, and playing it.

For every unordered pair {A, B} of the players, two runs of the runner with the same seed and
configuration: lineup (A, B) into ``DIR/<a>-vs-<b>/`` and lineup (B, A) into ``DIR/<b>-vs-<a>/``
(with four sides the lineups alternate round the table). Packs and first dealers come from the
seed alone, so the second run plays every pack of the first with the seats swapped: duplicate
play. Being runner runs, the runs resume after a kill and give the same data for any number of
workers. :func:`plan` checks everything a user can get wrong before anything is written.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scopa_sim import runner, sizes, storage
from scopa_sim.lineup import lineup_problem
from scopa_sim.players import player as player_from_spec
from scopa_sim.rules import variant

#: Chunk sizes of a tournament's runs: small enough for several workers to share a run. A
#: tournament with a search player (``Player.searches``) takes the runner's search chunk size
#: (``sizes.SEARCH_CHUNK_SIZE``): its runs take minutes a thousand deals.
CHUNK_SIZE = {"deals": 10_000, "games": 2_000}


def default_chunk_size(mode: str, searching: bool) -> int:
    """The chunk size of a tournament's runs given none (``searching``: a search player plays)."""
    return sizes.default_chunk_size(mode, searching=True) if searching else CHUNK_SIZE[mode]


class TournamentError(runner.RunError):
    """A tournament cannot start as asked; the message says why and how to fix it."""


@dataclass(frozen=True)
class Entrant:
    spec: str  # as given on the command line
    folder: str  # the spec as a folder-name part
    sees_hidden_cards: bool
    searches: bool  # a search player (Player.searches): the runs default to small chunks


@dataclass(frozen=True)
class Pairing:
    a: Entrant  # named first in --players
    b: Entrant
    runs: tuple[runner.RunConfig, runner.RunConfig]  # lineup (A, B), lineup (B, A)


@dataclass(frozen=True)
class Tournament:
    variant: str
    options: dict
    entrants: tuple[Entrant, ...]
    mode: str
    count: int
    seed: int
    out: Path
    chunk_size: int
    pairings: tuple[Pairing, ...]
    n_sides: int
    plays: int  # plays (decisions) in one deal

    @property
    def unit(self) -> str:
        return "deal" if self.mode == "deals" else "game"

    def metrics(self) -> list[str]:
        return ["points_per_deal"] + (["game_win"] if self.mode == "games" else [])


def default_out(variant_name: str, seed: int, mode: str) -> Path:
    return Path("data") / "tournaments" / f"{variant_name}-{seed}-{mode}"


def folder_name(spec: str) -> str:
    """A player spec as part of a folder name: letters, digits and ``. = + _``, no leading dot."""
    text = re.sub(r"[^A-Za-z0-9.=+_]+", "_", spec.strip()).lstrip("._")
    return text or "player"


def lineup(first: str, second: str, sides: int) -> list[str]:
    """Side s gets ``first`` when s is even: A,B,A,B... round the table."""
    return [first if s % 2 == 0 else second for s in range(sides)]


def plan(
    *,
    variant_name: str,
    players: Sequence[str] | str,
    mode: str,
    count: int,
    seed: int,
    out=None,
    options: dict | None = None,
    chunk_size: int | None = None,
) -> Tournament:
    """Check everything a user can get wrong and lay out the runs; creates nothing on disk."""
    rules = variant(variant_name, dict(options or {}))  # unknown variant or option
    if isinstance(players, str):
        players = players.split(",")
    specs = [p.strip() for p in players]
    if problem := lineup_problem(rules, specs):
        raise TournamentError(problem)
    if mode not in runner.MODES:
        raise TournamentError(f"a tournament plays 'games' or 'deals', not {mode!r}")
    entrants = []
    for spec in specs:
        resolved = player_from_spec(spec)  # unknown player
        hidden = bool(getattr(resolved, "sees_hidden_cards", False))
        entrants.append(Entrant(spec, folder_name(spec), hidden, resolved.searches))
    searching = any(e.searches for e in entrants)
    folders = {}
    for e in entrants:
        if e.folder in folders:
            raise TournamentError(
                f"players {folders[e.folder]!r} and {e.spec!r} give the same folder name "
                f"{e.folder!r}; name them otherwise"
            )
        folders[e.folder] = e.spec
    out = default_out(rules.name, seed, mode) if out is None else Path(out)  # a file's name
    out = Path(os.path.normpath(Path(out).absolute()))
    if not out.name or out == Path.cwd() or out in Path.cwd().parents:
        raise TournamentError(
            f"--out {out} would hold the tournament in the current folder or above it; name a "
            "new folder, e.g. --out data/tournaments/mine"
        )
    chunk_size = default_chunk_size(mode, searching) if chunk_size is None else chunk_size
    pairings = []
    for i, a in enumerate(entrants):
        for b in entrants[i + 1 :]:
            runs = tuple(
                runner.RunConfig.create(
                    variant=variant_name,
                    players=lineup(x.spec, y.spec, rules.n_sides),
                    mode=mode,
                    count=count,
                    seed=seed,
                    options=options,
                    out=out / f"{x.folder}-vs-{y.folder}",
                    chunk_size=chunk_size,
                )
                for x, y in ((a, b), (b, a))
            )
            pairings.append(Pairing(a, b, runs))
    tournament = Tournament(
        variant_name, dict(options or {}), tuple(entrants), mode, int(count), int(seed), out,
        int(chunk_size), tuple(pairings), rules.n_sides, rules.plays,
    )  # fmt: skip
    _check_folders(tournament)
    return tournament


def _check_folders(tournament: Tournament) -> None:
    """Refuse, before any run starts, run folders that the runner would refuse: another run (say
    another count or other options in the same --out), another data version, chunk files without
    a manifest; a tournament folder that holds a run or another command's files, or was written
    by an older layout (runner.folder.check_container). Reads only."""
    members = {c.out.name for p in tournament.pairings for c in p.runs}
    runner.folder.check_container(
        tournament.out, "tournament", members | {"summary.parquet", "ratings.parquet"}
    )
    for pairing in tournament.pairings:
        for config in pairing.runs:
            manifest = storage.read_manifest(config.out)
            if manifest is None:
                if storage.done_chunks(config.out):
                    raise TournamentError(
                        f"{config.out} holds chunk files but no manifest; choose another --out"
                    )
                continue
            storage.check_versions(config.out, manifest)  # written by another data version
            storage.refuse_legacy(config.out, manifest)  # to convert first (scopa-sim migrate)
            if manifest.get("config") != config.describe():
                old = manifest.get("config", {})
                raise TournamentError(
                    f"{tournament.out} holds another tournament ({old.get('variant_label')}, "
                    f"{old.get('count')} {old.get('mode')}, seed {old.get('seed')}); choose "
                    "another --out or delete it"
                )


# play ------------------------------------------------------------------------------------------


def play(
    tournament: Tournament,
    *,
    workers: int = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    batch_size: int = 8192,
    progress: bool | None = None,
) -> list[runner.RunSummary]:
    """Play (or complete) every run of the tournament with the runner; returns its summaries."""
    if progress is None:
        progress = sys.stderr.isatty()
    configs = [config for pairing in tournament.pairings for config in pairing.runs]
    if backend == "dask" and not scheduler:
        # One local cluster for every run (the runner would start one per run).
        try:
            from dask.distributed import LocalCluster
        except ImportError:
            raise TournamentError(
                "the dask backend needs the dask extra: pip install 'scopa-sim[dask]'"
            ) from None
        with runner.local_cluster(LocalCluster, workers) as cluster:
            return _play_runs(
                tournament, configs, workers, backend, cluster.scheduler_address, batch_size,
                progress,
            )  # fmt: skip
    return _play_runs(tournament, configs, workers, backend, scheduler, batch_size, progress)


def _play_runs(tournament, configs, workers, backend, scheduler, batch_size, progress):
    summaries = []
    # The folder is marked a tournament's first: no other command may write into it.
    runner.folder.write_container(
        tournament.out, "tournament", _describe(tournament), [c.out.name for c in configs]
    )
    for k, config in enumerate(configs, 1):
        summary = runner.run(
            config, workers=workers, backend=backend, scheduler=scheduler,
            batch_size=batch_size, progress=progress, kind="tournament-pairing",
        )  # fmt: skip
        summaries.append(summary)
        if progress:
            if summary.chunks_run:
                rate = summary.deals * tournament.plays / max(summary.seconds, 1e-9)
                done = (
                    f"{summary.deals:,} deals in {summary.seconds:.1f} s, {rate:,.0f} decisions/s"
                )
            else:
                done = "already complete"
            print(f"run {k}/{len(configs)} {config.name}: {done}", file=sys.stderr)
    return summaries


def _describe(t: Tournament) -> dict:
    """What a tournament folder's manifest records of the tournament."""
    return {
        "variant": t.variant, "options": dict(sorted(t.options.items())),
        "players": [e.spec for e in t.entrants], "mode": t.mode, "count": t.count,
        "seed": t.seed, "chunk_size": t.chunk_size,
    }  # fmt: skip


def command_line(tournament: Tournament, out_given: Path | None = None) -> str:
    """The command that reproduces the tournament (workers and backend change nothing)."""
    t = tournament
    args = ["scopa-sim", "tournament", "--variant", t.variant]
    for key, value in sorted(t.options.items()):
        value = str(value).lower() if isinstance(value, bool) else value
        args += ["--option", f"{key}={value}"]
    args += ["--players", ",".join(e.spec for e in t.entrants)]
    args += [f"--{t.mode}", str(t.count), "--seed", str(t.seed)]
    if t.chunk_size != default_chunk_size(t.mode, any(e.searches for e in t.entrants)):
        args += ["--chunk-size", str(t.chunk_size)]
    if out_given is not None:
        args += ["--out", str(out_given)]
    return shlex.join(args)
