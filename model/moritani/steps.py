"""Step properties: what a single step may do, written from the rules catalogue (not from the rule code).

Each is a predicate over the step's pre-state (`v(...)`), its post-state (`post(...)`) and, rarely,
the game's monitors; the kernel checks it on every reachable transition (model/monitors.py). They
say who pays whom and how much, where a token may go, what a cancellation leaves alone, what may
not enter the Aftermath and who is exempt, so that a spice payment to the wrong holder or a token
sent to the wrong (legal) zone is caught by the step that does it, which totals and zone checks
cannot see.

>>> from model.moritani.build import build_model
>>> sorted(p.name for p in build_model().properties if p.kind == "step")[:3]
['actor-has-the-turn', 'allies-separate', 'arrival-respects-occupancy']
"""
from __future__ import annotations

import itertools

from model.expr import Arg, Const, Expr, Fired, count, half_up, implies, ite, post, sum_of
from model.moritani import cards, crossship, intrusion, relocation, revival, separation, setup
from model.moritani.config import (ADVISOR_INTO_AFTERMATH, EXTORTION_MENTAT_ORDER, EXTORTION_PAYERS, KARAMA_EOME_TIMING,
                                   SABOTAGE_GIFT_OVERFLOW)
from model.moritani.context import MENTAT_STAGES, TERROR_STAGES, Ctx
from model.moritani.monitors import becomes, changed, custody_changed
from model.properties import Property, always, always_step


def step_properties(c: Ctx) -> list[Property]:
    out = [_spice_transfer(c), _spice_payee(c), _token_destinations(c), _reveal_entered_token(c),
           _karama_cancels_placement(c), _karama_spends_one_card(c), _refusal_forces_reveal(c),
           _no_shipment_into_aftermath(c), _atomics_kills_all(c), _sneak_attack_legal(c),
           _entry_never_refunded(c), _arrival_respects_occupancy(c), _forces_transfer(c), _shipment_is_paid(c),
           _ids_are_stable(c), _target_is_entrant(c), *_faults_and_progress(c), _effect_follows_its_reveal(c),
           _entry_closes(c), _one_effect_per_reveal(c), _turn_sequence(c), _offer_state_is_this_entrys(c),
           _nothing_pending_outside_its_window(c), _placement_as_declared(c), _actor_has_the_turn(c)]
    if crossship.enabled(c) or relocation.enabled(c):
        out.append(_terror_needs_an_entry(c))
    if c.face("Extortion") is not None:
        out += [_extortion_payer(c), _extortion_queue(c)]
        if c.chose(EXTORTION_MENTAT_ORDER.PLACEMENT_FIRST):
            out.append(_placement_before_extortion(c))
    if c.face("Sabotage") is not None:
        out.append(_gift_is_a_transfer(c))
    if c.face("Robbery") is not None:
        out.append(_robbery_half(c))
    if c.face("Assassination") is not None:
        out.append(_assassination_bounty(c))
    if c.module:
        out.append(_assassinate_forfeit(c))
    if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE):
        out.append(_no_offer_after_preemption(c))
    return out + separation.properties(c) + intrusion.properties(c) + cards.properties(c)


def _no_offer_after_preemption(c: Ctx) -> Property:
    """R30, A4 (pre-emptive-phase, treachery.online): once a rival has played Karama against Enemy of My Enemy
    in this Shipment & Movement phase, Moritani makes no alliance offer until the phase is over."""
    offers = tuple(f"offer_alliance_{k}" for k in c.faces)
    return always_step("no-offer-after-preemptive-karama", implies(Fired(offers), ~c.v("karama_preempted")),
                       ("R30", "A4"), "no alliance offer for the rest of a phase in which Karama prevented it")


def _placement_before_extortion(c: Ctx) -> Property:
    """A5 (placement first, the user's decision of 28 Sep 2026), H28: a Mentat Pause settles the placement or
    relocation and its Karama response, then credits the 5, then asks the payers in storm order. Once the
    collection has begun the placement step does not open again, so a recovered Extortion is not offered for
    redeployment in the same Mentat (even a step that would refuse it is a second opportunity, R7)."""
    collecting = c.stage_is("extortion_collect", "extortion_pay")
    placing = post("stage").eq(c.st("mentat_place")) | post("stage").eq(c.st("placement_karama"))
    return always_step("placement-before-extortion", implies(collecting, ~placing), ("A5", "H28", "R7"),
                       "once the Extortion collection has begun, the Mentat placement step does not open again")


def delta(c: Ctx, name: str, *idx):
    """How much the step changes a numeric field."""
    return post(name, *idx) - c.v(name, *idx)


