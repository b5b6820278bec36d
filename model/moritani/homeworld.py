"""Moritani's Homeworld occupied by a rival: part of the Grumman module (bounds.homeworld_occupier; R23).

In a Homeworlds game a faction cannot ally with a faction occupying its Homeworld (R23, E3 pp.5, 10),
so Moritani may not offer Enemy of My Enemy to the rival whose forces stand on its Homeworld. Switch
`homeworld-occupation` (R23) is whether the occupation also stops the Terror trigger:

- `offer-only`: the printed restriction, as the seeds' engine states it (`MORITANI_ENEMY_ALLIANCE.md`;
  its Homeworld module stays gated). The occupier's entry opens the Terror decision as usual, but
  without the alliance offer.
- `trigger-and-offer`: treachery.online queues no Terror intrusion when the entrant or its ally
  occupies Moritani's Homeworld (`Game_Move.CheckTerrorTriggered`). The offer is barred too
  (`TerrorRevealed.MayOfferAlliance`). The trigger test is `grumman.qualifies`, the one function every
  caller asks (H13).

Modelling choices (docs/checking.md, "Grumman"): the occupation is fixed for the whole game (the model
has no battles to end it, and no rule lets a rival ship onto a Homeworld), and Moritani's own forces
on rivals' Homeworlds are not modelled. Off, this adds no rule or property.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["grumman-occupied"]
>>> sorted(q.name for q in build_model(p.bounds, p.interpretation).properties if "occupier" in q.name)
['no-alliance-with-homeworld-occupier', 'witness-occupier-decision-without-offer']
"""
from __future__ import annotations

from model.expr import Const, Param, implies, lift, post
from model.moritani.config import HOMEWORLD_OCCUPATION
from model.moritani.context import Ctx
from model.properties import Property, always_step, sometimes

IDS = ("R23",)


def occupier(c: Ctx):
    """The index of the rival on Moritani's Homeworld, or None."""
    return c.fac(c.bounds.homeworld_occupier) if c.bounds.homeworld_occupier else None


def blocks_trigger(c: Ctx) -> bool:
    return occupier(c) is not None and c.chose(HOMEWORLD_OCCUPATION.TRIGGER_AND_OFFER)


def side_occupies(c: Ctx, f):
    """Faction f (an expression) or its ally occupies Moritani's Homeworld (treachery.online's trigger test)."""
    occ = occupier(c)
    f = lift(f)
    return f.eq(occ) | c.v("ally", occ).eq(f)


def trigger_allowed(c: Ctx, f):
    """The Homeworld part of 'does this entry open Terror?' (asked only through `grumman.qualifies`)."""
    if not blocks_trigger(c) or c.has("occupier-triggers-terror"):
        return Const(True)
    return ~side_occupies(c, f)


def offer_allowed(c: Ctx, e):
    """R23: no alliance with the faction occupying Moritani's Homeworld."""
    occ = occupier(c)
    if occ is None or c.has("eome-ignores-homeworld"):
        return Const(True)
    return lift(e).ne(occ)


def properties(c: Ctx) -> list[Property]:
    occ = occupier(c)
    if occ is None:
        return []
    v, M = c.v, c.M
    forms = post("ally", M).eq(occ) & v("ally", M).ne(occ)
    out = [always_step("no-alliance-with-homeworld-occupier", ~forms, ("R23",),
                       "Moritani never allies with the faction occupying its Homeworld")]
    if blocks_trigger(c):
        opening = c.stage_is("react") & post("stage").eq(c.st("terror"))
        out.append(always_step("occupier-opens-no-terror", implies(opening, ~side_occupies(c, v("entrant"))),
                               ("R23",), "under trigger-and-offer an entry by the Homeworld's occupier or its ally "
                               "never opens a Terror decision"))
    return out


def witnesses(c: Ctx) -> list[Property]:
    occ = occupier(c)
    if occ is None:
        return []
    if blocks_trigger(c):
        f, to = Param("f"), Param("to")
        return [sometimes("witness-occupier-enters-a-token", fires=("ship", "move"),
                          when=f.eq(occ) & c.any_token_at(to), rules=("R23",),
                          doc="the Homeworld's occupier enters a token's stronghold; no Terror decision opens")]
    return [sometimes("witness-occupier-decision-without-offer", fires=("open_terror",),
                      when=c.v("entrant").eq(occ), rules=("R23",),
                      doc="the Homeworld's occupier opens a Terror decision, which offers no alliance")]
