"""pytest plugin: every scenario file under a `scenarios/` folder is a test.

Registered through the `pytest11` entry point (`rulecheck`), so `python -m pytest` collects
`scenarios/**/*.scenario.yaml` (and any `*.scenario.yaml` named on the command line) and runs each
through `checks.formats.scenario.replay_file`. A failure reads like the `rulecheck replay` output:

    scenarios/acceptance/robbery-after-payment.scenario.yaml:36: expectation not met after step 12 (the last, line 34)
      do:      arrival_settled
      says:    turn 2, Shipment & Movement: the arrival in Arrakeen is fully resolved
      problem: at the end spice[Moritani] is 3, expected 4

A bad file (an InputError) fails with its one-line `file:line:col: message`, without a traceback.

>>> describe(ReplayResult("x.scenario.yaml", False, [StepReport(1, "skip_placement", 7, False, "words",
...          "not enabled here")], "step 1: 'skip_placement' is not enabled in this state", 7)).splitlines()[0]
'x.scenario.yaml:7: step 1 went wrong'
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from checks.formats.scenario import ReplayResult, StepReport
from model.errors import InputError

SUFFIX = ".scenario.yaml"


def pytest_collect_file(file_path: Path, parent):
    if not file_path.name.endswith(SUFFIX):
        return None
    # Saved counterexamples (rulecheck check --out) live elsewhere; only the scenarios/ folder,
    # or a file the user names explicitly, is a test.
    if "scenarios" in file_path.parts[:-1] or parent.session.isinitpath(file_path):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFailed(Exception):
    """A scenario replayed but a step or its expectation went wrong."""

    def __init__(self, result: ReplayResult):
        super().__init__(result.problem)
        self.result = result


def shown(path: Path) -> str:
    """The path as the user would type it: relative to the working directory when below it."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def describe(res: ReplayResult) -> str:
    """Where the replay went wrong: file:line, the step, its game words and the problem."""
    bad = next((s for s in res.steps if not s.ok), None)
    if bad is not None:
        head = f"{res.path}:{bad.line}: step {bad.number} went wrong"
        step = bad
    elif res.steps:
        step = res.steps[-1]
        head = f"{res.path}:{res.line}: expectation not met after step {step.number} (the last, line {step.line})"
    else:
        return f"{res.path}:{res.line}: {res.problem}"
    return "\n".join([head, f"  do:      {step.action}", f"  says:    {step.says}", f"  problem: {res.problem}"])


class ScenarioFile(pytest.File):
    def collect(self):
        yield ScenarioItem.from_parent(self, name=self.path.name.removesuffix(SUFFIX))


class ScenarioItem(pytest.Item):
    def runtest(self):
        from checks.formats.scenario import replay_file
        from checks.pipelines.common import GAME
        res = replay_file(GAME, shown(self.path))
        if not res.ok:
            raise ScenarioFailed(res)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return describe(excinfo.value.result)
        if isinstance(excinfo.value, InputError):
            return f"bad scenario file: {excinfo.value}"
        return super().repr_failure(excinfo, style)  # an internal error keeps its traceback

    def reportinfo(self):
        return self.path, None, f"scenario {self.name}"
