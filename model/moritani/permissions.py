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
['may-accept-alliance', 'may-accompany', 'may-decline']
"""
from __future__ import annotations

from model.domains import IntRange
from model.expr import Const, Param, Var, lift
from model.moritani.config import ASSASSINATION_WITHOUT_LEADER, EXTORTION_PAYERS
from model.moritani.context import Ctx
from model.moritani.permissions_modules import enterable, module_permissions, turn_of
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


def ship_condition(c: Ctx, p, mine, into_ally: bool = True):
    """When faction p may ship a force into stronghold `t` at its turn (`mine`): a reserve and the spice, no
    storm, fewer than two other factions, no Aftermath (R36). `into_ally`: its ally's stronghold too (both
    engines allow it and separate the allies at the turn's end; issue 33), else R25's printed ban."""
    from model.moritani.config import ALLY_ENTRY
    v = c.v
    into_ally = into_ally and not c.chose(ALLY_ENTRY.REFUSED)  # the switch's printed-ban reading keeps R25's ban
    return mine & enterable(c, p, "t", ally_clause=not into_ally) & v("aftermath").ne(Param("t")) \
        & (v("reserves", p) >= 1) & (v("spice", p) >= 1)


def shipment_and_movement(c: Ctx) -> list[Property]:
    """R11, R17, R25, R36, A1: at its turn a rival may ship a force into a stronghold, move one from the open
    desert into one, or pass."""
    from model.moritani.config import TERROR_VS_ARRIVAL_REACTIONS
    v, M = c.v, c.M
    p = Param("p")
    F, T = P("p", c.F), P("t", c.L)
    mine = turn_of(c, p) & (Const(True) if c.bounds.moritani_ships else p.ne(M))
    ship_when = ship_condition(c, p, mine)
    if c.chose(TERROR_VS_ARRIVAL_REACTIONS.REJECT_ENTRY):
        # A1 reject-entry: an arrival that would open Terror with an accompanying advisor is refused whole.
        bg = c.fac("Bene Gesserit")
        ship_when = ship_when & ~(c.any_token_at(Param("t")) & p.ne(M) & v("ally", M).ne(p)
                                  & Const(bg is not None) & (p.ne(bg) if bg is not None else Const(True))
                                  & ((v("reserves", bg) >= 1) if bg is not None else Const(False)))
    from model.moritani.config import ALLY_ENTRY
    # A move keeps R25's ban on an ally's stronghold unless the engine lets moves in too (ally-entry: ship-and-move).
    move_when = mine & enterable(c, p, "t", ally_clause=not c.chose(ALLY_ENTRY.SHIP_AND_MOVE)) \
        & (v("forces", p, c.desert) >= 1)
    return [
        permitted("may-ship", choose("ship", f="p", to="t"), ship_when, params=(F, T),
                  rules=("R11", "R17", "R25", "R36", "A1"),
                  doc="at its turn a rival with a reserve and the spice may ship one force into a stronghold not "
                      "under the storm, holding fewer than two other factions, without the Aftermath (its ally's "
                      "stronghold included: both engines allow it and separate them at the turn's end)"),
        permitted("may-move", choose("move", f="p", to="t"), move_when, params=(F, T), rules=("R17", "R25", "R36"),
                  doc="at its turn a rival with a force in the open desert may move it into a stronghold not under "
                      "the storm, holding fewer than two other factions, not its ally's (the Aftermath allows it)"),
        permitted("may-pass-turn", choose("pass_turn", f="p"), turn_of(c, p), params=(F,), rules=("R17",),
                  doc="at its turn a faction may neither ship nor move"),
    ]


def advisor(c: Ctx) -> list[Property]:
    """A25, A23: when BG's accompanying advisor is up, BG may send one with the shipment, or decline."""
    from model.moritani.config import ADVISOR_INTO_AFTERMATH
    bg = c.fac("Bene Gesserit")
    if bg is None:
        return []
    v = c.v
    up = c.stage_is("advisor")
    send = up & (v("reserves", bg) >= 1)
    if c.chose(ADVISOR_INTO_AFTERMATH.BANNED):  # A23: the free advisor is a shipment, so not into the Aftermath
        send = send & v("aftermath").ne(v("entry_loc"))
    return [
        permitted("may-accompany", "accompany", send, rules=("A25", "A23"),
                  doc="BG with a reserve may send one advisor with another faction's shipment (not into the "
                      "Aftermath under advisor-into-aftermath: banned)"),
        permitted("may-decline-advisor", "decline_advisor", up, rules=("A25",),
                  doc="BG may decline the free advisor"),
    ]


