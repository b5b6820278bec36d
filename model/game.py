"""GameModel: a frozen value holding everything the checkers need.

Checkers are built from it; nothing here runs a search. Validation happens
once, at construction, and raises ModelError naming the rule and field with
the valid choices.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from model.declarations import Board, Outcome, Provenance, Reactions, Secrets
from model.errors import ModelError, choices
from model.expr import Const, Expr, Fired, Param, Var, walk
from model.monitors import MEMO, MonitorBinder, check_history, monitor_initial, step_monitors
from model.permissions import check_choice, guard_nodes, independent, predicate as permission_predicate
from model.properties import Property
from model.rule import KINDS, GroundAction, Rule
from model.schema import Field, Schema, State
from model.symmetry import ValueSymmetry


CHECKED = ("invariant", "step", "permission")  # the kinds every engine checks as a state predicate
DECLARED = ("provenance", "symmetry", "lemmas", "hints", "unbounded_slots", "outcome", "secrets", "reactions", "board")


@dataclass(frozen=True)
class GameModel:
    """A finite transition system written as data.

    `dispatch` names a scalar field that nearly every guard pins to a
    constant (the decision stage); explorers use it to consider only the
    actions of the current stage. `terminal` marks states where the game is
    over (no action expected there, so no deadlock).
    """

    name: str
    schema: Schema
    init: tuple  # tuple[State, ...]
    rules: tuple  # tuple[Rule, ...]
    properties: tuple  # tuple[Property, ...]
    terminal: Expr
    dispatch: str | None = None
    monitors: tuple = ()  # tuple[Monitor, ...]: history kept by the kernel (NOTE(monitors) in model/monitors.py)
    narrate: Callable | None = field(default=None, compare=False)
    # Typed declarations for checkers that know no game (model/declarations.py).
    provenance: Provenance | None = field(default=None, compare=False)
    symmetry: ValueSymmetry | None = field(default=None, compare=False)
    lemmas: tuple = field(default=(), compare=False)  # ((name, Expr), ...): proved with, never assumed
    # ((name, Expr), ...): candidate lemmas the game offers the lemma inference; kept only where Houdini
    # proves them with the other facts, never assumed (NOTE(hints) in checks/analyses/infer.py)
    hints: tuple = field(default=(), compare=False)
    unbounded_slots: frozenset = field(default=frozenset(), compare=False)  # no upper bound in Z3 proofs
    outcome: Outcome | None = field(default=None, compare=False)
    secrets: Secrets | None = field(default=None, compare=False)
    reactions: Reactions | None = field(default=None, compare=False)
    board: Board | None = field(default=None, compare=False)  # how reports draw a state and a step
    # The game's own vocabulary, read only by the game's modules (narration, observation); never by checks/.
    vocabulary: object = field(default=None, compare=False, repr=False)
    actions: tuple = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        self._add_monitors()
        if not self.init:
            raise ModelError(f"model '{self.name}' has no initial state")
        for s in self.init:
            bad = self.schema.check(s)
            if len(s) != len(self.schema) or bad:
                raise ModelError(f"initial state outside the domains: {', '.join(bad)}")
        names = [r.name for r in self.rules]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ModelError(f"rule names must be unique; repeated: {choices(dup)}")
        pnames = [p.name for p in self.properties]
        dup = {n for n in pnames if pnames.count(n) > 1}
        if dup:
            raise ModelError(f"property names must be unique; repeated: {choices(dup)}")
        for r in self.rules:
            self._check_rule(r)
        by_name = {r.name: r for r in self.rules}
        nodes = guard_nodes(self.rules)
        for p in self.properties:
            if p.kind == "permission":
                independent(p, self.rules, nodes)
                check_choice(p, self.rules)
                self._check_expr(p.condition, f"permission '{p.name}'", params={q.name for q in p.params})
                continue
            params: set = set()
            for n in p.fires:
                if n not in by_name:
                    raise ModelError(f"property '{p.name}' names unknown rule '{n}'; rules: {choices(names)}")
                params |= {q.name for q in by_name[n].params}
            for e in (p.predicate, p.when, p.step):
                if e is not None:
                    self._check_expr(e, f"property '{p.name}'", params=params)
        check_history(self.rules, self.properties, self.monitors, self.schema)
        grounded = []
        binder = MonitorBinder(self.monitors, self.schema, MEMO)
        for r in self.rules:
            for a in r.ground():
                extra = binder.effects(a)
                grounded.append(replace(a, effects=a.effects + extra) if extra else a)
        object.__setattr__(self, "actions", tuple(grounded))
        # NOTE(permissions): each permission's predicate, from the ground guards (rebuilt on every copy).
        object.__setattr__(self, "properties", tuple(
            replace(p, predicate=permission_predicate(p, grounded)) if p.kind == "permission" else p
            for p in self.properties))

    def _add_monitors(self) -> None:
        """Step properties get their flag monitors; every monitor gets a ghost slot at the end of the
        schema and its initial value in every initial state (once: a copy made by with_changes has them)."""
        props, flags = step_monitors(self.properties)
        monitors = tuple(self.monitors) + flags
        have = {f.name for f in self.schema.fields}
        new = [replace(m.field, ghost=True) for m in monitors if m.field.name not in have]
        if new:
            schema = Schema(self.schema.fields + tuple(new))
            init = []
            for s in self.init:
                values = list(s)
                for m, f in ((m, f) for m in monitors for f in new if f.name == m.field.name):
                    values += [v for _, v in sorted(monitor_initial(m, f).items())]
                init.append(tuple(values))
            object.__setattr__(self, "schema", schema)
            object.__setattr__(self, "init", tuple(init))
        object.__setattr__(self, "properties", props)
        object.__setattr__(self, "monitors", monitors)

    def _check_rule(self, r: Rule) -> None:
        where = f"rule '{r.name}'"
        if r.kind not in KINDS:
            raise ModelError(f"{where} has kind '{r.kind}'; valid: {choices(KINDS)}")
        params = {p.name for p in r.params}
        self._check_expr(r.guard, where, params)
        for (fname, idx), e in r.effects.items():
            f = self.schema.by_name.get(fname)
            if f is None:
                raise ModelError(f"{where} writes unknown field '{fname}'; fields: {choices(self.schema.by_name)}")
            if len(idx) != len(f.dims):
                raise ModelError(f"{where} writes '{fname}' with {len(idx)} index(es); it has {len(f.dims)}")
            for i in idx:
                for n in walk(i) if isinstance(i, Expr) else ():
                    if isinstance(n, Var):
                        raise ModelError(f"{where} writes '{fname}' at an index that depends on the state; "
                                         f"use a parameter and a guard instead")
            self._check_expr(e, where, params)

    def _check_expr(self, e: Expr, where: str, params: set) -> None:
        for n in walk(e):
            if isinstance(n, Var):
                f = self.schema.by_name.get(n.field)
                if f is None:
                    raise ModelError(f"{where} reads unknown field '{n.field}'; fields: {choices(self.schema.by_name)}")
                if len(n.index) != len(f.dims):
                    raise ModelError(f"{where} reads '{n.field}' with {len(n.index)} index(es); it has {len(f.dims)}")
            elif isinstance(n, Param) and n.name not in params:
                raise ModelError(f"{where} uses unknown parameter '{n.name}'; parameters: {choices(params) or 'none'}")
            elif isinstance(n, Fired):
                unknown = [x for x in n.names if x not in {r.name for r in self.rules}]
                if unknown:
                    raise ModelError(f"{where} names unknown rule '{unknown[0]}'; rules: "
                                     f"{choices(r.name for r in self.rules)}")

    # Lookups used by checkers and reports -----------------------------------------

    @property
    def invariants(self) -> tuple:
        """Every state predicate the engines check: invariants, step properties as their flags, and
        permissions as `condition => some chosen action enabled` (NOTE(permissions))."""
        return tuple(p for p in self.properties if p.kind in CHECKED)

    @property
    def permissions(self) -> tuple:
        return tuple(p for p in self.properties if p.kind == "permission")

    @property
    def witnesses(self) -> tuple:
        return tuple(p for p in self.properties if p.kind == "witness")

    def rule(self, name: str) -> Rule:
        for r in self.rules:
            if r.name == name:
                return r
        raise ModelError(f"unknown rule '{name}'; rules: {choices(r.name for r in self.rules)}")

    def action(self, label: str) -> GroundAction:
        for a in self.actions:
            if a.label == label:
                return a
        raise ModelError(f"no action '{label}' in model '{self.name}'")

    def get(self, state: State, field_name: str, *idx):
        return state[self.schema.slot(field_name, tuple(idx))]

    def declare(self, **declarations) -> "GameModel":
        """Attach declarations that need the built model itself (lemmas over its invariants, the
        secrets over its actions); each only once, right after construction. Returns the model.

        >>> from model.domains import Bool
        >>> m = GameModel("m", Schema((Field("x", Bool()),)), ((False,),), (), (), Const(True))
        >>> m.declare(lemmas=(("x-any", Const(True)),)).lemmas[0][0]
        'x-any'
        """
        for name, value in declarations.items():
            if name not in DECLARED:
                raise ModelError(f"'{name}' is not a declaration; declarations: {choices(DECLARED)}")
            if getattr(self, name) not in (None, (), frozenset()):
                raise ModelError(f"model '{self.name}' already declares {name}")
            object.__setattr__(self, name, value)  # NOTE(declare): write-once, during the build
        return self

    def with_changes(self, **changes) -> "GameModel":
        """A copy with some parts replaced (rules, properties, init ...), re-validated."""
        return replace(self, **changes)
