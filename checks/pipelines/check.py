"""`rulecheck check` and `rulecheck explore`: the explicit search, with check's Z3 guards and proofs.

>>> run = explore(Options(proposal="default", max_states=50))
>>> run.code  # the state budget ran out before the search was complete: inconclusive
4
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from checks.config import CHECK_RLIMIT
from checks.analyses.verdicts import DEADLOCK_RULES, coverage, make_explorer, run_explicit
from checks.engines.explicit import DOMAIN, Exploration
from checks.pipelines.common import GAME, Options, Run, UsageProblem, report, stats, written
from checks.results import error_result, isolated

# Regenerates the shipped proof seed for one embedded profile (docs/checking.md, "Proof cache").
SEED_COMMAND = "python -m checks.pipelines.reseed spacer {profile}"


def check(opts: Options, z3_budget: int = CHECK_RLIMIT, minimise: bool = False, symmetry: bool = False,
          proof_cache: str | None = None, engine: str = "scalar", jobs: int | None = None,
          scenarios: str | None = None, turns: int | None = None, as_printed: bool = False) -> Run:
    """Every check on the selected proposal: explicit invariants and witnesses, hidden-identity on the
    small bounds, (with a Z3 budget) the agreement guard and the Spacer proofs that fit it, and (with
    `scenarios`) every kept scenario under that directory recorded with the same setup, replayed.
    The search covers `turns` phases, or the game's default depth for the proposal (`searched`).
    An engine profile's deviations (behaviours of the real engine that break a printed rule) are each run as
    their own game and reported as violations (checks/analyses/deviations.py); `as_printed` leaves them out.

    With two or more `jobs` (default: every core) the small-bounds guards run in a forked process
    beside the main search (NOTE(background) in checks/engines/pool.py); the report is the same.
    """
    from checks.analyses.quick_z3 import small_guards
    from checks.engines.pool import Background
    named = opts.resolve()
    prop = searched(named, turns)
    small_prop, guard_cfg = GAME.small(prop), opts.config(progress=False)
    beside = (jobs or os.cpu_count() or 1) > 1
    guards = Background(lambda: small_guards(GAME.build(small_prop), opts.seed, guard_cfg, bool(z3_budget)),
                        fork=beside)
    proving = None
    try:
        model = GAME.build(prop)
        t0 = time.perf_counter()
        if z3_budget:  # forked once the model is built: the unbounded build reuses its monitor bindings
            proving = Background(lambda: _z3_proofs(opts, prop, model, z3_budget, proof_cache), fork=beside)
        results, ex = _explicit(model, opts.config(symmetry=symmetry, engine=engine, jobs=jobs))
        extra = {"coverage": coverage(model, ex), "exploration": stats(ex)} if ex is not None else {}
        notes = [] if prop is named else [f"the search covers {prop.bounds.turns} turns (bounds.turns: check's default "
                                           f"on the default bounds; --turns N changes it)"]
        if ex is not None and ex.reduction is not None:
            notes.append(f"{ex.reduction.description}; the state count is orbits, counterexamples are mapped "
                         f"back to concrete games and replayed")
        if minimise:
            from checks.analyses.minimise import minimise_results
            notes += minimise_results(GAME, results, prop, opts.config(max_depth=None, progress=False))
        proofs = _isolated_proofs(proving, model, results, extra, notes) if proving is not None else []
        # Every guard is isolated inside the guard process; this catches the process itself failing.
        results += isolated(guards.result, lambda e: _guards_failed(e, small_prop, bool(z3_budget))) + proofs
    finally:
        guards.cancel()
        if proving is not None:
            proving.cancel()
    warnings = extra.get("proofs", {}).pop("warnings", [])
    if scenarios is not None:
        from checks.formats.scenario import replay_matching
        # Scenarios recorded with the searched setup or with the named proposal's own (NOTE(turns)).
        kept, skipped = replay_matching(GAME, prop, scenarios, model, also=named)
        results += kept
        extra["scenarios"] = {"directory": scenarios, "replayed": len(kept), "skipped_other_setup": skipped}
        notes.append(f"{len(kept)} scenario file(s) under {scenarios} replayed; {skipped} recorded with other "
                     f"bounds, interpretation or defects skipped")
    results += _deviations(opts, named, as_printed, notes)
    run = report(opts, results, prop, len(ex.states) if ex is not None else None, time.perf_counter() - t0, model,
                 extra, notes)
    run.stderr[:0] = warnings  # the proof store's, as `rulecheck: warning: ...` lines (quick_proofs)
    return run


def _deviations(opts: Options, named, as_printed: bool, notes: list) -> list:
    """The proposal's deviations, each run as its own game (none with --as-printed), and the note saying so."""
    from checks.analyses.deviations import run_deviations
    listed = GAME.deviations_of(named)
    if not listed:
        return []
    if as_printed:
        notes.append(f"--as-printed: the {len(listed)} deviation(s) of {named.name} are left out")
        return []
    notes.append(f"{len(listed)} deviation(s) of {named.name} (the real engine's behaviours that break a printed "
                 f"rule), each run as its own game on its own bounds; --as-printed leaves them out")
    return isolated(lambda: run_deviations(GAME, listed, named, opts.config(progress=False)),
                    lambda e: [error_result(e, id=d.id, kind="deviation", engine="explicit", rules=d.ids,
                                            what=f"the run of deviation {d.id}") for d in listed])


