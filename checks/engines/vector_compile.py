"""Rules compiled from the rule data to NumPy operations over a whole frontier of packed states.

One generated function per value of the model's `dispatch` field (the stage). It receives the
words of every frontier state in that stage (`c0 .. cW-1`, one uint64 array per word, see
`packing.Layout`) and returns, per enabled action, the rows it is enabled on and the successor
words; plus the deadlocked rows and the witnesses that fired. Guards become boolean masks,
effects column updates:

- the dispatch field is replaced by the bucket's constant and the guard folded
  (`model.expr.substitute`), so each bucket holds exactly the actions that can fire there;
- `slot = k`, `slot < k`, `slot <= k` and boolean slots are tested on the packed word itself
  (`(c & mask) == value`), conjunctions of such tests on one word in a single comparison, and a
  disjunction of values of one slot through a lookup table: no slot is unpacked to test it;
- other subexpressions are computed once per bucket (common subexpressions share a name);
- effects are evaluated on the enabled rows only (NOTE(frame): unwritten slots keep their bits,
  every right-hand side reads the pre-state words) and written with one clear-and-or per word;
  a value that interval analysis cannot place inside its slot's domain is range-checked, and rows
  where it leaves the domain are returned as out of domain (the engine handles them in Python);
- a state-dependent index (`Var(f, (expr,))`) is a gather through per-field slot tables.

Both branches of an `Ite` and every operand of `and`/`or` are evaluated on every row, so an index
computed outside the field's dimensions is clipped here where the reference interpreter raises;
a correct model never computes one (the reference replay of every trace would fail).

>>> # fns = compile_buckets(model, Layout(model.schema)); fns[stage_raw](c0, c1, found)
"""
from __future__ import annotations

import itertools
import operator

import numpy as np

from model.expr import (Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Sub, Var, any_of, substitute, walk)
from model.compile import load
from model.game import GameModel

from checks.engines.packing import Layout

