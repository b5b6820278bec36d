"""The compare report: text, the contract's JSON, and each distinguishing game as a scenario file.

>>> from model.moritani import GAME
>>> from checks.analyses.compare import compare_proposals
>>> p = GAME.small(GAME.profiles["default"])
>>> to_text(compare_proposals(p, p, GAME.build), seed=0).splitlines()[-1]
'no game within the bounds tells A and B apart: same outcomes and same verdicts'
"""
from __future__ import annotations

from checks.analyses.compare import Comparison
from checks.formats.outputs import inside, slug
from checks.formats.scenario import trace_to_scenario, write_scenario


def save(c: Comparison, out) -> dict:
    """Each distinguishing game as a scenario file under `out/compare/`; {id(difference): path}."""
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
        # Proposal names are the user's text: slugged, and the path confined to `out` (checks/formats/outputs.py).
        stem = slug(f"{slug(side.proposal.name, 36)}-not-{slug(other.proposal.name, 36)}-{d.kind}")
        paths[id(d)] = str(write_scenario(inside(out, "compare", f"{stem}.scenario.yaml"), doc))
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
