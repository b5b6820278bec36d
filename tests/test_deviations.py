"""Engines as implemented (issue 34): deviations as data, `check` reporting them, `rulecheck engines`."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner

from checks.analyses.deviations import run_deviations
from checks.cli import main
from checks.config import CheckConfig
from checks.pipelines.check import _deviations
from checks.pipelines.common import Options
from model.moritani import GAME
from model.moritani.config import GRUMMAN_HIGH_PLACEMENT, Interpretation
from model.moritani.deviations import DEVIATION_BY_ID, DEVIATIONS


def test_every_deviation_cites_its_engine_rule_and_code_at_a_commit():
    assert {d.engine for d in DEVIATIONS} == set(GAME.engines)
    for d in DEVIATIONS:
        assert d.ids and all(re.fullmatch(r"[RAH]\d+", i) for i in d.ids), d.id
        assert re.search(r"@[0-9a-f]{40}|at 0040ed19|docs at", d.source), d.id
        assert all(re.search(r":\d+|lines \d+", w) for w in d.where), d.id
        assert any(i in d.rule for i in d.ids), d.id  # the rule text is cited by its ID
    assert len(GAME.profiles["dunebot"].deviations) >= 6
    for e in GAME.engines:
        assert GAME.deviations_of(GAME.profiles[e]), e


def test_a_new_switch_keeps_todays_behaviour_by_default():
    assert Interpretation().as_dict() == Interpretation.of(GRUMMAN_HIGH_PLACEMENT.ALWAYS).as_dict()
    assert GAME.profiles["dunebot"].interpretation.chose(GRUMMAN_HIGH_PLACEMENT.PLACE_UNLESS_REMOVED)


def test_a_deviation_is_a_violation_with_its_shortest_game_the_rule_and_the_engine_code():
    picked = [DEVIATION_BY_ID["dunebot-offer-to-ecaz"], DEVIATION_BY_ID["dunebot-robbery-draw-from-nothing-halts"]]
    r1, r2 = run_deviations(GAME, picked, GAME.profiles["dunebot"], CheckConfig())
    assert (r1.kind, r1.verdict, r1.depth, r1.rules) == ("deviation", "violated", 10, ("R19",))
    assert "MoritaniFaction.java:389" in r1.detail and "6593b774" in r1.detail
    assert not r1.trace.replay(r1.extra["model"])  # replayed on the deviation's own model
    assert (r2.verdict, r2.depth, r2.extra["caught_by"]) == ("violated", 10, "no-deadlock")


def test_check_runs_the_profiles_deviations_unless_as_printed():
    one = dataclasses.replace(GAME.profiles["dunebot"], deviations=("dunebot-offer-to-ecaz",))
    notes: list = []
    assert _deviations(Options(), one, True, notes) == [] and "--as-printed" in notes[0]
    notes = []
    [r] = _deviations(Options(), one, False, notes)
    assert r.verdict == "violated" and "each run as its own game" in notes[0]
    assert _deviations(Options(), GAME.profiles["default"], False, []) == []


def test_engines_prints_the_table_and_a_bug_report(tmp_path):
    page = tmp_path / "e.html"
    r = CliRunner().invoke(main, ["engines", "--deviation", "dunebot-offer-to-ecaz", "--html", str(page)])
    assert r.exit_code == 12, r.output
    assert "| `ally-separation` (A20, R26, R27, H22) | basic | basic | later-mover | basic |" in r.output
    assert "### Enemy of My Enemy can be offered to Ecaz" in r.output
    assert "**Rule broken**: R19:" in r.output and "Ecaz ships 1 force into Arrakeen" in r.output
    assert "`src/main/java/model/factions/MoritaniFaction.java:389`" in r.output
    assert page.exists() and "<html" in page.read_text(encoding="utf-8").lower()
    j = CliRunner().invoke(main, ["engines", "--engine", "dunebot", "--deviation", "dunebot-offer-to-ecaz",
                                  "--format", "json"])
    doc = json.loads(j.output)
    assert doc["engines"] == ["dunebot"] and len(doc["switches"]) == len(GAME.switches)
    [v] = doc["violations"]["dunebot"]
    assert v["verdict"] == "violated" and v["where"][0].endswith("MoritaniFaction.java:389") and len(v["steps"]) == 10


def test_engines_refuses_an_unknown_engine_or_deviation():
    assert CliRunner().invoke(main, ["engines", "--engine", "nope"]).exit_code == 2
    assert CliRunner().invoke(main, ["engines", "--deviation", "nope"]).exit_code == 2


@pytest.mark.heavy
def test_check_exits_12_on_dunebot_and_0_as_printed():
    """The issue's acceptance, on two turns without Spacer (the full check on three turns: docs/engines.md)."""
    base = ["check", "--proposal", "dunebot", "--turns", "2", "--z3-budget", "0", "--jobs", "1"]
    printed = CliRunner().invoke(main, base + ["--as-printed"])
    assert printed.exit_code == 0, printed.output
    assert "--as-printed: the 9 deviation(s) of dunebot are left out" in printed.output
    r = CliRunner().invoke(main, base + ["--format", "json"])
    assert r.exit_code == 12
    doc = json.loads(r.output)
    bad = {c["id"] for c in doc["checks"] if c["verdict"] == "violated"}
    assert bad == set(GAME.profiles["dunebot"].deviations)
