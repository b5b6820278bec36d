"""Homeworlds and Moritani's Grumman card: the optional module (bounds.grumman; R45, R46, A18, H11, H13, H42).

The card's side follows Moritani's native reserves, read whenever it matters (Quintine/Dune
`HOMEWORLD_COLLECTION_RULES.md`: current population controls): 8 or more is the **high** side.

- **Low side (R45, H13).** Terror may be revealed (or an alliance offered) only for an entry of at
  least 3 forces in one group. Forces already there and separate entries do not add up, so the BG
  accompanying advisor (one force, its own entry, A25) never qualifies. Shipment and movement carry
  1 to 3 forces with this module (3 stands for "3 or more"); each force costs 1 spice to ship.
  Every place that asks "does this entry open Terror?" (the arrival, the queued advisor entry, the
  reject-entry preflight of A1) asks `qualifies`, so they cannot disagree (H13).
- **High side (R46, H42, H11).** A Spice Collection step follows Shipment & Movement. Switch
  `grumman-addition`: `collection-operation` (the printed face, Quintine/Dune): Moritani may add a
  token from supply to a stronghold that already holds one, taking 4 bank spice in the same step;
  `mentat-placement` (treachery.online `TerrorPlanted.MayPlaceAtExistingToken`): instead, while the
  side is high, the ordinary Mentat placement or move may go onto a token, for no spice. Switch
  `grumman-removal` (A18): `unavailable` (Quintine/Dune gates it), `to-supply` (treachery.online:
  back to the hidden supply, whose public IDs rotate, H4) or `out-of-game` (face down, never seen).
  Switch `collection-operations`: `one` per Collection, or `repeatable` (treachery.online's
  `MayRemoveTokens` has no once-per-phase guard). No Karama: Homeworld effects resist it.

Modelling choices (docs/checking.md, "Grumman"): the threshold is the printed 8 and the side changes
only when Moritani's reserves do (its Sneak Attack, or its own shipments); the bank must hold the 4
spice; Homeworld territories and their occupation (which blocks the trigger and the offer in both
engines) are not modelled. Off, this module adds no field, stage, rule or property.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["grumman"]
>>> sorted(r.name for r in build_model(p.bounds, p.interpretation).rules if r.name.startswith("grumman"))
['grumman_add', 'grumman_pass']
"""
from __future__ import annotations

from model.domains import Bool, IntRange
from model.expr import Const, Param, count, implies, ite, lift, post, sum_of
from model.moritani import homeworld, stacks
from model.moritani.config import COLLECTION_OPERATIONS, GRUMMAN_ADDITION, GRUMMAN_HIGH_PLACEMENT, GRUMMAN_REMOVAL
from model.moritani.context import Ctx
from model.properties import Monitor, Property, always, always_step, sometimes
from model.rule import Effects, P, Rule
from model.schema import Field

IDS = ("R45", "R46", "A18", "H11", "H13", "H42")
HIGH = 8     # native reserves from which the printed Grumman face is on its high side
GROUP = 3    # the low side's smallest qualifying group (R45); larger groups behave the same
PAY = 4      # bank spice for a completed Collection operation (R46)


def enabled(c: Ctx) -> bool:
    return c.grumman


def high(c: Ctx, after: bool = False):
    """The Grumman card is on its high side (Moritani's native reserves, before or after the step)."""
    r = post("reserves", c.M) if after else c.v("reserves", c.M)
    return r >= HIGH


def group_params(c: Ctx) -> tuple:
    """The group-size parameter of shipment and movement (only with the module)."""
    return (P("n", IntRange(1, GROUP)),) if enabled(c) else ()


def group(c: Ctx):
    """How many forces one shipment or movement carries: the parameter n, or 1 without the module."""
    return Param("n") if enabled(c) else Const(1)


def qualifies(c: Ctx, n, f=None):
    """May an entry of n forces in one group by faction f open Terror (R45; R23 when a rival occupies Moritani's
    Homeworld under `trigger-and-offer`)? Every caller asks this one function (H13)."""
    home = homeworld.trigger_allowed(c, f) if homeworld.blocks_trigger(c) else None
    if not enabled(c) or c.has("grumman-ignores-threshold"):
        return Const(True) if home is None else home
    if c.has("grumman-counts-to-two"):  # the bug: an off-by-one threshold (more than 1, not at least 3)
        out = high(c) | (lift(n) >= 2)
    else:
        out = high(c) | (lift(n) >= GROUP)
    return out if home is None else out & home


def addition_at_placement(c: Ctx) -> bool:
    return enabled(c) and c.chose(GRUMMAN_ADDITION.MENTAT_PLACEMENT)


