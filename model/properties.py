"""Properties: `always` invariants, `always_step` step properties, `permitted` permissions and `sometimes`
witnesses; monitors.

An invariant is a state predicate that must hold in every reachable state. A step property is a
predicate over a transition (the pre-state, the post-state through `Post`, and which rule fired
through `Fired`) that must hold on every reachable transition. A witness guards against vacuity:
it holds when some reachable transition fires one of `rules` (with `when` true in the pre-state)
or, for a state witness, some reachable state satisfies `state`.

A permission says what the rules allow rather than what happens: in every reachable state, for every
value of its parameters, when its condition holds (written from the rules text, never from a guard)
some ground action of its choice is enabled. The kernel turns it into a state predicate,
`condition => (guard_1 or guard_2 ...)` over the chosen ground actions' guards (model/permissions.py),
so every engine checks it as it checks an invariant; it keeps its kind `permission` in every report.

A monitor is history that properties need and the game does not keep: a slot the kernel updates
after every step from the step itself, never a rule (model/monitors.py; NOTE(monitors)).

>>> from model.expr import Var, post
>>> always("small", Var("x") < 3, rules=("R1",)).kind
'invariant'
>>> always_step("up-by-one", post("x") <= Var("x") + 1).kind
'step'
>>> permitted("may-grow", choose("grow", n="m"), Var("x") < 3, params=()).choice
(Choice(rule='grow', binding=(('n', 'm'),)),)
"""
from __future__ import annotations

from dataclasses import dataclass

from model.expr import Expr, lift


@dataclass(frozen=True)
class Property:
    name: str
    kind: str  # "invariant" | "step" | "witness"
    predicate: Expr | None = None  # a state predicate (for a step property: its monitor flag, set by the kernel)
    fires: tuple = ()
    when: Expr | None = None
    rules: tuple = ()  # catalogue IDs (R#, A#, H#)
    doc: str = ""
    step: Expr | None = None  # a step property's predicate over the transition
    # A permission's parts (the kernel builds its `predicate` from them when the model is built):
    condition: Expr | None = None  # when the rules give the choice, over the state and `params`
    choice: tuple = ()  # tuple[Choice, ...]: the ground actions that are the choice
    params: tuple = ()  # tuple[model.rule.P, ...]: every value of each is checked


@dataclass(frozen=True)
class Choice:
    """The ground actions of rule `rule` whose arguments match `binding`: ((rule parameter, value), ...),
    a value being a permission parameter's name (str) or a constant (int). `choose` builds it."""

    rule: str
    binding: tuple = ()


def choose(rule: str, **binding) -> Choice:
    """The actions of `rule` with some parameters bound: `choose("ship", to="t")` is every `ship`
    action whose `to` is the permission's parameter `t`; `choose("ship", f=1)` fixes `f` to 1."""
    return Choice(rule, tuple(sorted(binding.items())))


@dataclass(frozen=True)
class Monitor:
    """A history slot kept by the kernel: after every step (or only after the rules named in `on`),
    the slot takes `update`, an expression over the pre-state, the post-state (`Post`) and the rule
    fired (`Fired`). Rules may not write it; it is ghost (never part of what a rival observes).

    `field` is the slot's field (its `ghost` flag is set by the kernel), `init` its initial value
    (a dict {index: value} for an array field, whose `update` is then {index: Expr}).
    """

    field: object
    init: object
    update: object
    rules: tuple = ()  # catalogue IDs the history serves
    on: tuple | None = None
    doc: str = ""


def always(name: str, predicate: Expr, rules: tuple = (), doc: str = "") -> Property:
    return Property(name, "invariant", predicate=predicate, rules=rules, doc=doc)


def always_step(name: str, predicate: Expr, rules: tuple = (), doc: str = "") -> Property:
    """A step property: `predicate` over (pre-state, post-state, rule) holds on every reachable step.

    The kernel keeps a monitor flag per step property (set by the first violating step), so every
    engine checks it as an invariant over that flag and a counterexample ends with the offending step.
    """
    return Property(name, "step", rules=rules, doc=doc, step=predicate)


def permitted(name: str, choice, when: Expr, params: tuple = (), rules: tuple = (), doc: str = "") -> Property:
    """A permission: whenever `when` holds (for every value of `params`), some ground action of `choice`
    (a rule name, a `choose(...)`, or a tuple of them) is enabled. `when` must be written from the rules
    text: the model build refuses one built from a rule's guard (model/permissions.py)."""
    items = choice if isinstance(choice, (tuple, list)) else (choice,)
    picked = tuple(c if isinstance(c, Choice) else Choice(c) for c in items)
    return Property(name, "permission", rules=tuple(rules), doc=doc, condition=lift(when), choice=picked,
                    params=tuple(params))


def sometimes(name: str, fires: tuple = (), when: Expr | None = None, state: Expr | None = None,
              rules: tuple = (), doc: str = "") -> Property:
    return Property(name, "witness", predicate=state, fires=tuple(fires), when=when, rules=rules, doc=doc)
