"""Symmetry reduction (`--symmetry`): verify the model's declared symmetry, then search orbits.

Verification (`verify`) before any use, for each generator σ of the declared group (a
transposition and an n-cycle generate every permutation of the points):

- the initial states map onto initial states (exact, on the tuples);
- the ground action set maps onto itself: σ(a), the same rule with renamed parameters, exists
  (exact, on the action labels);
- every rule commutes with σ: for every state in the slots' domains, T(s, a, s') implies
  T(σs, σa, σs'), guard and effects together; one Z3 query over the encoding of all rules
  (`checks/engines/encode.py`), unsat or refusal. One direction suffices: σ has finite order, so the
  implication applied k-1 more times gives the converse;
- every invariant, the terminal predicate and every witness (its `when` on each firing action)
  has the same value on s and σs: Z3, over all states in the domains.

Any failure raises ModelError naming the first rule or property that breaks (exit 3). The leak
check's observations are not covered: `hidden-identity` never runs on a reduced graph.

Search (`Reduction.canon`): a state is replaced by one fixed member of its orbit (points sorted by
their signature, `model.compile.compile_sorting_canon`; else the least tuple over the group), so the explorer
stores one representative per orbit. A trace through representatives is mapped back to a
concrete game (`Reduction.concretise`): at each step, the group element g with g(rep) = the
concrete state renames the stored action; the result is replayed like every other trace.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from model.compile import compile_sorting_canon, compile_state_maps
from model.errors import ModelError
from model.evaluate import apply
from model.game import GameModel
from model.trace import Step, Trace


@dataclass
class Reduction:
    """A verified symmetry, compiled: the group's state maps, action maps and the canoniser."""

    model: GameModel
    name: str
    elements: list       # permutations of the points, identity first
    state_maps: list     # one function per element: state -> permuted state
    action_maps: list    # one list per element: action index -> permuted action index
    canon: Callable[[tuple], tuple]  # state -> the representative of its orbit
    verify_seconds: float
    description: str

    def needs_canon(self) -> list:
        """Per action: False when its successor of a representative is a representative already."""
        reads = getattr(self.canon, "reads", None)
        schema = self.model.schema
        if reads is None:
            return [True] * len(self.model.actions)
        return [any(schema.slot(n, tuple(i.value for i in idx)) in reads for n, idx, _ in a.effects)
                for a in self.model.actions]

    def concretise(self, init: tuple, steps: list) -> Trace:
        """A concrete trace from a path through representatives: [(action index, next rep)]."""
        acts, schema = self.model.actions, self.model.schema
        rep, s, out = init, init, []
        for a, nxt_rep in steps:
            g = self.element_to(rep, s)
            b = acts[self.action_maps[g][a]]
            s = apply(b, s, schema)
            out.append(Step(b.label, s))
            rep = nxt_rep
        return Trace(init, tuple(out))

    def element_to(self, rep: tuple, s: tuple) -> int:
        """Index of the first group element g with g(rep) = s."""
        for g, fn in enumerate(self.state_maps):
            if fn(rep) == s:
                return g
        raise ModelError(f"symmetry '{self.name}': state is not in its representative's orbit")


def _canoniser(maps):
    others = maps[1:]
    if len(others) == 1:
        p = others[0]

        def canon(s):
            t = p(s)
            return t if t < s else s
        return canon

    def canon(s):
        return min([s] + [p(s) for p in others])
    return canon