def mentat_placement(c: Ctx) -> list[Property]:
    """R7, R8, R9, R29, A26: in the Mentat Pause Moritani may place a token from supply or move a placed one to an
    empty stronghold (storm allowed), or decline; a rival holding Karama may cancel the declaration."""
    from model.moritani.config import PLACEMENT_IN_AFTERMATH
    v, M, S = c.v, c.M, c.Status
    k, t, f = Param("k"), Param("t"), Param("f")
    K, T = P("k", c.K), P("t", c.Dest)
    window = c.stage_is("mentat_place") & ~v("placement_used")
    if not c.unbounded:
        # NOTE(final-mentat): the bounded game offers no placement in the last Mentat Pause (the model's scope).
        window = window & (v("turn") <= c.bounds.turns)
    empty = t.ne(c.none_dest) & ~c.any_of(v("tstatus", j).eq(S.index("placed")) & v("tloc", j).eq(t)
                                           for j in c.faces)
    if c.chose(PLACEMENT_IN_AFTERMATH.FORBIDDEN):
        empty = empty & v("aftermath").ne(t)
    return [
        permitted("may-place-token", choose("place_token", k="k", to="t"),
                  window & v("tstatus", k).eq(S.index("supply")) & empty, params=(K, T), rules=("R7", "R8", "A26"),
                  doc="in the Mentat Pause, its opportunity unused, Moritani may place any token from supply in "
                      "any stronghold without a token"),
        permitted("may-move-token", choose("move_token", k="k", to="t"),
                  window & v("tstatus", k).eq(S.index("placed")) & v("tloc", k).ne(t) & empty, params=(K, T),
                  rules=("R7", "R8", "R10"),
                  doc="in the Mentat Pause, its opportunity unused, Moritani may move a placed token to another "
                      "stronghold without a token"),
        permitted("may-skip-placement", "skip_placement", c.stage_is("mentat_place"), rules=("R9",),
                  doc="Moritani may decline its Mentat opportunity"),
        permitted("may-karama-placement", choose("karama_placement", f="f"),
                  c.stage_is("placement_karama") & f.ne(M) & v("karama", f), params=(P("f", c.F),),
                  rules=("R29", "A13"),
                  doc="a rival holding Karama may cancel Moritani's declared placement or move"),
    ]


def enemy_of_my_enemy(c: Ctx) -> list[Property]:
    """R19, R21, R22, R23, R30, A4, A10, A21, H34: Moritani may offer the entrant an alliance instead of revealing;
    a rival holding Karama may stop it."""
    from model.moritani import homeworld
    from model.moritani.config import ATOMICS_PENALTY, EOME_WHEN_REVEAL_BLOCKED, KARAMA_EOME_TIMING
    v, M = c.v, c.M
    ent = v("entrant")
    offer = c.stage_is("terror") & ~v("eome_refused") & ~v("eome_blocked")
    ecaz = c.fac("Ecaz")
    if ecaz is not None:
        offer = offer & ent.ne(ecaz)  # R19
    if not c.chose(ATOMICS_PENALTY.FOLLOWS_CURRENT_ALLY):
        offer = offer & v("aftermath").eq(c.none_dest)  # A10/H34: no alliance change after Atomics
    if c.chose(EOME_WHEN_REVEAL_BLOCKED.BLOCK_OFFER):
        offer = offer & _entrant_may_lose_leader(c)  # A21: no offer whose refusal could not be resolved
    timing = c.choice(KARAMA_EOME_TIMING)
    if timing == KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE:
        offer = offer & ~v("eome_prevented")
    occ = homeworld.occupier(c)
    if occ is not None:
        offer = offer & ent.ne(occ)  # R23
    offers = tuple(f"offer_alliance_{k}" for k in c.faces)
    f = Param("f")
    holder = f.ne(M) & v("karama", f)
    if timing == KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE:
        karama = permitted("may-karama-eome", choose("karama_eome_preempt", f="f"),
                           c.stage_is("ship_move", "terror") & holder & ~v("eome_prevented"), params=(P("f", c.F),),
                           rules=("R30", "A4"),
                           doc="a rival holding Karama may stop Enemy of My Enemy for the rest of the phase")
    else:
        karama = permitted("may-karama-eome", choose("karama_eome", f="f"), c.stage_is("eome_karama") & holder,
                           params=(P("f", c.F),), rules=("R30", "A4"),
                           doc="in the window after the offer a rival holding Karama may stop the alliance")
    return [
        permitted("may-offer-alliance", offers, offer, rules=("R19", "R21", "R22", "R23", "R30", "A10", "A21"),
                  doc="at a Terror decision Moritani may offer the entrant an alliance instead of revealing: not to "
                      "Ecaz, not after a refusal or a Karama block, not after Atomics (A10), not when the forced "
                      "reveal could not be resolved (A21 block-offer)"),
        karama,
    ]


