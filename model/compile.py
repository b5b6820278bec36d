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


def _conjuncts(guard: Expr) -> list:
    return list(guard.args) if isinstance(guard, And) else [guard]


def _dispatch_source(name: str, items: list, effect_src: dict, schema: Schema, tables: dict) -> str:
    """One function testing every guard of a bucket inline, as a decision tree on shared conjuncts.

    `items` are (action index, [conjunct source, ...]) with the dispatch conjunct already removed. The
    conjunct most actions share is tested once and its actions nested under it (recursively), so a
    state pays for one call and each distinct test once instead of one call per guard.
    Successors come out sorted by action index, exactly as the per-guard loop gave them.
    """
    lines = [f"def {name}(s):", "    out = []"]

    def emit(items, ind):
        pad = "    " * ind
        items = list(items)
        while items:
            for n, conj in [it for it in items if not it[1]]:
                lines.append(f"{pad}{effect_src[n]}")
            items = [it for it in items if it[1]]
            if not items:
                break
            freq: dict = {}
            for _, conj in items:
                for c in dict.fromkeys(conj):
                    freq[c] = freq.get(c, 0) + 1
            best = max(freq, key=lambda c: freq[c])  # first of the most shared (dicts keep order)
            if freq[best] == 1:
                for n, conj in items:
                    lines.append(f"{pad}if {' and '.join(conj)}:")
                    lines.append(f"{pad}    {effect_src[n]}")
                break
            lines.append(f"{pad}if {best}:")
            emit([(n, [c for c in conj if c != best]) for n, conj in items if best in conj], ind + 1)
            items = [it for it in items if best not in it[1]]

    emit(items, 1)
    lines.append("    out.sort(key=_first)")
    lines.append("    return out")
    return "\n".join(lines)


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
    dispatchers: dict = None  # bucket value -> generated successor function of that bucket

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
        cm = cls(model, guards, effects, buckets, unpinned, dslot, invariants, ns["terminal"])
        cm.dispatchers = cls._dispatchers(model, buckets, dslot, bool_slots, effects)
        return cm

    @staticmethod
    def _dispatchers(model: GameModel, buckets: dict, dslot, bool_slots, effects: list) -> dict:
        """Bucket value -> generated successor function (see `_dispatch_source`)."""
        schema = model.schema
        tables: dict = {}
        # Effects stay one generated function per action (e{n}, NOTE(frame) there): they run only for
        # enabled actions, and inlining them in every bucket that holds the action (faults are in
        # all of them) made the generated source ten times larger for no measurable gain.
        effect_src = {n: f"out.append(({n}, e{n}(s)))" for n in range(len(model.actions))}
        keys = sorted(buckets) if dslot is not None else [None]
        src, conj_src = [], {}
        for k, v in enumerate(keys):
            idxs = buckets[v] if dslot is not None else range(len(model.actions))
            items = []
            pinned = to_source(Eq(Var(model.dispatch), Const(v)), schema, tables) if dslot is not None else None
            for n in idxs:
                # Conjuncts as source text: equal text is an equal test, and strings hash cheaply.
                if n not in conj_src:
                    conj_src[n] = [to_source(c, schema, tables) for c in _conjuncts(model.actions[n].guard)]
                items.append((n, [c for c in conj_src[n] if c != pinned]))
            src.append(_dispatch_source(f"d{k}", items, effect_src, schema, tables))
        ns: dict = dict(tables)
        ns["_first"] = lambda x: x[0]
        ns.update({f"e{n}": fn for n, fn in enumerate(effects)})
        exec(compile("\n\n".join(src), f"<dispatch {model.name}>", "exec"), ns)
        return {v: ns[f"d{k}"] for k, v in enumerate(keys)}

    def successors(self, s: tuple) -> list:
        """[(action index, successor state)] for every enabled action, in action order."""
        return self.dispatchers[s[self.dispatch_slot] if self.dispatch_slot is not None else None](s)

    def successors_per_guard(self, s: tuple) -> list:
        """The same as `successors`, one guard function call per action (kept for tests and profiling)."""
        idxs = self.buckets[s[self.dispatch_slot]] if self.dispatch_slot is not None else range(len(self.guards))
        g, e = self.guards, self.effects
        return [(n, e[n](s)) for n in idxs if g[n](s)]
