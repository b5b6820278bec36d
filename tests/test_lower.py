"""The lowering pass (model/lower.py) against the reference interpreter on arbitrary expressions (issue 36).

tests/test_backends.py compares every backend on the embedded models' own guards, effects and properties; those
never mix kinds in some ways (no model adds the value of an `and` to a number). Here Hypothesis builds expression
trees of every node type over a small schema, booleans and integers mixed anywhere Python allows, and requires the
Python printer (`model.compile.to_source`) and the column printer (`checks.engines.columns.compile_table`) to give
`model.evaluate.eval_expr`'s value on every seventh state of the schema (8,778), and the in-domain lowering (the
vector engine's: comparisons a domain decides folded) to give it on the same states. Deterministic
(`derandomize=True`).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from checks.engines.columns import compile_table
from model.compile import python_source, to_source
from model.domains import Bool, IntRange
from model.evaluate import eval_expr
from model.expr import Add, And, Const, Div, Eq, Ite, Le, Lt, Not, Or, Sub, Var
from model.lower import Kind, load, lower
from model.schema import Field, Schema

SCHEMA = Schema((Field("x", IntRange(0, 3)), Field("y", IntRange(-2, 2)), Field("b", Bool()),
                 Field("i", IntRange(0, 2)), Field("arr", IntRange(0, 3), (IntRange(0, 2),)),
                 Field("flags", Bool(), (IntRange(0, 2),))))
STATES = [s for s in itertools.product(range(4), range(-2, 3), (False, True), range(3), range(4), range(4),
                                       range(4), (False, True), (False, True), (False, True))][::7]

leaves = st.sampled_from([Var("x"), Var("y"), Var("b"), Var("i"), Var("arr", (Var("i"),)),
                          Var("arr", (Const(1),)), Var("flags", (Var("i"),)), Var("flags", (Const(2),)),
                          Const(0), Const(1), Const(2), Const(-1), Const(True), Const(False)])


def _nodes(sub):
    two = st.tuples(sub, sub)
    return st.one_of(
        sub.map(Not), st.lists(sub, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(sub, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
        two.map(lambda p: Eq(*p)), two.map(lambda p: Lt(*p)), two.map(lambda p: Le(*p)),
        st.lists(sub, min_size=2, max_size=3).map(lambda xs: Add(tuple(xs))), two.map(lambda p: Sub(*p)),
        st.tuples(sub, st.integers(1, 3)).map(lambda p: Div(*p)),
        st.tuples(sub, sub, sub).map(lambda p: Ite(*p)))


exprs = st.recursive(leaves, _nodes, max_leaves=8)


def _python(e):
    tables: dict = {}
    return load(f"def f(s): return {to_source(e, SCHEMA, tables)}", "<test>", dict(tables))["f"]


def _same(kind: Kind, got, want) -> bool:
    return bool(got) == bool(want) if kind is Kind.BOOL else int(got) == int(want)


@pytest.mark.heavy
@settings(max_examples=300, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(exprs)
def test_every_printer_gives_the_reference_value(e):
    kind = lower(e, SCHEMA).kind
    want = [eval_expr(e, s, SCHEMA) for s in STATES]
    f = _python(e)
    assert all(_same(kind, f(s), w) for s, w in zip(STATES, want)), to_source(e, SCHEMA, {})
    # The column printer computes a predicate: the expression as a boolean, on every state at once.
    got = compile_table(SCHEMA, [e])(np.array([[int(v) for v in s] for s in STATES]))[0]
    assert got.tolist() == [bool(w) for w in want]
    tables: dict = {}
    inside = python_source(lower(e, SCHEMA, in_domain=True), tables)
    g = load(f"def f(s): return {inside}", "<test>", dict(tables))["f"]
    assert all(_same(kind, g(s), w) for s, w in zip(STATES, want))


def test_python_and_or_return_booleans_as_the_rules_do():
    """(x and y) + 1 with x = 3, y = 2: the rules' `and` is true, so the sum is 2 (Python's `and` gives 2, and 3)."""
    e = Add((And((Var("x"), Var("y"))), Const(1)))
    s = (3, 2, False, 0, 0, 0, 0, False, False, False)
    assert eval_expr(e, s, SCHEMA) == 2 and _python(e)(s) == 2


def test_the_source_memo_hands_a_repeated_expression_its_tables_and_keeps_booleans_apart():
    """NOTE(source-memo) in model/compile.py: a read at a state-dependent index printed for one model is handed to
    the next with its lookup table (an equal schema, another object), and a boolean constant, equal to 1 in Python,
    never gets an integer's source (an integer slot must not be written True)."""
    from model.compile import SourceMemo
    memo, e = SourceMemo(), Var("arr", (Var("i"),)) + 1
    first, second = {}, {}
    a, b = memo.source(e, SCHEMA, first), memo.source(e, Schema(SCHEMA.fields), second)
    assert a == b and first and second == first and len(memo.sources) == 1
    f = load(f"def f(s): return {b}", "<test>", dict(second))["f"]
    assert [f(s) for s in STATES] == [eval_expr(e, s, SCHEMA) for s in STATES]
    ints, bools = Ite(Var("b"), Const(1), Const(0)), Ite(Var("b"), Const(True), Const(False))
    assert ints == bools  # equal as values: the memo must tell them apart itself
    assert memo.source(ints, SCHEMA, {}) != memo.source(bools, SCHEMA, {})
    assert "True" in memo.source(bools, SCHEMA, {}) and "True" not in memo.source(ints, SCHEMA, {})


def test_an_unbounded_model_is_built_compiled_and_encoded_without_enumerating_its_wide_ranges(monkeypatch):
    """NOTE(wide-range) in model/domains.py: the unbounded model's public IDs range over a million values, and the
    schema, the lowering, the explicit compiler, Houdini's bounds and the Z3 encoder read only their ends."""
    from checks.engines.encode import Encoder
    from checks.engines.houdini import houdini
    from model.compile import CompiledModel
    from model.moritani.build import _build
    plain = IntRange.values

    def values(self):
        assert self.hi - self.lo < 10_000, f"{self.lo}..{self.hi} enumerated"
        return plain.fget(self)
    monkeypatch.setattr(IntRange, "values", property(values))
    model = _build(None, None, (), None, True, None)  # not the process's memo: built here, under the patch
    assert max(hi for _, hi in model.schema.slot_range) >= 1_000_000
    CompiledModel.build(model)
    Encoder(model, unbounded_slots=model.unbounded_slots).trans(0)
    assert houdini(model, [("turn is at least 1", Var("turn") >= 1)]).verdict in ("proved", "unknown")
