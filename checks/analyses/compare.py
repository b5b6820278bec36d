"""Compare two proposals: their verdicts side by side and the shortest game on which they disagree.

Both proposals are explored exhaustively on the same bounds. They disagree on a game when

- an *outcome* is reachable under one and not under the other: the material state at the end of a
  turn (`OUTCOME_FIELDS` at an `OUTCOME_STAGES` stage, declared by the model: board, spice, hands,
  alliances and token custody; not engine cursors or public-ID numbering), or
- a check's verdict differs (an invariant violated under one only, a witness reachable under one only), or
- the *steps* differ: the two models, run in lockstep on equal action labels
  (checks/engines/lockstep.py), reach a point where one offers a step the other refuses, or where
  the same steps end a turn with different outcomes.

The shortest distinguishing game of each kind is replayed through the reference semantics
(`model.evaluate`) before it is shown: an outcome's under its own proposal, a step difference under
both (the game runs under one; under the other, the same steps run and the last is refused, or the
outcome at the end differs). "No game within the bounds tells them apart" is said only when both
searches are complete, the outcome sets and verdicts are equal and the lockstep search proves the
two `identical` (the same states and labelled transitions) or `bisimilar` (the same steps offered
after every game, the same end-of-turn outcome after every game); a budget that runs out first is
`inconclusive`, never `same`.

Outcomes are compared by slot name and shown value, so two models with different state layouts
(a switch that adds a slot) are still compared on what both show.

>>> from model.moritani import GAME
>>> p = GAME.small(GAME.profiles["default"])
>>> c = compare_proposals(p, p, GAME.build)
>>> c.verdict, c.backing
('same', 'identical')
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from model.digest import model_digest
from checks.analyses.verdicts import explicit_results
from checks.config import CheckConfig
from checks.engines.explicit import ExplicitExploration, Exploration, Explorer
from checks.engines.lockstep import Lockstep, lockstep
from checks.results import InternalError, error_result, isolated, validated
from model.domains import IntRange
from model.errors import InputError, ModelError
from model.evaluate import apply, enabled
from model.declarations import Outcome, Proposal
from model.game import GameModel
from model.trace import Step, Trace


@dataclass
class Difference:
    """One way the proposals disagree, with the shortest game showing it.

    `kind`: 'outcome', 'verdict' or 'steps'. `direction`: 'only-a' or 'only-b' (which proposal can
    reach it, violates it, or takes the game's last step), or 'both' (a step game that runs under
    both and ends a turn differently). `trace` is the game under the proposal `direction` names (A's
    for 'both'); for 'steps', `other` is the same game replayed under the other proposal (up to the
    step it refuses: `refused_at`, 1-based, or None when every step runs) and `offers` what the other
    proposal offers instead of that step (labels)."""

    kind: str
    direction: str
    what: str            # the outcome's differing values, the check id, or the step difference in words
    trace: Trace | None
    values: dict = field(default_factory=dict)  # slot -> shown value at the end of the trace
    other: Trace | None = None
    refused_at: int | None = None
    offers: tuple = ()

    @property
    def depth(self) -> int | None:
        return self.trace.depth if self.trace is not None else None


@dataclass
class Side:
    proposal: Proposal
    model: GameModel
    exploration: Exploration
    results: list
    outcomes: dict       # outcome (see `OutcomeView`) -> shallowest state index
    view: "OutcomeView"
    error: str | None = None  # the side's search failed inside the tool: every check `error`, nothing explored


@dataclass
class Comparison:
    a: Side
    b: Side
    differences: list
    seconds: float
    lockstep: Lockstep | None = None  # None: not run (a difference of outcome or verdict came first)

    @property
    def complete(self) -> bool:
        return self.a.exploration.complete and self.b.exploration.complete

    @property
    def errors(self) -> list:
        """The checks of either side that failed inside the tool (their verdict `error`)."""
        return [r for r in self.a.results + self.b.results if r.verdict == "error"]

    @property
    def verdict(self) -> str:
        """'differ' (a distinguishing game), 'same' (none within the bounds, backed by `backing`), 'error'
        (none found, but a check failed inside the tool on some side: nothing is claimed for it) or
        'inconclusive' (a search stopped before it could tell)."""
        if self.differences:
            return "differ"
        if self.errors or self.lockstep_failed:
            return "error"
        return "same" if self.complete and self.backing is not None else "inconclusive"

    @property
    def lockstep_failed(self) -> bool:
        """The lockstep search raised inside the tool (its `reason` says what): nothing is claimed."""
        return self.lockstep is not None and self.lockstep.verdict == "error"

    @property
    def backing(self) -> str | None:
        """What backs a 'same': 'identical' (the same states and labelled transitions) or 'bisimilar'
        (the same steps and end-of-turn outcomes after every game); None when nothing does."""
        return self.lockstep.verdict if self.lockstep is not None and self.lockstep.same else None

    @property
    def reason(self) -> str | None:
        """Why the comparison is inconclusive or an error (None otherwise)."""
        if self.verdict == "error":
            failed = [f"{w} could not be searched ({s.error})" for w, s in (("A", self.a), ("B", self.b)) if s.error]
            lock = [self.lockstep.reason or ""] if self.lockstep is not None and self.lockstep_failed else []
            return "; ".join(failed + lock) or f"{len(self.errors)} check(s) failed inside the tool"
        if self.verdict != "inconclusive":
            return None
        cut = [f"{w}: {s.exploration.stop_reason}" for w, s in (("A", self.a), ("B", self.b))
               if not s.exploration.complete]
        if cut:
            return "a search stopped before it was complete (" + "; ".join(cut) + ")"
        return self.lockstep.reason if self.lockstep is not None else "the lockstep search did not run"

    @property
    def verdicts(self) -> list:
        """The comparison as verdicts for `checks.results.exit_code`: a distinguishing game is `violated`,
        none `holds`, a cut search `unknown`, and every check that failed on either side an `error`."""
        found = {"differ": "violated", "same": "holds", "error": "holds", "inconclusive": "unknown"}[self.verdict]
        return [found] + [r.verdict for r in self.errors] + ["error"] * self.lockstep_failed

    def table(self) -> list:
        """[(check id, verdict under A, verdict under B)] in report order."""
        bv = {r.id: r.verdict for r in self.b.results}
        return [(r.id, r.verdict, bv.get(r.id, "-")) for r in self.a.results]


@dataclass(frozen=True)
class OutcomeView:
    """What is observed of a state of one model when two are compared: its end-of-turn outcome as the shown
    values of the outcome slots named `names` (both models' names, sorted; None for a name this model has
    not), or None for a state that is not at the end of a turn. Names and shown values, not positions and
    codes, so two models with different layouts compare on what both show; the shown strings come from one
    table per slot, so the outcomes of a large search share them.

    >>> from model.moritani import GAME
    >>> m = GAME.build(GAME.small(GAME.profiles["default"]))
    >>> view, _ = outcome_views(m, m)
    >>> view(m.init[0]) is None, view.names[:2]
    (True, ('aftermath', 'ally[Atreides]'))
    """

    names: tuple
    slots: tuple         # per name: this model's slot index, or None
    tables: tuple        # per name: {code: shown value}, or None
    stage_slot: int
    stage_codes: frozenset
    domains: tuple       # per name: the slot's domain, or None

    def __call__(self, s):
        if s[self.stage_slot] not in self.stage_codes:
            return None
        return tuple(None if i is None else t.get(s[i]) or d.show(s[i])
                     for i, t, d in zip(self.slots, self.tables, self.domains))

    def named(self, outcome) -> dict:
        """{slot name: shown value} of an outcome, leaving out the names this model has not."""
        return {n: v for n, v, i in zip(self.names, outcome, self.slots) if i is not None}


def _outcome(m: GameModel) -> Outcome:
    """What an outcome is in `m` (`GameModel.outcome`): compare reads it of every model it is given."""
    if m.outcome is None:
        raise ModelError(f"model '{m.name}' declares no outcome: its proposals cannot be compared")
    return m.outcome


def outcome_views(a: GameModel, b: GameModel) -> tuple:
    """The `OutcomeView` of each of two models, over the union of their outcome slots' names."""
    names = tuple(sorted({m.schema.slot_names[i] for m in (a, b) for i in _outcome(m).slots}))

    def view(m: GameModel) -> OutcomeView:
        sch, oc = m.schema, _outcome(m)
        mine = {sch.slot_names[i]: i for i in oc.slots}
        slots = tuple(mine.get(n) for n in names)
        doms = tuple(None if i is None else sch.slot_fields[i].domain for i in slots)
        tables = tuple(None if d is None else {v: d.show(v) for v in d.values} for d in doms)
        return OutcomeView(names, slots, tables, oc.stage_slot, oc.stage_codes, doms)
    return view(a), view(b)


