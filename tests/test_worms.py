"""The worm-ride module (model/moritani/worms.py; A24, R17, R11, H20): both entry-cause readings hold with every
witness, the rides continue after each entry, every check of the module has a seeded defect, and a ride owes a
Terror decision exactly when the switch says so."""
from __future__ import annotations

import pytest

from model.errors import ModelError
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import PROFILES, WORM_BOUNDS
from tests.conftest import explore
from tests.pins import PROFILE_STATES

WORMS = Bounds(**dict(WORM_BOUNDS))


def test_module_off_adds_nothing():
    m = build_model()
    assert "worm" not in m.vocabulary.Stage.labels and "worm ride" not in m.vocabulary.Cause.labels
    assert not {r.name for r in m.rules if "ride" in r.name}


def test_needs_fremen_in_the_desert():
    with pytest.raises(ModelError, match="needs Fremen"):
        Bounds(worm_rides=True)


@pytest.mark.heavy
@pytest.mark.parametrize("causes, states", [
    (c, PROFILE_STATES["worm-rides", f"entry-causes={c}"]) for c in ("every-arrival", "shipment-and-movement")])
def test_both_readings_hold_with_every_witness(causes, states):
    m = build_model(WORMS, Interpretation.of(entry_causes=causes))
    assert WORMS == PROFILES["worm-rides"].bounds
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert {p.name for p in m.properties if p.kind == "witness"} <= set(ex.witnesses)
    assert len(ex.states) == states
    opens = "witness-ride-opens-terror" in ex.witnesses
    assert opens == (causes == "every-arrival")


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = set()
    for causes in ("every-arrival", "shipment-and-movement"):
        added |= {p.name for p in build_model(WORMS, Interpretation.of(entry_causes=causes)).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"ride-continues", "entry-causes-respected", "may-ride-worm", "may-end-rides"}  # + permissions
    assert checks <= {d.target for d in DEFECTS}


@pytest.mark.heavy
def test_a_ride_into_a_stack_is_one_entry_per_ride():
    """Issue 15's combined profile (worm rides with Moritani's Nexus card): a ride enters a stack Cunning made, and
    each ride is an entry of its own. Before the `entry_decisions` monitor knew that a settled ride returns to the
    ride sequence, a second ride by Fremen counted as the same entry and `one-decision-per-entry` failed (11 steps)."""
    p = PROFILES["worm-rides-nexus"]
    m = build_model(p.bounds, p.interpretation)
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert {q.name for q in m.properties if q.kind == "witness"} <= set(ex.witnesses)
    assert len(ex.states) == PROFILE_STATES["worm-rides-nexus", ""]
    assert ex.witness_trace("witness-ride-into-stack").depth == 14
