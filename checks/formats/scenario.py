"""Scenario files: a concrete game with an expectation, written from traces and replayed.

Format (YAML, see docs/scenario-format.md):

    scenario: 1
    name: ...
    cites: [R20, H21]
    setup: {proposal: {name, interpretation, bounds}, defects: [...]}
    steps:
      - do: ship(f=Atreides, to=Arrakeen)       # the exact action label
        says: turn 2, Shipment & Movement: ...  # game words (ignored on replay)
    expect: {violates: <check id>} | {reachable: true} | {blocked_at: <step>, because: {guard, says}}
            (optionally `values: {slot: value}` checked at the end)

`because.guard` names the conjunct of the refused action's guard that is false (model/guards.py);
replay then requires the refusal to be for that reason, so a step refused for another reason fails.

Loading validates the file against one declared schema (`scenario_schema`, which reuses the proposal's
`interpretation` and `bounds` parts; `rulecheck interpretations --schema scenario` prints it), then
what depends on the built model: check names, slot names and their values' types, the step number of
`blocked_at`. `setup.proposal.name`, when it names an embedded profile, is the base the file's
interpretation and bounds change (the shipped acceptance scenarios say only `name: default`).
Every problem is an InputError at `file:line:col` (exit 3).
"""
from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ruamel.yaml import YAML

from checks.formats.inputs import LIMITS, load_yaml
from checks.formats.outputs import write_new
from checks.formats.proposal import (NAME_LENGTH, bound_node, build_proposal, check_document, defect_needs,
                                     defects_schema, proposal_schema)
from checks.formats.relations import Alone, Exclusive, NeedsKey
from checks.formats.schema import Const, Integer, ListOf, Loc, MapOf, Record, Scalar, Text, _pos, found, quoted
from model.declarations import Proposal
from model.domains import Bool, Enum, IntRange
from model.game import GameModel
from model.errors import InputError, ModelError, choices
from model.evaluate import apply, enabled, eval_expr
from model.guards import explain
from model.trace import Trace

EXPECTATIONS = ("violates", "reachable", "blocked_at", "values")
MAX_STEPS = LIMITS.max_items  # what the reader lets through (checks/formats/inputs.py)
GUARD_LENGTH = 4000  # the longest conjunct of the embedded profiles' guards is about 2,100 characters


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
    """Write a new file, atomically; never overwrite one that exists (a numeric suffix is added instead)."""
    return write_new(path, dump(doc))


# -- the schema ------------------------------------------------------------------------------------

def scenario_schema(game, base=None) -> Record:
    """The scenario file; `base` (an embedded profile named by `setup.proposal.name`) gives the
    defaults its bounds relations read."""
    options = {k: bound_node(shape) for k, shape in game.build_options.items()}
    setup = Record({
        "proposal": proposal_schema(game, base, defects=False),
        "defects": defects_schema(game),
        "options": Record(options, what="build option", optional_null=True,
                          doc="the model's other build options (its provenance), e.g. game B of a leak pair"),
        "initial_pids": dataclasses.replace(options["pids"], optional_null=True, doc="the older form of options.pids")
        if "pids" in options else Text(0),
    }, relations=(Exclusive(("options", "initial_pids"), "both give the initial public IDs; keep options"),
                  *defect_needs(game, ("proposal", "bounds"))), what="setup key", optional_null=True)
    step = Record({"do": Text(400, doc="the exact action label replay runs"),
                   "says": Text(2000, optional_null=True, doc="game words for the reader; ignored on replay")},
                  required=("do",), what="step key")
    expect = Record({
        "violates": Text(100, doc="the invariant (or no-deadlock, or domain) the final state violates"),
        "reachable": Const(True, why="every step runs (for a step the rules refuse, use blocked_at: <step>)"),
        "blocked_at": Integer(1, MAX_STEPS, doc="the step number the rules refuse (every earlier step runs)"),
        "because": Record({
            "guard": Text(GUARD_LENGTH, doc="the conjunct of the refused action's guard that is false, in the "
                                            "model's labels (model/guards.py); replay checks it"),
            "says": Text(GUARD_LENGTH, optional_null=True, doc="the same in words for the reader; ignored on replay"),
        }, required=("guard",), what="because key", doc="why the step at blocked_at is refused"),
        "values": MapOf(Text(200), Scalar(), doc="slot values at the end, as the model shows them"),
    }, relations=(Alone("blocked_at", ("reachable", "violates", "values"),
                        "the game stops at the refused step, so nothing at its end can be expected"),
                  NeedsKey("because", "blocked_at", "it says why the step at blocked_at is refused")),
        min_keys=1, what="expectation")
    return Record({
        "scenario": Const(1, why="the scenario format version"),
        "name": Text(NAME_LENGTH, optional_null=True),
        "cites": ListOf(Text(40), optional_null=True, doc="catalogue IDs the game illustrates"),
        "setup": setup,
        "steps": ListOf(step, max_items=MAX_STEPS, optional_null=True),
        "expect": expect,
    }, required=("setup", "steps", "expect"), optional_null=False)


