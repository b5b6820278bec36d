"""The one lowering pass under every code generator: an expression tree resolved against a schema.

`lower(e, schema)` turns a guard, effect value or predicate into a `Low` tree that the backends only
print (the explicit engine's Python in `model.compile`, the vector engine's packed-word NumPy in
`checks.engines.vector_compile`, the column evaluator in `checks.engines.columns`):

- a read at a constant index is a `Read` of one slot; a read at a state-dependent index a `Gather`
  through the field's slot table (`Gather.slots`, row-major over the field's dimensions);
- every node has a value kind (`Kind.BOOL` or `Kind.INT`), and where an operator needs the other
  kind the coercion is explicit (`Op.INT`: a boolean as 0/1; `Op.TRUTH`: an integer as `!= 0`),
  the rules `model.evaluate.eval_expr` follows through Python's own bool/int arithmetic;
- constants are folded (`Lit`), with `bind` fixing slots to values first (the vector engine's
  dispatch stage, the slots that never change in a search) and, with `in_domain=True`, comparisons
  of a slot with a constant that its domain decides (sound on states whose slots lie in their
  domains: the vector engine's packed states).

The printers do no folding and no kind inference of their own. `slots_read` answers, from the same
resolution, which slots an expression may read.

>>> from model.domains import Bool, IntRange
>>> from model.expr import Var
>>> from model.schema import Field, Schema
>>> sch = Schema((Field("x", IntRange(0, 3)), Field("b", Bool())))
>>> lower(Var("b").eq(1) & (Var("x") < 9), sch, in_domain=True)
Read(slot=1, kind=<Kind.BOOL: 'bool'>)
>>> lower(Var("x") < 7, sch, in_domain=True), lower(Var("x") < 7, sch)
(Lit(value=True), Op(op='<', args=(Read(slot=0, kind=<Kind.INT: 'int'>), Lit(value=7)), kind=<Kind.BOOL: 'bool'>, k=None))
"""
from __future__ import annotations

import enum
import itertools
import operator
from dataclasses import dataclass
from typing import Union

from model.expr import Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Sub, Var, walk
from model.schema import Schema


class Kind(enum.Enum):
    """The value kind of a lowered node: what a printer holds for it (a boolean or an integer)."""

    BOOL = "bool"
    INT = "int"


@dataclass(frozen=True)
class Lit:
    """A folded constant. Unlike Python's values, `Lit(True)` and `Lit(1)` differ (their kinds do), so a
    printer's memo never hands one for the other."""

    value: Union[bool, int]

    def __eq__(self, other) -> bool:
        return isinstance(other, Lit) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))

    @property
    def kind(self) -> Kind:
        return Kind.BOOL if isinstance(self.value, bool) else Kind.INT


@dataclass(frozen=True)
class Read:
    """The value of one slot."""

    slot: int
    kind: Kind


@dataclass(frozen=True)
class Gather:
    """A read of field `field` at a state-dependent `index` (one lowered integer per dimension):
    `slots[flat]` where `flat` is the row-major position of the index among `dims` (each dimension's
    values, in order)."""

    field: str
    dims: tuple
    slots: tuple
    index: tuple
    kind: Kind

    def table(self) -> dict:
        """{index combination: slot}, the form a scalar printer looks up (a KeyError outside the field)."""
        return dict(zip(itertools.product(*self.dims), self.slots))


@dataclass(frozen=True)
class Op:
    """An operator over lowered operands of the kinds it needs (coercions are explicit `INT`/`TRUTH` nodes).
    `k`: the divisor of `DIV`."""

    op: str
    args: tuple
    kind: Kind
    k: int | None = None

    NOT, AND, OR, EQ, LT, LE = "not", "and", "or", "==", "<", "<="
    ADD, SUB, DIV, ITE, INT, TRUTH = "+", "-", "//", "ite", "int", "truth"


Low = Union[Lit, Read, Gather, Op]
_CMP = {Op.EQ: operator.eq, Op.LT: operator.lt, Op.LE: operator.le}


