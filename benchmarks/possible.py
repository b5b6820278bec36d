"""Possibilistic noninterference benchmark: the `possibilistic` check on the engine profiles (docs/noninterference.md,
"Results and cost"), next to the exploration it reads.

Run: python benchmarks/possible.py [PROFILE ...]   (default: default treachery-online)

Prints, per profile, the exploration's states and seconds, then the check's state pairs, steps compared and
seconds on that exploration, with the load average (the machine may be shared).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

# benchmarks/z3.py would shadow the z3 package for a script run from this directory.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from checks.analyses.possible import check_possible
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.moritani import GAME


def main() -> None:
    for name in sys.argv[1:] or ["default", "treachery-online"]:
        model = GAME.build(GAME.profiles[name])
        t0 = time.perf_counter()
        explorer = Explorer(model, CheckConfig())
        ex = explorer.run()
        explored = time.perf_counter() - t0
        results, stats = check_possible(model, CheckConfig(), exploration=ex, compiled=explorer.cm)
        print(f"{name}: {len(ex.states):,} states explored in {explored:.1f}s; possibilistic "
              f"{sorted({r.verdict for r in results})} after {stats['state_pairs']:,} state pairs, "
              f"{stats['steps']:,} steps in {stats['seconds']:.1f}s (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
