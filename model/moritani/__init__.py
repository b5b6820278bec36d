"""The Moritani Terror game package: rules, properties, observation, reactions and profiles.

`GAME` is what the command line's pipelines hold (model/declarations.py `Game`); the checkers in
`checks/` never import this package, they read the typed declarations of the models it builds.

>>> GAME.build(GAME.profiles["default"]).name
'moritani-terror'
"""
from __future__ import annotations

import dataclasses

from model.declarations import Game
from model.moritani.build import build_model
from model.moritani.catalogue import ALL_IDS, NOT_MODELLED
from model.moritani.config import FACES, SWITCHES, Bounds, Interpretation, bound_shapes
from model.moritani.defects import DEFECTS, defect_proposal
from model.moritani.deviations import DEVIATIONS
from model.moritani.profiles import PROFILES, Proposal
from model.moritani.reactions import printed_rules
from model.moritani.shrink import Shrink


def build(proposal, unbounded: bool = False, **options):
    """The model of a proposal (its bounds, interpretation and seeded defects)."""
    return build_model(proposal.bounds, proposal.interpretation, proposal.defects, unbounded=unbounded,
                       **options)


# A configuration small enough to compare the explicit and Z3 semantics state by state, and to run the
# leak check, on every `rulecheck check`: one stronghold (with the Ambassador), one turn.
SMALL_BOUNDS = dict(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=1)


def small(proposal):
    """The proposal on the small bounds (its other bounds and choices kept; a starting garrison in a stronghold
    the small bounds leave out is left out with it).

    >>> p = dataclasses.replace(PROFILES["default"], bounds=Bounds(garrisons=(("Atreides", "Carthag", 1),)))
    >>> small(p).bounds.garrisons
    ()
    """
    kept = tuple(g for g in proposal.bounds.garrisons if g[1] in SMALL_BOUNDS["strongholds"])
    return dataclasses.replace(proposal, bounds=dataclasses.replace(proposal.bounds, **SMALL_BOUNDS, garrisons=kept))


# `check` and `explore` search the default bounds for three Shipment & Movement phases (issue 17: several
# engine bugs show only in a third turn, and the vector engine checks the 2.4 M states in under 10 s). The other
# commands, and every proposal that sets bounds of its own, keep the proposal's number of turns.
CHECK_TURNS = 3


def searched(proposal, turns: int | None = None):
    """The proposal `check` and `explore` search: `turns` phases when given (`--turns`), else three on the
    default bounds (unless the proposal file wrote `turns` itself), else the proposal unchanged.

    >>> searched(PROFILES["default"]).bounds.turns, searched(PROFILES["three-turns"]).bounds.turns
    (3, 3)
    >>> searched(PROFILES["nexus-cunning"]).bounds.turns, searched(PROFILES["default"], 1).bounds.turns
    (2, 1)
    """
    if turns is None:
        if proposal.bounds != Bounds() or "turns" in proposal.given_bounds:
            return proposal
        turns = CHECK_TURNS
    if turns == proposal.bounds.turns:
        return proposal
    return dataclasses.replace(proposal, bounds=dataclasses.replace(proposal.bounds, turns=turns))


def open_orders(proposal):
    """The model with every reaction order the printed rules leave open left open (A1, A2, A5, and
    A6 with the Assassinate Leaders module), the proposal's other choices kept."""
    interp = printed_rules(proposal.interpretation, proposal.bounds.assassinate_leaders)
    return build_model(proposal.bounds, interp, proposal.defects)


GAME = Game(
    name="moritani-terror", build=build, open_orders=open_orders, proposal=Proposal, bounds=Bounds,
    interpretation=Interpretation, switches=SWITCHES, bound_shapes=bound_shapes(), profiles=PROFILES,
    defects=DEFECTS, catalogue_ids=tuple(ALL_IDS), not_modelled=NOT_MODELLED, shrink=Shrink(), small=small,
    with_defect=defect_proposal, searched=searched, deviations=DEVIATIONS,
    engines=("quintine", "treachery-online", "dunebot"),
    description="the Moritani Terror rules",
    # A leak pair's game B starts with two faces' public IDs exchanged (build_model(pids=...)).
    build_options={"pids": {"kind": "list", "items": {"min": 1, "max": len(FACES)}, "min": 1, "max": len(FACES),
                            "unique": True, "why": "the faces' initial public IDs: a permutation of 1..number of faces"}})
