"""The HTML report (`--html FILE`): one self-contained page of a run, for a designer to look at.

The page holds the verdict table, the proposal (interpretation, bounds, seed), every
counterexample and witness as a step-by-step board (checks/formats/html_board.py), leak pairs
side by side with the differing observation highlighted, ambiguity pairs in both orders, and for
`compare` the distinguishing games. Hidden faces appear only in the designer's omniscient view,
a toggle that is off when the page opens. CSS and the small script are inline
(checks/formats/html_assets.py): the page loads nothing from anywhere.

A page is a list of sections, each a function returning HTML; `page()` joins them. Another kind
of result (for example the sweep's switches x checks matrix coloured by verdict) is one more
section function added to the list.

`check_path` runs before a command starts (the CLI turns its ValueError into a usage error), and
`write` replaces the file atomically (a temporary file in the same directory, then os.replace).
The same results always give the same bytes: no timestamps, times rounded to the second.

>>> from checks.results import CheckResult
>>> from model.moritani.profiles import PROFILES
>>> text = report([CheckResult(id="x", kind="invariant", verdict="holds", engine="explicit", rules=("R2",))], "check",
...               PROFILES["default"], 0, 10, 1.4)
>>> text.startswith("<!DOCTYPE html>"), "://" in text, "about 1 s" in text
(True, False, True)
"""
from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from checks.formats.html_assets import CSS, JS
from checks.formats.html_board import Lane, e, viewer
from checks.formats.outputs import check_file, slug, write_atomic
from checks.formats.report import trace_place
from checks.results import DefectResult, summary_verdict
from model.errors import ModelError
from model.trace import Trace

BAD = ("violated", "missed", "caught")  # verdicts whose trace is a counterexample


# -- files ----------------------------------------------------------------------------------------

def check_path(path) -> Path:
    """Raise ValueError (an `OutputError`, with the reason) unless a report can be written at `path`;
    missing directories are created, as `--out` does (checks/formats/outputs.py)."""
    return check_file(path)


def write(path, text: str) -> None:
    """Write the page to `path` atomically: a reader sees the old file or the whole new one."""
    write_atomic(path, text)


# -- the page -------------------------------------------------------------------------------------

def page(title: str, verdict: str, sections: list) -> str:
    """The whole document: a sticky header with the omniscient-view toggle, then the sections."""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)}: {e(verdict)}</title><style>{CSS}</style></head>\n<body>"
            f'<header class="top"><h1>{e(title)}: <span class="v v-{e(verdict)}">{e(verdict)}</span></h1>'
            f'<label class="omnitoggle" title="show what no player sees: hidden faces, private cards, engine state">'
            f'<input type="checkbox" id="omni"> designer\'s omniscient view</label>'
            f'<span class="omnibanner">omniscient: hidden information is shown</span></header>\n'
            f"<main>{''.join(sections)}</main>\n<script>{JS}</script></body></html>\n")


def _seconds(x: float | None) -> str:
    return f"about {round(x or 0.0)} s"


def _source(proposal) -> str:
    src = getattr(proposal, "source", "") or ""
    return Path(src).name if src not in ("", "embedded") else src or "embedded"  # no machine paths in a report


def proposal_section(proposal, seed: int, states, seconds, extra_facts: tuple = ()) -> str:
    """Name, description, source, seed, size of the search; the interpretation and the bounds."""
    doc = proposal.to_json()
    facts = [("proposal", doc["name"]), ("description", getattr(proposal, "description", "")),
             ("source", _source(proposal)), ("seed", seed)]
    if doc.get("defects"):
        facts.append(("seeded defects", ", ".join(doc["defects"])))
    if states is not None:
        facts.append(("states explored", f"{states:,}"))
    facts.append(("time", _seconds(seconds)))
    facts += list(extra_facts)
    dl = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts if v not in ("", None))
    interp = "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in doc["interpretation"].items())
    bounds = "".join(f"<tr><td>{e(k)}</td><td>{e(_value(v))}</td></tr>" for k, v in doc["bounds"].items())
    return (f'<section id="proposal"><h2>Proposal</h2><dl class="facts">{dl}</dl>'
            f'<details><summary>interpretation and bounds</summary><div class="panels">'
            f"<table><tr><th>switch</th><th>choice</th></tr>{interp}</table>"
            f"<table><tr><th>bound</th><th>value</th></tr>{bounds}</table></div></details></section>")


