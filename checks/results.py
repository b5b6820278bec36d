"""Verdicts that say how complete they are, the report that carries them, and the exit code.

`holds` is exhaustive on the explored bounded graph; `bounded` is true only
up to `depth`; `violated` carries a replayed trace; `unknown` carries the
reason (budget, solver unknown); `error` is a check that failed inside the tool
(its message, and the game it was working on when there is one): every other
check's verdict is still reported (`isolated`). Nothing inconclusive is ever
reported as `holds`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, overload

from checks.interrupt import INTERRUPTS, Interrupted
from model.errors import InputError
from model.trace import Trace


class Verdict(enum.StrEnum):
    """Every verdict a report may hold. A `str`: `Verdict.HOLDS == "holds"`, and JSON writes the string.

    >>> Verdict.ERROR == "error", f"{Verdict.NOT_APPLICABLE}"
    (True, 'not-applicable')
    """

    HOLDS = "holds"
    PROVED = "proved"
    BOUNDED = "bounded"
    VIOLATED = "violated"
    UNKNOWN = "unknown"
    ERROR = "error"                    # the check failed inside the tool (issue 39)
    NOT_APPLICABLE = "not-applicable"  # the check does not exist there (a sweep's combination without it)
    CAUGHT = "caught"                  # selftest: the seeded defect fired its target
    MISSED = "missed"                  # selftest: a complete search did not catch it
    KILLED = "killed"                  # mutate (checks/analyses/mutate.py)
    SURVIVED = "survived"
    EQUIVALENT = "equivalent"
    INVALID = "invalid"


VERDICTS = ("holds", "proved", "bounded", "violated", "unknown", "error")
# `rulecheck mutate` (checks/analyses/mutate.py): what became of a generated mutant.
MUTANT_VERDICTS = ("killed", "survived", "equivalent", "invalid")

# How each verdict counts towards the summary (`summary_of`): a finding, a failure of the tool, nothing
# claimed, or fine. A surviving mutant and a missed defect are findings; a mutant or defect whose run
# ended in `error` is neither killed nor survived, neither caught nor missed: a failure of the tool.
FINDINGS = frozenset({Verdict.VIOLATED, Verdict.MISSED, Verdict.SURVIVED})
FAILURES = frozenset({Verdict.ERROR})
UNDECIDED = frozenset({Verdict.UNKNOWN})
FINE = frozenset(Verdict) - FINDINGS - FAILURES - UNDECIDED


class InternalError(Exception):
    """A bug in the tool itself (for example a trace that does not replay). `game`: the game (a replayed
    Trace) the check was working on when it failed, when there is one; the report shows it."""

    game: Trace | None = None


def validated(model, trace: Trace, what: str, check: str | None = None) -> Trace:
    """`trace`, after replaying it through the reference semantics; InternalError if it does not
    replay (a counterexample that does not replay is a bug in the tool, never a finding). When the
    check (`check`, else `what`) is a permission, its last state must also show the refusal: the
    condition true and no action of the choice enabled, by the reference interpreter.

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
    name = what if check is None else check
    perm = next((p for p in getattr(model, "properties", ()) if p.name == name and p.kind == "permission"), None)
    if perm is not None:
        from model.permissions import refusals
        # NOTE(permissions): the last state must show the refusal by the reference interpreter too.
        if not refusals(model, perm, trace.states[-1]):
            raise InternalError(f"the trace for {what} replays, but in its last state the reference semantics "
                                f"enables an action of the choice wherever the condition holds")
    return trace


T = TypeVar("T")


