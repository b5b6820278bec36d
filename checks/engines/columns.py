"""State predicates compiled to NumPy over a table of states (one row per state, one column per slot).

The table holds every slot as an integer (a Bool as 0/1, an Enum as its index); a predicate
becomes one vectorised expression over the columns, mirroring `model.evaluate.eval_expr` case by
case (and the Z3 translation's bool/int coercions). Lemma inference evaluates thousands of
candidate lemmas on hundreds of thousands of explored states this way, and Houdini evaluates them
on the successors of a counterexample to induction.

>>> import numpy as np
>>> from model.domains import Bool, IntRange
>>> from model.expr import Var
>>> from model.schema import Field, Schema
>>> sch = Schema((Field("x", IntRange(0, 3)), Field("b", Bool())))
>>> ev = compile_table(sch, [Var("x") < 2, ~Var("b") | Var("x").eq(3)])
>>> ev(np.array([[1, 0], [3, 1], [2, 1]])).tolist()
[[True, False, False], [True, True, False]]
"""
from __future__ import annotations

import numpy as np

from model.compile import load
from model.domains import Bool
from model.expr import Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Sub, Var
from model.schema import Schema

from checks.engines.vector_compile import slots_read  # noqa: F401  (one definition, shared with the vector engine)


class _Gen:
    """Source for one generated function; equal sub-expressions are computed once (by their text)."""

    def __init__(self, schema: Schema):
        self.schema = schema
        self.is_bool = [isinstance(f.domain, Bool) for f in schema.slot_fields]
        self.lines: list = []
        self.names: dict = {}
        self.tables: dict = {}

    def let(self, src: str) -> str:
        if src not in self.names:
            self.names[src] = f"t{len(self.names)}"
            self.lines.append(f"    {self.names[src]} = {src}")
        return self.names[src]

    def b(self, e: Expr) -> str:
        src, kind = self.expr(e)
        return src if kind == "b" else self.let(f"({src} != 0)")

    def i(self, e: Expr) -> str:
        src, kind = self.expr(e)
        return self.let(f"np.asarray({src}, dtype=np.int64)") if kind == "b" else src

    def expr(self, e: Expr) -> tuple[str, str]:
        """(source, kind): kind 'b' for a boolean array or scalar, 'i' for an integer one."""
        match e:
            case Const(value=v):
                return (f"np.bool_({v})", "b") if isinstance(v, bool) else (f"np.int64({v})", "i")
            case Var(field=f, index=idx):
                return self._var(f, idx)
            case Not(arg=a):
                return self.let(f"~{self.b(a)}"), "b"
            case And(args=xs):
                return self.let("(" + " & ".join(self.b(x) for x in xs) + ")"), "b"
            case Or(args=xs):
                return self.let("(" + " | ".join(self.b(x) for x in xs) + ")"), "b"
            case Eq(a=a, b=b):
                (x, kx), (y, ky) = self.expr(a), self.expr(b)
                if kx != ky:
                    x, y = self.i(a), self.i(b)
                return self.let(f"({x} == {y})"), "b"
            case Lt(a=a, b=b):
                return self.let(f"({self.i(a)} < {self.i(b)})"), "b"
            case Le(a=a, b=b):
                return self.let(f"({self.i(a)} <= {self.i(b)})"), "b"
            case Add(args=xs):
                return self.let("(" + " + ".join(self.i(x) for x in xs) + ")"), "i"
            case Sub(a=a, b=b):
                return self.let(f"({self.i(a)} - {self.i(b)})"), "i"
            case Div(a=a, k=k):
                return self.let(f"({self.i(a)} // {k})"), "i"
            case Ite(cond=c, then=t, other=o):
                (x, kx), (y, ky) = self.expr(t), self.expr(o)
                if kx != ky:
                    x, y, kx = self.i(t), self.i(o), "i"
                return self.let(f"np.where({self.b(c)}, {x}, {y})"), kx
        raise TypeError(f"unknown expression node {e!r}")

    def _var(self, f: str, idx) -> tuple[str, str]:
        sch = self.schema
        field = sch.field(f)
        kind = "b" if isinstance(field.domain, Bool) else "i"
        if all(isinstance(i, Const) for i in idx):
            slot = sch.slot(f, tuple(i.value for i in idx))
            return self.let(f"(X[:, {slot}] != 0)" if kind == "b" else f"X[:, {slot}]"), kind
        key = f"T_{f}"
        if key not in self.tables:
            shape = tuple(len(d.values) for d in field.dims)
            table = np.zeros(shape, dtype=np.int64)
            for (name, combo), slot in sch._slots.items():
                if name == f:
                    table[combo] = slot
            self.tables[key] = table
        keys = ", ".join(self.i(i) for i in idx)
        col = self.let(f"X[_R, {key}[{keys},]]" if len(idx) > 1 else f"X[_R, {key}[{keys}]]")
        return (self.let(f"({col} != 0)"), "b") if kind == "b" else (col, "i")


def compile_table(schema: Schema, exprs: list):
    """One generated function: a (rows x slots) integer array -> a (len(exprs) x rows) boolean array."""
    gen = _Gen(schema)
    outs = [gen.b(e) for e in exprs]
    body = "\n".join(gen.lines)
    src = ["def ev(X):", "    _R = np.arange(X.shape[0])", "    out = np.empty((%d, X.shape[0]), dtype=bool)" % len(outs)]
    src += [body] if body else []
    src += [f"    out[{k}] = {o}" for k, o in enumerate(outs)]
    src.append("    return out")
    return load("\n".join(src), "<columns>", {"np": np, **gen.tables})["ev"]
