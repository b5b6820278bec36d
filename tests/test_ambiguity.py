"""The ambiguous-ordering detector on small hand-made bounds whose answers are known."""
from __future__ import annotations

import pytest

from checks.analyses.ambiguity import analyse
from model.moritani import GAME
from model.moritani.config import AMBASSADOR_VS_TERROR, KARAMA_EOME_TIMING, TERROR_VS_ARRIVAL_REACTIONS, Bounds, Interpretation
from model.moritani.profiles import PROFILES, Proposal
from model.moritani.reactions import printed_rules

ONE = dict(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=1)


def analysed(proposal, prove=False):
    return analyse(GAME.open_orders(proposal), proposal.interpretation, prove=prove)


def run(profile="default", **bounds):
    p = PROFILES[profile]
    return {r.id: r for r in analysed(Proposal(p.name, interpretation=p.interpretation, bounds=Bounds(**bounds)))}


@pytest.fixture(scope="module")
def small_default():
    return run(**ONE)


@pytest.fixture(scope="module")
def small_printed():
    return run("printed-rules", **ONE)


def test_pair_ids_and_printed_rules_interpretation():
    rx = GAME.build(PROFILES["default"]).reactions
    assert rx.pair_id("advisor", "terror") == "terror~bg-advisor"
    assert rx.pair_id("ambassador", "advisor") == "bg-advisor~ecaz-ambassador"
    i = printed_rules(Interpretation.of(KARAMA_EOME_TIMING.AFTER_REPLY))
    assert i.chose(TERROR_VS_ARRIVAL_REACTIONS.UNORDERED) and i.chose(AMBASSADOR_VS_TERROR.UNORDERED)
    assert i.chose(KARAMA_EOME_TIMING.AFTER_REPLY)
    # The default profile's behaviour is untouched by the new A2 choice.
    assert PROFILES["default"].interpretation.chose(AMBASSADOR_VS_TERROR.STORM_ORDER)


def test_cascade_sneak_attack_adds_a_second_advisor(small_default):
    # Terror first: a positive Sneak Attack is a shipment (A14) and queues a second BG advisor,
    # which cannot accompany because the first took BG's only reserve; advisor first: no cascade.
    r = small_default["terror~bg-advisor"]
    assert r.extra["class"] == "cascades" and r.extra["classes"]["cascades"] >= 1
    terror_first = r.extra["orders"]["terror first"]
    assert any(x.startswith("sneak_attack(n=1") for x in terror_first)
    assert terror_first.count("resolve_advisor") == 2


def test_diverges_terror_against_ambassador(small_default):
    # The shortest divergence: Atomics revealed first returns the Ecaz Ambassador (R36), so the entrant pays
    # Ecaz nothing; the Ambassador first takes its spice. (Robbery against the Ambassador diverges too.)
    r = small_default["terror~ecaz-ambassador"]
    assert r.extra["class"] == "diverges"
    assert {"spice[Atreides]", "spice[Ecaz]"} <= set(r.extra["slots"])
    assert any(x.startswith("reveal_atomics") for x in r.extra["orders"]["terror first"])


def test_disables_robbery_leaves_ambassador_nothing():
    # With 2 spice, shipping leaves 1 and Robbery takes it: an Ambassador after Terror gets nothing.
    r = run(faces=("Robbery",), spice=2, **ONE)["terror~ecaz-ambassador"]
    assert r.extra["class"] == "disables"
    assert r.extra["orders"]["terror first"][0] == "[ambassador payer has no spice]"


def test_commutes_advisor_and_ambassador(small_default):
    # The advisor moves a BG reserve; the Ambassador moves the entrant's spice: independent.
    r = small_default["bg-advisor~ecaz-ambassador"]
    assert r.extra["class"] == "commutes" and set(r.extra["classes"]) == {"commutes"}
    assert r.verdict == "holds"


def test_default_profile_settles_every_pair(small_default):
    assert set(small_default) == {"terror~bg-advisor", "terror~ecaz-ambassador", "bg-advisor~ecaz-ambassador",
                                  "mentat-placement~extortion-collection"}
    for r in small_default.values():
        assert r.verdict == "holds" and r.extra["settled_by"] is not None, r.id
    assert small_default["terror~ecaz-ambassador"].extra == {**small_default["terror~ecaz-ambassador"].extra,
                                                             "switch": "ambassador-vs-terror",
                                                             "settled_by": "storm-order"}


