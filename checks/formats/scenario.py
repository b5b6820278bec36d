"""Scenario files: a concrete game with an expectation, written from traces and replayed.

Format (YAML, see docs/scenario-format.md):

    scenario: 1
    name: ...
    cites: [R20, H21]
    setup: {proposal: {name, interpretation, bounds}, defects: [...]}
    steps:
      - do: ship(f=Atreides, to=Arrakeen)       # the exact action label
        says: turn 2, Shipment & Movement: ...  # game words (ignored on replay)
    expect: {violates: <check id>} | {reachable: true} | {blocked_at: <step>}
            (optionally `values: {slot: value}` checked at the end)
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML

from checks.formats.proposal import bounds_of, interpretation, key_pos, load_yaml, value_pos
from model.errors import InputError, ModelError, choices
from model.evaluate import apply, enabled, eval_expr
from model.trace import Trace

EXPECTATIONS = ("violates", "reachable", "blocked_at", "values")


def trace_to_scenario(model, trace: Trace, proposal, name: str, expect: dict, cites=()) -> dict:
    steps, pre = [], trace.init
    for st in trace.steps:
        a = model.action(st.action)
        steps.append({"do": st.action, "says": model.narrate(model, a, pre, st.state)})
        pre = st.state
    return {
        "scenario": 1, "name": name, "cites": list(cites),
        "setup": {"proposal": {"name": proposal.name, "interpretation": proposal.interpretation.as_dict(),
                               "bounds": proposal.bounds.as_dict()},
                  "defects": sorted(model.provenance.defects)}
        | ({"options": {k: list(v) for k, v in model.provenance.options}} if model.provenance.options else {}),
        "steps": steps, "expect": expect,
    }


def dump(doc: dict) -> str:
    y = YAML()
    y.default_flow_style = None
    y.width = 4096
    buf = io.StringIO()
    y.dump(doc, buf)
    return buf.getvalue()


def write_scenario(path: Path, doc: dict) -> Path:
    """Write a new file; never overwrite one that exists (a numeric suffix is added instead)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target, n = path, 2
    while target.exists():
        target = path.with_name(path.name.replace(".scenario.yaml", f"-{n}.scenario.yaml"))
        n += 1
    target.write_text(dump(doc), encoding="utf-8")
    return target


@dataclass
class StepReport:
    number: int
    action: str
    line: int | None
    ok: bool
    says: str = ""
    problem: str = ""


@dataclass
class ReplayResult:
    path: str
    ok: bool
    steps: list = field(default_factory=list)
    problem: str = ""
    line: int | None = None


def scenario_setup(game, path: str, data=None):
    """(interpretation, bounds, defects, build options, data) a scenario file was recorded with."""
    data = load_yaml(path) if data is None else data
    if not isinstance(data, dict):
        raise InputError(path, 1, 1, "expected a scenario mapping (setup, steps, expect)")
    for key in ("setup", "steps", "expect"):
        if key not in data:
            raise InputError(path, 1, 1, f"missing '{key}'; a scenario needs setup, steps and expect")
    setup = data["setup"] or {}
    prop = setup.get("proposal") or {}
    errors: list = []
    interp = interpretation(game, path, prop.get("interpretation"), prop, errors)
    bounds = bounds_of(game, path, prop.get("bounds"), prop, errors)
    if errors:
        raise InputError.all_of(errors)
    defects = list(setup.get("defects") or [])
    valid = [d.id for d in game.defects]
    for d in defects:
        if d not in valid:
            line, col = value_pos(setup, "defects")
            raise InputError(path, line, col, f"unknown seeded defect '{d}'; valid: {choices(valid)}")
    # Build options the trace was found with (a leak pair's game B records its initial public IDs).
    options = {k: tuple(v) for k, v in (setup.get("options") or {}).items()}
    if setup.get("initial_pids"):  # the form written before build options existed
        options["pids"] = tuple(setup["initial_pids"])
    return interp, bounds, tuple(defects), options, data


def load_scenario(game, path: str, model=None):
    """(model, steps [(label, line)], expect, expect_line, name) from a scenario file; `model`, when given,
    is the model of the file's setup, already built."""
    interp, bounds, defects, options, data = scenario_setup(game, path)
    prop = (data["setup"] or {}).get("proposal") or {}
    try:
        model = model or game.build(game.proposal(str(prop.get("name") or "scenario"), interpretation=interp, bounds=bounds,
                                         defects=defects), **options)
    except (ModelError, TypeError) as e:
        line, col = key_pos(data, "setup")
        raise InputError(path, line, col, str(e)) from None
    steps = []
    if not isinstance(data["steps"], list):
        line, col = value_pos(data, "steps")
        raise InputError(path, line, col, "steps: expected a list of {do: <action>} items")
    for i, st in enumerate(data["steps"]):
        if not isinstance(st, dict) or "do" not in st:
            line = data["steps"].lc.item(i)[0] + 1
            raise InputError(path, line, None, f"step {i + 1}: expected a mapping with 'do: <action label>'")
        steps.append((str(st["do"]), data["steps"].lc.item(i)[0] + 1, str(st.get("says", ""))))
    expect = data["expect"]
    if not isinstance(expect, dict) or not set(expect) <= set(EXPECTATIONS) or not expect:
        line, col = value_pos(data, "expect")
        raise InputError(path, line, col, f"expect: one or more of {choices(EXPECTATIONS)}")
    if "violates" in expect:
        known = [p.name for p in model.invariants] + ["no-deadlock"]
        if expect["violates"] not in known:
            line, col = value_pos(expect, "violates")
            raise InputError(path, line, col, f"unknown check '{expect['violates']}'; valid: {choices(known)}")
    return model, steps, expect, key_pos(data, "expect")[0], str(data.get("name") or Path(path).stem)


