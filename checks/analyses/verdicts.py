"""Run the explicit checks on a model and turn what the search found into verdicts.

Every counterexample and witness trace is replayed through the reference
semantics (`model.evaluate`) before it is reported; a trace that does not
replay is an InternalError, never a finding.
"""
from __future__ import annotations

from checks.config import CheckConfig
from checks.engines.explicit import DOMAIN, Exploration, Explorer
from checks.results import CheckResult, error_result, isolated, validated
from model.game import GameModel

DEADLOCK_RULES = ("H40",)
DOMAIN_DOC = "every value stays within its slot's declared domain"


def explicit_results(model: GameModel, ex: Exploration, asked_depth: int | None = None) -> list[CheckResult]:
    """One CheckResult per invariant, `no-deadlock`, `domain` and witness of the model. A trace that does
    not replay costs its own check alone: that check's verdict is `error` (`isolated`), the others stand."""
    out: list[CheckResult] = []
    n, secs = len(ex.states), ex.seconds
    done_depth = ex.max_depth if ex.complete else max(ex.max_depth - 1, 0)
    depth_cut = ex.stop_reason is not None and ex.stop_reason.startswith("depth bound")
    inconclusive = "unknown" if not depth_cut else "bounded"

    def result(rid, kind, verdict, rules, depth, detail, trace=None, **extra):
        return CheckResult(id=rid, kind=kind, verdict=verdict, engine="explicit", rules=rules, states=n,
                           depth=depth, seconds=secs, detail=detail, trace=trace, extra=extra)

    def open_verdict(rid, kind, rules, detail_ok):
        if ex.complete:
            return result(rid, kind, "holds", rules, ex.max_depth, detail_ok)
        verdict = "bounded" if (depth_cut and asked_depth is not None) else inconclusive
        return result(rid, kind, verdict, rules, done_depth,
                      f"no violation up to depth {done_depth}; search stopped: {ex.stop_reason}")

    def one(rid, kind, rules, work):
        out.append(isolated(work, lambda e: error_result(e, id=rid, kind=kind, engine="explicit", rules=rules,
                                                           what=f"the explicit verdict of {rid}")))

    def invariant(p):
        if p.name not in ex.violations:
            return open_verdict(p.name, p.kind, p.rules, p.doc)
        t = validated(model, ex.trace_to(ex.violations[p.name]), p.name)
        if p.kind == "permission":
            return permission_violation(model, p, t, result)
        return result(p.name, p.kind, "violated", p.rules, t.depth, f"violated after {t.depth} steps: {p.doc}", t)

    def deadlock():
        if not ex.deadlocks:
            return open_verdict("no-deadlock", "invariant", DEADLOCK_RULES,
                                "every pending decision has an owner with a legal action")
        t = validated(model, ex.trace_to(ex.deadlocks[0]), "no-deadlock")
        return result("no-deadlock", "invariant", "violated", DEADLOCK_RULES, t.depth,
                      f"{len(ex.deadlocks)} non-terminal state(s) where nobody can act; first after {t.depth} steps", t)

    def witness(w):
        if w.name in ex.witnesses:
            t = validated(model, ex.witness_trace(w.name), w.name)
            return result(w.name, "witness", "holds", w.rules, t.depth, f"reachable in {t.depth} steps", t)
        if ex.complete:
            return result(w.name, "witness", "violated", w.rules, ex.max_depth,
                          "no reachable example within the bounds: the rule is vacuous here")
        return result(w.name, "witness", "unknown", w.rules, done_depth,
                      f"no example found before the search stopped ({ex.stop_reason})")

    for p in model.invariants:
        one(p.name, p.kind, p.rules, lambda p=p: invariant(p))
    one("no-deadlock", "invariant", DEADLOCK_RULES, deadlock)
    one(DOMAIN, "invariant", (), lambda: domain_result(model, ex, result, open_verdict))
    for w in model.witnesses:
        one(w.name, "witness", w.rules, lambda w=w: witness(w))
    return out


def permission_violation(model: GameModel, p, t, result) -> CheckResult:
    """A permission violated at the end of the replayed game `t` (NOTE(permissions)): the parameter values
    where the condition holds and no action of the choice is enabled, and the choice in game words."""
    from model.permissions import choice_words, refusal_words, refusals
    envs = refusals(model, p, t.states[-1])  # non-empty: `validated` confirmed it
    shown = [{q.name: q.domain.show(env[q.name]) for q in p.params} for env in envs]
    return result(p.name, p.kind, "violated", p.rules, t.depth,
                  f"violated after {t.depth} steps: {refusal_words(model, p, envs[0])} ({p.doc})", t,
                  choice=choice_words(model, p, envs[0]), params=shown[0], refused=shown)


def domain_result(model: GameModel, ex: Exploration, result, open_verdict) -> CheckResult:
    """`domain` (NOTE(domain) in checks/engines/explicit.py): violated by the shortest game to a value
    outside its slot's declared domain, naming the rule of the last step and the slots that left."""
    if DOMAIN not in ex.violations:
        return open_verdict(DOMAIN, "invariant", (), DOMAIN_DOC)
    t = validated(model, ex.trace_to(ex.violations[DOMAIN]), DOMAIN)
    schema, end = model.schema, t.states[-1]
    outside = [f"{schema.slot_names[i]}={v!r} (declared {_declared(f.domain)})"
               for i, (v, f) in enumerate(zip(end, schema.slot_fields)) if not f.domain.contains(v)]
    action = model.action(t.labels[-1]) if t.steps else None
    rule = action.rule if action is not None else None
    by = f"rule {action.rule.name} ('{action.label}')" if action is not None else "the initial state"
    return result(DOMAIN, "invariant", "violated", rule.implements if rule is not None else (), t.depth,
                  f"violated after {t.depth} steps: {by} sets {', '.join(outside)}; states beyond it are not "
                  f"explored; {len(ex.out_of_domain)} state(s) outside the domains in all", t,
                  rule=rule.name if rule is not None else None, slots=[o.split("=")[0] for o in outside])


def _declared(domain) -> str:
    values = domain.values
    if values[0] is False:
        return "yes/no"
    if hasattr(domain, "labels"):
        return f"one of {len(values)} {domain.name} values"
    return f"{values[0]}..{values[-1]}"


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
