"""Ally separation at the end of each player's Shipment & Movement (R26, R27, A20, H22).

Allies may not enter a stronghold their ally occupies (R25), so in this model allies share a
stronghold only after an Enemy of My Enemy acceptance made the entrant Moritani's ally where Moritani
already stood, or when the BG advisor's free arrival lands beside its ally. The printed rules then
separate them; the switch `ally-separation` (A20) has the three readings the engines implement:

- `basic` (R26; Quintine/Dune's Basic mode, `quoteAlliedSeparation`): when a player ends its turn
  beside its ally and the ally has already moved this phase, the player's forces there go to the
  Tanks, except on the turn the alliance was formed (both partners' `allySinceTurn` equal the turn,
  H22; the model keeps that stamp as `ally_new`). Quintine/Dune counts BG advisors here too.
- `advanced` (R27 as printed, UR2.3; Quintine/Dune's Advanced mode): at the end of every player's
  turn its forces in a stronghold it shares with its ally go to the Tanks, whether or not the ally
  has moved, with no formation-turn exemption. BG advisors trigger nothing.
- `later-mover` (treachery.online `CheckIfForcesShouldBeDestroyedByAllyPresence`): as `basic`
  without the exemption: the player's shared forces go only once its ally has acted this phase.
  BG advisors trigger nothing.

In all three, Ecaz and its ally coexist and the open desert (many territories) is left out. BG counts
under `bg-advisors-occupy: coexist` only where it has fighters (`Ctx.present`); under `occupy` the model
does not record which BG forces are advisors (its only way beside an ally is the accompanying advisor,
which the model lets land there), so BG takes no part (docs/engines.md says so).

The separation is its own system step, one stronghold at a time, taken right after the player's
turn ends and before the next player acts (or the phase ends): the player that just finished is the
one at position `mover - 1`.

>>> from model.moritani.build import build_model
>>> m = build_model()
>>> [r.name for r in m.rules if r.name == "separate_allies"]
['separate_allies']
"""
from __future__ import annotations

from model.expr import Arg, Const, Expr, Fired, Param, implies, ite, lift, post
from model.moritani.config import ALLY_ENTRY, ALLY_SEPARATION
from model.moritani.context import Ctx
from model.properties import Monitor, Property, always_step, sometimes
from model.rule import P, Rule
from model.domains import Bool, IntRange
from model.schema import Field

IDS = ("R26", "R27", "A20", "H22")


def basic(c: Ctx) -> bool:
    return c.chose(ALLY_SEPARATION.BASIC)


def moritani_boards(c: Ctx) -> bool:
    """Can Moritani's forces reach a stronghold (shipped, or sent by a Sneak Attack)? Otherwise Moritani never
    shares one with its ally, and the formation stamp, which only Moritani's alliance uses, is left out."""
    b = c.bounds
    return b.moritani_forces >= 1 and (b.moritani_ships or c.face("Sneak Attack") is not None)


def graced(c: Ctx) -> bool:
    """The rules give a formation-turn grace that can matter: Basic, with Moritani able to reach a stronghold."""
    return basic(c) and moritani_boards(c)


def stamped(c: Ctx) -> bool:
    """The engine keeps the formation stamp: Basic, or the seeded defect `advanced-keeps-basic-grace` (an
    engine moved to Advanced that still honours the stamp)."""
    return (basic(c) or c.has("advanced-keeps-basic-grace")) and moritani_boards(c)


def counted(c: Ctx) -> tuple:
    """Factions whose forces take part in separation (Ecaz coexists; BG only when the model knows which of
    its forces are advisors)."""
    skip = {c.fac("Ecaz")}
    if not c.advisors_coexist():
        skip.add(c.fac("Bene Gesserit"))
    return tuple(f for f in range(len(c.bounds.factions)) if f not in skip)


def seats(c: Ctx, g: int) -> list:
    """(turn, position) of faction g in each turn's storm order."""
    return [(t, pos) for t in c.turns() for pos, h in enumerate(c.order(t)) if h == g]


def just_finished(c: Ctx, g: int):
    """Faction g is the player whose Shipment & Movement turn has just ended (position `mover - 1`)."""
    v = c.v
    return c.any_of(v("turn").eq(t) & v("mover").eq(pos + 1) for t, pos in seats(c, g))


def moves_on(c: Ctx):
    """The step moves play past the player that just finished: the next player acts, or the phase ends."""
    v = c.v
    return c.stage_is("ship_move") & (post("mover").ne(v("mover")) | post("stage").ne(v("stage")))