def _holders(c: Ctx) -> dict:
    """Every holder of spice and the step's change to it: each faction, the bank, the Extortion reserve
    (5 spice in front of Moritani's shield while reserved, R37)."""
    out: dict[int | str, Expr] = {f: delta(c, "spice", f) for f in range(len(c.bounds.factions))}
    out["bank"] = delta(c, "bank")
    out["reserve"] = ite(post("ext_reserved"), 5, 0) - ite(c.v("ext_reserved"), 5, 0)
    return out


def _spice_transfer(c: Ctx) -> Property:
    d = _holders(c)
    changes = list(d.values())
    ok = sum_of(changes).eq(0) & (count(x < 0 for x in changes) <= 1) & (count(x > 0 for x in changes) <= 1)
    return always_step("spice-transfer", ok, ("H16", "H17", "R37", "R39"),
                       "spice moves in one transfer per step: one payer, one payee, the same amount")


def _spice_payee(c: Ctx) -> Property:
    """Who may receive spice, and when (R35, R37, R39, A2): Moritani from an effect or Extortion, Ecaz from
    its Ambassador, the bank from a shipment fee, the Extortion reserve from the reveal."""
    M = c.M
    d = _holders(c)
    m_stages = ["assassinate", "robbery", "extortion_collect", "extortion_pay"]
    if c.module:
        m_stages += ["battle", "assassinate_offer"]
    if c.grumman:  # R46: the Grumman operation's 4 bank spice at Spice Collection
        m_stages += ["collection"]
    ok = implies(d[M] > 0, c.stage_is(*m_stages)) & implies(d["bank"] > 0, c.stage_is("ship_move")) \
        & implies(d["reserve"] > 0, c.stage_is("terror"))
    ecaz = c.fac("Ecaz")
    # R36: Atomics returns the Ambassador in its stronghold to Ecaz; it takes nothing after that. E3 p.7: once it
    # has reacted it is set aside, so it takes spice once at most (the `ambassador_reacted` monitor, issue 33).
    standing = (c.v("aftermath").ne(c.Dest.index(c.bounds.ambassador)) & ~c.v("ambassador_reacted")
                if c.bounds.ambassador is not None and ecaz is not None else Const(True))
    for f in c.rivals:
        ok = ok & implies(d[f] > 0, c.stage_is("ambassador") & standing if f == ecaz else Const(False))
    return always_step("spice-payee", ok, ("R35", "R37", "R39", "A2", "H17"),
                       "only the holders the rules name receive spice: Moritani from an effect or Extortion, Ecaz "
                       "from its Ambassador, the bank from a shipment fee")


def _extortion_payer(c: Ctx) -> Property:
    """R37, A8, A9, H25: a payment to keep Extortion out is 3 spice from the rival whose turn it is in
    storm order, eligible under A8, to Moritani."""
    v, M = c.v, c.M
    rule = c.choice(EXTORTION_PAYERS)
    ok = Const(True)
    for f in c.rivals:
        eligible = Const(True)
        if rule == EXTORTION_PAYERS.EXCLUDE_ALLY:
            eligible = v("ally", M).ne(f)
        elif rule == EXTORTION_PAYERS.ENTRANT_ONLY:
            eligible = v("ext_entrant").eq(f)
        pays = delta(c, "spice", f) < 0
        ok = ok & implies(pays, delta(c, "spice", f).eq(-3) & delta(c, "spice", M).eq(3)
                          & c.at_position("payer", f) & eligible)
    return always_step("extortion-payer", implies(c.stage_is("extortion_pay"), ok), ("R37", "A8", "A9", "H25"),
                       "an Extortion payment is 3 spice to Moritani from the eligible rival whose turn it is")


def _placed(c: Ctx, k, after: bool):
    st = post("tstatus", k) if after else c.v("tstatus", k)
    return st.eq(c.Status.index("placed"))


