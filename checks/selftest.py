"""Run the checker against its catalogue of seeded defects.

Each defect is applied alone to the model built from the selected proposal;
the explorer must report the targeted check violated, with a shortest trace
that replays. A defect that goes undetected is `missed` and fails the run.
"""
from __future__ import annotations

import dataclasses
import time

from checks.config import CheckConfig
from checks.explore import Explorer
from checks.results import CheckResult
from checks.run import validated
from model.moritani.build import build_model
from model.moritani.defects import DEFECTS, Defect
from model.moritani.profiles import Proposal


def run_defect(d: Defect, proposal: Proposal, config: CheckConfig) -> CheckResult:
    bounds = dataclasses.replace(proposal.bounds, **dict(d.bounds))
    model = build_model(bounds, proposal.interpretation, (d.id,))
    t0 = time.perf_counter()

    def found(ex):
        return bool(ex.deadlocks) if d.target == "no-deadlock" else d.target in ex.violations

    ex = Explorer(model, dataclasses.replace(config, fold=False)).run(stop_when=found)
    secs = time.perf_counter() - t0
    extra = {"target": d.target}
    if found(ex):
        idx = ex.deadlocks[0] if d.target == "no-deadlock" else ex.violations[d.target]
        t = validated(model, ex.trace_to(idx), f"defect {d.id}")
        return CheckResult(d.id, "defect", "caught", "explicit", d.ids, len(ex.states), t.depth, secs,
                           d.doc, trace=t, extra=extra | {"caught_by": d.target})
    other = sorted(ex.violations)
    why = f"explored {len(ex.states):,} states ({'complete' if ex.complete else ex.stop_reason})"
    if other:
        why += f"; other checks fired instead: {', '.join(other)}"
    return CheckResult(d.id, "defect", "missed", "explicit", d.ids, len(ex.states), None, secs,
                       f"{d.doc} -- not caught: {why}",
                       extra=extra | {"caught_by": other[0] if other else None})


def run_selftest(proposal: Proposal, config: CheckConfig, only: tuple = ()) -> list[CheckResult]:
    return [run_defect(d, proposal, config) for d in DEFECTS if not only or d.id in only]
