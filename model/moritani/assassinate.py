"""Advanced Assassinate Leaders: the optional module (bounds.assassinate_leaders; R32, R42, R43, A6, A28).

A separate ability from the Terror Assassination token (R42): after Moritani loses a normal battle
(no traitor called) against a surviving leader, it may reveal a Traitor card it holds for the
opponent's faction naming a *different* leader (R43). A living named leader goes to the Tanks and
Moritani takes its printed strength from the bank, once; an already dead one is still a legal reveal
that pays nothing. The revealed card stays held until the Mentat Pause, where it is set aside face
up as that faction's permanent used marker and Moritani draws one private replacement (switch A6
orders that draw against the placement and Extortion). One use per opposing faction; forfeited for
the rest of the game once Moritani has revealed a Traitor card normally (A28). No Karama window
opens on the decision (R32).

Modelling choices (docs/checking.md, "Assassinate Leaders"):

- One Traitor card per rival leader; each is in exactly one zone (`trz`): the reserve deck,
  Moritani's private hand, Moritani's hand face up after a normal call, revealed and held until
  the Mentat Pause, or set aside as a used marker. Rivals' own Traitor hands are not modelled.
  Moritani holds one card: the first step deals it from the deck (a private random draw).
- The battle is abstract: at most one per turn, between Shipment & Movement and the Mentat Pause.
  Moritani either fights none, loses one against a rival's surviving leader disc, or wins one by
  calling its held Traitor card normally (the leader goes to the Tanks, the strength is paid, the
  card stays in Moritani's hand face up, and the ability is forfeited for the game).
- Every publicly qualifying loss (the ability not forfeited and the opponent's faction not yet
  used: both public) opens the same reveal-or-continue decision, whatever cards Moritani holds;
  the candidate cards are Moritani's private options (`rulecheck leaks` checks it).
"""
from __future__ import annotations

from model.expr import Const, Param, ite
from model.moritani.context import Ctx
from model.moritani.mentat import after_draw, first_mentat_stage
from model.rule import P, Rule


def _usable(c: Ctx, e, j, zones=("hand",)):
    """Moritani holds a card (in `zones`) of faction e naming a leader other than j (expressions)."""
    return c.any_of(c.any_of(c.zone(t, z) for z in zones) & Const(f).eq(e) & Const(lj).ne(j)
                    for t, (f, lj) in enumerate(c.cards))


def deal_rules(c: Ctx) -> list[Rule]:
    t = Param("t")
    return [Rule("deal_traitor", (P("t", c.T),), c.stage_is("traitor_deal") & c.zone(t, "deck"),
                 {("trz", (t,)): c.TZone.index("hand"), ("stage", ()): c.st(first_mentat_stage(c))},
                 ("R43",), kind="system", doc="Moritani draws its secret Traitor card from the reserve deck")]


def battle_rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    e, j, t = Param("e"), Param("j"), Param("t")
    at = c.stage_is("battle")
    after = c.st(first_mentat_stage(c))
    qualifies = ~v("tr_forfeit")
    if not c.has("used-marker-ignored"):
        qualifies = qualifies & ~v("tr_used", e)
    if c.has("assassinate-offer-needs-card"):
        # The leak: the decision opens only when Moritani holds a usable card, which rivals then learn.
        qualifies = qualifies & _usable(c, e, j, ("hand", "shown"))
    opens = qualifies
    ef, ej = c.card_fac(t), c.card_lead(t)
    return [
        Rule("no_battle", (), at, {("stage", ()): after}, (), kind="system",
             doc="Moritani fights no battle this turn"),
        Rule("lose_battle", (P("e", c.F), P("j", c.Leader)),
             at & e.ne(M) & v("ally", M).ne(e) & v("leader", e, j),
             {("tr_opp", ()): ite(opens, e, 0), ("tr_leader", ()): ite(opens, j, 0),
              ("stage", ()): ite(opens, c.st("assassinate_offer"), after)},
             ("R43", "A28"), kind="system",
             doc="Moritani loses a normal battle (no traitor called) against the rival's surviving leader "
                 "disc j; the reveal-or-continue decision opens whenever the loss publicly qualifies"),
        Rule("call_traitor", (P("t", c.T),),
             at & c.zone(t, "hand") & v("leader", ef, ej) & v("ally", M).ne(ef),
             {("leader", (ef, ej)): False, ("spice", (Const(M),)): v("spice", M) + c.strength(ej),
              ("bank", ()): v("bank") - c.strength(ej), ("trz", (t,)): c.TZone.index("shown"),
              ("tr_forfeit", ()): True, ("stage", ()): after},
             ("R43", "A28"), actor=Const(M),
             doc="Moritani reveals its Traitor card normally and wins: the leader goes to the Tanks, its "
                 "strength is paid, and Assassinate Leaders is forfeited for the rest of the game (A28)"),
    ]