def _side(proposal, model: GameModel, config: CheckConfig, view: OutcomeView) -> Side:
    """One proposal explored, its checks' verdicts and its end-of-turn outcomes. A search that fails inside
    the tool costs this side alone (issue 37): its checks are `error`, it is not complete, and the other side
    is still reported (`_failed_side`)."""
    ex = isolated(lambda: Explorer(model, config).run(), lambda exc: exc)
    if isinstance(ex, BaseException):
        return _failed_side(proposal, model, view, ex)
    results = explicit_results(model, ex)
    outcomes: dict = {}
    for idx, s in enumerate(ex.states):  # BFS order: the first index seen is the shallowest
        o = view(s)
        if o is not None:
            outcomes.setdefault(o, idx)
    return Side(proposal, model, ex, results, outcomes, view)


def _failed_side(proposal, model: GameModel, view: OutcomeView, exc: BaseException) -> Side:
    """The side whose search raised `exc`: no state, not complete, each check the search would have decided
    (the same ids, kinds and rules as `explicit_results` gives) with the verdict `error`."""
    why = f"{type(exc).__name__}: {exc}"
    empty = ExplicitExploration(model, [], [], [], [], False, f"the search failed inside the tool ({why})", 0.0)
    results = [error_result(exc, id=r.id, kind=r.kind, engine="explicit", rules=tuple(r.rules),
                            what=f"the search of {proposal.name}") for r in explicit_results(model, empty)]
    return Side(proposal, model, empty, results, {}, view, error=why)


