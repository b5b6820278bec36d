"""The compare report: text, the contract's JSON, and each distinguishing game as a scenario file.

"No game within the bounds tells them apart" is printed only with what backs it (`backing_text`):
identical labelled transition systems or bisimilarity, both decided by the lockstep search
(checks/engines/lockstep.py). Otherwise the report shows the distinguishing game or says why it is
inconclusive.

>>> import dataclasses
>>> from model.moritani import GAME
>>> from checks.analyses.compare import compare_proposals
>>> p = GAME.small(GAME.profiles["default"])
>>> q = dataclasses.replace(p, interpretation=GAME.interpretation((("ambassador-vs-terror", "ambassador-first"),)))
>>> print(to_text(compare_proposals(p, q, GAME.build), seed=0).splitlines()[-1])
no game within the bounds tells A and B apart: identical labelled transition systems (the same 3,550 states and 5,115 labelled transitions under both); the same end-of-turn outcomes and verdicts
"""
from __future__ import annotations

from checks.analyses.compare import Comparison, Difference, scenario_values
from checks.formats.outputs import inside, slug
from checks.formats.proposal import NAME_LENGTH
from checks.formats.scenario import trace_to_scenario, write_scenario
from model.evaluate import apply


def _sides(c: Comparison, d: Difference):
    """(the side whose game `d.trace` is, the other side)."""
    return (c.b, c.a) if d.direction == "only-b" else (c.a, c.b)


def _write(out, stem: str, doc: dict) -> str:
    # A scenario's name has a length limit (the loader's): a long difference is cut, the file says the rest.
    if len(doc["name"]) > NAME_LENGTH:
        doc["name"] = doc["name"][:NAME_LENGTH - 3] + "..."
    # Proposal names are the user's text: slugged, and the path confined to `out` (checks/formats/outputs.py).
    return str(write_scenario(inside(out, "compare", f"{slug(stem)}.scenario.yaml"), doc))


def save(c: Comparison, out) -> dict:
    """Each distinguishing game as a scenario file under `out/compare/`: {id(difference): path}, and for a
    step game also its replay under the other proposal: {(id(difference), 'other'): path}."""
    paths: dict[int | tuple[int, str], str] = {}
    for d in c.differences:
        side, other = _sides(c, d)
        if d.trace is None:
            continue
        sn, on = slug(side.proposal.name, 36), slug(other.proposal.name, 36)
        if d.kind != "steps":
            expect: dict[str, object] = {"reachable": True} if d.kind == "outcome" else (
                {"violates": d.what.split()[0]} if d.what.endswith("violated") else {"reachable": True})
            if d.values:
                expect["values"] = dict(d.values)
            name = f"reachable under {side.proposal.name}, never under {other.proposal.name}: {d.what}"
            doc = trace_to_scenario(side.model, d.trace, side.proposal, name, expect)
            paths[id(d)] = _write(out, game_stem(c, d), doc)
            continue
        if d.direction == "both":  # the same steps under both, a different end of turn: one file each
            for s, t, o in ((c.a, d.trace, c.b), (c.b, d.other, c.a)):
                end = _end(s, t)
                doc = trace_to_scenario(s.model, t, s.proposal, f"under {s.proposal.name}: {d.what}",
                                        {"reachable": True} | ({"values": end} if end else {}))
                paths[id(d) if s is c.a else (id(d), "other")] = _write(
                    out, game_stem(c, d) if s is c.a else f"{slug(s.proposal.name, 36)}-vs-{sn}-steps", doc)
            continue
        doc = trace_to_scenario(side.model, d.trace, side.proposal, f"under {side.proposal.name}: {d.what}",
                                {"reachable": True})
        paths[id(d)] = _write(out, game_stem(c, d), doc)
        last = d.trace.steps[-1].action
        if any(a.label == last for a in other.model.actions):  # a step the other model has, and refuses here
            doc = trace_to_scenario(other.model, d.other, other.proposal,
                                    f"under {other.proposal.name} the rules refuse step {d.refused_at}: {d.what}",
                                    {"blocked_at": d.refused_at})
            pre, post = d.trace.states[-2], d.trace.states[-1]
            says = side.model.narrate(side.model, side.model.action(last), pre, post) if side.model.narrate else last
            doc["steps"].append({"do": last, "says": f"{says} (refused under {other.proposal.name})"})
            paths[(id(d), "other")] = _write(out, f"{on}-refuses-{sn}-steps", doc)
    return paths


def game_stem(c: Comparison, d: Difference) -> str:
    """The file name (without `.scenario.yaml`) under `out/compare/` of the game `save` writes for `d`
    (the one the explorer's compare mode opens)."""
    side, other = _sides(c, d)
    sn, on = slug(side.proposal.name, 36), slug(other.proposal.name, 36)
    if d.kind == "steps" and d.direction == "both":
        return slug(f"{sn}-vs-{on}-steps")
    return slug(f"{sn}-not-{on}-{d.kind}")