def verify(model: GameModel, rlimit: int = 50_000_000) -> Reduction:
    """The model's declared symmetry, verified and compiled; ModelError (refusal) otherwise."""
    decl = model.symmetry
    if decl is None:
        raise ModelError(f"model '{model.name}' declares no symmetry; --symmetry needs one")
    t0 = time.perf_counter()
    schema = model.schema
    gens = decl.generators()
    gen_maps = compile_state_maps(decl, schema, gens)
    gen_actions = [decl.action_map(model, g) for g in gens]  # raises when the action set is not closed
    for perm, fn in zip(gens, gen_maps):
        for s in model.init:
            if fn(s) not in model.init:
                raise ModelError(f"symmetry '{decl.name}' refused: exchanging {decl.describe(perm)} changes the "
                                 f"initial state ({_diff(schema, s, fn(s))}); not interchangeable here")
    _z3_check(model, decl, gens, gen_actions, rlimit)
    elements = decl.elements()
    maps = compile_state_maps(decl, schema, elements)
    action_maps = [decl.action_map(model, p) for p in elements]
    desc = (f"symmetry over {len(decl.points)} {decl.name} ({', '.join(decl.labels)}): "
            f"{len(elements)} permutations, verified (initial state, {len(model.actions)} actions, "
            f"{len(model.invariants)} invariants, {len(model.witnesses)} witnesses)")
    canon = compile_sorting_canon(decl, schema, elements, maps) or _canoniser(maps)
    return Reduction(model, decl.name, elements, maps, action_maps, canon, time.perf_counter() - t0, desc)


def _diff(schema, a, b) -> str:
    return ", ".join(f"{n}: {x} vs {y}" for n, x, y in schema.diff(a, b)[:3])


def _z3_check(model, decl, gens, amaps, rlimit) -> None:
    """Rules, invariants, terminal and witnesses commute with every generator (Z3, all domain states).

    One encoding and one solver (domains asserted once); per generator one query for the rules and
    one for all properties together, whose model names the first property that differs.
    """
    import z3

    from checks.engines.encode import Encoder, decide
    from model.evaluate import enabled
    from model.expr import substitute
    enc = Encoder(model)
    solver = z3.Solver(ctx=enc.ctx)  # measured: the default beats QF_LIA and 12-bit vectors here
    solver.set("rlimit", rlimit)
    solver.add(enc.domain(0))
    act = enc.act(0)
    trans = enc.trans(0)
    props = [(f"invariant '{p.name}'", enc.as_bool(enc.translate(p.predicate, 0))) for p in model.invariants]
    props.append(("the terminal predicate", enc.as_bool(enc.translate(model.terminal, 0))))
    whens = {}  # (witness, action index) -> its `when` on the step-0 symbols
    for w in model.witnesses:
        if w.when is not None:
            for n, a in enumerate(model.actions):
                if a.rule.name in w.fires:
                    whens[(w.name, n)] = enc.as_bool(enc.translate(substitute(w.when, dict(a.args)), 0))

    for perm, amap in zip(gens, amaps):
        sources = decl.slot_sources(model.schema, perm)

        sub0 = list(zip(enc.state(0), _permuted(enc, sources, 0)))
        sub1 = list(zip(enc.state(1), _permuted(enc, sources, 1)))
        act_image = enc.num(amap[-1])
        for n in range(len(amap) - 2, -1, -1):
            act_image = z3.If(act == enc.num(n), enc.num(amap[n]), act_image)
        what = f"exchanging {decl.describe(perm)}"

        def query(formula, subject):
            solver.push()
            solver.add(formula)
            r = decide(solver)
            m = solver.model() if r == z3.sat else None
            solver.pop()
            if r == z3.unknown:
                raise ModelError(f"symmetry '{decl.name}' refused: Z3 could not decide whether {subject} "
                                 f"commute(s) with {what} ({solver.reason_unknown()}); nothing is reduced")
            return m

        m = query(z3.And(trans, z3.Not(z3.substitute(trans, *(sub0 + sub1 + [(act, act_image)])))), "the rules")
        if m is not None:
            i = m.eval(act, model_completion=True).as_long()
            pre = enc.read_state(m, 0)
            where = ""
            if model.dispatch:
                slot = model.schema.slot(model.dispatch)
                where = f" at {model.dispatch} {model.schema.show(slot, pre[slot])}"
            a, b = model.actions[i], model.actions[amap[i]]
            # Name the slots that differ, through the reference semantics (guard first, then effects).
            pre2 = decl.apply_state(model.schema, perm, pre)
            if enabled(a, pre, model.schema) != enabled(b, pre2, model.schema):
                how = "one is enabled and the other not"
            else:
                post = decl.apply_state(model.schema, perm, apply(a, pre, model.schema))
                how = "they write " + _diff(model.schema, post, apply(b, pre2, model.schema))
            raise ModelError(f"symmetry '{decl.name}' refused: a rule does not commute with {what}: "
                             f"'{a.label}' and its image '{b.label}' differ{where} ({how})")
        diffs = [(subject, e != z3.substitute(e, *sub0)) for subject, e in props]
        diffs += [(f"witness '{w}'", e != z3.substitute(whens[(w, amap[n])], *sub0))
                  for (w, n), e in whens.items()]
        m = query(z3.Or([d for _, d in diffs]), "the invariants, terminal predicate and witnesses")
        if m is not None:
            subject = next(s for s, d in diffs if z3.is_true(m.eval(d, model_completion=True)))
            raise ModelError(f"symmetry '{decl.name}' refused: {subject} does not commute with {what}")


