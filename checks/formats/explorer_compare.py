"""The explorer's compare mode: the same path under two proposals, side by side.

The path (action labels) is replayed under proposal A (the explorer's) and under proposal B as far
as B lets it run. At each position the two games are compared, most visible difference first: a
step B does not have or refuses (with the false part of its guard), boards that differ (as the
designer sees them: the report's board cells, checks/formats/html_board.py), engine state that
differs in the slots both models have, or different choices (enabled actions). The first position
with a difference is marked; the boards at the position the designer is at are drawn in two lanes
with the differences marked `dif`, as the report draws a leak pair.
"""
from __future__ import annotations

from checks.formats.explorer_requests import ApiError, Setup, path_of, walk
from checks.formats.html_board import Marks, board_html, board_of, cells, changes, e
from model.evaluate import apply, enabled, successors
from model.guards import refusal

SHOWN = 4  # differences listed per position


def _follow(b: Setup, labels: list) -> tuple:
    """(states under B as far as the path runs, (step, reason) where it stops, or None)."""
    m = b.model
    states = [m.init[0]]
    for i, label in enumerate(labels, 1):
        a = b.labels.get(label)
        if a is None:
            return states, (i, f"there is no action '{label}' under {b.name}")
        if not enabled(a, states[-1], m.schema):
            why = "; ".join(c.words for c in refusal(m, a, states[-1]))
            return states, (i, f"'{label}' is refused under {b.name}: {why}")
        states.append(apply(a, states[-1], m.schema))
    return states, None


def _slots(model, state) -> dict:
    sch = model.schema
    return {n: sch.show(i, state[i]) for i, n in enumerate(sch.slot_names) if not sch.slot_fields[i].ghost}


def _difference(a: Setup, b: Setup, sa, sb) -> str:
    """What differs between A's state `sa` and B's `sb` ('' when nothing does)."""
    pub, sec = changes(cells(board_of(a.model, sa)), cells(board_of(b.model, sb)))
    if pub or sec:
        more = f" and {len(pub) + len(sec) - SHOWN} more" if len(pub) + len(sec) > SHOWN else ""
        return "the boards differ (A \u2192 B): " + "; ".join((pub + sec)[:SHOWN]) + more
    va, vb = _slots(a.model, sa), _slots(b.model, sb)
    slots = [f"{n}: {va[n]} \u2192 {vb[n]}" for n in va if n in vb and va[n] != vb[n]]
    if slots:
        return "the engine state differs (A \u2192 B): " + "; ".join(slots[:SHOWN])
    ca = {x.label for x, _ in successors(a.model, sa)}
    cb = {x.label for x, _ in successors(b.model, sb)}
    if ca != cb:
        only_a, only_b = sorted(ca - cb)[:SHOWN], sorted(cb - ca)[:SHOWN]
        return ("the choices differ: " + (f"only under A: {', '.join(only_a)}" if only_a else "")
                + ("; " if only_a and only_b else "") + (f"only under B: {', '.join(only_b)}" if only_b else ""))
    return ""


def compare(a: Setup, b: Setup, doc: dict) -> dict:
    """{first: position or None, what, rows (HTML), lanes (HTML at `at`)} for the path of `doc`."""
    labels = path_of(doc)
    at = doc.get("at", len(labels))
    if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= len(labels):
        raise ApiError(400, f"'at': expected a position from 0 to {len(labels)}")
    sa = walk(a, labels)
    sb, stop = _follow(b, labels)
    first, what, rows = None, "", []
    for i in range(len(sa)):
        if i < len(sb):
            diff = _difference(a, b, sa[i], sb[i])
        else:
            diff = stop[1] if stop and i == stop[0] else f"not played under {b.name}"
        if diff and first is None:
            first, what = i, diff
        cls = "differs first" if i == first else ("differs" if diff else "same")
        name = "initial state" if i == 0 else labels[i - 1]
        rows.append(f'<li data-goto="{i}" class="{cls}"><span class="no">{i}</span> <code>{e(name)}</code> '
                    f'<span class="cw">{e(diff or "same")}</span></li>')
    return {"first": first, "what": what, "against": b.name, "rows": f'<ol class="cmp">{"".join(rows)}</ol>',
            "lanes": _lanes(a, b, sa, sb, at, stop)}


def _lanes(a: Setup, b: Setup, sa, sb, at: int, stop) -> str:
    ba, bb = board_of(a.model, sa[at]), board_of(b.model, sb[min(at, len(sb) - 1)])
    ca, cb = cells(ba), cells(bb)
    note = (f'<div class="head ended">{e(stop[1])}; its board at step {len(sb) - 1}</div>'
            if at >= len(sb) and stop else "")
    return (f'<div class="lanes"><div class="lane"><div class="lt">A: {e(a.name)}</div>'
            f'{board_html(ba, Marks(ca, None, (cb,)))}</div><div class="lane"><div class="lt">B: {e(b.name)}</div>'
            f'{note}{board_html(bb, Marks(cb, None, (ca,)))}</div></div>')
