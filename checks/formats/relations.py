"""Relations between the fields of a `checks.formats.schema.Record`, read on effective values (given,
else the record's default): each checks a parsed document with located errors and states itself as
JSON Schema conditionals over the finite domains involved, so the printed schema and the loader agree.

>>> from checks.formats.schema import Integer, Loc, Record
>>> r = Record({"n": Integer(1, 6), "m": Integer(0, 9)}, relations=(AtMost("m", "n", "m is at most n"),),
...            defaults={"n": 2, "m": 0})
>>> errors = []
>>> _ = r.check({"m": 3}, Loc("x.yaml", errors))
>>> print(errors[0])
x.yaml: m: 3 is more than n (2, the default); m is at most n
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Protocol

from checks.formats.schema import Choice, ListOf, Loc, Node, Record, Row, _pos, _show, quoted


class Relation(Protocol):
    """What a `Record` holds in `relations` (every class below): `check` appends each breach to `loc`."""

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None: ...

def _members(node: Node, value, column=None) -> list:
    """The choice values a field's value holds: [(index path, value)] (a list's items, a column of
    rows, every entry of rows, or a scalar choice itself)."""
    if value is None:
        return []
    if isinstance(node, ListOf):
        if isinstance(node.item, Row):
            cols = range(len(node.item.columns)) if column is None else (column,)
            return [((i, c), row[c]) for i, row in enumerate(value) for c in cols]
        return [((i,), x) for i, x in enumerate(value)]
    return [((), value)]


def _domain(node: Node, column=None) -> list:
    if isinstance(node, ListOf):
        node = node.item
    if isinstance(node, Row):
        cols = node.columns if column is None else (node.columns[column],)
        return list(dict.fromkeys(v for c in cols for v in c.values))
    assert isinstance(node, Choice)  # the nodes `within` lists are choices, or rows of them
    return list(node.values)


def _contains(node: Node, v, column=None) -> dict:
    """JSON Schema: the field's value (as `node` holds it) holds choice `v`."""
    # `contains` says nothing about a value that is not a list (it holds vacuously): say "a list" too.
    if isinstance(node, ListOf):
        if isinstance(node.item, Row):
            if column is None:
                return {"type": "array", "contains": {"contains": {"const": v}}}
            return {"type": "array", "contains": {"prefixItems": [True] * column + [{"const": v}]}}
        return {"type": "array", "contains": {"const": v}}
    return {"const": v}


def _given_or_default(name: str, sub: dict, default_ok: bool):
    """JSON Schema: key `name` is given and matches `sub`, or (if `default_ok`) it is absent."""
    given = {"required": [name], "properties": {name: sub}}
    return {"anyOf": [given, {"not": {"required": [name]}}]} if default_ok else given


def _given_at(loc: Loc, raw, values: dict, *names: str) -> Loc:
    """Where to point an error about `names`: the first of them the document gives, else the record itself."""
    for name in names:
        if name in values:
            return loc.value(raw, name)
    return loc


def _at(loc: Loc, raw, name: str, path: tuple) -> Loc:
    at = loc.value(raw, name)
    node = raw.get(name) if isinstance(raw, dict) else None
    for i in path:
        if not isinstance(node, list):
            break
        at, node = at.item(node, i), node[i]
    return at


@dataclass(frozen=True)
class Within:
    """Every choice in `field` (its `column`, for rows) is in the list `other`."""

    field: str
    other: str
    why: str
    column: int | None = None

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.other in bad:
            return
        node = rec.fields[self.field]
        pool = rec.effective(values, self.other)
        given, pool_given = self.field in values, self.other in values
        for path, v in _members(node, rec.effective(values, self.field), self.column):
            if v in pool:
                continue
            where = _at(loc, raw, self.field, path) if given else (loc.value(raw, self.other) if pool_given else loc)
            other = loc._join(self.other)
            note = f"{other} is {_show(pool)}" + ("" if pool_given else ", the default")
            mine = "" if given else f" ({loc._join(self.field)} is {_show(rec.effective(values, self.field))} by default)"
            where.error(f"{quoted(v)} is not in {other} ({note}){mine}; {self.why}")
            return

    def json(self, rec: Record) -> list:
        node, pool = rec.fields[self.field], rec.fields[self.other]
        mine = {v for _, v in _members(node, rec.defaults.get(self.field), self.column)}
        theirs = {v for _, v in _members(pool, rec.defaults.get(self.other))}
        return [{"if": _given_or_default(self.field, _contains(node, v, self.column), v in mine),
                 "then": _given_or_default(self.other, _contains(pool, v), v in theirs)}
                for v in _domain(node, self.column)]


