"""Z3 proof that two pending reactions commute on a whole class of states, not only the reachable ones.

The explicit detector (checks/analyses/ambiguity.py) classifies a pair by trying both orders at every
reachable state. Here the claim is proved symbolically for every state in the class

    C = { s in the declared domains : the scheduler step of r1 and of r2 are both enabled in s }

which contains every reachable such state and many unreachable ones. A *macro step* of a reaction
is its scheduler step followed by its own rules until the stage is back at the hub; the proof first
checks that each macro has one fixed length L (no shorter macro returns to the hub, every valid
L-step macro does), then that, for all s0 in C and all choices (the same action indices in both
orders):

    r1-macro ; r2-macro is executable  <=>  r2-macro ; r1-macro is executable, with equal end states.

Commuting single macros is the diamond property; since each resolution of one reaction commutes
with each resolution of the other, any interleaving of whole resolutions does too. `refuted` comes
with the start state: it may be unreachable, so it is evidence that the class is too wide or the
pair really depends on its order, never a counterexample by itself (the explicit search gives
those). `unknown` is reported on a solver unknown or when a macro has no fixed length.

>>> from model.moritani import GAME
>>> m = GAME.open_orders(GAME.small(GAME.profiles["default"]))
>>> prove_commutes(m, "terror", "ambassador").verdict  # the Terror macro has no fixed length
'unknown'
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from checks.clock import Clock
from checks.engines.encode import Encoder, decide
from model.game import GameModel

MAX_MACRO = 4
ORDER2 = 1000  # step numbers of the second order's symbols start here


@dataclass
class CommuteProof:
    pair: tuple
    verdict: str          # proved | refuted | unknown
    reason: str
    lengths: dict
    seconds: float
    start: tuple | None = None   # refuted: a start state in the class (possibly unreachable)


class _Macros:
    def __init__(self, model: GameModel, rlimit: int, clock: Clock | None = None):
        self.model, self.clock = model, clock or Clock(None)
        # functional: a state after a step is a term over the start state and the action
        # symbols, so "the other order is not executable" cannot be satisfied by choosing
        # fresh intermediate states. The second order's start state is the first order's.
        self.enc = Encoder(model, functional=True)
        for i in range(len(model.schema)):
            self.enc.define(i, ORDER2, self.enc.var(i, 0))
        self.ctx = self.enc.ctx
        self.rlimit = rlimit
        acts = model.actions
        # The ambiguity detector asks only about models that declare reactions and a stage slot.
        assert model.reactions is not None and model.dispatch is not None
        # Each reaction's own rules (scheduler step first): only these fire inside its macro step.
        macros = model.reactions.macro_rules
        self.idx = {r: [i for i, a in enumerate(acts) if a.rule.name in names] for r, names in macros.items()}
        self.first = {r: [i for i, a in enumerate(acts) if a.rule.name == names[0]] for r, names in macros.items()}
        self.stage = model.schema.slot(model.dispatch)
        self.hub = model.reactions.hub_of  # the detector's hubs, one definition

    def check(self, *fs) -> z3.CheckSatResult:
        s = z3.Solver(ctx=self.ctx)
        s.set("random_seed", 0)
        if self.rlimit:
            s.set("rlimit", self.rlimit)
        if self.clock.timeout is not None:  # the command's --timeout: what is left, at least a millisecond
            s.set("timeout", self.clock.ms())
        s.add(*fs)
        res = decide(s)
        self.last = s
        return res

    def at_hub(self, r, k):
        return self.enc.var(self.stage, k) == self.enc.num(self.hub[r])

    def enabled(self, r, k):
        """The scheduler step of r is enabled at step k."""
        e = self.enc
        return z3.Or([e.as_bool(e.translate(self.model.actions[i].guard, k)) for i in self.first[r]])

    def steps(self, r, k, length) -> list:
        """r's own actions at steps k..k+length-1, away from the hub in between."""
        e = self.enc
        cs = []
        for j in range(length):
            a = e.act(k + j)
            pool = self.first[r] if j == 0 else self.idx[r]
            cs.append(z3.Or([a == e.num(i) for i in pool]))
            cs.append(e.trans(k + j))
            if j > 0:
                cs.append(z3.Not(self.at_hub(r, k + j)))
        return cs

    def macro(self, r, k, length) -> z3.BoolRef:
        """A whole macro step of r from step k: back at the hub exactly after `length` steps."""
        return z3.And(self.steps(r, k, length) + [self.at_hub(r, k + length)])

    def length(self, r, k, context) -> tuple[int | None, str]:
        """The one macro length of r from every state at step k allowed by `context`, or None and why."""
        for n in range(1, MAX_MACRO + 1):
            res = self.check(*context, self.macro(r, k, n))
            if res == z3.unknown:
                return None, f"solver unknown on the {r} macro ({self.last.reason_unknown()})"
            if res == z3.sat:
                res = self.check(*context, *self.steps(r, k, n), z3.Not(self.at_hub(r, k + n)))
                if res == z3.unsat:
                    return n, ""
                if res == z3.unknown:
                    return None, f"solver unknown on the {r} macro ({self.last.reason_unknown()})"
                return None, f"the {r} macro has no fixed length (some take {n} steps, some longer)"
        return None, f"no {r} macro of up to {MAX_MACRO} steps returns to the hub"

    def fixed(self, r, k, n, context) -> str:
        """'' if every macro of r from step k under `context` takes exactly n steps, else why not."""
        for j in range(1, n):
            res = self.check(*context, self.macro(r, k, j))
            if res != z3.unsat:
                return f"the {r} macro after the other reaction may take {j} steps instead of {n}"
        res = self.check(*context, *self.steps(r, k, n), z3.Not(self.at_hub(r, k + n)))
        return "" if res == z3.unsat else f"the {r} macro after the other reaction may take more than {n} steps"


