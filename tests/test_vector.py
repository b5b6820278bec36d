"""The vector engine (`--engine vector`) against the scalar engine and itself on other `--jobs` (SPIN's
state counts: tests/test_promela.py, one SPIN run per configuration for both engines).

Same state sets, transition counts, verdicts and shortest trace lengths as `checks/engines/explicit.py`;
numbering may differ, but every trace is replayed through the reference semantics
(`explicit_results` raises InternalError otherwise).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from click.testing import CliRunner

from checks.cli import main
from checks.config import CheckConfig
from checks.engines.packing import Layout
from checks.engines.vector import VectorExplorer
from checks.engines.explicit import Explorer
from checks.analyses.verdicts import explicit_results
from model.domains import Bool, IntRange
from model.errors import ModelError
from model.expr import Param, Var
from model.game import GameModel
from model.moritani.build import build_model
from model.moritani.config import Bounds
from model.moritani.defects import DEFECT_BY_ID
from model.moritani.profiles import PROFILES
from model.properties import always, sometimes
from model.rule import P, Rule
from model.schema import Field, Schema
from tests.conftest import SMALL
from tests.toys import counter_model
from tests.pins import (DEFAULT_STATES, DEFAULT_TRANSITIONS, ONE_TURN_STATES, ONE_TURN_TRANSITIONS, SMALL_STATES,
                        THREE_TURNS_STATES, THREE_TURNS_TRANSITIONS)
from tests.test_promela import PARITY
from tests.toys import swap_model


# Each profile on one stronghold and one turn (a starting garrison elsewhere is left out with its stronghold).
SMALL_PROFILES = {name: (p.interpretation, dataclasses.replace(p.bounds, **(
    {"strongholds": ("Arrakeen",), "ambassador": None, "turns": 1} if name == "assassinate-leaders" else dict(
        strongholds=SMALL.strongholds, ambassador=SMALL.ambassador, turns=1)),
    garrisons=tuple(g for g in p.bounds.garrisons if g[1] in SMALL.strongholds)))
    for name, p in PROFILES.items()}


def vector(model, **kw):
    return VectorExplorer(model, CheckConfig(engine="vector", **({"jobs": 1} | kw))).run()


def scalar(model, **kw):
    return Explorer(model, CheckConfig(**kw)).run()


def summary(model, ex) -> dict:
    """Everything that must agree between engines (numbering aside)."""
    results = explicit_results(model, ex)  # replays every trace
    return {"states": set(ex.states), "n": len(ex.states), "transitions": ex.transitions, "depth": ex.max_depth,
            "complete": ex.complete, "fired": ex.fired, "deadlocks": len(ex.deadlocks),
            "out_of_domain": sorted(str(s) for _, s in ex.out_of_domain),
            "verdicts": {r.id: (r.verdict, r.depth if r.trace is not None else None) for r in results}}


def assert_same(model, **kw):
    a, b = summary(model, scalar(model, **kw)), summary(model, vector(model, **kw))
    assert a == b
    return b


@pytest.mark.parametrize("name", sorted(PARITY))
def test_same_as_scalar_on_parity_configurations(name):
    assert assert_same(build_model(PARITY[name]))["complete"]


@pytest.mark.parametrize("name", sorted(SMALL_PROFILES))
@pytest.mark.heavy
def test_same_as_scalar_on_every_profile_small_form(name):
    interp, bounds = SMALL_PROFILES[name]
    assert_same(build_model(bounds, interp))


def test_default_profile_count_and_verdicts(default_model):
    ex = vector(default_model)
    assert ex.complete and len(ex.states) == DEFAULT_STATES and ex.transitions == DEFAULT_TRANSITIONS
    assert not ex.violations and not ex.deadlocks
    assert {r.id: r.verdict for r in explicit_results(default_model, ex) if r.verdict != "holds"} == {}


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
@pytest.mark.parametrize("defect", ["reload-reopens-placement", "eome-duplicates-token", "ally-triggers-terror",
                                    "extortion-payment-minted", "extortion-pass-missing", "retry-rerolls"])
def test_seeded_defects_shortest_depths(defect):
    d = DEFECT_BY_ID[defect]
    model = build_model(dataclasses.replace(PROFILES["default"].bounds, **dict(d.bounds)),
                        PROFILES["default"].interpretation, (d.id,))
    results = {r.id: r for r in explicit_results(model, vector(model))}
    r = results[d.target]
    assert r.verdict == "violated" and r.depth == d.depth


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_jobs_do_not_change_anything():
    model = build_model(dataclasses.replace(SMALL, turns=2), defects=("eome-duplicates-token",))
    a, b = vector(model, jobs=1), vector(model, jobs=2)
    assert list(a.states) == list(b.states) and list(a.parent) == list(b.parent) and list(a.via) == list(b.via)
    assert (a.violations, a.witnesses, a.deadlocks, a.transitions, a.fired) == \
           (b.violations, b.witnesses, b.deadlocks, b.transitions, b.fired)


@pytest.mark.heavy
def test_jobs_with_rounds_and_budget(monkeypatch):
    """Small rounds: layers are cut into many rounds; the budget stops at the same state on any --jobs."""
    import checks.engines.vector as v
    monkeypatch.setattr(v, "ROUND", 64)
    model = build_model(SMALL)
    full = [vector(model, jobs=j) for j in (1, 2, 3)]
    assert len({tuple(x.states) for x in full}) == 1 and len(full[0].states) == SMALL_STATES
    cut = [vector(model, jobs=j, max_states=1_000) for j in (1, 2)]
    assert not cut[0].complete and list(cut[0].states) == list(cut[1].states)
    assert "state budget" in cut[0].stop_reason and "depth" in cut[0].stop_reason


def test_budgets_are_never_holds():
    model = build_model(SMALL)
    # A cut search proves no invariant or step property (unknown; the small model has no violation to find),
    # while a witness it reached is shown (holds) and one it did not reach is unknown, never violated.
    ex = vector(model, max_states=500)
    assert not ex.complete
    results = explicit_results(model, ex)
    assert {r.verdict for r in results if r.kind != "witness"} == {"unknown"}
    assert {r.verdict for r in results if r.kind == "witness"} == {"holds", "unknown"}
    ex = vector(model, max_depth=3)
    assert not ex.complete and ex.stop_reason.startswith("depth bound")
    results = explicit_results(model, ex, 3)
    assert {r.verdict for r in results if r.kind != "witness"} == {"bounded"}
    assert {r.verdict for r in results if r.kind == "witness"} == {"holds", "unknown"}


def test_memory_error_is_inconclusive(monkeypatch):
    import checks.engines.vector as v

    def boom(self, gidx, found):
        raise MemoryError
    monkeypatch.setattr(v.LocalPool, "expand", boom)
    ex = vector(build_model(SMALL))
    assert not ex.complete and "out of memory" in ex.stop_reason


def test_out_of_domain_dynamic_index_and_state_witness():
    """A toy model: a read at a state-dependent index, a value leaving its domain, a state witness."""
    sch = Schema((Field("i", IntRange(0, 2)), Field("a", IntRange(0, 3), (IntRange(0, 2),)), Field("b", Bool())))
    rules = (Rule("bump", (P("k", IntRange(0, 2)),), Var("i") < 3, {("a", (Param("k"),)): Var("a", (Var("i"),)) + 1},
                  ("T1",)),
             Rule("step", (), Var("i") < 2, {("i", ()): Var("i") + 1, ("b", ()): ~Var("b")}, ("T2",), kind="system"))
    model = GameModel("toy", sch, ((0, 0, 0, 0, False),), rules,
                      (always("small", Var("a", (Var("i"),)) <= 3, ("T1",)),
                       sometimes("fires", fires=("step",), when=Var("b")),
                       sometimes("two", state=Var("a", (Var("i"),)).eq(2))),
                      terminal=Var("i").eq(2))
    a, b = scalar(model), vector(model)
    assert set(a.states) == set(b.states) and a.transitions == b.transitions
    assert len(a.out_of_domain) == len(b.out_of_domain) > 0
    assert b.witnesses["two"][2] is None and b.witness_trace("two").replay(model) == []
    assert b.witness_trace("fires").replay(model) == []


def test_packing_round_trips_every_small_state(small_model, small_exploration):
    lay = Layout(small_model.schema)
    states = list(small_exploration.states)
    assert len(states) == SMALL_STATES  # every one, not the first 500
    for s in states:
        assert lay.decode(lay.pack(s)) == s


def test_symmetry_and_fold_are_refused():
    with pytest.raises(ModelError, match="symmetry"):
        VectorExplorer(build_model(SMALL), CheckConfig(engine="vector", symmetry=True))
    with pytest.raises(ModelError, match="fold"):
        VectorExplorer(build_model(SMALL), CheckConfig(engine="vector", fold=True))
    r = CliRunner().invoke(main, ["explore", "--engine", "vector", "--symmetry"])
    assert r.exit_code == 3 and "symmetry" in r.output


@pytest.mark.heavy
def test_cli_explore_with_no_options_searches_three_turns():
    """`explore` with no options: the vector engine (auto), three turns of the default bounds (issue 17): 2.4 M
    states, so not in the fast tier (its bounded form is the next test)."""
    r = CliRunner().invoke(main, ["explore", "--jobs", "1"])
    assert r.exit_code == 0 and f"states: {THREE_TURNS_STATES:,}" in r.output and \
        f"transitions: {THREE_TURNS_TRANSITIONS:,}" in r.output


def test_cli_explore_one_turn_and_budget_exit_codes():
    """The bounded form: one turn of the default bounds through the same command, and a state budget (exit 4)."""
    r = CliRunner().invoke(main, ["explore", "--jobs", "1", "--turns", "1"])
    assert r.exit_code == 0 and f"states: {ONE_TURN_STATES:,}" in r.output and \
        f"transitions: {ONE_TURN_TRANSITIONS:,}" in r.output and "complete: True" in r.output
    r = CliRunner().invoke(main, ["explore", "--engine", "vector", "--jobs", "2", "--max-states", "1000"])
    assert r.exit_code == 4 and "state budget" in r.output


def test_toy_models_match():
    for model in (counter_model(), counter_model(broken=True), swap_model()):
        assert_same(model)


@pytest.mark.slow
def test_three_turns_same_as_scalar():
    model = build_model(Bounds(turns=3))
    a, b = scalar(model, max_states=5_000_000), vector(model, max_states=5_000_000, jobs=2)
    assert len(a.states) == len(b.states) == THREE_TURNS_STATES and a.transitions == b.transitions
    assert set(a.states) == set(b.states)
    per_layer = np.diff(np.append(b.depth.arr, len(b.states)))  # states per BFS layer: the same layers
    per_layer = np.trim_zeros(per_layer, "b")  # the vector engine marks the empty layer that ends its search
    assert np.array_equal(np.bincount(np.frombuffer(a.depth, dtype=np.uint16)), per_layer)


@pytest.mark.heavy
def test_check_gives_the_same_verdicts_and_depths_with_either_engine(tmp_path):
    """`check --engine auto` is the vector engine now: every check's verdict and shortest depth is the scalar
    engine's (the trace shown may be another of the same length: NOTE(numbering))."""
    import json
    p = tmp_path / "p.yaml"
    p.write_text("name: engines\nbounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  turns: 1\n"
                 "defects: [eome-duplicates-token]\n")
    runs = {}
    for engine in ("scalar", "auto"):
        r = CliRunner().invoke(main, ["check", "--proposal", str(p), "--z3-budget", "0", "--format", "json",
                                      "--engine", engine, "--jobs", "1"])
        assert r.exit_code == 12, r.output
        doc = json.loads(r.output)
        runs[engine] = ({c["id"]: (c["verdict"], c["depth"]) for c in doc["checks"]}, doc["summary"]["states"])
    assert runs["scalar"] == runs["auto"]
    assert any(v == "violated" for v, _ in runs["auto"][0].values())
