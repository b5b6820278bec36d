"""Load a designer's proposal file (YAML) with precise, located errors, against one declared schema.

What a proposal may say comes from the game (`Game.switches`, `Game.bound_shapes`, `Game.defects`)
and is declared once, as a `checks.formats.schema` tree (`proposal_schema`): the loader validates
with it (every error at once, each at `file:line:col`, saying what was expected, what was found and
the valid choices) and `rulecheck interpretations --schema` prints it as a JSON Schema
(`json_schema`). Switches may be named by key (`karama-eome-timing`) or by catalogue ID (`A4`).
The file itself is read through `checks.formats.inputs` (size, encoding, nesting, alias limits).

`extends: PROFILE` starts the proposal from an embedded profile: its switches, bounds and seeded
defects, then whatever the file says overrides them (the bounds relations and a defect's module then
read the profile's bounds as the defaults). Only embedded profile names: a proposal file stays one
self-contained file (docs/inputs.md, "Proposal files").

>>> from model.moritani import GAME
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "p.yaml")
>>> _ = open(p, "w").write("name: late karama\\ninterpretation: {A4: after-reply}\\nbounds: {turns: 1}\\n")
>>> prop = load_proposal(GAME, p)
>>> prop.name, prop.interpretation.changed(), prop.bounds.turns
('late karama', [('karama-eome-timing', 'after-reply', ('A4',))], 1)
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from checks.formats.inputs import load_yaml
from checks.formats.relations import AtMost, Exclusive, NeedsFlag, NeedsRow, NeedsSet, NotBoth, OncePerRow, Relation, \
    Requires, Within
from checks.formats.schema import INVALID, Boolean, Choice, Integer, ListOf, Loc, Record, Row, Text, _pos
from model.errors import InputError, ModelError, choices

TOP_KEYS = ("name", "description", "extends", "interpretation", "bounds", "defects")
NAME_LENGTH, DESCRIPTION_LENGTH = 120, 4000


def resolve(game, name_or_path: str | None):
    """An embedded profile by name, or a proposal file by path."""
    profiles = game.profiles
    if name_or_path is None:
        return profiles["default"]
    if name_or_path in profiles:
        return profiles[name_or_path]
    if not Path(name_or_path).exists():
        raise InputError(name_or_path, None, None,
                         f"no such file, and not an embedded profile; profiles: {choices(profiles)}")
    return load_proposal(game, name_or_path)


# -- the schema, from the game's declarations ---------------------------------------------------------

def _item(spec, invalid: str | None = None):
    if isinstance(spec, dict):
        return Integer(spec["min"], spec["max"])
    return Choice(tuple(spec), why=invalid or "is not one of the choices")


def _json_default(v):
    return [_json_default(x) for x in v] if isinstance(v, (tuple, list)) else v


def bound_node(shape: dict, default=None):
    """One bounds entry's node, from its shape (`Game.bound_shapes`)."""
    kind, doc, dflt = shape["kind"], shape.get("why", ""), _json_default(default)
    if kind == "int":
        return Integer(shape["min"], shape["max"], doc=doc, default=dflt, null=bool(shape.get("null")))
    if kind == "bool":
        return Boolean(doc=doc, default=dflt)
    if kind == "enum":
        return Choice(tuple(shape["values"]), null=bool(shape.get("null")), doc=doc, default=dflt,
                      why=shape.get("invalid", "is not one of the choices"))
    if kind == "list":
        return ListOf(_item(shape["items"], shape.get("invalid")), shape.get("min", 0), shape.get("max", 10_000),
                      unique=bool(shape.get("unique")), first=shape.get("first"), doc=doc, default=dflt)
    row = Row(tuple(_item(i) for i in shape["items"]), distinct=bool(shape.get("distinct")))
    return ListOf(row, shape.get("min", 0), shape.get("max", 10_000), key=shape.get("key"), doc=doc, default=dflt)


def bounds_schema(game, base=None) -> Record:
    """The `bounds` mapping: every entry's node and the relations between entries; `base` (Bounds)
    gives the defaults the relations read (the engine defaults unless a profile is the base)."""
    base = base if base is not None else game.bounds()
    defaults = {k: _json_default(v) for k, v in base.as_dict().items()}
    fields: dict = {}
    relations: list[Relation] = []
    for key, shape in game.bound_shapes.items():
        fields[key] = bound_node(shape, defaults.get(key))
        why = shape.get("why", "")
        within = shape.get("within")
        for column, other in (within.items() if isinstance(within, dict) else ((shape.get("key"), within),)):
            if other:
                relations.append(Within(key, other, why, column=column))
        if shape.get("at_most"):
            relations.append(AtMost(key, shape["at_most"], why))
        if shape.get("once"):
            relations.append(OncePerRow(key, why))
        for other in shape.get("excludes", ()):
            relations.append(NotBoth(key, other, why))
        if shape.get("needs_flag"):
            relations.append(NeedsFlag(key, shape["needs_flag"], why))
        if shape.get("needs_row"):
            rows, row_key, column = shape["needs_row"]
            relations.append(NeedsRow(key, rows, row_key, column, why))
        for other in shape.get("needs_set", ()):
            relations.append(NeedsSet(key, other, why))
    return Record(fields, relations=tuple(relations), defaults=defaults, what="bound", optional_null=True,
                  doc="the finite game the proposal is checked on; entries not given keep the engine defaults")


