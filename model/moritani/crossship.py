"""The Guild's cross-ship and transport back to reserves: the optional module (bounds.cross_ship; A24, A23, R17).

On its turn of Shipment & Movement the Guild may, instead of shipping from reserves, ship one force from a
territory of the board (the open desert or a stronghold where it has forces, not under the storm) into a
stronghold it may enter (a cross-ship), or one force from the board back to its reserves. Both cost one
spice, paid to the bank (half the rate for one force into a stronghold, rounded up).

- A cross-ship is an entry with the arrival's reactions. It is a shipment in the printed wording and an
  entry in both engines (Quintine/Dune's entry receipt, R17; treachery.online `Shipment.cs:497` checks
  intrusions after every shipment that is not back to reserves), so it opens Terror under either reading
  of switch `entry-causes`. It brings no BG advisor (the advisor accompanies shipments from off-planet;
  treachery.online sets `BlueMayAccompany` only for a normal shipment).
- A transport back to reserves is no entry (R17): it opens nothing.
- May a cross-ship enter the Aftermath? Switch `cross-ship-into-aftermath` (A23): `banned` (treachery.online
  filters the Aftermath territory out of every shipment's destinations, `Shipment.cs:331`; the printed ban
  read as covering every shipment) or `allowed` (the ban read as covering shipments from off-planet only).

Modelling choices (docs/checking.md, "The Guild's cross-ship"): the Guild's income from other factions'
shipments is left out (shipments pay the bank, as everywhere in the model); one force per action; not
combined with the worm-ride, revival, Grumman or Assassinate Leaders modules yet. Off, this module adds
nothing.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["cross-ship"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if "guild" in r.name)
['guild_cross_ship', 'guild_to_reserves']
"""
from __future__ import annotations

from model.expr import Const, Fired, Param, post
from model.moritani.config import CROSS_SHIP_INTO_AFTERMATH
from model.moritani.context import Ctx
from model.properties import Property, sometimes
from model.rule import P, Rule

IDS = ("A24", "A23", "R17", "R36")


def enabled(c: Ctx) -> bool:
    return c.bounds.cross_ship


def guild(c: Ctx) -> int:
    return c.fac("Guild")


def aftermath_banned(c: Ctx) -> bool:
    return c.chose(CROSS_SHIP_INTO_AFTERMATH.BANNED)


def rules(c: Ctx, arrival, open_to, mine) -> list[Rule]:
    """`arrival(f, to, cause, advisor, n)` is the arrival's effects (model/moritani/arrivals.py); `open_to(f, to)`
    the entry's legality (storm, occupancy, ally); `mine(f)` the guard that it is faction f's turn to ship."""
    if not enabled(c):
        return []
    v, G = c.v, Const(guild(c))
    frm, to = Param("frm"), Param("to")
    turn = mine(G) & (v("spice", G) >= 1)
    source = (v("forces", G, frm) >= 1) & ~c.storm_over(frm)  # the open desert is never under it
    dest = open_to(G, to) & frm.ne(to)
    if c.has("cross-ship-ignores-occupancy"):  # the bug: the site-to-site path checks only the storm
        dest = to.ne(c.desert) & v("storm").ne(to) & frm.ne(to)
    if aftermath_banned(c) and not c.has("cross-ship-into-aftermath"):
        dest = dest & v("aftermath").ne(to)
    paid = {("spice", (G,)): v("spice", G) - 1, ("bank", ()): v("bank") + 1}
    moved = {("forces", (G, to)): v("forces", G, to) + 1}
    if not c.has("cross-ship-keeps-origin"):  # the bug: the forces are copied, the origin keeps its own
        moved[("forces", (G, frm))] = v("forces", G, frm) - 1
    entry = arrival(G, to, "cross-ship", Const(False), 1)
    if c.has("cross-ship-skips-terror"):  # the bug: the site-to-site call site never opens Terror
        entry[("pend_terror", ())] = Const(False)
    back = {("forces", (G, frm)): v("forces", G, frm) - 1, ("reserves", (G,)): v("reserves", G) + 1,
            ("mover", ()): v("mover") + 1}
    if c.has("reserve-transport-opens-terror"):  # the bug: the transport runs the arrival for its origin
        back = arrival(G, frm, "cross-ship", Const(False), 1) | {k: e for k, e in back.items() if k[0] != "mover"}
    return [
        Rule("guild_cross_ship", (P("frm", c.L), P("to", c.L)), turn & source & dest, paid | moved | entry,
             ("A24", "A23", "R17", "R11", "R25", "R36"), actor=G,
             doc="the Guild ships one force from the board into a stronghold (a cross-ship): an entry"),
        Rule("guild_to_reserves", (P("frm", c.L),), turn & (v("forces", G, frm) >= 1), paid | back, ("R17",),
             actor=G, doc="the Guild ships one force from the board back to its reserves: no entry"),
    ]


def exempt_from_ban(c: Ctx):
    """Steps the Aftermath ban lets through for the Guild: a cross-ship, under `allowed` (A23)."""
    return Fired(("guild_cross_ship",)) if enabled(c) and not aftermath_banned(c) else Const(False)


def cross_shipped(c: Ctx):
    """The step is a cross-ship (the Guild's action, as declared), whatever the rule does with it."""
    return Fired(("guild_cross_ship",)) if enabled(c) else Const(False)


def to_reserves(c: Ctx, f: int):
    """The step returns faction f's forces from the board to its reserves as the Guild's transport (R17)."""
    if not enabled(c) or f != guild(c):
        return Const(False)
    return c.stage_is("ship_move") & (post("reserves", f) > c.v("reserves", f))


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    from_hold = c.any_of(Param("frm").eq(h) for h in c.holds)
    out = [sometimes("witness-cross-ship-from-stronghold", fires=("guild_cross_ship",), when=from_hold,
                     rules=("A24", "R17"), doc="the Guild cross-ships a force out of one stronghold into another"),
           sometimes("witness-cross-ship-from-desert", fires=("guild_cross_ship",),
                     when=Param("frm").eq(c.desert), rules=("A24", "R17"),
                     doc="the Guild cross-ships a force out of the open desert, which no storm covers here "
                         "(issue 33: unreachable while `storm` = none shared the open desert's index)"),
           sometimes("witness-cross-ship-opens-terror", fires=("open_terror",),
                     when=c.v("entry_begun").eq(c.Begun.index("cross-ship")),
                     rules=("A24", "R17"), doc="a cross-ship into a token's stronghold opens the Terror decision"),
           sometimes("witness-transport-to-reserves", fires=("guild_to_reserves",), when=c.any_token_at(Param("frm")),
                     rules=("R17",), doc="the Guild leaves a token's stronghold for its reserves: no decision")]
    if not aftermath_banned(c):
        out.append(sometimes("witness-cross-ship-into-aftermath", fires=("guild_cross_ship",),
                             when=c.v("aftermath").eq(Param("to")), rules=("A23", "R36"),
                             doc="under allowed, the Guild cross-ships into the Aftermath"))
    return out
