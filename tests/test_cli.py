"""The command line: exit codes, JSON report shape, located errors for bad proposal files."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checks.cli import main
from tests.pins import THREE_TURNS_STATES


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def report():
    """The README's `rulecheck check`, with the kept scenarios replayed beside it (one search of the default's
    three turns for both tests that read it)."""
    r = run("check", "--format", "json", "--scenarios", "scenarios")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.heavy
def test_check_json_report_follows_the_contract(report):
    assert report["schema_version"] == 1 and report["tool"] == "rulecheck" and report["seed"] == 0
    # Three turns of the default bounds (issue 17: check's default depth), said in the report's bounds.
    assert report["summary"]["verdict"] == "holds" and report["summary"]["states"] == THREE_TURNS_STATES
    assert report["proposal"]["name"] == "default" and report["proposal"]["bounds"]["turns"] == 3
    ids = {c["id"]: c for c in report["checks"] if c["engine"] == "explicit"}
    proofs = [c for c in report["checks"] if c["engine"] == "spacer"]
    assert proofs and all(c["verdict"] == "proved" for c in proofs)
    assert {c["id"] for c in proofs} == set(report["proofs"]["proved"])
    assert [c["verdict"] for c in report["checks"] if c["kind"] == "agreement"] == ["holds"]
    contract = ["token-conservation", "placement-once", "extortion-once", "trigger-legality", "eome-obligations",
                "alliance-symmetry", "aftermath", "hand-limits", "conservation", "no-reroll",
                "no-lost-obligation", "public-ids-fresh", "no-deadlock"]
    witnesses = [f"witness-{w}" for w in ("assassination", "atomics", "extortion", "robbery", "sabotage",
                                          "sneak-attack", "eome-accepted", "eome-refused", "karama-placement",
                                          "karama-eome", "extortion-paid", "extortion-recovered", "atomics-ally",
                                          "sneak-into-aftermath")]
    for name in contract:
        assert ids[name]["kind"] == "invariant" and ids[name]["verdict"] == "holds"
    for name in witnesses:
        assert ids[name]["kind"] == "witness" and ids[name]["verdict"] == "holds"
    assert ids["public-ids-fresh"]["rules"] == ["H3", "H4", "H12"]


def test_interpretations_lists_switches_with_ids():
    r = run("interpretations", "--format", "json")
    data = json.loads(r.output)
    ids = {i for s in data for i in s["ids"]}
    assert {"A1", "A4", "A5", "A8", "A10", "A12", "A14"} <= ids
    assert all(s["default"] in s["choices"] for s in data)


@pytest.mark.parametrize("text, where, message", [
    ("interpretation:\n  karama-eome-timing: sometimes\n", ":2:23:", "valid: after-reply, before-reply"),
    ("interpretation:\n  A99: x\n", ":2:3:", "unknown switch 'A99'"),
    ("interpretation: [\n", ":2:1:", "malformed YAML"),
    ("bounds:\n  strongholds: [Arrakeen, Polar Sink]\n", ":2:27:", "not a legal Terror destination"),
    ("colour: red\n", ":1:1:", "unknown key 'colour'; valid: bounds, defects, description, extends, interpretation, name"),
])
def test_bad_proposal_exits_3_with_location(tmp_path, text, where, message):
    p = tmp_path / "proposal.yaml"
    p.write_text(text)
    r = run("check", "--proposal", str(p))
    assert r.exit_code == 3
    assert f"proposal.yaml{where}" in r.output and message in r.output
    assert "Traceback" not in r.output
    assert p.read_text() == text  # nothing the user wrote is changed


@pytest.mark.heavy
def test_violation_exits_12_and_writes_a_replayable_scenario(tmp_path):
    p = tmp_path / "buggy.yaml"
    p.write_text("name: engine with a custody bug\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n")
    r = run("check", "--proposal", str(p), "--z3-budget", "0", "--out", str(tmp_path / "out"))  # the search, not Spacer
    assert r.exit_code == 12, r.output
    assert "counterexample for token-conservation (9 steps, replayed)" in r.output
    saved = tmp_path / "out" / "violations" / "token-conservation.scenario.yaml"
    assert saved.exists()
    rr = run("replay", str(saved))
    assert rr.exit_code == 0, rr.output


def test_selftest_single_defect():
    r = run("selftest", "--defect", "ids-not-rotated", "--format", "json")
    assert r.exit_code == 0
    doc = json.loads(r.output)
    (d,) = doc["checks"]
    assert d["kind"] == "defect" and d["verdict"] == "caught" and d["caught_by"] == "public-ids-fresh"
    assert d["depth"] == 9 and doc["summary"]["caught"] == doc["summary"]["total"] == 1


@pytest.mark.heavy
def test_check_replays_the_kept_scenarios_of_its_setup(tmp_path, report):
    """`check --scenarios DIR` (issue 12): each file recorded with the checked setup is a `scenario`
    check; a kept scenario that no longer meets its expectation fails the run with its file and line."""
    import shutil
    kept = [c for c in report["checks"] if c["kind"] == "scenario"]
    # The 14 acceptance scenarios, and the 20 of Quintine/Dune's (scenarios/engines/) on the default bounds (issue 33
    # added 4: the Ambassador set aside, shipment beside the ally legal, movement beside it refused, visitors to the
    # Tanks): the quintine profile is the default interpretation, so they are recorded with the same setup.
    assert len(kept) == 34 and all(c["verdict"] == "holds" for c in kept)
    shutil.copytree("scenarios/acceptance", tmp_path / "kept")
    broken = tmp_path / "kept" / "extortion-paid.scenario.yaml"
    broken.write_text(broken.read_text().replace("spice[Moritani]: 10", "spice[Moritani]: 11", 1))
    r = run("check", "--z3-budget", "0", "--format", "json", "--scenarios", str(tmp_path / "kept"))
    assert r.exit_code == 12, r.output
    bad = [c for c in json.loads(r.output)["checks"] if c["kind"] == "scenario" and c["verdict"] == "violated"]
    assert [c["id"] for c in bad] == ["scenario:extortion-paid"]
    assert bad[0]["detail"].startswith("extortion-paid.scenario.yaml:") and "spice[Moritani] is 10" in bad[0]["detail"]
