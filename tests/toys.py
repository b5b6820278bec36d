"""Toy models shared by several test modules: hand-written GameModels small enough to reason about by hand, a
cut-down Moritani proposal, and the small configurations of every module (the Z3 agreement configurations, also
used by the SPIN parity and the module tests). A toy used by one module only stays in that module.

>>> len(counter_model().rules), swap_model().name
(2, 'swap')
"""
from __future__ import annotations

import dataclasses

import functools

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.domains import Bool, IntRange
from model.expr import Var
from model.game import GameModel
from model.moritani import GAME
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.properties import always, sometimes
from model.rule import Rule
from model.schema import Field, Schema


def counter_model(limit: int = 3, broken: bool = False) -> GameModel:
    """x counts up to `limit`; `broken` lets it overshoot, which the invariant catches."""
    sch = Schema((Field("x", IntRange(0, limit + 1)), Field("done", Bool())))
    top = limit + 1 if broken else limit
    rules = (
        Rule("inc", (), Var("x") < top, {("x", ()): Var("x") + 1}, ("T1",)),
        Rule("finish", (), Var("x").eq(limit) & ~Var("done"), {("done", ()): True}, ("T2",), kind="system"),
    )
    props = (always("bounded", Var("x") <= limit, ("T1",)), sometimes("can-finish", fires=("finish",)))
    return GameModel("counter", sch, ((0, False),), rules, props, terminal=Var("done"))


def swap_model() -> GameModel:
    """x, y := y, x needs the pre-state on both sides (simultaneous effects, NOTE(frame))."""
    sch = Schema((Field("x", IntRange(0, 3)), Field("y", IntRange(0, 3))))
    rules = (Rule("swap", (), Var("x") < Var("y"), {("x", ()): Var("y"), ("y", ()): Var("x")}, ("T1",)),
             Rule("grow", (), Var("y") < 3, {("y", ()): Var("y") + 1}, ("T2",)))
    return GameModel("swap", sch, ((0, 0),), rules, (always("ordered", Var("x") <= 3, ("T1",)),),
                     terminal=Var("x").eq(3))


def tiny(interpretation=None, defects=(), faces=("Extortion", "Robbery")):
    """The default profile cut to one stronghold, three factions, no alliance or Karama, two turns: small enough
    for lemma inference and certificates (tests/test_infer.py, tests/test_certify.py)."""
    p = GAME.profiles["default"]
    b = dataclasses.replace(p.bounds, strongholds=("Arrakeen",), ambassador=None, turns=2, faces=faces,
                            factions=("Moritani", "Atreides", "Bene Gesserit"), alliances=(), karama=())
    return dataclasses.replace(p, bounds=b, interpretation=interpretation or p.interpretation, defects=defects)


# The small configurations: every optional module and the switches that change its rules, each small enough to
# compare the Z3 encoding with the reference semantics state by state (tests/test_z3.py), and to count with SPIN
# (tests/test_promela.py).
SMALL = Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=1)  # tests/conftest.py SMALL
AGREEMENT_CONFIGS = {
    "small-default": (SMALL, Interpretation()),
    "small-terror-first-after-reply": (SMALL, Interpretation.of(terror_vs_arrival_reactions="terror-first",
                                                                karama_eome_timing="after-reply")),
    "small-extortion-first-retry-unordered": (
        dataclasses.replace(SMALL, strongholds=("Arrakeen", "Carthag"), ambassador=None, forces=(("Atreides", 1, 0),)),
        Interpretation.of(extortion_mentat_order="extortion-first", karama_placement="retry",
                          terror_vs_arrival_reactions="unordered")),
}
# The Nexus card module (stacks by Cunning, Betrayal while a decision is pending): three factions, two faces.
_NEXUS = Bounds(factions=("Moritani", "Atreides", "Bene Gesserit"), strongholds=("Arrakeen",), ambassador=None,
                alliances=(), faces=("Atomics", "Robbery"))
