"""Why an action is refused (model/guards.py) and the `because` of a blocked_at scenario.

A guard's top-level conjuncts are evaluated one by one by the reference interpreter; the false one
is the reason. A `blocked_at` scenario may record it (`expect.because.guard`), and replay then fails
when the step is refused for another reason (issue 38: a refusal for an unrelated reason was
accepted as the expected one).
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from checks.cli import main
from model.evaluate import eval_expr, successors
from model.expr import all_of
from model.guards import conjuncts, explain, refusal
from model.trace import Trace

ROOT = Path(__file__).resolve().parent.parent
FORCED = ROOT / "scenarios" / "acceptance" / "eome-refused-reveal-is-forced.scenario.yaml"
REFUSED = ["place_token(k=Sabotage, to=Arrakeen)", "commit_placement(k=Sabotage)", "no_extortion", "end_turn",
           "ship(f=Atreides, to=Arrakeen)", "resolve_advisor", "decline_advisor", "open_terror(k=Sabotage)",
           "offer_alliance_4(e=Atreides)", "no_karama_eome", "refuse_alliance"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def walk_states(model, n: int, seed: int = 0) -> list:
    """`n` states of seeded random games (restarted at the end of a game): a spread of stages."""
    rng = random.Random(seed)
    out, s = [], model.init[0]
    while len(out) < n:
        nxt = successors(model, s)
        s = rng.choice(nxt)[1] if nxt else model.init[0]
        out.append(s)
    return out


def test_the_conjuncts_make_up_the_guard_on_every_action_and_a_sample_of_states(default_model):
    """Splitting loses nothing: the conjunction of the parts is the guard, state by state, and an action
    is refused exactly when some conjunct is false."""
    m = default_model
    states = walk_states(m, 200)
    assert len({m.get(s, "stage") for s in states}) >= 10
    for a in m.actions:
        whole = all_of(conjuncts(a.guard))
        for s in states:
            assert bool(eval_expr(whole, s, m.schema)) == bool(eval_expr(a.guard, s, m.schema)), a.label
        for s in states[::10]:
            assert (not refusal(m, a, s)) == bool(eval_expr(a.guard, s, m.schema)), a.label


def test_declining_after_a_refusal_is_refused_because_of_the_refusal(default_model):
    m = default_model
    t = Trace.from_actions(m, m.init[0], REFUSED)
    why = refusal(m, m.action("decline"), t.states[-1])
    assert [c.text for c in why] == ["not eome_refused"]
    assert why[0].reads == (("eome_refused", "yes"),)
    assert "reveal is mandatory (R21)" in why[0].words  # the field's doc: what the flag means in the game
    at_start = refusal(m, m.action("decline"), m.init[0])  # at the start: the wrong stage, nothing else
    assert [c.text for c in at_start] == ["stage = terror"]
    assert "Mentat Pause: Moritani may place or move a token" in at_start[0].words  # the board's stage words
    texts = [c.text for c in explain(m, m.action("offer_alliance_4(e=Atreides)"), t.states[-1])]
    assert "entrant = Atreides" in texts and "not eome_refused" in texts  # labels, not numbers


def _edit(tmp_path: Path, change) -> Path:
    y = YAML()
    doc = y.load(FORCED.read_text(encoding="utf-8"))
    change(doc)
    out = tmp_path / "s.scenario.yaml"
    with out.open("w", encoding="utf-8") as fh:
        y.dump(doc, fh)
    return out


def test_the_shipped_blocked_scenario_names_its_reason_and_replays():
    r = run("replay", FORCED)
    assert r.exit_code == 0, r.output
    assert "blocked, as expected: not eome_refused is false" in r.output


def test_a_refusal_for_another_reason_fails_the_replay(tmp_path):
    # The same game without the refusal: declining is still refused at step 11, now because the
    # alliance offer is pending (the stage), not because of a refusal.
    def other(doc):
        del doc["steps"][10]
        doc["expect"]["blocked_at"] = 11
    r = run("replay", _edit(tmp_path, other))
    assert r.exit_code == 12, r.output
    assert "'decline' is refused, but not because 'not eome_refused'" in r.output
    assert "stage = terror does not hold" in r.output
    # Without the recorded reason the same file passes: the check that `because` adds.
    def unexplained(doc):
        other(doc)
        del doc["expect"]["because"]
    assert run("replay", _edit(tmp_path, unexplained)).exit_code == 0


def test_a_reason_the_guard_does_not_have_fails_the_replay(tmp_path):
    def wrong(doc):
        doc["expect"]["because"]["guard"] = "not eome_blocked"
    r = run("replay", _edit(tmp_path, wrong))
    assert r.exit_code == 12 and "its guard has no conjunct 'not eome_blocked'" in r.output, r.output


@pytest.mark.parametrize("expect, message", [
    ({"reachable": True, "because": {"guard": "x"}}, "'because' needs 'blocked_at'"),
    ({"blocked_at": 12, "because": {"says": "x"}}, "missing 'guard'"),
    ({"blocked_at": 12, "because": {"guard": 3}}, "expect.because.guard: expected text"),
    ({"blocked_at": 12, "because": "not eome_refused"}, "expected a mapping of because key"),
])
def test_a_malformed_because_is_a_located_input_error(tmp_path, expect, message):
    def put(doc):
        doc["expect"] = expect
    r = run("replay", _edit(tmp_path, put))
    assert r.exit_code == 3 and message in r.output, r.output
    assert re.search(r"\.yaml:\d+:\d+: ", r.output), r.output


def test_the_json_schema_says_because_needs_blocked_at():
    import json
    r = run("interpretations", "--schema", "scenario")
    expect = json.loads(r.output)["properties"]["expect"]
    assert expect["properties"]["because"]["required"] == ["guard"]
    assert {"if": {"required": ["because"]}, "then": {"required": ["blocked_at"]}} in expect["allOf"]
