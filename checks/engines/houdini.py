"""Houdini: the largest inductive subset of a set of candidate lemmas, with Z3 (docs/lemmas.md, "How", step 2).

Candidates (state predicates) false in an initial state are dropped; then Z3 is asked for a step from a state
satisfying every candidate left to one breaking some (a counterexample to induction), and what it breaks is
dropped, until there is none. The survivors' conjunction C then has Init => C and C /\\ T => C': it holds in every
reachable state. Nothing is assumed: an `unknown`, a timeout or a spent budget ends the run with no survivors.
Budgets are Z3 resource units (`spend`) and a count of queries, so the same candidates give the same survivors on
an idle or a loaded machine (issue 35); `timeout`, the user's cap, cuts a run short (`cut`). The pre-state
satisfies every candidate left, so each of its successors, and those followed from them a few states on
(`closure`: the model's generated code, candidates evaluated by NumPy), may drop more: each drop has its state
pair, so the result is the same, in fewer solver rounds.

>>> from model.expr import Var
>>> from tests.conftest import counter_model
>>> out = houdini(counter_model(limit=3), [("x<=3", Var("x") <= 3), ("x<=2", Var("x") <= 2)])
>>> out.verdict, [n for n, _ in out.survivors]
('proved', ['x<=3'])
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import z3

from checks.clock import Clock
from checks.engines.columns import compile_table
from checks.engines.encode import Encoder, decide, mk_and, mk_implies, mk_not, mk_or
from model.compile import CompiledModel
from model.game import GameModel

WHOLE = 250  # at most this many candidates: ask about the whole transition relation at once (_Whole)
CLOSURE_BUDGET = 40  # states followed forward from each counterexample's pre-state
MAX_QUERIES = 20_000  # solver queries of one run (the largest measured run asked 1,480: docs/lemmas.md)


def spent(solver) -> int:
    """Z3 resource units (rlimit) its context has counted so far: deterministic, unlike seconds."""
    try:
        return int(solver.statistics().get_key_value("rlimit count"))
    except (z3.Z3Exception, KeyError):
        return 0


@dataclass
class HoudiniOutcome:
    verdict: str                        # proved (the survivors' conjunction is inductive) | unknown
    survivors: list                     # [(name, Expr)] in the candidates' order; [] unless proved
    rounds: int = 0                     # solver queries
    ctis: int = 0                       # of which found a counterexample to induction
    reason: str = ""
    rlimit: int = 0                     # Z3 resource units the queries used
    cut: bool = False                   # stopped by the caller's clock (`timeout`), not by a budget


class _Table:
    """The candidates as one NumPy function over state rows, and the slots' domain bounds; `facts`
    are evaluated too: a state is a pre-state of Houdini's question only if it satisfies them."""

    def __init__(self, model: GameModel, exprs: list, facts: Sequence = ()):
        sch, n = model.schema, len(exprs)
        both = compile_table(sch, list(exprs) + list(facts))
        self.ev = lambda X: both(X)[:n]
        self.facts_ok = lambda X: both(X)[n:].all(axis=0)
        self.lo = np.array([int(f.domain.least) for f in sch.slot_fields], dtype=np.int64)
        top = np.iinfo(np.int64).max
        self.hi = np.array([top if i in model.unbounded_slots else int(f.domain.greatest)
                            for i, f in enumerate(sch.slot_fields)], dtype=np.int64)

    def rows(self, states) -> np.ndarray:
        """In-domain states as rows (the Z3 step has every post-state in its slots' domains)."""
        X = np.array([[int(v) for v in s] for s in states], dtype=np.int64).reshape(len(states), len(self.lo))
        return X[((X >= self.lo) & (X <= self.hi)).all(axis=1)]


