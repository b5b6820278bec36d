"""Shipment and movement into strongholds, and the reactions an arrival opens.

An arrival is committed first (payment, forces, R18, A3), then its reactions
become pending obligations: the BG accompanying advisor (a separate entry by
BG, A25, H36), the Ecaz Ambassador, and Terror (R11, R12, R17). Which pending
reaction resolves next is the scheduler's step; the interpretation says which
orders are allowed (A1, A2). Under `unordered` every order is explored.
"""
from __future__ import annotations

from model.expr import Const, Param, Var, ite, lift
from model.moritani import crossship, grumman, intrusion, relocation, revival, separation, stacks, worms
from model.moritani.config import (ACCOMPANY_LIMITS, ADVISOR_INTO_AFTERMATH, AMBASSADOR_VS_TERROR, KARAMA_EOME_TIMING,
                                   TERROR_VS_ARRIVAL_REACTIONS)
from model.moritani.context import REACTIONS, Ctx
from model.moritani.mentat import first_mentat_stage
from model.rule import P, Rule, Slot


def terror_qualifies(c: Ctx, f, loc, n=1):
    """Would an arrival of faction f (an expression) at loc, n forces in one group, open a Terror decision?
    (R11, R12; R45 with the Grumman module)"""
    v, M = c.v, c.M
    f = lift(f)
    if c.has("ally-triggers-terror"):
        out = f.ne(M) & c.any_token_at(loc)
    else:
        out = f.ne(M) & c.any_token_at(loc) & v("ally", M).ne(f)
    return out & grumman.qualifies(c, n, f) if grumman.enabled(c) else out


def advisor_eligible(c: Ctx, f, to=None):
    """May BG send an accompanying advisor with f's shipment into `to`? (A25)

    Under switch accompany-limits `ally-or-fighters` (treachery.online, where the optional rule
    AdvisorsDontConflictWithAlly belongs to the ServerClassic ruleset only, Shared/Game_Rules.cs:277-300, never
    with Moritani): not where BG's ally has forces, the ally's own shipment included
    (`AllyPreventsAccompanyingToShipmentLocation`, Shared/Events/BlueAccompanies.cs:134-142), and not where BG
    already has fighters (`!p.Occupies`, BlueAccompanies.cs:122); BG may then only go to the Polar Sink, which
    the model leaves out (the same as declining)."""
    bg = c.fac("Bene Gesserit")
    if bg is None:
        return Const(False)
    out = lift(f).ne(bg) & (c.v("reserves", bg) >= 1)
    if to is not None and c.chose(ACCOMPANY_LIMITS.ALLY_OR_FIGHTERS):
        v, n = c.v, len(c.bounds.factions)
        ally = v("ally", bg)
        beside = ally.eq(f) | c.any_of(ally.eq(g) & (v("forces", g, to) > 0) for g in range(n) if g != bg)
        out = out & ~beside & ~c.present(bg, to)
    return out


def ambassador_eligible(c: Ctx, f, to):
    """Does f's arrival at `to` make the Ecaz Ambassador react? The Ambassador is a piece in its stronghold:
    Atomics there returns it to Ecaz (the Aftermath marks that: nothing puts it back within the model), and
    neither Ecaz nor Ecaz's ally triggers it (both engines; treachery.online `KillAmbassadorIn`, #105)."""
    ecaz = c.fac("Ecaz")
    amb = c.bounds.ambassador
    if ecaz is None or amb is None:
        return Const(False)
    return lift(f).ne(ecaz) & c.v("ally", ecaz).ne(f) & lift(to).eq(c.L.index(amb)) & ambassador_present(c)


def ambassador_present(c: Ctx):
    """The Ecaz Ambassador still stands in its stronghold: no Atomics has struck there (R36)."""
    if c.fac("Ecaz") is None or c.bounds.ambassador is None:
        return Const(False)
    # Once it has reacted it is set aside (E3 p.7, Quintine/Dune docs/ECAZ_AMBASSADORS_RULES.md "Triggered tokens
    # are set aside"; treachery.online AmbassadorActivated.cs:285-287 removes it from the planet).
    unspent = ~c.v("amb_spent")
    if c.has("ambassador-survives-atomics"):  # the bug: Atomics never removes the Ambassador
        return unspent
    return c.v("aftermath").ne(c.Dest.index(c.bounds.ambassador)) & unspent


