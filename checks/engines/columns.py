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

from model.lower import Gather, Kind, Lit, Low, Op, Read, as_bool, load, lower, render
from model.schema import Schema

NUMPY = {Op.INT: "np.asarray({0}, dtype=np.int64)", Op.TRUTH: "({0} != 0)", Op.NOT: "~{0}", Op.DIV: "({0} // {k})",
         Op.ITE: "np.where({0}, {1}, {2})", Op.AND: " & ", Op.OR: " | "}


class _Gen:
    """Source for one generated function; equal sub-expressions are computed once (by their text)."""

    def __init__(self):
        self.lines: list = []
        self.names: dict = {}
        self.tables: dict = {}

    def let(self, src: str) -> str:
        if src not in self.names:
            self.names[src] = f"t{len(self.names)}"
            self.lines.append(f"    {self.names[src]} = {src}")
        return self.names[src]

    def table(self, arr: np.ndarray) -> str:
        key = (arr.dtype.str, arr.tobytes())
        if key not in self.tables:
            self.tables[key] = (f"_T{len(self.tables)}", arr)
        return self.tables[key][0]

    def expr(self, x: Low) -> str:
        """Source of a boolean or integer array (or scalar), the kind the lowering gave `x`."""
        match x:
            case Lit(value=v):
                return f"np.bool_({v})" if isinstance(v, bool) else f"np.int64({v})"
            case Read(slot=i, kind=k):
                return self.let(f"(X[:, {i}] != 0)" if k is Kind.BOOL else f"X[:, {i}]")
            case Gather():
                return self.gather(x)
            case Op(args=xs):
                return self.let(render(x, [self.expr(i) for i in xs], NUMPY))
        raise TypeError(f"unknown lowered node {x!r}")

    def gather(self, x: Gather) -> str:
        """Per row, the slot the index selects (row-major position among the field's slots, clipped to
        the field as the vector engine does), then that column."""
        off, stride = "0", 1
        for values, ix in reversed(list(zip(x.dims, x.index))):
            off = f"({off}) + (({self.expr(ix)}) - {int(values[0])}) * {stride}"
            stride *= len(values)
        flat = self.let(f"np.clip(np.asarray({off}, dtype=np.int64), 0, {len(x.slots) - 1})")
        slots = self.table(np.array(x.slots, dtype=np.int64))
        col = self.let(f"X[np.arange(X.shape[0]), {slots}[{flat}]]")
        return self.let(f"({col} != 0)") if x.kind is Kind.BOOL else col

def compile_table(schema: Schema, exprs: list):
    """One generated function: a (rows x slots) integer array -> a (len(exprs) x rows) boolean array."""
    gen = _Gen()
    outs = [gen.expr(as_bool(lower(e, schema))) for e in exprs]
    body = "\n".join(gen.lines)
    src = ["def ev(X):", "    out = np.empty((%d, X.shape[0]), dtype=bool)" % len(outs)]
    src += [body] if body else []
    src += [f"    out[{k}] = {o}" for k, o in enumerate(outs)]
    src.append("    return out")
    return load("\n".join(src), "<columns>", {"np": np} | {n: arr for n, arr in gen.tables.values()})["ev"]
