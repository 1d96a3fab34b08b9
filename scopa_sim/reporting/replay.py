"""The replay page: one deal (or a few) of ``scopa-sim replay`` as a page that steps through every
play, with the table and every hand before it and the legal alternatives offered.

Where the player has an ``explain`` method, each alternative shows the player's evaluation; that
means rebuilding the player's observation at each decision point from the record. The engine,
players and conformance helpers are imported only when a page is built, so importing
``scopa_sim.reporting`` stays light.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from scopa_sim.cards import mask_of
from scopa_sim.reporting.render import render_template

#: Suit colours of the cards drawn in replays, per pack: Italian coins, cups, swords, clubs;
#: French hearts, diamonds, spades, clubs.
_SUIT_COLOURS = {
    "italian-40": ("#a87400", "#c0392b", "#1f5fa8", "#2e7d32"),
    "french-52": ("#c0392b", "#d35400", "#1d232a", "#2e6b3a"),
}


_RANK_NAMES = {
    "italian-40": {1: "ace", 8: "fante (8)", 9: "cavallo (9)", 10: "re (10)"},
    "french-52": {1: "ace", 11: "jack (11)", 12: "queen (12)", 13: "king (13)"},
}


def _replay_card(pack, card: int, *, chosen: bool = False) -> dict:
    rank = pack.rank(card)
    rank_name = _RANK_NAMES.get(pack.name, {}).get(rank, str(rank))
    return {
        "code": pack.code(card),
        "suit": pack.suit(card),
        "title": f"{rank_name} of {pack.suit_names[pack.suit(card)]} (card {card})",
        "chosen": chosen,
    }


def _shown(rules, state: dict, play: int) -> np.ndarray:
    """The declared cards on show before ``play`` (``uint64[1, n_players]``), as the engine
    shows them to the player that acts (``batch.play_batch``): the player is explained at the
    decision point it played."""
    from scopa_sim.engine import deal_rules

    if not rules.declarations:
        return np.zeros((1, rules.n_players), np.uint64)
    _, declared = deal_rules.declared_hands(rules, np.array([state["pack"]], np.int8))
    hands = np.array([[mask_of(h)] for h in state["hands"]], np.uint64)
    return deal_rules.shown_cards(rules, declared, hands, play)


def _explain_row(player, rules, state: dict, play: int, seat: int, legal) -> list[float] | None:
    """``player.explain`` of one decision point (the optional protocol of scopa_sim.testing),
    or None when the player has none (or needs random numbers the record does not key)."""
    if not callable(getattr(player, "explain", None)) or not legal:
        return None
    from scopa_sim.players import LegalActions, Observation

    groups = np.cumsum([k == 0 or legal[k][0] != legal[k - 1][0] for k in range(len(legal))]) - 1
    obs = Observation(
        variant=rules,
        hand=np.array([mask_of(state["hands"][seat])], np.uint64),
        table=np.array([mask_of(state["table"])], np.uint64),
        captured=np.array([[mask_of(c) for c in state["captured"]]], np.uint64),
        played=np.array([mask_of(state["played"])], np.uint64),
        scores=np.array([state["scores"]], np.int16),
        seat=seat,
        side=np.array([state["seat_sides"][seat]], np.int8),
        dealer_side=np.array([state["seat_sides"][-1]], np.int8),
        play=play,
        scope=np.array([state["scope"]], np.int16),
        last_capturer=np.array([-1 if state["last"] is None else state["last"]], np.int8),
        shown=_shown(rules, state, play),
    )
    if getattr(player, "sees_hidden_cards", False):  # an upper bound: it is shown everything
        obs = dataclasses.replace(
            obs,
            hidden_hands=np.array([[mask_of(h) for h in state["hands"]]], np.uint64),
            hidden_pack=np.array([state["pack"]], np.int8),
        )
    actions = LegalActions(
        card=np.array([[c for c, _ in legal]], np.int8),
        capture=np.array([[mask_of(t) for _, t in legal]], np.uint64),
        group=groups[None, :].astype(np.int8),
        count=np.array([len(legal)], np.int64),
        n_cards=np.array([int(groups[-1]) + 1], np.int64),
    )
    from scopa_sim.seeding import DecisionRandom
    from scopa_sim.testing import explain_values

    key = state["decision_key"]
    rng = None if key is None else DecisionRandom(np.array([key], np.uint64), play)
    values = explain_values(player, obs, actions, rng)
    if values is None:
        return None
    values = np.asarray(values, dtype=np.float64)
    return [float(v) for v in values.reshape(1, -1)[0, : len(legal)]]


def replay_deal(record, number: int = 1, variant_words=None) -> dict:
    """One deal of ``scopa-sim replay`` (an ``api.DealRecord``) as the data of the replay page:
    the state before every play (table, every hand, cards still to deal, captured cards and
    scope per side), the play, and the legal alternatives offered with the player's evaluation
    of each when it has an ``explain`` method, and the ``scopa-sim analyse`` command of the
    position as the acting seat knows it (``variant_words`` name the rules in it, e.g.
    ``("--run", DIR)``; else the variant's file or preset); then the end of the deal and the
    points."""
    from scopa_sim.engine import reference
    from scopa_sim.position import analyse_command

    rules = record.variant
    pack, n, sides = rules.pack, rules.n_players, rules.n_sides
    seat_sides = list(record.seat_sides) or [rules.side_of_seat(s) for s in range(n)]
    players = list(getattr(record, "players", ()) or ())
    names = [p.name for p in players] if players else []

    def cards(ids, chosen=()) -> list[dict]:
        return [_replay_card(pack, c, chosen=c in chosen) for c in sorted(ids)]

    suits = ", ".join(
        f"{code} {name}" for code, name in zip(pack.suit_codes, pack.suit_names, strict=True)
    )
    deal = {
        "number": number,
        "variant": rules.describe(),
        "pack": pack.name,
        "legend": f"{pack.name}: rank ({' '.join(pack.rank_codes[1:])}) then suit ({suits})",
        "n_players": n,
        "dealer": n - 1,
        "seat_sides": seat_sides,
        "players": names,
        "throw_in": record.throw_in,
        "table": cards(record.pack[: rules.table_cards]),
        "opening": record.opening,
        "stopped_by": record.stopped_by,
        "plays": [],
        "total_plays": rules.plays,
    }
    if record.throw_in:
        return deal
    recorded_legal = list(getattr(record, "legal", ()) or ())
    scores = list(getattr(record, "scores", ()) or ()) or [0] * sides
    table = set(record.pack[: rules.table_cards])
    captured: list[set[int]] = [set() for _ in range(sides)]
    scope = [0] * sides
    if record.opening:  # the opening table went to the dealer's side (escoba's escobas are
        captured[seat_sides[n - 1]] |= table  # scope; cirulla's 15 / 30 its opening points)
        scope[seat_sides[n - 1]] += record.opening if rules.opening_sweep else 0
        table = set()
    hands: list[set[int]] = [set() for _ in range(n)]
    played: set[int] = set()
    position, play = rules.table_cards, 0
    last_capturer = seat_sides[n - 1] if record.opening else None
    for hand_number, size in enumerate(rules.hands, 1):
        if play >= len(record.moves):
            break
        for seat in range(n):
            hands[seat] = set(record.pack[position : position + size])
            position += size
        for _ in range(size * n):
            if play >= len(record.moves):
                break
            move = record.moves[play]
            seat, side = move.seat, seat_sides[move.seat]
            if play < len(recorded_legal):
                legal = [(int(c), tuple(t)) for c, t in recorded_legal[play]]
            else:  # a record without the engine's legal actions: the rules give the same ones
                legal = [
                    (c, tuple(sorted(t)))
                    for c, t in reference.legal_actions(rules, hands[seat], table)
                ]
            state = {
                "hands": hands, "table": table, "captured": captured, "played": played,
                "scores": scores, "seat_sides": seat_sides, "scope": scope,
                "last": last_capturer, "pack": record.pack,
                "decision_key": getattr(record, "decision_key", None),
            }  # fmt: skip
            player = players[side] if side < len(players) else None
            values = _explain_row(player, rules, state, play, seat, legal) if player else None
            chosen = (move.card, tuple(move.captured))
            alternatives = [
                {
                    "card": _replay_card(pack, c),
                    "taken": cards(t),
                    "chosen": (c, tuple(t)) == chosen,
                    "value": None if values is None else f"{values[k]:.4g}",
                }
                for k, (c, t) in enumerate(legal)
            ]
            deal["plays"].append(
                {
                    "analyse": analyse_command(
                        rules,
                        seat,
                        hands[seat],
                        table,
                        set().union(*captured),
                        captured,
                        scope,
                        scores,
                        -1 if last_capturer is None else last_capturer,
                        variant_words,
                    ),
                    "number": play + 1,
                    "hand": hand_number,
                    "seat": seat,
                    "side": side,
                    "player": names[side] if side < len(names) else "",
                    "table": cards(table, chosen=move.captured),
                    "hands": [
                        cards(h, chosen=(move.card,) if s == seat else ())
                        for s, h in enumerate(hands)
                    ],
                    "to_deal": rules.pack.n_cards - position,
                    "captured": [len(c) for c in captured],
                    "scope": list(scope),
                    "card": _replay_card(pack, move.card),
                    "taken": cards(move.captured),
                    "scopa": move.scopa,
                    "alternatives": alternatives,
                    "explained": values is not None,
                }
            )
            hands[seat].discard(move.card)
            played.add(move.card)
            if move.captured:
                table -= set(move.captured)
                captured[side] |= set(move.captured) | {move.card}
                scope[side] += move.scopa
                last_capturer = side
            else:
                table.add(move.card)
            play += 1
    deal["end"] = {
        "table": cards(table),
        "last_capturer": last_capturer if record.stopped_by is None and table else None,
        "leftovers": cards(record.leftovers),
        "unplayed": sorted(
            {pack.code(c) for h in hands for c in h} if record.stopped_by is not None else set()
        ),
        "sides": [
            {
                "side": s.side,
                "cards": len(s.captured),
                "points": {k: v for k, v in s.points.items() if v or k in ("cards", "coins")},
                "total": s.total,
            }
            for s in record.sides
        ],
    }
    return deal


def render_replay(records, title: str = "scopa-sim replay", variant_words=None) -> str:
    """The self-contained replay page of one or more deals (``api.DealRecord``): every play
    shown at once without JavaScript; with it, one play at a time (Previous/Next, arrow keys).
    ``variant_words``: how each play's ``scopa-sim analyse`` command names the rules
    (:func:`replay_deal`)."""
    records = list(records)
    deals = [replay_deal(r, k, variant_words) for k, r in enumerate(records, 1)]
    colours = _SUIT_COLOURS
    return render_template("replay.html.j2", title=title, deals=deals, colours=colours)


def position_page(document: dict, rules=None) -> dict:
    """The data of the position page from an analysis's JSON document (``scopa-sim analyse
    --json``): the cards drawn as the replay draws them, and per move its interval placed on a
    common scale (``x0``, ``x``, ``x1`` in percent of the chart's width). ``rules``: the
    analysis's variant; without it, the preset and options the document names."""
    from scopa_sim.rules import parse_variant

    pos = document["position"]
    rules = parse_variant(pos["variant"]) if rules is None else rules
    pack = rules.pack

    def cards(codes, chosen=()) -> list[dict]:
        return [_replay_card(pack, pack.parse(c), chosen=c in chosen) for c in codes]

    moves = document["moves"]

    def bound(e: dict, key: str) -> float:
        return e["estimate"] if e[key] is None else e[key]  # no variation: no interval

    lows = [bound(m["points"], "low") for m in moves] + [0.0]
    highs = [bound(m["points"], "high") for m in moves] + [0.0]
    low, high = min(lows), max(highs)
    span = (high - low) or 1.0

    def x(value: float) -> float:
        return round(100 * (value - low) / span, 2)

    rows = []
    for m in moves:
        rows.append(
            {
                **m,
                "card_drawn": _replay_card(pack, pack.parse(m["card"])),
                "takes_drawn": cards(m["takes"]),
                "x0": x(bound(m["points"], "low")),
                "x": x(m["points"]["estimate"]),
                "x1": x(bound(m["points"], "high")),
            }
        )
    best = moves[0]
    return {
        "variant": pos["variant"],
        "pack": pack.name,
        "legend": _legend(pack),
        "position": pos,
        "hand": cards(pos["hand"], chosen=(best["card"],)),
        "table": cards(pos["table"], chosen=tuple(best["takes"])),
        "seen": cards(pos["seen"]),
        "captured_mine": cards(pos["captured_mine"]),
        "captured_theirs": [cards(c) for c in pos["captured_theirs"]],
        "moves": rows,
        "zero": x(0.0),
        "scale": (round(low, 2), round(high, 2)),
        "with_win": any(m["win"] is not None for m in moves),
        "document": document,
    }


def _legend(pack) -> str:
    suits = ", ".join(
        f"{code} {name}" for code, name in zip(pack.suit_codes, pack.suit_names, strict=True)
    )
    return f"{pack.name}: rank ({' '.join(pack.rank_codes[1:])}) then suit ({suits})"


def render_position(document: dict, title: str | None = None, rules=None) -> str:
    """The self-contained page of an analysis (``scopa-sim analyse --html``): the position with
    its cards drawn as in the deal viewer, and every move best first with its intervals
    (``rules``: the analysis's variant, as :func:`position_page` takes it)."""
    data = position_page(document, rules)
    pos = data["position"]
    title = title or f"Analysis: {pos['variant']}, play {pos['play'] + 1}, seat {pos['seat']}"
    return render_template("position.html.j2", title=title, page=data, colours=_SUIT_COLOURS)