def high_rules(c: Ctx) -> tuple:
    """The names of the Mentat rules that go onto a token on the high side (mentat-placement only)."""
    if not addition_at_placement(c):
        return ()
    return ("place_token_high",) if c.chose(GRUMMAN_HIGH_PLACEMENT.PLACE_UNLESS_REMOVED) \
        else ("place_token_high", "move_token_high")


def remembers_removal(c: Ctx) -> bool:
    """DuneBot's high-side placement (switch grumman-high-placement: place-unless-removed): a removal in this
    turn's Spice Collection bars the Mentat placement onto a token (MoritaniFaction.java:303, 334 at 6593b774).
    Only then does the module keep the field `grumman_removed`."""
    return addition_at_placement(c) and c.chose(GRUMMAN_HIGH_PLACEMENT.PLACE_UNLESS_REMOVED) \
        and c.choice(GRUMMAN_REMOVAL) != GRUMMAN_REMOVAL.UNAVAILABLE


def fields(c: Ctx) -> tuple:
    return (Field("grumman_removed", Bool(), doc="Moritani removed a token in this turn's Spice Collection (DuneBot)"),) \
        if remembers_removal(c) else ()


def initial(c: Ctx) -> dict:
    return {"grumman_removed": False} if remembers_removal(c) else {}


def forget_removal(c: Ctx) -> dict:
    """Shipment & Movement ends: a new Spice Collection starts with no removal (MoritaniFaction.java:303)."""
    return {("grumman_removed", ()): Const(False)} if remembers_removal(c) else {}


def after_shipment(c: Ctx, first_mentat: str) -> str:
    """Where Shipment & Movement goes: the Collection step with the module, else the Mentat Pause."""
    return "collection" if enabled(c) else first_mentat


# -- rules -----------------------------------------------------------------------------------

def placement_rules(c: Ctx, declare_guard, declare) -> list[Rule]:
    """treachery.online's high side: the Mentat placement or move may go onto a token (no card, no spice)."""
    if not addition_at_placement(c):
        return []
    v = c.v
    k, to = Param("k"), Param("to")
    who = (P("k", c.K), P("to", c.Dest))
    onto = to.ne(c.none_dest) & c.any_token_at(to)
    if not c.has("grumman-stacks-when-low"):  # the bug: the side is read once, not at the placement
        onto = onto & high(c)
    S = c.Status
    if c.chose(GRUMMAN_HIGH_PLACEMENT.PLACE_UNLESS_REMOVED):  # DuneBot: a placement only, one add-or-remove a turn
        unless = ~v("grumman_removed") if remembers_removal(c) else Const(True)
        return [Rule("place_token_high", who, declare_guard(k, to) & v("tstatus", k).eq(S.index("supply")) & onto
                     & unless, declare(k, to), ("R46", "R47", "R9", "H11"), actor=Const(c.M),
                     doc="Grumman high side (DuneBot): Moritani declares a hidden token for a stronghold that already "
                         "holds one, unless it removed a token in this turn's Spice Collection")]
    return [
        Rule("place_token_high", who, declare_guard(k, to) & v("tstatus", k).eq(S.index("supply")) & onto,
             declare(k, to), ("R46", "R47", "R9", "H11"), actor=Const(c.M),
             doc="Grumman high side (treachery.online): Moritani declares a hidden token for a stronghold that "
                 "already holds one"),
        Rule("move_token_high", who, declare_guard(k, to) & v("tstatus", k).eq(S.index("placed"))
             & v("tloc", k).ne(to) & onto, declare(k, to), ("R46", "R47", "R10", "H11"), actor=Const(c.M),
             doc="Grumman high side (treachery.online): Moritani declares moving a placed token onto another"),
    ]


