"""User-facing errors raised while building or loading a model.

Every message names the offending thing and lists the valid choices, so the
CLI can print it as it is (no traceback).
"""
from __future__ import annotations

from collections.abc import Iterable


class ModelError(Exception):
    """A malformed model definition (unknown field, out-of-domain value, ...)."""


class InputError(Exception):
    """A bad user file (proposal or scenario).

    >>> str(InputError("p.yaml", 3, 5, "unknown switch 'x'"))
    "p.yaml:3:5: unknown switch 'x'"
    """

    def __init__(self, path: str, line: int | None, col: int | None, message: str,
                 others: Iterable[InputError] = ()):
        self.path, self.line, self.col, self.message = path, line, col, message
        self.others = tuple(others)  # further errors found in the same file, in file order
        where = path
        if line is not None:
            where += f":{line}"
            if col is not None:
                where += f":{col}"
        super().__init__("\n".join([f"{where}: {message}"] + [str(o) for o in self.others]))

    @classmethod
    def all_of(cls, errors: list) -> "InputError":
        """One error that reports every error of a file at once, sorted by position.

        >>> e = InputError.all_of([InputError("p.yaml", 4, 3, "b"), InputError("p.yaml", 2, 1, "a")])
        >>> print(e)
        p.yaml:2:1: a
        p.yaml:4:3: b
        """
        errors = sorted(errors, key=lambda e: (e.line or 0, e.col or 0))
        first = errors[0]
        return cls(first.path, first.line, first.col, first.message, errors[1:])


def choices(values) -> str:
    """Format valid choices for an error message.

    >>> choices(["b", "a"])
    'a, b'
    """
    return ", ".join(sorted(str(v) for v in values))
