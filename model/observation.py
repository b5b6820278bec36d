"""An observation as model data: what one observer sees of a state, as expressions over that state.

Two kinds of component: a `Value` (a tuple of expressions compared value by value) and a `Bag`
(a multiset of keys of the items whose condition holds, order ignored). The explicit leak check
evaluates them with `observe_spec` (the reference) and the Z3 self-composition translates them;
a game builds its observation from these (e.g. `model/moritani/observe.py`).

>>> from model.expr import Var
>>> from model.schema import Field, Schema
>>> from model.domains import IntRange
>>> sch = Schema((Field("x", IntRange(0, 3)),))
>>> observe_spec(sch, (Value("x", (Var("x"),)),), (2,))
((2,),)
"""
from __future__ import annotations

from dataclasses import dataclass

from model.evaluate import eval_expr


@dataclass(frozen=True)
class Value:
    """An observation component compared value by value: a tuple of expressions over one state."""

    name: str
    exprs: tuple


@dataclass(frozen=True)
class Bag:
    """A multiset component: the keys of the items whose condition holds, order ignored.

    `items` is ((condition, key), ...); every key starts with a constant group id, so only
    items of one group can ever be equal (the Z3 encoding compares within groups only).
    """

    name: str
    items: tuple


def observe_spec(schema, spec: tuple, s: tuple) -> tuple:
    """The reference evaluation of `observation_spec` on one state."""
    sch = schema
    out = []
    for comp in spec:
        if isinstance(comp, Value):
            out.append(tuple(eval_expr(e, s, sch) for e in comp.exprs))
        else:
            out.append(tuple(sorted(tuple(eval_expr(x, s, sch) for x in key)
                                    for cond, key in comp.items if eval_expr(cond, s, sch))))
    return tuple(out)