def compare_proposals(a, b, build, config: CheckConfig | None = None) -> Comparison:
    """Explore both proposals on their (equal) bounds and collect every kind of disagreement.

    `build(proposal)` gives a proposal's model (the game's builder); the models declare their
    outcomes (`GameModel.outcome`)."""
    if a.bounds != b.bounds:
        raise InputError(b.source, None, None,
                         "compare needs both proposals on the same bounds; they differ in "
                         + ", ".join(k for k, v in a.bounds.as_dict().items() if b.bounds.as_dict().get(k) != v)
                         + ". To compare the two interpretations on one set of bounds, add --bounds-of A "
                           "(or --bounds-of B)")
    config = config or CheckConfig()
    t0 = time.perf_counter()
    ma, mb = build(a), build(b)
    va, vb = outcome_views(ma, mb)
    sa = _side(a, ma, config, va)
    if model_digest(ma) == model_digest(mb):
        # The same model (equal digests of its schema, initial states, actions, monitors and checks: what the
        # explicit search reads), so the same labelled transition system: explored once, identical by construction.
        sb = Side(b, mb, sa.exploration, sa.results, sa.outcomes, vb)
        ex = sa.exploration
        lock: Lockstep | None = Lockstep("identical" if ex.complete else "unknown", len(ex.states), ex.transitions, 0.0,
                        reason=None if ex.complete else f"the search stopped: {ex.stop_reason}", same_model=True)
        return Comparison(sa, sb, [], time.perf_counter() - t0, lock)
    sb = _side(b, mb, config, vb)
    diffs = []
    for mine, other, direction in ((sa, sb, "only-a"), (sb, sa, "only-b")):
        # An outcome the other side never reached is a difference only if the other search was complete:
        # a search cut by a budget may reach it beyond the cut.
        extra = [o for o in mine.outcomes if o not in other.outcomes] if other.exploration.complete else []
        if extra:
            o = min(extra, key=lambda o: (mine.exploration.depth[mine.outcomes[o]], mine.outcomes[o]))
            trace = validated(mine.model, mine.exploration.trace_to(mine.outcomes[o]), "compare")
            text, values = _describe(mine, other, o)
            diffs.append(Difference("outcome", direction, text, trace, values))
    rb = {r.id: r for r in sb.results}
    for ra in sa.results:
        r2 = rb.get(ra.id)
        # Only conclusive verdicts disagree: an `unknown` (a budget ran out) may become either, and an `error`
        # (the check failed inside the tool) is no verdict at all.
        if r2 is None or ra.verdict == r2.verdict or {"unknown", "error"} & {ra.verdict, r2.verdict}:
            continue
        for r, direction in ((ra, "only-a"), (r2, "only-b")):
            bad = r.kind in ("invariant", "step") and r.verdict == "violated"
            good = r.kind == "witness" and r.verdict == "holds"
            if (bad or good) and r.trace is not None:
                diffs.append(Difference("verdict", direction, f"{r.id} {r.verdict}", r.trace))
    for d in diffs:
        if d.trace is not None:
            validated((sa if d.direction == "only-a" else sb).model, d.trace, "a distinguishing game")
    lock = None
    if not diffs:
        # Equal outcome sets and verdicts are not equal behaviour: run the two in lockstep. A step game it
        # finds is a difference even when an exploration was cut (it is replayed under both below).
        failed = [f"{w}: {x.error}" for w, x in (("A", sa), ("B", sb)) if x.error]
        lock = Lockstep("unknown", 0, 0, 0.0, reason=f"a search failed inside the tool ({'; '.join(failed)})") \
            if failed else isolated(lambda: lockstep(sa.model, sb.model, sa.view, sb.view, config),
                                    lambda exc: Lockstep("error", 0, 0, 0.0, reason=f"the lockstep search failed "
                                                         f"inside the tool ({type(exc).__name__}: {exc})"))
        if lock.verdict == "differ":
            diffs.append(step_difference(sa, sb, lock))
    return Comparison(sa, sb, diffs, time.perf_counter() - t0, lock)


