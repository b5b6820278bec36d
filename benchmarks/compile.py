"""Seeded-defect models built and compiled for the explicit engine, with the source memo on and off
(NOTE(source-memo) in model/compile.py).

Run: python benchmarks/compile.py [--quick]

Each setting runs in its own subprocess (same defects, same order, the default profile's model and
engine built first as a warm-up), so both timings come from one run of this script and differ only in
whether an expression printed for an earlier model is printed again. The defects are the first 40 of
model/moritani/defects.py on the default profile (`--quick`: the first 8), as `selftest` and
tests/test_defects.py build them.
"""
from __future__ import annotations

import sys

from build import child_json  # benchmarks/build.py: this script runs as `python benchmarks/compile.py`

CHILD = r"""
import json, sys, time
import model.compile as C
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.launch import tune_gc
from model.moritani import GAME
from model.moritani.defects import DEFECTS
from model.moritani.profiles import PROFILES

class Forgetful(dict):  # the memo off: every lookup misses, nothing is kept
    def __setitem__(self, key, value):
        pass

memo, n = sys.argv[1] == "on", int(sys.argv[2])
if not memo:
    C.SOURCES.sources = Forgetful()
tune_gc()
Explorer(GAME.build(PROFILES["default"]), CheckConfig())  # warm-up: the profile every defect departs from
t0 = time.perf_counter()
for d in DEFECTS[:n]:
    Explorer(GAME.build(GAME.with_defect(d, PROFILES["default"])), CheckConfig())
print(json.dumps({"models": n, "seconds": time.perf_counter() - t0}))
"""


def measure(setting: str, n: int) -> dict:
    return child_json(CHILD, setting, str(n))


def main() -> None:
    n = 8 if "--quick" in sys.argv else 40
    rows = {s: measure(s, n) for s in ("off", "on")}
    print(f"{'memo':<5} {'models':>7} {'seconds':>8} {'ms/model':>9}")
    for s, r in rows.items():
        print(f"{s:<5} {r['models']:>7} {r['seconds']:>8.2f} {1000 * r['seconds'] / r['models']:>9.0f}")
    print(f"ratio off/on: {rows['off']['seconds'] / rows['on']['seconds']:.2f}x time")


if __name__ == "__main__":
    main()
