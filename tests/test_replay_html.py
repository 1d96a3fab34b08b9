"""``scopa-sim replay --html FILE``: a self-contained page that steps through a deal.

The page is written beside the usual text (or JSON) output; it holds every play of the deal in
order, each with the table and every hand before it, the card and what it takes, and exactly the
legal actions the engine offered (one of them marked as played), with the player's evaluation
where the player has ``explain``. It works for every preset (40 and 52 cards, 2 to 6 players,
teams), for throw-ins, opening escobas and deals stopped by a winning scopa, and for deals of a
recorded run. Without JavaScript every play is shown; the small inline script steps through them
(checked under Node with a stand-in DOM, and in headless Chromium when it is installed). A bad
--html path gets one line and exit status 2.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser

import numpy as np
import pytest

from scopa_sim import api, reporting
from scopa_sim.players import GreedyPlayer, Player
from scopa_sim.rules import PRESETS, variant
from tests.support.browser import ON_CI, run_chromium
from tests.support.cli import scopa_sim

URL = re.compile(r"(?:https?|ftp|file):|//", re.IGNORECASE)


class ReplayPage(HTMLParser):
    """What a replay page holds: its steps in order, each play's move text, its alternatives
    (text, chosen, evaluation cell) and caption; its scripts and every URL-bearing attribute."""

    def __init__(self, text: str):
        super().__init__()
        self.steps: list[dict] = []
        self.scripts: list[tuple[dict, str]] = []
        self.attributes: list[tuple[str, str, str]] = []  # (tag, name, value)
        self.tags: set[str] = set()
        self.hidden_ids: set[str] = set()
        self._stack: list[tuple[str, str]] = []  # (tag, role)
        self._script: dict | None = None
        self._text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        for name, value in attrs:
            if name in ("src", "href", "action", "data", "poster", "srcset", "background"):
                self.attributes.append((tag, name, value or ""))
        if "hidden" in a and a.get("id"):
            self.hidden_ids.add(a["id"])
        classes = (a.get("class") or "").split()
        role = ""
        if tag == "section" and "step" in classes:
            self.steps.append(
                {"id": a.get("id"), "classes": classes, "label": a.get("data-label"),
                 "move": "", "alternatives": [], "caption": "", "hidden": "hidden" in a}
            )  # fmt: skip
        elif tag == "p" and "move" in classes:
            role = "move"
        elif tag == "caption":
            role = "caption"
        elif tag == "tr" and "alternative" in classes:
            self.steps[-1]["alternatives"].append({"chosen": "chosen" in classes, "cells": []})
        elif tag == "td" and self._in("tr"):
            role = "cell"
        elif tag == "script":
            self._script = a
        if tag not in ("meta", "br", "input"):
            self._stack.append((tag, role))
        if role:
            self._text = []

    def _in(self, tag) -> bool:
        return any(t == tag for t, _ in self._stack)

    def handle_endtag(self, tag):
        while self._stack:
            open_tag, role = self._stack.pop()
            if role == "move":
                self.steps[-1]["move"] = " ".join("".join(self._text).split())
            elif role == "caption" and self.steps:
                self.steps[-1]["caption"] = " ".join("".join(self._text).split())
            elif role == "cell" and self.steps and self.steps[-1]["alternatives"]:
                self.steps[-1]["alternatives"][-1]["cells"].append("".join(self._text).strip())
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._script is not None:
            self.scripts.append((self._script, data))
            self._script = None
        self._text.append(data)

    @property
    def plays(self) -> list[dict]:
        return [s for s in self.steps if "play" in s["classes"]]


def playable_pack(v, seed: int) -> list[int]:
    rng = random.Random(seed)
    while True:
        pack = rng.sample(range(v.pack.n_cards), v.pack.n_cards)
        if not api.play_packs(v, ["random"] * v.n_sides, [pack])[0].throw_in:
            return pack


def assert_self_contained(html: str, page: ReplayPage) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"(?:https?|ftp)://", html, re.IGNORECASE)
    assert not [(t, n, v) for t, n, v in page.attributes if URL.match(v.strip())]
    assert not {"img", "link", "iframe", "object", "embed", "base"} & page.tags
    assert all("src" not in attrs for attrs, _ in page.scripts)
    assert "@import" not in html and "url(" not in html


def assert_page_matches(page: ReplayPage, records) -> None:
    """Every play of every deal, in order, with the move and the legal alternatives offered."""
    plays = page.plays
    assert len(plays) == sum(len(r.moves) for r in records)
    k = 0
    for number, record in enumerate(records, 1):
        code = record.variant.pack.code
        for i, (move, legal) in enumerate(zip(record.moves, record.legal, strict=True)):
            play = plays[k]
            k += 1
            assert play["id"] == f"play-{number}-{i + 1}"
            assert f"Seat {move.seat} (side {record.seat_sides[move.seat]}) plays" in play["move"]
            text = f"plays {code(move.card)}" + (
                " and takes " + " ".join(code(c) for c in move.captured) if move.captured else ""
            )
            assert text.replace(" ", "") in play["move"].replace(" ", ""), (text, play["move"])
            assert ("SCOPA" in play["move"]) == move.scopa
            assert len(play["alternatives"]) == len(legal)
            assert play["caption"].startswith(f"{len(legal)} legal action")
            chosen = [j for j, alt in enumerate(play["alternatives"]) if alt["chosen"]]
            assert chosen == [legal.index((move.card, tuple(move.captured)))]
            for alt, (card, taken) in zip(play["alternatives"], legal, strict=True):
                assert alt["cells"][1] == code(card)
                assert alt["cells"][2].split() == ([code(c) for c in taken] or ["lays", "it"])


# the page ----------------------------------------------------------------------------------------


def test_the_page_is_written_self_contained_with_every_play_and_its_alternatives(capsys, tmp_path):
    v = variant("classic")
    pack = playable_pack(v, 3)
    players = "examples.cautious:CautiousPlayer,greedy"
    deck = ",".join(map(str, pack))
    page_file = tmp_path / "deal.html"
    args = ["replay", "--variant", "classic", "--players", players, "--deck", deck]
    status, text, err = scopa_sim(capsys, *args, "--html", page_file)
    assert status == 0 and err == ""
    # the text output is unchanged by --html
    assert scopa_sim(capsys, *args) == (0, text, "")
    status, as_json, _ = scopa_sim(capsys, *args, "--json", "--html", tmp_path / "again.html")
    assert status == 0 and json.loads(as_json)["deck"] == pack
    assert (tmp_path / "again.html").read_text() == page_file.read_text()

    html = page_file.read_text(encoding="utf-8")
    page = ReplayPage(html)
    assert_self_contained(html, page)
    record = api.play_packs(v, players.split(","), [pack])[0]
    assert_page_matches(page, [record])
    # the cautious player (side 0) explains every alternative; greedy has no explain
    for play, move in zip(page.plays, record.moves, strict=True):
        explained = record.seat_sides[move.seat] == 0
        assert ("evaluation" in play["caption"]) == explained
        for alt in play["alternatives"]:
            assert len(alt["cells"]) == (5 if explained else 4)
            if explained:
                float(alt["cells"][3])
    values = [
        float(alt["cells"][3]) for play in page.plays for alt in play["alternatives"]
        if len(alt["cells"]) == 5
    ]  # fmt: skip
    assert len(set(values)) > 5
    # without JavaScript: the stepper is hidden and every step is shown
    assert "stepper" in page.hidden_ids and not any(s["hidden"] for s in page.steps)
    assert page.steps[-1]["id"] == "end-1" and len(page.steps) == len(record.moves) + 1
    for side in record.sides:
        assert f"<td>{side.total}</td>" in html


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset(capsys, tmp_path, name):
    v = variant(name)
    packs = [playable_pack(v, seed) for seed in (1, 2)]
    lines = tmp_path / "packs.txt"
    lines.write_text("\n".join(",".join(map(str, p)) for p in packs))
    players = ["greedy", "examples.cautious:CautiousPlayer", "random"] * 2
    players = ",".join(players[: v.n_sides])
    page_file = tmp_path / "page.html"
    status, _, err = scopa_sim(
        capsys, "replay", "--variant", name, "--players", players, "--decks-file", lines,
        "--seed", 9, "--html", page_file,
    )  # fmt: skip
    assert status == 0, err
    html = page_file.read_text(encoding="utf-8")
    page = ReplayPage(html)
    assert_self_contained(html, page)
    records = api.play_packs(v, players.split(","), packs, seed=9)
    assert_page_matches(page, records)
    assert [s["id"] for s in page.steps if "end" in s["classes"]] == ["end-1", "end-2"]
    # every hand is drawn before every play: one row per seat
    assert html.count('<span class="label acting">') == sum(len(r.moves) for r in records)
    assert html.count("Seat 0 (side 0)</span>") >= len(records[0].moves)
    assert f"pack-{v.pack.name}" in html


def special_deals():
    """(variant, pack, what the page must say) for a throw-in, an opening escoba, a deal stopped
    by a winning scopa, and an opening escoba that wins before the first play."""
    classic = variant("classic")
    kings = [9, 19, 29, 0]
    throw_in = kings + [c for c in range(40) if c not in kings]
    escoba = variant("escoba")
    fifteen = [6, 14, 21, 30]  # 7 + 5 + 2 + 1
    opening = fifteen + [c for c in range(40) if c not in fifteen]
    stop = variant("classic", scopa_wins_immediately=True, target=1)
    rng = random.Random(2)
    for _ in range(500):
        pack = rng.sample(range(40), 40)
        record = api.play_packs(stop, ["greedy", "greedy"], [pack])[0]
        if record.stopped_by is not None and record.moves:
            break
    else:
        raise AssertionError("no stopped deal found")
    escoba_stop = variant("escoba", scopa_wins_immediately=True, target=1)
    return [
        (classic, throw_in, ["Thrown in", "three or four kings"]),
        (escoba, opening, ["Opening escoba", "as 1 escoba"]),
        (stop, pack, ["scopa reached the target", "deal stops"]),
        (escoba_stop, opening, ["Opening escoba", "scopa reached the target"]),
    ]


@pytest.mark.parametrize("case", range(4), ids=["throw-in", "opening", "stopped", "stopped-0"])
def test_throw_ins_opening_escobas_and_stopped_deals(case):
    rules, pack, texts = special_deals()[case]
    record = api.play_packs(rules, ["greedy"] * rules.n_sides, [pack])[0]
    html = reporting.render_replay([record])
    page = ReplayPage(html)
    assert_self_contained(html, page)
    assert_page_matches(page, [record])
    for text in texts:
        assert text in " ".join(html.split()), text
    assert len(page.steps) == len(record.moves) + 1
    if case == 3:
        assert record.moves == [] and record.stopped_by is not None


def test_a_deal_of_a_recorded_run(capsys, tmp_path):
    out = tmp_path / "run"
    status, _, err = scopa_sim(
        capsys, "simulate", "--variant", "classic-4p", "--players", "chitarrella,greedy",
        "--games", "6", "--seed", "4", "--out", out, "--no-progress",
    )  # fmt: skip
    assert status == 0, err
    page_file = tmp_path / "run.html"
    status, _, err = scopa_sim(
        capsys, "replay", "--run", out, "--game", 2, "--deal", 1, "--html", page_file
    )
    assert status == 0, err
    record = api.replay_run_deal(out, 2, 1)
    html = page_file.read_text(encoding="utf-8")
    assert_page_matches(ReplayPage(html), [record])
    assert "Replay of run, game 2, deal 1" in html
    assert any(record.scores), "the deal's scores before it are kept for explain"
    assert "(chitarrella)" in html and "(greedy)" in html


def test_a_run_of_another_data_version_is_refused_in_one_line(capsys, tmp_path):
    """A run written by another data version holds other packs or rows: replaying one of its
    deals would show a deal that was never played, so it is refused as the runner refuses it."""
    from scopa_sim import storage

    out = tmp_path / "run"
    status, _, err = scopa_sim(
        capsys, "simulate", "--variant", "classic", "--players", "greedy,random",
        "--deals", "20", "--seed", "4", "--out", out, "--no-progress",
    )  # fmt: skip
    assert status == 0, err
    stored = api.replay_run_deal(out, 3, 0)  # this version replays its own runs
    manifest = storage.manifest_path(out)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["data_version"] = storage.versions()["data_version"] - 1
    manifest.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(storage.StorageError, match="written by an older scopa-sim"):
        api.replay_run_deal(out, 3, 0)
    status, out_text, err = scopa_sim(capsys, "replay", "--run", out, "--game", 3, "--deal", 0)
    assert status == 2 and out_text == ""
    assert err.count("\n") == 1 and "older scopa-sim" in err and "Traceback" not in err
    assert stored.moves  # (the deal itself was playable)


@dataclass(frozen=True)
class Dice(Player):
    """Plays a uniformly random legal action; explains with the same draw (explain takes rng)."""

    name = "dice"

    def act(self, obs, legal, rng):
        return np.minimum((rng.random() * legal.count).astype(np.int64), legal.count - 1)

    def explain(self, obs, legal, rng):
        values = np.where(np.arange(legal.card.shape[1]) < legal.count[:, None], 0.0, np.nan)
        values[np.arange(len(legal.count)), self.act(obs, legal, rng)] = 1.0
        return values


def test_an_explain_that_takes_rng_shows_the_values_act_chose_by():
    """``Dice`` plays at random and explains with the same draw (1 on the action it plays): on
    the page its played action is the one valued 1 at every play, so the page rebuilt the very
    random numbers the player had (``DealRecord.decision_key``)."""
    v = variant("classic")
    records = api.play_packs(v, [Dice(), "greedy"], [playable_pack(v, s) for s in (1, 2)], seed=5)
    page = ReplayPage(reporting.render_replay(records))
    moves = [m for r in records for m in r.moves]
    dice_plays = [p for p, m in zip(page.plays, moves, strict=True) if m.seat == 0]
    assert dice_plays and all("evaluation" in p["caption"] for p in dice_plays)
    for play in dice_plays:
        assert [a["cells"][3] for a in play["alternatives"] if a["chosen"]] == ["1"]
        assert sorted(a["cells"][3] for a in play["alternatives"])[:-1] == ["0"] * (
            len(play["alternatives"]) - 1
        )


def test_text_from_players_is_escaped():
    class Loud(GreedyPlayer):
        name = "<b>loud</b>"

    v = variant("classic")
    record = api.play_packs(v, [Loud(), "greedy"], [playable_pack(v, 1)])[0]
    html = reporting.render_replay([record], title="a < b & <i>c</i>")
    assert "<b>loud</b>" not in html and "&lt;b&gt;loud&lt;/b&gt;" in html
    assert "<i>c</i>" not in html and "a &lt; b &amp; &lt;i&gt;c&lt;/i&gt;" in html


@pytest.mark.parametrize(
    ("where", "fragment"),
    [("missing/deal.html", "does not exist"), (".", "choose another --html file")],
)
def test_a_bad_html_path_gets_one_line_and_exit_2(capsys, tmp_path, where, fragment):
    target = tmp_path / where
    v = variant("classic")
    status, out, err = scopa_sim(
        capsys, "replay", "--variant", "classic", "--players", "greedy,greedy", "--deck",
        ",".join(map(str, playable_pack(v, 1))), "--html", target,
    )  # fmt: skip
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("scopa-sim: error: cannot write") and fragment in err
    assert not (tmp_path / "missing").exists()


# the stepper -------------------------------------------------------------------------------------

NODE_HARNESS = r"""
const vm = require("vm");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
function element(id, classes, parent, label) {
  const set = new Set(classes);
  return {
    id, parentNode: parent, hidden: id === "stepper", disabled: false, textContent: "",
    listeners: {}, attributes: {"data-label": label},
    classList: {
      has: (c) => set.has(c), add: (c) => set.add(c),
      toggle(c, on) { if (on === undefined) { on = !set.has(c); } if (on) { set.add(c); }
                      else { set.delete(c); } return on; },
    },
    getAttribute(name) { return this.attributes[name]; },
    addEventListener(type, f) { this.listeners[type] = f; },
  };
}
const root = element("html", [], null);
const deals = input.deals.map((id) => element(id, ["deal"], null));
const steps = input.steps.map((s) => element(s.id, ["step"], deals[s.deal], s.label));
const controls = {};
for (const id of ["stepper", "prev", "next", "all", "where"]) { controls[id] = element(id, []); }
const keys = {};
const replaced = [];
const sandbox = {
  document: {
    documentElement: root,
    querySelectorAll: (sel) => (sel === ".step" ? steps : sel === ".deal" ? deals : []),
    getElementById: (id) => controls[id],
    addEventListener: (type, f) => { keys[type] = f; },
  },
  history: { replaceState: (a, b, hash) => replaced.push(hash) },
  window: { location: { hash: input.hash }, history: true },
};
sandbox.window.history = sandbox.history;
vm.createContext(sandbox);
vm.runInContext(input.script, sandbox);
const current = () => steps.findIndex((s) => s.classList.has("current"));
const state = () => ({
  current: current(), currents: steps.filter((s) => s.classList.has("current")).length,
  deal: deals.findIndex((d) => d.classList.has("current")), where: controls.where.textContent,
  prev: controls.prev.disabled, next: controls.next.disabled,
});
const out = { start: state(), js: root.classList.has("js"), stepper: controls.stepper.hidden };
const press = (key) => { let stopped = false;
  keys.keydown({ key, preventDefault() { stopped = true; } }); return stopped; };