class Entry(Generic[T]):
    """A typed entry of a result's report payload (`CheckResult.extra`, written to the JSON report in the order
    it was set): `r.observer` reads `extra["observer"]` (None when absent), `r.observer = x` sets it, `del
    r.observer` removes it. The payload stays one ordered dict because the report's key order is part of its
    contract; code reads it only through these (tests/test_layering.py)."""

    def __init__(self, key: str, doc: str = ""):
        self.key, self.__doc__ = key, doc

    @overload
    def __get__(self, obj: None, owner: Any = None) -> "Entry[T]": ...
    @overload
    def __get__(self, obj: object, owner: Any = None) -> T | None: ...

    def __get__(self, obj, owner=None):
        return self if obj is None else obj.extra.get(self.key)

    def __set__(self, obj, value: T | None) -> None:
        obj.extra[self.key] = value

    def __delete__(self, obj) -> None:
        obj.extra.pop(self.key, None)


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

    # Entries of `extra` the tool itself reads (others are report data only).
    model = Entry[Any]("model", "the model a trace belongs to when it is not the report's (selftest, --minimise); "
                       "never written to JSON")
    observer = Entry[str]("observer", "noninterference: the rival whose view is checked")
    leak = Entry[Any]("leak", "noninterference: the pair of games behind a violation (taken off before reporting)")
    minimised = Entry[dict]("minimised", "--minimise: the smaller setup and its note")
    message = Entry[str]("message", "error: the rest of the failure's message")
    lemmas = Entry[list]("lemmas", "prove: the names of the lemmas a verdict used")
    cls = Entry[str]("class", "ambiguities: commutes, differs or ... (the order-sensitivity class)")
    orders = Entry[dict]("orders", "ambiguities: the labels of each order from the pending state")
    classes = Entry[dict]("classes", "ambiguities: how many pending states fall in each class")
    pending_states = Entry[int]("pending_states", "ambiguities: the states where both reactions are pending")
    switch = Entry[str]("switch", "ambiguities: the switch that settles the pair")
    settled_by = Entry[str]("settled_by", "ambiguities: the choice that settles it (None: unordered)")

    def __post_init__(self):
        self.verdict = Verdict(self.verdict).value  # a plain string, as reports have always carried it

    def to_json(self) -> dict:
        out = {"id": self.id, "kind": self.kind, "verdict": self.verdict, "engine": self.engine,
               "rules": list(self.rules), "states": self.states, "depth": self.depth,
               "seconds": round(self.seconds, 3), "detail": self.detail, "trace": self.trace_path}
        # extra["model"] is the model a trace belongs to (selftest, minimisation): not report data.
        out.update({k: v for k, v in self.extra.items() if k != "model"})
        return out


@dataclass(kw_only=True)
class DefectResult(CheckResult):
    """A seeded defect's run (`selftest`: caught or missed, and by which check) or an engine's deviation
    built from one (`engines`: violated, with the engine's record).

    >>> DefectResult(id="d", kind="defect", verdict="caught", engine="explicit", extra={"caught_by": "x"}).caught_by
    'x'
    """

    target = Entry[str]("target", "selftest, deviations: the check the seeded defect is written against")
    caught_by = Entry[str]("caught_by", "selftest, deviations: the check that caught it (None: missed)")
    title = Entry[str]("title", "deviations: the engine behaviour's title")
    deviating_engine = Entry[str]("engine", "deviations: the engine whose behaviour it is (the report's `engine`)")
    source = Entry[str]("source", "deviations: where the engine's behaviour is recorded")
    rule_text = Entry[str]("rule_text", "deviations: the printed rule it breaks")
    doc = Entry[str]("doc", "deviations: what the engine does")
    where = Entry[list]("where", "deviations: the engine code locations")


@dataclass(kw_only=True)
class MutantResult(CheckResult):
    """A generated mutant's run (`mutate`): killed (by which checks, on which bounds), survived, equivalent,
    invalid, unknown or error."""

    operator = Entry[str]("operator", "mutate: the mutation operator")
    rule = Entry[str]("rule", "mutate: the mutated rule")
    change = Entry[str]("change", "mutate: what the mutation changes, in words")
    killed_by = Entry[list]("killed_by", "mutate: the checks whose verdict the mutant changes")
    trace_on = Entry[str]("trace_on", "mutate: the bounds the killing trace is on")
    traceback = Entry[str]("traceback", "mutate: a worker's traceback when the mutant is `error`")