def collection_rules(c: Ctx, next_stage: str) -> list[Rule]:
    """The Spice Collection step: at most one token operation on the high side, then the Mentat Pause."""
    if not enabled(c):
        return []
    v, M, S = c.v, c.M, c.Status
    k, to = Param("k"), Param("to")
    at = c.stage_is("collection") & high(c) & (v("bank") >= PAY)
    done = c.st("collection") if c.chose(COLLECTION_OPERATIONS.REPEATABLE) or c.has("grumman-twice") \
        else c.st(next_stage)
    pay = {("spice", (Const(M),)): v("spice", M) + PAY, ("bank", ()): v("bank") - PAY, ("stage", ()): done}
    if c.has("grumman-add-uses-placement"):  # the bug: the operation is handled as the Mentat placement (H11)
        pay |= {("placement_used", ()): True}
    rules = []
    if c.chose(GRUMMAN_ADDITION.COLLECTION_OPERATION):
        onto = to.ne(c.none_dest) & (Const(True) if c.has("grumman-adds-anywhere") else c.any_token_at(to))
        rules.append(Rule(
            "grumman_add", (P("k", c.K), P("to", c.Dest)), at & v("tstatus", k).eq(S.index("supply")) & onto,
            {("tstatus", (k,)): S.index("placed"), ("tloc", (k,)): to} | pay, ("R46", "R47", "H11", "H42"),
            actor=Const(M), doc="Grumman high side: a hidden token from supply joins the token in a stronghold; "
                                "Moritani takes 4 bank spice"))
    removal = c.choice(GRUMMAN_REMOVAL)
    if removal != GRUMMAN_REMOVAL.UNAVAILABLE:
        eff: Effects = {("tstatus", (k,)): S.index("supply" if removal == GRUMMAN_REMOVAL.TO_SUPPLY else "set aside"),
               ("tloc", (k,)): c.none_dest}
        if removal == GRUMMAN_REMOVAL.TO_SUPPLY and not c.has("grumman-remove-keeps-id"):
            eff |= c.rotate_ids(k)
        if remembers_removal(c):
            eff |= {("grumman_removed", ()): Const(True)}
        rules.append(Rule(
            "grumman_remove", (P("k", c.K),), at & v("tstatus", k).eq(S.index("placed")), eff | pay,
            ("R46", "A18", "H42", "H4"), actor=Const(M),
            doc="Grumman high side: a board token leaves unrevealed (" + removal.replace("-", " ")
                + "); Moritani takes 4 bank spice"))
    bonus = {("spice", (Const(M),)): v("spice", M) + PAY, ("bank", ()): v("bank") - PAY} \
        if c.has("grumman-pays-on-pass") else {}
    rules.append(Rule("grumman_pass", (), c.stage_is("collection"), {("stage", ()): c.st(next_stage)} | bonus,
                      ("R46", "H42"), actor=Const(M),
                      doc="Moritani makes no (further) Grumman operation: Spice Collection ends, nothing paid"))
    return rules


# -- history, properties and witnesses -------------------------------------------------------

def _arrived(c: Ctx, f: int):
    """Forces of faction f brought into strongholds by this step (from the board, not from a rule)."""
    v = c.v
    return sum_of([ite(post("forces", f, h) > v("forces", f, h), post("forces", f, h) - v("forces", f, h), 0)
                   for h in c.holds])


def owed(c: Ctx, f: int):
    """Does this step's arrival of f count for Terror on the Grumman side in force (R45)? For the
    `terror_due` monitor (model/moritani/monitors.py)."""
    if not enabled(c):
        return Const(True)
    out = high(c) | (_arrived(c, f) >= GROUP)
    if homeworld.blocks_trigger(c):  # R23 trigger-and-offer: nothing is owed to the occupier's side
        out = out & ~homeworld.side_occupies(c, f)
    return out


def monitors(c: Ctx) -> list[Monitor]:
    """`group_of[f]`: the forces f brought in one step in its latest arrival (capped at 3), kept until the
    arrival settles; `collection_ops`: token custody changes in the current Spice Collection."""
    if not enabled(c):
        return []
    v = c.v
    settles = c.stage_is("react") & post("stage").eq(c.st("ship_move"))
    update = {}
    for f in range(len(c.bounds.factions)):
        n = _arrived(c, f)
        update[(f,)] = ite(settles, 0, ite(n > 0, ite(n >= GROUP, GROUP, n), v("group_of", f)))
    entering = post("stage").eq(c.st("collection")) & ~c.stage_is("collection")
    ops = v("collection_ops")
    bump = c.stage_is("collection") & c.any_of(_custody_changed(c, k) for k in c.faces)
    return [
        Monitor(Field("group_of", IntRange(0, GROUP), (c.F,), doc="forces in this faction's latest entering group"),
                0, update, ("R45", "H13")),
        Monitor(Field("collection_ops", IntRange(0, 2), doc="Grumman token operations in this Spice Collection"),
                0, ite(entering, 0, ite(bump, ite(ops >= 1, 2, 1), ops)), ("R46", "H42")),
    ]


def _custody_changed(c: Ctx, k: int):
    return post("tstatus", k).ne(c.v("tstatus", k)) | post("tloc", k).ne(c.v("tloc", k))


def _lands_on_token(c: Ctx, k: int):
    """Face k arrives (from supply) in a stronghold where another token already lay."""
    return c.any_of(post("tloc", k).eq(h) & stacks.others_at(c, k, h) for h in c.holds)


