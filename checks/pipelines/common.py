"""What every pipeline shares: the options a command was given, what it produced, and the report step.

A pipeline returns a `Run` (stdout text, exit code); the CLI prints it and exits with the code, so
nothing here touches the process. The game package is bound here, once (`GAME`): the analyses and
engines below receive the models it builds and never import it.

>>> Options().config().max_states
2000000
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from checks.config import CheckConfig
from checks.formats.proposal import resolve
from checks.formats.report import save_traces, to_json, to_text
from checks.results import exit_code, reconcile
from model.moritani import GAME  # NOTE(game-binding): the one place a game package is chosen


@dataclass(frozen=True)
class Options:
    """The options most commands share (`rulecheck <command> --help`)."""

    proposal: str | None = None
    fmt: str = "text"
    out: str | None = None
    seed: int = 0
    max_states: int = 2_000_000
    max_depth: int | None = None
    timeout: float | None = None
    progress: bool = False
    junit: str | None = None
    summary: str | None = None
    command: str = ""
    html: str | None = None
    started: float = field(default_factory=time.perf_counter)  # --timeout counts from here, for every engine

    def config(self, **kw) -> CheckConfig:
        base = dict(max_states=self.max_states, max_depth=self.max_depth, timeout=self.timeout, seed=self.seed,
                    progress=self.progress, started=self.started)
        return CheckConfig(**(base | kw))

    def resolve(self):
        return resolve(GAME, self.proposal)


class UsageProblem(Exception):
    """A usage error found once the proposal is known (an unknown invariant or observer): exit 2."""


@dataclass
class Run:
    """What a command produced: the text for stdout and the exit code (product contract)."""

    stdout: str
    code: int
    stderr: list = field(default_factory=list)

    def lost(self, what: str, path, err: Exception) -> None:
        """A file that could not be written after the verdict: the verdict is still printed, the reason goes
        to stderr, and a run that would exit 0 exits 2 (a violation's 12 or an inconclusive 4 stands)."""
        reason = getattr(err, "strerror", None) or str(err)
        self.stderr.append(f"rulecheck: cannot write {what} '{path}': {reason}; the verdict above is not affected")
        if self.code == 0:
            self.code = 2


def written(run: Run, what: str, path, write, *args, **kw):
    """`write(*args, **kw)`, or None after recording on `run` that the file could not be written."""
    try:
        return write(*args, **kw)
    except (OSError, ValueError) as err:
        run.lost(what, path, err)
        return None


def report(opts: Options, results: list, proposal, states, seconds: float, model, extra=None, notes=(),
           leaks=()) -> Run:
    """Save traces (--out), render text or JSON, write the CI and HTML reports, and map the verdict to an
    exit code (`exit_code`: 12 violated, else 1 error, else 4 unknown, else 0). A file that cannot be written
    never costs the verdict (`Run.lost`). No check is shown both proved and violated (`reconcile`,
    NOTE(contradiction) in checks/results.py)."""
    results, inconsistent = reconcile(results, model)
    run = Run("", exit_code(r.verdict for r in results))
    run.stderr += [f"rulecheck: {line}" for line in inconsistent]
    if opts.out:
        written(run, "the traces under", opts.out, save_traces, results, model, proposal, Path(opts.out))
    if opts.fmt == "json":
        run.stdout = to_json(results, proposal, opts.seed, states, seconds, extra)
    else:
        run.stdout = to_text(results, proposal, opts.seed, states, seconds, model, notes)
        if extra and extra.get("coverage", {}).get("never_fired"):
            run.stdout += "\nrules that never fired: " + ", ".join(extra["coverage"]["never_fired"])
    write_ci(opts, run, results, proposal, states, seconds, model)
    write_html(opts, run, lambda h: h.report(results, opts.command, proposal, opts.seed, states, seconds, model,
                                             notes, leaks))
    return run


def write_html(opts: Options, run: Run, render) -> None:
    """Write the --html report from `render(checks.formats.html)`, atomically. The path was checked
    before the run; if the write still fails, the verdict still reaches stdout (`Run.lost`)."""
    if not opts.html:
        return
    from checks.formats import html
    written(run, "the HTML report", opts.html, lambda: html.write(opts.html, render(html)))


def write_ci(opts: Options, run: Run, results, proposal, states, seconds, model) -> None:
    """--junit and --summary (checks/formats/cireport.py), atomically; a failure is `Run.lost`."""
    if opts.junit or opts.summary:
        from checks.formats.cireport import write_reports
        written(run, "the CI report", opts.junit or opts.summary, write_reports, results, opts.command, proposal,
                opts.seed, states, seconds, model, opts.junit, opts.summary)


def stats(ex) -> dict:
    """An exploration's statistics as the reports print them."""
    out = {"states": len(ex.states), "transitions": ex.transitions, "depth": ex.max_depth,
           "complete": ex.complete, "stop_reason": ex.stop_reason, "seconds": round(ex.seconds, 3),
           "folded_states": ex.folded}
    if ex.reduction is not None:
        out["symmetry"] = ex.reduction.description
    return out