def _value(v) -> str:
    if isinstance(v, list):
        return ", ".join(_value(x) for x in v) if v else "none"
    return "none" if v is None else str(v)


def verdict_table(results: list, anchors: dict) -> str:
    """id, kind, verdict, engine, depth, detail and catalogue IDs; an id links to its trace."""
    rows = []
    for i, r in enumerate(results):
        name = e(r.id) + (f" [{e(r.observer)}]" if r.observer else "")
        link = f'<a href="#{anchors[i]}">{name}</a>' if i in anchors else name
        rows.append(f'<tr><td>{link}</td><td>{e(r.kind)}</td><td><span class="v v-{e(r.verdict)}">{e(r.verdict)}'
                    f'</span></td><td>{e(r.engine)}</td><td>{"" if r.depth is None else r.depth}</td>'
                    f'<td class="detail">{e(r.detail)}</td><td>{e(" ".join(r.rules))}</td></tr>')
    return (f'<section id="verdicts"><h2>Verdicts</h2><table class="verdicts"><tr><th>check</th><th>kind</th>'
            f"<th>verdict</th><th>engine</th><th>depth</th><th>detail</th><th>catalogue IDs</th></tr>"
            f"{''.join(rows)}</table></section>")


def notes_section(notes) -> str:
    return ("<section><h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul></section>"
            if notes else "")


def _badge(r) -> str:
    if r.kind == "witness":
        return f"reaches {r.id}"
    if r.kind == "defect":
        return f"{(r.caught_by or r.target) if isinstance(r, DefectResult) else None} fires"
    if r.kind == "noninterference":
        return "game A of a leak"
    return f"violates {r.id}"


def _title(r) -> str:
    who = f" [{r.observer}]" if r.observer else ""
    return f"{r.id}{who}: {r.verdict} after {r.trace.depth} steps ({r.kind}, replayed)"


def explore_command(command: str, proposal, path: str | None, folder: str, name: str) -> str:
    """The command line that opens a trace in the explorer (`rulecheck explore --serve`), as text to copy:
    from its scenario file when this run saved it (`--out`), else after a run that saves it."""
    if path:
        line = f"rulecheck explore --serve --from {shlex.quote(path)}"
    else:
        prop = proposal.name if _source(proposal) == "embedded" else _source(proposal)
        line = (f"rulecheck {command} --proposal {shlex.quote(prop)} --out traces && rulecheck explore --serve "
                f"--from {shlex.quote(f'traces/{folder}/{name}.scenario.yaml')}")
    return (f'<p class="cmd">open in the explorer (docs/explorer.md): <code class="copy">{e(line)}</code>'
            f"{'' if path else ' (add the options you gave this run)'}</p>")


def _compare_command(args: tuple, side_a: bool, path: str | None, stem: str) -> str:
    """The explorer on the proposal a distinguishing game was found under, comparing with the other."""
    other = args[1] if side_a else args[0]
    src = path or f"traces/compare/{stem}.scenario.yaml"
    line = f"rulecheck explore --serve --from {shlex.quote(src)} --compare {shlex.quote(other)}"
    if not path:
        line = f"rulecheck compare {shlex.quote(args[0])} {shlex.quote(args[1])} --out traces && {line}"
    return f'<p class="cmd">open in the explorer\'s compare mode: <code class="copy">{e(line)}</code></p>'


def _command(r, command: str, proposal) -> str:
    return explore_command(command, proposal, r.trace_path, trace_place(r)[0], slug(r.id))


