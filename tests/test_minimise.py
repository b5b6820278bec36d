"""Counterexample minimisation: fewest factions, strongholds and Terror faces that still fail."""
from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from checks.cli import main
from checks.config import CheckConfig
from checks.analyses.minimise import minimise, violation
from model.moritani import GAME
from model.moritani.profiles import Proposal
from model.moritani.shrink import KINDS, without
from model.errors import ModelError
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani.defects import DEFECT_BY_ID

OTHER_FACES = ["Assassination", "Atomics", "Extortion", "Robbery", "Sabotage"]


def run(*args):
    return CliRunner().invoke(main, list(args))


def defect_bounds(d: str) -> Bounds:
    return dataclasses.replace(Bounds(), **dict(DEFECT_BY_ID[d].bounds))


def shrink(bounds, interpretation, defects, check, depth):
    """minimise() on the proposal with these bounds, interpretation and defects."""
    p = Proposal("p", interpretation=interpretation, bounds=bounds, defects=tuple(defects))
    return minimise(GAME, p, check, depth)


@pytest.fixture(scope="module")
def duplicated():
    """H30: Enemy of My Enemy acceptance leaves the token on the map (token-conservation)."""
    return shrink(Bounds(), Interpretation(), ("eome-duplicates-token",), "token-conservation", 9)


@pytest.mark.heavy
def test_seeded_defect_minimises_to_one_rival_one_stronghold_one_face(duplicated):
    m = duplicated
    assert m.removed == {"factions": ["Atreides", "Ecaz"], "strongholds": ["Arrakeen"], "faces": OTHER_FACES}
    assert m.bounds.factions == ("Moritani", "Bene Gesserit") and m.bounds.strongholds == ("Carthag",)
    assert m.bounds.faces == ("Sneak Attack",) and m.trace.depth == 9
    assert m.note() == ("removed factions: Atreides, Ecaz; strongholds: Arrakeen; faces: Assassination, Atomics, "
                        "Extortion, Robbery, Sabotage; trace 9 → 9 steps")
    # Ecaz went, and with it its alliance with Moritani and the Ambassador
    assert m.bounds.alliances == () and m.bounds.ambassador is None
    assert m.trace.replay(m.model) == []
    assert m.model.provenance.bounds == m.bounds


@pytest.mark.heavy
def test_result_is_one_minimal(duplicated):
    """Removing any single remaining entry loses the violation (or makes the setup invalid)."""
    m = duplicated
    for kind in KINDS:
        for name in (m.bounds.factions[1:] if kind == "factions" else getattr(m.bounds, kind)):
            try:
                model = build_model(without(m.bounds, kind, name), Interpretation(), ("eome-duplicates-token",))
            except ModelError:
                continue
            assert violation(model, "token-conservation", CheckConfig(max_states=200_000))[1] is None, (kind, name)


@pytest.mark.parametrize("defect, removed, depths", [
    # an offer to Ecaz needs only Ecaz: the other rivals go and the trace gets shorter
    ("offer-to-ecaz", {"factions": ["Atreides", "Bene Gesserit"], "strongholds": ["Arrakeen"], "faces": OTHER_FACES},
     (10, 7)),
    # the missing pass needs Extortion in play; the refusal it withdraws (may-refuse-extortion) comes sooner with
    # one rival
    ("extortion-pass-missing", {"factions": ["Atreides", "Ecaz"], "strongholds": ["Arrakeen"],
                                "faces": ["Assassination", "Atomics", "Robbery", "Sabotage", "Sneak Attack"]},
     (15, 13)),
])
@pytest.mark.heavy
def test_minimised_defects_pinned(defect, removed, depths):
    target = DEFECT_BY_ID[defect].target
    m = shrink(defect_bounds(defect), Interpretation(), (defect,), target, depths[0])
    assert m.removed == removed and (m.before_depth, m.trace.depth) == depths
    assert m.trace.replay(m.model) == []


def test_nothing_removable_is_said():
    """The Atomics penalty defect's bounds are already minimal (Ecaz is the later ally, Atreides the first)."""
    d = "atomics-penalty-follows-new-ally"
    m = shrink(defect_bounds(d), Interpretation(), (d,), "hand-limits", 32)
    assert m.removed == {"factions": [], "strongholds": [], "faces": []}
    assert m.note() == "nothing could be removed; trace 32 → 32 steps"


def test_no_violation_no_minimisation():
    """Without a defect the check holds: there is nothing to minimise, and nothing is claimed."""
    b = dataclasses.replace(Bounds(), turns=1)
    assert shrink(b, Interpretation(), (), "token-conservation", 0) is None


def test_without_drops_what_depends_on_the_removed_entry():
    b = Bounds()
    assert without(b, "strongholds", "Carthag").ambassador is None
    nb = without(b, "factions", "Bene Gesserit")
    assert nb.alliances == (("Moritani", "Ecaz"),) and nb.forces == (("Atreides", 1, 1),)
    with pytest.raises(ModelError):
        without(without(b, "strongholds", "Carthag"), "strongholds", "Arrakeen")


@pytest.mark.heavy
def test_check_minimise_reports_and_saves_the_minimised_trace(tmp_path):
    p = tmp_path / "buggy.yaml"
    p.write_text("name: custody bug\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n")
    r = run("check", "--proposal", str(p), "--z3-budget", "0", "--minimise", "--format", "json",
            "--out", str(tmp_path / "out"), "--summary", str(tmp_path / "summary.md"))
    assert r.exit_code == 12, r.output
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "Minimised: removed factions: Atreides, Ecaz; strongholds: Arrakeen;" in summary
    assert "Bene Gesserit ships 1 force into Carthag" in summary
    (c,) = [c for c in json.loads(r.output)["checks"] if c["id"] == "token-conservation"]
    assert c["minimised"]["removed"]["strongholds"] == ["Arrakeen"]
    assert c["minimised"]["bounds"]["factions"] == ["Moritani", "Bene Gesserit"] and c["depth"] == 9
    saved = tmp_path / "out" / "violations" / "token-conservation.scenario.yaml"
    assert "factions: [Moritani, Bene Gesserit]" in saved.read_text(encoding="utf-8")
    assert run("replay", str(saved)).exit_code == 0
    md = (tmp_path / "out" / "violations" / "token-conservation.md").read_text(encoding="utf-8")
    assert "Bene Gesserit ships 1 force into Carthag" in md


@pytest.mark.heavy
def test_selftest_minimise_text(tmp_path):
    r = run("selftest", "--defect", "offer-to-ecaz", "--defect", "terror-options-public", "--minimise",
            "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert ("minimised: removed factions: Atreides, Bene Gesserit; strongholds: Arrakeen; faces: "
            "Assassination, Atomics, Extortion, Robbery, Sabotage; trace 10 → 7 steps") in r.output
    assert "note: terror-options-public: not minimised" in r.output
    for f in sorted((tmp_path / "defects").glob("*.scenario.yaml")):
        rr = run("replay", str(f))
        assert rr.exit_code == 0, (f.name, rr.output)


def test_order_defects_are_not_minimised():
    """An order-sensitivity pair is not a state the explorer can look for on smaller bounds: said, not tried."""
    r = run("selftest", "--defect", "advisor-overwrites-ambassador-payer", "--minimise")
    assert r.exit_code == 0, r.output
    assert "note: advisor-overwrites-ambassador-payer: not minimised" in r.output
