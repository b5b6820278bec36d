"""The explorer's endpoints as functions of JSON documents: no sockets here (checks/formats/explorer_http.py
carries them over HTTP).

The server keeps no game in progress: every request names its path (the action labels from the
initial state), which is replayed through the reference interpreter (model/evaluate.py) on each
request, so two tabs never disturb each other and a request cannot leave the server in a bad state.
Each endpoint checks its document and raises `ApiError` (an HTTP status and a message that names
what was wrong and the valid choices) for anything it cannot serve; nothing else escapes.

- `meta`: the proposal, the viewpoints, the proposals to compare with, the path to start from.
- `view {path, observer}`: the board, fields, choices, path and (designer) properties and refused
  actions at the end of the path (checks/formats/explorer_view.py).
- `explain {path, action}`: every conjunct of the action's guard there (model/guards.py).
- `resolve {path, observer, choice}`: the action behind a rival's public choice, when only one fits.
- `save {path, name, expect}`: the path as a scenario file under `--out`, checked first and replayed
  after (`rulecheck replay` must pass it).
- `compare {path, against, at}`: the same path under another proposal, the first difference marked.
"""
from __future__ import annotations

import threading

from checks.formats.explorer_compare import compare
from checks.formats.explorer_requests import ApiError, Setup, document, found, path_of, text, walk, MAX_LABEL
from checks.formats.explorer_save import save
from checks.formats.explorer_view import (DESIGNER, Viewpoint, actor, board_panel, choices, choices_html,
                                          explanation_html, fields_panel, fingerprint, history_html, label_for,
                                          property_panel, refused_here, refused_html, seen_marks, viewpoints)
from checks.formats.schema import quoted
from model.errors import ModelError, choices as listed
from model.evaluate import successors
from model.guards import explain

MAX_BUILT = 3  # proposals to compare with, kept built at once


class Explorer:
    """The endpoints over one proposal (`setup`); `load(name)` builds a proposal to compare with, one of
    `others`; `replay(path)` replays a saved scenario file (`rulecheck replay`); `out` is where scenario
    files go (None: saving is refused); `start` the path the page opens with (`--from`)."""

    def __init__(self, setup: Setup, out=None, start=(), tried: str | None = None, note: str = "",
                 load=None, others=(), replay=None):
        self.a, self.out, self.start, self.tried, self.note = setup, out, list(start), tried, note
        self.load, self.others, self.replay = load, tuple(others), replay
        self.views = {v.key: v for v in viewpoints(setup.model)}
        self._built: dict = {}
        self._lock = threading.Lock()
        self.routes = {"/api/meta": self.meta, "/api/view": self.view, "/api/explain": self.explain,
                       "/api/resolve": self.resolve, "/api/save": self.save, "/api/compare": self.compare}

    def handle(self, route: str, body) -> dict:
        """The endpoint `route` applied to the request document `body` (ApiError when refused)."""
        fn = self.routes.get(route)
        if fn is None:
            raise ApiError(404, f"no endpoint {quoted(route)}; endpoints: {listed(self.routes)}")
        return fn(document(body))

    def _viewpoint(self, doc: dict) -> Viewpoint:
        key = doc.get("observer", DESIGNER)
        if not isinstance(key, str) or key not in self.views:
            raise ApiError(400, f"'observer': {found(key)} is not an observer; observers: {listed(self.views)}")
        return self.views[key]

    # -- endpoints --------------------------------------------------------------------------------

    def meta(self, doc: dict) -> dict:
        m = self.a.model
        return {"proposal": self.a.name, "description": getattr(self.a.proposal, "description", "") or "",
                "observers": [{"key": v.key, "title": v.title} for v in self.views.values()],
                "compare": list(self.others), "start": self.start, "tried": self.tried, "note": self.note,
                "can_save": self.out is not None, "actions": [a.label for a in m.actions],
                "checks": [p.name for p in m.invariants] + ["no-deadlock"]}

    def view(self, doc: dict) -> dict:
        labels, vp = path_of(doc), self._viewpoint(doc)
        m = self.a.model
        states = walk(self.a, labels)
        cur = states[-1]
        succ = successors(m, cur)
        marks: dict = {}
        out = {"position": len(labels), "observer": vp.key}
        if vp.designer:
            props, violated = property_panel(m, cur, succ, marks)
            seen_marks(succ, states, marks)
            out |= {"properties": props, "violated": violated, "fingerprint": fingerprint(cur),
                    "seen": [i for i, s in enumerate(states[:-1]) if s == cur],
                    "refused": refused_html(refused_here(m, cur))}
        out |= {"board": board_panel(m, cur, vp, states[-2] if len(states) > 1 else None),
                "fields": fields_panel(m, cur, vp, pick=vp.designer),
                "choices": choices_html(choices(m, cur, vp, succ, marks), vp),
                "history": history_html(m, states, labels, vp, len(labels))}
        return out

    def explain(self, doc: dict) -> dict:
        labels = path_of(doc)
        label = text(doc, "action", MAX_LABEL)
        states = walk(self.a, labels)
        a = self.a.labels.get(label)
        if a is None:
            raise ApiError(400, f"no action {quoted(label, 200)} under '{self.a.name}'")
        conj = explain(self.a.model, a, states[-1])
        ok = all(c.holds for c in conj)
        return {"action": label, "enabled": ok, "html": explanation_html(a, conj, ok),
                "false": [c.text for c in conj if not c.holds]}

    def resolve(self, doc: dict) -> dict:
        labels, vp = path_of(doc), self._viewpoint(doc)
        choice = text(doc, "choice", MAX_LABEL)
        m = self.a.model
        cur = walk(self.a, labels)[-1]
        fits = [a.label for a, _ in successors(m, cur)
                if (vp.designer or actor(m, a, cur) == vp.index) and label_for(m, a, cur, vp) == choice]
        if not fits:
            raise ApiError(400, f"{vp.key} has no choice {quoted(choice, 200)} here")
        if len(fits) > 1:
            raise ApiError(409, f"{len(fits)} actions look like {quoted(choice, 200)} to {vp.key} (they differ in "
                                f"what {vp.key} does not see); pick one in the designer's view")
        return {"label": fits[0]}

    def save(self, doc: dict) -> dict:
        if self.out is None:
            raise ApiError(409, "the explorer was started without --out DIR: nothing can be saved")
        return save(self.a, self.out, self.replay, doc)

    def compare(self, doc: dict) -> dict:
        return compare(self.a, self.setup(doc.get("against")), doc)

    # -- proposals to compare with ------------------------------------------------------------------

    def setup(self, name) -> Setup:
        if not isinstance(name, str) or name not in self.others or self.load is None:
            raise ApiError(400, f"'against': {found(name)} is not a proposal to compare with; choices: "
                                f"{listed(self.others) or 'none'}")
        with self._lock:
            if name not in self._built:
                while len(self._built) >= MAX_BUILT:
                    self._built.pop(next(iter(self._built)))
                try:
                    self._built[name] = self.load(name)
                except (ModelError, ValueError) as err:  # a proposal file the game cannot build
                    raise ApiError(400, f"cannot build '{name}': {err}") from None
            return self._built[name]
