"""History the properties need, kept by the kernel from each step (NOTE(monitors) in model/monitors.py).

No rule writes these slots. Each is computed from what a step does to the game (its pre-state, its
post-state, and where it must, which rule fired), from the rules text, so that a rule that
misbehaves without updating its own bookkeeping is still seen:

- `placements`: tokens placed or moved onto the map during this turn (R7, H1);
- `ext_credits`: 5-spice awards to Moritani during the Mentat Pause while the revealed Extortion is
  out (R37, H2);
- `effects_resolved`: steps of the current Terror entry that deliver an effect: spice or a card to
  Moritani, a card to the entrant, Moritani's forces out of reserves, a leader killed, the
  Extortion 5 reserved, the Aftermath laid (R11, R14, R39, R40, R41);
- `declared_face`, `declared_dest`: the token and stronghold Moritani named when declaring this
  Mentat placement or move, until the placement's Karama window closes (R7, R8, R29);
- `rng_draws`: random outcomes of the current Terror entry's effect: a leader killed, a card drawn
  or discarded at random, an Aftermath laid (H7);
- `pid_shown[face]`: the face's current public ID has been on the map (H4);
- `terror_due[faction]`: the stronghold a rival entered where a Terror token lay, until a Terror
  decision opens for that rival or the token is gone (R11, R12, H9, H35, A1);
- `ambassador_due`: an arrival in the Ecaz Ambassador's stronghold owes its reaction (A2, H9);
- `ambassador_reacted`: the Ambassador has reacted once, so it is set aside (E3 p.7; issue 33);
- `offer_blocked`, `refused`: this entry's Enemy of My Enemy offer was cancelled by Karama / refused
  by the entrant (H8, R21, H24);
- `allied_this_turn` (Basic ally separation only; model/moritani/separation.py): Moritani's alliance
  changed during this turn (R26, H22);
- `entry_begun` (worm-ride, revival and cross-ship modules): how the entry under way began, from the stage its forces
  arrived in (A24);
- with the Assassinate Leaders module: `tr_called` (a normal Traitor call happened) and
  `tr_retired[card]` (the card was set aside at a Mentat replacement) (R43, A28).

>>> from model.moritani.build import build_model
>>> sorted(m.field.name for m in build_model().monitors if not m.field.name.startswith("violated_"))[:4]
['allied_this_turn', 'ambassador_due', 'ambassador_reacted', 'declared_dest']
"""
from __future__ import annotations

from model.domains import Bool, IntRange
from model.expr import Arg, Const, Expr, Fired, count, ite, post
from model.moritani import crossship, grumman, relocation, revival, worms
from model.moritani.config import KARAMA_EOME_TIMING, SNEAK_ATTACK_IS_SHIPMENT
from model.moritani.context import MENTAT_STAGES, TERROR_STAGES, Ctx
from model.properties import Monitor
from model.schema import Field


def placed(c: Ctx, k, after: bool = False):
    st = post("tstatus", k) if after else c.v("tstatus", k)
    return st.eq(c.Status.index("placed"))


def changed(c: Ctx, name: str, *idx):
    """The step changes this slot. Monitors are written in terms of changes so that, bound to an action
    that leaves the slots alone, they fold to "unchanged" (model/monitors.py `simplify`)."""
    return post(name, *idx).ne(c.v(name, *idx))


def becomes(c: Ctx, name: str, value, *idx):
    """The step sets this slot to `value` (it held something else before)."""
    return changed(c, name, *idx) & post(name, *idx).eq(value)


def custody_changed(c: Ctx, k):
    return changed(c, "tstatus", k) | changed(c, "tloc", k)


def lands(c: Ctx, k):
    """This step puts face k on the map, or moves it to another stronghold."""
    return placed(c, k, True) & custody_changed(c, k)


def closes_entry(c: Ctx):
    """This step finishes a Terror entry (its remaining reactions resume)."""
    return c.stage_is("entry_done") & becomes(c, "stage", c.st("react"))


def new_turn(c: Ctx):
    return changed(c, "turn")


