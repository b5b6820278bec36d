"""Explicit exploration: pinned state counts, shortest traces, deadlocks, coverage, budgets."""
from __future__ import annotations

import pytest

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.analyses.verdicts import explicit_results
from model.expr import Const
from model.rule import Rule
from model.compile import CompiledModel
from model.evaluate import successors
from model.moritani.build import build_model
from model.moritani.config import Bounds
from tests.conftest import SMALL
from tests.toys import counter_model
from tests.pins import DEFAULT_STATES, SMALL_STATES



@pytest.mark.heavy
def test_default_profile_count_and_verdicts(default_model, default_exploration):
    ex = default_exploration
    assert ex.complete and len(ex.states) == DEFAULT_STATES
    assert ex.violations == {} and ex.deadlocks == [] and ex.out_of_domain == []
    results = explicit_results(default_model, ex)
    assert {r.id: r.verdict for r in results if r.verdict != "holds"} == {}
    names = {r.id for r in results}
    assert {"token-conservation", "public-ids-fresh", "no-deadlock", "witness-sneak-into-aftermath"} <= names


def test_small_profile_count():
    ex = Explorer(build_model(SMALL), CheckConfig()).run()
    assert ex.complete and len(ex.states) == SMALL_STATES


def test_compiled_and_interpreted_successors_agree_on_every_small_state(small_model):
    cm = CompiledModel.build(small_model)
    ex = Explorer(small_model, CheckConfig(), compiled=cm).run()
    for s in ex.states:
        fast = [(small_model.actions[i].label, t) for i, t in cm.successors(s)]
        ref = [(a.label, t) for a, t in successors(small_model, s)]
        assert fast == ref


def test_a_cold_code_memo_compiles_the_same_successors(small_model, small_exploration, monkeypatch):
    """NOTE(code-memo): the generated functions compiled afresh give what the shared code objects give."""
    import model.compile as compiling
    from model.lower import CodeMemo
    warm = CompiledModel.build(small_model)
    monkeypatch.setattr(compiling, "CODE", CodeMemo())
    cold = CompiledModel.build(small_model)
    assert compiling.CODE.codes and cold.guards[0] is not warm.guards[0]
    for s in small_exploration.states[::13]:
        assert cold.successors(s) == warm.successors(s)
        assert [fn(s) for _, fn in cold.invariants] == [fn(s) for _, fn in warm.invariants]


def test_counterexample_is_shortest_and_replays():
    m = counter_model(limit=3, broken=True)
    ex = Explorer(m, CheckConfig()).run()
    t = ex.trace_to(ex.violations["bounded"])
    assert t.labels == ["inc"] * 4 and t.replay(m) == []


def test_deadlock_is_reported_and_terminal_is_not():
    m = counter_model(limit=2)
    ex = Explorer(m, CheckConfig()).run()
    assert ex.deadlocks == [] and "can-finish" in ex.witnesses
    never = Rule("finish", (), Const(False), {}, kind="system")
    stuck = m.with_changes(rules=(m.rules[0], never))  # no way to finish: x=2 is stuck
    ex = Explorer(stuck, CheckConfig()).run()
    assert len(ex.deadlocks) == 1 and ex.states[ex.deadlocks[0]] == (2, False)
    verdicts = {r.id: r.verdict for r in explicit_results(stuck, ex)}
    assert verdicts["no-deadlock"] == "violated" and verdicts["can-finish"] == "violated"


def test_budget_cut_is_never_holds():
    ex = Explorer(build_model(), CheckConfig(max_states=5_000)).run()
    assert not ex.complete and "budget" in ex.stop_reason
    results = explicit_results(build_model(), ex)
    # No invariant or step property holds on a cut search; a witness it reached does, one it missed is unknown.
    assert {r.verdict for r in results if r.kind != "witness"} == {"unknown"}
    assert {r.verdict for r in results if r.kind == "witness"} == {"holds", "unknown"}
    assert {r.kind for r in results} == {"invariant", "step", "permission", "witness"}


def test_depth_bound_gives_bounded_verdicts():
    ex = Explorer(build_model(SMALL), CheckConfig(max_depth=6)).run()
    invariants = [r for r in explicit_results(build_model(SMALL), ex, asked_depth=6) if r.kind == "invariant"]
    assert {r.verdict for r in invariants} == {"bounded"}


def test_folding_keeps_verdicts_and_shrinks_the_graph():
    m = build_model(SMALL)
    plain = Explorer(m, CheckConfig()).run()
    folded = Explorer(m, CheckConfig(fold=True)).run()
    assert len(folded.states) < len(plain.states) and folded.folded > 0
    assert set(folded.witnesses) == set(plain.witnesses) and folded.violations == plain.violations == {}


@pytest.mark.heavy
def test_rule_coverage_lists_rules_that_never_fired(default_exploration, default_model):
    never = sorted(r.name for r in default_model.rules if r.name not in default_exploration.fired)
    # Queued Terror cannot lapse under the engine's fixed order; Basic separation needs a turn after the
    # formation turn, which the two-turn default bounds do not have (the three-turns profile does).
    assert never == ["lapse_terror", "separate_allies"]


def test_graph_export_keeps_distinct_actions():
    m = build_model(SMALL)
    ex = Explorer(m, CheckConfig(keep_edges=True)).run()
    g = ex.to_graph()
    assert g.number_of_nodes() == SMALL_STATES and g.number_of_edges() == ex.transitions
