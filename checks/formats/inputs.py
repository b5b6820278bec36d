"""Reading the files a user hands the tool (proposals, scenarios), with limits. (The proof store, read
by an engine below this layer, applies the same rules itself: checks/engines/storefile.py.)

Everything a file can do to the reader is bounded before the file's structure is built: its
size, its encoding (UTF-8 only; a binary file, a UTF-16/32 file, a NUL or ESC byte is refused at
its line and column), and for YAML the nesting depth, the number of nodes *after* alias expansion
(a 520-byte "billion laughs" document is refused while it is composed, long before it could be
expanded), the keys of one mapping and the items of one list (a scenario's steps), the length of one
scalar, and tags (only plain YAML values; `!!python/...` and other tags are refused, never
constructed). Duplicate keys are refused at every level. The counts are checked as each node is
composed, so a refusal costs the nodes read up to it: YAML is parsed at about 60 microseconds a node,
and a 1 MB file of 100,000 keys took 6.6 s and 108 MB to refuse when only the total was counted
(issue 40); `max_nodes` keeps any file under a second. Every refusal is
an `InputError` with `file:line:col` (exit 3); the limits are in docs/inputs.md.

>>> import tempfile, os
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "p.yaml")
>>> _ = open(p, "w").write("a: &x [1, 2]\\nb: *x\\n")
>>> load_yaml(p)["b"]
[1, 2]
>>> _ = open(p, "wb").write(b"name: x\\x1b[2J\\n")
>>> load_yaml(p)
Traceback (most recent call last):
...
model.errors.InputError: ...p.yaml:1:8: an ESC character (terminal escape) is not allowed in a YAML file; found U+001B
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, ScalarEvent

from model.errors import InputError


@dataclass(frozen=True)
class Limits:
    """What one input file may hold. The defaults are far above any real proposal or scenario (the
    longest shipped scenario has 60 steps, about 900 nodes) and far below what hurts."""

    max_bytes: int = 1 << 20      # 1 MiB
    max_depth: int = 32           # nested collections
    max_nodes: int = 10_000       # values after alias expansion (a 1,000-step scenario is about 5,100)
    max_keys: int = 1_000         # keys of one mapping
    max_items: int = 1_000        # items of one list: a scenario's steps (checks/formats/scenario.py MAX_STEPS)
    max_scalar: int = 10_000      # characters in one value


LIMITS = Limits()

# What YAML's reader accepts (YAML 1.2 §5.1, as ruamel checks it); anything else is refused here first,
# with its line and column and a name a person recognises.
_NOT_TEXT = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))
_CORE_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")} | {"!"}


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _char_name(ch: str) -> str:
    if ch == "\x00":
        return "a NUL byte (is this a binary file?)"
    if ch == "\x1b":
        return "an ESC character (terminal escape)"
    return "a control character"


def read_text(path: str, limits: Limits = LIMITS, what: str = "a YAML file") -> str:
    """The file's text, if it is UTF-8 text within `limits.max_bytes`; else a located InputError."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limits.max_bytes + 1)
    except OSError as e:
        raise InputError(path, None, None, f"cannot read the file ({e.strerror or e})") from None
    if len(raw) > limits.max_bytes:
        raise InputError(path, None, None, f"the file is larger than {limits.max_bytes:,} bytes, the limit for "
                                           f"{what}; is it the right file?")
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raise InputError(path, 1, 1, f"the file is {name} encoded; {what} must be UTF-8 text (save it as UTF-8)")
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        before = raw[:e.start].decode("utf-8", errors="replace")
        line, col = _where(before, len(before))
        raise InputError(path, line, col, f"byte 0x{raw[e.start]:02x} is not UTF-8 text; {what} must be UTF-8 "
                                          f"(is this a binary file?)") from None
    bad = _NOT_TEXT.search(text)
    if bad:
        line, col = _where(text, bad.start())
        raise InputError(path, line, col, f"{_char_name(bad.group())} is not allowed in {what}; "
                                          f"found U+{ord(bad.group()):04X}")
    return text


