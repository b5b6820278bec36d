"""Stacked Terror tokens: several tokens in one stronghold and the entries into them (R47, A17, H10).

Stacks arise from Nexus Cunning (model/moritani/nexus.py) and from the Grumman high side
(model/moritani/grumman.py); without either module no stack is ever reachable and this module adds
nothing. An entry into a stack (switch `stack-reveal`): `one-chosen` (Quintine/Dune's `select`
stage) lets Moritani pick one token privately and the decision covers the whole entry; `all-in-turn`
(treachery.online `TerrorRevealed`: the intrusion is dequeued only when no token is left) reopens the
decision after each reveal, and an accepted alliance returns every token there. Which token Moritani
picks is never in the rivals' labels (`Ctx.secret_choices`).

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["nexus-cunning"]
>>> [m.field.name for m in build_model(p.bounds, p.interpretation).monitors if m.field.name == "entry_decisions"]
['entry_decisions']
"""
from __future__ import annotations

from model.domains import IntRange
from model.expr import Const, count, implies, ite, post
from model.moritani.config import STACK_REVEAL
from model.moritani.context import TERROR_STAGES, Ctx
from model.properties import Monitor, Property, always, always_step
from model.schema import Field

IDS = ("R47", "A17", "H10")


def all_in_turn(c: Ctx) -> bool:
    return c.stacks and c.chose(STACK_REVEAL.ALL_IN_TURN)


def others_at(c: Ctx, k, loc):
    """A token other than face k (a parameter or constant) lies at loc."""
    return c.any_of(c.token_at(j, loc) & Const(j).ne(k) for j in c.faces)


def sharing(c: Ctx):
    """Some two tokens lie in one stronghold."""
    v, placed = c.v, c.Status.index("placed")
    return c.any_of(v("tstatus", k).eq(placed) & v("tstatus", j).eq(placed) & v("tloc", k).eq(v("tloc", j))
                    for k in c.faces for j in c.faces if j < k)


def pairs(c: Ctx):
    """How many pairs of tokens share a stronghold."""
    v, placed = c.v, c.Status.index("placed")
    return count(v("tstatus", k).eq(placed) & v("tstatus", j).eq(placed) & v("tloc", k).eq(v("tloc", j))
                 for k in c.faces for j in c.faces if j < k)


def reveal_effects(c: Ctx, k: int) -> dict:
    """A17 all-in-turn: a reveal leaves the decision pending again while other tokens lie there."""
    if not all_in_turn(c) and not c.has("stack-reveals-all"):
        return {}
    return {("pend_terror", ()): others_at(c, k, c.v("entry_loc"))}


def accept_returns(c: Ctx, k) -> dict:
    """A17 all-in-turn: an accepted alliance returns every token in the entered stronghold ({face: expr})."""
    if not all_in_turn(c) or c.has("accept-returns-one"):
        return {}
    return {j: c.token_at(j, c.v("entry_loc")) for j in c.faces}


def opens(c: Ctx, k, loc):
    """Which token an entry may open (H10): any token there, chosen by Moritani."""
    if c.has("stack-first-in-array"):  # the bug: the engine's `.find` takes the first token in array order
        return c.token_at(k, loc) & ~c.any_of(c.token_at(j, loc) & (Const(j) < k) for j in c.faces)
    return c.token_at(k, loc)


def monitors(c: Ctx) -> list[Monitor]:
    """`entry_decisions`: Terror decisions opened for the current entry (a new entrant or cause starts a new
    one)."""
    if not c.stacks:
        return []
    v = c.v
    opening = c.stage_is("react") & post("stage").eq(c.st("terror"))
    fresh = post("entrant").ne(v("entrant")) | post("entry_cause").ne(v("entry_cause"))
    n = v("entry_decisions")
    settles = c.stage_is("react") & post("stage").eq(c.st("ship_move"))
    if c.worms:  # a settled worm ride goes back to the ride sequence: the next ride is a new entry (H20)
        settles = c.stage_is("react") & (post("stage").eq(c.st("ship_move")) | post("stage").eq(c.st("worm")))
    nxt = ite(settles, 0, ite(opening, ite(fresh, 1, n + 1), n))
    return [Monitor(Field("entry_decisions", IntRange(0, len(c.faces) + 1),
                          doc="Terror decisions opened for this entry"), 0, nxt, ("R47", "A17", "H10"))]


def properties(c: Ctx) -> list[Property]:
    """One decision per entry (one-chosen), or an accepted alliance clears the stack (all-in-turn)."""
    if not c.stacks:
        return []
    v, M, S = c.v, c.M, c.Status
    if all_in_turn(c):
        accepted = post("ally", M).eq(v("entrant")) & v("ally", M).ne(v("entrant")) & c.stage_is(*TERROR_STAGES)
        left = c.any_of(post("tstatus", k).eq(S.index("placed")) & post("tloc", k).eq(v("entry_loc"))
                        for k in c.faces)
        return [always_step("acceptance-clears-stack", implies(accepted, ~left), ("R47", "A17", "R20"),
                            "under all-in-turn an accepted alliance returns every token in the entered stronghold")]
    return [always("one-decision-per-entry", v("entry_decisions") <= 1, ("R47", "A17", "H10"),
                   "one entry activates at most one token of a stack (one Terror decision per entry)")]
