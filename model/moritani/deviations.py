"""Engines as implemented (issue 34): real engines' behaviours that break a printed rule, as data.

A deviation names the engine profile it belongs to, the seeded defect that builds the behaviour into the
model (model/moritani/defects.py: its bounds show it, its target check catches it), the catalogue IDs of
the rule it breaks, and where the engine does it (file:line@commit). A profile lists its deviations
(`Proposal.deviations`); they are not part of the profile's model: `rulecheck check` runs each one as its
own game and reports it as a violation, `--as-printed` leaves them out. Behaviours the model cannot
express are listed in docs/engines.md ("Behaviours we cannot express"), each with the reason.

>>> DEVIATION_BY_ID["dunebot-offer-to-ecaz"].defect
'offer-to-ecaz'
>>> sorted({d.engine for d in DEVIATIONS})
['dunebot', 'quintine', 'treachery-online']
"""
from __future__ import annotations

from dataclasses import dataclass

from model.errors import ModelError
from model.moritani.defects import DEFECT_BY_ID
from model.moritani.profiles import PROFILES

DUNEBOT = "voiceofonecrying/DuneBot@6593b774565ea0c1e6f0f014f8f6a7e26c046a7a"
TREACHERY = "ronaldossendrijver/treachery.online@5e6a9440b144e79e25bb793dd5d7436648c74f1d"
QUINTINE = "Quintine/Dune (stored public index; docs at 0040ed19)"
MAIN = "src/main/java/"


@dataclass(frozen=True)
class Deviation:
    """One engine behaviour that breaks a printed rule (see the module docstring)."""

    id: str
    engine: str       # the engine profile (PROFILES key)
    defect: str       # the seeded defect that builds it into the model
    ids: tuple        # catalogue IDs of the rule it breaks (R#, H#)
    title: str        # a bug report's title, in the engine author's words
    rule: str         # the rule text it breaks, paraphrased, cited by ID
    where: tuple      # the engine's code: ("path:lines", ...) at `source`
    source: str       # repository@commit the lines are at
    doc: str = ""     # what the engine does, in game words


