"""Candidate lemmas mined from explored states: terms and templates declared per sort.

prototype
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from model.domains import Bool, Enum, IntRange
from model.expr import Const, Eq, Expr, Var, all_of, any_of, count, implies


QUANTITY = 8


@dataclass
class Term:
    text: str
    expr: Expr
    sort: str                  # "bool" | "int" | "enum:<domain name>"
    labels: tuple | None       # enum labels (display)
    slots: frozenset
    guard: bool                # usable as a guard
    lo: int                    # the least value the term can take in principle
    hi: float                  # the greatest (inf: unbounded)
    col: np.ndarray | None = None

    def show(self, v: int) -> str:
        if self.sort == "bool":
            return "yes" if v else "no"
        if self.labels is not None:
            return self.labels[v]
        return str(v)


def state_table(states, schema) -> np.ndarray:
    rows = states
    if hasattr(rows, "lay"):
        K = rows.arr[:rows.n]
        lay = rows.lay
        X = np.empty((rows.n, len(lay.lo)), dtype=np.int32)
        for i in range(len(lay.lo)):
            X[:, i] = ((K[:, lay.word[i]] >> np.uint64(lay.shift[i])) & np.uint64(lay.mask[i])).astype(np.int32) \
                + lay.lo[i]
        return X
    return np.array([[int(v) for v in s] for s in rows], dtype=np.int32)


def _domain_terms(schema, unbounded):
    out = []
    for i, (name, f) in enumerate(zip(schema.slot_names, schema.slot_fields)):
        idx = schema_index(schema, i)
        e = Var(f.name, tuple(Const(x) for x in idx))
        out.append(_term_for(name, e, f.domain, frozenset([i]), unbounded=i in unbounded, guard=True))
    return out


def _term_for(text, e, dom, slots, unbounded=False, guard=True):
    if isinstance(dom, Bool):
        return Term(text, e, "bool", None, slots, guard, 0, 1)
    if isinstance(dom, Enum):
        return Term(text, e, f"enum:{dom.name}", dom.labels, slots, guard and len(dom.labels) <= 32, 0,
                    len(dom.labels) - 1)
    return Term(text, e, "int", None, slots, guard and not unbounded and dom.hi - dom.lo <= 3, dom.lo,
                float("inf") if unbounded else dom.hi)


_INDEX_CACHE: dict = {}


def schema_index(schema, i):
    key = id(schema)
    if key not in _INDEX_CACHE:
        inv = {}
        for (fname, idx), slot in schema._slots.items():
            inv[slot] = idx
        _INDEX_CACHE[key] = inv
    return _INDEX_CACHE[key][i]


def indirect_terms(schema, X, unbounded):
    """f[y] for an array field f and scalar slots y over f's index domain."""
    scalars = [(i, f) for i, f in enumerate(schema.slot_fields) if not f.dims]
    out = []
    for f in schema.fields:
        if not f.dims or len(f.dims) > 2:
            continue
        options = []
        for d in f.dims:
            opts = [("c", v) for v in d.values] + [("s", i) for i, g in scalars if g.domain == d]
            options.append(opts)
        for combo in itertools.product(*options):
            if not any(kind == "s" for kind, _ in combo):
                continue
            lookup = np.zeros(tuple(len(d.values) for d in f.dims), dtype=np.int64)
            for idx in itertools.product(*(d.values for d in f.dims)):
                lookup[idx] = schema.slot(f.name, idx)
            keys = tuple(X[:, x] if kind == "s" else np.full(len(X), x) for kind, x in combo)
            slotcol = lookup[keys]
            col = X[np.arange(len(X)), slotcol]
            idx_e = tuple(Var(schema.slot_fields[x].name) if kind == "s" else Const(x) for kind, x in combo)
            text = f.name + "".join(
                f"[{schema.slot_names[x]}]" if kind == "s" else f"[{d.show(x)}]" for (kind, x), d in zip(combo, f.dims))
            slots = frozenset(x for kind, x in combo if kind == "s") | frozenset(lookup.ravel().tolist())
            ub = any(s in unbounded for s in lookup.ravel().tolist())
            t = _term_for(text, Var(f.name, idx_e), f.domain, slots, unbounded=ub, guard=False)
            t.col = col
            out.append(t)
    return out


