"""Rules as data: parameters, a guard, effects and the catalogue IDs they implement.

NOTE(frame): a rule writes only the slots named in `effects`; every other slot
keeps its value. Both interpreters generate this frame from the rule data, so
it is never written by hand. Effects are simultaneous: every right-hand side
reads the pre-state.

>>> from model.domains import IntRange
>>> from model.expr import Var, Param
>>> r = Rule("gain", params=(P("n", IntRange(1, 2)),), guard=Var("x") < 5,
...          effects={("x", ()): Var("x") + Param("n")}, implements=("R0",))
>>> [g.label for g in r.ground()]
['gain(n=1)', 'gain(n=2)']
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from model.domains import Domain
from model.expr import TRUE, Const, Expr, lift, show, substitute

KINDS = ("player", "scheduler", "fault", "system")

# A written slot, (field, index expressions), and a rule's effects: slot -> new value. Model code may
# write plain ints and bools in both places; Rule lifts them to Const.
Slot = tuple[str, tuple[Expr | int, ...]]
Effects = dict[Slot, Expr | int | bool]


@dataclass(frozen=True)
class P:
    """A rule parameter over a finite domain."""

    name: str
    domain: Domain


@dataclass(frozen=True)
class Rule:
    """A guarded, parameterised transition.

    `kind` says who takes the step: a player's choice, the scheduler's choice
    of which pending reaction resolves next, an engine fault (reload, retry),
    or the game system advancing on its own. `actor` names the deciding
    faction (an expression over parameters and state) for narration and the
    deadlock report.
    """

    name: str
    params: tuple = ()
    guard: Expr = TRUE
    effects: dict = field(default_factory=dict)
    implements: tuple = ()
    kind: str = "player"
    actor: Expr | None = None
    doc: str = ""

    def __post_init__(self):
        # Normalise so that model code may write plain ints and bools.
        object.__setattr__(self, "guard", lift(self.guard))
        object.__setattr__(self, "effects", {
            (name, tuple(lift(i) for i in idx)): lift(e) for (name, idx), e in self.effects.items()})

    def ground(self) -> list["GroundAction"]:
        out = []
        for combo in itertools.product(*(p.domain.values for p in self.params)):
            env = {p.name: v for p, v in zip(self.params, combo)}
            guard = substitute(lift(self.guard), env)
            if guard == Const(False):
                continue
            effects = tuple(
                (name, tuple(substitute(lift(i), env) for i in idx), substitute(lift(e), env))
                for (name, idx), e in self.effects.items()
            )
            written = [(n, idx) for n, idx, _ in effects]
            if len(set(written)) != len(written):
                from model.errors import ModelError
                raise ModelError(f"rule '{self.name}' writes the same slot twice for {env}; "
                                 f"guard that combination out")
            actor = substitute(self.actor, env) if self.actor is not None else None
            out.append(GroundAction(self, tuple(env.items()), guard, effects, actor))
        return out


@dataclass(frozen=True)
class GroundAction:
    """A rule with every parameter fixed; guards and effects are partially evaluated."""

    rule: Rule
    args: tuple  # ((param, value), ...)
    guard: Expr
    effects: tuple  # ((field, (index exprs...), value expr), ...)
    actor: Expr | None

    @property
    def label(self) -> str:
        if not self.args:
            return self.rule.name
        doms = {p.name: p.domain for p in self.rule.params}
        return f"{self.rule.name}(" + ", ".join(f"{k}={doms[k].show(v)}" for k, v in self.args) + ")"

    def arg(self, name: str):
        return dict(self.args)[name]

    def describe(self) -> str:
        eff = "; ".join(f"{n}{''.join(f'[{show(i)}]' for i in idx)} := {show(v)}" for n, idx, v in self.effects)
        return f"{self.label}: when {show(self.guard)} do {eff}"
