"""The Terror decision: reveal, decline, or offer Enemy of My Enemy (R11-R14, R19-R22, R30).

Karama timing on the offer is switch A4. A Karama-blocked offer is never
reopened for the same entry (H8); a refusal makes the reveal mandatory
(R21, H24); acceptance is one atomic, symmetric alliance change that returns
the exact pending token to supply with fresh IDs (R20, H12, H21).
"""
from __future__ import annotations

from model.expr import Const, Param, ite, minimum
from model.moritani import deck, homeworld, nexus, separation, stacks
from model.moritani.config import ASSASSINATION_WITHOUT_LEADER, EOME_WHEN_REVEAL_BLOCKED, KARAMA_EOME_TIMING
from model.moritani.context import Ctx
from model.rule import Effects, P, Rule


def reveal_possible(c: Ctx, face: int, e):
    """Can the token be revealed against entrant e? Assassination needs a living leader (A11), unless the
    interpretation lets it reveal and fizzle."""
    if face != c.face("Assassination") or c.chose(ASSASSINATION_WITHOUT_LEADER.FIZZLES):
        return Const(True)
    return c.any_of(c.v("leader", e, j) for j in range(len(c.bounds.leaders)))


def offer_gate(c: Ctx, face: int, e):
    """A21 `block-offer`, the engine gate: no offer whose refusal could not be resolved (the reveal it would force
    is not possible against entrant e); always true under `offer-anyway`. Read by the offer rules and by the
    possibilistic check's declared release (model/moritani/release.py)."""
    return reveal_possible(c, face, e) if c.chose(EOME_WHEN_REVEAL_BLOCKED.BLOCK_OFFER) else Const(True)


def _accept_effects(c: Ctx) -> dict:
    """Effects of a committed acceptance, for parameters e (entrant) and k (face)."""
    v, M = c.v, c.M
    e, k = Param("e"), Param("k")
    eff: Effects = {("ally", (Const(M),)): e}
    for g in range(len(c.bounds.factions)):
        if g == M:
            continue
        old = v("ally", g)
        broken = old if c.has("alliance-swap-one-sided") else ite(old.eq(M) | old.eq(e), c.none_ally, old)
        eff[("ally", (Const(g),))] = ite(Const(g).eq(e), M, broken)
    # The bug variants set the token aside (out of the game) instead of returning it to supply; the second
    # also keeps the stronghold it left in its record (a token dropped halfway: neither supply nor map).
    dropped = c.has("acceptance-drops-token")
    eff[("tstatus", (k,))] = Const(c.Status.index("removed" if c.has("acceptance-removes-token") or dropped
                                                  else "supply"))
    if not c.has("eome-duplicates-token") and not dropped:
        eff[("tloc", (k,))] = Const(c.none_dest)
    stack = stacks.accept_returns(c, k)  # A17 all-in-turn: every token of the stack goes back (k among them)
    if stack:
        eff.pop(("tstatus", (k,))), eff.pop(("tloc", (k,)), None)
        for j, there in stack.items():
            eff[("tstatus", (Const(j),))] = ite(there, c.Status.index("supply"), v("tstatus", j))
            eff[("tloc", (Const(j),))] = ite(there, c.none_dest, v("tloc", j))
    if not c.has("ids-not-rotated"):
        eff |= c.rotate_ids(k, stack or None)
    eff |= nexus.alliance_effects(c, e)
    if c.penalty_follows_current():
        # The penalty moves to the new ally (A10 alternative): trim its hand at once.
        lim = c.bounds.hand_limit - 1
        eff[("hand", (e,))] = ite(v("aftermath").ne(c.none_dest), minimum(v("hand", e), lim), v("hand", e))
        eff |= deck.discard(c, ite(v("aftermath").ne(c.none_dest), v("hand", e) - minimum(v("hand", e), lim), 0))
    eff[("stage", ())] = Const(c.st("entry_done"))
    return eff | separation.formed_effects(c)


def _decline_rules(c: Ctx) -> list[Rule]:
    """Moritani's decline (R13, R21): the token stays placed and hidden; and the seeded defects' variants."""
    v, M = c.v, c.M
    at = c.stage_is("terror")
    decline_guard = at & ~v("eome_refused")
    if c.has("refusal-declines"):
        decline_guard = at
    logged: Effects = {("declined_log", ()): v("entry_face")} if c.has("decline-logs-face") else {}
    params: tuple = ()
    if c.has("decline-refunds-shipment"):  # the bug: declining undoes the entrant's paid shipment
        ent, l = Param("e"), Param("l")
        params = (P("e", c.F), P("l", c.L))
        decline_guard = decline_guard & v("entrant").eq(ent) & v("entry_loc").eq(l) & (v("forces", ent, l) >= 1) \
            & v("entry_cause").eq(c.Cause.index("shipment")) & (v("bank") >= 1)
        logged = logged | {("forces", (ent, l)): v("forces", ent, l) - 1, ("reserves", (ent,)): v("reserves", ent) + 1,
                           ("spice", (ent,)): v("spice", ent) + 1, ("bank", ()): v("bank") - 1}
    closes: Effects = {} if c.has("decline-keeps-decision") else {("stage", ()): c.st("entry_done")}
    sneak = c.face("Sneak Attack")
    if c.has("decline-runs-sneak-attack") and sneak is not None:  # the bug: the face's follow-up runs anyway
        closes = {("stage", ()): ite(v("entry_face").eq(sneak), c.st("sneak"), c.st("entry_done"))}
    rules = [Rule("decline", params, decline_guard,
                  closes | logged,
                  ("R13", "R21", "H24"), actor=Const(M),
                  doc="Moritani keeps the token placed and hidden")]
    sabotage = c.face("Sabotage")
    if c.has("sabotage-kept-for-gift") and sabotage is not None:
        # The bug: a second, Sabotage-only way to decline, logged under its own name (a leak through a choice
        # offered, not withheld: decline stays enabled, so every permission holds).
        rules.append(Rule("keep_for_gift", params, decline_guard & v("entry_face").eq(sabotage), closes | logged,
                          ("R13", "R21", "H24"), actor=Const(M),
                          doc="engine bug: the Sabotage token's prompt also offers 'keep for the gift', a decline"))
    return rules


def rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    ecaz = c.fac("Ecaz")
    at = c.stage_is("terror")
    refused = v("eome_refused")
    rules = _decline_rules(c)
    timing = c.choice(KARAMA_EOME_TIMING)
    # the alliance forms at the entrant's reply
    before = timing in (KARAMA_EOME_TIMING.BEFORE_REPLY, KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE)
    window = timing != KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE  # a Karama window follows the offer (or the acceptance)
    e, k = Param("e"), Param("k")
    for face in c.faces:
        gate = offer_gate(c, face, e)
        if c.has("offer-gate-misses-sabotage") and face == c.face("Sabotage"):
            gate = Const(False)  # the bug: the gate's table of resolvable effects has no entry for Sabotage
        offer_guard = (at & v("entry_face").eq(face) & ~refused & v("entrant").eq(e)
                       & gate & c.alliance_change_allowed())
        if not c.has("karama-block-ignored"):
            offer_guard = offer_guard & ~v("eome_blocked")
        if not window:
            offer_guard = offer_guard & ~v("eome_prevented")
        if ecaz is not None and not c.has("offer-to-ecaz"):
            offer_guard = offer_guard & e.ne(ecaz)
        if homeworld.occupier(c) is not None:  # R23: not to the faction occupying Moritani's Homeworld
            offer_guard = offer_guard & homeworld.offer_allowed(c, e)
        rules.append(Rule(
            f"offer_alliance_{face}", (P("e", c.F),), offer_guard,
            {("stage", ()): c.st("eome_karama" if before and window else "eome_reply")},
            ("R19", "R22", "A21", "H34") + (("R23",) if homeworld.occupier(c) is not None else ()), actor=Const(M),
            doc="instead of revealing, Moritani offers the entrant an alliance (never to Ecaz)"))
    rules.append(_karama_on_offer(c, window))
    swap = (P("e", c.F), P("k", c.K))
    swap_guard = v("entrant").eq(e) & v("entry_face").eq(k) & e.ne(M)
    ids = ("R20", "H21", "H23", "H12", "H4", "A4")
    if before:
        rules += ([Rule("no_karama_eome", (), c.stage_is("eome_karama"), {("stage", ()): c.st("eome_reply")},
                        ("A4",), kind="system")] if window else []) + [
            Rule("accept_alliance", swap, c.stage_is("eome_reply") & swap_guard, _accept_effects(c),
                 ids, actor=e, doc="the entrant accepts: both old alliances break, the token returns"),
        ]
    else:
        rules += [
            Rule("accept_alliance", swap, c.stage_is("eome_reply") & swap_guard,
                 {("stage", ()): c.st("eome_karama")}, ("R20", "H23", "A4"), actor=e,
                 doc="the entrant accepts; the Karama window follows (A4 after-reply)"),
            Rule("no_karama_eome", swap, c.stage_is("eome_karama") & swap_guard, _accept_effects(c),
                 ids, kind="system"),
        ]
    refuse = {("eome_refused", ()): True, ("stage", ()): c.st("terror")}
    if c.has("refusal-declines"):
        refuse = {("eome_refused", ()): True, ("stage", ()): c.st("entry_done")}
    if c.has("reply-names-effect"):
        # The bug: the entrant's refuse option is labelled with the effect Moritani would then have
        # to reveal, read from the pending token: the prompt carries the hidden face.
        x = Param("x")
        rules.append(Rule("refuse_alliance", (P("x", c.Effect),), c.stage_is("eome_reply") & v("entry_face").eq(x),
                          refuse, ("R21", "H24"), actor=v("entrant"), doc="refusal, labelled with the effect"))
    else:
        rules.append(Rule("refuse_alliance", (), c.stage_is("eome_reply"), refuse, ("R21", "H24"),
                          actor=v("entrant"), doc="refusal: Moritani must now reveal"))
    return rules



def _karama_on_offer(c: Ctx, window: bool) -> Rule:
    """Karama against Enemy of My Enemy (R30, A4): in the window after the offer (or the acceptance), or
    pre-emptively, before Moritani decides, for the rest of the Shipment & Movement phase."""
    v, M = c.v, c.M
    f = Param("f")
    spend = {} if c.has("karama-card-kept") else {("karama", (f,)): False}
    if window:
        guard = c.stage_is("eome_karama") & f.ne(M) & v("karama", f)
        if c.has("no-karama-against-eome"):  # the bug (DuneBot): no Karama against the offer
            guard = guard & Const(False)
        return Rule(
            "karama_eome", (P("f", c.F),), guard,
            spend | {("eome_blocked", ()): True, ("stage", ()): c.st("terror")},
            ("R30", "A4", "H8"), actor=f, doc="a rival plays Karama: no alliance forms; revealing stays available")
    return Rule(
        "karama_eome_preempt", (P("f", c.F),),
        c.stage_is("ship_move", "terror") & f.ne(M) & v("karama", f) & ~v("eome_prevented"),
        spend | {("eome_prevented", ()): True},
        ("R30", "A4"), actor=f,
        doc="a rival (Moritani's ally too) plays Karama before Moritani decides: no alliance offer for the "
            "rest of this phase (Shipment & Movement, or the Spice Blow of a worm ride's decision)")
