"""Model-building benchmark: the cycle collector's share, at CPython's default thresholds and at the
console script's (`checks.launch.tune_gc`).

Run: python benchmarks/build.py [--quick]

Each setting runs in its own subprocess (same setups, same order, one warm-up build first), so the
two timings and peak memories come from one run of this script and differ only in the collector's
settings. The setups are those of the engine scenarios (scenarios/engines/), each built once; with
`--quick`, the first 8.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import gc, json, resource, sys, time
from pathlib import Path
from checks.formats.scenario import scenario_setup
from checks.launch import tune_gc
from model.moritani import GAME
tuned, n = sys.argv[1] == "tuned", int(sys.argv[2])
files = sorted(Path(sys.argv[3]).glob("*.scenario.yaml"))[:n + 1]
setups = [scenario_setup(GAME, str(f))[:2] for f in files]
if tuned:
    tune_gc()
GAME.build(setups[0][0], **setups[0][1])  # warm-up: first-use costs are not the collector's
t0 = time.perf_counter()
for prop, options in setups[1:]:
    GAME.build(prop, **options)
secs = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"builds": len(setups) - 1, "seconds": secs, "peak_mb": peak / 1024,
                  "collections": sum(s["collections"] for s in gc.get_stats())}))
"""


def child_json(source: str, *args: str) -> dict:
    """Run `source` in a fresh interpreter at the project's root with `args`; its JSON line on stdout."""
    out = subprocess.run([sys.executable, "-c", source, *args], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def measure(setting: str, n: int) -> dict:
    return child_json(CHILD, setting, str(n), str(ROOT / "scenarios" / "engines"))


def main() -> None:
    n = 8 if "--quick" in sys.argv else 80
    rows = {s: measure(s, n) for s in ("default", "tuned")}
    print(f"{'collector':<10} {'builds':>7} {'seconds':>8} {'ms/build':>9} {'collections':>12} {'peak MB':>8}")
    for s, r in rows.items():
        print(f"{s:<10} {r['builds']:>7} {r['seconds']:>8.2f} {1000 * r['seconds'] / r['builds']:>9.0f} "
              f"{r['collections']:>12,} {r['peak_mb']:>8.0f}")
    print(f"ratio default/tuned: {rows['default']['seconds'] / rows['tuned']['seconds']:.2f}x time, "
          f"{rows['tuned']['peak_mb'] / rows['default']['peak_mb']:.2f}x peak memory (tuned/default)")


if __name__ == "__main__":
    main()