FULL = (1 << 64) - 1
CMP = {"==": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def constant(code: str) -> bool | int:
    """The value of a constant operand (kind B or I: the `repr` of a bool or an int), folded at compile time.

    >>> constant("True"), constant("-3")
    (True, -3)
    """
    return {"True": True, "False": False}[code] if code in ("True", "False") else int(code)


def replace_var(e: Expr, name: str, value) -> Expr:
    """`e` with the scalar field `name` replaced by a constant (then folded by the caller)."""
    r = lambda x: replace_var(x, name, value)  # noqa: E731
    match e:
        case Var(field=f, index=idx):
            return Const(value) if f == name and not idx else Var(f, tuple(r(i) for i in idx))
        case Const():
            return e
        case Not(arg=a):
            return Not(r(a))
        case And(args=xs) | Or(args=xs) | Add(args=xs):
            return type(e)(tuple(r(x) for x in xs))
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            return type(e)(r(a), r(b))
        case Div(a=a, k=k):
            return Div(r(a), k)
        case Ite(cond=c, then=t, other=o):
            return Ite(r(c), r(t), r(o))
    return e


def slots_read(e: Expr, schema) -> set:
    """Slots an expression may read (every slot of a field read at a state-dependent index)."""
    out = set()
    for n in walk(e):
        if isinstance(n, Var):
            if all(isinstance(i, Const) for i in n.index):
                out.add(schema.slot(n.field, tuple(i.value for i in n.index)))
            else:
                out |= {s for (f, _), s in schema._slots.items() if f == n.field}
    return out


class _Scope:
    """Straight-line code of one function over the words named `{prefix}0..`; CSE by expression."""

    def __init__(self, gen: "_Gen", prefix: str, lines: list, indent: str):
        self.g, self.p, self.lines, self.ind = gen, prefix, lines, indent
        self.memo: dict = {}

    def emit(self, code: str) -> str:
        if code in self.memo:
            return self.memo[code]
        name = self.g.fresh()
        self.lines.append(f"{self.ind}{name} = {code}")
        self.memo[code] = name
        return name

    # -- slot access -------------------------------------------------------------------------
    def const_slot(self, e) -> int | None:
        if isinstance(e, Var) and all(isinstance(i, Const) for i in e.index):
            return self.g.schema.slot(e.field, tuple(i.value for i in e.index))
        return None

    def atom(self, slot: int, op: str, k) -> tuple:
        """`slot op k` (op: ==, <, <=, >, >=) on the packed word, folded when decided by the domain."""
        lay = self.g.lay
        rk, top = int(k) - lay.lo[slot], lay.hi[slot] - lay.lo[slot]
        decided = {"==": None if 0 <= rk <= top else False,
                   "<": False if rk <= 0 else True if rk > top else None,
                   "<=": False if rk < 0 else True if rk >= top else None,
                   ">": True if rk < 0 else False if rk >= top else None,
                   ">=": True if rk <= 0 else False if rk > top else None}[op]
        if decided is not None or lay.bits[slot] == 0:
            return (repr(decided if decided is not None else CMP[op](0, rk)), "B")
        w, sh, m = lay.word[slot], lay.shift[slot], lay.mask[slot]
        return (self.emit(f"({self.p}{w} & {m << sh}) {op} {rk << sh}"), "b")

    def raw(self, slot: int) -> str:
        lay = self.g.lay
        w, sh, m = lay.word[slot], lay.shift[slot], lay.mask[slot]
        return self.emit(f"({self.p}{w} >> {sh}) & {m}" if sh else f"{self.p}{w} & {m}")

    # -- values --------------------------------------------------------------------------------
    def cond(self, e: Expr) -> tuple:
        code, kind = self.val(e)
        if kind == "i":
            return (self.emit(f"{code} != 0"), "b")
        if kind == "I":
            return (repr(bool(constant(code))), "B")
        return code, kind

    def num(self, e: Expr) -> tuple:
        code, kind = self.val(e)
        if kind == "b":
            return (self.emit(f"{code}.astype(np.int64)"), "i")
        if kind == "B":
            return (str(int(constant(code))), "I")
        return code, kind

    def val(self, e: Expr) -> tuple:
        """(source, kind): kind b/i for bool/int arrays, B/I for Python constants."""
        key = ("v", e)
        if key in self.memo:
            return self.memo[key]
        out = self._val(e)
        self.memo[key] = out
        return out

    def _val(self, e: Expr) -> tuple:
        lay = self.g.lay
        match e:
            case Const(value=v):
                return (repr(v), "B" if isinstance(v, bool) else "I")
            case Var():
                s = self.const_slot(e)
                if s is None:
                    return self.gather(e)
                if lay.is_bool[s]:
                    return self.atom(s, "==", 1)
                if lay.bits[s] == 0:
                    return (str(lay.lo[s]), "I")
                r = self.emit(f"({self.raw(s)}).view(np.int64)")
                return (self.emit(f"{r} + {lay.lo[s]}") if lay.lo[s] else r, "i")
            case Not(arg=a):
                c, k = self.cond(a)
                return (repr(not constant(c)), "B") if k == "B" else (self.emit(f"~{c}"), "b")
            case And(args=xs) | Or(args=xs):
                return self.junction(e, xs)
            case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b):
                op = {Eq: "==", Lt: "<", Le: "<="}[type(e)]
                sa, sb = self.const_slot(a), self.const_slot(b)
                if sa is not None and isinstance(b, Const):
                    return self.atom(sa, op, b.value)
                if sb is not None and isinstance(a, Const):
                    return self.atom(sb, {"==": "==", "<": ">", "<=": ">="}[op], a.value)
                (ca, ka), (cb, kb) = self.operands(a, b, op == "==")
                if ka in "BI" and kb in "BI":
                    return (repr(CMP[op](constant(ca), constant(cb))), "B")
                return (self.emit(f"{ca} {op} {cb}"), "b")
            case Add(args=xs):
                parts = [self.num(x) for x in xs]
                k = sum(int(c) for c, kind in parts if kind == "I")
                arrs = [c for c, kind in parts if kind == "i"]
                if not arrs:
                    return (str(k), "I")
                return (self.emit(" + ".join(arrs + ([str(k)] if k else []))), "i")
            case Sub(a=a, b=b):
                (ca, ka), (cb, kb) = self.num(a), self.num(b)
                if ka == "I" and kb == "I":
                    return (str(int(ca) - int(cb)), "I")
                return (self.emit(f"{ca} - {cb}"), "i")
            case Div(a=a, k=k):
                ca, ka = self.num(a)
                return (str(int(ca) // k), "I") if ka == "I" else (self.emit(f"{ca} // {k}"), "i")
            case Ite(cond=c, then=t, other=o):
                cc, kc = self.cond(c)
                if kc == "B":
                    return self.val(t if constant(cc) else o)
                (ct, kt), (co, ko) = self.val(t), self.val(o)
                if kt in "bB" and ko in "bB":
                    return (self.emit(f"np.where({cc}, {ct}, {co})"), "b")
                (ct, kt), (co, ko) = self.num(t), self.num(o)
                return (self.emit(f"np.where({cc}, {ct}, {co})"), "i")
        raise TypeError(f"unknown expression node {e!r}")

    def operands(self, a: Expr, b: Expr, eq: bool) -> tuple:
        (ca, ka), (cb, kb) = self.val(a), self.val(b)
        if eq and {ka, kb} <= {"b", "B"}:
            return (ca, ka), (cb, kb)
        return self.num(a), self.num(b)

    def eq_atom(self, x: Expr):
        """(slot, raw value) when `x` is `slot = k` or a boolean slot (negated or not); else None."""
        lay = self.g.lay
        if isinstance(x, Eq):
            for v, c in ((x.a, x.b), (x.b, x.a)):
                s = self.const_slot(v)
                if s is not None and isinstance(c, Const) and lay.bits[s]:
                    return s, int(c.value) - lay.lo[s]
        s = self.const_slot(x)
        if s is not None and lay.is_bool[s]:
            return s, 1 - lay.lo[s]  # the raw value (a constant slot's offset is its value: Layout's `fixed`)
        if isinstance(x, Not):
            s = self.const_slot(x.arg)
            if s is not None and lay.is_bool[s]:
                return s, 0 - lay.lo[s]
        return None

    def junction(self, e: Expr, xs: tuple) -> tuple:
        lay, is_and = self.g.lay, isinstance(e, And)
        atoms: dict[int, list] = {}
        rest = []
        for x in xs:
            a = self.eq_atom(x)
            if a is None:
                rest.append(x)
            else:
                atoms.setdefault(a[0], []).append(a[1])
        parts = []
        if is_and:
            per_word: dict = {}
            for s, vals in atoms.items():
                if len(set(vals)) > 1 or not 0 <= vals[0] <= lay.hi[s] - lay.lo[s]:
                    return ("False", "B")
                m, v = per_word.get(lay.word[s], (0, 0))
                per_word[lay.word[s]] = (m | lay.mask[s] << lay.shift[s], v | vals[0] << lay.shift[s])
            parts += [self.emit(f"({self.p}{w} & {m}) == {v}") for w, (m, v) in sorted(per_word.items())]
        else:
            for s, vals in atoms.items():
                vals = sorted({v for v in vals if 0 <= v <= lay.hi[s] - lay.lo[s]})
                if len(vals) == 1:
                    parts.append(self.atom(s, "==", vals[0] + lay.lo[s])[0])
                elif vals:
                    lut = self.g.table(np.isin(np.arange(1 << lay.bits[s]), vals))
                    parts.append(self.emit(f"{lut}[{self.raw(s)}]"))
        for x in rest:
            c, k = self.cond(x)
            if k == "B":
                if constant(c) != is_and:
                    return (repr(not is_and), "B")
                continue
            parts.append(c)
        if not parts:
            return (repr(is_and), "B")
        return (parts[0] if len(parts) == 1 else self.emit((" & " if is_and else " | ").join(parts)), "b")

    def gather(self, e: Var) -> tuple:
        """A read at a state-dependent index: flat slot number per row, then a per-row shift and mask."""
        sch, lay = self.g.schema, self.g.lay
        dims = sch.field(e.field).dims
        combos = list(itertools.product(*(d.values for d in dims)))
        slots = np.array([sch.slot(e.field, c) for c in combos], dtype=np.int64)
        off, stride = "0", 1
        for d, ix in reversed(list(zip(dims, e.index))):
            c, _ = self.num(ix)
            first = int(d.values[0])
            off = f"({off}) + (({c}) - {first}) * {stride}"
            stride *= len(d.values)
        flat = self.emit(f"np.clip(np.asarray({off}, dtype=np.int64), 0, {len(combos) - 1})")
        sl = self.emit(f"{self.g.table(slots)}[{flat}]")
        cw = self.emit(f"np.stack(({', '.join(f'{self.p}{w}' for w in range(lay.words))},))")
        ar = self.emit(f"np.arange({self.p}0.shape[0])")
        word = self.g.table(np.array(lay.word, dtype=np.int64))
        sh = self.g.table(np.array(lay.shift, dtype=np.uint64))
        mk = self.g.table(np.array(lay.mask, dtype=np.uint64))
        lo = self.g.table(np.array(lay.lo, dtype=np.int64))
        raw = self.emit(f"(({cw}[{word}[{sl}], {ar}] >> {sh}[{sl}]) & {mk}[{sl}]).view(np.int64)")
        if lay.is_bool[int(slots[0])]:
            if any(lay.lo[int(x)] for x in slots):  # a constant True slot among them (Layout's `fixed`)
                return (self.emit(f"({raw} + {lo}[{sl}]) != 0"), "b")
            return (self.emit(f"{raw} != 0"), "b")
        return (self.emit(f"{raw} + {lo}[{sl}]"), "i")


def interval(e: Expr, lay: Layout, schema) -> tuple:
    """Bounds of an integer expression over in-domain states (for skipping range checks)."""
    iv = lambda x: interval(x, lay, schema)  # noqa: E731
    match e:
        case Const(value=v):
            return int(v), int(v)
        case Var(field=f):
            slots = [s for (g, _), s in schema._slots.items() if g == f]
            return min(lay.lo[s] for s in slots), max(lay.hi[s] for s in slots)
        case Add(args=xs):
            bs = [iv(x) for x in xs]
            return sum(b[0] for b in bs), sum(b[1] for b in bs)
        case Sub(a=a, b=b):
            (a0, a1), (b0, b1) = iv(a), iv(b)
            return a0 - b1, a1 - b0
        case Div(a=a, k=k):
            a0, a1 = iv(a)
            return a0 // k, a1 // k
        case Ite(then=t, other=o):
            (t0, t1), (o0, o1) = iv(t), iv(o)
            return min(t0, o0), max(t1, o1)
    return 0, 1  # comparisons and connectives


class _Gen:
    def __init__(self, model: GameModel, lay: Layout):
        self.model, self.schema, self.lay = model, model.schema, lay
        self.n = 0
        self.tables: dict = {}

    def fresh(self) -> str:
        self.n += 1
        return f"t{self.n}"

    def table(self, arr: np.ndarray) -> str:
        key = (arr.dtype.str, arr.tobytes())
        if key not in self.tables:
            self.tables[key] = (f"_T{len(self.tables)}", arr)
        return self.tables[key][0]

    def namespace(self) -> dict:
        return {"np": np} | {name: arr for name, arr in self.tables.values()}


def _effects(sc: _Scope, action, lines: list, ind: str) -> tuple[list, str | None]:
    """Successor words of `action` on the scope's rows, and the name of the out-of-domain mask."""
    lay, sch = sc.g.lay, sc.g.schema
    clear: dict[int, int] = {}
    const: dict[int, int] = {}
    parts: dict[int, list[str]] = {}
    ood: list[str] = []
    for name, idx, value in action.effects:
        s = sch.slot(name, tuple(i.value for i in idx))
        w, sh = lay.word[s], lay.shift[s]
        clear[w] = clear.get(w, 0) | lay.mask[s] << sh
        if lay.is_bool[s]:
            c, k = sc.cond(value)
            if k == "B":
                const[w] = const.get(w, 0) | int(constant(c)) << sh
            else:
                parts.setdefault(w, []).append(sc.emit(f"{c}.astype(np.uint64)" + (f" << {sh}" if sh else "")))
            continue
        c, k = sc.num(value)
        lo, hi = lay.lo[s], lay.hi[s]
        if k == "I":
            if not lo <= int(c) <= hi:
                ood.append(sc.emit(f"np.ones({sc.p}0.shape[0], dtype=bool)"))
            else:
                const[w] = const.get(w, 0) | (int(c) - lo) << sh
            continue
        v0, v1 = interval(value, lay, sch)
        if v0 < lo:
            ood.append(sc.emit(f"{c} < {lo}"))
        if v1 > hi:
            ood.append(sc.emit(f"{c} > {hi}"))
        r = sc.emit(f"({c} - {lo}).view(np.uint64)" if lo else f"{c}.view(np.uint64)")
        parts.setdefault(w, []).append(sc.emit(f"{r} << {sh}") if sh else r)
    words = []
    for w in range(lay.words):
        if w not in clear:
            words.append(f"{sc.p}{w}")
            continue
        kept = [f"({sc.p}{w} & {FULL ^ clear[w]})" if FULL ^ clear[w] else None] + parts.get(w, [])
        terms = [t for t in kept if t] + ([str(const[w])] if const.get(w) else [])
        words.append(sc.emit(" | ".join(terms)) if terms else sc.emit(f"np.zeros({sc.p}0.shape[0], dtype=np.uint64)"))
    bad = sc.emit(" | ".join(ood)) if ood else None
    return words, bad


def _bucket_source(gen: _Gen, name: str, acts: list, terminal: Expr, witnesses: dict) -> str:
    """One bucket: guards as masks, then per enabled action its successors (see module docstring)."""
    model, lay = gen.model, gen.lay
    W = lay.words
    args = ", ".join(f"c{w}" for w in range(W))
    lines = [f"def {name}({args}, found):", "    out, hits = [], []"]
    sc = _Scope(gen, "c", lines, "    ")
    masks, live = [], []
    for n, guard in acts:
        c, k = sc.cond(guard)
        masks.append((n, c, k))
        if model.actions[n].rule.kind != "fault":
            live.append((c, k))
    for n, c, k in masks:
        a = model.actions[n]
        if k == "B" and not constant(c):
            continue
        lines.append(f"    r = np.flatnonzero({c})" if k == "b" else "    r = np.arange(c0.shape[0])")
        lines.append("    if r.shape[0]:")
        body: list = []
        gs = _Scope(gen, "g", body, "        ")
        body.extend(f"        g{w} = c{w}[r]" for w in range(W))
        words, bad = _effects(gs, a, body, "        ")
        for wi, when in witnesses.get(n, ()):
            wc, wk = gs.cond(when)  # computed unconditionally: CSE names must exist on every path
            if wk == "B" and not constant(wc):
                continue
            body.append(f"        if not found[{wi}]:")
            if wk == "B":
                body.append(f"            hits.append(({wi}, {n}, r[0]))")
            else:
                body.append(f"            wh = np.flatnonzero({wc})")
                body.append(f"            if wh.shape[0]: hits.append(({wi}, {n}, r[wh[0]]))")
        body.append(f"        out.append(({n}, r, ({', '.join(words)},), {bad}))")
        lines.extend(body)
    tc, tk = sc.cond(terminal)
    if any(k == "B" and constant(c) for c, k in live) or (tk == "B" and constant(tc)):
        lines.append("    dead = None")
    else:
        arrs = [c for c, k in live if k == "b"] + ([tc] if tk == "b" else [])
        lines.append(f"    dead = np.flatnonzero(~({' | '.join(arrs)}))" if arrs else "    dead = np.arange(c0.shape[0])")
    lines.append("    return out, dead, hits")
    return "\n".join(lines)


def compile_buckets(model: GameModel, lay: Layout) -> tuple[dict, list]:
    """Raw dispatch value (or None) -> generated bucket function; and the witness names, in order.

    A fires-witness is checked on the pre-state of each firing action (its `when` with the
    action's parameters substituted), as `checks.engines.explicit` does.
    """
    gen = _Gen(model, lay)
    wnames = [w.name for w in model.witnesses if w.fires]
    by_action: dict = {}
    for wi, w in enumerate([w for w in model.witnesses if w.fires]):
        for n, a in enumerate(model.actions):
            if a.rule.name in w.fires:
                when = substitute(w.when, dict(a.args)) if w.when is not None else Const(True)
                by_action.setdefault(n, []).append((wi, when))
    d = model.dispatch
    values = model.schema.field(d).domain.values if d else [None]
    src: list[str] = []
    keys: dict[int | None, str] = {}
    for v in values:
        fold = (lambda e: substitute(replace_var(e, d, v), {})) if d else (lambda e: e)
        acts = [(n, g) for n, a in enumerate(model.actions) if (g := fold(a.guard)) != Const(False)]
        wit = {n: [(wi, fold(x)) for wi, x in ws] for n, ws in by_action.items()}
        raw = None if v is None or d is None else int(v) - lay.lo[model.schema.slot(d)]
        keys[raw] = f"bucket{len(keys)}"
        src.append(_bucket_source(gen, keys[raw], acts, fold(model.terminal), wit))
    ns = load("\n\n".join(src), f"<vector {model.name}>", gen.namespace())
    return {raw: ns[name] for raw, name in keys.items()}, wnames


def compile_predicates(model: GameModel, lay: Layout, exprs: list) -> list:
    """One generated function per state predicate: words -> boolean mask (or a Python bool).

    A predicate true whenever the dispatch slot lies outside a few values (`dispatch_support`: a permission's
    `stage = X and ... => enabled`, NOTE(permissions)) is evaluated only on the rows at those values; the
    others are true without reading the rest of it."""
    gen = _Gen(model, lay)
    src = []
    words = ", ".join(f"c{w}" for w in range(lay.words))
    for k, e in enumerate(exprs):
        support = dispatch_support(e, model.dispatch) if model.dispatch else None
        name = f"p{k}" if not support else f"p{k}_rows"
        lines = [f"def {name}({words}):"]
        sc = _Scope(gen, "c", lines, "    ")
        c, kind = sc.cond(e)
        lines.append(f"    return {c}" if kind == "b" else f"    return np.full(c0.shape[0], {c})")
        src.append("\n".join(lines))
        if support:
            dispatch = model.dispatch
            assert dispatch is not None  # a support set exists only with a dispatch slot
            lines = [f"def p{k}({words}):"]
            sc = _Scope(gen, "c", lines, "    ")
            m, mkind = sc.cond(any_of(Var(dispatch).eq(v) for v in sorted(support)))
            if mkind != "b":  # decided by the domain: no rows to skip
                lines.append(f"    return {name}({words})")
            else:
                lines += [f"    if not {m}.any():", "        return np.ones(c0.shape[0], dtype=bool)",
                          "    out = np.ones(c0.shape[0], dtype=bool)",
                          f"    out[{m}] = {name}({', '.join(f'c{w}[{m}]' for w in range(lay.words))})",
                          "    return out"]
            src.append("\n".join(lines))
    ns = load("\n\n".join(src) or "pass", f"<vector predicates {model.name}>", gen.namespace())
    return [ns[f"p{k}"] for k in range(len(exprs))]


def dispatch_support(e: Expr, dispatch: str):
    """The dispatch values outside which `e` is true whatever the other slots hold, or None if none is known.

    >>> sorted(dispatch_support(Var("stage").ne(3) | (Var("x") < 1), "stage"))
    [3]
    """
    match e:
        case Const(value=True):
            return frozenset()
        case And(args=xs):
            parts = [dispatch_support(x, dispatch) for x in xs]
            return None if any(p is None for p in parts) else frozenset().union(*parts)
        case Or(args=xs):
            needs = [_required(x.arg, dispatch) for x in xs if isinstance(x, Not)]
            known = [n for n in needs if n is not None]
            return min(known, key=len) if known else None
        case Not(arg=w):
            return _required(w, dispatch)
    return None


def _required(w: Expr, dispatch: str):
    """The dispatch values `w` needs to be true (None: any)."""
    match w:
        case Eq(a=Var(field=f, index=()), b=Const(value=k)) if f == dispatch:
            return frozenset((k,))
        case And(args=xs):
            known = [r for r in (_required(x, dispatch) for x in xs) if r is not None]
            return min(known, key=len) if known else None
        case Or(args=xs):
            parts = [_required(x, dispatch) for x in xs]
            return None if any(p is None for p in parts) else frozenset().union(*parts)
    return None
