"""`rulecheck compare`: verdicts side by side and the shortest game on which two proposals disagree."""
from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from checks.cli import main
from checks.analyses.compare import compare_proposals
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.engines.lockstep import lockstep
from checks.formats.compare_report import save, switch_text, to_text, why_same
from checks.formats.scenario import replay_file
from model.errors import InputError
from model.evaluate import enabled
from model.moritani import GAME
from model.moritani.config import Bounds, Interpretation
from model.moritani.profiles import Proposal
from tests.pins import SMALL_STATES

SMALL = Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=2, faces=("Extortion", "Robbery"))


def prop(name, bounds=SMALL, defects=(), **choices):
    return Proposal(name, interpretation=Interpretation.of(**choices), bounds=bounds, defects=defects)


def test_a5_extortion_first_lets_a_recovered_token_be_placed_again_at_once(tmp_path):
    c = compare_proposals(prop("engine"), prop("extortion-first", extortion_mentat_order="extortion-first"), GAME.build)
    assert c.verdict == "differ" and c.complete
    assert (len(c.a.exploration.states), len(c.b.exploration.states)) == (10691, 11311)
    (d,) = c.differences
    assert (d.kind, d.direction, d.depth) == ("outcome", "only-b", 23)
    labels = [s.action for s in d.trace.steps]
    # A5: Extortion recovered, then placed again in the same Mentat Pause: impossible placement-first.
    assert labels[-3:] == ["recover_extortion", "place_token(k=Extortion, to=Arrakeen)",
                           "commit_placement(k=Extortion)"]
    assert not d.trace.replay(c.b.model)
    paths = save(c, tmp_path)
    (path,) = paths.values()
    assert replay_file(GAME, path).ok


@pytest.fixture(scope="module")
def a4():
    """A4 before-reply (the engine) against after-reply on the small bounds: one comparison, shared."""
    return compare_proposals(prop("engine"), prop("after-reply", karama_eome_timing="after-reply"), GAME.build)


def test_a4_equal_counts_and_outcomes_are_not_equal_behaviour(a4):
    # Both choices reach the same number of states by the same number of transitions, and the same end-of-turn
    # outcomes: the counts the old report read as "never behave differently". Run in lockstep, they part at the
    # offer: before-reply opens a Karama window, after-reply asks the entrant first (R30, A4).
    c = a4
    assert (len(c.a.exploration.states), c.a.exploration.transitions) == (10691, 16572)
    assert (len(c.b.exploration.states), c.b.exploration.transitions) == (10691, 16572)
    assert set(c.a.outcomes) == set(c.b.outcomes) and len(c.a.outcomes) == 765
    assert c.verdict == "differ" and c.backing is None
    (d,) = c.differences
    assert (d.kind, d.direction, d.depth, d.refused_at) == ("steps", "only-a", 10, 10)
    assert d.trace.labels[-2:] == ["offer_alliance_0(e=Atreides)", "karama_eome(f=Atreides)"]
    assert d.offers == ("accept_alliance(e=Atreides, k=Extortion)", "refuse_alliance")
    # Replayed through both models' reference semantics: the game runs under A; under B the same nine steps
    # run and the tenth is refused, while B offers the reply instead.
    assert not d.trace.replay(c.a.model) and not d.other.replay(c.b.model)
    assert d.other.labels == d.trace.labels[:9]
    b_state = d.other.states[-1]
    assert not enabled(c.b.model.action(d.trace.labels[-1]), b_state, c.b.model.schema)
    assert all(enabled(c.b.model.action(x), b_state, c.b.model.schema) for x in d.offers)


