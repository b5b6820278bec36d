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


def test_schema_is_valid_and_accepts_every_shipped_proposal():
    schema = json_schema(GAME)
    jsonschema.Draft202012Validator.check_schema(schema)
    files = sorted((ROOT / "scenarios" / "proposals").glob("*.yaml"))
    assert len(files) >= 3
    for f in files:
        jsonschema.validate(YAML(typ="safe").load(f.read_text()), schema)


def test_schema_rejects_what_the_loader_rejects():
    schema = json_schema(GAME)
    for bad in ({"interpretation": {"A1": "sideways"}}, {"interpretation": {"A99": "x"}},
                {"bounds": {"colour": "red"}}, {"bounds": {"faces": ["Plague"]}}, {"colour": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_interpretations_schema_command_prints_the_schema():
    r = CliRunner().invoke(main, ["interpretations", "--schema"])
    assert r.exit_code == 0
    assert json.loads(r.output) == json_schema(GAME)
