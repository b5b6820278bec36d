"""Finite domains for state fields and rule parameters.

Every domain enumerates its values in a fixed order, which makes grounding,
exploration and encoding deterministic.

>>> IntRange(0, 2).values
(0, 1, 2)
>>> Enum("Faction", ("Moritani", "Atreides")).index("Atreides")
1
"""
from __future__ import annotations

from dataclasses import dataclass

from model.errors import ModelError, choices


@dataclass(frozen=True)
class Bool:
    """True or False (stored as a Python bool)."""

    name: str = "bool"

    @property
    def values(self) -> tuple:
        return (False, True)

    least, greatest = False, True  # `values[0]` and `values[-1]` (NOTE(wide-range) on IntRange)

    def contains(self, v) -> bool:
        return v is True or v is False

    def show(self, v) -> str:
        return "yes" if v else "no"


@dataclass(frozen=True)
class IntRange:
    """Integers lo..hi inclusive."""

    lo: int
    hi: int
    name: str = "int"

    def __post_init__(self):
        if self.lo > self.hi:
            raise ModelError(f"empty integer range {self.lo}..{self.hi}")

    @property
    def values(self) -> tuple:
        return tuple(range(self.lo, self.hi + 1))

    # NOTE(wide-range): an unbounded model's public-ID range has a million values; `values` builds them all
    # (3 ms each time), and building the schema asked for them once per slot. Ends are read here instead.
    @property
    def least(self) -> int:
        return self.lo

    @property
    def greatest(self) -> int:
        return self.hi

    def contains(self, v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and self.lo <= v <= self.hi

    def show(self, v) -> str:
        return str(v)


@dataclass(frozen=True)
class Enum:
    """Named values stored as their index 0..n-1."""

    name: str
    labels: tuple[str, ...]

    def __post_init__(self):
        if len(set(self.labels)) != len(self.labels) or not self.labels:
            raise ModelError(f"enum {self.name} needs distinct, non-empty labels")

    @property
    def values(self) -> tuple:
        return tuple(range(len(self.labels)))

    @property
    def least(self) -> int:
        return 0

    @property
    def greatest(self) -> int:
        return len(self.labels) - 1

    def contains(self, v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(self.labels)

    def index(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise ModelError(
                f"{self.name} has no value '{label}'; valid: {choices(self.labels)}"
            ) from None

    def show(self, v) -> str:
        return self.labels[v] if self.contains(v) else f"<{self.name}?{v}>"


Domain = Bool | IntRange | Enum