def test_printed_rules_reports_unsettled_reportable_pairs(small_printed):
    verdicts = {k: (r.extra["class"], r.verdict, r.extra["settled_by"]) for k, r in small_printed.items()}
    assert verdicts == {"terror~bg-advisor": ("cascades", "violated", None),
                        "terror~ecaz-ambassador": ("diverges", "violated", None),
                        "bg-advisor~ecaz-ambassador": ("commutes", "holds", None),
                        # One turn: the last Mentat Pause offers no live placement, so the pair commutes.
                        "mentat-placement~extortion-collection": ("commutes", "holds", None)}
    r = small_printed["terror~ecaz-ambassador"]
    assert r.kind == "ambiguity" and r.engine == "explicit"
    assert r.trace is not None and r.trace.labels[-1].split("(")[0] in ("ship", "move")


def test_no_ambassador_no_ambassador_pairs():
    found = run("printed-rules", strongholds=("Arrakeen",), ambassador=None, turns=1)
    assert set(found) == {"terror~bg-advisor", "mentat-placement~extortion-collection"}


def test_diverges_extortion_recovered_before_placement_can_be_placed_again():
    # A5 left open: Extortion first recovers the token, which the placement may then put back at
    # once; placement first cannot. The settled Mentat Pauses differ in custody (A5, H28).
    r = run("printed-rules", strongholds=("Arrakeen",), ambassador="Arrakeen", turns=2,
            faces=("Extortion", "Robbery"))["mentat-placement~extortion-collection"]
    assert (r.extra["class"], r.verdict, r.extra["switch"], r.rules) == (
        "diverges", "violated", "extortion-mentat-order", ("A5", "A6"))
    assert r.extra["classes"] == {"diverges": 10, "commutes": 48} and r.depth == 16
    assert "tstatus[Extortion]" in r.extra["slots"]
    first = r.extra["orders"]["extortion-collection first"]
    assert first[-2:] == ["place_token(k=Extortion, to=Arrakeen)", "commit_placement(k=Extortion)"]
    settled = run("default", strongholds=("Arrakeen",), ambassador="Arrakeen", turns=2,
                  faces=("Extortion", "Robbery"))["mentat-placement~extortion-collection"]
    assert (settled.verdict, settled.extra["settled_by"]) == ("holds", "placement-first")


def test_seeded_order_defect_turns_a_commuting_pair_into_a_diverging_one():
    from checks.config import CheckConfig
    from checks.analyses.selftest import run_defect
    from model.moritani.defects import DEFECT_BY_ID
    r = run_defect(GAME, DEFECT_BY_ID["advisor-overwrites-ambassador-payer"], PROFILES["default"], CheckConfig())
    assert (r.verdict, r.depth, r.extra["class"]) == ("caught", 5, "diverges")
    orders = r.extra["orders"]
    # Advisor first: the Ambassador charges BG (the overwritten arrival); Ambassador first: the entrant.
    assert "ambassador_effect(p=Bene Gesserit)" in orders["bg-advisor first"]
    assert "ambassador_effect(p=Atreides)" in orders["ecaz-ambassador first"]


@pytest.mark.heavy
@pytest.mark.parametrize("profile, code", [("printed-rules", 12), ("default", 0)])
def test_ambiguities_exit_code_says_whether_the_proposal_settles_every_reportable_pair(tmp_path, profile, code):
    import json

    from click.testing import CliRunner

    from checks.cli import main
    p = tmp_path / "p.yaml"
    choices = {"printed-rules": "  A1: unordered\n  A2: unordered\n  A5: unordered\n", "default": "  A1: arrival-first\n"}
    p.write_text("name: p\ninterpretation:\n" + choices[profile]
                 + "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  turns: 1\n")
    r = CliRunner().invoke(main, ["ambiguities", "--proposal", str(p), "--format", "json"])
    assert r.exit_code == code, r.output
    checks = {c["id"]: c for c in json.loads(r.output)["checks"]}
    assert checks["terror~ecaz-ambassador"]["verdict"] == ("violated" if code else "holds")


@pytest.mark.heavy
def test_witness_scenarios_replay_under_the_orders_they_were_found_with(tmp_path):
    from click.testing import CliRunner

    from checks.cli import main
    from checks.formats.scenario import replay_file
    p = tmp_path / "p.yaml"
    p.write_text("name: p\nbounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  turns: 1\n")
    r = CliRunner().invoke(main, ["ambiguities", "--proposal", str(p), "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    files = sorted((tmp_path / "o" / "ambiguities").glob("*.scenario.yaml"))
    assert len(files) == 4
    for f in files:
        assert replay_file(GAME, str(f)).ok, f
        assert "unordered" in f.read_text()  # recorded with the printed-rules orders it was found under