def _shares(c: Ctx, g: int, l: int, ignore_order: bool = False):
    """g and its ally both occupy l, and (except under `advanced`) the ally has already taken its turn."""
    v = c.v
    anyway = ignore_order or c.chose(ALLY_SEPARATION.ADVANCED)
    return c.present(g, l) & c.any_of(v("ally", g).eq(h) & c.present(h, l) & (Const(True) if anyway
                                                                              else c.before(h, g))
                                      for h in counted(c) if h != g)


def _grace(c: Ctx, g: int, formed_now, engine: bool = True):
    """Basic only: the pair is Moritani's alliance, formed this turn (`formed_now`: flag or monitor)."""
    if not (stamped(c) if engine else graced(c)):
        return Const(False)
    return formed_now & (Const(g == c.M) | c.v("ally", c.M).eq(g))


def due(c: Ctx, g: int, l: int, formed_now=None):
    """g just finished its turn beside its earlier-moving ally in stronghold l, with no exemption.

    `formed_now=None`: as the engine sees it (its stamp); otherwise as the rules say (the monitor)."""
    engine = formed_now is None
    formed_now = c.v("ally_new") if engine else formed_now
    if engine and c.has("separation-never"):  # the bug (DuneBot): no end-of-turn separation step at all
        return Const(False)
    ignore_order = engine and c.has("separation-ignores-order")  # the bug: the first of the pair to finish loses
    return (c.stage_is("ship_move") & just_finished(c, g) & _shares(c, g, l, ignore_order)
            & ~_grace(c, g, formed_now, engine) & ~(visit_pending(c) if engine else Const(False)))


def pending(c: Ctx):
    """A separation (or a visit's consequence) is owed before the next player acts (or the phase ends)."""
    return c.any_of(due(c, g, l) for g in counted(c) for l in c.holds) | visit_pending(c)


# -- entering a stronghold one's ally holds (switch ally-entry; R25, R26, R27, A20; issue 33) ------------------
#
# Under `refused` no shipment or movement enters where the mover's ally has forces (the model before issue 33).
# Otherwise the entry is legal, the engine records where (`visit`; under `ship-visitors` also how many forces
# came, `visit_n`), and right after the mover's turn ends a system step settles it: under `ship-visitors`
# (Quintine/Dune, Basic allied shipment) the visitors still there go to the Tanks if the ally is still there;
# under `ship-and-move` (treachery.online, `ChosenDestinationsWithAllies`) every force of the mover there goes if
# it still has an ally. The ally's forces count whatever their kind (treachery.online: AnyForcesIn, the rule
# AdvisorsDontConflictWithAlly is off with Moritani; Quintine/Dune: presenceAt).

def entry(c: Ctx):
    return c.choice(ALLY_ENTRY)


def ally_with_forces(c: Ctx, f, loc):
    """Faction f's ally (not an Ecaz pair: they coexist) has forces in `loc`, advisors included."""
    n, ecaz = len(c.bounds.factions), c.fac("Ecaz")
    out = c.any_of(c.v("ally", f).eq(g) & (c.v("forces", g, loc) > 0) for g in range(n) if g != ecaz)
    return out if ecaz is None else lift(f).ne(ecaz) & out


def entry_allowed(c: Ctx, moving: bool) -> bool:
    """May a shipment (moving=False) or a movement (True) enter where the ally is?"""
    e = entry(c)
    return e == ALLY_ENTRY.SHIP_AND_MOVE or (e == ALLY_ENTRY.SHIP_VISITORS and not moving)


def visit_fields(c: Ctx) -> tuple:
    if entry(c) == ALLY_ENTRY.REFUSED:
        return ()
    out: tuple[Field, ...] = (Field("visit", c.Dest, doc="engine: where the mover entered beside its ally this turn (none: nowhere)"),)
    if entry(c) == ALLY_ENTRY.SHIP_VISITORS:
        out += (Field("visit_n", IntRange(0, 5), doc="engine: how many forces it brought there (its visitors)"),)
    return out


def visit_initial(c: Ctx) -> dict:
    if entry(c) == ALLY_ENTRY.REFUSED:
        return {}
    return {"visit": c.none_dest} | ({"visit_n": 0} if entry(c) == ALLY_ENTRY.SHIP_VISITORS else {})


