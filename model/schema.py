"""State schema: ordered, typed fields flattened into slots.

A state is a plain tuple with one value per slot, which keeps hashing and
storage cheap. Array fields (per faction, per token) occupy one slot per
index combination.

>>> from model.domains import Enum, IntRange
>>> F = Enum("Faction", ("Moritani", "Atreides"))
>>> s = Schema((Field("turn", IntRange(1, 3)), Field("spice", IntRange(0, 9), (F,))))
>>> s.slot_names
('turn', 'spice[Moritani]', 'spice[Atreides]')
>>> s.slot("spice", (1,))
2
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from model.domains import Domain
from model.errors import ModelError, choices

State = tuple


@dataclass(frozen=True)
class Field:
    """One state variable, possibly an array over finite index domains.

    `ghost` marks history variables that record what physically happened in
    the game (for invariants) rather than anything an engine stores.
    `secret` marks fields whose value a rival must not learn (leak check).
    """

    name: str
    domain: Domain
    dims: tuple = ()
    ghost: bool = False
    doc: str = ""


@dataclass(frozen=True)
class Schema:
    fields: tuple
    _slots: dict = field(init=False, repr=False, compare=False)
    slot_names: tuple = field(init=False, compare=False)
    slot_fields: tuple = field(init=False, compare=False, repr=False)
    slot_range: tuple = field(init=False, compare=False, repr=False)  # (lowest, highest) per slot, a Bool 0..1
    slot_is_bool: tuple = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        slots, names, owners = {}, [], []
        seen = set()
        for f in self.fields:
            if f.name in seen:
                raise ModelError(f"field '{f.name}' is declared twice")
            seen.add(f.name)
            for idx in itertools.product(*(d.values for d in f.dims)):
                slots[(f.name, idx)] = len(names)
                names.append(f.name + "".join(f"[{d.show(i)}]" for d, i in zip(f.dims, idx)))
                owners.append(f)
        object.__setattr__(self, "_slots", slots)
        object.__setattr__(self, "slot_names", tuple(names))
        object.__setattr__(self, "slot_fields", tuple(owners))
        object.__setattr__(self, "slot_range", tuple((int(f.domain.least), int(f.domain.greatest)) for f in owners))
        object.__setattr__(self, "slot_is_bool", tuple(f.domain.least is False for f in owners))

    @property
    def by_name(self) -> dict:
        return {f.name: f for f in self.fields}

    def field(self, name: str) -> Field:
        try:
            return self.by_name[name]
        except KeyError:
            raise ModelError(
                f"unknown field '{name}'; fields: {choices(self.by_name)}"
            ) from None

    def slot(self, name: str, idx: tuple = ()) -> int:
        try:
            return self._slots[(name, tuple(idx))]
        except KeyError:
            f = self.field(name)
            raise ModelError(
                f"field '{name}' takes {len(f.dims)} index(es) over "
                f"{[d.name for d in f.dims]}; got {idx!r}"
            ) from None

    def slots_of(self, name: str) -> dict:
        """{index combination: slot} of field `name` (a scalar's one slot under `()`).

        >>> from model.domains import Enum, IntRange
        >>> Schema((Field("n", IntRange(0, 1), (Enum("F", ("a", "b")),)),)).slots_of("n")
        {(0,): 0, (1,): 1}
        """
        self.field(name)
        return {idx: s for (f, idx), s in self._slots.items() if f == name}

    def slot_keys(self) -> tuple:
        """(field name, index combination) of every slot, in slot order."""
        return tuple(self._slots)

    def __len__(self) -> int:
        return len(self.slot_names)

    def make(self, values: dict) -> State:
        """Build a state from {field: value or {index-tuple: value}}; all slots required."""
        out = [None] * len(self)
        for name, v in values.items():
            f = self.field(name)
            if f.dims:
                for idx, x in v.items():
                    out[self.slot(name, idx if isinstance(idx, tuple) else (idx,))] = x
            else:
                out[self.slot(name)] = v
        missing = [self.slot_names[i] for i, x in enumerate(out) if x is None]
        if missing:
            raise ModelError(f"initial state leaves slots unset: {', '.join(missing)}")
        return tuple(out)

    def check(self, state: State) -> list[str]:
        """Slots whose value lies outside the field's domain."""
        return [
            f"{self.slot_names[i]}={v!r}"
            for i, (v, f) in enumerate(zip(state, self.slot_fields))
            if not f.domain.contains(v)
        ]

    def show(self, i: int, v) -> str:
        return self.slot_fields[i].domain.show(v)

    def diff(self, a: State, b: State) -> list[tuple[str, str, str]]:
        """(slot, before, after) for every slot that changed."""
        return [
            (self.slot_names[i], self.show(i, x), self.show(i, y))
            for i, (x, y) in enumerate(zip(a, b))
            if x != y
        ]

    def pretty(self, state: State) -> str:
        return ", ".join(f"{n}={self.show(i, v)}" for i, (n, v) in enumerate(zip(self.slot_names, state)))

