"""Load a designer's proposal file (YAML) with precise, located errors, against one declared schema.

What a proposal may say comes from the game (`Game.switches`, `Game.bound_shapes`, `Game.defects`)
and is declared once, as a `checks.formats.schema` tree (`proposal_schema`): the loader validates
with it (every error at once, each at `file:line:col`, saying what was expected, what was found and
the valid choices) and `rulecheck interpretations --schema` prints it as a JSON Schema
(`json_schema`). Switches may be named by key (`karama-eome-timing`) or by catalogue ID (`A4`).
The file itself is read through `checks.formats.inputs` (size, encoding, nesting, alias limits).

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
from pathlib import Path

from checks.formats.inputs import load_yaml
from checks.formats.relations import AtMost, Exclusive, NeedsFlag, NeedsRow, NeedsSet, NotBoth, OncePerRow, Requires, \
    Within
from checks.formats.schema import INVALID, Boolean, Choice, Integer, ListOf, Loc, Record, Row, Text, _pos
from model.errors import InputError, ModelError, choices

TOP_KEYS = ("name", "description", "interpretation", "bounds", "defects")
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
    fields, relations = {}, []
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
            relations.append(NeedsRow(key, *shape["needs_row"], why))
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


def proposal_schema(game, base=None, defects: bool = True) -> Record:
    """The whole proposal file (a scenario's `setup.proposal` has no `defects`: they go in `setup`)."""
    fields = {
        "name": Text(NAME_LENGTH, optional_null=True, doc="shown in reports; default: the file name"),
        "description": Text(DESCRIPTION_LENGTH, multiline=True, optional_null=True),
        "interpretation": interpretation_schema(game),
        "bounds": bounds_schema(game, None if base is None else base.bounds),
    }
    if not defects:
        return Record(fields, optional_null=True)
    fields["defects"] = defects_schema(game)
    return Record(fields, relations=defect_needs(game, ("bounds",)), optional_null=True)


def defect_needs(game, bounds_path: tuple) -> tuple:
    """A seeded defect of an optional module needs the module on (`Defect.needs`); `bounds_path` is where
    the bounds mapping sits below the record that lists the defects."""
    defaults = game.bounds()
    return tuple(Requires("defects", d.id, (*bounds_path, key), value, getattr(defaults, key),
                          f"is a defect of a module that is off: it needs bounds.{key}: {str(value).lower()}")
                 for d in game.defects for key, value in getattr(d, "needs", ()))


def defects_schema(game) -> ListOf:
    return ListOf(Choice(tuple(sorted(d.id for d in game.defects)), why="is not a seeded defect"), unique=True,
                  optional_null=True, doc="seeded defects (for demonstrating the checker only)")


def json_schema(game) -> dict:
    """A JSON Schema (draft 2020-12) for proposal files, so editors can complete them.

    Printed from the very schema the loader validates with (`proposal_schema`).

    >>> from model.moritani import GAME
    >>> switches = json_schema(GAME)["properties"]["interpretation"]["properties"]
    >>> sw = GAME.switch("A4")  # a switch is named by key or by catalogue ID
    >>> switches[sw.key]["enum"], [name for name in switches if switches[name]["enum"] == list(sw.choices)]
    (['before-reply', 'after-reply', 'pre-emptive-phase'], ['karama-eome-timing', 'A4'])
    """
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "rulecheck proposal",
            "description": f"A timing interpretation of {game.description} with the bounds to check it on "
                           "(docs/checking.md, docs/inputs.md)."} | proposal_schema(game).json()


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
    """A Proposal from checked values; `base` (a Proposal) supplies what the values leave out."""
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
    return dataclasses.replace(base, name=values.get("name") or name or base.name,
                               description=values.get("description") or base.description,
                               interpretation=game.interpretation(tuple(sorted(chosen.items()))), bounds=bounds,
                               source=path, defects=tuple(values.get("defects") or base.defects),
                               given_bounds=frozenset(getattr(base, "given_bounds", ())) | frozenset(given))


def load_proposal(game, path: str):
    """Load a proposal file; every error in it is reported at once (InputError.others)."""
    data = load_yaml(path)
    values = check_document(proposal_schema(game), data, path)
    return build_proposal(game, values, path, data, name=Path(path).stem)
