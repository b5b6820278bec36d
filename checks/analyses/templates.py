"""Candidate-lemma templates, declared per sort (never per rule), and their instances mined from states.

A *term* is a value computed from a state: a slot, an array field read at an index held by another
slot (`tstatus[entry_face]`), the number of elements of a one-dimensional array holding a value
(`#tstatus=placed`), or whether two terms of one sort are equal (`tloc[Robbery] = pending_dest`).
Which terms exist follows from the schema's domains alone:

| sort | terms | templates |
| --- | --- | --- |
| Bool | the slot | its value, alone or under a guard |
| Enum | the slot; `f[x]` for an array field `f` over that Enum and a scalar slot `x` of it; equality with another term of the same or an overlapping Enum (equal labels at equal positions) | the set of values it takes, alone or under a guard |
| small IntRange (at most `COUNTER` values) | the slot; counts of a value in a 1-D array of Bools or Enums | its range alone; its constant value under a guard |
| wide IntRange (a quantity) | the slot | its range, alone |
| unbounded IntRange (`model.unbounded_slots`) | the slot | `x < y`, `x <= y`, `x != y` against another unbounded slot |

A *guard* is `d = v` for the model's dispatch slot `d` (the decision stage; `model.dispatch`).
Candidates no template states come from induction failures instead (`generalise`). Every candidate is an
instance that holds on every row of the state table it was mined from (reachable states of small
configurations of the same rules); nothing more is claimed of it here: Houdini decides which are
proved (checks/engines/houdini.py).

>>> from model.domains import Bool, Enum
>>> from model.schema import Field, Schema
>>> sch = Schema((Field("stage", Enum("Stage", ("a", "b"))), Field("flag", Bool())))
>>> X = np.array([[0, 0], [1, 1], [1, 0]])
>>> [c.text for c in mine(sch, X, frozenset(), dispatch=0)]
['stage = a => not flag']
"""
from __future__ import annotations

import itertools
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from checks.clock import Clock
from model.domains import Bool, Enum
from model.expr import Const, Expr, Var, all_of, any_of, count, implies

COUNTER = 8  # IntRange domains with at most this many values are counters; wider ones are quantities
INF = float("inf")
GUARD_CHUNK = 16  # terms per block of `Miner.guarded_by` (a block: guard vectors x those terms' values, float32)


@dataclass
class Term:
    """A value computed from a state: its text, expression, sort and the slots it reads."""

    text: str
    expr: Expr
    sort: str                 # "bool", "enum:<name>", "counter", "quantity" or "unbounded"
    labels: tuple | None      # value labels (Enum sorts)
    slots: frozenset
    lo: int                   # least value the term can take
    hi: float                 # greatest (INF for unbounded)
    column: object = field(default=None, repr=False)  # X -> the term's value in every row
    parts: tuple = field(default=(), repr=False)  # an equality's two terms (`Miner.col` reuses their columns)

    def show(self, v: int) -> str:
        if self.sort == "bool":
            return "yes" if v else "no"
        return self.labels[v] if self.labels is not None else str(v)

    def atoms(self, vals) -> list:
        """"this term takes one of `vals`" as [(text, expression)], split into its weakest parts so
        that Houdini can keep one when another fails: a range is two bounds, a set of Enum values
        is one exclusion per missing value (a single value stays one equality). [] when it says
        nothing the domain does not."""
        vals = sorted(int(v) for v in vals)
        if self.sort in ("counter", "quantity"):
            lo, hi, out = vals[0], vals[-1], []
            if lo > self.lo:
                out.append((f"{self.text} >= {lo}", Const(lo) <= self.expr))
            if hi < self.hi:
                out.append((f"{self.text} <= {hi}", self.expr <= Const(hi)))
            return out
        rest = [v for v in range(self.lo, int(self.hi) + 1) if v not in vals]
        if not rest:
            return []
        if self.sort == "bool":
            return [(self.text, self.expr) if vals[0] else (f"not {self.text}", ~self.expr)]
        if len(vals) == 1:
            return [(f"{self.text} = {self.show(vals[0])}", self.expr.eq(Const(vals[0])))]
        return [(f"{self.text} != {self.show(w)}", self.expr.ne(Const(w))) for w in rest]


