"""Monitors and step properties, compiled into the rules' effects (NOTE(monitors)).

NOTE(monitors): history that a property needs is kept by the kernel, not by the rules: a rule that
misbehaves without updating its own bookkeeping would otherwise be invisible. A monitor's update
and a step property's predicate are expressions over the pre-state, the post-state (`Post`) and
the rule fired (`Fired`) with its arguments (`Arg`). After grounding, each is bound to every ground action: `Post(x)` becomes
the action's effect on x (or x itself when the action leaves it alone) and `Fired(names)` a
constant. The result reads the pre-state only, so it is one more effect of the action, which the
reference interpreter, the compiled explorer, the vector engine, the Z3 encoding and the Promela
export all apply without knowing monitors exist. A step property becomes a monitor flag (set by
the first violating step, never cleared) and an invariant over it: every engine checks it like
any invariant, the shortest counterexample ends with the offending step, and Spacer proves it.

>>> from model.domains import IntRange
>>> from model.expr import Var, post, show
>>> from model.rule import Rule
>>> a = Rule("inc", (), Var("x") < 3, {("x", ()): Var("x") + 1}).ground()[0]
>>> show(bind(post("x") <= Var("x") + 1, a))
'true'
"""
from __future__ import annotations

import itertools
import re

from model.domains import Bool, Enum, IntRange
from model.errors import ModelError
from model.expr import (Add, And, Arg, Const, Div, Eq, Expr, Fired, Ite, Le, Lt, Not, Or, Param, Post, Sub, Var, all_of,
                        any_of,
                        binop, children, show, substitute, sum_of, walk)
from model.properties import Monitor, Property
from model.schema import Field


def bind(e: Expr, action) -> Expr:
    """`e` with the step made concrete: Post(x) is the action's effect on x, Fired its rule's name, and a
    slot the action's guard pins to a constant is that constant (the effect applies only where the
    guard holds), then simplified."""
    writes = {(name, tuple(i.value for i in idx)): value for name, idx, value in action.effects}
    return _bind(e, writes, _pinned(action.guard), action.rule.name, {}, args=dict(action.args))


def _bind(e: Expr, writes: dict, pinned: dict, rule: str | None, ranges: dict, idle: "_Idle | None" = None,
          memos: tuple | None = None, args: dict | None = None) -> Expr:
    """`e` bound to one step. With `idle` (e's subtrees bound to an empty step, see _Idle), a subtree that
    reads no field the action writes through Post, names not its rule in Fired and reads no slot the
    guard pins is the idle image already computed, not rebuilt."""
    memo, smemo = memos if memos is not None else ({}, {})
    args = args or {}
    written = {f for f, _ in writes}
    pinned_fields = {f for f, _ in pinned}
    prints, images = (idle.prints, idle.images) if idle is not None else ({}, {})

    def go(x: Expr) -> Expr:
        key = id(x)
        hit = memo.get(key)
        if hit is not None:
            return hit[1]
        fp = prints.get(key)
        if (fp is not None and key in images and fp.post.isdisjoint(written) and rule not in fp.fired
                and fp.slots.isdisjoint(pinned) and fp.dynamic.isdisjoint(pinned_fields) and fp.args.isdisjoint(args)):
            out = images[key]  # the action leaves this subtree as an empty step does
        else:
            out = _STEP[type(x)](x)
        memo[key] = (x, out)
        return out

    def fired(x):
        return Const(rule in x.names)

    def arg(x):
        return Const(args.get(x.name, x.default))

    def post_(x):
        f, idx = x.var.field, tuple(go(i) for i in x.var.index)
        if all(type(i) is Const for i in idx):
            key = (f, tuple(i.value for i in idx))
            return go(writes[key]) if key in writes else go(Var(f, idx))
        return _post_indexed(f, idx, writes)

    def var(x):
        if not x.index:
            return Const(pinned[(x.field, ())]) if (x.field, ()) in pinned else x
        idx = tuple(go(i) for i in x.index)
        key = (x.field, tuple(i.value for i in idx)) if all(type(i) is Const for i in idx) else None
        return Const(pinned[key]) if key in pinned else Var(x.field, idx)

    def junction(x):
        absorbing, out = type(x) is Or, []
        for y in x.args:  # stop at the first conjunct (disjunct) the step decides
            y = go(y)
            if type(y) is Const and y.value == absorbing:
                return y
            out.append(y)
        return type(x)(tuple(out))

    def ite_(x):
        c = go(x.cond)
        if type(c) is Const:
            return go(x.then if c.value else x.other)
        return Ite(c, go(x.then), go(x.other))

    _STEP = {
        Const: lambda x: x, Param: lambda x: x, Fired: fired, Arg: arg, Post: post_, Var: var,
        Not: lambda x: Not(go(x.arg)), And: junction, Or: junction,
        Add: lambda x: Add(tuple(go(y) for y in x.args)),
        Eq: lambda x: Eq(go(x.a), go(x.b)), Lt: lambda x: Lt(go(x.a), go(x.b)),
        Le: lambda x: Le(go(x.a), go(x.b)), Sub: lambda x: Sub(go(x.a), go(x.b)),
        Div: lambda x: Div(go(x.a), x.k), Ite: ite_,
    }
    return simplify(go(e), ranges, idle.clean if idle is not None else None, smemo)