AGREEMENT_CONFIGS |= {
    "small-nexus-cunning-all-in-turn": (dataclasses.replace(_NEXUS, nexus_card="Moritani"),
                                        Interpretation.of(stack_reveal="all-in-turn", cunning_reach="placement-and-move")),
    "small-nexus-betrayal-any-time": (dataclasses.replace(_NEXUS, nexus_card="Atreides"),
                                      Interpretation.of(betrayal_timing="any-time")),
}
# The Grumman module: Moritani on the high side until a Sneak Attack; groups of 1 to 3; both removal custodies and
# the placement-time addition (with all-in-turn stacks, where the low-side threshold is reread mid-entry).
_GRUMMAN = Bounds(factions=("Moritani", "Atreides"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
                  faces=("Sneak Attack", "Robbery"), grumman=True, moritani_forces=8, forces=(("Atreides", 3, 2),),
                  spice=4, karama=())
AGREEMENT_CONFIGS |= {
    "small-grumman-to-supply": (_GRUMMAN, Interpretation.of(grumman_removal="to-supply")),
    "small-grumman-placement-out-of-game": (_GRUMMAN, Interpretation.of(
        grumman_addition="mentat-placement", grumman_removal="out-of-game", stack_reveal="all-in-turn")),
}
# Worm rides: Fremen with two desert forces rides before Shipment & Movement, under both A24 choices.
_WORMS = Bounds(factions=("Moritani", "Atreides", "Fremen"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
                faces=("Atomics", "Robbery"), worm_rides=True, forces=(("Atreides", 1, 0), ("Fremen", 0, 2)), karama=())
AGREEMENT_CONFIGS |= {
    "small-worm-rides": (_WORMS, Interpretation()),
    "small-worm-rides-shipment-and-movement": (_WORMS, Interpretation.of(entry_causes="shipment-and-movement")),
}
# A finite deck of one card with the bidding card: the deck runs out, the discard pile is reshuffled, and a Robbery
# may find nothing (A16), under both choices.
_DECK = Bounds(factions=("Moritani", "Atreides"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
               faces=("Robbery", "Sabotage"), deck=1, bidding=True, karama=(), forces=(("Atreides", 1, 1),))
AGREEMENT_CONFIGS |= {
    "small-finite-deck": (_DECK, Interpretation()),
    "small-finite-deck-nothing": (_DECK, Interpretation.of(robbery_empty_deck="nothing")),
}
# Moritani's setup beside a garrison: under `territory` the open desert too (R1, A27).
_SETUP = dataclasses.replace(SMALL, setup_forces=1, moritani_forces=2, garrisons=(("Atreides", "Arrakeen", 1),),
                             strongholds=("Arrakeen", "Carthag"), ambassador=None, forces=(("Atreides", 1, 0),))
# Bene Gesserit on Moritani's Homeworld (R23), under both readings.
_OCCUPIED = dataclasses.replace(_GRUMMAN, factions=("Moritani", "Atreides", "Bene Gesserit"),
                                forces=(("Atreides", 3, 2), ("Bene Gesserit", 1, 0)), homeworld_occupier="Bene Gesserit")
AGREEMENT_CONFIGS |= {
    "small-homeworld-offer-only": (_OCCUPIED, Interpretation()),
    "small-homeworld-trigger-and-offer": (_OCCUPIED, Interpretation.of(homeworld_occupation="trigger-and-offer")),
}
# Revival onto the planet: Atreides revives its one force in the Tanks, under both A24 readings.
_REVIVAL = dataclasses.replace(SMALL, revival="Atreides", forces=(("Atreides", 2, 0),), ambassador=None,
                               factions=("Moritani", "Atreides"), alliances=(), karama=(), turns=2,
                               faces=("Atomics", "Robbery"))
AGREEMENT_CONFIGS |= {
    "small-revival": (_REVIVAL, Interpretation()),
    "small-revival-shipment-and-movement": (_REVIVAL, Interpretation.of(entry_causes="shipment-and-movement")),
}
# The Guild's cross-ship: out of Tuek's Sietch or the open desert, and back to reserves; the Aftermath ban both ways
# (A23, A24, R17).
_CROSS = Bounds(factions=("Moritani", "Guild"), strongholds=("Arrakeen", "Tuek's Sietch"), ambassador=None,
                alliances=(), karama=(), faces=("Atomics", "Robbery"), cross_ship=True, forces=(("Guild", 0, 1),),
                garrisons=(("Guild", "Tuek's Sietch", 1),))
AGREEMENT_CONFIGS |= {
    "small-cross-ship": (_CROSS, Interpretation()),
    "small-cross-ship-allowed": (_CROSS, Interpretation.of(cross_ship_into_aftermath="allowed")),
}
# Ambassador relocation: the Ambassador in Arrakeen moves Ecaz's desert force, an entry queued behind the arrival
# (A24, A2, H9), under both A24 readings.
_RELOCATION = Bounds(factions=("Moritani", "Atreides", "Ecaz"), strongholds=("Arrakeen", "Carthag"), ambassador="Arrakeen",
                     alliances=(), karama=(), faces=("Atomics", "Robbery"), ambassador_relocation=True,
                     forces=(("Atreides", 1, 0), ("Ecaz", 0, 1)))
AGREEMENT_CONFIGS |= {
    "small-relocation": (_RELOCATION, Interpretation()),
    "small-relocation-shipment-and-movement": (_RELOCATION, Interpretation.of(entry_causes="shipment-and-movement")),
}
AGREEMENT_CONFIGS |= {
    "small-setup-stronghold": (_SETUP, Interpretation()),
    "small-setup-territory": (_SETUP, Interpretation.of(setup_destination="territory")),
}


@functools.cache
def explored_config(name: str):
    """(model, complete exploration) of AGREEMENT_CONFIGS[name], built once per test process and shared by every
    test that reads it (the conftest fixture `explored_config`); callers must not change them."""
    m = build_model(*AGREEMENT_CONFIGS[name])
    ex = Explorer(m, CheckConfig()).run()
    assert ex.complete, name
    return m, ex