def ambassador_spends(c: Ctx) -> dict:
    """The effects that set the Ambassador aside once it reacts (issue 33: the model kept it until Atomics)."""
    if c.fac("Ecaz") is None or c.bounds.ambassador is None or c.has("ambassador-never-spent"):
        return {}  # (the defect: the Ambassador stays to react to every later arrival)
    return {("amb_spent", ()): Const(True)}


def precedes(c: Ctx, a: str, b: str):
    """Must pending reaction a resolve before pending reaction b?"""
    a1, a2 = c.choice(TERROR_VS_ARRIVAL_REACTIONS), c.choice(AMBASSADOR_VS_TERROR)
    if {a, b} == {"advisor", "terror"}:
        first = {TERROR_VS_ARRIVAL_REACTIONS.ARRIVAL_FIRST: "advisor",
                 TERROR_VS_ARRIVAL_REACTIONS.REJECT_ENTRY: "advisor",
                 TERROR_VS_ARRIVAL_REACTIONS.TERROR_FIRST: "terror"}.get(a1)
        return Const(first == a)
    if {a, b} == {"ambassador", "terror"}:
        ecaz = c.fac("Ecaz")
        if ecaz is None:
            return Const(False)
        if a2 == AMBASSADOR_VS_TERROR.UNORDERED:
            return Const(False)
        if a2 == AMBASSADOR_VS_TERROR.STORM_ORDER:
            return c.before(ecaz, c.M) if a == "ambassador" else c.before(c.M, ecaz)
        first = {AMBASSADOR_VS_TERROR.TERROR_FIRST: "terror", AMBASSADOR_VS_TERROR.AMBASSADOR_FIRST: "ambassador"}[a2]
        return Const(first == a)
    # Advisor against Ambassador. Quintine/Dune queues BG, then Ecaz, then Moritani. When Terror goes first
    # (treachery.online: BG Intrusion, the Ambassador, Terror, and only then the accompanying advisor), the
    # advisor waits for the Ambassador too: putting it first would make a cycle with A2 (the Ambassador
    # before Terror, or in storm order), every reaction waiting for another (a deadlock; docs/sweep.md).
    if a1 == TERROR_VS_ARRIVAL_REACTIONS.TERROR_FIRST:
        return Const(a == "ambassador")
    return Const(a1 != TERROR_VS_ARRIVAL_REACTIONS.UNORDERED and a == "advisor")


def pending(c: Ctx, r: str):
    v = c.v
    return {"advisor": v("pend_advisor") > 0, "ambassador": v("pend_ambassador"),
            "terror": v("pend_terror")}[r]


def may_resolve(c: Ctx, r: str):
    blockers = [pending(c, o) & precedes(c, o, r) for o in REACTIONS if o != r]
    if intrusion.enabled(c):  # BG Intrusion resolves before every other reaction to the arrival
        blockers.append(intrusion.pending(c))
    return pending(c, r) & ~c.any_of(blockers)


def _arrival(c: Ctx, f, to, cause: str, advisor, n=1):
    tq = terror_qualifies(c, f, to, n)
    amb = ambassador_eligible(c, f, to)
    return {
        ("entrant", ()): f, ("entry_loc", ()): to, ("entry_cause", ()): c.Cause.index(cause),
        ("pend_terror", ()): tq, ("pend_advisor", ()): ite(advisor, 1, 0),
        ("pend_ambassador", ()): amb, ("amb_payer", ()): f,
        ("stage", ()): c.st("react"),
    } | intrusion.on_arrival(c, f, to)


def open_for(c: Ctx, f, to, ally_ok: bool = False):
    """May faction f (an expression) enter `to`: a stronghold, not under the storm, within the two-faction limit
    (f itself not counted), and not where its ally is (R25) unless `ally_ok` (switch ally-entry: the entry is
    legal and its forces go to the Tanks at the end of f's turn)."""
    v = c.v
    out = lift(to).ne(c.desert) & v("storm").ne(to) & (c.occupants(to, exclude=(f,)) < 2)
    return out if ally_ok else out & ~c.ally_blocks(f, to)


