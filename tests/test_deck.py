"""The finite-deck module (model/moritani/deck.py; A16, R39, R40, R36, H18, H19, H33): both A16 readings hold with
every witness, cards are conserved through every hand change, the Robbery finds nothing with both piles empty, and
every check of the module has a seeded defect; a defect written for another check is caught too."""
from __future__ import annotations

import pytest

from model.errors import ModelError
from model.evaluate import apply, enabled
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import DECK_BOUNDS, PROFILES, TREACHERY_ONLINE
from tests.conftest import explore
from tests.pins import PROFILE_STATES

DECK = Bounds(**dict(DECK_BOUNDS))


def test_module_off_adds_nothing():
    m = build_model()
    names = {f.name for f in m.schema.fields}
    assert not names & {"deck", "discards"}
    assert not {p.name for p in m.properties} & {"card-conservation", "reshuffle-only-when-empty"}


def test_deck_size_is_checked():
    with pytest.raises(ModelError, match="bounds.deck must be 0..12"):
        Bounds(deck=13)


@pytest.mark.heavy
@pytest.mark.parametrize("interp, states", [
    (Interpretation(), PROFILE_STATES["finite-deck", "engine"]),
    (Interpretation.of(robbery_empty_deck="nothing"), PROFILE_STATES["finite-deck", "robbery-empty-deck=nothing"]),
    (TREACHERY_ONLINE, PROFILE_STATES["finite-deck", "treachery-online"])])
def test_every_reading_holds_with_every_witness(interp, states):
    m = build_model(DECK, interp)
    assert DECK == PROFILES["finite-deck"].bounds
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert {p.name for p in m.properties if p.kind == "witness"} <= set(ex.witnesses)
    assert len(ex.states) == states


@pytest.mark.heavy
def test_robbery_card_option_draws_only_what_exists():
    """R39 with A16: from every reachable state where Moritani takes the card, its hand grows by one exactly when a
    card exists to draw (the deck, or under reshuffle the discard pile), and the cards are conserved. All three
    cases (deck, pile, nothing) occur under each choice."""
    for choice in ("reshuffle", "nothing"):
        m = build_model(DECK, Interpretation.of(robbery_empty_deck=choice))
        ex = explore(m, engine="scalar")
        sch = m.schema
        hand, dk, ds = sch.slot("hand", (0,)), sch.slot("deck", ()), sch.slot("discards", ())
        seen = {"deck": 0, "pile": 0, "none": 0}
        robs = [a for a in m.actions if a.rule.name == "rob_card"]  # the reference semantics, on these actions only
        for s in ex.states:
            if s[sch.slot("stage", ())] != m.vocabulary.Stage.index("robbery"):
                continue
            for a in robs:
                if not enabled(a, s, sch):
                    continue
                t = apply(a, s, sch)
                gets = s[dk] > 0 or (choice == "reshuffle" and s[ds] > 0)
                assert t[hand] - s[hand] == (1 if gets else 0), (choice, s, t)
                assert t[dk] + t[ds] + t[hand] == s[dk] + s[ds] + s[hand]
                seen["deck" if s[dk] else "pile" if s[ds] else "none"] += 1
        assert all(seen.values()), seen


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = {p.name for p in build_model(DECK).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"card-conservation", "reshuffle-only-when-empty"}
    assert checks <= {d.target for d in DEFECTS}
