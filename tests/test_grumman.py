"""The Grumman module (model/moritani/grumman.py; R45, R46, A18, H11, H13, H42): its profile holds, each switch
choice is explored in full, treachery.online's reading is caught where it departs from the rules text, every
check of the module has a seeded defect, and a face set aside by a removal stays secret."""
from __future__ import annotations

import dataclasses

import pytest

from checks.analyses.leaks import check_leaks
from checks.config import CheckConfig
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECTS
from model.moritani.profiles import GRUMMAN_BOUNDS, PROFILES, TREACHERY_ONLINE
from tests.conftest import explore
from tests.pins import PROFILE_STATES

GRUMMAN = Bounds(**dict(GRUMMAN_BOUNDS))
# Two factions, two faces: small enough for the leak product (Moritani starts on the high side).
SMALL = Bounds(factions=("Moritani", "Atreides"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
               faces=("Sneak Attack", "Robbery"), grumman=True, moritani_forces=8, forces=(("Atreides", 4, 0),),
               spice=4, karama=())


def _explore(bounds, interp):
    m = build_model(bounds, interp)
    ex = explore(m)
    assert ex.complete
    missing = sorted({p.name for p in m.properties if p.kind == "witness"} - set(ex.witnesses))
    return m, ex, {k: ex.depth[i] for k, i in ex.violations.items()}, missing


def test_module_off_adds_nothing():
    names = {r.name for r in build_model().rules}
    assert not {n for n in names if n.startswith("grumman") or n.endswith("_high")}
    assert "collection" not in build_model().vocabulary.Stage.labels


@pytest.mark.heavy
@pytest.mark.parametrize("choices, states", [
    ({}, PROFILE_STATES["grumman", "engine"]),
    ({"grumman_removal": "to-supply"}, PROFILE_STATES["grumman", "grumman-removal=to-supply"]),
    ({"grumman_removal": "out-of-game"}, PROFILE_STATES["grumman", "grumman-removal=out-of-game"]),
    ({"grumman_addition": "mentat-placement"}, PROFILE_STATES["grumman", "grumman-addition=mentat-placement"]),
], ids=["engine", "to-supply", "out-of-game", "mentat-placement"])
def test_every_choice_holds_with_every_witness(choices, states):
    _, ex, violated, missing = _explore(GRUMMAN, Interpretation.of(**choices))
    assert violated == {} and missing == [] and not ex.deadlocks
    assert len(ex.states) == states


@pytest.mark.heavy
def test_treachery_reading_departs_from_h42_and_the_low_side():
    """treachery.online (5e6a944): `TerrorPlanted.MayRemoveTokens` has no once-per-Collection guard, so a second
    removal pays another 4 (H42); and under all-in-turn, a Sneak Attack that drops Moritani to the low side
    does not stop the stack's next decision for a one-force entry (R45 read at the decision, as Quintine's
    HOMEWORLD_COLLECTION_RULES.md says: current population controls)."""
    m, ex, violated, _ = _explore(GRUMMAN, TREACHERY_ONLINE)
    assert violated == {"collection-operation-once": 21, "low-grumman-threshold": 21}
    tail = [s.action.split("(")[0] for s in ex.trace_to(ex.violations["collection-operation-once"]).steps[-2:]]
    assert tail == ["grumman_remove", "grumman_remove"]
    reopened = [s.action.split("(")[0] for s in ex.trace_to(ex.violations["low-grumman-threshold"]).steps]
    assert reopened.count("open_terror") == 2 and "sneak_attack" in reopened


def test_every_module_check_has_a_defect_aimed_at_it():
    base = {p.name for p in build_model().properties}
    added = set()
    for choices in ({}, {"grumman_removal": "to-supply"}, {"grumman_addition": "mentat-placement"}):
        added |= {p.name for p in build_model(GRUMMAN, Interpretation.of(**choices)).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks - {"one-decision-per-entry"} <= {d.target for d in DEFECTS}
    assert {"low-grumman-threshold", "grumman-operation-legal", "collection-operation-once",
            "stack-made-legally"} <= checks


@pytest.mark.heavy
def test_stack_made_legally_catches_an_ordinary_placement_onto_a_token():
    """A bug this check was not written for: the Nexus module's `placement-ignores-stack` (the ordinary
    placement skips its empty-destination test) is caught by `stack-made-legally` on the Grumman bounds."""
    m = build_model(GRUMMAN, defects=("placement-ignores-stack",))
    ex = explore(m)
    assert ex.depth[ex.violations["stack-made-legally"]] == 12


@pytest.mark.heavy
@pytest.mark.parametrize("removal", ["out-of-game", "to-supply"])
def test_removed_faces_stay_secret(removal):
    m = build_model(SMALL, Interpretation.of(grumman_removal=removal))
    results, stats = check_leaks(m, CheckConfig())
    assert [r.verdict for r in results] == ["holds"] and stats["state_pairs"] > 100


def test_narration_names_the_group_and_the_operation():
    from model.moritani.narrate import narrate
    m = build_model(SMALL, Interpretation.of(grumman_removal="to-supply"))
    ship = next(a for a in m.actions if a.rule.name == "ship" and dict(a.args).get("n") == 3)
    s = m.init[0]
    assert "ships 3 forces into Arrakeen, paying 3 spice" in narrate(m, ship, s, s)
    remove = next(a for a in m.actions if a.rule.name == "grumman_remove")
    assert "leaves the board unrevealed; Moritani takes 4 spice" in narrate(m, remove, s, s)


@pytest.mark.heavy
@pytest.mark.parametrize("holder, states, witness", [
    ("Moritani", 1_149_487, "witness-cunning-onto-grumman-stack"),
    ("Atreides", 341_480, "witness-betrayal-of-stacked-token"),
])
def test_both_modules_at_once(holder, states, witness):
    """Issue 15's combined profile: Cunning onto a Grumman stack (three tokens in one stronghold), and Betrayal of
    one token of a stack. Building it found that `placements` counted the Grumman addition as a Mentat placement
    (placement-once violated in 12 steps: Grumman adds at Collection, then Cunning places in the same turn)."""
    allied = (("Atreides", "Bene Gesserit"),) if holder == "Moritani" else (("Moritani", "Ecaz"),)
    bounds = dataclasses.replace(GRUMMAN, nexus_card=holder, alliances=allied)
    if holder == "Moritani":
        assert bounds == PROFILES["grumman-nexus"].bounds
    _, ex, violated, missing = _explore(bounds, Interpretation())
    assert violated == {} and missing == [] and witness in ex.witnesses
    assert len(ex.states) == states


@pytest.mark.slow
def test_relational_leak_proof_goes_through_with_both_modules():
    """The `placement-window` lemma admits Cunning onto a stack Grumman made; without that the relational
    induction on `grumman-nexus` stopped at `bounded` (6 steps). About 90 s per rival, so one rival here."""
    from checks.analyses.leaks_z3 import leak_proof
    from model.moritani import GAME
    out = leak_proof(GAME.build(PROFILES["grumman-nexus"], unbounded=True), observers=["Atreides"])
    assert [v[0] for v in out.values()] == ["proved"], out


# -- Moritani's Homeworld occupied (model/moritani/homeworld.py; R23) --------------------------------------------

@pytest.mark.heavy
@pytest.mark.parametrize("choice, states", [(c, PROFILE_STATES["grumman-occupied", f"homeworld-occupation={c}"])
                                             for c in ("offer-only", "trigger-and-offer")])
def test_homeworld_occupation_under_both_readings(choice, states):
    """Bene Gesserit occupies Moritani's Homeworld. Under `offer-only` every check holds with every witness; under
    treachery.online's `trigger-and-offer` neither BG nor its ally Atreides ever opens a Terror decision, so the
    game shrinks to 15,498 states (only the module's own witnesses are required there)."""
    p = PROFILES["grumman-occupied"]
    m = build_model(p.bounds, Interpretation.of(homeworld_occupation=choice))
    ex = explore(m)
    assert ex.complete and not ex.violations and not ex.deadlocks
    assert len(ex.states) == states
    witnesses = {q.name for q in m.properties if q.kind == "witness"}
    if choice == "trigger-and-offer":
        witnesses = {"witness-occupier-enters-a-token"}
        assert "witness-eome-accepted" not in ex.witnesses and "witness-decline" not in ex.witnesses
    assert witnesses <= set(ex.witnesses)


@pytest.mark.heavy
def test_the_occupier_is_never_offered_an_alliance():
    """R23 under `offer-only`: in every reachable Terror decision opened for Bene Gesserit (the occupier) no alliance
    offer is enabled, while Moritani may still reveal; decisions for Atreides keep their offer."""
    from model.evaluate import enabled
    p = PROFILES["grumman-occupied"]
    m = build_model(p.bounds, p.interpretation)
    ex = explore(m, engine="scalar")
    sch, c = m.schema, m.vocabulary
    stage, entrant = sch.slot("stage"), sch.slot("entrant")
    seen = {"Bene Gesserit": 0, "Atreides": 0}
    # Only the actions this test asks about, through the reference semantics (every guard on every state took
    # most of the test's time).
    asked = [a for a in m.actions if a.rule.name.startswith(("offer_alliance", "reveal_"))]
    for s in ex.states:
        if s[stage] != c.Stage.index("terror"):
            continue
        names = {a.rule.name for a in asked if enabled(a, s, sch)}
        who = c.F.labels[s[entrant]]
        offers = any(n.startswith("offer_alliance") for n in names)
        if who == "Bene Gesserit":
            assert not offers and any(n.startswith("reveal_") for n in names), names
        elif offers:
            seen[who] += 1
        seen["Bene Gesserit"] += who == "Bene Gesserit"
    assert all(seen.values()), seen


def test_every_homeworld_check_has_a_defect_aimed_at_it():
    occupied = PROFILES["grumman-occupied"].bounds
    base = {p.name for p in build_model(GRUMMAN).properties}
    added = set()
    for choice in ("offer-only", "trigger-and-offer"):
        added |= {p.name for p in build_model(occupied, Interpretation.of(homeworld_occupation=choice)).properties} - base
    checks = {n for n in added if not n.startswith("witness-")}
    assert checks == {"no-alliance-with-homeworld-occupier", "occupier-opens-no-terror"}
    assert checks <= {d.target for d in DEFECTS}


@pytest.mark.heavy
def test_a_set_aside_face_shown_is_a_leak_both_engines_find_at_eight_steps():
    """The seeded leak `set-aside-face-shown` (A18, H12): a token removed out of the game shows its face. The
    explicit product check and Z3's bounded leak search both find the 8-step pair, and the Observer and the
    observation spec (what Z3 reads) tell the same states apart under it."""
    import itertools

    from checks.analyses.leaks_z3 import leak_bmc
    from model.moritani import GAME
    from model.moritani.defects import DEFECT_BY_ID
    from model.moritani.observe import Observer, hidden_faces, observation_spec, swap_faces
    from tests.test_leaks_z3 import _assert_same_verdict
    p = GAME.with_defect(DEFECT_BY_ID["set-aside-face-shown"], PROFILES["default"])
    m = GAME.build(p)
    explicit, _ = check_leaks(m, CheckConfig(fold=False))
    assert min(r.depth for r in explicit if r.verdict == "violated") == 8
    results, _ = leak_bmc(m, 8)
    hit = [r for r in results if r.verdict == "violated"]
    assert hit and min(r.depth for r in hit) == 8
    ex = explore(m, max_states=3_000)
    for f in m.vocabulary.rivals:
        w, spec = Observer(m, f), observation_spec(m, f)
        for s in ex.states[::10]:
            for a, b in itertools.combinations(hidden_faces(m, s), 2):
                _assert_same_verdict(m, w, spec, s, swap_faces(m, s, a, b), ("set-aside-face-shown", f))
