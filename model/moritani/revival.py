"""Revival onto the planet as an entry: the optional module (bounds.revival; A24, R17, R11).

Some revivals put forces from the Tanks straight onto the planet. Whether that arrival may open Terror is
switch `entry-causes` (A24), as for worm rides: `every-arrival` (Quintine/Dune's entry receipt classes
Homeworld revival as an entry, R17; treachery.online `Revival.cs:578` checks intrusions after a revival
onto the planet, since version 161) or `shipment-and-movement` (R11's printed words). The Ecaz Ambassador
and BG Intrusion react to it as to any arrival.

Each turn, before Shipment & Movement, the reviving rival (`bounds.revival`) may revive one force from the
Tanks into a stronghold it may enter (storm, occupancy, its ally: as for any arrival), an entry with its
own reactions; when the entry is fully resolved Shipment & Movement begins. It starts the game with one
force in the Tanks, taken from its reserves, so that a revival is possible before any Atomics.

Modelling choices (docs/checking.md, "Revival onto the planet"): no revival cost or free-revival count (the
spice economy of revival is outside the Terror rules); one revival onto the planet per turn; not combined
with worm rides yet (both are entries before Shipment & Movement). Off, this module adds nothing.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["revival"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if "reviv" in r.name)
['end_revival', 'revive_onto_planet']
"""
from __future__ import annotations

from model.domains import Bool
from model.expr import Const, Param, implies, ite, post
from model.moritani.config import ENTRY_CAUSES
from model.moritani.context import Ctx
from model.properties import Property, always_step, sometimes
from model.rule import P, Rule
from model.schema import Field

IDS = ("A24", "R17", "R11")


def enabled(c: Ctx) -> bool:
    return c.bounds.revival is not None


def reviver(c: Ctx) -> int:
    return c.fac(c.bounds.revival)


def counts_for_terror(c: Ctx) -> bool:
    return c.chose(ENTRY_CAUSES.EVERY_ARRIVAL)


def first_stage(c: Ctx, otherwise: str) -> str:
    """Where the turn's Shipment & Movement begins: the revival step with the module, else `otherwise`."""
    return "revival" if enabled(c) else otherwise


def fields(c: Ctx) -> tuple:
    if not enabled(c):
        return ()
    return (Field("revived", Bool(), doc="the reviving rival has revived onto the planet this turn (public)"),)


def initial(c: Ctx) -> dict:
    return {"revived": False} if enabled(c) else {}


def turn_effects(c: Ctx) -> dict:
    return {("revived", ()): Const(False)} if enabled(c) else {}


def settled_effects(c: Ctx) -> dict:
    """When an arrival is fully resolved: a revival's entry leads on to Shipment & Movement, whose first mover is
    still to act; any other arrival passes the turn to the next mover. ({} without the module.)"""
    if not enabled(c):
        return {}
    v = c.v
    revival = v("entry_cause").eq(c.Cause.index("revival"))
    return {("stage", ()): c.st("ship_move"), ("mover", ()): v("mover") + ite(revival, 0, 1)}


def rules(c: Ctx, arrival, open_to) -> list[Rule]:
    """`arrival(f, to, cause, advisor, n)` is the arrival's effects (model/moritani/arrivals.py); `open_to(f, to)`
    the entry's legality."""
    if not enabled(c):
        return []
    v, R, to = c.v, reviver(c), Param("to")
    at = c.stage_is("revival")
    eff = {("tanks", (Const(R),)): v("tanks", R) - 1, ("forces", (Const(R), to)): v("forces", R, to) + 1,
           ("revived", ()): Const(True)}
    mislabelled = c.has("revival-recorded-as-shipment")  # the bug: the revival goes through the shipment call site
    eff |= arrival(Const(R), to, "shipment" if mislabelled else "revival", Const(False), 1)
    if (not counts_for_terror(c) and not c.has("revival-ignores-entry-causes") and not mislabelled) \
            or c.has("revival-skips-terror"):
        eff[("pend_terror", ())] = Const(False)
    return [
        Rule("revive_onto_planet", (P("to", c.L),), at & ~v("revived") & (v("tanks", R) >= 1) & open_to(Const(R), to),
             eff, ("A24", "R17", "R11"), actor=Const(R),
             doc="the reviving rival puts one force from the Tanks into a stronghold: an entry of its own"),
        Rule("end_revival", (), at, {("stage", ()): c.st("ship_move")}, ("A24",), actor=Const(R),
             doc="no (more) revival onto the planet this turn; Shipment & Movement begins"),
    ]


def properties(c: Ctx) -> list[Property]:
    if not enabled(c) or counts_for_terror(c):
        return []
    # Read off the `entry_begun` monitor, never the arrival's own `entry_cause` (the rule under test writes it).
    revival = c.v("entry_begun").eq(c.Begun.index("revival"))
    opening = c.stage_is("react") & post("stage").eq(c.st("terror"))
    return [always_step("revival-respects-entry-causes", implies(opening, ~revival), ("A24", "R11"),
                        "under shipment-and-movement a revival onto the planet never opens a Terror decision")]


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    revival = c.v("entry_begun").eq(c.Begun.index("revival"))
    out = [sometimes("witness-revival-onto-planet", fires=("revive_onto_planet",), rules=("A24",),
                     doc="the reviving rival revives a force from the Tanks into a stronghold")]
    if counts_for_terror(c):
        out.append(sometimes("witness-revival-opens-terror", fires=("open_terror",), when=revival,
                             rules=("A24", "R17"), doc="a revival onto the planet opens the Terror decision"))
    return out
