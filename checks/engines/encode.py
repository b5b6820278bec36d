"""Z3 encoding of a GameModel, read from the same rule data as the concrete evaluator.

Per-step symbols are named `slot@k` and the chosen action is `act@k` (an index into
`model.actions`). `translate` mirrors `model.evaluate.eval_expr` case by case, so the
two can be diffed. The transition is encoded per slot: the next value is the effect of
whichever writer fired, else the current value (NOTE(frame) in model/rule.py).
"""
from __future__ import annotations

import itertools

import z3

from checks.interrupt import INTERRUPTS
from model.domains import Bool
from model.expr import Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Param, Sub, Var
from model.game import GameModel


# NOTE(c-api): z3.And, z3.Or and z3.Not check and coerce every argument in Python, about 13 times the cost of the
# C call for five Booleans (0.12 ms against 0.009 ms); translating lemma candidates and Houdini's queries make
# hundreds of thousands of them. These make the same call on Booleans already in `ctx`: the same hash-consed
# term (the same id), so every query and answer is unchanged.
def mk_or(ctx: z3.Context, terms: list, mk=z3.Z3_mk_or, empty: bool = False) -> z3.BoolRef:
    """z3.Or(terms) for Boolean terms of `ctx`, without the Python API's per-argument checks.

    >>> c = z3.Context(); a, b = z3.Bool("a", c), z3.Bool("b", c)
    >>> mk_or(c, [a, b]).eq(z3.Or(a, b)), mk_and(c, []).eq(z3.BoolVal(True, c))
    (True, True)
    """
    if not terms:
        return z3.BoolVal(empty, ctx)
    arr = (z3.Ast * len(terms))(*[t.as_ast() for t in terms])
    return z3.BoolRef(mk(ctx.ref(), len(terms), arr), ctx)


def mk_and(ctx: z3.Context, terms: list) -> z3.BoolRef:
    """z3.And(terms) as `mk_or` builds z3.Or."""
    return mk_or(ctx, terms, z3.Z3_mk_and, True)


def mk_not(x: z3.BoolRef) -> z3.BoolRef:
    """z3.Not(x) for a Boolean term, without the Python API's checks."""
    return z3.BoolRef(z3.Z3_mk_not(x.ctx.ref(), x.as_ast()), x.ctx)


