"""Rules compiled to Python source for the explorer's hot path.

Each ground guard and effect becomes one generated function, so expanding a
state never walks an expression tree. Actions are bucketed by the value the
guard requires of the model's `dispatch` field, so only the current stage's
actions are tried. `model.evaluate` stays the reference; a test checks that
both give the same successors on every state of small models.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from model.expr import And, Const, Eq, Expr, Var, children, substitute
from model.game import GameModel
from model.lower import CODE, Gather, Lit, Low, Op, Read, load, lower, render, slots_read
from model.schema import Schema


def to_source(e: Expr, schema: Schema, tables: dict) -> str:
    """Python source for `e`, reading the state tuple `s` (printed from its lowering, `model.lower`).

    >>> from model.domains import Bool, IntRange
    >>> from model.schema import Field, Schema
    >>> sch = Schema((Field("x", IntRange(0, 3)), Field("b", Bool())))
    >>> to_source(Var("b").eq(0) | (Var("x") + 1 < 3), sch, {})
    '((not s[1]) or ((s[0] + 1) < 3))'
    """
    return SOURCES.source(e, schema, tables)


class SourceMemo:
    """The Python source of each expression over each schema, shared by every model built in this process.

    NOTE(source-memo): a seeded defect, a mutant or another profile shares almost every guard, effect and
    invariant with the models built before it, and printing them again (lowering, then the Python printer) made
    building 40 seeded defects' models and explicit engines 1.49 times slower (`python benchmarks/compile.py`,
    docs/performance.md). The source is a pure function of the expression and the schema; the lookup tables
    it reads (`T_<field>`, a read at a state-dependent index) are kept with it and added to the caller's.
    Schemas are numbered by value once per run of lookups over one schema object. Cleared when it holds
    `limit` entries.

    >>> from model.domains import IntRange
    >>> from model.schema import Field, Schema
    >>> memo, sch = SourceMemo(), Schema((Field("x", IntRange(0, 3)),))
    >>> memo.source(Var("x") + 1, sch, {}), memo.source(Var("x") + 1, Schema(sch.fields), {}), len(memo.sources)
    ('(s[0] + 1)', '(s[0] + 1)', 1)
    >>> memo.source(Const(1), sch, {}), memo.source(Const(True), sch, {}), len(memo.sources)
    ('1', 'True', 3)
    """

    def __init__(self, limit: int = 200_000):
        self.limit = limit
        self.sources: dict = {}
        self.schemas: dict = {}
        self.last: tuple = (None, -1)  # (schema object, its number): most lookups repeat the last schema

    def source(self, e: Expr, schema: Schema, tables: dict) -> str:
        if self.last[0] is not schema:
            self.last = (schema, self.schemas.setdefault(schema, len(self.schemas)))
        # Const(True) == Const(1) (a dataclass compares its values), but they print differently, and an int slot
        # must never be given True: the key says which constants are booleans.
        key = (self.last[1], e, _boolean_constants(e))
        hit = self.sources.get(key)
        if hit is None:
            if len(self.sources) >= self.limit:
                self.sources.clear()
            own: dict = {}
            hit = self.sources[key] = (python_source(lower(e, schema), own), own)
        for k, v in hit[1].items():
            tables.setdefault(k, v)
        return hit[0]


SOURCES = SourceMemo()


def _boolean_constants(e: Expr) -> tuple:
    """Which of the constants in `e` are booleans, in an order fixed by the tree's shape."""
    out, todo = [], [e]
    while todo:
        n = todo.pop()
        if type(n) is Const:
            out.append(type(n.value) is bool)
        else:
            todo.extend(children(n))
    return tuple(out)


def python_source(x: Low, tables: dict) -> str:
    """The Python printer of a lowered expression (a read at a state-dependent index looks the slot up in
    the table `T_<field>`, added to `tables`)."""
    match x:
        case Lit(value=v):
            return repr(v)
        case Read(slot=i):
            return f"s[{i}]"
        case Gather(field=f, index=idx):
            key = f"T_{f}"
            if key not in tables:
                tables[key] = x.table()
            return f"s[{key}[({', '.join(python_source(i, tables) for i in idx)},)]]"
        case Op(args=xs):
            return render(x, [python_source(i, tables) for i in xs], PYTHON)
    raise TypeError(f"unknown lowered node {x!r}")


