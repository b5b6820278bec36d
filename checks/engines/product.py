"""Self-composition: two copies of one model's transition relation in one Z3 context, linked by
equal public labels. The leak checks (checks/analyses/leaks_z3.py) ask whether the two games'
observations can differ; the symmetry check (checks/engines/symmetry.py) asks whether a stronghold
permutation preserves what each rival observes. The secrets, observations and public labels are
the model's declaration (`model.secrets`).

>>> from model.moritani import GAME
>>> small = GAME.build(GAME.small(GAME.profiles["default"]))
>>> Product(small, functional=True, bits=None).pairs[:2]
[(0, 1), (0, 2)]
"""
from __future__ import annotations

import itertools

import z3

from checks.engines.encode import Encoder
from model.observation import Value


class Product:
    """The self-composed system of one model: two copies, the pair selector, links and goals."""

    def __init__(self, model, functional: bool, bits: int | None, pairs: list | None = None):
        self.model = model
        sec = model.secrets
        self.sec = sec
        kw = dict(unbounded_slots=model.unbounded_slots, functional=functional, bits=bits)
        self.A = Encoder(model, prefix="A.", **kw)
        self.B = Encoder(model, ctx=self.A.ctx, prefix="B.", **kw)
        self.ctx = self.A.ctx
        self.pairs = pairs or list(itertools.combinations(sec.values, 2))
        if len(self.pairs) == 1:  # one exchange: the selector is a constant and folds away
            self.pair = self.num(0)
        else:
            self.pair = z3.BitVec("pair", bits, self.ctx) if bits else z3.Int("pair", self.ctx)
        self.rivals = list(sec.observers)
        self.specs = {f: sec.spec(f) for f in self.rivals}
        # Public-label groups: actions that the public cannot tell apart except by the token's ID.
        acts = model.actions
        self.groups: dict = {}
        for i, a in enumerate(acts):
            self.groups.setdefault(sec.public_group(a), []).append(i)
        self.face_of = {}
        for i, a in enumerate(acts):
            fp = sec.value_params(a)
            self.face_of[i] = dict(a.args)[fp[0]] if fp else None

    # -- pieces --------------------------------------------------------------------------
    def num(self, v):
        return self.A.num(v)

    def sigma_state(self, s: tuple, a: int, b: int) -> tuple:
        return self.sec.swap(s, a, b)

    def start(self) -> z3.BoolRef:
        """A in the initial state, B in its exchange under the selected pair."""
        s0 = self.model.init[0]
        cs = [self.A.le(self.num(0), self.pair), self.A.lt(self.pair, self.num(len(self.pairs)))]
        if self.A.functional and not self.A.defined(0, 0):
            # BMC: the start states become terms (constants, and an if-chain over the pair for the
            # slots an exchange touches), so the first steps simplify instead of being solved.
            for i, v in enumerate(s0):
                self.A.define(i, 0, self.A.value(v, i))
                alt = self.B.value(v, i)
                for p, (a, b) in enumerate(self.pairs):
                    w = self.sigma_state(s0, a, b)[i]
                    if w != v:
                        alt = z3.If(self.pair == self.num(p), self.B.value(w, i), alt)
                self.B.define(i, 0, alt)
            return z3.And(cs)
        cs += [self.A.equals(s0, 0), self.A.domain(0), self.B.domain(0)]
        for p, (a, b) in enumerate(self.pairs):
            cs.append(z3.Implies(self.pair == self.num(p), self.B.equals(self.sigma_state(s0, a, b), 0)))
        return z3.And(cs)

    def pid(self, enc: Encoder, face: int, k):
        return enc.var(self.model.schema.slot(self.sec.id_field, (face,)), k)

    def link(self, k) -> z3.BoolRef:
        """act_A@k and act_B@k have equal public labels (read in their pre-states)."""
        A, B = self.A, self.B
        cs = []
        for g, members in self.groups.items():
            for i in members:
                fi = self.face_of[i]
                alts = []
                for j in members:
                    same = B.act(k) == self.num(j)
                    if fi is not None:
                        fj = self.face_of[j]
                        assert fj is not None  # one public group: every member has a face parameter, or none
                        same = z3.And(same, self.pid(B, fj, k) == self.pid(A, fi, k))
                    alts.append(same)
                cs.append(z3.Implies(A.act(k) == self.num(i), z3.Or(alts)))
        return z3.And(cs)

    def step(self, k) -> z3.BoolRef:
        A, B = self.A, self.B
        return z3.And(A.trans(k), A.domain(k + 1), B.trans(k), B.domain(k + 1), self.link(k))

    def obs_equal(self, f: int, k) -> z3.BoolRef:
        """Rival f observes A@k and B@k identically (components of `observation_spec`)."""
        return z3.And([self.component_equal(comp, k) for comp in self.specs[f]])

    def component_equal(self, comp, k) -> z3.BoolRef:
        A, B = self.A, self.B
        if isinstance(comp, Value):
            return z3.And([_same(A, B, A.translate(e, k), B.translate(e, k)) for e in comp.exprs] or [True])
        groups: dict = {}
        for cond, key in comp.items:
            groups.setdefault(key[0].value, []).append((cond, key[1:]))
        cs = []
        for items in groups.values():
            side = {}
            for name, enc in (("A", A), ("B", B)):
                side[name] = [(enc.as_bool(enc.translate(cond, k)), [enc.translate(x, k) for x in key])
                              for cond, key in items]
            if all(not key for _, key in items):  # no key beyond the group: compare the counts
                cs.append(_count(A, side["A"], None) == _count(A, side["B"], None))
                continue
            # Multisets are equal iff every key present on either side has equal counts.
            for cond, key in side["A"] + side["B"]:
                cs.append(z3.Implies(cond, _count(A, side["A"], key) == _count(A, side["B"], key)))
        return z3.And(cs or [z3.BoolVal(True, self.ctx)])


def _same(A, B, x, y):
    if z3.is_bool(x) != z3.is_bool(y):
        x, y = A.as_int(x), A.as_int(y)
    return x == y


def _count(enc, items, key):
    terms = []
    for cond, k2 in items:
        hit = cond if key is None else z3.And([cond] + [_same(enc, enc, a, b) for a, b in zip(k2, key)])
        terms.append(z3.If(hit, enc.num(1), enc.num(0)))
    return z3.Sum(terms) if len(terms) > 1 else terms[0]