def test_per_switch_shows_the_a4_game_instead_of_the_counts(a4, tmp_path):
    text = switch_text(GAME.switch("A4"), a4)
    assert "never behave differently" not in text and "no game within the bounds" not in text
    assert "switch karama-eome-timing (A4): A=before-reply B=after-reply" in text
    assert "under B the same 9 steps run; instead of step 10 the rules offer:" in text
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    bounds = "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  faces: [Extortion, Robbery]\n"
    a.write_text("name: a\n" + bounds)
    b.write_text("name: b\ninterpretation:\n  A4: after-reply\n" + bounds)
    r = CliRunner().invoke(main, ["compare", str(a), str(b), "--per-switch", "--format", "json", "--out",
                                  str(tmp_path / "o")])
    assert r.exit_code == 12, r.output
    doc = json.loads(r.output)
    (sw,) = doc["per_switch"]
    assert (sw["verdict"], sw["backing"], sw["why_same"]) == ("differ", None, None)
    assert (sw["game"]["kind"], sw["game"]["depth"], sw["game"]["refused_at"]) == ("steps", 10, 10)
    # Both games are written and replay: reachable under A, step 10 refused under B.
    (d,) = doc["differences"]
    assert replay_file(GAME, d["trace"]).ok and replay_file(GAME, d["other_trace"]).ok
    assert d["other_trace"].endswith("b-refuses-a-steps.scenario.yaml")


def test_no_game_tells_them_apart_only_when_a_check_backs_it():
    # A2: without a storm Ecaz already precedes Moritani, so ambassador-first changes rules (other models) but on
    # these bounds not one labelled transition: the lockstep search finds the same states and labelled
    # transitions under both, which the report says and counts.
    c = compare_proposals(prop("engine"), prop("ambassador-first", ambassador_vs_terror="ambassador-first"),
                          GAME.build)
    assert (c.verdict, c.backing, c.lockstep.same_model) == ("same", "identical", False)
    assert (c.lockstep.pairs, c.lockstep.transitions) == (10691, 16572)
    assert why_same(c).startswith("no game within the bounds tells them apart: identical labelled transition "
                                  "systems (the same 10,691 states and 16,572 labelled transitions under both)")
    # stack-reveal matters only with the Nexus card module: here the two models are one (equal digests).
    one = compare_proposals(prop("engine"), prop("all-in-turn", stack_reveal="all-in-turn"), GAME.build)
    assert (one.verdict, one.backing, one.lockstep.same_model) == ("same", "identical", True)
    assert "identical labelled transition systems: the same model (equal digests" in why_same(one)
    # A20 on one turn: the separation modes keep other engine state, but offer the same steps and end the turn
    # alike after every game: bisimilar, not identical.
    turn = Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=1)
    sep = compare_proposals(prop("engine", bounds=turn), prop("advanced", bounds=turn, ally_separation="advanced"),
                            GAME.build)
    assert (sep.verdict, sep.backing, sep.lockstep.pairs) == ("same", "bisimilar", SMALL_STATES)
    assert "bisimilar (run in lockstep over 3,550 pairs of states" in why_same(sep)
    # A lockstep search cut by its budget backs nothing: inconclusive, never "no game tells them apart".
    cut = dataclasses.replace(c, lockstep=lockstep(c.a.model, c.b.model, c.a.view, c.b.view,
                                                   CheckConfig(max_states=100)))
    assert (cut.verdict, cut.backing) == ("inconclusive", None)
    assert why_same(cut).startswith("unknown: the lockstep search stopped: state budget 100 exhausted")
    assert "inconclusive: the lockstep search stopped" in to_text(cut, 0)


def test_a_verdict_that_differs_is_a_distinguishing_game():
    c = compare_proposals(prop("engine"), prop("minted", defects=("extortion-payment-minted",)), GAME.build)
    kinds = {(d.kind, d.direction, d.what) for d in c.differences}
    assert ("verdict", "only-b", "conservation violated") in kinds
    row = dict((i, (va, vb)) for i, va, vb in c.table())
    assert row["conservation"] == ("holds", "violated")


def test_compare_needs_equal_bounds():
    with pytest.raises(InputError, match="same bounds; they differ in turns. To compare the two interpretations on "
                                         "one set of bounds, add --bounds-of A"):
        compare_proposals(prop("a"), prop("b", bounds=Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen",
                                                                  turns=1, faces=SMALL.faces)), GAME.build)


