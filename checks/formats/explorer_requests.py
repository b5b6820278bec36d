"""The explorer's requests: the error it answers with, the proposals it serves, and the checked parts of a
request document (a path of action labels, an observer, a text), with the path replayed through the
reference interpreter (model/evaluate.py). Shared by checks/formats/explorer_api.py and its helpers
(explorer_save.py, explorer_compare.py).

>>> from model.moritani.build import build_model
>>> a = Setup("default", None, build_model())
>>> len(walk(a, ["skip_placement"]))
2
>>> try:
...     walk(a, ["decline"])
... except ApiError as err:
...     print(err.status, err.message)
400 step 1: 'decline' is refused here: stage = terror does not hold: here stage is mentat_place (Mentat Pause: Moritani may place or move a token)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal, overload

from checks.formats.schema import quoted
from checks.formats.scenario import MAX_STEPS
from model.declarations import Proposal
from model.evaluate import apply, enabled
from model.game import GameModel
from model.guards import refusal

MAX_LABEL = 400  # as a scenario's `do` (checks/formats/scenario.py)


class ApiError(Exception):
    """A request the explorer refuses: `status` (a 4xx code; 500 only for a file that cannot be written), a
    message for the user, and for a path that does not run, the `step` that does not."""

    def __init__(self, status: int, message: str, step: int | None = None):
        super().__init__(message)
        self.status, self.message, self.step = status, message, step


@dataclass
class Setup:
    """One proposal's model, with its actions by label."""

    name: str
    proposal: Proposal
    model: GameModel
    labels: dict = field(init=False, repr=False)

    def __post_init__(self):
        self.labels = {a.label: a for a in self.model.actions}


def document(body) -> dict:
    if not isinstance(body, dict):
        raise ApiError(400, f"expected a JSON object; found {type(body).__name__}")
    return body


@overload
def text(doc: dict, key: str, limit: int, required: Literal[True] = True) -> str: ...
@overload
def text(doc: dict, key: str, limit: int, required: bool) -> str | None: ...
def text(doc: dict, key: str, limit: int, required: bool = True) -> str | None:
    v = doc.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v or len(v) > limit:
        raise ApiError(400, f"'{key}': expected text of 1 to {limit} characters; found {found(v)}")
    return v


def found(v) -> str:
    """A request's value as a message names it: text quoted (and cut), a number or flag as JSON writes it,
    anything else by its JSON type."""
    if isinstance(v, str):
        return quoted(v)
    if v is None:
        return "nothing"
    if isinstance(v, (bool, int, float)):
        return json.dumps(v)
    return {"list": "a list", "dict": "an object"}.get(type(v).__name__, type(v).__name__)



def path_of(doc: dict, key: str = "path") -> list:
    """The action labels under `key` (a list of at most MAX_STEPS labels, each 1 to MAX_LABEL characters)."""
    v = doc.get(key, [])
    if not isinstance(v, list) or len(v) > MAX_STEPS:
        raise ApiError(400, f"'{key}': expected a list of at most {MAX_STEPS:,} action labels; found "
                            f"{found(v) if not isinstance(v, list) else f'{len(v):,} items'}")
    for i, x in enumerate(v, 1):
        if not isinstance(x, str) or not x or len(x) > MAX_LABEL:
            raise ApiError(400, f"'{key}' step {i}: expected an action label (1 to {MAX_LABEL} characters); "
                                f"found {found(x)}")
    return v


def walk(setup: Setup, labels: list) -> list:
    """The states of the path from the initial state (ApiError at the first step that does not run)."""
    m = setup.model
    states = [m.init[0]]
    for i, label in enumerate(labels, 1):
        a = setup.labels.get(label)
        if a is None:
            near = sorted(x for x in setup.labels if x.split("(")[0] == label.split("(")[0])[:6]
            raise ApiError(400, f"step {i}: no action {quoted(label, 200)} under '{setup.name}'"
                                + (f"; actions of that rule: {', '.join(near)}" if near else ""), step=i)
        if not enabled(a, states[-1], m.schema):
            why = "; ".join(c.words for c in refusal(m, a, states[-1]))
            raise ApiError(400, f"step {i}: '{label}' is refused here: {why}", step=i)
        states.append(apply(a, states[-1], m.schema))
    return states
