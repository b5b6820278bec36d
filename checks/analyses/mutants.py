"""Mutants generated mechanically from the rule data (`rulecheck mutate`, docs/mutation.md).

Every mutant is one small change to one rule, found by walking the rule's guard and effects
(`model.rule.Rule`), never picked by hand. Seven operators:

| operator | change |
| --- | --- |
| `drop-effect` | one effect removed (the slot keeps its value, NOTE(frame)) |
| `replace-value` | an effect's value replaced by another value of the slot's domain, a parameter of that domain, or the pre-state value of another field of that domain |
| `drop-conjunct` | one conjunct of an And in the guard removed (top level and nested) |
| `negate-comparison` | one `=`, `<` or `<=` in the guard or an effect negated (a negated one un-negated) |
| `shift-constant` | one integer constant (a value, an index, a divisor) moved by one |
| `swap-parameters` | two slots of one field that a rule writes exchange roles (payer and payee), or two parameters of one domain exchanged in an effect |
| `strengthen-guard` | the guard gains one conjunct of another rule of the same stage (an over-restriction: a legal choice withdrawn, issue 33) |

A mutant is plain data (`Mutant`: the rule, an `Edit` with the expression before and after), so a
worker process rebuilds it from the proposal; `edit_rules(mutant)` is the `edit_rules` argument of
`model.provenance.sibling`, so every declaration of the game is built over the mutated rules.

>>> from model.domains import IntRange
>>> from model.expr import Var
>>> from model.game import GameModel
>>> from model.rule import Rule
>>> from model.schema import Field, Schema
>>> toy = GameModel("toy", Schema((Field("x", IntRange(0, 3)),)), ((0,),),
...                 (Rule("inc", (), Var("x") < 3, {("x", ()): Var("x") + 1}),), (), Var("x").eq(3))
>>> [m.id for m in generate(toy)][:3]
['drop-effect@inc.x', 'replace-value@inc.x=0', 'replace-value@inc.x=1']
>>> edit_rules(generate(toy)[0])(list(toy.rules))[0].effects
{}
>>> [m.operator for m in sample(generate(toy), 2, seed=0)]
['drop-effect', 'replace-value']
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from dataclasses import dataclass
from typing import Any

from model.domains import Bool, Enum, IntRange
from model.errors import ModelError
from model.schema import Schema
from model.expr import (Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Param, Sub, Var, all_of,
                        children, show, walk)
from model.guards import conjuncts

OPERATORS = ("drop-effect", "replace-value", "drop-conjunct", "negate-comparison", "shift-constant",
             "swap-parameters", "strengthen-guard")
# Integer domains up to this size contribute every value to `replace-value`; larger ones (spice, the
# bank, public IDs) only their two ends, since a middle value is no more telling than its neighbours
# and `shift-constant` already moves constants by one.
SMALL_DOMAIN = 8


class NotApplicable(ModelError):
    """The mutated rule or expression does not exist in this model (e.g. on other bounds)."""


@dataclass(frozen=True)
class Edit:
    """One change to a rule.

    `target` "guard" or ("effect", key): the expression at `path` (child positions, model.expr.children)
    inside the guard or that effect's value is `before` and becomes `after`. `target` "effects": the
    (key, value) pairs `before` are replaced by the pairs `after`, in place of the first of them."""

    target: str | tuple  # "guard", "effects" or ("effect", slot key)
    path: tuple
    # The Expr at `path`; for target "effects", the ((slot key, value), ...) pairs (a type per target).
    before: Any
    after: Any


@dataclass(frozen=True)
class Mutant:
    """One generated mutant: a stable id, its operator, the rule (and its catalogue IDs), a one-line
    description of the change, and the edit itself."""

    id: str
    operator: str
    rule: str
    implements: tuple
    change: str
    edit: Edit


# Applying a mutant ---------------------------------------------------------------------------


def edit_rules(mutant: Mutant):
    """The `edit_rules` function that builds `mutant` (a picklable partial)."""
    return functools.partial(_mutate_rules, mutant)


def _mutate_rules(mutant: Mutant, rules: list) -> list:
    if mutant.rule not in {r.name for r in rules}:
        raise NotApplicable(f"mutant {mutant.id}: this model has no rule '{mutant.rule}'")
    return [apply_edit(r, mutant.edit, mutant.id) if r.name == mutant.rule else r for r in rules]


def apply_edit(rule, edit: Edit, what: str = "mutant"):
    """`rule` with `edit` made; NotApplicable if the rule does not hold the expected expression."""
    if edit.target == "guard":
        return dataclasses.replace(rule, guard=_replace_at(rule.guard, edit.path, edit.before, edit.after, what))
    effects = dict(rule.effects)
    if edit.target == "effects":
        for k, v in edit.before:
            if effects.get(k) != v:
                raise NotApplicable(f"{what}: rule '{rule.name}' has no effect {_slot(k)} := {show(v)}")
        gone = {k for k, _ in edit.before}
        out: dict = {}
        for k, v in effects.items():
            if k == edit.before[0][0]:
                for k2, v2 in edit.after:
                    if k2 in out or (k2 in effects and k2 not in gone):
                        raise ModelError(f"{what}: rule '{rule.name}' would write {_slot(k2)} twice")
                    out[k2] = v2
            if k not in gone:
                out[k] = v
        return dataclasses.replace(rule, effects=out)
    assert isinstance(edit.target, tuple)  # the remaining form: ("effect", slot key)
    _, key = edit.target
    if key not in effects:
        raise NotApplicable(f"{what}: rule '{rule.name}' writes no slot {_slot(key)}")
    effects[key] = _replace_at(effects[key], edit.path, edit.before, edit.after, what)
    return dataclasses.replace(rule, effects=effects)


def _replace_at(e: Expr, path: tuple, before, after, what: str) -> Expr:
    if not path:
        if e != before:
            raise NotApplicable(f"{what}: expected '{show(before)}', found '{show(e)}'")
        return after
    kids = children(e)
    if path[0] >= len(kids):
        raise NotApplicable(f"{what}: no subexpression at {path} in '{show(e)}'")
    return with_child(e, path[0], _replace_at(kids[path[0]], path[1:], before, after, what))


def with_child(e: Expr, i: int, c: Expr) -> Expr:
    """`e` with its child number `i` (model.expr.children order) replaced by `c`.

    >>> show(with_child(Var("x") + 1, 1, Const(2)))
    '(x + 2)'
    """
    match e:
        case Var(field=f, index=idx):
            return Var(f, idx[:i] + (c,) + idx[i + 1:])
        case Not():
            return Not(c)
        case And(args=xs) | Or(args=xs) | Add(args=xs):
            return type(e)(xs[:i] + (c,) + xs[i + 1:])
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            return type(e)(c, b) if i == 0 else type(e)(a, c)
        case Div(k=k):
            return Div(c, k)
        case Ite(cond=x, then=t, other=o):
            parts = [x, t, o]
            parts[i] = c
            return Ite(*parts)
    raise TypeError(f"no child {i} in {e!r}")


def _map_vars(e: Expr, fn) -> Expr:
    """`e` with every Var node v replaced by fn(v) (bottom-up, indices first)."""
    kids = children(e)
    for i, c in enumerate(kids):
        new = _map_vars(c, fn)
        if new is not c:
            e = with_child(e, i, new)
    return fn(e) if isinstance(e, Var) else e


def _subst_params(e: Expr, swap: dict) -> Expr:
    if isinstance(e, Param):
        return Param(swap.get(e.name, e.name))
    for i, c in enumerate(children(e)):
        new = _subst_params(c, swap)
        if new != c:
            e = with_child(e, i, new)
    return e


# Generation ---------------------------------------------------------------------------------


def _slot(key) -> str:
    name, idx = key
    return name + "".join(f"[{show(i)}]" for i in idx)


def _short(e: Expr, width: int = 70) -> str:
    text = show(e)
    return text if len(text) <= width else text[:width - 3] + "..."


def _becomes(a: str, b: str, width: int = 50) -> str:
    """'a' becomes 'b', both cut to the same window around their first difference.

    >>> _becomes("(if x < 3 then 10 else 14)", "(if x < 3 then 10 else 13)", width=12)
    "'... 10 else 14)' becomes '... 10 else 13)'"
    """
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, min(i - width // 2, max(len(a), len(b)) - width))

    def cut(t):
        return ("..." if lo else "") + t[lo:lo + width] + ("..." if lo + width < len(t) else "")
    return f"'{cut(a)}' becomes '{cut(b)}'"


def _where(target) -> str:
    return "guard" if target == "guard" else _slot(target[1])


def _path(path: tuple) -> str:
    return "/" + ".".join(map(str, path)) if path else ""


def _nodes(e: Expr, path: tuple = (), parent=None):
    """(path, node, parent) for every node of `e`, pre-order."""
    yield path, e, parent
    for i, c in enumerate(children(e)):
        yield from _nodes(c, path + (i,), e)


def _sites(rule):
    """The expressions of a rule a mutation may change: its guard, then each effect's value."""
    yield "guard", rule.guard
    for key, value in rule.effects.items():
        yield ("effect", key), value


