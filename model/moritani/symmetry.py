"""The symmetry the Moritani model declares: the ordinary strongholds are interchangeable.

Only a candidate: it is an automorphism only when the bounds treat every stronghold alike
(no Ecaz Ambassador, or storm positions, or anything else tied to one stronghold's name).
`checks/engines/symmetry.py` verifies it against the rules, the initial state, the invariants and the
witnesses before `--symmetry` uses it, and refuses otherwise. Factions are not declared: the
storm order seats them (`Ctx.order`), so they are never interchangeable (performance notes).
"""
from __future__ import annotations

from model.moritani.context import Ctx
from model.symmetry import ValueSymmetry


def declared(c: Ctx) -> ValueSymmetry:
    """Permutations of the stronghold indices, which are the same in the Location (strongholds and
    the open desert) and Stronghold (strongholds and none) domains; desert and none stay fixed."""
    return ValueSymmetry("strongholds", (c.L.name, c.Dest.name), c.holds, c.bounds.strongholds)
