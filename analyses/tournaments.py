"""The tournaments the report pages read: one [[tournament]] TOML loader, each tournament's
command and plan, the check that its folder is complete, and its row of a page's data table.

Both tournament pages (who plays best, luck and skill) read their tournaments through this
module, so a configuration means the same thing, and is refused with the same words, on both.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from analyses.framework import DATA, MissingData, manifests_provenance
from scopa_sim import integrity, storage
from scopa_sim import tournament as tour
from scopa_sim.cli.batch import name_problem

#: The folder of the tournaments under the data folder.
TOURNAMENTS = "tournaments"
BIN = ".venv/bin/"
_KEYS = {"name", "variant", "players", "deals", "games", "seed", "chunk_size", "options", "workers"}


class ConfigError(ValueError):
    """A tournaments configuration is malformed; the message says where."""


@dataclass(frozen=True)
class Spec:
    """One [[tournament]] of the configuration."""

    name: str
    variant: str
    players: tuple[str, ...]
    mode: str  # deals or games
    count: int
    seed: int
    chunk_size: int | None = None
    options: dict = field(default_factory=dict)
    workers: int = 1

    def folder(self, data: Path) -> Path:
        return Path(data) / TOURNAMENTS / self.name

    def plan(self, data: Path) -> tour.Tournament:
        return tour.plan(
            variant_name=self.variant, players=list(self.players), mode=self.mode,
            count=self.count, seed=self.seed, out=self.folder(data), options=self.options,
            chunk_size=self.chunk_size,
        )  # fmt: skip

    def command(self, data: Path = DATA, plan: tour.Tournament | None = None) -> str:
        """The exact command that plays (or completes) this tournament; workers change nothing
        but the speed."""
        plan = self.plan(data) if plan is None else plan
        line = tour.command_line(plan, self.folder(data))
        return f"{BIN}{line} --workers {self.workers}"


def load_config(path: Path) -> list[Spec]:
    """The [[tournament]] tables of ``path``, completed by its [defaults]."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"cannot read the tournaments of {path}: {err}") from None
    defaults = raw.get("defaults", {})
    specs = []
    for k, table in enumerate(raw.get("tournament", []), 1):
        entry = {**defaults, **table}
        where = f"{path}: [[tournament]] {entry.get('name', k)!r}"
        unknown = set(entry) - _KEYS
        if unknown:
            raise ConfigError(f"{where} has unknown keys {sorted(unknown)}; known: {sorted(_KEYS)}")
        missing = {"name", "variant", "players", "seed"} - set(entry)
        if missing or ("deals" in entry) == ("games" in entry):
            raise ConfigError(
                f"{where} needs name, variant, players, seed and one of deals or games"
            )
        # the name is a folder under data/tournaments/: one plain name, once (scopa_sim.cli.batch)
        if problem := name_problem(str(entry["name"])):
            raise ConfigError(f"{where}: name {str(entry['name'])!r} {problem}")
        if any(s.name == str(entry["name"]) for s in specs):
            raise ConfigError(f"{where}: name {entry['name']!r} is given twice; name each once")
        mode = "deals" if "deals" in entry else "games"
        specs.append(
            Spec(
                name=str(entry["name"]), variant=str(entry["variant"]),
                players=tuple(str(p) for p in entry["players"]), mode=mode,
                count=int(entry[mode]), seed=int(entry["seed"]),
                chunk_size=entry.get("chunk_size"), options=dict(entry.get("options", {})),
                workers=int(entry.get("workers", 1)),
            )
        )  # fmt: skip
    if not specs:
        raise ConfigError(f"{path} holds no [[tournament]]")
    return specs


def commands(config: Path, data: Path = DATA, missing: bool = False) -> list[str]:
    """One command per tournament of ``config``, writing into ``data``/tournaments/; with
    ``missing``, only those whose folder is not complete (what ``make tournament`` runs: a
    complete folder would only be re-read)."""
    specs = load_config(config)
    return [s.command(data) for s in specs if not (missing and complete(s, data))]


def complete(spec: Spec, data: Path) -> bool:
    """Whether the tournament's folder holds every run of its plan, each complete."""
    try:
        spec.plan(data)
        return spec.folder(data).is_dir() and not unfinished(spec, data)
    except (tour.TournamentError, ValueError, OSError):
        return False  # the command itself says what is wrong