class _LimitError(MarkedYAMLError):
    """A document over one of the limits, raised while it is composed (before anything is built)."""


class _Composer(Composer):
    """ruamel's composer, counting: depth, nodes after alias expansion, scalar length and tags are
    checked event by event, so an alias bomb is refused after composing a few hundred nodes."""

    limits: Limits = LIMITS

    def __init__(self, loader=None):
        super().__init__(loader)
        self._nesting, self._total, self._size = 0, 0, {}

    def _refuse(self, mark, problem: str):
        raise _LimitError(None, None, problem, mark)

    def compose_node(self, parent, index):
        lim = self.limits
        event = self.parser.peek_event()
        # ruamel composes a mapping's key with index None, its value with the key, a list's item with its position.
        if parent is not None and index is None and len(parent.value) >= lim.max_keys:
            self._refuse(event.start_mark, f"more than {lim.max_keys:,} keys in one mapping")
        if parent is not None and isinstance(index, int) and len(parent.value) >= lim.max_items:
            self._refuse(event.start_mark, f"more than {lim.max_items:,} items in one list (a scenario has at most "
                                           f"{lim.max_items:,} steps)")
        if isinstance(event, AliasEvent):
            node = super().compose_node(parent, index)
            self._total += self._size.get(id(node), 1)
            if self._total > lim.max_nodes:
                self._refuse(event.start_mark, f"the aliases in this file expand to more than {lim.max_nodes:,} "
                                               f"values (an alias bomb?); write the values out")
            return node
        tag = getattr(event, "ctag", None)
        if tag is not None and str(tag) not in _CORE_TAGS:
            self._refuse(event.start_mark, f"the tag '{tag}' is not allowed; write plain values (text, numbers, "
                                           f"true/false, lists and mappings)")
        if isinstance(event, ScalarEvent) and len(event.value) > lim.max_scalar:
            self._refuse(event.start_mark, f"a value of {len(event.value):,} characters; the limit is "
                                           f"{lim.max_scalar:,}")
        if self._nesting >= lim.max_depth:
            self._refuse(event.start_mark, f"nesting deeper than {lim.max_depth} levels")
        self._nesting += 1
        before = self._total
        self._total += 1
        if self._total > lim.max_nodes:
            self._refuse(event.start_mark, f"more than {lim.max_nodes:,} values in one file")
        node = super().compose_node(parent, index)
        self._nesting -= 1
        if node.anchor is not None:
            self._size[id(node)] = self._total - before
        return node


def _yaml(limits: Limits) -> YAML:
    y = YAML(typ="rt")
    y.allow_duplicate_keys = False
    class LimitedComposer(_Composer):
        pass
    LimitedComposer.limits = limits
    y.Composer = LimitedComposer
    return y


def _mark_of(e) -> tuple[int | None, int | None]:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def load_yaml(path: str, limits: Limits = LIMITS):
    """Parse a YAML file within `limits`, keeping positions (ruamel round-trip types: `.lc` gives
    each key's and item's line and column). Every failure is an InputError with its location."""
    text = read_text(path, limits)
    try:
        return _yaml(limits).load(text)
    except MarkedYAMLError as e:
        line, col = _mark_of(e)
        problem = ", ".join(x for x in (e.context, e.problem) if x) or "malformed YAML"
        if "duplicate key" in problem:
            problem = problem.split(" with value")[0] + "; each key may appear once in a mapping"
        prefix = "" if isinstance(e, _LimitError) else "malformed YAML: "
        raise InputError(path, line, col, prefix + problem) from None
    except (YAMLError, ValueError, TypeError, OverflowError, RecursionError) as e:
        # A reader or constructor failure without a mark (for example an integer too long to convert).
        raise InputError(path, None, None, f"malformed YAML: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None