def ambiguity_viewers(r, model, anchor: str) -> str:
    """The shortest game to where both reactions are pending, then both orders from there."""
    out = [viewer(f"{r.id}: {r.cls or r.verdict}; the shortest game to where both are pending",
                  [Lane("", model, r.trace)], anchor, r.detail, "both reactions pending")]
    lanes, start = [], r.trace.states[-1]
    for order, labels in (r.orders or {}).items():
        events = [x.strip("[]") for x in labels if x.startswith("[")]
        steps = [x for x in labels if not x.startswith("[")]
        try:
            t = Trace.from_actions(model, start, steps)
        except ModelError as err:  # the orders are replayed from the witness state; say so if one is not
            out.append(f"<p>{e(order)}: cannot be drawn ({e(err)}): {e(' ; '.join(labels))}</p>")
            continue
        lanes.append(Lane(order + (f": {', '.join(events)}" if events else ""), model, t,
                          f"{order}: settled after {t.depth} steps"))
    if lanes:
        out.append(viewer(f"{r.id}: both orders from that state", lanes, anchor + "-orders",
                          "the same pending reactions resolved in each order; differences across the two "
                          "games are marked"))
    return "".join(out)


def _leak_key(lk) -> tuple:
    return (lk.check, tuple(lk.game_a.labels), tuple(lk.game_b.labels), lk.component, repr(lk.seen_a),
            repr(lk.seen_b))


def _seen(v) -> str:
    if isinstance(v, dict):
        return "\n".join(f"{k} = {x}" for k, x in v.items())
    return repr(v)


def leak_viewers(leaks, model, anchor: str, command: str = "leaks", proposal=None) -> str:
    """Leak pairs side by side; the pairs several observers share are drawn once."""
    groups: dict = {}
    for lk in leaks:
        groups.setdefault(_leak_key(lk), []).append(lk)
    out = []
    for n, same in enumerate(groups.values()):
        lk = same[0]
        who = ", ".join(x.observer for x in same)
        stuck = lk.component == "public step"  # game B cannot take game A's last step (one step shorter)
        seen = (f'<div class="seen"><b>{e(who)}</b> {"sees" if len(same) == 1 else "see"} a different <b>{e(lk.component)}</b> '
                + ("last: game B cannot take game A's last step" if stuck else "at the end") + ':'
                f'<div class="panels"><div>game A<pre>{e(_seen(lk.seen_a))}</pre></div>'
                f'<div>game B<pre>{e(_seen(lk.seen_b))}</pre></div></div></div>')
        out.append(f'<div class="leak">{seen}')
        out.append(viewer(f"{lk.check}: {who} can tell two games apart ({lk.game_a.depth} steps)",
                          [Lane("game A", model, lk.game_a),
                           Lane("game B", lk.model_b, lk.game_b,
                                f"game B cannot take game A's step {lk.game_a.depth}" if stuck else "")],
                          f"{anchor}-{n}", "the two games differ only in which hidden "
                          f"{model.secrets.domain.lower() if lk.secret == 'value' else 'card'} lies where (omniscient view); every "
                          "public step is the same" + (", but for game A's last, which game B cannot take" if stuck
                                                       else ""), "the observer's view differs"))
        if proposal is not None:
            out.append(explore_command(command, proposal, None, "leaks", f"{lk.check}-{slug(lk.observer)}-A"))
        out.append("</div>")
    return "".join(out)


