"""Load a designer's proposal file (YAML) with precise, located errors.

Errors name the file, line and column, say what was expected and what was
found, and list the valid choices. Switches may be named by key
(`karama-eome-timing`) or by catalogue ID (`A4`). What a proposal may say
comes from the game (`Game.switches`, `Game.bound_shapes`, `Game.defects`),
which is also the one source of the JSON Schema (`json_schema`).
"""
from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from model.errors import InputError, ModelError, choices

TOP_KEYS = ("name", "description", "interpretation", "bounds", "defects")


def load_yaml(path: str):
    """Parse YAML keeping positions; a syntax error becomes an InputError with its location."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(path, None, None, f"cannot read the file ({e.strerror})") from None
    try:
        return YAML(typ="rt").load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise InputError(path, line, col, f"malformed YAML: {e.problem or e.context}") from None


def key_pos(node, key):
    try:
        line, col = node.lc.key(key)
        return line + 1, col + 1
    except (AttributeError, KeyError, TypeError):
        return None, None


def value_pos(node, key):
    try:
        line, col = node.lc.value(key)
        return line + 1, col + 1
    except (AttributeError, KeyError, TypeError):
        return None, None


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


def load_proposal(game, path: str):
    """Load a proposal file; every error in it is reported at once (InputError.others)."""
    data = load_yaml(path)
    if data is None:
        return game.proposal(Path(path).stem, source=path)
    if not isinstance(data, dict):
        raise InputError(path, 1, 1, f"expected a mapping with keys {choices(TOP_KEYS)}; found {type(data).__name__}")
    errors: list[InputError] = []
    for k in data:
        if k not in TOP_KEYS:
            line, col = key_pos(data, k)
            errors.append(InputError(path, line, col, f"unknown key '{k}'; valid: {choices(TOP_KEYS)}"))
    name = str(data.get("name") or Path(path).stem)
    interp = interpretation(game, path, data.get("interpretation"), data, errors)
    bounds = bounds_of(game, path, data.get("bounds"), data, errors)
    defects = data.get("defects") or []
    valid = [d.id for d in game.defects]
    if not isinstance(defects, list) or any(str(d) not in valid for d in defects):
        line, col = value_pos(data, "defects")
        bad = [d for d in defects if str(d) not in valid] if isinstance(defects, list) else [defects]
        errors.append(InputError(path, line, col, f"unknown seeded defect {bad[0]!r}; valid: {choices(valid)}"))
    if errors:
        raise InputError.all_of(errors)
    return game.proposal(name, str(data.get("description") or ""), interp, bounds, source=path,
                         defects=tuple(str(d) for d in defects))


def interpretation(game, path, node, parent, errors: list):
    """The interpretation a mapping of switch: choice names; errors are appended, located."""
    if node is None:
        return game.interpretation()
    if not isinstance(node, dict):
        line, col = value_pos(parent, "interpretation")
        errors.append(InputError(path, line, col, "interpretation: expected a mapping of switch: choice"))
        return game.interpretation()
    keys = [sw.key for sw in game.switches]
    ids = [i for sw in game.switches for i in sw.ids if i.startswith("A")]
    chosen = {}
    for key, value in node.items():
        sw = game.switch(str(key))
        if sw is None:
            line, col = key_pos(node, key)
            errors.append(InputError(path, line, col, f"unknown switch '{key}'; valid: {choices(keys)} "
                                                      f"(or their IDs {choices(ids)})"))
            continue
        if str(value) not in sw.choices:
            line, col = value_pos(node, key)
            errors.append(InputError(path, line, col, f"switch '{sw.key}' ({'/'.join(sw.ids)}) has no choice "
                                                      f"'{value}'; valid: {choices(sw.choices)}"))
            continue
        if sw.key in chosen:
            line, col = key_pos(node, key)
            errors.append(InputError(path, line, col, f"switch '{sw.key}' is set twice"))
            continue
        chosen[sw.key] = str(value)
    return game.interpretation(tuple(sorted(chosen.items())))


def bounds_of(game, path, node, parent, errors: list):
    """The bounds a mapping names; errors are appended, located at the entry that is wrong."""
    Bounds, shapes = game.bounds, game.bound_shapes
    if node is None:
        return Bounds()
    if not isinstance(node, dict):
        line, col = value_pos(parent, "bounds")
        errors.append(InputError(path, line, col, "bounds: expected a mapping"))
        return Bounds()
    kw = {}
    before = len(errors)
    for key, value in node.items():
        line, col = value_pos(node, key)
        if key not in shapes:
            kl, kc = key_pos(node, key)
            errors.append(InputError(path, kl, kc, f"unknown bound '{key}'; valid: {choices(shapes)}"))
            continue
        try:
            kw[key] = _bound_value(path, line, col, key, value, shapes[key])
        except InputError as e:
            errors.append(e)
    if len(errors) == before:
        # Bounds depend on each other (factions and alliances, strongholds and ambassador): a set that
        # is valid together is valid, even if one entry alone would clash with the other defaults.
        try:
            return Bounds(**kw)
        except ModelError:
            pass
    for key, value in list(kw.items()):
        # Point at the entry that is wrong on its own, when there is one.
        try:
            Bounds(**{key: value})
        except ModelError as e:
            line, col = value_pos(node, key)
            msg = str(e) if str(e).startswith(f"bounds.{key}") else f"bounds.{key}: {e}"
            errors.append(InputError(path, line, col, msg))
            del kw[key]
    if len(errors) > before:
        return Bounds()
    try:
        return Bounds(**kw)
    except ModelError as e:
        line, col = key_pos(parent, "bounds")
        errors.append(InputError(path, line, col, str(e)))
        return Bounds()


def _bound_value(path, line, col, key, value, shape: dict):
    kind = shape["kind"]
    if kind == "rows":
        width = shape["width"]
        if not isinstance(value, list) or not all(isinstance(x, list) and len(x) == width for x in value):
            raise InputError(path, line, col, f"bounds.{key}: expected a list of {width}-item lists")
        return tuple(tuple(x) for x in value)
    if kind == "list":
        if not isinstance(value, list):
            raise InputError(path, line, col, f"bounds.{key}: expected a list; found {value!r}")
        return tuple(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise InputError(path, line, col, f"bounds.{key}: expected true or false; found {value!r}")
        return value
    if kind == "enum":
        return None if value is None else str(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(path, line, col, f"bounds.{key}: expected a whole number; found {value!r}")
    return value


def _item_schema(items) -> dict:
    return {"type": "integer", "minimum": 0} if items == "int" else {"enum": list(items)}


def json_schema(game) -> dict:
    """A JSON Schema (draft 2020-12) for proposal files, so editors can complete them.

    Generated from the same switch and bounds definitions the loader checks against.

    >>> from model.moritani import GAME
    >>> s = json_schema(GAME)
    >>> s["properties"]["interpretation"]["properties"]["A4"]["enum"]
    ['before-reply', 'after-reply']
    """
    switches = {}
    for sw in game.switches:
        entry = {"enum": list(sw.choices), "default": sw.default,
                 "description": f"{sw.question} ({', '.join(sw.ids)}; default from {sw.source})"}
        switches[sw.key] = entry
        for i in sw.ids:  # a switch may also be named by its catalogue ID
            switches[i] = dict(entry, description=f"same as {sw.key}")
    defaults = game.bounds()
    bounds = {}
    for key, shape in game.bound_shapes.items():
        default = getattr(defaults, key)
        kind = shape["kind"]
        if kind == "list":
            prop = {"type": "array", "items": _item_schema(shape["items"])}
            if shape["items"] != "int":
                prop["uniqueItems"] = True
        elif kind == "rows":
            prop = {"type": "array", "items": {"type": "array", "prefixItems": [_item_schema(i) for i in shape["items"]],
                                               "minItems": shape["width"], "maxItems": shape["width"]}}
            if len(set(map(str, shape["items"]))) == 1:
                prop["items"] = {"type": "array", "items": _item_schema(shape["items"][0]),
                                 "minItems": shape["width"], "maxItems": shape["width"]}
        elif kind == "enum":
            prop = {"enum": [*shape["values"], None] if shape.get("null") else list(shape["values"])}
        elif kind == "bool":
            prop = {"type": "boolean"}
        else:
            prop = {"type": "integer", "minimum": 0}
        prop["default"] = list(map(list, default)) if kind == "rows" else (
            list(default) if isinstance(default, tuple) else default)
        bounds[key] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "rulecheck proposal",
        "description": f"A timing interpretation of {game.description} with the bounds to check it on "
                       "(docs/checking.md).",
        "type": "object", "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "interpretation": {"type": "object", "additionalProperties": False, "properties": switches},
            "bounds": {"type": "object", "additionalProperties": False, "properties": bounds},
            "defects": {"type": "array", "items": {"enum": sorted(d.id for d in game.defects)},
                        "description": "seeded defects (for demonstrating the checker only)"},
        },
    }