def visit_effects(c: Ctx, f, to, n, moving: bool) -> dict:
    """Effects of a shipment or movement of n forces of f into `to` that record a visit beside the ally."""
    if not entry_allowed(c, moving) or c.has("ally-visit-unrecorded"):
        return {}
    beside = ally_with_forces(c, f, to)
    out = {("visit", ()): ite(beside, to, c.none_dest)}
    if entry(c) == ALLY_ENTRY.SHIP_VISITORS:
        out[("visit_n", ())] = ite(beside, n, 0)
    return out


def settle_advisors(c: Ctx, g, l, left) -> dict:
    """coexist: the advisors at `l` once faction `g` keeps only `left` forces there. BG's advisors cannot
    outnumber its forces left; advisors left with no other faction's forces become fighters (R25, A25; the
    engines flip them right after the ally-presence losses: treachery.online `FlipBeneGesseritWhenAlone`)."""
    if not c.advisors_coexist():
        return {}
    v, bg = c.v, c.fac("Bene Gesserit")
    adv = v("advisors", l)
    company = c.any_of(ite(g.eq(f), left, v("forces", f, l)) > 0 for f in range(len(c.bounds.factions)) if f != bg)
    return {("advisors", (l,)): ite(g.eq(bg), ite(adv > left, left, adv), ite(company, adv, 0))}


def visit_pending(c: Ctx):
    if entry(c) == ALLY_ENTRY.REFUSED:
        return Const(False)
    return c.stage_is("ship_move") & c.v("visit").ne(c.none_dest)


def visit_rules(c: Ctx) -> list[Rule]:
    if entry(c) == ALLY_ENTRY.REFUSED:
        return []
    v = c.v
    g, l = Param("g"), Param("l")
    n = len(c.bounds.factions)
    here = v("forces", g, l)
    if entry(c) == ALLY_ENTRY.SHIP_VISITORS:
        lost = ite(ally_with_forces(c, g, l), ite(v("visit_n") < here, v("visit_n"), here), 0)
        clear = {("visit", ()): c.none_dest, ("visit_n", ()): 0}
    else:
        lost = ite(v("ally", g).ne(c.none_ally), here, 0)
        clear = {("visit", ()): c.none_dest}
    eff = {("forces", (g, l)): here - lost, ("tanks", (g,)): v("tanks", g) + lost} | clear
    eff |= settle_advisors(c, g, l, here - lost)
    guard = visit_pending(c) & l.eq(v("visit")) & c.any_of(g.eq(gi) & just_finished(c, gi) for gi in range(n))
    if c.has("visitors-of-anyone"):  # the bug: any faction at the recorded stronghold, not the one that finished
        guard = visit_pending(c) & l.eq(v("visit")) & (v("mover") >= 1)
    return [Rule("visitors_to_tanks", (P("g", c.F), P("l", c.L)), guard, eff, ("R25", "R26", "R27", "A20"), kind="system",
                 doc="the player that just finished entered beside its ally this turn: its visiting forces "
                     "(ship-visitors) or all its forces there (ship-and-move) go to the Tanks")]


def visit_monitor(c: Ctx) -> list[Monitor]:
    """Where each faction entered beside its ally (forces of the ally there, not an Ecaz pair) by shipment or
    movement in this phase, read from the forces (none: nowhere). Reset when the turn changes."""
    if entry(c) == ALLY_ENTRY.REFUSED:
        return []
    v, n = c.v, len(c.bounds.factions)
    update = {}
    for f in range(n):
        out = v("visited", f)
        for h in c.holds:
            came = c.stage_is("ship_move") & (post("forces", f, h) > v("forces", f, h)) & ally_with_forces(c, Const(f), h)
            out = ite(came, h, out)
        update[(f,)] = ite(post("turn").ne(v("turn")), c.none_dest, out)
    return [Monitor(Field("visited", c.Dest, (c.F,), doc="where this faction entered beside its ally this phase"),
                    c.none_dest, update, ("R25", "R26", "R27"))]


