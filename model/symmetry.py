"""Candidate symmetries a model declares as data: interchangeable values of some domains.

A `ValueSymmetry` says "every permutation of these values (e.g. the strongholds) might be an
automorphism". It acts on a state by moving array slots indexed by those values and by
renaming slot values drawn from those domains, and on a ground action by renaming its
parameters. Declaring is not trusting: `checks/engines/symmetry.py` verifies the declaration against
the initial states, every rule, every invariant, witness and the terminal predicate before a
search uses it, and refuses otherwise.

>>> from model.domains import Enum
>>> from model.schema import Field, Schema
>>> L = Enum("Location", ("A", "B", "desert"))
>>> sch = Schema((Field("at", L), Field("n", L, (L,))))
>>> sym = ValueSymmetry("places", ("Location",), (0, 1), ("A", "B"))
>>> sym.apply_state(sch, (1, 0), (0, 1, 2, 0))   # swap A and B
(1, 2, 0, 1)
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from model.errors import ModelError


@dataclass(frozen=True)
class ValueSymmetry:
    """Every permutation of `points` (the same indices in each domain named in `domains`).

    A permutation is written as a tuple `perm` with `perm[i]` the image of `points[i]`;
    values outside `points` (e.g. "none", the open desert) are fixed.
    """

    name: str
    domains: tuple   # names of the domains whose values `points` are interchangeable
    points: tuple    # the interchangeable values
    labels: tuple    # their names, for messages

    def elements(self) -> list:
        """Every permutation, identity first, in a fixed order."""
        return [tuple(self.points[i] for i in p) for p in itertools.permutations(range(len(self.points)))]

    def generators(self) -> list:
        """A transposition and an n-cycle: together they generate the whole symmetric group."""
        n = len(self.points)
        if n < 2:
            return []
        pts = self.points
        swap = (pts[1], pts[0]) + pts[2:]
        gens = [swap]
        if n > 2:
            gens.append(pts[1:] + pts[:1])
        return gens

    def value_map(self, perm) -> dict:
        return dict(zip(self.points, perm))

    def slot_sources(self, schema, perm) -> list:
        """For each slot j of the permuted state, (source slot, value map or None)."""
        vm = self.value_map(perm)
        src: list = [None] * len(schema)
        for i, (fname, idx) in enumerate(schema.slot_keys()):
            f = schema.by_name[fname]
            image = tuple(vm.get(v, v) if d.name in self.domains else v for d, v in zip(f.dims, idx))
            src[schema.slot(fname, image)] = i
        out = []
        for source in src:
            moves_values = schema.slot_fields[source].domain.name in self.domains
            out.append((source, vm if moves_values and any(k != v for k, v in vm.items()) else None))
        return out

    def apply_state(self, schema, perm, s: tuple) -> tuple:
        """The state with the points renamed by `perm` (reference form; checks compile it)."""
        return tuple((vm.get(s[i], s[i]) if vm else s[i]) for i, vm in self.slot_sources(schema, perm))

    def action_map(self, model, perm) -> list:
        """perm(a) as an action index for every action index a; ModelError if the set is not closed."""
        vm = self.value_map(perm)
        index = {(a.rule.name, a.args): n for n, a in enumerate(model.actions)}
        out = []
        for a in model.actions:
            doms = {p.name: p.domain for p in a.rule.params}
            args = tuple((k, vm.get(v, v) if doms[k].name in self.domains else v) for k, v in a.args)
            n = index.get((a.rule.name, args))
            if n is None:
                names = dict(zip(self.points, self.labels))
                raise ModelError(
                    f"symmetry '{self.name}' refused: exchanging {self.describe(perm)} maps action "
                    f"'{a.label}' to {a.rule.name}{dict(args)}, which the rules do not offer (its guard "
                    f"is false for every state); the {', '.join(names.values())} are not interchangeable here")
            out.append(n)
        return out

    def describe(self, perm) -> str:
        names = dict(zip(self.points, self.labels))
        moved = [f"{names[p]}->{names[q]}" for p, q in zip(self.points, perm) if p != q]
        return ", ".join(moved) or "nothing"