def scenario_json_schema(game) -> dict:
    """The JSON Schema of scenario files (`rulecheck interpretations --schema scenario`).

    >>> from model.moritani import GAME
    >>> scenario_json_schema(GAME)["properties"]["expect"]["properties"]["blocked_at"]["type"]
    'integer'
    """
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "rulecheck scenario",
            "description": "A concrete game with an expectation (docs/scenario-format.md). Check names, slot "
                           "names and slot values depend on the model the setup builds and are checked on "
                           "loading; with an embedded profile as setup.proposal.name, its bounds are the "
                           "defaults."} | scenario_schema(game).json()


# -- loading ----------------------------------------------------------------------------------------

class Scenario(NamedTuple):
    model: GameModel
    steps: list          # [(action label, line, says)]
    expect: dict
    expect_line: int | None
    name: str
    proposal: Proposal


def _base(game, data):
    """The embedded profile `setup.proposal.name` names, if it names one."""
    try:
        name = data["setup"]["proposal"]["name"]
    except (KeyError, TypeError, IndexError):
        return None
    return game.profiles.get(name) if isinstance(name, str) else None


def scenario_setup(game, path: str):
    """(proposal, build options, data, checked values) a scenario file was recorded with, before any
    model is built (`check --scenarios` compares them with the run's proposal)."""
    data = load_yaml(path)
    if data is None:
        raise InputError(path, 1, 1, "the file is empty; a scenario needs setup, steps and expect")
    base = _base(game, data)
    values = check_document(scenario_schema(game, base), data, path)
    raw_setup = data.get("setup") or {}
    setup = values.get("setup", {})
    prop_values = setup.get("proposal", {})
    raw_prop = raw_setup.get("proposal") or {}
    named = prop_values.get("name") or "scenario"
    prop = build_proposal(game, prop_values, path, raw_prop, base=base or game.proposal(named), name=named)
    prop = dataclasses.replace(prop, defects=tuple(setup.get("defects", ())))
    options = {k: tuple(v) for k, v in setup.get("options", {}).items()}
    if "initial_pids" in setup:
        options["pids"] = tuple(setup["initial_pids"])
    return prop, options, data, values


def load_scenario(game, path: str, model=None) -> Scenario:
    """Load and check a scenario file: schema first, then what depends on the built model (`model`, when
    given, is the model of the file's setup, already built)."""
    prop, options, data, values = scenario_setup(game, path)
    loc = Loc(path, [], "", 1, 1)
    raw_setup = data.get("setup") or {}
    try:
        model = model or game.build(prop, **options)
    except (ModelError, TypeError, ValueError) as e:
        key = "options" if "options" in raw_setup else "initial_pids" if "initial_pids" in raw_setup else None
        at = loc.value(data, "setup")
        at = at.value(raw_setup, key) if key else at
        raise InputError(path, at.line, at.col, f"{at.trail}: {e}") from None
    raw_steps = data.get("steps") or []
    steps = [(st["do"], _pos(raw_steps, "item", i)[0], st.get("says") or "")
             for i, st in enumerate(values.get("steps", []))]
    expect, raw_expect = values["expect"], data["expect"]
    _check_expect(model, expect, raw_expect, len(steps), loc.value(data, "expect"))
    if loc.errors:
        raise InputError.all_of(loc.errors)
    name = values.get("name") or Path(path).stem
    return Scenario(model, steps, expect, _pos(data, "key", "expect")[0], name, prop)


