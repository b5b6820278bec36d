"""Budgets and options of a check run (no globals: every checker takes one of these).

One budget for every engine: `max_states` and `max_depth` bound each explicit search, `timeout` bounds
the whole command (from `started`, the moment the command began: the explicit search, the leak
comparison, the ambiguity analysis, selftest's defects and the Z3 queries all draw on the same
clock, and a Z3 query gets what is left as its own timeout). Whatever a budget cuts short is
`unknown`, never `holds`, `proved` or `missed` (docs/checking.md, "Verdicts").
"""
from __future__ import annotations

import time  # the doctests below
from dataclasses import dataclass

from checks.clock import Clock

# `prove --spacer-rlimit`: Spacer's rlimit per property (engine auto) once inferred lemmas are its facts;
# its proofs are stored with the lemmas, so a larger budget is paid once per model (docs/lemmas.md).
LEMMA_SPACER_RLIMIT = 20_000_000
# `check --z3-budget`: the rlimit of each Spacer attempt in check (the seed's `spacer` records use it).
CHECK_RLIMIT = 3_000_000
# `prove --rlimit`: the budget of each Spacer, 1-induction and BMC query without lemmas (`prove`, `sweep --prove`).
PROVE_RLIMIT = 150_000_000


@dataclass(frozen=True)
class CheckConfig:
    """
    >>> CheckConfig().max_states
    2000000
    """

    max_states: int = 2_000_000
    max_depth: int | None = None
    timeout: float | None = None
    seed: int = 0
    progress: bool = False
    keep_edges: bool = False
    fold: bool = False  # fold forced system/scheduler chains into one edge (NOTE(fold) in checks/engines/explicit.py)
    packed: bool = True  # visited states as bytes when every slot fits one (NOTE(packed) in checks/engines/explicit.py)
    symmetry: bool = False  # store one state per orbit of the model's verified symmetry (checks/engines/symmetry.py)
    engine: str = "scalar"  # "scalar" (checks/engines/explicit.py), "vector" (checks/engines/vector.py) or "auto"
    jobs: int | None = None  # vector engine: worker processes (None: every core)
    started: float | None = None  # time.perf_counter() when the command began; None: each engine's own start

    def clock(self, t0: float | None = None) -> Clock:
        """The command's `--timeout` as a Clock (checks/clock.py), counted from `started`, else from `t0` (the
        caller's own start), else from now.

        >>> CheckConfig(timeout=5.0, started=time.perf_counter() - 6).clock().left() < 0
        True
        """
        return Clock(self.timeout, started=self.started if self.started is not None else t0)

    def left(self, t0: float | None = None) -> float | None:
        """Seconds left of `timeout` (None: no limit): `clock(t0).left()`."""
        return self.clock(t0).left()

    def out_of_time(self, t0: float | None = None) -> bool:
        return self.clock(t0).out(slack=0)

    def ms_left(self, t0: float | None = None) -> int | None:
        """What is left as Z3's `timeout` parameter (milliseconds, at least 1), or None."""
        return self.clock(t0).ms()