def monitors(c: Ctx) -> list[Monitor]:
    out = [_placements(c), _rng_draws(c), _pid_shown(c), _terror_due(c), _entry_history(c, "offer_blocked"),
           _entry_history(c, "refused"), _effects_resolved(c), *_declared(c)]
    if c.face("Extortion") is not None:
        out.append(_ext_credits(c))
    if c.fac("Ecaz") is not None and c.bounds.ambassador is not None:
        out += [_ambassador_reacted(c), _ambassador_due(c)]
    if c.module:
        out += _traitor_monitors(c)
    if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE):
        out.append(_karama_preempted(c))
    if worms.enabled(c) or revival.enabled(c) or crossship.enabled(c):
        out.append(_entry_begun(c))
    return out


def _entry_begun(c: Ctx) -> Monitor:
    """A24: how the entry under way began, read off the step that put the entrant's forces on the board (the
    stage it ran in: a worm ride, a revival onto the planet, else Shipment & Movement, where the action fired
    tells a Guild cross-ship from a movement), not off the arrival's
    own `entry_cause`, so that an arrival that mislabels its cause is still seen. Back to the first value
    whenever the turn returns to a stage an entry begins from."""
    v = c.v
    dom = c.Begun
    starts = tuple(s for s in ("ship_move", "worm", "revival") if s in c.Stage.labels)
    arrives = c.stage_is(*starts) & c.any_of(post("forces", f, h) > v("forces", f, h)
                                             for f in range(len(c.bounds.factions)) for h in c.holds)
    how: Expr = Const(0)
    for s, label in (("worm", "worm ride"), ("revival", "revival")):
        if label in dom.labels:
            how = ite(c.stage_is(s), dom.index(label), how)
    if crossship.enabled(c):  # the Guild's declared action: a cross-ship and a movement look alike on the board
        how = ite(crossship.cross_shipped(c), dom.index("cross-ship"), how)
    back = c.any_of(post("stage").eq(c.st(s)) for s in starts)
    update = ite(back, 0, ite(arrives, how, v("entry_begun")))
    return Monitor(Field("entry_begun", dom, doc="how the entry under way began (the stage its forces arrived in)"),
                   0, update, ("A24", "R17", "R11"))


def _karama_preempted(c: Ctx) -> Monitor:
    """A4 pre-emptive-phase: a rival spent a Karama card during Shipment & Movement (or during a worm ride's
    Terror decision in the Spice Blow) outside any Karama window (no placement, no offer is pending then),
    which prevents the alliance offer until the phase it was played in ends: the turn, or the Spice Blow,
    which ends when the stage leaves the rides for anything but an arrival's reactions (issue 33)."""
    v = c.v
    spent = c.any_of(v("karama", f) & ~post("karama", f) for f in range(len(c.bounds.factions)) if f != c.M)
    event = c.stage_is("ship_move", "terror") & spent
    ends = new_turn(c)
    if worms.enabled(c):
        ends = ends | (c.stage_is("worm") & post("stage").ne(c.st("worm")) & post("stage").ne(c.st("react")))
    return Monitor(Field("karama_preempted", Bool(), doc="a pre-emptive Karama against the offer in this phase"),
                   False, ite(ends, False, v("karama_preempted") | event), ("R30", "A4"))


def _placements(c: Ctx) -> Monitor:
    v = c.v
    landed = count(lands(c, k) for k in c.faces)
    if c.grumman:  # a Grumman Collection addition is not the Mentat placement (H11: its own receipt)
        landed = ite(c.stage_is("collection"), 0, landed)
    return Monitor(Field("placements", IntRange(0, 2), doc="tokens placed or moved onto the map this turn"),
                   0, ite(new_turn(c), 0, v("placements") + landed), ("R7", "H1", "H28"))


def _ext_credits(c: Ctx) -> Monitor:
    v, M = c.v, c.M
    ext = c.face("Extortion")
    out_now = v("tstatus", ext).eq(c.Status.index("extortion"))
    award = c.stage_is(*MENTAT_STAGES, "mentat_end") & out_now & (post("spice", M) - v("spice", M)).eq(5)
    settled = changed(c, "tstatus", ext) & post("tstatus", ext).ne(c.Status.index("extortion"))
    return Monitor(Field("ext_credits", IntRange(0, 2), doc="5-spice awards while this Extortion is out"),
                   0, ite(settled, 0, v("ext_credits") + ite(award, 1, 0)), ("R37", "H2"))


