"""Permissions of the optional modules (NOTE(permissions)), and the terms every permission shares (whose turn it
is, where a faction may enter): worm rides, revival, the Guild's cross-ship, the
Ambassador relocation, the Nexus card, Grumman, setup and Assassinate Leaders. Each is written from the rules
text (catalogue R#/A#), never from a rule's guard.

>>> from model.moritani import GAME
>>> sorted(p.name for p in GAME.build(GAME.profiles["worm-rides"]).permissions if "ride" in p.name)
['may-end-rides', 'may-ride-worm']
"""
from __future__ import annotations

from model.domains import IntRange
from model.expr import Const, Param, lift
from model.moritani.context import Ctx
from model.properties import Property, choose, permitted
from model.rule import P


def turn_of(c: Ctx, p):
    """It is faction p's (an expression) turn in Shipment & Movement: storm order, after the separation of
    the player before it (R26, R27)."""
    from model.moritani import separation
    return c.stage_is("ship_move") & c.at_position("mover", p) & ~separation.pending(c)


def enterable(c: Ctx, p, t, ally_clause: bool = True):
    """Faction p may enter stronghold t (base rules): not under the storm, fewer than two other factions
    there (Ecaz and its ally count once), and (R25) not where its ally stands, unless one of them is Ecaz."""
    v = c.v
    ok = Param(t).ne(c.desert) & v("storm").ne(Param(t)) & (c.occupants(Param(t), exclude=(p,)) < 2)
    if ally_clause:
        ecaz = c.fac("Ecaz")
        allied_there = c.any_of(v("ally", p).eq(g) & c.present(g, Param(t))
                                for g in range(len(c.bounds.factions)) if g != ecaz)
        ok = ok & (~allied_there if ecaz is None else (lift(p).eq(ecaz) | ~allied_there))
    return ok


def worm_rides(c: Ctx) -> list[Property]:
    """A24, R17, H20: before Shipment & Movement Fremen may ride a worm from the open desert into a stronghold."""
    from model.moritani import worms
    if not worms.enabled(c):
        return []
    v, Y = c.v, worms.fremen(c)
    n = Param("n")
    riding = c.stage_is("worm") & (v("rides") < worms.RIDES)
    return [
        permitted("may-ride-worm", choose("worm_ride", n="n", to="t"),
                  riding & (v("forces", Y, c.desert) >= n) & enterable(c, Const(Y), "t"),
                  params=(P("n", IntRange(1, worms.CARRY)), P("t", c.L)), rules=("A24", "R17", "R25"),
                  doc="Fremen may ride a worm with up to its open-desert forces into any stronghold it may enter"),
        permitted("may-end-rides", "end_rides", c.stage_is("worm"), rules=("H20",),
                  doc="Fremen may stop riding"),
    ]


def revival(c: Ctx) -> list[Property]:
    """A24, R17: the reviving rival may put a force from the Tanks into a stronghold, or not."""
    from model.moritani import revival as module
    if not module.enabled(c):
        return []
    v, R = c.v, module.reviver(c)
    at = c.stage_is("revival")
    return [
        permitted("may-revive", choose("revive_onto_planet", to="t"),
                  at & ~v("revived") & (v("tanks", R) >= 1) & enterable(c, Const(R), "t"), params=(P("t", c.L),),
                  rules=("A24", "R17", "R25"),
                  doc="once per turn the reviving rival may put a force from the Tanks into a stronghold it may enter"),
        permitted("may-end-revival", "end_revival", at, rules=("A24",), doc="the rival may revive nothing"),
    ]


def cross_ship(c: Ctx) -> list[Property]:
    """A23, A24, R17, R25, R36: at its turn the Guild may ship a force from any territory it holds (the open
    desert included) into a stronghold it may enter, or back to its reserves."""
    from model.moritani import crossship
    if not crossship.enabled(c):
        return []
    v, G = c.v, crossship.guild(c)
    frm, t = Param("frm"), Param("t")
    turn = turn_of(c, Const(G)) & (v("spice", G) >= 1)
    # The origin: a territory with a Guild force, not under the storm (the open desert is never under it).
    origin = (v("forces", G, frm) >= 1) & (frm.eq(c.desert) | v("storm").ne(frm))
    dest = enterable(c, Const(G), "t") & frm.ne(t)
    if crossship.aftermath_banned(c):
        dest = dest & v("aftermath").ne(t)
    return [
        permitted("may-cross-ship", choose("guild_cross_ship", frm="frm", to="t"), turn & origin & dest,
                  params=(P("frm", c.L), P("t", c.L)), rules=("A23", "A24", "R17", "R25", "R36"),
                  doc="at its turn the Guild may cross-ship a force from any territory it holds into a stronghold it "
                      "may enter (from the open desert too)"),
        permitted("may-ship-to-reserves", choose("guild_to_reserves", frm="frm"),
                  turn & (v("forces", G, frm) >= 1), params=(P("frm", c.L),), rules=("R17",),
                  doc="at its turn the Guild may ship a force from the board back to its reserves"),
    ]


