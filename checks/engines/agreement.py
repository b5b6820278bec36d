"""Agreement between the explicit semantics and the Z3 encoding (the guard against two models).

`successor_agreement`: for each given state s, the successors Z3 allows from x@0 = s (every
action index it accepts, with the next state it forces) are exactly the successors the
reference interpreter computes. With the same initial states, equal successor sets on every
explicitly reachable state imply equal reachable sets at every depth; `layer_agreement` also
checks that directly for small depths by enumerating Z3 models.
"""
from __future__ import annotations

import z3

from checks.engines.encode import Encoder, decide
from model.evaluate import successors
from model.game import GameModel


class _Ground:
    """The pre-state substitution in Z3's C API, with every slot's symbol built once and its value terms
    shared with the encoder (`Encoder.value_ast`): through the Python wrappers (a checked `substitute`) it
    costs several times the solving itself. The successor comparison is `Encoder.equals` at step 1."""

    def __init__(self, enc: Encoder):
        self.enc = enc
        self.ctx = enc.ctx.ref()
        n = len(enc.schema)
        self.n = n
        self.pre = (z3.Ast * n)(*[enc.var(i, 0).as_ast() for i in range(n)])

    def substitute(self, relation: z3.BoolRef, state: tuple) -> z3.BoolRef:
        """`relation` with x@0 replaced by `state`, simplified."""
        to = (z3.Ast * self.n)(*[self.enc.value_ast(v, i) for i, v in enumerate(state)])
        ast = z3.Z3_substitute(self.ctx, relation.as_ast(), self.n, self.pre, to)
        return z3.simplify(z3.BoolRef(ast, self.enc.ctx))


def z3_successors(enc: Encoder, relation: z3.BoolRef, state: tuple, expected: dict | None = None,
                  ground: _Ground | None = None) -> set:
    """Every (action, next state) the encoded relation allows from `state`.

    `expected` (action label -> next state, e.g. the explicit successors) only saves decoding: when
    the model's next state equals the expected one (one evaluation of a conjunction instead of
    one per slot), that state is taken; otherwise the state is read slot by slot. `ground`: the
    encoder's prepared terms (`successor_agreement` keeps one for all its states).
    """
    ground = ground or _Ground(enc)
    # Substituting the concrete pre-state first leaves a tiny formula for the solver. A plain SMT solver
    # (no tactic preprocessing): on these formulas it answers about twice as fast as z3.Solver's default
    # strategy (same answers: both are complete for them).
    s = z3.SimpleSolver(ctx=enc.ctx)
    s.add(ground.substitute(relation, state))
    out = set()
    while decide(s) == z3.sat:
        m = s.model()
        a = m.eval(enc.act(0), model_completion=True).as_long()
        label = enc.model.actions[a].label
        want = (expected or {}).get(label)
        if want is not None and z3.is_true(m.eval(enc.equals(want, 1), model_completion=True)):
            out.add((label, want))
        else:
            out.add((label, enc.read_state(m, 1)))
        s.add(enc.act(0) != a)
    return out


def successor_agreement(model: GameModel, states) -> list[str]:
    """Disagreements (empty when the encodings agree on every given state)."""
    enc = Encoder(model)
    relation = z3.And(enc.trans(0), enc.domain(1))
    ground = _Ground(enc)
    problems = []
    for st in states:
        # The relation keeps the successor within its domains; a step that leaves them is `domain`'s finding
        # (NOTE(domain) in checks/engines/explicit.py), the same on both sides by construction.
        explicit = {(a.label, t) for a, t in successors(model, st) if not model.schema.check(t)}
        symbolic = z3_successors(enc, relation, st, dict(explicit), ground)
        if explicit != symbolic:
            extra = sorted(x[0] for x in symbolic - explicit)
            missing = sorted(x[0] for x in explicit - symbolic)
            problems.append(f"state {model.schema.pretty(st)[:80]}...: Z3 only {extra}, explicit only {missing}")
    return problems


def layer_agreement(model: GameModel, layers: dict, depth: int) -> list[str]:
    """Z3's reachable states within `depth` equal the explicit BFS layers 0..depth."""
    enc = Encoder(model)
    s = z3.Solver(ctx=enc.ctx)
    s.add(enc.init(0), enc.domain(0))
    problems = []
    for k in range(depth + 1):
        if k:
            s.add(enc.trans(k - 1), enc.domain(k))
        found = set()
        s.push()
        while decide(s) == z3.sat:
            st = enc.read_state(s.model(), k)
            found.add(st)
            s.add(z3.Not(enc.equals(st, k)))
        s.pop()
        want = set().union(*(layers.get(j, set()) for j in range(k + 1)))
        if found != want:
            problems.append(f"depth {k}: Z3 finds {len(found)} states, explicit BFS {len(want)}")
    return problems
