"""Permissions (issue 33): what the rules allow, checked as `condition => some chosen action enabled`.

The kernel on a toy model (semantics, every engine, the guard-reuse refusal), one Moritani violation
replayed and saved as a scenario, every permission holding on the default profile, and each seeded
over-restriction caught by its permission at a pinned depth (NOTE(permissions) in model/permissions.py).
"""
from __future__ import annotations

import pytest

from checks.analyses.selftest import run_defect
from checks.analyses.verdicts import run_explicit
from checks.config import CheckConfig
from model.domains import IntRange
from model.errors import ModelError
from model.expr import Param, Var
from model.game import GameModel
from model.moritani import GAME
from model.moritani.defects import DEFECT_BY_ID, DEFECTS
from model.moritani.profiles import PROFILES
from model.permissions import refusals
from model.properties import choose, permitted
from model.rule import P, Rule
from model.schema import Field, Schema
from tests.pins import DEFAULT_STATES

# Each over-restriction defect's shortest catching game (steps) on the default profile plus its own bounds is
# pinned on the Defect itself (`depth`, model/moritani/defects.py).
# The permissions that failed on the model before issue 33's fixes (the bug each showed, and the profile): each is
# now part of its profile's model and holds there (test_the_issue_33_bugs_are_fixed). They were violated on the
# old model: may-ship after 5-8 steps on 15 of 19 profiles, may-cross-ship after 4 on cross-ship, may-relocate after
# 5 on ambassador-relocation (measured on 0435662 with the permissions added).
KNOWN_BUGS = {"may-ship": "default", "may-cross-ship": "cross-ship", "may-relocate": "ambassador-relocation"}
# Every seeded over-restriction: a defect whose target is a permission.
OVER_RESTRICTIONS = [d for d in DEFECTS if d.target.startswith("may-")]


def toy(grow_guard=None, when=None, rules=None):
    """x grows by n in 1..2 up to 3; the permission: with x + m <= 3, growing by m is allowed."""
    x, n = Var("x"), Param("n")
    guard = grow_guard if grow_guard is not None else x + n <= 3
    grow = Rule("grow", (P("n", IntRange(1, 2)),), guard, {("x", ()): x + n})
    perm = permitted("may-grow", choose("grow", n="m"), when if when is not None else Var("x") + Param("m") <= 3,
                     params=(P("m", IntRange(1, 2)),), rules=("R0",), doc="growing within 3 is allowed")
    return GameModel("toy", Schema((Field("x", IntRange(0, 3)),)), ((0,),), tuple(rules or (grow,)), (perm,),
                     Var("x").eq(3))


def test_permission_is_checked_as_a_state_predicate_and_keeps_its_kind():
    m = toy()
    (p,) = m.permissions
    assert p.kind == "permission" and m.invariants == (p,)
    results, ex = run_explicit(m, CheckConfig())
    r = next(r for r in results if r.id == "may-grow")
    assert (r.kind, r.verdict, r.rules) == ("permission", "holds", ("R0",))
    assert len(ex.states) == 4


def test_a_withdrawn_choice_is_a_violation_with_the_refused_values():
    # The guard forbids growing by 2 from 0 (1 is still allowed): a legal choice withdrawn.
    m = toy(grow_guard=(Var("x") + Param("n") <= 3) & ~(Var("x").eq(0) & Param("n").eq(2)))
    results, _ = run_explicit(m, CheckConfig())
    r = next(r for r in results if r.id == "may-grow")
    assert r.verdict == "violated" and r.kind == "permission" and r.depth == 0
    assert r.extra["params"] == {"m": "2"} and r.extra["choice"].startswith("grow(n=2)")
    assert refusals(m, m.permissions[0], m.init[0]) == [{"m": 2}]


def test_every_engine_sees_the_permission_vector_and_z3():
    from checks.engines.bmc import get_bmc
    from checks.engines.induction import spacer
    bad = toy(grow_guard=(Var("x") + Param("n") <= 3) & Var("x").ne(1))
    results, _ = run_explicit(bad, CheckConfig(engine="vector"))
    assert next(r for r in results if r.id == "may-grow").verdict == "violated"
    out = get_bmc(bad, ["may-grow"], depth=3)
    assert out["may-grow"].verdict == "violated" and out["may-grow"].depth == 1
    assert refusals(bad, bad.permissions[0], out["may-grow"].trace.states[-1]) == [{"m": 1}, {"m": 2}]
    assert spacer(toy(), "may-grow").verdict == "proved"


def test_a_condition_built_from_a_guard_is_refused():
    x, n = Var("x"), Param("n")
    guard = x + n <= 3
    grow = Rule("grow", (P("n", IntRange(1, 2)),), guard, {("x", ()): x + n})
    with pytest.raises(ModelError, match="from the guard of rule 'grow'"):
        toy(rules=(grow,), when=guard)
    inner = x < 3
    rule = Rule("grow", (P("n", IntRange(1, 2)),), inner & (x + n <= 3), {("x", ()): x + n})
    with pytest.raises(ModelError, match="independently of the guard"):
        toy(rules=(rule,), when=inner & (x + Param("m") <= 3))
    toy(rules=(rule,), when=(Var("x") < 3) & (x + Param("m") <= 3))  # the same text, written anew: accepted


