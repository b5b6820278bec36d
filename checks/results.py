"""Verdicts that say how complete they are, and the report that carries them.

`holds` is exhaustive on the explored bounded graph; `bounded` is true only
up to `depth`; `violated` carries a replayed trace; `unknown` carries the
reason (budget, solver unknown, a value outside its declared range). Nothing
inconclusive is ever reported as `holds`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model.trace import Trace

VERDICTS = ("holds", "proved", "bounded", "violated", "unknown")
# `rulecheck mutate` (checks/analyses/mutate.py): what became of a generated mutant.
MUTANT_VERDICTS = ("killed", "survived", "equivalent", "invalid")


class InternalError(Exception):
    """A bug in the tool itself (for example a trace that does not replay)."""


def validated(model, trace: Trace, what: str) -> Trace:
    """`trace`, after replaying it through the reference semantics; InternalError if it does not
    replay (a counterexample that does not replay is a bug in the tool, never a finding).

    >>> from model.trace import Trace
    >>> class M:
    ...     init = ((0,),)
    >>> validated(M(), Trace((1,), ()), "x")
    Traceback (most recent call last):
    ...
    checks.results.InternalError: the trace for x does not replay: initial state is not an initial state of the model
    """
    problems = trace.replay(model)
    if problems:
        raise InternalError(f"the trace for {what} does not replay: {problems[0]}")
    return trace


@dataclass(kw_only=True)
class CheckResult:
    """One check's verdict; always built by keyword.

    >>> CheckResult(id="x", kind="invariant", verdict="holds", engine="explicit").to_json()["verdict"]
    'holds'
    """

    id: str
    kind: str
    verdict: str
    engine: str
    rules: tuple = ()
    states: int | None = None
    depth: int | None = None
    seconds: float = 0.0
    detail: str = ""
    trace: Trace | None = None
    trace_path: str | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        assert self.verdict in VERDICTS + ("caught", "missed") + MUTANT_VERDICTS, self.verdict

    def to_json(self) -> dict:
        out = {"id": self.id, "kind": self.kind, "verdict": self.verdict, "engine": self.engine,
               "rules": list(self.rules), "states": self.states, "depth": self.depth,
               "seconds": round(self.seconds, 3), "detail": self.detail, "trace": self.trace_path}
        # extra["model"] is the model a trace belongs to (selftest, minimisation): not report data.
        out.update({k: v for k, v in self.extra.items() if k != "model"})
        return out


def summary_verdict(results: list[CheckResult]) -> str:
    """violated beats inconclusive beats holds (a surviving mutant counts as a violation)."""
    if any(r.verdict in ("violated", "missed", "survived") for r in results):
        return "violated"
    if any(r.verdict in ("unknown",) for r in results):
        return "inconclusive"
    return "holds"


EXIT = {"holds": 0, "violated": 12, "inconclusive": 4}