class Footprint:
    """What a subtree depends on: the fields it reads after the step (`post`), the rules it names (`fired`),
    the constant-index slots it reads before the step, and the fields it reads at a run-time index."""
    __slots__ = ("post", "fired", "slots", "dynamic", "args")

    def __init__(self, post: frozenset, fired: frozenset, slots: frozenset, dynamic: frozenset, args: frozenset):
        self.post, self.fired, self.slots, self.dynamic, self.args = post, fired, slots, dynamic, args


def footprints(e: Expr, out: dict) -> Footprint:
    """Fill `out` with {id(node): Footprint} for every node of e (e must stay alive while out is used)."""
    key = id(e)
    if key in out:
        return out[key]
    kids = [footprints(k, out) for k in children(e)]
    post = frozenset().union(*(k.post for k in kids))
    fired = frozenset().union(*(k.fired for k in kids))
    args = frozenset().union(*(k.args for k in kids))
    slots = frozenset().union(*(k.slots for k in kids))
    dynamic = frozenset().union(*(k.dynamic for k in kids))
    if isinstance(e, Post):
        post = post | {e.var.field}
    elif isinstance(e, Arg):
        args = args | {e.name}
    elif isinstance(e, Fired):
        fired = fired | frozenset(e.names)
    elif isinstance(e, Var):
        if all(isinstance(i, Const) for i in e.index):
            slots = slots | {(e.field, tuple(i.value for i in e.index))}
        else:
            dynamic = dynamic | {e.field}
    out[key] = Footprint(post, fired, slots, dynamic, args)
    return out[key]


class _Idle:
    """Update expressions bound once to an empty step (every Post(x) is x, no rule fired), node by node:
    a subtree an action does not touch binds to this image, so each action rebuilds only what it touches."""

    def __init__(self, ranges: dict):
        self.ranges = ranges
        self.prints: dict = {}
        self.images: dict = {}
        self.clean: dict = {}
        self.keep: list = []  # the trees whose node ids the tables use stay alive

    def add(self, expr: Expr) -> Expr:
        """Record expr's idle images; return expr bound to the empty step."""
        footprints(expr, self.prints)
        memos: tuple = ({}, {})
        out = _bind(expr, {}, {}, None, self.ranges, None, memos)
        memo, smemo = memos
        for key, (_x, bound) in memo.items():
            hit = smemo.get(id(bound))
            image = hit[1] if hit is not None else (bound if isinstance(bound, Const) else None)
            if image is not None:
                self.images[key] = image
                self.clean[id(image)] = image
        self.keep += [expr, memos]
        return out

    def image(self, key: int, written: set, rule, pinned: dict, pinned_fields: set):
        fp = self.prints.get(key)
        if fp is None or key not in self.images:
            return None
        if not (fp.post.isdisjoint(written) and rule not in fp.fired and fp.slots.isdisjoint(pinned)
                and fp.dynamic.isdisjoint(pinned_fields)):
            return None
        return self.images[key]


