"""Run the explicit checks on a model and turn what the search found into verdicts.

Every counterexample and witness trace is replayed through the reference
semantics (`model.evaluate`) before it is reported; a trace that does not
replay is an InternalError, never a finding.
"""
from __future__ import annotations

from checks.config import CheckConfig
from checks.engines.explicit import Exploration, Explorer
from checks.results import CheckResult, validated
from model.game import GameModel

DEADLOCK_RULES = ("H40",)


def explicit_results(model: GameModel, ex: Exploration, asked_depth: int | None = None) -> list[CheckResult]:
    """One CheckResult per invariant, no-deadlock and witness of the model."""
    out: list[CheckResult] = []
    n, secs = len(ex.states), ex.seconds
    done_depth = ex.max_depth if ex.complete else max(ex.max_depth - 1, 0)
    depth_cut = ex.stop_reason is not None and ex.stop_reason.startswith("depth bound")
    inconclusive = "unknown" if not depth_cut else "bounded"

    def result(rid, kind, verdict, rules, depth, detail, trace=None):
        return CheckResult(id=rid, kind=kind, verdict=verdict, engine="explicit", rules=rules, states=n,
                           depth=depth, seconds=secs, detail=detail, trace=trace)

    def open_verdict(rid, kind, rules, detail_ok):
        if ex.complete:
            return result(rid, kind, "holds", rules, ex.max_depth, detail_ok)
        verdict = "bounded" if (depth_cut and asked_depth is not None) else inconclusive
        return result(rid, kind, verdict, rules, done_depth,
                      f"no violation up to depth {done_depth}; search stopped: {ex.stop_reason}")

    for p in model.invariants:
        if p.name in ex.violations:
            t = validated(model, ex.trace_to(ex.violations[p.name]), p.name)
            out.append(result(p.name, p.kind, "violated", p.rules, t.depth,
                              f"violated after {t.depth} steps: {p.doc}", t))
        else:
            out.append(open_verdict(p.name, p.kind, p.rules, p.doc))
    if ex.deadlocks:
        t = validated(model, ex.trace_to(ex.deadlocks[0]), "no-deadlock")
        out.append(result("no-deadlock", "invariant", "violated", DEADLOCK_RULES, t.depth,
                          f"{len(ex.deadlocks)} non-terminal state(s) where nobody can act; first after {t.depth} steps",
                          t))
    else:
        out.append(open_verdict("no-deadlock", "invariant", DEADLOCK_RULES,
                                "every pending decision has an owner with a legal action"))
    for w in model.witnesses:
        if w.name in ex.witnesses:
            t = validated(model, ex.witness_trace(w.name), w.name)
            out.append(result(w.name, "witness", "holds", w.rules, t.depth, f"reachable in {t.depth} steps", t))
        elif ex.complete:
            out.append(result(w.name, "witness", "violated", w.rules, ex.max_depth,
                              "no reachable example within the bounds: the rule is vacuous here"))
        else:
            out.append(result(w.name, "witness", "unknown", w.rules, done_depth,
                              f"no example found before the search stopped ({ex.stop_reason})"))
    if ex.out_of_domain:
        idx, slots = ex.out_of_domain[0]
        t = ex.trace_to(idx)
        out.append(result("state-bounds", "invariant", "unknown", (), t.depth,
                          f"a value left its declared range ({', '.join(slots)}); "
                          f"states beyond it were not explored: raise the bound", t))
    return out


def coverage(model: GameModel, ex: Exploration) -> dict:
    names = [r.name for r in model.rules]
    never = sorted(n for n in names if n not in ex.fired)
    return {"rules": len(names), "fired": len(names) - len(never), "never_fired": never}


def make_explorer(model: GameModel, config: CheckConfig):
    """The explorer `config.engine` names (both return an Exploration from `run()`); `auto` is the vector
    engine unless the search needs what only the scalar one has (symmetry, chain folding, an edge list)."""
    engine = config.engine
    if engine == "auto":
        engine = "scalar" if config.symmetry or config.fold or config.keep_edges else "vector"
    if engine == "vector":
        from checks.engines.vector import VectorExplorer
        return VectorExplorer(model, config)
    return Explorer(model, config)


def run_explicit(model: GameModel, config: CheckConfig) -> tuple[list[CheckResult], Exploration]:
    ex = make_explorer(model, config).run()
    return explicit_results(model, ex, config.max_depth), ex