def _token_destinations(c: Ctx) -> Property:
    """R7, R8, R10, R14, R20, R48, H12, H29: a token reaches the map only by the Mentat placement; it leaves the
    map only when revealed against an entrant (removed, or Extortion out) or returned to supply by an
    accepted alliance or a Nexus Betrayal; a revealed Extortion returns to supply only at the Mentat Pause."""
    v, S = c.v, c.Status
    ok = Const(True)
    for k in c.faces:
        lands = _placed(c, k, True) & custody_changed(c, k)
        leaves = _placed(c, k, False) & ~_placed(c, k, True)
        to_supply = post("tstatus", k).eq(S.index("supply"))
        revealed = post("tstatus", k).eq(S.index("removed")) | post("tstatus", k).eq(S.index("extortion"))
        recovered = changed(c, "tstatus", k) & v("tstatus", k).eq(S.index("extortion")) & to_supply
        back = (to_supply & c.stage_is("eome_reply", "eome_karama")) | (to_supply & _betrayal_played(c))
        placing = c.stage_is("placement_karama")
        if c.grumman:  # R46: a Grumman operation at Spice Collection adds or removes a token
            placing, back = placing | c.stage_is("collection"), back | c.stage_is("collection")
        ok = ok & implies(lands, placing) \
            & implies(leaves, (revealed & c.stage_is("terror")) | back) \
            & implies(recovered, c.stage_is("extortion_pay"))
    return always_step("token-destinations", ok, ("R7", "R8", "R10", "R14", "R20", "H12", "H29"),
                       "a token reaches the map only by placement, and leaves it only revealed or returned to supply")


def _betrayal_played(c: Ctx):
    """R48: a rival plays Moritani's Nexus card as Betrayal in this step (the card leaves its hand)."""
    if not c.nexus:
        return Const(False)
    return c.any_of(c.v("nexus_holder").eq(f) & post("nexus_holder").eq(c.none_ally) for f in c.rivals)


def _reveal_entered_token(c: Ctx) -> Property:
    """R11, R14, H10: the token revealed is the one in the stronghold the entrant entered, chosen for this entry."""
    v, S = c.v, c.Status
    ok = Const(True)
    for k in c.faces:
        revealed = _placed(c, k, False) & changed(c, "tstatus", k) & (post("tstatus", k).eq(S.index("removed"))
                                                                    | post("tstatus", k).eq(S.index("extortion")))
        ok = ok & implies(revealed, c.stage_is("terror") & v("entry_face").eq(k) & v("tloc", k).eq(v("entry_loc")))
    return always_step("reveal-entered-token", ok, ("R11", "R14", "H10"),
                       "a reveal shows the token in the entered stronghold, and no other")


def _custody_unchanged(c: Ctx):
    v = c.v
    return c.all_of(post("tstatus", k).eq(v("tstatus", k)) & post("tloc", k).eq(v("tloc", k)) for k in c.faces)


def _karama_spent(c: Ctx, f):
    return c.v("karama", f) & ~post("karama", f)


def _karama_cancels_placement(c: Ctx) -> Property:
    """R29, A13, H29: Karama against a placement leaves every token where it was."""
    played = c.any_of(_karama_spent(c, f) for f in c.rivals)
    return always_step("karama-cancels-placement", implies(c.stage_is("placement_karama") & played,
                                                           _custody_unchanged(c)),
                       ("R29", "A13", "H29"), "a placement cancelled by Karama moves no token")


def _karama_spends_one_card(c: Ctx) -> Property:
    """R29, R30: a cancellation by Karama spends exactly one Karama card, and no spent card comes back."""
    spent = count(_karama_spent(c, f) for f in c.rivals)
    back = c.any_of(~c.v("karama", f) & post("karama", f) for f in c.rivals)
    cancelled = (c.stage_is("eome_karama") & becomes(c, "stage", c.st("terror"))) \
        | (c.stage_is("placement_karama") & _custody_unchanged(c) & changed(c, "stage"))
    return always_step("karama-spends-one-card", ~back & implies(cancelled, spent.eq(1)), ("R29", "R30"),
                       "every Karama cancellation spends one Karama card, and none comes back")


def _refusal_forces_reveal(c: Ctx) -> Property:
    """R21, H24: once the entrant refuses the alliance, the entry cannot end with the token still hidden."""
    v, M = c.v, c.M
    refuses = (c.stage_is("eome_reply") & changed(c, "stage") & post("ally", M).ne(v("entrant"))
               & post("stage").ne(c.st("eome_karama")))
    hidden_end = becomes(c, "stage", c.st("entry_done")) & _placed(c, v("entry_face"), True)
    return always_step("refusal-forces-reveal", ~((v("refused") | refuses) & hidden_end), ("R21", "H24"),
                       "after a refused offer Moritani must reveal: the entry never ends with the token hidden")


def _terror_needs_an_entry(c: Ctx) -> Property:
    """R11, R17: a Terror decision opens only for a rival the `terror_due` monitor saw enter the decision's
    stronghold (kept from the forces on the board, not from the arrival's own record). With the modules whose
    moves put forces on the board without being an entry, or queue an entry behind another (the Guild's
    transport back to reserves, Ambassador relocation)."""
    v = c.v
    opening = c.stage_is("react") & becomes(c, "stage", c.st("terror"))  # a decision opens (not a return to it)
    seen = c.any_of(post("entrant").eq(f) & v("terror_due", f).eq(post("entry_loc")) for f in c.rivals)
    return always_step("terror-needs-an-entry", implies(opening, seen), ("R11", "R17"),
                       "a Terror decision opens only for a rival whose forces were seen entering the token's "
                       "stronghold (a transport back to reserves is no entry)")


