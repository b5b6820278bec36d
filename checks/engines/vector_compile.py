"""The packed-word printer: rules compiled to NumPy operations over a whole frontier of packed states.

Every guard, effect and predicate arrives lowered (`model.lower`: slots resolved, kinds and coercions
explicit, constants folded); this module only decides how each lowered node reads the packed words.

One generated function per value of the model's `dispatch` field (the stage). It receives the
words of every frontier state in that stage (`c0 .. cW-1`, one uint64 array per word, see
`packing.Layout`) and returns, per enabled action, the rows it is enabled on and the successor
words; plus the deadlocked rows and the witnesses that fired. Guards become boolean masks,
effects column updates:

- the dispatch slot is bound to the bucket's constant (with every slot the layout holds at one value) and
  the guard folded by the lowering, so each bucket holds exactly the actions that can fire there;
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

from typing import Union

import numpy as np

from model.expr import Add, And, Const, Div, Eq, Expr, Ite, Not, Or, Sub, Var, any_of, substitute

from model.game import GameModel
from model.lower import Gather, Kind, Lit, Low, Op, Read, as_bool, as_int, fold, load, lower

from checks.engines.packing import Layout

FULL = (1 << 64) - 1
FLIP = {"==": "==", "<": ">", "<=": ">="}
Code = Union[Lit, str]  # a printed value: a folded constant, or the name of an array

def src(c: Code) -> str:
    """Source text of a printed value."""
    return repr(c.value) if isinstance(c, Lit) else c

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

    def lowered(self, e: Expr, kind: Kind) -> Code:
        """`e` lowered on this layout (its one-valued slots bound, comparisons the domains decide folded),
        printed as `kind`."""
        x = lower(e, self.g.schema, self.g.bind, in_domain=True)
        return self.val(as_bool(x) if kind is Kind.BOOL else as_int(x))

    # -- slot access -------------------------------------------------------------------------
    def atom(self, slot: int, op: str, k: int) -> str:
        """`slot op k` (op: ==, <, <=, >, >=) on the packed word; `k` inside the slot's domain."""
        lay = self.g.lay
        w, sh, m = lay.word[slot], lay.shift[slot], lay.mask[slot]
        return self.emit(f"({self.p}{w} & {m << sh}) {op} {(int(k) - lay.lo[slot]) << sh}")

    def raw(self, slot: int) -> str:
        lay = self.g.lay
        w, sh, m = lay.word[slot], lay.shift[slot], lay.mask[slot]
        return self.emit(f"({self.p}{w} >> {sh}) & {m}" if sh else f"{self.p}{w} & {m}")

    # -- values --------------------------------------------------------------------------------
    def val(self, x: Low) -> Code:
        """A lowered node printed: a boolean or integer array (its kind), or a constant."""
        key = ("v", x)
        if key not in self.memo:
            self.memo[key] = self._val(x)
        return self.memo[key]

    def _val(self, x: Low) -> Code:
        lay = self.g.lay
        match x:
            case Lit():
                return x
            case Read(slot=s, kind=kind):
                if kind is Kind.BOOL:
                    return self.atom(s, "==", 1)
                r = self.emit(f"({self.raw(s)}).view(np.int64)")
                return self.emit(f"{r} + {lay.lo[s]}") if lay.lo[s] else r
            case Gather():
                return self.gather(x)
            case Op(op=Op.AND | Op.OR):
                return self.junction(x.op == Op.AND, x.args)
            case Op(op=Op.NOT, args=(Read(slot=s, kind=Kind.BOOL),)):
                return self.atom(s, "==", 0)
            case Op(op=Op.EQ | Op.LT | Op.LE, args=(Read(slot=s), Lit(value=k))) if lay.bits[s]:
                return self.atom(s, x.op, int(k))
            case Op(op=Op.EQ | Op.LT | Op.LE, args=(Lit(value=k), Read(slot=s))) if lay.bits[s]:
                return self.atom(s, FLIP[x.op], int(k))
        assert isinstance(x, Op)
        args = [self.val(a) for a in x.args]
        if all(isinstance(a, Lit) for a in args):  # an operand a conjunction decided while printing
            return Lit(fold(x, [a.value for a in args if isinstance(a, Lit)]))
        a = [src(c) for c in args]
        if x.op == Op.NOT:
            return self.emit(f"~{a[0]}")
        if x.op == Op.INT:
            return self.emit(f"{a[0]}.astype(np.int64)")
        if x.op == Op.TRUTH:
            return self.emit(f"{a[0]} != 0")
        if x.op == Op.DIV:
            return self.emit(f"{a[0]} // {x.k}")
        if x.op == Op.ITE:
            if isinstance(args[0], Lit):
                return args[1] if args[0].value else args[2]
            return self.emit(f"np.where({a[0]}, {a[1]}, {a[2]})")
        return self.emit(f" {x.op} ".join(a))

    def eq_atom(self, x: Low):
        """(slot, raw value) when `x` is `slot = k` or a boolean slot (negated or not); else None."""
        lay = self.g.lay
        match x:
            case Op(op=Op.EQ, args=(Read(slot=s), Lit(value=k))) | Op(op=Op.EQ, args=(Lit(value=k), Read(slot=s))):
                return (s, int(k) - lay.lo[s]) if lay.bits[s] else None
            case Read(slot=s, kind=Kind.BOOL):
                return s, 1 - lay.lo[s]
            case Op(op=Op.NOT, args=(Read(slot=s, kind=Kind.BOOL),)):
                return s, 0 - lay.lo[s]
        return None

    def junction(self, is_and: bool, xs: tuple) -> Code:
        lay = self.g.lay
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
                    return Lit(False)
                m, v = per_word.get(lay.word[s], (0, 0))
                per_word[lay.word[s]] = (m | lay.mask[s] << lay.shift[s], v | vals[0] << lay.shift[s])
            parts += [self.emit(f"({self.p}{w} & {m}) == {v}") for w, (m, v) in sorted(per_word.items())]
        else:
            for s, vals in atoms.items():
                vals = sorted({v for v in vals if 0 <= v <= lay.hi[s] - lay.lo[s]})
                if len(vals) == 1:
                    parts.append(self.atom(s, "==", vals[0] + lay.lo[s]))
                elif vals:
                    lut = self.g.table(np.isin(np.arange(1 << lay.bits[s]), vals))
                    parts.append(self.emit(f"{lut}[{self.raw(s)}]"))
        for x in rest:
            c = self.val(x)
            if isinstance(c, Lit):
                if c.value != is_and:
                    return Lit(not is_and)
                continue
            parts.append(c)
        if not parts:
            return Lit(is_and)
        return parts[0] if len(parts) == 1 else self.emit((" & " if is_and else " | ").join(parts))

    def gather(self, x: Gather) -> str:
        """A read at a state-dependent index: flat slot number per row, then a per-row shift and mask."""
        lay = self.g.lay
        off, stride = "0", 1
        for values, ix in reversed(list(zip(x.dims, x.index))):
            off = f"({off}) + (({src(self.val(ix))}) - {int(values[0])}) * {stride}"
            stride *= len(values)
        flat = self.emit(f"np.clip(np.asarray({off}, dtype=np.int64), 0, {len(x.slots) - 1})")
        slots = np.array(x.slots, dtype=np.int64)
        sl = self.emit(f"{self.g.table(slots)}[{flat}]")
        cw = self.emit(f"np.stack(({', '.join(f'{self.p}{w}' for w in range(lay.words))},))")
        ar = self.emit(f"np.arange({self.p}0.shape[0])")
        word = self.g.table(np.array(lay.word, dtype=np.int64))
        sh = self.g.table(np.array(lay.shift, dtype=np.uint64))
        mk = self.g.table(np.array(lay.mask, dtype=np.uint64))
        lo = self.g.table(np.array(lay.lo, dtype=np.int64))
        raw = self.emit(f"(({cw}[{word}[{sl}], {ar}] >> {sh}[{sl}]) & {mk}[{sl}]).view(np.int64)")
        if x.kind is Kind.BOOL:
            if any(lay.lo[int(i)] for i in slots):  # a constant True slot among them (Layout's `fixed`)
                return self.emit(f"({raw} + {lo}[{sl}]) != 0")
            return self.emit(f"{raw} != 0")
        return self.emit(f"{raw} + {lo}[{sl}]")

