"""Run the checker against the game's catalogue of seeded defects.

Each defect is applied alone to the model built from the selected proposal (with the defect's own
bounds overrides); the targeted check must fire with a shortest trace that replays (a witness target:
be unreachable after a complete search, its depth the search's last layer). A defect the
check misses after a complete search is `missed` and fails the run; one not caught because a
budget ran out is `unknown` (inconclusive), never `missed`.

>>> from model.moritani import GAME
>>> r = run_selftest(GAME, GAME.profiles["default"], CheckConfig(), only=("reload-reopens-placement",))
>>> [(x.verdict, x.depth) for x in r]
[('caught', 1)]
"""
from __future__ import annotations

import dataclasses
import time

from checks.config import CheckConfig
from checks.engines.explicit import DOMAIN, Explorer
from checks.results import CheckResult, DefectResult, error_result, isolated, validated


def defect_proposal(game, d, proposal):
    """The proposal with defect `d` built in, on its own bounds overrides and interpretation choices."""
    return game.with_defect(d, proposal)


def run_defect(game, d, proposal, config: CheckConfig) -> CheckResult:
    p = defect_proposal(game, d, proposal)
    if d.target in LEAK_TARGETS:
        return _run_leak(game, d, p, config)
    if "~" in d.target:
        return _run_order(game, d, p, config)
    model = game.build(p)
    t0 = time.perf_counter()

    def found(ex):
        return bool(ex.deadlocks) if d.target == "no-deadlock" else d.target in ex.violations

    ex = Explorer(model, dataclasses.replace(config, fold=False)).run(stop_when=found)
    secs = time.perf_counter() - t0
    common = dict(id=d.id, kind="defect", engine="explicit", rules=d.ids, states=len(ex.states), seconds=secs)
    if found(ex):
        idx = ex.deadlocks[0] if d.target == "no-deadlock" else ex.violations[d.target]
        t = validated(model, ex.trace_to(idx), f"defect {d.id}", check=d.target)
        return DefectResult(**common, verdict="caught", depth=t.depth, detail=d.doc, trace=t,
                           extra={"target": d.target, "caught_by": d.target})
    if _witness_target(model, d.target) and ex.complete and d.target not in ex.witnesses:
        # A witness is violated by its absence: no trace to show, only the complete search that proves it
        # unreachable (the depth is that search's last layer).
        return DefectResult(**common, verdict="caught", depth=ex.max_depth,
                           detail=f"{d.doc} (unreachable after a complete search)",
                           extra={"target": d.target, "caught_by": d.target})
    other = sorted(ex.violations)
    why = f"explored {len(ex.states):,} states ({'complete' if ex.complete else ex.stop_reason})"
    if other:
        why += f"; other checks fired instead: {', '.join(other)}"
    # Missed only when the search covered everything; a budget that ran out is inconclusive.
    return DefectResult(**common, verdict="missed" if ex.complete else "unknown", depth=None,
                       detail=f"{d.doc} -- not caught: {why}",
                       extra={"target": d.target, "caught_by": other[0] if other else None})


def _witness_target(model, name: str) -> bool:
    return any(p.name == name and p.kind == "witness" for p in model.properties)


LEAK_TARGETS = ("hidden-identity", "possibilistic")  # checks/analyses/leaks.py, checks/analyses/possible.py


def _run_leak(game, d, proposal, config: CheckConfig) -> CheckResult:
    from checks.analyses.leaks import check_leaks
    from checks.analyses.possible import check_possible
    t0 = time.perf_counter()
    run = check_leaks if d.target == "hidden-identity" else check_possible
    results, stats = run(game.build(proposal), dataclasses.replace(config, fold=False))
    hit = [r for r in results if r.verdict == "violated"]
    common = dict(id=d.id, kind="defect", engine="product", rules=d.ids, states=stats["states"])
    if hit:
        r = min(hit, key=lambda r: r.depth or 0)  # a violated result has its trace's depth
        return DefectResult(**common, verdict="caught", depth=r.depth, seconds=time.perf_counter() - t0,
                           detail=f"{d.doc} ({r.detail})", trace=r.trace,
                           extra={"target": d.target, "caught_by": d.target,
                                  "observer": r.observer})
    # A leak check that failed inside the tool for some observer proves nothing either way: `error`.
    failed = [r for r in results if r.verdict == "error"]
    if failed:
        return DefectResult(**common, verdict="error", depth=None, seconds=time.perf_counter() - t0,
                           detail=f"{d.doc} -- not decided: {failed[0].detail}",
                           extra={"target": d.target, "caught_by": None})
    verdict = "unknown" if any(r.verdict == "unknown" for r in results) else "missed"
    return DefectResult(**common, verdict=verdict, depth=None, seconds=time.perf_counter() - t0,
                       detail=f"{d.doc} -- not caught" + (" (a budget ran out: inconclusive)"
                                                          if verdict == "unknown" else ""),
                       extra={"target": d.target, "caught_by": None})