def houdini(model: GameModel, candidates: list, seed: int = 0, rlimit: int = 0, timeout: float | None = None,
            facts: Sequence = (), spend: int = 0, progress=None, whole: "LemmaSolver | None" = None) -> HoudiniOutcome:
    """The largest subset of `candidates` ([(name, Expr)]) whose conjunction is inductive on `model`
    relative to `facts` ([(name, Expr)], an inductive conjunction proved before, e.g. an earlier
    round's survivors: assumed in every pre-state, never re-checked). `rlimit`: each query's resource
    limit; `spend`: all queries' together (0: none), in at most `MAX_QUERIES` queries; `timeout`: seconds
    of the user's overall cap (a run it stops is `cut`). `progress(line)`: every 100 queries, how many
    candidates are left. `whole`: a LemmaSolver whose lemmas are the candidates, asked about the whole
    transition relation whatever their number (`LemmaSolver.prune`)."""
    clock = Clock(timeout)
    out = HoudiniOutcome("unknown", [])
    exprs, fx = [e for _, e in candidates], [e for _, e in facts]
    table = _Table(model, exprs, fx)
    rows = table.rows(model.init)  # an initial state out of its slots' domains is one no candidate holds in
    alive = table.ev(rows).all(axis=1) if len(rows) == len(model.init) else np.zeros(len(candidates), dtype=bool)
    if whole is not None or alive.sum() <= WHOLE:
        q: _Queries | _Whole = _Whole(whole or LemmaSolver(model, candidates, seed, rlimit), alive, fx)
    else:
        q = _Queries(model, exprs, alive, seed, rlimit, fx)
    cm: list = []  # the model's generated successors, built at the first counterexample
    start = spent(q.solver)
    while True:
        left = clock.left()
        if clock.out(slack=0):
            out.reason, out.cut = f"--timeout reached after {out.rounds} queries", True
            break
        if out.rounds >= MAX_QUERIES or (spend and out.rlimit >= spend):
            out.reason = f"budget spent: {out.rounds} queries, {out.rlimit:,} resource units"
            break
        out.rounds += 1
        if progress is not None and out.rounds % 100 == 0:
            progress(f"prove: Houdini query {out.rounds}: {int(alive.sum()):,} candidates left")
        _limit(q.solver, rlimit, spend - out.rlimit if spend else 0)
        r = q.check(alive, left)
        out.rlimit = spent(q.solver) - start
        if r is None:
            continue
        if r == z3.unsat:
            out.verdict = "proved"
            break
        if r == z3.unknown:
            # Z3 says "canceled" for an exhausted rlimit and for a timeout alike: the clock tells them apart.
            out.cut = clock.out()
            out.reason = f"solver: {q.solver.reason_unknown()} (query {out.rounds})"
            break
        pre, post = q.counterexample()
        if q.spurious(pre, table, alive):
            continue  # the pre-state breaks a candidate the query left out: asked again with it
        out.ctis += 1
        cm = cm or [CompiledModel.build(model)]
        broken = closure(cm[0], table, alive, pre, post, CLOSURE_BUDGET, clock)
        if not broken.any() and not clock.out():
            out.reason = "a counterexample to induction that breaks no candidate (encoding disagreement)"
            break
        alive &= ~broken
        q.retire(np.flatnonzero(broken))
    if out.verdict == "proved":
        out.survivors = [candidates[i] for i in np.flatnonzero(alive)]
    return out