def test_a_choice_naming_an_unknown_rule_or_parameter_is_refused():
    grow = Rule("grow", (P("n", IntRange(1, 2)),), Var("x") < 3, {("x", ()): Var("x") + Param("n")})
    m0 = toy()
    for choice, msg in (("shrink", "unknown rule 'shrink'"), (choose("grow", k="m"), "binds 'k'"),
                        (choose("grow", n="q"), "unknown parameter 'q'")):
        perm = permitted("p", choice, Var("x") < 3, params=(P("m", IntRange(1, 2)),))
        with pytest.raises(ModelError, match=msg):
            GameModel("toy", m0.schema, m0.init, (grow,), (perm,), Var("x").eq(3))


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_a_violation_is_replayed_shown_in_game_words_and_saved_as_a_scenario(tmp_path):
    from checks.formats.report import save_traces
    from checks.formats.scenario import replay_file
    d = DEFECT_BY_ID["decline-only-after-shipment"]
    proposal = GAME.with_defect(d, PROFILES["default"])
    model = GAME.build(proposal)
    results, _ = run_explicit(model, CheckConfig())
    r = next(r for r in results if r.id == "may-decline")
    assert r.verdict == "violated" and r.kind == "permission" and r.rules == ("R11", "R13", "R21")
    assert r.depth == d.depth
    assert "decline" in r.extra["choice"] and "no such action is enabled" in r.detail
    last = r.trace.states[-1]
    assert refusals(model, next(p for p in model.permissions if p.name == "may-decline"), last) == [{}]
    save_traces([r], model, proposal, tmp_path)
    res = replay_file(GAME, r.trace_path)
    assert res.ok, res.problem
    assert "violates: may-decline" in open(r.trace_path, encoding="utf-8").read()


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_every_permission_holds_on_the_default_profile():
    model = GAME.build(PROFILES["default"])
    results, ex = run_explicit(model, CheckConfig())
    assert ex.complete and len(ex.states) == DEFAULT_STATES
    verdicts = {r.id: r.verdict for r in results if r.kind == "permission"}
    assert set(verdicts) == {p.name for p in model.permissions} and len(verdicts) == 22
    assert {k: v for k, v in verdicts.items() if v != "holds"} == {}


def test_no_permission_is_left_out_of_the_models():
    from model.moritani.permissions import PENDING_FIX
    assert PENDING_FIX == {}
    assert set(KNOWN_BUGS) <= {p.name for name in set(KNOWN_BUGS.values())
                               for p in GAME.build(PROFILES[name]).permissions}


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
@pytest.mark.parametrize("name", sorted(KNOWN_BUGS))
def test_the_issue_33_bugs_are_fixed(name):
    """Issue 33: the permission that showed each bug holds on the profile that showed it."""
    model = GAME.build(PROFILES[KNOWN_BUGS[name]])
    results, ex = run_explicit(model, CheckConfig())
    assert ex.complete and next(r for r in results if r.id == name).verdict == "holds"


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_shipping_is_refused_only_into_an_ally_s_stronghold():
    """The one refusal `may-ship` finds is R25's printed ban the model keeps: with that ban it holds."""
    from model.moritani.permissions import ship_condition, turn_of
    model = GAME.build(PROFILES["default"])
    c, p = model.vocabulary, Param("p")
    printed = permitted("may-ship-printed", choose("ship", f="p", to="t"),
                        ship_condition(c, p, turn_of(c, p) & p.ne(c.M), into_ally=False),
                        params=(P("p", c.F), P("t", c.L)), rules=("R25",))
    model = model.with_changes(properties=tuple(q for q in model.properties if q.kind != "permission") + (printed,))
    results, _ = run_explicit(model, CheckConfig())
    assert next(r for r in results if r.id == "may-ship-printed").verdict == "holds"


def test_every_permission_has_an_over_restriction_defect():
    targets = {d.target for d in DEFECTS}
    for name in PROFILES:
        missing = {p.name for p in GAME.build(PROFILES[name]).permissions} - targets
        assert not missing, (name, missing)
    assert all(d.depth is not None for d in OVER_RESTRICTIONS)


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
@pytest.mark.parametrize("defect", OVER_RESTRICTIONS, ids=lambda d: d.id)
def test_each_over_restriction_is_caught_by_its_permission(defect):
    r = run_defect(GAME, defect, PROFILES["default"], CheckConfig())
    assert r.verdict == "caught", r.detail
    assert r.extra["caught_by"] == defect.target
    assert r.depth == defect.depth
