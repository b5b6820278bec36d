"""CI reports of a run: JUnit XML (one test case per check) and a Markdown job summary.

`--junit FILE` and `--summary FILE` on every command that produces CheckResults. The
mapping never turns an inconclusive verdict into a pass:

| verdict | JUnit | why |
| --- | --- | --- |
| `holds`, `proved`, `caught` | pass | the claim is established on the stated bounds |
| `violated`, `missed` | `<failure>` | a replayed counterexample (or a vacuous witness, or a missed defect) |
| `unknown` | `<error>` | a budget ran out or the solver gave up: nothing is claimed (exit 4) |
| `bounded` | `<skipped>` | no violation up to a depth only; neither a pass nor a failure |
| `killed` / `survived` | pass / `<failure>` | a generated mutant (`rulecheck mutate`) some check tells apart, or none |
| `equivalent`, `invalid` | `<skipped>` | a mutant that is the original, or that does not build: not scored |

Output is deterministic for a deterministic run: no timestamps or host names, results in the
order the command produced them, times rounded to 0.1 s. Control characters and bidirectional
overrides from user text (a proposal's name, a scenario's labels) are shown as visible escapes
(checks/formats/terminal.py `clean`): raw, they make the XML invalid and reorder what a CI page shows.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from checks.formats.outputs import write_atomic
from checks.formats.terminal import clean
from checks.results import CheckResult, summary_verdict

PASS = ("holds", "proved", "caught", "killed")
FAIL = ("violated", "missed", "survived")
SKIPPED = ("bounded", "equivalent", "invalid", "not-applicable")
ICON = {"pass": "✅", "failure": "❌", "error": "⚠️", "skipped": "➖"}


def outcome(verdict: str) -> str:
    """The JUnit outcome of a verdict: pass, failure, error or skipped.

    >>> [outcome(v) for v in ("holds", "violated", "unknown", "bounded")]
    ['pass', 'failure', 'error', 'skipped']
    """
    if verdict in PASS:
        return "pass"
    if verdict in FAIL:
        return "failure"
    if verdict in SKIPPED:
        return "skipped"
    return "error"  # unknown, and anything a later engine adds: never silently a pass


def _model_of(r: CheckResult, model):
    m = r.model
    return m if m is not None else model


def _names(results: list[CheckResult]) -> list[str]:
    """Unique test-case names: a check reported several times (per observer) gets a suffix."""
    seen: dict = {}
    for r in results:
        seen[r.id] = seen.get(r.id, 0) + 1
    out: list = []
    n: dict = {}
    for r in results:
        if seen[r.id] == 1:
            out.append(r.id)
            continue
        n[r.id] = n.get(r.id, 0) + 1
        who = r.observer
        out.append(f"{r.id} [{who}]" if who else f"{r.id} [{n[r.id]}]")
    return out


def _trace_text(r: CheckResult, model) -> str:
    if r.verdict == "error":  # not a counterexample: the failure and the game the check was working on
        from checks.formats.report import error_lines
        return "\n".join(error_lines(r, _model_of(r, model)))
    lines = []
    if r.trace is not None:
        m = _model_of(r, model)
        lines.append(f"counterexample ({r.trace.depth} steps, replayed):")
        lines.append(r.trace.narrative(m) if m is not None else "\n".join(r.trace.labels))
    note = (r.minimised or {}).get("note")
    if note:
        lines.append(f"minimised: {note}")
    if r.trace_path:
        lines.append(f"saved as {r.trace_path}")
    return "\n".join(lines)


def _secs(x: float) -> str:
    return f"{round(x or 0.0, 1):.1f}"


def junit_xml(results: list[CheckResult], command: str, proposal, seed: int, seconds: float, model=None) -> str:
    """JUnit XML: one <testsuite> for the command, one <testcase> per CheckResult."""
    kinds = [outcome(r.verdict) for r in results]
    counts = {"tests": str(len(results)), "failures": str(kinds.count("failure")),
              "errors": str(kinds.count("error")), "skipped": str(kinds.count("skipped")),
              "time": _secs(seconds)}
    root = ET.Element("testsuites", {"name": "rulecheck"} | counts)
    suite = ET.SubElement(root, "testsuite", {"name": f"rulecheck {command}: {proposal.name}"} | counts)
    props = ET.SubElement(suite, "properties")
    for k, v in (("command", command), ("proposal", proposal.name), ("source", proposal.source),
                 ("seed", str(seed)), ("summary", summary_verdict(results)),
                 ("defects", " ".join(getattr(proposal, "defects", ()) or ()))):
        if v:
            ET.SubElement(props, "property", {"name": k, "value": v})
    for r, name, kind in zip(results, _names(results), kinds):
        case = ET.SubElement(suite, "testcase", {"classname": f"rulecheck.{command}.{r.kind}", "name": name,
                                                 "time": _secs(r.seconds)})
        cp = ET.SubElement(case, "properties")
        for k, v in (("verdict", r.verdict), ("engine", r.engine), ("kind", r.kind),
                     ("depth", r.depth), ("states", r.states), ("rules", " ".join(r.rules)),
                     ("trace", r.trace_path)):
            if v is not None and v != "":
                ET.SubElement(cp, "property", {"name": k, "value": str(v)})
        if kind == "pass":
            continue
        tag = {"failure": "failure", "error": "error", "skipped": "skipped"}[kind]
        el = ET.SubElement(case, tag, {"type": r.verdict, "message": f"{r.verdict}: {r.detail}"})
        if kind != "skipped":
            el.text = _trace_text(r, model) or r.detail
    ET.indent(root)
    return clean(ET.tostring(root, encoding="unicode", xml_declaration=True)) + "\n"


def _cell(text) -> str:
    return "" if text is None else str(text).replace("|", "\\|").replace("\n", " ")


def summary_markdown(results: list[CheckResult], command: str, proposal, seed: int, states: int | None,
                     seconds: float, model=None) -> str:
    """Markdown for a CI job summary: the verdict table, then each violated check's shortest trace."""
    verdict = summary_verdict(results)
    kinds = [outcome(r.verdict) for r in results]
    head = {"holds": ICON["pass"], "violated": ICON["failure"], "inconclusive": ICON["error"],
            "error": ICON["error"]}[verdict]
    st = f" · {states:,} states" if states is not None else ""
    out = [f"## {head} rulecheck {command}: {verdict}", "",
           f"proposal `{proposal.name}` ({proposal.source}) · seed {seed}{st} · {_secs(seconds)} s", "",
           f"{kinds.count('pass')} passed, {kinds.count('failure')} failed, {kinds.count('error')} inconclusive, "
           f"{kinds.count('skipped')} bounded", "",
           "| | check | kind | verdict | engine | depth | detail |", "| --- | --- | --- | --- | --- | ---: | --- |"]
    for r, name, kind in zip(results, _names(results), kinds):
        out.append(f"| {ICON[kind]} | `{_cell(name)}` | {r.kind} | {r.verdict} | {r.engine} | "
                   f"{_cell(r.depth)} | {_cell(r.detail)} |")
    for r, name, kind in zip(results, _names(results), kinds):
        if kind != "failure" or r.trace is None:
            continue
        m = _model_of(r, model)
        out += ["", f"### {ICON['failure']} `{name}`: {r.verdict} after {r.trace.depth} steps (replayed)", ""]
        mini = r.minimised
        if mini:
            out += [f"Minimised: {mini['note']}.", ""]
        out += [_cell(r.detail), ""]
        if m is not None:
            out += [line.strip() for line in r.trace.narrative(m).splitlines()]
        else:
            out += [f"{i}. `{label}`" for i, label in enumerate(r.trace.labels, 1)]
        if r.trace_path:
            out += ["", f"Scenario: `{r.trace_path}` (replay with `rulecheck replay`)"]
    return clean("\n".join(out)) + "\n"


def write_reports(results: list[CheckResult], command: str, proposal, seed: int, states: int | None,
                  seconds: float, model=None, junit: str | None = None, summary: str | None = None) -> None:
    """Write the JUnit file (replaced) and append the summary (GITHUB_STEP_SUMMARY accumulates steps),
    each atomically (checks/formats/outputs.py). An OSError reaches the caller, which keeps the verdict."""
    if junit:
        write_atomic(junit, junit_xml(results, command, proposal, seed, seconds, model))
    if summary:
        write_atomic(summary, summary_markdown(results, command, proposal, seed, states, seconds, model), append=True)
