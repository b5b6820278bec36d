"""Invariants, step properties and witnesses of the product contract, with their catalogue IDs.

Properties read game state and the kernel's monitors (model/moritani/monitors.py), never history
a rule keeps about itself (the kernel refuses a property that reads a ghost field a rule writes).
The step properties are in model/moritani/steps.py.
"""
from __future__ import annotations

from model.expr import Param, count, implies
from model.moritani.config import KARAMA_EOME_TIMING
from model.moritani.context import MENTAT_STAGES, TERROR_STAGES, Ctx
from model.moritani import crossship, deck, grumman, homeworld, intrusion, nexus, relocation, revival, separation, setup, \
    worms
from model.moritani.steps import step_properties
from model.properties import Property, always, sometimes


def invariants(c: Ctx, totals: dict) -> list[Property]:
    v, M, S = c.v, c.M, c.Status
    n = len(c.bounds.factions)
    ext = c.face("Extortion")
    placed = lambda k: v("tstatus", k).eq(S.index("placed"))  # noqa: E731
    custody = []
    for k in c.faces:
        custody.append(placed(k).eq(v("tloc", k).ne(c.none_dest)))
        if k != ext:
            custody.append(v("tstatus", k).ne(S.index("extortion")))
        for j in c.faces:
            if j < k and not c.stacks:  # one token per stronghold (R8); stacks: model/moritani/stacks.py
                custody.append(implies(placed(k) & placed(j), v("tloc", k).ne(v("tloc", j))))
    if ext is not None:
        custody.append(v("ext_reserved").eq(v("tstatus", ext).eq(S.index("extortion")) & ~v("ext_credited")))
    offer = c.stage_is("eome_karama", "eome_reply")
    # An offer is never made after Karama cancelled this entry's offer, or after the entrant refused it
    # (the kernel's monitors see both from the steps: model/moritani/monitors.py).
    eome = implies(offer, ~v("offer_blocked") & ~v("refused"))
    ecaz = c.fac("Ecaz")
    if ecaz is not None:
        eome = eome & implies(offer, v("entrant").ne(ecaz))
    symmetric = c.all_of(
        implies(v("ally", f).eq(g), v("ally", g).eq(f)) for f in range(n) for g in range(n) if f != g)
    symmetric = symmetric & c.all_of(v("ally", f).ne(f) for f in range(n))
    atomics = c.face("Atomics")
    aftermath = implies(v("aftermath").ne(c.none_dest), v("tstatus", atomics).eq(S.index("removed"))) \
        if atomics is not None else v("aftermath").eq(c.none_dest)
    frames = c.stage_is("robbery_discard")
    hands = implies(~frames, c.all_of(v("hand", f) <= c.hand_limit(f, engine=False) for f in range(n)))
    conservation = (c.spice_total().eq(totals["spice"])
                    & c.all_of(c.forces_total(f).eq(totals["forces"][f]) for f in range(n)))
    trigger = implies(c.stage_is(*TERROR_STAGES), v("entrant").ne(M)) & implies(
        c.stage_is("terror"), v("ally", M).ne(v("entrant")) & c.any_of(
            v("entry_face").eq(k) & c.token_at(k, v("entry_loc")) for k in c.faces))
    fresh = c.all_of(implies(v("tstatus", k).eq(S.index("supply")), ~v("pid_shown", k)) for k in c.faces)
    fresh = fresh & c.all_of(v("pid", k).ne(v("pid", j)) for k in c.faces for j in c.faces if j < k)
    # H4: a return deals the supply the IDs terror-supply-{epoch}-{i}, i counting up, and the epoch moves past
    # them (H5: the private counter `next_pid`). So no ID is at or above the counter, and the last one dealt
    # is the counter's previous value: a counter that skips, or an ID dealt off the sequence, breaks it.
    epoch = (c.all_of(v("pid", k) < v("next_pid") for k in c.faces)
             & c.any_of(v("pid", k).eq(v("next_pid") - 1) for k in c.faces))
    settled = c.stage_is("ship_move", "mentat_end", "game_over", *MENTAT_STAGES, *(("worm",) if c.worms else ()))
    owed = c.all_of(v("terror_due", f).eq(c.none_dest) for f in c.rivals)
    if c.fac("Ecaz") is not None and c.bounds.ambassador is not None:
        owed = owed & ~v("ambassador_due")
    return [
        always("token-conservation", c.all_of(custody), ("R2", "R4", "R14", "H12", "H30"),
               "each face is in exactly one place: supply, one stronghold, removed, or Extortion-pending"),
        always("placement-once", v("placements") <= 1, ("R7", "R9", "A13", "H1", "H28"),
               "at most one Terror placement or move per Mentat Pause"),
        always("placement-recorded", implies(c.stage_is(*MENTAT_STAGES, "mentat_end") & (v("placements") >= 1),
                                             v("placement_used")), ("R9", "H1", "H28"),
               "once a token landed by this turn's placement or move, the engine records the opportunity used"),
        always("extortion-once", (v("ext_credits") <= 1) & implies(c.stage_is("mentat_end", "bidding", "storm"),
                                                                   ~v("ext_reserved"))
               if ext is not None else implies(c.stage_is("mentat_end"), ~v("ext_reserved")),
               ("R37", "A7", "H2", "H26"), "the reserved 5 are credited exactly once and never cross a turn"),
        always("trigger-legality", trigger, ("R11", "R12", "R17", "H6"),
               "a Terror decision opens only for a non-allied rival's entry into the token's stronghold"),
        always("eome-obligations", eome, ("R19", "R30", "H8", "H23"),
               "no offer to Ecaz, no second offer for an entry after a Karama block or a refusal"),
        always("alliance-symmetry", symmetric, ("R20", "R25", "H21"), "alliances are symmetric pairs"),
        always("aftermath", aftermath, ("R36", "A23"), "the Aftermath lies where the revealed Atomics token was"),
        always("hand-limits", hands, ("R5", "R36", "A10", "A12", "H33", "H19"),
               "no hand exceeds its limit (minus one for Moritani and its ally at Atomics) outside a discard frame"),
        always("conservation", conservation, ("H16", "H17", "H32", "R37", "R39"),
               "spice (players, bank, reserved Extortion) and each faction's forces are conserved"),
        always("no-reroll", v("rng_draws") <= 1, ("H7",), "an effect draws its randomness at most once"),
        always("no-lost-obligation", implies(settled, owed), ("H9", "H35", "A1", "A2", "R11"),
               "every Terror decision and Ambassador reaction an arrival earned is resolved before play goes on"),
        always("public-ids-fresh", fresh, ("H3", "H4", "H12"),
               "public IDs are distinct and a token back in supply carries an ID never shown"),
        always("ids-from-the-epoch", epoch, ("H4", "H5"),
               "public IDs are dealt from the supply epoch in turn: every ID is below it and the newest is the "
               "one just below it"),
    ] + (traitor_invariants(c) if c.module else []) + _advisor_invariants(c) + step_properties(c) \
        + nexus.properties(c) + grumman.properties(c) + worms.properties(c) + deck.properties(c) + setup.properties(c) + homeworld.properties(c) + revival.properties(c)