def _no_shipment_into_aftermath(c: Ctx) -> Property:
    """R36, A23, R41: nothing arrives in the Aftermath from reserves (shipment, an accompanying advisor), except
    Moritani's Sneak Attack, which works despite it; movement from the board is allowed."""
    v, M = c.v, c.M
    ok = Const(True)
    am = v("aftermath")
    for f in range(len(c.bounds.factions)):
        shipped = am.ne(c.none_dest) & (post("reserves", f) < v("reserves", f)) \
            & (post("forces", f, am) > v("forces", f, am))
        exempt = c.stage_is("sneak") if f == M else Const(False)
        if f == c.fac("Bene Gesserit") and c.chose(ADVISOR_INTO_AFTERMATH.ALLOWED):  # the free advisor, by this reading
            exempt = c.stage_is("advisor")
        ok = ok & implies(shipped, exempt)
        if crossship.enabled(c) and f == crossship.guild(c):  # a cross-ship is a shipment too (A23)
            crossed = am.ne(c.none_dest) & crossship.cross_shipped(c) & (post("forces", f, am) > v("forces", f, am))
            ok = ok & implies(crossed, crossship.exempt_from_ban(c))
    cross = (" (nor by a Guild cross-ship, under cross-ship-into-aftermath banned)"
             if crossship.enabled(c) and crossship.aftermath_banned(c) else "")
    return always_step("no-shipment-into-aftermath", ok, ("R36", "A23", "R41"),
                       f"no forces arrive in the Aftermath from reserves, except by Moritani's Sneak Attack{cross}")


def _atomics_kills_all(c: Ctx) -> Property:
    """R36, H33: the Atomics step sends every force in the territory to the Tanks, Moritani's included; nothing
    else sends forces to the Tanks, except ally separation (R26, R27: all of one faction's forces in one
    stronghold it shares with its earlier-moving ally, at the end of its turn), and (switch ally-entry) the
    forces a player brought beside its ally, right after its turn ends."""
    v = c.v
    laid = v("aftermath").eq(c.none_dest) & post("aftermath").ne(c.none_dest)
    ok = Const(True)
    for f in range(len(c.bounds.factions)):
        ok = ok & implies(post("tanks", f) > v("tanks", f), laid | separation.separated(c, f)
                          | separation.visit_lost(c, f))
        for h in c.holds:
            ok = ok & implies(laid & post("aftermath").eq(h),
                              post("forces", f, h).eq(0) & delta(c, "tanks", f).eq(v("forces", f, h)))
    return always_step("atomics-kills-all", ok, ("R36", "H33"),
                       "Atomics sends every force in the territory to the Tanks, whoever owns it; nothing else does "
                       "but the separation of allies")


def _sneak_attack_legal(c: Ctx) -> Property:
    """R41, H32, A31: a Sneak Attack sends at most five reserves into the entered territory only; a positive
    amount needs no storm there and fewer than two other factions in it."""
    v, M = c.v, c.M
    sent = v("reserves", M) - post("reserves", M)
    loc = v("entry_loc")
    elsewhere = c.all_of(post("forces", M, h).eq(v("forces", M, h)) | Const(h).eq(loc) for h in c.holds)
    allowed = v("storm").ne(loc) & (c.occupants(loc, exclude=(M,)) < 2)
    ok = implies(sent > 0, (sent <= 5) & elsewhere & allowed
                 & (post("forces", M, loc) - v("forces", M, loc)).eq(sent))
    return always_step("sneak-attack-legal", implies(c.stage_is("sneak"), ok), ("R41", "H32", "A31"),
                       "a Sneak Attack sends up to five reserves into the entered territory, and only when storm "
                       "and occupancy allow a positive amount")


