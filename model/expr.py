"""The expression language of guards, effects and properties.

Expressions are frozen trees. Two interpreters read them: the concrete
evaluator (`model.evaluate`) and the Z3 translator (`checks.engines.encode`). Builders
keep model code short:

>>> x = Var("spice", (Const(0),))
>>> show(x + 3 >= 5)
'5 <= (spice[0] + 3)'

NOTE(no-eq-overload): `==` keeps its dataclass meaning (structural equality of
trees, used by tests and caching); write `a.eq(b)` for the expression.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Union, cast


class Expr:
    """Base class; operator overloads build new nodes."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # every node class is a dataclass (its fields are walked)

    def __add__(self, o): return Add((self, lift(o)))
    def __radd__(self, o): return Add((lift(o), self))
    def __sub__(self, o): return Sub(self, lift(o))
    def __rsub__(self, o): return Sub(lift(o), self)
    def __lt__(self, o): return Lt(self, lift(o))
    def __le__(self, o): return Le(self, lift(o))
    def __gt__(self, o): return Lt(lift(o), self)
    def __ge__(self, o): return Le(lift(o), self)
    def __and__(self, o): return And((self, lift(o)))
    def __or__(self, o): return Or((self, lift(o)))
    def __invert__(self): return Not(self)

    def eq(self, o) -> "Expr":
        return Eq(self, lift(o))

    def ne(self, o) -> "Expr":
        return Not(Eq(self, lift(o)))

@dataclass(frozen=True)
class Const(Expr):
    value: Union[int, bool]


@dataclass(frozen=True)
class Var(Expr):
    """A state field; `index` is empty for scalars, one expr per dimension for arrays."""

    field: str
    index: tuple = ()


@dataclass(frozen=True)
class Param(Expr):
    """A rule parameter, replaced by a constant when the rule is grounded."""

    name: str


@dataclass(frozen=True)
class Post(Expr):
    """A state field after the step (monitors and step properties only; model/monitors.py binds it
    to the step's effect, so no interpreter ever sees it)."""

    var: Var


@dataclass(frozen=True)
class Fired(Expr):
    """True when the step fires one of the named rules (monitors and step properties only)."""

    names: tuple


@dataclass(frozen=True)
class Arg(Expr):
    """The fired action's argument `name`, or `default` when its rule has no such parameter (monitors and
    step properties only): `Arg("f", -1).eq(2)` is "the step was taken with f = 2"."""

    name: str
    default: int = -1


@dataclass(frozen=True)
class Not(Expr):
    arg: Expr


@dataclass(frozen=True)
class And(Expr):
    args: tuple


@dataclass(frozen=True)
class Or(Expr):
    args: tuple