def summary_of(verdicts) -> str:
    """The summary verdict of a run from its checks' verdicts: `violated` if any check found something,
    else `error` if any check failed inside the tool, else `inconclusive` if any is `unknown`, else
    `holds` (`not-applicable`, `bounded`, `caught`, `killed`, ... are fine). A verdict this module does not
    know is a bug: ValueError, never a silent pass.

    >>> summary_of(["holds", "error", "violated"]), summary_of(["proved", "error", "unknown"]), summary_of([])
    ('violated', 'error', 'holds')
    """
    kinds = set()
    for v in verdicts:
        try:
            kinds.add(Verdict(v))
        except ValueError:
            raise ValueError(f"unknown verdict {v!r}") from None
    if kinds & FINDINGS:
        return "violated"
    if kinds & FAILURES:
        return "error"
    if kinds & UNDECIDED:
        return "inconclusive"
    return "holds"


def summary_verdict(results: Sequence[CheckResult]) -> str:
    """`summary_of` the results' verdicts (a surviving mutant counts as a violation)."""
    return summary_of(r.verdict for r in results)


EXIT = {"holds": 0, "violated": 12, "error": 1, "inconclusive": 4}


def exit_code(verdicts) -> int:
    """THE exit code of every report command, from its verdicts (the product contract; issues 37 and 39):
    12 when any check is violated (a missed defect, a surviving mutant), else 1 when any check ended in
    `error`, else 4 when any is `unknown`, else 0. Commands whose summary is not a list of checks map it to
    verdicts first (compare: differ is `violated`; mutate: the score against --min-score; sweep: every
    combination's verdicts).

    >>> exit_code(["holds", "not-applicable", "bounded"]), exit_code(["unknown", "error"]), exit_code(["error", "violated"])
    (0, 1, 12)
    """
    return EXIT[summary_of(verdicts)]


def error_result(exc: BaseException, *, id: str, kind: str, engine: str, what: str, rules: tuple = (),
                 **extra) -> CheckResult:
    """The verdict `error` of one check whose work raised `exc`: its message, and the game it was working
    on when the exception carries one (`InternalError.game`), as the result's trace.

    >>> r = error_result(ZeroDivisionError("division by zero"), id="x", kind="invariant", engine="explicit",
    ...                  what="the explicit search")
    >>> r.verdict, r.detail
    ('error', 'internal error in the explicit search: ZeroDivisionError: division by zero')
    """
    text = str(exc) if isinstance(exc, InternalError) else f"{type(exc).__name__}: {exc}"
    first, _, rest = text.partition("\n")
    game = getattr(exc, "game", None)
    return CheckResult(id=id, kind=kind, verdict=Verdict.ERROR, engine=engine, rules=tuple(rules),
                       depth=game.depth if game is not None else None, trace=game,
                       detail=f"internal error in {what}: {first}",
                       extra={"error": type(exc).__name__} | ({"message": rest} if rest else {}) | extra)


def isolated(work, failed, passes: tuple = ()):
    """`work()`, or `failed(exc)` when it raises: one check's failure never takes another's verdict with it
    (issue 39). Never caught: an interruption (SIGINT, SIGTERM: any failure once a signal arrived is that
    signal, NOTE(signals) in checks/interrupt.py), a bad input file (InputError: exit 3), and `passes`
    (for example ModelError where it is the user's refusal to report).

    >>> isolated(lambda: [1], lambda e: [type(e).__name__]), isolated(lambda: 1 // 0, lambda e: [type(e).__name__])
    ([1], ['ZeroDivisionError'])
    """
    try:
        return work()
    except (Interrupted, InputError) + tuple(passes):
        raise
    except Exception as exc:  # noqa: BLE001 - the point: reported as this check's `error`, the rest goes on
        if INTERRUPTS.signum is not None:
            raise
        return failed(exc)


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
