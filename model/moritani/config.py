"""Bounds and interpretation switches of the Moritani Terror model.

Bounds say how big the finite game is; switches say how the printed rules'
timing gaps are resolved. Every switch cites its ambiguity ID (A#) from the
rules catalogue and defaults to the Quintine/Dune engine's recorded choice.

A switch is a `Choices` class declared here with `@switch` (NOTE(switches)); rules read it by name:

>>> Interpretation().choice(EXTORTION_MENTAT_ORDER)
<EXTORTION_MENTAT_ORDER.PLACEMENT_FIRST: 'placement-first'>
>>> Interpretation().chose(EXTORTION_MENTAT_ORDER.UNORDERED)
False
>>> Interpretation.of(ALLY_SEPARATION.ADVANCED).chosen
(('ally-separation', 'advanced'),)
>>> Bounds().factions
('Moritani', 'Atreides', 'Bene Gesserit', 'Ecaz')
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Callable, ClassVar, TypeVar, overload

from model.errors import ModelError, choices

RIVALS = ("Atreides", "Bene Gesserit", "Ecaz", "Guild", "Emperor", "Fremen", "Richese")
STRONGHOLDS = ("Arrakeen", "Carthag", "Sietch Tabr", "Habbanya Ridge Sietch", "Tuek's Sietch")
# Never legal Terror destinations (R8); listed so that a proposal naming them gets a precise error.
FORBIDDEN_DESTINATIONS = ("Hidden Mobile Stronghold", "Polar Sink", "homeworld")
FACES = ("Assassination", "Atomics", "Extortion", "Robbery", "Sabotage", "Sneak Attack")

# NOTE(switches): one declaration per switch, read by name. Each switch is a `Choices` class whose
# members are its choices; `@switch` attaches the rest (the key a proposal file uses, the catalogue IDs
# it settles, the engine default and where it comes from) as a `Switch` record. A rule reads
# `c.chose(ALLY_SEPARATION.BASIC)` (a yes/no question), or `c.choice(ALLY_SEPARATION)` (the member, for
# a choice among several): a misspelt switch or choice is an error when the module is imported or the
# model built (and for mypy), never a comparison that is silently false, and searching for the
# switch's name finds every rule that reads it. Catalogue IDs and keys are for files and reports;
# code never reads a switch by them (tests/test_layering.py). Everything that lists switches
# (proposal loading and its JSON Schema, `interpretations`, docs/rules.md, compare, sweep) reads
# `SWITCHES`, so a new switch is its class here plus the rules that read it.


@dataclass(frozen=True)
class Switch:
    """One interpretation switch as files, reports and docs see it (`Game.switches`)."""

    key: str          # the name a proposal file uses
    ids: tuple        # catalogue IDs it settles
    choices: tuple
    default: str      # the Quintine/Dune engine's choice
    question: str
    source: str       # where the default comes from
    # the declared Choices class (what a rule reads)
    members: type = field(repr=False, compare=False)


C = TypeVar("C", bound="Choices")


class Choices(StrEnum):
    """The choices of one switch, one member each (a member is its choice's string); the class is what a
    rule reads (`Interpretation.choice`) and carries its declaration as `switch` (NOTE(switches))."""

    switch: ClassVar[Switch]


def switch(key: str, ids: tuple, *, default: str, question: str, source: str) -> Callable[[type[C]], type[C]]:
    """Declares the decorated `Choices` class as switch `key`. Checked at import: the class is named
    after the key and each member after its choice (`later-mover` is `LATER_MOVER`), so a switch and its
    choices read the same in code, files and reports; the default is one of the choices."""
    def declare(cls: type[C]) -> type[C]:
        if cls.__name__ != _name(key):
            raise ModelError(f"switch '{key}' must be declared as class {_name(key)}, not {cls.__name__}")
        values = tuple(m.value for m in cls)
        for m in cls:
            if m.name != _name(m.value):
                raise ModelError(f"choice '{m.value}' of switch '{key}' must be named {_name(m.value)}, not {m.name}")
        if default not in values:
            raise ModelError(f"switch '{key}' has no choice '{default}' for its default; valid: {choices(values)}")
        if not ids:
            raise ModelError(f"switch '{key}' cites no catalogue ID")
        cls.switch = Switch(key, tuple(ids), values, default, question, source, cls)
        return cls
    return declare


def _name(text: str) -> str:
    return text.upper().replace("-", "_")


@switch("terror-vs-arrival-reactions", ("A1",), default="arrival-first",
        question="Order of Terror against the arrival's own reactions (BG advisor, Ecaz Ambassador)",
        source="engine ~7 Oct 2026: Terror queued behind the arrival's own interaction")
class TERROR_VS_ARRIVAL_REACTIONS(Choices):
    ARRIVAL_FIRST = "arrival-first"
    TERROR_FIRST = "terror-first"
    REJECT_ENTRY = "reject-entry"
    UNORDERED = "unordered"


@switch("ambassador-vs-terror", ("A2",), default="storm-order",
        question="Ecaz Ambassador and Terror eligible on the same entry",
        source="engine 29 Sep 2026: the two owners resolve in storm order on the same committed entry")
class AMBASSADOR_VS_TERROR(Choices):
    STORM_ORDER = "storm-order"
    TERROR_FIRST = "terror-first"
    AMBASSADOR_FIRST = "ambassador-first"
    UNORDERED = "unordered"


@switch("karama-eome-timing", ("A4",), default="before-reply",
        question="Karama against Enemy of My Enemy: before the entrant answers, after acceptance, or pre-emptively "
                 "(played before Moritani decides, by any rival, Moritani's ally included; no offer for the rest of "
                 "the Shipment & Movement phase)",
        source="engine: declaration, public Karama window, then the entrant's reply")
class KARAMA_EOME_TIMING(Choices):
    BEFORE_REPLY = "before-reply"
    AFTER_REPLY = "after-reply"
    PRE_EMPTIVE_PHASE = "pre-emptive-phase"


@switch("extortion-mentat-order", ("A5",), default="placement-first",
        question="Extortion collection and payment against the Mentat placement",
        source="user decision 28 Sep 2026: placement (and its Karama) first")
class EXTORTION_MENTAT_ORDER(Choices):
    PLACEMENT_FIRST = "placement-first"
    EXTORTION_FIRST = "extortion-first"
    UNORDERED = "unordered"


@switch("assassinate-mentat-order", ("A6",), default="draw-first",
        question="The Assassinate Leaders replacement draw against the Mentat placement and Extortion (only with "
                 "bounds.assassinate_leaders)",
        source="engine: the replacement runs automatically when Mentat begins; its order is an integration boundary")
class ASSASSINATE_MENTAT_ORDER(Choices):
    DRAW_FIRST = "draw-first"
    DRAW_LAST = "draw-last"
    UNORDERED = "unordered"


@switch("extortion-payers", ("A8",), default="any-rival",
        question="Who may pay 3 spice to keep Extortion out of the game",
        source="engine: any non-Moritani player, Moritani's ally included")
class EXTORTION_PAYERS(Choices):
    ANY_RIVAL = "any-rival"
    EXCLUDE_ALLY = "exclude-ally"
    ENTRANT_ONLY = "entrant-only"


@switch("atomics-penalty", ("A10", "H34"), default="ally-at-activation",
        question="Atomics hand-limit penalty after Moritani's alliance changes",
        source="engine: penalty on the ally at activation; alliance changes involving them are blocked")
class ATOMICS_PENALTY(Choices):
    ALLY_AT_ACTIVATION = "ally-at-activation"
    FOLLOWS_CURRENT_ALLY = "follows-current-ally"


@switch("sabotage-gift-overflow", ("A12",), default="reject",
        question="Sabotage gift that would put the recipient over its hand limit",
        source="engine: such a gift is rejected; passing is always legal")
class SABOTAGE_GIFT_OVERFLOW(Choices):
    REJECT = "reject"
    FORCE_DISCARD = "force-discard"
    ALLOW_OVERFLOW = "allow-overflow"


@switch("karama-placement", ("A13",), default="consumed",
        question="A Karama-cancelled placement: can Moritani try again the same Mentat?",
        source="engine: the opportunity is consumed")
class KARAMA_PLACEMENT(Choices):
    CONSUMED = "consumed"
    RETRY = "retry"


@switch("sneak-attack-is-shipment", ("A14",), default="shipment",
        question="Is a positive Sneak Attack a shipment for other arrival powers? (arrival-checks: not a shipment, "
                 "but the arrival triggers the Ecaz Ambassador unless Moritani is Ecaz's ally; never BG "
                 "accompaniment)",
        source="engine 7 Oct 2026: adopted as a shipment; the Terror entry closes first")
class SNEAK_ATTACK_IS_SHIPMENT(Choices):
    SHIPMENT = "shipment"
    NOT_SHIPMENT = "not-shipment"
    ARRIVAL_CHECKS = "arrival-checks"


@switch("advisor-into-aftermath", ("A23",), default="banned",
        question="May the BG free advisor (with a Sneak Attack, or after Atomics on the same arrival) land in the "
                 "Aftermath stronghold?",
        source="undocumented in the engine (A23 open); the printed Aftermath ban read as covering every shipment")
class ADVISOR_INTO_AFTERMATH(Choices):
    BANNED = "banned"
    ALLOWED = "allowed"


@switch("assassination-without-leader", ("A11",), default="gated",
        question="Terror Assassination against an entrant with no living leader: is the reveal (and an Enemy of My "
                 "Enemy offer, whose refusal forces it) refused, or does it reveal and fizzle?",
        source="engine: an empty living victim pool disables the reveal before it is announced (A11)")
class ASSASSINATION_WITHOUT_LEADER(Choices):
    GATED = "gated"
    FIZZLES = "fizzles"


@switch("eome-when-reveal-blocked", ("A21",), default="block-offer",
        question="Enemy of My Enemy when a refusal could not be resolved (the reveal it forces is not allowed, e.g. "
                 "an empty Assassination pool under A11 gated): is the offer blocked before it is announced?",
        source="engine: terrorAllianceBlocked blocks the offer before it is announced (an engine gate, A21)")
class EOME_WHEN_REVEAL_BLOCKED(Choices):
    BLOCK_OFFER = "block-offer"
    OFFER_ANYWAY = "offer-anyway"


# A switch of the leak check, not of the rules: no rule reads it, so the model, its digest and its state space are
# the same under both choices; only what the possibilistic check (checks/analyses/possible.py) counts changes,
# through the model's declared release (model/moritani/release.py).
@switch("eome-gate-secrecy", ("A21", "H6"), default="face-independent",
        question="May the A21 engine gate make Enemy of My Enemy's availability depend on the hidden face? "
                 "face-independent: no, an offer available with one face and not with another is a leak (the "
                 "possibilistic check reports it); gate-declassified: an offer the A21 block-offer gate withholds "
                 "for one of two exchanged faces releases that this token cannot be revealed against this entrant",
        source="the printed rules (R19 offers for any triggered token, R21); Quintine/Dune calls its gate temporary "
               "and keeps the public opportunity independent of the face (MORITANI_ENEMY_ALLIANCE)")
class EOME_GATE_SECRECY(Choices):
    FACE_INDEPENDENT = "face-independent"
    GATE_DECLASSIFIED = "gate-declassified"


@switch("bg-advisors-occupy", ("R25", "A25"), default="occupy",
        question="Do BG advisors alone in a stronghold count toward its two-faction limit and block BG's ally (for "
                 "shipment, movement and Sneak Attack)?",
        source="engine: not settled for Sneak Attack; advisors make a territory occupied for Moritani's setup")
class BG_ADVISORS_OCCUPY(Choices):
    OCCUPY = "occupy"
    COEXIST = "coexist"


@switch("ally-separation", ("A20", "R26", "R27", "H22"), default="basic",
        question="Allies sharing a stronghold (after an accepted Enemy of My Enemy): basic, a player ending its turn "
                 "after its ally loses its forces there, except on the formation turn; advanced, every player ending "
                 "its turn loses them, no exemption; later-mover, as basic without the exemption",
        source="engine (Basic mode): the later mover separates; allySinceTurn exempts the formation turn (H22)")
class ALLY_SEPARATION(Choices):
    BASIC = "basic"
    ADVANCED = "advanced"
    LATER_MOVER = "later-mover"


@switch("stack-reveal", ("A17", "R47", "H10"), default="one-chosen",
        question="An entry into a stronghold holding several Terror tokens (only with bounds.nexus_card or "
                 "bounds.grumman): one-chosen, Moritani privately picks one token and the decision covers the whole "
                 "entry; all-in-turn, after each reveal the decision reopens for the tokens left, and an accepted "
                 "alliance returns all of them",
        source="engine: one token, chosen privately by Moritani at a select stage; no new entry for its neighbours")
class STACK_REVEAL(Choices):
    ONE_CHOSEN = "one-chosen"
    ALL_IN_TURN = "all-in-turn"


@switch("cunning-reach", ("A19", "R48"), default="placement-only",
        question="Nexus Cunning (only with bounds.nexus_card: Moritani): may it send the Mentat *move* of a placed "
                 "token onto another token too, or only a placement from supply?",
        source="engine: only supply placement from the ordinary Mentat source is enhanced; relocation is gated")
class CUNNING_REACH(Choices):
    PLACEMENT_ONLY = "placement-only"
    PLACEMENT_AND_MOVE = "placement-and-move"


@switch("betrayal-timing", ("R48",), default="clean-boundary",
        question="Nexus Betrayal (only with bounds.nexus_card held by a rival): only at a clean boundary of Shipment "
                 "& Movement, or also while an arrival's reactions (its Terror decision among them) are still "
                 "pending?",
        source="engine: played at a clean play boundary; pending Terror, placement and card continuations are not "
               "interrupted (a development serializer, not a printed phase rule)")
class BETRAYAL_TIMING(Choices):
    CLEAN_BOUNDARY = "clean-boundary"
    ANY_TIME = "any-time"


@switch("grumman-addition", ("R46", "H11"), default="collection-operation",
        question="Grumman high side (only with bounds.grumman): the token is added by a Spice Collection operation "
                 "that pays 4 spice (the printed face), or the ordinary Mentat placement or move may go onto a token "
                 "while the side is high (treachery.online, no spice)",
        source="engine: addition is a Collection operation onto a stronghold already holding a token, 4 bank spice "
               "atomic with it; ordinary Mentat placement still needs an empty destination")
class GRUMMAN_ADDITION(Choices):
    COLLECTION_OPERATION = "collection-operation"
    MENTAT_PLACEMENT = "mentat-placement"


@switch("grumman-removal", ("A18", "R46"), default="unavailable",
        question="Grumman high side (only with bounds.grumman): may the Collection operation remove a board token "
                 "(for 4 spice), and where does the unrevealed token go: back to the hidden supply with fresh public "
                 "IDs, or out of the game face down?",
        source="engine: removal is gated (unavailable, pays nothing) while the custody question is pending")
class GRUMMAN_REMOVAL(Choices):
    UNAVAILABLE = "unavailable"
    TO_SUPPLY = "to-supply"
    OUT_OF_GAME = "out-of-game"


@switch("collection-operations", ("R46", "H42"), default="one",
        question="Grumman high side (only with bounds.grumman): one token operation per Spice Collection, or may "
                 "Moritani repeat it (and its 4 spice) within the same Collection?",
        source="engine: one optional add-or-remove transaction and one payment per Collection (phase grammar)")
class COLLECTION_OPERATIONS(Choices):
    ONE = "one"
    REPEATABLE = "repeatable"


@switch("entry-causes", ("A24", "R17", "R11"), default="every-arrival",
        question="Which arrivals may open Terror (only with bounds.worm_rides, bounds.revival or "
                 "bounds.ambassador_relocation): every arrival, worm rides, revivals onto the planet and Ambassador "
                 "relocations included, or only shipment and movement as R11 words it?",
        source="engine: the entry receipt classes worm rides, Guild transport, Ambassador arrivals and Homeworld "
               "revival as entries (R17)")
class ENTRY_CAUSES(Choices):
    EVERY_ARRIVAL = "every-arrival"
    SHIPMENT_AND_MOVEMENT = "shipment-and-movement"


@switch("cross-ship-into-aftermath", ("R36", "R17"), default="banned",
        question="May the Guild's cross-ship (only with bounds.cross_ship) enter the Aftermath stronghold? banned, "
                 "the Aftermath ban covers every shipment; allowed, it covers shipments from off-planet only (A23's "
                 "open question for Guild cross-ship; the advisor's case is switch advisor-into-aftermath)",
        source="undocumented in the engine (A23 open); the printed Aftermath ban read as covering every shipment")
class CROSS_SHIP_INTO_AFTERMATH(Choices):
    BANNED = "banned"
    ALLOWED = "allowed"


@switch("robbery-empty-deck", ("A16", "R39"), default="reshuffle",
        question="Robbery's card option when the Treachery deck is empty (only with bounds.deck): the discard pile "
                 "is shuffled into a new deck and its top card drawn, or there is no top card and the Robbery gives "
                 "nothing (with both piles empty it gives nothing under either choice)",
        source="engine: the ordinary draw, which may refill from the discard pile; with both piles empty nothing "
               "happens and no card is invented")
class ROBBERY_EMPTY_DECK(Choices):
    RESHUFFLE = "reshuffle"
    NOTHING = "nothing"


@switch("setup-destination", ("A27", "R1"), default="stronghold",
        question="Where Moritani's setup forces may go (only with bounds.setup_forces): an unoccupied stronghold, or "
                 "any unoccupied territory (the open desert included)",
        source="engine (docs/CURRENT_STATUS.md, 7 Oct): an unoccupied printed stronghold, never a seated faction's "
               "start; its rules document quotes 'any unoccupied territory' (E3 p.5)")
class SETUP_DESTINATION(Choices):
    STRONGHOLD = "stronghold"
    TERRITORY = "territory"


@switch("homeworld-occupation", ("R23",), default="offer-only",
        question="A rival occupying Moritani's Homeworld (only with bounds.homeworld_occupier): Moritani may not "
                 "offer it an alliance (R23); does the occupation also stop its entries (and its ally's) from "
                 "opening Terror?",
        source="engine: the printed alliance restriction (MORITANI_ENEMY_ALLIANCE; its Homeworld module stays "
               "gated)")
class HOMEWORLD_OCCUPATION(Choices):
    OFFER_ONLY = "offer-only"
    TRIGGER_AND_OFFER = "trigger-and-offer"


@switch("placement-in-aftermath", ("A26",), default="allowed",
        question="May a Terror token be placed in the Atomics Aftermath stronghold?",
        source="engine: the pure placement function permits it")
class PLACEMENT_IN_AFTERMATH(Choices):
    ALLOWED = "allowed"
    FORBIDDEN = "forbidden"


@switch("nexus-card-on-alliance", ("R48", "R20"), default="kept",
        question="Only with bounds.nexus_card: when its holder forms an alliance (an accepted Enemy of My Enemy "
                 "offer), is the Nexus card discarded, or kept for a later unallied play (Betrayal, Cunning)?",
        source="engine: the stored material shows only the play-time test of an unallied holder "
               "(NEXUS_MORITANI_RULES.md at 5c1c944a, \"Opposing Betrayal\"), no discard on forming an alliance")
class NEXUS_CARD_ON_ALLIANCE(Choices):
    KEPT = "kept"
    DISCARDED = "discarded"


@switch("ally-entry", ("R25", "R26", "R27", "A20"), default="ship-visitors",
        question="May a faction ship or move into a stronghold its ally occupies (the forces it leaves there "
                 "going to the Tanks at the end of its turn), and which of its forces there go?",
        source="engine: docs/ALLIED_TRANSIT_RULES.md at 7cef1a34 (8 Oct 2026), Basic ordinary allied shipment: "
               "a shipment from reserves may enter, movement endpoints keep the guard, the visitors left behind "
               "go to the Tanks at the end of the shipper's turn")
class ALLY_ENTRY(Choices):
    REFUSED = "refused"
    SHIP_VISITORS = "ship-visitors"
    SHIP_AND_MOVE = "ship-and-move"


@switch("accompany-limits", ("A25", "R25"), default="none",
        question="May BG's free advisor accompany a shipment into a territory where BG's ally has forces (its "
                 "ally's own shipment included) or where BG already has fighters?",
        source="engine: the accompanying advisor is a separate entry by BG (catalogue A25); the stored material "
               "names no such limit")
class ACCOMPANY_LIMITS(Choices):
    NONE = "none"
    ALLY_OR_FIGHTERS = "ally-or-fighters"


# -- issue 34 (DuneBot): switches DuneBot added; one block, with SWITCHES just below ----------------------------------
@switch("grumman-high-placement", ("R46", "H11"), default="always",
        question="Grumman high side under grumman-addition: mentat-placement (only with bounds.grumman): may the Mentat "
                 "placement and the Mentat move both go onto a token whenever the side is high (always), or only a "
                 "placement from supply, and not in a Mentat Pause that follows a Spice Collection in which Moritani "
                 "removed a token (place-unless-removed: one add-or-remove per turn)?",
        source="treachery.online (the only engine that adds at the Mentat placement, Shared/Events/TerrorPlanted.cs:70, "
               "78-81 at 5e6a9440): placement and move, whatever the Collection did. DuneBot (MoritaniFaction.java:"
               "303, 334-337, 373 at 6593b774): place-unless-removed")
class GRUMMAN_HIGH_PLACEMENT(Choices):
    ALWAYS = "always"
    PLACE_UNLESS_REMOVED = "place-unless-removed"


def _listed(*classes: type[Choices]) -> tuple:
    """The switches in the order files, reports and docs show them; every `Choices` class declared
    must be listed exactly once (an unlisted one would be read by rules but unknown to proposal files)."""
    declared = [c for c in Choices.__subclasses__() if c.__module__ == __name__]
    missing = [c.__name__ for c in declared if c not in classes]
    if missing or len(set(classes)) != len(classes) or any("switch" not in vars(c) for c in declared):
        raise ModelError(f"every switch is declared with @switch and listed once in SWITCHES; not listed: {missing}")
    return tuple(c.switch for c in classes)


# In this order in proposal files' JSON Schema, `interpretations`, reports and docs.
SWITCHES = _listed(
    TERROR_VS_ARRIVAL_REACTIONS, AMBASSADOR_VS_TERROR, KARAMA_EOME_TIMING, EXTORTION_MENTAT_ORDER,
    ASSASSINATE_MENTAT_ORDER, EXTORTION_PAYERS, ATOMICS_PENALTY, SABOTAGE_GIFT_OVERFLOW, KARAMA_PLACEMENT,
    SNEAK_ATTACK_IS_SHIPMENT, ADVISOR_INTO_AFTERMATH, ASSASSINATION_WITHOUT_LEADER, EOME_WHEN_REVEAL_BLOCKED,
    EOME_GATE_SECRECY, BG_ADVISORS_OCCUPY, ALLY_SEPARATION, STACK_REVEAL, CUNNING_REACH, BETRAYAL_TIMING,
    GRUMMAN_ADDITION, GRUMMAN_REMOVAL, COLLECTION_OPERATIONS, ENTRY_CAUSES, CROSS_SHIP_INTO_AFTERMATH, ROBBERY_EMPTY_DECK,
    SETUP_DESTINATION, HOMEWORLD_OCCUPATION, PLACEMENT_IN_AFTERMATH, NEXUS_CARD_ON_ALLIANCE, ALLY_ENTRY,
    GRUMMAN_HIGH_PLACEMENT, ACCOMPANY_LIMITS)  # issue 34, issue 33
SWITCH_BY_KEY = {s.key: s for s in SWITCHES}


@dataclass(frozen=True)
class Interpretation:
    """A choice for every switch; unspecified switches take the engine default.

    >>> i = Interpretation.of(KARAMA_EOME_TIMING.AFTER_REPLY)
    >>> i.choice(KARAMA_EOME_TIMING), i.with_choices(KARAMA_EOME_TIMING.BEFORE_REPLY) == Interpretation.of()
    (<KARAMA_EOME_TIMING.AFTER_REPLY: 'after-reply'>, False)
    """

    chosen: tuple = ()  # ((key, choice), ...) sorted, plain strings

    def __post_init__(self):
        for key, value in self.chosen:
            sw = SWITCH_BY_KEY.get(key)
            if sw is None:
                raise ModelError(f"unknown switch '{key}'; valid: {choices(SWITCH_BY_KEY)}")
            if value not in sw.choices:
                raise ModelError(f"switch '{key}' has no choice '{value}'; valid: {choices(sw.choices)}")

    @classmethod
    def of(cls, *picks: Choices, **by_key: str) -> "Interpretation":
        """The given choices, the rest at the engine default: `Interpretation.of(ALLY_SEPARATION.ADVANCED)`,
        or by key with underscores (`ally_separation="advanced"`, checked when built)."""
        return cls().with_choices(*picks, **by_key) if picks or by_key else cls()

    def with_choices(self, *picks: Choices, **by_key: str) -> "Interpretation":
        """This interpretation with the given choices set (as `of`); a switch given twice is an error."""
        new = [(type(p).switch.key, p.value) for p in picks] + [(k.replace("_", "-"), v) for k, v in by_key.items()]
        keys = [k for k, _ in new]
        for k in keys:
            if keys.count(k) > 1:
                raise ModelError(f"switch '{k}' is given twice")
        return Interpretation(tuple(sorted((dict(self.chosen) | dict(new)).items())))

    @overload
    def choice(self, sw: type[C]) -> C: ...

    @overload
    def choice(self, sw: str) -> str: ...

    def choice(self, sw):
        """The chosen member of a declared switch (what rules read), or by key the chosen string (what code
        that walks `SWITCHES` reads). Never by catalogue ID: that is for proposal files (`Game.switch`)."""
        if isinstance(sw, str):
            decl = SWITCH_BY_KEY.get(sw)
            if decl is None:
                raise ModelError(f"unknown switch '{sw}'; valid: {choices(SWITCH_BY_KEY)}")
            return dict(self.chosen).get(decl.key, decl.default)
        return sw(dict(self.chosen).get(sw.switch.key, sw.switch.default))

    def chose(self, pick: Choices) -> bool:
        """Is `pick` (a member: `ALLY_SEPARATION.BASIC`) this interpretation's choice on its switch?"""
        return self.choice(type(pick)) is pick

    def as_dict(self) -> dict:
        return {s.key: self.choice(s.key) for s in SWITCHES}

    def changed(self) -> list:
        """[(switch, choice, catalogue IDs)] for every switch set away from the engine default."""
        return [(s.key, self.choice(s.key), s.ids) for s in SWITCHES if self.choice(s.key) != s.default]


@dataclass(frozen=True)
class Bounds:
    """The finite game: who plays, where, for how long, and how much of everything."""

    factions: tuple = ("Moritani", "Atreides", "Bene Gesserit", "Ecaz")
    strongholds: tuple = ("Arrakeen", "Carthag")
    faces: tuple = FACES
    turns: int = 2            # Shipment & Movement phases after the first Mentat Pause
    storm: bool = False       # a storm position chosen each turn (blocks shipment and positive Sneak Attack)
    bidding: bool = False     # one Treachery card on offer each turn (lets hands grow)
    moritani_ships: bool = False  # Moritani ships too (otherwise its forces arrive only by Sneak Attack)
    # Each rival's forces: (faction, in reserves, in the open desert). Rivals not listed have none.
    forces: tuple = (("Atreides", 1, 1), ("Bene Gesserit", 1, 0))
    moritani_forces: int = 2  # Moritani: all in reserves (Sneak Attack draws from them)
    spice: int = 3            # each rival's starting spice; Moritani starts with moritani_spice
    moritani_spice: int = 2
    hand: int = 1             # starting Treachery cards of every rival
    moritani_hand: int = 3    # Moritani's starting cards (R5 fixtures start Moritani at its limit)
    hand_limit: int = 3       # base hand limit (the Atomics penalty is minus one)
    karama: tuple = ("Atreides",)          # factions holding a Karama card at the start
    alliances: tuple = (("Moritani", "Ecaz"), ("Atreides", "Bene Gesserit"))
    ambassador: str | None = "Carthag"     # stronghold holding an Ecaz Ambassador, if any
    leaders: tuple = (5, 2)   # strengths of each rival's two leaders (Assassination bounty)
    leaderless: tuple = ()    # rivals whose leaders are all in the Tanks at the start (empty pool, A11)
    # Optional module (model/moritani/assassinate.py): Advanced Assassinate Leaders (R42, R43, A6, A28),
    # with one Traitor card per rival leader and an abstract battle step each turn. Off by default.
    assassinate_leaders: bool = False
    # Optional module (model/moritani/nexus.py): who holds Moritani's Nexus card at the start. Moritani plays
    # it as Cunning (one placement onto another token: a stack, R47, R48); a rival plays it as Betrayal (one
    # board token back to supply unrevealed). None (the default): no Nexus card in the game.
    nexus_card: str | None = None
    # Optional module (model/moritani/grumman.py): Homeworlds with Moritani's Grumman card. Its side follows
    # Moritani's native reserves (8 or more: high): low, Terror needs 3 forces entering in one group (R45);
    # high, one Spice Collection operation on a token for 4 spice (R46). Shipment and movement then carry
    # 1 to 3 forces. Off by default.
    grumman: bool = False
    # Optional module (model/moritani/worms.py): Fremen worm rides before each Shipment & Movement, each an entry
    # (switch entry-causes, A24). Needs Fremen among the factions, with forces in the open desert. Off by default.
    worm_rides: bool = False
    # Optional module (model/moritani/deck.py): a finite Treachery deck of this many face-down cards (besides the
    # starting hands) and a discard pile (A16). None (the default): cards are counts and a draw always succeeds.
    deck: int | None = None
    # Rivals' starting forces in strongholds: (faction, stronghold, count) rows, at most one per faction (their
    # home strongholds, say). Empty (the default): every rival starts in reserves and the open desert.
    garrisons: tuple = ()
    # Optional module (model/moritani/setup.py): Moritani sets up last, putting this many of its reserves into one
    # unoccupied territory (R1; switch setup-destination, A27). None (the default): the game starts at the first
    # Mentat Pause with Moritani's forces all in reserves.
    setup_forces: int | None = None
    # Part of the Grumman module (model/moritani/homeworld.py): a rival whose forces stand on Moritani's Homeworld
    # for the whole game (R23). None (the default): nobody occupies it.
    homeworld_occupier: str | None = None
    # Optional module (model/moritani/revival.py): this rival may revive one force from the Tanks onto the planet
    # each turn, an entry under switch entry-causes (A24); it starts with one of its reserves in the Tanks.
    revival: str | None = None
    # Optional module (model/moritani/crossship.py): the Guild may cross-ship one force from the board into a
    # stronghold (an entry, A24) or ship one back to its reserves (no entry, R17). Needs the Guild among the
    # factions with forces in the open desert. Off by default.
    cross_ship: bool = False
    # Optional module (model/moritani/relocation.py): the Ecaz Ambassador is a Fremen Ambassador; when it reacts,
    # Ecaz may move one of its forces from the board into a stronghold, an entry queued behind the arrival (A24).
    # Needs Ecaz with forces in the open desert and an Ambassador. Off by default.
    ambassador_relocation: bool = False

    def __post_init__(self):
        if not self.factions or self.factions[0] != "Moritani":
            raise ModelError("bounds.factions must start with Moritani")
        for f in self.factions[1:]:
            if f not in RIVALS:
                raise ModelError(f"unknown faction '{f}'; valid: {choices(RIVALS)}")
        if len(set(self.factions)) != len(self.factions) or len(self.factions) < 2:
            raise ModelError("bounds.factions needs Moritani and at least one distinct rival")
        for name in ("strongholds", "faces", "karama", "leaderless"):
            if len(set(getattr(self, name))) != len(getattr(self, name)):
                raise ModelError(f"bounds.{name} lists an entry twice")
        if len({f for f, _, _ in self.forces}) != len(self.forces):
            raise ModelError("bounds.forces has two entries for one faction")
        if not self.faces:
            raise ModelError("bounds.faces needs at least one Terror face")
        if not 1 <= len(self.leaders) <= 4 or not all(0 <= x <= 12 for x in self.leaders):
            raise ModelError("bounds.leaders takes 1 to 4 leader strengths, each 0..12")
        if not 1 <= len(self.strongholds) <= 5:
            raise ModelError("bounds.strongholds takes 1 to 5 of the ordinary strongholds")
        for s in self.strongholds:
            if s not in STRONGHOLDS:
                raise ModelError(f"'{s}' is not a legal Terror destination (R8); valid: {choices(STRONGHOLDS)}")
        for k in self.faces:
            if k not in FACES:
                raise ModelError(f"unknown Terror face '{k}'; valid: {choices(FACES)}")
        if not 1 <= self.turns <= 6:
            raise ModelError("bounds.turns must be 1..6")
        for a, b in self.alliances:
            if a not in self.factions or b not in self.factions or a == b:
                raise ModelError(f"alliance {a}-{b} needs two distinct factions from bounds.factions")
        allied = [f for pair in self.alliances for f in pair]
        if len(allied) != len(set(allied)):
            raise ModelError("a faction can be in at most one alliance (R25)")
        for f in self.leaderless:
            if f not in self.factions[1:]:
                raise ModelError(f"leaderless faction '{f}' must be a rival in bounds.factions")
        for f in self.karama:
            if f not in self.factions[1:]:
                raise ModelError(f"karama holder '{f}' must be a rival in bounds.factions")
        self._check_modules()
        if self.ambassador is not None and self.ambassador not in self.strongholds:
            raise ModelError(f"ambassador stronghold '{self.ambassador}' not in bounds.strongholds; "
                             f"valid: {choices(self.strongholds)}")
        for f, r, d in self.forces:
            if f not in self.factions[1:]:
                raise ModelError(f"bounds.forces names '{f}', not a rival in bounds.factions; "
                                 f"valid: {choices(self.factions[1:])}")
            if not (0 <= r <= 4 and 0 <= d <= 4):
                raise ModelError(f"bounds.forces for {f}: reserves and desert must be 0..4")
        for name in ("moritani_forces", "spice", "moritani_spice", "hand", "moritani_hand", "hand_limit"):
            if not 0 <= getattr(self, name) <= 12:
                raise ModelError(f"bounds.{name} must be 0..12")
        if max(self.hand, self.moritani_hand) > self.hand_limit:
            raise ModelError("bounds.hand and bounds.moritani_hand cannot exceed bounds.hand_limit")

    def _check_modules(self):
        """The optional modules' own bounds, and the combinations not supported yet."""
        if self.nexus_card is not None and self.nexus_card not in self.factions:
            raise ModelError(f"nexus_card holder '{self.nexus_card}' not in bounds.factions; "
                             f"valid: {choices(self.factions)}")
        if self.worm_rides and not any(f == "Fremen" and d > 0 for f, _, d in self.forces):
            raise ModelError("bounds.worm_rides needs Fremen in bounds.factions with forces in the open desert "
                             "(bounds.forces: [Fremen, reserves, desert])")
        if self.worm_rides and self.assassinate_leaders:
            raise ModelError("bounds.worm_rides and bounds.assassinate_leaders cannot be combined yet; turn one off")
        if self.grumman and self.assassinate_leaders:
            raise ModelError("bounds.grumman and bounds.assassinate_leaders cannot be combined yet (the Collection "
                             "step would sit between the battle and the Mentat Pause); turn one of them off")
        if len({f for f, _, _ in self.garrisons}) != len(self.garrisons):
            raise ModelError("bounds.garrisons has two rows for one faction")
        for f, where, count in self.garrisons:
            if f not in self.factions[1:]:
                raise ModelError(f"bounds.garrisons names '{f}', not a rival in bounds.factions; "
                                 f"valid: {choices(self.factions[1:])}")
            if where not in self.strongholds:
                raise ModelError(f"bounds.garrisons: '{where}' is not in bounds.strongholds; "
                                 f"valid: {choices(self.strongholds)}")
            if not 1 <= count <= 4:
                raise ModelError(f"bounds.garrisons for {f}: the count must be 1..4")
        if self.setup_forces is not None and not 1 <= self.setup_forces <= self.moritani_forces:
            raise ModelError("bounds.setup_forces must be 1..bounds.moritani_forces (Moritani sets up from its "
                             "reserves), or empty: no setup")
        if self.homeworld_occupier is not None:
            if self.homeworld_occupier not in self.factions[1:]:
                raise ModelError(f"bounds.homeworld_occupier '{self.homeworld_occupier}' must be a rival in "
                                 f"bounds.factions; valid: {choices(self.factions[1:])}")
            if not self.grumman:
                raise ModelError("bounds.homeworld_occupier needs bounds.grumman (Homeworlds are part of that module)")
        if self.revival is not None:
            if not any(f == self.revival and r >= 1 for f, r, _ in self.forces):
                raise ModelError(f"bounds.revival: '{self.revival}' needs a row in bounds.forces with at least 1 in "
                                 f"reserves (one of them starts in the Tanks)")
            if self.worm_rides or self.assassinate_leaders:
                raise ModelError("bounds.revival cannot be combined with bounds.worm_rides or "
                                 "bounds.assassinate_leaders yet; turn one of them off")
        if self.cross_ship:
            if not any(f == "Guild" and d > 0 for f, _, d in self.forces):
                raise ModelError("bounds.cross_ship needs the Guild in bounds.factions with forces in the open "
                                 "desert (bounds.forces: [Guild, reserves, desert])")
            if self.worm_rides or self.revival is not None or self.grumman or self.assassinate_leaders:
                raise ModelError("bounds.cross_ship cannot be combined with bounds.worm_rides, bounds.revival, "
                                 "bounds.grumman or bounds.assassinate_leaders yet; turn one of them off")
        if self.ambassador_relocation:
            if not any(f == "Ecaz" and d > 0 for f, _, d in self.forces) or self.ambassador is None:
                raise ModelError("bounds.ambassador_relocation needs Ecaz in bounds.factions with forces in the open "
                                 "desert (bounds.forces: [Ecaz, reserves, desert]) and an Ambassador (bounds.ambassador)")
            if (self.worm_rides or self.revival is not None or self.grumman or self.assassinate_leaders
                    or self.cross_ship):
                raise ModelError("bounds.ambassador_relocation cannot be combined with bounds.worm_rides, "
                                 "bounds.revival, bounds.grumman, bounds.assassinate_leaders or bounds.cross_ship yet; "
                                 "turn one of them off")
        if self.deck is not None and not 0 <= self.deck <= 12:
            raise ModelError("bounds.deck must be 0..12 (or empty: no finite deck)")

    def as_dict(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = [list(x) for x in v] if f.name in ("alliances", "forces", "garrisons") else list(v) if isinstance(v, tuple) else v
        return out


BOUND_FIELDS = tuple(f.name for f in fields(Bounds))


def bound_shapes() -> dict:
    """What each bounds entry may hold: the one description from which proposal and scenario files are
    validated (`checks/formats/proposal.py`, with `file:line:col` errors) and their JSON Schema is
    generated (`rulecheck interpretations --schema`). `Bounds.__post_init__` enforces the same rules on
    the model side (tests/test_schema.py checks on generated bounds that the two agree).

    kinds: `int` (`min`..`max`, `null`: may be empty), `bool`, `enum` (`values`, `null`: may be empty), `list` (`items`: a
    list of choices or an int range {min, max}; `min`/`max` entries; `unique`; `first`: the first
    entry) and `rows` (fixed-width lists; `items` per column; `distinct`: a row's entries differ;
    `key`: a column whose values are unique; `once`: a value is in at most one row). Relations:
    `within` (every choice is in another entry's list, given or default; for rows, {column: entry}), `at_most` (another entry's
    number), `excludes` (flags that may not be on with this one), `needs_row` ([rows entry, first column,
    column]: when this flag is on, a row with that first column and at least 1 in that column), `needs_flag`
    (a flag that must be on when this entry is not empty). `why` says the rule in words for error messages; `invalid` what a wrong choice is.

    >>> bound_shapes()["forces"]["width"]
    3
    """
    factions, rivals = ["Moritani", *RIVALS], list(RIVALS)
    count = {"kind": "int", "min": 0, "max": 12}
    return {
        "factions": {"kind": "list", "items": factions, "unique": True, "first": "Moritani", "min": 2,
                     "why": "the factions are Moritani and its rivals"},
        "strongholds": {"kind": "list", "items": list(STRONGHOLDS), "unique": True, "min": 1, "max": 5,
                        "invalid": "is not a legal Terror destination (R8)"},
        "faces": {"kind": "list", "items": list(FACES), "unique": True, "min": 1},
        "turns": {"kind": "int", "min": 1, "max": 6},
        "storm": {"kind": "bool"},
        "bidding": {"kind": "bool"},
        "moritani_ships": {"kind": "bool"},
        "forces": {"kind": "rows", "width": 3, "items": [rivals, {"min": 0, "max": 4}, {"min": 0, "max": 4}],
                   "key": 0, "within": "factions", "why": "forces belong to a rival in bounds.factions"},
        "moritani_forces": count, "spice": count, "moritani_spice": count,
        "hand": count | {"at_most": "hand_limit", "why": "no starting hand exceeds the hand limit"},
        "moritani_hand": count | {"at_most": "hand_limit", "why": "no starting hand exceeds the hand limit"},
        "hand_limit": count,
        "karama": {"kind": "list", "items": rivals, "unique": True, "within": "factions",
                   "why": "a Karama holder must be a rival in bounds.factions"},
        "alliances": {"kind": "rows", "width": 2, "items": [factions, factions], "distinct": True, "once": True,
                      "within": "factions",
                      "why": "an alliance is two factions from bounds.factions, each in at most one alliance (R25)"},
        "ambassador": {"kind": "enum", "values": list(STRONGHOLDS), "null": True, "within": "strongholds",
                       "why": "the Ambassador sits in one of bounds.strongholds (or none: empty)"},
        "leaders": {"kind": "list", "items": {"min": 0, "max": 12}, "min": 1, "max": 4,
                    "why": "strengths of each rival's leaders"},
        "leaderless": {"kind": "list", "items": rivals, "unique": True, "within": "factions",
                       "why": "a leaderless faction must be a rival in bounds.factions"},
        "assassinate_leaders": {"kind": "bool"},
        "nexus_card": {"kind": "enum", "values": factions, "null": True, "within": "factions",
                       "why": "Moritani's Nexus card is held by one of bounds.factions (or nobody: empty)"},
        "grumman": {"kind": "bool", "excludes": ["assassinate_leaders"],
                    "why": "the Grumman and Assassinate Leaders modules cannot be combined yet; turn one of them off"},
        "worm_rides": {"kind": "bool", "excludes": ["assassinate_leaders"], "needs_row": ["forces", "Fremen", 2],
                       "why": "worm rides need Fremen with forces in the open desert (bounds.forces: [Fremen, "
                              "reserves, desert]) and cannot be combined with Assassinate Leaders yet"},
        "garrisons": {"kind": "rows", "width": 3, "items": [rivals, list(STRONGHOLDS), {"min": 1, "max": 4}],
                      "key": 0, "within": {0: "factions", 1: "strongholds"},
                      "why": "a garrison is a rival in bounds.factions, a stronghold and 1 to 4 forces"},
        "setup_forces": {"kind": "int", "min": 1, "max": 12, "null": True, "at_most": "moritani_forces",
                         "why": "Moritani sets up from its reserves (empty: no setup)"},
        "homeworld_occupier": {"kind": "enum", "values": rivals, "null": True, "within": "factions",
                               "needs_flag": "grumman",
                               "why": "Moritani's Homeworld is occupied by a rival in bounds.factions (or nobody: "
                                      "empty), only with bounds.grumman"},
        "revival": {"kind": "enum", "values": rivals, "null": True, "within": "factions",
                    "why": "the reviving rival is in bounds.factions (or nobody: empty)"},
        "deck": count | {"null": True, "why": "face-down Treachery cards at the start (empty: no finite deck)"},
        "ambassador_relocation": {
            "kind": "bool", "excludes": ["assassinate_leaders", "worm_rides", "grumman", "cross_ship"],
            "needs_row": ["forces", "Ecaz", 2], "needs_set": ["ambassador"],
            "why": "Ambassador relocation needs Ecaz with forces in the open desert (bounds.forces: [Ecaz, reserves, "
                   "desert]) and an Ambassador, and cannot be combined with worm rides, revival, Grumman, the "
                   "cross-ship or Assassinate Leaders yet"},
        "cross_ship": {"kind": "bool", "excludes": ["assassinate_leaders", "worm_rides", "grumman"],
                       "needs_row": ["forces", "Guild", 2],
                       "why": "the Guild's cross-ship needs the Guild with forces in the open desert (bounds.forces: "
                              "[Guild, reserves, desert]) and cannot be combined with worm rides, revival, Grumman "
                              "or Assassinate Leaders yet"},
    }
