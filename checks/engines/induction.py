"""Unbounded proofs: Spacer (constrained Horn clauses) and k-induction, with honest failure types.

Spacer: Inv(x) <- Init(x);  Inv(x') <- Inv(x) /\\ T(x, x');  false <- Inv(x) /\\ not P(x).
unsat means an inductive invariant implying P exists: P holds in every reachable state of the
model, for games of any length when the model is built with `unbounded=True`.

k-induction: base = BMC to depth k-1; step = k states satisfying P, linked by T, pairwise distinct
(simple path), then not P. A satisfiable step is an InductionFailure (a state pair that breaks
induction), never a counterexample: `classify_cti` looks the pre-state up in the explicit graph.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

import z3

from checks.clock import Clock
from checks.engines.bmc import get_bmc
from checks.engines.encode import Encoder, decide
from checks.interrupt import INTERRUPTS
from model.game import GameModel


@dataclass
class InductionFailure:
    """A state pair (pre --action--> post) where P holds before and fails after; maybe unreachable."""

    pre: tuple
    action: str
    post: tuple
    k: int


@dataclass
class ProofOutcome:
    verdict: str  # proved | violated | unknown
    engine: str
    seconds: float
    reason: str = ""
    k: int | None = None
    cti: InductionFailure | None = None
    rlimit_used: int | None = None
    certificate: str | None = None  # Spacer's inductive invariant (SMT-LIB) when proved
    # An `unknown` the wall clock caused: not reproducible, so never stored (an rlimit's stop is, and may be).
    clock_stop: bool = False


class HornSystem:
    """The CHC system of one model, built once; each `query` runs in a fresh Fixedpoint."""

    def __init__(self, model: GameModel, facts=()):
        """`facts` ([(name, Expr)]): a conjunction proved inductive before (inferred lemmas, whose
        proof `checks/analyses/infer.py` re-checks): every step leaves from a state satisfying it.
        Every reachable state does, so the reachable states, and what Spacer proves of them, are
        unchanged; Spacer only has less to learn."""
        self.model = model
        self._fingerprint: str | None = None  # fingerprint(): the shared part's hash, once per system
        self.enc = enc = Encoder(model, unbounded_slots=model.unbounded_slots)
        ctx = enc.ctx
        sorts = [z3.BoolSort(ctx) if b else z3.IntSort(ctx) for b in enc.is_bool]
        self.inv = z3.Function("Inv", *sorts, z3.BoolSort(ctx))
        self.x0, self.x1 = enc.state(0), enc.state(1)
        self.init = z3.And(enc.init(0), enc.domain(0))
        self.step = [enc.trans(0), enc.domain(1)] + [enc.as_bool(enc.translate(e, 0)) for _, e in facts]
        self.facts = list(facts)

    def fixedpoint(self, seed: int, rlimit: int, timeout_ms: int | None = None) -> z3.Fixedpoint:
        fp = z3.Fixedpoint(ctx=self.enc.ctx)
        fp.set(engine="spacer")
        fp.set("spacer.random_seed", seed)
        if rlimit:
            fp.set("rlimit", rlimit)
        if timeout_ms is not None:
            fp.set("timeout", max(1, timeout_ms))
        fp.register_relation(self.inv)
        fp.declare_var(*self.x0, *self.x1, self.enc.act(0))
        fp.rule(self.inv(*self.x0), self.init)
        fp.rule(self.inv(*self.x1), [self.inv(*self.x0)] + self.step)
        return fp


def spacer(model: GameModel, name: str, seed: int = 0, rlimit: int = 0,
           system: HornSystem | None = None, timeout_ms: int | None = None) -> ProofOutcome:
    """Prove invariant `name` with Spacer (pass `system` to reuse the encoding across invariants)."""
    system = system or HornSystem(model)
    enc, inv, x0 = system.enc, system.inv, system.x0
    fp = system.fixedpoint(seed, rlimit, timeout_ms)
    t0 = time.perf_counter()
    try:
        r = fp.query(z3.And(inv(*x0), z3.Not(enc.invariant(name, 0))))
        if r == z3.unknown:
            INTERRUPTS.raise_if_interrupted()
    except z3.Z3Exception as e:  # Z3 reports an exhausted rlimit as a cancelled query
        INTERRUPTS.raise_if_interrupted()  # ... and a signal too: that is not a verdict
        secs = time.perf_counter() - t0
        return ProofOutcome("unknown", "spacer", secs, f"Spacer stopped: {z3_message(e)}",
                            clock_stop=_clock_stop(secs, timeout_ms))
    secs = time.perf_counter() - t0
    if r == z3.unsat:
        out = ProofOutcome("proved", "spacer", secs, "an inductive strengthening exists (Spacer)")
        out.certificate = certificate(system, fp)
        return out
    if r == z3.sat:
        return ProofOutcome("violated", "spacer", secs, "Spacer derived a reachable violation; see BMC for the trace")
    return ProofOutcome("unknown", "spacer", secs, f"Spacer: {fp.reason_unknown()}",
                        clock_stop=_clock_stop(secs, timeout_ms))


def _clock_stop(seconds: float, timeout_ms: int | None) -> bool:
    """Whether a stopped query ran into its wall-clock `timeout_ms`. Z3 words an exhausted rlimit and an
    expired timeout alike ("canceled"), so the clock, not the message, tells them apart.

    >>> _clock_stop(2.0, None), _clock_stop(0.5, 1000), _clock_stop(1.0, 1000)
    (False, False, True)
    """
    return timeout_ms is not None and seconds * 1000 >= timeout_ms


def z3_message(e: Exception) -> str:
    """A Z3 exception's message as text (z3 keeps it as bytes: b'canceled' must not reach a report).

    >>> z3_message(z3.Z3Exception(b"canceled"))
    'canceled'
    """
    msg = getattr(e, "value", None)
    if msg is None:
        msg = str(e)
    return msg.decode("utf-8", errors="replace") if isinstance(msg, bytes) else str(msg)


def fingerprint(system: HornSystem, name: str) -> str:
    """Text that changes whenever the encoded system, the invariant or Z3 itself changes (cache key)."""
    shared = getattr(system, "_fingerprint", None)
    if shared is None:  # the shared part is hashed once per system
        text = "\n".join([z3.get_full_version(), system.init.sexpr(), *(x.sexpr() for x in system.step)])
        shared = system._fingerprint = hashlib.sha256(text.encode()).hexdigest()
    return shared + "\n" + system.enc.invariant(name, 0).sexpr()


def certificate(system: HornSystem, fp: z3.Fixedpoint) -> str:
    """Spacer's inductive invariant over the step-0 symbols, as SMT-LIB text."""
    cover = z3.substitute_vars(fp.get_cover_delta(-1, system.inv), *system.x0)
    s = z3.Solver(ctx=system.enc.ctx)
    s.add(cover)
    return s.sexpr()


