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
    if d.target == "hidden-identity":
        return _run_leak(d, dataclasses.replace(proposal, bounds=bounds, defects=(d.id,)), config)
    if "~" in d.target:
        return _run_order(d, dataclasses.replace(proposal, bounds=bounds, defects=(d.id,)), config)
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
    # Missed only when the search covered everything; a budget that ran out is inconclusive.
    verdict = "missed" if ex.complete else "unknown"
    return CheckResult(d.id, "defect", verdict, "explicit", d.ids, len(ex.states), None, secs,
                       f"{d.doc} -- not caught: {why}",
                       extra=extra | {"caught_by": other[0] if other else None})


def _run_leak(d: Defect, proposal: Proposal, config: CheckConfig) -> CheckResult:
    from checks.leaks import check_leaks
    t0 = time.perf_counter()
    results, stats = check_leaks(proposal, dataclasses.replace(config, fold=False))
    hit = [r for r in results if r.verdict == "violated"]
    extra = {"target": d.target}
    if hit:
        r = min(hit, key=lambda r: r.depth)
        return CheckResult(d.id, "defect", "caught", "product", d.ids, stats["states"], r.depth,
                           time.perf_counter() - t0, f"{d.doc} ({r.detail})", trace=r.trace,
                           extra=extra | {"caught_by": "hidden-identity", "observer": r.extra["observer"]})
    verdict = "unknown" if any(r.verdict == "unknown" for r in results) else "missed"
    return CheckResult(d.id, "defect", verdict, "product", d.ids, stats["states"], None, time.perf_counter() - t0,
                       f"{d.doc} -- not caught" + (" (a budget ran out: inconclusive)" if verdict == "unknown" else ""),
                       extra=extra | {"caught_by": None})


def _run_order(d: Defect, proposal: Proposal, config: CheckConfig) -> CheckResult:
    """An order-sensitivity defect: the targeted reaction pair must no longer commute."""
    from checks.ambiguity import analyse
    t0 = time.perf_counter()
    found, model = analyse(proposal, dataclasses.replace(config, fold=False), with_model=True, prove=False)
    results = {r.id: r for r in found}
    r = results.get(d.target)
    extra = {"target": d.target}
    if r is not None and r.extra["class"] != "commutes" and r.trace is not None:
        return CheckResult(d.id, "defect", "caught", "explicit", d.ids, r.states, r.depth,
                           time.perf_counter() - t0, f"{d.doc} ({r.extra['class']}: {r.detail})", trace=r.trace,
                           extra=extra | {"caught_by": d.target, "class": r.extra["class"],
                                          "orders": r.extra["orders"], "model": model})
    why = "the pair was never pending together" if r is None else f"the pair still {r.extra['class']}"
    incomplete = any(x.verdict == "unknown" for x in found)
    return CheckResult(d.id, "defect", "unknown" if incomplete else "missed", "explicit", d.ids,
                       r.states if r else None, None,
                       time.perf_counter() - t0, f"{d.doc} -- not caught: {why}",
                       extra=extra | {"caught_by": None})


def run_defect_bmc(d: Defect, proposal: Proposal, depth: int = 40) -> CheckResult:
    """The same defect caught by Z3 BMC (invariant targets only), with a replayed trace."""
    from checks.bmc import get_bmc
    bounds = dataclasses.replace(proposal.bounds, **dict(d.bounds))
    model = build_model(bounds, proposal.interpretation, (d.id,))
    t0 = time.perf_counter()
    extra = {"target": d.target}
    if d.target not in {p.name for p in model.invariants}:
        return CheckResult(d.id, "defect", "missed", "bmc", d.ids, None, None, 0.0,
                           f"{d.doc} -- {d.target} is not a state invariant; BMC does not check it",
                           extra=extra | {"caught_by": None})
    r = get_bmc(model, [d.target], depth)[d.target]
    secs = time.perf_counter() - t0
    if r.verdict == "violated":
        return CheckResult(d.id, "defect", "caught", "bmc", d.ids, None, r.depth, secs, d.doc, trace=r.trace,
                           extra=extra | {"caught_by": d.target})
    return CheckResult(d.id, "defect", "missed", "bmc", d.ids, None, None, secs,
                       f"{d.doc} -- BMC: {r.verdict} to depth {r.depth} {r.reason}", extra=extra | {"caught_by": None})


def run_selftest(proposal: Proposal, config: CheckConfig, only: tuple = (), engine: str = "explicit") -> list[CheckResult]:
    chosen = [d for d in DEFECTS if not only or d.id in only]
    if engine == "bmc":
        return [run_defect_bmc(d, proposal) for d in chosen
                if d.target not in ("no-deadlock", "hidden-identity") and "~" not in d.target]
    return [run_defect(d, proposal, config) for d in chosen]
