"""State fields and the initial state of the Moritani Terror model.

These are the engine's fields. History that the properties need (for example how many tokens
really landed on the map this turn, next to `placement_used`, the engine's flag that a reload may
mishandle) is not kept here by the rules but by the kernel's monitors (model/moritani/monitors.py).
"""
from __future__ import annotations

from model.domains import Bool, IntRange
from model.errors import ModelError
from model.moritani.config import KARAMA_EOME_TIMING
from model.moritani.context import Ctx
from model.moritani import deck, grumman, intrusion, nexus, relocation, revival, separation, setup, worms
from model.moritani.mentat import first_mentat_stage
from model.schema import Field, Schema


def has_ambassador(c: Ctx) -> bool:
    """Ecaz plays with its Ambassador on the board (bounds.ambassador)."""
    return c.fac("Ecaz") is not None and c.bounds.ambassador is not None


def schema(c: Ctx) -> Schema:
    b = c.bounds
    n = len(b.factions)
    forces_max = max([b.moritani_forces] + [r + d + sum(g for f2, _, g in b.garrisons if f2 == f) for f, r, d in b.forces]
                     + [g for _, _, g in b.garrisons])
    Leader = c.Leader
    F, K = c.F, c.K
    # Seeded leak `decline-logs-face`: the engine's public log keeps the declined token's face.
    log: tuple[Field, ...] = (Field("declined_log", c.Effect, doc="engine bug: the public log names the declined face"),) \
        if c.has("decline-logs-face") else ()
    if c.advisors_coexist():
        log += (Field("advisors", IntRange(0, forces_max), (c.L,),
                      doc="how many of BG's forces in each place are advisors (they do not occupy)"),)
    if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE):
        log += (Field("eome_prevented", Bool(),
                      doc="a pre-emptive Karama prevents any alliance offer for the rest of this Shipment & Movement"),)
    if has_ambassador(c):
        log += (Field("amb_spent", Bool(), doc="engine: the Ecaz Ambassador has reacted and is set aside"),)
    log += separation.fields(c) + intrusion.fields(c) + nexus.fields(c) + worms.fields(c) + deck.fields(c) + revival.fields(c) \
        + relocation.fields(c) + grumman.fields(c)
    return Schema(_base_fields(c, b, n, forces_max, Leader, F, K) + (traitor_fields(c) if c.module else ()) + log)


def traitor_fields(c: Ctx) -> tuple:
    """Fields of the Assassinate Leaders module (model/moritani/assassinate.py; R43, A28)."""
    T, F = c.T, c.F
    return (
        Field("trz", c.TZone, (T,), doc="custody of each Traitor card (secret while in the deck or a hand)"),
        Field("tr_used", Bool(), (F,), doc="engine: this faction's Assassinate Leaders use is spent (public)"),
        Field("tr_forfeit", Bool(), doc="engine: Moritani has revealed a Traitor card normally (A28, public)"),
        Field("tr_pending", Bool(), doc="a revealed card waits for the Mentat Pause replacement"),
        Field("tr_opp", F, doc="the faction Moritani just lost a battle to (while the decision is open)"),
        Field("tr_leader", c.Leader, doc="that faction's surviving leader disc Moritani opposed"),
    )


def _base_fields(c, b, n, forces_max, Leader, F, K) -> tuple:
    return (
        Field("turn", IntRange(1, n if c.unbounded else b.turns + 1),
              doc="game turn (the first Mentat Pause is turn 1); without a turn bound, the storm seat"),
        Field("stage", c.Stage, doc="phase or pending decision (the dispatch field)"),
        Field("storm", c.Dest, doc="stronghold under the storm, or none"),
        Field("mover", IntRange(0, n), doc="Shipment & Movement cursor in storm order"),
        Field("spice", IntRange(0, c.spice_max), (F,)),
        Field("bank", IntRange(0, c.spice_max + c.bank0)),
        Field("reserves", IntRange(0, forces_max), (F,)),
        Field("tanks", IntRange(0, forces_max), (F,)),
        Field("forces", IntRange(0, forces_max), (F, c.L)),
        Field("hand", IntRange(0, b.hand_limit + 1), (F,), doc="Treachery cards held (cards are anonymous)"),
        Field("karama", Bool(), (F,), doc="holds a Karama card"),
        Field("leader", Bool(), (F, Leader), doc="leader alive"),
        Field("ally", c.Ally, (F,)),
        Field("tstatus", c.Status, (K,), doc="custody of each Terror face (R2, H30)"),
        Field("tloc", c.Dest, (K,)),
        Field("pid", IntRange(1, c.pid_max), (K,), doc="opaque public ID (H3, H4)"),
        Field("next_pid", IntRange(1, c.pid_max + len(b.faces) + 1), doc="private supply epoch (H5)"),
        Field("placement_used", Bool(), doc="engine: this turn's Mentat opportunity is used (placementTurn = turn)"),
        Field("pending_face", K, doc="declared placement, server-only until committed"),
        Field("pending_dest", c.Dest),
        Field("aftermath", c.Dest, doc="Atomics Aftermath territory, or none"),
        Field("atomics_ally", c.Ally, doc="Moritani's ally at Atomics activation (A10)"),
        Field("ext_reserved", Bool(), doc="5 bank spice in front of Moritani's shield (R37)"),
        Field("ext_credited", Bool(), doc="engine: this Extortion's 5 were collected"),
        Field("ext_entrant", F, doc="who revealed Extortion (for the entrant-only payer choice)"),
        Field("payer", IntRange(0, n), doc="Extortion payer cursor in storm order"),
        Field("entrant", F, doc="the faction whose arrival is being resolved"),
        Field("entry_loc", c.L),
        Field("entry_cause", c.Cause),
        Field("entry_face", K, doc="the face Moritani is deciding on (private)"),
        Field("eome_blocked", Bool(), doc="Karama blocked the alliance offer for this entry (H8)"),
        Field("eome_refused", Bool(), doc="the entrant refused the offer: reveal is mandatory (R21)"),
        Field("pend_advisor", IntRange(0, 2), doc="pending BG advisor accompaniments"),
        Field("pend_ambassador", Bool(), doc="pending Ecaz Ambassador reaction"),
        Field("amb_payer", F, doc="the arrival the Ambassador reacts to"),
        Field("pend_terror", Bool(), doc="pending Terror decision for the current entry"),
        Field("entry2", Bool(), doc="a BG advisor entry queued for its own Terror check (H36)"),
        Field("reloads_left", IntRange(0, 1), doc="engine reloads still allowed in this bounded run"),
        Field("retries_left", IntRange(0, 1), doc="retries of an accepted action still allowed"),
    )