# Python's bool is an int, so `Op.INT` prints as its operand; `Op.TRUTH` is spelled out, because Python's `and`
# and `or` return an operand, not a bool (`(3 and 2) + 1` is 3 where the rules mean 2; tests/test_lower.py).
PYTHON = {Op.INT: "{0}", Op.TRUTH: "({0} != 0)", Op.NOT: "(not {0})", Op.DIV: "({0} // {k})", Op.ITE: "({1} if {0} else {2})",
          Op.AND: " and ", Op.OR: " or "}


def _conjuncts(guard: Expr) -> list:
    """The guard's conjuncts, nested conjunctions flattened in order (guards are built up with &, which
    nests): the dispatch slot's test and the tests actions share are then visible wherever they sit."""
    if not isinstance(guard, And):
        return [guard]
    return [c for x in guard.args for c in _conjuncts(x)]


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
    for c in _conjuncts(guard):
        if isinstance(c, Eq) and isinstance(c.b, Const) and isinstance(c.a, Var) and not c.a.index:
            if schema.slot(c.a.field) == slot:
                return c.b.value
    return None


def compile_invariants(model: GameModel) -> list:
    """Each invariant's predicate as one generated function of a state, in `model.invariants` order (the
    same source as `CompiledModel`'s: a read at a state-dependent index outside the field is a KeyError,
    where the reference semantics raises ModelError).

    >>> from model.moritani.build import build_model
    >>> m = build_model()
    >>> all(fn(m.init[0]) for fn in compile_invariants(m))
    True
    """
    tables: dict = {}
    lines = [f"def inv{n}(s): return {to_source(p.predicate, model.schema, tables)}"
             for n, p in enumerate(model.invariants)]
    ns: dict = dict(tables)
    CODE.define(ns, lines, f"<invariants {model.name}>")
    return [ns[f"inv{n}"] for n in range(len(model.invariants))]


@dataclass
class CompiledModel:
    """Fast successor function and property predicates of a GameModel.

    >>> from model.moritani.build import build_model
    >>> m = build_model()
    >>> [m.actions[a].label for a, _ in CompiledModel.build(m).successors(m.init[0])][:2]
    ['place_token(k=Assassination, to=Arrakeen)', 'place_token(k=Assassination, to=Carthag)']
    """

    model: GameModel
    guards: list
    effects: list
    buckets: dict
    unpinned: list
    dispatch_slot: int | None
    invariants: list  # [(name, fn)]
    terminal: Callable[[tuple], bool]
    dispatchers: dict = field(default_factory=dict)  # bucket value -> generated successor function (set by build)

    @classmethod
    def build(cls, model: GameModel) -> "CompiledModel":
        schema = model.schema
        tables: dict = {}
        bool_slots = {i for i, f in enumerate(schema.slot_fields) if f.domain.least is False}
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
        CODE.define(ns, lines, f"<compiled {model.name}>")
        n_act = len(model.actions)
        guards = [ns[f"g{n}"] for n in range(n_act)]
        effects = [ns[f"e{n}"] for n in range(n_act)]
        dslot = schema.slot(model.dispatch) if model.dispatch else None
        buckets: dict = {}
        unpinned: list[int] = []
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
        src: list[str] = []
        conj_src: dict[int, list[str]] = {}
        for k, v in enumerate(keys):
            idxs = buckets[v] if dslot is not None else range(len(model.actions))
            items = []
            pinned = to_source(Eq(Var(model.dispatch), Const(v)), schema, tables) \
                if dslot is not None and model.dispatch else None
            for n in idxs:
                # Conjuncts as source text: equal text is an equal test, and strings hash cheaply.
                if n not in conj_src:
                    conj_src[n] = [to_source(c, schema, tables) for c in _conjuncts(model.actions[n].guard)]
                items.append((n, [c for c in conj_src[n] if c != pinned]))
            src.append(_dispatch_source(f"d{k}", items, effect_src, schema, tables))
        ns: dict = dict(tables)
        ns["_first"] = lambda x: x[0]
        ns.update({f"e{n}": fn for n, fn in enumerate(effects)})
        CODE.define(ns, src, f"<dispatch {model.name}>")
        return {v: ns[f"d{k}"] for k, v in enumerate(keys)}

    def successors(self, s: tuple) -> list:
        """[(action index, successor state)] for every enabled action, in action order."""
        return self.dispatchers[s[self.dispatch_slot] if self.dispatch_slot is not None else None](s)