@dataclass(frozen=True)
class AtMost:
    """The number `field` is at most the number `other`."""

    field: str
    other: str
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.other in bad:
            return
        a, b = rec.effective(values, self.field), rec.effective(values, self.other)
        if a is None or b is None or a <= b:
            return
        given = self.field in values
        where = _given_at(loc, raw, values, self.field, self.other)
        note = "" if self.other in values else ", the default"
        mine = "" if given else f"{loc._join(self.field)} is "
        where.error(f"{mine}{a}{'' if given else ' by default, which'} is more than {loc._join(self.other)} "
                    f"({b}{note}); {self.why}")

    def json(self, rec: Record) -> list:
        hi = rec.fields[self.other]
        da, db = rec.defaults.get(self.field), rec.defaults.get(self.other)
        return [{"if": _given_or_default(self.other, {"const": v}, db == v),
                 "then": _given_or_default(self.field, {"maximum": v}, da is None or da <= v)}
                for v in range(hi.lo, hi.hi + 1)]


@dataclass(frozen=True)
class OncePerRow:
    """No choice appears in two rows of `field` (a faction is in at most one alliance)."""

    field: str
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field not in values:
            return
        seen: dict = {}
        for i, row in enumerate(values[self.field]):
            for v in dict.fromkeys(row):
                if v in seen:
                    _at(loc, raw, self.field, (i,)).error(
                        f"{quoted(v)} is in two rows ({_show(values[self.field][seen[v]])} and {_show(row)}); {self.why}")
                    return
                seen[v] = i

    def json(self, rec: Record) -> list:
        return [{"properties": {self.field: {"contains": {"contains": {"const": v}}, "minContains": 0,
                                             "maxContains": 1}}} for v in _domain(rec.fields[self.field])]


@dataclass(frozen=True)
class NotBoth:
    """The flags `field` and `other` (effective values) are not both true (two optional modules that cannot be
    combined yet)."""

    field: str
    other: str
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.other in bad:
            return
        if rec.effective(values, self.field) is True and rec.effective(values, self.other) is True:
            where = _given_at(loc, raw, values, self.field, self.other)
            where.error(f"{loc._join(self.field)} and {loc._join(self.other)} are both on; {self.why}")

    def json(self, rec: Record) -> list:
        on = {"const": True}
        return [{"not": {"allOf": [_given_or_default(self.field, on, rec.defaults.get(self.field) is True),
                                   _given_or_default(self.other, on, rec.defaults.get(self.other) is True)]}}]


@dataclass(frozen=True)
class NeedsFlag:
    """When `field` (effective value) is not empty, the flag `flag` must be on (an entry of an optional module)."""

    field: str
    flag: str
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.flag in bad or rec.effective(values, self.field) is None:
            return
        if rec.effective(values, self.flag) is not True:
            where = _given_at(loc, raw, values, self.field, self.flag)
            where.error(f"{loc._join(self.field)} is set but {loc._join(self.flag)} is off; {self.why}")

    def json(self, rec: Record) -> list:
        unset = rec.defaults.get(self.field) is None
        return [{"if": {"not": _given_or_default(self.field, {"const": None}, unset)},
                 "then": _given_or_default(self.flag, {"const": True}, rec.defaults.get(self.flag) is True)}]


@dataclass(frozen=True)
class NeedsSet:
    """When the flag `field` is true, `other` (effective value) is not empty (Ambassador relocation needs an
    Ambassador on the board)."""

    field: str
    other: str
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.other in bad or rec.effective(values, self.field) is not True:
            return
        if rec.effective(values, self.other) is None:
            where = _given_at(loc, raw, values, self.field, self.other)
            where.error(f"{loc._join(self.field)} is on but {loc._join(self.other)} is empty; {self.why}")

    def json(self, rec: Record) -> list:
        return [{"if": _given_or_default(self.field, {"const": True}, rec.defaults.get(self.field) is True),
                 "then": _given_or_default(self.other, {"not": {"const": None}},
                                           rec.defaults.get(self.other) is not None)}]


