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

>>> # r = compare_proposals(PROFILES["default"], load_proposal("scenarios/proposals/extortion-first.yaml"))
>>> # r.differences[0].direction
>>> # 'only-b'
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from checks.config import CheckConfig
from checks.explore import Exploration, Explorer
from checks.results import CheckResult, InternalError
from checks.run import explicit_results, validated
from model.errors import InputError
from model.game import GameModel
from model.moritani.build import build_model
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
    def verdict(self) -> str:
        """'differ' (a distinguishing game), 'same' (none within the bounds) or 'inconclusive'."""
        if self.differences:
            return "differ"
        return "same" if self.complete else "inconclusive"

    def table(self) -> list:
        """[(check id, verdict under A, verdict under B)] in report order."""
        bv = {r.id: r.verdict for r in self.b.results}
        return [(r.id, r.verdict, bv.get(r.id, "-")) for r in self.a.results]


def _side(proposal, config: CheckConfig) -> Side:
    model = build_model(proposal.bounds, proposal.interpretation, proposal.defects)
    ex = Explorer(model, config).run()
    results = explicit_results(model, ex)
    fields, stages = model.info["outcome"]
    sch = model.schema
    slots = tuple(i for i, n in enumerate(sch.slot_names) if n.split("[")[0] in fields)
    stage_slot = sch.slot("stage")
    stage_codes = {model.info["ctx"].st(s) for s in stages}
    outcomes: dict = {}
    for idx, s in enumerate(ex.states):  # BFS order: the first index seen is the shallowest
        if s[stage_slot] in stage_codes:
            outcomes.setdefault(tuple(s[i] for i in slots), idx)
    return Side(proposal, model, ex, results, slots, outcomes)


def compare_proposals(a, b, config: CheckConfig | None = None) -> Comparison:
    """Explore both proposals on their (equal) bounds and collect every kind of disagreement."""
    if a.bounds != b.bounds:
        raise InputError(b.source, None, None,
                         "compare needs both proposals on the same bounds; they differ in "
                         + ", ".join(k for k, v in a.bounds.as_dict().items() if b.bounds.as_dict().get(k) != v))
    config = config or CheckConfig()
    t0 = time.perf_counter()
    sa, sb = _side(a, config), _side(b, config)
    diffs = []
    for mine, other, direction in ((sa, sb, "only-a"), (sb, sa, "only-b")):
        extra = [o for o in mine.outcomes if o not in other.outcomes]
        if extra:
            o = min(extra, key=lambda o: (mine.exploration.depth[mine.outcomes[o]], mine.outcomes[o]))
            trace = validated(mine.model, mine.exploration.trace_to(mine.outcomes[o]), "compare")
            text, values = _describe(mine, other, o)
            diffs.append(Difference("outcome", direction, text, trace, values))
    rb = {r.id: r for r in sb.results}
    for ra in sa.results:
        r2 = rb.get(ra.id)
        if r2 is None or ra.verdict == r2.verdict:
            continue
        for r, direction in ((ra, "only-a"), (r2, "only-b")):
            bad = r.kind == "invariant" and r.verdict == "violated"
            good = r.kind == "witness" and r.verdict == "holds"
            if (bad or good) and r.trace is not None:
                diffs.append(Difference("verdict", direction, f"{r.id} {r.verdict}", r.trace))
    if any(d.trace is not None and d.trace.replay((sa if d.direction == "only-a" else sb).model) for d in diffs):
        raise InternalError("a distinguishing game does not replay under its own proposal")
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
            values[sch.slot_names[i]] = sch.show(i, p)
    return "; ".join(parts), values


def save(c: Comparison, out) -> dict:
    """Each distinguishing game as a scenario file under `out/compare/`; {id(difference): path}."""
    from pathlib import Path

    from checks.scenario import trace_to_scenario, write_scenario
    paths = {}
    for d in c.differences:
        side = c.a if d.direction == "only-a" else c.b
        other = c.b if d.direction == "only-a" else c.a
        if d.trace is None:
            continue
        expect = {"reachable": True} if d.kind == "outcome" else (
            {"violates": d.what.split()[0]} if d.what.endswith("violated") else {"reachable": True})
        if d.values:
            expect["values"] = dict(d.values)
        name = (f"reachable under {side.proposal.name}, never under {other.proposal.name}: {d.what}")
        doc = trace_to_scenario(side.model, d.trace, side.proposal, name, expect)
        stem = f"{side.proposal.name}-not-{other.proposal.name}-{d.kind}".replace(" ", "-")
        paths[id(d)] = str(write_scenario(Path(out) / "compare" / f"{stem}.scenario.yaml", doc))
    return paths


def to_json(c: Comparison, seed: int, paths: dict | None = None) -> dict:
    """The compare report (docs/checking.md#compare)."""
    paths = paths or {}
    return {
        "schema_version": 1, "tool": "rulecheck", "seed": seed,
        "proposals": {"a": c.a.proposal.to_json(), "b": c.b.proposal.to_json()},
        "table": [{"id": i, "a": va, "b": vb, "same": va == vb} for i, va, vb in c.table()],
        "differences": [{"kind": d.kind, "direction": d.direction, "what": d.what, "depth": d.depth,
                         "actions": [s.action for s in d.trace.steps] if d.trace else [],
                         "values": d.values, "trace": paths.get(id(d))} for d in c.differences],
        "summary": {"verdict": c.verdict, "states": {"a": len(c.a.exploration.states),
                                                      "b": len(c.b.exploration.states)},
                    "outcomes": {"a": len(c.a.outcomes), "b": len(c.b.outcomes)},
                    "seconds": round(c.seconds, 2)},
    }


def to_text(c: Comparison, seed: int) -> str:
    na, nb = c.a.proposal.name, c.b.proposal.name
    w = max(len(i) for i, _, _ in c.table()) if c.table() else 10
    lines = [f"compare A={na} B={nb} (seed {seed})", "",
             f"{'check':{w}}  {'A':9} {'B':9}"]
    for i, va, vb in c.table():
        lines.append(f"{i:{w}}  {va:9} {vb:9}" + ("" if va == vb else "  <- differs"))
    lines.append("")
    ea, eb = c.a.exploration, c.b.exploration
    lines.append(f"A: {len(ea.states):,} states, {len(c.a.outcomes):,} end-of-turn outcomes; "
                 f"B: {len(eb.states):,} states, {len(c.b.outcomes):,} end-of-turn outcomes ({c.seconds:.1f}s)")
    if not c.differences:
        lines.append("no game within the bounds tells A and B apart: same outcomes and same verdicts"
                     if c.complete else "inconclusive: a search stopped before it was complete")
    for d in c.differences:
        who = na if d.direction == "only-a" else nb
        other = nb if d.direction == "only-a" else na
        head = (f"an outcome reachable under {who} and never under {other}" if d.kind == "outcome"
                else f"under {who} only: {d.what}")
        lines += ["", f"{head} ({d.depth} steps):"]
        if d.kind == "outcome":
            lines.append(f"  differs in: {d.what}")
        if d.trace is not None:
            model = (c.a if d.direction == "only-a" else c.b).model
            lines.append(d.trace.narrative(model))
    return "\n".join(lines)
