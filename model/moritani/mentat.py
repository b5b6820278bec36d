"""Mentat Pause, storm, bidding and the turn boundary.

The Mentat Pause holds two Moritani events whose order is switch A5 (three with the
Assassinate Leaders module: its replacement draw is ordered against them by switch A6):
the placement-or-move opportunity (R7-R10, R29, A13, H1, H28, H29) and the
Extortion collection and payer queue (R37, A8, A9, H2, H25, H26). Under
`unordered` (the printed rules fix no order) both are pending at a
`mentat_open` hub and the scheduler picks which resolves first: the
placement while it is unused, the Extortion while its 5 are reserved.
"""
from __future__ import annotations

from model.expr import Const, Param, ite
from model.moritani import deck, grumman, nexus, revival, separation, worms
from model.moritani.config import (ASSASSINATE_MENTAT_ORDER, EXTORTION_MENTAT_ORDER, EXTORTION_PAYERS, KARAMA_PLACEMENT,
                                   PLACEMENT_IN_AFTERMATH)
from model.moritani.context import Ctx
from model.rule import P, Rule


def hub_mode(c: Ctx) -> bool:
    """The Mentat events wait at the `mentat_open` hub: A5 is unordered, or (with the Assassinate
    Leaders module) A6 is, so the scheduler picks among the pending events under the other switch's order."""
    return c.chose(EXTORTION_MENTAT_ORDER.UNORDERED) or (c.module and c.chose(ASSASSINATE_MENTAT_ORDER.UNORDERED))


def _events_end(c: Ctx) -> str:
    """Where the Mentat Pause goes once placement and Extortion are done (A6 draw-last: the draw)."""
    return "traitor_draw" if c.module and c.chose(ASSASSINATE_MENTAT_ORDER.DRAW_LAST) else "mentat_end"


def _a5_first(c: Ctx) -> str:
    return {EXTORTION_MENTAT_ORDER.PLACEMENT_FIRST: "mentat_place",
            EXTORTION_MENTAT_ORDER.EXTORTION_FIRST: "extortion_collect"}[c.choice(EXTORTION_MENTAT_ORDER)]


def _after_placement(c: Ctx) -> str:
    if hub_mode(c):
        return "mentat_open"
    return {EXTORTION_MENTAT_ORDER.PLACEMENT_FIRST: "extortion_collect",
            EXTORTION_MENTAT_ORDER.EXTORTION_FIRST: _events_end(c)}[c.choice(EXTORTION_MENTAT_ORDER)]


def _after_extortion(c: Ctx) -> str:
    if hub_mode(c):
        return "mentat_open"
    return {EXTORTION_MENTAT_ORDER.PLACEMENT_FIRST: _events_end(c),
            EXTORTION_MENTAT_ORDER.EXTORTION_FIRST: "mentat_place"}[c.choice(EXTORTION_MENTAT_ORDER)]


def after_draw(c: Ctx) -> str:
    """Where the Mentat Pause goes after the Assassinate Leaders replacement draw (A6)."""
    if hub_mode(c):
        return "mentat_open"
    return _a5_first(c) if c.chose(ASSASSINATE_MENTAT_ORDER.DRAW_FIRST) else "mentat_end"


def first_mentat_stage(c: Ctx) -> str:
    """Where every Mentat Pause starts under switches A5 (and A6 with the Assassinate Leaders module)."""
    if hub_mode(c):
        return "mentat_open"
    if c.module and c.chose(ASSASSINATE_MENTAT_ORDER.DRAW_FIRST):
        return "traitor_draw"
    return _a5_first(c)