def report(results: list, command: str, proposal, seed: int, states, seconds: float, model=None,
           notes=(), leaks=()) -> str:
    """The page for check, leaks, ambiguities and selftest.

    A result's trace is drawn with `r.model` when it has one (selftest, --minimise),
    else with `model`. `leaks` are the Leak pairs of `rulecheck leaks` (checks/analyses/leaks.py).
    """
    verdict = summary_verdict(results)
    anchors, bad, ambig, seen, wit = {}, [], [], [], []
    leak_observers = {lk.observer for lk in leaks}
    for i, r in enumerate(results):
        m = r.model or model
        if r.trace is None or m is None:
            continue
        anchors[i] = f"t{i}"
        cmd = _command(r, command, proposal)
        if r.kind == "ambiguity" or (r.kind == "defect" and r.orders):
            ambig.append(ambiguity_viewers(r, m, anchors[i]) + cmd)
        elif r.kind == "noninterference" and r.observer in leak_observers:
            anchors[i] = "leaks"
        elif r.verdict in BAD:
            bad.append(viewer(_title(r), [Lane("", m, r.trace)], anchors[i], r.detail, _badge(r)) + cmd)
        elif r.kind == "witness" and r.verdict != "error":  # an error's game is the one its check was working on
            wit.append(viewer(_title(r), [Lane("", m, r.trace)], anchors[i], r.detail, _badge(r)) + cmd)
        else:
            seen.append(viewer(_title(r), [Lane("", m, r.trace)], anchors[i], r.detail) + cmd)
    sections = [proposal_section(proposal, seed, states, seconds, (("command", f"rulecheck {command}"),)),
                verdict_table(results, anchors), notes_section(notes)]
    if bad:
        sections.append('<section><h2>Counterexamples</h2><p class="sub">Step through with the controls or the '
                        'arrow keys; "last" jumps to the step that fails.</p>' + "".join(bad) + "</section>")
    if leaks:
        sections.append('<section id="leaks"><h2>Leak pairs</h2>' + leak_viewers(leaks, model, "leak", command, proposal)
                        + "</section>")
    if ambig:
        sections.append("<section><h2>Ambiguous orders</h2>" + "".join(ambig) + "</section>")
    if seen:
        sections.append("<section><h2>Other traces</h2>" + "".join(seen) + "</section>")
    if wit:
        sections.append(f"<section><h2>Witnesses</h2><details><summary>{len(wit)} reachable examples "
                        f"(the rule is not vacuous)</summary>" + "".join(wit) + "</details></section>")
    return page(f"rulecheck {command}", verdict, sections)


def _difference_viewer(c, d, anchor: str) -> str:
    """One distinguishing game; a step game shows the other proposal's replay beside it."""
    side, other = (c.b, c.a) if d.direction == "only-b" else (c.a, c.b)
    if d.kind == "outcome":
        return viewer(f"an outcome reachable under {side.proposal.name}, never under {other.proposal.name} "
                      f"({d.depth} steps)", [Lane(side.proposal.name, side.model, d.trace)], anchor,
                      f"differs in: {d.what}", "distinguishing end")
    if d.kind == "verdict":
        return viewer(f"under {side.proposal.name} only: {d.what} ({d.depth} steps)",
                      [Lane(side.proposal.name, side.model, d.trace)], anchor, "", d.what)
    refused = (f"{other.proposal.name} refuses step {d.refused_at}" if d.refused_at else "")
    return viewer(f"the steps differ ({d.depth} steps): {d.what}",
                  [Lane(side.proposal.name, side.model, d.trace),
                   Lane(other.proposal.name, other.model, d.other, refused)], anchor,
                  "the same steps under both proposals" + (f"; {refused}" if refused else
                                                            ", ending the turn differently"),
                  "distinguishing step")


def switch_table(switches: Sequence) -> str:
    """compare --per-switch: one row per switch on which A and B differ, linking to its distinguishing game."""
    from checks.formats.compare_report import why_same
    rows = []
    for sw, s in switches:
        d = min(s.differences, key=lambda d: d.depth or 0) if s.differences else None
        if d is not None:
            what = f'<a href="#sw-{e(sw.key)}">{e(d.kind)} game, {d.depth} steps</a>: {e(d.what)}'
        else:
            what = e(why_same(s))
        rows.append(f'<tr class="{"differs" if d is not None else ""}"><td>{e(sw.key)}</td><td>{e(", ".join(sw.ids))}'
                    f'</td><td>{e(s.a.proposal.interpretation.choice(sw.key))}</td>'
                    f'<td>{e(s.b.proposal.interpretation.choice(sw.key))}</td><td><span class="v v-{e(s.verdict)}">'
                    f'{e(s.verdict)}</span></td><td class="detail">{what}</td></tr>')
    return (f'<section id="per-switch"><h2>Per switch</h2><p class="sub">A against A with only that switch set as '
            f'in B</p><table class="verdicts"><tr><th>switch</th><th>catalogue IDs</th><th>A</th><th>B</th>'
            f'<th>verdict</th><th>distinguishing game, or what backs "no game tells them apart"</th></tr>'
            f"{''.join(rows)}</table></section>")