def test_cli_exit_codes_and_json(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    bounds = "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  faces: [Extortion, Robbery]\n"
    a.write_text("name: a\n" + bounds)
    b.write_text("name: b\ninterpretation:\n  A5: extortion-first\n" + bounds)
    r = CliRunner().invoke(main, ["compare", str(a), str(b), "--format", "json", "--out", str(tmp_path / "o")])
    assert r.exit_code == 12, r.output
    rep = json.loads(r.output)
    assert rep["summary"]["verdict"] == "differ" and rep["differences"][0]["depth"] == 23
    assert rep["differences"][0]["trace"].endswith("b-not-a-outcome.scenario.yaml")
    r = CliRunner().invoke(main, ["compare", str(a), str(a)])
    assert r.exit_code == 0 and "no game within the bounds tells A and B apart" in r.output


def test_bounds_of_compares_a_proposal_extending_treachery_online_against_it(tmp_path):
    """One command: a proposal that starts from treachery-online (extends), on its own small bounds, with one
    switch set back to the engine's choice, against the profile itself (on the default bounds)."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\nextends: treachery-online\ninterpretation:\n  A5: placement-first\n"
                    "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  turns: 1\n"
                    "  faces: [Extortion, Robbery]\n")
    r = CliRunner().invoke(main, ["compare", str(mine), "treachery-online"])
    assert r.exit_code == 3 and "add --bounds-of A (or --bounds-of B)" in r.output, r.output
    r = CliRunner().invoke(main, ["compare", str(mine), "treachery-online", "--bounds-of", "A", "--format", "json",
                                  "--per-switch"])
    assert r.exit_code == 12, r.output
    doc = json.loads(r.output)
    a, b = doc["proposals"]["a"], doc["proposals"]["b"]
    assert a["extends"] == "treachery-online" and a["bounds"] == b["bounds"] and a["bounds"]["turns"] == 1
    assert b["name"] == "treachery-online on mine's bounds"
    # Only A5 differs (every other switch inherited): extortion-first returns the token within the Mentat Pause.
    assert [s["switch"] for s in doc["per_switch"]] == ["extortion-mentat-order"]
    # Placement first lets Moritani place a token as the game's first step; extortion-first collects first.
    (d,) = doc["differences"]
    assert (d["kind"], d["direction"], d["actions"], d["refused_at"]) == (
        "steps", "only-a", ["place_token(k=Extortion, to=Arrakeen)"], 1)
    assert doc["bounds_of"] == "A" and doc["summary"]["outcomes"] == {"a": 104, "b": 104}


def test_a_side_whose_search_fails_is_an_error_beside_the_other_sides_verdicts(monkeypatch):
    """Issue 37: one side failing inside the tool no longer ends the command; its checks are `error`, the other
    side's verdicts stand, nothing is claimed (exit 1), and the report says which side failed and why. A failure
    of the lockstep search alone is an `error` too, never `inconclusive` or `same`."""
    import checks.analyses.compare as cmp
    from checks.results import exit_code
    built: list = []

    def build(p):
        built.append(GAME.build(p))
        return built[-1]

    class Failing(cmp.Explorer):
        def run(self):
            if self.model is built[1]:
                raise RuntimeError("boom")
            return super().run()
    monkeypatch.setattr(cmp, "Explorer", Failing)
    tiny = Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=1)
    c = compare_proposals(prop("engine", bounds=tiny), prop("b", bounds=tiny, karama_eome_timing="after-reply"), build)
    assert (c.verdict, c.b.error, c.a.error) == ("error", "RuntimeError: boom", None)
    assert exit_code(c.verdicts) == 1
    table = c.table()
    assert {va for _, va, _ in table} <= {"holds", "violated", "unknown"} and {vb for _, _, vb in table} == {"error"}
    assert len(c.a.exploration.states) == SMALL_STATES and c.differences == []
    text = to_text(c, 0)
    assert "error: B could not be searched: RuntimeError: boom" in text and "Traceback" not in text
    assert c.reason == "B could not be searched (RuntimeError: boom)"

    def broken_lockstep(*args):
        raise ValueError("lockstep bug")
    monkeypatch.setattr(cmp, "Explorer", Explorer)
    monkeypatch.setattr(cmp, "lockstep", broken_lockstep)
    lock = compare_proposals(prop("engine", bounds=tiny), prop("b", bounds=tiny, ambassador_vs_terror="ambassador-first"),
                             GAME.build)
    assert (lock.verdict, lock.lockstep.verdict) == ("error", "error") and exit_code(lock.verdicts) == 1
    assert "the lockstep search failed inside the tool (ValueError: lockstep bug)" in lock.reason