def visit_lemma(c: Ctx) -> list[tuple[str, Expr]]:
    """Stage consistency of the engine's `visit` record with the `visited` monitor (R25-R27, A20): a recorded
    visit is the acting player's while its arrival is resolved, and the player's that just finished once play
    is back in Shipment & Movement. Without it the induction of `atomics-kills-all` fails at
    `visitors_to_tanks` from states where the two disagree (unreachable ones). Under ship-and-move, per faction,
    the facts `visitors-leave` is inductive with on nexus-treachery and treachery-online (docs/lemmas.md,
    twenty-first session). [] under `refused`."""
    if entry(c) == ALLY_ENTRY.REFUSED:
        return []
    v = c.v
    cases = []
    for t in c.turns():
        for pos, g in enumerate(c.order(t)):
            who = v("turn").eq(t) & v("visited", g).eq(v("visit"))
            cases.append(who & c.stage_is("ship_move") & v("mover").eq(pos + 1))
            cases.append(who & ~c.stage_is("ship_move") & v("mover").eq(pos))
    # A recorded visit beside the ally is where the acting (or just finished) player entered.
    out = [("visit-recorded", implies(v("visit").ne(c.none_dest), c.any_of(cases)))]
    if entry(c) == ALLY_ENTRY.SHIP_AND_MOVE:  # for `visitors-leave` (ship-and-move)
        for f in range(len(c.bounds.factions)):
            # A player enters at most once a turn, and play then moves past it: a recorded entry is the acting
            # player's (its arrival still resolving) or a finished one's; while the acting or just finished
            # player's forces stand there beside its ally, the engine's visit record names the place.
            done = c.any_of(v("turn").eq(t) & (v("mover") > pos) for t, pos in seats(c, f))
            acting = c.any_of(v("turn").eq(t) & v("mover").eq(pos) for t, pos in seats(c, f)) & ~c.stage_is("ship_move")
            out.append((f"visited-finished[{c.bounds.factions[f]}]",
                        implies(v("visited", f).ne(c.none_dest), done | acting)))
            out.append((f"visit-of-the-acting[{c.bounds.factions[f]}]", implies(
                acting & v("visited", f).ne(c.none_dest), v("visit").eq(v("visited", f)))))
            # Once its visit is settled, the player that just finished has no forces left there (or no ally).
            left = c.any_of(v("visited", f).eq(l) & (v("forces", f, l) > 0) for l in c.holds)
            out.append((f"visitors-gone[{c.bounds.factions[f]}]", implies(
                c.stage_is("ship_move") & just_finished(c, f) & v("visit").eq(c.none_dest) & left,
                v("ally", f).eq(c.none_ally))))
    return out


def visit_lost(c: Ctx, f: int):
    """The step sends forces of f to the Tanks from the stronghold it entered beside its ally, right after its
    turn ended (the `visited` monitor; under ship-and-move all of them)."""
    if entry(c) == ALLY_ENTRY.REFUSED:
        return Const(False)
    v = c.v
    out = []
    for l in c.holds:
        gone = v("forces", f, l) - post("forces", f, l)
        ok = v("visited", f).eq(l) & (gone > 0) & (post("tanks", f) - v("tanks", f)).eq(gone)
        if entry(c) == ALLY_ENTRY.SHIP_AND_MOVE:
            ok = ok & post("forces", f, l).eq(0)
        out.append(ok)
    return c.stage_is("ship_move") & just_finished(c, f) & c.any_of(out)


def rules(c: Ctx) -> list[Rule]:
    v = c.v
    g, l = Param("g"), Param("l")
    guard = c.any_of(g.eq(gi) & l.eq(li) & due(c, gi, li) for gi in counted(c) for li in c.holds)
    eff = {("forces", (g, l)): Const(0), ("tanks", (g,)): v("tanks", g) + v("forces", g, l)}
    eff |= settle_advisors(c, g, l, Const(0))
    return [Rule("separate_allies", (P("g", c.F), P("l", c.L)), guard, eff, IDS, kind="system",
                 doc="the player that just finished still shares a stronghold with its earlier-moving ally: "
                     "its forces there go to the Tanks")] + visit_rules(c)


def formed_effects(c: Ctx) -> dict:
    """Effects of an accepted alliance on the formation stamp (Basic only)."""
    if c.has("separation-grace-forgotten"):  # the bug (H22): the acceptance does not stamp allySinceTurn
        return {}
    return {("ally_new", ()): Const(True)} if stamped(c) else {}


def turn_effects(c: Ctx) -> dict:
    if c.has("separation-grace-never-expires"):  # the bug: the stamp outlives the formation turn
        return {}
    return {("ally_new", ()): Const(False)} if stamped(c) else {}


def fields(c: Ctx) -> tuple:
    if not stamped(c):
        return visit_fields(c)
    return (Field("ally_new", Bool(), doc="engine: Moritani's alliance was formed this turn (allySinceTurn = "
                                          "turn; Basic grace, R26, H22)"),) + visit_fields(c)