def my_turn(c: Ctx, f):
    """Faction f (an expression) is the one to ship or move now."""
    # The player who just finished is separated from its ally before anyone else acts (R26, R27).
    return c.stage_is("ship_move") & c.at_position("mover", f) & ~separation.pending(c)


def entry_rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    f, to = Param("f"), Param("to")
    n = len(c.bounds.factions)
    mine = my_turn(c, f)
    moves = f.ne(M) if not c.bounds.moritani_ships else Const(True)
    open_to = open_for(c, f, to, separation.entry_allowed(c, moving=False))
    move_to = open_for(c, f, to, separation.entry_allowed(c, moving=True))
    no_aftermath = v("aftermath").ne(to)
    if c.has("shipment-into-aftermath"):
        no_aftermath = Const(True)
    adv = advisor_eligible(c, f, to)
    g = grumman.group(c)  # forces in the group: 1, or the parameter n with the Grumman module (R45)
    ship_guard = mine & moves & open_to & no_aftermath & (v("reserves", f) >= g) & (v("spice", f) >= g)
    if c.chose(TERROR_VS_ARRIVAL_REACTIONS.REJECT_ENTRY):
        ship_guard = ship_guard & ~(terror_qualifies(c, f, to, g) & adv)
    if c.has("move-ignores-occupancy"):  # the bug: movement checks the storm and allies, not the limit
        open_to = (to.ne(c.desert) & v("storm").ne(to)
                   & ~c.ally_blocks(f, to))
    else:
        open_to = move_to
    move_guard = mine & moves & open_to & (v("forces", f, c.desert) >= g)
    source: Slot = ("forces", (f, Const(c.desert)))
    if c.has("move-from-reserves"):  # the bug: the moved force is taken from reserves, not the open desert
        move_guard = mine & moves & open_to & (v("reserves", f) >= g)
        source = ("reserves", (f,))
    who = (P("f", c.F), P("to", c.L)) + grumman.group_params(c)
    return [
        Rule("ship", who, ship_guard,
             {("reserves", (f,)): v("reserves", f) - g, ("forces", (f, to)): v("forces", f, to) + g,
              ("spice", (f,)): v("spice", f) - g, ("bank", ()): v("bank") + g}
             | _arrival(c, f, to, "shipment", adv, g) | fighters_arrive(c, f, to)
             | separation.visit_effects(c, f, to, g, moving=False),
             ("R11", "R17", "R18", "R25", "R36", "A1", "A3"), actor=f,
             doc="a faction ships one force from reserves into a stronghold, paying 1 spice"),
        Rule("move", who, move_guard,
             {source: Var(source[0], source[1]) - g, ("forces", (f, to)): v("forces", f, to) + g}
             | _arrival(c, f, to, "movement", Const(False), g) | fighters_arrive(c, f, to)
             | separation.visit_effects(c, f, to, g, moving=True),
             ("R11", "R17", "R25", "R36"), actor=f,
             doc="a faction moves one force from the open desert into a stronghold (Aftermath allows it)"),
        Rule("pass_turn", (P("f", c.F),), mine, {("mover", ()): v("mover") + 1}, (), actor=f,
             doc="a faction neither ships nor moves"),
        Rule("end_shipment_movement", (), c.stage_is("ship_move") & v("mover").eq(n) & ~separation.pending(c),
             {("stage", ()): c.st(grumman.after_shipment(c, _first_mentat(c)))} | grumman.forget_removal(c)
             | ({("eome_prevented", ()): False} if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE) else {}),
             ("A4",) if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE) else (), kind="system"),
    ]


def _first_mentat(c: Ctx) -> str:
    # With the Assassinate Leaders module a battle step comes between Shipment & Movement and Mentat.
    return "battle" if c.module else first_mentat_stage(c)


