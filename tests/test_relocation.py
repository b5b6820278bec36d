"""Ambassador relocation (model/moritani/relocation.py; A24, A2, R17, H9): the Fremen Ambassador's move of an Ecaz force
is an entry queued behind the arrival that triggered it, under entry-causes every-arrival only, never overwriting
that arrival's record; each check of the module has a seeded defect."""
from __future__ import annotations

import pytest

from model.errors import ModelError
from model.evaluate import apply, enabled
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import PROFILES, RELOCATION_BOUNDS
from tests.conftest import explore
from tests.pins import PROFILE_STATES

RELOCATION = Bounds(**dict(RELOCATION_BOUNDS))


def test_module_off_adds_nothing():
    m = build_model()
    assert "relocation" not in m.vocabulary.Cause.labels and "relocated" not in m.schema.slot_names
    assert not [r for r in m.rules if "relocat" in r.name]


def test_relocation_needs_ecaz_in_the_desert_and_an_ambassador():
    with pytest.raises(ModelError, match="bounds.ambassador_relocation needs Ecaz"):
        Bounds(ambassador_relocation=True)
    with pytest.raises(ModelError, match="an Ambassador"):
        Bounds(**(dict(RELOCATION_BOUNDS) | {"ambassador": None}))
    with pytest.raises(ModelError, match="cannot be combined"):
        Bounds(**(dict(RELOCATION_BOUNDS) | {"worm_rides": True, "factions": ("Moritani", "Atreides", "Ecaz", "Fremen"),
                                            "forces": (("Atreides", 2, 0), ("Ecaz", 0, 1), ("Fremen", 0, 1))}))


@pytest.mark.heavy
@pytest.mark.parametrize("causes, states", [
    (c, PROFILE_STATES["ambassador-relocation", f"entry-causes={c}"])
    for c in ("every-arrival", "shipment-and-movement")])
def test_both_readings_hold_with_every_witness(causes, states):
    """Every check holds under both readings; the relocation opens Terror only under every-arrival."""
    m = build_model(RELOCATION, Interpretation.of(entry_causes=causes))
    assert RELOCATION == PROFILES["ambassador-relocation"].bounds
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert len(ex.states) == states
    wanted = {p.name for p in m.properties if p.kind == "witness"}
    assert wanted <= set(ex.witnesses)
    assert ("witness-relocation-opens-terror" in wanted) == (causes == "every-arrival")


def test_the_relocation_never_touches_the_arrival_record(explored_config):
    """H9: replayed on every reachable relocation step (small configuration), the arrival that triggered the
    Ambassador keeps its entrant, stronghold, cause and queued Terror decision; only the queue slot records
    where Ecaz went."""
    m, ex = explored_config("small-relocation")
    sch = m.schema
    record = [sch.slot(n, ()) for n in ("entrant", "entry_loc", "entry_cause", "pend_terror")]
    queued, stage = sch.slot("relocated", ()), sch.slot("stage", ())
    ambassador = m.vocabulary.Stage.index("ambassador")
    seen = 0
    moves = [a for a in m.actions if a.rule.name == "ambassador_relocate"]
    for s in ex.states:
        if s[stage] != ambassador:
            continue
        for a in moves:
            if not enabled(a, s, sch):
                continue
            t = apply(a, s, sch)
            seen += 1
            assert [t[i] for i in record] == [s[i] for i in record], (s, t)
            assert t[queued] == dict(a.args)["to"]
    assert seen > 10, seen


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = set()
    for causes in ("every-arrival", "shipment-and-movement"):
        added |= {p.name for p in build_model(RELOCATION, Interpretation.of(entry_causes=causes)).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"terror-needs-an-entry", "may-relocate"}  # with its permission
    aimed = {d.target for d in DEFECTS if dict(d.needs).get("ambassador_relocation")}
    assert checks <= aimed and {"no-lost-obligation", "arrival-respects-occupancy"} <= aimed