def hub_rules(c: Ctx) -> list[Rule]:
    """The pending Mentat events as a set the scheduler resolves, within the order the switches fix.

    Without the module this is A5 unordered: placement and Extortion in either order. With it, the
    replacement draw is a third event (A6); a switch that is not `unordered` still orders its pair
    (e.g. A6 draw-first: nothing else begins while the draw is pending).
    """
    if not hub_mode(c):
        return []
    v = c.v
    hub = c.stage_is("mentat_open")
    a5, a6 = c.choice(EXTORTION_MENTAT_ORDER), c.choice(ASSASSINATE_MENTAT_ORDER)
    place_g = hub & ~v("placement_used")
    ext_g = hub & v("ext_reserved")
    close_g = hub & v("placement_used") & ~v("ext_reserved")
    if a5 == EXTORTION_MENTAT_ORDER.EXTORTION_FIRST:
        place_g = place_g & ~v("ext_reserved")
    elif a5 == EXTORTION_MENTAT_ORDER.PLACEMENT_FIRST:
        ext_g = ext_g & v("placement_used")
    rules = []
    if c.module:
        draw_g = hub & v("tr_pending")
        if a6 == ASSASSINATE_MENTAT_ORDER.DRAW_FIRST:
            place_g, ext_g = place_g & ~v("tr_pending"), ext_g & ~v("tr_pending")
        elif a6 == ASSASSINATE_MENTAT_ORDER.DRAW_LAST:
            draw_g = draw_g & v("placement_used") & ~v("ext_reserved")
        close_g = close_g & ~v("tr_pending")
        rules.append(Rule("begin_draw", (), draw_g, {("stage", ()): c.st("traitor_draw")}, ("A6", "R43"),
                          kind="scheduler", doc="the Assassinate Leaders replacement draw resolves next"))
    return [
        Rule("begin_placement", (), place_g, {("stage", ()): c.st("mentat_place")},
             ("A5", "R9"), kind="scheduler", doc="the placement opportunity resolves next"),
        Rule("begin_extortion", (), ext_g, {("stage", ()): c.st("extortion_collect")},
             ("A5", "R37"), kind="scheduler", doc="the Extortion collection and payer queue resolve next"),
        Rule("close_mentat", (), close_g,
             {("stage", ()): c.st("mentat_end")}, ("A5",), kind="system",
             doc="every Mentat event is settled"),
    ] + rules


def placement_rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    K, Dest = P("k", c.K), P("to", c.Dest)
    k, to = Param("k"), Param("to")
    dest_ok = (to.ne(c.none_dest) & ~c.any_token_at(to))
    if c.has("placement-ignores-stack"):  # the bug: the placement no longer checks for a token there (R8)
        dest_ok = to.ne(c.none_dest)
    if c.chose(PLACEMENT_IN_AFTERMATH.FORBIDDEN):
        dest_ok = dest_ok & v("aftermath").ne(to)
    opportunity = ~v("placement_used")
    if c.has("recovery-reopens-placement"):  # the bug's other half: the step, once open, trusts itself (H28)
        opportunity = Const(True)
    # NOTE(final-mentat): a token placed in the last Mentat Pause could never be triggered within
    # the bound, so the bounded game does not offer that placement (it would only multiply states).
    live = Const(True) if c.unbounded else v("turn") <= c.bounds.turns
    declare = {("stage", ()): c.st("placement_karama"), ("pending_face", ()): k,
               ("pending_dest", ()): to, ("placement_used", ()): True}
    move = dict(declare)
    if c.has("move-not-recorded"):  # the bug: only a placement from supply records the opportunity used (H1)
        del move[("placement_used", ())]

    def declare_guard(k_, to_):  # the declaration's guard without the empty-destination test (Nexus Cunning)
        g = c.stage_is("mentat_place") & opportunity & live
        return g & v("aftermath").ne(to_) if c.chose(PLACEMENT_IN_AFTERMATH.FORBIDDEN) else g

    def declaration(k_, to_):
        return {("stage", ()): c.st("placement_karama"), ("pending_face", ()): k_,
                ("pending_dest", ()): to_, ("placement_used", ()): True}

    rules = (nexus.cunning_rules(c, declare_guard, declaration)
             + grumman.placement_rules(c, declare_guard, declaration)) + [
        Rule("place_token", (K, Dest), c.stage_is("mentat_place") & opportunity & live
             & v("tstatus", k).eq(c.Status.index("supply")) & dest_ok,
             declare, ("R7", "R8", "R9", "H29"), actor=Const(M),
             doc="Moritani declares a hidden token from supply for an empty stronghold; storm allowed"),
        Rule("move_token", (K, Dest), c.stage_is("mentat_place") & opportunity & live
             & v("tstatus", k).eq(c.Status.index("placed")) & v("tloc", k).ne(to) & dest_ok,
             move, ("R7", "R8", "R10"), actor=Const(M),
             doc="Moritani declares moving a placed token to another empty stronghold"),
        Rule("skip_placement", (), c.stage_is("mentat_place"),
             {("stage", ()): c.st(_after_placement(c)),
              ("placement_used", ()): True},
             ("R9",), actor=Const(M), doc="declining uses up the opportunity"),
    ]
    after_cancel = "mentat_place" if c.chose(KARAMA_PLACEMENT.RETRY) else _after_placement(c)
    f = Param("f")
    params: tuple[P, ...]
    params, guard, lands = (P("f", c.F),), c.stage_is("placement_karama") & f.ne(M) & v("karama", f), {}
    if c.has("karama-placement-still-commits"):  # the bug: the card is spent but the token lands anyway
        params, guard = params + (K,), guard & v("pending_face").eq(k)
        lands = {("tstatus", (k,)): c.Status.index("placed"), ("tloc", (k,)): v("pending_dest")}
    rules.append(Rule(
        "karama_placement", params, guard,
        {("stage", ()): c.st(after_cancel), ("karama", (f,)): False, ("pending_face", ()): 0}
        | ({} if c.has("cancelled-placement-kept") else {("pending_dest", ()): c.none_dest})
        | ({("placement_used", ()): False} if c.chose(KARAMA_PLACEMENT.RETRY) else {}) | lands,
        ("R29", "A13", "H29"), actor=f,
        doc="a rival plays Karama: the placement is cancelled, custody unchanged"))
    renumber: dict = {}
    if c.has("move-renumbers-token"):  # the bug: a move is handled as a removal and a new placement
        moved = v("tstatus", k).eq(c.Status.index("placed"))
        renumber = {("pid", (k,)): ite(moved, v("next_pid"), v("pid", k)),
                    ("next_pid", ()): v("next_pid") + ite(moved, 1, 0)}
    rules.append(Rule(
        "commit_placement", (K,), c.stage_is("placement_karama")
        & (v("tstatus", k).eq(c.Status.index("supply")) | v("pending_face").eq(k) if c.has("commit-any-supply-token")
           else v("pending_face").eq(k)),
        {("stage", ()): c.st(_after_placement(c)),
         ("tstatus", (k,)): c.Status.index("placed"), ("tloc", (k,)): v("pending_dest"),
         ("pending_face", ()): 0, ("pending_dest", ()): c.none_dest} | renumber,
        ("R7", "R8", "R10", "H1"), kind="system",
        doc="no Karama: the token is placed (or moved), hidden; nothing triggers (R10)"))
    return rules