def _switch_ids(sw) -> list:
    return [i for i in sw.ids if i.startswith("A")]


def interpretation_schema(game) -> Record:
    fields, relations = {}, []
    for sw in game.switches:
        node = Choice(tuple(sw.choices), why=f"is not a choice of switch {sw.key} ({'/'.join(sw.ids)})",
                      default=sw.default, doc=f"{sw.question} ({', '.join(sw.ids)}; default from {sw.source})")
        fields[sw.key] = node
        for i in _switch_ids(sw):  # a switch may also be named by its catalogue ID
            fields[i] = dataclasses.replace(node, doc=f"same as {sw.key}")
        if _switch_ids(sw):
            relations.append(Exclusive((sw.key, *_switch_ids(sw)), f"both set switch '{sw.key}'; set it once"))
    keys = [sw.key for sw in game.switches]
    ids = [i for sw in game.switches for i in _switch_ids(sw)]
    return Record(fields, relations=tuple(relations), what="switch", optional_null=True,
                  names=tuple(keys), also=f" (or their IDs {choices(ids)})",
                  doc="one entry per interpretation switch to set (by key or catalogue ID); the rest keep "
                      "the engine default")


def extends_node(game) -> Choice:
    return Choice(tuple(game.profiles), why="is not an embedded profile (expected a profile's name)",
                  doc="an embedded profile to start from: its switches, bounds and seeded defects, then this "
                      "file's entries override them")


def proposal_schema(game, base=None, defects: bool = True) -> Record:
    """The whole proposal file; `base` (a Proposal: the profile `extends` names) gives the defaults its
    relations read. A scenario's `setup.proposal` has no `defects` (they go in `setup`) and no `extends`
    (a scenario records every switch and bound)."""
    fields = {
        "name": Text(NAME_LENGTH, optional_null=True, doc="shown in reports; default: the file name"),
        "description": Text(DESCRIPTION_LENGTH, multiline=True, optional_null=True),
        "interpretation": interpretation_schema(game),
        "bounds": bounds_schema(game, None if base is None else base.bounds),
    }
    if not defects:
        return Record(fields, optional_null=True)
    fields = {"name": fields["name"], "description": fields["description"], "extends": extends_node(game),
              "interpretation": fields["interpretation"], "bounds": fields["bounds"], "defects": defects_schema(game)}
    return Record(fields, relations=defect_needs(game, ("bounds",), None if base is None else base.bounds),
                  optional_null=True)


def defect_needs(game, bounds_path: tuple, base_bounds=None) -> tuple:
    """A seeded defect of an optional module needs the module on (`Defect.needs`); `bounds_path` is where
    the bounds mapping sits below the record that lists the defects; `base_bounds` the bounds a key left
    out keeps (the engine defaults unless a profile is the base)."""
    defaults = base_bounds if base_bounds is not None else game.bounds()
    return tuple(Requires("defects", d.id, (*bounds_path, key), value, getattr(defaults, key),
                          f"is a defect of a module that is off: it needs bounds.{key}: {str(value).lower()}")
                 for d in game.defects for key, value in getattr(d, "needs", ()))


def defects_schema(game) -> ListOf:
    return ListOf(Choice(tuple(sorted(d.id for d in game.defects)), why="is not a seeded defect"), unique=True,
                  optional_null=True, doc="seeded defects (for demonstrating the checker only)")


def json_schema(game) -> dict:
    """A JSON Schema (draft 2020-12) for proposal files, so editors can complete them.

    Printed from the very schema the loader validates with (`proposal_schema`). The relations between
    bounds, and a seeded defect's module, read the defaults of the profile `extends` names (the engine
    defaults without it): each of their conditionals is stated once for the bases that read it alike,
    under `if extends is one of them` (`_based_rules`).

    >>> from model.moritani import GAME
    >>> s = json_schema(GAME)
    >>> switches = s["properties"]["interpretation"]["properties"]
    >>> sw = GAME.switch("A4")  # a switch is named by key or by catalogue ID
    >>> switches[sw.key]["enum"], [name for name in switches if switches[name]["enum"] == list(sw.choices)]
    (['before-reply', 'after-reply', 'pre-emptive-phase'], ['karama-eome-timing', 'A4'])
    >>> s["properties"]["extends"]["enum"][:2]
    ['default', 'printed-rules']
    """
    out = proposal_schema(game).json()
    out["properties"]["bounds"].pop("allOf", None)  # stated below, per base
    out.pop("allOf", None)
    out["allOf"] = [{"if": {"type": "object"}, "then": {"allOf": _based_rules(game)}}]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "rulecheck proposal",
            "description": f"A timing interpretation of {game.description} with the bounds to check it on "
                           "(docs/checking.md, docs/inputs.md)."} | out


