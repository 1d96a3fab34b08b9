"""``scopa-sim analyse``: the value of every legal move in a position, as a chess engine shows it.

The position and its evaluation are ``scopa_sim.position``'s; this module reads the command
line (cards by id, code or name: ``cards.parse_card``), checks it before the engine loads, and
prints the moves best first as text, JSON or an HTML page.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scopa_sim.cards import parse_card_list
from scopa_sim.cli.checks import check_writable
from scopa_sim.cli.errors import InputError
from scopa_sim.cli.options import seed_int
from scopa_sim.rules import PRESETS, RulesError, Variant, parse_variant
from scopa_sim.rules.describe import RULES_DOC

#: The evaluating player unless --player says otherwise.
DEFAULT_PLAYER = "pimc:samples=1024"

_EPILOG = f"""\
cards: ids (6), codes in any case (7D, 7d; rank A 2..7 F C R, or 8 9 10, then suit D C S B),
names (settebello, rebello) or words (seven of coins, sette di denari), separated by commas or
spaces; '-' is no card. The names are in {RULES_DOC} ("Card names").

output: one line per legal move, best first: the card and what it takes; points, the expected
point difference at the end of the deal (your side minus the other sides' mean; cards captured
so far count only when --captured-mine/--captured-theirs name them) with its 95 % t interval over
the samples; "vs best", the paired difference to the best move with its 95 % t interval over the
same samples (every move is rolled out on the same determinised deals and rollout random
numbers); "not separable" when that interval reaches zero: the samples cannot tell the move from
the best. Intervals are each at 95 %, not adjusted for the number of moves. Then the chance of a
scopa by your side and by the other side(s) after the move, to the end of the deal (the move's
own scopa is marked SCOPA beside it), and with --scores (two sides) the chance of winning the
game after the move and its paired difference to the best move's: each sample's deal end valued
by a table of winning chances over score states, solved exactly from the distribution of 20,000
simulated deals of the rollout player against itself (docs/analyse.md).

--json prints {{"position", "player", "samples", "seed", "rank_by", "level", "win_before_deal",
"command", "notes", "moves": [{{"rank", "slot", "card", "takes", "scopa", "points", "vs_best",
"scopa_mine", "scopa_theirs", "win", "win_vs_best", "best", "separable"}}, ...]}}, each estimate
as {{"estimate", "low", "high", "estimable"}} (null when not computed; low and high null,
estimable false, when the samples do not vary: e.g. no hidden card is left). Such a move is
separable when every sample puts it below the best.

examples:
  scopa-sim analyse --variant classic --hand 7D,3C,RB --table 4D,3S,2B,FC
  scopa-sim analyse --variant classic --hand "3D 6S CS" --table AS,FB \\
      --seen 5D,RD,RC,2S,4S,5S,2B,5B,CB \\
      --captured-mine RD,RC,2S,2B --captured-theirs 5D,4S,5S,5B,CB --scope-theirs 1 \\
      --last-capturer mine --scores 7,9 --rank-by win --html position.html
