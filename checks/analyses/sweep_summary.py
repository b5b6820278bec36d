"""What a sweep says per check: which switch choices its verdict depends on, as a "holds iff" statement.

`explain` fits a small decision tree to the decided rows (holds or violated; unknown and failed
combinations are left out and counted): at each node it splits on the switch that leaves the
fewest rows misclassified (ties: the switch order of the sweep), and children with the same subtree
are merged, so a switch the verdict does not depend on never appears. The tree is read back as a
disjunction of conjunctions of `switch=choice` literals, each literal and clause dropped that the
rows do not need (`A12 in {reject, force-discard}`,
`A4!=after-reply` for all but one choice), and that statement is then evaluated on every decided
row: `Explanation.agrees` counts the rows it matches (all of them, or the summary says which not).

`smallest_violations` gives, per check, the violating combinations with the fewest switches away
from the base proposal.

>>> rows = [({"a": a, "b": b}, a == "y" or b == "q") for a in "xy" for b in "pq"]
>>> ex = explain(rows, (("a", ("x", "y")), ("b", ("p", "q"))), {"a": "A1", "b": "B"})
>>> ex.statement, ex.depends_on, ex.agrees
('holds iff A1=y or B=q', ('A1', 'B'), 4)
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Explanation:
    statement: str
    depends_on: tuple  # switch labels the statement mentions
    clauses: tuple  # ((key, choices), ...) per conjunction: holds iff any clause matches
    agrees: int  # decided rows the statement matches
    decided: int
    undecided: int  # rows left out (unknown or failed)


def _split_cost(points, key) -> int:
    groups: dict = {}
    for combo, v in points:
        groups.setdefault(combo[key], []).append(v)
    return sum(min(sum(vs), len(vs) - sum(vs)) for vs in groups.values())


def _tree(points: list, axes: tuple):
    """("leaf", bool) or ("split", key, ((choices, subtree), ...))."""
    values = {v for _, v in points}
    if len(values) <= 1 or not axes:
        return ("leaf", sum(v for _, v in points) * 2 >= len(points) if points else True)
    key, choices = min(axes, key=lambda a: (_split_cost(points, a[0]), axes.index(a)))
    rest = tuple(a for a in axes if a[0] != key)
    groups: list = []  # [(subtree, [choices])], first-seen order
    for c in choices:
        sub = [(combo, v) for combo, v in points if combo[key] == c]
        if not sub:
            continue
        t = _tree(sub, rest)
        for g in groups:
            if g[0] == t:
                g[1].append(c)
                break
        else:
            groups.append((t, [c]))
    if len(groups) == 1:
        return groups[0][0]
    return ("split", key, tuple((tuple(cs), t) for t, cs in groups))


def _paths(tree, prefix=()):
    if tree[0] == "leaf":
        if tree[1]:
            yield prefix
        return
    _, key, children = tree
    for cs, sub in children:
        yield from _paths(sub, prefix + ((key, cs),))


def _literal(key, cs, all_choices: dict, labels: dict) -> str:
    name = labels.get(key, key)
    if len(cs) == 1:
        return f"{name}={cs[0]}"
    others = [c for c in all_choices[key] if c not in cs]
    if len(others) == 1:
        return f"{name}!={others[0]}"
    return f"{name} in {{{', '.join(cs)}}}"


def _matches(clauses, combo) -> bool:
    return any(all(combo[k] in cs for k, cs in clause) for clause in clauses)


def _agrees(clauses, rows) -> bool:
    return all(_matches(clauses, combo) == v for combo, v in rows)


def _simplify(clauses: tuple, rows: list) -> tuple:
    """Drop every literal, then every clause, whose removal still matches every row (a tree's path repeats
    the tests that its earlier siblings already decided); the simplest clause first."""
    if not _agrees(clauses, rows):
        return tuple(sorted(clauses, key=len))
    out = list(clauses)
    for i in range(len(out)):
        for lit in list(out[i]):
            trial = out[:i] + [tuple(x for x in out[i] if x != lit)] + out[i + 1:]
            if _agrees(trial, rows):
                out = trial
    for clause in list(out):
        trial = [c for c in out if c is not clause]
        if trial and _agrees(trial, rows):
            out = trial
    return tuple(sorted(out, key=len))


def explain(rows: list, axes: tuple, labels: dict, undecided: int = 0) -> Explanation:
    """`rows`: [(combination {key: choice}, holds?)] over the decided rows; `axes`: ((key, choices), ...)."""
    all_choices = dict(axes)
    tree = _tree(rows, tuple(axes))
    pos = {k: n for n, (k, _) in enumerate(axes)}
    clauses = tuple(tuple(sorted(c, key=lambda lit: pos[lit[0]])) for c in _simplify(tuple(_paths(tree)), rows))
    clauses = tuple(sorted(clauses, key=lambda c: (len(c), [pos[k] for k, _ in c])))  # simplest first, switch order
    keys = []
    for clause in clauses:
        keys += [k for k, _ in clause if k not in keys]
    if not rows:
        statement = "undecided on every combination"
    elif clauses == ((),):
        statement = "holds on every combination"
    elif not clauses:
        statement = "violated on every combination"
    else:
        parts = [" and ".join(_literal(k, cs, all_choices, labels) for k, cs in c) for c in clauses]
        statement = "holds iff " + " or ".join(p if len(c) == 1 or len(parts) == 1 else f"({p})"
                                              for p, c in zip(parts, clauses))
    agrees = sum(_matches(clauses, combo) == v for combo, v in rows)
    order = [labels.get(k, k) for k, _ in axes if k in keys]
    return Explanation(statement, tuple(order), clauses, agrees, len(rows), undecided)


def smallest_violations(rows: list, check: str) -> list:
    """The rows (dicts with `distance` and `verdicts`) that violate `check` with the fewest switches
    away from the base proposal."""
    bad = [r for r in rows if r.get("verdicts", {}).get(check) == "violated"]
    if not bad:
        return []
    least = min(r["distance"] for r in bad)
    return [r for r in bad if r["distance"] == least]