def relocation(c: Ctx) -> list[Property]:
    """A24, A2, R25: the Fremen Ambassador lets Ecaz move one force from any territory (the open desert too)
    into a stronghold it may enter."""
    from model.moritani import relocation as module
    from model.moritani.arrivals import ambassador_present
    if not module.enabled(c):
        return []
    v, E = c.v, c.fac("Ecaz")
    frm, t = Param("frm"), Param("t")
    reacting = c.stage_is("ambassador") & v("amb_payer").ne(E) & ambassador_present(c)
    origin = (v("forces", E, frm) >= 1) & (frm.eq(c.desert) | v("storm").ne(frm))
    return [
        permitted("may-relocate", choose("ambassador_relocate", frm="frm", to="t"),
                  reacting & origin & enterable(c, Const(E), "t") & frm.ne(t),
                  params=(P("frm", c.L), P("t", c.L)), rules=("A24", "A2", "R25"),
                  doc="the Fremen Ambassador reacting to a rival's arrival, Ecaz may move a force from any territory "
                      "(the open desert too) into a stronghold it may enter"),
    ]


def nexus(c: Ctx) -> list[Property]:
    """R48, A19: Betrayal (an unallied rival's card) and Cunning (Moritani's, unallied)."""
    from model.moritani import nexus as module
    from model.moritani.config import BETRAYAL_TIMING
    h = module.holder(c)
    if h is None:
        return []
    v, S = c.v, c.Status
    k = Param("k")
    if h != c.M:
        stages = ("ship_move", "react") if c.chose(BETRAYAL_TIMING.ANY_TIME) else ("ship_move",)
        return [permitted(
            "may-betray", choose("betrayal", k="k"),
            c.stage_is(*stages) & v("nexus_holder").eq(h) & v("ally", h).eq(c.none_ally)
            & v("tstatus", k).eq(S.index("placed")), params=(P("k", c.K),), rules=("R48", "A19"),
            doc="an unallied rival holding Betrayal may return any board token to Moritani's supply unrevealed")]
    t = Param("t")
    window = c.stage_is("mentat_place") & ~v("placement_used")
    if not c.unbounded:
        window = window & (v("turn") <= c.bounds.turns)  # NOTE(final-mentat)
    onto = t.ne(c.none_dest) & c.any_of(v("tstatus", j).eq(S.index("placed")) & v("tloc", j).eq(t) for j in c.faces)
    return [permitted(
        "may-play-cunning", choose("place_token_cunning", k="k", to="t"),
        window & v("nexus_holder").eq(c.M) & v("ally", c.M).eq(c.none_ally) & v("tstatus", k).eq(S.index("supply"))
        & onto, params=(P("k", c.K), P("t", c.Dest)), rules=("R48", "R47"),
        doc="unallied Moritani holding Cunning may place a token from supply onto a stronghold holding a token")]


def grumman(c: Ctx) -> list[Property]:
    """R46: in Spice Collection, on the high side, Moritani may add a token onto a token (for 4 spice), or pass."""
    from model.moritani import grumman as module
    from model.moritani.config import GRUMMAN_ADDITION
    if not module.enabled(c):
        return []
    v, S = c.v, c.Status
    out = [permitted("may-pass-grumman", "grumman_pass", c.stage_is("collection"), rules=("R46",),
                     doc="Moritani may make no Grumman operation")]
    if c.chose(GRUMMAN_ADDITION.COLLECTION_OPERATION):
        k, t = Param("k"), Param("t")
        onto = t.ne(c.none_dest) & c.any_of(v("tstatus", j).eq(S.index("placed")) & v("tloc", j).eq(t)
                                             for j in c.faces)
        out.append(permitted(
            "may-grumman-add", choose("grumman_add", k="k", to="t"),
            c.stage_is("collection") & (v("reserves", c.M) >= module.HIGH) & (v("bank") >= module.PAY)
            & v("tstatus", k).eq(S.index("supply")) & onto, params=(P("k", c.K), P("t", c.Dest)), rules=("R46", "R47"),
            doc="on the high side Moritani may add a token from supply onto a stronghold's token, the bank paying 4"))
    return out


def setup(c: Ctx) -> list[Property]:
    """R1, A27: Moritani sets up last in an unoccupied territory (a stronghold only under A27 stronghold)."""
    from model.moritani import setup as module
    if not module.enabled(c):
        return []
    l = Param("l")
    free = c.all_of(~c.present(f, l) for f in range(len(c.bounds.factions)) if f != c.M)
    where = free if not module.to_strongholds_only(c) else free & l.ne(c.desert)
    return [permitted("may-set-up", choose("moritani_setup", l="l"), c.stage_is("setup") & where,
                      params=(P("l", c.L),), rules=("R1", "A27"),
                      doc="Moritani may set up in any unoccupied territory (stronghold under setup-destination: "
                          "stronghold)")]


def assassinate_leaders(c: Ctx) -> list[Property]:
    """R43: after losing a qualifying battle Moritani may reveal a held Traitor card naming a different leader
    of the opponent, or continue."""
    if not c.module:
        return []
    at = c.stage_is("assassinate_offer")
    return [
        permitted("may-continue-battle", "continue_battle", at, rules=("R43",),
                  doc="after the lost battle Moritani may continue without revealing"),
    ]


def module_permissions(c: Ctx) -> list[Property]:
    return (worm_rides(c) + revival(c) + cross_ship(c) + relocation(c) + nexus(c) + grumman(c) + setup(c)
            + assassinate_leaders(c))
