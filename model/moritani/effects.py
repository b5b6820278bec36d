"""The six Terror effects and the close of an entry (R35-R41, A11, A12, A14, A31).

Random outcomes (the Assassination victim, the Sabotage discard, the Atomics
random discards, the Robbery draw) are nondeterministic choices of the
system, drawn once; the kernel's `rng_draws` monitor counts them from the
steps themselves so that a retry which draws again is caught (H7).
"""
from __future__ import annotations

from model.expr import Const, Div, Param, half_up, ite, minimum
from model.moritani import deck, intrusion, stacks, worms
from model.moritani.arrivals import advisor_eligible, ambassador_eligible
from model.moritani.config import ASSASSINATION_WITHOUT_LEADER, SABOTAGE_GIFT_OVERFLOW, SNEAK_ATTACK_IS_SHIPMENT
from model.moritani.context import Ctx
from model.moritani.terror import reveal_possible
from model.rule import Effects, P, Rule
from model.domains import IntRange


def _reveal(c: Ctx, face: str, extra_params: tuple, effects: dict, ids: tuple, doc: str) -> Rule:
    v = c.v
    k = c.face(face)
    e = Param("e")
    status = "extortion" if face == "Extortion" else "removed"
    which = v("entry_face").eq(k)
    if c.has("reveal-any-placed-token"):  # the bug: Moritani may reveal any of its placed tokens of that face
        which = v("tstatus", k).eq(c.Status.index("placed"))
    guard = c.stage_is("terror") & which & v("entrant").eq(e) & e.ne(c.M) & reveal_possible(c, k, e)
    eff = {("tstatus", (Const(k),)): c.Status.index(status), ("tloc", (Const(k),)): c.none_dest} | effects \
        | stacks.reveal_effects(c, k)
    return Rule(f"reveal_{face.lower().replace(' ', '_')}", (P("e", c.F),) + extra_params, guard, eff,
                ("R11", "R14", "H12") + ids, actor=Const(c.M), doc=doc)


def rules(c: Ctx) -> list[Rule]:
    """The reveal of every face in the bounds with its effect's own steps, then the close of an entry."""
    out = []
    for face, build in (("Assassination", _assassination), ("Atomics", _atomics), ("Extortion", _extortion),
                        ("Robbery", _robbery), ("Sabotage", _sabotage), ("Sneak Attack", _sneak_attack)):
        if c.face(face) is not None:
            out += build(c)
    out.append(Rule(
        "close_entry", (), c.stage_is("entry_done"),
        {("eome_refused", ()): False, ("stage", ()): worms.close_stage(c)}
        | ({} if c.has("karama-block-persists") else {("eome_blocked", ()): False}),
        ("H20", "H40"), kind="system",
        doc="the entry is finished; the arrival's remaining reactions resume once"))
    return out


