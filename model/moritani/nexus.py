"""Moritani's Nexus card and stacked Terror tokens: the optional module (bounds.nexus_card; R47, R48, A17, A19,
H10, H11, H41).

One card, two uses (R48). Held by Moritani, unallied, it is **Cunning**: one earned Mentat placement may go
to a stronghold that already holds a token, making a stack; it adds no placement, and the card is spent
when the placement is declared, so a Karama cancellation consumes the opportunity and the card. Held by an
unallied rival it is **Betrayal**: one board token, named by its public ID, goes back to Moritani's supply
unrevealed, the supply's public IDs rotate (H4) and Moritani's placement opportunity is untouched. The
treachery.online engine lost the returned token before its v169 (`NexusPlayed.cs`, issue #79): the token
must arrive in supply.

Entries into a stack (R47, A17, switch `stack-reveal`) are model/moritani/stacks.py.

Modelling choices (docs/checking.md, "Nexus card and stacks"): the holder is fixed by the bounds (the
Nexus phase that deals the card is not modelled) and public; Betrayal is played between Shipment &
Movement actions (Quintine/Dune: "a clean play boundary"), or under switch `betrayal-timing: any-time`
(treachery.online: at almost any time) also while an arrival's reactions are pending, before its Terror
decision opens; strongholds are the only territories, so Cunning's "any territory"
(A19: the Hidden Mobile Stronghold, other territories) reduces to an existing stack; switch
`cunning-reach` says whether it also enhances the Mentat move (treachery) or only a placement (Quintine).
Off (no `nexus_card`), this module adds no field, rule or property: the default model is unchanged.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["nexus-cunning"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if "cunning" in r.name)
['place_token_cunning']
"""
from __future__ import annotations

from model.domains import Bool, IntRange
from model.expr import Arg, Const, Param, implies, ite, post
from model.moritani import stacks
from model.moritani.config import BETRAYAL_TIMING, CUNNING_REACH, NEXUS_CARD_ON_ALLIANCE
from model.moritani.context import Ctx
from model.properties import Monitor, Property, always, always_step, sometimes
from model.rule import P, Rule
from model.schema import Field

IDS = ("R47", "R48", "A17", "A19")


def enabled(c: Ctx) -> bool:
    return c.nexus


def holder(c: Ctx) -> int | None:
    """The faction holding Moritani's Nexus card at the start, or None."""
    return c.fac(c.bounds.nexus_card) if c.nexus else None




def fields(c: Ctx) -> tuple:
    if not enabled(c):
        return ()
    return (Field("nexus_holder", c.Ally, doc="who holds Moritani's Nexus card (public), or none once played"),)


def initial(c: Ctx) -> dict:
    return {"nexus_holder": holder(c)} if enabled(c) else {}




def _card_spent(c: Ctx, by):
    """The step takes Moritani's Nexus card out of `by`'s hand."""
    return c.v("nexus_holder").eq(by) & post("nexus_holder").eq(c.none_ally)


def cunning_rules(c: Ctx, declare_guard, declare) -> list[Rule]:
    """Cunning: the Mentat placement (or, under A19 placement-and-move, the move) onto another token.

    `declare_guard(k, to)` and `declare(k, to)` are the ordinary declaration's guard (without its
    empty-destination test) and effects (model/moritani/mentat.py)."""
    if holder(c) != c.M:
        return []
    v, M = c.v, c.M
    k, to = Param("k"), Param("to")
    play = v("nexus_holder").eq(M) & v("ally", M).eq(c.none_ally)
    if c.has("cunning-while-allied"):  # the bug: the card's "unallied" condition is not checked
        play = v("nexus_holder").eq(M)
    spend = {} if c.has("cunning-card-kept") else {("nexus_holder", ()): c.none_ally}
    onto = to.ne(c.none_dest) & c.any_token_at(to)
    who = (P("k", c.K), P("to", c.Dest))
    rules = [Rule("place_token_cunning", who,
                  declare_guard(k, to) & play & v("tstatus", k).eq(c.Status.index("supply")) & onto,
                  declare(k, to) | spend, ("R48", "R47", "R9", "H11"), actor=Const(M),
                  doc="Nexus Cunning: Moritani declares a hidden token from supply for a stronghold that already "
                      "holds one (a stack); the card is spent now, so Karama cancels both")]
    if c.chose(CUNNING_REACH.PLACEMENT_AND_MOVE):
        rules.append(Rule("move_token_cunning", who,
                          declare_guard(k, to) & play & v("tstatus", k).eq(c.Status.index("placed"))
                          & v("tloc", k).ne(to) & onto,
                          declare(k, to) | spend, ("R48", "R47", "R10", "A19", "H11"), actor=Const(M),
                          doc="Nexus Cunning on the Mentat move: a placed token joins another token"))
    return rules


