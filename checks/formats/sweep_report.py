"""The sweep's files and reports: `sweep.jsonl` (one JSON line per combination), the summary as text,
JSON and HTML, and the smallest violations' counterexamples as scenario files.

`sweep.jsonl` grows by whole lines (checks/formats/outputs.py `append_line`), in the order the
combinations finish; once every combination has a line it is rewritten (atomically) in combination
order, so two sweeps of the same space give the same file whatever ran them, apart from the times,
which sit in each line's `seconds` field alone. Keys are sorted. A line is one row, declared once
(`row_schema`): what `--resume` reads is checked against it, and a bad row is a bad input file (exit
3, at its line) rather than a KeyError or an extra combination.

>>> rows = [{"id": "A4=x", "index": 0, "seconds": {"check": 1.5}}]
>>> row_line(rows[0])
'{"id": "A4=x", "index": 0, "seconds": {"check": 1.5}}'
>>> [without_times(r) for r in rows]
[{'id': 'A4=x', 'index': 0}]
"""
from __future__ import annotations

import json
from pathlib import Path

from checks.analyses.sweep_summary import explain, smallest_violations
from checks.formats.outputs import append_line, inside, slug, write_atomic, write_new
from checks.formats.scenario import dump
from checks.formats.schema import Choice, Integer, ListOf, MapOf, Number, Record, Text
from checks.results import summary_of
from model.errors import InputError

ROWS = "sweep.jsonl"
DECIDED = ("holds", "bounded", "violated")
SCENARIO_DIR = "violations"
SHOWN_GROUPS = 10  # merged groups listed in the text summary (all of them in JSON)
MATRIX_ROWS = 1000  # combinations drawn in the HTML matrix (all of them in sweep.jsonl)
EVERYWHERE = "holds on every combination"
WHERE_IT_APPLIES = "holds on every combination where it exists"
NOT_APPLICABLE = "not-applicable"


# -- sweep.jsonl ----------------------------------------------------------------------------------

def row_line(row: dict) -> str:
    return json.dumps(row, sort_keys=True)


def without_times(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "seconds"}


def append_row(path: Path, row: dict) -> None:
    append_line(path, row_line(row))


def row_schema(axes: tuple, combinations: int, scenario: Record) -> Record:
    """One line of `sweep.jsonl` (what `Sweep.row` in checks/pipelines/sweep.py writes): `scenario`
    is the scenario file's schema, which each stored counterexample must meet. Verdicts are any short
    text: the summary reads `holds` and `violated` and counts the rest as undecided."""
    check_id, text = Text(200), Text(10_000, multiline=True)
    return Record({
        "sweep": Text(64), "index": Integer(0, combinations - 1), "id": Text(10_000),
        "combination": Record({a.key: Choice(tuple(a.choices)) for a in axes}, required=tuple(a.key for a in axes),
                              what="switch"),
        "distance": Integer(0, len(axes)), "status": Choice(("done", "failed")),
        "error": Text(10_000, multiline=True, optional_null=True), "model": Text(64, optional_null=True),
        "same_model_as": Text(10_000, optional_null=True), "states": Integer(0, 10**12, null=True),
        "verdicts": MapOf(check_id, Text(40)), "depths": MapOf(check_id, Integer(0, 10**9, null=True)),
        "seconds": MapOf(Text(40), Number()),
        "checks": MapOf(check_id, Record({"kind": Text(40), "rules": ListOf(text)}, required=("kind", "rules"))),
        "counterexamples": MapOf(check_id, scenario),
        "proofs": MapOf(check_id, Text(40)), "proof_engines": MapOf(check_id, Text(40)),
    }, required=("sweep", "index", "id", "combination", "distance", "status", "error", "model", "same_model_as",
                 "states", "verdicts", "depths", "seconds"), what="row key")


