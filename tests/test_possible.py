"""Possibilistic noninterference (`possibilistic`, checks/analyses/possible.py): a public step a rival does not
choose must not depend on a hidden face; its seeded defect is caught by it and by no other check; the A21 gate's
two readings (`eome-gate-secrecy`) differ only in what the check counts."""
from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from checks.analyses.leaks import check_leaks
from checks.analyses.possible import check_possible
from checks.analyses.quick_z3 import agreement_result
from model.digest import model_digest
from checks.analyses.verdicts import explicit_results
from checks.cli import main
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.moritani import GAME
from model.moritani.config import EOME_GATE_SECRECY
from model.moritani.defects import DEFECT_BY_ID
from tests.conftest import SMALL
from tests.pins import DEFAULT_STATES, TREACHERY_ONLINE_STATES

DEFECT = DEFECT_BY_ID["sabotage-kept-for-gift"]
RIVALS = ["Atreides", "Bene Gesserit", "Ecaz"]


def small(profile: str = "default", defects: tuple = (), gate: EOME_GATE_SECRECY | None = None, **bounds):
    """The profile on the 1-stronghold, 1-turn bounds (plus `bounds`), with `defects` and the gate reading."""
    p = GAME.profiles[profile]
    interp = p.interpretation.with_choices(gate) if gate is not None else p.interpretation
    return dataclasses.replace(p, bounds=dataclasses.replace(SMALL, **bounds), interpretation=interp, defects=defects)


@pytest.fixture(scope="module")
def defective():
    """(model, its exploration) of the seeded defect on the 1-stronghold bounds."""
    m = GAME.build(small(defects=(DEFECT.id,)))
    return m, Explorer(m, CheckConfig()).run()


def test_holds_on_both_engine_profiles_small_bounds_and_is_not_vacuous():
    for profile in ("default", "treachery-online"):
        results, stats = check_possible(GAME.build(small(profile)), CheckConfig())
        assert [r.verdict for r in results] == ["holds"] * 3, profile
        assert [r.extra["observer"] for r in results] == RIVALS and {r.kind for r in results} == {"noninterference"}
        # Steps were compared, and the reveal exemption was exercised (a reveal shows the face it reveals).
        assert stats["steps"] > 1_000 and stats["revealing"] > 0 and stats["released"] == 0, (profile, stats)


def test_a_face_dependent_choice_is_caught_with_both_games_replayed(defective):
    m, ex = defective
    results, _ = check_possible(m, CheckConfig(), exploration=ex)
    assert [r.verdict for r in results] == ["violated"] * 3  # Moritani's choice: no rival chooses it
    r = results[0]
    leak = r.extra["leak"]
    assert r.depth == 9 and leak.game_b.depth == 8, r.detail
    assert leak.check == "possibilistic" and leak.component == "public step" and leak.seen_b == "no such step"
    assert leak.game_a.labels[-1] == "keep_for_gift" and r.extra["step"] == "keep_for_gift"
    assert "Sabotage" in r.extra["exchanged"]
    assert leak.game_a.replay(m) == [] and leak.game_b.replay(leak.model_b) == []
    # Game B is game A's public steps from the start with the two faces exchanged, up to the extra decline.
    def keys(model, game):
        return [model.secrets.public_key(model.action(x), s) for x, s in zip(game.labels, game.states)]
    assert keys(leak.model_b, leak.game_b) == keys(m, leak.game_a)[:8]


@pytest.mark.heavy
def test_the_face_dependent_choice_is_caught_by_nothing_else(defective):
    """Every other check `check` runs holds on the defect exactly as on the correct model: invariants, step
    properties, permissions (the extra choice withdraws none), no-deadlock and witnesses (explicit),
    hidden-identity, and the Z3 agreement guard."""
    m, ex = defective
    clean = GAME.build(small())
    before = {r.id: r.verdict for r in explicit_results(clean, Explorer(clean, CheckConfig()).run())}
    after = {r.id: r.verdict for r in explicit_results(m, ex)}
    assert after == before and "violated" not in {v for k, v in after.items() if not k.startswith("witness-")}
    assert after["witness-eome-accepted"] == "holds"  # offers still happen, Sabotage declines still happen
    assert [r.verdict for r in check_leaks(m, CheckConfig(), exploration=ex)[0]] == ["holds"] * 3
    assert agreement_result(m, 0, exploration=ex).verdict == "holds"


def test_the_two_readings_of_the_a21_gate_differ_only_in_what_the_check_counts():
    """With a leaderless Atreides the A21 gate (block-offer, A11 gated) withholds the offer for the Assassination
    token: `face-independent` reports it, `gate-declassified` exempts it. The model is the same under both."""
    fi = GAME.build(small(gate=EOME_GATE_SECRECY.FACE_INDEPENDENT, leaderless=("Atreides",)))
    gd = GAME.build(small(gate=EOME_GATE_SECRECY.GATE_DECLASSIFIED, leaderless=("Atreides",)))
    assert model_digest(fi) == model_digest(gd)
    (r,), stats = check_possible(fi, CheckConfig(), observers=["Ecaz"])
    assert r.verdict == "violated" and r.depth == 9 and "Assassination" in r.extra["exchanged"], r.detail
    assert r.extra["step"] == "offer_alliance(e=Atreides)" and stats["released"] == 0
    results, stats = check_possible(gd, CheckConfig())
    assert [x.verdict for x in results] == ["holds"] * 3 and stats["released"] > 0
    assert stats["states"] == len(Explorer(fi, CheckConfig()).run().states)
    # Without the leaderless entrant the gate never bites: the two readings agree.
    plain = GAME.build(small(gate=EOME_GATE_SECRECY.GATE_DECLASSIFIED))
    assert check_possible(plain, CheckConfig())[1]["released"] == 0


