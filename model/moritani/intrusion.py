"""BG Intrusion under `bg-advisors-occupy: coexist` (Advanced BG; A1, A14, R25).

When a faction other than BG and BG's ally arrives in a stronghold where BG has fighters, BG may
flip all of them to advisors (treachery.online `CheckBlueIntrusion`, `BlueFlip`): advisors alone do
not occupy, so the flip can open the stronghold to a later arrival or a Sneak Attack. Both engines
resolve it before the arrival's other reactions (treachery.online's queue: BG Intrusion, the Ambassador,
Terror, then accompaniment; Quintine/Dune queues Terror behind "the arrival's own interaction"), so
here it has no order switch: while it is pending nothing else resolves. A positive Sneak Attack is an
arrival for it unless A14 says `not-shipment`.

Only under `coexist`: under `occupy` the model does not tell advisors from fighters, so a flip would
change nothing it records. Off, this module adds no field, rule or property (the default model and its
encoding are unchanged).

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["treachery-online"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if r.name.startswith("intrusion"))
['intrusion_flip', 'intrusion_stay']
"""
from __future__ import annotations

from model.domains import Bool
from model.expr import Const, Fired, Param, implies, ite, lift, post
from model.moritani.config import SNEAK_ATTACK_IS_SHIPMENT
from model.moritani.context import Ctx
from model.properties import Monitor, Property, always_step, sometimes
from model.rule import P, Rule
from model.schema import Field

IDS = ("A1", "A14", "R25")


def enabled(c: Ctx) -> bool:
    return c.advisors_coexist()


def _bg(c: Ctx) -> int:
    return c.fac("Bene Gesserit")


def due(c: Ctx, f, to):
    """f's arrival at `to` (pre-state) lets BG flip: f is neither BG nor BG's ally, and BG has fighters there."""
    bg = _bg(c)
    return (lift(f).ne(bg) & c.v("ally", bg).ne(f) & (c.v("forces", bg, to) > c.v("advisors", to)))


def pending(c: Ctx):
    return c.v("pend_intrusion")


def on_arrival(c: Ctx, f, to) -> dict:
    """Effects of an arrival by f at `to`: the Intrusion it owes (none when the module is off)."""
    return {("pend_intrusion", ()): due(c, f, to)} if enabled(c) else {}


def on_sneak(c: Ctx, to, positive) -> dict:
    """A positive Sneak Attack is an arrival by Moritani (unless A14 not-shipment)."""
    if not enabled(c) or c.chose(SNEAK_ATTACK_IS_SHIPMENT.NOT_SHIPMENT) or c.has("intrusion-ignored-after-sneak"):
        return {}  # (the seeded defect: the Sneak Attack's arrival skips the Intrusion check)
    return {("pend_intrusion", ()): pending(c) | (positive & due(c, c.M, to))}


def fields(c: Ctx) -> tuple:
    if not enabled(c):
        return ()
    return (Field("pend_intrusion", Bool(), doc="BG may flip its fighters in the entered stronghold to advisors"),)


def rules(c: Ctx) -> list[Rule]:
    if not enabled(c):
        return []
    v, bg, l = c.v, _bg(c), Param("l")
    at = c.stage_is("react") & pending(c)
    flipped = v("forces", bg, l)
    if c.has("intrusion-flips-one"):  # the bug: one fighter becomes an advisor, not all of them
        flipped = v("advisors", l) + 1
    return [
        Rule("intrusion_flip", (P("l", c.L),), at & v("entry_loc").eq(l) & l.ne(c.desert),
             {("advisors", (l,)): flipped, ("pend_intrusion", ()): Const(False)}, IDS,
             actor=Const(bg), doc="BG Intrusion: BG flips all its fighters in the entered stronghold to advisors"),
        Rule("intrusion_stay", (), at, {("pend_intrusion", ()): Const(False)}, IDS, actor=Const(bg),
             doc="BG keeps its fighters as they are"),
    ]


def monitor(c: Ctx) -> list[Monitor]:
    """`intrusion_owed`: the stronghold a non-BG, non-ally arrival entered where BG had fighters (from the
    step: some such faction's forces there grew), until BG's flip-or-stay decision."""
    if not enabled(c):
        return []
    v, bg = c.v, _bg(c)
    out = v("intrusion_owed")
    decided = c.stage_is("react") & v("pend_intrusion") & ~post("pend_intrusion")
    out = ite(decided, Const(c.none_dest), out)
    counts = ~c.stage_is("sneak") if c.chose(SNEAK_ATTACK_IS_SHIPMENT.NOT_SHIPMENT) else Const(True)  # A14
    for h in reversed(c.holds):
        arrives = counts & c.any_of((post("forces", f, h) > v("forces", f, h)) & v("ally", bg).ne(f)
                                    for f in range(len(c.bounds.factions)) if f != bg)
        out = ite(arrives & (v("forces", bg, h) > v("advisors", h)), Const(h), out)
    return [Monitor(Field("intrusion_owed", c.Dest, doc="where BG may answer an arrival with Intrusion"),
                    c.none_dest, out, IDS)]


def properties(c: Ctx) -> list[Property]:
    """From the rule text: BG's fighters become advisors (with no BG force arriving) only by an Intrusion
    owed in that stronghold, and all of them; BG's flip (the choice it is shown) leaves all its forces there
    advisors; an owed Intrusion is answered before the arrival settles."""
    if not enabled(c):
        return []
    v, bg = c.v, _bg(c)
    ok = Const(True)
    for h in c.holds:
        flips = (post("advisors", h) > v("advisors", h)) & post("forces", bg, h).eq(v("forces", bg, h))
        ok = ok & implies(flips, v("intrusion_owed").eq(h) & post("advisors", h).eq(v("forces", bg, h)))
        ok = ok & implies(Fired(("intrusion_flip",)) & v("intrusion_owed").eq(h),
                          post("advisors", h).eq(post("forces", bg, h)))
    settles = c.stage_is("react") & post("stage").eq(c.st("ship_move"))
    return [
        always_step("intrusion-flips-only-when-owed", ok, IDS,
                    "BG's fighters turn into advisors only by an Intrusion owed in that stronghold, and a flip "
                    "turns all of them"),
        always_step("intrusion-answered", implies(settles, v("intrusion_owed").eq(c.none_dest)), IDS,
                    "an owed BG Intrusion is answered before the arrival settles"),
    ]


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    return [sometimes("witness-bg-intrusion", fires=("intrusion_flip",), rules=IDS)]


def at_rest(c: Ctx) -> dict:
    """Outside an arrival, no Intrusion is pending (for `nothing-pending-outside-its-window`)."""
    return {"pend_intrusion": False} if enabled(c) else {}