def _explicit(model, config) -> tuple[list, Exploration | None]:
    """The explicit search and its verdicts; if the search itself fails inside the tool, every explicit
    check's verdict is `error` (and the exploration None), and the other checks still run (issue 39). A
    ModelError is the model or an option refused (for example --symmetry): exit 3, as before."""
    from model.errors import ModelError

    def failed(e):
        rows = [(p.name, p.kind, p.rules) for p in model.invariants] + [("no-deadlock", "invariant", DEADLOCK_RULES),
                                                                        (DOMAIN, "invariant", ())]
        rows += [(w.name, "witness", w.rules) for w in model.witnesses]
        return [error_result(e, id=i, kind=k, engine="explicit", rules=r, what="the explicit search")
                for i, k, r in rows], None
    return isolated(lambda: run_explicit(model, config), failed, passes=(ModelError,))


def _isolated_proofs(proving, model, results: list, extra: dict, notes: list) -> list:
    """The value of `_z3_proofs` (run by `proving`, beside the search), isolated: if the proofs fail as a
    whole (the encoding, the cache, their process), every invariant's Spacer attempt is `error`. A proof
    of an invariant the explicit search violated beyond the declared domains is not reported
    (NOTE(domain): the Z3 encoding keeps every value within its domain, so it proves a smaller system
    there)."""
    from checks.analyses.quick_z3 import proof_error

    def failed(e):
        return [proof_error(e, p) for p in model.invariants], {}, []
    proofs, summary, said = isolated(proving.result, failed)
    if summary:
        extra["proofs"] = summary
    notes += said
    violated = {r.id for r in results if r.verdict == "violated"}
    if DOMAIN in violated:
        dropped = sorted(r.id for r in proofs if r.verdict == "proved" and r.id in violated)
        proofs = [r for r in proofs if not (r.verdict == "proved" and r.id in violated)]
        if dropped:
            extra["proofs"]["proved"] = [x for x in extra["proofs"]["proved"] if x not in dropped]
            notes.append(f"Spacer's proofs of {', '.join(dropped)} are not reported: the Z3 encoding keeps every "
                         f"value within its declared domain, and the explicit search violates them beyond it")
    return proofs


def _guards_failed(exc, small_prop, agreement: bool) -> list:
    """The `error` verdicts of check's small-bounds guards when their process failed as a whole."""
    from checks.analyses.quick_z3 import guard_errors, observers
    rivals = isolated(lambda: observers(GAME.build(small_prop)), lambda e: [])
    return guard_errors(exc, rivals, agreement)


def searched(proposal, turns: int | None):
    """The proposal the search covers (`Game.searched`: `--turns`, or the game's default depth).

    NOTE(turns): check and explore search the default bounds for three turns (issue 17); every other
    command keeps the proposal's turns. Reports print the searched bounds; kept scenarios match either
    setup, so those recorded by an earlier two-turn run still replay."""
    if GAME.searched is None:
        return proposal
    shape = GAME.bound_shapes.get("turns", {})
    if turns is not None and not shape.get("min", 1) <= turns <= shape.get("max", turns):
        raise UsageProblem(f"--turns {turns}: expected {shape['min']}..{shape['max']}")
    return GAME.searched(proposal, turns)


def _z3_proofs(opts, prop, model, z3_budget, proof_cache) -> tuple[list, dict, list]:
    """The Spacer proofs that fit `z3_budget` (the agreement guard runs with the small-bounds guards): their
    results, the report's `proofs` summary and the notes they add. Isolated here, in the process that runs
    them: an encoding or cache failure is every invariant's `error`, with no summary."""
    from checks.analyses.quick_z3 import proof_error
    extra: dict = {}
    notes: list = []
    proofs = isolated(lambda: _spacer_proofs(opts, prop, z3_budget, proof_cache, extra, notes),
                      lambda e: [proof_error(e, p) for p in model.invariants])
    return proofs, extra.get("proofs", {}), notes