class _Queries:
    """One incremental solver asked one action at a time. Each candidate c holds at step 0 under a literal
    (assumed while c is alive); each action's step sits under its own literal; an action's goal asks some alive
    candidate the action writes to fail at step 1 (a candidate's `may fail` literal is switched off for good when
    it is dropped, so each goal is built once). An unsat answer's core says which candidates it used: the action
    is asked again only when one of them is dropped (NOTE(cores))."""

    def __init__(self, model: GameModel, exprs: list, alive, seed: int, rlimit: int, facts: Sequence = ()):
        from model.lower import slots_read
        self.enc = enc = Encoder(model, unbounded_slots=model.unbounded_slots)
        self.ctx = ctx = enc.ctx
        self.solver = s = z3.SolverFor("QF_LIA", ctx=ctx)
        s.set("random_seed", seed)
        if rlimit:
            s.set("rlimit", rlimit)
        s.add(enc.domain(0), enc.domain(1))
        for e in facts:
            s.add(enc.as_bool(enc.translate(e, 0)))
        self.exprs = exprs
        self.hold = [z3.Bool(f"hold#{i}", ctx) for i in range(len(exprs))]
        self.fail = [z3.Bool(f"fail#{i}", ctx) for i in range(len(exprs))]
        self.index = {h.get_id(): i for i, h in enumerate(self.hold)}
        for i in np.flatnonzero(alive):
            s.add(mk_implies(self.hold[i], enc.as_bool(enc.translate(exprs[i], 0))))
        reads = [slots_read(e, model.schema) for e in exprs]
        self.steps = [z3.Bool(f"step#{n}", ctx) for n in range(len(model.actions))]
        self.goals: list = [None] * len(model.actions)  # per action: its goal literal, once armed (None before)
        self.affects: list = []
        self.hyp: list = []
        self._post: dict = {}
        for n, a in enumerate(model.actions):
            written = enc.written(n)
            self.affects.append(np.array([bool(r & written) for r in reads]) & alive)
            cone = set(written) | slots_read(a.guard, model.schema)
            for _, _, value in a.effects:
                cone |= slots_read(value, model.schema)
            self.hyp.append(np.array([bool(r & cone) for r in reads]) & alive)
        self.core: dict = {}      # action -> candidates its last unsat answer used
        self.pending = list(range(len(model.actions)))
        self.n: int | None = None  # the action last asked about

    def _arm(self, n: int) -> None:
        enc, s = self.enc, self.solver
        s.add(mk_implies(self.steps[n], enc.action_step(n, 0)))
        fails = []
        for i in np.flatnonzero(self.affects[n]):
            if i not in self._post:
                self._post[i] = mk_and(enc.ctx, [self.fail[i], mk_not(enc.as_bool(enc.translate(self.exprs[i], 1)))])
            fails.append(self._post[i])
        self.goals[n] = z3.Bool(f"goal#{n}", self.ctx)
        s.add(mk_implies(self.goals[n], mk_or(self.ctx, fails)))

    def check(self, alive, left: float | None):
        """The next action's query: unsat (and none left: done), sat, or unknown. Returns None while
        an unsat answer leaves actions to ask."""
        _timeout(self.solver, left)
        while self.pending:
            n = self.pending.pop(0)
            if not (self.affects[n] & alive).any():
                self.core[n] = frozenset()
                continue
            if self.goals[n] is None:
                self._arm(n)
            self.n = n
            r = decide(self.solver, self.goals[n], self.steps[n],
                       *[self.hold[i] for i in np.flatnonzero(alive & self.hyp[n])])
            if r != z3.unsat:
                return r
            self.core[n] = frozenset(self.index[c.get_id()] for c in self.solver.unsat_core()
                                     if c.get_id() in self.index)
            return None
        return z3.unsat

    def counterexample(self) -> tuple:
        m = self.solver.model()
        return self.enc.read_state(m, 0), self.enc.read_state(m, 1)

    def spurious(self, pre: tuple, table: "_Table", alive) -> bool:
        """NOTE(lazy-hypotheses): an action's query assumes only the alive candidates that read a slot
        its guard or effects read or write (fewer assumption literals: a faster query). A pre-state
        that breaks some other alive candidate is no counterexample to induction: those candidates
        join the action's hypotheses and the action is asked again (nothing is dropped for it)."""
        assert self.n is not None  # set by check() before a sat answer is read
        rows = table.rows([pre])
        bad = alive & ~self.hyp[self.n] & (~table.ev(rows)[:, 0] if len(rows) else alive)
        if not bad.any():
            return False
        self.hyp[self.n] |= bad
        self.pending.insert(0, self.n)
        return True

    def retire(self, idx) -> None:
        assert self.n is not None  # set by check() before a sat answer is read
        gone = set(int(i) for i in idx)
        for i in gone:
            self.solver.add(z3.Not(self.fail[i]))
        for n, used in list(self.core.items()):
            if used & gone:
                del self.core[n]
                self.pending.append(n)
        self.pending.insert(0, self.n)


class _Whole:
    """One incremental solver (a LemmaSolver's, its lemmas the candidates) asked about the whole transition
    relation at once: some alive candidate fails at step 1. Fewer, larger queries: the better trade for a
    small set of candidates, and for a large one that few counterexamples break (a transferred lemma set)."""

    def __init__(self, ls: "LemmaSolver", alive, facts: Sequence = ()):
        self.ls, self.solver, self.hold = ls, ls.solver, ls.lits
        enc, ctx, s = ls.enc, ls.enc.ctx, ls.solver
        for e in facts:
            s.add(enc.as_bool(enc.translate(e, 0)))
        self.fail = [z3.Bool(f"fail#{ls._n}#{i}", ctx) for i in range(len(ls.lits))]
        fails = mk_or(ctx, [mk_and(ctx, [self.fail[i], mk_not(ls.at0[i])]) for i in np.flatnonzero(alive)])
        # At step 1 by one substitution of the whole disjunction: measured faster to build, and to solve, than
        # each lemma translated at step 1 again (docs/lemmas.md).
        self.goal = ls._goal(z3.substitute(fails, *zip(enc.state(0), enc.state(1))))

    def check(self, alive, left: float | None):
        _timeout(self.solver, left)
        # The alive candidates' `fail` literals are assumed too (a dropped one's is false for good): the goal is
        # then a plain disjunction, which Z3 was measured to decide in about 60% of the time it takes when
        # it may choose which of them to set (docs/lemmas.md).
        on = np.flatnonzero(alive)
        return decide(self.solver, self.goal, *[self.hold[i] for i in on], *[self.fail[i] for i in on])

    def counterexample(self) -> tuple:
        pre, _, post = self.ls.step_read()
        return pre, post

    def spurious(self, pre, table, alive) -> bool:
        return False  # every alive candidate is assumed

    def retire(self, idx) -> None:
        for i in idx:
            self.solver.add(z3.Not(self.fail[i]))


