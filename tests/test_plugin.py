"""The pytest plugin: scenario files are collected once each, and a failure names file, line and step."""
from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from checks.formats.scenario import replay_file
from model.moritani import GAME

ROOT = Path(__file__).resolve().parent.parent
ACCEPTANCE = ROOT / "scenarios" / "acceptance"
ROBBERY = ACCEPTANCE / "robbery-after-payment.scenario.yaml"
# The installed entry point and an explicit -p would register the same module twice; the child
# runs block the entry point and load the module by name, so they work installed or not.
PLUGIN = ["-p", "no:rulecheck", "-p", "checks.pytest_plugin", "-p", "no:cacheprovider"]


def pytest_run(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.heavy
def test_acceptance_scenarios_replay():
    files = sorted(ACCEPTANCE.glob("*.scenario.yaml"))
    assert len(files) >= 12
    for f in files:
        res = replay_file(GAME, str(f))
        assert res.ok, f"{f.name}:{res.line}: {res.problem}"


def test_plugin_is_registered_as_a_pytest11_entry_point():
    eps = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert eps.get("rulecheck") == "checks.pytest_plugin"


def test_repo_run_collects_each_acceptance_scenario_once():
    # From the repository root, as CI runs it: the entry point and the pyproject testpaths.
    r = pytest_run(["--collect-only", "-q", "-o", "addopts=", "-p", "no:cacheprovider", "scenarios"], ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    ids = [line for line in r.stdout.splitlines() if ".scenario.yaml::" in line]
    expected = sorted(f"scenarios/{f.parent.name}/{f.name}::{f.name.removesuffix('.scenario.yaml')}"
                      for f in ACCEPTANCE.parent.glob("*/*.scenario.yaml"))
    assert sorted(ids) == expected


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_broken_expectation_names_file_line_and_step(tmp_path):
    text = ROBBERY.read_text(encoding="utf-8")
    assert "    spice[Moritani]: 3\n" in text
    broken = tmp_path / "robbery.scenario.yaml"
    broken.write_text(text.replace("    spice[Moritani]: 3\n", "    spice[Moritani]: 4\n"), encoding="utf-8")
    r = pytest_run([broken.name, *PLUGIN], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    expect_line = line_of(text, "expect:")
    assert f"robbery.scenario.yaml:{expect_line}: expectation not met after step 12" in r.stdout
    assert "says:    turn 2, Shipment & Movement: the arrival in Arrakeen is fully resolved" in r.stdout
    assert "problem: at the end spice[Moritani] is 3, expected 4" in r.stdout
    assert "Traceback" not in r.stdout


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_broken_step_names_its_line_and_game_words(tmp_path):
    text = ROBBERY.read_text(encoding="utf-8")
    broken = tmp_path / "robbery.scenario.yaml"
    broken.write_text(text.replace("do: rob_spice(e=Atreides)", "do: gift_card(e=Atreides)"), encoding="utf-8")
    r = pytest_run([broken.name, *PLUGIN], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    step_line = line_of(text, "do: rob_spice(e=Atreides)")
    assert f"robbery.scenario.yaml:{step_line}: step 10 went wrong" in r.stdout
    assert "says:    turn 2, Shipment & Movement: Robbery: Moritani takes 1 spice from Atreides" in r.stdout
    assert "'gift_card(e=Atreides)' is not enabled in this state" in r.stdout


def test_bad_file_fails_in_one_line_without_traceback(tmp_path):
    bad = tmp_path / "bad.scenario.yaml"
    bad.write_text("setup: {}\nsteps: []\nexpect: {colour: red}\n", encoding="utf-8")
    r = pytest_run([bad.name, *PLUGIN], tmp_path)
    assert r.returncode == 1
    assert "bad scenario file: bad.scenario.yaml:3:10: expect: unknown expectation 'colour'" in r.stdout
    assert "Traceback" not in r.stdout and "InputError" not in r.stdout


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
@pytest.mark.parametrize("folder, collected", [("scenarios", True), ("results", False)])
def test_only_scenarios_folders_are_collected_by_default(tmp_path, folder, collected):
    (tmp_path / folder).mkdir()
    shutil.copy(ROBBERY, tmp_path / folder / ROBBERY.name)
    r = pytest_run([".", *PLUGIN], tmp_path)
    # pytest exits 5 when it collected nothing: saved counterexamples are not tests unless named.
    assert r.returncode == (0 if collected else 5), r.stdout + r.stderr
