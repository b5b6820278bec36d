"""User-facing errors raised while building or loading a model.

Every message names the offending thing and lists the valid choices, so the
CLI can print it as it is (no traceback).
"""
from __future__ import annotations


class ModelError(Exception):
    """A malformed model definition (unknown field, out-of-domain value, ...)."""


class InputError(Exception):
    """A bad user file (proposal or scenario).

    >>> str(InputError("p.yaml", 3, 5, "unknown switch 'x'"))
    "p.yaml:3:5: unknown switch 'x'"
    """

    def __init__(self, path: str, line: int | None, col: int | None, message: str):
        self.path, self.line, self.col, self.message = path, line, col, message
        where = path
        if line is not None:
            where += f":{line}"
            if col is not None:
                where += f":{col}"
        super().__init__(f"{where}: {message}")


def choices(values) -> str:
    """Format valid choices for an error message.

    >>> choices(["b", "a"])
    'a, b'
    """
    return ", ".join(sorted(str(v) for v in values))