def _limit(solver, rlimit: int, rest: int) -> None:
    """The next query's resource limit: `rlimit` (per query) and what is left of the run's `rest`
    (0: no limit of that kind)."""
    both = [x for x in (rlimit, rest) if x]
    if both:
        solver.set("rlimit", max(1, min(both)))


def _timeout(solver, left: float | None) -> None:
    """The next query's timeout: what is left of the caller's budget (None: leave it as it is). Every query of an
    inference is bounded so (issue 40: a blocking round's query asked with none ran 454 s of a 120 s `--timeout`)."""
    if left is not None:
        solver.set("timeout", max(1, int(left * 1000)))


def closure(cm: CompiledModel, table: _Table, alive, pre: tuple, post: tuple, budget: int, clock: Clock | None = None):
    """Candidates broken by some step from a state that satisfies every alive candidate: the given
    counterexample (`pre` -> `post`), every other successor of `pre`, and breadth first from the
    successors that still satisfy every candidate left, up to `budget` states or until `clock` is out."""
    broken = np.zeros(len(alive), dtype=bool)
    rows = table.rows([post])
    if len(rows):
        broken |= alive & ~table.ev(rows)[:, 0]
    frontier, seen = [pre], {pre}
    while frontier and not (clock and clock.out()):
        succ = [s2 for s in frontier for _, s2 in cm.successors(s)]
        X = table.rows(succ)
        if not len(X):
            break
        R, ok = table.ev(X), table.facts_ok(X)
        broken |= alive & ~R.all(axis=1)
        live = alive & ~broken
        good = R[live].all(axis=0) & ok
        frontier = []
        for row in X[good]:
            t = tuple(int(v) for v in row)
            if t not in seen and budget > 0:
                seen.add(t)
                frontier.append(t)
                budget -= 1
    return broken


