"""A trace in other formats: ITF JSON (Apalache/Quint tools), a Markdown narrative, a DOT path graph.

`checks.formats.report.save_traces` writes all of them next to each scenario file. Every function takes
the model the trace belongs to: variable names, enum labels and game words come from it.

>>> from model.moritani import GAME
>>> m = GAME.build(GAME.profiles["default"])
>>> t = Trace.from_actions(m, m.init[0], ["place_token(k=Robbery, to=Carthag)"])
>>> doc = to_itf(m, t)
>>> doc["states"][1]["#meta"]["action"], doc["states"][1]["tloc[Robbery]"]
('place_token(k=Robbery, to=Carthag)', 'none')
>>> "```mermaid" in to_markdown(m, t, "one placement")
True
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from checks.formats.outputs import write_new
from model.domains import Bool, Enum, IntRange
from model.evaluate import eval_expr
from model.trace import Trace

ITF_SPEC = "https://apalache-mc.org/docs/adr/015adr-trace.html"
# ITF (like JSON in JavaScript) keeps integers as numbers only while they are exact doubles.
SAFE_INT = 2**53 - 1
ENGINE = "Engine"


# -- ITF ------------------------------------------------------------------------------------------

def itf_value(domain, v):
    """One slot or parameter value in ITF: a boolean, an enum label, or an integer.

    >>> itf_value(IntRange(0, 2**60), 2**60)
    {'#bigint': '1152921504606846976'}
    """
    if isinstance(domain, Bool):
        return bool(v)
    if isinstance(domain, Enum):
        return domain.show(v)
    if isinstance(v, int) and abs(v) > SAFE_INT:
        return {"#bigint": str(v)}
    return v


def _args(action) -> dict:
    doms = {p.name: p.domain for p in action.rule.params}
    return {k: itf_value(doms[k], v) for k, v in action.args}


def to_itf(model, trace: Trace, description: str = "", source: str = "") -> dict:
    """The trace as an ITF document: one variable per state slot, one state object per step."""
    sch = model.schema
    names = list(sch.slot_names)

    def state(s, meta):
        out = {"#meta": meta}
        out.update({n: itf_value(f.domain, v) for n, f, v in zip(names, sch.slot_fields, s)})
        return out

    states = [state(trace.init, {"index": 0})]
    for i, step in enumerate(trace.steps, 1):
        a = model.action(step.action)
        states.append(state(step.state, {"index": i, "action": step.action, "rule": a.rule.name,
                                         "args": _args(a)}))
    return {
        "#meta": {"format": "ITF", "format-description": ITF_SPEC,
                  "source": source or f"rulecheck model {model.name}",
                  "description": description or f"{trace.depth}-step trace of {model.name}"},
        "params": [], "vars": names, "states": states,
    }


def itf_json(model, trace: Trace, description: str = "", source: str = "") -> str:
    return json.dumps(to_itf(model, trace, description, source), indent=1, ensure_ascii=False) + "\n"


# -- who acted ------------------------------------------------------------------------------------

def factions(model) -> tuple:
    """Faction labels: the enum named Faction that indexes the state fields (empty if none)."""
    for f in model.schema.fields:
        for d in f.dims:
            if isinstance(d, Enum) and d.name == "Faction":
                return d.labels
    return ()


def actor_of(model, action, pre) -> str:
    """The faction taking a player step, or Engine for system, scheduler and fault steps."""
    if action.rule.kind != "player" or action.actor is None:
        return ENGINE
    names = factions(model)
    # After grounding the actor is usually a constant; a few rules name a state field (the entrant).
    who = eval_expr(action.actor, pre, model.schema)
    return names[who] if isinstance(who, int) and 0 <= who < len(names) else ENGINE


def target_of(model, action, actor: str) -> str:
    """Whom a step is aimed at: the first faction argument other than the actor, else Engine."""
    names = factions(model)
    doms = {p.name: p.domain for p in action.rule.params}
    for k, v in action.args:
        d = doms[k]
        if isinstance(d, Enum) and d.name == "Faction" and d.labels == names and names[v] != actor:
            return names[v]
    return ENGINE


def _words(model, action, pre, post) -> str:
    return model.narrate(model, action, pre, post) if model.narrate else action.label


# -- Markdown -------------------------------------------------------------------------------------

def setup_summary(model, proposal=None) -> list[str]:
    """Bullet lines: proposal, switches and bounds that differ from the defaults, defects
    (read from the model's provenance)."""
    p = model.provenance
    lines = [f"- proposal: `{getattr(proposal, 'name', None) or model.name}`"]
    if p is None:
        return lines
    changed = [f"`{key}: {choice}` ({', '.join(ids)})" for key, choice, ids in p.interpretation.changed()]
    lines.append("- interpretation: " + ("; ".join(changed) if changed else "engine defaults"))
    base, now = type(p.bounds)().as_dict(), p.bounds.as_dict()
    diff = [f"`{k}: {json.dumps(v)}`" for k, v in now.items() if base[k] != v]
    lines.append("- bounds: " + ("; ".join(diff) if diff else "default"))
    if p.defects:
        lines.append("- seeded defects: " + ", ".join(f"`{d}`" for d in sorted(p.defects)))
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _mermaid_id(name: str) -> str:
    return re.sub(r"\W", "", name) or "X"


def _mermaid_text(text: str) -> str:
    # Mermaid ends a message at ';' and starts an entity at '#'.
    return text.replace(";", ",").replace("#", "no. ")


def to_markdown(model, trace: Trace, title: str, proposal=None, verdict: str = "") -> str:
    """Title, setup, a table of steps (game words, changed slots) and a Mermaid sequence diagram."""
    out = [f"# {title}", ""]
    if verdict:
        out += [verdict, ""]
    out += ["## Setup", ""] + setup_summary(model, proposal) + [""]
    out += ["## Steps", "", "| step | game words | what changed |", "| ---: | --- | --- |"]
    rows, pre = [], trace.init
    for i, step in enumerate(trace.steps, 1):
        a = model.action(step.action)
        words = _words(model, a, pre, step.state)
        changed = "; ".join(f"`{n}: {x} → {y}`" for n, x, y in model.schema.diff(pre, step.state))
        out.append(f"| {i} | {_cell(words)} | {_cell(changed) or 'nothing'} |")
        actor = actor_of(model, a, pre)
        rows.append((i, a, words, actor, target_of(model, a, actor)))
        pre = step.state
    out += ["", "## Sequence", "", "```mermaid", "sequenceDiagram"]
    for name in list(factions(model)) + [ENGINE]:
        out.append(f"    participant {_mermaid_id(name)} as {name}")
    names = list(factions(model))
    span = f"{_mermaid_id(names[0])},{ENGINE}" if names else ENGINE
    phase = None
    for i, a, words, actor, target in rows:
        # Narration reads "turn 2, Shipment & Movement: what happened"; the prefix becomes a note.
        head, sep, rest = words.partition(": ")
        if sep and head != phase:
            phase = head
            out.append(f"    Note over {span}: {_mermaid_text(head)}")
        text = rest if sep else words
        out.append(f"    {_mermaid_id(actor)}->>{_mermaid_id(target)}: {i}. {_mermaid_text(text)}")
    out += ["```", ""]
    return "\n".join(out)


# -- DOT ------------------------------------------------------------------------------------------

def _dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(model, trace: Trace, title: str = "trace", violated: bool = False) -> str:
    """The trace as a path graph: a node per state (labelled with what changed), an edge per step."""
    out = ["digraph trace {", f'  label="{_dot(title)}"; labelloc=t; rankdir=TB;',
           '  node [shape=box, fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9];', '  s0 [label="initial state"];']
    pre = trace.init
    for i, step in enumerate(trace.steps, 1):
        a = model.action(step.action)
        changed = "\\n".join(_dot(f"{n}: {x} -> {y}") for n, x, y in model.schema.diff(pre, step.state))
        style = ", color=red, penwidth=2" if violated and i == trace.depth else ""
        out.append(f'  s{i} [label="state {i}\\n{changed}"{style}];')
        words = _dot(_words(model, a, pre, step.state))
        out.append(f'  s{i - 1} -> s{i} [label="{i}. {_dot(step.action)}", tooltip="{words}"];')
        pre = step.state
    out.append("}")
    return "\n".join(out) + "\n"


# -- files ----------------------------------------------------------------------------------------

def write_companions(model, trace: Trace, scenario_path: Path, title: str, proposal=None,
                     violates: str | None = None) -> list[Path]:
    """X.itf.json and X.md (and X.dot when the trace violates a check) next to X.scenario.yaml."""
    base = scenario_path.name.removesuffix(".scenario.yaml")
    folder = scenario_path.parent
    source = f"rulecheck, proposal {getattr(proposal, 'name', None) or model.name}"
    verdict = f"Counterexample: the last state violates `{violates}`." if violates else ""
    written = [write_new(folder / f"{base}.itf.json", itf_json(model, trace, title, source)),
               write_new(folder / f"{base}.md", to_markdown(model, trace, title, proposal, verdict))]
    if violates:
        written.append(write_new(folder / f"{base}.dot", to_dot(model, trace, title, violated=True)))
    return written
