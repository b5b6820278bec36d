"""Budgets and options of a check run (no globals: every checker takes one of these)."""
from __future__ import annotations

from dataclasses import dataclass


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
    engine: str = "scalar"  # "scalar" (checks/engines/explicit.py) or "vector" (checks/engines/vector.py)
    jobs: int | None = None  # vector engine: worker processes (None: every core)