@dataclass
class StateChecks:
    """The generated per-state tests of an explicit search, from the model's data.

    `domain_ok(s)`: every slot in its domain; `all_ok(s)`: that and every invariant, in one call
    (most states pass); `ok_after[a](s)`: only the tests action a's successor can fail given a good
    pre-state (NOTE(incremental)); `witnesses[a]`: [(witness name, predicate on the pre-state)] for
    the witnesses that action a fires; `packable`/`decode`: whether every slot fits a byte, and the
    decoder from the packed form back to the model's tuple (NOTE(packed) in checks/engines/explicit.py).

    >>> from model.moritani.build import build_model
    >>> m = build_model()
    >>> StateChecks.build(m).all_ok(m.init[0])
    True
    """

    domain_ok: object
    all_ok: object
    ok_after: list
    witnesses: dict
    packable: bool
    decode: object

    @classmethod
    def build(cls, model: GameModel) -> "StateChecks":
        schema = model.schema
        ranges = [f"{f.domain.least} <= s[{i}] <= {f.domain.greatest}"
                  for i, f in enumerate(schema.slot_fields) if f.domain.least is not False]
        tables: dict = {}
        preds = [to_source(p.predicate, schema, tables) for p in model.invariants]
        ns: dict = dict(tables)
        CODE.define(ns, [f"def ok(s): return {' and '.join(ranges) or 'True'}",
                         f"def all_ok(s): return bool({' and '.join(ranges + [f'({p})' for p in preds]) or 'True'})"],
                    "<state checks>")
        packable, decode = _packing(schema)
        return cls(ns["ok"], ns["all_ok"], _incremental(model, preds, tables), _witness_checks(model),
                   packable, decode)


def _witness_checks(model: GameModel) -> dict:
    """action index -> [(witness name, predicate on the pre-state)]."""
    out: dict = {}
    schema = model.schema
    src: list[str] = []
    names: list[tuple[int, str]] = []
    tables: dict = {}
    for w in model.witnesses:
        if not w.fires:
            continue
        for n, a in enumerate(model.actions):
            if a.rule.name in w.fires:
                when = substitute(w.when, dict(a.args)) if w.when is not None else None
                names.append((n, w.name))
                src.append(f"def w{len(src)}(s): return {to_source(when, schema, tables) if when else 'True'}")
    ns: dict = dict(tables)
    CODE.define(ns, src, "<witnesses>")
    for i, (n, wname) in enumerate(names):
        out.setdefault(n, []).append((wname, ns[f"w{i}"]))
    return out


def _packing(schema: Schema):
    """(every slot fits a byte, decoder from the packed form back to the model's tuple)."""
    parts, fits = [], True
    for i, f in enumerate(schema.slot_fields):
        vals = f.domain.values
        if vals[0] is False:
            parts.append(f"b[{i}] != 0")
        else:
            fits = fits and 0 <= vals[0] and vals[-1] <= 255
            parts.append(f"b[{i}]")
    return fits, load(f"def decode(b): return ({', '.join(parts)},)", "<decode>", {})["decode"]


LONG_PREDICATE = 600  # characters of generated source beyond which `_incremental` calls a predicate