def _arrival_respects_occupancy(c: Ctx) -> Property:
    """R25, R41, H32, A25: forces arrive in a stronghold only where at most one other faction is present and
    none of them is the arriving faction's ally; the BG advisor accompanying a shipment is exempt (it
    coexists, A25)."""
    v = c.v
    n = len(c.bounds.factions)
    bg, ecaz = c.fac("Bene Gesserit"), c.fac("Ecaz")
    ok = Const(True)
    for f in range(n):
        for h in c.holds:
            arrives = post("forces", f, h) > v("forces", f, h)
            if f == bg:
                arrives = arrives & ~c.stage_is("advisor")
            others = c.occupants(h, exclude=(f,))
            ally_there = c.any_of(v("ally", f).eq(g) & c.present(g, h) for g in range(n)
                                  if g != f and ecaz not in (f, g))  # Ecaz and its ally coexist
            # Switch ally-entry: the player's own shipment (from reserves) or, under ship-and-move, movement (from
            # the open desert) may enter beside its ally; the forces then go to the Tanks (R26, R27; issue 33).
            own = c.stage_is("ship_move") & c.at_position("mover", f)
            if separation.entry_allowed(c, moving=True):
                ally_there = ally_there & ~own
            elif separation.entry_allowed(c, moving=False):
                ally_there = ally_there & ~(own & (post("reserves", f) < v("reserves", f)))
            ok = ok & implies(arrives, (others < 2) & ~ally_there)
    return always_step("arrival-respects-occupancy", ok, ("R25", "R41", "H32", "A25"),
                       "forces arrive only where at most one other faction, and not their ally, is present (the BG "
                       "advisor coexists)")


def _force_holders(c: Ctx, f: int) -> list:
    """The step's change to each place a faction's forces can be: reserves, each board location, the Tanks."""
    return ([delta(c, "reserves", f), delta(c, "tanks", f)]
            + [delta(c, "forces", f, l) for l in range(len(c.L.labels))])


def _forces_transfer(c: Ctx) -> Property:
    """R6, H16, H32, H33: each faction's forces move in one transfer per step (one place loses what one place
    gains, the total unchanged), and nothing in this game returns forces to reserves."""
    ok = Const(True)
    for f in range(len(c.bounds.factions)):
        d = _force_holders(c, f)
        never_back = d[0] <= 0
        if crossship.enabled(c) and f == crossship.guild(c):  # the Guild's transport back to reserves (R17)
            never_back = never_back | crossship.to_reserves(c, f)
        ok = ok & sum_of(d).eq(0) & (count(x < 0 for x in d) <= 1) & (count(x > 0 for x in d) <= 1) & never_back
    guild = " but by the Guild's transport (R17)" if crossship.enabled(c) else ""
    return always_step("forces-transfer", ok, ("R6", "H16", "H32", "H33"),
                       f"each faction's forces move in one transfer per step, and never back to reserves{guild}")


def _shipment_is_paid(c: Ctx) -> Property:
    """R41, A25, A3, H17: forces that leave reserves for the board are a shipment their owner pays for at
    once (to the bank), except Moritani's Sneak Attack (free) and the BG advisor's free shipment."""
    v, M = c.v, c.M
    bg = c.fac("Bene Gesserit")
    ok = Const(True)
    for f in range(len(c.bounds.factions)):
        shipped = (post("reserves", f) < v("reserves", f)) & (post("tanks", f) <= v("tanks", f))
        free = c.stage_is("sneak") if f == M else c.stage_is("advisor") if f == bg else Const(False)
        if f == M and setup.enabled(c):  # Moritani's setup places forces from reserves for free (R1)
            free = free | c.stage_is("setup")
        ok = ok & implies(shipped & ~free, (post("spice", f) < v("spice", f)) & (post("bank") > v("bank")))
    return always_step("shipment-is-paid", ok, ("R41", "A25", "A3", "H17") + (("R1",) if setup.enabled(c) else ()),
                       "forces leave reserves for the board only as a shipment paid to the bank, or for free by "
                       "Sneak Attack and the BG advisor" + (" (and Moritani's setup, R1)" if setup.enabled(c) else ""))


def _entry_never_refunded(c: Ctx) -> Property:
    """H16, H17, R18, A3: the entry is committed before Terror opens; no Terror or alliance step gives the
    entrant back its payment or its forces."""
    v = c.v
    ok = Const(True)
    for f in c.rivals:
        ok = ok & implies(v("entrant").eq(f), (post("spice", f) <= v("spice", f))
                          & (post("reserves", f) <= v("reserves", f)))
    return always_step("entry-never-refunded", implies(c.stage_is(*TERROR_STAGES), ok), ("H16", "H17", "R18", "A3"),
                       "no Terror or alliance step refunds the entrant's spice or forces")


