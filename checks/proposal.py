"""Load a designer's proposal file (YAML) with precise, located errors.

Errors name the file, line and column, say what was expected and what was
found, and list the valid choices. Switches may be named by key
(`karama-eome-timing`) or by catalogue ID (`A4`).
"""
from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from model.errors import InputError, ModelError, choices
from model.moritani.config import BOUND_FIELDS, SWITCH_BY_ID, SWITCH_BY_KEY, Bounds, Interpretation
from model.moritani.profiles import PROFILES, Proposal

TOP_KEYS = ("name", "description", "interpretation", "bounds", "defects")
TUPLE_FIELDS = {"factions", "strongholds", "faces", "karama", "leaders", "leaderless"}
PAIR_FIELDS = {"alliances": 2, "forces": 3}


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


def resolve(name_or_path: str | None) -> Proposal:
    """An embedded profile by name, or a proposal file by path."""
    if name_or_path is None:
        return PROFILES["default"]
    if name_or_path in PROFILES:
        return PROFILES[name_or_path]
    if not Path(name_or_path).exists():
        raise InputError(name_or_path, None, None,
                         f"no such file, and not an embedded profile; profiles: {choices(PROFILES)}")
    return load_proposal(name_or_path)


def load_proposal(path: str) -> Proposal:
    """Load a proposal file; every error in it is reported at once (InputError.others)."""
    data = load_yaml(path)
    if data is None:
        return Proposal(Path(path).stem, source=path)
    if not isinstance(data, dict):
        raise InputError(path, 1, 1, f"expected a mapping with keys {choices(TOP_KEYS)}; found {type(data).__name__}")
    errors: list[InputError] = []
    for k in data:
        if k not in TOP_KEYS:
            line, col = key_pos(data, k)
            errors.append(InputError(path, line, col, f"unknown key '{k}'; valid: {choices(TOP_KEYS)}"))
    name = str(data.get("name") or Path(path).stem)
    interp = _interpretation(path, data.get("interpretation"), data, errors)
    bounds = _bounds(path, data.get("bounds"), data, errors)
    defects = data.get("defects") or []
    from model.moritani.defects import DEFECT_BY_ID
    if not isinstance(defects, list) or any(str(d) not in DEFECT_BY_ID for d in defects):
        line, col = value_pos(data, "defects")
        bad = [d for d in defects if str(d) not in DEFECT_BY_ID] if isinstance(defects, list) else [defects]
        errors.append(InputError(path, line, col, f"unknown seeded defect {bad[0]!r}; valid: {choices(DEFECT_BY_ID)}"))
    if errors:
        raise InputError.all_of(errors)
    return Proposal(name, str(data.get("description") or ""), interp, bounds, source=path,
                    defects=tuple(str(d) for d in defects))


def _interpretation(path, node, parent, errors: list) -> Interpretation:
    if node is None:
        return Interpretation()
    if not isinstance(node, dict):
        line, col = value_pos(parent, "interpretation")
        errors.append(InputError(path, line, col, "interpretation: expected a mapping of switch: choice"))
        return Interpretation()
    chosen = {}
    for key, value in node.items():
        sw = SWITCH_BY_KEY.get(str(key)) or SWITCH_BY_ID.get(str(key))
        if sw is None:
            line, col = key_pos(node, key)
            errors.append(InputError(path, line, col, f"unknown switch '{key}'; valid: {choices(SWITCH_BY_KEY)} "
                                                      f"(or their IDs {choices(SWITCH_BY_ID)})"))
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
    return Interpretation(tuple(sorted(chosen.items())))


def _bounds(path, node, parent, errors: list) -> Bounds:
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
        if key not in BOUND_FIELDS:
            kl, kc = key_pos(node, key)
            errors.append(InputError(path, kl, kc, f"unknown bound '{key}'; valid: {choices(BOUND_FIELDS)}"))
            continue
        try:
            kw[key] = _bound_value(path, line, col, key, value)
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


def _bound_value(path, line, col, key, value):
    default = getattr(Bounds(), key)
    if key in PAIR_FIELDS:
        width = PAIR_FIELDS[key]
        if not isinstance(value, list) or not all(isinstance(x, list) and len(x) == width for x in value):
            raise InputError(path, line, col, f"bounds.{key}: expected a list of {width}-item lists")
        return tuple(tuple(x) for x in value)
    if key in TUPLE_FIELDS:
        if not isinstance(value, list):
            raise InputError(path, line, col, f"bounds.{key}: expected a list; found {value!r}")
        return tuple(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InputError(path, line, col, f"bounds.{key}: expected true or false; found {value!r}")
        return value
    if key == "ambassador":
        return None if value is None else str(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(path, line, col, f"bounds.{key}: expected a whole number; found {value!r}")
    return value


def json_schema() -> dict:
    """A JSON Schema (draft 2020-12) for proposal files, so editors can complete them.

    Generated from the same switch and bounds definitions the loader checks against.

    >>> s = json_schema()
    >>> s["properties"]["interpretation"]["properties"]["A4"]["enum"]
    ['before-reply', 'after-reply']
    """
    from model.moritani.config import FACES, RIVALS, STRONGHOLDS, SWITCHES
    from model.moritani.defects import DEFECT_BY_ID
    switches = {}
    for sw in SWITCHES:
        entry = {"enum": list(sw.choices), "default": sw.default,
                 "description": f"{sw.question} ({', '.join(sw.ids)}; default from {sw.source})"}
        switches[sw.key] = entry
        for i in sw.ids:  # a switch may also be named by its catalogue ID
            switches[i] = dict(entry, description=f"same as {sw.key}")
    factions = ["Moritani", *RIVALS]
    names = {"factions": factions, "strongholds": list(STRONGHOLDS), "faces": list(FACES),
             "karama": factions, "leaderless": list(RIVALS)}
    bounds = {}
    for key in BOUND_FIELDS:
        default = getattr(Bounds(), key)
        if key in names:
            prop = {"type": "array", "items": {"enum": names[key]}, "uniqueItems": True}
        elif key == "alliances":
            prop = {"type": "array", "items": {"type": "array", "items": {"enum": factions},
                                               "minItems": 2, "maxItems": 2}}
        elif key == "forces":
            prop = {"type": "array", "items": {"type": "array", "prefixItems": [
                {"enum": list(RIVALS)}, {"type": "integer", "minimum": 0}, {"type": "integer", "minimum": 0}],
                "minItems": 3, "maxItems": 3}}
        elif key == "ambassador":
            prop = {"enum": [*STRONGHOLDS, None]}
        elif key == "leaders":
            prop = {"type": "array", "items": {"type": "integer", "minimum": 0}}
        elif isinstance(default, bool):
            prop = {"type": "boolean"}
        else:
            prop = {"type": "integer", "minimum": 0}
        prop["default"] = list(map(list, default)) if key in PAIR_FIELDS else (
            list(default) if isinstance(default, tuple) else default)
        bounds[key] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "rulecheck proposal",
        "description": "A timing interpretation of the Moritani Terror rules with the bounds to check it on "
                       "(docs/checking.md).",
        "type": "object", "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "interpretation": {"type": "object", "additionalProperties": False, "properties": switches},
            "bounds": {"type": "object", "additionalProperties": False, "properties": bounds},
            "defects": {"type": "array", "items": {"enum": sorted(DEFECT_BY_ID)},
                        "description": "seeded defects (for demonstrating the checker only)"},
        },
    }
