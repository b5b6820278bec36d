"""Z3 benchmark: per-invariant proof time (Spacer, unbounded turns) and BMC time per depth.

Run: python benchmarks/z3.py [--depth N] [--rlimit N]
"""
from __future__ import annotations

import argparse
import time

from checks.engines.bmc import get_bmc
from checks.engines.induction import HornSystem, spacer
from model.moritani.build import build_model
from model.moritani.config import Bounds

LARGER = Bounds(strongholds=("Arrakeen", "Carthag", "Sietch Tabr"), turns=3, storm=True,
                forces=(("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 0, 1)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--rlimit", type=int, default=150_000_000)
    args = ap.parse_args()
    for name, bounds in (("default", Bounds()), ("larger (3 strongholds, storm, 3 turns)", LARGER)):
        model = build_model(bounds, unbounded=True)
        print(f"== {name}")
        system = HornSystem(model)
        for p in model.invariants:
            r = spacer(model, p.name, rlimit=args.rlimit, system=system)
            print(f"  spacer {p.name:<20} {r.verdict:<8} {r.seconds:7.1f}s")
        t0 = time.perf_counter()
        out = get_bmc(model, [p.name for p in model.invariants], args.depth)
        per = next(iter(out.values())).per_depth
        print("  bmc cumulative seconds per depth: " + ", ".join(f"{k}:{s:.1f}" for k, s in enumerate(per)))
        print(f"  bmc all invariants to depth {args.depth}: {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