@dataclass(frozen=True)
class Eq(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Lt(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Le(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Add(Expr):
    args: tuple


@dataclass(frozen=True)
class Sub(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Div(Expr):
    """Floor division by a positive constant (operands are never negative here)."""

    a: Expr
    k: int


@dataclass(frozen=True)
class Ite(Expr):
    cond: Expr
    then: Expr
    other: Expr


TRUE = Const(True)
FALSE = Const(False)


def post(name, *idx) -> Post:
    """The field `name` (at `idx`) after the step: `post("spice", 0) - Var("spice", (Const(0),))`."""
    return Post(Var(name, tuple(lift(i) for i in idx)))


def lift(v) -> Expr:
    """Turn a Python int/bool into a Const; leave expressions alone."""
    if isinstance(v, Expr):
        return v
    if isinstance(v, (bool, int)):
        return Const(v)
    raise TypeError(f"cannot use {v!r} in an expression")


def all_of(items: Iterable) -> Expr:
    args = tuple(lift(i) for i in items)
    return TRUE if not args else args[0] if len(args) == 1 else And(args)


def any_of(items: Iterable) -> Expr:
    args = tuple(lift(i) for i in items)
    return FALSE if not args else args[0] if len(args) == 1 else Or(args)


def sum_of(items: Iterable) -> Expr:
    args = tuple(lift(i) for i in items)
    return Const(0) if not args else args[0] if len(args) == 1 else Add(args)


def count(conds: Iterable) -> Expr:
    """Number of true conditions."""
    return sum_of(Ite(lift(c), Const(1), Const(0)) for c in conds)


def implies(a, b) -> Expr:
    return Or((Not(lift(a)), lift(b)))


def ite(c, a, b) -> Expr:
    return Ite(lift(c), lift(a), lift(b))


def minimum(a, b) -> Expr:
    a, b = lift(a), lift(b)
    return Ite(Le(a, b), a, b)


def half_up(a) -> Expr:
    """Half rounded up, as Robbery takes it (R39)."""
    return Div(Add((lift(a), Const(1))), 2)


def primed(e: Expr) -> Expr:
    """`e` read in the step's post-state: each state field becomes its `post(...)` (step properties only;
    a field's index must be a constant, and `e` must not read the step already).

    >>> show(primed(Var("hand", (Const(0),)) + 1))
    "(hand[0]' + 1)"
    """
    match e:
        case Const() | Param():
            return e
        case Var(index=idx) if all(isinstance(i, Const) for i in idx):
            return Post(e)
        case Var() | Post() | Fired() | Arg():
            raise ValueError(f"primed() takes a current-state expression with constant indices, not {e!r}")
        case Not(arg=a):
            return Not(primed(a))
        case And(args=xs) | Or(args=xs) | Add(args=xs):
            return type(e)(tuple(primed(x) for x in xs))
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            return type(e)(primed(a), primed(b))
        case Div(a=a, k=k):
            return Div(primed(a), k)
        case Ite(cond=c, then=t, other=o):
            return Ite(primed(c), primed(t), primed(o))
    raise TypeError(f"unknown expression node {e!r}")


def children(e: Expr) -> tuple:
    match e:
        case Const() | Param() | Fired() | Arg():
            return ()
        case Var(index=idx):
            return tuple(idx)
        case Post(var=v):
            return (v,)
        case Not(arg=a):
            return (a,)
        case And(args=xs) | Or(args=xs) | Add(args=xs):
            return tuple(xs)
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            return (a, b)
        case Div(a=a):
            return (a,)
        case Ite(cond=c, then=t, other=o):
            return (c, t, o)
    raise TypeError(f"unknown expression node {e!r}")


def walk(e: Expr):
    """Every node of the tree, pre-order."""
    yield e
    for c in children(e):
        yield from walk(c)


def substitute(e: Expr, env: dict) -> Expr:
    """Replace parameters by constants and fold constants (partial evaluation).

    >>> show(substitute(Param("p").eq(1) & Var("x").eq(Param("p")), {"p": 1}))
    'x = 1'
    """
    match e:
        case Const() | Fired() | Arg():
            return e
        case Post(var=v):
            return Post(cast(Var, substitute(v, env)))  # a Var substitutes to a Var (case below)
        case Param(name=n):
            return Const(env[n]) if n in env else e
        case Var(field=f, index=idx):
            return Var(f, tuple(substitute(i, env) for i in idx))
        case Not(arg=a):
            a = substitute(a, env)
            return Const(not a.value) if isinstance(a, Const) else Not(a)
        case And(args=xs):
            out = []
            for x in (substitute(x, env) for x in xs):
                if isinstance(x, Const):
                    if not x.value:
                        return FALSE
                    continue
                out.append(x)
            return all_of(out)
        case Or(args=xs):
            out = []
            for x in (substitute(x, env) for x in xs):
                if isinstance(x, Const):
                    if x.value:
                        return TRUE
                    continue
                out.append(x)
            return any_of(out)
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            a, b = substitute(a, env), substitute(b, env)
            if isinstance(a, Const) and isinstance(b, Const):
                return Const(binop(type(e), a.value, b.value))
            return type(e)(a, b)
        case Add(args=xs):
            ys = [substitute(x, env) for x in xs]
            k = sum(x.value for x in ys if isinstance(x, Const))
            rest = [x for x in ys if not isinstance(x, Const)]
            if not rest:
                return Const(k)
            return sum_of(rest + ([Const(k)] if k else []))
        case Div(a=a, k=k):
            a = substitute(a, env)
            return Const(a.value // k) if isinstance(a, Const) else Div(a, k)
        case Ite(cond=c, then=t, other=o):
            c = substitute(c, env)
            if isinstance(c, Const):
                return substitute(t if c.value else o, env)
            return Ite(c, substitute(t, env), substitute(o, env))
    raise TypeError(f"unknown expression node {e!r}")


def binop(kind, a, b):
    """The value of a comparison or subtraction node of type `kind` on two Python values."""
    if kind is Eq:
        return a == b
    if kind is Lt:
        return a < b
    if kind is Le:
        return a <= b
    return a - b


_INFIX = {Eq: "=", Lt: "<", Le: "<=", Sub: "-"}


def show(e: Expr) -> str:
    """A compact, stable text form (used in docs and error messages)."""
    match e:
        case Const(value=v):
            return str(v).lower() if isinstance(v, bool) else str(v)
        case Param(name=n):
            return f"${n}"
        case Var(field=f, index=idx):
            return f + "".join(f"[{show(i)}]" for i in idx)
        case Post(var=v):
            return show(v) + "'"
        case Fired(names=ns):
            return "fired(" + "|".join(ns) + ")"
        case Arg(name=n):
            return f"arg({n})"
        case Not(arg=Eq(a=a, b=b)):
            return f"{show(a)} != {show(b)}"
        case Not(arg=a):
            return f"not ({show(a)})"
        case And(args=xs):
            return " and ".join(f"({show(x)})" if isinstance(x, Or) else show(x) for x in xs)
        case Or(args=xs):
            return " or ".join(show(x) for x in xs)
        case Add(args=xs):
            return "(" + " + ".join(show(x) for x in xs) + ")"
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            return f"{show(a)} {_INFIX[type(e)]} {show(b)}"
        case Div(a=a, k=k):
            return f"({show(a)}) div {k}"
        case Ite(cond=c, then=t, other=o):
            return f"(if {show(c)} then {show(t)} else {show(o)})"
    raise TypeError(f"unknown expression node {e!r}")