# What a game's outcome is made of when two interpretations are compared (`rulecheck compare`):
# the material board, hands, alliances and token custody at the end of a turn. Engine cursors,
# flags that are reset every turn, ghost history and the opaque public IDs (which differ between
# interpretations only by numbering) are left out.
OUTCOME_FIELDS = ("turn", "spice", "bank", "reserves", "tanks", "forces", "hand", "karama", "leader", "ally",
                  "tstatus", "tloc", "aftermath", "atomics_ally", "ext_reserved",
                  "trz", "tr_used", "tr_forfeit",  # these three exist only with the Assassinate Leaders module
                  "nexus_holder")  # only with the Nexus card module
OUTCOME_STAGES = ("mentat_end", "game_over")
  # the end of each turn and of the bounded game


def initial(c: Ctx, sch: Schema, pids: tuple | None = None) -> tuple:
    """The first Mentat Pause: all six faces hidden in supply (R4), nothing on the map."""
    b = c.bounds
    n, nk = len(b.factions), len(b.faces)
    pids = tuple(pids) if pids else tuple(range(1, nk + 1))
    if sorted(pids) != list(range(1, nk + 1)):
        raise ModelError(f"pids must be a permutation of 1..{nk} (one public ID per face in bounds.faces); "
                         f"found {list(pids)}")
    ally = {f: c.none_ally for f in range(n)}
    for a, d in b.alliances:
        ally[c.F.index(a)], ally[c.F.index(d)] = c.F.index(d), c.F.index(a)
    forces = {}
    for f in range(n):
        for loc in range(len(c.L.labels)):
            forces[(f, loc)] = c.start_forces(f)[1] if loc == c.desert else c.garrison(f, loc)
    values = {
        "turn": 1, "stage": c.st(setup.first_stage(c, first_mentat_stage(c))),
        "storm": c.none_dest, "mover": 0,
        "spice": {f: (b.moritani_spice if f == c.M else b.spice) for f in range(n)},
        "bank": c.bank0,
        "reserves": {f: (b.moritani_forces if f == c.M else c.start_forces(f)[0] - c.start_tanks(f)) for f in range(n)},
        "tanks": {f: c.start_tanks(f) for f in range(n)},
        "forces": forces,
        "hand": {f: (b.moritani_hand if f == c.M else b.hand) for f in range(n)},
        "karama": {f: b.factions[f] in b.karama for f in range(n)},
        "leader": {(f, j): f != c.M and b.factions[f] not in b.leaderless
                   for f in range(n) for j in range(len(b.leaders))},
        "ally": ally,
        "tstatus": {k: c.Status.index("supply") for k in range(nk)},
        "tloc": {k: c.none_dest for k in range(nk)},
        "pid": {k: pids[k] for k in range(nk)},
        "next_pid": nk + 1,
        "placement_used": False, "pending_face": 0, "pending_dest": c.none_dest,
        "aftermath": c.none_dest, "atomics_ally": c.none_ally,
        "ext_reserved": False, "ext_credited": False, "ext_entrant": 0, "payer": 0,
        "entrant": 0, "entry_loc": c.desert, "entry_cause": 0, "entry_face": 0,
        "eome_blocked": False, "eome_refused": False,
        "pend_advisor": 0, "pend_ambassador": False, "amb_payer": 0, "pend_terror": False,
        "entry2": False, "reloads_left": 1, "retries_left": 1,
    }
    if c.has("decline-logs-face"):
        values["declined_log"] = 0
    if c.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE):
        values["eome_prevented"] = False
    if separation.stamped(c):
        values["ally_new"] = False
    values |= separation.visit_initial(c)
    if has_ambassador(c):
        values["amb_spent"] = False
    if intrusion.enabled(c):
        values["pend_intrusion"] = False
    values |= nexus.initial(c) | worms.initial(c) | deck.initial(c) | revival.initial(c) | relocation.initial(c) | grumman.initial(c)
    if c.advisors_coexist():
        values["advisors"] = {l: 0 for l in range(len(c.L.labels))}
    if c.module:
        # Every Traitor card starts in the reserve deck; the first step deals Moritani its secret card.
        values |= {"stage": c.st("traitor_deal"),
                   "trz": {t: c.TZone.index("deck") for t in range(len(c.cards))},
                   "tr_used": {f: False for f in range(n)}, "tr_forfeit": False, "tr_pending": False,
                   "tr_opp": 0, "tr_leader": 0}
    return sch.make(values)