def betrayal_rules(c: Ctx) -> list[Rule]:
    """Betrayal: an unallied rival holding the card returns one board token to supply, unrevealed."""
    h = holder(c)
    if h is None or h == c.M:
        return []
    v = c.v
    k = Param("k")
    # Between Shipment & Movement actions; under `any-time` also while an arrival's reactions wait (before its
    # Terror decision opens).
    stages = ("ship_move", "react") if c.chose(BETRAYAL_TIMING.ANY_TIME) else ("ship_move",)
    when = c.stage_is(*stages) & v("nexus_holder").eq(h) & v("ally", h).eq(c.none_ally)
    to = "removed" if c.has("betrayal-loses-token") else "supply"  # the bug: treachery.online before v169
    eff = {("tstatus", (k,)): c.Status.index(to), ("tloc", (k,)): c.none_dest, ("nexus_holder", ()): c.none_ally}
    if not c.has("betrayal-keeps-id"):
        eff |= c.rotate_ids(k)
    if c.has("betrayal-uses-placement"):  # the bug: the return is handled as Moritani's own placement
        eff |= {("placement_used", ()): True}
    return [Rule("betrayal", (P("k", c.K),), when & v("tstatus", k).eq(c.Status.index("placed")), eff,
                 ("R48", "H41", "H12", "H4"), actor=Const(h),
                 doc="Nexus Betrayal: the rival returns the token it names by public ID to Moritani's supply "
                     "without revealing it; the supply's public IDs rotate")]








def rules(c: Ctx) -> list[Rule]:
    return betrayal_rules(c)


# -- history, properties and witnesses -------------------------------------------------------

def monitors(c: Ctx) -> list[Monitor]:
    """`cunning_played`: Moritani's Nexus card has left its hand (from the card's custody, not a rule's flag),
    then the stack monitors (model/moritani/stacks.py)."""
    out = []
    if holder(c) == c.M:
        out.append(Monitor(Field("cunning_played", IntRange(0, 1), doc="Moritani has played its Nexus card"),
                           0, ite(_card_spent(c, c.M), 1, c.v("cunning_played")), ("R48",)))
    if discards(c):
        formed = c.any_of(c.v("nexus_holder").eq(f) & _allies_now(c, f) for f in range(len(c.bounds.factions)))
        out.append(Monitor(Field("nexus_allied", Bool(), doc="the Nexus card's holder has formed an alliance"),
                           False, c.v("nexus_allied") | formed, ("R48", "R20")))
    return out + stacks.monitors(c)


def properties(c: Ctx) -> list[Property]:
    if not enabled(c):
        return stacks.properties(c)
    v, M = c.v, c.M
    out = []
    cunning = v("cunning_played").eq(1) if holder(c) == M else Const(False)
    if not c.grumman:  # with the Grumman module stacks have a second cause: `stack-made-legally` checks both
        out.append(always("stacks-only-by-cunning", (stacks.pairs(c) <= 1) & implies(stacks.sharing(c), cunning),
                          ("R8", "R47", "R48", "H11"),
                          "two tokens share a stronghold only after Moritani has played its Nexus card as "
                          "Cunning, and one Cunning makes one pair"))
    if holder(c) == M:
        to = Arg("to", -1)
        legal = c.stage_is("mentat_place") & v("ally", M).eq(c.none_ally) & c.any_token_at(to)
        out.append(always_step("cunning-legal", implies(_card_spent(c, M) & ~_discarded(c, M), legal), ("R48", "H11"),
                               "Moritani's Nexus card is spent only on a Mentat declaration onto another token, "
                               "while Moritani is unallied"))
    h = holder(c)
    if h is not None and h != M:
        out.append(always_step("betrayal-returns-to-supply", implies(_card_spent(c, h) & ~_discarded(c, h),
                                                                     _betrayal_ok(c)),
                               ("R48", "H41", "H12", "H4"),
                               "Betrayal returns exactly one board token to supply, unrevealed, and touches "
                               "nothing else of Moritani's (the placement opportunity, the stage)"))
    if discards(c):
        out.append(always("nexus-card-discarded-on-alliance", implies(v("nexus_allied"), v("nexus_holder").eq(c.none_ally)),
                          ("R48", "R20"), "a Nexus card whose holder has formed an alliance is discarded: nobody "
                          "holds it any more (nexus-card-on-alliance: discarded)"))
    return out + stacks.properties(c)


