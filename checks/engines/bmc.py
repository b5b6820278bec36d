"""Incremental bounded model checking with assumption literals, and Z3 trace decoding.

BMC(k): Init(x0) ∧ T(x0,x1) ∧ ... ∧ T(x_{k-1},x_k) ∧ ¬P(x_k). The unrolling grows by one
transition per depth; each goal is asked under a fresh assumption literal, so nothing is
retracted and learned clauses are kept. Every trace decoded from a Z3 model is replayed
through the reference semantics before it is returned.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from checks.clock import Clock
from checks.engines.encode import Encoder, decide, domain_bounds
from checks.results import InternalError, validated
from model.game import GameModel
from model.trace import Trace


BITS = 12  # the bit-vector encoding's least width: bounded domains stay below 2**10, sums below 2**12


def width(model: GameModel) -> int:
    """Bits of the bit-vector encoding for `model`: BITS, or more when a slot's domain needs them, with the
    same two bits of headroom (sign and sums) as BITS over 2**10.

    The unbounded-turn model's public IDs range over 1..10**6: in 12 bits that bound wrapped to 576, so the
    encoding's `domain` allowed no step from a state with an ID above 576 and a deep enough BMC would have
    reported `bounded` over a cut state space (found by tests/test_backends.py, NOTE(bv-unbounded)).

    >>> from model.moritani import GAME
    >>> small = GAME.small(GAME.profiles["default"])
    >>> width(GAME.build(small)), width(GAME.build(small, unbounded=True))
    (12, 22)
    """
    top = max((domain_bounds(f.domain)[1] for f in model.schema.slot_fields), default=0)
    return max(BITS, top.bit_length() + 2)


def solver(ctx: z3.Context, seed: int, rlimit: int | None, logic: str | None = "QF_FD") -> z3.Solver:
    """A solver with a fixed seed and, optionally, Z3's deterministic resource limit.

    QF_FD bit-blasts the finite-domain (bit-vector) encoding to Z3's SAT core, which is the
    fastest incremental engine for these unrollings (docs/performance.md has the figures).
    """
    s = z3.SolverFor(logic, ctx=ctx) if logic else z3.Solver(ctx=ctx)
    s.set("random_seed", seed)
    if rlimit:
        s.set("rlimit", rlimit)
    return s


def decode(enc: Encoder, m: z3.ModelRef, steps: int, what: str) -> Trace:
    """Trace from a Z3 model: read act@j, re-run the actions concretely, compare every state."""
    init = enc.read_state(m, 0)
    labels = enc.read_actions(m, steps)
    try:
        trace = Trace.from_actions(enc.model, init, labels)
    except Exception as e:  # a Z3 step the concrete semantics refuses: the encodings disagree
        raise InternalError(f"Z3 trace for {what} does not replay: {e}") from None
    for j, st in enumerate(trace.states):
        if st != enc.read_state(m, j):
            raise InternalError(f"Z3 trace for {what} disagrees with the concrete semantics at step {j}")
    return validated(enc.model, trace, f"the Z3 trace for {what}", check=what)


@dataclass
class BmcOutcome:
    verdict: str  # violated | bounded | unknown
    depth: int
    trace: Trace | None = None
    reason: str = ""
    seconds: float = 0.0
    per_depth: list = field(default_factory=list)  # seconds to reach each depth


def get_unrolling(enc: Encoder, k: int):
    """T(x_k, x_{k+1}) with the domain of x_{k+1}: one more step of the unrolling."""
    return z3.And(enc.trans(k), enc.domain(k + 1))


def get_bmc(model: GameModel, goals: list[str], depth: int, seed: int = 0, rlimit: int | None = None,
            timeout: float | None = None, enc: Encoder | None = None) -> dict:
    """Check each invariant in `goals` at every depth 0..depth; {name: BmcOutcome}."""
    enc = enc or Encoder(model, bits=width(model))
    s = solver(enc.ctx, seed, rlimit)
    if timeout is not None:  # Z3's own clock for the query in flight; the loop checks between depths
        s.set("timeout", max(1, int(timeout * 1000)))
    s.add(enc.init(0), enc.domain(0))
    out: dict = {}
    open_goals = list(goals)
    clock = Clock(timeout)
    t0 = clock.t0
    per_depth = []
    for k in range(depth + 1):
        if clock.out(slack=0):
            break
        if k > 0:
            s.add(get_unrolling(enc, k - 1))
        for g in list(open_goals):
            lit = z3.Bool(f"goal:{g}@{k}", enc.ctx)
            s.add(z3.Implies(lit, z3.Not(enc.invariant(g, k))))
            r = decide(s, lit)
            if r == z3.sat:
                t = decode(enc, s.model(), k, g)
                out[g] = BmcOutcome("violated", k, t, seconds=time.perf_counter() - t0)
                open_goals.remove(g)
            elif r == z3.unknown:
                out[g] = BmcOutcome("unknown", k, reason=f"solver: {s.reason_unknown()}",
                                    seconds=time.perf_counter() - t0)
                open_goals.remove(g)
        per_depth.append(time.perf_counter() - t0)
        if not open_goals or clock.out(slack=0):
            break
    reached = len(per_depth) - 1
    for g in open_goals:
        verdict = "bounded" if reached == depth else "unknown"
        reason = "" if reached == depth else (f"timeout after depth {reached}" if reached >= 0 else "timeout before depth 0")
        out[g] = BmcOutcome(verdict, reached, reason=reason, seconds=time.perf_counter() - t0, per_depth=per_depth)
    return out