def _end(side, trace) -> dict:
    """The end-of-turn outcome at the end of `trace` as a scenario's `values` ({} when the turn goes on)."""
    return scenario_values(side.view, side.view(trace.states[-1]))


def backing_text(c: Comparison) -> str:
    """What backs a 'same' verdict, in words ('' when nothing does)."""
    lock = c.lockstep
    if lock is None:  # no lockstep search ran: nothing backs a 'same' (`Comparison.backing` is None)
        return ""
    if c.backing == "identical" and lock.same_model:
        return (f"identical labelled transition systems: the same model (equal digests of its states, rules and "
                f"checks; {lock.pairs:,} states and {lock.transitions:,} transitions)")
    if c.backing == "identical":
        return (f"identical labelled transition systems (the same {lock.pairs:,} states and {lock.transitions:,} "
                f"labelled transitions under both)")
    if c.backing == "bisimilar":
        return (f"bisimilar (run in lockstep over {lock.pairs:,} pairs of states, both offer the same steps after "
                f"every game and show the same end-of-turn outcome at every end of turn)")
    return ""


def to_json(c: Comparison, seed: int, paths: dict | None = None) -> dict:
    """The compare report (docs/checking.md#compare)."""
    paths = paths or {}
    lock = c.lockstep
    return {
        "schema_version": 1, "tool": "rulecheck", "seed": seed,
        "proposals": {"a": c.a.proposal.to_json(), "b": c.b.proposal.to_json()},
        "table": [{"id": i, "a": va, "b": vb, "same": va == vb} for i, va, vb in c.table()],
        "differences": [_difference_json(d, paths) for d in c.differences],
        "summary": {"verdict": c.verdict, "backing": c.backing, "reason": c.reason,
                    "states": {"a": len(c.a.exploration.states), "b": len(c.b.exploration.states)},
                    "outcomes": {"a": len(c.a.outcomes), "b": len(c.b.outcomes)},
                    "errors": {"a": c.a.error, "b": c.b.error},
                    "lockstep": None if lock is None else {"verdict": lock.verdict, "pairs": lock.pairs,
                                                           "transitions": lock.transitions,
                                                           "same_model": lock.same_model, "reason": lock.reason},
                    "seconds": round(c.seconds, 2)},
    }


def _difference_json(d: Difference, paths: dict) -> dict:
    out = {"kind": d.kind, "direction": d.direction, "what": d.what, "depth": d.depth,
           "actions": [s.action for s in d.trace.steps] if d.trace else [],
           "values": d.values, "trace": paths.get(id(d))}
    if d.kind == "steps":
        out |= {"other_actions": [s.action for s in d.other.steps] if d.other else [],
                "refused_at": d.refused_at, "offers": list(d.offers), "other_trace": paths.get((id(d), "other"))}
    return out


def _offer_words(model, state, labels) -> list:
    """Each label the model offers in `state`, in game words."""
    out = []
    for label in labels:
        a = model.action(label)
        out.append(model.narrate(model, a, state, apply(a, state, model.schema)) if model.narrate else label)
    return out


def difference_lines(c: Comparison, d: Difference, na: str = "A", nb: str = "B") -> list:
    """A difference in words: its head line and its game, step by step (`na`, `nb`: how A and B are named)."""
    side, other = _sides(c, d)
    who, them = (na, nb) if side is c.a else (nb, na)
    if d.kind == "outcome":
        lines = [f"an outcome reachable under {who} and never under {them} ({d.depth} steps):",
                 f"  differs in: {d.what}"]
    elif d.kind == "verdict":
        lines = [f"under {who} only: {d.what} ({d.depth} steps):"]
    else:
        same = ("the same end-of-turn outcomes and verdicts under both, but " if c.complete else "")
        depth = d.depth
        assert depth is not None  # a step difference always carries its game (`step_difference`)
        if d.direction == "both":
            lines = [f"{same}the steps differ ({_steps(depth)}): {d.what}"]
        else:
            lines = [f"{same}the steps differ ({_steps(depth)}): " + (
                f"after the same {_steps(depth - 1)}, the last is" if depth > 1 else "the first step is")
                + f" possible under {who} and refused under {them}:"]
    if d.trace is not None:
        lines.append(d.trace.narrative(side.model))
    if d.kind == "steps" and d.direction != "both" and d.other is not None:
        offers = _offer_words(other.model, d.other.states[-1], d.offers)
        at = d.refused_at
        assert at is not None  # a one-sided step difference names the step the other refuses
        ran = f"the same {_steps(at - 1)} run; instead of step {at}" if at > 1 else \
            "instead of the first step"
        lines.append(f"  under {them} {ran} the rules " + ("offer:" if offers else "offer no step at all"))
        lines += [f"     - {x}" for x in offers]
    return lines


