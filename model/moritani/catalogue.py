"""Catalogue IDs the model does not implement, each with why (see docs/rules.md)."""
from __future__ import annotations

# ID -> one or two sentences: what the rule/ambiguity/hazard is about, and why the bounded model
# omits it or where it is covered indirectly.
NOT_MODELLED = {
    # -- rules -----------------------------------------------------------------------------------
    "R3": "Moritani's named leaders and Duke Vidal as a separate shared disc. Leaders are abstract (two per "
          "rival, with strengths, for the Assassination bounty); Moritani has none because it is never the "
          "entrant, and Duke Vidal is absent.",
    "R6": "Quantities summary. The quantities the model uses (Extortion 5 + 3, Sneak Attack at most 5, Robbery "
          "half rounded up or 1 card, bounty = strength, Atomics -1 hand limit) are covered by their own rows; "
          "the rest (20 forces, 12 spice, free revivals, Zoal, Grumman, Duke revival) are outside the bounds.",
    "R15": "Terror tokens survive storms and Lasgun/Shield explosions. Covered indirectly: the storm position "
           "only blocks shipment and positive Sneak Attack and never touches tokens, and there are no battles, "
           "so no Lasgun/Shield explosion.",
    "R16": "Placing a Richese No-Field is an entry (counted as 1 force); revealing one or Face Dancers is not. "
           "The model has no Richese, No-Field markers or Face Dancers.",
    "R24": "Sandtrout cancels alliances but does not ban EoME. The model has no Sandtrout and no Nexus phase "
           "(only Moritani's own Nexus card, with bounds.nexus_card).",
    "R28": "Moritani's alliance ability: a losing ally keeps one played Treachery card. The model has no "
           "battles and no card identities, so there is nothing to retain.",
    "R31": "No Karama on a Terror reveal, effect or Extortion payment. Covered by construction: the model "
           "opens Karama windows only for Mentat placement (R29) and the EoME offer (R30), so no rule lets "
           "Karama touch a reveal.",
    "R33": "Karama can stop Moritani acquiring Duke Vidal. Duke Vidal and his acquisition are not modelled.",
    "R34": "Karama can stop an alliance ability such as ally battle-card retention. Retention (R28) is not "
           "modelled, so neither is its Karama window.",
    "R44": "Duke Vidal acquisition at the end of Shipment & Movement when battles are pending in 2 strongholds. "
           "No battles, no Duke Vidal in the model.",


    "R49": "Leader Skills interactions with Assassination, Sabotage and EoME. Leader Skills are not modelled.",
    # -- ambiguities -----------------------------------------------------------------------------
    "A15": ("Sneak Attack sector in a multi-sector territory. The model has one location per stronghold, no "
           "sectors, and a storm that covers a whole stronghold, so there is no sector to choose. Quintine/Dune "
           "takes the entry's recorded sector and rejects any other, so there is no engine choice to check either."),
    "A22": ("Atomics in a territory with a concealed No-Field. The model has no Richese and no No-Field markers "
           "(R16, H14). Quintine/Dune gates the case (quoteMoritaniAtomics rejects it), so an engine following it has "
           "no timing to get wrong; modelling it means a No-Field module whose concealed value is a new secret "
           "for the leak checks (H14)."),
    "A29": ("Timing of ally battle-card retention against capture, CHOAM income, Tech and Face Dancers. All of it "
           "happens in the battle phase after a battle is resolved; the model has no battle resolution (only the "
           "Assassinate Leaders module's abstract battle step), no battle cards and no retention (R28)."),
    "A30": ("Moritani taking Duke Vidal from captured or Ghola custody. Duke Vidal is not in the model, and "
           "Quintine/Dune gates the case (Advanced Harkonnen configurations are blocked), so there is no engine "
           "choice to check."),
    "A32": ("Truthtrance or another hand-changing card played while a Robbery overflow discard is pending. Cards "
           "are anonymous counts (the finite-deck module counts the deck and the discard pile, not names), so "
           "no card can be played between the draw and the discard; the overflow discard follows the draw directly."),
    # -- hazards ---------------------------------------------------------------------------------
    "H5": "The supply epoch must not appear in any projection. Recorded as the private field next_pid; "
          "checked once the noninterference check exists (planned: noninterference/leak check).",

    "H14": "A public window must not depend on a concealed No-Field value. No No-Field in the model (R16).",
    "H15": "Entry receipts (entrySignature) must be immutable and bound to the original arrival. The model has "
           "no serialisation or signatures: its state is the receipt, and the entry fields (entrant, "
           "location, cause) are set once when the entry opens.",
    "H27": "A Nullentropy search or Richese gift suspending an Extortion payer decision must restore the same "
           "event and cursor. Neither card is in the model, so payer decisions are never suspended.",
    "H37": "The overlap signature binding the Ambassador + Terror record on one entry. The overlap order itself "
           "is a switch (A2), but the model has no signatures; its state is the record.",
    "H38": "Actions whose entry or event turn/phase stamp differs from the current turn/phase are rejected. "
           "Model actions carry no stamps and are guarded by the current stage, so a stale stamped action "
           "cannot be expressed; duplicate submissions are covered by the retry fault (H7).",
    "H39": "Sabotage and Robbery-overflow card faces must not leak into logs or views. Cards are anonymous "
           "counts and the model has no logs; planned: noninterference/leak check.",

    "H43": "Cards reserved for a pending ally retention cannot be spent elsewhere. Ally retention (R28) and "
           "CHOAM are not modelled.",
    "H44": "Signatures are consistency receipts, not cryptography. The model has no signatures or "
           "serialisation, so there is nothing to forge.",
}

# Every ID of the rules catalogue (R1-R49 rules, A1-A32 ambiguities, H1-H44 hazards).
ALL_IDS = tuple([f"R{i}" for i in range(1, 50)] + [f"A{i}" for i in range(1, 33)] + [f"H{i}" for i in range(1, 45)])