def interval(e: Expr, lay: Layout, schema) -> tuple:
    """Bounds of an integer expression over in-domain states (for skipping range checks)."""
    iv = lambda x: interval(x, lay, schema)  # noqa: E731
    match e:
        case Const(value=v):
            return int(v), int(v)
        case Var(field=f):
            slots = schema.slots_of(f).values()
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
        # Slots that take no bits hold one value on this layout (Layout's `fixed`, or a one-valued domain).
        self.fixed: dict = {i: (lay.lo[i] != 0 if lay.is_bool[i] else lay.lo[i]) for i in range(len(lay.lo)) if not lay.bits[i]}
        self.bind: dict = dict(self.fixed)

    def low(self, e: Expr) -> Low:
        """`e` lowered for this layout and bucket, as a boolean."""
        return as_bool(lower(e, self.schema, self.bind, in_domain=True))

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
            c = sc.lowered(value, Kind.BOOL)
            if isinstance(c, Lit):
                const[w] = const.get(w, 0) | int(c.value) << sh
            else:
                parts.setdefault(w, []).append(sc.emit(f"{c}.astype(np.uint64)" + (f" << {sh}" if sh else "")))
            continue
        c = sc.lowered(value, Kind.INT)
        lo, hi = lay.lo[s], lay.hi[s]
        if isinstance(c, Lit):
            if not lo <= int(c.value) <= hi:
                ood.append(sc.emit(f"np.ones({sc.p}0.shape[0], dtype=bool)"))
            else:
                const[w] = const.get(w, 0) | (int(c.value) - lo) << sh
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

