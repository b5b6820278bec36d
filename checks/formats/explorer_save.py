"""The explorer's "save as scenario": the path so far as a scenario file under `--out`.

The expectation is one of `reachable`, `violates` (a check the final state violates), `values` (slot
values at the end) or `blocked` (an action the designer tried after the path: written as
`blocked_at` with `because`, the false conjunct of its guard, model/guards.py). Each is checked on
the final state with the functions `rulecheck replay` uses before anything is written, the file is
written through checks/formats/scenario.py (atomically, never over an existing file: a numeric
suffix is added), and then replayed: the answer says whether `rulecheck replay` passes it.

The name is the file's name and nothing else: letters, digits, `-`, `_` and `~` only, so no name can
point outside `--out` (checks/formats/outputs.py `inside` confines it as well).
"""
from __future__ import annotations

import re

from checks.formats.explorer_requests import ApiError, Setup, found, path_of, walk
from checks.formats.outputs import OutputError, inside
from checks.formats.scenario import _final, shown_value, trace_to_scenario, write_scenario
from checks.formats.schema import quoted
from model.errors import choices as listed
from model.evaluate import enabled
from model.guards import refusal
from model.trace import Step, Trace

KINDS = ("reachable", "violates", "values", "blocked")
MAX_VALUES = 500
NAME_RE = re.compile(r"^[A-Za-z0-9_~-]{1,80}$")  # what outputs.slug keeps: no dot, no separator


def _name(doc: dict) -> str:
    name = doc.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ApiError(400, f"'name': {found(name)} is not a file name here: 1 to 80 letters, digits, '-', '_' "
                            f"or '~' (written as NAME.scenario.yaml under --out, never anywhere else)")
    return name


def _expectation(doc: dict) -> tuple:
    exp = doc.get("expect")
    if not isinstance(exp, dict) or len(exp) != 1 or next(iter(exp)) not in KINDS:
        raise ApiError(400, f"'expect': expected an object with one of {listed(KINDS)}; found "
                            f"{found(exp) if not isinstance(exp, dict) else listed(map(str, exp)) or 'none'}")
    return next(iter(exp.items()))


def _values(m, value) -> dict:
    sch = m.schema
    if not isinstance(value, dict) or not value or len(value) > MAX_VALUES:
        raise ApiError(400, f"'expect.values': expected an object of 1 to {MAX_VALUES} slot: value pairs")
    out = {}
    for slot, want in value.items():
        if slot not in sch.slot_names:
            raise ApiError(400, f"'expect.values': unknown slot {quoted(slot)}")
        dom = sch.slot_fields[sch.slot_names.index(slot)].domain
        shown = shown_value(dom, want)
        if shown is None:
            raise ApiError(400, f"'expect.values': {quoted(slot)} cannot be {found(want)}")
        out[slot] = want
    return out


def _blocked(a_setup: Setup, doc: dict, value, cur, n: int) -> tuple:
    """(expectation, cites, the refused step) for an action tried after the path."""
    m = a_setup.model
    a = a_setup.labels.get(value) if isinstance(value, str) else None
    if a is None:
        raise ApiError(400, f"'expect.blocked': no action {found(value)} under '{a_setup.name}'")
    if enabled(a, cur, m.schema):
        raise ApiError(409, f"'{a.label}' is enabled here: the rules do not refuse it")
    false = refusal(m, a, cur)
    want = doc.get("because")
    pick = next((c for c in false if c.text == want), None) if want is not None else false[0]
    if pick is None:
        raise ApiError(400, f"'because': {found(want)} is not a false part of the guard of '{a.label}' here; "
                            f"false: {listed(c.text for c in false)}")
    step = {"do": a.label, "says": f"tried {a.label}: refused, {pick.words}"}
    return {"blocked_at": n + 1, "because": {"guard": pick.text, "says": pick.words}}, a.rule.implements, step


def save(setup: Setup, out, replay, doc: dict) -> dict:
    """Write the path of `doc` with its expectation under `out`, then replay the file with `replay(path)`."""
    labels, name = path_of(doc), _name(doc)
    kind, value = _expectation(doc)
    states = walk(setup, labels)
    m, cur = setup.model, states[-1]
    cites, extra = (), None
    if kind == "reachable":
        if value is not True:
            raise ApiError(400, "'expect.reachable': expected true")
        exp: dict[str, object] = {"reachable": True}
    elif kind == "violates":
        known = [p.name for p in m.invariants] + ["no-deadlock"]
        if value not in known:
            raise ApiError(400, f"'expect.violates': {found(value)} is not a check; checks: {listed(known)}")
        exp = {"violates": value}
        cites = next((p.rules for p in m.invariants if p.name == value), ())
    elif kind == "values":
        exp = {"values": _values(m, value)}
    else:
        exp, cites, extra = _blocked(setup, doc, value, cur, len(labels))
    problem = "" if kind == "blocked" else _final(m, cur, exp)
    if problem:
        raise ApiError(409, f"not saved: {problem}")
    trace = Trace(states[0], tuple(Step(lb, s) for lb, s in zip(labels, states[1:])))
    scenario = trace_to_scenario(m, trace, setup.proposal, name, exp, cites)
    if extra is not None:
        scenario["steps"].append(extra)
    try:
        path = write_scenario(inside(out, f"{name}.scenario.yaml"), scenario)
    except OutputError as err:
        raise ApiError(400, str(err)) from None
    except OSError as err:
        raise ApiError(500, f"cannot write {name}.scenario.yaml under --out: {err.strerror or err}") from None
    out = {"file": path.name, "expect": exp}
    if replay is not None:
        r = replay(str(path))
        out["replay"] = {"ok": r.ok, "problem": r.problem, "steps": len(r.steps)}
    return out