def strengthened_induction(system: HornSystem, name: str, facts, seed: int = 0,
                           rlimit: int = 0, timeout_ms: int | None = None) -> tuple[str, str, float]:
    r"""1-induction of invariant `name` conjoined with the model's declared facts (lemmas).

    ('proved', why, seconds) when Init => P /\ L and P /\ L /\ T => P' /\ L': the conjunction is then
    true in every reachable state, so P is, and so is every lemma in L (none is assumed). Else
    ('unknown', why, seconds).
    """
    t0 = time.perf_counter()
    enc = system.enc

    def conj(k):
        return z3.And([enc.invariant(name, k)] + [enc.as_bool(enc.translate(e, k)) for _, e in facts])

    s = z3.Solver(ctx=enc.ctx)
    s.set("random_seed", seed)
    if rlimit:
        s.set("rlimit", rlimit)
    if timeout_ms is not None:
        s.set("timeout", max(1, timeout_ms))
    for what, f in (("base", z3.And(system.init, z3.Not(conj(0)))),
                    ("step", z3.And([conj(0)] + system.step + [z3.Not(conj(1))]))):
        s.push()
        s.add(f)
        r = decide(s)
        s.pop()
        if r != z3.unsat:
            why = f"solver unknown ({s.reason_unknown()})" if r == z3.unknown else "not 1-inductive with the lemmas"
            return "unknown", f"{what}: {why}", time.perf_counter() - t0
    names = ", ".join(n for n, _ in facts)
    return "proved", f"1-inductive together with {names} (each proved by the same induction)", \
        time.perf_counter() - t0