def monitor(c: Ctx) -> list[Monitor]:
    """Basic only: Moritani's ally changed during this turn (read from the step, not the engine's stamp); and
    where each faction entered beside its ally (`visited`, unless ally-entry is refused)."""
    if not graced(c):
        return visit_monitor(c)
    v = c.v
    update = ite(post("turn").ne(v("turn")), False, v("allied_this_turn") | post("ally", c.M).ne(v("ally", c.M)))
    return [Monitor(Field("allied_this_turn", Bool(), doc="Moritani's alliance changed this turn"),
                    False, update, ("R26", "H22"))] + visit_monitor(c)


def properties(c: Ctx) -> list[Property]:
    """Written from R26/R27: when play moves past a player (the next player acts, or the phase ends),
    that player holds no forces in a stronghold beside its earlier-moving ally unless exempt; and forces
    reach the Tanks outside Atomics only as such a separation (see `atomics-kills-all`)."""
    v = c.v
    formed = v("allied_this_turn") if graced(c) else Const(False)
    owed = c.any_of(due(c, g, l, formed) for g in counted(c) for l in c.holds)
    return [always_step("allies-separate", implies(moves_on(c), ~owed), IDS,
                        "play moves past a player only once its forces beside an earlier-moving ally are gone "
                        "(Ecaz coexists; Basic spares the formation turn)")] + visit_properties(c)


def visit_properties(c: Ctx) -> list[Property]:
    """R27, A20 (ally entry allowed): the visitors go to the Tanks at the end of their owner's own Shipment &
    Movement, so the step that sends them is taken for the player whose turn has just ended (position
    `mover - 1` of this turn's storm order, written here from the order table, not from the rule's guard).
    Taken for anyone else it clears the engine's visit record and the visitor keeps its forces."""
    if entry(c) == ALLY_ENTRY.REFUSED:
        return []
    g, v = Arg("g", -1), c.v
    finished = c.any_of(v("turn").eq(t) & v("mover").eq(pos + 1) & g.eq(f)
                        for t in c.turns() for pos, f in enumerate(c.order(t)))
    out = [always_step("visitors-of-the-finished-player", implies(Fired(("visitors_to_tanks",)), finished),
                       ("R27", "A20"), "visitors are sent to the Tanks only for the player whose turn has just ended")]
    if entry(c) == ALLY_ENTRY.SHIP_AND_MOVE:
        # The penalty itself, from the `visited` monitor and the forces, not from the engine's visit record: when
        # play moves past a player, none of its forces stand where it entered beside its ally (ship-and-move: all
        # of them go). Under ship-visitors only the visitors go, a count no rule-side record keeps (not written).
        kept = c.any_of(just_finished(c, f) & v("visited", f).eq(l) & ally_with_forces(c, Const(f), l)
                        & (post("forces", f, l) > 0) for f in range(len(c.bounds.factions)) for l in c.holds)
        out.append(always_step("visitors-leave", implies(moves_on(c), ~kept), ("R26", "R27", "A20"),
                               "play moves past a player only once its forces where it entered beside its ally "
                               "are gone (ship-and-move)"))
    return out


def separated(c: Ctx, f: int):
    """The step sends f's forces in one stronghold to the Tanks as a due separation (all of them)."""
    if f not in counted(c):
        return Const(False)
    v = c.v
    formed = v("allied_this_turn") if graced(c) else Const(False)
    return c.any_of(due(c, f, l, formed) & post("forces", f, l).eq(0)
                    & (post("tanks", f) - v("tanks", f)).eq(v("forces", f, l)) for l in c.holds)


def witnesses(c: Ctx) -> list[Property]:
    """A separation happens (unless Basic on two turns, where it cannot); Basic's grace is used: Shipment &
    Movement ends with new allies still sharing a stronghold. Allies come to share one only where Moritani
    stands, so both need Moritani's forces on the board: shipped, or sent by a Sneak Attack in an earlier
    Shipment & Movement."""
    v, M, b = c.v, c.M, c.bounds
    if not moritani_boards(c):
        return []
    later = c.unbounded or b.turns >= 2 or b.moritani_ships
    out = []
    if later and (not basic(c) or c.unbounded or b.turns >= 3):
        out.append(sometimes("witness-ally-separation", fires=("separate_allies",), rules=("R26", "R27", "A20")))
    if basic(c) and later:
        together = c.any_of(c.present(M, l) & c.any_of(v("ally", M).eq(h) & c.present(h, l) for h in counted(c)
                                                         if h != M) for l in c.holds)
        out.append(sometimes("witness-separation-grace", fires=("end_shipment_movement",),
                             when=v("allied_this_turn") & together, rules=("R26", "H22"),
                             doc="the phase ends with new allies still sharing a stronghold (their formation turn)"))
    return out
