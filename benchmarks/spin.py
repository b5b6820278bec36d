"""Our explicit explorers against SPIN on the same model (issues 8 and 17), measured in one run.

Run: python benchmarks/spin.py [--quick] [--only NAME,NAME]

The vector engine (`--engine vector`, checks/engines/vector.py) runs on 1 and on 2 jobs next to
the scalar engine; its time to verdict includes building the model, generating the rule code and
loading numba's table functions. Its memory is given twice: peak RSS growth over the state count
(everything: Python, NumPy, numba's runtime, the generated code, transient round arrays) and the
search's own arrays (keys, parents, actions, visited tables), which is what pan's "memory for
states" counts on its side.

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
    # Issue 17's target: the default bounds played for four turns (9.5 M states).
    "default-4-turns": {"turns": 4},
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
mode = sys.argv[2]
symmetry = mode == "symmetry"
kw = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v for k, v in kw.items()}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
model = build_model(Bounds(**kw))
try:
    if mode.startswith("vector"):
        from checks.engines.vector import VectorExplorer
        explorer = VectorExplorer(model, CheckConfig(max_states=10_000_000, engine="vector", jobs=int(mode[6:])))
    else:
        explorer = Explorer(model, CheckConfig(max_states=10_000_000, symmetry=symmetry))
except ModelError as e:
    print(json.dumps({"refused": str(e)}))
    raise SystemExit(0)
setup = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # model, rule code and numba loaded: fixed costs
ex = explorer.run()
total = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"states": len(ex.states), "search": ex.seconds, "total": total, "complete": ex.complete,
                  "violations": sorted(ex.violations), "peak_mb": peak / 1024, "base_mb": base / 1024, "setup_mb": setup / 1024,
                  "store_bytes": getattr(ex, "store_bytes", 0), "transitions": ex.transitions}))
"""


def bounds_of(kw: dict) -> Bounds:
    return Bounds(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
                     for k, v in kw.items()})


def ours(kw: dict, symmetry: bool = False, mode: str | None = None) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(kw), mode or ("symmetry" if symmetry else "plain")],
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
    if "--only" in sys.argv:
        names = tuple(sys.argv[sys.argv.index("--only") + 1].split(","))
    ours(CONFIGS["small"], mode="vector1")  # numba compiles its table functions once (then cached on disk)
    rows, vec = [], []
    for name in names:
        o = ours(CONFIGS[name])
        y = ours(CONFIGS[name], symmetry=True)
        v1 = ours(CONFIGS[name], mode="vector1")
        v2 = ours(CONFIGS[name], mode="vector2")
        s = spin(CONFIGS[name], o["states"])
        rows.append((name, o, y, s))
        vec.append((name, o, v1, v2, s))
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
    print()
    print(f"{'config':<15} {'states':>9} {'=':>1} | {'vec1 s':>6} {'vec1 st/s':>10} {'RSS B':>5} {'srch B':>6} "
          f"{'store B':>7} | {'vec2 s':>6} {'vec2 st/s':>10} {'1->2':>5} | {'scalar s':>8} | {'pan st/s':>9} "
          f"{'pan s':>6} {'pan B':>5} | {'thruput':>7} {'RSS':>5} {'srch':>5} {'store':>5} {'verdict':>7} {'v2 verd':>7}")
    for name, o, v1, v2, s in vec:
        n = v1["states"]
        same = "=" if n == o["states"] == v2["states"] == (s.states or 0) and v1["transitions"] == o["transitions"] \
            == v2["transitions"] else "!"
        pan_search = max(s.search_seconds or 0.0, 0.01)
        pan_rate = (s.states or 0) / pan_search
        pan_bps = (s.states_mb or 0.0) * 2 ** 20 / max(s.states or 1, 1)
        rss = (v1["peak_mb"] - v1["base_mb"]) * 2 ** 20 / max(n, 1)
        store = v1["store_bytes"] / max(n, 1)
        search_rss = (v1["peak_mb"] - v1["setup_mb"]) * 2 ** 20 / max(n, 1)
        r1, r2 = n / max(v1["search"], 1e-9), n / max(v2["search"], 1e-9)
        cut = "" if v1["complete"] and v2["complete"] and s.complete else "  (cut)"
        print(f"{name:<15} {n:>9,} {same:>1} | {v1['total']:>6.2f} {r1:>10,.0f} {rss:>5.0f} {search_rss:>6.0f} "
              f"{store:>7.1f} | "
              f"{v2['total']:>6.2f} {r2:>10,.0f} {r2 / r1:>4.2f}x | {o['total']:>8.2f} | {pan_rate:>9,.0f} "
              f"{s.wall_seconds:>6.2f} {pan_bps:>5.0f} | {r1 / max(pan_rate, 1e-9):>6.2f}x {rss / max(pan_bps, 1e-9):>4.2f}x "
              f"{search_rss / max(pan_bps, 1e-9):>4.2f}x "
              f"{store / max(pan_bps, 1e-9):>4.2f}x {v1['total'] / s.wall_seconds:>6.2f}x "
              f"{v2['total'] / s.wall_seconds:>6.2f}x{cut}")
    print("vector engine (vec1: --jobs 1, vec2: --jobs 2): s = time to verdict (build + rule code + search); st/s = "
          "states/s of the search; RSS B = peak RSS growth per state (from before the imports); srch B = peak RSS growth "
          "during the search per state (after the model, the rule code and numba are loaded: the fixed costs out, "
          "round buffers in); store B = the search's arrays per state; 1->2 = "
          "search speedup from 1 to 2 jobs; '=' = equal states (and transitions) for scalar, vec1, vec2 and SPIN. "
          "Ratios vec1/SPIN: thruput (states/s), RSS, srch and store (bytes per state against pan's memory for "
          "states), "
          "verdict (time to verdict, SPIN's including spin -a and gcc); v2 verd: the same with 2 jobs")
    print("ratios are ours/SPIN: verdict = time to verdict without symmetry (ours: build+compile+search; SPIN: "
          "spin+gcc+pan); sym = the same with symmetry (ours adds the Z3 verification); thruput = states/s of "
          "the search alone, without symmetry; mem/st = bytes per stored state (ours: peak RSS growth; SPIN: "
          "pan's memory for states)")


if __name__ == "__main__":
    main()