def read_rows(path: Path, check=None) -> tuple[list, int]:
    """The rows of an existing file, and how many lines were not read: the last line when it does not end
    in a newline (cut short by a kill, a crash or a full disk while it was written; never one this tool
    left behind: `append_line` takes a failed line back), a blank line aside. `check(row, line)` (the
    pipeline's, for `--resume`) raises on a line that is not a row of this sweep, a line that is not
    JSON included (InputError at its line); without it such lines are counted and skipped."""
    rows: list[dict] = []
    bad = 0
    if not path.exists():
        return rows, bad
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    bad += lines.pop() != ""  # the text after the last newline: a line cut short, or nothing
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as e:
            if check is not None:
                raise InputError(str(path), n, getattr(e, "colno", None),
                                 f"not a JSON row ({getattr(e, 'msg', e)}); each line of {ROWS} is one JSON object"
                                 f" that rulecheck wrote: remove the line to run its combination again") from None
            bad += 1
            continue
        if check is not None:
            check(row, n)
            rows.append(row)
        elif isinstance(row, dict) and "id" in row and "sweep" in row:
            rows.append(row)
        else:
            bad += 1
    return rows, bad


def rewrite_sorted(path: Path, rows: list) -> None:
    """The finished file, in combination order (atomic: a reader sees the old file or the new one)."""
    write_atomic(path, "".join(row_line(r) + "\n" for r in sorted(rows, key=lambda r: r["index"])))


# -- the summary ----------------------------------------------------------------------------------

def _check_catalogue(rows: list) -> dict:
    """{check id: {"kind", "rules"}} from the rows that carry it (the first model checked of each group)."""
    out: dict = {}
    for r in sorted(rows, key=lambda r: r["index"]):
        for cid, info in (r.get("checks") or {}).items():
            out.setdefault(cid, info)
    return out


def summarize(rows: list, axes: tuple) -> list:
    """Per check: the aggregate verdict, the "holds iff" statement checked against every row where the check
    exists, where it exists ("applies iff", when not everywhere), and the smallest violating combinations.

    A check that a combination's model does not have (a check of one switch's choice only) is
    `not-applicable` there: neither holds nor unknown, and it never makes the sweep inconclusive. The
    aggregate verdict is `violated` if violated on some combination, else `error` if it failed inside the
    tool on some, else `unknown` if undecided on some (`unknown_on` names them) or if a combination failed
    (then nothing is known of it there), else `holds` (wherever it exists)."""
    done = [r for r in rows if r["status"] == "done"]
    failed = len(rows) - len(done)
    catalogue = _check_catalogue(done)
    for r in done:
        for cid in r["verdicts"]:
            catalogue.setdefault(cid, {"kind": "invariant", "rules": []})
    axis_choices = tuple((a.key, a.choices) for a in axes)
    labels = {a.key: a.label for a in axes}
    checks = []
    for cid, info in catalogue.items():
        verdicts = [r["verdicts"].get(cid, NOT_APPLICABLE) for r in done]
        present = [(r, v) for r, v in zip(done, verdicts) if v != NOT_APPLICABLE]
        decided = [(r["combination"], v != "violated") for r, v in present if v in DECIDED]
        ex = explain(decided, axis_choices, labels, undecided=len(present) - len(decided) + failed)
        counts = {v: verdicts.count(v) for v in ("holds", "violated", "unknown", "error", NOT_APPLICABLE)}
        verdict = summary_of(v for _, v in present)
        verdict = {"violated": "violated", "error": "error", "inconclusive": "unknown",
                   "holds": "unknown" if failed else "holds"}[verdict]
        applies = _applies(done, cid, axis_choices, labels) if counts[NOT_APPLICABLE] else None
        statement = ex.statement
        if applies is not None and statement == EVERYWHERE:
            statement = WHERE_IT_APPLIES
        smallest = smallest_violations(done, cid)
        proof = _proof_summary(done, cid, axis_choices, labels, failed) if any("proofs" in r for r in done) else {}
        checks.append({"id": cid, "kind": info.get("kind", "invariant"), "verdict": verdict, "engine": "explicit",
                       "rules": list(info.get("rules", [])), "holds_iff": statement, "applies_iff": applies,
                       "depends_on": list(ex.depends_on), "statement_agrees": f"{ex.agrees}/{ex.decided}",
                       "holds_on": counts["holds"], "violated_on": counts["violated"], "undecided_on": ex.undecided,
                       "not_applicable_on": counts[NOT_APPLICABLE],
                       "unknown_on": [r["id"] for r, v in present if v == "unknown"],
                       "error_on": [r["id"] for r, v in present if v == "error"],
                       "smallest_violations": [{"combination": r["id"], "distance": r["distance"],
                                                "depth": r["depths"].get(cid), "trace": None} for r in smallest],
                       "trace": None, **proof})
    return checks