def _bucket_source(gen: _Gen, name: str, acts: list, terminal: Low, witnesses: dict) -> str:
    """One bucket: guards as masks, then per enabled action its successors (see module docstring). The
    guards, witnesses and terminal condition come lowered for the bucket's stage."""
    model, lay = gen.model, gen.lay
    W = lay.words
    args = ", ".join(f"c{w}" for w in range(W))
    lines = [f"def {name}({args}, found):", "    out, hits = [], []"]
    sc = _Scope(gen, "c", lines, "    ")
    masks, live = [], []
    for n, guard in acts:
        c = sc.val(guard)
        masks.append((n, c))
        if model.actions[n].rule.kind != "fault":
            live.append(c)
    for n, c in masks:
        a = model.actions[n]
        if isinstance(c, Lit) and not c.value:
            continue
        lines.append(f"    r = np.flatnonzero({c})" if not isinstance(c, Lit) else "    r = np.arange(c0.shape[0])")
        lines.append("    if r.shape[0]:")
        body: list = []
        gs = _Scope(gen, "g", body, "        ")
        body.extend(f"        g{w} = c{w}[r]" for w in range(W))
        words, bad = _effects(gs, a, body, "        ")
        for wi, when in witnesses.get(n, ()):
            wc = gs.val(when)  # computed unconditionally: CSE names must exist on every path
            if isinstance(wc, Lit) and not wc.value:
                continue
            body.append(f"        if not found[{wi}]:")
            if isinstance(wc, Lit):
                body.append(f"            hits.append(({wi}, {n}, r[0]))")
            else:
                body.append(f"            wh = np.flatnonzero({wc})")
                body.append(f"            if wh.shape[0]: hits.append(({wi}, {n}, r[wh[0]]))")
        body.append(f"        out.append(({n}, r, ({', '.join(words)},), {bad}))")
        lines.extend(body)
    tc = sc.val(terminal)
    if any(isinstance(c, Lit) and c.value for c in live + [tc]):
        lines.append("    dead = None")
    else:
        arrs = [c for c in live + [tc] if not isinstance(c, Lit)]
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
        gen.bind = gen.fixed | ({model.schema.slot(d): v} if d else {})
        acts = [(n, g) for n, a in enumerate(model.actions) if (g := gen.low(a.guard)) != Lit(False)]
        wit = {n: [(wi, gen.low(x)) for wi, x in ws] for n, ws in by_action.items()}
        raw = None if v is None or d is None else int(v) - lay.lo[model.schema.slot(d)]
        keys[raw] = f"bucket{len(keys)}"
        src.append(_bucket_source(gen, keys[raw], acts, gen.low(model.terminal), wit))
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
        c = sc.val(gen.low(e))
        lines.append(f"    return {c}" if not isinstance(c, Lit) else f"    return np.full(c0.shape[0], {c.value})")
        src.append("\n".join(lines))
        if support:
            dispatch = model.dispatch
            assert dispatch is not None  # a support set exists only with a dispatch slot
            lines = [f"def p{k}({words}):"]
            sc = _Scope(gen, "c", lines, "    ")
            m = sc.val(gen.low(any_of(Var(dispatch).eq(v) for v in sorted(support))))
            if isinstance(m, Lit):  # decided by the domain: no rows to skip
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
