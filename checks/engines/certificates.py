"""What a stored proof must be before it counts: the one verifier of every proof store.

Two kinds of proof are stored between runs (the proof store, checks/engines/lemmacache.py, and its
shipped seed) and read back from files anyone can edit, so nothing stored is trusted:

- A Spacer certificate: SMT-LIB text claimed to be an inductive invariant C of a model's transition
  system that implies a property P. `certificate_problem` accepts it only when it IS one:
  1. C is a formula over the current state only: every symbol it mentions is one of the model's
     step-0 state symbols (`slot@0`, with the slot's sort). A next-state symbol (`slot@1`), the
     action symbol (`act@0`), any other free constant, an uninterpreted function or a quantifier is
     refused before any query runs: with `slot@1` in it, "C(x0) /\\ T(x0, x1) => C(x1)" no longer says
     that every step keeps C, and `P(x0) /\\ (T(x0, x1) -> P(x1))` passes all three queries for a
     false P (issue 37);
  2. initiation: Init => C;  3. consecution: C /\\ F /\\ T => C' (F: facts proved inductive before,
     `HornSystem.facts`);  4. C => P.
  Each query must answer unsat; sat, unknown, a timeout or text that does not parse is a refusal.
- A lemma set: expression trees over the model's state slots (`model.expr` nodes). The node types a
  store may hold have no next-state or action node (`lemmacache.NODES`: no `Post`, `Fired`, `Arg`,
  `Param`); `lemma_problem` also requires every `Var` to name a state field with the right number of
  indices, each constant index in its dimension, every constant an integer, every divisor positive.
  Their conjunction is then re-proved (Init => L, L /\\ T => L') by `LemmaSolver.confirm` through
  `verified_lemmas`.

Every store calls these and nothing else (docs/proofs.md, "What a stored proof must be").

>>> from model.moritani import GAME
>>> from model.expr import Var, Const
>>> m = GAME.build(GAME.profiles["assassinate-leaders"], unbounded=True)
>>> lemma_problem(m.schema, Var("turn") <= 3) is None, lemma_problem(m.schema, Var("nosuch").eq(Const(1)))
(True, "unknown state field 'nosuch'")
"""
from __future__ import annotations

import z3

from checks.engines.encode import decide
from checks.engines.houdini import LemmaSolver
from model import expr as X

MAX_TEXT = 16 << 20  # characters of one certificate (the largest shipped one is about 15,000)


class BadCertificate(ValueError):
    """Certificate text that is not a formula over the current-state symbols."""


def state_formula(text, state: list, ctx: z3.Context) -> z3.BoolRef:
    """The conjunction of the assertions in `text`, parsed in `ctx`, checked to mention no symbol
    but the current-state ones in `state` (z3 constants, with their sorts); BadCertificate otherwise.

    >>> ctx = z3.Context(); x0, x1 = z3.Int("x@0", ctx), z3.Int("x@1", ctx)
    >>> state_formula("(declare-fun x@0 () Int) (assert (<= 0 x@0))", [x0], ctx)
    And(0 <= x@0)
    >>> state_formula("(declare-fun x@1 () Int) (assert (<= 0 x@1))", [x0], ctx)
    Traceback (most recent call last):
    ...
    checks.engines.certificates.BadCertificate: it mentions x@1, which is not a current-state symbol
    """
    if not isinstance(text, str):
        raise BadCertificate(f"it is a {type(text).__name__}, not SMT-LIB text")
    if len(text) > MAX_TEXT:
        raise BadCertificate(f"it is longer than {MAX_TEXT:,} characters")
    try:
        parsed = list(z3.parse_smt2_string(text, ctx=ctx))
    except z3.Z3Exception as e:
        raise BadCertificate(f"it is not SMT-LIB ({str(e)[:80]})") from None
    formula = z3.And(parsed) if parsed else z3.BoolVal(True, ctx)
    allowed = {s.get_id() for s in state}
    seen, todo = set(), [formula]
    while todo:  # iterative: a hostile text may nest deeper than Python's recursion limit
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_quantifier(t):
            raise BadCertificate("it has a quantifier (a certificate is quantifier-free)")
        if z3.is_var(t):
            raise BadCertificate("it has a bound variable")
        if not z3.is_app(t):
            raise BadCertificate(f"unexpected term {str(t)[:60]}")
        if t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if t.num_args():
                raise BadCertificate(f"it applies the uninterpreted function {t.decl().name()}")
            if t.get_id() not in allowed:
                raise BadCertificate(f"it mentions {t.decl().name()}, which is not a current-state symbol")
        todo.extend(t.children())
    return formula