def _rng_draws(c: Ctx) -> Monitor:
    v, M = c.v, c.M
    n = len(c.bounds.factions)
    killed = c.any_of(v("leader", f, j) & ~post("leader", f, j) for f in range(n) for j in range(len(c.bounds.leaders)))
    drawn = c.stage_is("robbery") & (post("hand", M) > v("hand", M))
    discarded = c.stage_is("terror") & c.any_of(post("hand", f) < v("hand", f) for f in range(n))
    laid = v("aftermath").eq(c.none_dest) & post("aftermath").ne(c.none_dest)
    draw = c.stage_is(*TERROR_STAGES, "entry_done") & (killed | drawn | discarded | laid)
    return Monitor(Field("rng_draws", IntRange(0, 2), doc="random outcomes of this entry's effect (H7)"),
                   0, ite(closes_entry(c), 0, v("rng_draws") + ite(draw, 1, 0)), ("H7",))


def _effects_resolved(c: Ctx) -> Monitor:
    """R11, R14: one revealed token, one effect; R39: Robbery is spice *or* a card, never both."""
    v, M = c.v, c.M
    n = len(c.bounds.factions)
    e = v("entrant")
    killed = c.any_of(v("leader", f, j) & ~post("leader", f, j) for f in range(n) for j in range(len(c.bounds.leaders)))
    laid = v("aftermath").eq(c.none_dest) & post("aftermath").ne(c.none_dest)
    event = ((post("spice", M) > v("spice", M)) | (post("hand", M) > v("hand", M)) | (post("hand", e) > v("hand", e))
             | (post("reserves", M) < v("reserves", M)) | becomes(c, "ext_reserved", True) | killed | laid)
    now = v("effects_resolved")
    bump = ite(c.stage_is(*TERROR_STAGES) & event, ite(now >= 2, 2, now + 1), now)
    return Monitor(Field("effects_resolved", IntRange(0, 2), doc="effects delivered by this Terror entry"),
                   0, ite(closes_entry(c), 0, bump), ("R11", "R14", "R39", "R40", "R41"))


def _declared(c: Ctx) -> list[Monitor]:
    """What Moritani declared (the action's arguments), kept while its Karama window is open."""
    declares = Fired(("place_token", "move_token") + (("place_token_cunning", "move_token_cunning") if c.nexus else ())
                     + grumman.high_rules(c))
    window = post("stage").eq(c.st("placement_karama"))
    out = []
    for name, arg, dom, rest in (("declared_face", "k", c.K, 0), ("declared_dest", "to", c.Dest, c.none_dest)):
        update = ite(window, ite(declares, Arg(arg, rest), c.v(name)), rest)
        out.append(Monitor(Field(name, dom, doc=f"the {arg} of the placement Moritani declared"), rest, update,
                           ("R7", "R8", "R29")))
    return out


def _pid_shown(c: Ctx) -> Monitor:
    v = c.v
    update = {}
    for k in c.faces:
        update[(k,)] = ite(changed(c, "pid", k), placed(c, k, True), ite(lands(c, k), True, v("pid_shown", k)))
    return Monitor(Field("pid_shown", Bool(), (c.K,), doc="the face's current public ID has been on the map"),
                   False, update, ("H3", "H4"))


def _terror_due(c: Ctx) -> Monitor:
    """A rival that enters a stronghold where a token lies is owed a Terror decision there (R11), unless it
    is Moritani's ally (R12); the debt ends when a decision opens for it or the token has gone (H35)."""
    v, M = c.v, c.M
    update = {}
    for f in c.rivals:
        def enters(h, f=f):
            out = (post("forces", f, h) > v("forces", f, h)) & c.any_token_at(h) & v("ally", M).ne(f)
            if worms.enabled(c) and not worms.counts_for_terror(c):  # A24: a ride (in the worm stage) owes nothing
                out = out & ~c.stage_is("worm")
            if revival.enabled(c) and not revival.counts_for_terror(c):  # A24: nor a revival onto the planet
                out = out & ~c.stage_is("revival")
            if relocation.enabled(c) and not relocation.counts_for_terror(c):  # nor an Ambassador relocation
                out = out & ~c.stage_is("ambassador")
            return out & grumman.owed(c, f) if grumman.enabled(c) else out
        due = v("terror_due", f)
        opened = becomes(c, "stage", c.st("terror")) & post("entrant").eq(f)
        # The token it was owed for leaves (a stronghold holds one token at most: token-conservation).
        gone = c.any_of(placed(c, k) & v("tloc", k).eq(due) & custody_changed(c, k) for k in c.faces)
        if c.stacks:  # a stack (R47): the debt ends when no token is left there
            gone = ~c.any_of(placed(c, k, True) & post("tloc", k).eq(due) for k in c.faces)
        allied = becomes(c, "ally", f, M)
        out = ite(opened | gone | allied, c.none_dest, due)
        for h in reversed(c.holds):  # the first stronghold entered, in board order
            out = ite(enters(h), h, out)
        update[(f,)] = out
    return Monitor(Field("terror_due", c.Dest, (c.F,), doc="a Terror decision this rival has earned, where"),
                   c.none_dest, update, ("R11", "R12", "H9", "H35"))


