"""`rulecheck sweep`: every combination of some interpretation switches' choices on top of a base proposal.

1. The switches (`--switch A4`, `--switch karama-placement=consumed,retry`; all by default) and the
   output directory are checked before any work (unknown switch or choice, unwritable `--out`:
   exit 2). `--scheduler` must answer before any work (else exit 2).
2. Each combination still to run is built and fingerprinted (checks/analyses/sweep.py); those with
   the same ground model are merged, and one of each group is checked with `check`'s explicit
   checks (no Z3), on the executor (checks/analyses/sweep_exec.py). A model already checked in the
   file being resumed is not checked again.
3. Every finished combination becomes one line of `--out/sweep.jsonl` at once; `--resume` skips
   the combinations the file already holds (failed ones run again), after checking every line against
   the row schema (a bad row: exit 3 at its line; a last line cut short by a kill is dropped and its
   combination runs again). A line the disk has no room for is taken back whole; the sweep goes on in
   memory, the verdict is printed and the exit code says the rows could not be written (`Run.lost`).
   Progress on stderr.
4. The summary (checks/formats/sweep_report.py): per check a "holds iff" statement over the
   switches checked against every row, the smallest violating combinations with their shortest
   counterexamples as scenario files under `--out/violations/`.

Exit code (`checks.results.exit_code` over `sweep_report.sweep_verdicts`, issue 37): 12 if any check is
violated on some combination, else 1 if a check or a combination failed inside the tool, else 4 if a
check is `unknown` on some combination (the summary names which), else 0: every check holds wherever
it exists (a check a combination's model does not have is `not-applicable` there, never unknown); 2
for usage errors; 130 interrupted (the lines written stay).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import time
from pathlib import Path

from checks.analyses.sweep import Axis, Job, check_task, combinations, combo_id, distance, fingerprint_task
from checks.analyses.sweep_exec import DaskExecutor, PoolExecutor, SchedulerUnreachable
from checks.formats import sweep_report as rep
from checks.formats.outputs import OutputError, check_dir, cut_torn_tail
from checks.formats.scenario import scenario_schema, trace_to_scenario
from checks.formats.schema import INVALID, Loc
from checks.pipelines.common import GAME, Options, Run, UsageProblem, write_html
from checks.results import exit_code
from model.errors import InputError

DEFAULT_OUT = "sweep-results"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def parse_axes(base, specs: tuple) -> tuple:
    """`--switch` values (key or catalogue ID, optionally `=choice,choice`) as Axes; all switches when none
    is given. An unknown switch or choice is a usage error listing the valid ones."""
    chosen = base.interpretation
    if not specs:
        return tuple(Axis(sw.key, sw.ids, tuple(sw.choices), chosen.choice(sw.key)) for sw in GAME.switches)
    axes, seen = [], set()
    for spec in specs:
        name, _, wanted = spec.partition("=")
        sw = GAME.switch(name.strip())
        if sw is None:
            valid = ", ".join(f"{s.key} ({'/'.join(s.ids)})" for s in GAME.switches)
            raise UsageProblem(f"--switch '{name}': no such switch; valid: {valid}")
        if sw.key in seen:
            raise UsageProblem(f"--switch '{name}': switch {sw.key} is given twice")
        seen.add(sw.key)
        picks = tuple(c.strip() for c in wanted.split(",")) if wanted else tuple(sw.choices)
        bad = [c for c in picks if c not in sw.choices]
        if bad or not picks or len(set(picks)) != len(picks):
            raise UsageProblem(f"--switch '{spec}': {', '.join(repr(c) for c in bad) or 'repeated choices'} "
                               f"not choices of {sw.key}; valid: {', '.join(sw.choices)}")
        axes.append(Axis(sw.key, sw.ids, picks, chosen.choice(sw.key)))
    return tuple(axes)


def _executor(jobs, scheduler):
    if scheduler is None:
        return PoolExecutor(jobs)
    try:
        return DaskExecutor(scheduler)
    except SchedulerUnreachable as e:
        raise UsageProblem(f"--scheduler: {e}; nothing was run") from None


@dataclasses.dataclass
class Sweep:
    """One sweep's state: the space, the rows so far, the output file."""

    base: object
    axes: tuple
    key: str
    path: Path
    budget: tuple
    rows: dict = dataclasses.field(default_factory=dict)  # index -> row
    proposals: list = dataclasses.field(default_factory=list)
    ids: list = dataclasses.field(default_factory=list)
    lost: OSError | None = None  # the first row the disk refused: no more appends, the rows stay in memory
    prove: tuple = ()  # `--prove`: prove's settings (checks/analyses/sweep.py Job.prove); () without

    def job(self, i: int) -> Job:
        return Job(i, self.proposals[i], GAME.build, self.budget, trace_to_scenario, self.prove)

    def row(self, i: int, status: str, **kw) -> dict:
        combo = dict(zip((a.key for a in self.axes), (c for _, c in combinations_at(self.axes, i))))
        row = {"sweep": self.key, "index": i, "id": self.ids[i], "combination": combo,
               "distance": distance(tuple(combo.items()), self.axes), "status": status, "error": None,
               "model": None, "same_model_as": None, "states": None, "verdicts": {}, "depths": {},
               "seconds": {}} | kw
        self.rows[i] = row
        if self.lost is None:
            try:
                rep.append_row(self.path, row)
            except OSError as err:  # a full disk: the line was taken back whole (outputs.append_line)
                self.lost = err
        return row