def effect_choices(c: Ctx) -> list[Property]:
    """R39, R41, A31: Robbery's spice or card; the Sneak Attack's number of forces."""
    v, M = c.v, c.M
    out = []
    if c.face("Robbery") is not None:
        robbing = c.stage_is("robbery")
        out += [
            permitted("may-rob-spice", "rob_spice", robbing, rules=("R39",),
                      doc="Robbery: Moritani may take half the entrant's spice, rounded up"),
            permitted("may-rob-card", "rob_card", robbing, rules=("R39",),
                      doc="Robbery: Moritani may take the top Treachery card instead, even with a full hand"),
        ]
    if c.face("Sneak Attack") is not None:
        cap = min(5, c.bounds.moritani_forces)
        n, loc = Param("n"), v("entry_loc")
        room = v("storm").ne(loc) & (c.occupants(loc, exclude=(M,)) < 2)
        if c.advisors_coexist():  # R25: not where Moritani's ally stands
            room = room & ~c.any_of(v("ally", M).eq(g) & c.present(g, loc) for g in range(len(c.bounds.factions))
                                    if g != c.fac("Ecaz"))
        out.append(permitted(
            "may-sneak-attack", choose("sneak_attack", n="n"),
            c.stage_is("sneak") & (v("reserves", M) >= n) & (n.eq(0) | room), params=(P("n", IntRange(0, cap)),),
            rules=("R41", "A31"),
            doc="Sneak Attack: Moritani may send any number of reserves up to 5 into the entered stronghold, obeying "
                "storm and occupancy (zero is always legal, A31)"))
    return out


def intrusion(c: Ctx) -> list[Property]:
    """A1, R25 (bg-advisors-occupy: coexist): BG may flip its fighters in the entered stronghold, or keep them."""
    from model.moritani import intrusion as module
    if not module.enabled(c):
        return []
    up = c.stage_is("react") & c.v("pend_intrusion")
    return [
        permitted("may-flip-advisors", "intrusion_flip", up, rules=("A1", "R25"),
                  doc="BG Intrusion: BG may flip its fighters in the entered stronghold to advisors"),
        permitted("may-keep-fighters", "intrusion_stay", up, rules=("A1", "R25"),
                  doc="BG Intrusion: BG may keep its fighters as they are"),
    ]


# Permissions the current model violates because of a bug issue 33 lists, fixed on another branch: written from
# the rules like the others, but left out of the models until the fix lands (a violated permission would make
# `check` fail and stop the search at its states). Their own seeded defect builds them in; tests/test_permissions.py
# checks each as xfail(strict=True). Delete an entry when its bug is fixed.
PENDING_FIX: dict[str, str] = {}  # issue 33's three (may-ship, may-cross-ship, may-relocate) hold since its fixes


def permissions(c: Ctx, pending: bool = False) -> list[Property]:
    """Every permission of the model built from `c`, in a fixed order; a `PENDING_FIX` one only with `pending`
    or when a seeded defect aimed at it is built in."""
    from model.moritani.defects import DEFECT_BY_ID
    every = (shipment_and_movement(c) + advisor(c) + intrusion(c) + terror_decision(c) + enemy_of_my_enemy(c)
             + eome_reply(c) + effect_choices(c) + sabotage_gift(c) + mentat_placement(c) + extortion(c)
             + module_permissions(c))
    aimed = {DEFECT_BY_ID[d].target for d in c.defects}
    return [p for p in every if pending or p.name not in PENDING_FIX or p.name in aimed]


# ---- seeded over-restriction defects -----------------------------------------------------------------------