def _drop_effect(rule, schema):
    for key, value in rule.effects.items():
        yield (f"drop-effect@{rule.name}.{_slot(key)}", f"drops the effect {_slot(key)} := {_short(value)}",
               Edit("effects", (), ((key, value),), ()))


def _values(domain) -> list:
    if isinstance(domain, Bool):
        return [Const(False), Const(True)]
    vals = domain.values
    if isinstance(domain, IntRange) and len(vals) > SMALL_DOMAIN:
        vals = (vals[0], vals[-1])
    return [Const(v) for v in vals]


def _show_value(e: Expr, domain) -> str:
    if isinstance(e, Const) and isinstance(domain, Enum):
        return f"{e.value} ({domain.show(e.value)})"
    return show(e)


def _replace_value(rule, schema):
    """Other values of the slot's domain, parameters of that domain, and the pre-state value of
    another field of that domain (scalars, or arrays over the same index domains read at the same
    index). The slot's own pre-state value is left out: that mutant is `drop-effect`."""
    fields = schema.fields
    for key, value in rule.effects.items():
        name, idx = key
        f = schema.by_name[name]
        cands = _values(f.domain) + [Param(p.name) for p in rule.params if p.domain == f.domain]
        cands += [Var(g.name, idx if g.dims else ()) for g in fields
                  if g.name != name and g.domain == f.domain and (not g.dims or g.dims == f.dims)]
        for c in cands:
            if c == value:
                continue
            yield (f"replace-value@{rule.name}.{_slot(key)}={show(c)}",
                   f"{_slot(key)} := {_show_value(c, f.domain)} instead of {_short(value)}",
                   Edit(("effect", key), (), value, c))