def constant_slot(schema: Schema, e: Expr) -> int | None:
    """The slot `e` reads when it is a `Var` at a constant index, else None."""
    if isinstance(e, Var) and all(isinstance(i, Const) for i in e.index):
        return schema.slot(e.field, tuple(i.value for i in e.index))
    return None


def slots_read(e: Expr, schema: Schema) -> set:
    """Slots an expression may read (every slot of a field read at a state-dependent index).

    >>> from model.domains import IntRange
    >>> from model.schema import Field, Schema
    >>> sch = Schema((Field("x", IntRange(0, 1)), Field("y", IntRange(0, 3), (IntRange(0, 1),))))
    >>> sorted(slots_read(Var("y", (Var("x"),)) < 2, sch))
    [0, 1, 2]
    """
    out: set = set()
    for n in walk(e):
        if isinstance(n, Var):
            s = constant_slot(schema, n)
            out |= {s} if s is not None else set(schema.slots_of(n.field).values())
    return out


def slots_written(effects: tuple, schema: Schema) -> set:
    """Slots a ground action's effects may write (every slot of a field written at a state-dependent index)."""
    out: set = set()
    for name, idx, _ in effects:
        s = constant_slot(schema, Var(name, tuple(idx)))
        out |= {s} if s is not None else set(schema.slots_of(name).values())
    return out


def action_slots(action, schema: Schema) -> set:
    """Slots a ground action reads (its guard, its effects' values) or writes."""
    out = slots_read(action.guard, schema) | slots_written(action.effects, schema)
    for _, _, value in action.effects:
        out |= slots_read(value, schema)
    return out


def as_int(x: Low) -> Low:
    """`x` as an integer (a boolean as 0/1)."""
    if x.kind is Kind.INT:
        return x
    return Lit(int(x.value)) if isinstance(x, Lit) else Op(Op.INT, (x,), Kind.INT)


def as_bool(x: Low) -> Low:
    """`x` as a boolean (an integer is true when it is not 0)."""
    if x.kind is Kind.BOOL:
        return x
    return Lit(x.value != 0) if isinstance(x, Lit) else Op(Op.TRUTH, (x,), Kind.BOOL)