def test_the_release_covers_the_gate_only_not_another_face_dependent_choice():
    m = GAME.build(small(defects=(DEFECT.id,), gate=EOME_GATE_SECRECY.GATE_DECLASSIFIED))
    (r,), _ = check_possible(m, CheckConfig(), observers=["Atreides"])
    assert r.verdict == "violated" and r.depth == 9 and "Sabotage" in r.extra["exchanged"]


def test_a_missing_step_without_a_twin_game_is_an_internal_error_not_holds(monkeypatch):
    """Game B played from the same start as game A (no exchange) takes every step of game A."""
    from checks.analyses.leaks import PartnerGameError
    from model.moritani.secrets import FaceSecrets
    monkeypatch.setattr(FaceSecrets, "partner_models", lambda self, model, pair: iter((model,)))
    with pytest.raises(PartnerGameError, match="some game takes every public step"):
        check_possible(GAME.build(small(defects=(DEFECT.id,))), CheckConfig(), observers=["Atreides"])


@pytest.mark.heavy
def test_a_mutant_that_makes_the_offer_depend_on_the_face_is_killed_by_it():
    """`negate-comparison@offer_alliance_5...` (the face-5 offer rule enabled for every face but 5) survived
    `rulecheck mutate` on the default profile (docs/mutation.md) until the possibilistic check killed it. It also
    withholds the offer for face 5, an over-restriction: since issue 33 permission may-offer-alliance kills it
    first (mutate runs the leak check only on a mutant every explicit check passes), and the possibilistic check
    still sees the leak on the mutant's own model."""
    from checks.analyses.mutants import generate
    from checks.analyses.mutate import build_mutant, check_mutant, reference
    m = GAME.build(small())
    (mutant,) = [x for x in generate(m, ("negate-comparison",))
                 if x.id == "negate-comparison@offer_alliance_5.guard/0.0.0.0.0.0.1"]
    ref = reference(m, m, CheckConfig(), {mutant.rule})
    r = check_mutant(mutant, m, m, ref, CheckConfig())
    assert r.verdict == "killed" and r.extra["killed_by"] == ["may-offer-alliance"], r.detail
    results, _ = check_possible(build_mutant(m, mutant), CheckConfig(), observers=["Atreides"])
    assert [x.verdict for x in results] == ["violated"] and results[0].extra["step"].startswith("offer_alliance")


def test_every_report_carries_the_check(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(f"name: gate\nbounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  turns: 1\n"
                 f"defects: [{DEFECT.id}]\n", encoding="utf-8")
    args = ["leaks", "--proposal", str(f), "--engine", "explicit", "--check", "possibilistic"]
    r = CliRunner().invoke(main, args + ["--format", "json", "--junit", str(tmp_path / "j.xml"), "--html",
                                         str(tmp_path / "r.html"), "--out", str(tmp_path / "out")])
    assert r.exit_code == 12, r.output
    checks = json.loads(r.output)["checks"]
    assert [(c["id"], c["kind"], c["verdict"], c["observer"]) for c in checks] == \
        [("possibilistic", "noninterference", "violated", o) for o in RIVALS]
    assert checks[0]["step"] == "keep_for_gift" and checks[0]["depth"] == 9
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")}
    assert set(cases) == {f"possibilistic [{o}]" for o in RIVALS}
    assert all(c.find("failure") is not None for c in cases.values())
    assert "possibilistic: Atreides, Bene Gesserit, Ecaz can tell two games apart (9 steps)" in \
        (tmp_path / "r.html").read_text(encoding="utf-8")
    pair = sorted(p.name for p in (tmp_path / "out" / "leaks").glob("possibilistic-Atreides-*.scenario.yaml"))
    assert pair == ["possibilistic-Atreides-A.scenario.yaml", "possibilistic-Atreides-B.scenario.yaml"]
    for side in pair:
        assert CliRunner().invoke(main, ["replay", str(tmp_path / "out" / "leaks" / side)]).exit_code == 0
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 12 and text.output.startswith("possibilistic:\ngame A")
    rows = [line.split()[:3] for line in text.output.splitlines()]
    assert ["possibilistic", "noninterference", "violated"] in rows
    bad = CliRunner().invoke(main, args + ["--engine", "z3"])
    assert bad.exit_code == 2 and "no Z3 engine" in bad.output


@pytest.mark.heavy
def test_selftest_catches_the_defect_at_its_pinned_depth_on_its_own_bounds():
    from checks.analyses.selftest import run_defect
    r = run_defect(GAME, DEFECT, GAME.profiles["default"], CheckConfig())
    assert (r.verdict, r.depth, r.extra["caught_by"]) == ("caught", 7, "possibilistic"), r.detail


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["default", "treachery-online"])
def test_holds_on_the_engine_profiles(profile):
    """On the full bounds no Terror decision against a leaderless entrant is reachable, so the A21 gate never bites
    and the check holds under the default reading (470,605 and 577,430 states; 294,232 and 429,105 before issue 33)."""
    results, stats = check_possible(GAME.build(GAME.profiles[profile]), CheckConfig())
    assert [r.verdict for r in results] == ["holds"] * 3 and stats["released"] == 0
    assert stats["states"] == {"default": DEFAULT_STATES, "treachery-online": TREACHERY_ONLINE_STATES}[profile]
