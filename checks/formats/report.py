"""Render verdicts as a text table (humans) or the contract's JSON object (CI)."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from checks.formats.outputs import inside, slug
from checks.formats.scenario import trace_to_scenario, write_scenario
from checks.results import CheckResult, DefectResult, summary_verdict

VERSION = "0.1.0"


def to_json(results: list[CheckResult], proposal, seed: int, states: int | None, seconds: float,
            extra: dict | None = None) -> str:
    doc = {
        "schema_version": 1, "tool": "rulecheck", "version": VERSION, "seed": seed,
        "proposal": proposal.to_json(),
        "checks": [r.to_json() for r in results],
        "summary": {"verdict": summary_verdict(results), "states": states, "seconds": round(seconds, 3)},
    }
    if extra:
        doc.update(extra)
    return json.dumps(doc, indent=2, sort_keys=False)


def to_text(results: list[CheckResult], proposal, seed: int, states: int | None, seconds: float,
            model=None, notes: Sequence[str] = ()) -> str:
    lines = [f"rulecheck {VERSION} | proposal: {proposal.name} ({proposal.source}) | seed {seed}"]
    lines += [f"note: {n}" for n in notes]
    w = max((len(r.id) for r in results), default=10)
    lines.append(f"{'check':<{w}}  {'kind':<9}  {'verdict':<8}  {'engine':<8}  {'depth':>5}  detail")
    for r in results:
        depth = "" if r.depth is None else str(r.depth)
        lines.append(f"{r.id:<{w}}  {r.kind:<9}  {r.verdict:<8}  {r.engine:<8}  {depth:>5}  {r.detail}")
    bad = [r for r in results if r.verdict in ("violated", "missed") and r.trace is not None]
    for r in bad:
        assert r.trace is not None  # `bad` holds results with a trace only
        lines.append("")
        lines.append(f"counterexample for {r.id} ({r.trace.depth} steps, replayed):")
        own = r.model  # a trace on other bounds (selftest, --minimise) narrates with its own model
        lines.append(r.trace.narrative(own if own is not None else model))
        if r.minimised:
            lines.append(f"  minimised: {r.minimised['note']}")
        if r.trace_path:
            lines.append(f"  saved as {r.trace_path}")
    for r in results:
        if r.verdict == "error":
            lines += [""] + error_lines(r, model)
    summary = summary_verdict(results)
    st = f"{states:,} states, " if states is not None else ""
    lines.append("")
    lines.append(f"summary: {summary} ({st}{seconds:.1f}s)")
    return "\n".join(lines)


def error_lines(r: CheckResult, model=None) -> list[str]:
    """A check that failed inside the tool: its message, and the game it was working on (issue 39)."""
    who = f" [{r.observer}]" if r.observer else ""
    lines = [f"error in {r.id}{who} ({r.engine}): {r.detail}"]
    rest = r.message
    if rest:
        lines += [f"  {line}" for line in rest.splitlines()]
    elif r.trace is not None:
        own = r.model
        lines.append(f"  the game it was working on ({r.trace.depth} steps, replayed):")
        lines.append(r.trace.narrative(own if own is not None else model) if (own or model) is not None
                     else "\n".join(r.trace.labels))
    if r.trace_path:
        lines.append(f"  saved as {r.trace_path}")
    lines.append("  this is a bug in rulecheck: the other verdicts above stand; please report it with this text")
    return lines


def trace_place(r: CheckResult) -> tuple:
    """(folder under --out, expectation) of a result's trace as `save_traces` writes it; the file is
    `slug(r.id).scenario.yaml` (with a numeric suffix if that name is taken)."""
    if r.verdict == "error":  # the game a check was working on when it failed: reachable, for a bug report
        return "errors", {"reachable": True}
    if r.kind == "witness":
        return "witnesses", {"reachable": True}
    if r.kind in ("defect", "deviation"):  # a deviation is an engine's own behaviour built as a defect
        target = (r.caught_by or r.target) if isinstance(r, DefectResult) else None
        # A leak is two games an observer cannot tell apart, not a bad state: the scenario is the
        # first game, replayable as reachable (`rulecheck leaks --out` writes both games).
        # An order-sensitivity defect's trace reaches the state where the pair is pending.
        expect = {"reachable": True} if target in ("hidden-identity", "possibilistic") or "~" in str(target) \
            else {"violates": target}
        return ("defects" if r.kind == "defect" else "deviations"), expect
    if r.kind == "ambiguity":
        # The shortest game to a state where both reactions are pending (under printed-rules orders).
        return "ambiguities", {"reachable": True}
    return "violations", {"violates": r.id}


def save_traces(results: list[CheckResult], model, proposal, out: Path) -> None:
    """Write every trace as a scenario file under out/ (violations and witnesses).

    Next to each X.scenario.yaml go X.itf.json (ITF, for Apalache/Quint tools) and X.md (game
    words, changed slots, a sequence diagram); a violation also gets X.dot. Nothing is overwritten.
    """
    from checks.formats.export import write_companions  # imported here: the exporters are only needed with --out

    for r in results:
        if r.trace is None:
            continue
        folder, expect = trace_place(r)
        m = r.model or model
        title = f"{r.id} ({r.kind})"
        # The scenario records the bounds the trace was found on: a seeded defect's or a minimised
        # counterexample's bounds differ from the proposal's, and replay must rebuild the same model.
        # Likewise its interpretation: the ambiguity detector explores with the orders left open.
        found_on = proposal
        if m.provenance is not None:
            found_on = dataclasses.replace(found_on, bounds=m.provenance.bounds,
                                           interpretation=m.provenance.interpretation)
        doc = trace_to_scenario(m, r.trace, found_on, title, expect, r.rules)
        path = write_scenario(inside(out, folder, f"{slug(r.id)}.scenario.yaml"), doc)
        r.trace_path = str(path)
        write_companions(m, r.trace, path, title, found_on, expect.get("violates"))