def traitor_invariants(c: Ctx) -> list[Property]:
    """The Assassinate Leaders module's invariants (only when it is on: the default report is unchanged)."""
    v, M = c.v, c.M
    cards = range(len(c.cards))
    z = c.zone
    in_hand = count(z(t, "hand") | z(t, "shown") | z(t, "held") for t in cards)
    deck_empty = ~c.any_of(z(t, "deck") for t in cards)
    spent = lambda f: [t for t, (g, _) in enumerate(c.cards) if g == f]  # noqa: E731
    used = lambda f: [z(t, "held") | z(t, "marker") for t in spent(f)]  # noqa: E731
    custody = [
        # Moritani physically holds exactly one card once dealt (a revealed card until Mentat, then its
        # replacement): no duplicate draw, no missing replacement (none only if the deck ran out).
        in_hand <= 1,
        implies(~c.stage_is("traitor_deal") & ~deck_empty, in_hand.eq(1)),
        v("tr_pending").eq(c.any_of(z(t, "held") for t in cards)),
        v("tr_used", M).eq(False),
    ]
    custody += [implies(v("tr_retired", t), z(t, "marker")) for t in cards]  # retired cards never return
    custody += [v("tr_used", f).eq(c.any_of(used(f))) for f in c.rivals]    # the public marker is the card
    return [
        always("traitor-custody", c.all_of(custody), ("R43", "A6"),
               "each Traitor card is in one zone; Moritani holds exactly one after each replacement; "
               "retired cards never return; a faction's used marker is its set-aside card"),
        always("assassinate-once-per-faction", c.all_of(count(used(f)) <= 1 for f in c.rivals), ("R43",),
               "at most one Assassinate Leaders reveal per opposing faction in the game"),
    ]


