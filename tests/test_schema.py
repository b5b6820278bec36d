"""One schema for validation and for `interpretations --schema`: the loader and the printed JSON Schema
agree on every document (issue 19), probed by hand and on generated documents.

Proposals: a document is schema-valid exactly when the loader accepts it (and then the model builds).
Scenarios: every scenario the loader accepts is schema-valid; the loader also checks what depends on
the built model (check names, slot names and value types, the step count), which no static schema
can know.
"""
from __future__ import annotations

import json

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from ruamel.yaml import YAML

from checks.cli import main
from checks.formats.proposal import build_proposal, json_schema, proposal_values
from checks.formats.scenario import load_scenario, scenario_json_schema
from model.errors import InputError
from model.moritani import GAME
from strategies import PROPOSALS, SCENARIOS, proposal_doc, scenario_doc, yaml_text

VALIDATOR = jsonschema.Draft202012Validator(json_schema(GAME))
SCENARIO_VALIDATOR = jsonschema.Draft202012Validator(scenario_json_schema(GAME))
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
FAST = settings(max_examples=150, derandomize=True, deadline=None, database=None, suppress_health_check=HEALTH)
LONG = settings(max_examples=2000, derandomize=True, deadline=None, database=None, suppress_health_check=HEALTH)


def loads(doc, build: bool = False) -> tuple[bool, str]:
    """(accepted, why not) by the proposal loader's own steps (schema, then Bounds; with `build`, the model)."""
    try:
        values = proposal_values(GAME, doc, "p.yaml")
        prop = build_proposal(GAME, values, "p.yaml", doc if isinstance(doc, dict) else {}, name="p")
    except InputError as e:
        return False, str(e)
    if build:
        GAME.build(prop)  # an accepted proposal always builds: anything else is a bug, and fails the test
    return True, ""


# The probes: each was accepted by one of the loader and the schema and refused by the other.
PROBES = [
    {"name": 5}, {"name": "a\nb"}, {"name": "x" * 121}, {"description": ["a"]},
    {"bounds": {"turns": 9}}, {"bounds": {"turns": 0}}, {"bounds": {"spice": 13}},
    {"bounds": {"factions": ["Atreides", "Moritani"]}}, {"bounds": {"factions": ["Moritani"]}},
    {"bounds": {"karama": ["Atreides", "Atreides"]}}, {"bounds": {"leaderless": ["Ecaz", "Ecaz"]}},
    {"bounds": {"forces": [["Atreides", 1, 1], ["Atreides", 0, 1]]}}, {"bounds": {"forces": [["Atreides", "x", 1]]}},
    {"bounds": {"forces": [["Atreides", 5, 1]]}}, {"bounds": {"leaders": [-5, "x"]}}, {"bounds": {"leaders": []}},
    {"bounds": {"faces": []}}, {"bounds": {"strongholds": ["Arrakeen", "Arrakeen"]}},
    {"bounds": {"factions": ["Moritani", "Ecaz"]}},  # the default Karama holder Atreides is not in the game
    {"bounds": {"karama": ["Guild"]}}, {"bounds": {"ambassador": "Sietch Tabr"}},
    {"bounds": {"alliances": [["Moritani", "Moritani"]]}}, {"bounds": {"alliances": [["Moritani", "Ecaz"],
                                                                                     ["Ecaz", "Atreides"]]}},
    {"bounds": {"hand": 4}}, {"bounds": {"hand_limit": 2}}, {"bounds": {"hand_limit": 2, "moritani_hand": 2}},
    {"bounds": {"storm": "yes"}}, {"bounds": {"turns": 2.0}}, {"bounds": {"turns": 2.5}},
    {"interpretation": {"A4": "after-reply", "karama-eome-timing": "after-reply"}},
    {"interpretation": {"A4": True}}, {"interpretation": None}, {"bounds": None}, {"defects": "x"},
    {"defects": ["ids-not-rotated", "ids-not-rotated"]}, {"name": None, "description": None},
    {"bounds": {"factions": ["Moritani", "Guild"], "forces": [], "karama": [], "alliances": []}},
    {"defects": None}, {"defects": ["forfeit-resets-each-turn"]}, {"defects": ["forfeit-resets-each-turn"],
                                                "bounds": {"assassinate_leaders": True}},
]


@pytest.mark.parametrize("doc", PROBES, ids=lambda d: json.dumps(d)[:60])
def test_schema_and_loader_agree_on_the_probes(doc):
    accepted, why = loads(doc, build=True)
    assert VALIDATOR.is_valid(doc) == accepted, why or "loader accepted; schema refused"