def _run_order(game, d, proposal, config: CheckConfig) -> CheckResult:
    """An order-sensitivity defect: the targeted reaction pair must no longer commute."""
    from checks.analyses.ambiguity import analyse
    t0 = time.perf_counter()
    model = game.open_orders(proposal)
    found = analyse(model, proposal.interpretation, dataclasses.replace(config, fold=False), prove=False)
    r = {x.id: x for x in found}.get(d.target)
    common = dict(id=d.id, kind="defect", engine="explicit", rules=d.ids)
    if r is not None and r.verdict == "error":  # the pair's analysis failed inside the tool: nothing is decided
        return DefectResult(**common, verdict="error", states=r.states, depth=None, seconds=time.perf_counter() - t0,
                           detail=f"{d.doc} -- not decided: {r.detail}", extra={"target": d.target, "caught_by": None})
    if r is not None and r.cls != "commutes" and r.trace is not None:
        return DefectResult(**common, verdict="caught", states=r.states, depth=r.depth,
                           seconds=time.perf_counter() - t0, detail=f"{d.doc} ({r.cls}: {r.detail})",
                           trace=r.trace, extra={"target": d.target, "caught_by": d.target, "class": r.cls,
                                                 "orders": r.orders, "model": model})
    why = "the pair was never pending together" if r is None else f"the pair still {r.cls}"
    incomplete = any(x.verdict == "unknown" for x in found)
    return DefectResult(**common, verdict="unknown" if incomplete else "missed", states=r.states if r else None,
                       depth=None, seconds=time.perf_counter() - t0, detail=f"{d.doc} -- not caught: {why}",
                       extra={"target": d.target, "caught_by": None})


def run_defect_bmc(game, d, proposal, depth: int = 40, config: CheckConfig | None = None) -> CheckResult:
    """The same defect caught by Z3 BMC (invariant targets only), with a replayed trace; `config`'s
    --max-depth caps the depth and its clock (--timeout) bounds the queries."""
    from checks.engines.bmc import get_bmc
    config = config or CheckConfig()
    cap = config.max_depth
    capped = cap is not None and cap < depth  # the user's budget, not the catalogue's
    depth = cap if cap is not None and capped else depth
    model = game.build(defect_proposal(game, d, proposal))
    t0 = time.perf_counter()
    common = dict(id=d.id, kind="defect", engine="bmc", rules=d.ids, states=None)
    if d.target not in {p.name for p in model.invariants}:
        return DefectResult(**common, verdict="missed", depth=None, seconds=0.0,
                           detail=f"{d.doc} -- {d.target} is not a state invariant; BMC does not check it",
                           extra={"target": d.target, "caught_by": None})
    rest = config.left()
    r = get_bmc(model, [d.target], depth, timeout=None if rest is None else max(rest, 0.001))[d.target]
    secs = time.perf_counter() - t0
    if r.verdict == "violated":
        return DefectResult(**common, verdict="caught", depth=r.depth, seconds=secs, detail=d.doc, trace=r.trace,
                           extra={"target": d.target, "caught_by": d.target})
    # Missed only at the catalogue's own depth; a bound the user lowered is a budget: inconclusive.
    missed = r.verdict == "bounded" and not capped
    return DefectResult(**common, verdict="missed" if missed else "unknown", depth=None, seconds=secs,
                       detail=f"{d.doc} -- BMC: {r.verdict} to depth {r.depth} {r.reason}",
                       extra={"target": d.target, "caught_by": None})


def run_selftest(game, proposal, config: CheckConfig, only: tuple = (), engine: str = "explicit") -> list[CheckResult]:
    """One `defect` result per seeded defect of the game (or only those named). A defect whose run fails
    inside the tool is `error`: neither caught nor missed, and the other defects still run (issue 39).
    Once `config`'s timeout has run out, the defects left are `unknown` without their models being built
    (building the 107 models alone took 94 s of a `selftest --timeout 1`, issue 40)."""
    chosen = [d for d in game.defects if not only or d.id in only]
    if engine == "bmc":
        chosen = [d for d in chosen if d.target not in ("no-deadlock", DOMAIN) + LEAK_TARGETS and "~" not in d.target]
    out = []
    for d in chosen:
        if config.out_of_time():
            out.append(_not_run(d, "bmc" if engine == "bmc" else "explicit", config))
        elif engine == "bmc":
            out.append(_isolated(d, lambda d=d: run_defect_bmc(game, d, proposal, config=config), "bmc"))
        else:
            out.append(_isolated(d, lambda d=d: run_defect(game, d, proposal, config), "explicit"))
    return out


def _isolated(d, work, engine: str) -> CheckResult:
    return isolated(work, lambda e: error_result(e, id=d.id, kind="defect", engine=engine, rules=d.ids,
                                                 what=f"the run of seeded defect {d.id}", target=d.target,
                                                 caught_by=None))


def _not_run(d, engine: str, config: CheckConfig) -> CheckResult:
    return DefectResult(id=d.id, kind="defect", verdict="unknown", engine=engine, rules=d.ids, depth=None, states=None,
                       seconds=0.0, detail=f"{d.doc} -- not run: --timeout {config.timeout:g}s reached before this "
                                           f"defect (inconclusive)", extra={"target": d.target, "caught_by": None})
