"""Our explicit explorer against SPIN on the same model (issue 8), measured in one run.

Run: python benchmarks/spin.py [--quick]

For each configuration: our states, time to verdict (model build, rule compile and the search with
every invariant checked), states per second and peak memory; SPIN's states stored, pan's search
time, time to verdict including `spin -o2 -a` and `gcc -O2 -DSAFETY -DNOREDUCE`, and memory; then
the ratios. Our side runs in a subprocess per configuration so that its peak RSS is its own. pan's
hash table is sized to the state count (`-w`, as pan's own advice says) so that its memory figure
is not dominated by the default 128 MB table; pan's "memory for states" is the comparable figure
per state. Requires spin and gcc (Debian: apt-get install -y spin gcc).
"""
from __future__ import annotations

import json
import math
import subprocess
import sys

from checks.promela import run_spin, spin_available, to_promela
from model.moritani.build import build_model
from model.moritani.config import Bounds

SMALL = {"strongholds": ["Arrakeen"], "ambassador": "Arrakeen", "turns": 1}
# The test's three parity configurations, the default bounds and the two larger ones of
# benchmarks/explore.py.
CONFIGS = {
    "small": SMALL,
    "two-sh-1-turn": {"turns": 1},
    "small-2-turns": SMALL | {"turns": 2},
    "default": {},
    "storm": {"storm": True},
    "ecaz-moves": {"forces": [["Atreides", 1, 1], ["Bene Gesserit", 1, 0], ["Ecaz", 0, 1]]},
}
QUICK = ("small", "two-sh-1-turn", "small-2-turns")

CHILD = r"""
import json, resource, sys, time
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from checks.config import CheckConfig
from checks.explore import Explorer
from model.moritani.build import build_model
from model.moritani.config import Bounds
kw = json.loads(sys.argv[1])
kw = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v for k, v in kw.items()}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
model = build_model(Bounds(**kw))
explorer = Explorer(model, CheckConfig(max_states=5_000_000))
ex = explorer.run()
total = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": len(ex.states), "search": ex.seconds, "total": total, "complete": ex.complete,
                  "violations": sorted(ex.violations), "peak_mb": peak / 1024, "base_mb": base / 1024}))
"""


def bounds_of(kw: dict) -> Bounds:
    return Bounds(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
                     for k, v in kw.items()})


def ours(kw: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(kw)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def spin(kw: dict, states: int):
    pm = to_promela(build_model(bounds_of(kw)))
    bits = max(18, math.ceil(math.log2(max(states, 1))) + 1)
    depth = 1_000_000
    r = run_spin(pm, depth=depth, hash_bits=bits)
    while not r.complete and r.violated is None and "max search depth too small" in r.output and depth < 10 ** 8:
        depth *= 10
        r = run_spin(pm, depth=depth, hash_bits=bits)
    return r


def main() -> None:
    if not spin_available():
        print("spin and gcc are needed: apt-get install -y spin gcc", file=sys.stderr)
        raise SystemExit(2)
    names = QUICK if "--quick" in sys.argv else tuple(CONFIGS)
    rows = []
    for name in names:
        o = ours(CONFIGS[name])
        s = spin(CONFIGS[name], o["states"])
        rows.append((name, o, s))
        print(f"  measured {name}", file=sys.stderr, flush=True)
    print(f"{'config':<14} {'states':>9} {'spin states':>11} | {'ours s':>7} {'ours st/s':>9} {'MB':>5} "
          f"{'B/st':>5} | {'pan s':>6} {'+compile':>8} {'pan st/s':>9} {'MB':>5} {'B/st':>5} | "
          f"{'verdict':>7} {'thruput':>7} {'mem/st':>6}")
    for name, o, s in rows:
        n = o["states"]
        our_bps = (o["peak_mb"] - o["base_mb"]) * 2 ** 20 / max(n, 1)
        pan_search = max(s.search_seconds or 0.0, 0.01)  # pan prints 0 below its clock's resolution
        pan_bps = (s.states_mb or 0.0) * 2 ** 20 / max(s.states or 1, 1)
        same = "" if s.states == n else "  MISMATCH"
        cut = "" if s.complete and o["complete"] else "  (cut)"
        print(f"{name:<14} {n:>9,} {s.states or 0:>11,} | {o['total']:>7.2f} {n / o['search']:>9,.0f} "
              f"{o['peak_mb']:>5.0f} {our_bps:>5.0f} | {pan_search:>6.2f} {s.wall_seconds:>8.2f} "
              f"{(s.states or 0) / pan_search:>9,.0f} {s.memory_mb or 0:>5.0f} {pan_bps:>5.0f} | "
              f"{o['total'] / s.wall_seconds:>6.2f}x {(n / o['search']) / ((s.states or 0) / pan_search):>6.3f}x "
              f"{our_bps / max(pan_bps, 1e-9):>5.1f}x{same}{cut}")
    print("ratios are ours/SPIN: verdict = time to verdict (ours: build+compile+search; SPIN: spin+gcc+pan); "
          "thruput = states/s of the search alone; mem/st = bytes per stored state "
          "(ours: peak RSS growth; SPIN: pan's memory for states)")


if __name__ == "__main__":
    main()