def simplify(e: Expr, ranges: dict | None = None, clean: dict | None = None, memo: dict | None = None) -> Expr:
    """Constant folding plus the identities a bound step expression needs to collapse when the action
    leaves the slots it reads alone: x = x, x <= x are true, x < x is false, x - x is 0, (if c then a
    else a) is a, x and not x is false. This keeps an unrelated action's monitor effects out of its
    compiled code. One bottom-up pass: each node is folded once its children are.

    >>> show(simplify(Var("x").eq(Var("x")) & (Var("y") < Var("y") + 0)))
    'false'
    """
    memo = {} if memo is None else memo
    ranges = ranges or {}
    clean = clean or {}

    def go(x: Expr) -> Expr:
        key = id(x)
        if key in clean:  # a node of an already simplified tree, left as it was
            return x
        if key not in memo:
            memo[key] = (x, _fold(x, go, ranges))  # keep x alive so its id is not reused
        return memo[key][1]
    return go(e)


def _span(x: Expr, ranges: dict):
    """(least, greatest) value x can take, when x is a constant or a slot of a field with known range."""
    if isinstance(x, Const):
        return x.value, x.value
    if isinstance(x, Var) and x.field in ranges:
        return ranges[x.field]
    return None


def _compare(kind, a: Expr, b: Expr, ranges: dict):
    """The comparison's value when the ranges of its sides decide it (forces[f][h] < 0 is false), else None."""
    sa, sb = _span(a, ranges), _span(b, ranges)
    if sa is None or sb is None:
        return None
    if kind is Lt:
        return True if sa[1] < sb[0] else False if sa[0] >= sb[1] else None
    if kind is Le:
        return True if sa[1] <= sb[0] else False if sa[0] > sb[1] else None
    return False if sa[1] < sb[0] or sb[1] < sa[0] else None


def _linear(e: Expr, sign: int = 1, terms: dict | None = None) -> tuple:
    """(ordered {term: coefficient}, constant) of a sum and difference of terms."""
    terms = {} if terms is None else terms
    k = 0
    match e:
        case Const(value=v) if not isinstance(v, bool):
            return terms, sign * v
        case Add(args=xs):
            for x in xs:
                k += _linear(x, sign, terms)[1]
            return terms, k
        case Sub(a=a, b=b):
            k += _linear(a, sign, terms)[1]
            k += _linear(b, -sign, terms)[1]
            return terms, k
    terms[e] = terms.get(e, 0) + sign
    return terms, 0


def _sum(terms: dict, k: int) -> Expr:
    """The sum back as an expression: positive terms added, negative ones subtracted, the constant last."""
    pos = [t for t, n in terms.items() for _ in range(max(n, 0))]
    neg = [t for t, n in terms.items() for _ in range(max(-n, 0))]
    if k > 0 or not (pos or neg):
        pos.append(Const(k))
    elif k < 0:
        neg.append(Const(-k))
    if not neg:
        return sum_of(pos)
    return Sub(sum_of(pos) if pos else Const(0), sum_of(neg))


