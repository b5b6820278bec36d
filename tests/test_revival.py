"""The revival module (model/moritani/revival.py; A24, R17, R11): a revival onto the planet is an entry of its own
under both entry-causes readings, opens Terror exactly when the switch says so, and each check of the module has a
seeded defect."""
from __future__ import annotations

import pytest

from model.errors import ModelError
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import PROFILES, REVIVAL_BOUNDS
from tests.conftest import explore
from tests.pins import PROFILE_STATES

REVIVAL = Bounds(**dict(REVIVAL_BOUNDS))


def test_module_off_adds_nothing():
    m = build_model()
    assert "revival" not in m.vocabulary.Stage.labels and "revival" not in m.vocabulary.Cause.labels
    assert m.get(m.init[0], "tanks", 1) == 0


def test_the_reviver_needs_reserves_and_starts_with_one_force_in_the_tanks():
    with pytest.raises(ModelError, match="bounds.revival"):
        Bounds(revival="Ecaz")
    m = build_model(REVIVAL)
    atreides = m.vocabulary.F.index("Atreides")
    assert (m.get(m.init[0], "tanks", atreides), m.get(m.init[0], "reserves", atreides)) == (1, 1)


@pytest.mark.heavy
@pytest.mark.parametrize("causes, states", [
    (c, PROFILE_STATES["revival", f"entry-causes={c}"]) for c in ("every-arrival", "shipment-and-movement")])
def test_both_readings(causes, states):
    """Every check holds under both readings; under every-arrival every witness is reachable (a revival opens
    Terror); under shipment-and-movement a revival never opens one, and the module's own witness is reached."""
    m = build_model(REVIVAL, Interpretation.of(entry_causes=causes))
    assert REVIVAL == PROFILES["revival"].bounds
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert len(ex.states) == states
    wanted = {p.name for p in m.properties if p.kind == "witness"}
    if causes == "shipment-and-movement":
        wanted = {"witness-revival-onto-planet"}
    assert wanted <= set(ex.witnesses)
    assert ("witness-revival-opens-terror" in ex.witnesses) == (causes == "every-arrival")


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = set()
    for causes in ("every-arrival", "shipment-and-movement"):
        added |= {p.name for p in build_model(REVIVAL, Interpretation.of(entry_causes=causes)).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"revival-respects-entry-causes", "may-revive", "may-end-revival"}  # with its permissions
    assert checks <= {d.target for d in DEFECTS}
    assert "no-lost-obligation" in {d.target for d in DEFECTS if d.id == "revival-skips-terror"}