def comparison(c, seed: int, paths: dict | None = None, args: tuple = ("A", "B"), switches: Sequence = ()) -> str:
    """The page for compare: both proposals, the per-switch table (with --per-switch, each row linking to its
    distinguishing game), the verdicts side by side, the distinguishing games (each with the command that opens
    it in the explorer's compare mode; `paths` {id(difference): its scenario file} when --out saved them,
    `args` the two proposals as the command line named them)."""
    from checks.formats.compare_report import backing_text, game_stem
    na, nb = c.a.proposal.name, c.b.proposal.name
    ia, ib = c.a.proposal.to_json()["interpretation"], c.b.proposal.to_json()["interpretation"]
    rows = "".join(f'<tr class="{"differs" if ia[k] != ib.get(k) else ""}"><td>{e(k)}</td><td>{e(ia[k])}</td>'
                   f"<td>{e(ib.get(k))}</td></tr>" for k in ia)
    table = "".join(f'<tr class="{"" if va == vb else "differs"}"><td>{e(i)}</td><td><span class="v v-{e(va)}">'
                    f'{e(va)}</span></td><td><span class="v v-{e(vb)}">{e(vb)}</span></td></tr>'
                    for i, va, vb in c.table())
    ea, eb = c.a.exploration, c.b.exploration
    facts = (f'<dl class="facts"><dt>A</dt><dd>{e(na)} ({e(_source(c.a.proposal))})</dd><dt>B</dt>'
             f'<dd>{e(nb)} ({e(_source(c.b.proposal))})</dd><dt>seed</dt><dd>{seed}</dd><dt>explored</dt>'
             f"<dd>A: {len(ea.states):,} states, {len(c.a.outcomes):,} end-of-turn outcomes; B: {len(eb.states):,} "
             f"states, {len(c.b.outcomes):,} end-of-turn outcomes</dd><dt>time</dt><dd>{_seconds(c.seconds)}</dd></dl>")
    sections = [f'<section id="proposal"><h2>Proposals</h2>{facts}<table><tr><th>switch</th><th>A: {e(na)}</th>'
                f"<th>B: {e(nb)}</th></tr>{rows}</table></section>"]
    if switches:
        sections.append(switch_table(switches))
    sections.append(f'<section id="verdicts"><h2>Verdicts</h2><table><tr><th>check</th><th>A</th><th>B</th></tr>'
                    f"{table}</table></section>")
    games = [_difference_viewer(c, d, f"d{n}") + _compare_command(args, d.direction != "only-b", (paths or {}).get(id(d)),
                                                                   game_stem(c, d))
             for n, d in enumerate(c.differences) if d.trace is not None]
    if games:
        sections.append("<section><h2>Distinguishing games</h2>" + "".join(games) + "</section>")
    elif c.verdict == "same":
        sections.append(f"<section><h2>Distinguishing games</h2><p>No game within the bounds tells A and B apart: "
                        f"{e(backing_text(c))}; the same end-of-turn outcomes and verdicts.</p></section>")
    else:
        sections.append(f"<section><h2>Distinguishing games</h2><p>Inconclusive: {e(c.reason)}; nothing is "
                        f"claimed.</p></section>")
    per = []
    for sw, s in switches:
        d = min(s.differences, key=lambda d: d.depth or 0) if s.differences else None
        if d is not None and d.trace is not None:
            per.append(_difference_viewer(s, d, f"sw-{sw.key}"))
    if per:
        sections.append("<section><h2>Per switch: distinguishing games</h2>" + "".join(per) + "</section>")
    return page(f"rulecheck compare {na} vs {nb}", c.verdict, sections)
