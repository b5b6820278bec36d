"""The two public engines as profiles (docs/engines.md): every acceptance scenario under scenarios/engines/
names its engine's source and replays under that engine's profile, and `compare --per-switch` gives each
switch on which the profiles differ a distinguishing game or the reason none exists within the bounds."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from checks.cli import main
from model.moritani import GAME

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "scenarios" / "engines"
FILES = sorted(ENGINES.glob("*.scenario.yaml"))
REPOS = {"quintine": "https://github.com/Quintine/Dune",
         "treachery-online": "https://github.com/ronaldossendrijver/treachery.online",
         "dunebot": "https://github.com/voiceofonecrying/DuneBot"}
# Each engine's profiles: the engine's own, and the Nexus card module with that engine's choices.
ENGINE_OF = {"quintine": "quintine", "nexus-cunning": "quintine", "nexus-betrayal": "quintine", "grumman": "quintine",
             "grumman-nexus": "quintine", "worm-rides": "quintine",
             "finite-deck": "quintine", "moritani-setup": "quintine",
             "worm-rides-nexus": "quintine", "grumman-occupied": "quintine",
             "revival": "quintine", "cross-ship": "quintine", "ambassador-relocation": "quintine",
             "treachery-online": "treachery-online", "nexus-treachery": "treachery-online", "dunebot": "dunebot"}


def test_the_nexus_profiles_carry_their_engines_choices():
    for profile, engine in ENGINE_OF.items():
        assert GAME.profiles[profile].interpretation == GAME.profiles[engine].interpretation, profile


def test_at_least_24_engine_scenarios_each_citing_its_source_and_commit():
    assert len(FILES) >= 24
    for f in FILES:
        text = f.read_text(encoding="utf-8")
        profile = YAML(typ="safe").load(text)["setup"]["proposal"]["name"]
        engine = ENGINE_OF[profile]
        assert f.name.startswith(engine.split("-")[0]), f.name
        header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
        assert REPOS[engine] in header and re.search(r"commit [0-9a-f]{40}", header), f.name


def test_each_engine_scenario_is_replayed_once_by_the_scenario_plugin():
    """Each file is a test item of its own (checks/pytest_plugin.py collects every `*.scenario.yaml` under
    scenarios/, a test path): replayed once per run under its profile, not a second time here (issue 36)."""
    import tomllib

    from checks.pytest_plugin import SUFFIX
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "scenarios" in config["testpaths"] and "rulecheck = \"checks.pytest_plugin\"" in \
        (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert all(f.name.endswith(SUFFIX) and "scenarios" in f.relative_to(ROOT).parts for f in FILES)


def test_at_least_24_dunebot_scenarios_each_citing_a_line_or_test_at_the_commit_read():
    mine = [f for f in FILES if f.name.startswith("dunebot-")]
    assert len(mine) >= 24
    for f in mine:
        header = "".join(line for line in f.read_text(encoding="utf-8").splitlines(keepends=True) if line.startswith("#"))
        assert "commit 6593b774565ea0c1e6f0f014f8f6a7e26c046a7a" in header, f.name
        assert re.search(r"\.java:\d+|test[A-Z]\w+", header), f.name


def test_an_engine_scenario_replays_through_the_cli():
    """`rulecheck replay` on one engine scenario (the plugin replays all of them through the same function)."""
    r = CliRunner().invoke(main, ["replay", str(FILES[0])])
    assert r.exit_code == 0, r.output
    assert "expectation met" in r.output


def test_the_profiles_differ_where_the_engines_do():
    q, t = GAME.profiles["quintine"].interpretation, GAME.profiles["treachery-online"].interpretation
    assert q == GAME.profiles["default"].interpretation  # the defaults are Quintine/Dune's recorded choices
    differ = {sw.key for sw in GAME.switches if q.choice(sw.key) != t.choice(sw.key)}
    assert differ == {"terror-vs-arrival-reactions", "ambassador-vs-terror", "karama-eome-timing", "extortion-mentat-order",
                      "atomics-penalty", "sabotage-gift-overflow", "sneak-attack-is-shipment",
                      "assassination-without-leader", "bg-advisors-occupy", "ally-separation",
                      "eome-when-reveal-blocked", "stack-reveal", "cunning-reach",
                      "betrayal-timing", "grumman-addition", "grumman-removal", "collection-operations",
                      "setup-destination", "homeworld-occupation",
                      # issue 33
                      "nexus-card-on-alliance", "ally-entry", "accompany-limits"}


@pytest.mark.heavy
def test_compare_per_switch_explains_every_differing_switch(tmp_path):
    """On the small bounds (one stronghold with the Ambassador, one turn): each differing switch has its
    distinguishing game or the reason no game within the bounds tells the choices apart."""
    small = "bounds: {strongholds: [Arrakeen], ambassador: Arrakeen, turns: 1}\n"
    for name in REPOS:
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\n" + small + _interpretation(name), encoding="utf-8")
    r = CliRunner().invoke(main, ["compare", str(tmp_path / "quintine.yaml"), str(tmp_path / "treachery-online.yaml"),
                                  "--per-switch", "--format", "json"])
    assert r.exit_code == 12, r.output
    doc = json.loads(r.output)
    per = {s["switch"]: s for s in doc["per_switch"]}
    assert len(per) == 22  # issue 33: nexus-card-on-alliance, ally-entry, accompany-limits
    for s in per.values():
        assert (s["game"] is not None and s["game"]["actions"]) or s["why_same"].startswith("no game"), s
    assert any(s["game"] is not None for s in per.values())


def _interpretation(profile: str) -> str:
    chosen = GAME.profiles[profile].interpretation.as_dict()
    return "interpretation:\n" + "".join(f"  {k}: {v}\n" for k, v in chosen.items())


@pytest.mark.heavy
def test_the_phase_long_prevention_is_checked_by_a_property_that_catches_a_generated_mutant():
    """A4 pre-emptive-phase: every generated mutant that drops the prevention from an offer's guard is killed by
    `no-offer-after-preemptive-karama`, which reads the kernel's monitor of Karama cards spent outside any
    window, not the engine flag the guard tests (small bounds: one stronghold, one turn)."""
    import dataclasses
    from checks.analyses.mutants import edit_rules, generate
    from checks.analyses.verdicts import run_explicit
    from checks.config import CheckConfig
    prop = GAME.small(GAME.profiles["treachery-online"])
    model = GAME.build(prop)
    assert "no-offer-after-preemptive-karama" in {p.name for p in model.properties}
    results, _ = run_explicit(model, CheckConfig())
    assert {r.id: r.verdict for r in results}["no-offer-after-preemptive-karama"] == "holds"
    dropped = [m for m in generate(model, ("drop-conjunct",))
               if m.rule.startswith("offer_alliance_") and "eome_prevented" in m.change]
    assert dropped
    for m in dropped[:2]:
        mutant = GAME.build(dataclasses.replace(prop), edit_rules=edit_rules(m))
        verdicts = {r.id: r.verdict for r in run_explicit(mutant, CheckConfig())[0]}
        assert verdicts["no-offer-after-preemptive-karama"] == "violated", (m.change, verdicts)


@pytest.mark.heavy
def test_lone_advisors_are_tracked_by_an_invariant_that_catches_generated_mutants():
    """bg-advisors-occupy: coexist: Atomics that kills BG's advisors but leaves them counted (a generated
    drop-effect mutant) breaks `advisors-are-bg-forces`. (Dropping the count from `accompany` makes coexist
    behave as occupy: the lone-advisor scenarios of scenarios/engines/ no longer replay. Dropping the flip
    when BG fighters arrive is out of reach here: BG has one force, either shipped or sent as an advisor.)"""
    from checks.analyses.mutants import edit_rules, generate
    from checks.analyses.verdicts import run_explicit
    from checks.config import CheckConfig
    prop = GAME.profiles["treachery-online"]
    model = GAME.build(prop)
    assert {r.id: r.verdict for r in run_explicit(model, CheckConfig())[0]}["advisors-are-bg-forces"] == "holds"
    dropped = [m for m in generate(model, ("drop-effect",))
               if m.rule == "reveal_atomics" and "advisors" in m.change]
    assert dropped
    for m in dropped[:3]:
        results = run_explicit(GAME.build(prop, edit_rules=edit_rules(m)), CheckConfig())[0]
        assert {r.id: r.verdict for r in results}["advisors-are-bg-forces"] == "violated", m.change