"""


def add_parser(commands) -> None:
    ana = commands.add_parser(
        "analyse",
        help="the value of every legal move in a position (a chess engine's analysis)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
        description=(
            "Value every legal move of a position you met at the table: each move is played in "
            "each of the evaluating player's samples (deals consistent with what your seat has "
            "seen) and the deal rolled out to its end, as pimc searches. The play is worked out "
            "from the cards: every card on the table or out of play beyond the table dealt is "
            f"one play. Seat 0 leads, the last seat deals ({RULES_DOC} §2)."
        ),
    )  # fmt: skip
    ana.set_defaults(parser=ana)
    add = ana.add_argument
    rules = ana.add_mutually_exclusive_group(required=True)
    rules.add_argument(
        "--variant", metavar="NAME|FILE.toml",
        help=f"a preset ({', '.join(PRESETS)}) or a variant file (docs/rules.md)",
    )  # fmt: skip
    rules.add_argument(
        "--run", type=Path, metavar="DIR",
        help="or the rules of the run in DIR (its variant and options, as its manifest records "
        "them; the deal viewer of a run names it so)",
    )  # fmt: skip
    add("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option")
    add("--hand", required=True, metavar="CARDS", help="your own cards")
    add("--table", default="", metavar="CARDS", help="the cards on the table (default none)")
    add(
        "--seen", default="", metavar="CARDS",
        help="every card out of play: captured by any side (and played with a capture)",
    )  # fmt: skip
    add(
        "--seat", type=int, metavar="K",
        help="your seat in play order (default: the seat whose turn the cards say it is)",
    )  # fmt: skip
    add("--captured-mine", default="", metavar="CARDS", help="the cards your side has captured")
    add(
        "--captured-theirs", action="append", default=[], metavar="CARDS",
        help="the cards the other side captured (repeat per side, in play order after yours)",
    )  # fmt: skip
    add("--scope-mine", type=int, default=0, metavar="N", help="your side's scope this deal")
    add(
        "--scope-theirs", type=int, action="append", default=[], metavar="N",
        help="the other side's scope this deal (repeat per side, as --captured-theirs)",
    )  # fmt: skip
    add(
        "--scores", metavar="A,B",
        help="game scores before this deal, yours first: adds the chance of winning the game",
    )  # fmt: skip
    add(
        "--last-capturer", metavar="SIDE",
        help="mine, theirs or none: who captured last, who takes the table left at the end "
        "(default: the only side with captures given, else none)",
    )  # fmt: skip
    add(
        "--player", default=DEFAULT_PLAYER, metavar="SPEC",
        help=f"the evaluating search, pimc with its parameters (default {DEFAULT_PLAYER}); "
        "samples is the number of determinised deals",
    )  # fmt: skip
    add("--seed", type=seed_int, default=0, metavar="S", help="seed of the samples (default 0)")
    add(
        "--rank-by", choices=("points", "win"), default="points",
        help="best move by expected points (default) or by the chance of winning (--scores)",
    )  # fmt: skip
    add("--json", action="store_true", help="one JSON object instead of text")
    add("--html", type=Path, metavar="FILE", help="also write a page showing the position")


def resolve_variant(name: str, options: list[str]) -> Variant:
    """The variant of ``--variant`` and ``--option``: the one call that resolves it."""
    spec = name.strip()
    if options:
        spec += ("," if ":" in spec else ":") + ",".join(options)
    return parse_variant(spec)


def run_rules(folder: Path, options: list[str]) -> Variant:
    """The rules of the run in ``folder`` (``--run``), with ``--option`` on top."""
    from scopa_sim import storage
    from scopa_sim.rules import parse_assignments, variant_of_config
    from scopa_sim.rules.presets import with_options

    manifest = storage.read_manifest(folder)
    if manifest is None:
        raise InputError(
            f"--run {folder}: no run there (no manifest.json); give a folder that "
            "scopa-sim simulate or a tournament wrote, or --variant"
        )
    return with_options(variant_of_config(manifest["config"]), parse_assignments(options))


def read_position(args):
    """The checked position of the command line (a ``position.Position``)."""
    from scopa_sim.position import position

    if args.run is not None:
        rules = run_rules(args.run, args.option)
    else:
        rules = resolve_variant(args.variant, args.option)
    pack = rules.pack

    def cards(text, option):
        try:
            return parse_card_list(pack, text)
        except ValueError as err:
            raise InputError(f"{option}: {err}") from None

    scores = None
    if args.scores is not None:
        try:
            scores = [int(x) for x in args.scores.replace(" ", "").split(",")]
        except ValueError:
            raise InputError(
                f"--scores takes whole numbers, yours first: not {args.scores!r}"
            ) from None
    return position(
        rules, cards(args.hand, "--hand"), cards(args.table, "--table"),
        cards(args.seen, "--seen"), seat=args.seat,
        captured_mine=cards(args.captured_mine, "--captured-mine"),
        captured_theirs=[cards(c, "--captured-theirs") for c in args.captured_theirs],
        scope_mine=args.scope_mine, scope_theirs=args.scope_theirs, scores=scores,
        last_capturer=args.last_capturer,
    )  # fmt: skip


def read_player(spec: str):
    """The evaluating player: pimc (or a subclass) that rolls out, never the cheater."""
    from scopa_sim.players import player
    from scopa_sim.players.pimc import CheaterPlayer, PimcPlayer

    found = player(spec)
    if not isinstance(found, PimcPlayer) or isinstance(found, CheaterPlayer):
        raise InputError(
            f"--player {spec!r}: analyse evaluates with pimc's rollouts; give "
            "pimc[:samples=N][:rollout=NAME] (e.g. pimc:samples=512)"
        )
    if found.endgame:
        raise InputError(
            f"--player {spec!r}: analyse rolls every sample out to keep its scope; "
            "endgame (exact solving) is not offered here, leave it 0"
        )
    return found


def run(args, parser) -> int:
    if args.html:
        check_writable(args.html)
    if args.rank_by == "win" and args.scores is None:
        raise InputError("--rank-by win needs --scores (the game scores before this deal)")
    pos = read_position(args)
    evaluator = read_player(args.player)
    from scopa_sim.position import analyse

    try:
        result = analyse(pos, evaluator, seed=args.seed, rank_by=args.rank_by)
    except ValueError as err:
        if isinstance(err, RulesError):
            raise
        raise InputError(str(err)) from None
    document = result.to_json()
    if args.html:
        from scopa_sim.reporting.replay import render_position

        try:
            args.html.write_text(render_position(document, rules=pos.variant), encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write {args.html}: {err.strerror}") from None
    print(json.dumps(document) if args.json else "\n".join(format_analysis(document)))
    return 0


def _signed(x: float, digits: int = 2) -> str:
    return f"{x:+.{digits}f}"


def _interval(e: dict | None, scale: float = 1.0, digits: int = 2) -> str:
    if e is None:
        return ""
    if e["low"] is None:
        return "(no variation)"
    low, high = e["low"] * scale, e["high"] * scale
    return f"[{_signed(low, digits)}, {_signed(high, digits)}]"


def _percent(e: dict | None) -> str:
    return "" if e is None else f"{100 * e['estimate']:.0f}%"


def format_analysis(doc: dict) -> list[str]:
    """The text of an analysis (its JSON document): the position, then one row per move."""
    from scopa_sim.text import plain_table

    pos = doc["position"]
    scores = pos["scores"]
    lines = [
        f"{pos['variant']}: play {pos['play'] + 1} of {pos['plays']}, seat {pos['seat']} to play "
        f"(side {pos['side']}; side {pos['dealer_side']} deals)"
        + (f"; scores {'-'.join(map(str, scores))} (yours first)" if scores else ""),
        f"hand: {' '.join(pos['hand'])}   table: {' '.join(pos['table']) or 'empty'}   "
        f"out of play: {len(pos['seen'])} cards",
        f"evaluated by {doc['player']}: {doc['samples']} samples, seed {doc['seed']}; 95 % "
        "intervals with samples as the unit",
    ]
    if doc["win_before_deal"] is not None:
        lines.append(f"chance of winning the game before this deal: {doc['win_before_deal']:.1%}")
    with_win = any(m["win"] is not None for m in doc["moves"])
    header = ["#", "move", "points", "95% interval", "vs best", "95% interval (paired)"]
    header += ["scopa mine", "scopa theirs"]
    if with_win:
        header += ["win", "win vs best"]
    header += [""]
    rows = []
    for m in doc["moves"]:
        move = m["card"] + (f" takes {' '.join(m['takes'])}" if m["takes"] else " (laid)")
        move += " SCOPA" if m["scopa"] else ""
        row = [str(m["rank"]), move, _signed(m["points"]["estimate"]), _interval(m["points"])]
        if m["best"]:
            row += ["best", ""]
        else:
            row += [_signed(m["vs_best"]["estimate"]), _interval(m["vs_best"])]
        row += [_percent(m["scopa_mine"]), _percent(m["scopa_theirs"])]
        if with_win:
            row += [f"{100 * m['win']['estimate']:.1f}%"]
            row += ["" if m["best"] else
                    f"{100 * m['win_vs_best']['estimate']:+.1f} pp "
                    f"{_interval(m['win_vs_best'], 100, 1)}"]  # fmt: skip
        row += ["best" if m["best"] else ("" if m["separable"] else "not separable")]
        rows.append(row)
    lines += plain_table(header, rows)
    lines += [f"note: {note}" for note in doc["notes"]]
    return lines