def _proof_summary(done: list, cid: str, axis_choices: tuple, labels: dict, failed: int) -> dict:
    """`sweep --prove`: the check's proofs for games of any length over the combinations where it is an
    invariant. `proved_iff` is the "holds iff" statement over the proofs (proved against violated; a proof
    that ended `bounded` or `unknown` is undecided there, and `unproved_on` names it); the aggregate
    `proof_verdict` is `violated` if a proof found a counterexample somewhere, else `error`, else
    `unknown` if some combination is unproved (or failed), else `proved`. A check that no combination
    proves (a step property, a witness) has no proof fields."""
    present = [(r, r["proofs"][cid]) for r in done if cid in (r.get("proofs") or {})]
    if not present:
        return {}
    decided = [(r["combination"], v == "proved") for r, v in present if v in ("proved", "violated")]
    ex = explain(decided, axis_choices, labels, undecided=len(present) - len(decided) + failed)
    kinds = {v for _, v in present}
    verdict = ("violated" if "violated" in kinds else "error" if "error" in kinds
               else "unknown" if kinds - {"proved"} or failed else "proved")
    statement = "proved" + ex.statement[len("holds"):] if ex.statement.startswith("holds") else ex.statement
    return {"proof_verdict": verdict, "proved_iff": statement, "proved_on": sum(v == "proved" for _, v in present),
            "unproved_on": [r["id"] for r, v in present if v not in ("proved", "violated", "error")],
            "proof_error_on": [r["id"] for r, v in present if v == "error"]}


def _applies(done: list, cid: str, axis_choices: tuple, labels: dict) -> str:
    """Where a check exists, as a statement over the switches (`explain` fitted to "has it" per row)."""
    where = explain([(r["combination"], cid in r["verdicts"]) for r in done], axis_choices, labels)
    return where.statement.removeprefix("holds iff ")


def save_scenarios(out: Path, checks: list, rows: list) -> int:
    """Each smallest violation's shortest counterexample as a scenario file under out/violations/<check>/,
    recorded with that combination's interpretation (a merged combination builds the same model as
    the one whose search found the trace). A file with the same text already there (a resumed sweep) is
    kept, never duplicated. Returns the number of files written."""
    by_id = {r["id"]: r for r in rows}
    written = 0
    for c in checks:
        for sv in c["smallest_violations"]:
            row = by_id[sv["combination"]]
            first = by_id.get(row.get("same_model_as") or row["id"], row)
            doc = (first.get("counterexamples") or {}).get(c["id"])
            if doc is None:  # a witness with no example has no trace
                continue
            doc = json.loads(json.dumps(doc))
            doc["name"] = f"{c['id']} under {row['id']}"
            doc["setup"]["proposal"]["interpretation"].update(row["combination"])
            path = inside(out, SCENARIO_DIR, slug(c["id"]), f"{slug(row['id'].replace('=', '-'))}.scenario.yaml")
            text = dump(doc)
            if not (path.exists() and path.read_text(encoding="utf-8") == text):
                path = write_new(path, text)
                written += 1
            sv["trace"] = str(path)
        c["trace"] = next((sv["trace"] for sv in c["smallest_violations"] if sv["trace"]), None)
    return written


def sweep_verdicts(checks: list, meta: dict) -> list:
    """The sweep as verdicts for `checks.results.exit_code`: each check's aggregate verdict (a check that
    exists only under some choices counts where it exists), with `--prove` each invariant's aggregate
    proof verdict (unproved somewhere: `unknown`), an `error` per failed combination (its
    task raised or its worker died twice: a failure of the tool, nothing is known there) and an
    `unknown` per combination never run."""
    return ([c["verdict"] for c in checks] + [c["proof_verdict"] for c in checks if "proof_verdict" in c]
            + ["error"] * len(meta["failed"]) + ["unknown"] * meta.get("missing", 0))


def summary_verdict(checks: list, meta: dict) -> str:
    """violated when any check is violated somewhere, else error when a check or a combination failed
    inside the tool, else inconclusive when a check is undecided somewhere, else holds (`summary_of`)."""
    return summary_of(sweep_verdicts(checks, meta))


def to_json(checks: list, proposal, seed: int, meta: dict) -> str:
    return json.dumps({"schema_version": 1, "tool": "rulecheck", "version": "0.1.0", "seed": seed,
                       "proposal": proposal.to_json(), "sweep": meta, "checks": checks,
                       "summary": {"verdict": summary_verdict(checks, meta), "states": meta["states"],
                                   "seconds": round(meta["seconds"], 3)}}, indent=2)