def count_terms(schema, X):
    out = []
    for f in schema.fields:
        if len(f.dims) != 1 or not isinstance(f.domain, (Enum, Bool)):
            continue
        d = f.dims[0]
        slots = [schema.slot(f.name, (k,)) for k in d.values]
        for v in f.domain.values:
            e = count(Var(f.name, (Const(k),)).eq(Const(v)) for k in d.values)
            show = f.domain.show(v)
            t = Term(f"#{f.name}={show}", e, "int", None, frozenset(slots), True, 0, len(slots))
            t.col = (X[:, slots] == int(v)).sum(axis=1).astype(np.int32)
            out.append(t)
    return out


def comparable(a: Term, b: Term) -> bool:
    if a.sort == "bool" or b.sort == "bool":
        return False
    if a.sort == b.sort:
        return True
    if a.labels and b.labels:
        return a.labels[0] == b.labels[0]
    return False


def relation_terms(terms):
    out = []
    enums = [t for t in terms if t.sort.startswith("enum:")]
    for a, b in itertools.combinations(enums, 2):
        if not comparable(a, b) or a.slots & b.slots and len(a.slots) == 1:
            continue
        t = Term(f"{a.text} = {b.text}", a.expr.eq(b.expr), "bool", None, a.slots | b.slots, False, 0, 1)
        t.col = (a.col == b.col).astype(np.int32)
        out.append(t)
    return out


def all_terms(schema, X, unbounded):
    base = _domain_terms(schema, unbounded)
    for i, t in enumerate(base):
        t.col = X[:, i]
    terms = base + indirect_terms(schema, X, unbounded) + count_terms(schema, X)
    return terms + relation_terms(terms)


def atom(t: Term, vals) -> tuple[str, Expr] | None:
    """t takes one of `vals` (sorted observed values): text and expression, None when trivial."""
    vals = sorted(int(v) for v in vals)
    if t.sort == "int":
        lo, hi = vals[0], vals[-1]
        parts, es = [], []
        if lo > t.lo:
            es.append(Const(lo) <= t.expr)
        if hi < t.hi:
            es.append(t.expr <= Const(hi))
        if not es:
            return None
        text = f"{t.text} = {lo}" if lo == hi else (f"{lo} <= {t.text} <= {hi}" if len(es) == 2 else
                                                    (f"{t.text} >= {lo}" if lo > t.lo else f"{t.text} <= {hi}"))
        return text, all_of(es)
    full = list(range(int(t.lo), int(t.hi) + 1))
    if len(vals) == len(full):
        return None
    if t.sort == "bool":
        v = vals[0]
        return (t.text if v else f"not ({t.text})"), (t.expr if v else ~t.expr)
    rest = [v for v in full if v not in vals]
    if len(vals) <= len(rest):
        text = f"{t.text} = {t.show(vals[0])}" if len(vals) == 1 else \
            f"{t.text} in {{{', '.join(t.show(v) for v in vals)}}}"
        return text, any_of(t.expr.eq(Const(v)) for v in vals)
    text = f"{t.text} != {t.show(rest[0])}" if len(rest) == 1 else \
        f"{t.text} not in {{{', '.join(t.show(v) for v in rest)}}}"
    return text, all_of(t.expr.ne(Const(v)) for v in rest)