def _check_expect(model, expect: dict, raw, n_steps: int, loc: Loc) -> None:
    """What the schema cannot know: the model's checks and slots, and the number of steps."""
    if "violates" in expect:
        known = [p.name for p in model.invariants] + ["no-deadlock", "domain"]
        if expect["violates"] not in known:
            loc.value(raw, "violates").error(f"unknown check {quoted(expect['violates'])}; valid: {choices(known)}")
    if "blocked_at" in expect and expect["blocked_at"] > n_steps:
        loc.value(raw, "blocked_at").error(f"step {expect['blocked_at']} does not exist: the scenario has "
                                           f"{n_steps} step{'s' if n_steps != 1 else ''}")
    sch, raw_values = model.schema, raw.get("values") if isinstance(raw, dict) else None
    for slot, want in (expect.get("values") or {}).items():
        at = loc.value(raw, "values").value(raw_values, slot)
        if slot not in sch.slot_names:
            near = [n for n in sch.slot_names if n.split("[")[0] == slot.split("[")[0]][:8]
            at.error(f"unknown slot {quoted(slot)}" + (f"; slots of that field: {', '.join(near)}" if near else
                                                       f"; fields: {choices({n.split('[')[0] for n in sch.slot_names})}"))
            continue
        dom = sch.slot_fields[sch.slot_names.index(slot)].domain
        if shown_value(dom, want) is None:
            at.error(f"expected {_expected(dom)}; found {found(want)}")


def shown_value(dom, want) -> str | None:
    """`want` (from a scenario file) as the domain shows values, or None if it is not one of them."""
    if isinstance(dom, Bool):
        return {True: "yes", False: "no", "yes": "yes", "no": "no"}.get(want) if isinstance(want, (bool, str)) \
            else None
    if isinstance(dom, IntRange):
        ok = isinstance(want, int) and not isinstance(want, bool) and dom.contains(want)
        return str(want) if ok else None
    if isinstance(dom, Enum):
        return want if isinstance(want, str) and want in dom.labels else None
    return None


def _expected(dom) -> str:
    if isinstance(dom, Bool):
        return "yes or no (or true/false)"
    if isinstance(dom, IntRange):
        return f"a whole number from {dom.lo} to {dom.hi}"
    return f"one of {choices(dom.labels)}"


# -- replay -----------------------------------------------------------------------------------------

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
    proposal: str = ""

    def fail(self, line, problem: str) -> "ReplayResult":
        self.ok, self.line, self.problem = False, line, problem
        return self


def replay_file(game, path: str, model=None) -> ReplayResult:
    """Run a scenario step by step and check every key of its expectation (on `model`, the setup's, when
    given)."""
    sc = load_scenario(game, path, model)
    model, expect = sc.model, sc.expect
    schema = model.schema
    s = model.init[0]
    res = ReplayResult(path, True, proposal=sc.proposal.name)
    blocked_at = expect.get("blocked_at")
    labels = {a.label: a for a in model.actions}
    for i, (label, line, says) in enumerate(sc.steps, 1):
        a = labels.get(label)
        if a is None:
            near = sorted(lb for lb in labels if lb.split("(")[0] == label.split("(")[0])[:6]
            res.steps.append(StepReport(i, label, line, False, says, "no such action"))
            return res.fail(line, f"step {i}: no action {quoted(label, 200)}"
                            + (f"; actions of that rule: {', '.join(near)}" if near else ""))
        if not enabled(a, s, schema):
            if blocked_at == i:
                return _blocked(res, model, a, s, expect.get("because"), (i, line, says), sc.expect_line)
            res.steps.append(StepReport(i, label, line, False, says, "not enabled here"))
            return res.fail(line, f"step {i}: '{label}' is not enabled in this state")
        if blocked_at == i:
            res.steps.append(StepReport(i, label, line, False, says, "enabled, expected blocked"))
            return res.fail(line, f"step {i}: '{label}' is enabled here; expected the rules to refuse it")
        s2 = apply(a, s, schema)
        res.steps.append(StepReport(i, label, line, True, model.narrate(model, a, s, s2) if model.narrate else says))
        s = s2
    problem = _final(model, s, expect)
    return res.fail(sc.expect_line, problem) if problem else res


def _blocked(res: ReplayResult, model, a, s, because, at: tuple, expect_line) -> ReplayResult:
    """The expected refusal at step `at`: with `because`, the recorded conjunct must be among the false ones."""
    i, line, says = at
    false = [c for c in explain(model, a, s) if not c.holds]
    why = "; ".join(c.words for c in false)
    if because is None:
        res.steps.append(StepReport(i, a.label, line, True, says, f"blocked, as expected ({why})"))
        return res
    want = because["guard"]
    if any(c.text == want for c in false):
        res.steps.append(StepReport(i, a.label, line, True, says, f"blocked, as expected: {want} is false"))
        return res
    res.steps.append(StepReport(i, a.label, line, False, says, "blocked for another reason"))
    known = [c.text for c in explain(model, a, s)]
    if want not in known:
        return res.fail(expect_line, f"step {i}: '{a.label}' is refused, but its guard has no conjunct "
                                     f"{quoted(want, 200)} (recorded in because.guard); it is refused because {why}")
    return res.fail(expect_line, f"step {i}: '{a.label}' is refused, but not because {quoted(want, 200)} "
                                 f"(that part holds here); it is refused because {why}")