# extends (issue 41): the profile's bounds are the defaults the relations and a defect's module read. Each
# probe with what the loader says: accepted (None) or the start of its message after the file's position.
EXTENDS_PROBES = [
    ({"extends": "assassinate-leaders", "defects": ["forfeit-resets-each-turn"]}, None),
    ({"extends": "assassinate-leaders", "defects": ["forfeit-resets-each-turn"],
      "bounds": {"assassinate_leaders": False}},
     "defects[0]: 'forfeit-resets-each-turn' is a defect of a module that is off"),
    ({"extends": "treachery"}, "extends: 'treachery' is not an embedded profile"),
    ({"extends": 5}, "extends: expected one of ambassador-relocation, "),
    ({"extends": None}, "extends: expected one of ambassador-relocation, "),
    ({"extends": ["grumman"]}, "extends: expected one of ambassador-relocation, "),
    ({"extends": "assassinate-leaders", "bounds": {"factions": ["Moritani", "Atreides"]}},
     "bounds.factions: 'Bene Gesserit' is not in bounds.factions"),  # the profile keeps the engine's forces
    ({"extends": "assassinate-leaders", "bounds": {"factions": ["Moritani", "Atreides", "Bene Gesserit", "Ecaz"]}},
     None),
    ({"extends": "worm-rides", "bounds": {"forces": []}},
     "bounds.forces: bounds.worm_rides is on but bounds.forces has no row"),
    ({"extends": "cross-ship", "bounds": {"turns": 1}}, None),
]


@pytest.mark.parametrize("doc, error", EXTENDS_PROBES, ids=lambda d: json.dumps(d)[:60])
def test_schema_and_loader_agree_on_extends(doc, error):
    accepted, why = loads(doc, build=True)
    assert (accepted, why.split(": ", 1)[-1][:len(error)] if error else None) == (error is None, error), why
    assert VALIDATOR.is_valid(doc) == accepted


@FAST
@given(proposal_doc())
def test_schema_and_loader_agree_on_generated_proposals(doc):
    accepted, why = loads(doc)
    assert VALIDATOR.is_valid(doc) == accepted, why or [e.message for e in VALIDATOR.iter_errors(doc)][:3]


@pytest.mark.slow
@LONG
@given(proposal_doc())
def test_schema_and_loader_agree_on_2000_generated_proposals(doc):
    accepted, why = loads(doc)
    assert VALIDATOR.is_valid(doc) == accepted, why or [e.message for e in VALIDATOR.iter_errors(doc)][:3]


@pytest.mark.heavy
@settings(FAST, max_examples=40)
@given(proposal_doc(mutate=False))
def test_valid_structures_agree_and_what_loads_builds(doc):
    accepted, why = loads(doc, build=True)
    assert VALIDATOR.is_valid(doc) == accepted, why


@pytest.mark.slow
@settings(LONG, max_examples=400)
@given(proposal_doc(mutate=False))
def test_valid_structures_agree_and_what_loads_builds_long(doc):
    accepted, why = loads(doc, build=True)
    assert VALIDATOR.is_valid(doc) == accepted, why


def test_schema_is_valid_and_accepts_every_shipped_file():
    jsonschema.Draft202012Validator.check_schema(json_schema(GAME))
    jsonschema.Draft202012Validator.check_schema(scenario_json_schema(GAME))
    for f in PROPOSALS:
        VALIDATOR.validate(YAML(typ="safe").load(f.read_text()))
    for f in SCENARIOS:
        SCENARIO_VALIDATOR.validate(YAML(typ="safe").load(f.read_text()))


@pytest.mark.heavy
@settings(FAST, max_examples=60)
@given(scenario_doc())
def test_every_scenario_the_loader_accepts_is_schema_valid(tmp_path_factory, doc):
    p = tmp_path_factory.mktemp("sc") / "s.scenario.yaml"
    p.write_text(yaml_text(doc), encoding="utf-8")
    data = YAML(typ="safe").load(p.read_text(encoding="utf-8"))
    try:
        load_scenario(GAME, str(p))
    except InputError:
        return
    assert SCENARIO_VALIDATOR.is_valid(data), [e.message for e in SCENARIO_VALIDATOR.iter_errors(data)][:3]


@pytest.mark.parametrize("which, schema", [("proposal", json_schema), ("scenario", scenario_json_schema)])
def test_interpretations_schema_prints_the_loaders_schema(which, schema):
    r = CliRunner().invoke(main, ["interpretations", "--schema", which])
    assert r.exit_code == 0 and json.loads(r.output) == schema(GAME)
    assert json.loads(CliRunner().invoke(main, ["interpretations", "--schema"]).output) == json_schema(GAME)