controls.next.listeners.click(); out.next = state();
out.right = press("ArrowRight"); out.afterRight = state();
press("ArrowLeft"); out.left = state();
press("End"); out.end = state();
controls.next.listeners.click(); out.pastEnd = state();
press("Home"); out.home = state();
controls.prev.listeners.click(); out.beforeStart = state();
out.other = press("a");
controls.all.listeners.click(); out.all = root.classList.has("all");
out.allText = controls.all.textContent;
out.replaced = replaced.slice(-1)[0];
console.log(JSON.stringify(out));
"""


def run_stepper(html: str, page: ReplayPage, hash: str = "") -> dict:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        if ON_CI:
            pytest.fail("node is needed on CI to run the replay page's script")
        pytest.skip("node not found: the replay page's script is not run")
    deals = sorted({s["id"].split("-")[1] for s in page.steps}, key=int)
    steps = [
        {"id": s["id"], "deal": deals.index(s["id"].split("-")[1]), "label": s["label"]}
        for s in page.steps
    ]
    (script,) = [text for _, text in page.scripts]
    data = {"script": script, "steps": steps, "deals": [f"deal-{d}" for d in deals], "hash": hash}
    proc = subprocess.run(
        [node, "-e", NODE_HARNESS], input=json.dumps(data), capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_stepper_steps_with_buttons_and_arrow_keys():
    v = variant("classic-3p")
    records = api.play_packs(v, ["greedy"] * 3, [playable_pack(v, s) for s in (1, 2)])
    html = reporting.render_replay(records)
    page = ReplayPage(html)
    last = len(page.steps) - 1
    out = run_stepper(html, page)
    assert out["js"] and out["stepper"] is False
    assert out["start"] == {
        "current": 0, "currents": 1, "deal": 0, "where": f"deal 1, play 1 of 36 (1/{last + 1})",
        "prev": True, "next": False,
    }  # fmt: skip
    assert out["next"]["current"] == 1 and out["right"] is True
    assert out["afterRight"]["current"] == 2 and out["left"]["current"] == 1
    assert out["end"]["current"] == last and out["end"]["next"] is True
    assert out["end"]["deal"] == 1 and "deal 2, end of the deal" in out["end"]["where"]
    assert out["pastEnd"]["current"] == last
    assert out["home"]["current"] == 0 and out["beforeStart"]["current"] == 0
    assert out["other"] is False  # other keys are left to the browser
    assert out["all"] and out["allText"] == "One play at a time"
    assert out["replaced"] == f"#{page.steps[0]['id']}"
    # a link to one play opens the page there
    assert run_stepper(html, page, hash="#play-2-5")["start"]["current"] == 36 + 1 + 4


@pytest.mark.xdist_group("html")
def test_the_page_renders_one_play_at_a_time_in_headless_chromium(chromium, tmp_path):
    v = variant("scopa-52-4p")
    record = api.play_packs(v, ["greedy"] * 4, [playable_pack(v, 1)])[0]
    page_file = tmp_path / "page.html"
    page_file.write_text(reporting.render_replay([record]), encoding="utf-8")
    dom = run_chromium(chromium, tmp_path / "profile", "--dump-dom", page_file.as_uri()).stdout
    assert re.search(r'<html[^>]*class="js"', dom)
    assert len(re.findall(r'class="step play current"', dom)) == 1
    assert 'id="stepper" hidden' not in dom
