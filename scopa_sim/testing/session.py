"""One player checked on a list of variants: what :func:`~scopa_sim.testing.check_player` and
:func:`~scopa_sim.testing.iter_checks` share (the player, its label and probe, the variants,
deals and seed), and each family of checks over every variant.

The decision-point check plays each lineup through the probe, which plays as the player on the
lockstep path; the fused-path and run checks compare whole runs with that lockstep play. So
the decision-point check keeps its runs for them, and a check that runs first (or alone) plays
the lockstep path itself, once, through a probe that only checks the indices act returns.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator

from scopa_sim import api
from scopa_sim.contract import PlayerError
from scopa_sim.players import player as player_of_spec
from scopa_sim.rules import PRESETS, Variant, parse_variant, variant
from scopa_sim.testing import hidden, runs
from scopa_sim.testing.decisions import probe_of
from scopa_sim.testing.fused import check_fused_path, has_fused_path
from scopa_sim.testing.report import PlayerCheckError
from scopa_sim.testing.shape import check_frozen, label_of


@contextlib.contextmanager
def as_check_failures(label: str) -> Iterator[None]:
    """The engine's :class:`PlayerError` about the player checked, as a
    :class:`PlayerCheckError` with the same words; a probe's own failure (raised inside the
    act that the engine called) as it was raised."""
    try:
        yield
    except PlayerError as err:
        if isinstance(err.__cause__, PlayerCheckError):
            raise err.__cause__ from None
        where = f" ({err.where})" if err.where else ""
        raise PlayerCheckError(f"{label} {err.problem}{where}") from err


def checked(label: str, check: Callable[[], int]) -> Callable[[], int]:
    """``check`` with :func:`as_check_failures` around it."""

    @functools.wraps(check)
    def run() -> int:
        with as_check_failures(label):
            return check()

    return run


#: Option sets every preset is checked with by default.
DEFAULT_OPTIONS: tuple[dict[str, object], ...] = ({}, {"forced_capture": True})


def variants_of(variants) -> list[Variant]:
    """The variants to check on: Variant objects, preset names or ``NAME:KEY=VALUE,...``
    texts; by default every preset with each of :data:`DEFAULT_OPTIONS`."""
    if variants is None:
        return [variant(name, **options) for name in PRESETS for options in DEFAULT_OPTIONS]
    if isinstance(variants, Variant | str):
        variants = [variants]
    out = [v if isinstance(v, Variant) else parse_variant(v) for v in variants]
    if not out:
        raise ValueError("no variants to check the player on")
    return out


class Session:
    """A player (an instance or a player spec) to check; :meth:`configure` sets the rest."""

    def __init__(self, player):
        self.label = player if isinstance(player, str) else label_of(player)
        with as_check_failures(self.label):  # a constructor or module that raises
            self.player = player_of_spec(player) if isinstance(player, str) else player
        self._lockstep: dict = {}  # (variant index, lineup index) -> outcomes through the probe

    def configure(self, variants, deals: int, seed: int) -> None:
        if not isinstance(deals, int) or deals < 4:
            raise ValueError("deals must be a whole number of at least 4")
        self.variants = variants_of(variants)
        self.deals, self.seed = deals, seed
        # A player that declares it sees the hidden cards (an upper bound, such as a cheater) is
        # handed them by the engine: the probe must declare it too, and blindness is not its rule.
        self.blind = not getattr(self.player, "sees_hidden_cards", False)
        self.fused = has_fused_path(self.player)
        self.probe = probe_of(self.player, self.label)

    # the parts, as check_player interleaves them ----------------------------------------------

    def frozen(self) -> None:
        check_frozen(self.player, self.label)

    def probed(self, v: Variant, lineup: list):
        """The lineup's deals through the probe: checks 2-4 and 7 on every decision point."""
        return self._play(v, lineup, self.probe)

    def whole(self, v: Variant, lineup: list):
        return runs.play_whole(v, lineup, self.deals, self.seed)

    def compare(self, v: Variant, lineup: list, who: str, lockstep, whole) -> None:
        """Check 6 for a player with a fused path (``whole`` played on it), else the same deals
        played twice; then the batch sizes (check 4)."""
        self.compare_paths(v, who, lockstep, whole)
        self.compare_batches(v, lineup, who, whole)

    def compare_paths(self, v: Variant, who: str, lockstep, whole) -> None:
        where = runs.where(v, who)
        if self.fused:
            check_fused_path(self.player, lockstep, whole, where, self.deals, self.label)
        else:
            runs.check_same_twice(lockstep, whole, where, self.deals, self.label)

    def compare_batches(self, v: Variant, lineup: list, who: str, whole) -> None:
        where = runs.where(v, who)
        runs.check_batch_sizes(v, lineup, whole, where, self.deals, self.seed, self.label)

    def games(self, v: Variant) -> int:
        return runs.check_games(self.player, v, self.deals, self.seed, self.label)

    def hidden_cards(self, v: Variant) -> int:
        return hidden.check_hidden_cards(self.player, v, self.deals, self.seed, self.label)

    def _play(self, v: Variant, lineup: list, probe):
        probed = [probe if p is self.player else p for p in lineup]
        return api.play_deals(v, probed, deals=range(self.deals), seed=self.seed,
                              batch_size=self.deals)  # fmt: skip

    # each family on its own, over every variant (iter_checks) ----------------------------------

    def check_frozen_dataclass(self) -> int:
        """Check 1; returns 1 (the player)."""
        self.frozen()
        return 1

    def check_decisions(self) -> int:
        """Checks 2-4 and 7 on every decision point of the lineups' deals; returns how many."""
        self.frozen()
        before = self.probe.decisions
        for i, v in enumerate(self.variants):
            for k, (lineup, _) in enumerate(runs.lineups(self.player, v)):
                self._lockstep[i, k] = self.probed(v, lineup)
        return self.probe.decisions - before

    def check_fused_path(self) -> int:
        """Check 6 (for a player with a fused path); returns the deals compared."""
        self.frozen()
        played = 0
        for i, v in enumerate(self.variants):
            for k, (lineup, who) in enumerate(runs.lineups(self.player, v)):
                self.compare_paths(v, who, self.lockstep(i, k, v, lineup), self.whole(v, lineup))
                played += 2 * self.deals
        return played

    def check_runs(self) -> int:
        """Checks 3-4 on whole runs (the same deals twice for a player without a fused path,
        whose check 6 compares them); returns the deals played, as check_player counts them."""
        self.frozen()
        played = 0
        for i, v in enumerate(self.variants):
            for k, (lineup, who) in enumerate(runs.lineups(self.player, v)):
                whole = self.whole(v, lineup)
                if not self.fused:
                    self.compare_paths(v, who, self.lockstep(i, k, v, lineup), whole)
                self.compare_batches(v, lineup, who, whole)
                played += 3 * self.deals
            played += self.games(v)
        return played

    def check_hidden_cards(self) -> int:
        """Check 5 (for a player that does not see hidden cards); returns the pairs compared."""
        self.frozen()
        return sum(self.hidden_cards(v) for v in self.variants)

    def lockstep(self, i: int, k: int, v: Variant, lineup: list):
        """Lineup ``k`` of variant ``i`` on the lockstep path: the decision-point check's run
        when it kept one (each is used once), else played here."""
        kept = self._lockstep.pop((i, k), None)
        if kept is not None:
            return kept
        return self._play(v, lineup, probe_of(self.player, self.label, checks=False))