def _steps(n: int) -> str:
    return f"{n} step" + ("" if n == 1 else "s")


def to_text(c: Comparison, seed: int) -> str:
    na, nb = c.a.proposal.name, c.b.proposal.name
    w = max(len(i) for i, _, _ in c.table()) if c.table() else 10
    lines = [f"compare A={na} B={nb} (seed {seed})", "",
             f"{'check':{w}}  {'A':9} {'B':9}"]
    for i, va, vb in c.table():
        lines.append(f"{i:{w}}  {va:9} {vb:9}" + ("" if va == vb else "  <- differs"))
    lines.append("")
    ea, eb = c.a.exploration, c.b.exploration
    lines.append(f"A: {len(ea.states):,} states, {len(c.a.outcomes):,} end-of-turn outcomes; "
                 f"B: {len(eb.states):,} states, {len(c.b.outcomes):,} end-of-turn outcomes ({c.seconds:.1f}s)")
    if c.verdict == "same":
        lines.append(f"no game within the bounds tells A and B apart: {backing_text(c)}; the same end-of-turn "
                     f"outcomes and verdicts")
    elif c.verdict == "inconclusive":
        lines.append(f"inconclusive: {c.reason}; nothing is claimed")
    elif c.verdict == "error":
        lines += [f"error: {side} could not be searched: {s.error} (a bug in rulecheck)"
                  for side, s in (("A", c.a), ("B", c.b)) if s.error]
        if c.lockstep is not None and c.lockstep_failed:
            lines.append(f"error: {c.lockstep.reason} (a bug in rulecheck)")
        lines.append(f"error: {len(c.errors)} check(s) failed inside the tool (a bug in rulecheck), so nothing is "
                     f"claimed for them; no other difference was found")
    for d in c.differences:
        lines += [""] + difference_lines(c, d, na, nb)
    return "\n".join(lines)


def _changed_rules(c: Comparison) -> list:
    """Rules one side has and the other has not, or that differ between them (by name)."""
    ra = {r.name: r for r in c.a.model.rules}
    rb = {r.name: r for r in c.b.model.rules}
    return sorted(n for n in set(ra) | set(rb) if n not in ra or n not in rb or ra[n] != rb[n])


def why_same(c: Comparison) -> str:
    """Why no game within the bounds tells the two apart, with what backs it; or why nothing is claimed.
    Only a 'same' verdict (backed by the lockstep search) gives the first; the rest is 'unknown'."""
    if c.verdict != "same":
        return f"unknown: {c.reason}" if c.verdict == "inconclusive" else (
            f"error: {len(c.errors)} check(s) failed inside the tool, so nothing is claimed" if c.verdict == "error"
            else "")
    ea, eb = c.a.exploration, c.b.exploration
    parts = [backing_text(c)]
    only = {r.name for r in c.a.model.rules} ^ {r.name for r in c.b.model.rules}
    idle = sorted(n for n in only if n not in ea.fired | eb.fired)
    if idle:
        parts.append(f"the rules only one choice has never fire within the bounds ({', '.join(idle)})")
    changed = [n for n in _changed_rules(c) if n not in only]
    if changed:
        names = f"{', '.join(changed[:4])}{', ...' if len(changed) > 4 else ''}"
        parts.append(f"the {len(changed)} rule(s) whose guard or effects the choice changes ({names}) "
                     + ("never behave differently in a reachable state" if c.backing == "identical" else
                        f"change the states ({len(ea.states):,} against {len(eb.states):,}) but no step offered "
                        f"and no end-of-turn outcome"))
    return "no game within the bounds tells them apart: " + "; ".join(parts)


def _game(c: Comparison) -> Difference | None:
    return min(c.differences, key=lambda d: (d.depth or 0)) if c.differences else None


def switch_text(sw, c: Comparison) -> str:
    """One switch's comparison (compare --per-switch), in game words."""
    head = f"\nswitch {sw.key} ({', '.join(sw.ids)}): A={c.a.proposal.interpretation.choice(sw.key)} " \
           f"B={c.b.proposal.interpretation.choice(sw.key)}"
    d = _game(c)
    if d is None:
        return f"{head}\n  {why_same(c)}"
    return "\n".join([head] + ["  " + x for line in difference_lines(c, d) for x in line.splitlines()])


def switch_json(sw, c: Comparison, paths: dict | None = None) -> dict:
    d = _game(c)
    return {"switch": sw.key, "ids": list(sw.ids), "a": c.a.proposal.interpretation.choice(sw.key),
            "b": c.b.proposal.interpretation.choice(sw.key), "verdict": c.verdict, "backing": c.backing,
            "game": None if d is None else _difference_json(d, paths or {}),
            "why_same": None if d is not None else why_same(c)}