def _final(model, s, expect: dict) -> str:
    """What is wrong with the final state `s` under `expect` ('' when every key is met)."""
    schema = model.schema
    bad = schema.check(s)
    target = expect.get("violates")
    # `reachable` and every other key speak of a state inside the model's domains; a violation may end
    # outside them (NOTE(domain) in checks/engines/explicit.py): `domain` itself, or a property the
    # explicit search judged on the state that left them.
    if bad and (target is None or target == "no-deadlock"):
        return f"the final state leaves its declared ranges ({', '.join(bad[:3])})"
    if target is not None:
        if target == "domain":
            ok = bool(bad)
        elif target == "no-deadlock":
            from model.evaluate import successors
            # As in the explorer: a state where only faults (reload, retry) are enabled is stuck too.
            ok = (all(a.rule.kind == "fault" for a, _ in successors(model, s))
                  and not eval_expr(model.terminal, s, schema))
        else:
            prop = next(p for p in model.invariants if p.name == target)
            try:
                if prop.kind == "permission":  # by the reference interpreter: condition true, no choice enabled
                    from model.permissions import refusals
                    ok = bool(refusals(model, prop, s))
                else:
                    ok = not eval_expr(prop.predicate, s, schema)
            except ModelError:  # it reads at an index outside its domain there
                return f"{target} cannot be evaluated on the final state: it leaves its declared ranges"
        if not ok:
            return f"the final state does not violate {target}"
    for slot, want in (expect.get("values") or {}).items():
        i = schema.slot_names.index(slot)
        got = schema.show(i, s[i])
        if shown_value(schema.slot_fields[i].domain, want) != got:
            return f"at the end {slot} is {got}, expected {want}"
    return ""


def replay_matching(game, proposal, directory: str, model=None, also=None) -> tuple[list, int]:
    """Replay every scenario file under `directory` recorded with the proposal's bounds, interpretation and
    seeded defects, as checks of kind `scenario` (holds: the expectation is met), on `model` (the
    proposal's, built here when not given); the number of files recorded with other setups (skipped)
    comes second. A file recorded with the setup of `also` (a second proposal) replays on its model.

    >>> from model.moritani import GAME
    >>> results, skipped = replay_matching(GAME, GAME.profiles["default"], "scenarios/acceptance")
    >>> sorted({r.verdict for r in results}), len(results) + skipped
    (['holds'], 19)
    """
    import time
    from checks.results import CheckResult, error_result, isolated
    def setup(p):
        return p.interpretation.as_dict(), p.bounds.as_dict(), tuple(sorted(p.defects))
    models = {repr(setup(proposal)): [proposal, model]}
    if also is not None:
        models.setdefault(repr(setup(also)), [also, None])
    results, skipped = [], 0
    root = Path(directory)
    for path in sorted(root.rglob("*.scenario.yaml")):
        prop, options, data, values = scenario_setup(game, str(path))
        target = None if options else models.get(repr(setup(prop)))
        if target is None:
            skipped += 1
            continue
        t0 = time.perf_counter()
        name = str(values.get("name") or path.name.replace(".scenario.yaml", ""))
        rel = path.relative_to(root).as_posix()

        def replayed(path=path, target=target, name=name, rel=rel, t0=t0):
            target[1] = target[1] or game.build(target[0])
            r = replay_file(game, str(path), target[1])
            return CheckResult(
                id=f"scenario:{name}", kind="scenario", verdict="holds" if r.ok else "violated", engine="replay",
                rules=tuple(values.get("cites") or ()), depth=len(r.steps), seconds=time.perf_counter() - t0,
                detail=f"{rel}: expectation met" if r.ok else f"{rel}:{r.line}: {r.problem}",
                extra={"file": rel})
        # A replay that fails inside the tool is that scenario's `error`; the others still replay (issue 39).
        results.append(isolated(replayed, lambda e, name=name, rel=rel: error_result(
            e, id=f"scenario:{name}", kind="scenario", engine="replay", rules=tuple(values.get("cites") or ()),
            what=f"replaying {rel}", file=rel)))
    return results, skipped
