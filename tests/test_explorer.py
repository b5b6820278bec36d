"""The explorer (`rulecheck explore --serve`, issue 38) through its HTTP API, without a browser.

One server on the default profile serves the module (built once). What an observer sees is checked
against the leak check's own observation function (model/moritani/observe.py) on 50 sampled states:
the fields the page lists are exactly those the observation reads, the choices exactly its prompt,
the tokens on the map exactly its tokens; games that differ only by exchanged hidden faces look the
same to every rival, and any change to a slot no rival reads changes nothing a rival is shown.
Saving writes scenario files that `rulecheck replay` passes, and nothing outside `--out`; requests
for another host or origin are refused. The browser tests are in tests/test_explorer_browser.py, the
fuzzing of the endpoints in tests/test_explorer_fuzz.py.
"""
from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from checks.cli import main
from checks.formats.explorer_view import board_panel, choices, choices_html, fields_panel, viewpoints
from explorer_support import WITNESS, Served, app, normal, setup, text_of, tree
from model.evaluate import successors
from model.moritani.build import build_model
from model.moritani.observe import Observer, actor_of, exchange_label, hidden_faces, owner_slots
from model.trace import Trace

ROOT = Path(__file__).resolve().parent.parent
# The game of witness-eome-refused as `rulecheck check` finds it (asserted below against the checker).
GAME_LABELS = ["place_token(k=Assassination, to=Arrakeen)", "commit_placement(k=Assassination)", "no_extortion",
               "end_turn", "move(f=Atreides, to=Arrakeen)", "open_terror(k=Assassination)",
               "offer_alliance_0(e=Atreides)", "no_karama_eome", "refuse_alliance"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    out = tmp_path_factory.mktemp("explored")
    s = Served(app(setup(), out))
    s.out = out
    yield s
    s.stop()


@pytest.fixture(scope="module")
def model(served):
    return served.server.app.a.model


def sample(model, n: int = 50, seed: int = 38) -> list:
    """`n` (path, state) pairs: seeded random games of 0 to 45 steps from the initial state."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        labels, s = [], model.init[0]
        for _ in range(rng.randint(0, 45)):
            nxt = successors(model, s)
            if not nxt:
                break
            a, s = rng.choice(nxt)
            labels.append(a.label)
        out.append((labels, s))
    return out


def test_the_witness_game_is_the_checkers(default_exploration, model):
    """GAME_LABELS is what `check` reports for witness-eome-refused on the default profile."""
    assert default_exploration.witness_trace(WITNESS).labels == GAME_LABELS
    assert Trace.from_actions(model, model.init[0], GAME_LABELS).depth == 9


# -- what the designer sees ----------------------------------------------------------------------------

def test_the_choices_are_grouped_by_player_in_game_words_with_their_ids(served):
    v = served.view([])
    t = tree(v["choices"])
    groups = {g.all(lambda n: n.tag == "h4")[0].text: g for g in t.having("group")}
    assert list(groups) == ["Moritani", "engine faults"]  # a reload is possible from the start
    place = next(li for li in groups["Moritani"].having("choice")
                 if li.all(lambda n: n.attrs.get("data-label") == "place_token(k=Robbery, to=Carthag)"))
    assert "Moritani places a hidden token (#4 hidden Robbery) in Carthag" in normal(place.text)
    assert "rule place_token" in place.text and "R7 R8 R9 H29" in place.text
    v = served.view(GAME_LABELS[:1])  # the placement's Karama window: Atreides may cancel it, or it lands
    groups = [g.all(lambda n: n.tag == "h4")[0].text for g in tree(v["choices"]).having("group")]
    assert groups == ["Atreides", "the game", "engine faults"]
    assert "Atreides plays Karama: Moritani's placement is cancelled" in text_of(v["choices"])


def test_properties_are_listed_by_kind_and_a_breaking_successor_is_marked(tmp_path):
    """On the custody bug of tests/test_html.py (H30): the state before the acceptance satisfies
    token-conservation, the acceptance is marked as breaking it, and after it the check is violated."""
    from checks.formats.proposal import load_proposal
    from model.moritani import GAME
    from checks.formats.explorer_requests import Setup
    (tmp_path / "b.yaml").write_text("name: buggy\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n")
    p = load_proposal(GAME, str(tmp_path / "b.yaml"))
    m = GAME.build(p)
    from checks.engines.explicit import Explorer as Search
    from checks.config import CheckConfig
    bad = Search(m, CheckConfig()).run()
    trace = bad.trace_to(bad.violations["token-conservation"])
    x = app(Setup("buggy", p, m), tmp_path / "out")
    before = x.handle("/api/view", {"path": trace.labels[:-1]})
    kinds = [d.attrs["data-kind"] for d in tree(before["properties"]).having("kind")]
    assert kinds == ["invariant", "step", "permission", "witness", "deadlock"]  # issue 33's permissions
    row = tree(before["properties"]).all(lambda n: n.attrs.get("data-prop") == "token-conservation")[0]
    assert row.attrs["class"] == "prop warn" and "broken by" in row.text and trace.labels[-1] in row.text
    marked = [li for li in tree(before["choices"]).having("choice") if "breaks" in li.classes]
    assert [li.all(lambda n: "act" in n.classes)[0].attrs["data-label"] for li in marked] == [trace.labels[-1]]
    assert "breaks token-conservation" in marked[0].text
    after = x.handle("/api/view", {"path": trace.labels})
    assert "token-conservation" in after["violated"]
    saved = x.handle("/api/save", {"path": trace.labels, "name": "dup", "expect": {"violates": "token-conservation"}})
    assert saved["replay"]["ok"], saved
    assert run("replay", tmp_path / "out" / "dup.scenario.yaml").exit_code == 0


def test_a_refused_action_is_explained_by_its_false_conjunct(served):
    status, doc, _ = served.post("/api/explain", {"path": GAME_LABELS, "action": "decline"})
    assert status == 200 and doc["enabled"] is False and doc["false"] == ["not eome_refused"]
    assert "reveal is mandatory (R21)" in text_of(doc["html"])
    refused = tree(served.view(GAME_LABELS)["refused"])
    tried = [b.attrs["data-label"] for b in refused.having("try")]
    assert "decline" in tried and "reveal_assassination(e=Atreides)" not in tried  # that one is enabled


def test_the_same_state_reached_twice_is_recognised():
    """A toy game with a cycle: the path lists the state it returns to, and the choice that returns
    to a state of the path says so (the explorer works on any model, boards and secrets or not)."""
    from checks.formats.explorer_api import Explorer
    from checks.formats.explorer_requests import Setup
    from model.domains import Bool
    from model.expr import Var
    from model.game import GameModel
    from model.rule import Rule
    from model.schema import Field, Schema
    flip = Rule("flip", (), Var("on") | ~Var("on"), {("on", ()): ~Var("on")})
    m = GameModel("toggle", Schema((Field("on", Bool()),)), ((False,),), (flip,), (), Var("on") & ~Var("on"))
    x = Explorer(Setup("toggle", None, m))
    v = x.handle("/api/view", {"path": ["flip", "flip"]})
    assert v["seen"] == [0] and "same state as step 0" in text_of(v["history"])
    one = x.handle("/api/view", {"path": ["flip"]})
    assert one["seen"] == [] and one["fingerprint"] != v["fingerprint"]
    assert "back to the state of step 0" in text_of(one["choices"])
    assert "on" in text_of(v["fields"]) and "no" in text_of(v["board"])  # the raw slots, without a board


# -- what each observer sees, against the leak check's observation -------------------------------------

def _fields(html: str) -> dict:
    return {tr.attrs["data-slot"]: normal(tr.having("sv")[0].text) for tr in tree(html).all(lambda n: "data-slot" in n.attrs
                                                                                        and n.tag == "tr")}


def _placed(board: str) -> set:
    out = set()
    for r in tree(board).all(lambda n: "data-region" in n.attrs):
        out |= {(t.all(lambda n: n.tag == "b")[0].text, r.attrs["data-region"]) for t in r.having("tok")}
    return out


def _hidden_texts(html: str) -> str:
    """The text of every element that could name a face: tokens, secrets and placeholders."""
    t = tree(html)
    return " | ".join(n.text for n in t.having("tok") + t.having("sec") + t.having("omni"))


@pytest.mark.heavy
def test_each_observer_sees_exactly_what_its_observation_reads(served, model):
    """50 sampled states, every rival and the owner, through the HTTP API the page uses."""
    c, sch = model.vocabulary, model.schema
    faces = c.K.labels
    checked = hidden_seen = 0
    for path, s in sample(model):
        enabled = [a for a, _ in successors(model, s)]
        hidden = [faces[k] for k in hidden_faces(model, s)]
        for o in c.rivals:
            obs = Observer(model, o)
            board, placed, revealed, own, prompt, leaks = obs.observe(s, enabled)
            v = served.view(path, c.F.labels[o])
            want = {sch.slot_names[i]: sch.show(i, s[i]) for i in set(obs.public) | set(obs.own)}
            assert _fields(v["fields"]) == want, (path, o)
            shown = sorted(b.attrs["data-choice"] for b in tree(v["choices"]).having("act"))
            assert shown == list(prompt), (path, o)
            assert _placed(v["board"]) == {(f"#{pid}", c.Dest.labels[loc]) for pid, loc in placed}
            secret = _hidden_texts(v["board"]) + _hidden_texts(v["choices"])
            assert not [f for f in hidden if f in secret], (path, o)
            assert all(faces[k] in _hidden_texts(v["board"]) for k, _ in revealed)
            checked += 1
        v = served.view(path, c.F.labels[c.M])
        mine = sorted(a.label for a in enabled if actor_of(model, a, s) == c.M)
        assert _fields(v["fields"]) == {sch.slot_names[i]: sch.show(i, s[i]) for i in owner_slots(model)}
        assert sorted(b.attrs["data-label"] for b in tree(v["choices"]).having("act")) == mine
        assert all(f in _hidden_texts(v["board"]) for f in hidden)  # Moritani knows its own faces
        hidden_seen += bool(hidden)
    assert checked == 150 and hidden_seen >= 40


def _twin(model, labels, built: dict):
    """The same game with two faces that stay hidden throughout exchanged, on the model whose initial
    public IDs are exchanged too (tests/test_html.py): what no rival can tell apart. `built` keeps the
    twin models by their initial IDs."""
    c = model.vocabulary
    t = Trace.from_actions(model, model.init[0], labels)
    always = [k for k in c.faces if all(k in hidden_faces(model, s) for s in t.states)]
    if len(always) < 2:
        return None, None
    a, b = always[:2]
    pids = [model.get(model.init[0], "pid", k) for k in c.faces]
    pids[a], pids[b] = pids[b], pids[a]
    if tuple(pids) not in built:
        built[tuple(pids)] = build_model(c.bounds, c.interp, tuple(model.provenance.defects), pids=tuple(pids))
    return built[tuple(pids)], [exchange_label(model, model.action(x), a, b) for x in labels]


@pytest.mark.heavy
def test_games_that_differ_only_in_hidden_faces_look_the_same_to_every_rival(served, model):
    from checks.formats.explorer_api import Explorer
    from checks.formats.explorer_requests import Setup
    compared, built, apps = 0, {}, {}
    for path, _ in sample(model, 30, seed=7):
        twin, labels = _twin(model, path, built)
        if twin is None or len(path) < 3:
            continue
        one = served.server.app
        two = apps.setdefault(id(twin), Explorer(Setup("twin", None, twin)))
        for o in ("Atreides", "Bene Gesserit", "Ecaz"):
            a = one.handle("/api/view", {"path": path, "observer": o})
            b = two.handle("/api/view", {"path": labels, "observer": o})
            for part in ("board", "fields", "choices", "history"):
                assert text_of(a[part]) == text_of(b[part]), (path, o, part)
        d1, d2 = (x.handle("/api/view", {"path": p}) for x, p in ((one, path), (two, labels)))
        assert text_of(d1["board"]) != text_of(d2["board"])  # the designer does tell them apart
        compared += 1
    assert compared >= 10


@pytest.mark.heavy
def test_a_slot_no_rival_reads_changes_nothing_it_is_shown(model):
    """Every slot outside a rival's observation (another's Karama card, engine and history slots), set
    to each other value of its domain: that rival's board, fields and choices are unchanged; a slot it
    reads, changed, changes its fields."""
    sch = model.schema
    views = {v.key: v for v in viewpoints(model)}
    states = [s for _, s in sample(model, 5, seed=3)]
    for o in model.secrets.observers:
        vp = views[model.secrets.label(o)]
        seen = set(model.secrets.visible_slots(o))
        custody = {i for i, f in enumerate(sch.slot_fields) if f.name in {"tstatus", "tloc", "pid", "pid_shown",
                                                                           "entry_face", "pending_face", "trz"}}

        def shown(s):
            succ = successors(model, s)
            return (text_of(board_panel(model, s, vp)), text_of(fields_panel(model, s, vp)),
                    text_of(choices_html(choices(model, s, vp, succ, {}), vp)))
        for s in states:
            base = shown(s)
            for i in range(len(sch)):
                x = next(x for x in sch.slot_fields[i].domain.values if x != s[i])
                t = s[:i] + (x,) + s[i + 1:]
                if i in seen:
                    assert text_of(fields_panel(model, t, vp)) != base[1], sch.slot_names[i]
                elif i not in custody:  # faces and custody: exchanged, not changed (the test above)
                    assert shown(t) == base, (vp.key, sch.slot_names[i])


# -- saving ---------------------------------------------------------------------------------------------

def _load(path: Path) -> dict:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_saved_scenarios_replay_for_each_expectation(served, model):
    sch = model.schema
    end = Trace.from_actions(model, model.init[0], GAME_LABELS).states[-1]
    spice = sch.show(sch.slot("spice", (1,)), end[sch.slot("spice", (1,))])
    for name, expect in (("refused-game", {"reachable": True}),
                         ("refused-values", {"values": {"spice[Atreides]": int(spice), "eome_refused": "yes"}}),
                         ("refused-decline", {"blocked": "decline"})):
        status, doc, raw = served.post("/api/save", {"path": GAME_LABELS, "name": name, "expect": expect})
        assert status == 200 and doc["replay"]["ok"], raw
        f = served.out / f"{name}.scenario.yaml"
        assert doc["file"] == f.name and run("replay", f).exit_code == 0
    blocked = _load(served.out / "refused-decline.scenario.yaml")
    assert blocked["expect"]["blocked_at"] == 10 and blocked["steps"][-1]["do"] == "decline"
    assert blocked["expect"]["because"]["guard"] == "not eome_refused"
    assert "reveal is mandatory" in blocked["expect"]["because"]["says"]
    assert blocked["setup"]["proposal"]["name"] == "default" and len(blocked["steps"]) == 10
    # Saving again never overwrites: the second file gets a suffix.
    status, doc, _ = served.post("/api/save", {"path": [], "name": "refused-game", "expect": {"reachable": True}})
    assert status == 200 and doc["file"] == "refused-game-2.scenario.yaml"


@pytest.mark.parametrize("expect, message", [
    ({"violates": "token-conservation"}, "not saved: the final state does not violate token-conservation"),
    ({"violates": "nope"}, "is not a check; checks:"),
    ({"values": {"spice[Atreides]": 99}}, "cannot be 99"),
    ({"values": {"nope": 1}}, "unknown slot 'nope'"),
    ({"blocked": "nope"}, "no action 'nope'"),
    ({"blocked": "reveal_assassination(e=Atreides)"}, "is enabled here"),
    ({"reachable": False}, "expected true"),
    ({"reachable": True, "violates": "x"}, "expected an object with one of"),
    ("reachable", "expected an object with one of"),
])
def test_an_expectation_that_does_not_hold_is_not_saved(served, expect, message):
    before = sorted(p.name for p in served.out.iterdir())
    status, doc, raw = served.post("/api/save", {"path": GAME_LABELS, "name": "never", "expect": expect})
    assert 400 <= status < 500 and message in doc["error"], raw
    assert sorted(p.name for p in served.out.iterdir()) == before


@pytest.mark.parametrize("name", ["../escape", "/tmp/escape", "a/b", "..", ".", "x.yaml", "", "x" * 81, "a\\b",
                                  "\u202eevil", 5, None, ["x"]])
def test_a_save_outside_out_is_refused(served, name):
    parent = served.out.parent
    around = sorted(p.name for p in parent.iterdir())
    inside_before = sorted(p.name for p in served.out.iterdir())
    status, doc, raw = served.post("/api/save", {"path": [], "name": name, "expect": {"reachable": True}})
    assert status == 400 and "not a file name here" in doc["error"], raw
    assert sorted(p.name for p in parent.iterdir()) == around
    assert sorted(p.name for p in served.out.iterdir()) == inside_before
    assert not Path("/tmp/escape.scenario.yaml").exists()


def test_without_out_nothing_can_be_saved():
    s = Served(app(setup(), None))
    try:
        status, doc, _ = s.post("/api/save", {"path": [], "name": "x", "expect": {"reachable": True}})
        assert status == 409 and "without --out" in doc["error"]
        assert s.request("GET", "/api/meta")[1]["can_save"] is False
    finally:
        s.stop()


# -- who may ask --------------------------------------------------------------------------------------

@pytest.mark.parametrize("headers", [
    {"Host": "evil.example"}, {"Host": "evil.example:80"}, {"Host": "127.0.0.1:1"}, {"Host": None},
    {"Origin": "http://evil.example"}, {"Origin": "null"}, {"Origin": "https://127.0.0.1"},
    {"Sec-Fetch-Site": "cross-site"},
], ids=lambda h: ",".join(f"{k}={v}" for k, v in h.items()))
def test_a_request_with_a_foreign_host_or_origin_is_refused(served, headers):
    before = sorted(p.name for p in served.out.iterdir())
    for method, route, body in (("GET", "/", None), ("GET", "/api/meta", None),
                                ("POST", "/api/view", {"path": []}),
                                ("POST", "/api/save", {"path": [], "name": "foreign", "expect": {"reachable": True}})):
        status, doc, raw = served.request(method, route, body, headers=headers)
        assert status == 403 and doc["error"].startswith("refused"), (method, route, raw)
    assert sorted(p.name for p in served.out.iterdir()) == before


def test_the_server_answers_its_own_address_and_origin(served):
    port = served.port
    for host, origin in ((f"127.0.0.1:{port}", None), (f"localhost:{port}", f"http://localhost:{port}"),
                         (f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")):
        status, _, raw = served.request("GET", "/", headers={"Host": host, "Origin": origin})
        assert status == 200 and raw.startswith(b"<!DOCTYPE html>")
    status, _, _ = served.request("GET", "/app.js")
    assert status == 200
    assert served.server.server_address[0] == "127.0.0.1"


def test_the_page_loads_nothing_from_elsewhere(served):
    conn_status, _, raw = served.request("GET", "/")
    page = raw.decode()
    js = served.request("GET", "/app.js")[2].decode()
    assert not re.search(r"https?://", page + js)
    assert not re.search(r"<script(?![^>]*src=\"/app\.js\")|<link(?![^>]*href=\"(/app\.css|data:,)\")|"
                         r"\bon[a-z]+=|style=", page), page
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", served.port)
    conn.request("GET", "/", headers={"Host": f"127.0.0.1:{served.port}"})
    csp = conn.getresponse().getheader("Content-Security-Policy")
    conn.close()
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp and "unsafe" not in csp


@pytest.mark.parametrize("method, route, body, headers, status, message", [
    ("POST", "/api/view", None, {"Content-Type": "text/plain", "Content-Length": "2"}, 415, "application/json"),
    ("POST", "/api/view", b"{\"path\": [", None, 400, "not JSON"),
    ("POST", "/api/view", b"\xff\xfe", None, 400, "not JSON"),
    ("POST", "/api/view", b"[" * 50_000 + b"]" * 50_000, None, 400, "not JSON"),
    ("POST", "/api/view", b"{\"path\": NaN}", None, 400, "not JSON"),
    ("POST", "/api/view", b"x", {"Content-Length": str(10 ** 9)}, 413, "at most"),
    ("POST", "/api/view", b"", {"Content-Length": None}, 411, "Content-Length"),
    ("POST", "/api/nope", b"{}", None, 404, "no endpoint"),
    ("GET", "/../../etc/passwd", None, None, 404, "nothing at"),
    ("PUT", "/api/view", b"{}", None, 405, "not allowed"),
    ("POST", "/api/view", b"[]", None, 400, "expected a JSON object"),
    ("POST", "/api/view", b"{\"path\": \"x\"}", None, 400, "expected a list"),
    ("POST", "/api/view", b"{\"path\": [\"nope\"]}", None, 400, "step 1: no action 'nope'"),
    ("POST", "/api/view", b"{\"path\": [\"decline\"]}", None, 400, "step 1: 'decline' is refused here: stage"),
    ("POST", "/api/view", b"{\"path\": [], \"observer\": \"Harkonnen\"}", None, 400, "observers: Atreides"),
    ("POST", "/api/compare", b"{\"path\": [], \"against\": \"../x\"}", None, 400, "not a proposal to compare"),
    ("POST", "/api/resolve", b"{\"path\": [], \"observer\": \"Atreides\", \"choice\": \"x\"}", None, 400,
     "has no choice"),
])
def test_a_bad_request_gets_a_clear_4xx_never_a_traceback(served, method, route, body, headers, status, message):
    got, doc, raw = served.request(method, route, raw=body, headers=headers)
    assert got == status and message in doc["error"], raw
    assert b"Traceback" not in raw and b"File \"" not in raw


# -- compare, --from, the command line -------------------------------------------------------------------

def test_compare_marks_the_first_step_where_two_proposals_differ(served):
    # The same proposal against itself: no difference. The printed rules leave the Mentat Pause's order
    # open (A5), so the two games differ from the first state on.
    same = served.post("/api/compare", {"path": GAME_LABELS, "against": "default", "at": 3})[1]
    assert same["first"] is None and "differs" not in same["rows"] and same["lanes"].count('class="lane"') == 2
    status, c, raw = served.post("/api/compare", {"path": GAME_LABELS, "against": "printed-rules"})
    assert status == 200 and c["first"] == 0, raw  # A5 left open: the Mentat Pause starts differently
    rows = tree(c["rows"]).all(lambda n: n.tag == "li")
    assert len(rows) == 10 and rows[0].attrs["class"] == "differs first"
    assert "refused under printed-rules" in rows[1].text or "the boards differ" in rows[1].text
    assert 'class="lt">B: printed-rules' in c["lanes"] and " dif" in c["lanes"]


def test_from_a_scenario_opens_at_its_end_with_the_refused_step_tried(tmp_path):
    from checks.pipelines.common import Options
    from checks.pipelines.explorer import ServeOptions, explorer
    src = ROOT / "scenarios" / "acceptance" / "eome-refused-reveal-is-forced.scenario.yaml"
    x = explorer(Options(), ServeOptions(source=str(src), out=str(tmp_path)), None)
    meta = x.handle("/api/meta", {})
    assert len(meta["start"]) == 11 and meta["tried"] == "decline" and meta["proposal"] == "default"
    assert x.handle("/api/explain", {"path": meta["start"], "action": "decline"})["false"] == ["not eome_refused"]
    r = run("explore", "--serve", "--from", src, "--proposal", "default")
    assert r.exit_code == 2 and "drop --proposal" in r.output


def test_serve_options_need_serve():
    r = run("explore", "--port", "0")
    assert r.exit_code == 2 and "--port only go with --serve" in r.output
    r = run("explore", "--serve", "--port", "70000")
    assert r.exit_code == 2 and "--port" in r.output


@pytest.mark.heavy
def test_the_command_listens_on_loopback_until_interrupted(tmp_path):
    """`rulecheck explore --serve --port 0` in its own process: the address it prints answers, Ctrl-C
    stops it with exit 130 and nothing else is left running."""
    proc = subprocess.Popen([sys.executable, "-c", "from checks.launch import run; run()", "explore", "--serve",
                             "--port", "0", "--out", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + proc.stderr.read()
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=30)
        conn.request("GET", "/api/meta")
        assert json.loads(conn.getresponse().read())["proposal"] == "default"
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in err, err


# -- the HTML report's command line ---------------------------------------------------------------------

@pytest.mark.heavy
def test_the_report_gives_each_trace_an_explorer_command_line(tmp_path):
    """Under every trace of `check --html`, the command that opens it: with --out, from its file (which
    the explorer opens at the violation); without, after the run that saves it."""
    from checks.formats.html import explore_command
    from checks.pipelines.common import Options
    from checks.pipelines.explorer import ServeOptions, explorer
    (tmp_path / "b.yaml").write_text("name: buggy\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n")
    r = run("check", "--proposal", tmp_path / "b.yaml", "--z3-budget", "0", "--html", tmp_path / "r.html",
            "--out", tmp_path / "traces")
    assert r.exit_code == 12, r.output
    page = tree((tmp_path / "r.html").read_text(encoding="utf-8"))
    cmds = [c.text for c in page.having("copy")]
    assert len(cmds) == len(page.having("viewer")) >= 14
    assert not page.all(lambda n: n.tag == "a" and n.all(lambda k: "copy" in k.classes))  # text, not a link
    src = cmds[0].split("--from ", 1)[1]
    assert cmds[0] == f"rulecheck explore --serve --from {src}" and src.endswith("token-conservation.scenario.yaml")
    x = explorer(Options(), ServeOptions(source=src), None)
    assert "token-conservation" in x.handle("/api/view", {"path": x.start})["violated"]
    from checks.formats.proposal import load_proposal
    from model.moritani import GAME
    line = text_of(explore_command("check", load_proposal(GAME, str(tmp_path / "b.yaml")), None, "violations",
                                   "token-conservation"))
    assert ("rulecheck check --proposal b.yaml --out traces && rulecheck explore --serve --from "
            "traces/violations/token-conservation.scenario.yaml") in line


@pytest.mark.heavy
def test_the_compare_report_opens_each_distinguishing_game_in_compare_mode(tmp_path):
    small = "bounds:\n  turns: 2\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n"
    (tmp_path / "a.yaml").write_text("name: small\n" + small)
    (tmp_path / "b.yaml").write_text("name: small-extortion-first\ninterpretation:\n  A5: extortion-first\n" + small)
    r = run("compare", tmp_path / "a.yaml", tmp_path / "b.yaml", "--out", tmp_path / "t", "--html", tmp_path / "c.html")
    assert r.exit_code == 12, r.output
    cmds = [c.text for c in tree((tmp_path / "c.html").read_text(encoding="utf-8")).having("copy")]
    assert cmds and all(c.startswith("rulecheck explore --serve --from ") and " --compare " in c for c in cmds)
    src = cmds[0].split("--from ", 1)[1].split(" --compare")[0]
    assert Path(src).exists() and run("replay", src).exit_code == 0


def test_every_property_kind_the_model_declares_is_listed_without_knowing_it():
    """A kind the explorer has never heard of gets its own group: with a state predicate it must hold, and
    the next step that breaks it is marked. A permission (issue 33) is judged by the predicate the model built
    for it, and where it is violated the withdrawn choice is named (model/permissions.py `refusals`)."""
    from checks.formats.explorer_api import Explorer
    from checks.formats.explorer_requests import Setup
    from model.domains import IntRange
    from model.expr import Var
    from model.game import GameModel
    from model.properties import Property, always, permitted
    from model.rule import Rule
    from model.schema import Field, Schema
    inc = Rule("inc", (), Var("x") < 3, {("x", ()): Var("x") + 1}, ("T1",))
    props = (always("small", Var("x") <= 3, ("T1",)),
             Property("stays-low", "guarantee", predicate=Var("x") <= 1, rules=("T9",), doc="x stays low"),
             permitted("may-inc", "inc", Var("x") <= 3, rules=("T2",), doc="x may always grow"),
             Property("asks", "obligation", when=Var("x").eq(0), fires=("inc",)))
    m = GameModel("counter", Schema((Field("x", IntRange(0, 4)),)), ((1,),), (inc,), props, Var("x").eq(3))
    x = Explorer(Setup("counter", None, m))
    v = x.handle("/api/view", {"path": []})
    groups = {d.attrs["data-kind"]: d for d in tree(v["properties"]).having("kind")}
    assert list(groups) == ["invariant", "guarantee", "permission", "obligation", "deadlock"]
    new = groups["guarantee"]
    assert "guarantee properties" in new.text and "stays-low" in new.text and "T9" in new.text
    assert "1 next step(s) break it" in new.text and "breaks stays-low" in text_of(v["choices"])
    assert "its condition does not hold here" in groups["obligation"].text
    perm = groups["permission"]
    assert "permissions (choices the rules give)" in perm.text and "may-inc" in perm.text and "holds" in perm.text
    at_two = x.handle("/api/view", {"path": ["inc"]})
    assert "breaks may-inc" in text_of(at_two["choices"]) and "may-inc" not in at_two["violated"]
    at_three = x.handle("/api/view", {"path": ["inc", "inc"]})
    row = tree(at_three["properties"]).all(lambda n: n.attrs.get("data-prop") == "may-inc")[0]
    assert "may-inc" in at_three["violated"] and row.attrs["class"] == "prop bad"
    assert "violated here" in row.text and "the rules allow inc" in row.text and "no such action is enabled" in row.text


def test_a_rivals_public_choice_is_resolved_to_its_action(served):
    at = GAME_LABELS[:7]  # the Karama window on the alliance offer: Atreides holds a Karama card
    v = served.view(at, "Atreides")
    choice = [b.attrs["data-choice"] for b in tree(v["choices"]).having("act")]
    assert choice == ["karama_eome(f=Atreides)"]
    status, doc, raw = served.post("/api/resolve", {"path": at, "observer": "Atreides", "choice": choice[0]})
    assert status == 200 and doc == {"label": "karama_eome(f=Atreides)"}, raw
    status, doc, _ = served.post("/api/resolve", {"path": at, "observer": "Ecaz", "choice": choice[0]})
    assert status == 400 and "Ecaz has no choice" in doc["error"]


def test_an_out_that_cannot_be_written_is_a_usage_error_before_serving(tmp_path):
    (tmp_path / "plain").write_text("x")
    r = run("explore", "--serve", "--out", tmp_path / "plain" / "sub")
    assert r.exit_code == 2 and "Invalid value for '--out'" in r.output and "not a directory" in r.output
    r = run("explore", "--out", tmp_path / "new")  # without --serve: refused, and nothing is created
    assert r.exit_code == 2 and not (tmp_path / "new").exists()


def test_a_scenario_whose_steps_no_longer_run_opens_where_they_stop(tmp_path):
    from checks.pipelines.common import Options
    from checks.pipelines.explorer import ServeOptions, explorer
    f = tmp_path / "stale.scenario.yaml"
    f.write_text("scenario: 1\nsetup: {proposal: {name: default}}\nsteps:\n  - do: skip_placement\n  - do: decline\n"
                 "  - do: end_turn\nexpect: {reachable: true}\n")
    meta = explorer(Options(), ServeOptions(source=str(f)), None).handle("/api/meta", {})
    assert meta["start"] == ["skip_placement"] and meta["tried"] is None
    assert "step 2: 'decline' is refused here" in meta["note"] and "opened at step 1" in meta["note"]


def test_ctrl_c_while_a_request_starts_stops_the_server_instead_of_being_swallowed():
    """socketserver prints and swallows any Exception raised while it starts a request's thread; Ctrl-C's
    Interrupted arriving there left `explore --serve` running past Ctrl-C (the loopback test above timed out
    under load). The server re-raises it; any other request error is still printed and served past."""
    import socket as sk
    from checks.formats.explorer_http import ExplorerServer
    from checks.interrupt import Interrupted
    server = ExplorerServer(None, {}, 0)
    a, b = sk.socketpair()
    try:
        try:
            raise Interrupted(signal.SIGINT)
        except Interrupted:
            with pytest.raises(Interrupted):
                server.handle_error(a, ("127.0.0.1", 1))
        try:
            raise RuntimeError("a request's own failure")
        except RuntimeError:
            server.handle_error(b, ("127.0.0.1", 2))  # printed, not raised
    finally:
        a.close()
        b.close()
        server.server_close()
