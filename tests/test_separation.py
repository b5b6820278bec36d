"""Ally separation (R26, R27, A20, H22; model/moritani/separation.py) and the three-turns profile."""
from __future__ import annotations

import dataclasses

import pytest

from checks.analyses.verdicts import explicit_results
from model.moritani import GAME
from model.moritani.config import ALLY_SEPARATION
from model.moritani.defects import DEFECT_BY_ID
from tests.conftest import explore
from tests.pins import PROFILE_STATES


def _results(proposal):
    model = GAME.build(proposal)
    ex = explore(model)
    return model, ex, {r.id: r for r in explicit_results(model, ex)}


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_three_turns_profile_separates_new_allies_in_the_third_phase():
    model, ex, res = _results(GAME.profiles["three-turns"])
    assert ex.complete and len(ex.states) == PROFILE_STATES["three-turns", ""]
    bad = {k: r.verdict for k, r in res.items() if r.verdict != "holds"}
    assert bad == {}
    w = res["witness-ally-separation"]
    assert w.depth == 42 and not w.trace.replay(model)
    # Basic: the later mover of the pair loses its forces on the turn after the alliance, never on it.
    sch = model.schema
    last = w.trace.steps[-1]
    pre = w.trace.steps[-2].state
    assert last.action.startswith("separate_allies(")
    assert pre[sch.slot("turn")] > 3  # formed in turn 3 at the earliest (the Sneak Attack came first)


@pytest.mark.heavy
def test_advanced_separates_on_the_formation_turn_and_basic_does_not():
    default = GAME.profiles["default"]
    advanced = dataclasses.replace(default, interpretation=GAME.interpretation.of(ALLY_SEPARATION.ADVANCED))
    _, ex_b, res_b = _results(default)
    _, ex_a, res_a = _results(advanced)
    assert "separate_allies" not in ex_b.fired and res_b["witness-separation-grace"].verdict == "holds"
    assert "separate_allies" in ex_a.fired and res_a["witness-ally-separation"].depth == 33
    assert res_a["allies-separate"].verdict == res_b["allies-separate"].verdict == "holds"


@pytest.mark.heavy
def test_a_defect_carries_its_own_interpretation():
    d = DEFECT_BY_ID["advanced-keeps-basic-grace"]
    p = GAME.with_defect(d, GAME.profiles["default"])
    assert p.interpretation.chose(ALLY_SEPARATION.ADVANCED) and p.defects == (d.id,)
    # Without its interpretation the defect is the correct Basic model: nothing to catch.
    plain = dataclasses.replace(GAME.profiles["default"], defects=(d.id,))
    _, ex, res = _results(plain)
    assert res["allies-separate"].verdict == "holds"


@pytest.mark.heavy
def test_offering_an_alliance_whose_refusal_cannot_be_resolved_deadlocks():
    """A21: with an empty Assassination pool under A11 gated, an offer made anyway leaves a refusal that forces
    a reveal nobody may make: the game is stuck (why Quintine/Dune gates the offer). With A11 fizzles
    (treachery.online) the reveal is always possible and the two choices agree."""
    base = GAME.profiles["default"]
    bounds = dataclasses.replace(base.bounds, leaderless=("Atreides",))
    for a11, verdicts in (("gated", {"block-offer": None, "offer-anyway": 9}), ("fizzles", {"block-offer": None,
                                                                                          "offer-anyway": None})):
        for a21, depth in verdicts.items():
            interp = GAME.interpretation.of(assassination_without_leader=a11, eome_when_reveal_blocked=a21)
            _, ex, res = _results(dataclasses.replace(base, interpretation=interp, bounds=bounds))
            deadlock = res["no-deadlock"]
            assert (deadlock.verdict, deadlock.depth) == (("holds", deadlock.depth) if depth is None
                                                           else ("violated", depth)), (a11, a21)


def test_a_flip_that_flips_nothing_is_caught():
    """BG Intrusion (coexist): generated mutants of `intrusion_flip` that leave BG's fighters as they are, or
    count the wrong number of advisors, are killed by `intrusion-flips-only-when-owed` (they survived the
    first version of the property, which only said when a flip may happen)."""
    from checks.analyses.mutants import edit_rules, generate
    p = GAME.profiles["treachery-online"]
    model = GAME.build(p)
    # The two that survived `rulecheck mutate --proposal treachery-online` (seed 0). Others, such as
    # `advisors := 1`, are equivalent on these bounds (BG has one force).
    survivors = {"drop-effect@intrusion_flip.advisors[$l]", "replace-value@intrusion_flip.advisors[$l]=pend_advisor"}
    flips = [m for m in generate(model, ("drop-effect", "replace-value")) if m.id in survivors]
    assert len(flips) == 2
    for m in flips:
        mm = GAME.build(p, edit_rules=edit_rules(m))
        ex = explore(mm, stop_when=lambda ex: bool(ex.violations))
        assert "intrusion-flips-only-when-owed" in ex.violations, m.id
