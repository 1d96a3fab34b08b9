"""``scopa-sim replay``: print a deal move by move, from a recorded run or from explicit packs.

The deal is replayed by the library (``api``); this module reads the command line and turns a
replay record into the text the terminal shows (``format_record``), or JSON, or an HTML page.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scopa_sim.cli.checks import check_writable
from scopa_sim.cli.options import seed_int
from scopa_sim.rules import RulesError, parse_assignments, variant
from scopa_sim.rules.describe import RULES_DOC

__all__ = ["CARD_LEGEND", "format_record"]


def add_parser(commands) -> None:
    rep = commands.add_parser(
        "replay",
        help="print a deal move by move",
        description=(
            "Print a deal move by move: a deal recorded in a run (--run DIR --game G --deal D), "
            "or explicit packs (--variant, --players, --seed and --deck or --decks-file). "
            "A deal of a run is checked against the rows the run recorded: when the replay "
            "differs (a player that is not deterministic, or whose code changed) a warning says "
            "so on stderr, and the exit status is still 0. "
            f"Packs are in canonical order ({RULES_DOC} §2): the table cards, then each hand's "
            "blocks in turn order. Seat 0 leads; the last seat deals."
        ),
    )  # fmt: skip
    rep.set_defaults(parser=rep)
    rep.add_argument("--run", type=Path, metavar="DIR", help="a run folder written by simulate")
    rep.add_argument("--game", type=int, default=0, metavar="G", help="game number (from 0)")
    rep.add_argument("--deal", type=int, default=0, metavar="D", help="deal number within the game")
    rep.add_argument(
        "--variant", metavar="NAME|FILE.toml", help="variant for explicit packs: a preset or a file"
    )
    rep.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option, repeatable",
    )
    rep.add_argument("--players", metavar="NAME,NAME[,...]", help="one player per side")
    rep.add_argument(
        "--seed", type=seed_int, default=0, metavar="S", help="seed of the players' random numbers"
    )
    rep.add_argument("--deck", metavar="ID,ID,...", help="one pack: card ids separated by commas")
    rep.add_argument("--decks-file", type=Path, metavar="FILE", help="packs, one per line")
    rep.add_argument("--json", action="store_true", help="one JSON object per deal instead of text")
    rep.add_argument(
        "--html", type=Path, metavar="FILE",
        help="also write a self-contained page that steps through the deal(s): the table and "
        "every hand before each play, the legal alternatives, and the player's evaluation of "
        "each when it has one (explain, docs/players.md)",
    )  # fmt: skip


def run(args, parser) -> int:
    if args.html:
        check_writable(args.html)
    if args.run:
        from scopa_sim import api

        records = [api.replay_run_deal(args.run, args.game, args.deal)]
        if difference := replay_difference(args.run, args.game, args.deal, records[0]):
            print(f"scopa-sim: warning: {difference}", file=sys.stderr)
    else:
        missing = [f"--{k}" for k in ("variant", "players") if getattr(args, k) is None]
        if missing or not (args.deck or args.decks_file):
            parser.error(
                "replay needs --run DIR, or --variant, --players and --deck or --decks-file"
            )
        rules = variant(args.variant, parse_assignments(args.option))
        lines = [args.deck] if args.deck else _read_lines(args.decks_file)
        from scopa_sim import api

        packs = []
        for n, line in enumerate(lines, 1):
            where = f"{args.decks_file} line {n}" if args.decks_file else "--deck"
            try:
                packs.append(api.check_pack(rules, line.replace(" ", "").split(",")))
            except RulesError as err:
                raise RulesError(f"{where}: {err}") from None
        records = api.play_packs(rules, args.players.split(","), packs, seed=args.seed)
    if args.html:
        from scopa_sim import reporting

        # A run's plays name its rules by the folder (a variant file's run has no preset name).
        words = ("--run", str(args.run)) if args.run else None
        page = reporting.render_replay(records, title=_replay_title(args), variant_words=words)
        try:
            args.html.write_text(page, encoding="utf-8")
        except OSError as err:
            raise RulesError(f"cannot write {args.html}: {err.strerror}") from None
    for record in records:
        print(json.dumps(record.to_json()) if args.json else format_record(record))
    return 0


def replay_difference(folder: Path, game: int, deal: int, record) -> str | None:
    """What differs between a replayed deal and the rows its run recorded (each side's captured
    cards and points), in one line; None when they agree. A deal replays as recorded
    unless a player is not deterministic (it must depend only on its inputs and ``rng``) or its
    code changed since the run."""
    if record.throw_in:
        return None
    import polars as pl

    from scopa_sim import integrity
    from scopa_sim.cards import mask_of

    rows = (
        integrity.scan_run(Path(folder))
        .filter((pl.col("game") == game) & (pl.col("deal") == deal))
        .sort("side")
        .select("captured", "points")
        .collect()
    )
    differences = []
    for side, (captured, points) in zip(record.sides, rows.iter_rows(), strict=False):
        same_cards = mask_of(side.captured) == captured
        if not same_cards or side.total != points:
            differences.append(
                f"side {side.side} recorded {points} points, replayed {side.total}"
                + ("" if same_cards else " with other cards")
            )
    if not differences:
        return None
    return (
        f"the replay of game {game}, deal {deal} differs from what {folder} recorded "
        f"({'; '.join(differences)}): a player is not deterministic, or its code changed "
        "since the run; the moves shown are the replay's"
    )


def _replay_title(args) -> str:
    if args.run:
        return f"Replay of {args.run.name}, game {args.game}, deal {args.deal}"
    return f"Replay: {args.players}, seed {args.seed}"


def _read_lines(path: Path) -> list[str]:
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as err:
        raise RulesError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{path} is not a text file; write one pack per line") from None
    if not lines:
        raise RulesError(f"{path} holds no packs; write one pack per line (card ids and commas)")
    return lines


CARD_LEGEND = (
    "cards: rank (A, 2-7, F fante, C cavallo, R re) then suit (D denari/coins, C coppe/cups, "
    "S spade/swords, B bastoni/clubs); 7D is the settebello"
)


def format_record(record) -> str:
    """A deal as readable text: the table, each hand as dealt, every play, the points."""
    rules = record.variant
    n = rules.n_players

    def cards(ids) -> str:
        return " ".join(rules.pack.code(c) for c in ids)

    legend = CARD_LEGEND
    if rules.settebello_card is not None:  # a variant file names another card
        legend = legend.replace("7D", rules.pack.code(rules.settebello))
    lines = [f"{rules.describe()}: seat 0 leads, seat {n - 1} deals", legend]
    table = record.pack[: rules.table_cards]
    if record.throw_in:
        lines.append(
            f"table {cards(table)}: thrown in (three or four kings); the dealer deals again"
        )
        return "\n".join(lines)
    lines.append(f"table: {cards(table)}")
    position, play = rules.table_cards, 0
    for hand, size in enumerate(rules.hands, 1):
        dealt = []
        for seat in range(n):
            dealt.append(f"seat {seat} {cards(sorted(record.pack[position : position + size]))}")
            position += size
        lines.append(f"hand {hand}: " + "; ".join(dealt))
        for move in record.moves[play : play + n * size]:
            play += 1
            taken = f" takes {cards(move.captured)}" if move.captured else ""
            side = record.seat_sides[move.seat]
            lines.append(
                f"{play:3d}. seat {move.seat} (side {side}) plays {rules.pack.code(move.card)}"
                + taken
                + ("  SCOPA" if move.scopa else "")
            )
    if record.leftovers:
        lines.append(f"left on the table for nobody: {cards(record.leftovers)}")
    for side in record.sides:
        detail = ", ".join(
            f"{k} {v}" for k, v in side.points.items() if v or k in ("cards", "coins")
        )
        lines.append(f"side {side.side}: {len(side.captured)} cards; {detail}; total {side.total}")
    return "\n".join(lines)
