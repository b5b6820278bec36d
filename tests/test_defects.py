"""Every check can fail: each seeded defect is caught by the check it targets, at a pinned depth."""
from __future__ import annotations

import pytest

from checks.config import CheckConfig
from checks.analyses.selftest import run_defect
from model.moritani.build import build_model
from model.moritani.defects import DEFECT_BY_ID, DEFECTS
from model.moritani.profiles import PROFILES
from model.moritani import GAME

def test_every_defect_carries_its_depth():
    """The expected shortest depth is pinned on each Defect (model/moritani/defects.py), not in a table here."""
    assert [d.id for d in DEFECTS if d.depth is None] == []
    assert len(DEFECT_BY_ID) == len(DEFECTS)


def test_every_invariant_has_a_defect_aimed_at_it():
    names = {p.name for p in build_model().invariants} | {"no-deadlock", "hidden-identity", "possibilistic"}
    assert names <= {d.target for d in DEFECTS}


def test_every_nexus_module_check_has_a_defect_aimed_at_it():
    """Each invariant, step property and H10 witness the Nexus module adds (any of its switches) is the target of
    a seeded defect."""
    from model.moritani.config import Interpretation
    base = {p.name for p in build_model().properties}
    added = set()
    for name in ("nexus-cunning", "nexus-betrayal"):
        p = PROFILES[name]
        for a17 in ("one-chosen", "all-in-turn"):
            interp = Interpretation.of(stack_reveal=a17)
            added |= {q.name for q in build_model(p.bounds, interp).properties} - base
    witnesses = {n for n in added if n.startswith("witness-")}
    assert (added - witnesses) | {"witness-stack-any-token"} <= {d.target for d in DEFECTS}


# A leak defect with a pinned small_depth is caught on the small bounds by both leak engines in the default run
# (tests/test_leaks_z3.py, SMALL_DEPTH); its run on the default profile here (3 to 9 s each) is under `-m slow`.
@pytest.mark.heavy
@pytest.mark.parametrize("defect", [pytest.param(d, marks=pytest.mark.slow) if d.small_depth is not None else d
                                    for d in DEFECTS], ids=lambda d: d.id)
def test_defect_is_caught_by_its_target(defect, tmp_path):
    r = run_defect(GAME, defect, PROFILES["default"], CheckConfig())
    assert r.verdict == "caught", r.detail
    assert r.extra["caught_by"] == defect.target
    assert r.depth == defect.depth
    if defect.target.startswith("witness-"):  # caught by absence: no trace to save
        assert r.trace is None and "unreachable after a complete search" in r.detail
        return
    # Every selftest counterexample round-trips (issue 5): saved as a scenario that replays to the
    # same ending, and as ITF that the itf-py library parses with one state per step.
    import json

    import itf_py

    from checks.formats.report import save_traces
    from checks.formats.scenario import replay_file
    proposal = GAME.with_defect(defect, PROFILES["default"])
    model = r.extra.get("model") or GAME.build(proposal)
    save_traces([r], model, proposal, tmp_path)
    res = replay_file(GAME, r.trace_path)
    assert res.ok, res.problem
    assert [s.action for s in res.steps] == r.trace.labels
    itf = itf_py.trace_from_json(json.loads(
        (tmp_path / "defects" / f"{defect.id}.itf.json").read_text(encoding="utf-8")))
    assert len(itf.states) == r.depth + 1


@pytest.mark.parametrize("engine", ["explicit", "bmc"])
def test_a_spent_timeout_builds_no_further_defect_model(engine):
    """Issue 40: `selftest --timeout 1` ran 94 s, building all 107 defects' models after the budget was
    gone. Once it is spent, the defects left are unknown (inconclusive, never missed) and not built."""
    import dataclasses
    import time
    from checks.analyses.selftest import run_selftest

    def build(*a, **kw):
        raise AssertionError("a model was built after the timeout")
    game = dataclasses.replace(GAME, build=build)
    spent = CheckConfig(timeout=1.0, started=time.perf_counter() - 2.0)
    results = run_selftest(game, PROFILES["default"], spent, engine=engine)
    assert len(results) > 50 and {r.verdict for r in results} == {"unknown"}
    assert all("not run: --timeout 1s reached" in r.detail for r in results)