def combinations_at(axes: tuple, i: int) -> tuple:
    """The i-th combination in `combinations` order, without listing them all."""
    out = []
    for a in reversed(axes):
        i, r = divmod(i, len(a.choices))
        out.append((a.key, a.choices[r]))
    return tuple(reversed(out))


def _key(base, axes: tuple, budget: tuple, prove: bool = False) -> str:
    """What a resumed file must have been written with (not the proposal file's path: the same file reached
    from another directory is the same sweep; with or without proofs are two sweeps)."""
    what = {k: v for k, v in base.to_json().items() if k != "source"}
    parts = [what, [dataclasses.astuple(a) for a in axes], budget] + (["prove"] if prove else [])
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def prove_settings(proof_cache: str | None) -> tuple:
    """`Job.prove` for `sweep --prove`: `rulecheck prove`'s defaults, and its lemma store (`proof_cache`: a
    directory, "off", or None for the default one)."""
    from checks.config import LEMMA_SPACER_RLIMIT, PROVE_RLIMIT
    from checks.engines.cachedirs import chosen_dir
    cache = chosen_dir(proof_cache)
    return (("cache", None if cache is None else str(cache)), ("rlimit", PROVE_RLIMIT),
            ("spacer_rlimit", LEMMA_SPACER_RLIMIT))


def _prepare(opts: Options, specs: tuple, resume: bool, prove: tuple = ()) -> tuple:
    base = opts.resolve()
    axes = parse_axes(base, specs)
    out = Path(opts.out or DEFAULT_OUT)
    try:
        check_dir(out)
    except OutputError as e:
        raise UsageProblem(str(e)) from None
    budget = tuple(sorted({"max_states": opts.max_states, "max_depth": opts.max_depth, "timeout": opts.timeout,
                           "seed": opts.seed}.items()))
    sw = Sweep(base, axes, _key(base, axes, budget, bool(prove)), out / rep.ROWS, budget, prove=prove)
    for combo in combinations(axes):
        chosen = dict(base.interpretation.chosen) | dict(combo)
        interp = GAME.interpretation(tuple(sorted(chosen.items())))
        sw.proposals.append(dataclasses.replace(base, interpretation=interp))
        sw.ids.append(combo_id(combo, axes))
    if not resume:
        old, bad = rep.read_rows(sw.path)
        if old or bad:
            raise UsageProblem(f"{sw.path} already holds a sweep: add --resume to continue it, or choose another "
                               f"--out")
        return sw, 0, 0
    old, torn = rep.read_rows(sw.path, _row_check(sw))
    if torn:
        cut_torn_tail(sw.path)  # the next line appended starts a line of its own
    sw.rows = {r["index"]: r for r in old if r["status"] == "done"}
    return sw, len(sw.rows), torn