def _ambassador_reacted(c: Ctx) -> Monitor:
    """The Ecaz Ambassador has reacted once: a step resolved its reaction (left the `ambassador` decision).
    E3 p.7: a triggered Ambassador is set aside, so it reacts to nothing after that (issue 33)."""
    return Monitor(Field("ambassador_reacted", Bool(), doc="the Ecaz Ambassador has reacted (it is set aside)"),
                   False, c.v("ambassador_reacted") | c.stage_is("ambassador"), ("A2", "R17"))


def _ambassador_due(c: Ctx) -> Monitor:
    """A shipment or movement into the Ambassador's stronghold by another faction than Ecaz or Ecaz's ally owes
    the Ambassador's reaction (A2), until it resolves (H9: a second reaction never overwrites it). An
    Atomics there returns the Ambassador to Ecaz (R36), and once it has reacted it is set aside (E3 p.7): arrivals
    after either owe nothing."""
    v = c.v
    assert c.bounds.ambassador is not None  # added only on bounds with an Ambassador (monitors() above)
    ecaz, amb = c.fac("Ecaz"), c.L.index(c.bounds.ambassador)
    standing = v("aftermath").ne(amb) & ~v("ambassador_reacted")
    arrival = c.stage_is("ship_move") & standing & c.any_of(
        (post("forces", f, amb) > v("forces", f, amb)) & v("ally", ecaz).ne(f)
        for f in range(len(c.bounds.factions)) if f != ecaz)
    # A14 arrival-checks: a positive Sneak Attack is an arrival the Ambassador reacts to
    if c.chose(SNEAK_ATTACK_IS_SHIPMENT.ARRIVAL_CHECKS):
        arrival = arrival | (c.stage_is("sneak") & standing & (post("forces", c.M, amb) > v("forces", c.M, amb))
                             & v("ally", c.M).ne(ecaz))
    resolved = becomes(c, "stage", c.st("ambassador"))
    return Monitor(Field("ambassador_due", Bool(), doc="an arrival owes the Ecaz Ambassador's reaction"),
                   False, ite(arrival, True, ite(resolved, False, v("ambassador_due"))), ("A2", "H9"))


def _entry_history(c: Ctx, name: str) -> Monitor:
    """What happened to this entry's alliance offer: cancelled by Karama, or refused by the entrant."""
    v = c.v
    if name == "offer_blocked":  # the Karama window leaves the offer without forming the alliance (R30, H8)
        event = c.stage_is("eome_karama") & becomes(c, "stage", c.st("terror"))
        ids, doc = ("R30", "H8"), "this entry's alliance offer was cancelled by Karama"
    else:  # the entrant answers without forming the alliance (R21, H24)
        event = (c.stage_is("eome_reply") & changed(c, "stage") & post("ally", c.M).ne(v("entrant"))
                 & post("stage").ne(c.st("eome_karama")))
        ids, doc = ("R21", "H24"), "the entrant refused this entry's alliance offer"
    return Monitor(Field(name, Bool(), doc=doc), False, ite(closes_entry(c), False, v(name) | event), ids)


def _traitor_monitors(c: Ctx) -> list[Monitor]:
    v = c.v
    shown = c.TZone.index("shown")
    called = c.any_of(~c.zone(t, "shown") & post("trz", t).eq(shown) for t in range(len(c.cards)))
    retired = {(t,): v("tr_retired", t) | (c.zone(t, "held") & post("trz", t).ne(c.TZone.index("held")))
               for t in range(len(c.cards))}
    return [
        Monitor(Field("tr_called", Bool(), doc="Moritani has called a Traitor card normally this game"),
                False, v("tr_called") | called, ("R43", "A28")),
        Monitor(Field("tr_retired", Bool(), (c.T,), doc="this card left its revealed-and-held state at the "
                      "Mentat replacement"), False, retired, ("R43",)),
    ]
