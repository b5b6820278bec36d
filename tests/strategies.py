"""Hypothesis strategies for the files the tool reads: proposals and scenarios as valid structures,
the same with wrong leaves, random YAML, and byte-level damage (tests/test_schema.py, tests/test_fuzz.py).

Valid values are drawn from the game's own declarations (`GAME.bound_shapes`, switches, defects), so a
new bound or switch is fuzzed without touching this file.
"""
from __future__ import annotations

import functools
import io
import json
from pathlib import Path

from hypothesis import strategies as st
from ruamel.yaml import YAML

from model.moritani import GAME

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios" / "acceptance").glob("*.scenario.yaml"))
PROPOSALS = sorted((ROOT / "scenarios" / "proposals").glob("*.yaml"))

# Leaves of the wrong kind: every JSON/YAML type, edge numbers, control characters, long text.
junk = st.deferred(lambda: st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.sampled_from([0, -1, 13, 2**63, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([2.0, 2.5, 1e300]),
    st.text(max_size=12), st.sampled_from(["", "x", "Moritani", "Atreides", "\x1b[2J", "a\nb", "a\x00b", "3",
                                            "yes", "A4", "../x", "/abs", "é" * 130]),
    st.lists(st.one_of(st.none(), st.integers(-3, 20), st.text(max_size=5)), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(-3, 5), max_size=2)))


def _item(spec):
    return st.integers(spec["min"], spec["max"]) if isinstance(spec, dict) else st.sampled_from(spec)


def valid_bound(shape) -> st.SearchStrategy:
    """A value the shape declares legal on its own (relations to other bounds may still fail)."""
    kind = shape["kind"]
    if kind == "int":
        return st.integers(shape["min"], shape["max"])
    if kind == "bool":
        return st.booleans()
    if kind == "enum":
        return st.sampled_from(list(shape["values"]) + ([None] if shape.get("null") else []))
    lo, hi = shape.get("min", 0), min(shape.get("max", 6), 6)
    if kind == "list":
        items = shape["items"]
        if shape.get("first"):
            rest = [x for x in items if x != shape["first"]]
            return st.lists(st.sampled_from(rest), min_size=max(lo - 1, 0), max_size=hi - 1, unique=True).map(
                lambda xs: [shape["first"], *xs])
        return st.lists(_item(items), min_size=lo, max_size=hi, unique=bool(shape.get("unique")))
    row = st.tuples(*[_item(i) for i in shape["items"]]).map(list)
    return st.lists(row, min_size=lo, max_size=min(hi, 3))


@st.composite
def mutated(draw, value):
    """`value`, or a copy with one leaf replaced, an entry duplicated, dropped or added."""
    how = draw(st.sampled_from(["keep", "keep", "junk", "deep"]))
    if how == "keep":
        return value
    if how == "junk" or not isinstance(value, (list, dict)) or not value:
        return draw(junk)
    if isinstance(value, list):
        out = list(value)
        i = draw(st.integers(0, len(out) - 1))
        op = draw(st.sampled_from(["leaf", "dup", "drop", "add"]))
        if op == "leaf":
            out[i] = draw(mutated(out[i]))
        elif op == "dup":
            out.insert(i, out[i])
        elif op == "drop":
            del out[i]
        else:
            out.append(draw(junk))
        return out
    out = dict(value)
    k = draw(st.sampled_from(sorted(out)))
    out[k] = draw(mutated(out[k]))
    return out


@st.composite
def bounds_doc(draw, mutate: bool = True):
    shapes = GAME.bound_shapes
    keys = draw(st.lists(st.sampled_from(sorted(shapes)), max_size=5, unique=True))
    out = {}
    for k in keys:
        v = draw(valid_bound(shapes[k]))
        out[k] = draw(mutated(v)) if mutate else v
    if mutate and draw(st.integers(0, 9)) == 0:
        out[draw(st.sampled_from(["colour", "turn", "Factions"]))] = draw(junk)
    return out


@st.composite
def interpretation_doc(draw, mutate: bool = True):
    names = [n for sw in GAME.switches for n in (sw.key, *[i for i in sw.ids if i.startswith("A")])]
    out = {}
    for n in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
        sw = GAME.switch(n)
        out[n] = draw(st.sampled_from(sw.choices))
        if mutate and draw(st.integers(0, 4)) == 0:
            out[n] = draw(st.one_of(junk, st.sampled_from([c for s in GAME.switches for c in s.choices])))
    if mutate and draw(st.integers(0, 9)) == 0:
        out[draw(st.sampled_from(["A99", "A3", "karama", ""]))] = "x"
    return out


@st.composite
def proposal_doc(draw, mutate: bool = True):
    """A proposal document (Python data): each part present or not, valid or mutated."""
    doc = {}
    if draw(st.booleans()):
        doc["name"] = draw(st.one_of(st.text(min_size=1, max_size=30), junk) if mutate else st.text(max_size=30))
    if draw(st.integers(0, 2)) == 0:  # a profile to start from (its bounds are the relations' defaults)
        doc["extends"] = draw(st.sampled_from(sorted(GAME.profiles)))
        if mutate and draw(st.integers(0, 4)) == 0:
            doc["extends"] = draw(st.one_of(junk, st.sampled_from(["Default", "treachery", "grumman.yaml"])))
    if draw(st.booleans()):
        doc["interpretation"] = draw(interpretation_doc(mutate))
    if draw(st.booleans()):
        doc["bounds"] = draw(bounds_doc(mutate))
    if draw(st.integers(0, 4)) == 0:
        doc["defects"] = draw(st.lists(st.sampled_from(sorted(d.id for d in GAME.defects)), max_size=2, unique=True))
        if mutate:
            doc["defects"] = draw(mutated(doc["defects"]))
    if mutate and draw(st.integers(0, 9)) == 0:
        doc[draw(st.sampled_from(["colour", "Name", "bound"]))] = draw(junk)
    if mutate and draw(st.integers(0, 19)) == 0:
        return draw(junk)
    return doc


def yaml_text(doc) -> str:
    """A document as YAML (block style), as a person would write it."""
    y = YAML()
    y.default_flow_style = False
    buf = io.StringIO()
    y.dump(doc, buf)
    return buf.getvalue()


def json_text(doc) -> str:
    """The same as JSON, which YAML 1.2 reads too (flow style)."""
    return json.dumps(doc, ensure_ascii=False)


@functools.cache
def scenario_docs() -> list:
    return [YAML(typ="safe").load(p.read_text(encoding="utf-8")) for p in SCENARIOS]


@st.composite
def scenario_doc(draw):
    """A shipped acceptance scenario with a few mutations at any depth (setup, steps, expect)."""
    doc = draw(st.sampled_from(scenario_docs()))
    for _ in range(draw(st.integers(1, 3))):
        part = draw(st.sampled_from(["setup", "steps", "expect", "top", "bounds", "options"]))
        if part == "top":
            doc = draw(mutated(doc))
        elif part == "bounds" and isinstance(doc, dict):
            setup = dict(doc["setup"]) if isinstance(doc.get("setup"), dict) else {}
            prop = dict(setup["proposal"]) if isinstance(setup.get("proposal"), dict) else {}
            prop["bounds"] = draw(bounds_doc())
            setup["proposal"] = prop
            doc = dict(doc, setup=setup)
        elif part == "options" and isinstance(doc, dict):
            setup = dict(doc["setup"]) if isinstance(doc.get("setup"), dict) else {}
            setup["options"] = {"pids": draw(mutated(list(draw(st.permutations(range(1, 7))))))}
            doc = dict(doc, setup=setup)
        elif isinstance(doc, dict) and part in doc:
            doc = dict(doc, **{part: draw(mutated(doc[part]))})
    if isinstance(doc, dict) and isinstance(doc.get("expect"), dict) and draw(st.integers(0, 3)) == 0:
        doc = dict(doc, expect=draw(st.sampled_from([{"blocked_at": "3"}, {"blocked_at": 3}, {"reachable": False},
                                                      {"violates": "no-such"}, {"values": {"spice[Moritani]": "7"}},
                                                      {"values": {"nope": 1}}, {"blocked_at": 1, "reachable": True},
                                                      {}, {"reachable": True}])))
    return doc


@st.composite
def damaged(draw, base: bytes):
    """`base` with a few bytes flipped, inserted or deleted."""
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if op == "flip":
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=4))
        elif op == "delete":
            del data[i]
        else:
            del data[i:]
    return bytes(data)


# YAML-ish token soup: indicators, anchors, aliases, tags, quotes, flow brackets, keys the loaders know.
yaml_soup = st.lists(st.sampled_from([
    "name", "bounds", "interpretation", "turns", "factions", "setup", "steps", "expect", "do", ":", ": ", "\n", "  ",
    "- ", "[", "]", "{", "}", ",", "&a ", "*a", "*b", "!!python/object ", "!!binary ", "? ", "'", '"', "|", ">",
    "---", "...", "#", "%YAML 1.2", "<<: *a", "Moritani", "Atreides", "1", "-5", "3.5", ".nan", "~", "null", "yes",
    "A4", "after-reply", "\t", "\\x1b", "é"]), max_size=40).map("".join)
