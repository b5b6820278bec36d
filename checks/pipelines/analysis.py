"""`rulecheck ambiguities`, `rulecheck selftest` and `rulecheck compare`.

>>> ambiguities(Options(max_states=10)).code  # a search cut by its budget is inconclusive, never holds
4
"""
from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from checks.formats.report import error_lines, save_traces, to_json
from checks.pipelines.common import GAME, Options, Run, UsageProblem, report, write_ci, write_html, written
from checks.results import DefectResult, exit_code


def ambiguities(opts: Options) -> Run:
    """Order-sensitivity of the reactions the printed rules leave unordered (A1, A2, A5, A6)."""
    from checks.analyses.ambiguity import analyse
    prop = opts.resolve()
    t0 = time.perf_counter()
    model = GAME.open_orders(prop)
    results = analyse(model, prop.interpretation, opts.config())
    return report(opts, results, prop, results[0].states if results else None, time.perf_counter() - t0, model)


def selftest(opts: Options, only: tuple = (), engine: str = "explicit", minimise: bool = False) -> Run:
    """Run the checker against the game's catalogue of seeded defects; each must be caught."""
    from checks.analyses.selftest import defect_proposal, run_selftest
    valid = [d.id for d in GAME.defects]
    for d in only:
        if d not in valid:
            raise UsageProblem(f"unknown seeded defect '{d}'; valid: {', '.join(sorted(valid))}")
    prop = opts.resolve()
    t0 = time.perf_counter()
    results = run_selftest(GAME, prop, opts.config(), tuple(only), engine)
    caught = sum(r.verdict == "caught" for r in results)
    notes = []
    if minimise:
        from checks.analyses.minimise import minimise_results
        notes = minimise_results(GAME, results, dataclasses.replace(prop, defects=()),
                                 opts.config(max_depth=None, progress=False))
    for r in results:
        if r.trace is not None and r.model is None:  # a minimised trace brings its own model
            r.model = GAME.build(defect_proposal(GAME, GAME.defect(r.id), prop))
    secs = time.perf_counter() - t0
    # A defect not caught because a budget ran out says nothing about the checker: inconclusive; one whose
    # run failed inside the tool is neither caught nor missed (`error`, exit 1 unless one is missed).
    run = Run("", exit_code(r.verdict for r in results))
    if opts.out:
        for r in results:
            if r.trace is not None:
                written(run, "the traces under", opts.out, save_traces, [r], r.model, prop,
                        Path(opts.out))
    write_ci(opts, run, results, prop, None, secs, None)
    if opts.fmt == "json":
        doc = json.loads(to_json(results, prop, opts.seed, None, secs))
        doc["summary"].update({"caught": caught, "total": len(results),
                               "error": sum(r.verdict == "error" for r in results)})
        run.stdout = json.dumps(doc, indent=2)
    else:
        run.stdout = _selftest_text(results, notes, caught, secs)
    # Each caught defect's trace is drawn with its own model (r.model, never in the JSON report).
    write_html(opts, run, lambda h: h.report(results, "selftest", prop, opts.seed, None, secs, None, notes))
    return run


def _selftest_text(results, notes, caught: int, secs: float) -> str:
    lines = []
    for r in results:
        states = f"{r.states:>8,} states" if r.states is not None else ""
        lines.append(f"{r.verdict:<7} {r.id:<34} -> {(r.caught_by if isinstance(r, DefectResult) else None) or '-':<20} "
                     f"depth {r.depth if r.depth is not None else '-':>3}  {states}")
        if r.minimised:
            lines.append(f"        minimised: {r.minimised['note']}")
    lines += [f"note: {n}" for n in notes]
    failed = [r for r in results if r.verdict == "error"]
    for r in failed:
        lines += [""] + error_lines(r)
    lines.append(f"caught {caught}/{len(results)} seeded defects ({secs:.1f}s)"
                 + (f"; {len(failed)} ended in an internal error: neither caught nor missed" if failed else ""))
    return "\n".join(lines)


def compare(opts: Options, a_name: str, b_name: str, per_switch: bool = False, bounds_of: str | None = None) -> Run:
    """Two proposals side by side, and the shortest game on which they disagree; with `per_switch`, A
    against A with each switch on which they differ set as in B, one at a time. `bounds_of` ('A' or
    'B'): both interpretations on that proposal's bounds.

    Exit (`exit_code` of `Comparison.verdicts`): 0 no game within the bounds tells them apart (backed by
    identical labelled transition systems or bisimilarity); 12 a distinguishing game was found; 1 none was
    found but a check failed inside the tool; 4 a search stopped early, nothing is claimed."""
    from checks.analyses.compare import compare_proposals
    from checks.formats.compare_report import save, switch_json, switch_text, to_json as compare_json, \
        to_text as compare_text
    a, b = Options(proposal=a_name).resolve(), Options(proposal=b_name).resolve()
    if bounds_of is not None:
        a, b = on_bounds(a, b, bounds_of)
    cfg = opts.config(max_depth=None, progress=False)
    c = compare_proposals(a, b, GAME.build, cfg)
    switches = [(sw, compare_proposals(a, _with_choice(a, sw.key, b.interpretation.choice(sw.key)), GAME.build,
                                       cfg)) for sw in _differing(a, b)] if per_switch else []
    run = Run("", exit_code(c.verdicts))
    paths = (written(run, "the distinguishing games under", opts.out, save, c, opts.out) or {}) if opts.out else {}
    if opts.fmt == "json":
        doc = compare_json(c, opts.seed, paths) | ({"bounds_of": bounds_of.upper()} if bounds_of else {})
        run.stdout = json.dumps(doc | ({"per_switch": [switch_json(sw, s) for sw, s in switches]} if per_switch else {}),
                                indent=2)
    else:
        note = [f"both on the bounds of {bounds_of.upper()} (--bounds-of)"] if bounds_of else []
        run.stdout = "\n".join(note + [compare_text(c, opts.seed)] + [switch_text(sw, s) for sw, s in switches]
                               + [f"wrote {p}" for p in paths.values()])
    write_html(opts, run, lambda h: h.comparison(c, opts.seed, paths, (a_name, b_name), switches))
    return run


def on_bounds(a, b, which: str) -> tuple:
    """(A, B) with both on the bounds of `which` ('A' or 'B'): the other proposal keeps its interpretation
    and seeded defects and takes those bounds (its name says so)."""
    src, dst = (a, b) if which.upper() == "A" else (b, a)
    if dst.bounds == src.bounds:
        return a, b
    moved = dataclasses.replace(dst, name=f"{dst.name} on {src.name}'s bounds", bounds=src.bounds,
                                given_bounds=frozenset(getattr(src, "given_bounds", ())))
    return (a, moved) if which.upper() == "A" else (moved, b)


def _differing(a, b) -> list:
    """The switches on which two proposals choose differently, in the game's order."""
    return [sw for sw in GAME.switches if a.interpretation.choice(sw.key) != b.interpretation.choice(sw.key)]


def _with_choice(p, key: str, choice: str):
    """Proposal p with one switch set to `choice` (named after the change)."""
    chosen = dict(p.interpretation.chosen) | {key: choice}
    return dataclasses.replace(p, name=f"{p.name} with {key}: {choice}",
                               interpretation=GAME.interpretation(tuple(sorted(chosen.items()))))