def _restrictions(c: Ctx) -> dict:
    """{defect id: (rule name, the conjunct the buggy engine adds to its guard)}, built per model. Each withdraws a
    choice the rules give in some reachable state; the permission of the same choice must catch it."""
    v, M = c.v, c.M
    f, e, n, to, frm, k = (Param(x) for x in ("f", "e", "n", "to", "frm", "k"))
    bg, rob = c.fac("Bene Gesserit"), c.face("Robbery")
    anyone_at = lambda loc: c.any_of(c.present(g, loc) for g in range(len(c.bounds.factions)))  # noqa: E731
    out = {
        "ship-not-into-token-stronghold": ("ship", ~c.any_token_at(to)),
        "move-not-into-token-stronghold": ("move", ~c.any_token_at(to)),
        "pass-only-without-reserves": ("pass_turn", v("reserves", f).eq(0)),
        "decline-only-after-shipment": ("decline", v("entry_cause").eq(c.Cause.index("shipment"))),
        "reveal-needs-no-ally": ("reveal_robbery", v("ally", M).eq(c.none_ally)),
        "karama-eome-only-by-entrant": ("karama_eome", v("entrant").eq(f)),
        "accept-needs-unallied": ("accept_alliance", v("ally", e).eq(c.none_ally)),
        "refusal-needs-card": ("refuse_alliance", v("hand", v("entrant")) >= 1),
        "rob-spice-needs-rich-entrant": ("rob_spice", v("spice", e) >= 3),
        "rob-card-needs-room": ("rob_card", v("hand", M) < c.bounds.hand_limit),
        "zero-sneak-attack-refused": ("sneak_attack", n >= 1),
        "gift-only-to-unallied": ("gift_card", v("ally", e).eq(c.none_ally)),
        "pass-only-with-empty-hand": ("no_gift", v("hand", M).eq(0)),
        "placement-not-where-forces": ("place_token", ~anyone_at(to)),
        "token-move-not-where-forces": ("move_token", ~anyone_at(to)),
        "skip-only-with-empty-supply": ("skip_placement",
                                        c.all_of(v("tstatus", j).ne(c.Status.index("supply")) for j in c.faces)),
        "karama-placement-only-by-ally": ("karama_placement", v("ally", M).eq(f)),
        "payer-needs-surplus": ("pay_extortion", v("spice", f) >= 4),
        "refusal-only-when-broke": ("refuse_extortion", v("spice", f) < 3),
        # optional modules and interpretations
        "ride-carries-two": ("worm_ride", n >= 2),
        "rides-mandatory": ("end_rides", v("rides") >= 1) if c.worms else None,
        "revival-needs-two-in-tanks": ("revive_onto_planet", v("tanks", c.fac(c.bounds.revival)) >= 2)
        if c.bounds.revival else None,
        "revival-mandatory": ("end_revival", v("revived")) if c.bounds.revival else None,
        "cross-ship-not-into-token": ("guild_cross_ship", ~c.any_token_at(to)),
        "to-reserves-only-from-desert": ("guild_to_reserves", frm.eq(c.desert)),
        "relocation-not-into-token": ("ambassador_relocate", ~c.any_token_at(to)),
        "betrayal-needs-spice": ("betrayal", v("spice", c.fac(c.bounds.nexus_card)) >= 4)
        if c.bounds.nexus_card and c.bounds.nexus_card != "Moritani" else None,
        "cunning-needs-spice": ("place_token_cunning", v("spice", M) >= 3),
        "grumman-pass-needs-poor-bank": ("grumman_pass", v("bank") < 4),
        "grumman-add-stale-turn": ("grumman_add", v("turn").eq(1)),
        "setup-avoids-ambassador": ("moritani_setup", Param("l").ne(c.L.index(c.bounds.ambassador))
                                    if c.bounds.ambassador in c.L.labels else Const(True)),
        "continue-only-when-spent": ("continue_battle", v("tr_used", v("tr_opp"))) if c.module else None,
    }
    # Not an over-restriction of a player's choice (a system step withdrawn): the seeded deadlock of `no-deadlock`.
    out["entry-close-stalls"] = ("close_entry", v("entry_cause").ne(c.Cause.index("movement")))
    if rob is not None:
        out["offer-needs-unallied-entrant"] = (f"offer_alliance_{rob}", v("ally", e).eq(c.none_ally))
    if bg is not None:
        out["advisor-only-beside-bg"] = ("accompany", v("forces", bg, Param("l")) >= 1)
        out["advisor-mandatory-with-reserves"] = ("decline_advisor", v("reserves", bg).eq(0))
        if c.advisors_coexist():
            out["intrusion-flip-needs-two"] = ("intrusion_flip", v("forces", bg, Param("l")) >= 2)
            out["intrusion-stay-needs-advisors"] = ("intrusion_stay", v("advisors", v("entry_loc")) >= 1)
    return {d: r for d, r in out.items() if r is not None}


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