def mine(schema, X, unbounded, max_onehot=24, chunk=1 << 15):
    t0 = time.perf_counter()
    terms = all_terms(schema, X, unbounded)
    t1 = time.perf_counter()
    cands = {}
    observed = []
    for t in terms:
        vals = np.unique(t.col)
        observed.append(vals)
        a = atom(t, vals) if t.hi != float("inf") and (t.sort != "int" or t.hi - t.lo < QUANTITY) else None
        if a is not None:
            cands.setdefault(("g", t.text), a)
    # one-hot co-occurrence
    oh = [i for i, t in enumerate(terms) if len(observed[i]) <= max_onehot and t.hi != float("inf")
          and len(observed[i]) > 1 and (t.sort != "int" or t.hi - t.lo < QUANTITY)]
    offs, W = {}, 0
    for i in oh:
        offs[i] = W
        W += len(observed[i])
    guards = [i for i in oh if terms[i].guard]
    gcols = np.concatenate([np.arange(offs[i], offs[i] + len(observed[i])) for i in guards])
    P = np.zeros((len(gcols), W), dtype=np.float32)
    n = len(X)
    for r0 in range(0, n, chunk):
        r1 = min(n, r0 + chunk)
        O = np.zeros((r1 - r0, W), dtype=np.float32)
        rr = np.arange(r1 - r0)
        for i in oh:
            O[rr, offs[i] + np.searchsorted(observed[i], terms[i].col[r0:r1])] = 1.0
        P += O[:, gcols].T @ O
    t2 = time.perf_counter()
    row = 0
    for gi in guards:
        g = terms[gi]
        for gv_pos, gv in enumerate(observed[gi]):
            pres = P[row]
            row += 1
            for ti in oh:
                t = terms[ti]
                if ti == gi or (t.slots & g.slots and (len(t.slots) == 1 or len(g.slots) == 1 and g.slots <= t.slots)):
                    continue
                seg = pres[offs[ti]:offs[ti] + len(observed[ti])]
                vals = observed[ti][seg > 0]
                if len(vals) == len(observed[ti]):
                    continue
                if t.sort == "int" and vals.min() == observed[ti].min() and vals.max() == observed[ti].max():
                    continue
                a = atom(t, vals)
                if a is None:
                    continue
                gtext = f"{g.text} = {g.show(int(gv))}" if g.sort != "bool" else (g.text if gv else f"not {g.text}")
                gexpr = g.expr.eq(Const(int(gv))) if g.sort != "bool" else (g.expr if gv else ~g.expr)
                key = frozenset([(g.text, int(gv), "not"), (t.text, a[0])])
                if t.sort == "bool" and g.sort == "bool":
                    # a => b and not b => not a are one clause
                    key = frozenset([(g.text, 1 - int(gv)), (t.text, int(vals[0]))])
                cands.setdefault(key, (f"{gtext} => {a[0]}", implies(gexpr, a[1])))
    # int differences (global only)
    ints = [i for i, t in enumerate(terms) if t.sort == "int" and i < len(schema)]
    for i, j in itertools.combinations(ints, 2):
        a, b = terms[i], terms[j]
        ua, ub = a.hi == float("inf"), b.hi == float("inf")
        if ua != ub or (not ua and (schema.slot_fields[i].domain != schema.slot_fields[j].domain
                                    or a.hi - a.lo >= QUANTITY)):
            continue
        d = a.col.astype(np.int64) - b.col
        lo, hi = int(d.min()), int(d.max())
        alo = a.lo if a.hi == float("inf") else observed[i].min()
        ahi = a.hi if a.hi == float("inf") else observed[i].max()
        blo = b.lo if b.hi == float("inf") else observed[j].min()
        bhi = b.hi if b.hi == float("inf") else observed[j].max()
        if hi < ahi - blo:
            cands.setdefault(("d<=", a.text, b.text), (f"{a.text} - {b.text} <= {hi}", a.expr - b.expr <= Const(hi)))
        if lo > alo - bhi:
            cands.setdefault(("d>=", a.text, b.text), (f"{a.text} - {b.text} >= {lo}", Const(lo) <= a.expr - b.expr))
    t3 = time.perf_counter()
    return list(cands.values()), dict(terms=len(terms), onehot=W, guards=len(gcols), t_terms=t1 - t0,
                                      t_cooc=t2 - t1, t_rest=t3 - t2)