class LemmaSolver:
    """The whole transition relation T(0, 1) of a model with proved lemmas under assumption literals, for the
    questions asked after Houdini: is the conjunction inductive (an independent re-check through the monolithic
    encoding the other proofs use), which lemmas does one invariant's step need (an unsat core), and where does
    an unproved invariant's induction fail (a state pair).

    >>> from model.expr import Var
    >>> from tests.conftest import counter_model
    >>> ls = LemmaSolver(counter_model(limit=3), [("x<=3", Var("x") <= 3)])
    >>> ls.confirm() is None, ls.used(Var("x") <= 3)
    (True, [])
    """

    def __init__(self, model: GameModel, lemmas: list, seed: int = 0, rlimit: int = 0):
        self.model = model
        self.lemmas: list = []
        self.enc = enc = Encoder(model, unbounded_slots=model.unbounded_slots)
        self.solver = s = z3.SolverFor("QF_LIA", ctx=enc.ctx)
        s.set("random_seed", seed, "smt.arith.solver", 2)  # the older simplex: 2x faster (benchmarks/arith.py)
        self.rlimit = rlimit
        if rlimit:
            s.set("rlimit", rlimit)
        s.add(enc.domain(0), enc.trans(0), enc.domain(1))
        self.lits: list = []
        self.at0: list = []
        self.index: dict = {}
        self._n = 0
        self._made = itertools.count()  # literal numbers, never reused (NOTE(literal-names))
        self.add(list(lemmas))

    def add(self, lemmas: list) -> None:
        """More lemmas (under fresh literals, assumed by every later question)."""
        enc = self.enc
        for name, e in lemmas:
            # NOTE(literal-names): one Z3 constant per name, and a pruned lemma's implication stays in the solver:
            # a name reused after `prune` assumed the dropped lemma too (docs/lemmas.md, twentieth session).
            lit = z3.Bool(f"lemma#{next(self._made)}", enc.ctx)
            self.index[lit.get_id()] = len(self.lits)
            self.lits.append(lit)
            self.at0.append(enc.as_bool(enc.translate(e, 0)))
            self.lemmas.append((name, e))
            self.solver.add(z3.Implies(lit, self.at0[-1]))

    def prune(self, spend: int, timeout: float | None = None) -> str | None:
        """Houdini through this solver's monolithic encoding (`houdini(whole=self)`) within `spend` resource
        units: the lemmas it drops are forgotten (the rest numbered again) and the rest's base case checked.
        None when what is left is inductive (as after `confirm`: Houdini's last query is the step), else why not."""
        clock = Clock(timeout)
        h = houdini(self.model, self.lemmas, timeout=timeout, rlimit=self.rlimit, spend=spend, whole=self)
        self.solver.set("rlimit", self.rlimit)  # 0: none, as before
        if h.verdict != "proved":
            return f"step: {h.reason}"
        kept = {id(pair) for pair in h.survivors}  # Houdini's survivors are the very pairs it was given
        keep = [i for i, pair in enumerate(self.lemmas) if id(pair) in kept]
        self.lits, self.at0, self.lemmas = ([xs[i] for i in keep] for xs in (self.lits, self.at0, self.lemmas))
        self.index = {lit.get_id(): i for i, lit in enumerate(self.lits)}
        return self._base(clock.rest())

    def extend(self, lemmas: list, timeout: float | None = None) -> str | None:
        """Add `lemmas` to the conjunction this solver has verified (`confirm`, `prune`) and re-check the
        larger one (`confirm` from the first new lemma on). None when it is inductive, else why not."""
        n = len(self.lits)
        self.add(lemmas)
        return self.confirm(timeout, since=n)

    def _goal(self, formula) -> z3.BoolRef:
        self._n += 1
        g = z3.Bool(f"goal#{self._n}", self.enc.ctx)
        self.solver.add(z3.Implies(g, formula))
        return g

    def confirm(self, timeout: float | None = None, since: int = 0) -> str | None:
        """None when Init => L and L /\\ T => L' (both unsat); else why not. `since`: only the lemmas from that
        index on are asked about at step 1 (the others' steps held with fewer lemmas assumed: `extend`)."""
        why = self._base(timeout)
        if why is not None or since == len(self.lits):
            return why
        _timeout(self.solver, timeout)
        enc = self.enc
        at1 = z3.substitute(mk_and(enc.ctx, self.at0[since:]), *zip(enc.state(0), enc.state(1)))
        r = decide(self.solver, self._goal(z3.Not(at1)), *self.lits)
        return None if r == z3.unsat else f"step: {r}"

    def _base(self, timeout: float | None) -> str | None:
        """None when Init => L (unsat), else why not."""
        enc = self.enc
        base = z3.SolverFor("QF_LIA", ctx=enc.ctx)
        base.add(enc.init(0), enc.domain(0), mk_not(mk_and(enc.ctx, self.at0)))
        _timeout(base, timeout)
        r = decide(base)
        return None if r == z3.unsat else f"base case: {r}"

    def _step(self, c0, left: float | None):
        """Is there a step from a state satisfying `c0` (a Z3 formula over the step-0 state) and every lemma
        to one violating it? `left`: seconds of the budget left for the query."""
        _timeout(self.solver, left)
        enc = self.enc
        c1 = z3.substitute(c0, *zip(enc.state(0), enc.state(1)))
        return decide(self.solver, self._goal(z3.And(c0, z3.Not(c1))), *self.lits)

    def used(self, predicate, left: float | None = None) -> list | None:
        """Indices of lemmas that the step P /\\ L /\\ T => P' uses (an unsat core), or None if it fails
        (or `left` seconds were not enough)."""
        return self.used_by_certificate(self.enc.as_bool(self.enc.translate(predicate, 0)), left)

    def used_together(self, indices: list, left: float | None = None) -> list | None:
        """An unsat core of the step of the lemmas at `indices` together (one query for a frontier of
        `infer.cone`); None if the step fails (or `left` seconds were not enough)."""
        return self.used_by_certificate(mk_and(self.enc.ctx, [self.at0[i] for i in indices]), left)

    def used_by_certificate(self, c0, left: float | None = None) -> list | None:
        """Indices of lemmas that the step of a Spacer certificate C (a Z3 formula over the step-0
        state: `checks.engines.certificates.state_formula` parses and checks the stored text) uses,
        C /\\ L /\\ T => C'; None if the step fails. `left`: seconds of the budget left for the query."""
        if self._step(c0, left) != z3.unsat:
            return None
        return sorted(self.index[c.get_id()] for c in self.solver.unsat_core() if c.get_id() in self.index)

    def failure(self, predicate, left: float | None = None):
        """(pre, action label, post): a step from a state satisfying P and every lemma to one violating
        P, or None (no such step, or the solver could not say within `left` seconds)."""
        enc = self.enc
        if self._step(enc.as_bool(enc.translate(predicate, 0)), left) != z3.sat:
            return None
        return self.step_read()

    def step_read(self) -> tuple:
        """(pre, action label, post) of the solver's model after a sat answer."""
        m, enc = self.solver.model(), self.enc
        act = self.model.actions[m.eval(enc.act(0), model_completion=True).as_long()].label
        return enc.read_state(m, 0), act, enc.read_state(m, 1)
