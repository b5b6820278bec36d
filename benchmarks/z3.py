"""Z3 benchmark: lemma inference and `prove` (auto) per embedded profile, Spacer per invariant, BMC per depth.

Run: python benchmarks/z3.py [--profiles default,printed-rules,assassinate-leaders] [--depth N] [--rlimit N]
     [--spacer] (also the plain Spacer time per invariant, without lemmas, as before issue 16)

For each profile, in one run: the inference's time (exploration of the proposal's bounded model,
mining, Houdini, the final re-check), the number of candidates and of proved lemmas (survivors),
then every invariant's and step property's verdict, engine and proof time under `prove` (auto:
inferred lemmas, then Spacer with them as facts, then BMC), and the total; first cold (an empty
lemma cache: the whole search, blocking rounds included), then warm (the lemmas the cold run
stored, re-proved), and the ratio.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's directory comes first on sys.path and its name would shadow the z3
# package: put the repository root there instead.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

from checks.analyses.prove import prove  # noqa: E402
from checks.engines.bmc import get_bmc  # noqa: E402
from checks.engines.induction import HornSystem, spacer  # noqa: E402
from checks.engines.lemmacache import LemmaCache  # noqa: E402
from checks.pipelines.proofs import lemma_samples  # noqa: E402
from model.moritani import GAME  # noqa: E402


def bench_prove(profile: str, depth: int, rlimit: int) -> None:
    """Cold (an empty lemma cache, the shipped seed ignored: the whole search), then warm (the same
    cache: the stored lemmas re-proved), in one run."""
    cache = LemmaCache(Path(tempfile.mkdtemp(prefix="rulecheck-bench-")), use_seed=False)
    cold, results = _prove_once(profile, depth, rlimit, cache, "cold: empty lemma cache")
    warm, again = _prove_once(profile, depth, rlimit, cache, "warm: the lemmas the cold run stored")
    same = [(r.id, r.verdict) for r in results] == [(r.id, r.verdict) for r in again]
    print(f"  warm / cold = {warm:.1f}s / {cold:.1f}s = {warm / cold:.2f}; same verdicts: {same}")


def _prove_once(profile: str, depth: int, rlimit: int, cache, label: str) -> tuple:
    prop = GAME.profiles[profile]
    t0 = time.perf_counter()
    model = GAME.build(prop, unbounded=True)
    samples = lemma_samples(prop)
    names = [p.name for p in model.invariants]
    stats: dict = {}
    results = prove(model, names, "auto", depth, 0, rlimit, samples=samples, stats=stats, cache=cache)
    total = time.perf_counter() - t0
    inf = stats["inference"]
    s = inf["seconds"]
    print(f"== {profile} ({label})")
    print(f"  inference {inf['verdict']}{' (stored lemmas)' if inf['stored'] else ''}: {s.get('total', 0):.1f}s (explore {s.get('explore', 0):.1f}, "
          f"mine {s.get('mine', 0):.1f}, houdini {s.get('houdini', 0):.1f} (of which the presence round "
          f"{s.get('presence', 0):.1f}, the guard round {s.get('guards', 0):.1f}), re-check {s.get('check', 0):.1f}); "
          f"{inf['states_mined']} states mined, {inf['candidates']} candidates ({inf['guard_candidates']} of the guard "
          f"round), {inf['lemmas']} survivors "
          f"(lemmas), {inf['invariants_proved']} properties in the inductive conjunction; "
          f"Houdini queries/counterexamples {inf['houdini_runs']}")
    for r in results:
        used = len(r.extra.get("lemmas", []))
        share = " (inference time / properties it proves)" if r.engine == "lemmas" else ""
        print(f"  {r.kind:<9} {r.id:<28} {r.verdict:<8} {r.engine:<8} {r.seconds:7.1f}s  lemmas used {used}{share}")
    proved = sum(r.verdict == "proved" for r in results)
    print(f"  proved {proved}/{len(results)} "
          f"(invariants {sum(r.verdict == 'proved' for r in results if r.kind == 'invariant')}/"
          f"{sum(r.kind == 'invariant' for r in results)}, step properties "
          f"{sum(r.verdict == 'proved' for r in results if r.kind == 'step')}/{sum(r.kind == 'step' for r in results)}); "
          f"total {total:.1f}s (model builds included)")
    return total, results


def bench_spacer(profile: str, depth: int, rlimit: int) -> None:
    model = GAME.build(GAME.profiles[profile], unbounded=True)
    system = HornSystem(model)
    print(f"== {profile}: plain Spacer (no lemmas), then BMC")
    for p in model.invariants:
        r = spacer(model, p.name, rlimit=rlimit, system=system)
        print(f"  spacer {p.name:<28} {r.verdict:<8} {r.seconds:7.1f}s")
    t0 = time.perf_counter()
    out = get_bmc(model, [p.name for p in model.invariants], depth)
    per = next(iter(out.values())).per_depth
    print("  bmc cumulative seconds per depth: " + ", ".join(f"{k}:{s:.1f}" for k, s in enumerate(per)))
    print(f"  bmc all invariants to depth {depth}: {time.perf_counter() - t0:.1f}s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiles", default="default,printed-rules,assassinate-leaders")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--rlimit", type=int, default=150_000_000)
    ap.add_argument("--spacer", action="store_true", help="also plain Spacer per invariant and BMC per depth")
    args = ap.parse_args()
    for profile in args.profiles.split(","):
        bench_prove(profile, args.depth, args.rlimit)
        if args.spacer:
            bench_spacer(profile, args.depth, args.rlimit)


if __name__ == "__main__":
    main()