def _drop_conjunct(rule, schema):
    for path, node, _ in _nodes(rule.guard):
        if not isinstance(node, And):
            continue
        for i, arg in enumerate(node.args):
            if isinstance(arg, Const):  # a literal `true` left by a helper: dropping it changes nothing
                continue
            rest = all_of(node.args[:i] + node.args[i + 1:])
            nested = " (nested)" if path else ""
            yield (f"drop-conjunct@{rule.name}.guard{_path(path + (i,))}",
                   f"guard without the conjunct '{_short(arg)}'{nested}", Edit("guard", path, node, rest))


def _negate_comparison(rule, schema):
    for target, expr in _sites(rule):
        for path, node, parent in _nodes(expr):
            if not isinstance(node, (Eq, Lt, Le)):
                continue
            mid = f"negate-comparison@{rule.name}.{_where(target)}{_path(path)}"
            if isinstance(parent, Not):
                yield (mid, f"in {_where(target)}: '{_short(parent)}' becomes '{_short(node)}'",
                       Edit(target, path[:-1], parent, node))
            else:
                yield mid, f"in {_where(target)}: '{_short(node)}' negated", Edit(target, path, node, Not(node))


def _shift_constant(rule, schema):
    for target, expr in _sites(rule):
        for path, node, parent in _nodes(expr):
            if isinstance(node, Const) and not isinstance(node.value, bool):
                for d in (1, -1):
                    if node.value + d >= 0:
                        new = Const(node.value + d)
                        around = "" if parent is None else \
                            ": " + _becomes(show(parent), show(with_child(parent, path[-1], new)))
                        yield (f"shift-constant@{rule.name}.{_where(target)}{_path(path)}{d:+d}",
                               f"in {_where(target)}, constant {node.value} becomes {node.value + d}{around}",
                               Edit(target, path, node, new))
            elif isinstance(node, Div):
                for d in (1, -1):
                    if node.k + d >= 1:
                        yield (f"shift-constant@{rule.name}.{_where(target)}{_path(path)}{d:+d}",
                               f"in {_where(target)}: divisor {node.k} becomes {node.k + d}",
                               Edit(target, path, node, Div(node.a, node.k + d)))
    for key, value in rule.effects.items():  # the written slot's own constant indices
        name, idx = key
        for j, i in enumerate(idx):
            if isinstance(i, Const) and not isinstance(i.value, bool):
                for d in (1, -1):
                    if i.value + d >= 0:
                        new = (name, idx[:j] + (Const(i.value + d),) + idx[j + 1:])
                        yield (f"shift-constant@{rule.name}.{_slot(key)}/key{j}{d:+d}",
                               f"writes {_slot(new)} instead of {_slot(key)}",
                               Edit("effects", (), ((key, value),), ((new, value),)))


