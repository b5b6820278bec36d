"""Properties: `always` invariants and `sometimes` witnesses.

An invariant is a state predicate that must hold in every reachable state. A
witness guards against vacuity: it holds when some reachable transition fires
one of `rules` (with `when` true in the pre-state) or, for a state witness,
some reachable state satisfies `state`.

>>> from model.expr import Var
>>> always("small", Var("x") < 3, rules=("R1",)).kind
'invariant'
"""
from __future__ import annotations

from dataclasses import dataclass

from model.expr import Expr


@dataclass(frozen=True)
class Property:
    name: str
    kind: str  # "invariant" | "witness"
    predicate: Expr | None = None
    fires: tuple = ()
    when: Expr | None = None
    rules: tuple = ()  # catalogue IDs (R#, A#, H#)
    doc: str = ""


def always(name: str, predicate: Expr, rules: tuple = (), doc: str = "") -> Property:
    return Property(name, "invariant", predicate=predicate, rules=rules, doc=doc)


def sometimes(name: str, fires: tuple = (), when: Expr | None = None, state: Expr | None = None,
              rules: tuple = (), doc: str = "") -> Property:
    return Property(name, "witness", predicate=state, fires=tuple(fires), when=when, rules=rules, doc=doc)
