"""What the explorer draws for one state, as one observer sees it (`rulecheck explore --serve`).

A *viewpoint* is the designer (omniscient: everything, hidden values marked), the owner of the
secrets (Moritani: its own hidden faces and cards) or a rival. What a viewpoint sees comes from the
model's declarations, never from the game's own vocabulary:

- the board is `model.board.draw(state)` (the HTML report's board, checks/formats/html_board.py),
  with every hidden part the viewpoint does not see removed *before* drawing (a hidden part lists
  who sees it in `seen_by`; without that list only the designer does), so nothing hidden reaches
  the page, not even a hidden element;
- the state's fields are those the viewpoint's observation reads (`Secrets.visible_slots`, the leak
  check's `Observer` for a rival), each with its value;
- the choices are the enabled actions: all of them, grouped by player, for the designer; a player's
  own, by the labels its observation shows (`Secrets.public_label` for a rival, its prompt), for the
  others; and the path so far in each step's words as that viewpoint reads them.

The properties panel lists every property the model declares, grouped by kind, with its value here
and the successors that break it (`property_panel`); it is the designer's (properties read hidden
state). Everything is HTML text built here with every value escaped.

>>> from model.moritani.build import build_model
>>> m = build_model()
>>> [v.key for v in viewpoints(m)]
['designer', 'Moritani', 'Atreides', 'Bene Gesserit', 'Ecaz']
>>> b = filter_board({"tokens": [{"id": "#1", "secret": "Robbery", "seen_by": ["Moritani"]}]}, "Atreides")
>>> b["tokens"]
[{'id': '#1'}]
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from checks.formats.html_board import Marks, board_html, board_of, cells, e, words_of
from model.evaluate import eval_expr
from model.expr import Var, walk
from model.guards import conjuncts, refusal

DESIGNER = "designer"
KIND_TITLES = {"invariant": "invariants", "step": "step properties", "permission": "permissions (choices the rules give)", "witness": "witnesses (reachable examples)"}


@dataclass(frozen=True)
class Viewpoint:
    """Who looks: the designer (`index` None), the secrets' owner, or a rival (a faction index)."""

    key: str
    index: int | None
    title: str
    owner: bool = False

    @property
    def designer(self) -> bool:
        return self.index is None


def viewpoints(model) -> list:
    """The designer first, then the owner of the secrets, then every rival (the leak check's observers)."""
    out = [Viewpoint(DESIGNER, None, "the designer (omniscient: every hidden value, marked)")]
    sec = model.secrets
    if sec is None:
        return out
    owner = getattr(sec, "owner", None)
    if owner is not None:
        out.append(Viewpoint(sec.label(owner), owner, f"{sec.label(owner)} (its own secrets)", owner=True))
    out += [Viewpoint(sec.label(o), o, f"{sec.label(o)} (a rival)") for o in sec.observers]
    return out


def fingerprint(state: tuple) -> str:
    """A short, stable name for a state (equal states, equal names)."""
    return hashlib.blake2b(repr(tuple(state)).encode(), digest_size=5).hexdigest()


# -- what a viewpoint sees ----------------------------------------------------------------------------

def _sees(part: dict, who: str | None) -> bool:
    return who is None or who in (part.get("seen_by") or ())


def _item(it: dict, who: str | None):
    """An item or token as `who` sees it (None: not at all); `who` None is the designer."""
    if who is None:
        return it
    if it.get("omniscient") and not _sees(it, who):
        return None
    if "secret" in it and not _sees(it, who):
        return {k: v for k, v in it.items() if k not in ("secret", "seen_by")}
    return it


def filter_board(b: dict, who: str | None) -> dict:
    """The board `b` with every hidden part `who` does not see removed (`who` None: unchanged)."""
    if who is None:
        return b

    def keep(xs):
        return [y for y in (_item(x, who) for x in xs or ()) if y is not None]
    out = dict(b)
    out["regions"] = [dict(r, notes=keep(r.get("notes")), pieces=keep(r.get("pieces")), tokens=keep(r.get("tokens")))
                      for r in b.get("regions") or ()]
    out["factions"] = [dict(f, items=keep(f.get("items"))) for f in b.get("factions") or ()]
    for name in ("counters", "tokens", "pending"):
        out[name] = keep(b.get(name))
    return out