def _row_check(sw: Sweep):
    """`check(row, line)` for `--resume`: the row schema (sweep_report.row_schema), then that the row is the
    combination its index says and that no combination is done twice. Another sweep's row is a usage
    error (exit 2: another --out), a bad row a bad input file (exit 3 at its line)."""
    node = rep.row_schema(sw.axes, len(sw.ids), scenario_schema(GAME))
    done: dict = {}

    def check(row, line: int) -> None:
        if isinstance(row, dict) and isinstance(row.get("sweep"), str) and row["sweep"] != sw.key:
            raise UsageProblem(f"{sw.path} holds another sweep (other base, switches or budgets; line {line}); "
                               f"--resume continues only the same sweep: choose another --out")
        errors: list = []
        loc = Loc(str(sw.path), errors, line=line)
        if node.check(row, loc) is not INVALID:
            i = row["index"]
            if row["id"] != sw.ids[i] or row["combination"] != dict(combinations_at(sw.axes, i)):
                loc.error(f"row {i} is combination {sw.ids[i]!r}; found {row['id']!r}")
            elif row["status"] == "done" and row["model"] is None:
                loc.error("a done row names its model; found none")
            elif row["status"] == "done" and i in done:
                loc.error(f"combination {sw.ids[i]!r} is done already at line {done[i]}")
            elif row["status"] == "done":
                done[i] = line
        if errors:
            raise InputError.all_of(errors)
    return check


def _progress_line(what: str, done: int, total: int, failed: int, started: float) -> str:
    spent = time.perf_counter() - started
    left = spent / done * (total - done) if done else None
    eta = "" if left is None else f", about {_duration(left)} left"
    return f"sweep: {what} {done}/{total}, {failed} failed{eta}"