def _gift_is_a_transfer(c: Ctx) -> Property:
    """R40, H19, A12: the Sabotage gift moves one card from Moritani's hand to the entrant's."""
    v, M = c.v, c.M
    e = v("entrant")
    received = (post("hand", e) - v("hand", e)).eq(1)
    if c.chose(SABOTAGE_GIFT_OVERFLOW.FORCE_DISCARD):  # the recipient discards down to its limit at once
        received = received | (post("hand", e).eq(v("hand", e)) & v("hand", e).eq(c.hand_limit_param(e)))
    gives = post("hand", M) < v("hand", M)
    ok = implies(gives, delta(c, "hand", M).eq(-1) & received)
    return always_step("gift-is-a-transfer", implies(c.stage_is("sabotage_gift"), ok), ("R40", "H19", "A12"),
                       "the Sabotage gift is a card from Moritani's hand to the entrant's, not a discard")


def _robbery_half(c: Ctx) -> Property:
    """R39, A3: Robbery's spice is half the entrant's spice after its payment, rounded up, to Moritani."""
    v, M = c.v, c.M
    e = v("entrant")
    takes = post("spice", e) < v("spice", e)
    ok = implies(takes, (v("spice", e) - post("spice", e)).eq(half_up(v("spice", e)))
                 & delta(c, "spice", M).eq(half_up(v("spice", e))))
    return always_step("robbery-half", implies(c.stage_is("robbery"), ok), ("R39", "A3"),
                       "Robbery takes half the entrant's spice, rounded up, and Moritani gets all of it")


def _assassination_bounty(c: Ctx) -> Property:
    """R35: the Assassination victim's printed strength is paid to Moritani from the bank."""
    v, M = c.v, c.M
    ok = Const(True)
    for f in c.rivals:
        for j in range(len(c.bounds.leaders)):
            dies = v("leader", f, j) & ~post("leader", f, j)
            bounty = c.bounds.leaders[j]
            ok = ok & implies(dies, delta(c, "spice", M).eq(bounty) & delta(c, "bank").eq(-bounty))
    return always_step("assassination-bounty", implies(c.stage_is("assassinate"), ok), ("R35",),
                       "the Assassination victim's strength is paid to Moritani by the bank")


def _assassinate_forfeit(c: Ctx) -> Property:
    """R43, A28: once Moritani has called a Traitor card normally, no Assassinate Leaders reveal for the rest
    of the game."""
    held = c.TZone.index("held")
    reveals = c.any_of(~c.zone(t, "held") & post("trz", t).eq(held) for t in range(len(c.cards)))
    return always_step("assassinate-forfeit", ~(c.v("tr_called") & reveals), ("R43", "A28"),
                       "no Assassinate Leaders reveal after Moritani revealed a Traitor card normally this game")


def _ids_are_stable(c: Ctx) -> Property:
    """H4: public IDs rotate only for a token that returns to supply; the IDs of placed and removed tokens
    (and of the revealed Extortion in front of the shield) never change, moved or not."""
    v, S = c.v, c.Status
    ok = Const(True)
    for k in c.faces:
        kept = v("tstatus", k).ne(S.index("supply")) & post("tstatus", k).eq(v("tstatus", k))
        ok = ok & implies(kept, post("pid", k).eq(v("pid", k)))
    return always_step("ids-are-stable", ok, ("H4", "H3"),
                       "only a token returning to supply gets a new public ID; a token on the map keeps its own")


def _target_is_entrant(c: Ctx) -> Property:
    """R11, R19, R20, R35, R39, R40: Terror resolves against the entrant; the alliance is offered to it and
    answered by it; Robbery, Sabotage and Assassination act on it. The model's Terror and alliance steps
    name the faction they act on by the parameter `e` (model/moritani/terror.py, effects.py), so a step of
    a Terror entry naming any other faction acts on someone the rules do not name."""
    e = c.v("entrant")
    return always_step("target-is-entrant", implies(c.stage_is(*TERROR_STAGES), Arg("e", -1).eq(-1) | Arg("e", -1).eq(e)),
                       ("R11", "R19", "R20", "R35", "R39", "R40"),
                       "every Terror and alliance step acts on (or answers for) the entrant, and no other faction")


def _extortion_queue(c: Ctx) -> Property:
    """H25, A9: the payer queue is approached in storm order, one rival at a time: the cursor only moves on by
    one position while the window is open."""
    v = c.v
    moves = post("payer").ne(v("payer"))
    ok = implies(c.stage_is("extortion_pay") & post("stage").eq(v("stage")) & moves,
                 post("payer").eq(v("payer") + 1))
    return always_step("extortion-queue", ok, ("H25", "A9"),
                       "the Extortion payer queue moves on one rival at a time, in storm order, never back")


