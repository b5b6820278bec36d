"""Every check can fail: each seeded defect is caught by the check it targets, at a pinned depth."""
from __future__ import annotations

import pytest

from checks.config import CheckConfig
from checks.analyses.selftest import run_defect
from model.moritani.build import build_model
from model.moritani.defects import DEFECT_BY_ID, DEFECTS
from model.moritani.profiles import PROFILES
from model.moritani import GAME

# Shortest trace length (steps) for each defect on the default profile (plus its own bounds).
EXPECTED_DEPTH = {
    "reload-recredits-extortion": 16,
    "eome-duplicates-token": 9,
    "ids-not-rotated": 9,
    "recovery-reopens-placement": 23,
    "reload-reopens-placement": 1,
    "ally-triggers-terror": 8,
    "refusal-declines": 9,
    "karama-block-ignored": 9,
    "offer-to-ecaz": 10,
    "shipment-into-aftermath": 10,
    "atomics-penalty-follows-new-ally": 32,
    "extortion-payment-minted": 18,
    "retry-rerolls": 9,
    "advisor-entry-overwrites-terror": 11,
    "alliance-swap-one-sided": 9,
    "extortion-pass-missing": 17,
    "atomics-returns-to-supply": 7,
    "robbery-rounding-to-bank": 8,
    "robbery-pays-bank": 8,
    "extortion-paid-out-of-turn": 18,
    "acceptance-removes-token": 9,
    "acceptance-drops-token": 9,
    "reveal-any-placed-token": 16,
    "karama-placement-still-commits": 2,
    "karama-card-kept": 8,
    "atomics-spares-moritani": 12,
    "sneak-ignores-occupancy": 10,
    "move-ignores-occupancy": 8,
    "move-from-reserves": 4,
    "atomics-returns-forces-to-reserves": 7,
    "decline-refunds-shipment": 8,
    "gift-discards": 8,
    "robbery-rounds-down": 8,
    "bounty-paid-by-entrant": 8,
    "bounty-overdraws-entrant": 8,  # target `domain`: spice[Atreides] = -2 after the bounty (issue 39)
    "move-renumbers-token": 11,
    "rob-any-rival": 8,
    "extortion-queue-skips": 16,
    "reload-restarts-extortion-queue": 17,
    "decline-keeps-decision": 7,
    "decline-runs-sneak-attack": 7,
    "assassination-skips-close": 8,
    "robbery-takes-both": 9,
    "turn-skips-shipment": 3,
    "karama-block-persists": 10,
    "cancelled-placement-kept": 2,
    "commit-any-supply-token": 2,
    "refusal-out-of-turn": 16,
    "advisor-overwrites-ambassador-payer": 5,
    "face-printed": 2,
    "terror-options-public": 6,
    "offer-availability-public": 6,
    "placement-declaration-public": 1,
    "reply-names-effect": 8,
    "decline-logs-face": 7,
    # possibilistic (checks/analyses/possible.py): the entry (with the Ambassador's spice), the decision, the offer
    "offer-gate-misses-sabotage": 7,
    "retired-card-reshuffled": 12,
    "used-marker-ignored": 21,
    "forfeit-resets-each-turn": 20,
    "assassinate-offer-needs-card": 10,
    "separation-grace-forgotten": 33,
    "separation-grace-never-expires": 31,
    "separation-ignores-order": 30,
    "advanced-keeps-basic-grace": 33,
    "ambassador-survives-atomics": 10,  # issue 33: with A2 terror-first (the Ambassador is spent once it reacts)
    "ambassador-never-spent": 10,  # issue 33
    "intrusion-flips-one": 19,
    "intrusion-ignored-after-sneak": 11,
    # Nexus card module (model/moritani/nexus.py), on the nexus-cunning / nexus-betrayal bounds.
    "betrayal-loses-token": 5,
    "betrayal-keeps-id": 5,
    "betrayal-uses-placement": 5,
    "placement-ignores-stack": 11,
    "cunning-card-kept": 11,
    "cunning-while-allied": 10,
    "stack-first-in-array": 45,  # a witness target: unreachable after the complete search (45 layers; 47 before issue 33)
    "stack-reveals-all": 20,
    "accept-returns-one": 20,
    "nexus-kept-on-alliance": 11,  # issue 33
    # Grumman module (model/moritani/grumman.py), on the grumman bounds.
    "grumman-ignores-threshold": 26,
    "grumman-counts-to-two": 30,
    "grumman-advisor-entry-ignores-threshold": 26,
    "grumman-twice": 11,
    "grumman-pays-on-pass": 9,
    "grumman-adds-anywhere": 9,
    "grumman-add-uses-placement": 10,
    "grumman-remove-keeps-id": 10,
    "grumman-stacks-when-low": 15,
    # Worm-ride module (model/moritani/worms.py), on the worm-rides bounds.
    "ride-continuation-skipped": 5,
    "ride-ignores-entry-causes": 6,
    "ride-recorded-as-shipment": 6,
    "ride-resumes-at-close": 8,
    # Finite-deck module (model/moritani/deck.py), on the finite-deck bounds.
    "draw-from-nothing": 11,
    "reshuffle-keeps-discards": 20,
    "discard-vanishes": 10,
    "reshuffle-while-deck-lasts": 20,
    # Setup module (model/moritani/setup.py), on the moritani-setup bounds.
    "setup-ignores-occupancy": 1,
    "setup-anywhere": 1,
    # Homeworld occupation (model/moritani/homeworld.py), on the grumman-occupied bounds.
    "set-aside-face-shown": 8,
    "eome-ignores-homeworld": 10,
    "occupier-triggers-terror": 7,
    # Revival module (model/moritani/revival.py), on the revival bounds.
    "revival-ignores-entry-causes": 8,
    "revival-recorded-as-shipment": 8,
    "revival-skips-terror": 8,
    # The Guild's cross-ship (model/moritani/crossship.py), on the cross-ship bounds.
    "cross-ship-skips-terror": 7,
    "reserve-transport-opens-terror": 7,
    "cross-ship-into-aftermath": 10,
    "cross-ship-ignores-occupancy": 11,
    "cross-ship-keeps-origin": 5,
    # Ambassador relocation (model/moritani/relocation.py), on the ambassador-relocation bounds.
    "relocation-skips-terror": 8,  # 18 before issue 33 (the relocation from the open desert)
    "relocation-overwrites-entry": 8,
    "relocation-ignores-entry-causes": 8,
    "relocation-ignores-occupancy": 21,
}


def test_catalogue_and_expectations_match():
    assert set(EXPECTED_DEPTH) == set(DEFECT_BY_ID)


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


@pytest.mark.heavy
@pytest.mark.parametrize("defect", DEFECTS, ids=lambda d: d.id)
def test_defect_is_caught_by_its_target(defect, tmp_path):
    r = run_defect(GAME, defect, PROFILES["default"], CheckConfig())
    assert r.verdict == "caught", r.detail
    assert r.extra["caught_by"] == defect.target
    assert r.depth == EXPECTED_DEPTH[defect.id]
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