def prove_commutes(model: GameModel, r1: str, r2: str, rlimit: int = 20_000_000,
                   timeout: float | None = None) -> CommuteProof:
    """Prove that resolving r1 then r2 and r2 then r1 agree on every state where both may resolve
    (`timeout`: seconds for all its queries together; what it cuts short is unknown)."""
    t0 = time.perf_counter()
    m = _Macros(model, rlimit, Clock(timeout, started=t0))
    e = m.enc

    def give_up(verdict, why, lengths, start=None):
        return CommuteProof((r1, r2), verdict, why, lengths, time.perf_counter() - t0, start)

    for r in (r1, r2):
        if not m.first[r]:
            return give_up("unknown", f"the model has no {r} reaction", {})
    cls = [e.domain(0), m.at_hub(r1, 0), m.enabled(r1, 0), m.enabled(r2, 0)]
    lengths: dict[str, int] = {}
    for r in (r1, r2):
        n, why = m.length(r, 0, cls)
        if n is None:
            return give_up("unknown", why, lengths)
        lengths[r] = n
    l1, l2 = lengths[r1], lengths[r2]
    # Both orders make the same choices: definitions, not hypotheses.
    base = cls + [e.act(j) == e.act(ORDER2 + l2 + j) for j in range(l1)]
    base += [e.act(l1 + j) == e.act(ORDER2 + j) for j in range(l2)]
    # The second macro of each order, started wherever the first one left the game, has the same length.
    for first, k0, second, k1 in ((r1, 0, r2, l1), (r2, ORDER2, r1, ORDER2 + l2)):
        why = m.fixed(second, k1, lengths[second], cls + [m.macro(first, k0, lengths[first])])
        if why:
            return give_up("unknown", why, lengths)
    one = z3.And(m.macro(r1, 0, l1), m.macro(r2, l1, l2))
    two = z3.And(m.macro(r2, ORDER2, l2), m.macro(r1, ORDER2 + l2, l1))
    end1, end2 = l1 + l2, ORDER2 + l1 + l2
    same = z3.And([e.var(i, end1) == e.var(i, end2) for i in range(len(model.schema))])
    for label, hyp, goal in (("r1;r2", one, z3.And(two, same)), ("r2;r1", two, one)):
        res = m.check(*base, hyp, z3.Not(goal))
        if res == z3.unknown:
            return give_up("unknown", f"solver unknown ({m.last.reason_unknown()})", lengths)
        if res == z3.sat:
            return give_up("refuted", f"from some state of the class, {label} runs and the other order does not "
                           "or ends elsewhere", lengths, e.read_state(m.last.model(), 0))
    return give_up("proved", "for every state in the declared domains where both may resolve", lengths)