def _permuted(enc, sources, k) -> list:
    """The step-k state of `enc` seen through a permutation: slot i reads slot `sources[i]`, renamed."""
    import z3
    out = []
    for i, vm in sources:
        x = enc.var(i, k)
        for p, q in sorted((vm or {}).items()):
            if p != q:
                x = z3.If(enc.var(i, k) == enc.num(p), enc.num(q), x)
        out.append(x)
    return out


def check_observations(model: GameModel, rlimit: int = 50_000_000) -> str:
    """Every rival's observational equivalence is preserved by the declared symmetry (Z3, all states).

    For the leak check on orbits: two states look the same to a rival exactly when their images
    under each generator do, ∀ s, t in the domains: obs(s) = obs(t) ⇔ obs(σ s) = obs(σ t).
    Returns a one-line description; raises ModelError (refusal) naming the observer otherwise.
    """
    import z3

    from checks.engines.encode import decide
    from checks.engines.product import Product
    decl = model.symmetry
    if decl is None:
        raise ModelError(f"model '{model.name}' declares no symmetry; --symmetry needs one")
    t0 = time.perf_counter()
    prod = Product(model, functional=False, bits=None)
    solver = z3.Solver(ctx=prod.ctx)
    solver.set("rlimit", rlimit)
    solver.add(prod.A.domain(0), prod.B.domain(0))
    # Per component: preserving each component's equality preserves their conjunction, and the
    # small queries are far easier for Z3 than one over the whole observation.
    equal = {(f, i): prod.component_equal(comp, 0) for f in prod.rivals for i, comp in enumerate(prod.specs[f])}
    assert model.secrets is not None  # Product above reads the secrets: a model without them fails there
    label = model.secrets.label
    for perm in decl.generators():
        sources = decl.slot_sources(model.schema, perm)
        sub = [pair for enc in (prod.A, prod.B) for pair in zip(enc.state(0), _permuted(enc, sources, 0))]
        for (f, i), eq in equal.items():
            solver.push()
            solver.add(eq != z3.substitute(eq, *sub))
            r = decide(solver)
            solver.pop()
            if r != z3.unsat:
                why = "Z3 could not decide it" if r == z3.unknown else "two states it cannot tell apart have images it can"
                raise ModelError(f"symmetry '{decl.name}' refused for the leak check: exchanging "
                                 f"{decl.describe(perm)} does not preserve what {label(f)} observes in "
                                 f"'{prod.specs[f][i].name}' ({why})")
    return (f"observations of {len(prod.rivals)} rivals preserved by {decl.name} permutations "
            f"({time.perf_counter() - t0:.1f}s)")
