"""Proposal files: every error reported at once, and the JSON Schema editors use (issue 6)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from checks.cli import main
from checks.formats.proposal import json_schema, load_proposal
from model.errors import InputError
from model.moritani import GAME

ROOT = Path(__file__).resolve().parent.parent


def test_all_errors_are_reported_at_once_in_file_order(tmp_path):
    p = tmp_path / "p.yaml"
    p.write_text("name: bad\ninterpretation:\n  A1: sideways\n  A99: x\nbounds:\n  turns: 9\n  colour: red\n")
    with pytest.raises(InputError) as e:
        load_proposal(GAME, str(p))
    lines = str(e.value).splitlines()
    assert [ln.split(": ")[0].rsplit("/", 1)[-1] for ln in lines] == ["p.yaml:3:7", "p.yaml:4:3", "p.yaml:6:10",
                                                                       "p.yaml:7:3"]
    assert "valid: arrival-first, reject-entry, terror-first, unordered" in lines[0]
    assert "unknown bound 'colour'" in lines[3]


@pytest.fixture(scope="module")
def validator():
    """The proposal JSON Schema, checked against the meta-schema once (it takes seconds) and shared."""
    schema = json_schema(GAME)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_schema_is_valid_and_accepts_every_shipped_proposal(validator):
    files = sorted((ROOT / "scenarios" / "proposals").glob("*.yaml"))
    assert len(files) >= 3
    for f in files:
        validator.validate(YAML(typ="safe").load(f.read_text()))


def test_schema_rejects_what_the_loader_rejects(validator):
    for bad in ({"interpretation": {"A1": "sideways"}}, {"interpretation": {"A99": "x"}},
                {"bounds": {"colour": "red"}}, {"bounds": {"faces": ["Plague"]}}, {"colour": 1}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(bad)


def test_interpretations_schema_command_prints_the_schema():
    r = CliRunner().invoke(main, ["interpretations", "--schema"])
    assert r.exit_code == 0
    assert json.loads(r.output) == json_schema(GAME)


# -- extends: PROFILE ------------------------------------------------------------------------------

def _written_out(profile: str, tmp_path, switches: dict, bounds: dict) -> Path:
    """The profile's switches (with `switches` changed) and `bounds` as a file of their own, without extends."""
    chosen = GAME.profiles[profile].interpretation.as_dict() | switches
    text = "name: full\ninterpretation:\n" + "".join(f"  {k}: {v}\n" for k, v in chosen.items())
    text += "bounds:\n" + "".join(f"  {k}: {json.dumps(v)}\n" for k, v in bounds.items())
    path = tmp_path / "full.yaml"
    path.write_text(text)
    return path


def test_extends_starts_from_the_profile_then_the_file_overrides(tmp_path):
    ext = tmp_path / "ext.yaml"
    ext.write_text("extends: treachery-online\ninterpretation:\n  A5: placement-first\n"
                   "bounds: {strongholds: [Arrakeen], ambassador: Arrakeen, turns: 1}\n")
    p = load_proposal(GAME, str(ext))
    base = GAME.profiles["treachery-online"]
    assert (p.name, p.extends, p.to_json()["extends"]) == ("ext", "treachery-online", "treachery-online")
    assert p.interpretation.as_dict() == base.interpretation.as_dict() | {"extortion-mentat-order": "placement-first"}
    assert p.bounds.strongholds == ("Arrakeen",) and p.bounds.turns == 1 and p.bounds.faces == base.bounds.faces
    # The bounds relations and a defect's module read the profile's bounds: the Assassinate Leaders defect is
    # refused on the engine defaults and accepted on the profile that switches the module on.
    al = tmp_path / "al.yaml"
    al.write_text("extends: assassinate-leaders\ndefects: [forfeit-resets-each-turn]\n")
    assert load_proposal(GAME, str(al)).defects == ("forfeit-resets-each-turn",)
    al.write_text("defects: [forfeit-resets-each-turn]\n")
    with pytest.raises(InputError, match="needs bounds.assassinate_leaders: true"):
        load_proposal(GAME, str(al))
    # `explore` searches the same game as the profile's switches written out in full, with the same changes.
    full = _written_out("treachery-online", tmp_path, {"extortion-mentat-order": "placement-first"},
                        {"strongholds": ["Arrakeen"], "ambassador": "Arrakeen", "turns": 1})
    runs = [CliRunner().invoke(main, ["explore", "--proposal", str(f), "--format", "json", "--engine", "scalar"])
            for f in (ext, full)]
    assert all(r.exit_code == 0 for r in runs), [r.output for r in runs]
    (x, y) = (json.loads(r.output) for r in runs)
    assert x["proposal"]["extends"] == "treachery-online" and "extends" not in y["proposal"]
    assert (x["proposal"]["interpretation"], x["proposal"]["bounds"]) == (y["proposal"]["interpretation"],
                                                                          y["proposal"]["bounds"])
    assert x["exploration"]["states"] == y["exploration"]["states"] == 2870


COMMAND_ARGS = {"export": ["--promela", "{tmp}/m.pml"], "sweep": ["--out", "{tmp}/sweep"]}


@pytest.mark.parametrize("command", sorted(n for n, c in main.commands.items()
                                           if any("--proposal" in getattr(p, "opts", ()) for p in c.params))
                         + ["compare"])
def test_a_bad_extends_is_a_located_input_error_in_every_command(tmp_path, command):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nextends: treachery\n")
    args = ([command, str(bad), "default"] if command == "compare" else
            [command, "--proposal", str(bad)] + [a.format(tmp=tmp_path) for a in COMMAND_ARGS.get(command, [])])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 3, r.output
    assert ("bad.yaml:2:10: extends: 'treachery' is not an embedded profile (expected a profile's name); valid: "
            "ambassador-relocation, assassinate-leaders, cross-ship, default, ") in r.output


def test_the_json_schema_knows_extends_and_reads_the_profiles_defaults(validator):
    assert validator.schema["properties"]["extends"]["enum"] == list(GAME.profiles)
    v = validator
    assert v.is_valid({"extends": "assassinate-leaders", "defects": ["forfeit-resets-each-turn"]})
    assert not v.is_valid({"defects": ["forfeit-resets-each-turn"]})
    assert not v.is_valid({"extends": "treachery"}) and not v.is_valid({"extends": None})
    # The three-faction Assassinate Leaders bounds have no alliances: two factions are fine there, not on the
    # engine defaults (whose alliances name Ecaz and Bene Gesserit).
    two = {"bounds": {"factions": ["Moritani", "Atreides"], "forces": [["Atreides", 1, 1]], "karama": ["Atreides"]}}
    assert v.is_valid({"extends": "assassinate-leaders"} | two) and not v.is_valid(two)