def _swap_parameters(rule, schema):
    """Two slots of one field written by the rule exchange roles: the keys and every read of those two
    slots inside their values are exchanged (`spice[$f] := spice[$f] - 3; spice[0] := spice[0] + 3`
    becomes a payment from Moritani to $f). Two parameters of one domain are exchanged in one effect."""
    by_field: dict = {}
    for key, value in rule.effects.items():
        by_field.setdefault(key[0], []).append((key, value))
    for items in by_field.values():
        for (k1, v1), (k2, v2) in itertools.combinations(items, 2):
            def swap(v, f=k1[0], i1=k1[1], i2=k2[1]):
                if v.field != f or v.index not in (i1, i2):
                    return v
                return Var(f, i2 if v.index == i1 else i1)
            after = ((k2, _map_vars(v1, swap)), (k1, _map_vars(v2, swap)))
            yield (f"swap-parameters@{rule.name}.{_slot(k1)}~{_slot(k2)}",
                   f"{_slot(k1)} and {_slot(k2)} exchange roles (each effect writes and reads the other slot; "
                   f"e.g. payer and payee)",
                   Edit("effects", (), ((k1, v1), (k2, v2)), after))
    for p, q in itertools.combinations(rule.params, 2):
        if p.domain != q.domain:
            continue
        for key, value in rule.effects.items():
            sw = {p.name: q.name, q.name: p.name}
            new_key = (key[0], tuple(_subst_params(i, sw) for i in key[1]))
            yield (f"swap-parameters@{rule.name}.{_slot(key)}:${p.name}~${q.name}",
                   f"exchanges ${p.name} and ${q.name} in the effect {_slot(key)}",
                   Edit("effects", (), ((key, value),), ((new_key, _subst_params(value, sw)),)))


def _parts(guard: Expr) -> tuple:
    # model.guards.conjuncts, without the literal `true`s helpers leave (no rule gains or lacks one).
    return tuple(c for c in conjuncts(guard) if c != Const(True))


def stage_of(rule) -> Any:
    """The stage a rule's guard requires (its `stage = K` conjunct), or None if it names none."""
    for c in _parts(rule.guard):
        if isinstance(c, Eq) and c.a == Var("stage") and isinstance(c.b, Const):
            return c.b.value
    return None