@dataclass(frozen=True)
class NeedsRow:
    """When the flag `field` is true, the rows of `rows` (effective value) hold one whose first column is `key` and
    whose column `column` is at least 1 (worm rides need Fremen forces in the open desert)."""

    field: str
    rows: str
    key: str
    column: int
    why: str

    def _holds(self, rows) -> bool:
        return any(r and r[0] == self.key and isinstance(r[self.column], int) and r[self.column] >= 1
                   for r in rows or [])

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.rows in bad or rec.effective(values, self.field) is not True:
            return
        if not self._holds(rec.effective(values, self.rows)):
            where = _given_at(loc, raw, values, self.field, self.rows)
            where.error(f"{loc._join(self.field)} is on but {loc._join(self.rows)} has no row "
                        f"[{self.key}, ..., at least 1 in column {self.column + 1}]; {self.why}")

    def json(self, rec: Record) -> list:
        row = {"type": "array", "prefixItems": [{"const": self.key}] + [True] * (self.column - 1) + [{"minimum": 1}]}
        return [{"if": _given_or_default(self.field, {"const": True}, rec.defaults.get(self.field) is True),
                 "then": _given_or_default(self.rows, {"type": "array", "contains": row},
                                           self._holds(rec.defaults.get(self.rows)))}]


@dataclass(frozen=True)
class Exclusive:
    """At most one of these keys is given (a switch named by its key and by its ID)."""

    names: tuple
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        given = sorted((n for n in self.names if n in raw), key=lambda n: _pos(raw, "key", n))
        if len(given) > 1:
            line, col = _pos(raw, "key", given[1])
            loc.error(f"{quoted(given[1])} and {quoted(given[0])}: {self.why}", line, col)

    def json(self, rec: Record) -> list:
        return [{"not": {"required": [a, b]}} for a, b in itertools.combinations(self.names, 2)]


@dataclass(frozen=True)
class Alone:
    """When `field` is given, none of `others` may be (blocked_at ends a scenario early)."""

    field: str
    others: tuple
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field not in raw:
            return
        for o in self.others:
            if o in raw:
                line, col = _pos(raw, "key", o)
                loc.error(f"{quoted(o)} cannot go with {quoted(self.field)}; {self.why}", line, col)
                return

    def json(self, rec: Record) -> list:
        return [{"if": {"required": [self.field]},
                 "then": {"not": {"anyOf": [{"required": [o]} for o in self.others]}}}]


@dataclass(frozen=True)
class NeedsKey:
    """When `field` is given, `other` must be given too (a refusal's reason needs the refused step)."""

    field: str
    other: str
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in raw and self.other not in raw:
            line, col = _pos(raw, "key", self.field)
            loc.error(f"{quoted(self.field)} needs {quoted(self.other)}; {self.why}", line, col)

    def json(self, rec: Record) -> list:
        return [{"if": {"required": [self.field]}, "then": {"required": [self.other]}}]


@dataclass(frozen=True)
class Requires:
    """When the list `field` holds `value`, the entry at `path` (keys below this record, given or
    default) must be `equals` (a seeded defect of an optional module needs the module switched on)."""

    field: str
    value: str
    path: tuple
    equals: object
    default: object
    why: str

    def check(self, rec: Record, values, bad, raw, loc: Loc) -> None:
        if self.field in bad or self.path[0] in bad or self.value not in (values.get(self.field) or []):
            return
        cur = values
        for k in self.path[:-1]:
            cur = cur.get(k) if isinstance(cur, dict) else None
        leaf = cur.get(self.path[-1], self.default) if isinstance(cur, dict) else self.default
        if leaf != self.equals:
            i = values[self.field].index(self.value)
            _at(loc, raw, self.field, (i,)).error(f"{quoted(self.value)} {self.why}")

    def json(self, rec: Record) -> list:
        def nested(path, sub, default_ok):
            inner = sub if len(path) == 1 else nested(path[1:], sub, default_ok)
            if len(path) > 1 and not default_ok:
                inner = {"type": "object"} | inner
            return _given_or_default(path[0], inner, default_ok)
        return [{"if": {"required": [self.field],
                        "properties": {self.field: {"type": "array", "contains": {"const": self.value}}}},
                 "then": nested(self.path, {"const": self.equals}, self.default == self.equals)}]
