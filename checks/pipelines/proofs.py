"""`rulecheck prove` (Z3 proofs of the invariants) and `rulecheck leaks` (noninterference).

>>> prove(Options(timeout=0.001), only=("placement-once",)).code  # cut by the clock: inconclusive
4
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

from checks.config import LEMMA_SPACER_RLIMIT, PROVE_RLIMIT
from checks.pipelines.common import GAME, Options, Run, UsageProblem, report, written
from checks.results import error_result, isolated


def prove(opts: Options, only: tuple = (), engine: str = "auto", depth: int = 12, rlimit: int = PROVE_RLIMIT,
          proof_cache: str | None = None, spacer_rlimit: int = LEMMA_SPACER_RLIMIT) -> Run:
    """Spacer, k-induction and BMC on the unbounded-turn model (games of any length). `proof_cache`:
    a directory for the lemma cache, "off", or None for the default one. `spacer_rlimit`: Spacer's
    budget once inferred lemmas are its facts (engine auto)."""
    from checks.analyses.prove import prove_proposal
    from checks.engines.cachedirs import chosen_dir
    prop = opts.resolve()
    model = GAME.build(prop, unbounded=True)
    names = [p.name for p in model.invariants]
    for n in only:
        if n not in names:
            raise UsageProblem(f"unknown invariant '{n}'; valid: {', '.join(sorted(names))}")
    explored = None
    if engine == "k-induction":
        from checks.engines.explicit import Explorer
        ex = Explorer(GAME.build(prop), opts.config(max_depth=None)).run()
        explored = dict.fromkeys(ex.states)
    if opts.max_depth is not None:
        depth = min(depth, opts.max_depth)
    t0 = time.perf_counter()
    # Lemma candidates are mined from the proposal's own bounded model: the same rules and slots,
    # explored exhaustively (checks/analyses/infer.py); the unbounded model is what they are proved on.
    left = opts.config().left()
    bounded = lemma_samples(prop)[0] if engine == "auto" and (left is None or left > 0) else None
    stats: dict = {}
    # --timeout bounds the whole command: what the exploration above used is gone (NOTE in checks/config.py).
    results = prove_proposal(prop, model, list(only) or names, bounded, chosen_dir(proof_cache), engine=engine,
                             depth=depth, seed=opts.seed, rlimit=rlimit, explored=explored,
                             timeout=opts.config().left(), stats=stats, lemma_rlimit=spacer_rlimit,
                             progress=_stderr if sys.stderr.isatty() else None)
    return report(opts, results, prop, None, time.perf_counter() - t0, model,
                  {"z3": {"engine": engine, "depth": depth, "rlimit": rlimit, "spacer_rlimit": spacer_rlimit,
                          "seed": opts.seed,
                          "model": "unbounded turns", **stats}})


def _stderr(line: str) -> None:
    """A cold `prove`'s progress (stderr is a terminal): round, candidates left, properties proved so far."""
    print(line, file=sys.stderr, flush=True)


def lemma_samples(prop) -> list:
    """Bounded models to mine lemma candidates from: the proposal's own model (its bounds, rules and
    slots; the unbounded-turn model differs only in the turn and public-ID ranges)."""
    return [GAME.build(prop)]


LEAK_CHECKS = ("hidden-identity", "possibilistic")  # `rulecheck leaks --check` (docs/noninterference.md)