def certificate_problem(system, name: str, text, timeout_ms: int | None = None) -> str | None:
    """None when `text` proves invariant `name` of `system` (a `checks.engines.induction.HornSystem`):
    a current-state formula C with Init => C, C /\\ F /\\ T => C' and C => P; else why not. `F`
    (`system.facts`) must be a conjunction proved inductive before (the caller's lemmas, verified by
    `verified_lemmas`), so that C /\\ F is an inductive invariant. Three plain satisfiability
    queries: a stored certificate costs milliseconds, and nothing is trusted."""
    enc = system.enc
    try:
        c0 = state_formula(text, system.x0, enc.ctx)
    except BadCertificate as e:
        return str(e)
    c1 = z3.substitute(c0, *zip(system.x0, system.x1))
    s = z3.Solver(ctx=enc.ctx)
    if timeout_ms is not None:
        s.set("timeout", max(1, timeout_ms))
    for what, f in (("initiation (Init => C)", z3.And(system.init, z3.Not(c0))),
                    ("consecution (C /\\ T => C')", z3.And([c0] + system.step + [z3.Not(c1)])),
                    (f"C => {name}", z3.And(c0, z3.Not(enc.invariant(name, 0))))):
        s.push()
        s.add(f)
        r = decide(s)
        s.pop()
        if r != z3.unsat:
            return f"{what} fails" if r == z3.sat else f"{what}: solver {s.reason_unknown() or 'unknown'}"
    return None


def lemma_problem(schema, e, depth: int = 0) -> str | None:
    """None when `e` is an expression over the current state of `schema` that the encoder and the
    evaluator accept; else why not."""
    if depth > 200:
        return "expression nested too deeply"
    match e:
        case X.Const(value=v):
            return None if isinstance(v, (int, bool)) else f"a constant that is not an integer: {v!r}"
        case X.Var(field=f, index=idx):
            if f not in schema.by_name:
                return f"unknown state field {f!r}"
            dims = schema.field(f).dims
            if not isinstance(idx, tuple) or len(idx) != len(dims):
                return f"{f} takes {len(dims)} indices"
            for i, d in zip(idx, dims):
                if isinstance(i, X.Const) and i.value not in d.values:
                    return f"index {i.value!r} of {f} is outside its dimension"
                why = lemma_problem(schema, i, depth + 1)
                if why:
                    return why
            return None
        case X.Div(a=a, k=k):
            if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
                return f"a division by {k!r}"
            return lemma_problem(schema, a, depth + 1)
        case X.Not() | X.And() | X.Or() | X.Eq() | X.Lt() | X.Le() | X.Add() | X.Sub() | X.Ite():
            for c in X.children(e):
                why = lemma_problem(schema, c, depth + 1)
                if why:
                    return why
            return None
    return f"{type(e).__name__} is not a current-state expression"


def verified_lemmas(model, facts: list, seed: int = 0, rlimit: int = 0, timeout: float | None = None,
                    prune: int = 0):
    """(LemmaSolver, None) when `facts` ([(name, Expr)]) are current-state expressions whose
    conjunction is inductive with its base case (Init => L, L /\\ T => L'); else (None, why not).
    The solver answers the later questions about the same conjunction (cores, failures). `prune`: the
    resource units to spend on dropping the facts that keep the conjunction from being inductive
    (`LemmaSolver.prune`; 0: none); the solver's `lemmas` are then the facts kept."""
    for n, e in facts:
        why = lemma_problem(model.schema, e)
        if why:
            return None, f"lemma {str(n)[:60]!r}: {why}"
    ls = LemmaSolver(model, facts, seed, rlimit)
    why = ls.prune(prune, timeout) if prune else ls.confirm(timeout)
    return (ls, None) if why is None else (None, why)