def _faults_and_progress(c: Ctx) -> list[Property]:
    """H1, H7, H9, H40: a reload or a retried action is rejected atomically (it changes nothing), and every
    other step changes the game (a step that changes nothing can be taken forever: the entry, or the
    game, never ends)."""
    from model.moritani import faults
    from model.moritani.state import schema
    fault_rules = tuple(sorted(r.name for r in faults.rules(c) if r.kind == "fault"))
    slots = [(f.name, idx) for f in schema(c).fields for idx in itertools.product(*(d.values for d in f.dims))]
    changes = c.any_of(post(name, *idx).ne(c.v(name, *idx)) for name, idx in slots)
    fault = Fired(fault_rules)
    return [always_step("faults-change-nothing", implies(fault, ~changes), ("H1", "H7", "H9"),
                        "a reload or a retried action is rejected without any change to the game"),
            always_step("every-step-progresses", fault | changes, ("H40",),
                        "every move of the game changes it: no step can be repeated forever in place")]


EFFECT_STAGES = {"Robbery": "robbery", "Assassination": "assassinate", "Sabotage": "sabotage_gift",
                 "Sneak Attack": "sneak"}


def _effect_follows_its_reveal(c: Ctx) -> Property:
    """R11, R14, R35, R39, R40, R41: a token's effect is resolved because that token is revealed: the step
    that opens an effect's resolution is the reveal of a token of that face."""
    v, S = c.v, c.Status
    ok = Const(True)
    for face, stage in EFFECT_STAGES.items():
        k = c.face(face)
        if k is None:
            continue
        revealed = v("tstatus", k).eq(S.index("placed")) & post("tstatus", k).eq(S.index("removed"))
        ok = ok & implies(becomes(c, "stage", c.st(stage)), revealed)
    return always_step("effect-follows-its-reveal", ok, ("R11", "R14", "R35", "R39", "R40", "R41"),
                       "an effect is resolved only by the reveal of a token with that face")


def _entry_closes(c: Ctx) -> Property:
    """H40, A1, H20: a Terror entry (its decision, the alliance offer and reply, the effect) ends only
    through its close, after which the arrival's remaining reactions resume: no step leaves it for
    another phase of the turn."""
    inside = c.stage_is(*TERROR_STAGES)
    # An engine exception inside the entry (a halting seeded defect) stops there: a deadlock, not a jump.
    stays = c.any_of(post("stage").eq(c.st(s)) for s in (*TERROR_STAGES, "entry_done", *c.halt_stages()))
    return always_step("entry-closes", implies(inside, stays), ("H40", "A1", "H20"),
                       "a Terror entry ends only through its close, never by a jump to another phase")


def _one_effect_per_reveal(c: Ctx) -> Property:
    """R11, R14, R39, R40, R41: a revealed token resolves its one effect once (Robbery: the spice or the
    card, not both; one gift; one Sneak Attack), read from the `effects_resolved` monitor."""
    return always("one-effect-per-reveal", c.v("effects_resolved") <= 1, ("R11", "R14", "R39", "R40", "R41"),
                  "each Terror entry delivers at most one effect")


def _turn_sequence(c: Ctx) -> Property:
    """The turn's sequence, where the rules fix it whatever the interpretation (E3 turn order; R11, R14,
    R37, H40): an entry's close follows its Terror resolution; an effect's resolution leads only to that
    close (Robbery's card through its discard); the Mentat Pause is entered only from the end of the
    turn's earlier phases, and its end leads only to the next turn or the end of the game."""
    stage, before = post("stage"), c.v("stage")
    enters = stage.ne(before)

    def into(*names):
        return enters & c.any_of(stage.eq(c.st(n)) for n in names)
    mentat = (*MENTAT_STAGES, "mentat_end")
    earlier = ("ship_move", "battle", "traitor_draw", "traitor_deal", "assassinate_offer") if c.module else ("ship_move",)
    if c.grumman:  # Spice Collection comes between Shipment & Movement and the Mentat Pause
        earlier = ("collection",)
    before_mentat = earlier + (("setup",) if setup.enabled(c) else ())  # the first Mentat Pause follows setup (R1)
    ok = implies(into("entry_done"), c.stage_is(*TERROR_STAGES)) \
        & implies(c.stage_is("robbery") & enters, into("entry_done", "robbery_discard", *c.halt_stages())) \
        & implies(c.stage_is("robbery_discard", "assassinate", "sabotage_gift", "sneak") & enters, into("entry_done")) \
        & implies(into(*mentat), c.stage_is(*mentat, *before_mentat)) \
        & implies(c.stage_is("mentat_end") & enters, into("storm", "bidding", "ship_move", "game_over", *earlier[1:],
                                                          *(("worm",) if c.worms else ()),
                                                          *(("revival",) if revival.enabled(c) else ())))
    if c.grumman:
        ok = ok & implies(into("collection"), c.stage_is("ship_move"))
    return always_step("turn-sequence", ok, ("R11", "R14", "R37", "H40"),
                       "an entry closes after its Terror resolution, an effect leads only to that close, and the "
                       "Mentat Pause comes at the end of the turn")