def offer_rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    t = Param("t")
    at = c.stage_is("assassinate_offer")
    ef, ej = c.card_fac(t), c.card_lead(t)
    alive = v("leader", ef, ej)
    bounty = ite(alive, c.strength(ej), 0)
    settle = {("tr_opp", ()): 0, ("tr_leader", ()): 0, ("stage", ()): c.st(first_mentat_stage(c))}
    return [
        Rule("assassinate_leader", (P("t", c.T),),
             at & (c.zone(t, "hand") | c.zone(t, "shown")) & v("tr_opp").eq(ef) & v("tr_leader").ne(ej),
             {("trz", (t,)): c.TZone.index("held"), ("tr_used", (ef,)): True, ("tr_pending", ()): True,
              ("leader", (ef, ej)): False, ("spice", (Const(M),)): v("spice", M) + bounty,
              ("bank", ()): v("bank") - bounty} | settle,
             ("R43", "R42", "R32"), actor=Const(M),
             doc="Moritani reveals a held Traitor card of the opponent's faction naming a different leader: "
                 "a living leader goes to the Tanks and pays its strength once; a dead one pays nothing. "
                 "No Karama window opens (R32)"),
        Rule("continue_battle", (), at, settle, ("R43",), actor=Const(M),
             doc="Moritani continues without revealing (always legal: the candidates are private)"),
    ]


def draw_rules(c: Ctx) -> list[Rule]:
    """The Mentat replacement: the held card becomes a permanent used marker, one private card is drawn."""
    v = c.v
    t = Param("t")
    at = c.stage_is("traitor_draw")
    nxt = c.st(after_draw(c))
    retire_to = c.TZone.index("deck" if c.has("retired-card-reshuffled") else "marker")

    def retire() -> dict:
        eff = {}
        for u in range(len(c.cards)):
            held = c.zone(u, "held")
            eff[("trz", (Const(u),))] = ite(held, retire_to, v("trz", u))
        return eff | {("tr_pending", ()): False, ("stage", ()): nxt}

    deck_empty = ~c.any_of(c.zone(u, "deck") for u in range(len(c.cards)))
    rules = []
    rules.append(Rule("draw_replacement", (P("t", c.T),), at & v("tr_pending") & c.zone(t, "deck"),
                      _draw_effects(c, retire_to, nxt), ("R43", "A6"), kind="system",
                      doc="the revealed card is set aside face up as its faction's used marker; Moritani "
                          "draws one private replacement from the reserve deck"))
    rules.append(Rule("retire_no_draw", (), at & v("tr_pending") & deck_empty, retire(), ("R43",), kind="system",
                      doc="the revealed card is set aside; the reserve deck is empty, so nothing is drawn"))
    rules.append(Rule("no_draw", (), at & ~v("tr_pending"), {("stage", ()): nxt}, ("A6",), kind="system",
                      doc="no revealed card waits for a replacement"))
    return rules


def _draw_effects(c: Ctx, retire_to: int, nxt: int) -> dict:
    v = c.v
    t = Param("t")
    eff = {}
    for u in range(len(c.cards)):
        held = c.zone(u, "held")
        # The drawn card t was in the deck, so it is never the held one.
        eff[("trz", (Const(u),))] = ite(Const(u).eq(t), c.TZone.index("hand"), ite(held, retire_to, v("trz", u)))
    return eff | {("tr_pending", ()): False, ("stage", ()): nxt}


def rules(c: Ctx) -> list[Rule]:
    """The module's rules; none when bounds.assassinate_leaders is off."""
    if not c.module:
        return []
    return deal_rules(c) + battle_rules(c) + offer_rules(c) + draw_rules(c)
