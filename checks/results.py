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


def reconcile(results: list[CheckResult], model=None) -> tuple[list[CheckResult], list[str]]:
    """(the results with no check both `proved` and `violated`, one loud message per contradiction).

    NOTE(contradiction): `proved` says no reachable state of any game breaks the check; `violated`
    with a trace shows one that does. Both for one check (the same id and observer) can only be a bug
    in the tool (for example a stored certificate that should have been refused: issue 37), so a
    report never shows both. A `violated` backed by a trace (that replays through the reference
    semantics on `model`, when given) wins: every `proved` of that check is discarded and the
    violation's detail says so. Without such a trace nothing is claimed: the check becomes one
    `unknown`. Each case gives a message for stderr (docs/checking.md, "Contradicting verdicts").

    >>> from model.trace import Trace
    >>> v = CheckResult(id="c", kind="invariant", verdict="violated", engine="explicit", trace=Trace((0,), ()))
    >>> p = CheckResult(id="c", kind="invariant", verdict="proved", engine="spacer")
    >>> kept, said = reconcile([v, p])
    >>> [r.verdict for r in kept], said[0].startswith("INTERNAL INCONSISTENCY: c")
    (['violated'], True)
    >>> [r.verdict for r in reconcile([CheckResult(id="c", kind="invariant", verdict="violated", engine="bmc"), p])[0]]
    ['unknown']
    """
    groups: dict = {}
    for r in results:
        groups.setdefault((r.id, str(r.extra.get("observer"))), []).append(r)
    drop, add, said = set(), {}, []
    for (cid, _), rs in groups.items():
        proved = [r for r in rs if r.verdict == "proved"]
        violated = [r for r in rs if r.verdict == "violated"]
        if not (proved and violated):
            continue
        claims = ", ".join(f"{r.engine} says {r.verdict}" for r in proved + violated)
        backed = [r for r in violated if r.trace is not None and (model is None or not r.trace.replay(model))]
        if backed:
            win = backed[0]
            drop |= {id(r) for r in proved}
            win.detail += (f" [INTERNAL INCONSISTENCY: {', '.join(r.engine for r in proved)} also claimed "
                           f"'proved'; discarded, the replayed trace wins; a bug in rulecheck]")
            win.extra["inconsistency"] = claims
            said.append(f"INTERNAL INCONSISTENCY: {cid}: {claims}; the {win.engine} violation's trace replays, "
                        f"so it stands and 'proved' is discarded. This is a bug in rulecheck: please report it "
                        f"with this output")
        else:
            drop |= {id(r) for r in proved + violated}
            first = rs[0]
            add[id(proved[0])] = CheckResult(
                id=cid, kind=first.kind, rules=first.rules, verdict="unknown", engine="+".join(
                    sorted({r.engine for r in proved + violated})), extra={"inconsistency": claims} | (
                    {"observer": first.extra["observer"]} if "observer" in first.extra else {}),
                detail=f"INTERNAL INCONSISTENCY ({claims}, no replayed trace): nothing is claimed; a bug in rulecheck")
            said.append(f"INTERNAL INCONSISTENCY: {cid}: {claims}, and no violation has a trace that replays; "
                        f"the check is reported unknown. This is a bug in rulecheck: please report it with "
                        f"this output")
    kept = [add.get(id(r), r) for r in results if id(r) not in drop or id(r) in add]
    return kept, said