def _assassination(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    e, j = Param("e"), Param("j")
    bounty: Effects = {("bank", ()): v("bank") - c.strength(j)}
    if c.has("bounty-paid-by-entrant"):  # the bug: the victim's owner pays what it can, not the bank
        bounty = {("spice", (e,)): v("spice", e) - minimum(v("spice", e), c.strength(j))}
    if c.has("bounty-overdraws-entrant"):  # the bug: the victim's owner pays the whole strength, held or not
        bounty = {("spice", (e,)): v("spice", e) - c.strength(j)}
    return [
        _reveal(c, "Assassination", (), {("stage", ()): c.st("assassinate")}, ("R35", "A11"),
                "Assassination: a random leader of the entrant goes to the Tanks"),
        Rule("assassinate", (P("e", c.F), P("j", c.Leader)),
             c.stage_is("assassinate") & v("entrant").eq(e) & e.ne(M) & v("leader", e, j),
             {("leader", (e, j)): False, ("spice", (Const(M),)): v("spice", M) + c.strength(j),
              ("stage", ()): c.st("react" if c.has("assassination-skips-close") else "entry_done")} | bounty,
             ("R35", "H31", "H7"), kind="system",
             doc="the random victim is one of the entrant's living leaders; Moritani takes its strength in spice"),
    ] + ([Rule("assassination_fizzles", (P("e", c.F),),
               c.stage_is("assassinate") & v("entrant").eq(e) & e.ne(M)
               & ~c.any_of(v("leader", e, j2) for j2 in range(len(c.bounds.leaders))),
               {("stage", ()): c.st("entry_done")}, ("R35", "A11"), kind="system",
               doc="the entrant has no living leader: the revealed Assassination kills nobody and pays nothing")]
         if c.chose(ASSASSINATION_WITHOUT_LEADER.FIZZLES) else [])


def _atomics(c: Ctx) -> list[Rule]:
    v, M, b = c.v, c.M, c.bounds
    l = Param("l")
    eff: Effects = {("aftermath", ()): l, ("atomics_ally", ()): v("ally", M), ("stage", ()): c.st("entry_done")}
    trims = []
    spared = None
    if c.advisors_coexist():
        if c.has("atomics-spares-advisors"):  # the bug: only the forces that occupy die, and advisors do not
            spared = c.fac("Bene Gesserit")
            eff[("forces", (Const(spared), l))] = v("advisors", l)
            eff[("tanks", (Const(spared),))] = v("tanks", spared) + v("forces", spared, l) - v("advisors", l)
        else:
            eff[("advisors", (l,))] = Const(0)  # every force there dies, advisors with the rest
    for f in range(len(b.factions)):
        if f == M and c.has("atomics-spares-moritani") or f == spared:  # the bug: only rivals' forces die
            continue
        eff[("forces", (Const(f), l))] = Const(0)
        if c.has("atomics-returns-forces-to-reserves"):  # the bug: the dead go back to reserves
            eff[("reserves", (Const(f),))] = v("reserves", f) + v("forces", f, l)
        else:
            eff[("tanks", (Const(f),))] = v("tanks", f) + v("forces", f, l)
        lim = b.hand_limit - 1
        hit = Const(True) if f == M else v("ally", M).eq(f)
        eff[("hand", (Const(f),))], lost = deck.trimmed(c, f, lim, hit)
        trims.append(lost)
    eff |= deck.discard(c, *trims)  # the trimmed cards go to the discard pile (finite deck only)
    if c.has("atomics-returns-to-supply"):  # the bug: the spent token goes back to supply for reuse
        eff[("tstatus", (Const(c.face("Atomics")),))] = Const(c.Status.index("supply"))
    r = _reveal(c, "Atomics", (P("l", c.Dest),), eff, ("R36", "A10", "H33"),
                "Atomics: every force in the stronghold dies; Aftermath; hand limits drop")
    return [Rule(r.name, r.params, r.guard & v("entry_loc").eq(l) & l.ne(c.none_dest), r.effects,
                 r.implements, actor=r.actor, doc=r.doc)]


def _extortion(c: Ctx) -> list[Rule]:
    v = c.v
    return [_reveal(c, "Extortion", (), {
        ("bank", ()): v("bank") - 5, ("ext_reserved", ()): True, ("ext_entrant", ()): Param("e"),
        ("stage", ()): c.st("entry_done")}, ("R37", "R38", "H2"),
        "Extortion: 5 bank spice wait in front of Moritani's shield until the Mentat Pause")]


def _robbery(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    e, done = Param("e"), c.st("entry_done")
    take = Div(v("spice", e), 2) if c.has("robbery-rounds-down") else half_up(v("spice", e))
    over = v("hand", M) + 1 > c.hand_limit(M)
    gains: Effects = {("spice", (Const(M),)): v("spice", M) + take}
    if c.has("robbery-pays-bank"):  # the bug: the robbed spice goes to the bank
        gains = {("bank", ()): v("bank") + take}
    elif c.has("robbery-rounding-to-bank"):  # the bug: Moritani gets half rounded down, the bank the odd one
        gains = {("spice", (Const(M),)): v("spice", M) + Div(v("spice", e), 2), ("bank", ()): v("bank") + take
                 - Div(v("spice", e), 2)}
    if c.has("robbery-discard-at-the-limit"):  # the bug: a draw that reaches the limit discards, `>=` for `>`
        over = v("hand", M) + 1 >= c.hand_limit(M)
    card: Effects = {("hand", (Const(M),)): v("hand", M) + 1, ("stage", ()): ite(over, c.st("robbery_discard"), done)}
    if c.has("robbery-card-lost"):  # the bug: the top card is taken off the deck and never reaches the hand
        del card[("hand", (Const(M),))]
    if deck.enabled(c):  # A16: the top card of a finite deck, if there is one
        reshuffle = deck.robbery_reshuffles(c)
        over = v("hand", M) + ite(deck.drew(c, reshuffle), 1, 0) > c.hand_limit(M)
        card = deck.draw(c, Const(M), reshuffle) | {("stage", ()): ite(over, c.st("robbery_discard"), done)}
        if c.has("robbery-draw-halts"):  # the bug (DuneBot): nothing to draw throws, and the game stops
            card |= {("stage", ()): ite(deck.drew(c, reshuffle), ite(over, c.st("robbery_discard"), done),
                                        c.st("halted"))}
    # Seeded defect `robbery-takes-both`: the spice taken, the engine leaves Robbery's whole choice open.
    taken: Effects = {} if c.has("robbery-takes-both") else {("stage", ()): done}
    return [
        _reveal(c, "Robbery", (), {("stage", ()): c.st("robbery")}, ("R39",),
                "Robbery: Moritani chooses half the entrant's spice or the top card"),
        Rule("rob_spice", (P("e", c.F),), c.stage_is("robbery") & e.ne(M)
             & (Const(True) if c.has("rob-any-rival") else v("entrant").eq(e))
             # A neutral last conjunct (it once held the defect's flag): it keeps every profile's model, and
             # so its digest, its stored lemmas and its Spacer certificates, exactly those of the issue-33 build.
             & Const(True),
             {("spice", (e,)): v("spice", e) - take,
              **taken} | gains, ("R39", "A3"), actor=Const(M),
             doc="half the entrant's spice, rounded up, after it paid for its shipment (A3)"),
        Rule("rob_card", (), c.stage_is("robbery"), card, ("R39", "H18") + (("A16",) if deck.enabled(c) else ()),
             actor=Const(M), doc="draw the top Treachery card even with a full hand; discard down if over"),
        Rule("robbery_discard", (), c.stage_is("robbery_discard"),
             {("hand", (Const(M),)): v("hand", M) - 1, ("stage", ()): done} | deck.discard(c, Const(1)), ("R39", "H18"),
             actor=Const(M)),
    ]


def _sabotage(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    e, done = Param("e"), c.st("entry_done")
    has = v("hand", e) > 0
    policy = c.choice(SABOTAGE_GIFT_OVERFLOW)
    fits = v("hand", e) + 1 <= c.hand_limit_param(e)
    gift_guard = c.stage_is("sabotage_gift") & v("entrant").eq(e) & e.ne(M) & (v("hand", M) >= 1)
    new_hand = v("hand", e) + 1
    if c.has("gift-discards"):  # the bug: the gift card is discarded instead of handed over
        new_hand = v("hand", e)
    if policy == SABOTAGE_GIFT_OVERFLOW.REJECT:
        gift_guard = gift_guard & fits
    elif policy == SABOTAGE_GIFT_OVERFLOW.FORCE_DISCARD:
        new_hand = minimum(v("hand", e) + 1, c.hand_limit_param(e))
    # A gift the entrant cannot keep (force-discard at its limit) goes to the discard pile (finite deck only).
    gift_discard = deck.discard(c, ite(fits, 0, 1)) if policy == SABOTAGE_GIFT_OVERFLOW.FORCE_DISCARD else {}
    return [
        _reveal(c, "Sabotage", (), {
            ("hand", (e,)): v("hand", e) - ite(has, 1, 0),
            ("stage", ()): ite(has, c.st("sabotage_gift"), c.st("halted")) if c.has("sabotage-empty-hand-halts")
            else c.st("sabotage_gift")}
            | deck.discard(c, ite(has, 1, 0)), ("R40", "H18"),
            "Sabotage: a random card of the entrant is discarded"),
        Rule("gift_card", (P("e", c.F),), gift_guard,
             {("hand", (Const(M),)): v("hand", M) - 1, ("hand", (e,)): new_hand, ("stage", ()): done} | gift_discard,
             ("R40", "A12", "H19"), actor=Const(M), doc="Moritani gives the entrant a card of its choice"),
        Rule("no_gift", (), c.stage_is("sabotage_gift"), {("stage", ()): done}, ("R40", "H19"),
             actor=Const(M)),
    ]


def _sneak_attack(c: Ctx) -> list[Rule]:
    v, M, b = c.v, c.M, c.bounds
    n, l = Param("n"), Param("l")
    cap = min(5, b.moritani_forces)
    positive_ok = v("storm").ne(l) & (c.occupants(l, exclude=(M,)) < 2)
    if c.advisors_coexist():
        # R25: like any arrival, not where Moritani's ally stands. When every force occupies, an ally there
        # already makes two occupants with the entrant (whose forces are there and who is never Moritani's
        # ally at a reveal), so the test only matters once BG advisors alone (an advisor's own entry) do not
        # occupy; `arrival-respects-occupancy` found the case.
        positive_ok = positive_ok & ~c.ally_blocks(M, l)
    if c.has("sneak-ignores-occupancy"):  # the bug: only the storm is checked
        positive_ok = v("storm").ne(l)
    adv = advisor_eligible(c, M, l) & (n > 0)
    eff = {("reserves", (Const(M),)): v("reserves", M) - n,
           ("forces", (Const(M), l)): v("forces", M, l) + n, ("stage", ()): c.st("entry_done")}
    if c.chose(SNEAK_ATTACK_IS_SHIPMENT.SHIPMENT):
        eff |= {("pend_advisor", ()): v("pend_advisor") + ite(adv, 1, 0)}
    elif c.chose(SNEAK_ATTACK_IS_SHIPMENT.ARRIVAL_CHECKS):
        # treachery.online: the Sneak Attack's arrival runs the arrival checks, so the Ecaz Ambassador reacts
        # to Moritani unless they are allies. One Ambassador reaction is pending at a time: with the
        # engine's order (A2 ambassador-first) the entry's own reaction has resolved before its Terror.
        ecaz = c.fac("Ecaz")
        amb = (ambassador_eligible(c, M, l) & (n > 0) & ~v("pend_ambassador")
               & (v("ally", M).ne(ecaz) if ecaz is not None else Const(True)))
        eff |= {("pend_ambassador", ()): v("pend_ambassador") | amb,
                ("amb_payer", ()): ite(amb, M, v("amb_payer"))}
    eff |= intrusion.on_sneak(c, l, n > 0)  # BG Intrusion (coexist only)
    return [
        _reveal(c, "Sneak Attack", (), {("stage", ()): c.st("sneak")}, ("R41",),
                "Sneak Attack: Moritani may send up to five reserves for free"),
        Rule("sneak_attack", (P("n", IntRange(0, cap)), P("l", c.L)),
             c.stage_is("sneak") & v("entry_loc").eq(l) & l.ne(c.desert) & (v("reserves", M) >= n)
             & ((n <= 0) | positive_ok),
             eff, ("R41", "A14", "A31", "H32"), actor=Const(M),
             doc="n reserves arrive for free; storm and occupancy block only positive amounts; Aftermath does not"),
    ]