def reaction_rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    k = Param("k")
    react = c.stage_is("react")
    loc = v("entry_loc")
    bg = c.fac("Bene Gesserit")
    rules = [
        Rule("resolve_advisor", (), react & may_resolve(c, "advisor"), {("pend_advisor", ()): v("pend_advisor") - 1}
             | ({} if c.has("advisor-choice-skipped") else {("stage", ()): c.st("advisor")}),  # the bug: no choice
             ("A1", "A25"), kind="scheduler"),
        Rule("resolve_ambassador", (), react & may_resolve(c, "ambassador"),
             {("pend_ambassador", ()): False,
              ("stage", ()): c.st("ambassador")}, ("A2",), kind="scheduler"),
    ]
    still = v("entrant").ne(M) & v("ally", M).ne(v("entrant"))
    if c.has("ally-triggers-terror"):
        still = v("entrant").ne(M)
    rules += [
        Rule("open_terror", (P("k", c.K),), react & may_resolve(c, "terror") & stacks.opens(c, k, loc) & still,
             {("pend_terror", ()): False, ("entry_face", ()): k,
              ("stage", ()): c.st("terror")}, ("R11", "R12", "A1") + (("R47", "A17", "H10") if c.stacks else ()),
             **({"actor": Const(M)} if c.stacks else {"kind": "scheduler"}),
             doc="the Terror decision opens for the token in the entered stronghold" + (
                 " (of a stack, the one Moritani picks privately)" if c.stacks else "")),
        Rule("lapse_terror", (), react & may_resolve(c, "terror") & ~(c.any_token_at(loc) & still),
             {("pend_terror", ()): False}, ("H35",), kind="scheduler",
             doc="the token is gone (or the entrant is now Moritani's ally): the queued decision lapses")]
    nothing = react & ~c.any_of(pending(c, r) for r in REACTIONS)
    if intrusion.enabled(c):
        nothing = nothing & ~intrusion.pending(c)
    if bg is not None:
        bg_q = c.v("ally", M).ne(bg)
        if c.has("ally-triggers-terror"):
            bg_q = Const(True)
        rules += [
            Rule("open_queued_entry", (P("k", c.K),), nothing & v("entry2") & c.token_at(k, loc) & bg_q,
                 {("entry2", ()): False, ("entrant", ()): bg,
                  ("entry_cause", ()): c.Cause.index("advisor"), ("entry_face", ()): k,
                  ("stage", ()): c.st("terror")}, ("R12", "H36", "A25"), kind="system",
                 doc="the accompanying advisors' own entry gets its Terror decision"),
            Rule("lapse_queued_entry", (), nothing & v("entry2") & ~(c.any_token_at(loc) & bg_q),
                 {("entry2", ()): False}, ("H36",), kind="system"),
        ]
    # Reset the finished arrival record so that stale values do not split otherwise equal states.
    clear = {("entrant", ()): 0, ("entry_loc", ()): c.desert, ("entry_cause", ()): 0, ("entry_face", ()): 0,
             ("amb_payer", ()): 0}
    rules += relocation.rules(c, lambda f, to: open_for(c, f, to), ambassador_present(c), nothing & ~v("entry2"),
                              ambassador_spends(c))
    settles = nothing & ~v("entry2") & relocation.settled(c) if relocation.enabled(c) else nothing & ~v("entry2")
    rules.append(Rule("arrival_settled", (), settles,
                      {("stage", ()): c.st("ship_move"), ("mover", ()): v("mover") + 1} | clear
                      | worms.settled_effects(c) | revival.settled_effects(c), ("A3",) + (("H20",) if worms.enabled(c) else ()),
                      kind="system", doc="every reaction to the arrival is resolved; the next player acts"))
    if bg is not None:
        tq = c.any_token_at(loc) & c.v("ally", M).ne(bg)
        if c.has("ally-triggers-terror"):
            tq = c.any_token_at(loc)
        if grumman.enabled(c) and not c.has("grumman-advisor-entry-ignores-threshold"):
            tq = tq & grumman.qualifies(c, 1, Const(bg))  # the advisor's own entry is one force (R45, H13)
        queued = {("entry2", ()): tq}
        if c.has("advisor-overwrites-ambassador-payer"):
            # The bug: the advisors' arrival becomes "the last arrival" the pending Ambassador charges.
            queued = queued | {("amb_payer", ()): ite(v("pend_ambassador"), bg, v("amb_payer"))}
        if c.has("advisor-entry-overwrites-terror"):
            # The bug: the advisor's entry replaces the queued Terror entry instead of queuing behind it.
            queued = {("entrant", ()): Const(bg), ("entry_cause", ()): c.Cause.index("advisor"),
                      ("pend_terror", ()): v("pend_terror") | tq}
        lands = c.stage_is("advisor") & (v("reserves", bg) >= 1) & loc.eq(Param("l"))
        if c.chose(ADVISOR_INTO_AFTERMATH.BANNED):  # the advisor's free shipment obeys the Aftermath ban (R36)
            lands = lands & v("aftermath").ne(Param("l"))
        rules += [
            Rule("accompany", (P("l", c.L),), lands,
                 {("reserves", (Const(bg),)): v("reserves", bg) - 1,
                  ("forces", (Const(bg), Param("l"))): v("forces", bg, Param("l")) + 1, ("stage", ()): c.st("react")}
                 | _advisor_lands(c, bg, Param("l")) | queued, ("A1", "A23", "A25", "H36", "R12"), actor=Const(bg),
                 doc="BG sends one advisor with the shipment: a separate entry by BG"),
            Rule("decline_advisor", (), c.stage_is("advisor"), {("stage", ()): c.st("react")}, ("A1",),
                 actor=Const(bg)),
        ]
    return rules + _ambassador_rules(c)


