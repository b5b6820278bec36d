"""Noninterference benchmark: product size and time next to the single-graph exploration.

Run: python benchmarks/leaks.py
"""
from __future__ import annotations

import time

from checks.config import CheckConfig
from checks.explore import Explorer
from checks.leaks import check_leaks
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


if __name__ == "__main__":
    main()
