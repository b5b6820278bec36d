"""Explicit-exploration benchmark: distinct states, states per second and peak memory.

Run: python benchmarks/explore.py [--quick]

Each configuration runs in its own subprocess so that peak memory (max RSS) is
measured per configuration; all figures come from one run of this script.
"""
from __future__ import annotations

import json
import subprocess
import sys

CONFIGS = {
    "default": {},
    "storm": {"storm": True},
    "ecaz-moves": {"forces": (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 0, 1))},
    # The default bounds with a third Shipment & Movement phase (the `three-turns` profile's full form).
    "default-3-turns": {"turns": 3},
}
QUICK = {"small": {"strongholds": ("Arrakeen",), "ambassador": "Arrakeen", "turns": 1}}

CHILD = r"""
import json, resource, sys, time
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.moritani.build import build_model
from model.moritani.config import Bounds
kw = json.loads(sys.argv[1])
kw = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v for k, v in kw.items()}
model = build_model(Bounds(**kw))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
ex = Explorer(model, CheckConfig(max_states=5_000_000)).run()
secs = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": len(ex.states), "transitions": ex.transitions, "seconds": secs,
                  "complete": ex.complete, "peak_mb": peak / 1024, "base_mb": base / 1024}))
"""


def measure(bounds: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(bounds)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def main() -> None:
    configs = QUICK if "--quick" in sys.argv else CONFIGS
    rows = []
    for name, bounds in configs.items():
        r = measure(bounds)
        rows.append((name, r))
    print(f"{'config':<12} {'states':>10} {'transitions':>12} {'seconds':>8} {'states/s':>9} "
          f"{'peak MB':>8} {'B/state':>8}")
    for name, r in rows:
        per_state = (r["peak_mb"] - r["base_mb"]) * 1024 * 1024 / max(r["states"], 1)
        print(f"{name:<12} {r['states']:>10,} {r['transitions']:>12,} {r['seconds']:>8.1f} "
              f"{r['states'] / r['seconds']:>9,.0f} {r['peak_mb']:>8.0f} {per_state:>8.0f}"
              + ("" if r["complete"] else "  (budget hit)"))
    first = rows[0][1]
    for name, r in rows[1:]:
        print(f"ratio {name}/{rows[0][0]}: states x{r['states'] / first['states']:.2f}, "
              f"time x{r['seconds'] / first['seconds']:.2f}")


if __name__ == "__main__":
    main()