@dataclass(frozen=True)
class Candidate:
    """One candidate lemma: its text (also its name), expression and the slots it reads."""

    text: str
    expr: Expr
    slots: frozenset


def _slot_term(schema, i: int, unbounded: frozenset) -> Term:
    f = schema.slot_fields[i]
    idx = _slot_index(schema)[i]
    e = Var(f.name, tuple(Const(x) for x in idx))
    return _term(schema.slot_names[i], e, f.domain, frozenset([i]), i in unbounded, lambda X, i=i: X[:, i])


def _term(text, e, dom, slots, unbounded, column) -> Term:
    if isinstance(dom, Bool):
        return Term(text, e, "bool", None, slots, 0, 1, column)
    if isinstance(dom, Enum):
        return Term(text, e, f"enum:{dom.name}", dom.labels, slots, 0, len(dom.labels) - 1, column)
    if unbounded:
        return Term(text, e, "unbounded", None, slots, dom.lo, INF, column)
    sort = "counter" if dom.hi - dom.lo < COUNTER else "quantity"
    return Term(text, e, sort, None, slots, dom.lo, dom.hi, column)


def _slot_index(schema) -> dict:
    return {slot: idx for slot, (_, idx) in enumerate(schema.slot_keys())}


def _indirect_terms(schema, unbounded: frozenset) -> list:
    """f[x] for an array field f and scalar slots x over f's index domain (other indices constant)."""
    scalars = [(i, f) for i, f in enumerate(schema.slot_fields) if not f.dims]
    out = []
    for f in schema.fields:
        if not f.dims or isinstance(f.domain, Bool) and len(f.dims) > 1:
            continue
        options = [[("c", v) for v in d.values] + [("s", i) for i, g in scalars if g.domain == d] for d in f.dims]
        table = np.zeros(tuple(len(d.values) for d in f.dims), dtype=np.int64)
        for combo in itertools.product(*(d.values for d in f.dims)):
            table[combo] = schema.slot(f.name, combo)
        for combo in itertools.product(*options):
            if not any(kind == "s" for kind, _ in combo):
                continue
            idx = tuple(Var(schema.slot_fields[x].name) if kind == "s" else Const(x) for kind, x in combo)
            text = f.name + "".join(f"[{schema.slot_names[x]}]" if kind == "s" else f"[{d.show(x)}]"
                                    for (kind, x), d in zip(combo, f.dims))
            reads = frozenset(table.ravel().tolist()) | {x for kind, x in combo if kind == "s"}

            def column(X, combo=combo, table=table):
                keys = tuple(X[:, x] if kind == "s" else np.full(len(X), x) for kind, x in combo)
                return X[np.arange(len(X)), table[keys]]
            out.append(_term(text, Var(f.name, idx), f.domain, reads, bool(reads & unbounded), column))
    return out


def _count_terms(schema) -> list:
    """#f=v: how many elements of a one-dimensional array f of Bools or Enums hold v."""
    out = []
    for f in schema.fields:
        if len(f.dims) != 1 or not isinstance(f.domain, (Bool, Enum)):
            continue
        slots = [schema.slot(f.name, (k,)) for k in f.dims[0].values]
        for v in f.domain.values:
            e = count(Var(f.name, (Const(k),)).eq(Const(v)) for k in f.dims[0].values)
            out.append(Term(f"#{f.name}={f.domain.show(v)}", e, "counter", None, frozenset(slots), 0, len(slots),
                            lambda X, s=slots, v=int(v): (X[:, s] == v).sum(axis=1)))
    return out


def overlapping(a: Term, b: Term) -> bool:
    """Two Enum terms whose values can be compared: the same Enum, or equal first labels."""
    return a.sort == b.sort or bool(a.labels and b.labels and a.labels[0] == b.labels[0])


def _equality_terms(terms: list) -> list:
    enums = [t for t in terms if t.sort.startswith("enum:")]
    out = []
    for a, b in itertools.combinations(enums, 2):
        if overlapping(a, b) and not (a.slots <= b.slots or b.slots <= a.slots):
            out.append(Term(f"({a.text} = {b.text})", a.expr.eq(b.expr), "bool", None, a.slots | b.slots, 0, 1,
                            lambda X, a=a, b=b: a.column(X) == b.column(X), (a, b)))
    return out


