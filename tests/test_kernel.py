"""The rules kernel: domains, schema, expressions, grounding, frame and build-time validation."""
from __future__ import annotations

import pytest

from model.domains import Bool, Enum, IntRange
from model.errors import ModelError
from model.evaluate import apply, enabled, eval_expr, successors
from model.expr import Const, Param, Var, show, substitute
from model.game import GameModel
from model.properties import always
from model.rule import P, Rule
from model.schema import Field, Schema
from tests.toys import counter_model

F = Enum("Faction", ("Moritani", "Atreides"))


def schema():
    return Schema((Field("turn", IntRange(1, 3)), Field("spice", IntRange(0, 9), (F,)), Field("flag", Bool())))


def test_domains_enumerate_in_order():
    assert IntRange(2, 4).values == (2, 3, 4)
    assert Bool().values == (False, True)
    assert F.values == (0, 1) and F.show(1) == "Atreides"
    with pytest.raises(ModelError, match="valid: Atreides, Moritani"):
        F.index("Fremen")


def test_schema_flattens_arrays_into_slots():
    s = schema()
    assert s.slot_names == ("turn", "spice[Moritani]", "spice[Atreides]", "flag")
    with pytest.raises(ModelError, match="unknown field 'spise'; fields: flag, spice, turn"):
        s.field("spise")


def test_substitute_folds_constants_and_parameters():
    e = Param("f").eq(1) & (Var("spice", (Param("f"),)) >= 3)
    assert show(substitute(e, {"f": 1})) == "3 <= spice[1]"
    assert substitute(e, {"f": 0}) == Const(False)


def test_frame_keeps_unwritten_slots():
    sch = schema()
    r = Rule("earn", (P("f", F),), Var("flag"), {("spice", (Param("f"),)): Var("spice", (Param("f"),)) + 2})
    a = r.ground()[1]
    assert a.label == "earn(f=Atreides)"
    s = (2, 5, 1, True)
    assert enabled(a, s, sch)
    assert apply(a, s, sch) == (2, 5, 3, True)


def test_effects_read_the_pre_state():
    sch = Schema((Field("a", IntRange(0, 3)), Field("b", IntRange(0, 3))))
    swap = Rule("swap", (), Const(True), {("a", ()): Var("b"), ("b", ()): Var("a")})
    assert apply(swap.ground()[0], (1, 2), sch) == (2, 1)


def _model(rules, props=()):
    return GameModel("m", schema(), ((1, 0, 0, False),), tuple(rules), tuple(props), terminal=Const(False))


def test_model_rejects_unknown_field_with_choices():
    with pytest.raises(ModelError, match="rule 'r' writes unknown field 'spise'; fields: flag, spice, turn"):
        _model([Rule("r", (), Const(True), {("spise", ()): Const(1)})])


def test_model_rejects_state_dependent_write_index():
    bad = Rule("r", (), Const(True), {("spice", (Var("turn"),)): Const(1)})
    with pytest.raises(ModelError, match="depends on the state"):
        _model([bad])


def test_model_rejects_unknown_parameter_and_duplicate_names():
    with pytest.raises(ModelError, match="unknown parameter 'g'"):
        _model([Rule("r", (P("f", F),), Param("g").eq(0), {})])
    with pytest.raises(ModelError, match="repeated: r"):
        _model([Rule("r", (), Const(True), {}), Rule("r", (), Const(True), {})])
    with pytest.raises(ModelError, match="repeated: p"):
        _model([], [always("p", Const(True)), always("p", Const(True))])


def test_double_write_of_one_slot_is_rejected():
    r = Rule("r", (P("f", F),), Const(True), {("spice", (Param("f"),)): Const(1), ("spice", (Const(0),)): Const(2)})
    with pytest.raises(ModelError, match="writes the same slot twice"):
        _model([r])


def test_initial_state_must_fit_domains():
    with pytest.raises(ModelError, match="turn=7"):
        GameModel("m", schema(), ((7, 0, 0, False),), (), (), terminal=Const(False))


def test_counter_model_successors():
    m = counter_model()
    assert [(a.label, s) for a, s in successors(m, (0, False))] == [("inc", (1, False))]
    assert eval_expr(m.invariants[0].predicate, (3, False), m.schema)
