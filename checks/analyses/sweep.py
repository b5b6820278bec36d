"""`rulecheck sweep`: the space of switch combinations, the model fingerprint that merges them, the tasks.

A sweep takes a base proposal and some of its interpretation switches (`Axis`: the switch and the
choices to try) and checks every combination of their choices on top of the base. Two combinations
that build the same ground model (a switch that changes no rule on these bounds, or two readings
that coincide there) are one model: `model_digest` hashes what the explicit search and the
verdicts read (schema, initial states, every ground action with its guard and effects, monitors
bound in, the properties and the terminal condition), so merged combinations share one run.

With `prove` settings in the job (`rulecheck sweep --prove`), `check_task` also proves every invariant
for games of any length on the combination's unbounded-turn model (checks/analyses/prove.py, the same
call as `rulecheck prove`: stored lemmas re-proved, else transfer from the nearest stored entry), and
the fingerprint covers that model too: two combinations merge only when both their bounded and their
unbounded models are the same.

Both tasks (`fingerprint_task`, `check_task`) take one plain-data `Job` and return plain data, so
the same function runs on the local process pool and on a Dask worker (checks/analyses/sweep_exec.py);
the game's builder and the scenario writer travel in the job as module-level functions.

>>> axes = (Axis("a", ("A1",), ("x", "y"), "x"), Axis("b", ("b",), ("p", "q", "r"), "p"))
>>> [combo_id(c, axes) for c in combinations(axes)][:4]
['A1=x,b=p', 'A1=x,b=q', 'A1=x,b=r', 'A1=y,b=p']
>>> distance((("a", "y"), ("b", "p")), axes)
1
"""
from __future__ import annotations

import hashlib
import itertools
import time
from dataclasses import dataclass
from typing import Callable

from checks.analyses.verdicts import run_explicit
from checks.config import PROVE_RLIMIT, CheckConfig
from model.digest import model_digest


@dataclass(frozen=True)
class Axis:
    """One swept switch: its key, catalogue IDs, the choices tried, and the base proposal's choice."""

    key: str
    ids: tuple
    choices: tuple
    base: str

    @property
    def label(self) -> str:
        """The switch's first A# ID (how designers name it), else its key."""
        return next((i for i in self.ids if i.startswith("A")), self.key)


def combinations(axes: tuple) -> list:
    """Every combination, as ((key, choice), ...) in axis order; the first axis varies slowest."""
    return [tuple(zip((a.key for a in axes), cs)) for cs in itertools.product(*(a.choices for a in axes))]


def combo_id(combo: tuple, axes: tuple) -> str:
    labels = {a.key: a.label for a in axes}
    return ",".join(f"{labels[k]}={c}" for k, c in combo)


def distance(combo: tuple, axes: tuple) -> int:
    """How many switches the combination sets away from the base proposal's choice."""
    base = {a.key: a.base for a in axes}
    return sum(c != base[k] for k, c in combo)


@dataclass(frozen=True)
class Job:
    """One task: build `proposal` with `build`, then fingerprint it or check it under `budget`
    (CheckConfig keyword arguments; the timeout is per combination). `scenario(model, trace, proposal,
    name, expect, cites)` turns a counterexample into a scenario document (plain data). `prove`: `prove`'s
    settings as (key, value) pairs (`rlimit`, `spacer_rlimit`, `cache`: the lemma store's directory or
    None), or () for no proofs."""

    index: int
    proposal: object
    build: Callable
    budget: tuple = ()
    scenario: Callable | None = None
    prove: tuple = ()


def fingerprint_task(job: Job) -> dict:
    t0 = time.perf_counter()
    digest = model_digest(job.build(job.proposal))
    if job.prove:  # a switch may differ only after the bounded turns: both models decide the merge
        digest = hashlib.sha256((digest + model_digest(job.build(job.proposal, unbounded=True))).encode()).hexdigest()
    return {"index": job.index, "model": digest, "seconds": time.perf_counter() - t0}


def prove_task(job: Job, bounded, timeout: float | None) -> dict:
    """`rulecheck prove` on the combination: {"proofs": {invariant: verdict}, "proof_engines": {...}}.
    `bounded`: the combination's bounded model (lemma candidates are mined from it, as `prove` does)."""
    from checks.analyses.prove import prove_proposal
    settings = dict(job.prove)
    model = job.build(job.proposal, unbounded=True)
    results = prove_proposal(job.proposal, model, [p.name for p in model.invariants], bounded,
                             settings.get("cache") or None, engine="auto", depth=12,
                             seed=dict(job.budget).get("seed", 0), rlimit=settings.get("rlimit", PROVE_RLIMIT),
                             timeout=timeout, lemma_rlimit=settings["spacer_rlimit"])
    return {"proofs": {r.id: str(r.verdict) for r in results}, "proof_engines": {r.id: r.engine for r in results}}


def check_task(job: Job) -> dict:
    """Build the model and run `rulecheck check`'s explicit checks (no Z3): each check's verdict and
    depth, and for each violated check with a trace its shortest counterexample as a scenario."""
    t0 = time.perf_counter()
    model = job.build(job.proposal)
    built = time.perf_counter()
    config = CheckConfig(**dict(job.budget), started=built)
    results, ex = run_explicit(model, config)
    proofs: dict = {}
    checked = time.perf_counter()
    if job.prove:
        proofs = prove_task(job, model, config.left())
    counterexamples = {}
    for r in results:
        if r.verdict == "violated" and r.trace is not None and job.scenario is not None:
            counterexamples[r.id] = job.scenario(model, r.trace, job.proposal, f"{r.id} ({r.kind})",
                                                 {"violates": r.id}, tuple(r.rules))
    return {"index": job.index, "model": model_digest(model), "states": len(ex.states),
            "complete": ex.complete, "stop_reason": ex.stop_reason,
            "verdicts": {r.id: r.verdict for r in results},
            "checks": {r.id: {"kind": r.kind, "rules": list(r.rules)} for r in results},
            "depths": {r.id: r.depth for r in results if r.depth is not None},
            "counterexamples": counterexamples, **proofs,
            "seconds": {"build": round(built - t0, 3), "check": round(checked - built, 3),
                        **({"prove": round(time.perf_counter() - checked, 3)} if job.prove else {})}}