def terms(schema, unbounded: frozenset) -> list:
    """Every term of the schema, in a fixed order (slots, indirect reads, counts, equalities)."""
    base = [_slot_term(schema, i, unbounded) for i in range(len(schema))]
    base += _indirect_terms(schema, unbounded) + _count_terms(schema)
    return base + _equality_terms(base)


def _present(col: np.ndarray) -> np.ndarray:
    """The distinct values of an integer column, sorted (bincount: no sort of the column)."""
    lo = int(col.min())
    return np.flatnonzero(np.bincount(col - lo)) + lo


def _rank(col: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """Each row's position of its value in `vals` (the column's distinct values, sorted)."""
    lut = np.zeros(int(vals[-1] - vals[0]) + 1, dtype=np.int64)
    lut[vals - vals[0]] = np.arange(len(vals))
    return lut[col - vals[0]]


def _distinct(ranks: np.ndarray) -> tuple:
    """The distinct rows of a small-integer matrix (in some fixed order) and each row's index among them."""
    r = np.ascontiguousarray(ranks, dtype=np.uint16)
    rows, index = np.unique(r.view(np.dtype((np.void, 2 * r.shape[1]))).ravel(), return_inverse=True)
    return rows.view(np.uint16).reshape(-1, r.shape[1]), index.reshape(-1)


def _cross(gi: np.ndarray, ng: int, col: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """(guard value x term value) presence matrix over the rows; `gi` is the guard's rank column."""
    hits = np.bincount(gi * len(vals) + _rank(col, vals), minlength=ng * len(vals))
    return hits.reshape(ng, len(vals)) > 0


class Miner:
    """The terms of one schema evaluated on one state table, and the candidates they support.

    `unary()`: every finite term's observed values; `guarded(g)`: under each value of guard term
    `g`, the values of every other finite term (counters only when constant there); `orders()`:
    orderings between unbounded slots.
    """

    def __init__(self, schema, X: np.ndarray, unbounded: frozenset):
        self.schema = schema
        self.terms = terms(schema, unbounded)
        self.X = X
        self.at = {t.text: k for k, t in enumerate(self.terms)}
        self.cols: dict = {}
        self.vals: dict = {}

    def col(self, k: int) -> np.ndarray:
        if k not in self.cols:
            t = self.terms[k]  # an equality of two terms: their columns (cached) compared, not computed again
            c = np.asarray(self.col(self.at[t.parts[0].text]) == self.col(self.at[t.parts[1].text]) if t.parts
                           else t.column(self.X), dtype=np.int32)
            self.cols[k] = c
            self.vals[k] = _present(c)
        return self.cols[k]

    def values(self, k: int) -> np.ndarray:
        self.col(k)
        return self.vals[k]

    def unary(self) -> list:
        out = []
        for k, t in enumerate(self.terms):
            if t.sort == "unbounded":
                continue
            out += [Candidate(text, e, t.slots) for text, e in t.atoms(self.values(k))]
        return out

    def guarded(self, g: int) -> list:
        """`g = v => t in V` for every observed value v of guard term g and target term t (a counter
        only where it is constant)."""
        gt, gvals = self.terms[g], self.values(g)
        gi = _rank(self.col(g), gvals)
        out = []
        for k in range(len(self.terms)):
            t = self.terms[k]
            if k == g or t.sort in ("quantity", "unbounded") or t.slots <= gt.slots or gt.slots <= t.slots:
                continue
            vals = self.values(k)
            if len(vals) < 2:
                continue  # constant everywhere: the unary candidate says it
            out += _guarded_atoms(gt, gvals, t, vals, _cross(gi, len(gvals), self.col(k), vals))
        return out

    def guards(self, exclude: int | None = None) -> list:
        """Terms that guard `guarded_by`: every Bool and Enum slot (one slot read) taking two or
        more values, other than slot `exclude` (the dispatch slot, which `mine` guards already)."""
        return [g for g, t in enumerate(self.terms)
                if (t.sort == "bool" or t.sort.startswith("enum:")) and len(t.slots) == 1
                and exclude not in t.slots and len(self.values(g)) > 1]

    def guarded_by(self, gs: list, clock: Clock | None = None) -> list:
        """`guarded(g)` for every g in `gs`, in that order, with the (guard value x term value) presence of every
        pair counted at once. Rows that agree on every guard count as one (on a treachery-online proposal, 67,777
        distinct guard vectors among 610,556 mined states): each term's values present per guard vector
        (`bincount`), then one matrix product with the vectors' one-hot guard columns per block of terms.
        `TimeoutError` once `clock` (`--timeout`) is spent, looked at between blocks (never a partial list)."""
        ks = [k for k, t in enumerate(self.terms) if t.sort not in ("quantity", "unbounded") and len(self.values(k)) > 1]
        goff = np.cumsum([0] + [len(self.values(g)) for g in gs])
        koff = np.cumsum([0] + [len(self.values(k)) for k in ks])
        hits = np.zeros((int(goff[-1]), int(koff[-1])), dtype=np.float32)
        if gs:
            vectors, group = _distinct(np.stack([_rank(self.col(g), self.values(g)) for g in gs], axis=1))
            G = np.zeros((len(vectors), int(goff[-1])), dtype=np.float32)  # each distinct guard vector, one-hot
            for i in range(len(gs)):
                G[np.arange(len(vectors)), goff[i] + vectors[:, i]] = 1.0
            for j in range(0, len(ks), GUARD_CHUNK):
                if clock is not None and clock.out():  # it took 15 s of a cut treachery-online run past its cap
                    raise TimeoutError("--timeout reached while mining one-guard candidates")
                block = ks[j:j + GUARD_CHUNK]
                K = np.concatenate([_cross(group, len(vectors), self.col(k), self.values(k)) for k in block], axis=1)
                hits[:, koff[j]:koff[j + len(block)]] = G.T @ K.astype(np.float32)  # > 0 exactly where a pair occurs
        out = []
        for i, g in enumerate(gs):
            gt, gvals = self.terms[g], self.values(g)
            for j, k in enumerate(ks):
                t = self.terms[k]
                if k == g or t.slots <= gt.slots or gt.slots <= t.slots:
                    continue
                cross = hits[goff[i]:goff[i + 1], koff[j]:koff[j + 1]] > 0
                out += _guarded_atoms(gt, gvals, t, self.values(k), cross)
        return out

    def orders(self) -> list:
        """x < y, x <= y or x != y between unbounded slots, as the table shows them."""
        ub = [k for k, t in enumerate(self.terms) if t.sort == "unbounded" and len(t.slots) == 1]
        out = []
        for a, b in itertools.combinations(ub, 2):
            x, y, ta, tb = self.col(a), self.col(b), self.terms[a], self.terms[b]
            slots = ta.slots | tb.slots
            if (x < y).all():
                out.append(Candidate(f"{ta.text} < {tb.text}", ta.expr < tb.expr, slots))
            elif (y < x).all():
                out.append(Candidate(f"{tb.text} < {ta.text}", tb.expr < ta.expr, slots))
            elif (x <= y).all():
                out.append(Candidate(f"{ta.text} <= {tb.text}", ta.expr <= tb.expr, slots))
            elif (y <= x).all():
                out.append(Candidate(f"{tb.text} <= {ta.text}", tb.expr <= ta.expr, slots))
            elif (x != y).all():
                out.append(Candidate(f"{ta.text} != {tb.text}", ta.expr.ne(tb.expr), slots))
        return out


def _guarded_atoms(gt: Term, gvals, t: Term, vals, cross: np.ndarray) -> list:
    """`g = v => t in V` for each guard value v whose row of `cross` (term values seen with it)
    leaves some value out (a counter only where it is constant)."""
    out = []
    for row, gv in zip(cross, gvals):
        seen = vals[row]
        if len(seen) == len(vals) or (t.sort == "counter" and len(seen) > 1):
            continue
        gtext = (gt.text if gv else f"not {gt.text}") if gt.sort == "bool" else f"{gt.text} = {gt.show(gv)}"
        gexpr = (gt.expr if gv else ~gt.expr) if gt.sort == "bool" else gt.expr.eq(Const(int(gv)))
        out += [Candidate(f"{gtext} => {text}", implies(gexpr, e), gt.slots | t.slots) for text, e in t.atoms(seen)]
    return out


def mine(schema, X: np.ndarray, unbounded: frozenset, dispatch: int | None = None) -> list:
    """First-round candidates of a state table: unary facts, facts under each value of the
    dispatch slot, orderings between unbounded slots. Deterministic: a fixed order, no duplicates."""
    m = Miner(schema, X, unbounded)
    out = m.unary() + m.orders()
    if dispatch is not None:
        out += m.guarded(dispatch)
    return distinct(out)


def distinct(cands: list) -> list:
    """The candidates in their order, each text once (the first one kept)."""
    seen, uniq = set(), []
    for c in cands:
        if c.text not in seen:
            seen.add(c.text)
            uniq.append(c)
    return uniq


def generalise(m: "Miner", state: tuple, relevant: AbstractSet[int] | None = None) -> Candidate | None:
    """A candidate that excludes `state` (a pre-state where induction fails, not yet ruled out) and
    holds on every mined row: the negation of a cube of term values of `state` that no row matches.

    The cube starts as every finite term's value in `state` and is shrunk greedily: a literal is
    dropped when no row matches the rest (terms reading no slot of `relevant` are tried first, then
    multi-slot terms, so that what stays speaks of the failing step). Each kept `t = v` is then
    widened while no row matches: an Enum literal to `t != w` for one other value w, a counter's to
    `t <= v` or `t >= v`. This is IC3's cube generalisation with the mined states as the judge of
    reachability; Houdini then decides whether the candidate is inductive. None when a row equals
    `state` on every term (a mined state: no candidate may exclude it).

    >>> from model.domains import Bool, Enum
    >>> from model.schema import Field, Schema
    >>> sch = Schema((Field("stage", Enum("Stage", ("a", "b", "c"))), Field("flag", Bool()), Field("x", Bool())))
    >>> m = Miner(sch, np.array([[0, 0, 0], [1, 1, 0], [2, 0, 1], [1, 0, 1]]), frozenset())
    >>> generalise(m, (0, 1, 1)).text
    'not (flag and x)'
    """
    row = np.array([[int(v) for v in state]], dtype=np.int64)
    ks = [k for k, t in enumerate(m.terms) if t.sort != "unbounded"]
    vals = {k: int(m.terms[k].column(row)[0]) for k in ks}
    near = (lambda t: True) if relevant is None else (lambda t: bool(t.slots & relevant))  # noqa: E731
    counts = np.zeros(len(m.X), dtype=np.int16)  # per row: how many literals of the cube it matches
    for k in ks:
        counts += m.col(k) == vals[k]
    size = len(ks)
    if (counts == size).any():
        return None
    keep = []
    for k in sorted(ks, key=lambda k: (near(m.terms[k]), len(m.terms[k].slots) == 1, k)):
        eq = m.col(k) == vals[k]
        if ((counts == size - 1) & ~eq).any():
            keep.append(k)  # without it some mined row would match the cube
            continue
        counts -= eq
        size -= 1
    lits = []
    for k in sorted(keep):
        text, e, wide = _widen(m, k, vals[k], counts, size)
        counts += (wide.astype(np.int16) - (m.col(k) == vals[k]))
        lits.append((text, e))
    slots = frozenset().union(*[m.terms[k].slots for k in keep])
    return Candidate("not (" + " and ".join(t for t, _ in lits) + ")", any_of(~e for _, e in lits), slots)


def _widen(m: "Miner", k: int, v: int, counts: np.ndarray, size: int) -> tuple:
    """The weakest literal about term k that keeps the cube unmatched: (text, expr, rows it holds on)."""
    t, col = m.terms[k], m.col(k)
    others = counts - (col == v)  # each row's matches among the other literals
    free = others == size - 1     # rows that match every other literal
    if t.sort.startswith("enum:"):
        for w in m.values(k):
            if int(w) != v and not (free & (col != w)).any():
                return f"{t.text} != {t.show(int(w))}", t.expr.ne(Const(int(w))), col != w
    if t.sort == "counter":
        if v > t.lo and not (free & (col <= v)).any():
            return f"{t.text} <= {v}", t.expr <= Const(v), col <= v
        if v < t.hi and not (free & (col >= v)).any():
            return f"{t.text} >= {v}", Const(v) <= t.expr, col >= v
    if t.sort == "bool":
        return (t.text if v else f"not {t.text}"), (t.expr if v else ~t.expr), col == v
    return f"{t.text} = {t.show(v)}", t.expr.eq(Const(v)), col == v
