"""Text on its way to a terminal: strings a user supplied (a proposal's name, an action label in a
scenario, a path on the command line) never reach it raw.

Control characters (C0 but tab and newline, DEL, C1: an ESC starts a terminal escape sequence that
can clear or rewrite the screen, a carriage return can overwrite a line) and the Unicode bidirectional
overrides (which reorder what is shown) are replaced by their visible escapes. Every line the CLI
prints goes through `clean` (checks/cli.py); JSON output is escaped by `json.dumps` already.

>>> clean("name: \\x1b[2Jgone\\rover")
'name: \\\\x1b[2Jgone\\\\rover'
>>> clean("caught ✅, départ\\tok\\n")
'caught ✅, départ\\tok\\n'
"""
from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f"}


def _escape(m: re.Match) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def clean(text: str) -> str:
    """`text` with every control character and bidirectional override shown as an escape."""
    return _UNSAFE.sub(_escape, str(text))


class CleanStream:
    """A text stream that cleans what is written to it (click's own error messages quote option values)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(clean(text))

    def flush(self) -> None:
        self.stream.flush()