def _fold(e: Expr, go, ranges: dict) -> Expr:
    """One node folded, its children simplified by `go`."""
    match e:
        case Const() | Fired() | Var(index=()):
            return e
        case Var(field=f, index=idx):
            return Var(f, tuple(go(i) for i in idx))
        case Post(var=v):
            return Post(go(v))
        case Not(arg=a):
            a = go(a)
            return Const(not a.value) if isinstance(a, Const) else (a.arg if isinstance(a, Not) else Not(a))
        case And(args=xs) | Or(args=xs):
            absorbing = isinstance(e, Or)
            out: list = []
            for x in (go(x) for x in xs):
                if isinstance(x, Const):
                    if x.value == absorbing:
                        return Const(absorbing)
                    continue
                if x not in out:
                    out.append(x)
            if any(Not(x) in out for x in out):  # x and not x; x or not x
                return Const(absorbing)
            return (any_of if absorbing else all_of)(out)
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b):
            a, b = go(a), go(b)
            if a == b:
                return Const(not isinstance(e, Lt))
            if isinstance(a, Const) and isinstance(b, Const):
                return Const(binop(type(e), a.value, b.value))
            terms, k = _linear(Sub(a, b))
            if not any(terms.values()):  # the sides differ by a constant: (x + 1) - x = 1
                return Const(binop(type(e), k, 0))
            decided = _compare(type(e), a, b, ranges)
            return type(e)(a, b) if decided is None else Const(decided)
        case Sub(a=a, b=b):
            return _sum(*_linear(Sub(go(a), go(b))))
        case Add(args=xs):
            return _sum(*_linear(Add(tuple(go(x) for x in xs))))
        case Ite(cond=c, then=t, other=o):
            c = go(c)
            if isinstance(c, Const):
                return go(t if c.value else o)
            t, o = go(t), go(o)
            if isinstance(t, Ite) and t.cond == c:  # the inner test repeats the outer one
                t = t.then
            if isinstance(o, Ite) and o.cond == c:
                o = o.other
            return t if t == o else Ite(c, t, o)
        case Div(a=a, k=k):
            a = go(a)
            return Const(a.value // k) if isinstance(a, Const) else Div(a, k)
    return substitute(e, {})


def _pinned(guard: Expr) -> dict:
    """{(field, index): value} for the guard's top-level conjuncts `field[index] = constant`."""
    out = {}
    todo, conjuncts = [guard], []
    while todo:  # conjunctions nest as the guards are built up with &
        g = todo.pop()
        if isinstance(g, And):
            todo.extend(reversed(g.args))
        else:
            conjuncts.append(g)
    for c in conjuncts:
        if isinstance(c, Eq) and isinstance(c.a, Var) and isinstance(c.b, Const) \
                and all(isinstance(i, Const) for i in c.a.index):
            out[(c.a.field, tuple(i.value for i in c.a.index))] = c.b.value
    return out


def _post_indexed(f: str, idx: tuple, writes: dict) -> Expr:
    """Post(f[idx]) with an index known only at run time: the written slots as an if-chain over idx."""
    written = [(k[1], v) for k, v in writes.items() if k[0] == f]
    out: Expr = Var(f, idx)
    for key, value in reversed(written):
        out = Ite(all_of(i.eq(Const(k)) for i, k in zip(idx, key)), value, out)
    return out


def flag_name(prop: str) -> str:
    """The monitor slot that records a step property's first violation."""
    return "violated_" + re.sub(r"\W", "_", prop)


def step_monitors(properties: tuple) -> tuple:
    """(properties with each step property's predicate set to its flag being clear, their flag monitors)."""
    props, monitors = [], []
    for p in properties:
        if p.kind != "step" or p.predicate is not None:
            props.append(p)
            continue
        flag = flag_name(p.name)
        monitors.append(Monitor(Field(flag, Bool(), ghost=True, doc=f"step property {p.name} was violated"),
                                False, Var(flag) | Not(p.step), p.rules, None, f"first violation of {p.name}"))
        props.append(Property(p.name, "step", Not(Var(flag)), p.fires, p.when, p.rules, p.doc, p.step))
    return tuple(props), tuple(monitors)


class _Update:
    """One monitor update prepared for binding: simplified, with its idle images and root footprint."""

    def __init__(self, expr: Expr, ranges: dict):
        self.expr = simplify(expr, ranges)
        self.idle = _Idle(ranges)
        self.image = self.idle.add(self.expr)
        self.print = self.idle.prints[id(self.expr)]


class BindMemo:
    """Bound monitor updates shared by every model built in this process.

    NOTE(bind-memo): binding is a pure function of (the update, the ranges, whether the rule is named
    in a Fired node, the action's writes to the fields the update reads after the step, the guard's
    pins on the slots it reads), so its results are kept under exactly that key. Models built from
    the same rules (the bounded and unbounded model of one check, a proposal and its seeded defects or
    mutants, the profiles a test suite builds) then bind each distinct case once. A cold memo gives
    the same models as a warm one (tests/test_monitors.py); it is cleared when it holds `limit` entries.
    """

    def __init__(self, limit: int = 200_000):
        self.limit = limit
        self.updates: dict = {}
        self.results: dict = {}

    def update(self, expr: Expr, ranges: dict) -> _Update:
        key = (tuple(sorted(ranges.items())), expr)
        if key not in self.updates:
            self.updates[key] = _Update(expr, ranges)
        return self.updates[key]

    def bound(self, u: _Update, action_key: tuple, compute) -> Expr:
        key = (id(u),) + action_key  # u lives in self.updates, so its id stays its own
        out = self.results.get(key)
        if out is None:
            if len(self.results) >= self.limit:
                self.results.clear()
            out = self.results[key] = compute()
        return out


MEMO = BindMemo()


class MonitorBinder:
    """Binds every monitor update to ground actions. An update whose Post nodes read only fields the
    action leaves alone, whose Fired nodes do not name the action's rule, and which is the identity
    on such a step (decided once, on an empty step) adds nothing: most actions touch few monitors,
    and binding each of them to every action would dominate building the model."""

    def __init__(self, monitors: tuple, schema=None, memo: BindMemo | None = None):
        self.ranges = _ranges(schema) if schema is not None else {}
        self.memo = memo if memo is not None else BindMemo()
        self.updates = []
        for m in monitors:
            updates = m.update if isinstance(m.update, dict) else {(): m.update}
            for idx, expr in updates.items():
                idx = tuple(Const(i) for i in (idx if isinstance(idx, tuple) else (idx,)))
                u = self.memo.update(expr, self.ranges)
                self.updates.append((m, idx, u, u.image == Var(m.field.name, idx)))

    def effects(self, action) -> tuple:
        """The effects the monitors add to one ground action (identity updates dropped)."""
        writes = {(name, tuple(i.value for i in idx)): value for name, idx, value in action.effects}
        written = {name for name, _ in writes}
        name = action.rule.name
        args = dict(action.args)
        pinned = None
        out = []
        for m, idx, u, idle in self.updates:
            if m.on is not None and name not in m.on:
                continue
            fp = u.print
            if idle and name not in fp.fired and fp.post.isdisjoint(written) and fp.args.isdisjoint(args):
                continue
            pinned = _pinned(action.guard) if pinned is None else pinned
            key = (name in fp.fired,
                   tuple((k, v) for k, v in writes.items() if k[0] in fp.post),
                   tuple((k, v) for k, v in pinned.items() if k in fp.slots or k[0] in fp.dynamic),
                   tuple((k, v) for k, v in args.items() if k in fp.args))
            value = self.memo.bound(u, key, lambda: _bind(u.expr, writes, pinned, name, self.ranges, u.idle,
                                                          args=args))
            if value != Var(m.field.name, idx):
                out.append((m.field.name, idx, value))
        return tuple(out)


def _ranges(schema) -> dict:
    """{field: (least, greatest)} for enum fields, {field: (least, inf)} for integer fields: an unbounded
    proof drops integer upper bounds, and the binding must hold there too (and be the same, so that the
    bounded and unbounded models share the memo)."""
    out = {}
    for f in schema.fields:
        if isinstance(f.domain, IntRange):
            out[f.name] = (f.domain.lo, float("inf"))
        elif isinstance(f.domain, Enum):
            out[f.name] = (0, len(f.domain.labels) - 1)
    return out


def monitor_initial(m: Monitor, field: Field) -> dict:
    """{index tuple: initial value} for every slot of the monitor's field."""
    if not field.dims:
        return {(): m.init}
    combos = itertools.product(*(d.values for d in field.dims))
    return {c: (m.init.get(c if len(c) > 1 else c[0]) if isinstance(m.init, dict) else m.init) for c in combos}


def check_history(rules: tuple, properties: tuple, monitors: tuple, schema) -> None:
    """Rules may not write or read a monitor slot; a property may not read a ghost field a rule writes."""
    mon = {m.field.name for m in monitors}
    written: dict = {}
    for r in rules:
        for (name, _), _e in r.effects.items():
            if name in mon:
                raise ModelError(f"rule '{r.name}' writes the monitor '{name}'; monitors are kept by the kernel "
                                 f"from the step itself (model/monitors.py), never by a rule")
            written.setdefault(name, r.name)
        for expr in (r.guard, *r.effects.values()):
            for node in walk(expr):
                if isinstance(node, Var) and node.field in mon:
                    raise ModelError(f"rule '{r.name}' reads the monitor '{node.field}'; monitors only observe "
                                     f"the game, so no rule may depend on one")
    ghosts = {f.name for f in schema.fields if f.ghost} - mon
    for p in properties:
        for expr in (p.predicate, p.when, p.step, p.condition):
            for node in walk(expr) if expr is not None else ():
                if isinstance(node, Var) and node.field in ghosts and node.field in written:
                    raise ModelError(f"property '{p.name}' reads the ghost field '{node.field}', which rule "
                                     f"'{written[node.field]}' writes: history a property relies on must come "
                                     f"from a monitor (model/properties.py Monitor), not from the rule under test")
