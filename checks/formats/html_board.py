"""Traces drawn as step-by-step boards for the HTML report (checks/formats/html.py).

A *viewer* shows a trace one step at a time behind previous/next controls; its *lanes* put games
side by side (a leak pair's game A and game B, an ambiguity's two orders). Each step shows its
number, its game words, the rule's catalogue IDs and the board after it; what changed at this step
is marked `chg`, and what differs from the other lanes at the same step `dif`.

The board is the model's declaration: `model.board.draw(state)` gives plain data (regions, pieces,
counters, tokens, the pending decision; model/moritani/board.py documents the shape) and
`model.board.step(action, pre, post)` a step's words with hidden values as public placeholders. Nothing here knows the game. What the model marks `secret` or `omniscient` is drawn
only inside `.omni` elements, the designer's omniscient view (off by default). A model without a
board declaration is drawn as its raw state slots, with nothing treated as secret.

>>> from model.moritani.build import build_model
>>> from model.trace import Trace
>>> m = build_model()
>>> t = Trace.from_actions(m, m.init[0], ["place_token(k=Robbery, to=Carthag)"])
>>> page = viewer("one placement", [Lane("", m, t)], "t1")
>>> page.count('data-step='), 'a hidden token (<span class="ph">#4</span><span class="omni sec"> ' in page
(2, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

from model.game import GameModel
from model.trace import Trace

from checks.formats.terminal import clean

MAX_CHANGES = 10  # changes listed in words under a step; the board marks all of them


@dataclass(frozen=True)
class Lane:
    """One game in a viewer: its title (empty for a lone game), its model and its trace."""

    title: str
    model: GameModel
    trace: Trace
    note: str = ""  # shown at the steps after this game has ended while another lane goes on


def e(x) -> str:
    """Text for the page: markup characters as entities, and control characters and bidirectional
    overrides as visible escapes (checks/formats/terminal.py `clean`), so a name holding U+202E cannot
    show reversed text in any HTML output (an entity such as `&#x202e;` would still be the character).
    Every piece of text on every page (check, compare, sweep, ...) goes through here.

    >>> print(e('exe.\u202elmth<b>'), e("a\x1b[2J"))
    exe.\\u202elmth&lt;b&gt; a\\x1b[2J
    """
    return escape(clean(str(x)), quote=True)


# -- the model's declarations, or a plain fallback ---------------------------------------------

def board_of(model, state) -> dict:
    if model.board is not None:
        return model.board.draw(state)
    sch = model.schema
    return {"caption": "", "counters": [{"name": n, "value": sch.show(i, v)}
                                        for i, (n, v) in enumerate(zip(sch.slot_names, state))]}


def words_of(model, action, pre, post) -> dict:
    if model.board is not None:
        return model.board.step(action, pre, post)
    text = model.narrate(model, action, pre, post) if model.narrate else action.label
    return {"words": [text], "action": action.label}


# -- cells: what the change and difference marks compare ----------------------------------------
# Every drawn element has a key; its cell is (public value, secret value). The public value is
# compared for the visible marks, the secret one only for marks inside the omniscient view, so a
# mark never hints at a change nobody can see.

def _unique(keys: list) -> list:
    seen: dict = {}
    out = []
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
        out.append(k if seen[k] == 1 else k + (seen[k],))
    return out


def _item_keys(prefix: tuple, items) -> list:
    return _unique([prefix + (it["name"],) for it in items])


def _token_keys(prefix: tuple, tokens) -> list:
    return _unique([prefix + (t.get("id") or "?",) for t in tokens])


def _item_cell(it) -> tuple:
    if it.get("omniscient"):
        return None, it["value"]
    return it["value"], it.get("secret")


def _token_text(t) -> str:
    """A token in words as the public sees it: '#1 placed in Arrakeen', '5 tokens in supply'."""
    n = t.get("count") or 1
    parts = [t.get("id") or (f"{n} tokens" if n > 1 else "token"), t.get("face"), t.get("status"),
             f"in {t['where']}" if t.get("where") else None, t.get("alert")]
    return " ".join(p for p in parts if p)


def _token_cell(t) -> tuple:
    return _token_text(t), t.get("secret")


def _groups(b: dict):
    """(prefix, items or tokens, is_tokens) for every list on the board, in drawing order."""
    for r in b.get("regions") or ():
        yield ("region", r["name"], "note"), r.get("notes") or (), False
        yield ("region", r["name"], "piece"), r.get("pieces") or (), False
        yield ("region", r["name"], "token"), r.get("tokens") or (), True
    for f in b.get("factions") or ():
        yield ("faction", f["name"]), f.get("items") or (), False
    yield ("counter",), b.get("counters") or (), False
    yield ("token",), b.get("tokens") or (), True
    yield ("pending",), b.get("pending") or (), False


def cells(b: dict) -> dict:
    """{key: (public, secret)} of every element of a board."""
    out = {}
    for prefix, xs, tokens in _groups(b):
        keys = _token_keys(prefix, xs) if tokens else _item_keys(prefix, xs)
        for k, x in zip(keys, xs):
            out[k] = _token_cell(x) if tokens else _item_cell(x)
    return out


class Marks:
    """Classes for each element: changed since the previous step, different from another lane."""

    def __init__(self, cur: dict, prev: dict | None = None, peers: tuple = ()):
        self.cur, self.prev, self.peers = cur, prev, peers

    def _cls(self, key, i: int) -> str:
        mine = self.cur.get(key, (None, None))[i]
        out = ""
        if self.prev is not None and self.prev.get(key, (None, None))[i] != mine:
            out += " chg"
        if any(p.get(key, (None, None))[i] != mine for p in self.peers):
            out += " dif"
        return out

    def pub(self, key) -> str:
        return self._cls(key, 0)

    def sec(self, key) -> str:
        return self._cls(key, 1)

    def region(self, name: str) -> str:
        """A region is marked when anything in it changed publicly, including a piece that left."""
        if self.prev is None:
            return ""
        keys = {k for k in list(self.cur) + list(self.prev) if k[:2] == ("region", name)}
        return " chg" if any(self.cur.get(k, (None,))[0] != self.prev.get(k, (None,))[0] for k in keys) else ""


def _label(key: tuple) -> str:
    if key[0] == "region":
        what = {"note": key[3], "piece": f"{key[3]} forces", "token": f"token {key[3]}"}[key[2]]
        return f"{key[1]}: {what}"
    if key[0] == "faction":
        return f"{key[1]} {key[2]}"
    if key[0] == "token":
        return "tokens without a public ID" if key[1] == "?" else f"token {key[1]}"
    return str(key[1])


def _show(v) -> str:
    return "\u2014" if v is None else str(v)


def changes(prev: dict, cur: dict) -> tuple[list, list]:
    """(public changes, secret changes) between two boards' cells, each 'what: old -> new'."""
    pub, sec = [], []
    for k in list(cur) + [k for k in prev if k not in cur]:
        if k[0] == "region" and k[2] == "token":
            continue  # listed once, from the token list
        a, b = prev.get(k, (None, None)), cur.get(k, (None, None))
        if a[0] != b[0]:
            pub.append(f"{_label(k)}: {_show(a[0])} \u2192 {_show(b[0])}")
        if a[1] != b[1]:
            sec.append(f"{_label(k)}: {_show(a[1])} \u2192 {_show(b[1])}")
    return pub, sec


# -- drawing ------------------------------------------------------------------------------------

def _secret(text, cls: str = "") -> str:
    """A secret value: drawn only in the omniscient view, marked hidden (its leading space is its own)."""
    return f'<span class="omni sec{cls}"> <span class="hid">hidden</span> {e(text)}</span>'


def _item(it, key, m: Marks, tag: str = "div") -> str:
    if it.get("omniscient"):
        return (f'<{tag} class="it omni{m.sec(key)}"><span class="ik">{e(it["name"])}</span> '
                f'<span class="iv">{e(it["value"])}</span> <span class="hid">hidden</span></{tag}>')
    sec = _secret(it["secret"], m.sec(key)) if it.get("secret") is not None else ""
    return (f'<{tag} class="it{m.pub(key)}"><span class="ik">{e(it["name"])}</span> '
            f'<span class="iv">{e(it["value"])}</span>{sec}</{tag}>')


def _token(t, key, m: Marks) -> str:
    alert = " alert" if t.get("alert") else ""
    count = f" \u00d7{t['count']}" if (t.get("count") or 1) > 1 else ""
    face = f" {e(t['face'])}" if t.get("face") else ""
    sec = _secret(t["secret"], m.sec(key)) if t.get("secret") is not None else ""
    note = f' <em>{e(t["alert"])}</em>' if t.get("alert") else ""
    return f'<span class="tok{alert}{m.pub(key)}"><b>{e(t.get("id") or "token")}</b>{count}{face}{sec}{note}</span>'


def _region(r, m: Marks, colour: dict) -> str:
    pre = ("region", r["name"])
    out = [f'<div class="region {e(r.get("kind", ""))}{m.region(r["name"])}" data-region="{e(r["name"])}">',
           f'<div class="rn">{e(r["name"])}</div>']
    notes = r.get("notes") or ()
    for k, it in zip(_item_keys(pre + ("note",), notes), notes):
        out.append(f'<div class="note{m.pub(k)}">{e(it["name"])}: {e(it["value"])}</div>')
    pieces = r.get("pieces") or ()
    for k, it in zip(_item_keys(pre + ("piece",), pieces), pieces):
        out.append(f'<span class="piece f{colour.get(it["name"], 9)}{m.pub(k)}" data-owner="{e(it["name"])}">'
                   f'{e(it["name"])} <b>{e(it["value"])}</b></span>')
    toks = r.get("tokens") or ()
    if toks:
        out.append('<div class="toks">' + "".join(_token(t, k, m) for k, t in
                                                    zip(_token_keys(pre + ("token",), toks), toks)) + "</div>")
    if not (pieces or toks):
        out.append('<div class="empty">empty</div>')
    out.append("</div>")
    return "".join(out)


def _factions(factions, m: Marks, colour: dict) -> str:
    cols: list = []
    for f in factions:
        cols += [it["name"] for it in f.get("items") or () if it["name"] not in cols]
    hidden = {c for c in cols if all(it.get("omniscient") for f in factions for it in f.get("items") or ()
                                     if it["name"] == c)}
    head = "".join(f'<th class="omni">{e(c)} <span class="hid">hidden</span></th>' if c in hidden
                   else f"<th>{e(c)}</th>" for c in cols)
    rows = []
    for f in factions:
        items = f.get("items") or ()
        by = dict(zip((it["name"] for it in items), zip(_item_keys(("faction", f["name"]), items), items)))
        tds = []
        for c in cols:
            if c not in by:
                tds.append('<td class="omni"></td>' if c in hidden else "<td></td>")
                continue
            k, it = by[c]
            if it.get("omniscient"):
                tds.append(f'<td class="omni{m.sec(k)}">{e(it["value"])}</td>')
            else:
                sec = _secret(it["secret"], m.sec(k)) if it.get("secret") is not None else ""
                tds.append(f'<td class="{m.pub(k).strip()}">{e(it["value"])}{sec}</td>')
        rows.append(f'<tr data-faction="{e(f["name"])}"><th><span class="sw f{colour.get(f["name"], 9)}"></span>'
                    f'{e(f["name"])}</th>{"".join(tds)}</tr>')
    return f'<table class="factions"><tr><th>faction</th>{head}</tr>{"".join(rows)}</table>'


def _panel(title: str, cls: str, body: str) -> str:
    return f'<div class="panel {cls}"><h4>{e(title)}</h4>{body}</div>'


def board_html(b: dict, m: Marks) -> str:
    """One board: regions, the factions' table, then tokens, counters and the pending decision."""
    colour = {f["name"]: i for i, f in enumerate(b.get("factions") or ())}
    out = ['<div class="board">']
    if b.get("caption"):
        out.append(f'<div class="cap">{e(b["caption"])}</div>')
    if b.get("regions"):
        out.append('<div class="regions">' + "".join(_region(r, m, colour) for r in b["regions"]) + "</div>")
    if b.get("factions"):
        out.append(_factions(b["factions"], m, colour))
    panels = []
    toks = b.get("tokens") or ()
    if toks:
        rows = "".join(f"<li>{_token(t, k, m)} {e(t.get('status') or '')}"
                       f"{' in ' + e(t['where']) if t.get('where') and not t.get('alert') else ''}</li>"
                       for k, t in zip(_token_keys(("token",), toks), toks))
        panels.append(_panel("Terror tokens", "tokens", f"<ul>{rows}</ul>"))
    for title, cls, name in (("pending decision", "pending", "pending"), ("counters", "counters", "counters")):
        items = b.get(name) or ()
        if items:
            panels.append(_panel(title, cls, "".join(_item(it, k, m) for k, it in
                                                     zip(_item_keys((name if name == "pending" else "counter",),
                                                                    items), items))))
    if panels:
        out.append('<div class="panels">' + "".join(panels) + "</div>")
    out.append("</div>")
    return "".join(out)


def words_html(words: list) -> str:
    """Game words: plain text, and a public placeholder followed by its secret (omniscient view)."""
    out = []
    for w in words:
        if isinstance(w, str):
            out.append(e(w))
        else:
            out.append(f'<span class="ph">{e(w["public"])}</span>{_secret(w["secret"])}')
    return "".join(out)


# -- the viewer ---------------------------------------------------------------------------------

@dataclass
class _Drawn:
    """A lane's boards, cells and step words, computed once."""

    lane: Lane
    boards: list
    cells: list
    words: list  # words[i] for step i >= 1; words[0] is None

    @classmethod
    def of(cls, lane: Lane) -> "_Drawn":
        m, t = lane.model, lane.trace
        boards = [board_of(m, s) for s in t.states]
        words: list[dict | None] = [None]
        for pre, st in zip(t.states, t.steps):
            a = m.action(st.action)
            words.append(words_of(m, a, pre, st.state) | {"rule": a.rule, "label": st.action,
                                                           "diff": m.schema.diff(pre, st.state)})
        return cls(lane, boards, [cells(b) for b in boards], words)


def _head(i: int, w: dict | None, prev: dict | None, cur: dict, badge: str) -> str:
    if w is None:
        return '<div class="head"><span class="no">0</span> <span class="words">initial state</span></div>'
    ids = " ".join(w["rule"].implements)
    out = [f'<div class="head"><span class="no">{i}</span> <span class="words">{words_html(w["words"])}</span>']
    if badge:
        out.append(f' <span class="badge">{e(badge)}</span>')
    out.append(f'<div class="rule"><code>{e(w["action"])}</code>'
               + (f' <span class="ids" title="catalogue IDs of this rule">{e(ids)}</span>' if ids else "")
               + (f' <span class="omni"><span class="hid">hidden</span> <code>{e(w["label"])}</code></span>'
                  if w["label"] != w["action"] else "") + "</div>")
    assert prev is not None  # a step's board always follows another (the initial state has no words)
    pub, sec = changes(prev, cur)
    more = f" and {len(pub) - MAX_CHANGES} more" if len(pub) > MAX_CHANGES else ""
    out.append(f'<div class="changed">changed: {e("; ".join(pub[:MAX_CHANGES]) or "nothing visible")}{e(more)}'
               + (f' <span class="omni"><span class="hid">hidden</span> {e("; ".join(sec[:MAX_CHANGES]))}'
                  f'{e(f" and {len(sec) - MAX_CHANGES} more" if len(sec) > MAX_CHANGES else "")}</span>' if sec else "")
               + "</div>")
    slots = "; ".join(f"{n}: {x} \u2192 {y}" for n, x, y in w["diff"])
    out.append(f'<div class="omni raw"><span class="hid">state slots</span> {e(slots)}</div></div>')
    return "".join(out)


def viewer(title: str, lanes: list, anchor: str, subtitle: str = "", badge: str = "", start: int = 0) -> str:
    """A trace (or games side by side) as steps 0..n, one shown at a time; `badge` marks each lane's
    last step (e.g. 'violates token-conservation')."""
    drawn = [_Drawn.of(lane) for lane in lanes]
    n = max(d.lane.trace.depth for d in drawn)
    out = [f'<section class="viewer" id="{e(anchor)}" tabindex="0" data-start="{start}">',
           f'<h3>{e(title)}</h3>' + (f'<p class="sub">{e(subtitle)}</p>' if subtitle else ""),
           f'<div class="ctl"><button class="first" title="first step (Home)">\u00ab first</button>'
           f'<button class="prev" title="previous step (left arrow)">\u2039 previous</button>'
           f'<span class="pos">{n + 1} steps</span>'
           f'<button class="next" title="next step (right arrow)">next \u203a</button>'
           f'<button class="last" title="last step (End)">last \u00bb</button>'
           f'<input class="slider" type="range" min="0" max="{n}" value="{start}" aria-label="step"></div>',
           '<ol class="steps">']
    for i in range(n + 1):
        at = [min(i, d.lane.trace.depth) for d in drawn]
        out.append(f'<li class="step" data-step="{i}" id="{e(anchor)}-s{i}"><div class="lanes">')
        for j, d in enumerate(drawn):
            k = at[j]
            peers = tuple(drawn[x].cells[at[x]] for x in range(len(drawn)) if x != j)
            out.append('<div class="lane">' + (f'<div class="lt">{e(d.lane.title)}</div>' if d.lane.title else ""))
            if i > k:  # this game ended; another lane goes on
                out.append(f'<div class="head ended">{e(d.lane.note or f"this game ended at step {k}")}</div>')
                out.append(board_html(d.boards[k], Marks(d.cells[k], None, peers)))
            else:
                prev = d.cells[k - 1] if k else None
                out.append(_head(k, d.words[k], prev, d.cells[k], badge if k == d.lane.trace.depth and k else ""))
                out.append(board_html(d.boards[k], Marks(d.cells[k], prev, peers)))
            out.append("</div>")
        out.append("</div></li>")
    out.append("</ol></section>")
    return "".join(out)