def unfinished(spec: Spec, data: Path, plan: tour.Tournament | None = None) -> list[str]:
    """The runs of the tournament's plan that are missing or unfinished, by name."""
    plan = spec.plan(data) if plan is None else plan
    runs = [config.out for pairing in plan.pairings for config in pairing.runs]
    return [run.name for run in runs if not (storage.read_manifest(run) or {}).get("complete")]


def complete_plan(spec: Spec, data: Path, target: str = "tournament") -> tour.Tournament:
    """The tournament of ``spec`` from its folder under ``data`` (nothing is played): refused
    with one line when the folder is missing, incomplete or holds another tournament, naming
    the ``make`` target that plays it."""
    folder = spec.folder(data)
    if not folder.is_dir():
        raise MissingData(
            f"tournament folder {folder} is missing; run `make {target}` first "
            f"(or: {spec.command(data)})"
        )
    try:
        plan = spec.plan(data)
    except (tour.TournamentError, ValueError, OSError) as err:
        raise MissingData(f"tournament folder {folder}: {err}") from None
    left = unfinished(spec, data, plan)
    if left:
        runs = sum(len(pairing.runs) for pairing in plan.pairings)
        raise MissingData(
            f"tournament folder {folder} is incomplete ({len(left)} of {runs} runs "
            f"missing or unfinished, e.g. {left[0]}); run `make {target}` to complete it"
        )
    return plan


def recorded(spec: Spec, data: Path, plan: tour.Tournament | None = None) -> dict:
    """What a page's footer and JSON need of a complete tournament: its deals (and games, in games
    mode) over all its runs, and the versions and formats their manifests recorded
    (framework.manifests_provenance). For a page's data row: ``{..., **recorded(spec, data)}``."""
    t = spec.plan(data) if plan is None else plan
    folders = [config.out for pairing in t.pairings for config in pairing.runs]
    if t.mode == "deals":
        deals, games = t.count * len(folders), None
    else:
        deals = sum(
            integrity.scan_run(folder).select(pl.struct("game", "deal").n_unique()).collect().item()
            for folder in folders
        )
        games = t.count * len(folders)
    return {"deals": deals, "games": games, **manifests_provenance(folders)}


def data_row(spec: Spec, data: Path, plan: tour.Tournament | None = None, note: str = "") -> dict:
    """A tournament's row of a page's data table, with its size and the versions its runs
    recorded (:func:`recorded`). From the analysed ``plan`` when given (its variant, entrants
    and runs), else from the configuration; ``note`` follows the folder."""
    size = recorded(spec, data, plan)
    if plan is None:
        variant, players, mode, count, seed = (
            spec.variant, ",".join(spec.players), spec.mode, spec.count, spec.seed,
        )  # fmt: skip
    else:
        variant, players, mode, count, seed = (
            plan.variant, ",".join(e.spec for e in plan.entrants), plan.mode, plan.count,
            plan.seed,
        )  # fmt: skip
    row = {
        "tournament": spec.name,
        "folder": f"{spec.folder(data)}/{note}",
        "variant": variant,
        "players": players,
        "mode": mode,
        "per run": f"{count:,} {mode}",
    }
    if plan is not None:
        row["runs"] = f"{2 * len(plan.pairings)} ({len(plan.pairings)} pairings x 2 seatings)"
    return {**row, "deals": size.pop("deals"), "games": size.pop("games"), "seed": seed, **size}


def reproduce(
    target: str, config: str, specs: list[Spec], data: Path, module: str, alone: str, notes=()
) -> str:
    """The Reproduce block of a tournament page: ``make TARGET``, each tournament's command
    (``alone`` says how it resumes), any ``notes``, then the page alone."""
    return "\n".join(
        [
            f"make {target} && make report    # the tournaments of {config}, then every page",
            f"# or each tournament alone ({alone}; workers change only the speed):",
            *[spec.command(data) for spec in specs],
            *notes,
            "# then this page alone:",
            f".venv/bin/python -m analyses.{module} --data {data} --out reports",
        ]
    )
