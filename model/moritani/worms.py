"""Fremen worm rides as entries: the optional module (bounds.worm_rides; A24, R17, R11, H20).

A worm ride carries Fremen forces from the open desert into a stronghold. Whether that entry may open
Terror is switch `entry-causes` (A24): `every-arrival` (both engines: Quintine/Dune's entry receipt
classes worm rides as entries, R17; treachery.online `YellowRidesMonster.cs:172` checks intrusions
after a ride) or `shipment-and-movement` (the printed R11 wording: "by shipment or movement"). The
Ecaz Ambassador and BG Intrusion react to the ride as to any arrival, under either choice.

Rides come before the turn's shipments, one after another: up to `RIDES` per turn (two worms), each a
whole entry with its reactions; when an entry is fully resolved the ride sequence continues, exactly
once (H20: `finishTerrorEntry` runs `nextWormRide` once, and an accepted alliance resumes the existing
continuation rather than starting another). Fremen ends the sequence by passing.

Modelling choices (docs/checking.md, "Worm rides"): worms are not placed or drawn (every turn offers
`RIDES` rides); a ride moves 1 to all of Fremen's desert forces (up to 3, the Grumman group); revival
onto the planet is model/moritani/revival.py; the other entry causes of A24 (Guild cross-ship, Ambassador
relocation, Caladan reinforcement) are not modelled. Off, this module adds no field, stage, rule or property.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["worm-rides"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if "ride" in r.name)
['end_rides', 'worm_ride']
"""
from __future__ import annotations

from model.domains import IntRange
from model.expr import Const, Param, count, implies, ite, post
from model.moritani.config import ENTRY_CAUSES, KARAMA_EOME_TIMING
from model.moritani.context import Ctx
from model.properties import Property, always_step, sometimes
from model.rule import P, Rule
from model.schema import Field

IDS = ("A24", "R17", "R11", "H20")
RIDES = 2    # worm rides offered per turn
CARRY = 3    # most forces one ride carries


def enabled(c: Ctx) -> bool:
    return c.worms


def fremen(c: Ctx) -> int:
    return c.fac("Fremen")


def counts_for_terror(c: Ctx) -> bool:
    """Does a worm ride open Terror (A24)?"""
    return c.chose(ENTRY_CAUSES.EVERY_ARRIVAL)


def first_stage(c: Ctx, otherwise: str) -> str:
    """Where the turn's Shipment & Movement begins: the worm rides with the module, else `otherwise`."""
    return "worm" if enabled(c) else otherwise


def fields(c: Ctx) -> tuple:
    if not enabled(c):
        return ()
    return (Field("rides", IntRange(0, RIDES), doc="worm rides taken this turn (public)"),)


def initial(c: Ctx) -> dict:
    return {"rides": 0} if enabled(c) else {}


def turn_effects(c: Ctx) -> dict:
    """A new turn brings new worms."""
    return {("rides", ()): 0} if enabled(c) else {}


def settled_effects(c: Ctx) -> dict:
    """When an arrival is fully resolved: a ride resumes the ride sequence (H20), any other arrival passes
    the turn to the next mover. ({} without the module: the caller's own effects stand.)"""
    if not enabled(c):
        return {}
    v = c.v
    ride = v("entry_cause").eq(c.Cause.index("worm ride"))
    stage = c.st("ship_move") if c.has("ride-continuation-skipped") else ite(ride, c.st("worm"), c.st("ship_move"))
    return {("stage", ()): stage, ("mover", ()): v("mover") + ite(ride, 0, 1)}


def close_stage(c: Ctx):
    """Where a finished Terror entry goes: back to the arrival's reactions (`react`)."""
    if c.has("ride-resumes-at-close"):  # H20's hazard: a ride's Terror close resumes the rides at once
        return ite(c.v("entry_cause").eq(c.Cause.index("worm ride")), c.st("worm"), c.st("react"))
    return c.st("react")