def words_html(words: list, who: str | None) -> str:
    """A step's words: a hidden value as its public placeholder, followed by the value itself where
    `who` sees it (marked hidden: hidden from the others)."""
    out = []
    for w in words:
        if isinstance(w, str):
            out.append(e(w))
        elif _sees(w, who):
            out.append(f'<span class="ph">{e(w["public"])}</span><span class="omni sec"> <span class="hid">hidden'
                       f'</span> {e(w["secret"])}</span>')
        else:
            out.append(f'<span class="ph">{e(w["public"])}</span>')
    return "".join(out)


def _who(vp: Viewpoint) -> str | None:
    return None if vp.designer else vp.key


def board_panel(model, state, vp: Viewpoint, prev=None) -> str:
    """The board of `state` as `vp` sees it; what changed since `prev` (as `vp` saw it) is marked."""
    b = filter_board(board_of(model, state), _who(vp))
    before = cells(filter_board(board_of(model, prev), _who(vp))) if prev is not None else None
    return board_html(b, Marks(cells(b), before))


def visible_slots(model, vp: Viewpoint) -> tuple:
    if vp.designer or model.secrets is None:
        return tuple(range(len(model.schema)))
    return tuple(model.secrets.visible_slots(vp.index))


def fields_panel(model, state, vp: Viewpoint, pick: bool = False) -> str:
    """Every slot `vp` reads, with its value (ghost history marked); with `pick`, a box per slot to
    expect its value at the end of a saved scenario."""
    sch = model.schema
    rows = []
    for i in visible_slots(model, vp):
        f, name, shown = sch.slot_fields[i], sch.slot_names[i], sch.show(i, state[i])
        box = (f'<td><input type="checkbox" class="pick" data-slot="{e(name)}" data-value="{e(shown)}" '
               f'aria-label="expect {e(name)} = {e(shown)} at the end"></td>') if pick else ""
        ghost = ' <span class="ghost" title="history kept by the checker, not by the game">history</span>' \
            if f.ghost else ""
        rows.append(f'<tr data-slot="{e(name)}"><td class="sn">{e(name)}{ghost}</td><td class="sv">{e(shown)}</td>'
                    f'{box}</tr>')
    head = "<th>expect</th>" if pick else ""
    return (f'<table class="fields"><tr><th>slot</th><th>value</th>{head}</tr>{"".join(rows)}</table>')


def actor(model, action, state):
    """The deciding faction of `action` in `state`, or None (a system, scheduler or fault step)."""
    return eval_expr(action.actor, state, model.schema) if action.actor is not None else None


def group_of(model, action, state) -> str:
    """Who takes the step, as the choices panel groups it."""
    if action.rule.kind == "player":
        who = actor(model, action, state)
        if who is not None:
            return model.secrets.label(who) if model.secrets is not None else f"player {who}"
        return "a player"
    return {"scheduler": "the scheduler (which pending reaction next)", "fault": "engine faults",
            "system": "the game"}.get(action.rule.kind, action.rule.kind)


def label_for(model, action, state, vp: Viewpoint) -> str:
    """The action as `vp` names it: its label, or for a rival the public label its prompt shows."""
    if vp.designer or vp.owner or model.secrets is None:
        return action.label
    return model.secrets.public_label(action, state)


# -- the choices ------------------------------------------------------------------------------------

@dataclass
class Choice:
    """One enabled action as a viewpoint is offered it."""

    action: object
    post: tuple
    group: str
    label: str       # what the button sends back: the action's label, or a rival's public label
    words: str       # HTML
    marks: list      # [(css class, text)]: properties it breaks, witnesses it fires, a state seen before


def choices(model, state, vp: Viewpoint, succ: list, marks: dict) -> list:
    """The enabled actions `vp` may take here (every one, for the designer), in the model's order;
    `marks` holds the designer's marks per action label (`property_panel`, `seen_marks`)."""
    out = []
    for a, post in succ:
        if not vp.designer and actor(model, a, state) != vp.index:
            continue
        w = words_of(model, a, state, post)
        out.append(Choice(a, post, group_of(model, a, state), label_for(model, a, state, vp),
                          words_html(w["words"], _who(vp)), marks.get(a.label, []) if vp.designer else []))
    return out


