"""Noninterference benchmark: product size and time next to the single-graph exploration.

Run: python benchmarks/leaks.py [Z3_DEPTH]

The Z3 line compares the self-composed product (two copies, checks/analyses/leaks_z3.py) with BMC of one
game (one invariant) at the same depth.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

# benchmarks/z3.py would shadow the z3 package for a script run from this directory.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.engines.bmc import get_bmc
from checks.analyses.leaks import check_leaks
from checks.analyses.leaks_z3 import leak_bmc
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES


def main() -> None:
    prop = PROFILES["default"]
    t0 = time.perf_counter()
    ex = Explorer(build_model(prop.bounds, prop.interpretation), CheckConfig()).run()
    single = time.perf_counter() - t0
    t0 = time.perf_counter()
    results, stats = check_leaks(prop, CheckConfig())
    product = time.perf_counter() - t0
    print(f"single graph: {len(ex.states):,} states in {single:.1f}s")
    print(f"leak check:   {stats['state_pairs']:,} state pairs in {product:.1f}s "
          f"(includes its own exploration); verdicts: {[r.verdict for r in results]}")
    print(f"ratio pairs/states: {stats['state_pairs'] / len(ex.states):.1f}; time ratio: {product / single:.1f}")
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    t0 = time.perf_counter()
    get_bmc(build_model(prop.bounds, prop.interpretation), ["token-conservation"], depth)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    z3_results, _ = leak_bmc(prop, depth)
    two = time.perf_counter() - t0
    print(f"Z3 depth {depth}: one game (BMC, one invariant) {one:.1f}s; product (two games, every rival) "
          f"{two:.1f}s; time ratio: {two / max(one, 1e-9):.1f}; verdicts: {[r.verdict for r in z3_results]}")


if __name__ == "__main__":
    main()