def properties(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    v, M, S = c.v, c.M, c.Status
    placed, supply = S.index("placed"), S.index("supply")
    opening = c.stage_is("react") & post("stage").eq(c.st("terror"))
    big = c.any_of(post("entrant").eq(f) & (v("group_of", f) >= GROUP) for f in c.rivals)
    out = [always_step("low-grumman-threshold", implies(opening & ~high(c), big), ("R45", "H13"),
                       "on Grumman's low side a Terror decision opens only for an entry of at least 3 forces in "
                       "one group")]
    changes = count(_custody_changed(c, k) for k in c.faces)
    paid = post("spice", M) - v("spice", M)
    unseen = [supply] + ([S.index("set aside")] if "set aside" in S.labels else [])
    legal = Const(True)
    for k in c.faces:
        lands = v("tstatus", k).eq(supply) & post("tstatus", k).eq(placed)
        leaves = v("tstatus", k).eq(placed) & post("tstatus", k).ne(placed)
        legal = legal & implies(lands, _lands_on_token(c, k)) \
            & implies(leaves, c.any_of(post("tstatus", k).eq(s) for s in unseen))
        legal = legal & implies(_custody_changed(c, k), lands | leaves)
    op_ok = ((changes <= 1) & paid.eq(ite(changes.eq(1), PAY, 0)) & (v("bank") - post("bank")).eq(paid)
             & implies(changes.eq(1), high(c)) & post("placement_used").eq(v("placement_used")) & legal)
    out += [
        always_step("grumman-operation-legal", implies(c.stage_is("collection"), op_ok), ("R46", "H42", "H11"),
                    "a Spice Collection step changes at most one token, on the high side: a token from supply "
                    "joins another token, or a board token leaves unrevealed; 4 bank spice go to Moritani exactly "
                    "when a token changed, and the Mentat placement is untouched"),
        always("collection-operation-once", v("collection_ops") <= 1, ("R46", "H42"),
               "at most one Grumman token operation per Spice Collection"),
        always_step("stack-made-legally", _stack_ok(c), ("R8", "R46", "R47", "R48", "H11"),
                    "a token joins another only by a Grumman operation on the high side or Nexus Cunning"),
    ]
    return out


def _stack_ok(c: Ctx):
    """A step that puts a token where another lay is a Grumman operation on the high side (at Collection, or
    at the Mentat placement under `mentat-placement`), or follows Nexus Cunning."""
    v, S = c.v, c.Status
    placed = S.index("placed")
    joins = c.any_of((v("tstatus", k).ne(placed) | post("tloc", k).ne(v("tloc", k))) & post("tstatus", k).eq(placed)
                     & _lands_on_token(c, k) for k in c.faces)
    by = c.stage_is("collection") & high(c)
    if addition_at_placement(c):
        by = by | (c.stage_is("placement_karama") & high(c))
    if c.nexus and c.fac(c.bounds.nexus_card) == c.M:
        by = by | v("cunning_played").eq(1)
    return implies(joins, by)


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    v = c.v
    n, to = Param("n"), Param("to")
    adds = high_rules(c) or ("grumman_add",)
    out = [
        sometimes("witness-grumman-stack", fires=adds, rules=("R46", "R47")),
        sometimes("witness-low-side-reveal", fires=("open_terror",), when=~high(c), rules=("R45",),
                  doc="an entry of 3 forces opens a Terror decision on the low side"),
        sometimes("witness-low-side-shields", fires=("ship", "move"),
                  when=~high(c) & (n < GROUP) & c.any_token_at(to) & Param("f").ne(c.M)
                  & v("ally", c.M).ne(Param("f")), rules=("R45",),
                  doc="on the low side a rival enters a token's stronghold with fewer than 3 forces"),
        sometimes("witness-grumman-stack-entry", fires=("open_terror",),
                  when=stacks.others_at(c, Param("k"), v("entry_loc")), rules=("R46", "R47", "A17")),
    ]
    if not c.chose(GRUMMAN_REMOVAL.UNAVAILABLE):
        out.append(sometimes("witness-grumman-remove", fires=("grumman_remove",), rules=("R46", "A18")))
    return out + _combined_witnesses(c)


def _combined_witnesses(c: Ctx) -> list[Property]:
    """With the Nexus card module too (issue 15's combined profile): Cunning onto a stack Grumman made, and
    Betrayal of one token of a stack."""
    if not c.nexus:
        return []
    v, k, to = c.v, Param("k"), Param("to")
    if c.fac(c.bounds.nexus_card) == c.M:
        two = c.any_of(c.token_at(i, to) & c.token_at(j, to) for i in c.faces for j in c.faces if i < j)
        return [sometimes("witness-cunning-onto-grumman-stack", fires=("place_token_cunning",), when=two,
                          rules=("R46", "R48", "R47"), doc="Cunning sends a third token onto a stack of two")]
    return [sometimes("witness-betrayal-of-stacked-token", fires=("betrayal",),
                      when=c.any_of(v("tloc", k).eq(h) & stacks.others_at(c, k, h) for h in c.holds),
                      rules=("R48", "R47", "H41"), doc="Betrayal returns one token of a stack; the other stays")]