def _duration(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def _fingerprints(sw: Sweep, ex, todo: list, progress) -> dict:
    """Build and fingerprint every combination still to run: {model digest: [indices]}. A combination
    whose model does not build is written as failed."""
    groups: dict = {}
    started, failed = time.perf_counter(), 0
    for n, (job, res, err) in enumerate(ex.map(fingerprint_task, [sw.job(i) for i in todo]), 1):
        if err is not None:
            failed += 1
            sw.row(job.index, "failed", error=f"building the model: {err}")
        else:
            groups.setdefault(res["model"], []).append(job.index)
        if n == len(todo) or n % max(1, len(todo) // 20) == 0:
            progress(_progress_line("fingerprinted", n, len(todo), failed, started))
    return groups


def _check(sw: Sweep, ex, groups: dict, progress) -> None:
    """Check one combination per new model; write its row and its merged combinations' rows."""
    known: dict = {}
    for r in sorted(sw.rows.values(), key=lambda r: r["index"]):
        known.setdefault(r["model"], r)
    for model, members in groups.items():  # a model a resumed file already checked: no second search
        if model in known:
            for i in members:
                sw.row(i, "done", **_copied(known[model]))
    firsts = {min(ix): (m, sorted(ix)) for m, ix in groups.items() if m not in known}
    started, failed = time.perf_counter(), 0
    for n, (job, res, err) in enumerate(ex.map(check_task, [sw.job(i) for i in sorted(firsts)]), 1):
        model, members = firsts[job.index]
        if err is not None:
            failed += 1
            for i in members:
                sw.row(i, "failed", model=model, error=f"checking the model: {err}")
        else:
            proofs = {k: res[k] for k in ("proofs", "proof_engines") if k in res}
            first = sw.row(job.index, "done", model=res["model"], states=res["states"], verdicts=res["verdicts"],
                           depths=res["depths"], checks=res["checks"], counterexamples=res["counterexamples"],
                           seconds=res["seconds"], **proofs)
            for i in members[1:]:
                sw.row(i, "done", **_copied(first))
        progress(_progress_line("models checked", n, len(firsts), failed, started))


def _copied(first: dict) -> dict:
    return {"model": first["model"], "same_model_as": first.get("same_model_as") or first["id"],
            "states": first["states"], "verdicts": first["verdicts"], "depths": first["depths"],
            **{k: first[k] for k in ("proofs", "proof_engines") if k in first}}


def _meta(sw: Sweep, resumed: int, where: str, seconds: float) -> dict:
    rows = [sw.rows[i] for i in sorted(sw.rows)]
    by_model: dict = {}
    for r in rows:
        if r["model"]:
            by_model.setdefault(r["model"], []).append(r["id"])
    done = [r for r in rows if r["status"] == "done"]
    firsts = [r for r in done if not r["same_model_as"]]
    return {"switches": [{"switch": a.key, "id": a.label, "choices": list(a.choices), "base": a.base}
                         for a in sw.axes],
            "combinations": len(sw.ids), "models": len(by_model),
            "merged": [{"model": m[:16], "combinations": ids} for m, ids in by_model.items() if len(ids) > 1],
            "merged_combinations": sum(len(ids) - 1 for ids in by_model.values()),
            "done": len(done), "failed": [{"combination": r["id"], "error": r["error"]} for r in rows
                                          if r["status"] != "done"],
            "missing": len(sw.ids) - len(rows), "resumed": resumed, "where": where, "file": str(sw.path),
            "states": sum(r["states"] or 0 for r in firsts), "seconds": seconds}


def sweep(opts: Options, switches: tuple = (), jobs: int | None = None, scheduler=None, resume: bool = False,
          progress=_stderr, prove: bool = False, proof_cache: str | None = None) -> Run:
    """Every combination of the chosen switches' choices on top of the base proposal (module docstring).
    `scheduler`: a Dask scheduler address, or a cluster object (tests); None: the local process pool.
    `prove`: every invariant also proved for games of any length on every distinct model (`proof_cache` as
    for `rulecheck prove`)."""
    t0 = time.perf_counter()
    sw, resumed, bad = _prepare(opts, tuple(switches), resume, prove_settings(proof_cache) if prove else ())
    if resume:
        progress(f"sweep: resuming: {resumed} of {len(sw.ids)} combination(s) already done in {sw.path}"
                 + ("; its last line was cut short (removed: that combination runs again)" if bad else ""))
    todo = [i for i in range(len(sw.ids)) if i not in sw.rows]
    with _executor(jobs, scheduler) as ex:
        where = ex.where
        progress(f"sweep: {len(todo)} of {len(sw.ids)} combination(s) to run on {where}")
        groups = _fingerprints(sw, ex, todo, progress)
        merged = sum(len(ix) - 1 for ix in groups.values())
        shown = [ix for ix in groups.values() if len(ix) > 1][:rep.SHOWN_GROUPS]
        progress(f"sweep: {len(todo)} combination(s) build {len(groups)} distinct model(s): {merged} merged"
                 + "".join(f"\n  same model: {' = '.join(sw.ids[i] for i in sorted(ix))}" for ix in shown))
        _check(sw, ex, groups, progress)
    lost = sw.lost
    if len(sw.rows) == len(sw.ids):  # whole and in order; after a refused line, every row written at last
        try:
            rep.rewrite_sorted(sw.path, list(sw.rows.values()))
            lost = None
        except OSError as err:
            lost = lost or err
    rows = [sw.rows[i] for i in sorted(sw.rows)]
    checks = rep.summarize(rows, sw.axes)
    out = sw.path.parent
    try:
        rep.save_scenarios(out, checks, rows)
        unsaved = None
    except (OSError, ValueError) as err:  # a full disk (an OutputError is a ValueError)
        unsaved = err
    meta = _meta(sw, resumed, where, time.perf_counter() - t0)
    text = rep.to_json(checks, sw.base, opts.seed, meta) if opts.fmt == "json" \
        else rep.to_text(checks, sw.base, opts.seed, meta)
    run = Run(text, exit_code(rep.sweep_verdicts(checks, meta)))
    if lost is not None:
        run.lost("the sweep's rows (each line written is whole: --resume continues) to", sw.path, lost)
    if unsaved is not None:
        run.lost("the counterexamples under", out / rep.SCENARIO_DIR, unsaved)
    write_html(opts, run, lambda h: rep.html_page(checks, rows, sw.axes, sw.base, opts.seed, meta))
    return run
