"""A conformance check any player can be run through: :func:`check_player`.

>>> from scopa_sim.testing import check_player
>>> report = check_player("greedy")                      # every preset, two option sets each
>>> report = check_player(MyPlayer(), ["classic", "escoba:forced_capture=true"], deals=200)
>>> for name, check in iter_checks(MyPlayer(), "classic"):  # one test per family of checks
...     check()

It plays the player on real deals and raises :class:`PlayerCheckError` (an ``AssertionError``,
so it reads well in pytest) with a one-paragraph message on the first failure; otherwise it
returns a :class:`CheckReport`. The contract it checks is the one of ``scopa_sim/contract.py``
(explained for authors in docs/players.md):

1. **a frozen dataclass Player**: an instance of :class:`~scopa_sim.players.Player` whose fields
   cannot be set, and hashable (the engine compares players to group the sides they play);
2. **legal actions only**: ``act`` returns a numpy integer array of shape ``(B,)`` whose every
   index is below the row's ``legal.count``;
3. **deterministic**: the same decision points with the same random numbers give the same
   choices, and the same run twice gives the same outcomes;
4. **independent of the batch**: a row's choice does not depend on which other rows share the
   batch (each batch of decision points is also played by a subset of its rows, in reverse order
   and with the padding trimmed as the engine would), and whole runs give the same outcomes in
   batches of any size, a sub-range of deals (the last of those batches, played alone) the same
   outcomes as in the whole run, and the later games of a batch the same outcomes played alone;
5. **blind to hidden cards**: pairs of packs with the same table but other hands and stock
   rearranged (cards shuffled after a hand's block, or two hidden cards swapped) are played
   with the same random numbers; the first play at which a pair's moves differ must be made by
   a seat whose own hand differs between the two packs, since everything else it may know (the
   table, the plays before, the scores, its side) is the same. Skipped for a player that
   declares ``sees_hidden_cards = True`` (an upper bound such as a cheater, which the engine
   hands the hidden cards; the report says so);
6. **a fused row policy agrees with act**: a player that declares a ``fused_policy`` plays the
   same runs on the engine's default (fused) path as on the lockstep path that calls ``act``;
7. **the optional evaluation** ``explain(obs, legal[, rng]) -> float[B, A]``
   (:data:`EXPLAIN_PROTOCOL`), when the player has one: the shape of ``legal.card``, a float
   array, finite on every legal slot, and the same for a row whatever other rows share the
   batch.

Every check runs on each variant given (by default every preset of ``scopa_sim.rules.PRESETS``,
with the default rules and with ``forced_capture``), with the player on every side and with the
player on side 0 against the random player. Checks 2 to 4 and 7 run on every decision point
the player meets (each batch is run three times: as given, again, and as a subset).

:func:`iter_checks` yields the same checks one family at a time (:data:`CHECKS`), as
``(name, check)`` pairs for a test suite to parametrise over (scikit-learn's
``parametrize_with_checks``): called in the order given, they play what check_player plays.

What it cannot catch:

* a peek that never changes a choice in the deals it plays (the hidden-card check compares
  moves; it does not watch what the player reads). A player that reads the engine's frames, a
  copy of the pack or another seat's hand, and uses it often enough to change its play, is
  caught; one that uses it in one position in a million may not be;
* hidden information that could not differ between the packs it pairs (its own past hands are
  known to it; everything else hidden is rearranged in some pair, but not in every combination);
* a player that behaves differently when it is being checked, or whose rule depends on the
  wall clock or on state kept between runs in a way the repeated runs do not reveal;
* a fused row policy on decision points outside the deals played (it compares outcomes, and
  only on the engine's default path when the installed engine has one);
* whether the player is any good, or fast: only that it keeps the contract.

The modules, one family of checks each: ``shape`` (1, and the indices of 2), ``decisions`` (2-4
at every decision point, through a probe), ``explain`` (7), ``runs`` (3-4 on whole runs),
``fused`` (6), ``hidden`` (5); ``session`` runs them for one player, ``report`` holds the error
and the report.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

from scopa_sim.contract import EXPLAIN_PROTOCOL, Player, explain_values
from scopa_sim.rules import Variant
from scopa_sim.testing import runs
from scopa_sim.testing.report import CheckReport, PlayerCheckError
from scopa_sim.testing.session import DEFAULT_OPTIONS, Session, as_check_failures, checked

__all__ = [
    "CHECKS",
    "DEFAULT_OPTIONS",
    "EXPLAIN_PROTOCOL",
    "CheckReport",
    "PlayerCheckError",
    "check_player",
    "explain_values",
    "iter_checks",
]

#: The families of checks :func:`iter_checks` yields, in its order, with what each checks.
CHECKS: dict[str, str] = {
    "frozen_dataclass": "1. a frozen, hashable dataclass Player with an act of its own",
    "decisions": "2-4 and 7. act (and explain) at every decision point: legal, deterministic, "
    "independent of the other rows",
    "fused_path": "6. the fused row policy plays as act (players with a fused path only)",
    "runs": "3-4. whole runs: the same deals twice, any batch size, a sub-range, whole games",
    "hidden_cards": "5. blind to hidden cards (not for a player that declares it sees them)",
}


def check_player(
    player: Player | str,
    variants: Iterable[Variant | str] | Variant | str | None = None,
    *,
    deals: int = 96,
    seed: int = 2024,
) -> CheckReport:
    """Run ``player`` (an instance or a player spec such as ``"greedy"`` or
    ``"mypkg.players:Cautious:margin=2"``) through the contract on ``variants`` (Variant objects,
    preset names or ``NAME:KEY=VALUE,...`` texts; default: every preset with the default rules
    and with ``forced_capture``). ``deals`` sets the deals per variant and lineup in the run
    comparisons (and a quarter of it the base packs of the hidden-card check); ``seed`` the
    packs and random numbers. Raises :class:`PlayerCheckError` on the first failure."""
    start = time.perf_counter()
    s = Session(player)
    s.frozen()
    s.configure(variants, deals, seed)
    totals = {"deals": 0, "pairs": 0}
    with as_check_failures(s.label):
        for v in s.variants:
            for lineup, who in runs.lineups(s.player, v):
                probed = s.probed(v, lineup)
                s.compare(v, lineup, who, probed, s.whole(v, lineup))
                totals["deals"] += 3 * deals
            totals["deals"] += s.games(v)
            if s.blind:
                totals["pairs"] += s.hidden_cards(v)
    return CheckReport(
        s.label, tuple(v.describe() for v in s.variants), s.probe.decisions, totals["deals"],
        totals["pairs"], s.probe.explains, s.blind, s.fused, time.perf_counter() - start,
    )  # fmt: skip


def iter_checks(
    player: Player | str,
    variants: Iterable[Variant | str] | Variant | str | None = None,
    *,
    deals: int = 96,
    seed: int = 2024,
) -> Iterator[tuple[str, Callable[[], int]]]:
    """The checks of :func:`check_player` (same arguments), one family at a time
    (:data:`CHECKS`): ``(name, check)`` pairs, only those that apply to the player. Each
    ``check()`` runs its family on every variant, raises :class:`PlayerCheckError` with
    check_player's message, and returns how much it checked (decision points, deals or pairs
    of packs). The fused-path and run checks use the lockstep runs of the decision check when
    it ran first in the same process; alone, they play them. In pytest::

        @pytest.mark.parametrize(("name", "check"), list(iter_checks(MyPlayer(), "classic")))
        def test_my_player(name, check):
            check()
    """
    s = Session(player)
    s.configure(variants, deals, seed)
    yield "frozen_dataclass", s.check_frozen_dataclass
    yield "decisions", checked(s.label, s.check_decisions)
    if s.fused:
        yield "fused_path", checked(s.label, s.check_fused_path)
    yield "runs", checked(s.label, s.check_runs)
    if s.blind:
        yield "hidden_cards", checked(s.label, s.check_hidden_cards)