def mk_implies(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """z3.Implies(a, b) for Boolean terms of one context, without the Python API's checks."""
    return z3.BoolRef(z3.Z3_mk_implies(a.ctx.ref(), a.as_ast(), b.as_ast()), a.ctx)


def decide(solver, *assumptions):
    """`solver.check(*assumptions)`, except that a signal is never turned into an answer: once
    SIGINT/SIGTERM arrived, no query starts and none returns, whatever Z3 said (a cancelled query may
    have answered just before, and its model may be cut while it is read); Interrupted is raised
    instead (NOTE(signals) in checks/interrupt.py)."""
    INTERRUPTS.raise_if_interrupted()
    if len(assumptions) > 8 and all(type(a) is z3.BoolRef for a in assumptions):
        # Many assumption literals (Houdini): skip the Python API's per-literal sort check.
        arr = (z3.Ast * len(assumptions))(*[a.as_ast() for a in assumptions])
        r = z3.CheckSatResult(z3.Z3_solver_check_assumptions(solver.ctx.ref(), solver.solver, len(assumptions), arr))
    else:
        r = solver.check(*assumptions)
    INTERRUPTS.raise_if_interrupted()
    return r


def domain_bounds(dom) -> tuple[int, int]:
    """Least and greatest value of a finite domain (without enumerating a wide IntRange)."""
    return int(dom.least), int(dom.greatest)


class Encoder:
    """Symbols and formulas for one model in one Z3 context.

    >>> from model.moritani import GAME
    >>> enc = Encoder(GAME.build(GAME.small(GAME.profiles["default"])))
    >>> s = z3.Solver(ctx=enc.ctx); s.add(enc.init(0), enc.trans(0))
    >>> decide(s) == z3.sat
    True
    """

    def __init__(self, model: GameModel, ctx: z3.Context | None = None, unbounded_slots: frozenset = frozenset(),
                 functional: bool = False, bits: int | None = None, prefix: str = ""):
        self.model = model
        self.prefix = prefix  # "A." / "B.": two copies of one model can share a Z3 context
        self.schema = model.schema
        if ctx is None:
            INTERRUPTS.quiet_z3()  # NOTE(signals): Z3 must not take SIGINT for itself, from its first context on
            ctx = z3.Context()
            INTERRUPTS.register(ctx)  # NOTE(signals): a signal cancels a running query
        self.ctx = ctx
        self.is_bool = [isinstance(f.domain, Bool) for f in self.schema.slot_fields]
        self.unbounded = unbounded_slots  # slots whose upper bound is dropped (unbounded proofs)
        self._vars: dict = {}
        self._value_terms: dict = {}  # (slot, value) -> its Z3 term (`value_ast`)
        self._memo: dict = {}
        self._trans0: z3.BoolRef | None = None  # T(0, 1), kept for `shift` (non-functional only)
        self._writers = self._collect_writers()
        # functional=True: x@(k+1) is the term built from x@k (no fresh symbol, no equality);
        # BMC uses it, induction needs free pre-states and keeps symbols.
        self.functional = functional
        # bits=N: integers become N-bit two's-complement bit-vectors (finite domains bit-blast to
        # SAT, which Z3's QF_FD solver handles far faster than linear arithmetic for BMC). Values
        # outside a slot's domain are caught by `domain`, so wrap-around is never silent.
        self.bits = bits

    # -- symbols -------------------------------------------------------------------------
    def var(self, slot: int, k) -> z3.ExprRef:
        key = (slot, k)
        if key not in self._vars:
            name = f"{self.prefix}{self.schema.slot_names[slot]}@{k}"
            if self.is_bool[slot]:
                self._vars[key] = z3.Bool(name, self.ctx)
            else:
                self._vars[key] = z3.BitVec(name, self.bits, self.ctx) if self.bits else z3.Int(name, self.ctx)
        return self._vars[key]

    def define(self, slot: int, k, term: z3.ExprRef) -> None:
        """Make `term` the slot's value at step `k` in place of a fresh symbol (a functional encoding's start
        state, two orders sharing one start state), replacing any symbol made for it before."""
        self._vars[(slot, k)] = term

    def defined(self, slot: int, k) -> bool:
        """Whether the slot's value at step `k` exists yet."""
        return (slot, k) in self._vars

    def act(self, k):
        name = f"{self.prefix}act@{k}"
        return z3.BitVec(name, self.bits, self.ctx) if self.bits else z3.Int(name, self.ctx)

    def state(self, k) -> list:
        return [self.var(i, k) for i in range(len(self.schema))]

    def value(self, v, slot: int | None = None):
        if isinstance(v, bool) or (slot is not None and self.is_bool[slot]):
            return z3.BoolVal(bool(v), self.ctx)
        return self.num(v)

    def num(self, v: int):
        return z3.BitVecVal(v, self.bits, self.ctx) if self.bits else z3.IntVal(v, self.ctx)

    # Comparisons are signed in the bit-vector encoding too: slot values stay far below 2**(bits-1), and a
    # difference such as spice' - spice (step properties, monitors) may be negative.
    def lt(self, a, b):
        return a < b

    def le(self, a, b):
        return a <= b

    # -- expressions -----------------------------------------------------------------------
    def translate(self, e: Expr, k, env: dict | None = None):
        """The Z3 term of `e` over the step-k symbols (mirrors model.evaluate.eval_expr)."""
        if env is None:
            # NOTE(translate-memo): lemma candidates share their terms (an indirect read's if-chain,
            # a guard): each node object is translated once per step (keyed by identity, kept alive).
            hit = self._memo.get((id(e), k))
            if hit is not None and hit[0] is e:
                return hit[1]
            out = self._translate(e, k, None)
            self._memo[(id(e), k)] = (e, out)
            return out
        return self._translate(e, k, env)

    def _translate(self, e: Expr, k, env: dict | None):
        t = lambda x: self.translate(x, k, env)  # noqa: E731
        match e:
            case Const(value=v):
                return self.value(v)
            case Param(name=n):
                if env is None:
                    raise TypeError(f"parameter {n!r} encoded without an environment")
                return self.value(env[n])
            case Var(field=f, index=idx):
                if all(isinstance(i, Const) for i in idx):
                    return self.var(self.schema.slot(f, tuple(i.value for i in idx)), k)
                return self._indexed(f, idx, k, env)
            case Not(arg=a):
                return mk_not(self.as_bool(t(a)))
            case And(args=xs):
                return mk_and(self.ctx, [self.as_bool(t(x)) for x in xs])
            case Or(args=xs):
                return mk_or(self.ctx, [self.as_bool(t(x)) for x in xs])
            case Eq(a=a, b=b):
                x, y = t(a), t(b)
                if z3.is_bool(x) != z3.is_bool(y):
                    x, y = self.as_int(x), self.as_int(y)
                return x == y
            case Lt(a=a, b=b):
                return self.lt(self.as_int(t(a)), self.as_int(t(b)))
            case Le(a=a, b=b):
                return self.le(self.as_int(t(a)), self.as_int(t(b)))
            case Add(args=xs):
                return z3.Sum([self.as_int(t(x)) for x in xs])
            case Sub(a=a, b=b):
                return self.as_int(t(a)) - self.as_int(t(b))
            case Div(a=a, k=d):
                x = self.as_int(t(a))
                return z3.UDiv(x, self.num(d)) if self.bits else x / self.num(d)
            case Ite(cond=c, then=x, other=y):
                a, b = t(x), t(y)
                if z3.is_bool(a) != z3.is_bool(b):
                    a, b = self.as_int(a), self.as_int(b)
                return z3.If(self.as_bool(t(c)), a, b)
        raise TypeError(f"unknown expression node {e!r}")

    def _indexed(self, f: str, idx, k, env):
        dims = self.schema.field(f).dims
        keys = [self.as_int(self.translate(i, k, env)) for i in idx]
        combos = list(itertools.product(*(d.values for d in dims)))
        out = self.var(self.schema.slot(f, combos[-1]), k)
        for combo in reversed(combos[:-1]):
            cond = z3.And([key == self.num(v) for key, v in zip(keys, combo)])
            out = z3.If(cond, self.var(self.schema.slot(f, combo), k), out)
        return out

    def as_bool(self, x):
        return x if z3.is_bool(x) else x != 0

    def as_int(self, x):
        return z3.If(x, self.num(1), self.num(0)) if z3.is_bool(x) else x

    def coerce(self, x, slot: int):
        return self.as_bool(x) if self.is_bool[slot] else self.as_int(x)

    # -- system ----------------------------------------------------------------------------
    def domain(self, k) -> z3.BoolRef:
        """Every slot lies in its declared domain at step k."""
        cs = []
        for i, f in enumerate(self.schema.slot_fields):
            if self.is_bool[i]:
                continue
            lo, hi = domain_bounds(f.domain)
            cs.append(self.le(self.num(lo), self.var(i, k)))
            if i not in self.unbounded:
                cs.append(self.le(self.var(i, k), self.num(hi)))
        return z3.And(cs)

    def init(self, k=0) -> z3.BoolRef:
        """k-th step symbols equal one of the model's initial states."""
        return z3.Or([z3.And([self.var(i, k) == self.value(v, i) for i, v in enumerate(s)])
                      for s in self.model.init])

    def equals(self, state: tuple, k) -> z3.BoolRef:
        """x@k == `state`, every slot: the same formula as `z3.And([var == value, ...])`, built through Z3's C
        API with each slot's value term made once: the agreement guard asks it for every
        successor of every compared state, where the Python wrappers' checks cost more than the solving."""
        ctx, n = self.ctx.ref(), len(state)
        eqs = []
        for i, v in enumerate(state):
            x, c = self.var(i, k).as_ast(), self.value_ast(v, i)
            # The operands in the wrappers' order: `var == numeral` runs the numeral's reflected __eq__ (a
            # subclass of the variable's sort class), so a number comes first and a Boolean second.
            eq = z3.Z3_mk_eq(ctx, x, c) if self.is_bool[i] else z3.Z3_mk_eq(ctx, c, x)
            z3.Z3_inc_ref(ctx, eq)  # a fresh term has no reference until one is taken
            eqs.append(eq)
        out = z3.BoolRef(z3.Z3_mk_and(ctx, n, (z3.Ast * n)(*eqs)), self.ctx)
        for eq in eqs:
            z3.Z3_dec_ref(ctx, eq)
        return out

    def value_ast(self, v, slot: int):
        """The C AST of `value(v, slot)`, made once per (slot, value); the kept wrapper owns its reference."""
        key = (slot, type(v), v)  # True == 1: the type keeps a bool and an int apart
        hit = self._value_terms.get(key)
        if hit is None:
            hit = self._value_terms[key] = self.value(v, slot)
        return hit.as_ast()

    def _collect_writers(self) -> dict:
        writers: dict = {}
        for n, a in enumerate(self.model.actions):
            for name, idx, value in a.effects:
                slot = self.schema.slot(name, tuple(i.value for i in idx))
                writers.setdefault(slot, []).append((n, value))
        return writers

    def trans(self, k) -> z3.BoolRef:
        """T(k, k+1): act@k names an enabled action, and each slot takes that action's effect or stays."""
        if not self.functional and isinstance(k, int) and k > 0:
            # NOTE(step-copy): T(k, k+1) is T(0, 1) over other symbols; Z3 renames them in one call, where
            # translating every guard and effect again cost BMC most of its time (several seconds a step).
            return self.shift(self.trans(0), k)
        if not self.functional and k == 0 and self._trans0 is not None:
            return self._trans0
        out = self._trans(k)
        if not self.functional and k == 0:
            self._trans0 = out
        return out

    def shift(self, f: z3.ExprRef, k: int) -> z3.ExprRef:
        """`f` over the symbols of steps 0 and 1 (slots and act@0), moved to steps k and k+1."""
        n = len(self.schema)
        pairs = [(self.var(i, j), self.var(i, j + k)) for j in (0, 1) for i in range(n)] + [(self.act(0), self.act(k))]
        return z3.substitute(f, *pairs)

    def _trans(self, k) -> z3.BoolRef:
        act = self.act(k)
        n = len(self.model.actions)
        cs = [self.le(self.num(0), act), self.lt(act, self.num(n))]
        for i, a in enumerate(self.model.actions):
            cs.append(mk_implies(act == self.num(i), self.as_bool(self.translate(a.guard, k))))
        nexts = []
        for slot in range(len(self.schema)):
            nxt = self.var(slot, k)
            for i, value in reversed(self._writers.get(slot, [])):
                nxt = z3.If(act == self.num(i), self.coerce(self.translate(value, k), slot), nxt)
            nexts.append(nxt)
        for slot, nxt in enumerate(nexts):
            if self.functional and (slot, k + 1) not in self._vars:
                self._vars[(slot, k + 1)] = z3.simplify(nxt)
            else:
                cs.append(self.var(slot, k + 1) == nxt)
        return z3.And(cs)

    def written(self, n: int) -> frozenset:
        """Slots action n writes."""
        return frozenset(slot for slot, ws in self._writers.items() if any(i == n for i, _ in ws))

    def action_step(self, n: int, k) -> z3.BoolRef:
        """T_n(k, k+1): action n is enabled at step k and step k+1 is its successor (every other slot kept)."""
        writes = {slot: value for slot, ws in self._writers.items() for i, value in ws if i == n}
        cs = [self.as_bool(self.translate(self.model.actions[n].guard, k))]
        for slot in range(len(self.schema)):
            nxt = self.coerce(self.translate(writes[slot], k), slot) if slot in writes else self.var(slot, k)
            cs.append(self.var(slot, k + 1) == nxt)
        return z3.And(cs)

    def invariant(self, name: str, k) -> z3.BoolRef:
        p = next(p for p in self.model.invariants if p.name == name)
        return self.as_bool(self.translate(p.predicate, k))

    def read_state(self, m: z3.ModelRef, k) -> tuple:
        out = []
        for i in range(len(self.schema)):
            v = m.eval(self.var(i, k), model_completion=True)
            out.append(z3.is_true(v) if self.is_bool[i] else v.as_long())
        return tuple(out)

    def read_actions(self, m: z3.ModelRef, steps: int) -> list[str]:
        return [self.model.actions[m.eval(self.act(j), model_completion=True).as_long()].label
                for j in range(steps)]