def get_k_hypothesis(enc: Encoder, name: str, k: int) -> z3.BoolRef:
    """P(x_0) /\\ ... /\\ P(x_{k-1}) /\\ T(x_j, x_j+1) for j < k, every state in its domain."""
    cs = [enc.domain(0)]
    for j in range(k):
        cs += [enc.invariant(name, j), enc.trans(j), enc.domain(j + 1)]
    return z3.And(cs)


def get_simple_path(enc: Encoder, k: int) -> z3.BoolRef:
    """x_0 .. x_k pairwise distinct (so that a longer k eventually covers every loop-free path)."""
    n = len(enc.schema)
    return z3.And([z3.Or([enc.var(i, a) != enc.var(i, b) for i in range(n)])
                   for a in range(k + 1) for b in range(a + 1, k + 1)])


def k_induction(model: GameModel, name: str, max_k: int, seed: int = 0, rlimit: int = 0,
                timeout: float | None = None) -> ProofOutcome:
    """Try k = 1..max_k; proved needs both the step (unsat) and the base (BMC to k-1 clean)."""
    clock = Clock(timeout)
    t0 = clock.t0
    failure = None
    for k in range(1, max_k + 1):
        left = clock.left()
        if clock.out(slack=0):
            return ProofOutcome("unknown", "k-induction", time.perf_counter() - t0, f"timeout before k={k}", k=k)
        enc = Encoder(model, unbounded_slots=model.unbounded_slots)
        s = z3.Solver(ctx=enc.ctx)
        s.set("random_seed", seed)
        if rlimit:
            s.set("rlimit", rlimit)
        if left is not None:
            s.set("timeout", max(1, int(left * 1000)))
        s.add(get_k_hypothesis(enc, name, k), get_simple_path(enc, k), z3.Not(enc.invariant(name, k)))
        r = decide(s)
        if r == z3.unknown:
            return ProofOutcome("unknown", "k-induction", time.perf_counter() - t0,
                                f"solver: {s.reason_unknown()} at k={k}", k=k)
        if r == z3.unsat:
            left = clock.left()
            base = get_bmc(model, [name], k - 1, seed=seed, rlimit=rlimit or None, timeout=left)[name]
            if base.verdict == "violated":
                return ProofOutcome("violated", "k-induction", time.perf_counter() - t0,
                                    f"base case fails at depth {base.depth}", k=k)
            if base.verdict != "bounded":
                return ProofOutcome("unknown", "k-induction", time.perf_counter() - t0, base.reason, k=k)
            return ProofOutcome("proved", "k-induction", time.perf_counter() - t0, f"{k}-inductive", k=k)
        m = s.model()
        failure = InductionFailure(enc.read_state(m, k - 1), model.actions[m.eval(enc.act(k - 1)).as_long()].label,
                                   enc.read_state(m, k), k)
    return ProofOutcome("unknown", "k-induction", time.perf_counter() - t0,
                        f"not {max_k}-inductive: the invariant needs strengthening", k=max_k, cti=failure)


def classify_cti(cti: InductionFailure, explored: dict | None) -> str:
    """Say whether the pre-state of an induction failure is reachable in the explicit graph."""
    if explored is None:
        return "reachability of the pre-state not checked (no explicit graph for these bounds)"
    if cti.pre in explored:
        return "the pre-state IS reachable in the explicit graph: a real path exists (see the explicit check)"
    return ("the pre-state is not reachable within the explicit bounds: the invariant needs strengthening, "
            "this is not a counterexample")
