"""Fuzzing the loaders (issue 19): generated and damaged proposals and scenarios never crash the tool.

The property, for every generated file: the command ends with an exit code in {0, 3, 4, 12}, never
1 (an internal error) and never a traceback, and a refusal (3) names `file:line:col`.

Inputs (tests/strategies.py): valid structures with wrong leaves (every JSON/YAML type, edge
numbers, control characters, duplicates, unknown keys), YAML token soup (anchors, aliases, tags,
flow brackets), and byte-level damage of the shipped files (flips, insertions, deletions, cuts).

The default selection runs a bounded, deterministic sample (`derandomize=True`, no example
database) in a few seconds; `-m slow` runs at least 2,000 examples per loader.
"""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checks.cli import main
from checks.cli_options import failure
from checks.formats.proposal import load_proposal
from checks.formats.scenario import replay_file
from model.moritani import GAME
from strategies import PROPOSALS, SCENARIOS, damaged, json_text, proposal_doc, scenario_doc, yaml_soup, yaml_text

HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture,
          HealthCheck.filter_too_much]
CI = settings(max_examples=60, derandomize=True, deadline=None, database=None, suppress_health_check=HEALTH)
LONG = settings(max_examples=2000, derandomize=True, deadline=None, database=None, suppress_health_check=HEALTH)
LOCATED = re.compile(r"\.(yaml|json):\d+:\d+: ")


def proposal_code(path: str) -> tuple[int, str]:
    """The exit code and message `rulecheck` gives this proposal file, up to building its model (what
    follows, the search, never reads the file again)."""
    try:
        GAME.build(load_proposal(GAME, path))
    except Exception as e:  # noqa: BLE001 - the contract's mapping decides: 3 for input, 1 for a bug
        return failure(e)[1], str(e)
    return 0, ""


def scenario_code(path: str) -> tuple[int, str]:
    try:
        res = replay_file(GAME, path)
    except Exception as e:  # noqa: BLE001
        return failure(e)[1], str(e)
    return (0 if res.ok else 12), res.problem


def assert_contract(code: int, message: str) -> None:
    assert code in (0, 3, 4, 12), message
    if code == 3:
        assert LOCATED.search(message), f"not located: {message}"
        assert "Traceback" not in message


def write(tmp_path_factory, data, name: str):
    p = tmp_path_factory.mktemp("f") / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(p)


# -- proposals -------------------------------------------------------------------------------------

def proposal_files():
    shipped = [p.read_bytes() for p in PROPOSALS]
    return st.one_of(
        proposal_doc().map(yaml_text), proposal_doc().map(json_text), yaml_soup,
        st.sampled_from(shipped).flatmap(damaged),
        proposal_doc().map(yaml_text).map(str.encode).flatmap(damaged))


def check_proposal(tmp_path_factory, data):
    assert_contract(*proposal_code(write(tmp_path_factory, data, "p.yaml")))


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
@CI
@given(proposal_files())
def test_generated_proposals_keep_the_contract(tmp_path_factory, data):
    check_proposal(tmp_path_factory, data)


@pytest.mark.slow
@LONG
@given(proposal_files())
def test_2000_generated_proposals_keep_the_contract(tmp_path_factory, data):
    check_proposal(tmp_path_factory, data)


# -- scenarios -------------------------------------------------------------------------------------

def scenario_files():
    shipped = [p.read_bytes() for p in SCENARIOS]
    return st.one_of(scenario_doc().map(yaml_text), scenario_doc().map(json_text), yaml_soup,
                     st.sampled_from(shipped).flatmap(damaged))


def check_scenario(tmp_path_factory, data):
    assert_contract(*scenario_code(write(tmp_path_factory, data, "s.scenario.yaml")))


@CI
@given(scenario_files())
def test_generated_scenarios_keep_the_contract(tmp_path_factory, data):
    check_scenario(tmp_path_factory, data)


@pytest.mark.slow
@LONG
@given(scenario_files())
def test_2000_generated_scenarios_keep_the_contract(tmp_path_factory, data):
    check_scenario(tmp_path_factory, data)


# -- the whole command line, on fewer examples ---------------------------------------------------------

@settings(CI, max_examples=15)
@given(st.one_of(proposal_files().map(lambda d: ("proposal", d)), scenario_files().map(lambda d: ("scenario", d))))
def test_the_command_line_keeps_the_contract(tmp_path_factory, kind_data):
    kind, data = kind_data
    if kind == "proposal":
        args = ["explore", "--max-states", "20", "--proposal", write(tmp_path_factory, data, "p.yaml")]
    else:
        args = ["replay", write(tmp_path_factory, data, "s.scenario.yaml")]
    r = CliRunner().invoke(main, args)
    assert_contract(r.exit_code, r.output)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