DEVIATIONS = (
    # DuneBot (docs/engines.md, "Engines as implemented").
    Deviation("dunebot-offer-to-ecaz", "dunebot", "offer-to-ecaz", ("R19",),
              "Enemy of My Enemy can be offered to Ecaz",
              "R19: instead of revealing, Moritani may offer the entrant an alliance; Ecaz cannot receive this offer.",
              (MAIN + "model/factions/MoritaniFaction.java:389", MAIN + "model/factions/MoritaniFaction.java:455-465"),
              DUNEBOT, "the Offer alliance button is built for every entrant, and presentTerrorAllianceChoices tests "
                       "only whether the entrant is already Moritani's ally"),
    Deviation("dunebot-offer-to-homeworld-occupier", "dunebot", "eome-ignores-homeworld", ("R23",),
              "Enemy of My Enemy can be offered to the faction occupying Moritani's Homeworld",
              "R23: a faction cannot ally with a faction that occupies its Homeworld.",
              (MAIN + "model/factions/MoritaniFaction.java:380-392", MAIN + "model/factions/MoritaniFaction.java:455-465",
               MAIN + "model/Game.java:2256-2269"),
              DUNEBOT, "neither the trigger check nor the offer looks at Grumman's occupation; createAlliance forms "
                       "the alliance"),
    Deviation("dunebot-sneak-attack-ignores-occupancy", "dunebot", "sneak-ignores-occupancy", ("R41", "H32"),
              "Sneak Attack sends forces into a stronghold two other factions already hold",
              "R41: Sneak Attack brings up to 5 reserve forces in for free, obeying storm and occupancy rules.",
              (MAIN + "model/factions/MoritaniFaction.java:172-181", MAIN + "controller/buttons/MoritaniButtons.java:200-211"),
              DUNEBOT, "the 1..5 buttons are disabled only by Moritani's reserves, and the press places the forces "
                       "with no occupancy or storm test"),
    Deviation("dunebot-offer-buttons-name-the-face", "dunebot", "reply-names-effect", ("H6", "R21"),
              "The alliance offer's Yes/No buttons carry the hidden Terror face in their identifiers",
              "H6, R21: the token stays hidden until it is revealed; the entrant answers the offer without knowing "
              "what a refusal would reveal.",
              (MAIN + "model/factions/MoritaniFaction.java:460-462", MAIN + "controller/buttons/MoritaniButtons.java:163-166"),
              DUNEBOT, "the buttons published in the entrant's channel are moritani-accept-offer-<territory>-<face> "
                       "and moritani-deny-offer-<territory>-<face> (test testPresentTerrorAllianceChoices asserts "
                       "moritani-accept-offer-Arrakeen-Robbery): anyone who can read a button's identifier learns "
                       "the face"),
    Deviation("dunebot-robbery-draw-from-nothing-halts", "dunebot", "robbery-draw-halts", ("R39", "A16"),
              "Robbery's card option stops the game when the deck and the discard pile are both empty",
              "R39: Moritani takes half the entrant's spice or the top Treachery card (A16: with no card to draw, "
              "nothing is drawn).",
              (MAIN + "model/factions/MoritaniFaction.java:207-217",),
              DUNEBOT, "after the reshuffle of an empty discard pile, pollLast returns null and requireNonNull "
                       "throws: the button press fails and the Robbery never resolves"),
    Deviation("dunebot-sabotage-empty-hand-halts", "dunebot", "sabotage-empty-hand-halts", ("R40",),
              "Sabotage against an entrant with no Treachery card stops the game",
              "R40: randomly draw and discard one of the entrant's Treachery cards if it has any; then Moritani "
              "may give it a card.",
              (MAIN + "model/factions/MoritaniFaction.java:160-163",),
              DUNEBOT, "the entrant's hand is shuffled and getFirst() is called on it: on an empty hand it throws"),
    Deviation("dunebot-no-ally-separation", "dunebot", "separation-never", ("R26", "R27"),
              "Allies sharing a stronghold after Enemy of My Enemy are never separated",
              "R26 (Base p.12): new allies still sharing a territory must separate by the next Shipment & "
              "Movement; the later mover that stays loses its forces there (R27 in the Advanced rules).",
              (MAIN + "controller/buttons/MoritaniButtons.java:163-171", MAIN + "model/Game.java:2256-2269",
               MAIN + "model/Game.java:1794-1806"),
              DUNEBOT, "the acceptance forms the alliance where both stand, and ending a faction's turn only "
                       "prompts the next one: no separation step exists"),
    Deviation("dunebot-no-karama-against-eome", "dunebot", "no-karama-against-eome", ("R30",),
              "No Karama can stop an Enemy of My Enemy alliance",
              "R30: Karama can stop Enemy of My Enemy forming its alliance; revealing the token remains available.",
              (MAIN + "model/factions/MoritaniFaction.java:455-465", MAIN + "controller/buttons/MoritaniButtons.java:163-171"),
              DUNEBOT, "the offer goes straight to the entrant's Yes/No buttons and Yes forms the alliance; no "
                       "player is asked for Karama"),
    Deviation("dunebot-stack-token-by-token", "dunebot", "stack-reveals-all", ("R47",),
              "An entry into a stronghold with two Terror tokens opens a decision for each token",
              "R47: one entry activates at most one token of a stack; Moritani chooses which, the others stay put.",
              (MAIN + "model/factions/MoritaniFaction.java:386-392",),
              DUNEBOT, "checkForTerrorTrigger publishes a Trigger / Offer alliance / Don't Trigger prompt per token "
                       "(test testTwoTokensCanBeTriggered), each answered on its own"),
    # treachery.online (docs/engines.md).
    Deviation("treachery-robbery-draws-a-null-card", "treachery-online", "draw-from-nothing", ("R39", "A16"),
              "Robbery's card option adds a card that does not exist when the deck and the discard pile are empty",
              "R39: Moritani takes the top Treachery card (A16: with no card to draw, nothing is drawn).",
              ("Shared/Events/TerrorRevealed.cs:214", "Shared/Game_Bidding.cs:354-374"),
              TREACHERY, "DrawTreacheryCard returns null when both piles are empty, and the Robbery adds that null "
                         "to Moritani's hand"),
    Deviation("treachery-grumman-removal-repeats", "treachery-online", "grumman-twice", ("R46", "H42"),
              "Grumman's high-side removal can be repeated within one Spice Collection, 4 spice each time",
              "R46: during Spice Collection Moritani may add a token to a stronghold that already has one, or remove "
              "a board token, then gain 4 spice: one operation.",
              ("Shared/Events/TerrorPlanted.cs:73-76", "Shared/Events/TerrorPlanted.cs:93"),
              TREACHERY, "MayRemoveTokens does not test CyanHasPerformedTerror (only the Mentat planting does)"),
    # Quintine/Dune (docs/engines.md, eome-gate-secrecy).
    Deviation("quintine-offer-gate-shows-the-face", "quintine", "offer-availability-public", ("H6", "A21", "R19"),
              "Whether Enemy of My Enemy can be offered depends on the hidden face (the A21 gate)",
              "R19, H6: Moritani may offer an alliance for any token that would trigger; nothing public may depend on "
              "the hidden face.",
              ("docs/MORITANI_ENEMY_ALLIANCE.md lines 29, 38 (terrorAllianceBlocked)",),
              QUINTINE, "terrorAllianceBlocked refuses the offer before it is announced when the reveal a refusal "
                        "forces is not allowed (an Assassination against an entrant with no living leader, A11 "
                        "gated); its own rules document calls this a temporary implementation gate"),
)
DEVIATION_BY_ID = {d.id: d for d in DEVIATIONS}


def _checked() -> None:
    """Every deviation builds a known defect for a known engine profile, and every profile lists known ones."""
    for d in DEVIATIONS:
        if d.defect not in DEFECT_BY_ID:
            raise ModelError(f"deviation '{d.id}' names unknown seeded defect '{d.defect}'")
        if d.engine not in PROFILES:
            raise ModelError(f"deviation '{d.id}' names unknown engine profile '{d.engine}'")
    for name, p in PROFILES.items():
        for i in p.deviations:
            if i not in DEVIATION_BY_ID or DEVIATION_BY_ID[i].engine != name:
                raise ModelError(f"profile '{name}' lists deviation '{i}', which is not one of its engine's")


_checked()

