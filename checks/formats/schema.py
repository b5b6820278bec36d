"""The shape of a file the tool reads, declared once: it validates (errors at `file:line:col`, saying
what was expected, what was found and the valid choices) and it prints itself as a JSON Schema.

A declaration is a tree of nodes (`Text`, `Integer`, `Number`, `Boolean`, `Choice`, `Const`, `Scalar`,
`ListOf`, `Row`, `Record`, `MapOf`) and, inside a `Record`, relations between its fields
(checks/formats/relations.py: `Within`, `AtMost`, `OncePerRow`, `Exclusive`, `Alone`, `Requires`). `node.check(value, loc)` validates a
parsed YAML value (ruamel's round-trip types carry positions), appends every problem to
`loc.errors` and returns the checked value; `node.json()` is the JSON Schema (draft 2020-12) of the
same node, relations included (as conditionals over the finite domains), so a document the JSON
Schema accepts is a document `check` accepts and the other way round (tests/test_schema.py checks
that on generated documents).

A relation reads each field's *effective* value: the value given, else the record's default (a
proposal that names only `factions` still gets the default Karama holder, who must be among them).

>>> r = Record({"turns": Integer(1, 6), "name": Text(20)})
>>> errors = []
>>> r.check({"turns": 9, "colour": "red"}, Loc("x.yaml", errors)) is INVALID
True
>>> print(errors[1])
x.yaml: unknown key 'colour'; valid: name, turns
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from model.errors import InputError, choices

# Control characters, as JSON Schema patterns: C0 (a multi-line text allows tab, newline, return), DEL, C1.
# Written as "must not contain" (`not` + a search) rather than `^[^...]*$`: Python's `$` also matches
# before a final newline, ECMA's does not, and the schema must mean the same to both.
LINE_CONTROL = "[\\u0000-\\u001f\\u007f-\\u009f]"
CONTROL = "[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]"
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")


# -- where a value is, and how to describe what was found ------------------------------------------

@dataclass
class Loc:
    """Where a value sits: the file, its dotted trail (`bounds.forces[0][1]`) and its position."""

    file: str
    errors: list
    trail: str = ""
    line: int | None = None
    col: int | None = None

    def error(self, message: str, line=None, col=None) -> None:
        where = f"{self.trail}: " if self.trail else ""
        self.errors.append(InputError(self.file, line or self.line, col if line else self.col, where + message))

    def key(self, mapping, k) -> "Loc":
        line, col = _pos(mapping, "key", k)
        return Loc(self.file, self.errors, self._join(k), line or self.line, col if line else self.col)

    def value(self, mapping, k) -> "Loc":
        # An empty value has no position of its own (the parser points past it): show its key's.
        line, col = _pos(mapping, "key" if mapping.get(k, 0) is None else "value", k)
        return Loc(self.file, self.errors, self._join(k), line or self.line, col if line else self.col)

    def item(self, seq, i: int) -> "Loc":
        line, col = _pos(seq, "item", i)
        return Loc(self.file, self.errors, f"{self.trail}[{i}]", line or self.line, col if line else self.col)

    def _join(self, k) -> str:
        return f"{self.trail}.{k}" if self.trail else str(k)


def _pos(node, kind: str, k) -> tuple[int | None, int | None]:
    try:
        line, col = getattr(node.lc, kind)(k)
        return line + 1, col + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None, None


def quoted(text: str, limit: int = 60) -> str:
    """Text as a message shows it: quoted, control characters escaped, long text cut.

    >>> quoted("a\\x1b[2Jb")
    "'a\\\\x1b[2Jb'"
    """
    s = _CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text)).replace("\n", "\\n").replace("\r", "\\r")
    return "'" + (s if len(s) <= limit else s[:limit] + "...") + "'"


def found(value) -> str:
    """What a value is, in words (for 'expected ...; found ...')."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, float):
        return f"the number {value:g}"
    if isinstance(value, str):
        return f"the text {quoted(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a value of type {type(value).__name__}"


INVALID = object()  # what `check` returns for a value that failed (its errors are in loc.errors)


