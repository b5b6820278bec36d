"""`rulecheck engines` as text: the engines' switch table and each printed-rule violation as a bug report.

The table has one row per interpretation switch: the default's choice and each engine profile's, and whether
they agree. A violation is written the way an engine author could file it: a title, the rule it breaks (cited
by catalogue ID), steps to reproduce (the shortest game, in game words, replayed), and the engine's code.

>>> rows = [{"switch": "a", "ids": ["A1"], "default": "x", "engines": {"e1": "x", "e2": "y"}, "agree": "e1, default"}]
>>> print(switch_table(rows, ("e1", "e2")).splitlines()[2])
| `a` (A1) | x | x | y | e1, default |
"""
from __future__ import annotations

import json


def agreement(default: str, chosen: dict) -> str:
    """Who agrees on a switch: `all`, or the largest group of engines (and the default) sharing a choice."""
    values = list(chosen.values()) + [default]
    if len(set(values)) == 1:
        return "all"
    groups: dict = {}
    for name, v in list(chosen.items()) + [("default", default)]:
        groups.setdefault(v, []).append(name)
    shared = [g for g in groups.values() if len(g) > 1]
    return "; ".join(", ".join(g) for g in shared) if shared else "none"


def switch_table(rows: list, engines: tuple) -> str:
    """The Markdown table of the switches (rows as `engines_data` builds them)."""
    head = "| switch | default | " + " | ".join(engines) + " | agree |"
    out = [head, "|" + " --- |" * (len(engines) + 3)]
    for r in rows:
        cells = [f"`{r['switch']}` ({', '.join(r['ids'])})", r["default"]] + [r["engines"][e] for e in engines]
        out.append("| " + " | ".join(cells + [r["agree"]]) + " |")
    return "\n".join(out)


def bug_report(r, narrative: str | None) -> str:
    """One violation as a Markdown bug report (`r` a deviation CheckResult)."""
    lines = [f"### {r.title}", "", f"*Engine*: {r.deviating_engine} ({r.source}). *Check*: `{r.id}` "
             f"({r.verdict}; caught by `{r.caught_by}`).", "",
             f"**Rule broken**: {r.rule_text}", "",
             f"**What the engine does**: {r.doc}" if r.doc else "", "", "**Steps to reproduce**:"]
    if narrative:
        lines += ["", f"The shortest game ({r.depth} steps, replayed by rulecheck):", "", "```", narrative, "```"]
    elif r.verdict == "violated":  # a witness the behaviour makes unreachable: no game to show, a complete search
        lines += ["", f"No game reaches what the rule allows: a complete search of {r.states:,} states finds no step "
                      f"of `{r.caught_by}` ({', '.join(r.rules)})."]
    else:
        lines += ["", r.detail]
    lines += ["", "**Where in the engine**: " + ", ".join(f"`{w}`" for w in r.where or ()), ""]
    return "\n".join(line for line in lines if line is not None)


def to_markdown(rows: list, engines: tuple, reports: dict, notes=()) -> str:
    """The whole `engines` text: the table, then per engine its bug reports."""
    out = ["# The engines, switch by switch", "", switch_table(rows, engines), ""]
    out += [f"note: {n}" for n in notes]
    for e in engines:
        rs = reports.get(e, [])
        out += ["", f"## {e}: printed-rule violations ({sum(1 for r, _ in rs if r.verdict == 'violated')})", ""]
        if not rs:
            out.append("No deviation listed.")
        for r, narrative in rs:
            out.append(bug_report(r, narrative))
    return "\n".join(out).rstrip() + "\n"


def to_json(rows: list, engines: tuple, reports: dict) -> str:
    """The same data as JSON: the table's rows and, per engine, each violation with its game's steps."""
    doc = {"engines": list(engines), "switches": rows, "violations": {
        e: [r.to_json() | {"steps": narrative.splitlines() if narrative else []} for r, narrative in reports.get(e, [])]
        for e in engines}}
    return json.dumps(doc, indent=2)