def choices_html(cs: list, vp: Viewpoint) -> str:
    if not cs:
        return ('<p class="none">no choice here for ' + e(vp.key) + "</p>" if not vp.designer
                else '<p class="none">no action is enabled here</p>')
    groups: dict = {}
    for c in cs:
        groups.setdefault(c.group, []).append(c)
    attr = "data-label" if vp.designer or vp.owner else "data-choice"
    out = []
    for g, items in groups.items():
        lis = []
        for c in items:
            ids = " ".join(c.action.rule.implements)
            mk = "".join(f' <span class="mark {e(k)}">{e(t)}</span>' for k, t in c.marks)
            bad = " breaks" if any(k == "bad" for k, _ in c.marks) else ""
            rule = c.action.rule.name if vp.designer or vp.owner else c.label.split("(", 1)[0]
            lis.append(f'<li class="choice{bad}"><button class="act" {attr}="{e(c.label)}">{c.words}</button>'
                       f'<div class="meta"><code>{e(c.label)}</code> <span class="rn">rule {e(rule)}</span>'
                       + (f' <span class="ids" title="catalogue IDs of this rule">{e(ids)}</span>' if ids else "")
                       + f"{mk}</div></li>")
        out.append(f'<div class="group"><h4>{e(g)}</h4><ul class="choices">{"".join(lis)}</ul></div>')
    return "".join(out)


def seen_marks(succ: list, path_states: list, marks: dict) -> None:
    """Mark each successor that is a state of the path so far (the same state reached again)."""
    first: dict = {}
    for i, s in enumerate(path_states):
        first.setdefault(s, i)
    for a, post in succ:
        if post in first:
            marks.setdefault(a.label, []).append(("seen", f"back to the state of step {first[post]}"))


# -- properties -------------------------------------------------------------------------------------

def _holds(model, expr, state) -> bool:
    return bool(eval_expr(expr, state, model.schema))


def _row(p, status: str, cls: str, detail: str = "") -> str:
    """One property: `cls` ok (holds), warn (holds, a next step breaks it), bad (violated here), info."""
    ids = " ".join(p.rules)
    return (f'<li class="prop {cls}" data-prop="{e(p.name)}" title="{e(p.doc)}"><span class="pn">{e(p.name)}</span> '
            f'<span class="ps">{e(status)}</span>' + (f' <span class="ids">{e(ids)}</span>' if ids else "")
            + (f'<div class="pd">{detail}</div>' if detail else "") + "</li>")


def _withdrawn(model, p, state) -> str:
    """For a permission violated here: each choice the rules give and no enabled action offers, in game words
    (by the reference interpreter, as `check` confirms a violation: model/permissions.py `refusals`)."""
    if p.kind != "permission":
        return ""
    from model.permissions import refusal_words, refusals
    return "<br>".join(e(refusal_words(model, p, env)) for env in refusals(model, p, state))


def _property(model, p, state, succ, marks: dict, violated: list) -> str:
    """One property's row; the successors it concerns get a mark in `marks`."""
    if p.kind == "witness":
        fired = [a.label for a, _ in succ if a.rule.name in p.fires
                 and (p.when is None or _holds(model, p.when, state))]
        reached = [a.label for a, post in succ if p.predicate is not None and _holds(model, p.predicate, post)]
        for lb in dict.fromkeys(fired + reached):
            marks.setdefault(lb, []).append(("good", f"reaches {p.name}"))
        here = p.predicate is not None and _holds(model, p.predicate, state)
        status = "reached here" if here else (f"reached by {len(set(fired + reached))} next step(s)"
                                              if fired or reached else "not reached by a next step")
        return _row(p, status, "ok" if here or fired or reached else "info")
    if p.predicate is not None:  # must hold: invariants, step properties (their flags), permissions, later kinds
        if not _holds(model, p.predicate, state):
            violated.append(p.name)
            return _row(p, "violated here", "bad", _withdrawn(model, p, state))
        broken = [a.label for a, post in succ if not _holds(model, p.predicate, post)]
        for lb in broken:
            marks.setdefault(lb, []).append(("bad", f"breaks {p.name}"))
        detail = ("broken by: " + ", ".join(f"<code>{e(x)}</code>" for x in broken)) if broken else ""
        return _row(p, "holds" + (f"; {len(broken)} next step(s) break it" if broken else ""),
                    "warn" if broken else "ok", detail)
    # A kind without a state predicate: when its condition holds, and which of its rules' actions are enabled.
    when = "" if p.when is None else ("its condition holds here" if _holds(model, p.when, state)
                                       else "its condition does not hold here")
    on = [a.label for a, _ in succ if a.rule.name in p.fires]
    detail = ("enabled actions of its rules: " + ", ".join(f"<code>{e(x)}</code>" for x in on)) if on else ""
    return _row(p, when or "not evaluated on a single state", "info", detail)