def _eligible_payer(c: Ctx, f):
    """A8: who may pay to keep Extortion out of the game (never Moritani itself)."""
    v = c.v
    rule = c.choice(EXTORTION_PAYERS)
    out = f.ne(c.M)
    if rule == EXTORTION_PAYERS.EXCLUDE_ALLY:
        out = out & v("ally", c.M).ne(f)
    elif rule == EXTORTION_PAYERS.ENTRANT_ONLY:
        out = out & v("ext_entrant").eq(f)
    return out


def extortion_rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    ext = c.face("Extortion")
    n = len(c.bounds.factions)
    nxt = c.st(_after_extortion(c))
    if ext is None:
        return [Rule("no_extortion", (), c.stage_is("extortion_collect"), {("stage", ()): nxt},
                     ("R37",), kind="system")]
    settle = {("ext_credited", ()): False, ("payer", ()): 0, ("ext_entrant", ()): 0,
              ("stage", ()): nxt}
    rules = [
        Rule("collect_extortion", (), c.stage_is("extortion_collect") & v("ext_reserved"),
             {("spice", (Const(M),)): v("spice", M) + 5, ("ext_reserved", ()): False,
              ("ext_credited", ()): True,
              ("payer", ()): 0, ("stage", ()): c.st("extortion_pay")},
             ("R37", "H2", "A9"), kind="system",
             doc="the reserved 5 are credited to Moritani, then the payer queue opens in storm order"),
        Rule("no_extortion", (), c.stage_is("extortion_collect") & ~v("ext_reserved"),
             {("stage", ()): nxt}, ("R37",), kind="system"),
        Rule("recover_extortion", (), c.stage_is("extortion_pay") & v("payer").eq(n),
             {("tstatus", (Const(ext),)): c.Status.index("supply"), ("tloc", (Const(ext),)): c.none_dest}
             | ({} if c.has("ids-not-rotated") else c.rotate_ids(ext)) | settle
             | ({("stage", ()): Const(c.st("mentat_place"))}
                if c.has("recovery-reopens-placement") or c.has("recovery-reopens-step") else {}),
             ("R37", "H4", "H12", "H25", "H28"), kind="system",
             doc="nobody paid: Extortion returns to supply unrevealed, with fresh public IDs"),
    ]
    f = Param("f")
    elig = _eligible_payer(c, f)
    at = c.stage_is("extortion_pay") & c.at_position("payer", f)
    minted = c.has("extortion-payment-minted")
    rules += [
        Rule("pay_extortion", (P("f", c.F),), (c.stage_is("extortion_pay") if c.has("extortion-paid-out-of-turn")
                                                else at) & elig & (v("spice", f) >= 3),
             {("spice", (f,)): v("spice", f) - (0 if minted else 3), ("spice", (Const(M),)): v("spice", M) + 3,
              ("tstatus", (Const(ext),)): c.Status.index("removed")} | settle,
             ("R37", "A8", "H25"), actor=f, doc="a rival pays Moritani 3: Extortion stays out of the game"),
        Rule("refuse_extortion", (P("f", c.F),),
             (c.stage_is("extortion_pay") & (v("payer") < n) if c.has("refusal-out-of-turn") else at) & elig
             & ~Const(c.has("extortion-pass-missing")),
             {("payer", ()): v("payer") + (2 if c.has("extortion-queue-skips") else 1)}, ("R37", "H25"), actor=f),
        Rule("skip_payer", (P("f", c.F),), at & ~elig, {("payer", ()): v("payer") + 1},
             ("A8",), kind="system", doc="not an eligible payer under A8 (Moritani never pays itself)"),
    ]
    return rules


