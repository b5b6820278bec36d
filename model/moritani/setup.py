"""Moritani's setup placement: the optional module (bounds.setup_forces; R1, A27).

Moritani sets up after every other faction (R1): it puts `setup_forces` of its forces from reserves
into one unoccupied territory; the rest stay in reserves. "Unoccupied" counts any forces, BG advisors
alone included (R1's engine note; treachery.online `PerformCyanSetup.ValidLocations` tests
`AnyForcesIn`), and the storm does not restrict it. The other factions' starting forces in strongholds
are `bounds.garrisons` (their home strongholds, say); without them every stronghold is free.

Switch `setup-destination` (A27, a conflict between the seeds' documents): `stronghold` (Quintine/Dune
`docs/CURRENT_STATUS.md`, 7 Oct: an unoccupied printed stronghold, never a seated faction's start) or
`territory` (the printed E3 p.5 wording quoted in `docs/MORITANI_TERROR_RULES.md`; treachery.online
accepts any location but the Hidden Mobile Stronghold).

Modelling choices (docs/checking.md, "Moritani's setup"): the open desert stands for the many sand
territories, at least one of which is unoccupied, so under `territory` Moritani may always set up
there; setup is not an entry (no token is on the planet yet), so nothing reacts to it. Off, this module
adds no stage, rule or property.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["moritani-setup"]
>>> [r.name for r in build_model(p.bounds, p.interpretation).rules if r.name.startswith("moritani_setup")]
['moritani_setup']
"""
from __future__ import annotations

from model.expr import Const, Param, implies, post
from model.moritani.config import SETUP_DESTINATION
from model.moritani.context import Ctx
from model.properties import Property, always_step, sometimes
from model.rule import P, Rule

IDS = ("R1", "A27")


def enabled(c: Ctx) -> bool:
    return c.bounds.setup_forces is not None


def first_stage(c: Ctx, otherwise: str) -> str:
    """The game's first stage: Moritani's setup with the module, else `otherwise` (the first Mentat Pause)."""
    return "setup" if enabled(c) else otherwise


def to_strongholds_only(c: Ctx) -> bool:
    return c.chose(SETUP_DESTINATION.STRONGHOLD)


def unoccupied(c: Ctx, loc):
    """No other faction has any force in `loc` (advisors count: R1)."""
    return c.all_of(c.v("forces", f, loc).eq(0) for f in c.rivals)


def legal(c: Ctx, loc):
    """May Moritani set up in `loc` (an expression over the Location domain)?"""
    hold = loc.ne(c.desert)
    if c.has("setup-anywhere"):  # the bug: the destination switch is ignored, the open desert is always offered
        return hold & unoccupied(c, loc) | ~hold
    if c.has("setup-ignores-occupancy"):  # the bug: only the destination kind is checked
        return hold | Const(not to_strongholds_only(c))
    return (hold & unoccupied(c, loc)) | (~hold & Const(not to_strongholds_only(c)))


def rules(c: Ctx, next_stage: str) -> list[Rule]:
    if not enabled(c):
        return []
    v, M, n, l = c.v, c.M, c.bounds.setup_forces, Param("l")
    return [Rule("moritani_setup", (P("l", c.L),), c.stage_is("setup") & legal(c, l),
                 {("reserves", (Const(M),)): v("reserves", M) - n, ("forces", (Const(M), l)): v("forces", M, l) + n,
                  ("stage", ()): c.st(next_stage)}, ("R1", "A27"), actor=Const(M),
                 doc="Moritani, setting up last, puts its starting forces into one unoccupied territory")]


def properties(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    v, M = c.v, c.M
    ok = Const(True)
    for loc in range(len(c.L.labels)):
        lands = post("forces", M, loc) > v("forces", M, loc)
        if loc == c.desert:
            ok = ok & implies(lands, Const(not to_strongholds_only(c)))
        else:
            ok = ok & implies(lands, unoccupied(c, Const(loc)))
    return [always_step("setup-unoccupied", implies(c.stage_is("setup"), ok), ("R1", "A27"),
                        "Moritani sets up only where no other faction has a force, and in a stronghold when "
                        "setup-destination says so")]


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    l = Param("l")
    out = [sometimes("witness-setup-in-a-stronghold", fires=("moritani_setup",), when=l.ne(c.desert), rules=("R1",),
                     doc="Moritani sets up in an unoccupied stronghold")]
    if not to_strongholds_only(c):
        out.append(sometimes("witness-setup-in-the-desert", fires=("moritani_setup",), when=l.eq(c.desert),
                             rules=("A27",), doc="Moritani sets up outside the strongholds"))
    return out

