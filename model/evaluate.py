"""Concrete semantics: the reference interpreter of guards, effects and properties.

This is the definition of what a rule means. The compiled fast path
(`model.compile`) and the Z3 translator (`checks.engines.encode`) must agree with it;
tests check both.

>>> from model.domains import IntRange
>>> from model.schema import Schema, Field
>>> from model.expr import Var
>>> sch = Schema((Field("x", IntRange(0, 3)),))
>>> eval_expr(Var("x") + 1, (2,), sch)
3
"""
from __future__ import annotations

from model.expr import (Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Param, Sub, Var)
from model.rule import GroundAction
from model.schema import Schema, State


def eval_expr(e: Expr, s: State, schema: Schema, env: dict | None = None):
    """Value of `e` in state `s` (parameters from `env`)."""
    match e:
        case Const(value=v):
            return v
        case Param(name=n):
            if env is None:
                raise TypeError(f"parameter {n!r} evaluated without an environment")
            return env[n]
        case Var(field=f, index=idx):
            return s[schema.slot(f, tuple(eval_expr(i, s, schema, env) for i in idx))]
        case Not(arg=a):
            return not eval_expr(a, s, schema, env)
        case And(args=xs):
            return all(eval_expr(x, s, schema, env) for x in xs)
        case Or(args=xs):
            return any(eval_expr(x, s, schema, env) for x in xs)
        case Eq(a=a, b=b):
            return eval_expr(a, s, schema, env) == eval_expr(b, s, schema, env)
        case Lt(a=a, b=b):
            return eval_expr(a, s, schema, env) < eval_expr(b, s, schema, env)
        case Le(a=a, b=b):
            return eval_expr(a, s, schema, env) <= eval_expr(b, s, schema, env)
        case Add(args=xs):
            return sum(eval_expr(x, s, schema, env) for x in xs)
        case Sub(a=a, b=b):
            return eval_expr(a, s, schema, env) - eval_expr(b, s, schema, env)
        case Div(a=a, k=k):
            return eval_expr(a, s, schema, env) // k
        case Ite(cond=c, then=t, other=o):
            return eval_expr(t if eval_expr(c, s, schema, env) else o, s, schema, env)
    raise TypeError(f"unknown expression node {e!r}")


def enabled(a: GroundAction, s: State, schema: Schema) -> bool:
    return bool(eval_expr(a.guard, s, schema))


def apply(a: GroundAction, s: State, schema: Schema) -> State:
    """Successor of `s` under `a` (guard not checked). NOTE(frame): unwritten slots are copied."""
    out = list(s)
    for name, idx, value in a.effects:
        slot = schema.slot(name, tuple(eval_expr(i, s, schema) for i in idx))
        v = eval_expr(value, s, schema)
        out[slot] = bool(v) if schema.slot_is_bool[slot] else v
    return tuple(out)


def successors(model, s: State) -> list[tuple[GroundAction, State]]:
    """Every enabled action with its successor, in the model's action order."""
    return [(a, apply(a, s, model.schema)) for a in model.actions if enabled(a, s, model.schema)]


def holds(model, prop_expr: Expr, s: State) -> bool:
    return bool(eval_expr(prop_expr, s, model.schema))
