"""Our explicit explorer against SPIN on the same model (issue 8), measured in one run.

Run: python benchmarks/spin.py [--quick]

Our explorer runs twice per configuration: plain (the same states as SPIN) and with `--symmetry`
(one state per orbit of the verified stronghold symmetry; its time to verdict includes the Z3
verification; where the bounds tell strongholds apart the symmetry is refused and the row says
so). SPIN runs without any reduction of its own.

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

from checks.formats.promela import run_spin, spin_available, to_promela
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
    # Symmetric setups (no Ecaz Ambassador): 3, 4 and 5 strongholds, two turns. The last is the
    # largest configuration of the model (Bounds allow 5 strongholds) and SPIN finishes it in
    # under a minute (5.6 M states).
    "sym-3sh": {"ambassador": None, "strongholds": ["Arrakeen", "Carthag", "Sietch Tabr"]},
    "sym-4sh": {"ambassador": None, "strongholds": ["Arrakeen", "Carthag", "Sietch Tabr",
                                                     "Habbanya Ridge Sietch"]},
    "sym-5sh": {"ambassador": None, "strongholds": ["Arrakeen", "Carthag", "Sietch Tabr",
                                                     "Habbanya Ridge Sietch", "Tuek's Sietch"]},
}
QUICK = ("small", "two-sh-1-turn", "small-2-turns")

CHILD = r"""
import json, resource, sys, time
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.moritani.build import build_model
from model.moritani.config import Bounds
from model.errors import ModelError
kw = json.loads(sys.argv[1])
symmetry = sys.argv[2] == "symmetry"
kw = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v for k, v in kw.items()}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
model = build_model(Bounds(**kw))
try:
    explorer = Explorer(model, CheckConfig(max_states=10_000_000, symmetry=symmetry))
except ModelError as e:
    print(json.dumps({"refused": str(e)}))
    raise SystemExit(0)
ex = explorer.run()
total = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": len(ex.states), "search": ex.seconds, "total": total, "complete": ex.complete,
                  "violations": sorted(ex.violations), "peak_mb": peak / 1024, "base_mb": base / 1024}))
"""


def bounds_of(kw: dict) -> Bounds:
    return Bounds(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
                     for k, v in kw.items()})


def ours(kw: dict, symmetry: bool = False) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(kw), "symmetry" if symmetry else "plain"],
                         capture_output=True, text=True, check=True)
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
        y = ours(CONFIGS[name], symmetry=True)
        s = spin(CONFIGS[name], o["states"])
        rows.append((name, o, y, s))
        print(f"  measured {name}", file=sys.stderr, flush=True)
    print(f"{'config':<14} {'states':>9} {'spin':>9} | {'ours s':>7} {'st/s':>8} {'MB':>5} {'B/st':>5} | "
          f"{'orbits':>8} {'sym s':>6} {'orb/s':>7} {'MB':>5} | {'pan s':>6} {'+comp':>6} {'pan st/s':>9} "
          f"{'MB':>5} {'B/st':>5} | {'verdict':>7} {'sym':>6} {'thruput':>7} {'mem/st':>6}")
    for name, o, y, s in rows:
        n = o["states"]
        our_bps = (o["peak_mb"] - o["base_mb"]) * 2 ** 20 / max(n, 1)
        pan_search = max(s.search_seconds or 0.0, 0.01)  # pan prints 0 below its clock's resolution
        pan_bps = (s.states_mb or 0.0) * 2 ** 20 / max(s.states or 1, 1)
        same = "" if s.states == n else "  MISMATCH"
        cut = "" if s.complete and o["complete"] and y.get("complete", True) else "  (cut)"
        if "refused" in y:
            sym = f"{'refused':>8} {'':>6} {'':>7} {'':>5}"
            sym_ratio = f"{'-':>6}"
        else:
            sym = f"{y['states']:>8,} {y['total']:>6.2f} {y['states'] / max(y['search'], 1e-9):>7,.0f} {y['peak_mb']:>5.0f}"
            sym_ratio = f"{y['total'] / s.wall_seconds:>5.2f}x"
        print(f"{name:<14} {n:>9,} {s.states or 0:>9,} | {o['total']:>7.2f} {n / o['search']:>8,.0f} "
              f"{o['peak_mb']:>5.0f} {our_bps:>5.0f} | {sym} | {pan_search:>6.2f} {s.wall_seconds:>6.2f} "
              f"{(s.states or 0) / pan_search:>9,.0f} {s.memory_mb or 0:>5.0f} {pan_bps:>5.0f} | "
              f"{o['total'] / s.wall_seconds:>6.2f}x {sym_ratio} "
              f"{(n / o['search']) / ((s.states or 0) / pan_search):>6.3f}x "
              f"{our_bps / max(pan_bps, 1e-9):>5.1f}x{same}{cut}")
    for name, o, y, s in rows:
        if "refused" in y:
            print(f"{name}: symmetry refused: {y['refused'][:160]}")
    print("ratios are ours/SPIN: verdict = time to verdict without symmetry (ours: build+compile+search; SPIN: "
          "spin+gcc+pan); sym = the same with symmetry (ours adds the Z3 verification); thruput = states/s of "
          "the search alone, without symmetry; mem/st = bytes per stored state (ours: peak RSS growth; SPIN: "
          "pan's memory for states)")


if __name__ == "__main__":
    main()
