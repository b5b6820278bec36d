"""Treachery cards in hand: where a step may take them from and how far it may discard (R5, R36, R39, R40, H18).

Two step properties, written from the rules catalogue. The checks before them judged a hand only by its
ceiling (`hand-limits`) and, with a finite deck, by the total of all cards (`card-conservation`). So
three kinds of engine bug went unseen in the default game, where no deck is counted:

- a card option of Robbery that gives Moritani nothing (R39: it draws the top card);
- a step that makes cards out of nothing (Atomics filling the penalised hands up to their new limit);
- a hand discarding below its limit: a limit read one too low (as if the Atomics penalty always applied)
  sends Moritani to discard every card Robbery draws (R39, H18: only a hand *over* its limit discards).

The last is the bug a stricter guard hides: the game it leaves is still a legal-looking one.

>>> from model.moritani.build import build_model
>>> sorted(p.name for p in build_model().properties if p.name in NAMES)
['discards-stop-at-the-limit', 'hands-grow-by-draws']
"""
from __future__ import annotations

from model.expr import Const, Fired, implies, ite, post, primed, sum_of
from model.moritani import deck
from model.moritani.context import Ctx
from model.properties import Property, always_step

NAMES = ("hands-grow-by-draws", "discards-stop-at-the-limit")


def properties(c: Ctx) -> list[Property]:
    """Both properties; none when no rule moves a card (no Robbery, Sabotage, Atomics or bidding)."""
    if not _draws(c) and not _plays(c) and c.face("Atomics") is None:
        return []
    return [_hands_grow_by_draws(c), _discards_stop_at_the_limit(c)]


def _draws(c: Ctx) -> tuple:
    """The steps that draw a card from the deck: Robbery's card option (R39) and the card won at bidding (R5)."""
    return (("rob_card",) if c.face("Robbery") is not None else ()) + (("draw_card",) if c.bounds.bidding else ())


def _plays(c: Ctx) -> tuple:
    """The steps where a card leaves a hand other than by a hand-limit discard: Sabotage's random discard from
    the entrant's hand and Moritani's gift (R40)."""
    return ("reveal_sabotage", "gift_card") if c.face("Sabotage") is not None else ()


def _hands_grow_by_draws(c: Ctx) -> Property:
    """R5, R39, R40, A16: the cards in all hands together grow only by a draw from the deck, one card a draw;
    a gift moves a card and makes none. With no finite deck (A16 off) the deck never runs out, so a draw
    always brings its card; with one, `card-conservation` follows each card and an empty deck draws nothing."""
    v = c.v
    n = len(c.bounds.factions)
    before = sum_of(v("hand", f) for f in range(n))
    after = sum_of(post("hand", f) for f in range(n))
    draws = _draws(c)
    drawn = Fired(draws) if draws else Const(False)
    ok = after <= before + ite(drawn, 1, 0)
    if not deck.enabled(c):
        ok = ok & implies(drawn, after.eq(before + 1))
    return always_step("hands-grow-by-draws", ok, ("R5", "R39", "R40", "A16"),
                       "cards reach the hands only by a draw, one a draw, and a draw with cards left brings its card")


def _discards_stop_at_the_limit(c: Ctx) -> Property:
    """R36, R39, H18, A10, A12: outside Sabotage (its random discard, the gift) a hand loses cards only by
    discarding down to its limit, the limit the chosen interpretation gives after the step (Atomics lowers it
    in the step that discards): never below it."""
    v = c.v
    plays = _plays(c)
    played = Fired(plays) if plays else Const(False)
    ok = Const(True)
    for f in range(len(c.bounds.factions)):
        limit = primed(c.hand_limit(f, engine=False))
        ok = ok & implies((post("hand", f) < v("hand", f)) & ~played, post("hand", f) >= limit)
    return always_step("discards-stop-at-the-limit", ok, ("R36", "R39", "H18", "A10", "A12"),
                       "a hand-limit discard (Robbery's draw, the Atomics penalty) stops at the hand limit")
