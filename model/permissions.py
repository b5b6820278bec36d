"""Permissions: what the rules allow, checked as a state predicate (NOTE(permissions)).

NOTE(permissions): a permission `permitted(id, choice, when, params)` (model/properties.py) says: in every
reachable state, for every value of `params`, `when` => some ground action of `choice` is enabled. A
guard stricter than the rules leaves only legal games, so no invariant or step property sees it; a
permission does. The kernel builds its predicate once, when the model is built:

    and over the parameter values v of:  when[v] => (guard(a1) or guard(a2) or ...)

where a1, a2 ... are the ground actions of the chosen rules whose arguments match the binding under v.
The enabled side is an expression like any guard, so the explicit, vector and Z3 engines check the
permission exactly as an invariant (`GameModel.invariants` lists it). Its `condition` must be written
from the rules text: a condition that contains a rule's guard, or any compound sub-expression of a
guard, as the same object is refused (`independent`), since it would only restate what the rule does.

A violation is replayed twice: as a game (every step enabled) and, in its last state, `refusals` must
find a parameter value where the condition holds and no chosen action is enabled, by the reference
interpreter, never by the compiled predicate.

>>> from model.domains import IntRange
>>> from model.expr import Var, Param
>>> from model.game import GameModel
>>> from model.properties import permitted, choose
>>> from model.rule import P, Rule
>>> from model.schema import Field, Schema
>>> grow = Rule("grow", (P("n", IntRange(1, 2)),), Var("x") + Param("n") <= 3, {("x", ()): Var("x") + Param("n")})
>>> perm = permitted("may-grow", choose("grow", n="m"), Var("x") + Param("m") <= 3,
...                  params=(P("m", IntRange(1, 2)),))
>>> m = GameModel("toy", Schema((Field("x", IntRange(0, 3)),)), ((0,),), (grow,), (perm,), Var("x").eq(3))
>>> [p.kind for p in m.invariants], refusals(m, m.properties[0], (0,))
(['permission'], [])
"""
from __future__ import annotations

import itertools

from model.errors import ModelError, choices
from model.expr import FALSE, TRUE, Const, Expr, Param, Var, all_of, any_of, implies, show, substitute, walk

LEAVES = (Const, Var, Param)


def guard_nodes(rules) -> dict:
    """{id(node): rule name} for every compound node of every rule's guard (leaves are shared freely)."""
    out: dict = {}
    for r in rules:
        for n in walk(r.guard):
            if not isinstance(n, LEAVES):
                out.setdefault(id(n), r.name)
    return out


def independent(p, rules, nodes: dict | None = None) -> None:
    """ModelError if permission `p`'s condition contains a rule's guard or a compound sub-expression of
    one (the same object): a permission is written from the rules text, independently of the guard."""
    nodes = guard_nodes(rules) if nodes is None else nodes
    for n in walk(p.condition):
        if id(n) in nodes and not isinstance(n, LEAVES):
            raise ModelError(f"permission '{p.name}' builds its condition from the guard of rule "
                             f"'{nodes[id(n)]}' (it contains `{show(n)[:120]}`, the guard's own expression): "
                             f"write the condition from the rules text, independently of the guard")


def check_choice(p, rules) -> None:
    """ModelError for a choice naming an unknown rule or parameter, or binding to an unknown value."""
    by_name = {r.name: r for r in rules}
    mine = {q.name: q for q in p.params}
    if not p.choice:
        raise ModelError(f"permission '{p.name}' names no choice")
    for ch in p.choice:
        r = by_name.get(ch.rule)
        if r is None:
            raise ModelError(f"permission '{p.name}' names unknown rule '{ch.rule}'; rules: {choices(by_name)}")
        theirs = {q.name: q for q in r.params}
        for k, val in ch.binding:
            if k not in theirs:
                raise ModelError(f"permission '{p.name}' binds '{k}', which rule '{r.name}' does not have; "
                                 f"its parameters: {choices(theirs) or 'none'}")
            if isinstance(val, str) and val not in mine:
                raise ModelError(f"permission '{p.name}' binds '{k}' to unknown parameter '{val}'; "
                                 f"its parameters: {choices(mine) or 'none'}")
            if not isinstance(val, str) and val not in theirs[k].domain.values:
                raise ModelError(f"permission '{p.name}' binds '{k}' to {val!r}, outside rule '{r.name}''s domain")


def bindings(p):
    """Every value of the permission's parameters, as an environment, in domain order."""
    for combo in itertools.product(*(q.domain.values for q in p.params)):
        yield {q.name: v for q, v in zip(p.params, combo)}


def chosen(p, actions, env: dict) -> list:
    """The ground actions of `p`'s choice under the parameter values `env`, in model order."""
    out = []
    for a in actions:
        for ch in p.choice:
            if a.rule.name != ch.rule:
                continue
            args = dict(a.args)
            if all(args.get(k) == (env[val] if isinstance(val, str) else val) for k, val in ch.binding):
                out.append(a)
                break
    return out


def predicate(p, actions) -> Expr:
    """`p`'s state predicate: for every parameter value, condition => some chosen action's guard."""
    by_rule: dict = {}
    for a in actions:
        by_rule.setdefault(a.rule.name, []).append(a)
    pool = [a for ch in dict.fromkeys(c.rule for c in p.choice) for a in by_rule.get(ch, ())]
    parts = []
    for env in bindings(p):
        when = substitute(p.condition, env)
        if when == FALSE:
            continue
        enabled = any_of(a.guard for a in chosen(p, pool, env))
        if enabled == TRUE:
            continue
        parts.append(implies(when, enabled) if when != TRUE else enabled)
    return all_of(parts)


def refusals(model, p, state) -> list[dict]:
    """The parameter values where `p`'s condition holds in `state` and no action of its choice is enabled,
    by the reference interpreter (how a violation is confirmed before it is reported)."""
    from model.evaluate import enabled, eval_expr
    out = []
    for env in bindings(p):
        if eval_expr(p.condition, state, model.schema, env) and \
                not any(enabled(a, state, model.schema) for a in chosen(p, model.actions, env)):
            out.append(env)
    return out


def choice_words(model, p, env: dict) -> str:
    """The choice in game words: each chosen rule's description, with the bound parameter values."""
    shown = {q.name: q.domain.show(env[q.name]) for q in p.params}
    parts = []
    for ch in p.choice:
        r = model.rule(ch.rule)
        doms = {q.name: q.domain for q in r.params}
        bound = ", ".join(f"{k}={shown[v] if isinstance(v, str) else doms[k].show(v)}" for k, v in ch.binding)
        parts.append(f"{r.name}({bound})" + (f" ({r.doc})" if r.doc else ""))
    return " or ".join(parts)


def refusal_words(model, p, env: dict) -> str:
    """One sentence: the parameter values, then the choice that is withdrawn."""
    vals = ", ".join(f"{q.name}={q.domain.show(env[q.name])}" for q in p.params)
    return (f"{'with ' + vals + ', ' if vals else ''}the rules allow {choice_words(model, p, env)}, "
            f"but no such action is enabled")
