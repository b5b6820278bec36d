"""What every pipeline shares: the options a command was given, what it produced, and the report step.

A pipeline returns a `Run` (stdout text, exit code); the CLI prints it and exits with the code, so
nothing here touches the process. The game package is bound here, once (`GAME`): the analyses and
engines below receive the models it builds and never import it.

>>> Options().config().max_states
2000000
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from checks.config import CheckConfig
from checks.formats.proposal import resolve
from checks.formats.report import save_traces, to_json, to_text
from checks.results import EXIT, summary_verdict
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

    def config(self, **kw) -> CheckConfig:
        base = dict(max_states=self.max_states, max_depth=self.max_depth, timeout=self.timeout, seed=self.seed,
                    progress=self.progress)
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


def report(opts: Options, results: list, proposal, states, seconds: float, model, extra=None, notes=(),
           leaks=()) -> Run:
    """Save traces (--out), render text or JSON, write the CI and HTML reports, and map the verdict to an
    exit code."""
    if opts.out:
        save_traces(results, model, proposal, Path(opts.out))
    if opts.fmt == "json":
        text = to_json(results, proposal, opts.seed, states, seconds, extra)
    else:
        text = to_text(results, proposal, opts.seed, states, seconds, model, notes)
        if extra and extra.get("coverage", {}).get("never_fired"):
            text += "\nrules that never fired: " + ", ".join(extra["coverage"]["never_fired"])
    write_ci(opts, results, proposal, states, seconds, model)
    run = Run(text, EXIT[summary_verdict(results)])
    write_html(opts, run, lambda h: h.report(results, opts.command, proposal, opts.seed, states, seconds, model,
                                             notes, leaks))
    return run


def write_html(opts: Options, run: Run, render) -> None:
    """Write the --html report from `render(checks.formats.html)`, atomically. The path was checked
    before the run; if the write still fails, the verdict still reaches stdout and the exit code is 2."""
    if not opts.html:
        return
    from checks.formats import html
    try:
        html.write(opts.html, render(html))
    except OSError as err:
        run.stderr.append(f"rulecheck: cannot write the HTML report '{opts.html}': {err.strerror or err}")
        run.code = 2


def write_ci(opts: Options, results, proposal, states, seconds, model) -> None:
    if opts.junit or opts.summary:
        from checks.formats.cireport import write_reports
        write_reports(results, opts.command, proposal, opts.seed, states, seconds, model, opts.junit, opts.summary)


def stats(ex) -> dict:
    """An exploration's statistics as the reports print them."""
    out = {"states": len(ex.states), "transitions": ex.transitions, "depth": ex.max_depth,
           "complete": ex.complete, "stop_reason": ex.stop_reason, "seconds": round(ex.seconds, 3),
           "folded_states": ex.folded}
    if ex.reduction is not None:
        out["symmetry"] = ex.reduction.description
    return out
