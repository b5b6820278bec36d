"""Compare two proposals: their verdicts side by side and the shortest game on which they disagree.

Both proposals are explored exhaustively on the same bounds. They disagree on a game when

- an *outcome* is reachable under one and not under the other: the material state at the end of a
  turn (`OUTCOME_FIELDS` at an `OUTCOME_STAGES` stage, declared by the model: board, spice, hands,
  alliances and token custody; not engine cursors or public-ID numbering), or
- a check's verdict differs (an invariant violated under one only, a witness reachable under one only).

The shortest distinguishing game is the BFS-shallowest state with an outcome the other proposal never
reaches; it is replayed under its own proposal and exported as a scenario (`expect: reachable` with the
outcome's values). When both searches are complete and the outcome sets and verdicts are equal, no game
within the bounds tells the proposals apart, and the report says so with the counts as evidence.

>>> from model.moritani import GAME
>>> p = GAME.small(GAME.profiles["default"])
>>> compare_proposals(p, p, GAME.build).verdict
'same'
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from checks.config import CheckConfig
from checks.engines.explicit import Exploration, Explorer
from checks.analyses.verdicts import explicit_results
from checks.results import validated
from model.domains import IntRange
from model.errors import InputError
from model.game import GameModel
from model.trace import Trace


@dataclass
class Difference:
    """One way the proposals disagree, with the shortest game showing it under `side`'s proposal."""

    kind: str            # 'outcome' or 'verdict'
    direction: str       # 'only-a' or 'only-b': which proposal can reach it / violates it
    what: str            # the outcome's differing values, or the check id
    trace: Trace | None
    values: dict = field(default_factory=dict)  # slot -> shown value at the end of the trace

    @property
    def depth(self) -> int | None:
        return self.trace.depth if self.trace is not None else None


@dataclass
class Side:
    proposal: object
    model: GameModel
    exploration: Exploration
    results: list
    slots: tuple         # the outcome slots, in schema order
    outcomes: dict       # projected outcome -> shallowest state index


@dataclass
class Comparison:
    a: Side
    b: Side
    differences: list
    seconds: float

    @property
    def complete(self) -> bool:
        return self.a.exploration.complete and self.b.exploration.complete

    @property
    def errors(self) -> list:
        """The checks of either side that failed inside the tool (their verdict `error`)."""
        return [r for r in self.a.results + self.b.results if r.verdict == "error"]

    @property
    def verdict(self) -> str:
        """'differ' (a distinguishing game), 'same' (none within the bounds), 'error' (none found, but a
        check failed inside the tool on some side: nothing is claimed for it) or 'inconclusive'."""
        if self.differences:
            return "differ"
        if self.errors:
            return "error"
        return "same" if self.complete else "inconclusive"

    @property
    def verdicts(self) -> list:
        """The comparison as verdicts for `checks.results.exit_code`: a distinguishing game is `violated`,
        none `holds`, a cut search `unknown`, and every check that failed on either side an `error`."""
        found = {"differ": "violated", "same": "holds", "error": "holds", "inconclusive": "unknown"}[self.verdict]
        return [found] + [r.verdict for r in self.errors]

    def table(self) -> list:
        """[(check id, verdict under A, verdict under B)] in report order."""
        bv = {r.id: r.verdict for r in self.b.results}
        return [(r.id, r.verdict, bv.get(r.id, "-")) for r in self.a.results]


def _side(proposal, model: GameModel, config: CheckConfig) -> Side:
    ex = Explorer(model, config).run()
    results = explicit_results(model, ex)
    oc = model.outcome
    outcomes: dict = {}
    for idx, s in enumerate(ex.states):  # BFS order: the first index seen is the shallowest
        if s[oc.stage_slot] in oc.stage_codes:
            outcomes.setdefault(tuple(s[i] for i in oc.slots), idx)
    return Side(proposal, model, ex, results, oc.slots, outcomes)


def compare_proposals(a, b, build, config: CheckConfig | None = None) -> Comparison:
    """Explore both proposals on their (equal) bounds and collect every kind of disagreement.

    `build(proposal)` gives a proposal's model (the game's builder); the models declare their
    outcomes (`GameModel.outcome`)."""
    if a.bounds != b.bounds:
        raise InputError(b.source, None, None,
                         "compare needs both proposals on the same bounds; they differ in "
                         + ", ".join(k for k, v in a.bounds.as_dict().items() if b.bounds.as_dict().get(k) != v))
    config = config or CheckConfig()
    t0 = time.perf_counter()
    sa, sb = _side(a, build(a), config), _side(b, build(b), config)
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
    return Comparison(sa, sb, diffs, time.perf_counter() - t0)


def _describe(mine: Side, other: Side, outcome: tuple) -> tuple[str, dict]:
    """The slots that separate `outcome` from the nearest outcome the other proposal reaches."""
    sch = mine.model.schema
    slots = mine.slots
    near = min(other.outcomes, key=lambda y: (sum(p != q for p, q in zip(outcome, y)), y), default=None)
    if near is None:
        return "the other proposal reaches no end of turn at all", {}
    parts, values = [], {}
    for i, p, q in zip(slots, outcome, near):
        if p != q:
            parts.append(f"{sch.slot_names[i]}={sch.show(i, p)} (nearest other: {sch.show(i, q)})")
            # A scenario file holds numbers as numbers, other values as the model shows them (its labels).
            values[sch.slot_names[i]] = p if isinstance(sch.slot_fields[i].domain, IntRange) else sch.show(i, p)
    return "; ".join(parts), values