def _incremental(model: GameModel, preds: list, tables: dict) -> list:
    """Per action: the domain and invariant tests its successor can fail, given a good pre-state.

    NOTE(incremental): the explorer expands only states in their domains that satisfy every
    invariant, and an action changes only the slots it writes; a slot it does not write keeps its
    in-domain value, and an invariant reading none of the written slots has the value it had
    before (true). So the successor needs only the rest, which is exact, not a sample.
    """
    schema = model.schema
    reads = [slots_read(p.predicate, schema) for p in model.invariants]
    ns: dict = dict(tables)
    src: list[str] = []
    by_writes: dict[frozenset, str] = {}
    out: list[str] = []
    # A long predicate (a permission's enabled disjunction: NOTE(permissions)) is one function the tests call;
    # inlined in every action's test it would multiply the source Python compiles.
    calls: list[str] = []
    for j, pr in enumerate(preds):
        if len(pr) > LONG_PREDICATE:
            src.append(f"def i{j}(s): return {pr}")
            calls.append(f"i{j}(s)")
        else:
            calls.append(pr)
    for a in model.actions:
        written = frozenset(schema.slot(n, tuple(i.value for i in idx)) for n, idx, _ in a.effects)
        if written not in by_writes:
            tests = []
            for i in sorted(written):
                vals = schema.slot_fields[i].domain.values
                if vals[0] is not False:
                    tests.append(f"{vals[0]} <= s[{i}] <= {vals[-1]}")
            tests += [f"({pr})" for pr, r in zip(calls, reads) if r & written]
            by_writes[written] = f"k{len(by_writes)}"
            src.append(f"def {by_writes[written]}(s): return bool({' and '.join(tests) or 'True'})")
        out.append(by_writes[written])
    CODE.define(ns, src, "<incremental checks>")
    return [ns[name] for name in out]


def compile_state_maps(decl, schema: Schema, perms) -> list:
    """A declared symmetry's permutations acting on states: one generated function per permutation
    (a tuple display, no loop per slot; `ValueSymmetry.apply_state` is the reference form)."""
    src, tables = [], {}
    for n, perm in enumerate(perms):
        parts = []
        for i, vm in decl.slot_sources(schema, perm):
            if vm:
                key = f"V{n}_{i}"
                tables[key] = {v: vm.get(v, v) for v in schema.slot_fields[i].domain.values}
                parts.append(f"{key}[s[{i}]]")
            else:
                parts.append(f"s[{i}]")
        src.append(f"def p{n}(s): return (" + ", ".join(parts) + ",)")
    ns = load("\n".join(src), "<symmetry>", dict(tables))
    return [ns[f"p{n}"] for n in range(len(perms))]


def compile_sorting_canon(decl, schema: Schema, elements, maps):
    """Canonical form by sorting the points by their signature, or None where that is not exact.

    The signature of point p in s: the slots indexed by p (in a fixed order) and, for every slot
    whose value is drawn from the permuted domains, whether it holds p. A permutation π moves the
    signature of p to πp unchanged, so sorting the points by signature and renaming them by rank
    gives the same state for every member of an orbit; two points with equal signatures can be
    exchanged without changing the state, so ties do not matter. This needs each slot to depend on
    at most one point through its index and none through both index and value; otherwise the
    caller falls back to the least tuple over the whole group. Cost: one signature per point and a
    sort instead of n! permuted tuples per state.
    """
    pts = decl.points
    index_slots: dict = {p: [] for p in pts}
    value_slots = []
    for i, (fname, idx) in enumerate(schema.slot_keys()):
        f = schema.by_name[fname]
        moved = [v for d, v in zip(f.dims, idx) if d.name in decl.domains]
        holds_point = f.domain.name in decl.domains
        if len(moved) > 1 or (moved and holds_point):
            return None
        if moved and moved[0] in index_slots:
            index_slots[moved[0]].append((tuple(v for d, v in zip(f.dims, idx) if d.name not in decl.domains),
                                          fname, i))
        if holds_point:
            value_slots.append(i)
    for p in pts:
        index_slots[p].sort()
    sigs = []
    for p in pts:
        parts = [f"s[{i}]" for _, _, i in index_slots[p]] + [f"s[{i}] == {p}" for i in value_slots]
        sigs.append("(" + ", ".join(parts) + ",)")
    by_perm = {tuple(e): fn for e, fn in zip(elements, maps)}
    n = len(pts)
    src = [
        "def canon(s):",
        f"    sig = ({', '.join(sigs)},)",
        f"    order = sorted(range({n}), key=sig.__getitem__)",
        "    rank = [0] * %d" % n,
        "    for r, i in enumerate(order):",
        "        rank[i] = r",
        "    return BY_PERM[tuple(PTS[r] for r in rank)](s)",
    ]
    canon = load("\n".join(src), "<symmetry canon>", {"BY_PERM": by_perm, "PTS": pts})["canon"]
    # The signatures read only these slots: a step from a representative that writes none of them
    # leaves every signature, hence the (stable) sort, as it was: the successor is its own canon.
    canon.reads = frozenset(i for p in pts for _, _, i in index_slots[p]) | frozenset(value_slots)
    return canon
