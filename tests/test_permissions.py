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

# Each over-restriction defect's shortest catching game (steps) on the default profile plus its own bounds, without
# the known-bug permissions other than its target (`WithoutKnownBugs`). `cross-ship-not-into-token` and
# `relocation-not-into-token` are caught at their known bug's own depth (4, 5): re-pin them once it is fixed.
PERMISSION_DEFECT_DEPTH = {
    "ship-not-into-token-stronghold": 4,
    "move-not-into-token-stronghold": 4,
    "pass-only-without-reserves": 3,
    "advisor-only-beside-bg": 5,
    "advisor-mandatory-with-reserves": 5,
    "intrusion-flip-needs-two": 10,
    "intrusion-stay-needs-advisors": 10,
    "decline-only-after-shipment": 6,
    "reveal-needs-no-ally": 6,
    "offer-needs-unallied-entrant": 6,
    "karama-eome-only-by-entrant": 8,
    "accept-needs-unallied": 8,
    "refusal-needs-card": 27,
    "rob-spice-needs-rich-entrant": 8,
    "rob-card-needs-room": 7,
    "zero-sneak-attack-refused": 7,
    "gift-only-to-unallied": 7,
    "pass-only-with-empty-hand": 7,
    "placement-not-where-forces": 9,
    "token-move-not-where-forces": 10,
    "skip-only-with-empty-supply": 0,
    "karama-placement-only-by-ally": 1,
    "payer-needs-surplus": 17,
    "refusal-only-when-broke": 17,
    "extortion-pass-missing": 15,  # no refusal at all (a defect older than the permissions; no-deadlock's before)
    "ride-carries-two": 3,
    "rides-mandatory": 3,
    "revival-needs-two-in-tanks": 3,
    "revival-mandatory": 3,
    "cross-ship-not-into-token": 4,
    "to-reserves-only-from-desert": 4,
    "relocation-not-into-token": 5,
    "betrayal-needs-spice": 4,
    "cunning-needs-spice": 9,
    "grumman-pass-needs-poor-bank": 8,
    "grumman-add-stale-turn": 9,
    "setup-avoids-ambassador": 0,
    "continue-only-when-spent": 10,
}
# Permissions the current model violates because of a bug issue 33 lists (fixed on branch model-fixes), left out of
# the models until then (`PENDING_FIX`): the profile that shows each. Their tests are xfail(strict=True), naming the
# bug: they fail loudly once it is fixed, and the entry then leaves PENDING_FIX and this table.
KNOWN_BUGS = {"may-ship": "default", "may-cross-ship": "cross-ship", "may-relocate": "ambassador-relocation"}


def with_pending(model, name):
    """The model with the pending permission `name` added (and no other permission, for a short search)."""
    from model.moritani.permissions import permissions
    extra = [p for p in permissions(model.vocabulary, pending=True) if p.name == name]
    return model.with_changes(properties=tuple(p for p in model.properties if p.kind != "permission") + tuple(extra))


def without(model, names):
    """The model without the permissions `names` (so a known bug does not stop the search early)."""
    return model.with_changes(properties=tuple(p for p in model.properties if p.name not in names))


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


def test_a_violation_is_replayed_shown_in_game_words_and_saved_as_a_scenario(tmp_path):
    from checks.formats.report import save_traces
    from checks.formats.scenario import replay_file
    d = DEFECT_BY_ID["decline-only-after-shipment"]
    proposal = GAME.with_defect(d, PROFILES["default"])
    model = without(GAME.build(proposal), KNOWN_BUGS)
    results, _ = run_explicit(model, CheckConfig())
    r = next(r for r in results if r.id == "may-decline")
    assert r.verdict == "violated" and r.kind == "permission" and r.rules == ("R11", "R13", "R21")
    assert r.depth == PERMISSION_DEFECT_DEPTH[d.id]
    assert "decline" in r.extra["choice"] and "no such action is enabled" in r.detail
    last = r.trace.states[-1]
    assert refusals(model, next(p for p in model.permissions if p.name == "may-decline"), last) == [{}]
    save_traces([r], model, proposal, tmp_path)
    res = replay_file(GAME, r.trace_path)
    assert res.ok, res.problem
    assert "violates: may-decline" in open(r.trace_path, encoding="utf-8").read()


def test_every_permission_holds_on_the_default_profile():
    model = GAME.build(PROFILES["default"])
    results, ex = run_explicit(model, CheckConfig())
    assert ex.complete and len(ex.states) == 294_232
    verdicts = {r.id: r.verdict for r in results if r.kind == "permission"}
    assert set(verdicts) == {p.name for p in model.permissions} and len(verdicts) == 21
    assert {k: v for k, v in verdicts.items() if v != "holds"} == {}


def test_the_pending_permissions_are_the_known_bugs():
    from model.moritani.permissions import PENDING_FIX
    assert set(PENDING_FIX) == set(KNOWN_BUGS)
    assert not {p.name for p in GAME.build(PROFILES["default"]).permissions} & set(KNOWN_BUGS)


@pytest.mark.parametrize("name", sorted(KNOWN_BUGS))
def test_known_bug_permissions(name, request):
    from model.moritani.permissions import PENDING_FIX
    request.applymarker(pytest.mark.xfail(strict=True, reason=PENDING_FIX[name]))
    model = with_pending(GAME.build(PROFILES[KNOWN_BUGS[name]]), name)
    results, ex = run_explicit(model, CheckConfig())
    assert next(r for r in results if r.id == name).verdict == "holds"


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
    assert set(PERMISSION_DEFECT_DEPTH) == {d.id for d in DEFECTS if d.target.startswith("may-")}


class WithoutKnownBugs:
    """GAME, building its models without the known-bug permissions other than `keep` (a defect aimed at one builds
    it in): a violated permission's states are not expanded, so it would shorten the game another is caught by."""

    def __init__(self, keep: str):
        self.keep = keep

    def __getattr__(self, name):
        return getattr(GAME, name)

    def build(self, proposal, **kw):
        return without(GAME.build(proposal, **kw), set(KNOWN_BUGS) - {self.keep})


@pytest.mark.parametrize("defect", [d for d in DEFECTS if d.id in PERMISSION_DEFECT_DEPTH], ids=lambda d: d.id)
def test_each_over_restriction_is_caught_by_its_permission(defect):
    r = run_defect(WithoutKnownBugs(defect.target), defect, PROFILES["default"], CheckConfig())
    assert r.verdict == "caught", r.detail
    assert r.extra["caught_by"] == defect.target
    assert r.depth == PERMISSION_DEFECT_DEPTH[defect.id]