def rules(c: Ctx, arrival, open_to, next_stage: str) -> list[Rule]:
    """`arrival(f, to, cause, advisor, n)` is the arrival's effects (model/moritani/arrivals.py); `open_to(f, to)`
    the entry's legality (storm, occupancy, ally); `next_stage` where the rides hand over."""
    if not enabled(c):
        return []
    v, Y = c.v, fremen(c)
    n, to = Param("n"), Param("to")
    at = c.stage_is("worm")
    eff = {("forces", (Const(Y), Const(c.desert))): v("forces", Y, c.desert) - n,
           ("forces", (Const(Y), to)): v("forces", Y, to) + n, ("rides", ()): v("rides") + 1}
    mislabelled = c.has("ride-recorded-as-shipment")  # the bug: the ride goes through the shipment call site
    eff |= arrival(Const(Y), to, "shipment" if mislabelled else "worm ride", Const(False), n)
    if not counts_for_terror(c) and not c.has("ride-ignores-entry-causes") and not mislabelled:
        eff[("pend_terror", ())] = Const(False)
    return [
        Rule("worm_ride", (P("n", IntRange(1, CARRY)), P("to", c.L)),
             at & (v("rides") < RIDES) & (v("forces", Y, c.desert) >= n) & open_to(Const(Y), to), eff,
             ("A24", "R17", "R11", "H20"), actor=Const(Y),
             doc="Fremen rides a worm: n forces from the open desert into a stronghold, an entry of its own"),
        Rule("end_rides", (), at, {("stage", ()): c.st(next_stage)} | _phase_ends(c), ("H20",), actor=Const(Y),
             doc="Fremen rides no more worms this turn; Shipment & Movement goes on"),
    ]


def _phase_ends(c: Ctx) -> dict:
    """The Spice Blow ends with the rides: under A4 pre-emptive-phase a Karama played against Enemy of My Enemy
    during a ride's Terror decision lapses with it (treachery.online `Game.MainPhaseEnd` allows every prevented
    advantage again, Shared/Game.cs:299-312; issue 33: the model kept it through Shipment & Movement)."""
    if not c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE):
        return {}
    return {("eome_prevented", ()): Const(False)}


def began_with_ride(c: Ctx):
    """The entry under way began with a worm ride, as the `entry_begun` monitor saw it (never the arrival's own
    `entry_cause`, which the rule under test writes)."""
    return c.v("entry_begun").eq(c.Begun.index("worm ride"))


def properties(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    v = c.v
    arrival = ("react", "advisor", "ambassador", "terror", "eome_karama", "eome_reply", "robbery",
               "robbery_discard", "assassinate", "sabotage_gift", "sneak", "entry_done")
    ride = began_with_ride(c)
    leaves = c.stage_is(*arrival) & ~c.any_of(post("stage").eq(c.st(s)) for s in arrival)
    out = [
        always_step("ride-continues", implies(leaves & ride, post("stage").eq(c.st("worm"))), ("H20", "A24"),
                    "when a worm ride's entry is fully resolved, the ride sequence continues (no ride is skipped)"),
    ]
    if not counts_for_terror(c):
        opening = c.stage_is("react") & post("stage").eq(c.st("terror"))
        out.append(always_step("entry-causes-respected", implies(opening, ~ride), ("A24", "R11"),
                               "under shipment-and-movement a worm ride never opens a Terror decision"))
    return out


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    ride = began_with_ride(c)
    out = [sometimes("witness-second-ride", fires=("worm_ride",), when=c.v("rides") >= 1, rules=("H20",),
                     doc="the ride sequence continues after a ride's entry and Fremen rides again")]
    if c.stacks:  # with a stacking module (issue 15's combined profile): a ride into a stack
        to = Param("to")
        stack = count(c.token_at(k, to) for k in c.faces) >= 2
        out.append(sometimes("witness-ride-into-stack", fires=("worm_ride",), when=stack, rules=("H20", "R47"),
                             doc="a worm ride enters a stronghold holding two Terror tokens"))
    if counts_for_terror(c):
        out.append(sometimes("witness-ride-opens-terror", fires=("open_terror",), when=ride, rules=("A24", "R17"),
                             doc="a worm ride into a token's stronghold opens the Terror decision"))
    return out
