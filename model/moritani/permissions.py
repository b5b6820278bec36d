"""Permissions: the choices the rules give a player, each written from the rules text (NOTE(permissions)).

Each permission names a choice (the rules whose ground actions are that choice) and the condition under
which the catalogue grants it, citing R#/A#. The conditions are built here from the state's fields and
the context's vocabulary (`stage_is`, `present`, ...), never from a rule's guard: the model build refuses
a condition that contains a guard's expression (model/permissions.py). A guard stricter than the rules
then shows as a state where the condition holds and no action of the choice is enabled.

Each permission has a seeded over-restriction defect (`OVER_RESTRICTIONS`): the guard of one chosen rule
strengthened by one conjunct, as an engine bug that withdraws a legal choice would; `restrict` applies it
when the model is built, so the defective guard is data beside the permission that must catch it.

>>> from model.moritani.build import build_model
>>> sorted(p.name for p in build_model().permissions)[:3]
['may-accept-alliance', 'may-decline', 'may-give-gift']
"""
from __future__ import annotations

from model.expr import Const, Param, Var, lift
from model.moritani.config import ASSASSINATION_WITHOUT_LEADER, EXTORTION_PAYERS
from model.moritani.context import Ctx
from model.properties import Property, choose, permitted
from model.rule import P


def _entrant_may_lose_leader(c: Ctx):
    """A11: Assassination reveals only against an entrant with a living leader (unless it may fizzle)."""
    if c.chose(ASSASSINATION_WITHOUT_LEADER.FIZZLES) or c.face("Assassination") is None:
        return Const(True)
    ent = c.v("entrant")
    living = c.any_of(Var("leader", (lift(f), lift(j))) & ent.eq(f)
                      for f in range(len(c.bounds.factions)) for j in range(len(c.bounds.leaders)))
    return c.v("entry_face").ne(c.face("Assassination")) | living


def reveal_rules(c: Ctx) -> tuple:
    """The reveal rules, one per face in the bounds (their names, model/moritani/effects.py)."""
    return tuple(f"reveal_{face.lower().replace(' ', '_')}" for face in c.bounds.faces)


def may_pay(c: Ctx, f):
    """A8: who may pay to keep Extortion out: any rival, or without Moritani's ally, or the entrant alone."""
    v = c.v
    who = c.choice(EXTORTION_PAYERS)
    out = lift(f).ne(c.M)
    if who == EXTORTION_PAYERS.EXCLUDE_ALLY:
        return out & v("ally", c.M).ne(f)
    if who == EXTORTION_PAYERS.ENTRANT_ONLY:
        return out & v("ext_entrant").eq(f)
    return out


def terror_decision(c: Ctx) -> list[Property]:
    """R11, R13, R21: at the Terror decision Moritani may reveal, or keep the token hidden until a refusal."""
    v = c.v
    deciding = c.stage_is("terror")
    return [
        permitted("may-decline", "decline", deciding & ~v("eome_refused"), rules=("R11", "R13", "R21"),
                  doc="at a Terror decision no refusal has forced, Moritani may keep the token placed and hidden"),
        permitted("may-reveal", reveal_rules(c), deciding & _entrant_may_lose_leader(c),
                  rules=("R11", "R14", "R21", "A11"),
                  doc="at a Terror decision Moritani may reveal the token against the entrant (Assassination "
                      "needs a living leader of the entrant, A11)"),
    ]


def extortion(c: Ctx) -> list[Property]:
    """R37, A8, A9: each rival in storm order, at its turn in the payer queue, may pay 3 or refuse."""
    if c.face("Extortion") is None:
        return []
    v, F = c.v, P("p", c.F)
    p = Param("p")
    turn = c.stage_is("extortion_pay") & c.at_position("payer", p) & may_pay(c, p)
    return [
        permitted("may-pay-extortion", choose("pay_extortion", f="p"), turn & (v("spice", p) >= 3), params=(F,),
                  rules=("R37", "A8", "A9"),
                  doc="at its turn in the payer queue an eligible rival with 3 spice may pay to keep Extortion out"),
        permitted("may-refuse-extortion", choose("refuse_extortion", f="p"), turn, params=(F,),
                  rules=("R37", "A9", "H25"),
                  doc="at its turn in the payer queue an eligible rival may refuse to pay, whatever its spice"),
    ]