def discards(c: Ctx) -> bool:
    """Forming an alliance discards the Nexus card (switch nexus-card-on-alliance: discarded)."""
    return enabled(c) and c.chose(NEXUS_CARD_ON_ALLIANCE.DISCARDED)


def _allies_now(c: Ctx, f: int):
    """The step gives faction f a new ally (an alliance forms), read from the alliances, not a rule's flag."""
    return post("ally", f).ne(c.none_ally) & post("ally", f).ne(c.v("ally", f))


def _discarded(c: Ctx, f: int):
    """Under `discarded`, f's card leaves its hand because f forms an alliance in this step (not a play)."""
    return _allies_now(c, f) if discards(c) else Const(False)


def alliance_effects(c: Ctx, e) -> dict:
    """Effects of an accepted alliance between Moritani and entrant e on the Nexus card (switch
    nexus-card-on-alliance): under `discarded` both partners discard theirs (treachery.online
    `Game.MakeAlliance`, Shared/Game_Alliances.cs:45-52; issue 33)."""
    if not discards(c) or c.has("nexus-kept-on-alliance"):
        return {}
    h = c.v("nexus_holder")
    return {("nexus_holder", ()): ite(h.eq(c.M) | h.eq(e), c.none_ally, h)}


def card_lemmas(c: Ctx) -> list[Property]:
    """Stage-consistency lemma of the module (model/moritani/lemmas.py): the card is with its first holder
    or played, and (held by Moritani) `cunning_played` records exactly that it left Moritani's hand."""
    if not enabled(c):
        return []
    v, h = c.v, holder(c)
    ok = v("nexus_holder").eq(h) | v("nexus_holder").eq(c.none_ally)
    if h == c.M:
        ok = ok & v("nexus_holder").eq(h).eq(v("cunning_played").eq(0))
    return [always("nexus-card-custody", ok, ("R48",),
                   "Moritani's Nexus card is with its first holder until played, then gone")]


def _betrayal_ok(c: Ctx):
    v, S = c.v, c.Status
    placed, supply = S.index("placed"), S.index("supply")
    moved = [v("tstatus", k).eq(placed) & post("tstatus", k).eq(supply) & post("tloc", k).eq(c.none_dest)
             for k in c.faces]
    still = [post("tstatus", k).eq(v("tstatus", k)) & post("tloc", k).eq(v("tloc", k)) for k in c.faces]
    exactly_one = c.any_of(moved[k] & c.all_of(still[j] for j in c.faces if j != k) for k in c.faces)
    return (exactly_one & post("placement_used").eq(v("placement_used")) & post("stage").eq(v("stage")))


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    v, M = c.v, c.M
    k = Param("k")
    out = []
    if holder(c) == M:
        moves = c.chose(CUNNING_REACH.PLACEMENT_AND_MOVE)
        fires = ("place_token_cunning",) + (("move_token_cunning",) if moves else ())
        stacked = stacks.others_at(c, k, v("entry_loc"))
        lower = c.any_of(c.token_at(j, v("entry_loc")) & (Const(j) < k) for j in c.faces)
        out += [
            sometimes("witness-cunning-stack", fires=fires, rules=("R48", "R47")),
            sometimes("witness-stack-entry", fires=("open_terror",), when=stacked, rules=("R47", "A17")),
            sometimes("witness-stack-any-token", fires=("open_terror",), when=lower, rules=("R47", "H10"),
                      doc="an entry into a stack opens a token other than the first in the engine's order"),
        ]
        if stacks.all_in_turn(c):
            out.append(sometimes("witness-stack-reopened", fires=("open_terror",), when=v("entry_decisions") >= 1,
                                 rules=("R47", "A17"), doc="the decision reopens for the token left after a reveal"))
    h = holder(c)
    if h is not None and h != M:
        out.append(sometimes("witness-betrayal", fires=("betrayal",), rules=("R48",)))
        if c.chose(BETRAYAL_TIMING.ANY_TIME):
            out.append(sometimes("witness-betrayal-before-decision", fires=("betrayal",),
                                 when=c.stage_is("react") & v("pend_terror") & v("tloc", k).eq(v("entry_loc")),
                                 rules=("R48", "H35"), doc="Betrayal takes the token an arrival's pending Terror "
                                                            "decision was owed for: the decision lapses"))
    return out
