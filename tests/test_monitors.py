"""Monitors and step properties (model/monitors.py, NOTE(monitors)): history comes from the step itself,
never from the rule under test, and every engine sees a step property as an invariant over its flag."""
from __future__ import annotations

import pytest

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.domains import Bool, IntRange
from model.errors import ModelError
from model.evaluate import apply
from model.expr import Const, Fired, Var, ite, post, show
from model.game import GameModel
from model.monitors import BindMemo, MonitorBinder, _bind, _pinned, bind, simplify
from model.moritani import GAME
from model.properties import Monitor, always, always_step
from model.rule import Rule
from model.schema import Field, Schema


def _game(rules, props=(), monitors=(), extra_fields=()):
    sch = Schema((Field("x", IntRange(0, 4)), Field("paid", IntRange(0, 9)), Field("done", Bool())) + extra_fields)
    init = ((0, 0, False) + tuple(0 if isinstance(f.domain, IntRange) else False for f in extra_fields),)
    return GameModel("toy", sch, init, tuple(rules), tuple(props), terminal=Var("done"), monitors=tuple(monitors))


def _step_by_two(broken: bool):
    """x goes up by one per step; `broken` lets one rule jump by two."""
    rules = [Rule("inc", (), Var("x") < 4, {("x", ()): Var("x") + 1}),
             Rule("finish", (), Var("x").eq(4) & ~Var("done"), {("done", ()): True}, kind="system")]
    if broken:
        rules.append(Rule("jump", (), Var("x").eq(2), {("x", ()): Var("x") + 2}))
    return rules


def test_bind_makes_post_the_effect_and_fired_a_constant():
    a = Rule("inc", (), Var("x") < 3, {("x", ()): Var("x") + 1}).ground()[0]
    assert show(bind(post("x") - Var("x"), a)) == "1"
    assert bind(Fired(("inc",)), a) == Const(True)
    assert bind(Fired(("other",)), a) == Const(False)
    # A slot the action leaves alone is unchanged by the step.
    assert bind(post("paid").eq(Var("paid")), a) == Const(True)


def test_bind_uses_the_values_the_guard_pins():
    a = Rule("r", (), Var("x").eq(2), {("paid", ()): Var("paid") + Var("x")}).ground()[0]
    assert _pinned(a.guard) == {("x", ()): 2}
    assert show(bind(post("paid") - Var("paid"), a)) == "2"


def test_simplify_folds_what_an_unrelated_step_leaves():
    assert simplify(Var("x").eq(Var("x")) & (Var("y") < Var("y") + 0)) == Const(False)
    assert simplify(Var("x") - Var("x")) == Const(0)
    assert simplify(Var("a") | ~Var("a")) == Const(True)
    # Ranges decide comparisons a bounded field cannot satisfy.
    assert simplify(Var("x") < 0, {"x": (0, 4)}) == Const(False)
    assert simplify(Var("x") <= 4, {"x": (0, 4)}) == Const(True)
    assert simplify(Var("x") < 4, {"x": (0, 4)}) == (Var("x") < 4)


def test_step_property_catches_the_offending_step_with_a_replayable_trace():
    prop = always_step("up-by-one", post("x") <= Var("x") + 1, ("T1",), "x grows by at most one per step")
    ok = _game(_step_by_two(False), [prop])
    ex = Explorer(ok, CheckConfig()).run()
    assert ex.complete and not ex.violations
    bad = _game(_step_by_two(True), [prop])
    ex = Explorer(bad, CheckConfig()).run()
    t = ex.trace_to(ex.violations["up-by-one"])
    assert t.labels == ["inc", "inc", "jump"]  # the shortest trace ends with the step that broke it
    assert bad.invariants[0].kind == "step"


def test_monitor_counts_from_the_step_not_from_the_rule():
    # A payment monitor: every increase of x is a payment. The rule that forgets its own bookkeeping
    # (here: it never writes `paid`) is still seen, because nothing but the kernel writes the slot.
    counted = Monitor(Field("payments", IntRange(0, 9)), 0, Var("payments") + ite(post("x") > Var("x"), 1, 0),
                      ("T1",))
    m = _game(_step_by_two(False), [always("few-payments", Var("payments") <= 4)], [counted])
    s = m.init[0]
    for label in ("inc", "inc", "inc"):
        a = next(a for a in m.actions if a.label == label)
        s = apply(a, s, m.schema)
    assert s[m.schema.slot("payments", ())] == 3


def test_a_rule_may_not_write_a_monitor():
    mon = Monitor(Field("seen", Bool()), False, Var("seen") | (post("x") > Var("x")))
    bad = Rule("cheat", (), Const(True), {("seen", ()): Const(False)})
    with pytest.raises(ModelError, match="rule 'cheat' writes the monitor 'seen'"):
        _game(_step_by_two(False) + [bad], (), [mon], (Field("seen", Bool()),))