def replay_file(game, path: str, model=None) -> ReplayResult:
    """Run a scenario step by step and check its expectation (on `model`, the setup's, when given)."""
    model, steps, expect, expect_line, _ = load_scenario(game, path, model)
    schema = model.schema
    s = model.init[0]
    res = ReplayResult(path, True)
    blocked_at = expect.get("blocked_at")
    labels = {a.label: a for a in model.actions}
    for i, (label, line, says) in enumerate(steps, 1):
        a = labels.get(label)
        if a is None:
            near = sorted(l for l in labels if l.split("(")[0] == label.split("(")[0])[:6]
            res.steps.append(StepReport(i, label, line, False, says, "no such action"))
            res.ok, res.line = False, line
            res.problem = f"step {i}: no action '{label}'" + (f"; actions of that rule: {', '.join(near)}" if near else "")
            return res
        if not enabled(a, s, schema):
            if blocked_at == i:
                res.steps.append(StepReport(i, label, line, True, says, "blocked, as expected"))
                return res
            res.steps.append(StepReport(i, label, line, False, says, "not enabled here"))
            res.ok, res.line, res.problem = False, line, f"step {i}: '{label}' is not enabled in this state"
            return res
        s2 = apply(a, s, schema)
        res.steps.append(StepReport(i, label, line, True, model.narrate(model, a, s, s2) if model.narrate else says))
        s = s2
    if blocked_at is not None:
        res.ok, res.line, res.problem = False, expect_line, f"expected step {blocked_at} to be blocked; every step ran"
        return res
    if "violates" in expect:
        target = expect["violates"]
        if target == "no-deadlock":
            from model.evaluate import successors
            # As in the explorer: a state where only faults (reload, retry) are enabled is stuck too.
            ok = (all(a.rule.kind == "fault" for a, _ in successors(model, s))
                  and not eval_expr(model.terminal, s, schema))
        else:
            prop = next(p for p in model.invariants if p.name == target)
            ok = not eval_expr(prop.predicate, s, schema)
        if not ok:
            res.ok, res.line, res.problem = False, expect_line, f"the final state does not violate {target}"
            return res
    for slot, want in (expect.get("values") or {}).items():
        if slot not in schema.slot_names:
            res.ok, res.line = False, expect_line
            res.problem = f"expect.values: unknown slot '{slot}'"
            return res
        i = schema.slot_names.index(slot)
        got = schema.show(i, s[i])
        if str(want) != got and want != s[i]:
            res.ok, res.line, res.problem = False, expect_line, f"at the end {slot} is {got}, expected {want}"
            return res
    return res


def replay_matching(game, proposal, directory: str, model=None) -> tuple[list, int]:
    """Replay every scenario file under `directory` recorded with the proposal's bounds, interpretation and
    seeded defects, as checks of kind `scenario` (holds: the expectation is met), on `model` (the
    proposal's, built here when not given); the number of files recorded with other setups (skipped)
    comes second.

    >>> from model.moritani import GAME
    >>> results, skipped = replay_matching(GAME, GAME.profiles["default"], "scenarios/acceptance")
    >>> sorted({r.verdict for r in results}), len(results) + skipped
    (['holds'], 18)
    """
    import time
    from checks.results import CheckResult
    want = (proposal.interpretation.as_dict(), proposal.bounds.as_dict(), tuple(sorted(proposal.defects)))
    results, skipped = [], 0
    root = Path(directory)
    for path in sorted(root.rglob("*.scenario.yaml")):
        interp, bounds, defects, options, data = scenario_setup(game, str(path))
        if options or (interp.as_dict(), bounds.as_dict(), tuple(sorted(defects))) != want:
            skipped += 1
            continue
        t0 = time.perf_counter()
        model = model or game.build(proposal)
        r = replay_file(game, str(path), model)
        name = str(data.get("name") or path.name.replace(".scenario.yaml", ""))
        rel = path.relative_to(root).as_posix()
        results.append(CheckResult(
            id=f"scenario:{name}", kind="scenario", verdict="holds" if r.ok else "violated", engine="replay",
            rules=tuple(data.get("cites") or ()), depth=len(r.steps), seconds=time.perf_counter() - t0,
            detail=f"{rel}: expectation met" if r.ok else f"{rel}:{r.line}: {r.problem}",
            extra={"file": rel}))
    return results, skipped