def witnesses(c: Ctx) -> list[Property]:
    v, M = c.v, c.M
    out = []
    n = Param("n")
    effect = {"assassination": ("Assassination", ("assassinate",), None, "R35"),
              "atomics": ("Atomics", ("reveal_atomics",), None, "R36"),
              "extortion": ("Extortion", ("reveal_extortion",), None, "R37"),
              "robbery": ("Robbery", ("rob_spice", "rob_card"), None, "R39"),
              "sabotage": ("Sabotage", ("reveal_sabotage",), None, "R40"),
              "sneak-attack": ("Sneak Attack", ("sneak_attack",), n > 0, "R41")}
    for key, (face, fires, when, rid) in effect.items():
        if c.face(face) is not None:
            out.append(sometimes(f"witness-{key}", fires=fires, when=when, rules=(rid,)))
    out += [
        sometimes("witness-decline", fires=("decline",), rules=("R13",)),
        sometimes("witness-eome-accepted", fires=("accept_alliance",), rules=("R20",)),
        sometimes("witness-eome-refused", fires=("refuse_alliance",), rules=("R21",)),
        sometimes("witness-karama-placement", fires=("karama_placement",), rules=("R29",)),
        sometimes("witness-karama-eome", rules=("R30",),
                  fires=(("karama_eome_preempt",) if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE)
                         else ("karama_eome",))),
    ]
    if c.fac("Bene Gesserit") is not None:
        # A25: the accompanying advisor is BG's own entry, with its own Terror decision (H36). A scheduler that
        # never opens the advisor's choice leaves only legal games; these two witnesses see the choice vanish.
        out += [sometimes("witness-advisor-accompanies", fires=("accompany",), rules=("A1", "A25")),
                sometimes("witness-advisor-entry", fires=("open_queued_entry",), rules=("A25", "H36"),
                          doc="the accompanying advisor's own entry gets its Terror decision")]
    if c.face("Sabotage") is not None:
        out.append(sometimes("witness-no-gift", fires=("no_gift",), rules=("R40",)))
    if c.face("Extortion") is not None:
        out += [
            sometimes("witness-extortion-paid", fires=("pay_extortion",), rules=("R37",)),
            sometimes("witness-extortion-recovered", fires=("recover_extortion",), rules=("R37", "H4")),
        ]
    if c.face("Atomics") is not None:
        out.append(sometimes("witness-atomics-ally", fires=("reveal_atomics",), when=v("ally", M).ne(c.none_ally),
                             rules=("R36", "A10")))
    if c.module:
        t = Param("t")
        alive = v("leader", c.card_fac(t), c.card_lead(t))
        out += [
            sometimes("witness-assassinate-leaders-live", fires=("assassinate_leader",), when=alive,
                      rules=("R43",), doc="a reveal kills a living leader and pays its strength"),
            sometimes("witness-assassinate-leaders-dead", fires=("assassinate_leader",), when=~alive,
                      rules=("R43",), doc="a reveal names an already dead leader: legal, pays nothing"),
        ]
    out += separation.witnesses(c) + intrusion.witnesses(c) + nexus.witnesses(c) + grumman.witnesses(c) + worms.witnesses(c)
    out += deck.witnesses(c) + setup.witnesses(c) + homeworld.witnesses(c) + revival.witnesses(c) + crossship.witnesses(c)
    out += relocation.witnesses(c)
    if c.face("Sneak Attack") is not None:
        out.append(sometimes("witness-sneak-into-aftermath", fires=("sneak_attack",),
                             when=(n > 0) & v("aftermath").eq(v("entry_loc")), rules=("R41", "R36")))
    return out


def _advisor_invariants(c: Ctx) -> list:
    """bg-advisors-occupy: coexist: the advisors counted in a place are BG forces standing there."""
    if not c.advisors_coexist():
        return []
    bg = c.fac("Bene Gesserit")
    ok = c.all_of(c.v("advisors", l) <= c.v("forces", bg, l) for l in range(len(c.L.labels)))
    n = len(c.bounds.factions)
    company = lambda l: c.any_of(c.v("forces", f, l) > 0 for f in range(n) if f != bg)  # noqa: E731
    alone = c.all_of(implies(c.v("advisors", l) > 0, company(l)) for l in c.holds)
    return [always("advisors-are-bg-forces", ok, ("R25", "A25", "H33"),
                   "the advisors counted in a place are Bene Gesserit forces standing there"),
            always("advisors-never-alone", alone, ("R25", "A25"),
                   "BG advisors stand only where another faction has forces (advisors left alone become "
                   "fighters: treachery.online FlipBlueAdvisorsWhenAlone, Quintine settleAdvisors)")]