def replay_labels(model: GameModel, labels) -> tuple[Trace, int | None]:
    """Run `labels` from the model's initial state through the reference semantics (`model.evaluate`):
    (the trace of the steps that ran, the 1-based number of the first step the model refuses or does not
    have, or None when every step ran)."""
    s0 = s = model.init[0]
    steps: list[Step] = []
    for n, label in enumerate(labels, 1):
        try:
            act = model.action(label)
        except ModelError:
            return Trace(s0, tuple(steps)), n
        if not enabled(act, s, model.schema):
            return Trace(s0, tuple(steps)), n
        s = apply(act, s, model.schema)
        steps.append(Step(label, s))
    return Trace(s0, tuple(steps)), None


def step_difference(sa: Side, sb: Side, lock: Lockstep) -> Difference:
    """The lockstep search's distinguishing game as a Difference, after replaying it under both models
    through the reference semantics; InternalError if the replay does not show what the search found."""
    assert lock.labels is not None  # a 'differ' verdict carries its distinguishing game
    game = list(lock.labels)
    if lock.offered is not None:
        only_a, only_b = lock.offered
        direction, label = ("only-a", only_a[0]) if only_a else ("only-b", only_b[0])
        mine, other = (sa, sb) if direction == "only-a" else (sb, sa)
        trace, stop = replay_labels(mine.model, game + [label])
        theirs, refused = replay_labels(other.model, game + [label])
        if stop is not None or refused != len(game) + 1:
            raise InternalError(f"the distinguishing game does not replay: under {mine.proposal.name} step "
                                f"{stop} is refused; under {other.proposal.name} step {refused} (expected the "
                                f"last, {len(game) + 1})")
        offers = only_b if direction == "only-a" else only_a
        after = f"after the same {len(game)} step{'' if len(game) == 1 else 's'}, " if game else "as the first step, "
        what = f"{after}'{label}' is possible under {mine.proposal.name} only"
        return Difference("steps", direction, what, validated(mine.model, trace, "a distinguishing game"),
                          other=validated(other.model, theirs, "a distinguishing game"), refused_at=len(game) + 1,
                          offers=offers)
    ta, stop_a = replay_labels(sa.model, game)
    tb, stop_b = replay_labels(sb.model, game)
    oa, ob = sa.view(ta.states[-1]), sb.view(tb.states[-1])
    if stop_a is not None or stop_b is not None or oa == ob:
        raise InternalError("the distinguishing game does not replay: the same steps do not end with different "
                            "observations under the reference semantics")
    what = (f"after the same {len(game)} step{'' if len(game) == 1 else 's'}, "
            f"{_observed(sa, sb, oa, ob)}")
    return Difference("steps", "both", what, validated(sa.model, ta, "a distinguishing game"),
                      scenario_values(sa.view, oa), other=validated(sb.model, tb, "a distinguishing game"))


def _observed(sa: Side, sb: Side, oa, ob) -> str:
    na, nb = sa.proposal.name, sb.proposal.name
    if oa is None or ob is None:
        ends, goes_on = (na, nb) if ob is None else (nb, na)
        return f"the turn ends under {ends} and not under {goes_on}"
    parts = [f"{k}={x if x is not None else '-'} under {na}, {y if y is not None else '-'} under {nb}"
             for k, x, y in zip(sa.view.names, oa, ob) if x != y]
    return "the turn ends under both with different outcomes: " + "; ".join(parts)


def scenario_values(view: OutcomeView, outcome, names=None) -> dict:
    """An outcome's values (those named `names`, default all) as a scenario file holds them: numbers as
    numbers, other values as the model shows them (its labels)."""
    if outcome is None:
        return {}
    return {n: int(v) if isinstance(d, IntRange) else v
            for n, v, d in zip(view.names, outcome, view.domains) if d is not None and (names is None or n in names)}


def _describe(mine: Side, other: Side, outcome: tuple) -> tuple[str, dict]:
    """The slots that separate `outcome` from the nearest outcome the other proposal reaches."""
    states, slots = other.exploration.states, _outcome(other.model).slots
    # Ties go to the lowest values in the model's slot order: the same nearest outcome whatever the names sort to.
    near = min(other.outcomes, key=lambda y: (sum(p != q for p, q in zip(outcome, y)),
                                              tuple(states[other.outcomes[y]][i] for i in slots)), default=None)
    if near is None:
        return "the other proposal reaches no end of turn at all", {}
    differ = [(n, p, q) for n, p, q in zip(mine.view.names, outcome, near) if p != q]
    parts = [f"{n}={'no such slot' if p is None else p} (nearest other: {'no such slot' if q is None else q})"
             for n, p, q in differ]
    return "; ".join(parts), scenario_values(mine.view, outcome, {n for n, _, _ in differ})