def eome_reply(c: Ctx) -> list[Property]:
    """R20, R21: the entrant answers the offer: accept or refuse."""
    replying = c.stage_is("eome_reply")
    return [
        permitted("may-accept-alliance", "accept_alliance", replying, rules=("R20", "H23"),
                  doc="offered Enemy of My Enemy, the entrant may accept"),
        permitted("may-refuse-alliance", "refuse_alliance", replying, rules=("R21", "H23"),
                  doc="offered Enemy of My Enemy, the entrant may refuse (Moritani must then reveal)"),
    ]


def sabotage_gift(c: Ctx) -> list[Property]:
    """R40, A12: after Sabotage, Moritani may give the entrant a card of its choice, or give nothing."""
    if c.face("Sabotage") is None:
        return []
    from model.moritani.config import SABOTAGE_GIFT_OVERFLOW
    v, M = c.v, c.M
    gifting = c.stage_is("sabotage_gift")
    can = v("hand", M) >= 1
    if c.chose(SABOTAGE_GIFT_OVERFLOW.REJECT):  # A12: a gift that would overflow the recipient is refused
        ent = v("entrant")
        can = can & c.any_of(ent.eq(f) & (v("hand", f) + 1 <= c.hand_limit(f, engine=False))
                             for f in range(len(c.bounds.factions)) if f != M)
    return [
        permitted("may-give-gift", "gift_card", gifting & can, rules=("R40", "A12", "H19"),
                  doc="after Sabotage, Moritani holding a card may give the entrant one"),
        permitted("may-withhold-gift", "no_gift", gifting, rules=("R40", "H19"),
                  doc="after Sabotage, Moritani may give nothing (the gift is optional)"),
    ]


def permissions(c: Ctx) -> list[Property]:
    """Every permission of the model built from `c`, in a fixed order."""
    return terror_decision(c) + eome_reply(c) + extortion(c) + sabotage_gift(c)


# ---- seeded over-restriction defects -----------------------------------------------------------------------

def _restrictions(c: Ctx) -> dict:
    """{defect id: (rule name, the conjunct the buggy engine adds to its guard)}, built per model."""
    v = c.v
    atreides = c.fac("Atreides")
    return {
        "decline-only-after-shipment": ("decline", v("entry_cause").eq(c.Cause.index("shipment"))),
        "reveal-needs-no-ally": ("reveal_robbery", v("ally", c.M).eq(c.none_ally)),
        "payer-needs-surplus": ("pay_extortion", v("spice", Param("f")) >= 4),
        "refusal-only-when-broke": ("refuse_extortion", v("spice", Param("f")) < 3),
        "accept-needs-unallied": ("accept_alliance", v("ally", Param("e")).eq(c.none_ally)),
        "refusal-needs-card": ("refuse_alliance", v("hand", v("entrant")) >= 1),
        "gift-only-to-unallied": ("gift_card", v("ally", Param("e")).eq(c.none_ally)),
        "pass-only-with-empty-hand": ("no_gift", v("hand", c.M).eq(0)),
    } | ({} if atreides is None else {})


def restrict(c: Ctx, rules: list) -> list:
    """The rules with every active over-restriction defect's conjunct added to its rule's guard."""
    active = {d: r for d, r in _restrictions(c).items() if c.has(d)}
    if not active:
        return rules
    from dataclasses import replace
    out = []
    for r in rules:
        extra = [conj for name, conj in active.values() if name == r.name]
        out.append(replace(r, guard=r.guard & c.all_of(extra)) if extra else r)
    return out
