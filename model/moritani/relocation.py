"""Ambassador relocation as an entry: the optional module (bounds.ambassador_relocation; A24, A2, R17, H9).

The Ecaz Ambassador in `bounds.ambassador` is a Fremen Ambassador: when it reacts to another faction's arrival,
Ecaz may, instead of the abstract Ambassador effect, move one of its forces from the board (the open desert or a
stronghold, not under the storm) into a stronghold it may enter. That arrival is an entry of Ecaz's own (R17
lists "Fremen Ambassador relocation" among the entries; treachery.online `AmbassadorActivated.cs:388-391`, the Fremen (Yellow) Ambassador, checks
intrusions after it). It is queued: its Terror decision opens once every reaction to the arrival that
triggered the Ambassador is resolved (and after the BG advisors' queued entry), and it never overwrites that
arrival's record (H9). Quintine/Dune resumes an "Ambassador continuation" after the Terror entry that was in
flight (catalogue: finishTerrorEntry).

Under switch `entry-causes` (A24): `every-arrival` (both engines) makes the relocation an entry;
`shipment-and-movement` (R11's words: an Ambassador's effect is neither the Shipment nor the Movement action)
does not.

Modelling choices (docs/checking.md, "Ambassador relocation"): one force; the relocation's only reaction is
Terror (no second Ambassador reaction, no BG Intrusion); not combined with the worm-ride, revival, cross-ship,
Grumman or Assassinate Leaders modules yet. Off, this module adds nothing.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["ambassador-relocation"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if "relocat" in r.name)
['ambassador_relocate', 'lapse_relocation_entry', 'open_relocation_entry']
"""
from __future__ import annotations

from model.expr import Const, Param
from model.moritani.config import ENTRY_CAUSES
from model.moritani.context import Ctx
from model.properties import Property, sometimes
from model.rule import P, Rule
from model.schema import Field

IDS = ("A24", "A2", "R17", "H9")


def enabled(c: Ctx) -> bool:
    return c.bounds.ambassador_relocation


def counts_for_terror(c: Ctx) -> bool:
    return c.chose(ENTRY_CAUSES.EVERY_ARRIVAL)


def fields(c: Ctx) -> tuple:
    if not enabled(c):
        return ()
    return (Field("relocated", c.Dest, doc="where Ecaz's relocation entered during this arrival's reactions, its "
                                           "Terror decision still queued (none: nothing queued)"),)


def initial(c: Ctx) -> dict:
    return {"relocated": c.none_dest} if enabled(c) else {}


def settled(c: Ctx):
    """No relocation entry is still queued (the arrival may settle)."""
    return c.v("relocated").eq(c.none_dest)


def rules(c: Ctx, open_to, ambassador_present, nothing_pending, spends=None) -> list[Rule]:
    """`open_to(f, to)` is an entry's legality; `ambassador_present` the Ambassador still stands;
    `nothing_pending` every reaction to the arrival is resolved, the BG advisors' queued entry included;
    `spends` the effects that set the Ambassador aside once it has reacted."""
    if not enabled(c):
        return []
    v, M = c.v, c.M
    E = Const(c.fac("Ecaz"))
    frm, to, k = Param("frm"), Param("to"), Param("k")
    reacting = c.stage_is("ambassador") & v("amb_payer").ne(E) & ambassador_present
    dest = open_to(E, to) & frm.ne(to)
    if c.has("relocation-ignores-occupancy"):  # the bug: the relocation checks only the storm
        dest = to.ne(c.desert) & v("storm").ne(to) & frm.ne(to)
    queued = counts_for_terror(c) or c.has("relocation-ignores-entry-causes")
    eff = {("forces", (E, frm)): v("forces", E, frm) - 1, ("forces", (E, to)): v("forces", E, to) + 1,
           ("stage", ()): c.st("react")} | dict(spends or {})
    if queued and not c.has("relocation-skips-terror") and not c.has("relocation-overwrites-entry"):
        eff[("relocated", ())] = to
    if c.has("relocation-overwrites-entry"):  # the bug: the relocation becomes "the arrival" at once (H9)
        eff |= {("entrant", ()): E, ("entry_loc", ()): to, ("entry_cause", ()): c.Cause.index("relocation"),
                ("pend_terror", ()): c.any_token_at(to) & v("ally", M).ne(E)}
    where = v("relocated")
    unallied = v("ally", M).ne(E)
    ready = nothing_pending & where.ne(c.none_dest)
    return [
        Rule("ambassador_relocate", (P("frm", c.L), P("to", c.L)),
             reacting & (v("forces", E, frm) >= 1) & ~c.storm_over(frm) & dest, eff,
             ("A24", "A2", "R17", "R25"), actor=E,
             doc="the Fremen Ambassador: Ecaz moves one force from the board into a stronghold (its own entry)"),
        Rule("open_relocation_entry", (P("k", c.K),), ready & c.token_at(k, where) & unallied,
             {("relocated", ()): c.none_dest, ("entrant", ()): E, ("entry_loc", ()): where,
              ("entry_cause", ()): c.Cause.index("relocation"), ("entry_face", ()): k, ("stage", ()): c.st("terror")},
             ("A24", "R17", "H9"), kind="system",
             doc="Ecaz's relocation, queued behind the arrival's reactions, gets its Terror decision"),
        Rule("lapse_relocation_entry", (), ready & ~(c.any_token_at(where) & unallied),
             {("relocated", ()): c.none_dest}, ("H35",), kind="system",
             doc="the token is gone (or Ecaz is now Moritani's ally): the queued relocation entry lapses"),
    ]


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    out = [sometimes("witness-relocation", fires=("ambassador_relocate",), rules=("A24", "A2"),
                     doc="the Ambassador reacts and Ecaz relocates a force into a stronghold"),
           sometimes("witness-relocation-from-desert", fires=("ambassador_relocate",),
                     when=Param("frm").eq(c.desert), rules=("A24", "R17"),
                     doc="Ecaz relocates a force out of the open desert, which no storm covers here (issue 33: "
                         "unreachable while `storm` = none shared the open desert's index)")]
    if counts_for_terror(c):
        out.append(sometimes("witness-relocation-opens-terror", fires=("open_relocation_entry",),
                             rules=("A24", "R17"), doc="Ecaz's relocation into a token's stronghold opens Terror"))
    return out