def _based_rules(game) -> list:
    """The conditionals of the bounds relations and of the defects' modules, for every base (None: no
    `extends`; else a profile name). Each base gives the same number of rules in the same order (one per
    value of a finite domain), so rule i of every base states the same relation with that base's defaults:
    a rule every base states alike is printed once, the others once per group of bases under a test of
    `extends`."""
    bases = [None, *game.profiles]
    per_base = {}
    for name in bases:
        rec = proposal_schema(game, None if name is None else game.profiles[name])
        bounds = rec.fields["bounds"]
        wrap = lambda r: {"properties": {"bounds": {"if": {"type": "object"}, "then": r}}}  # noqa: E731
        per_base[name] = ([wrap(r) for rel in bounds.relations for r in rel.json(bounds)]
                          + [r for rel in rec.relations for r in rel.json(rec)])
    sizes = {len(rules) for rules in per_base.values()}
    if len(sizes) != 1:
        raise AssertionError("the bases state different numbers of relation rules")  # a bug, never input
    out = []
    for i in range(sizes.pop()):
        groups: dict = {}
        for name in bases:
            groups.setdefault(json.dumps(per_base[name][i], sort_keys=True), (per_base[name][i], []))[1].append(name)
        if len(groups) == 1:
            out.append(per_base[None][i])
            continue
        for rule, names in groups.values():
            out.append({"if": _extends_in(names), "then": rule})
    return out


def _extends_in(names: list) -> dict:
    """JSON Schema: the document's base is one of `names` (None: it has no `extends`)."""
    named = {"required": ["extends"], "properties": {"extends": {"enum": [n for n in names if n is not None]}}}
    if None not in names:
        return named
    return {"anyOf": [{"not": {"required": ["extends"]}}, named]} if len(names) > 1 else \
        {"not": {"required": ["extends"]}}


# -- loading --------------------------------------------------------------------------------------

def check_document(schema: Record, data, path: str) -> dict:
    """The document's checked values; every error at once (InputError.others), in file order."""
    if data is None:
        return {}
    errors: list = []
    values = schema.check(data, Loc(path, errors, "", 1, 1))
    if errors or values is INVALID:
        raise InputError.all_of(errors or [InputError(path, 1, 1, "invalid document")])
    return values


def build_proposal(game, values: dict, path: str, raw, base=None, name: str | None = None):
    """A Proposal from checked values; `base` (a Proposal) supplies what the values leave out (the profile
    `extends` names, when the values name one)."""
    extends = values.get("extends")
    if extends is not None:
        base = game.profiles[extends]
    base = base if base is not None else game.proposal(name or Path(path).stem)
    chosen = dict(base.interpretation.chosen)
    for k, v in (values.get("interpretation") or {}).items():
        chosen[game.switch(k).key] = v
    shapes = game.bound_shapes
    given = {k: tuple(tuple(r) for r in v) if shapes[k]["kind"] == "rows" else tuple(v) if isinstance(v, list) else v
             for k, v in (values.get("bounds") or {}).items()}
    try:
        bounds = dataclasses.replace(base.bounds, **given)
    except ModelError as e:  # the schema and Bounds disagree: still the user's input, located at `bounds`
        line, col = _pos(raw, "key", "bounds")
        raise InputError(path, line, col, f"bounds: {e}") from None
    description = values.get("description") or (
        f"the profile {extends}, changed by {Path(path).name}" if extends else base.description)
    extra = {"extends": extends} if extends else {}
    return dataclasses.replace(base, name=values.get("name") or name or base.name, description=description,
                               interpretation=game.interpretation(tuple(sorted(chosen.items()))), bounds=bounds,
                               source=path, defects=tuple(values.get("defects") or base.defects),
                               given_bounds=frozenset(getattr(base, "given_bounds", ())) | frozenset(given), **extra)


def extended(game, data):
    """The embedded profile a document's `extends` names, or None (absent or not a profile: the schema
    reports the latter at its line and column)."""
    name = data.get("extends") if isinstance(data, dict) else None
    return game.profiles.get(name) if isinstance(name, str) else None


def proposal_values(game, data, path: str) -> dict:
    """A proposal document's checked values, against the schema of the profile it extends (if any)."""
    return check_document(proposal_schema(game, extended(game, data)), data, path)


def load_proposal(game, path: str):
    """Load a proposal file; every error in it is reported at once (InputError.others)."""
    data = load_yaml(path)
    return build_proposal(game, proposal_values(game, data, path), path, data, name=Path(path).stem)
