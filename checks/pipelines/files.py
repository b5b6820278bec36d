"""`rulecheck replay`, `export`, `interpretations` and `docs`: the commands about files.

>>> interpretations("json").code
0
"""
from __future__ import annotations

import json
from pathlib import Path

from checks.formats.outputs import write_atomic
from checks.pipelines.common import GAME, Options, Run

ROOT = Path(__file__).resolve().parent.parent.parent


def replay(file: str, fmt: str = "text") -> Run:
    """Replay a scenario file step by step and check its expectation."""
    from checks.formats.scenario import replay_file
    res = replay_file(GAME, file)
    if fmt == "json":
        return Run(json.dumps({"schema_version": 1, "tool": "rulecheck", "scenario": file, "proposal": res.proposal,
                               "ok": res.ok,
                               "problem": res.problem or None, "line": res.line,
                               "steps": [{"step": s.number, "do": s.action, "line": s.line, "ok": s.ok,
                                          "says": s.says, "problem": s.problem or None} for s in res.steps]},
                              indent=2), 0 if res.ok else 12)
    lines = [f"{'ok  ' if s.ok else 'FAIL'} {s.number:>3}. {s.says or s.action}"
             + (f"  <- {s.problem}" if s.problem else "") for s in res.steps]
    lines.append(f"{file}: replayed {len(res.steps)} steps under proposal '{res.proposal}'; expectation met"
                 if res.ok else f"{file}:{res.line}: {res.problem}")
    return Run("\n".join(lines), 0 if res.ok else 12)


def interpretations(fmt: str = "text", schema: str | None = None) -> Run:
    """Every interpretation switch: its choices, its default and its catalogue IDs; with `schema`
    ("proposal" or "scenario"), the JSON Schema the loader of those files validates with."""
    if schema == "scenario":
        from checks.formats.scenario import scenario_json_schema
        return Run(json.dumps(scenario_json_schema(GAME), indent=2), 0)
    if schema:
        from checks.formats.proposal import json_schema
        return Run(json.dumps(json_schema(GAME), indent=2), 0)
    if fmt == "json":
        return Run(json.dumps([{"switch": s.key, "ids": list(s.ids), "choices": list(s.choices),
                                "default": s.default, "question": s.question, "source": s.source}
                               for s in GAME.switches], indent=2), 0)
    lines = []
    for s in GAME.switches:
        lines.append(f"{s.key} ({', '.join(s.ids)}): {s.question}")
        lines += [f"   {'*' if c == s.default else ' '} {c}" for c in s.choices]
        lines.append(f"     default from: {s.source}")
    return Run("\n".join(lines), 0)


def export(promela: str, proposal: str | None, with_spin: bool, max_states: int) -> Run:
    """The selected model in Promela; with `with_spin`, SPIN's state count must equal ours."""
    from checks.engines.explicit import Explorer
    from checks.formats.promela import SpinUnavailable, run_spin, spin_counterexample, to_promela
    model = GAME.build(Options(proposal=proposal).resolve())
    pm = to_promela(model)
    try:
        write_atomic(promela, pm.text)
    except OSError as err:
        return Run("", 2, [f"rulecheck: cannot write '{promela}': {err.strerror or err}"])
    lines = [f"wrote {promela}: {len(pm.variables)} state variables, {len(model.actions)} actions, "
             f"{len(pm.assertions)} assertions"]
    if not with_spin:
        return Run("\n".join(lines), 0)
    try:
        r = run_spin(pm)
    except SpinUnavailable as e:
        return Run("\n".join(lines), 4, [f"rulecheck: {e}; nothing compared"])
    ex = Explorer(model, Options(max_states=max_states).config()).run()
    ours = len(ex.states) + pm.extra_states
    spin_states = f"{r.states:,}" if r.states is not None else "?"
    lines.append(f"explicit: {len(ex.states):,} states ({ex.seconds:.2f}s); SPIN: {spin_states} states stored "
                 f"({r.search_seconds}s search, {r.wall_seconds:.1f}s with the compile)")
    if r.violated:
        ours_v = ", ".join(sorted(ex.violations)) or "none"
        lines.append(f"SPIN: assertion violated: {r.violated} (explicit explorer's violations: {ours_v})")
        trace = spin_counterexample(model, pm, r)  # replayed through the concrete semantics first
        lines += [f"SPIN's trail, {trace.depth} steps (depth-first, not shortest), replayed:", trace.narrative(model)]
        return Run("\n".join(lines), 12)
    if not (r.complete and ex.complete):
        return Run("\n".join(lines), 4, ["a search was cut short; the counts are not compared"])
    if r.states != ours:
        return Run("\n".join(lines), 1, [f"rulecheck: internal error: state counts differ (ours {ours:,}, "
                                         f"SPIN {r.states:,})"])
    return Run("\n".join(lines + ["state counts equal"]), 0)


def docs(which: str, check_only: bool = False) -> Run:
    """Regenerate docs/rules.md or docs/ambiguities.md; with `check_only`, exit 1 if it is stale."""
    from checks.formats.docgen import ambiguities_md, rules_md
    if which == "rules":
        target, text = ROOT / "docs" / "rules.md", rules_md(GAME)
    else:
        from checks.analyses.ambiguity import analyse
        prop = GAME.profiles["default"]
        model = GAME.open_orders(prop)
        results = analyse(model, prop.interpretation)
        target, text = ROOT / "docs" / "ambiguities.md", ambiguities_md(results, model)
    if check_only:
        current = target.exists() and target.read_text(encoding="utf-8") == text
        return Run(f"{target.name} is {'current' if current else 'stale: run rulecheck docs ' + which}",
                   0 if current else 1)
    write_atomic(target, text)
    return Run(f"wrote {target.relative_to(ROOT)}", 0)
