"""The optional Advanced Assassinate Leaders module (model/moritani/assassinate.py; R42, R43, A6, A28)."""
from __future__ import annotations

import dataclasses

import pytest

from checks.analyses.ambiguity import analyse
from checks.config import CheckConfig
from checks.analyses.verdicts import explicit_results
from model.moritani import GAME
from model.moritani.build import build_model
from model.moritani.config import Interpretation
from model.moritani.profiles import PROFILES
from tests.conftest import explore
from tests.pins import PROFILE_STATES

MODULE_CHECKS = {"traitor-custody", "assassinate-once-per-faction", "assassinate-forfeit",
                 "witness-assassinate-leaders-live", "witness-assassinate-leaders-dead"}


@pytest.fixture(scope="module")
def profile_run():
    p = PROFILES["assassinate-leaders"]
    model = build_model(p.bounds, p.interpretation)
    ex = explore(model)
    return model, ex, {r.id: r for r in explicit_results(model, ex)}


@pytest.mark.heavy
def test_profile_state_count_and_every_check_holds(profile_run):
    model, ex, results = profile_run
    assert ex.complete and len(ex.states) == PROFILE_STATES["assassinate-leaders", ""]
    assert ex.violations == {} and ex.deadlocks == []
    assert {i: r.verdict for i, r in results.items() if r.verdict != "holds"} == {}
    assert MODULE_CHECKS <= set(results)


def test_witnesses_reach_a_living_and_a_dead_target(profile_run):
    model, _, results = profile_run
    live, dead = results["witness-assassinate-leaders-live"], results["witness-assassinate-leaders-dead"]
    assert (live.depth, dead.depth) == (11, 17)
    assert live.trace.replay(model) == [] and dead.trace.replay(model) == []
    # The dead-target game: the Terror Assassination token (R35, a different ability, R42) killed the
    # leader the Traitor card names, so the reveal is legal and pays nothing.
    assert "reveal_assassination" in " ".join(dead.trace.labels)
    assert dead.trace.labels[-1].startswith("assassinate_leader")


def test_module_is_off_by_default():
    model = build_model()
    names = {p.name for p in model.properties}
    assert not names & MODULE_CHECKS
    assert "trz" not in {f.name for f in model.schema.fields}
    assert not {r.name for r in model.rules} & {"lose_battle", "assassinate_leader", "draw_replacement"}


@pytest.mark.heavy
def test_mentat_pairs_are_classified_and_settled_by_a6():
    p = PROFILES["assassinate-leaders"]
    unordered = dataclasses.replace(p, interpretation=Interpretation.of(assassinate_mentat_order="unordered"))
    for proposal, settled in ((p, "draw-first"), (unordered, None)):
        res = {r.id: r for r in analyse(GAME.open_orders(proposal), proposal.interpretation, prove=False)}
        for pair in ("mentat-placement~traitor-replacement", "extortion-collection~traitor-replacement"):
            r = res[pair]
            # The replacement draw touches only Traitor custody: it commutes with both Mentat events.
            assert r.extra["class"] == "commutes" and r.extra["switch"] == "assassinate-mentat-order"
            assert r.extra["settled_by"] == settled and r.verdict == "holds"
        assert res["mentat-placement~extortion-collection"].extra["class"] == "diverges"


@pytest.mark.heavy
def test_leak_check_covers_the_decision_channel():
    from checks.analyses.leaks import check_leaks
    from model.moritani.defects import DEFECT_BY_ID
    p = PROFILES["assassinate-leaders"]
    one_battle = dataclasses.replace(p, bounds=dataclasses.replace(p.bounds, turns=1))
    results, stats = check_leaks(GAME.build(one_battle), CheckConfig())
    assert {r.verdict for r in results} == {"holds"} and "Traitor card" in results[0].detail
    leaky = dataclasses.replace(one_battle, defects=("assassinate-offer-needs-card",))
    assert DEFECT_BY_ID["assassinate-offer-needs-card"].target == "hidden-identity"
    results, _ = check_leaks(GAME.build(leaky), CheckConfig())
    r = min(results, key=lambda r: r.depth or 99)
    assert r.verdict == "violated" and r.depth == 10 and "public board" in r.detail
    leak = r.extra["leak"]
    # Game A holds a card naming the opposed leader (no usable card: no decision), game B a usable one.
    assert leak.game_a.labels[-1] == leak.game_b.labels[-1] and leak.game_a.labels[-1].startswith("lose_battle")
    assert leak.game_a.replay(leak.model_b) == [] and leak.game_b.replay(leak.model_b) == []


def test_z3_encoding_agrees_on_the_module_rules(profile_run):
    # The Z3 encoder reads the same rule data: equal successor sets on sampled states at the module's stages.
    from checks.engines.agreement import successor_agreement
    model, ex, _ = profile_run
    c, stage = model.vocabulary, model.schema.slot("stage")
    module = {c.st(n) for n in ("traitor_deal", "battle", "assassinate_offer", "traitor_draw")}
    sample = [s for s in ex.states if s[stage] in module][::97][:40]
    assert len(sample) == 40 and successor_agreement(model, sample) == []