def fold(x: Op, values: list):
    """The value of operator `x` on constant operands `values` (Python's, as `eval_expr` computes it): the
    lowering folds with it, and so does a printer that decides an operand itself (the vector engine's
    conjunctions of one packed word).

    >>> fold(Op(Op.ITE, (), Kind.INT), [False, 1, 2]), fold(Op(Op.DIV, (), Kind.INT, 2), [7])
    (2, 3)
    """
    v = values
    if x.op in _CMP:
        return _CMP[x.op](v[0], v[1])
    return {Op.NOT: lambda: not v[0], Op.INT: lambda: int(v[0]), Op.TRUTH: lambda: v[0] != 0,
            Op.AND: lambda: all(v), Op.OR: lambda: any(v), Op.ADD: lambda: sum(v), Op.SUB: lambda: v[0] - v[1],
            Op.DIV: lambda: v[0] // x.k, Op.ITE: lambda: v[1] if v[0] else v[2]}[x.op]()


class _Lowering:
    def __init__(self, schema: Schema, bind: dict, in_domain: bool):
        self.schema, self.bind, self.in_domain = schema, bind, in_domain

    def low(self, e: Expr) -> Low:
        match e:
            case Const(value=v):
                return Lit(v)
            case Var(field=f, index=idx):
                return self.var(e, f, idx)
            case Not(arg=a):
                x = as_bool(self.low(a))
                return Lit(not x.value) if isinstance(x, Lit) else Op(Op.NOT, (x,), Kind.BOOL)
            case And(args=xs) | Or(args=xs):
                return self.junction(isinstance(e, And), xs)
            case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b):
                return self.compare({Eq: Op.EQ, Lt: Op.LT, Le: Op.LE}[type(e)], self.low(a), self.low(b))
            case Add(args=xs):
                parts = [as_int(self.low(x)) for x in xs]
                k = sum(p.value for p in parts if isinstance(p, Lit))
                rest = [p for p in parts if not isinstance(p, Lit)]
                if not rest:
                    return Lit(k)
                return Op(Op.ADD, tuple(rest) + ((Lit(k),) if k else ()), Kind.INT)
            case Sub(a=a, b=b):
                x, y = as_int(self.low(a)), as_int(self.low(b))
                if isinstance(x, Lit) and isinstance(y, Lit):
                    return Lit(x.value - y.value)
                return Op(Op.SUB, (x, y), Kind.INT)
            case Div(a=a, k=k):
                x = as_int(self.low(a))
                return Lit(x.value // k) if isinstance(x, Lit) else Op(Op.DIV, (x,), Kind.INT, k)
            case Ite(cond=c, then=t, other=o):
                cond = as_bool(self.low(c))
                if isinstance(cond, Lit):
                    return self.low(t if cond.value else o)
                x, y = self.low(t), self.low(o)
                if x.kind is not y.kind:
                    x, y = as_int(x), as_int(y)
                return Op(Op.ITE, (cond, x, y), x.kind)
        raise TypeError(f"unknown expression node {e!r}")

    def var(self, e: Var, f: str, idx: tuple) -> Low:
        sch = self.schema
        if all(type(i) is Const for i in idx):  # the common case, without lowering each index
            index: tuple = ()
            s = sch.slot(f, tuple(i.value for i in idx))
        else:
            index = tuple(as_int(self.low(i)) for i in idx)
            s = sch.slot(f, tuple(i.value for i in index)) if all(type(i) is Lit for i in index) else -1
        if s >= 0:
            if s in self.bind:
                return Lit(self.bind[s])
            lo, hi = sch.slot_range[s]
            if self.in_domain and lo == hi:
                return Lit(sch.slot_fields[s].domain.least)
            return Read(s, Kind.BOOL if sch.slot_is_bool[s] else Kind.INT)
        field = sch.field(f)
        table = sch.slots_of(f)
        combos = list(itertools.product(*(d.values for d in field.dims)))
        kind = Kind.BOOL if field.domain.least is False else Kind.INT
        return Gather(f, tuple(tuple(d.values) for d in field.dims), tuple(table[c] for c in combos), index, kind)

    def junction(self, is_and: bool, xs: tuple) -> Low:
        out = []
        for x in (as_bool(self.low(x)) for x in xs):
            if isinstance(x, Lit):
                if x.value != is_and:
                    return Lit(not is_and)
                continue
            out.append(x)
        if not out:
            return Lit(is_and)
        return out[0] if len(out) == 1 else Op(Op.AND if is_and else Op.OR, tuple(out), Kind.BOOL)

    def compare(self, op: str, x: Low, y: Low) -> Low:
        if isinstance(x, Lit) and isinstance(y, Lit):
            return Lit(_CMP[op](x.value, y.value))
        if op == Op.EQ and x.kind is Kind.BOOL and isinstance(y, Lit) and y.kind is Kind.INT:
            # b = 1 is b, b = 0 is not b, b = 2 is false: Python's True == 1 (eval_expr).
            return x if y.value == 1 else Op(Op.NOT, (x,), Kind.BOOL) if y.value == 0 else Lit(False)
        if op == Op.EQ and y.kind is Kind.BOOL and isinstance(x, Lit) and x.kind is Kind.INT:
            return self.compare(op, y, x)
        if x.kind is not y.kind or op != Op.EQ:
            x, y = as_int(x), as_int(y)
        if self.in_domain:
            decided = self.decided(op, x, y)
            if decided is not None:
                return Lit(decided)
        return Op(op, (x, y), Kind.BOOL)

    def decided(self, op: str, x: Low, y: Low) -> bool | None:
        """A slot against a constant, decided by the slot's domain (or its bound value)."""
        if isinstance(x, Read) and isinstance(y, Lit):
            lo, hi = self.schema.slot_range[x.slot]
            k = int(y.value)
        elif isinstance(y, Read) and isinstance(x, Lit):
            return self.decided({Op.EQ: Op.EQ, Op.LT: "gt", Op.LE: "ge"}[op], y, x)
        else:
            return None
        return {Op.EQ: (True if lo == hi else None) if lo <= k <= hi else False,
                Op.LT: False if k <= lo else True if k > hi else None,
                Op.LE: False if k < lo else True if k >= hi else None,
                "gt": True if k < lo else False if k >= hi else None,
                "ge": True if k <= lo else False if k > hi else None}[op]


def render(x: Op, args: list, forms: dict) -> str:
    """Source of operator `x` in a backend's syntax, from its operands' source `args`: `forms[op]` is a format
    over the operands (`{0}`, `{1}`, `{2}`) and the divisor (`{k}`), or for an infix operator (`and`, `or`,
    comparisons, `+`, `-`) its separator, the default being the operator itself (`==`, `<`, ...).

    >>> render(Op(Op.AND, (Lit(True), Lit(False)), Kind.BOOL), ["a", "b"], {Op.AND: " and "})
    '(a and b)'
    >>> render(Op(Op.DIV, (Lit(7),), Kind.INT, 2), ["a"], {Op.DIV: "({0} // {k})"})
    '(a // 2)'
    """
    form = forms.get(x.op, f" {x.op} ")
    if x.op in (Op.NOT, Op.INT, Op.TRUTH, Op.DIV, Op.ITE):
        return form.format(*args, k=x.k)
    return "(" + form.join(args) + ")"


def lower(e: Expr, schema: Schema, bind: dict | None = None, in_domain: bool = False) -> Low:
    """`e` resolved against `schema`, constants folded (see the module docstring). `bind`: {slot: value}
    read as constants; `in_domain`: fold a slot's comparison with a constant its domain decides."""
    return _Lowering(schema, bind or {}, in_domain).low(e)


class CodeMemo:
    """Compiled generated functions shared by every model built in this process.

    NOTE(code-memo): compiling the generated source was most of the cost of a model's fast paths (about
    a second per model), and the models one process builds (a proposal's bounded and unbounded models,
    its seeded defects and mutants, the profiles a test suite builds) share almost every guard, effect
    and invariant. A code object is a pure function of its source text and file name, so one is kept
    per distinct function source; each model still gets its own function objects, bound to its own
    namespace (its tables). Cleared when it holds `limit` entries.

    >>> memo, ns = CodeMemo(), {}
    >>> memo.define(ns, ["def f(s): return s + 1"], "<doc>"); memo.define(ns, ["def f(s): return s + 1"], "<doc>")
    >>> ns["f"](1), len(memo.codes)
    (2, 1)
    """

    def __init__(self, limit: int = 100_000):
        self.limit = limit
        self.codes: dict = {}

    def define(self, ns: dict, defs: list, filename: str) -> None:
        """Run each top-level definition in `defs` (a `def` statement's source) in namespace `ns`."""
        for src in defs:
            key = (filename, src)
            code = self.codes.get(key)
            if code is None:
                if len(self.codes) >= self.limit:
                    self.codes.clear()
                code = self.codes[key] = compile(src, filename, "exec")
            exec(code, ns)


CODE = CodeMemo()


def load(source: str, filename: str, ns: dict) -> dict:
    """Run generated source (a module's text) in namespace `ns` and return `ns`. NOTE(generated-code): every
    backend's generated Python runs through here or `CodeMemo.define` (the scalar fast paths, the symmetry
    maps, the vector engine's buckets and predicates, the column evaluator), so this module is the one
    place that executes code; tests/test_layering.py fails on an `eval` or `exec` anywhere else.

    >>> load("def f(x): return x * K", "<doc>", {"K": 3})["f"](2)
    6
    """
    exec(compile(source, filename, "exec"), ns)
    return ns