def _integral(value):
    """An int for an integer or an integral float (JSON Schema's `integer` accepts 2.0), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


# -- scalar nodes ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    """Common to every node: `optional_null` (YAML's empty value means the key is absent), and the
    `doc` and `default` the JSON Schema shows to editors."""

    def check(self, value, loc: Loc):
        """The checked value, or INVALID (its errors appended to `loc`); every node defines it."""
        raise NotImplementedError

    def json(self) -> dict:
        """The node as JSON Schema; every node defines it."""
        raise NotImplementedError

    def _meta(self, out: dict) -> dict:
        doc, default = getattr(self, "doc", None), getattr(self, "default", None)
        if doc:
            out["description"] = doc
        if default is not None:
            out["default"] = default
        return out

    def _null(self, out: dict) -> dict:
        if getattr(self, "optional_null", False):
            t = out.get("type")
            out["type"] = [t, "null"] if isinstance(t, str) else out.get("type")
        return out


@dataclass(frozen=True)
class Text(Node):
    max_len: int = 200
    multiline: bool = False
    optional_null: bool = False
    doc: str = ""
    default: object = None

    def check(self, value, loc: Loc):
        if not isinstance(value, str):
            loc.error(f"expected text; found {found(value)} (quote it to make it text)")
            return INVALID
        if len(value) > self.max_len:
            loc.error(f"text of {len(value):,} characters; at most {self.max_len:,}")
            return INVALID
        bad = (_CONTROL_RE if self.multiline else _LINE_CONTROL_RE).search(value)
        if bad:
            loc.error(f"a control character (U+{ord(bad.group()):04X}) is not allowed here; found {quoted(value)}")
            return INVALID
        return str(value)

    def json(self) -> dict:
        bad = {"type": "string", "pattern": CONTROL if self.multiline else LINE_CONTROL}
        return self._meta(self._null({"type": "string", "maxLength": self.max_len, "not": bad}))


@dataclass(frozen=True)
class Integer(Node):
    """A whole number in [lo, hi] (`null`: YAML's empty value is allowed too, meaning none)."""

    lo: int = 0
    hi: int = 10**6
    doc: str = ""
    default: object = None
    null: bool = False

    def describe(self) -> str:
        return f"a whole number from {self.lo} to {self.hi}" + (" (or empty: none)" if self.null else "")

    def check(self, value, loc: Loc):
        if value is None and self.null:
            return None
        n = _integral(value)
        if n is None:
            loc.error(f"expected {self.describe()}; found {found(value)}")
            return INVALID
        if not self.lo <= n <= self.hi:
            loc.error(f"{n} is out of range; expected {self.describe()}")
            return INVALID
        return n

    def json(self) -> dict:
        return self._meta({"type": ["integer", "null"] if self.null else "integer", "minimum": self.lo,
                           "maximum": self.hi})


@dataclass(frozen=True)
class Number(Node):
    """A finite number in [lo, hi], whole or not (seconds in a sweep row)."""

    lo: float = 0.0
    hi: float = 1e12
    doc: str = ""

    def check(self, value, loc: Loc):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not self.lo <= value <= self.hi:
            loc.error(f"expected a number from {self.lo:g} to {self.hi:g}; found {found(value)}")
            return INVALID
        return value

    def json(self) -> dict:
        return self._meta({"type": "number", "minimum": self.lo, "maximum": self.hi})


@dataclass(frozen=True)
class Boolean(Node):
    doc: str = ""
    default: object = None

    def check(self, value, loc: Loc):
        if not isinstance(value, bool):
            loc.error(f"expected true or false; found {found(value)}")
            return INVALID
        return value

    def json(self) -> dict:
        return self._meta({"type": "boolean"})


@dataclass(frozen=True)
class Choice(Node):
    """One of a few texts (`null`: YAML's empty value is one of them, meaning none)."""

    values: tuple = ()
    null: bool = False
    why: str = "is not one of the choices"
    optional_null: bool = False
    doc: str = ""
    default: object = None

    def check(self, value, loc: Loc):
        if value is None and self.null:
            return None
        valid = choices(self.values) + (" (or empty for none)" if self.null else "")
        if not isinstance(value, str):
            loc.error(f"expected one of {valid}; found {found(value)}")
            return INVALID
        if value not in self.values:
            loc.error(f"{quoted(value)} {self.why}; valid: {valid}")
            return INVALID
        return str(value)

    def json(self) -> dict:
        out = {"enum": list(self.values) + ([None] if self.null or self.optional_null else [])}
        return self._meta(out)


@dataclass(frozen=True)
class Const(Node):
    value: object = True
    why: str = ""

    def check(self, value, loc: Loc):
        if value is not self.value and not (type(value) is type(self.value) and value == self.value):
            loc.error(f"expected {self.value!r}{'; ' + self.why if self.why else ''}; found {found(value)}")
            return INVALID
        return value

    def json(self) -> dict:
        return {"const": self.value}


@dataclass(frozen=True)
class Scalar(Node):
    """Text, a whole number or true/false (a slot value in a scenario's expectation)."""

    max_len: int = 200
    doc: str = ""

    def check(self, value, loc: Loc):
        if isinstance(value, bool):
            return value
        if _integral(value) is not None:
            return _integral(value)
        if isinstance(value, str) and len(value) <= self.max_len and not _LINE_CONTROL_RE.search(value):
            return str(value)
        loc.error(f"expected text, a whole number or true/false (at most {self.max_len} characters, one line); "
                  f"found {found(value)}")
        return INVALID

    def json(self) -> dict:
        return self._meta({"anyOf": [{"type": ["integer", "boolean"]},
                                     {"type": "string", "maxLength": self.max_len,
                                      "not": {"type": "string", "pattern": LINE_CONTROL}}]})


# -- collections -----------------------------------------------------------------------------------

def _freeze(v):
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def _show(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return "none" if v is None else str(v)


@dataclass(frozen=True)
class Row(Node):
    """A fixed-width list (`[Atreides, 1, 1]`); `distinct`: its entries differ."""

    columns: tuple = ()
    distinct: bool = False

    def check(self, value, loc: Loc):
        n = len(self.columns)
        if not isinstance(value, list) or len(value) != n:
            loc.error(f"expected a list of {n} entries; found "
                      + (f"a list of {len(value)}" if isinstance(value, list) else found(value)))
            return INVALID
        out = [c.check(x, loc.item(value, i)) for i, (c, x) in enumerate(zip(self.columns, value))]
        if any(x is INVALID for x in out):
            return INVALID
        if self.distinct and len(set(out)) < n:
            loc.error(f"the entries must differ; found {_show(out)}")
            return INVALID
        return out

    def json(self) -> dict:
        n = len(self.columns)
        out = {"type": "array", "prefixItems": [c.json() for c in self.columns], "minItems": n, "maxItems": n}
        if self.distinct:
            out["uniqueItems"] = True
        return out


@dataclass(frozen=True)
class ListOf(Node):
    """A list of `item`s: between `min_items` and `max_items`; `unique` entries; `first` (the first
    entry must be this value); `key` (rows: the values in this column are unique)."""

    item: Node
    min_items: int = 0
    max_items: int = 10_000
    unique: bool = False
    first: object = None
    key: int | None = None
    optional_null: bool = False
    doc: str = ""
    default: object = None

    def check(self, value, loc: Loc):
        if not isinstance(value, list):
            loc.error(f"expected a list; found {found(value)}")
            return INVALID
        if not self.min_items <= len(value) <= self.max_items:
            most = f" and at most {self.max_items:,}" if self.max_items < 10_000 else ""
            loc.error(f"expected at least {self.min_items}{most} entries; found {len(value)}")
            return INVALID
        before = len(loc.errors)
        out: list = []
        seen: dict = {}
        for i, x in enumerate(value):
            at = loc.item(value, i)
            v = self.item.check(x, at)
            if v is INVALID:
                continue
            out.append(v)
            if self.unique or self.key is not None:
                k = _freeze(v[self.key] if self.key is not None else v)
                if k in seen:
                    at.error(f"{quoted(_show(k))} is listed twice (first at line {seen[k]}); each may appear once")
                else:
                    seen[k] = at.line
        if self.first is not None and out and len(out) == len(value) and out[0] != self.first:
            loc.item(value, 0).error(f"the list must start with {self.first}; found {quoted(_show(out[0]))}")
        return out if len(loc.errors) == before else INVALID

    def json(self) -> dict:
        out = self._null({"type": "array", "items": self.item.json()})
        if self.min_items:
            out["minItems"] = self.min_items
        if self.max_items < 10_000:
            out["maxItems"] = self.max_items
        if self.unique:
            out["uniqueItems"] = True
        if self.first is not None:
            out["prefixItems"] = [{"const": self.first}]
        if self.key is not None:
            assert isinstance(self.item, Row)  # `key` names a column: the items are rows
            out["allOf"] = [{"contains": {"prefixItems": [True] * self.key + [{"const": v}]},
                             "minContains": 0, "maxContains": 1} for v in self.item.columns[self.key].values]
        return self._meta(out)


@dataclass(frozen=True)
class MapOf(Node):
    """A mapping whose keys are checked by `key` and values by `value` (expect.values)."""

    key: Node
    value: Node
    doc: str = ""

    def check(self, value, loc: Loc):
        if not isinstance(value, dict):
            loc.error(f"expected a mapping; found {found(value)}")
            return INVALID
        before = len(loc.errors)
        out = {}
        for k, v in value.items():
            kk = self.key.check(k, loc.key(value, k))
            vv = self.value.check(v, loc.value(value, k))
            if kk is not INVALID and vv is not INVALID:
                out[kk] = vv
        return out if len(loc.errors) == before else INVALID

    def json(self) -> dict:
        return self._meta({"type": "object", "propertyNames": self.key.json(),
                           "additionalProperties": self.value.json()})


@dataclass(frozen=True)
class Record(Node):
    """A mapping with known keys (`fields`); `required` keys; `relations` between fields, read on
    effective values (`defaults` fill the keys not given). `what` names a key in messages."""

    fields: dict = field(default_factory=dict)
    required: tuple = ()
    relations: tuple = ()
    defaults: dict = field(default_factory=dict)
    what: str = "key"
    names: tuple = ()       # the keys to list as valid in messages (default: every field)
    also: str = ""          # appended to the list of valid keys (e.g. "or their IDs ...")
    min_keys: int = 0
    optional_null: bool = False
    doc: str = ""

    def check(self, value, loc: Loc):
        if not isinstance(value, dict):
            loc.error(f"expected a mapping of {self.what}: value; found {found(value)}")
            return INVALID
        before = len(loc.errors)
        out, bad = {}, set()
        for k, v in value.items():
            line, col = _pos(value, "key", k)
            here = Loc(loc.file, loc.errors, loc.trail, line or loc.line, col if line else loc.col)
            node = self.fields.get(k) if isinstance(k, str) else None
            if node is None:
                name = quoted(k) if isinstance(k, str) else found(k)
                here.error(f"unknown {self.what} {name}; valid: {choices(self.names or self.fields)}{self.also}")
                continue
            if v is None and getattr(node, "optional_null", False):
                continue
            got = node.check(v, loc.value(value, k))
            if got is INVALID:
                bad.add(k)
            else:
                out[k] = got
        for k in self.required:
            if k not in value:
                loc.error(f"missing {quoted(k)}; required: {', '.join(self.required)}")
        if len(value) < self.min_keys:
            loc.error(f"expected at least {self.min_keys} of {choices(self.fields)}; found none")
        for rel in self.relations:
            rel.check(self, out, bad, value, loc)
        return out if len(loc.errors) == before else INVALID

    def effective(self, values: dict, name: str):
        return values[name] if name in values else self.defaults.get(name)

    def json(self) -> dict:
        out = {"type": "object", "additionalProperties": False,
               "properties": {k: n.json() for k, n in self.fields.items()}}
        if self.optional_null:
            out["type"] = ["object", "null"]
        if self.required:
            out["required"] = list(self.required)
        if self.min_keys:
            out["minProperties"] = self.min_keys
        rules = [r for rel in self.relations for r in rel.json(self)]
        if rules:  # relations speak of a mapping's keys; `null` (an empty section) has none
            out["allOf"] = [{"if": {"type": "object"}, "then": {"allOf": rules}}] if self.optional_null else rules
        return self._meta(out)
