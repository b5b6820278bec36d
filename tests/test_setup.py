"""The setup module (model/moritani/setup.py; R1, A27): both setup-destination readings hold with every witness,
Moritani sets up only where nobody stands (advisors count), and every check of the module has a seeded defect."""
from __future__ import annotations

import dataclasses

import pytest

from model.errors import ModelError
from model.evaluate import successors
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import PROFILES, SETUP_BOUNDS
from tests.conftest import explore
from tests.pins import PROFILE_STATES

SETUP = Bounds(**dict(SETUP_BOUNDS))


def test_module_off_adds_nothing():
    m = build_model()
    assert "setup" not in m.vocabulary.Stage.labels
    assert not {r.name for r in m.rules if "setup" in r.name}


def test_setup_comes_from_reserves_and_garrisons_are_checked():
    with pytest.raises(ModelError, match="setup_forces must be 1..bounds.moritani_forces"):
        Bounds(setup_forces=3, moritani_forces=2)
    with pytest.raises(ModelError, match="not in bounds.strongholds"):
        Bounds(garrisons=(("Atreides", "Tuek's Sietch", 1),))
    with pytest.raises(ModelError, match="two rows for one faction"):
        Bounds(garrisons=(("Atreides", "Arrakeen", 1), ("Atreides", "Carthag", 1)))


@pytest.mark.parametrize("destination, places", [("stronghold", ["Carthag"]), ("territory", ["Carthag", "open desert"])])
def test_the_first_step_offers_exactly_the_unoccupied_destinations(destination, places):
    """R1, A27: Atreides stands in Arrakeen, so only Carthag (and under `territory` the open desert) is offered;
    the game starts there, before the first Mentat Pause."""
    m = build_model(SETUP, Interpretation.of(setup_destination=destination))
    (s0,) = m.init
    offered = sorted(m.vocabulary.L.labels[dict(a.args)["l"]] for a, _ in successors(m, s0))
    assert offered == sorted(places)
    assert {a.rule.name for a, _ in successors(m, s0)} == {"moritani_setup"}


@pytest.mark.heavy
def test_advisors_alone_make_a_stronghold_occupied():
    """R1's engine note: BG advisors alone occupy for setup, even where they do not occupy for entries (A25
    coexist). With BG's garrison turned into advisors, Carthag stays closed to Moritani's setup."""
    b = dataclasses.replace(SETUP, garrisons=(("Atreides", "Arrakeen", 1), ("Bene Gesserit", "Carthag", 1)))
    m = build_model(b, Interpretation.of(bg_advisors_occupy="coexist"))
    s0 = list(m.init[0])
    s0[m.schema.slot("advisors", (m.vocabulary.L.index("Carthag"),))] = 1
    assert [a for a, _ in successors(m, tuple(s0))] == []


@pytest.mark.heavy
@pytest.mark.parametrize("destination, states", [
    (c, PROFILE_STATES["moritani-setup", f"setup-destination={c}"]) for c in ("stronghold", "territory")])
def test_both_readings_hold_with_every_witness(destination, states):
    m = build_model(SETUP, Interpretation.of(setup_destination=destination))
    assert SETUP == PROFILES["moritani-setup"].bounds
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert {p.name for p in m.properties if p.kind == "witness"} <= set(ex.witnesses)
    assert len(ex.states) == states


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = set()
    for destination in ("stronghold", "territory"):
        added |= {p.name for p in build_model(SETUP, Interpretation.of(setup_destination=destination)).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"setup-unoccupied", "may-set-up"}  # issue 33's permission of the setup choice (R1, A27)
    assert checks <= {d.target for d in DEFECTS}