def _strengthen_guard(rule, schema, rules=()):
    """The over-restriction mutant (issue 33): the guard gains one conjunct of another rule whose guard
    requires the same stage, so the rule fires in fewer states: a legal choice withdrawn, which no
    invariant sees and a permission should. A conjunct is taken only if every parameter it names is a
    parameter of this rule with the same domain, and only if this guard does not already have it."""
    stage = stage_of(rule)
    if stage is None:
        return
    mine = set(_parts(rule.guard))
    domains = {p.name: p.domain for p in rule.params}
    for other in rules:
        if other.name == rule.name or stage_of(other) != stage:
            continue
        theirs = {p.name: p.domain for p in other.params}
        for i, c in enumerate(_parts(other.guard)):
            named = {x.name for x in walk(c) if isinstance(x, Param)}
            if c in mine or any(domains.get(p) != theirs.get(p) for p in named):
                continue
            yield (f"strengthen-guard@{rule.name}.guard+{other.name}/{i}",
                   f"guard also requires '{_short(c)}' (from {other.name})",
                   Edit("guard", (), rule.guard, And((rule.guard, c))))


GENERATORS = {"drop-effect": _drop_effect, "replace-value": _replace_value, "drop-conjunct": _drop_conjunct,
              "negate-comparison": _negate_comparison, "shift-constant": _shift_constant,
              "swap-parameters": _swap_parameters, "strengthen-guard": _strengthen_guard}


def _signature(rule) -> tuple:
    # Effects are simultaneous (NOTE(frame) in model/rule.py): their order is not part of the rule.
    return rule.guard, frozenset(rule.effects.items())


def generate(model, operators: tuple = OPERATORS) -> list[Mutant]:
    """Every mutant of the model's rules, in a fixed order (operator, then rule, then position).

    Mutants whose rule comes out syntactically identical to the original, or to an earlier mutant of
    the same rule, are skipped. Whether a mutant is valid is decided by building it (a ModelError
    makes it `invalid`), not here.
    """
    out, seen = [], set()
    # Rules may not read monitors (model/monitors.py `check_history`), so a monitor is never a replacement.
    observed = {m.field.name for m in model.monitors}
    schema = Schema(tuple(f for f in model.schema.fields if f.name not in observed))
    for op in OPERATORS:
        if op not in operators:
            continue
        for rule in model.rules:
            original = _signature(rule)
            # The over-restriction operator alone reads the other rules (of the same stage).
            made = _strengthen_guard(rule, schema, model.rules) if op == "strengthen-guard" else \
                GENERATORS[op](rule, schema)
            for mid, change, edit in made:
                try:
                    sig = _signature(apply_edit(rule, edit))
                except ModelError:
                    sig = (mid,)  # an edit that cannot even be made is kept: building it says `invalid`
                if sig == original or (rule.name, sig) in seen:
                    continue
                seen.add((rule.name, sig))
                out.append(Mutant(mid, op, rule.name, tuple(rule.implements), change, edit))
    return out


def sample(mutants: list[Mutant], n: int | None, seed: int = 0) -> list[Mutant]:
    """At most `n` mutants, a deterministic function of the list and `seed`, spread across operators
    and, within an operator, across rules; returned in generation order.

    Each rule's mutants are shuffled (seeded), the rules are interleaved in a seeded order, and the
    operators take turns. `n` None or at least the list's length: every mutant."""
    if n is None or n >= len(mutants):
        return list(mutants)
    rng = random.Random(seed)
    order = {m.id: i for i, m in enumerate(mutants)}
    queues = []
    for op in OPERATORS:
        by_rule: dict = {}
        for m in mutants:
            if m.operator == op:
                by_rule.setdefault(m.rule, []).append(m)
        rules = list(by_rule)
        rng.shuffle(rules)
        for r in rules:
            rng.shuffle(by_rule[r])
        queues.append([m for group in itertools.zip_longest(*(by_rule[r] for r in rules)) for m in group
                       if m is not None])
    picked = [m for group in itertools.zip_longest(*queues) for m in group if m is not None][:n]
    return sorted(picked, key=lambda m: order[m.id])