def to_text(checks: list, proposal, seed: int, meta: dict) -> str:
    lines = [f"sweep of {len(meta['switches'])} switch(es) on {proposal.name} (seed {seed}): "
             f"{meta['combinations']} combinations, {meta['models']} distinct models, "
             f"{meta['merged_combinations']} merged; {meta['done']} done, {len(meta['failed'])} failed; "
             f"{meta['seconds']:.1f} s on {meta['where']}"]
    if meta["resumed"]:
        lines.append(f"resumed: {meta['resumed']} combination(s) were already in {meta['file']}")
    for g in meta["merged"][:SHOWN_GROUPS]:
        lines.append(f"same model: {' = '.join(g['combinations'])}")
    if len(meta["merged"]) > SHOWN_GROUPS:
        lines.append(f"... and {len(meta['merged']) - SHOWN_GROUPS} more groups of merged combinations "
                     f"(--format json lists them)")
    for f in meta["failed"]:
        lines.append(f"FAILED {f['combination']}: {f['error']}")
    everywhere = [c["id"] for c in checks if c["holds_iff"] == EVERYWHERE and c["verdict"] == "holds"]
    if everywhere:
        lines.append(f"{len(everywhere)} check(s) hold on every combination: {', '.join(everywhere)}")
    applies = [c for c in checks if c["holds_iff"] == WHERE_IT_APPLIES and c["verdict"] == "holds"]
    if applies:
        lines.append(f"{len(applies)} check(s) exist only on some combinations and hold on every one of them "
                     f"(elsewhere they are not applicable): "
                     + ", ".join(f"{c['id']} (where {c['applies_iff']})" for c in applies))
    rest = [c for c in checks if c["id"] not in everywhere and c not in applies]
    width = max([len(c["id"]) for c in rest] + [5])
    if rest:
        lines.append(f"{'check':<{width}}  {'verdict':<8}  per combination")
    for c in rest:
        lines.append(f"{c['id']:<{width}}  {c['verdict']:<8}  {c['holds_iff']}"
                     + (f" [{c['undecided_on']} undecided]" if c["undecided_on"] else "")
                     + (f" [exists where {c['applies_iff']}]" if c.get("applies_iff") else ""))
        for key, what in (("unknown_on", "unknown on"), ("error_on", "internal error on")):
            if c.get(key):
                lines.append(f"{'':<{width}}  {'':<8}  {what}: {', '.join(c[key][:6])}"
                             + (f" and {len(c[key]) - 6} more" if len(c[key]) > 6 else ""))
        if c["smallest_violations"]:
            d = c["smallest_violations"][0]["distance"]
            shown = ", ".join(("base" if not sv["distance"] else sv["combination"])
                              + (f" ({sv['depth']} steps)" if sv["trace"] else "")
                              for sv in c["smallest_violations"][:4])
            more = len(c["smallest_violations"]) - 4
            lines.append(f"{'':<{width}}  {'':<8}  smallest ({d} switch(es) from the base): {shown}"
                         + (f" and {more} more" if more > 0 else ""))
    lines += _proof_lines(checks)
    verdict = summary_verdict(checks, meta)
    why = ""
    if verdict == "inconclusive":
        why = " (undecided: " + ", ".join([c["id"] for c in checks if c["verdict"] == "unknown"] + [
            f"{c['id']} unproved on {', '.join(c['unproved_on'][:3])}" + ("..." if len(c["unproved_on"]) > 3 else "")
            for c in checks if c.get("proof_verdict") == "unknown" and c["unproved_on"]]) + ")"
    elif verdict == "error":
        why = " (a failure inside the tool: " + ", ".join(
            [f"{len(meta['failed'])} failed combination(s)"] * bool(meta["failed"])
            + [c["id"] for c in checks if c["verdict"] == "error"]) + ")"
    lines.append(f"summary: {verdict}{why}; rows in {meta['file']}")
    return "\n".join(lines)


