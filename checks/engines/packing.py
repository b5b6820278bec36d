"""Bit-packed states: each slot in the fewest bits its domain needs, in a few uint64 words.

A slot with domain lo..hi (a Bool is 0..1, an Enum 0..n-1) stores `value - lo` in
`(hi - lo).bit_length()` bits; a slot never straddles two words (slots are placed widest
first, first fit), so reading one is a shift and a mask. Unused bits are always zero, so two
states are equal exactly when their words are equal.

>>> from model.domains import Bool, IntRange
>>> from model.schema import Field, Schema
>>> lay = Layout(Schema((Field("x", IntRange(2, 9)), Field("b", Bool()))))
>>> lay.words, lay.bits
(1, (3, 1))
>>> lay.decode(lay.pack((5, True)))
(5, True)
"""
from __future__ import annotations

import numpy as np

from model.expr import Const
from model.schema import Schema


class Layout:
    """Where each slot lives: word, shift, bit width and offset (the domain's lowest value).

    `fixed` maps slots that keep one value in every state of the search (`constant_slots`) to that
    value: they take no bits (their offset is the value), which is how the largest configurations
    fit one word fewer (`sym-5sh`: 321 bits, 6 words, without them; 300 bits, 5 words, with them).

    >>> from model.domains import Bool, IntRange
    >>> from model.schema import Field, Schema
    >>> lay = Layout(Schema((Field("x", IntRange(2, 9)), Field("b", Bool()))), fixed={1: True})
    >>> lay.bits, lay.decode(lay.pack((5, True)))
    ((3, 0), (5, True))
    """

    def __init__(self, schema: Schema, fixed: dict | None = None):
        self.schema = schema
        fixed = fixed or {}
        lo, hi, is_bool = [], [], []
        for i, f in enumerate(schema.slot_fields):
            vals = f.domain.values
            is_bool.append(vals[0] is False)
            lo.append(int(fixed[i]) if i in fixed else int(vals[0]))
            hi.append(int(fixed[i]) if i in fixed else int(vals[-1]))
        self.lo, self.hi, self.is_bool = tuple(lo), tuple(hi), tuple(is_bool)
        self.bits = tuple((h - l).bit_length() for l, h in zip(lo, hi))
        free: list[int] = []  # bits used in each word
        word, shift = [0] * len(lo), [0] * len(lo)
        # Widest first, first fit: few words, and no slot crosses a word boundary.
        for i in sorted(range(len(lo)), key=lambda i: (-self.bits[i], i)):
            for w, used in enumerate(free):
                if used + self.bits[i] <= 64:
                    break
            else:
                free.append(0)
                w = len(free) - 1
            word[i], shift[i] = w, free[w]
            free[w] += self.bits[i]
        self.word, self.shift = tuple(word), tuple(shift)
        self.words = max(1, len(free))
        self.mask = tuple((1 << b) - 1 for b in self.bits)

    def pack(self, state: tuple) -> np.ndarray:
        """The words of an in-domain state (ValueError if a value lies outside its slot's domain)."""
        out = [0] * self.words
        for i, v in enumerate(state):
            raw = int(v) - self.lo[i]
            if not 0 <= raw <= self.hi[i] - self.lo[i]:
                raise ValueError(f"{self.schema.slot_names[i]}={v!r} is outside its domain")
            out[self.word[i]] |= raw << self.shift[i]
        return np.array(out, dtype=np.uint64)

    def columns(self, words: np.ndarray, dtype=np.int64) -> np.ndarray:
        """The (rows, slots) matrix of values (bools as 0/1) of a (rows, words) array of packed states.

        >>> from model.domains import Bool, IntRange
        >>> from model.schema import Field, Schema
        >>> lay = Layout(Schema((Field("x", IntRange(2, 9)), Field("b", Bool()))))
        >>> lay.columns(np.stack([lay.pack((5, True)), lay.pack((9, False))])).tolist()
        [[5, 1], [9, 0]]
        """
        words = np.ascontiguousarray(np.asarray(words).T)
        out = np.empty((len(self.lo), words.shape[1]), dtype=dtype)
        for i in range(len(self.lo)):
            out[i] = (words[self.word[i]] >> np.uint64(self.shift[i])) & np.uint64(self.mask[i])
            out[i] += dtype(self.lo[i])
        return np.ascontiguousarray(out.T)

    def decode(self, words) -> tuple:
        """The model's tuple (bools as bools) from one row of words."""
        ws = [int(x) for x in words]
        return tuple(
            bool(((ws[w] >> s) & m) + lo) if b else ((ws[w] >> s) & m) + lo
            for w, s, m, b, lo in zip(self.word, self.shift, self.mask, self.is_bool, self.lo))


def constant_slots(model) -> dict:
    """{slot: value} for the slots no action writes and every initial state agrees on: whatever the
    search reaches, they keep that value (a fault, a monitor or a step property's flag that can never
    change on these bounds, a module that is off). Sound because the effects of the grounded actions
    are the only way a state changes, in every engine.

    >>> from model.moritani.build import build_model
    >>> m = build_model()  # no faults on the default bounds: nothing writes the reload budget
    >>> m.schema.slot("reloads_left") in constant_slots(m)
    True
    """
    sch = model.schema
    written, fields = set(), set()
    for a in model.actions:
        for f, idx, _ in a.effects:
            if all(isinstance(i, Const) for i in idx):
                written.add(sch.slot(f, tuple(i.value for i in idx)))
            else:  # an index computed from the state: any slot of the field may change
                fields.add(f)
    return {i: model.init[0][i] for i in range(len(sch))
            if i not in written and sch.slot_fields[i].name not in fields
            and all(s[i] == model.init[0][i] for s in model.init)}
