"""The catalogue of seeded defects: bugs real engines had, each aimed at one check.

`rulecheck selftest` builds the model with one defect at a time and requires
the targeted check to fail with a shortest trace. A defect is a named switch
read by the rule modules (`ctx.has(id)`), so the defective rule sits next to
the correct one in the source.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from model.errors import ModelError, choices
from model.moritani.config import (ALLY_ENTRY, ALLY_SEPARATION, AMBASSADOR_VS_TERROR, NEXUS_CARD_ON_ALLIANCE, BG_ADVISORS_OCCUPY, ENTRY_CAUSES, GRUMMAN_ADDITION, GRUMMAN_REMOVAL,
                                   EXTORTION_MENTAT_ORDER, HOMEWORLD_OCCUPATION, SNEAK_ATTACK_IS_SHIPMENT, STACK_REVEAL)
from model.moritani.profiles import (ASSASSINATE_BOUNDS, CROSS_SHIP_BOUNDS, DECK_BOUNDS, RELOCATION_BOUNDS, GRUMMAN_BOUNDS, GRUMMAN_OCCUPIED_BOUNDS,
                                     GRUMMAN_SMALL_BOUNDS, NEXUS_BETRAYAL_BOUNDS, NEXUS_CUNNING_BOUNDS, REVIVAL_BOUNDS,
                                     SETUP_BOUNDS,
                                     WORM_BOUNDS)


@dataclass(frozen=True)
class Defect:
    id: str
    target: str      # the check it must trip
    ids: tuple       # catalogue IDs of the hazard
    doc: str
    bounds: tuple = ()  # ((field, value), ...) overrides that let the defect show within small bounds
    needs: tuple = ()   # ((field, value), ...) bounds without which the defect does not exist (its module)
    # the choices (`ALLY_SEPARATION.ADVANCED`, ...) the buggy engine implements (a bug of one reading only)
    interpretation: tuple = ()
    # Pinned: the shortest trace (steps) that catches it on the default profile plus `bounds` (for a witness
    # target, the layers of the complete search); tests/test_defects.py requires exactly this depth.
    depth: int | None = None  # None: not pinned yet (tests/test_defects.py refuses it)
    # hidden-identity leaks only: the shortest pair length on one stronghold and one turn plus `bounds`
    small_depth: int | None = None

    @property
    def heavy(self) -> bool:
        """A Z3 unrolling to `depth` takes several seconds (each step adds a copy of the transition
        relation): deeper than HEAVY_DEPTH steps, the tests run it under `-m slow` (the cost is the depth,
        not a stopwatch).

        >>> DEFECT_BY_ID["reload-reopens-placement"].heavy, DEFECT_BY_ID["eome-duplicates-token"].heavy
        (False, True)
        """
        return self.depth is not None and self.depth > HEAVY_DEPTH


# See Defect.heavy: from 7 steps a BMC run on the default bounds took 5 s or more on 2 cores (and 20-30 s
# under load); the 8-step leak pairs 20-30 s (tests/test_leaks_z3.py).
HEAVY_DEPTH = 6


def defect_proposal(d: Defect, proposal):
    """`proposal` with defect d built in: d's bounds overrides and d's interpretation choices applied.

    >>> from model.moritani.profiles import PROFILES
    >>> p = defect_proposal(DEFECT_BY_ID["advanced-keeps-basic-grace"], PROFILES["default"])
    >>> p.interpretation.chose(ALLY_SEPARATION.ADVANCED), p.defects
    (True, ('advanced-keeps-basic-grace',))
    """
    return dataclasses.replace(proposal, bounds=dataclasses.replace(proposal.bounds, **dict(d.bounds)),
                               interpretation=proposal.interpretation.with_choices(*d.interpretation), defects=(d.id,))


MODULE = (("assassinate_leaders", True),)
CUNNING, BETRAYAL = (("nexus_card", "Moritani"),), (("nexus_card", "Atreides"),)
GRUMMAN = (("grumman", True),)
WORMS = (("worm_rides", True),)
DECK = (("deck", 1),)
SETUP = (("setup_forces", 1),)
CROSS_SHIP = (("cross_ship", True),)
RELOCATION = (("ambassador_relocation", True),)
# Two factions and three turns: the Sneak Attack puts Moritani beside Atreides in turn 2, Atreides accepts an
# alliance there in turn 3 (the formation turn), and turn 4 is the first in which Basic separates them.
SEPARATION_BOUNDS = (("factions", ("Moritani", "Atreides")), ("strongholds", ("Arrakeen",)), ("ambassador", None),
                     ("alliances", ()), ("faces", ("Sneak Attack", "Robbery")), ("turns", 3),
                     ("forces", (("Atreides", 1, 1),)), ("karama", ()))  # the defects of the optional Assassinate Leaders module

DEFECTS: tuple[Defect, ...] = (
    Defect("reload-recredits-extortion", "extortion-once", ("H1", "H2"),
           "a reload during the Extortion payer queue credits the reserved 5 a second time", depth=16),
    Defect("eome-duplicates-token", "token-conservation", ("H21", "H30"),
           "Enemy of My Enemy acceptance returns the token to supply but leaves it on the map", depth=9),
    Defect("ids-not-rotated", "public-ids-fresh", ("H4", "H12"),
           "a token returning to supply keeps the public ID everyone saw on the map", depth=9),
    Defect("epoch-bumped-twice", "ids-from-the-epoch", ("H4", "H5"),
           "a return to supply deals the fresh IDs and then moves the supply epoch on once more, so the ID "
           "sequence skips one at every return", depth=9),
    Defect("atomics-spares-advisors", "advisors-never-alone", ("R36", "R25", "A25"),
           "Atomics kills only the forces that occupy the territory: BG's advisors survive it, alone in the "
           "Aftermath", interpretation=(BG_ADVISORS_OCCUPY.COEXIST,), depth=9),
    # Under A5's unordered reading: under placement-first the re-opened step is already caught, three steps
    # earlier, by `placement-before-extortion` (defect recovery-reopens-step), and a state that violates a check
    # is not expanded, so the second placement would never be reached.
    Defect("recovery-reopens-placement", "placement-once", ("H28", "A5"),
           "recovering Extortion re-opens the Mentat placement step, and the re-opened step does not consult "
           "the turn's record (placementTurn), so a second placement follows",
           interpretation=(EXTORTION_MENTAT_ORDER.UNORDERED,), depth=26),
    Defect("reload-reopens-placement", "faults-change-nothing", ("H1",),
           "a reload re-runs the Mentat start handler and offers a second placement", depth=1),
    Defect("ally-triggers-terror", "trigger-legality", ("R12",),
           "Moritani's ally entering a token's stronghold opens a Terror decision",
           (("forces", (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 0, 1))),), depth=8),
    Defect("refusal-declines", "refusal-forces-reveal", ("R21", "H24"),
           "a refused alliance silently declines instead of forcing the reveal", depth=9),
    Defect("karama-block-ignored", "eome-obligations", ("H8", "R30"),
           "an offer blocked by Karama can be made again for the same entry", depth=9),
    Defect("offer-to-ecaz", "eome-obligations", ("R19",),
           "Enemy of My Enemy is offered to Ecaz",
           (("alliances", (("Atreides", "Bene Gesserit"),)),
            ("forces", (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 1, 0)))), depth=10),
    Defect("shipment-into-aftermath", "no-shipment-into-aftermath", ("R36",),
           "shipment into the Atomics Aftermath territory is allowed", depth=10),
    Defect("atomics-penalty-follows-new-ally", "hand-limits", ("A10", "H33", "H34"),
           "the Atomics penalty moves to Moritani's later ally; the ally at activation draws past its limit",
           (("factions", ("Moritani", "Atreides", "Ecaz")), ("strongholds", ("Arrakeen",)),
            ("ambassador", None), ("faces", ("Atomics", "Robbery")), ("turns", 3), ("bidding", True),
            ("forces", (("Atreides", 1, 1),)), ("alliances", (("Moritani", "Ecaz"),)), ("hand", 2),
            ("karama", ())), depth=32),
    Defect("extortion-payment-minted", "conservation", ("R37", "H25"),
           "an Extortion payment credits Moritani 3 without debiting the payer",
           (("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"), ("turns", 1),
            ("faces", ("Extortion", "Robbery"))), depth=18),
    Defect("retry-rerolls", "no-reroll", ("H7",),
           "retrying an accepted Assassination reveal draws a second victim", depth=9),
    Defect("advisor-entry-overwrites-terror", "no-lost-obligation", ("H9", "H36"),
           "the accompanying advisors' entry overwrites the Terror entry queued behind it", depth=11),
    Defect("advisor-choice-skipped", "witness-advisor-accompanies", ("A1", "A25"),
           "the arrival scheduler takes the queued advisor reaction off the queue without opening BG's choice, so "
           "no advisor ever accompanies a shipment (only legal games remain)", depth=45),
    Defect("recovery-reopens-step", "placement-before-extortion", ("A5", "H28", "R7"),
           "recovering Extortion sends the Mentat back to the placement step; the step consults the turn's record "
           "and only lets Moritani decline again, but the opportunity was offered twice", depth=20),
    Defect("visitors-of-anyone", "visitors-of-the-finished-player", ("R27", "A20"),
           "the end-of-turn visitor hook takes the first faction it finds at the recorded stronghold, not the one "
           "whose turn ended: it clears the record and the visitor keeps its forces beside its ally", depth=8),
    Defect("ally-visit-unrecorded", "visitors-leave", ("R27", "A20"),
           "an entry beside the ally is not recorded as a visit, so the forces that came are never sent to the Tanks",
           interpretation=(ALLY_ENTRY.SHIP_AND_MOVE,), depth=8),
    Defect("alliance-swap-one-sided", "alliance-symmetry", ("H21", "R20"),
           "Enemy of My Enemy acceptance leaves the former partners pointing at their old allies", depth=9),
    # An over-restriction (no refusal at all): the permission `may-refuse-extortion` sees the payer's state first,
    # and a state that violates a check is not expanded, so the deadlock there is no longer reported.
    Defect("extortion-pass-missing", "may-refuse-extortion", ("H25", "H40", "R37"),
           "an Extortion payer without 3 spice has no legal answer", depth=15),
    Defect("entry-close-stalls", "no-deadlock", ("H40", "H20"),
           "an entry made by movement never closes: once its Terror decision is resolved nobody can act", depth=7),
    Defect("atomics-returns-to-supply", "aftermath", ("R36", "H33"),
           "the revealed Atomics token goes back to supply like an unrevealed one, so it could be placed again",
           depth=7),
    # Step properties (model/moritani/steps.py): what one step may do to spice, tokens, cards and forces.
    Defect("robbery-rounding-to-bank", "spice-transfer", ("R39", "H17"),
           "Robbery gives Moritani half the entrant's spice rounded down and the odd spice to the bank", depth=8),
    Defect("robbery-pays-bank", "spice-payee", ("R39", "H17"),
           "the spice Robbery takes from the entrant is paid to the bank instead of Moritani", depth=8),
    Defect("extortion-paid-out-of-turn", "extortion-payer", ("R37", "A9", "H25"),
           "any eligible rival may pay the Extortion 3 at any point of the payer queue, not only at its turn",
           (("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"), ("turns", 1),
            ("faces", ("Extortion", "Robbery"))), depth=18),
    Defect("acceptance-removes-token", "token-destinations", ("R20", "H12"),
           "an accepted alliance sets the token aside out of the game instead of returning it to supply", depth=9),
    Defect("acceptance-drops-token", "token-conservation", ("R20", "H12", "H30"),
           "an accepted alliance drops the token instead of returning it to supply: marked out of the game, its "
           "record still names the stronghold it left", depth=9),
    Defect("reveal-any-placed-token", "reveal-entered-token", ("R11", "R14", "H10"),
           "the Terror decision lets Moritani reveal any of its placed tokens, not only the one in the entered "
           "stronghold", depth=16),
    Defect("karama-placement-still-commits", "karama-cancels-placement", ("R29", "H29"),
           "Karama against a placement spends the card but the token lands anyway", depth=2),
    Defect("karama-card-kept", "karama-spends-one-card", ("R30", "H8"),
           "Karama against Enemy of My Enemy cancels the offer without spending the Karama card", depth=8),
    Defect("atomics-spares-moritani", "atomics-kills-all", ("R36", "H33"),
           "Atomics sends only the rivals' forces to the Tanks; Moritani's own forces there survive",
           (("moritani_ships", True),), depth=12),
    Defect("sneak-ignores-occupancy", "sneak-attack-legal", ("R41", "H32"),
           "a positive Sneak Attack checks the storm but not the occupancy limit", depth=10),
    Defect("move-ignores-occupancy", "arrival-respects-occupancy", ("R25", "H32"),
           "movement into a stronghold checks the storm and allies but not the two-faction occupancy limit",
           (("forces", (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 0, 1))), ("alliances", ())), depth=8),
    Defect("move-from-reserves", "shipment-is-paid", ("R41", "H17"),
           "movement takes the moved force from reserves instead of the open desert: a free shipment", depth=4),
    Defect("atomics-returns-forces-to-reserves", "forces-transfer", ("R36", "H33"),
           "Atomics puts the forces it kills back into their owners' reserves instead of the Tanks", depth=7),
    Defect("decline-refunds-shipment", "entry-never-refunded", ("H16", "H17", "A3"),
           "declining the Terror decision undoes the entrant's shipment: the force goes back to reserves, the fee "
           "back to its owner", depth=8),
    Defect("gift-discards", "gift-is-a-transfer", ("R40", "H19"),
           "the Sabotage gift card leaves Moritani's hand but never reaches the entrant's", depth=8),
    Defect("robbery-rounds-down", "robbery-half", ("R39",),
           "Robbery takes half the entrant's spice rounded down", depth=8),
    Defect("bounty-paid-by-entrant", "assassination-bounty", ("R35",),
           "the Assassination bounty is taken from the victim's owner instead of the bank", depth=8),
    Defect("bounty-overdraws-entrant", "domain", ("R35",),
           "the Assassination bounty is taken from the victim's owner, the whole strength even when it holds "
           "less: its spice goes below zero", depth=8),
    Defect("move-renumbers-token", "ids-are-stable", ("H4",),
           "moving a placed token is handled as a removal and a new placement: the token gets a new public ID",
           depth=11),
    Defect("move-not-recorded", "placement-recorded", ("H1", "H28", "R9"),
           "moving a placed token does not record the turn's Mentat opportunity as used (only a placement "
           "from supply does)", depth=11),
    Defect("rob-any-rival", "target-is-entrant", ("R11", "R39"),
           "Robbery's spice option lets Moritani rob any rival, not only the entrant", depth=8),
    Defect("extortion-queue-skips", "extortion-queue", ("H25", "A9"),
           "a refusal to pay the Extortion moves the payer queue on by two rivals", depth=16),
    Defect("reload-restarts-extortion-queue", "faults-change-nothing", ("H1", "H25"),
           "a reload during the Extortion payer queue re-opens it from its first rival", depth=17),
    Defect("decline-runs-sneak-attack", "effect-follows-its-reveal", ("R13", "R41"),
           "declining a Sneak Attack token keeps it hidden but still lets Moritani send its free forces", depth=7),
    Defect("assassination-skips-close", "entry-closes", ("H40", "H20"),
           "after the Assassination victim is drawn the engine resumes the arrival's reactions without closing "
           "the entry", depth=8),
    Defect("robbery-card-lost", "hands-grow-by-draws", ("R39",),
           "Robbery's card option draws the top card, but the card never reaches Moritani's hand", depth=8),
    Defect("robbery-discard-at-the-limit", "discards-stop-at-the-limit", ("R39", "H18"),
           "Robbery's card makes Moritani discard when it brings the hand to its limit, not over it (>= for >)",
           bounds=(("moritani_hand", 2),), depth=9),
    Defect("robbery-takes-both", "one-effect-per-reveal", ("R39",),
           "after Robbery's spice is taken the whole choice stays open, so Moritani can take again: the card too, "
           "or the spice twice", depth=9),
    Defect("karama-block-persists", "offer-state-is-this-entrys", ("H8", "H20", "R30"),
           "the Karama block on Enemy of My Enemy is not cleared when the entry closes: later entries get no offer",
           depth=10),
    Defect("cancelled-placement-kept", "nothing-pending-outside-its-window", ("H1", "H29"),
           "a placement cancelled by Karama stays recorded as declared (a reload could still commit it)", depth=2),
    Defect("commit-any-supply-token", "placement-as-declared", ("R7", "R8"),
           "the placement that survives its Karama window lands whichever supply token the engine picks, not "
           "necessarily the declared one", depth=2),
    Defect("refusal-out-of-turn", "actor-has-the-turn", ("R37", "A9", "H25"),
           "any eligible rival may refuse the Extortion payment at any point of the queue, moving it on", depth=16),
    Defect("turn-skips-shipment", "turn-sequence", ("H40",),
           "the next turn resumes at the Mentat Pause: Shipment & Movement (and every entry) is skipped", depth=3),
    Defect("decline-keeps-decision", "every-step-progresses", ("H40", "R13"),
           "declining the Terror decision leaves the decision open, so Moritani can decline again and again", depth=7),
    # Ally separation (model/moritani/separation.py; R26, R27, A20, H22).
    Defect("separation-grace-forgotten", "atomics-kills-all", ("H22", "R26"),
           "the acceptance does not stamp the new alliance's formation turn (allySinceTurn), so Basic "
           "separation destroys the newly allied co-occupants on their formation turn", depth=33),
    Defect("separation-grace-never-expires", "allies-separate", ("R26", "H22"),
           "the formation stamp is never cleared: new allies that share a stronghold are never separated",
           SEPARATION_BOUNDS, depth=31),
    Defect("separation-ignores-order", "atomics-kills-all", ("R26", "R27"),
           "the first of two sharing allies to end its turn loses its forces, though its ally has not moved "
           "yet (only the later mover must leave)", SEPARATION_BOUNDS, depth=30),
    Defect("advanced-keeps-basic-grace", "allies-separate", ("R27", "A20"),
           "an engine moved to Advanced separation still honours Basic's formation-turn stamp, so an "
           "alliance accepted while sharing a stronghold keeps both partners there",
           interpretation=(ALLY_SEPARATION.ADVANCED,), depth=33),
    Defect("ambassador-survives-atomics", "spice-payee", ("R36", "A2"),
           "Atomics in the Ecaz Ambassador's stronghold leaves the Ambassador there, still taking spice from "
           "the arrival whose reaction waits behind the Atomics (with Terror first, A2: since the Ambassador is set "
           "aside once it reacts, issue 33, no later arrival can show it)",
           interpretation=(AMBASSADOR_VS_TERROR.TERROR_FIRST,), depth=10),
    Defect("nexus-kept-on-alliance", "nexus-card-discarded-on-alliance", ("R48", "R20"),
           "under discarded, an accepted alliance leaves the holder's Nexus card in its hand, so after the alliance "
           "breaks it can still play Betrayal (treachery.online discards it, Game_Alliances.cs:45-52; the model "
           "did this before issue 33)", NEXUS_BETRAYAL_BOUNDS, BETRAYAL, interpretation=(NEXUS_CARD_ON_ALLIANCE.DISCARDED,), depth=11),
    Defect("ambassador-never-spent", "spice-payee", ("A2", "R17"),
           "the Ecaz Ambassador stays in its stronghold after reacting, taking spice from every later arrival "
           "(E3 p.7 sets a triggered Ambassador aside; the model did this before issue 33)", depth=10),
    # BG Intrusion (model/moritani/intrusion.py; under bg-advisors-occupy: coexist).
    Defect("intrusion-flips-one", "intrusion-flips-only-when-owed", ("A1", "R25"),
           "BG Intrusion turns one of BG's fighters in the stronghold into an advisor instead of all of them",
           (("forces", (("Atreides", 1, 1), ("Bene Gesserit", 2, 0))),),
           interpretation=(BG_ADVISORS_OCCUPY.COEXIST,), depth=19),
    Defect("intrusion-ignored-after-sneak", "intrusion-answered", ("A14", "R41"),
           "a positive Sneak Attack's arrival skips the BG Intrusion check that every other arrival runs",
           interpretation=(BG_ADVISORS_OCCUPY.COEXIST, SNEAK_ATTACK_IS_SHIPMENT.ARRIVAL_CHECKS), depth=11),
    # Order sensitivity: a pair that should commute stops commuting (checks/analyses/ambiguity.py).
    Defect("advisor-overwrites-ambassador-payer", "bg-advisor~ecaz-ambassador", ("A1", "A2", "H9"),
           "the BG advisor's arrival overwrites the arrival the pending Ecaz Ambassador charges, so the "
           "Ambassador takes BG's spice if the advisor resolves first",
           (("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"), ("turns", 1)), depth=5),
    # Leaks: what a buggy engine shows a rival (model/moritani/observe.py); target hidden-identity.
    Defect("face-printed", "hidden-identity", ("H3",),
           "the public map view prints the face of every placed token", depth=2, small_depth=2),
    Defect("terror-options-public", "hidden-identity", ("H6", "A11"),
           "the Terror prompt shows every player which reveal Moritani may make", (("turns", 1),),
           depth=6, small_depth=8),
    Defect("offer-availability-public", "hidden-identity", ("A21", "H6"),
           "the entrant is shown whether Enemy of My Enemy could be offered, which depends on the face",
           (("leaderless", ("Atreides",)), ("turns", 1)), depth=6, small_depth=8),
    Defect("placement-declaration-public", "hidden-identity", ("H3", "H6"),
           "the placement's Karama window names the token Moritani declared", depth=1, small_depth=1),
    Defect("reply-names-effect", "hidden-identity", ("H6", "R21"),
           "the entrant's Enemy of My Enemy reply prompt labels 'refuse' with the effect Moritani would then "
           "reveal, read from the pending token", (("turns", 1),), depth=8, small_depth=10),
    Defect("decline-logs-face", "hidden-identity", ("H3", "H6"),
           "declining a Terror entry writes the kept token's face into the public game log (seen one step "
           "after the decision, not in the state where it is taken)", (("turns", 1),), depth=7, small_depth=9),
    # A possibilistic leak (checks/analyses/possible.py): a choice of Moritani's that depends on the face. No rival
    # sees Moritani's prompt, every game stays legal and no choice is withdrawn (an extra one is offered), so only
    # the possibilistic check catches it.
    Defect("sabotage-kept-for-gift", "possibilistic", ("H6", "R13", "R40"),
           "the engine's Terror prompt for a Sabotage token adds 'keep for the gift', a second decline logged under "
           "its own name: the token stays hidden as with decline, but every rival who sees that step learns it is "
           "Sabotage", (("turns", 1),), depth=7),
    # The engine bug the possibilistic check was first seeded with: withholding the offer is an over-restriction,
    # and since issue 33 the permission of that choice catches it first (at the decision, before any offer).
    Defect("offer-gate-misses-sabotage", "may-offer-alliance", ("A21", "H6", "R19"),
           "the engine's A21 gate finds no resolver for Sabotage and treats that effect as unsupported: Enemy of "
           "My Enemy is never offered for a Sabotage token (a rival who sees an offer also learns the token is "
           "not Sabotage)", (("turns", 1),), depth=6),
    # Assassinate Leaders module (model/moritani/assassinate.py): the bounds override turns it on.
    Defect("retired-card-reshuffled", "traitor-custody", ("R43",),
           "the Mentat replacement shuffles the revealed Traitor card back into the reserve deck instead of "
           "setting it aside as the faction's used marker", ASSASSINATE_BOUNDS, MODULE, depth=12),
    Defect("used-marker-ignored", "assassinate-once-per-faction", ("R43",),
           "a battle loss opens the reveal decision against a faction whose use is already spent",
           ASSASSINATE_BOUNDS + (("leaders", (5, 2, 1)),), MODULE, depth=21),
    Defect("forfeit-resets-each-turn", "assassinate-forfeit", ("A28", "R43"),
           "a normal traitor call forfeits Assassinate Leaders for that turn only (A28's superseded reading)",
           ASSASSINATE_BOUNDS, MODULE, depth=20),
    Defect("assassinate-offer-needs-card", "hidden-identity", ("R43",),
           "the reveal-or-continue decision opens only when Moritani holds a usable Traitor card, so every "
           "rival learns from the battle cleanup whether it does", ASSASSINATE_BOUNDS, MODULE, depth=10),
    # Nexus card module (model/moritani/nexus.py): the bounds override hands the card to Moritani or a rival.
    Defect("betrayal-loses-token", "betrayal-returns-to-supply", ("R48", "H41", "H30"),
           "Nexus Betrayal takes the token off the map without adding it to Moritani's supply (treachery.online "
           "before v169, issue #79)", NEXUS_BETRAYAL_BOUNDS, BETRAYAL, depth=5),
    Defect("betrayal-keeps-id", "public-ids-fresh", ("R48", "H4", "H12"),
           "a token returned by Nexus Betrayal keeps the public ID everyone saw on the map",
           NEXUS_BETRAYAL_BOUNDS, BETRAYAL, depth=5),
    Defect("betrayal-uses-placement", "betrayal-returns-to-supply", ("R48", "H11", "H28"),
           "Nexus Betrayal is handled as Moritani's own token operation and marks its placement used",
           NEXUS_BETRAYAL_BOUNDS, BETRAYAL, depth=5),
    Defect("placement-ignores-stack", "stacks-only-by-cunning", ("R8", "R47", "H11"),
           "the ordinary Mentat placement no longer checks that the stronghold is empty",
           NEXUS_CUNNING_BOUNDS, depth=11),
    Defect("cunning-card-kept", "stacks-only-by-cunning", ("R48", "H11"),
           "Nexus Cunning stacks the token but Moritani keeps its Nexus card", NEXUS_CUNNING_BOUNDS, CUNNING, depth=11),
    Defect("cunning-while-allied", "cunning-legal", ("R48",),
           "Nexus Cunning is accepted while Moritani is allied", NEXUS_CUNNING_BOUNDS
           + (("alliances", (("Moritani", "Ecaz"), ("Atreides", "Bene Gesserit"))),), CUNNING, depth=10),
    Defect("stack-first-in-array", "witness-stack-any-token", ("H10", "R47", "A17"),
           "an entry into a stack opens the first token in the engine's array order, not the one Moritani picks",
           NEXUS_CUNNING_BOUNDS, CUNNING, depth=45),
    Defect("stack-reveals-all", "one-decision-per-entry", ("R47", "A17"),
           "under one-chosen the decision reopens after a reveal for the other token of the stack",
           NEXUS_CUNNING_BOUNDS, CUNNING, depth=20),
    Defect("accept-returns-one", "acceptance-clears-stack", ("A17", "R20"),
           "under all-in-turn an accepted alliance returns only the token decided on and leaves the rest of "
           "the stack", NEXUS_CUNNING_BOUNDS, CUNNING, interpretation=(STACK_REVEAL.ALL_IN_TURN,), depth=20),
    # Grumman module (model/moritani/grumman.py).
    Defect("grumman-ignores-threshold", "low-grumman-threshold", ("R45", "H13"),
           "the arrival opens Terror on Grumman's low side whatever the size of the entering group",
           GRUMMAN_BOUNDS, GRUMMAN, depth=26),
    Defect("grumman-counts-to-two", "low-grumman-threshold", ("R45",),
           "an off-by-one low-side threshold: two entering forces are enough", GRUMMAN_BOUNDS, GRUMMAN, depth=30),
    Defect("grumman-advisor-entry-ignores-threshold", "low-grumman-threshold", ("R45", "H13", "A25"),
           "the arrival applies the low-side threshold but the queued BG advisor entry (one force) does not: two "
           "places ask the question differently (H13)", GRUMMAN_BOUNDS, GRUMMAN, depth=26),
    Defect("grumman-twice", "collection-operation-once", ("R46", "H42"),
           "a Grumman operation leaves Spice Collection open, so Moritani can repeat it for another 4 spice",
           GRUMMAN_BOUNDS, GRUMMAN, depth=11),
    Defect("grumman-pays-on-pass", "grumman-operation-legal", ("R46", "H42"),
           "declining the Grumman operation still pays the 4 spice", GRUMMAN_BOUNDS, GRUMMAN, depth=9),
    Defect("grumman-adds-anywhere", "grumman-operation-legal", ("R46", "R8"),
           "the Grumman addition accepts a stronghold that holds no token", GRUMMAN_BOUNDS, GRUMMAN, depth=9),
    Defect("grumman-add-uses-placement", "grumman-operation-legal", ("R46", "H11"),
           "the Grumman operation is recorded as Moritani's Mentat placement (placeTerror reused, H11)",
           GRUMMAN_BOUNDS, GRUMMAN, depth=10),
    Defect("grumman-remove-keeps-id", "public-ids-fresh", ("A18", "H4", "H12"),
           "a token removed to supply by Grumman keeps the public ID everyone saw on the map", GRUMMAN_BOUNDS,
           GRUMMAN, interpretation=(GRUMMAN_REMOVAL.TO_SUPPLY,), depth=10),
    Defect("grumman-stacks-when-low", "stack-made-legally", ("R46", "R45", "H11"),
           "under mentat-placement the Mentat placement may go onto a token on the low side too (Moritani ships, "
           "so its reserves fall below 8 before a Mentat Pause)", GRUMMAN_BOUNDS + (("moritani_ships", True),), GRUMMAN,
           interpretation=(GRUMMAN_ADDITION.MENTAT_PLACEMENT,), depth=15),
    Defect("set-aside-face-shown", "hidden-identity", ("A18", "H12"),
           "a token the Grumman removal set aside out of the game shows its face to everyone, as if revealed",
           GRUMMAN_SMALL_BOUNDS, GRUMMAN, interpretation=(GRUMMAN_REMOVAL.OUT_OF_GAME,), depth=8),
    Defect("eome-ignores-homeworld", "no-alliance-with-homeworld-occupier", ("R23",),
           "the Enemy of My Enemy offer forgets the Homeworld restriction: Moritani allies with the faction "
           "occupying its Homeworld", GRUMMAN_OCCUPIED_BOUNDS, (("homeworld_occupier", "Bene Gesserit"),), depth=10),
    Defect("occupier-triggers-terror", "occupier-opens-no-terror", ("R23", "H13"),
           "under trigger-and-offer the arrival still opens Terror for the Homeworld's occupier (one of the places "
           "that ask 'does this entry open Terror?' forgets the occupation)", GRUMMAN_OCCUPIED_BOUNDS,
           (("homeworld_occupier", "Bene Gesserit"),), interpretation=(HOMEWORLD_OCCUPATION.TRIGGER_AND_OFFER,),
           depth=7),
    # Worm-ride module (model/moritani/worms.py).
    Defect("ride-continuation-skipped", "ride-continues", ("H20",),
           "a worm ride's resolved entry goes on to Shipment & Movement: the remaining rides are lost",
           WORM_BOUNDS, WORMS, depth=5),
    Defect("ride-ignores-entry-causes", "entry-causes-respected", ("A24", "R11"),
           "under shipment-and-movement a worm ride still opens Terror", WORM_BOUNDS, WORMS,
           interpretation=(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT,), depth=6),
    Defect("ride-recorded-as-shipment", "entry-causes-respected", ("A24", "R11", "R17"),
           "under shipment-and-movement the worm ride is carried out through the shipment call site: its entry is "
           "recorded as a shipment, so it opens Terror (a check reading the recorded cause would not see it)",
           WORM_BOUNDS, WORMS, interpretation=(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT,), depth=6),
    Defect("ride-resumes-at-close", "nothing-pending-outside-its-window", ("H20", "H35"),
           "the ride sequence resumes when the ride's Terror entry closes, before the arrival is settled "
           "(finishTerrorEntry resuming nextWormRide itself)", WORM_BOUNDS, WORMS, depth=8),
    # Finite-deck module (model/moritani/deck.py).
    Defect("draw-from-nothing", "card-conservation", ("A16", "R39"),
           "a Robbery or bidding draw with both the deck and the discard pile empty still adds a card to the hand "
           "(treachery.online adds the null its draw returns)", DECK_BOUNDS, DECK, depth=11),
    Defect("reshuffle-keeps-discards", "card-conservation", ("A16",),
           "shuffling the discard pile into a new deck leaves the pile in place: every discarded card exists twice",
           DECK_BOUNDS, DECK, depth=20),
    Defect("discard-vanishes", "card-conservation", ("R39", "R40", "H18", "H33"),
           "a discarded card (Robbery overflow, Sabotage, Atomics trim) leaves the game instead of the discard pile",
           DECK_BOUNDS, DECK, depth=10),
    Defect("reshuffle-while-deck-lasts", "reshuffle-only-when-empty", ("A16",),
           "every draw first shuffles the discard pile back into the deck, though the deck still has cards",
           DECK_BOUNDS, DECK, depth=20),
    # Revival module (model/moritani/revival.py).
    Defect("revival-ignores-entry-causes", "revival-respects-entry-causes", ("A24", "R11"),
           "under shipment-and-movement a revival onto the planet still opens Terror", REVIVAL_BOUNDS,
           (("revival", "Atreides"),), interpretation=(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT,), depth=8),
    Defect("revival-recorded-as-shipment", "revival-respects-entry-causes", ("A24", "R11", "R17"),
           "under shipment-and-movement the revival is carried out through the shipment call site: its entry is "
           "recorded as a shipment, so it opens Terror (a check reading the recorded cause would not see it)",
           REVIVAL_BOUNDS, (("revival", "Atreides"),), interpretation=(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT,), depth=8),
    Defect("revival-skips-terror", "no-lost-obligation", ("A24", "R17", "H9"),
           "under every-arrival the revival's entry forgets to queue its Terror decision (a call site that does not "
           "open Terror for an entry other than shipment and movement)", REVIVAL_BOUNDS, (("revival", "Atreides"),),
           depth=8),
    # The Guild's cross-ship module (model/moritani/crossship.py).
    Defect("cross-ship-skips-terror", "no-lost-obligation", ("A24", "R17", "H9"),
           "the site-to-site shipment's call site never opens Terror (an entry other than an ordinary shipment or "
           "movement forgotten)", CROSS_SHIP_BOUNDS, CROSS_SHIP, depth=7),
    Defect("reserve-transport-opens-terror", "terror-needs-an-entry", ("R17", "R11"),
           "the Guild's transport back to reserves runs the arrival's reactions for the stronghold it leaves, so "
           "leaving a token's stronghold opens a Terror decision", CROSS_SHIP_BOUNDS, CROSS_SHIP, depth=7),
    Defect("cross-ship-into-aftermath", "no-shipment-into-aftermath", ("A23", "R36"),
           "under banned the site-to-site destinations forget the Aftermath", CROSS_SHIP_BOUNDS, CROSS_SHIP, depth=10),
    Defect("cross-ship-ignores-occupancy", "arrival-respects-occupancy", ("R25",),
           "the site-to-site destinations check only the storm: a cross-ship joins two other factions or its ally",
           CROSS_SHIP_BOUNDS, CROSS_SHIP, depth=11),
    Defect("cross-ship-keeps-origin", "forces-transfer", ("R6", "H16"),
           "the cross-shipped force is added to its destination and never taken from its origin", CROSS_SHIP_BOUNDS,
           CROSS_SHIP, depth=5),
    # Ambassador relocation (model/moritani/relocation.py).
    Defect("relocation-skips-terror", "no-lost-obligation", ("A24", "R17", "H9"),
           "the Ambassador continuation moves Ecaz's force but never queues its entry: no Terror decision",
           RELOCATION_BOUNDS, RELOCATION, depth=8),
    Defect("relocation-overwrites-entry", "no-lost-obligation", ("H9", "A2"),
           "the relocation becomes the arrival at once, overwriting the record of the arrival whose reactions are "
           "still under way: that arrival's own Terror decision is lost", RELOCATION_BOUNDS, RELOCATION, depth=8),
    Defect("relocation-ignores-entry-causes", "terror-needs-an-entry", ("A24", "R11"),
           "under shipment-and-movement the relocation still queues a Terror decision", RELOCATION_BOUNDS, RELOCATION,
           interpretation=(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT,), depth=8),
    Defect("relocation-ignores-occupancy", "arrival-respects-occupancy", ("R25",),
           "the relocation's destinations check only the storm: Ecaz joins two other factions or its ally",
           RELOCATION_BOUNDS, RELOCATION, depth=21),
    # Setup module (model/moritani/setup.py).
    Defect("setup-ignores-occupancy", "setup-unoccupied", ("R1",),
           "Moritani's setup checks only the kind of destination, so it may set up beside another faction's forces",
           SETUP_BOUNDS, SETUP, depth=1),
    Defect("setup-anywhere", "setup-unoccupied", ("A27", "R1"),
           "under setup-destination stronghold the open desert is still offered for Moritani's setup", SETUP_BOUNDS,
           SETUP, depth=1),
    # Real engines' behaviours that break a printed rule (issue 34): the deviations of the engine profiles
    # (model/moritani/deviations.py) build these. The first two stop the game: an exception, no rule applies after.
    Defect("robbery-draw-halts", "no-deadlock", ("R39", "A16"),
           "Robbery's card option with both the deck and the discard pile empty throws (DuneBot: pollLast gives null, "
           "requireNonNull throws) and the game stops", DECK_BOUNDS, DECK, depth=11),
    Defect("sabotage-empty-hand-halts", "no-deadlock", ("R40",),
           "Sabotage against an entrant with no Treachery card throws (DuneBot: getFirst on the empty shuffled hand) "
           "and the game stops", (("hand", 0), ("turns", 1)), depth=7),
    Defect("separation-never", "allies-separate", ("R26", "R27", "A20"),
           "allies sharing a stronghold are never separated: no end-of-turn separation step (DuneBot)",
           SEPARATION_BOUNDS, depth=31),
    Defect("no-karama-against-eome", "witness-karama-eome", ("R30", "A4"),
           "no Karama can stop an Enemy of My Enemy alliance: the offer goes to the entrant's reply with no window "
           "(DuneBot)", (("turns", 1),), depth=28),
)
# Over-restrictions (model/moritani/permissions.py `restrict`): a guard strengthened by one conjunct withdraws a
# choice the rules give; each is caught by the permission it targets (NOTE(permissions) in model/permissions.py).
EXTORTION_SMALL = (("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"), ("turns", 1), ("faces", ("Extortion", "Robbery")))
DEFECTS += (
    Defect("ship-not-into-token-stronghold", "may-ship", ("R11", "R17"),
           "a shipment into a stronghold holding a Terror token is refused (a preflight that rejects any entry Terror "
           "could answer)", depth=4),
    Defect("move-not-into-token-stronghold", "may-move", ("R11", "R17"),
           "a move into a stronghold holding a Terror token is refused", depth=4),
    Defect("pass-only-without-reserves", "may-pass-turn", ("R17",),
           "a faction with reserves may not pass: it must ship", depth=3),
    Defect("advisor-only-beside-bg", "may-accompany", ("A25",),
           "BG's free advisor may go only where BG already has forces", depth=5),
    Defect("advisor-mandatory-with-reserves", "may-decline-advisor", ("A25",),
           "BG with a reserve may not decline the free advisor", depth=5),
    Defect("intrusion-flip-needs-two", "may-flip-advisors", ("A1", "R25"),
           "BG Intrusion may flip its fighters only when two or more stand in the stronghold",
           (("forces", (("Atreides", 1, 1), ("Bene Gesserit", 2, 0))),), interpretation=(BG_ADVISORS_OCCUPY.COEXIST,), depth=10),
    Defect("intrusion-stay-needs-advisors", "may-keep-fighters", ("A1", "R25"),
           "BG may keep its fighters only when it already has advisors in the stronghold",
           (("forces", (("Atreides", 1, 1), ("Bene Gesserit", 2, 0))),), interpretation=(BG_ADVISORS_OCCUPY.COEXIST,), depth=10),
    Defect("decline-only-after-shipment", "may-decline", ("R13", "R11"),
           "Moritani may keep the token hidden only when the entrant shipped in (a moved entrant forces a reveal)", depth=6),
    Defect("reveal-needs-no-ally", "may-reveal", ("R11", "R39"),
           "Robbery can be revealed only while Moritani has no ally", depth=6),
    Defect("offer-needs-unallied-entrant", "may-offer-alliance", ("R19", "R20", "R22"),
           "Enemy of My Enemy (for the Robbery token) is offered only to an unallied entrant, as an ordinary "
           "alliance would need (R20: the old alliance breaks instead)", depth=6),
    Defect("karama-eome-only-by-entrant", "may-karama-eome", ("R30", "A4"),
           "only the entrant may play Karama against the alliance offer", depth=8),
    Defect("accept-needs-unallied", "may-accept-alliance", ("R20",),
           "the entrant may accept Enemy of My Enemy only while it has no ally (R20: its old alliance breaks)", depth=8),
    Defect("refusal-needs-card", "may-refuse-alliance", ("R21",),
           "the entrant may refuse the offer only while it holds a Treachery card", depth=27),
    Defect("rob-spice-needs-rich-entrant", "may-rob-spice", ("R39",),
           "Robbery's spice option is offered only against an entrant holding 3 spice or more", depth=8),
    Defect("rob-card-needs-room", "may-rob-card", ("R39",),
           "Robbery's card option is refused to Moritani with a full hand (R39: a full hand does not bar it)", depth=7),
    Defect("zero-sneak-attack-refused", "may-sneak-attack", ("R41", "A31"),
           "the Sneak Attack must send at least one force: Moritani with its reserves blocked or spent has no move", depth=7),
    Defect("gift-only-to-unallied", "may-give-gift", ("R40",),
           "after Sabotage Moritani may give a card only to an entrant without an ally", depth=7),
    Defect("pass-only-with-empty-hand", "may-withhold-gift", ("R40", "H19"),
           "after Sabotage Moritani may give nothing only when it holds no card (the gift becomes mandatory)", depth=7),
    Defect("placement-not-where-forces", "may-place-token", ("R8", "R10"),
           "the Mentat placement refuses a stronghold where forces stand (occupation read as a token there)", depth=9),
    Defect("token-move-not-where-forces", "may-move-token", ("R8", "R10"),
           "the Mentat move refuses a stronghold where forces stand", depth=10),
    Defect("skip-only-with-empty-supply", "may-skip-placement", ("R9",),
           "Moritani may decline the Mentat opportunity only when its supply is empty", depth=0),
    Defect("karama-placement-only-by-ally", "may-karama-placement", ("R29",),
           "only Moritani's ally may play Karama against the placement", depth=1),
    Defect("payer-needs-surplus", "may-pay-extortion", ("R37", "A8"),
           "a rival may pay the Extortion 3 only with 4 spice or more", EXTORTION_SMALL, depth=17),
    Defect("refusal-only-when-broke", "may-refuse-extortion", ("R37", "H25"),
           "the pass is offered only to a payer who cannot pay: a rival with 3 spice must pay the Extortion",
           EXTORTION_SMALL, depth=17),
    Defect("ride-carries-two", "may-ride-worm", ("A24", "R17"),
           "a worm ride must carry two forces or more", WORM_BOUNDS, WORMS, depth=3),
    Defect("rides-mandatory", "may-end-rides", ("H20",),
           "Fremen may stop riding only after a first ride", WORM_BOUNDS, WORMS, depth=3),
    Defect("revival-needs-two-in-tanks", "may-revive", ("A24", "R17"),
           "the revival onto the planet needs two forces in the Tanks", REVIVAL_BOUNDS, (("revival", "Atreides"),), depth=3),
    Defect("revival-mandatory", "may-end-revival", ("A24",),
           "the rival may end the revival step only after reviving", REVIVAL_BOUNDS, (("revival", "Atreides"),), depth=3),
    Defect("cross-ship-not-into-token", "may-cross-ship", ("A24", "R17"),
           "the Guild's cross-ship refuses a stronghold holding a Terror token", CROSS_SHIP_BOUNDS, CROSS_SHIP, depth=5),
    Defect("to-reserves-only-from-desert", "may-ship-to-reserves", ("R17",),
           "the Guild may ship back to reserves only from the open desert", CROSS_SHIP_BOUNDS, CROSS_SHIP, depth=4),
    Defect("relocation-not-into-token", "may-relocate", ("A24", "R17"),
           "the Ambassador relocation refuses a stronghold holding a Terror token", RELOCATION_BOUNDS, RELOCATION, depth=6),
    Defect("betrayal-needs-spice", "may-betray", ("R48",),
           "Betrayal is playable only by a holder with 4 spice or more", NEXUS_BETRAYAL_BOUNDS, BETRAYAL, depth=4),
    Defect("cunning-needs-spice", "may-play-cunning", ("R48",),
           "Cunning is playable only while Moritani holds 3 spice or more", NEXUS_CUNNING_BOUNDS, CUNNING, depth=9),
    Defect("grumman-pass-needs-poor-bank", "may-pass-grumman", ("R46",),
           "Moritani may pass the Grumman operation only when the bank cannot pay it", GRUMMAN_BOUNDS, GRUMMAN, depth=8),
    Defect("grumman-add-stale-turn", "may-grumman-add", ("R46",),
           "the Grumman addition is offered only in the first turn (a stale turn stamp), when no token is on the map "
           "yet", GRUMMAN_BOUNDS, GRUMMAN, depth=9),
    Defect("setup-avoids-ambassador", "may-set-up", ("R1",),
           "Moritani's setup refuses the stronghold where the Ecaz Ambassador stands (counted as occupied)",
           SETUP_BOUNDS, SETUP, depth=0),
    Defect("continue-only-when-spent", "may-continue-battle", ("R43",),
           "after the lost battle Moritani may continue only once its use against that faction is spent",
           ASSASSINATE_BOUNDS, MODULE, depth=10),
)
DEFECT_BY_ID = {d.id: d for d in DEFECTS}


def check_defects(ids, bounds=None) -> frozenset:
    for d in ids:
        if d not in DEFECT_BY_ID:
            raise ModelError(f"unknown seeded defect '{d}'; valid: {choices(DEFECT_BY_ID)}")
        for key, value in DEFECT_BY_ID[d].needs if bounds is not None else ():
            if getattr(bounds, key) != value:
                raise ModelError(f"seeded defect '{d}' needs bounds.{key}: {str(value).lower()}")
    return frozenset(ids)