def _proof_lines(checks: list) -> list:
    """`sweep --prove`: the invariants proved for games of any length wherever they exist, then one line
    per invariant that is not, with its "proved iff" statement and where it is unproved."""
    proved = [c for c in checks if "proof_verdict" in c]
    if not proved:
        return []
    everywhere = [c["id"] for c in proved if c["proof_verdict"] == "proved"]
    lines = [f"proofs (games of any length): {len(everywhere)} of {len(proved)} invariant(s) proved on every "
             f"combination where they exist"]
    for c in proved:
        if c["proof_verdict"] == "proved":
            continue
        lines.append(f"  {c['id']}: {c['proof_verdict']}, {c['proved_iff']}"
                     + (f"; unproved on {', '.join(c['unproved_on'][:6])}" if c["unproved_on"] else "")
                     + (f"; internal error on {', '.join(c['proof_error_on'][:6])}" if c["proof_error_on"] else ""))
    return lines


# -- HTML -----------------------------------------------------------------------------------------

def html_page(checks: list, rows: list, axes: tuple, proposal, seed: int, meta: dict) -> str:
    """The sweep's page: the proposal, the switches x checks matrix coloured by verdict (a row per
    combination, merged ones marked; a column per check that does not hold everywhere), and each
    check's "holds iff" statement."""
    from checks.formats import html
    from checks.formats.html_board import e
    shown = [c for c in checks if c["holds_iff"] != EVERYWHERE or c["verdict"] != "holds"]
    proving = any("proved_iff" in c for c in checks)  # --prove: a column of proofs for games of any length
    everywhere = [c["id"] for c in checks if c["holds_iff"] == EVERYWHERE and c["verdict"] == "holds"]
    head = "".join(f"<th>{e(a.label)}</th>" for a in axes) + "".join(
        f'<th class="mx" title="{e(c["holds_iff"])}"><span>{e(c["id"])}</span></th>' for c in shown)
    body = []
    ordered = sorted(rows, key=lambda r: r["index"])
    for r in ordered[:MATRIX_ROWS]:
        cells = "".join(f"<td>{e(r['combination'][a.key])}</td>" for a in axes)
        for c in shown:
            v = r.get("verdicts", {}).get(c["id"], NOT_APPLICABLE) if r["status"] == "done" else "error"
            mark = "-" if v == NOT_APPLICABLE else v[:1].upper()
            cells += f'<td class="v v-{e(v)}" title="{e(c["id"])}: {e(v)}">{e(mark)}</td>'
        same = f' title="same model as {e(r["same_model_as"])}"' if r.get("same_model_as") else ""
        body.append(f"<tr{same}>{cells}</tr>")
    cut = f" The first {MATRIX_ROWS} are drawn; sweep.jsonl has them all." if len(ordered) > MATRIX_ROWS else ""
    also = f" Hold on every combination (no column): {', '.join(everywhere)}." if everywhere else ""
    stmts = "".join(f'<tr><td>{e(c["id"])}</td><td><span class="v v-{e(c["verdict"])}">{e(c["verdict"])}</span>'
                    f'</td><td>{e(c["holds_iff"])}</td><td>{e(c["statement_agrees"])}</td>'
                    f'<td>{e(", ".join(sv["combination"] for sv in c["smallest_violations"][:4]))}</td>'
                    + (f'<td>{e(c.get("proved_iff", "-"))}</td>' if proving else "") + '</tr>'
                    for c in shown + [c for c in checks if c not in shown])  # the telling ones first
    matrix = (f'<section id="sweep-matrix"><h2>Switches x checks</h2><p>H holds, V violated, U unknown, E an '
              f'internal error or a failed combination, - the check does not exist there; a row per combination ({meta["combinations"]}, {meta["models"]} distinct models).{cut}'
              f'{e(also)}</p><div class="scroll"><table class="verdicts sweep"><tr>{head}</tr>{"".join(body)}'
              f'</table></div></section><section id="sweep-iff"><h2>Per check</h2><table class="verdicts"><tr>'
              f'<th>check</th><th>verdict</th><th>holds iff</th><th>rows agreeing</th><th>smallest violations</th>'
              + ("<th>proved iff (any length)</th>" if proving else "") + f'</tr>{stmts}</table></section>')
    facts = (("combinations", meta["combinations"]), ("distinct models", meta["models"]),
             ("failed", len(meta["failed"])), ("ran on", meta["where"]))
    return html.page("rulecheck sweep", summary_verdict(checks, meta),
                     [html.proposal_section(proposal, seed, meta["states"], meta["seconds"], facts), matrix])