def property_panel(model, state, succ: list, marks: dict) -> tuple:
    """(HTML, names of the properties violated here): every declared property grouped by kind, in the
    model's order, each with its value here and the next steps that break it (or reach it); the
    deadlock check last. Fills `marks` {action label: [(class, text)]} for the choices."""
    violated: list = []
    kinds: dict = {}
    for p in model.properties:
        kinds.setdefault(p.kind, []).append(_property(model, p, state, succ, marks, violated))
    stuck = all(a.rule.kind == "fault" for a, _ in succ) and not _holds(model, model.terminal, state)
    if stuck:
        violated.append("no-deadlock")
    # Every kind open but the witnesses (examples, not obligations), unless one is reached next.
    out = [f'<details class="kind" data-kind="{e(k)}"{" open" if k != "witness" or "prop ok" in "".join(rows) else ""}>'
           f'<summary>{e(KIND_TITLES.get(k, k + " properties"))} <span class="n">{len(rows)}</span></summary>'
           f'<ul class="props">{"".join(rows)}</ul></details>' for k, rows in kinds.items()]
    out.append(f'<div class="kind" data-kind="deadlock"><ul class="props"><li class="prop {"bad" if stuck else "ok"}">'
               f'<span class="pn">no-deadlock</span> <span class="ps">'
               f'{"violated here: no step but faults is possible" if stuck else "holds"}</span></li></ul></div>')
    return "".join(out), violated


# -- the path ---------------------------------------------------------------------------------------

def history_html(model, states: list, labels: list, vp: Viewpoint, at: int) -> str:
    """The path from the initial state, each step in `vp`'s words, the current position marked; for the
    designer, a state already reached earlier on the path says which step it repeats."""
    first: dict = {}
    out = []
    for i, s in enumerate(states):
        seen = first.setdefault(s, i) if vp.designer else i
        again = f' <span class="mark seen">same state as step {seen}</span>' if seen != i else ""
        cur = ' class="at"' if i == at else ""
        if i == 0:
            out.append(f'<li data-goto="0"{cur}><span class="no">0</span> initial state{again}</li>')
            continue
        a = model.action(labels[i - 1])
        w = words_of(model, a, states[i - 1], s)
        name = a.label if vp.designer or vp.owner else w["action"]
        out.append(f'<li data-goto="{i}"{cur}><span class="no">{i}</span> {words_html(w["words"], _who(vp))} '
                   f'<code>{e(name)}</code>{again}</li>')
    return f'<ol class="history">{"".join(out)}</ol>'


# -- refused here ---------------------------------------------------------------------------------

def _dispatch_only(model, x) -> bool:
    names = {n.field for n in walk(x) if isinstance(n, Var)}
    return bool(names) and names <= {model.dispatch}


def refused_here(model, state) -> list:
    """[(action, false conjuncts)] for every action of this stage that the rules refuse here: those whose
    guard's conjuncts on the dispatch field (the stage) hold and some other does not."""
    if model.dispatch is None:
        return []
    out = []
    for a in model.actions:
        parts = conjuncts(a.guard)
        if not any(_dispatch_only(model, x) for x in parts):
            continue
        if all(_holds(model, x, state) for x in parts if _dispatch_only(model, x)) and not _holds(model, a.guard, state):
            out.append((a, refusal(model, a, state)))
    return out


def refused_html(refused: list) -> str:
    if not refused:
        return '<p class="none">every action of this stage is enabled</p>'
    lis = "".join(f'<li><button class="try" data-label="{e(a.label)}">{e(a.label)}</button> '
                  f'<span class="why">refused: {e("; ".join(c.words for c in why))}</span></li>'
                  for a, why in refused)
    return f'<ul class="refused">{lis}</ul>'


def explanation_html(action, conj: tuple, enabled: bool) -> str:
    """Every conjunct of `action`'s guard here, the false ones marked: why it is (not) enabled."""
    head = (f'<p><code>{e(action.label)}</code> is <b>{"enabled" if enabled else "refused"}</b> here '
            f'(rule {e(action.rule.name)}' + (f', {e(" ".join(action.rule.implements))}' if action.rule.implements
                                             else "") + ")</p>")
    lis = "".join(f'<li class="{"ok" if c.holds else "bad"}"><code>{e(c.text)}</code>'
                  f'<div class="pd">{e(c.words)}</div></li>' for c in conj)
    return f'{head}<ol class="conj">{lis}</ol>'
