"""A finite Treachery deck and its discard pile: the optional module (bounds.deck; A16, R39, R40, R36, H18, H19, H33).

Without this module cards are anonymous counts in each hand and a draw always succeeds. With it,
`deck` cards lie face down at the start and the discard pile is empty; every card that leaves a hand
goes to the discard pile (the Robbery overflow discard, the Sabotage random discard, the Atomics
trim, a Sabotage gift the entrant cannot keep) and every draw takes the top card of the deck. When
the deck is empty an ordinary draw (the bidding card) first shuffles the discard pile into a new deck;
when both are empty there is nothing to draw and no card is invented.

Switch `robbery-empty-deck` (A16) is the Robbery card option with an empty deck: `reshuffle` (both
engines: Quintine/Dune's ordinary draw refills from the discard pile, treachery.online
`Game.DrawTreacheryCard` shuffles the discard pile in) or `nothing` (the top card of an empty deck
does not exist; the Robbery gives nothing). Under either choice the card option stays legal and a
Robbery with both piles empty gives nothing (Quintine/Dune; treachery.online adds the null its draw
returns to Moritani's hand: docs/engines.md, "Findings").

Modelling choices (docs/checking.md, "Finite deck"): the counts are public, as card backs are;
Karama cards are tracked apart from `hand` (who holds one is private), so they stay outside the
counted deck and a played Karama leaves the model as before. Off, this module adds no field, rule or
property.

>>> from model.moritani.build import build_model
>>> from model.moritani.profiles import PROFILES
>>> p = PROFILES["finite-deck"]
>>> sorted(f.name for f in build_model(p.bounds, p.interpretation).schema.fields if f.name in ("deck", "discards"))
['deck', 'discards']
"""
from __future__ import annotations

from model.domains import IntRange
from model.expr import Const, implies, ite, minimum, post, sum_of
from model.moritani.config import ROBBERY_EMPTY_DECK
from model.moritani.context import Ctx
from model.properties import Property, always, always_step, sometimes
from model.schema import Field

IDS = ("A16", "R39", "R40", "R36", "H18", "H19", "H33")


def enabled(c: Ctx) -> bool:
    return c.bounds.deck is not None


def total(c: Ctx) -> int:
    """Cards in play: the starting hands and the deck (a constant of the game, R39's 'top card')."""
    b = c.bounds
    assert b.deck is not None, "total() is asked only with the finite-deck module (enabled(c))"
    return b.deck + b.moritani_hand + b.hand * (len(b.factions) - 1)


def fields(c: Ctx) -> tuple:
    if not enabled(c):
        return ()
    n = total(c)
    return (Field("deck", IntRange(0, n), doc="Treachery cards face down in the deck (public: card backs)"),
            Field("discards", IntRange(0, n), doc="Treachery cards in the discard pile (public)"))


def initial(c: Ctx) -> dict:
    return {"deck": c.bounds.deck, "discards": 0} if enabled(c) else {}


def draw(c: Ctx, f, reshuffle: bool = True) -> dict:
    """Effects of faction f (an expression) drawing the top card: from the deck, or with `reshuffle` from the
    discard pile shuffled into a new deck when the deck is empty; nothing when there is nothing to draw.
    Without the module the card always comes."""
    v = c.v
    if not enabled(c):
        return {("hand", (f,)): v("hand", f) + 1}
    top, pile = v("deck") > 0, v("discards") > 0
    if c.has("reshuffle-while-deck-lasts"):  # the bug: every draw shuffles the discard pile back in first
        top = (v("deck") + v("discards")) > 0
        return {("hand", (f,)): v("hand", f) + ite(top, 1, 0),
                ("deck", ()): ite(top, v("deck") + v("discards") - 1, 0), ("discards", ()): Const(0)}
    refill = pile if reshuffle else Const(False)
    gets = top | refill
    if c.has("draw-from-nothing"):  # the bug (treachery.online's null card): the hand grows even with nothing drawn
        gets = Const(True)
    kept = v("discards") if c.has("reshuffle-keeps-discards") else Const(0)
    return {("hand", (f,)): v("hand", f) + ite(gets, 1, 0),
            ("deck", ()): ite(top, v("deck") - 1, ite(refill, v("discards") - 1, 0)),
            ("discards", ()): ite(top | ~refill, v("discards"), kept)}


def drew(c: Ctx, reshuffle: bool = True):
    """Whether the draw of `draw` brings a card (an expression)."""
    if not enabled(c):
        return Const(True)
    if c.has("draw-from-nothing"):
        return Const(True)
    v = c.v
    if c.has("reshuffle-while-deck-lasts"):
        return (v("deck") + v("discards")) > 0
    return (v("deck") > 0) | ((v("discards") > 0) if reshuffle else Const(False))


def robbery_reshuffles(c: Ctx) -> bool:
    """A16: does the Robbery card option shuffle the discard pile into an empty deck?"""
    return c.chose(ROBBERY_EMPTY_DECK.RESHUFFLE)


def discard(c: Ctx, *amounts) -> dict:
    """Effects of `amounts` (expressions) cards going to the discard pile in one step ({} without the module)."""
    if not enabled(c) or c.has("discard-vanishes"):  # the bug: a discarded card leaves the game
        return {}
    return {("discards", ()): c.v("discards") + sum_of(amounts)}


def trimmed(c: Ctx, f: int, lim, hit) -> tuple:
    """(new hand, cards discarded) when faction f's hand is cut to `lim` if `hit` (the Atomics penalty, H33)."""
    hand = c.v("hand", f)
    return ite(hit, minimum(hand, lim), hand), ite(hit, hand - minimum(hand, lim), 0)


def properties(c: Ctx) -> list[Property]:
    if not enabled(c):
        return []
    v = c.v
    n = len(c.bounds.factions)
    cards = sum_of([v("hand", f) for f in range(n)]) + v("deck") + v("discards")
    return [
        always("card-conservation", cards.eq(total(c)), ("A16", "R39", "R40", "R36", "H18", "H19", "H33"),
               "no Treachery card is created or destroyed: hands, deck and discard pile always hold the same cards"),
        always_step("reshuffle-only-when-empty", implies(post("discards") < v("discards"), v("deck").eq(0)),
                    ("A16",), "the discard pile is shuffled into a new deck only when the deck is empty"),
    ]


def witnesses(c: Ctx) -> list[Property]:
    if not enabled(c) or c.face("Robbery") is None:  # both witnesses are Robbery card draws
        return []
    v = c.v
    empty = v("deck").eq(0) & v("discards").eq(0)
    return [
        sometimes("witness-reshuffle", when=v("deck").eq(0) & (v("discards") > 0), fires=("rob_card",),
                  rules=("A16", "R39"), doc="the Robbery card option meets an empty deck with cards in the discard pile"),
        sometimes("witness-nothing-to-draw", when=empty, fires=("rob_card",), rules=("A16",),
                  doc="the Robbery card option with both the deck and the discard pile empty"),
    ]
