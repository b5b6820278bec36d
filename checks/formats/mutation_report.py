"""The `rulecheck mutate` report: text (per-operator table, score, survivors), the contract's JSON (one
check of kind `mutant` per mutant), a Markdown CI summary, and the killing traces under `--out`.

JUnit goes through checks/formats/cireport.py: a killed mutant passes, a survivor is a failure, an
`unknown` or `error` one an error, `equivalent` and `invalid` ones are skipped.

>>> from checks.results import MutantResult
>>> r = MutantResult(id="drop-effect@r.x", kind="mutant", verdict="survived", engine="explicit", rules=("R1",),
...                 extra={"operator": "drop-effect", "rule": "r", "change": "drops the effect x := 1"})
>>> survivor_lines([r])
['drop-effect@r.x  (r; R1): drops the effect x := 1']
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from checks.formats.report import VERSION
from checks.formats.scenario import dump
from checks.formats.terminal import clean

COLUMNS = ("generated", "checked", "valid", "killed", "survived", "equivalent", "unknown", "invalid", "error")


def _rows(tally: dict, generated: dict) -> list:
    rows = []
    for op, row in tally["operators"].items():
        rows.append((op, {"generated": generated.get(op, 0), "valid": row["checked"] - row["invalid"]} | row))
    total = tally["total"]
    rows.append(("total", {"generated": sum(generated.values()), "valid": total["checked"] - total["invalid"]}
                 | total))
    return rows


def operator_table(tally: dict, generated: dict) -> dict:
    """{operator: {column: count}} with a `total` row (the JSON's `mutation.operators`)."""
    return {op: {c: row[c] for c in COLUMNS} for op, row in _rows(tally, generated)}


def _score_text(tally: dict) -> str:
    t = tally["total"]
    if tally["score"] is None:
        return "mutation score: none (no mutant was killed or survived)"
    text = (f"mutation score: {tally['score']:.3f} = killed {t['killed']} / (killed {t['killed']} + "
            f"survived {t['survived']}); {t['equivalent']} equivalent, {t['unknown']} unknown, "
            f"{t['invalid']} invalid" + (f", {t['error']} ended in an internal error" if t["error"] else "")
            + " (not scored)")
    if tally["score_range"]:
        lo, hi = tally["score_range"]
        text += f"; between {lo:.3f} and {hi:.3f} whichever way the unknown ones turn out"
    return text


def survivor_lines(results: list) -> list:
    return [f"{r.id}  ({r.rule}; {', '.join(r.rules) or 'no catalogue ID'}): {r.change}"
            for r in results if r.verdict == "survived"]


def to_text(results: list, tally: dict, proposal, seed: int, meta: dict) -> str:
    lines = [f"rulecheck {VERSION} | mutate | proposal: {proposal.name} ({proposal.source}) | seed {seed}",
             f"original: {meta['states']:,} states, every check complete; mutant budget "
             f"{meta['budget']:,} states each",
             f"generated {sum(meta['generated'].values()):,} mutants; checked {len(results)} "
             + ("(all)" if len(results) == sum(meta['generated'].values())
                else f"(a sample: --max-mutants {meta['max_mutants']}, --seed {seed})"), ""]
    w = max(len(op) for op, _ in _rows(tally, meta["generated"]))
    lines.append(f"{'operator':<{w}}  " + "  ".join(f"{c:>10}" for c in COLUMNS))
    for op, row in _rows(tally, meta["generated"]):
        lines.append(f"{op:<{w}}  " + "  ".join(f"{row[c]:>10,}" for c in COLUMNS))
    lines += ["", _score_text(tally)]
    surv = survivor_lines(results)
    if surv:
        lines += ["", f"survivors ({len(surv)}): rule, catalogue IDs, change"] + [f"  {s}" for s in surv]
    for verdict, title in (("unknown", "unknown (not scored)"), ("invalid", "invalid (not scored)"),
                           ("error", "error: the run failed inside the tool; neither killed nor survived, not "
                                     "scored (a bug in rulecheck: please report it)")):
        some = [r for r in results if r.verdict == verdict]
        if some:
            lines += ["", f"{title} ({len(some)}):"] + [f"  {r.id}: {r.detail}" for r in some]
    if meta.get("original_errors"):
        lines += ["", f"the original's check(s) {', '.join(meta['original_errors'])} ended in an internal error: no "
                      f"mutant is compared on them"]
    meets = {True: "meets", False: "is below", None: "may or may not meet"}[meta["meets_min_score"]]
    lines += ["", f"summary: {meta['verdict']} (the score {meets} --min-score {meta['min_score']}; "
                  f"{meta['seconds']:.1f}s)"]
    return "\n".join(lines)


def to_json(results: list, tally: dict, proposal, seed: int, meta: dict) -> str:
    t = tally["total"]
    doc = {
        "schema_version": 1, "tool": "rulecheck", "version": VERSION, "seed": seed,
        "proposal": proposal.to_json(),
        "checks": [r.to_json() for r in results],
        "summary": {"verdict": meta["verdict"], "score": tally["score"], "score_range": tally["score_range"],
                    "meets_min_score": meta["meets_min_score"],
                    **{k: t[k] for k in ("killed", "survived", "equivalent", "unknown", "invalid", "error")},
                    "generated": sum(meta["generated"].values()), "checked": len(results),
                    "states": meta["states"], "seconds": round(meta["seconds"], 3)},
        "mutation": {"operators": operator_table(tally, meta["generated"]), "max_mutants": meta["max_mutants"],
                     "budget_states": meta["budget"], "min_score": meta["min_score"]},
    }
    return json.dumps(doc, indent=2)


def summary_markdown(results: list, tally: dict, proposal, seed: int, meta: dict) -> str:
    """Markdown for a CI job summary: the score, the per-operator table and every survivor."""
    icon = {"holds": "✅", "violated": "❌", "inconclusive": "⚠️", "error": "⚠️"}[meta["verdict"]]
    score = "none" if tally["score"] is None else f"{tally['score']:.3f}"
    out = [f"## {icon} rulecheck mutate: score {score} ({meta['verdict']})", "",
           f"proposal `{proposal.name}` ({proposal.source}) · seed {seed} · {len(results)} mutants checked · "
           f"{meta['seconds']:.1f} s", "", _score_text(tally), "",
           "| operator | " + " | ".join(COLUMNS) + " |", "| --- |" + " ---: |" * len(COLUMNS)]
    for op, row in _rows(tally, meta["generated"]):
        out.append(f"| {op} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    surv = [r for r in results if r.verdict == "survived"]
    if surv:
        out += ["", "### Survivors", "", "| mutant | rule | catalogue IDs | change |", "| --- | --- | --- | --- |"]
        out += [f"| `{r.id}` | {r.rule} | {', '.join(r.rules)} | {_cell(r.change)} |"
                for r in surv]
    return clean("\n".join(out)) + "\n"  # user text never reaches a CI page raw (cireport)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def write_traces(out: Path, results: list, model_of) -> None:
    """`--out DIR`: for each killed mutant with a trace, the killing trace in game words as
    DIR/mutants/<id>.yaml (a mutant is not a proposal, so this is not a scenario file that `rulecheck
    replay` could rebuild); `model_of(result)` is the mutant model the trace replays on. The pipeline
    writes the JSON report next to them as DIR/mutation.json."""
    used: set = set()
    for r in results:
        if r.verdict != "killed" or r.trace is None:
            continue
        m = model_of(r)
        steps, pre = [], r.trace.init
        for st in r.trace.steps:
            steps.append({"do": st.action, "says": m.narrate(m, m.action(st.action), pre, st.state)
                          if m.narrate else st.action})
            pre = st.state
        doc = {"mutant": r.id, "rule": r.rule, "cites": list(r.rules), "change": r.change,
               "killed_by": r.killed_by, "on": r.trace_on or "proposal", "steps": steps}
        name = re.sub(r"[^A-Za-z0-9._@=+~-]", "_", r.id)
        while name in used:
            name += "_"
        used.add(name)
        path = out / "mutants" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(doc), encoding="utf-8")
        r.trace_path = str(path)
