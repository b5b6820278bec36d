"""One counterexample type for every engine: an initial state and labelled steps.

A Trace prints as a short narrative (through the model's `narrate` hook, in
game words), converts to and from plain dicts, and replays through the
concrete semantics, which is how every counterexample is validated before
it is shown.
"""
from __future__ import annotations

from dataclasses import dataclass

from model.errors import ModelError
from model.evaluate import apply, enabled
from model.schema import State


@dataclass(frozen=True)
class Step:
    action: str  # ground action label, e.g. "ship(f=Atreides, to=Arrakeen)"
    state: State


@dataclass(frozen=True)
class Trace:
    """init --a1--> s1 --a2--> s2 ...

    >>> Trace((0,), (Step("tick", (1,)),)).depth
    1
    """

    init: State
    steps: tuple

    @property
    def depth(self) -> int:
        return len(self.steps)

    @property
    def states(self) -> list:
        return [self.init] + [s.state for s in self.steps]

    @property
    def labels(self) -> list[str]:
        return [s.action for s in self.steps]

    @classmethod
    def from_actions(cls, model, init: State, labels: list[str]) -> "Trace":
        """Rebuild a trace by running the named actions from `init` (raises on a blocked step)."""
        steps, s = [], init
        for i, label in enumerate(labels, 1):
            a = model.action(label)
            if not enabled(a, s, model.schema):
                raise ModelError(f"step {i}: '{label}' is not enabled here")
            s = apply(a, s, model.schema)
            steps.append(Step(label, s))
        return cls(init, tuple(steps))

    def replay(self, model) -> list[str]:
        """Problems found when re-running the trace concretely ([] means it replays)."""
        problems, s = [], self.init
        if s not in model.init:
            problems.append("initial state is not an initial state of the model")
        for i, step in enumerate(self.steps, 1):
            try:
                a = model.action(step.action)
            except ModelError as e:
                return problems + [f"step {i}: {e}"]
            if not enabled(a, s, model.schema):
                return problems + [f"step {i}: '{step.action}' is not enabled"]
            s2 = apply(a, s, model.schema)
            if s2 != step.state:
                diff = ", ".join(f"{n}: {x}->{y}" for n, x, y in model.schema.diff(step.state, s2))
                return problems + [f"step {i}: '{step.action}' leads elsewhere ({diff})"]
            s = s2
        return problems

    def narrative(self, model) -> str:
        """Numbered lines in game words (falls back to labels and changed fields)."""
        lines = []
        pre = self.init
        for i, step in enumerate(self.steps, 1):
            a = model.action(step.action)
            if model.narrate is not None:
                text = model.narrate(model, a, pre, step.state)
            else:
                changes = ", ".join(f"{n} {x}->{y}" for n, x, y in model.schema.diff(pre, step.state))
                text = f"{a.label}  [{changes}]"
            lines.append(f"{i:>3}. {text}")
            pre = step.state
        return "\n".join(lines)