def turn_rules(c: Ctx) -> list[Rule]:
    v = c.v
    b = c.bounds
    shipping = worms.first_stage(c, "ship_move")  # Fremen's worm rides come first (bounds.worm_rides)
    shipping = revival.first_stage(c, shipping)  # and a revival onto the planet before them (bounds.revival)
    next_stage = c.st("storm" if b.storm else "bidding" if b.bidding else shipping)
    if c.has("turn-skips-shipment"):  # the bug: the new turn resumes at the Mentat Pause
        next_stage = c.st("mentat_place")
    # NOTE(unbounded): without a turn bound the turn field only tells the storm seat, which
    # cycles; every other per-turn fact is a flag reset here, so the state space stays finite
    # apart from the public-ID counter.
    last = len(b.factions) if c.unbounded else b.turns + 1
    nxt = ite(v("turn").eq(last), 1, v("turn") + 1) if c.unbounded else v("turn") + 1
    rules = [
        Rule("end_turn", (), c.stage_is("mentat_end") & (Const(True) if c.unbounded else v("turn") < last),
             {("turn", ()): nxt, ("stage", ()): next_stage, ("mover", ()): 0,
              ("placement_used", ()): False} | separation.turn_effects(c) | worms.turn_effects(c) | revival.turn_effects(c)
             # Seeded defect (A28's superseded "this turn" reading): the forfeiture lapses at turn end.
             | ({("tr_forfeit", ()): False} if c.has("forfeit-resets-each-turn") else {}),
             ("H26", "R9"), kind="system"),
    ]
    if not c.unbounded:
        rules.append(Rule("end_game", (), c.stage_is("mentat_end") & v("turn").eq(last),
                          {("stage", ()): c.st("game_over")}, (), kind="system"))
    if b.storm:
        rules.append(Rule("storm_moves", (P("to", c.Dest),), c.stage_is("storm"),
                          {("storm", ()): Param("to"), ("stage", ()): c.st("bidding" if b.bidding else shipping)},
                          ("R8", "R41"),
                          kind="system", doc="the storm settles over one stronghold or none"))
    if not b.bidding:
        return rules
    f = Param("f")
    guard, won = c.stage_is("bidding") & (v("hand", f) < c.hand_limit_param(f)), {("hand", (f,)): v("hand", f) + 1}
    if deck.enabled(c):  # a card is auctioned only if one can be drawn (the discard pile reshuffled if need be)
        guard, won = guard & deck.drew(c), deck.draw(c, f)
    rules.append(Rule("draw_card", (P("f", c.F),), guard, won | {("stage", ()): c.st(shipping)},
                      ("R5", "H33"), actor=f, doc="a faction wins the Treachery card (within its hand limit)"))
    rules.append(Rule("no_card", (), c.stage_is("bidding"), {("stage", ()): c.st(shipping)}, (),
                      kind="system"))
    return rules


def rules(c: Ctx) -> list[Rule]:
    return hub_rules(c) + placement_rules(c) + extortion_rules(c) + turn_rules(c)