def _offer_state_is_this_entrys(c: Ctx) -> Property:
    """R21, R30, H8, H20, H24: the engine's record that this entry's alliance offer was cancelled by Karama or
    refused is exactly what happened in this entry (the `offer_blocked` and `refused` monitors), so no
    cancellation or refusal carries over to the next entry, and none is forgotten within one."""
    v = c.v
    ok = v("eome_blocked").eq(v("offer_blocked")) & v("eome_refused").eq(v("refused"))
    return always("offer-state-is-this-entrys", ok, ("R21", "R30", "H8", "H20", "H24"),
                  "a Karama cancellation or a refusal of the alliance offer holds for its own entry only")


def _nothing_pending_outside_its_window(c: Ctx) -> Property:
    """H1, H9, H20, H35, H40: what an engine keeps for a decision in progress (the declared placement, the
    Extortion queue's cursor and credit, the entry and its pending reactions, the alliance offer's
    state, the turn's used placement) is cleared when its window closes, so no later step (a reload
    above all, H1) can act on an obligation that no longer exists."""
    v = c.v
    arrival = ("react", "advisor", "ambassador", *TERROR_STAGES, "entry_done", *c.halt_stages())
    rest = {
        ("placement_karama",): {"pending_face": 0, "pending_dest": c.none_dest},
        ("extortion_pay",): {"payer": 0, "ext_credited": False},
        arrival: {"entrant": c.M, "entry_loc": c.desert, "entry_cause": 0, "entry_face": 0, "entry2": False,
                  "amb_payer": 0, "pend_advisor": 0, "pend_ambassador": False, "pend_terror": False}
        | intrusion.at_rest(c),
        (*TERROR_STAGES, "entry_done", *c.halt_stages()): {"eome_blocked": False, "eome_refused": False},
        (*MENTAT_STAGES, "mentat_end", "game_over"): {"placement_used": False},
    }
    ok = Const(True)
    for window, fields in rest.items():
        at_rest = c.all_of(v(name).eq(value) for name, value in fields.items())
        ok = ok & implies(~c.stage_is(*window), at_rest)
    return always("nothing-pending-outside-its-window", ok, ("H1", "H9", "H20", "H35", "H40"),
                  "a decision's pending state is cleared when its window closes")


def _placement_as_declared(c: Ctx) -> Property:
    """R7, R8, R29: the token that lands at the end of the placement's Karama window is the one Moritani
    declared, in the stronghold it declared (the `declared_face` and `declared_dest` monitors keep the
    declaring action's arguments)."""
    v = c.v
    ok = Const(True)
    for k in c.faces:
        lands = _placed(c, k, True) & (changed(c, "tstatus", k) | changed(c, "tloc", k))
        if c.grumman:  # a Grumman addition is not a declared placement (grumman-operation-legal checks it)
            lands = lands & ~c.stage_is("collection")
        ok = ok & implies(lands, v("declared_face").eq(k) & post("tloc", k).eq(v("declared_dest")))
    return always_step("placement-as-declared", ok, ("R7", "R8", "R29"),
                       "a placement lands the declared token in the declared stronghold")


def _actor_has_the_turn(c: Ctx) -> Property:
    """E3 turn order, R37, A9, H25, H40: in Shipment & Movement only the faction whose turn it is in storm
    order ships, moves or passes; in the Extortion queue only the rival it has reached pays, refuses or
    is skipped. The model names the acting faction of these steps by the parameter `f`."""
    f = Arg("f", -1)
    # A Karama card is played out of turn (R29, R30): a step that spends one is not a turn's action.
    karama = c.any_of(c.v("karama", g) & ~post("karama", g) for g in range(len(c.bounds.factions)))
    ok = implies(c.stage_is("ship_move") & f.ne(-1) & ~karama, c.at_position("mover", f))
    if c.face("Extortion") is not None:
        ok = ok & implies(c.stage_is("extortion_pay") & f.ne(-1), c.at_position("payer", f))
    return always_step("actor-has-the-turn", ok, ("R37", "A9", "H25", "H40"),
                       "only the faction whose turn it is (in storm order, or in the Extortion queue) acts")
