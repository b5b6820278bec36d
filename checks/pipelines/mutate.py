"""`rulecheck mutate`: generated mutants of the proposal's rules, each checked; the mutation score.

The report's `summary.verdict` is `violated` if a mutant survived, `error` if none survived and one's
run failed inside the tool, `inconclusive` if one is unknown (JUnit agrees: a survivor is a failure);
the exit code compares the score with `--min-score`.

Exit code (docs/mutation.md), by `checks.results.exit_code` like every command: the score s = killed /
(killed + survived) against `--min-score` is one verdict: `holds` if s >= `--min-score` however the
unknown and `error` mutants turn out, `violated` if s < `--min-score` however they turn out, `unknown`
otherwise; each `error` mutant (and each check of the original that ended in `error`) adds an
`error`. So 12 if the score is below, else 1 if a mutant's run failed, else 4 if undecided, else 0
(4 also when the original's own search does not complete). The default `--min-score 0` only reports.

>>> mutate(Options(proposal="default", max_states=10)).code  # the original's search must complete
4
"""
from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from checks.analyses.mutants import OPERATORS, generate, sample
from checks.analyses.mutate import BUDGET_FACTOR, OriginalIncomplete, Setup, build_mutant, reference, run_mutants, \
    tally
from checks.formats import mutation_report as rep
from checks.pipelines.common import GAME, Options, Run
from checks.results import exit_code, summary_verdict

DEFAULT_MAX_MUTANTS = 200  # fits the 10-minute budget on two cores for the default profile (docs/mutation.md)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def mutate(opts: Options, operators: tuple = (), max_mutants: int | None = DEFAULT_MAX_MUTANTS,
           jobs: int | None = None, min_score: float = 0.0, engine: str = "vector", progress=_stderr) -> Run:
    """Generate, sample and classify mutants; report the score and the survivors."""
    prop = opts.resolve()
    t0 = time.perf_counter()
    config = opts.config(progress=False, engine=engine)
    model, small_prop = GAME.build(prop), GAME.small(prop)
    small = GAME.build(small_prop)
    everything = generate(model, tuple(operators) or OPERATORS)
    chosen = sample(everything, max_mutants or None, opts.seed)
    try:
        ref = reference(model, small, config, {m.rule for m in chosen})
    except OriginalIncomplete as e:
        return Run(f"rulecheck mutate: {e}; nothing is claimed "
                   f"(raise --max-states, or drop --max-depth or --timeout)", 4)
    setup = Setup(functools.partial(GAME.build, prop), functools.partial(GAME.build, small_prop), config)
    results = run_mutants(setup, ref, chosen, jobs, progress, models=(model, small))
    counts = tally(results, tuple(op for op in OPERATORS if not operators or op in operators))
    score = score_verdict(counts, min_score)
    original_errors = sorted(c for c, v in ref.verdicts.items() if v == "error")
    code = exit_code([score] + [r.verdict for r in results if r.verdict == "error"] + ["error"] * len(original_errors))
    generated = {op: sum(m.operator == op for m in everything) for op in counts["operators"]}
    meta = {"states": ref.states, "budget": BUDGET_FACTOR * ref.states, "generated": generated,
            "max_mutants": max_mutants or None, "min_score": min_score, "seconds": time.perf_counter() - t0,
            "verdict": summary_verdict(results), "original_errors": original_errors,
            "meets_min_score": {"holds": True, "violated": False, "unknown": None}[score]}
    if opts.out:
        def model_of(r):
            m = next(x for x in chosen if x.id == r.id)
            return build_mutant(small if r.trace_on == "small bounds" else model, m)
        rep.write_traces(Path(opts.out), results, model_of)
    text = rep.to_json(results, counts, prop, opts.seed, meta)
    if opts.out:
        (Path(opts.out) / "mutation.json").write_text(text + "\n", encoding="utf-8")
    if opts.fmt != "json":
        text = rep.to_text(results, counts, prop, opts.seed, meta)
    _ci(opts, results, counts, prop, meta)
    return Run(text, code)


def score_verdict(counts: dict, min_score: float) -> str:
    """The score against `--min-score` as one verdict (module docstring): `holds`, `violated` or `unknown`,
    from the score's range over the unknown and `error` mutants.

    >>> score_verdict({"score": 0.8, "score_range": None}, 0.9)
    'violated'
    >>> score_verdict({"score": 0.95, "score_range": [0.85, 0.96]}, 0.9)
    'unknown'
    """
    if counts["score"] is None:
        return "holds" if min_score <= 0 else "unknown"
    lo, hi = counts["score_range"] or (counts["score"], counts["score"])
    if lo >= min_score:
        return "holds"
    return "violated" if hi < min_score else "unknown"


def _ci(opts: Options, results, counts, prop, meta) -> None:
    if opts.junit:
        from checks.formats.cireport import write_reports
        write_reports(results, "mutate", prop, opts.seed, meta["states"], meta["seconds"], None, opts.junit, None)
    if opts.summary:
        from model.errors import InputError
        try:
            with open(opts.summary, "a", encoding="utf-8") as fh:
                fh.write(rep.summary_markdown(results, counts, prop, opts.seed, meta))
        except OSError as e:
            raise InputError(opts.summary, None, None, f"cannot write the CI report ({e.strerror})") from None