def test_a_rule_may_not_read_a_monitor():
    mon = Monitor(Field("seen", Bool()), False, Var("seen") | (post("x") > Var("x")))
    peek = Rule("peek", (), Var("seen"), {("done", ()): Const(True)})
    with pytest.raises(ModelError, match="rule 'peek' reads the monitor 'seen'"):
        _game(_step_by_two(False) + [peek], (), [mon], (Field("seen", Bool()),))


def test_a_property_may_not_read_history_the_rule_under_test_keeps():
    own = Field("credited", Bool(), ghost=True)
    rules = _step_by_two(False) + [Rule("credit", (), Const(True), {("credited", ()): Const(True)})]
    with pytest.raises(ModelError, match="property 'p' reads the ghost field 'credited', which rule 'credit'"):
        _game(rules, [always("p", ~Var("credited"))], (), (own,))


@pytest.mark.heavy
def test_binder_skips_only_updates_that_are_identities_for_the_action():
    """The shortcuts (an update that reads nothing the action writes is left out; a subtree the action
    does not touch is its idle image; results are memoised across models) agree with binding every
    update to every action from scratch, on the small profile's whole rule set."""
    model = GAME.build(GAME.small(GAME.profiles["default"]))
    binder = MonitorBinder(model.monitors, model.schema, BindMemo())
    mon = {m.field.name for m in model.monitors}
    for a in model.actions:
        writes = {(n, tuple(i.value for i in idx)): v for n, idx, v in a.effects if n not in mon}
        pinned = _pinned(a.guard)
        full = []
        for m, idx, u, _idle in binder.updates:
            if m.on is not None and a.rule.name not in m.on:
                continue
            value = _bind(u.expr, writes, pinned, a.rule.name, binder.ranges,  # no idle images, no memo
                          args=dict(a.args))
            if value != Var(m.field.name, idx):
                full.append((m.field.name, idx, value))
        assert tuple(e for e in a.effects if e[0] in mon) == tuple(full), a.label


def test_a_cold_memo_builds_the_same_model(monkeypatch):
    from model import monitors
    import importlib
    building = importlib.import_module("model.moritani.build")  # the module (the package's `build` is a function)
    warm = GAME.build(GAME.profiles["default"])
    # NOTE(model-memo): without a fresh model memo the same model object would come back unbuilt
    monkeypatch.setattr(building, "BUILT", building.BuiltModels())
    saved = monitors.MEMO.results.copy(), monitors.MEMO.updates.copy()
    try:
        monitors.MEMO.results.clear()
        monitors.MEMO.updates.clear()
        cold = GAME.build(GAME.profiles["default"])
    finally:
        monitors.MEMO.results.update(saved[0])
        monitors.MEMO.updates.update(saved[1])
    assert cold is not warm
    assert [a.effects for a in warm.actions] == [a.effects for a in cold.actions]


@pytest.mark.parametrize("profile", sorted(GAME.profiles))
def test_properties_read_only_game_state_and_monitors(profile):
    """Every ghost field a property reads is a monitor: no property relies on bookkeeping written by the
    rules it judges (the model refuses to build otherwise; this walks the read sets explicitly)."""
    from model.expr import walk
    model = GAME.build(GAME.profiles[profile])
    monitors = {m.field.name for m in model.monitors}
    ghosts = {f.name for f in model.schema.fields if f.ghost}
    written = {name for a in model.actions for name, _i, _v in a.effects} - monitors
    for p in model.properties:
        for e in (p.predicate, p.when, p.step):
            for node in walk(e) if e is not None else ():
                if isinstance(node, Var) and node.field in ghosts:
                    assert node.field in monitors and node.field not in written, (p.name, node.field)


def test_arg_binds_to_the_fired_actions_argument():
    from model.domains import IntRange as R
    from model.expr import Arg, Param
    from model.rule import P
    r = Rule("add", (P("n", R(1, 2)),), Var("x") < 3, {("x", ()): Var("x") + Param("n")})
    one, two = r.ground()
    assert bind(Arg("n"), two) == Const(2) and bind(Arg("m", 0), one) == Const(0)
    # A step property over the argument: the step adds exactly what it was asked to.
    prop = always_step("adds-n", (post("x") - Var("x")).eq(Arg("n", 0)) | Fired(("finish",)))
    m = _game([r, Rule("finish", (), Var("x") >= 3, {("done", ()): True}, kind="system")], [prop])
    ex = Explorer(m, CheckConfig()).run()
    assert ex.complete and not ex.violations