def _spacer_proofs(opts, prop, z3_budget, proof_cache, extra: dict, notes: list) -> list:
    """Spacer on every invariant within `z3_budget`, the shipped and cached certificates re-checked first."""
    from checks.analyses.quick_z3 import quick_proofs
    cache_dir = "default" if proof_cache is None else (None if proof_cache == "off" else Path(proof_cache))
    cache_stats: dict = {}
    proofs, attempted = quick_proofs(GAME.build(prop, unbounded=True), opts.seed, z3_budget, cache_dir, cache_stats,
                                     opts.config())
    out = proofs
    extra["proofs"] = {"rlimit": z3_budget, "attempted": attempted,
                       "proved": [r.id for r in proofs if r.verdict == "proved"],
                       "note": "invariants not listed as proved were not proved within check's budget; "
                               "run rulecheck prove for the full attempt"} | cache_stats
    if prop.source == "embedded" and cache_dir is not None and not cache_stats.get("shipped"):
        notes.append(f"the shipped proof store (checks/engines/inferred-lemmas.json.gz) has no Spacer record for this "
                     f"encoding of the embedded profile '{prop.name}', so Spacer ran from scratch; regenerate "
                     f"them with: {SEED_COMMAND.format(profile=prop.name)}")
    if cache_stats.get("timed_out"):
        notes.append(f"Spacer not attempted on {len(cache_stats['timed_out'])} invariant(s): --timeout "
                     f"{opts.timeout}s ran out first; their verdicts above are the explicit ones")
    if cache_stats.get("permissions_left_to_prove"):
        notes.append(f"Spacer not run on the {len(cache_stats['permissions_left_to_prove'])} permission(s) (check's "
                     f"budget); their verdicts above are the explicit ones; rulecheck prove proves them for games "
                     f"of any length")
    if cache_stats.get("known_unknown_skipped"):
        notes.append(f"Spacer not re-run on {len(cache_stats['known_unknown_skipped'])} invariant(s) it could "
                     f"not prove within rlimit {z3_budget:,} on this identical encoding before (proof store; "
                     f"--proof-cache off retries them); their verdicts above are the explicit ones")
    return out


def explore(opts: Options, graph: str | None = None, fold: bool = False, symmetry: bool = False,
            engine: str = "scalar", jobs: int | None = None, detail: bool = False, turns: int | None = None) -> Run:
    """Explicit state-graph exploration only; `graph` writes the explored graph (.dot or .graphml);
    `detail` (--stats) adds the states per depth and which rules fired (and which never did)."""
    if graph and not graph.endswith((".dot", ".graphml")):
        raise UsageProblem("--graph needs a .dot or .graphml file name")
    prop = searched(opts.resolve(), turns)
    model = GAME.build(prop)
    ex = make_explorer(model, opts.config(keep_edges=bool(graph), fold=fold, symmetry=symmetry, engine=engine,
                                          jobs=jobs)).run()
    st = stats(ex) | {"states_per_second": round(len(ex.states) / max(ex.seconds, 1e-9))}
    if detail:
        st |= _detail(model, ex)
    depth_cut = ex.stop_reason is not None and ex.stop_reason.startswith("depth bound")
    # A budget is never success: only a complete search, or the depth the user asked for, exits 0.
    run = Run("", 0 if ex.complete or (depth_cut and opts.max_depth is not None) else 4)
    if graph:
        from checks.formats.graph import write_graph
        def write() -> bool:
            write_graph(ex.to_graph(), graph)
            return True
        if written(run, "the graph", graph, write):
            st["graph"] = graph
    if opts.fmt == "json":
        run.stdout = json.dumps({"schema_version": 1, "tool": "rulecheck", "seed": opts.seed,
                                 "proposal": prop.to_json(), "exploration": st}, indent=2)
    else:
        run.stdout = "\n".join(f"{k}: {v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{k}: {v}"
                                for k, v in st.items())
    return run


def _detail(model, ex) -> dict:
    """--stats: states per BFS depth, and the rules that fired and never fired."""
    per_depth: dict = {}
    for d in ex.depth:
        per_depth[d] = per_depth.get(d, 0) + 1
    cov = coverage(model, ex)
    return {"states_per_depth": dict(sorted(per_depth.items())), "rules_fired": f"{cov['fired']} of {cov['rules']}",
            "never_fired": cov["never_fired"]}
