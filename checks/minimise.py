"""Minimise a counterexample's setup: the fewest factions, strongholds and Terror faces that still fail.

A BFS counterexample is already shortest in steps; its bounds may still hold players and tokens
that play no part. `minimise` removes them greedily in a fixed order (each rival faction in seat
order, then each stronghold, then each face in catalogue order), re-running the explicit check on
the smaller bounds and keeping a removal only if the same check is still violated within a state
budget. Passes repeat until no removal works, so the result is 1-minimal for these three lists:
removing any single remaining entry loses the violation (or needs more than the budget to show
it). Removing a faction also drops its forces, alliances, Karama card and leaderless entry, and
the Ecaz Ambassador goes with Ecaz or with its stronghold; candidates that are still invalid
(ModelError, e.g. the last stronghold) are skipped. The final trace is replayed through the
reference semantics before it is reported.

>>> Minimised  # doctest: +ELLIPSIS
<class 'checks.minimise.Minimised'>
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from checks.config import CheckConfig
from checks.explore import Exploration, Explorer
from checks.results import CheckResult
from checks.run import validated
from model.errors import ModelError
from model.game import GameModel
from model.moritani.build import build_model
from model.moritani.config import Bounds
from model.trace import Trace

BUDGET = 200_000
"""States per candidate run: a smaller setup that needs more than this to fail is not kept."""

KINDS = ("factions", "strongholds", "faces")


@dataclass
class Minimised:
    """The smallest setup found where `check` is still violated, and its replayed shortest trace."""

    check: str
    bounds: Bounds
    model: GameModel
    trace: Trace
    before_depth: int
    removed: dict = field(default_factory=dict)   # kind -> [names removed], in removal order
    candidates: int = 0                           # explicit runs tried
    seconds: float = 0.0

    def note(self) -> str:
        """"removed factions: Ecaz; strongholds: Carthag; faces: ...; trace 12 → 9 steps"."""
        parts = [f"{k}: {', '.join(self.removed[k])}" for k in KINDS if self.removed.get(k)]
        what = "removed " + "; ".join(parts) if parts else "nothing could be removed"
        return f"{what}; trace {self.before_depth} → {self.trace.depth} steps"

    def to_json(self) -> dict:
        return {"note": self.note(), "removed": {k: list(self.removed.get(k, ())) for k in KINDS},
                "bounds": {k: self.bounds.as_dict()[k] for k in KINDS},
                "depth_before": self.before_depth, "depth": self.trace.depth,
                "candidates": self.candidates, "seconds": round(self.seconds, 3)}


def without(bounds: Bounds, kind: str, name: str) -> Bounds:
    """`bounds` with one faction, stronghold or face removed, and what depended on it.

    Raises ModelError if the result is not a valid setup.
    """
    if kind == "factions":
        return dataclasses.replace(
            bounds, factions=tuple(f for f in bounds.factions if f != name),
            forces=tuple(x for x in bounds.forces if x[0] != name),
            alliances=tuple(p for p in bounds.alliances if name not in p),
            karama=tuple(f for f in bounds.karama if f != name),
            leaderless=tuple(f for f in bounds.leaderless if f != name),
            ambassador=None if name == "Ecaz" else bounds.ambassador)
    if kind == "strongholds":
        return dataclasses.replace(bounds, strongholds=tuple(s for s in bounds.strongholds if s != name),
                                   ambassador=None if bounds.ambassador == name else bounds.ambassador)
    if kind == "faces":
        return dataclasses.replace(bounds, faces=tuple(k for k in bounds.faces if k != name))
    raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(KINDS)}")


def _removable(bounds: Bounds, kind: str) -> tuple:
    return bounds.factions[1:] if kind == "factions" else getattr(bounds, kind)


def violation(model: GameModel, check: str, config: CheckConfig) -> tuple[Exploration, int | None]:
    """Explore until `check` is violated; (exploration, index of the violating state or None)."""
    def idx(ex):
        if check == "no-deadlock":
            return ex.deadlocks[0] if ex.deadlocks else None
        return ex.violations.get(check)

    ex = Explorer(model, dataclasses.replace(config, fold=False, keep_edges=False)).run(
        stop_when=lambda ex: idx(ex) is not None)
    return ex, idx(ex)


def minimise(bounds: Bounds, interpretation, defects, check: str, before_depth: int,
             config: CheckConfig | None = None, budget: int = BUDGET) -> Minimised | None:
    """Greedy removal (see the module docstring). None if `check` is not violated on `bounds` itself."""
    t0 = time.perf_counter()
    cfg = dataclasses.replace(config or CheckConfig(), max_states=min(budget, (config or CheckConfig()).max_states),
                              max_depth=None, progress=False)
    model = build_model(bounds, interpretation, defects)
    ex, hit = violation(model, check, cfg)
    if hit is None:
        return None
    removed: dict = {k: [] for k in KINDS}
    tried = 1
    changed = True
    while changed:
        changed = False
        for kind in KINDS:
            for name in _removable(bounds, kind):
                try:
                    cand = without(bounds, kind, name)
                    cand_model = build_model(cand, interpretation, defects)
                except ModelError:
                    continue  # not a valid setup (the last stronghold, an alliance it needs, ...)
                tried += 1
                cand_ex, cand_hit = violation(cand_model, check, cfg)
                if cand_hit is not None:
                    bounds, model, ex, hit = cand, cand_model, cand_ex, cand_hit
                    removed[kind].append(name)
                    changed = True
    trace = validated(model, ex.trace_to(hit), f"minimised {check}")
    return Minimised(check, bounds, model, trace, before_depth, removed, tried, time.perf_counter() - t0)


def apply_to(r: CheckResult, m: Minimised) -> CheckResult:
    """Replace a violated result's trace by the minimised one (the model travels in extra)."""
    r.trace, r.depth, r.trace_path = m.trace, m.trace.depth, None
    r.extra["model"] = m.model
    r.extra["minimised"] = m.to_json()
    return r


def minimise_results(results: list[CheckResult], bounds: Bounds, interpretation, defects,
                     config: CheckConfig, budget: int = BUDGET) -> list[str]:
    """Minimise every explicit violated invariant with a trace, in place; notes for what was not minimised."""
    notes = []
    for r in results:
        if r.verdict not in ("violated", "caught") or r.trace is None:
            continue
        check = r.extra.get("caught_by") if r.kind == "defect" else r.id
        b, d = bounds, defects
        if r.kind == "defect":  # selftest: the defect alone, on its own bounds overrides
            from model.moritani.defects import DEFECT_BY_ID
            b, d = dataclasses.replace(bounds, **dict(DEFECT_BY_ID[r.id].bounds)), (r.id,)
        # Leaks (pairs of games), order-sensitivity pairs and Z3 traces are not a state the explorer
        # can look for on smaller bounds.
        invariants = {p.name for p in build_model(b, interpretation, d).invariants} | {"no-deadlock"}
        if r.engine != "explicit" or r.kind == "witness" or check not in invariants:
            notes.append(f"{r.id}: not minimised (only explicit-state invariant counterexamples are)")
            continue
        m = minimise(b, interpretation, d, check, r.trace.depth, config, budget)
        if m is None:  # the budget was smaller than the original search: keep the original trace
            notes.append(f"{r.id}: not minimised (no violation within {budget:,} states)")
            continue
        apply_to(r, m)
    return notes
