"""Proposals: a named interpretation with bounds; the embedded profiles.

>>> PROFILES["default"].interpretation.choice(KARAMA_EOME_TIMING)
<KARAMA_EOME_TIMING.BEFORE_REPLY: 'before-reply'>
>>> PROFILES["treachery-online"].interpretation.chose(KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE)
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from model.moritani.config import (ACCOMPANY_LIMITS, ALLY_ENTRY, ALLY_SEPARATION, AMBASSADOR_VS_TERROR, ASSASSINATION_WITHOUT_LEADER,
                                   ATOMICS_PENALTY, BETRAYAL_TIMING, BG_ADVISORS_OCCUPY, COLLECTION_OPERATIONS,
                                   CROSS_SHIP_INTO_AFTERMATH, CUNNING_REACH, EOME_WHEN_REVEAL_BLOCKED,
                                   EXTORTION_MENTAT_ORDER, GRUMMAN_ADDITION, GRUMMAN_REMOVAL, HOMEWORLD_OCCUPATION,
                                   KARAMA_EOME_TIMING, NEXUS_CARD_ON_ALLIANCE, SABOTAGE_GIFT_OVERFLOW, SETUP_DESTINATION,
                                   SNEAK_ATTACK_IS_SHIPMENT, STACK_REVEAL, TERROR_VS_ARRIVAL_REACTIONS, Bounds, Interpretation)
from model.moritani.config import GRUMMAN_HIGH_PLACEMENT


@dataclass(frozen=True)
class Proposal:
    name: str
    description: str = ""
    interpretation: Interpretation = field(default_factory=Interpretation)
    bounds: Bounds = field(default_factory=Bounds)
    source: str = "embedded"
    defects: tuple = ()  # seeded defects to build in (demonstrations and tests of the checker itself)
    # The bounds entries a proposal file wrote itself (check's default depth never overrides one of them).
    given_bounds: frozenset = field(default=frozenset(), compare=False)
    # The embedded profile a proposal file started from (`extends:`); what the game is, is in the fields above.
    extends: str | None = field(default=None, compare=False)
    # A real engine's behaviours that break a printed rule (model/moritani/deviations.py, by ID). They are not
    # built into the profile's model: `check` runs each as its own game and reports it as a violation;
    # `check --as-printed` leaves them out (docs/engines.md, "Engines as implemented").
    deviations: tuple = field(default=(), compare=False)

    def to_json(self) -> dict:
        out: dict[str, object] = {"name": self.name, "source": self.source} | ({"extends": self.extends} if self.extends else {}) | {
               "interpretation": self.interpretation.as_dict(), "bounds": self.bounds.as_dict()}
        if self.defects:
            out["defects"] = list(self.defects)
        return out


# A profile's bounds as (Bounds field, value) pairs: `Bounds(**dict(items))`; the values differ in type per field.
BoundsItems = tuple[tuple[str, Any], ...]

# The Assassinate Leaders module on small bounds (three factions, no alliances so both rivals can battle
# Moritani, one stronghold, the Assassination and Extortion faces): docs/checking.md.
ASSASSINATE_BOUNDS: BoundsItems = (("assassinate_leaders", True), ("factions", ("Moritani", "Atreides", "Bene Gesserit")),
                      ("strongholds", ("Arrakeen",)), ("ambassador", None), ("alliances", ()),
                      ("faces", ("Assassination", "Extortion")))

# The Nexus card module (model/moritani/nexus.py) on one stronghold, so that Cunning's stack and the entries
# into it happen within two turns: Moritani unallied holds the card (Cunning), or an unallied rival does
# (Betrayal). docs/checking.md, "Nexus card and stacks".
NEXUS_CUNNING_BOUNDS: BoundsItems = (("nexus_card", "Moritani"), ("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"),
                        ("alliances", (("Atreides", "Bene Gesserit"),)))
NEXUS_BETRAYAL_BOUNDS: BoundsItems = (("nexus_card", "Atreides"), ("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"),
                         ("alliances", (("Moritani", "Ecaz"),)))

# The Grumman module (model/moritani/grumman.py) on one stronghold: Moritani starts with the printed 8 native
# reserves (the high side) and drops to the low side after a Sneak Attack; Atreides has 3 forces in reserves so
# that an entry of 3 is possible on the low side. docs/checking.md, "Grumman".
GRUMMAN_BOUNDS: BoundsItems = (("grumman", True), ("strongholds", ("Arrakeen",)), ("ambassador", None),
                  ("moritani_forces", 8), ("forces", (("Atreides", 4, 0), ("Bene Gesserit", 1, 0))), ("spice", 4))
# The Grumman module on two factions and two faces: small enough for the leak checks of a removed face (A18).
GRUMMAN_SMALL_BOUNDS: BoundsItems = (("grumman", True), ("factions", ("Moritani", "Atreides")), ("strongholds", ("Arrakeen",)),
                        ("ambassador", None), ("alliances", ()), ("faces", ("Sneak Attack", "Robbery")),
                        ("moritani_forces", 8), ("forces", (("Atreides", 4, 0),)), ("spice", 4), ("karama", ()))
# Both modules at once (issue 15: Cunning onto a Grumman stack): the Grumman bounds with Moritani, unallied,
# holding its Nexus card.
GRUMMAN_NEXUS_BOUNDS: BoundsItems = GRUMMAN_BOUNDS + (("nexus_card", "Moritani"), ("alliances", (("Atreides", "Bene Gesserit"),)))

# Worm rides (model/moritani/worms.py) on one stronghold: Moritani, Atreides and Fremen (2 forces in the open desert),
# no alliances. docs/checking.md, "Worm rides".
WORM_BOUNDS: BoundsItems = (("worm_rides", True), ("factions", ("Moritani", "Atreides", "Fremen")), ("strongholds", ("Arrakeen",)),
               ("ambassador", None), ("alliances", ()), ("forces", (("Atreides", 1, 1), ("Fremen", 0, 2))))

# A finite Treachery deck (model/moritani/deck.py) of one card with the bidding card on offer each turn, on one
# stronghold: the deck runs out, the discard pile is reshuffled, and a Robbery may find nothing to draw (A16).
# docs/checking.md, "Finite deck".
DECK_BOUNDS: BoundsItems = (("deck", 1), ("bidding", True), ("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"))

# Moritani's setup (model/moritani/setup.py): Atreides starts with a force in Arrakeen, so under the engine's
# `stronghold` choice Moritani sets up in Carthag, beside the Ecaz Ambassador. One of Moritani's three forces is
# placed; two stay for the Sneak Attack. docs/checking.md, "Moritani's setup".
SETUP_BOUNDS: BoundsItems = (("setup_forces", 1), ("moritani_forces", 3), ("garrisons", (("Atreides", "Arrakeen", 1),)))

# Moritani's Homeworld occupied by Atreides (model/moritani/homeworld.py, R23): no alliance offer to Atreides.
GRUMMAN_OCCUPIED_BOUNDS: BoundsItems = GRUMMAN_BOUNDS + (("homeworld_occupier", "Bene Gesserit"),)

# Revival onto the planet (model/moritani/revival.py): Atreides revives its one force in the Tanks, on one stronghold.
REVIVAL_BOUNDS: BoundsItems = (("revival", "Atreides"), ("strongholds", ("Arrakeen",)), ("ambassador", "Arrakeen"),
                  ("forces", (("Atreides", 2, 0), ("Bene Gesserit", 1, 0))))

# The Guild's cross-ship (model/moritani/crossship.py): Moritani, Atreides and the Guild on Arrakeen and Tuek's
# Sietch, no alliances, four faces (Atomics for the Aftermath); the Guild starts with a force in Tuek's Sietch and one in the open desert, so that it can
# cross-ship out of a stronghold or from the desert, and ship back to its reserves. docs/checking.md.
CROSS_SHIP_BOUNDS: BoundsItems = (("cross_ship", True), ("factions", ("Moritani", "Atreides", "Guild")),
                     ("strongholds", ("Arrakeen", "Tuek's Sietch")), ("ambassador", None), ("alliances", ()),
                     ("faces", ("Atomics", "Extortion", "Robbery", "Sneak Attack")),
                     ("forces", (("Atreides", 1, 0), ("Guild", 0, 1))), ("garrisons", (("Guild", "Tuek's Sietch", 1),)))

# Ambassador relocation (model/moritani/relocation.py): Moritani, Atreides and an unallied Ecaz on Arrakeen (with the
# Ambassador) and Carthag; Ecaz has one force in the open desert to relocate, Atreides two in reserves.
# docs/checking.md.
RELOCATION_BOUNDS: BoundsItems = (("ambassador_relocation", True), ("factions", ("Moritani", "Atreides", "Ecaz")),
                     ("strongholds", ("Arrakeen", "Carthag")), ("ambassador", "Arrakeen"), ("alliances", ()),
                     ("faces", ("Atomics", "Extortion", "Robbery", "Sneak Attack")),
                     ("forces", (("Atreides", 2, 0), ("Ecaz", 0, 1))))

# Worm rides with Moritani's Nexus card (issue 15's combined profile: a worm ride into a stack Cunning made).
WORM_NEXUS_BOUNDS: BoundsItems = WORM_BOUNDS + (("nexus_card", "Moritani"),)

# treachery.online's recorded choices (docs/engines.md: each with the file and commit it was read from).
TREACHERY_ONLINE = Interpretation.of(
    TERROR_VS_ARRIVAL_REACTIONS.TERROR_FIRST, AMBASSADOR_VS_TERROR.AMBASSADOR_FIRST,
    KARAMA_EOME_TIMING.PRE_EMPTIVE_PHASE, EXTORTION_MENTAT_ORDER.EXTORTION_FIRST,
    ATOMICS_PENALTY.FOLLOWS_CURRENT_ALLY, SABOTAGE_GIFT_OVERFLOW.ALLOW_OVERFLOW,
    SNEAK_ATTACK_IS_SHIPMENT.ARRIVAL_CHECKS, ASSASSINATION_WITHOUT_LEADER.FIZZLES, BG_ADVISORS_OCCUPY.COEXIST,
    EOME_WHEN_REVEAL_BLOCKED.OFFER_ANYWAY, ALLY_SEPARATION.LATER_MOVER, STACK_REVEAL.ALL_IN_TURN,
    CUNNING_REACH.PLACEMENT_AND_MOVE, BETRAYAL_TIMING.ANY_TIME, GRUMMAN_ADDITION.MENTAT_PLACEMENT,
    GRUMMAN_REMOVAL.TO_SUPPLY, COLLECTION_OPERATIONS.REPEATABLE, SETUP_DESTINATION.TERRITORY,
    HOMEWORLD_OCCUPATION.TRIGGER_AND_OFFER, CROSS_SHIP_INTO_AFTERMATH.BANNED, NEXUS_CARD_ON_ALLIANCE.DISCARDED,
    ALLY_ENTRY.SHIP_AND_MOVE, ACCOMPANY_LIMITS.ALLY_OR_FIGHTERS)

# DuneBot's choices (docs/engines.md, the DuneBot column: each with its file and line at commit 6593b774). Where
# DuneBot's behaviour breaks a printed rule (no ally separation, no Karama against Enemy of My Enemy, a stack decided
# token by token), the switch keeps the printed reading here and the break is one of the profile's deviations.
DUNEBOT = Interpretation.of(
    TERROR_VS_ARRIVAL_REACTIONS.UNORDERED, AMBASSADOR_VS_TERROR.UNORDERED, EXTORTION_MENTAT_ORDER.UNORDERED,
    ATOMICS_PENALTY.FOLLOWS_CURRENT_ALLY, SABOTAGE_GIFT_OVERFLOW.ALLOW_OVERFLOW,
    SNEAK_ATTACK_IS_SHIPMENT.ARRIVAL_CHECKS, ASSASSINATION_WITHOUT_LEADER.FIZZLES, BG_ADVISORS_OCCUPY.COEXIST,
    EOME_WHEN_REVEAL_BLOCKED.OFFER_ANYWAY, GRUMMAN_ADDITION.MENTAT_PLACEMENT, GRUMMAN_REMOVAL.TO_SUPPLY,
    SETUP_DESTINATION.TERRITORY, GRUMMAN_HIGH_PLACEMENT.PLACE_UNLESS_REMOVED)

PROFILES = {
    "default": Proposal(
        "default",
        "The Quintine/Dune engine's recorded choices (catalogue A#) on small embedded bounds"),
    "printed-rules": Proposal(
        "printed-rules",
        "Only what the printed rules fix: every order they leave open (A1, A2, A5) is explored",
        Interpretation.of(TERROR_VS_ARRIVAL_REACTIONS.UNORDERED, AMBASSADOR_VS_TERROR.UNORDERED,
                          EXTORTION_MENTAT_ORDER.UNORDERED,
                          ALLY_ENTRY.REFUSED)),  # R25 as printed: allies cannot enter a territory their ally holds
    # The two public engines (docs/engines.md: each switch's choice with the file and commit it was read from).
    "quintine": Proposal(
        "quintine",
        "Quintine/Dune (the seeds' engine): every switch at that engine's choice, on the default bounds",
        Interpretation(), deviations=("quintine-offer-gate-shows-the-face",)),
    "treachery-online": Proposal(
        "treachery-online",
        "treachery.online: every switch at that engine's choice, on the default bounds",
        TREACHERY_ONLINE, deviations=("treachery-robbery-draws-a-null-card", "treachery-grumman-removal-repeats")),
    "dunebot": Proposal(
        "dunebot",
        "DuneBot (voiceofonecrying/DuneBot at 6593b774): every switch at that engine's choice, on the default "
        "bounds; its behaviours that break a printed rule are listed as deviations (--as-printed leaves them out)",
        DUNEBOT, deviations=("dunebot-offer-to-ecaz", "dunebot-offer-to-homeworld-occupier",
                             "dunebot-sneak-attack-ignores-occupancy", "dunebot-offer-buttons-name-the-face",
                             "dunebot-robbery-draw-from-nothing-halts", "dunebot-no-ally-separation",
                             "dunebot-sabotage-empty-hand-halts", "dunebot-no-karama-against-eome",
                             "dunebot-stack-token-by-token")),
    # A third Shipment & Movement phase (docs/engines.md, "Three turns"): Basic separation of allies formed in
    # the second phase happens in the third. One stronghold (with the Ambassador) keeps it small enough to
    # check in full on every run.
    "three-turns": Proposal(
        "three-turns",
        "The default choices with a third Shipment & Movement phase, on one stronghold (Arrakeen, with the "
        "Ecaz Ambassador)",
        Interpretation(), Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=3)),
    "nexus-cunning": Proposal(
        "nexus-cunning",
        "The optional Nexus card module held by Moritani (Cunning: a second token joins the first, R47, R48) "
        "with the engine's choices, on one stronghold",
        Interpretation(), Bounds(**dict(NEXUS_CUNNING_BOUNDS))),
    "nexus-treachery": Proposal(
        "nexus-treachery",
        "The Nexus card module held by Moritani with treachery.online's choices: after each reveal in a stack the "
        "decision reopens, an accepted alliance returns the whole stack (A17 all-in-turn), Cunning also enhances "
        "the Mentat move (A19)",
        TREACHERY_ONLINE, Bounds(**dict(NEXUS_CUNNING_BOUNDS))),
    "nexus-betrayal": Proposal(
        "nexus-betrayal",
        "The optional Nexus card module held by an unallied rival (Betrayal: a board token back to supply "
        "unrevealed, R48) with the engine's choices, on one stronghold",
        Interpretation(), Bounds(**dict(NEXUS_BETRAYAL_BOUNDS))),
    "grumman": Proposal(
        "grumman",
        "The optional Grumman module (Homeworlds: low side needs 3 entering forces, R45; high side's Spice "
        "Collection operation for 4 spice, R46) with the engine's choices, on one stronghold",
        Interpretation(), Bounds(**dict(GRUMMAN_BOUNDS))),
    "grumman-nexus": Proposal(
        "grumman-nexus",
        "The Grumman and Nexus card modules together with the engine's choices (Cunning onto a stack Grumman "
        "made, three tokens in one stronghold), on one stronghold",
        Interpretation(), Bounds(**dict(GRUMMAN_NEXUS_BOUNDS))),
    "worm-rides": Proposal(
        "worm-rides",
        "The optional worm-ride module (Fremen rides before Shipment & Movement, each an entry: A24, H20) with the "
        "engine's choices, on one stronghold",
        Interpretation(), Bounds(**dict(WORM_BOUNDS))),
    "grumman-occupied": Proposal(
        "grumman-occupied",
        "The Grumman module with Atreides occupying Moritani's Homeworld (R23: no Enemy of My Enemy offer to it) and "
        "the engine's choices, on one stronghold",
        Interpretation(), Bounds(**dict(GRUMMAN_OCCUPIED_BOUNDS))),
    "worm-rides-nexus": Proposal(
        "worm-rides-nexus",
        "The worm-ride and Nexus card modules together with the engine's choices (a Fremen ride into a stack "
        "Cunning made), on one stronghold",
        Interpretation(), Bounds(**dict(WORM_NEXUS_BOUNDS))),
    "revival": Proposal(
        "revival",
        "The optional revival module (a rival revives a force from the Tanks onto the planet, an entry under "
        "entry-causes: A24) with the engine's choices, on one stronghold",
        Interpretation(), Bounds(**dict(REVIVAL_BOUNDS))),
    "cross-ship": Proposal(
        "cross-ship",
        "The optional Guild cross-ship module (a cross-ship from the board is an entry, a transport back to "
        "reserves is not: A24, R17; the Aftermath ban on cross-ships: A23) with the engine's choices, on two "
        "strongholds",
        Interpretation(), Bounds(**dict(CROSS_SHIP_BOUNDS))),
    "ambassador-relocation": Proposal(
        "ambassador-relocation",
        "The optional Ambassador relocation module (the Fremen Ambassador moves an Ecaz force into a stronghold, an "
        "entry queued behind the arrival: A24, A2, H9) with the engine's choices, on two strongholds",
        Interpretation(), Bounds(**dict(RELOCATION_BOUNDS))),
    "finite-deck": Proposal(
        "finite-deck",
        "The optional finite-deck module (a one-card Treachery deck and its discard pile; Robbery with an empty "
        "deck, A16) with the engine's choices and the bidding card, on one stronghold",
        Interpretation(), Bounds(**dict(DECK_BOUNDS))),
    "moritani-setup": Proposal(
        "moritani-setup",
        "The optional setup module (Moritani sets up last in an unoccupied stronghold, R1, A27) with the engine's "
        "choices, Atreides starting in Arrakeen",
        Interpretation(), Bounds(**dict(SETUP_BOUNDS))),
    "assassinate-leaders": Proposal(
        "assassinate-leaders",
        "The optional Advanced Assassinate Leaders module (R43, A6, A28) with the engine's choices, on small bounds",
        Interpretation(), Bounds(**dict(ASSASSINATE_BOUNDS))),
}