def leaks(opts: Options, observers: tuple = (), engine: str = "both", z3_depth: int = 6,
          z3_proof: bool = True, only: tuple = ()) -> Run:
    """hidden-identity (explicit state and step pairs, Z3 self-composition, or both) and the possibilistic
    check (explicit only), each per rival observer; `only` selects among `LEAK_CHECKS`. One engine or check
    failing inside the tool gives its verdicts `error`; the others stand (issue 39)."""
    from checks.analyses.leaks import RULES as LEAK_RULES, check_leaks, side_by_side
    from checks.analyses.leaks_z3 import check_leaks_z3
    from checks.analyses.possible import check_possible
    from checks.engines.explicit import Explorer
    selected = tuple(only) or LEAK_CHECKS
    for c in selected:
        if c not in LEAK_CHECKS:
            raise UsageProblem(f"unknown leak check '{c}'; valid: {', '.join(LEAK_CHECKS)}")
    if engine == "z3" and "hidden-identity" not in selected:
        raise UsageProblem("the possibilistic check has no Z3 engine; use --engine explicit or both")
    prop = opts.resolve()
    model = GAME.build(prop)
    valid = [model.secrets.label(f) for f in model.secrets.observers]
    for o in observers:
        if o not in valid:
            raise UsageProblem(f"unknown observer '{o}'; valid: {', '.join(valid)}")
    t0 = time.perf_counter()
    results, states, extra = [], None, {"product": {"states": None}}
    chosen = list(observers) or valid

    def failed(check: str, engine_name: str, stats: dict | None = None):
        return lambda e: ([error_result(e, id=check, kind="noninterference", engine=engine_name, rules=LEAK_RULES,
                                        what=f"the {engine_name} {check} check for {o}", observer=o)
                           for o in chosen], stats if stats is not None else {"states": None})
    if engine in ("explicit", "both"):
        explorer = Explorer(model, opts.config())  # one exploration for both explicit checks
        ex = explorer.run()
        states, shared = len(ex.states), dict(exploration=ex, compiled=explorer.cm)
        if "hidden-identity" in selected:
            results, extra["product"] = isolated(
                lambda: check_leaks(model, opts.config(), list(observers) or None, **shared),
                failed("hidden-identity", "product"))
        if "possibilistic" in selected:
            found, extra["possibilistic"] = isolated(
                lambda: check_possible(model, opts.config(), list(observers) or None, **shared),
                failed("possibilistic", "explicit", {}))
            results += found
    if engine in ("z3", "both") and "hidden-identity" in selected:
        depth = z3_depth if opts.max_depth is None else min(z3_depth, opts.max_depth)  # one depth budget
        z3_results, extra["z3"] = isolated(lambda: check_leaks_z3(model, depth, opts.seed, list(observers) or None,
                                                                  prove=z3_proof, timeout=opts.config().left()),
                                           failed("hidden-identity", "z3"))
        results += z3_results
    notes, pairs, saving = [], [], Run("", 0)
    for r in results:
        leak = r.leak
        del r.leak
        if leak is not None:
            pairs.append(leak)
            notes.append((f"{leak.check}:\n" if leak.check != "hidden-identity" else "") + side_by_side(leak, model))
            if opts.out:
                r.trace_path = written(saving, "a leak pair under", opts.out, save_leak_pair, leak, model, prop,
                                       Path(opts.out), "-z3" if r.engine == "z3" else "")
    run = report(dataclasses.replace(opts, out=None), results, prop, states,
                 time.perf_counter() - t0, model, extra, leaks=pairs)
    run.stderr[:0] = saving.stderr
    run.code = 2 if saving.stderr and run.code == 0 else run.code
    if opts.fmt == "text" and notes:
        run.stdout = "".join(n + "\n\n" for n in notes) + run.stdout
    return run


def save_leak_pair(leak, model, prop, out: Path, tag: str = "") -> str:
    """Both games of a leak as scenario files that `rulecheck replay` accepts (game B's model records
    its own build options, e.g. the exchanged initial public IDs); the path of game A's file."""
    from checks.formats.outputs import inside, slug
    from checks.formats.scenario import trace_to_scenario, write_scenario
    written = []
    for side, trace, m in (("A", leak.game_a, model), ("B", leak.game_b, leak.model_b)):
        doc = trace_to_scenario(m, trace, prop, f"{leak.check} leak to {leak.observer}: game {side}",
                                {"reachable": True}, ("H3", "H6"))
        name = f"{leak.check}-{slug(leak.observer)}{tag}-{side}.scenario.yaml"
        written.append(write_scenario(inside(out, "leaks", name), doc))
    return str(written[0])