def _ambassador_rules(c: Ctx) -> list[Rule]:
    v = c.v
    rules = []
    ecaz = c.fac("Ecaz")
    if ecaz is not None:
        payer = Param("p")
        pays = (v("spice", payer) > 0) & ambassador_present(c)
        rules.append(Rule(
            "ambassador_effect", (P("p", c.F),), c.stage_is("ambassador") & v("amb_payer").eq(payer) & payer.ne(ecaz),
            {("spice", (payer,)): v("spice", payer) - ite(pays, 1, 0),
             ("spice", (Const(ecaz),)): v("spice", ecaz) + ite(pays, 1, 0),
             ("stage", ()): c.st("react")} | ambassador_spends(c), ("A2", "R36"), kind="system",
            doc="abstract Ambassador effect: the arriving faction gives Ecaz 1 spice if it has any (nothing if an "
                "Atomics revealed meanwhile has returned the Ambassador); the Ambassador is then set aside"))
    return rules


def rules(c: Ctx) -> list[Rule]:
    ride = worms.rules(c, lambda f, to, cause, adv, n: _arrival(c, f, to, cause, adv, n) | fighters_arrive(c, f, to),
                       lambda f, to: open_for(c, f, to), "ship_move")
    revive = revival.rules(c, lambda f, to, cause, adv, n: _arrival(c, f, to, cause, adv, n) | fighters_arrive(c, f, to),
                           lambda f, to: open_for(c, f, to))
    cross = crossship.rules(c, lambda f, to, cause, adv, n: _arrival(c, f, to, cause, adv, n) | fighters_arrive(c, f, to),
                            lambda f, to: open_for(c, f, to), lambda f: my_turn(c, f))
    return entry_rules(c) + reaction_rules(c) + ride + revive + cross


def _advisor_lands(c: Ctx, bg: int, l) -> dict:
    """bg-advisors-occupy: coexist: the accompanying force is an advisor, unless BG fighters are already there
    (then it joins them as a fighter: BG's forces in one place are of one kind)."""
    if not c.advisors_coexist():
        return {}
    v = c.v
    alone = v("forces", bg, l).eq(v("advisors", l))  # no BG fighter there
    return {("advisors", (l,)): ite(alone, v("advisors", l) + 1, v("advisors", l))}


def fighters_arrive(c: Ctx, f, to) -> dict:
    """coexist: BG fighters shipped or moved into a place turn the advisors there into fighters."""
    if not c.advisors_coexist():
        return {}
    return {("advisors", (to,)): ite(lift(f).eq(c.fac("Bene Gesserit")), 0, c.v("advisors", to))}
