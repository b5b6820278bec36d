"""Rules compiled to Python source for the explorer's hot path.

Each ground guard and effect becomes one generated function, so expanding a
state never walks an expression tree. Actions are bucketed by the value the
guard requires of the model's `dispatch` field, so only the current stage's
actions are tried. `model.evaluate` stays the reference; a test checks that
both give the same successors on every state of small models.
"""
from __future__ import annotations

from dataclasses import dataclass

from model.expr import (Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Sub, Var)
from model.game import GameModel
from model.schema import Schema


def to_source(e: Expr, schema: Schema, tables: dict) -> str:
    """Python source for `e`, reading the state tuple `s`."""
    match e:
        case Const(value=v):
            return repr(v)
        case Var(field=f, index=idx):
            if all(isinstance(i, Const) for i in idx):
                return f"s[{schema.slot(f, tuple(i.value for i in idx))}]"
            key = f"T_{f}"
            if key not in tables:
                tables[key] = {k[1]: v for k, v in schema._slots.items() if k[0] == f}
            parts = ", ".join(to_source(i, schema, tables) for i in idx)
            return f"s[{key}[({parts},)]]"
        case Not(arg=a):
            return f"(not {to_source(a, schema, tables)})"
        case And(args=xs):
            return "(" + " and ".join(to_source(x, schema, tables) for x in xs) + ")"
        case Or(args=xs):
            return "(" + " or ".join(to_source(x, schema, tables) for x in xs) + ")"
        case Eq(a=a, b=b):
            return f"({to_source(a, schema, tables)} == {to_source(b, schema, tables)})"
        case Lt(a=a, b=b):
            return f"({to_source(a, schema, tables)} < {to_source(b, schema, tables)})"
        case Le(a=a, b=b):
            return f"({to_source(a, schema, tables)} <= {to_source(b, schema, tables)})"
        case Add(args=xs):
            return "(" + " + ".join(to_source(x, schema, tables) for x in xs) + ")"
        case Sub(a=a, b=b):
            return f"({to_source(a, schema, tables)} - {to_source(b, schema, tables)})"
        case Div(a=a, k=k):
            return f"({to_source(a, schema, tables)} // {k})"
        case Ite(cond=c, then=t, other=o):
            return (f"({to_source(t, schema, tables)} if {to_source(c, schema, tables)} "
                    f"else {to_source(o, schema, tables)})")
    raise TypeError(f"unknown expression node {e!r}")


def _pinned(guard: Expr, slot: int, schema: Schema):
    """The constant a guard requires of the dispatch slot, or None."""
    conj = guard.args if isinstance(guard, And) else (guard,)
    for c in conj:
        if isinstance(c, Eq) and isinstance(c.b, Const) and isinstance(c.a, Var) and not c.a.index:
            if schema.slot(c.a.field) == slot:
                return c.b.value
    return None


@dataclass
class CompiledModel:
    """Fast successor function and property predicates of a GameModel.

    >>> # cm = CompiledModel.build(model); cm.successors(state) -> [(action_index, next_state)]
    """

    model: GameModel
    guards: list
    effects: list
    buckets: dict
    unpinned: list
    dispatch_slot: int | None
    invariants: list  # [(name, fn)]
    terminal: object

    @classmethod
    def build(cls, model: GameModel) -> "CompiledModel":
        schema = model.schema
        tables: dict = {}
        bool_slots = {i for i, f in enumerate(schema.slot_fields) if f.domain.values[0] is False}
        lines = []
        for n, a in enumerate(model.actions):
            lines.append(f"def g{n}(s): return {to_source(a.guard, schema, tables)}")
            body = ["    l = list(s)"]
            for name, idx, value in a.effects:
                slot = schema.slot(name, tuple(i.value for i in idx))
                src = to_source(value, schema, tables)
                body.append(f"    l[{slot}] = " + (f"bool({src})" if slot in bool_slots else src))
            body.append("    return tuple(l)")
            lines.append(f"def e{n}(s):\n" + "\n".join(body))
        for n, p in enumerate(model.invariants):
            lines.append(f"def inv{n}(s): return {to_source(p.predicate, schema, tables)}")
        lines.append(f"def terminal(s): return {to_source(model.terminal, schema, tables)}")
        ns: dict = dict(tables)
        exec(compile("\n".join(lines), f"<compiled {model.name}>", "exec"), ns)
        n_act = len(model.actions)
        guards = [ns[f"g{n}"] for n in range(n_act)]
        effects = [ns[f"e{n}"] for n in range(n_act)]
        dslot = schema.slot(model.dispatch) if model.dispatch else None
        buckets: dict = {}
        unpinned = []
        for n, a in enumerate(model.actions):
            v = _pinned(a.guard, dslot, schema) if dslot is not None else None
            (buckets.setdefault(v, []) if v is not None else unpinned).append(n)
        if dslot is not None:
            for v in schema.slot_fields[dslot].domain.values:
                buckets[v] = sorted(buckets.get(v, []) + unpinned)
        invariants = [(p.name, ns[f"inv{n}"]) for n, p in enumerate(model.invariants)]
        return cls(model, guards, effects, buckets, unpinned, dslot, invariants, ns["terminal"])

    def successors(self, s: tuple) -> list:
        """[(action index, successor state)] for every enabled action, in action order."""
        idxs = self.buckets[s[self.dispatch_slot]] if self.dispatch_slot is not None else range(len(self.guards))
        g, e = self.guards, self.effects
        return [(n, e[n](s)) for n in idxs if g[n](s)]
