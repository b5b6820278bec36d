"""The one clock of every engine: what is left of the user's overall cap (`--timeout`) on one command.

Budgets inside the engines are Z3 resource units and counts (docs/lemmas.md, "Budgets"), so that a verdict
does not depend on the machine's load; the clock only cuts: a run it stops reports what it did not finish
as inconclusive, never as proved or as holding. Every engine and analysis that honours `--timeout` counts
it with a `Clock` (issue 36: there were four clock types and inline `perf_counter` arithmetic in five
engines).

>>> import time
>>> Clock(None).left() is None, Clock(None).out(), Clock(None).ms()
(True, False, None)
>>> spent = Clock(5.0, started=time.perf_counter() - 6)
>>> spent.out(), spent.left() < 0, spent.rest(), spent.ms()
(True, True, 0.001, 1)
"""
from __future__ import annotations

import time

SLACK = 0.05  # seconds: a solver stopped this close to the cap was stopped by it (not by its own budget)


class Clock:
    """What is left of `timeout` seconds (None: no limit) counted from `started` (a `time.perf_counter()`
    instant; default: now)."""

    def __init__(self, timeout: float | None, started: float | None = None):
        self.timeout = timeout
        self.t0 = time.perf_counter() if started is None else started

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def left(self) -> float | None:
        """Seconds left (negative once spent), None without a limit."""
        return None if self.timeout is None else self.timeout - self.elapsed()

    def rest(self) -> float | None:
        """The timeout to hand an engine or a solver: what is left, at least a millisecond (a zero or negative
        timeout means "none" to some of them)."""
        left = self.left()
        return None if left is None else max(0.001, left)

    def ms(self) -> int | None:
        """What is left as Z3's `timeout` parameter (milliseconds, at least 1), or None."""
        left = self.left()
        return None if left is None else max(1, int(left * 1000))

    def out(self, slack: float = SLACK) -> bool:
        """Is the cap spent (to within `slack` seconds)? Never, without a limit."""
        left = self.left()
        return left is not None and left <= slack
