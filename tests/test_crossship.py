"""The Guild's cross-ship module (model/moritani/crossship.py; A24, A23, R17): a cross-ship from the board is an entry
under both entry-causes readings, a transport back to reserves is none, the Aftermath ban follows its switch, and
each check of the module has a seeded defect."""
from __future__ import annotations

import pytest

from model.errors import ModelError
from model.evaluate import apply, enabled
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import CROSS_SHIP_BOUNDS, PROFILES
from tests.conftest import explore

CROSS = Bounds(**dict(CROSS_SHIP_BOUNDS))


def test_module_off_adds_nothing():
    m = build_model()
    assert "cross-ship" not in m.vocabulary.Cause.labels
    assert not {r.name for r in m.rules} & {"guild_cross_ship", "guild_to_reserves"}
    assert "terror-needs-an-entry" not in {p.name for p in m.properties}


def test_the_guild_needs_desert_forces_and_no_other_entry_module():
    with pytest.raises(ModelError, match="bounds.cross_ship needs the Guild"):
        Bounds(cross_ship=True)
    with pytest.raises(ModelError, match="cannot be combined"):
        Bounds(**(dict(CROSS_SHIP_BOUNDS) | {"revival": "Atreides", "forces": (("Atreides", 2, 0), ("Guild", 0, 1))}))


@pytest.mark.heavy
@pytest.mark.parametrize("choices, states", [
    ({}, 253_760),  # issue 33: cross-ships from the open desert (was 200,300)
    ({"cross_ship_into_aftermath": "allowed"}, 257_512),
    ({"entry_causes": "shipment-and-movement"}, 253_760),
])
def test_every_reading_holds_with_every_witness(choices, states):
    """Every check holds and every witness is reachable. A cross-ship is a shipment, so R11's narrower reading of
    entry-causes changes nothing here (same state count); `allowed` adds the cross-ships into the Aftermath."""
    m = build_model(CROSS, Interpretation.of(**choices))
    assert CROSS == PROFILES["cross-ship"].bounds
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert len(ex.states) == states
    wanted = {p.name for p in m.properties if p.kind == "witness"}
    assert wanted <= set(ex.witnesses)
    assert ("witness-cross-ship-into-aftermath" in wanted) == ("cross_ship_into_aftermath" in choices)


def test_a_transport_back_to_reserves_never_queues_a_reaction(explored_config):
    """R17: replayed on every reachable transport step, the Guild leaves the board for its reserves and nothing
    becomes pending: no Terror decision, no new entrant, the turn passes on."""
    m, ex = explored_config("small-cross-ship")  # the reference semantics, on the small configuration
    sch, g = m.schema, m.vocabulary.F.index("Guild")
    reserves, stage, mover = sch.slot("reserves", (g,)), sch.slot("stage", ()), sch.slot("mover", ())
    pend, ship_move = sch.slot("pend_terror", ()), m.vocabulary.Stage.index("ship_move")
    seen = 0
    moves = [a for a in m.actions if a.rule.name == "guild_to_reserves"]
    for s in ex.states:
        if s[stage] != ship_move:
            continue
        for a in moves:
            if not enabled(a, s, sch):
                continue
            t = apply(a, s, sch)
            seen += 1
            assert t[reserves] == s[reserves] + 1 and t[stage] == ship_move and not t[pend], (s, t)
            assert t[mover] == s[mover] + 1
    assert seen > 20, seen


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = {p.name for p in build_model(CROSS).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"terror-needs-an-entry", "may-cross-ship", "may-ship-to-reserves"}  # issue 33's permissions
    aimed = {d.target for d in DEFECTS if dict(d.needs).get("cross_ship")}
    assert checks <= aimed
    # The module's other hazards are caught by the checks every profile has.
    assert {"no-lost-obligation", "no-shipment-into-aftermath", "arrival-respects-occupancy",
            "forces-transfer"} <= aimed
