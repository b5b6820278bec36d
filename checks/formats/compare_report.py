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
from checks.formats.proposal import NAME_LENGTH
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
        if len(name) > NAME_LENGTH:  # the scenario schema's limit: a longer name made the file unreadable
            name = name[:NAME_LENGTH - 3] + "..."
        doc = trace_to_scenario(side.model, d.trace, side.proposal, name, expect)
        paths[id(d)] = str(write_scenario(inside(out, "compare", f"{game_stem(side, other, d)}.scenario.yaml"), doc))
    return paths


def game_stem(side, other, d) -> str:
    """The file name (without `.scenario.yaml`) of a distinguishing game under `out/compare/`."""
    # Proposal names are the user's text: slugged, and the path confined to `out` (checks/formats/outputs.py).
    return slug(f"{slug(side.proposal.name, 36)}-not-{slug(other.proposal.name, 36)}-{d.kind}")


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


def _changed_rules(c: Comparison) -> list:
    """Rules one side has and the other has not, or that differ between them (by name)."""
    ra = {r.name: r for r in c.a.model.rules}
    rb = {r.name: r for r in c.b.model.rules}
    return sorted(n for n in set(ra) | set(rb) if n not in ra or n not in rb or ra[n] != rb[n])


def _why_same(c: Comparison) -> str:
    """Why no game within the bounds tells the two apart (a one-switch comparison)."""
    if not c.complete:
        return "inconclusive: a search stopped before it was complete"
    ea, eb = c.a.exploration, c.b.exploration
    parts = []
    if len(ea.states) == len(eb.states) and ea.transitions == eb.transitions:
        parts.append(f"both choices reach the same {len(ea.states):,} states by {ea.transitions:,} transitions")
    only = {n for n in {r.name for r in c.a.model.rules} ^ {r.name for r in c.b.model.rules}}
    idle = sorted(n for n in only if n not in ea.fired | eb.fired)
    if idle:
        parts.append(f"the rules only one choice has never fire within the bounds ({', '.join(idle)})")
    changed = [n for n in _changed_rules(c) if n not in only]
    if changed and not parts:
        parts.append(f"the choices change how {len(changed)} rule(s) fire ({', '.join(changed[:4])}"
                     f"{', ...' if len(changed) > 4 else ''}; {len(ea.states):,} against {len(eb.states):,} states), "
                     f"but every end-of-turn outcome and every verdict is the same under both: the order they "
                     f"change decides no result within the bounds")
    elif changed:
        parts.append(f"{len(changed)} rule(s) whose guard or effects the choice changes never behave differently "
                     f"in a reachable state ({', '.join(changed[:4])}{', ...' if len(changed) > 4 else ''})")
    return "no game within the bounds tells them apart" + (": " + "; ".join(parts) if parts else "")


def switch_text(sw, c: Comparison) -> str:
    """One switch's comparison (compare --per-switch), in game words."""
    head = f"\nswitch {sw.key} ({', '.join(sw.ids)}): A={c.a.proposal.interpretation.choice(sw.key)} " \
           f"B={c.b.proposal.interpretation.choice(sw.key)}"
    if not c.differences:
        return f"{head}\n  {_why_same(c)}"
    d = min(c.differences, key=lambda d: (d.depth or 0))
    who = "A" if d.direction == "only-a" else "B"
    lines = [head, f"  distinguishing game ({d.depth} steps), {who} only: {d.what}"]
    if d.trace is not None:
        model = (c.a if d.direction == "only-a" else c.b).model
        lines += ["  " + x for x in d.trace.narrative(model).splitlines()]
    return "\n".join(lines)


def switch_json(sw, c: Comparison) -> dict:
    d = min(c.differences, key=lambda d: (d.depth or 0)) if c.differences else None
    return {"switch": sw.key, "ids": list(sw.ids), "a": c.a.proposal.interpretation.choice(sw.key),
            "b": c.b.proposal.interpretation.choice(sw.key), "verdict": c.verdict,
            "game": None if d is None else {"kind": d.kind, "direction": d.direction, "what": d.what,
                                            "depth": d.depth,
                                            "actions": [s.action for s in d.trace.steps] if d.trace else []},
            "why_same": None if d is not None else _why_same(c)}
