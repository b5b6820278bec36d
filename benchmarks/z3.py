"""Z3 benchmark: lemma inference and `prove` (auto) per embedded profile, Spacer per invariant, BMC per depth.

Run: python benchmarks/z3.py [--profiles default,printed-rules,assassinate-leaders] [--depth N] [--rlimit N]
     [--spacer] (also the plain Spacer time per invariant, without lemmas, as before issue 16)
     python benchmarks/z3.py --random-proposals N [--seed S] [--base PROFILE] [--prove-timeout SECONDS]

`--random-proposals N` (issue 35): N proposals that are no embedded profile, each a random combination
of at least three switches set away from the base profile's choice, about half of them with bounds of
their own; each is proved cold (`rulecheck prove --format json` in its own process, an empty user
cache, the shipped seed only: the search starts by transfer from the nearest seed entry), and a table
gives each one's wall seconds, proved / total and the entry it started from. `--prove-timeout` is each
`prove`'s own `--timeout` (what it cuts is `unknown`, exit 4), so that one slow proposal bounds the run.

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


# Bounds a random proposal may set, with the values it picks from (each stays within the relations the
# proposal loader checks; a combination the loader refuses is drawn again).
BOUNDS = {"spice": (2, 4), "moritani_spice": (1, 3), "hand_limit": (2, 4), "moritani_forces": (1, 3),
          "turns": (1, 3)}


def random_proposals(n: int, seed: int, base: str = "default") -> list:
    """`n` proposals as (name, YAML text): at least three switches away from `base`, some with bounds."""
    import random

    from checks.formats.proposal import load_proposal
    from model.errors import InputError, ModelError
    from model.moritani.config import SWITCHES
    rng = random.Random(seed)
    chosen = GAME.profiles[base].interpretation
    live = _live_switches(base)
    out, tries = [], 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        picks = rng.sample(live, rng.randint(3, 4))
        lines = [f"name: random {seed}-{len(out)}", f"extends: {base}", "interpretation:"]
        lines += [f"  {s.key}: {rng.choice([c for c in s.choices if c != chosen.choice(s.key)])}" for s in picks]
        if rng.random() < 0.5:
            field, values = rng.choice(sorted(BOUNDS.items()))
            lines += ["bounds:", f"  {field}: {rng.choice(values)}"]
        text = "\n".join(lines) + "\n"
        path = Path(tempfile.mkdtemp(prefix="rulecheck-random-")) / "p.yaml"
        path.write_text(text)
        try:
            GAME.build(load_proposal(GAME, str(path)), unbounded=True)
        except (InputError, ModelError):
            continue
        out.append((path, text))
    return out


def _live_switches(base: str) -> list:
    """The switches that, set away from `base`'s choice alone, change its model (the others would leave
    a proposal on the base profile's own, stored, model)."""
    import dataclasses

    from model.digest import model_digest
    from model.errors import InputError, ModelError
    from model.moritani.config import SWITCHES
    prop = GAME.profiles[base]
    digest = model_digest(GAME.build(prop, unbounded=True))
    live = []
    for s in SWITCHES:
        for c in s.choices:
            if c == prop.interpretation.choice(s.key):
                continue
            other = dataclasses.replace(prop, interpretation=prop.interpretation.with_choices(**{s.key.replace("-", "_"): c}))
            try:
                if model_digest(GAME.build(other, unbounded=True)) != digest:
                    live.append(s)
                    break
            except (InputError, ModelError):  # a choice these bounds do not allow: not a live switch here
                break
    return live


def bench_random(n: int, seed: int, base: str, timeout: float | None = None) -> None:
    """Cold `prove` of each random proposal, one process each, the shipped seed only."""
    import json
    import subprocess
    rows = []
    from checks.pipelines.reseed import seeded_models  # the seed's entries by name: profiles and seed neighbours
    names = seeded_models()
    for path, text in random_proposals(n, seed, base):
        changes = ", ".join(line.strip() for line in text.splitlines()[3:] if line.strip() != "bounds:")
        env = dict(os.environ, RULECHECK_CACHE=tempfile.mkdtemp(prefix="rulecheck-cold-"))
        t0, cpu0 = time.perf_counter(), _child_cpu()
        done = subprocess.run([sys.executable, "-c", "from checks.launch import run; run()", "prove", "--proposal",
                               str(path), "--format", "json", *(["--timeout", str(timeout)] if timeout else [])],
                              capture_output=True, text=True, env=env,
                              cwd=os.path.dirname(_HERE))
        wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
        try:
            doc = json.loads(done.stdout)
        except ValueError:
            rows.append((changes, wall, cpu, "error", "-", done.stderr.strip().splitlines()[-1:] or ""))
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)
            continue
        checks = doc["checks"]
        inf = doc["z3"].get("inference", {})
        source = inf.get("transferred_from")
        rows.append((changes, wall, cpu, f"{sum(c['verdict'] == 'proved' for c in checks)} / {len(checks)}",
                     names.get(source, source[:12]) if source else "nothing", done.returncode))
        print(f"  {rows[-1]} {inf.get('houdini_runs')} {inf.get('seconds')}", file=sys.stderr, flush=True)
    print(f"| proposal (seed {seed}, base {base}) | wall | CPU | proved | transferred from | exit |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for changes, wall, cpu, proved, source, code in rows:
        print(f"| {changes} | {wall:.1f} s | {cpu:.1f} s | {proved} | {source} | {code} |")


def _child_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random-proposals", type=int, default=0, metavar="N",
                    help="N random proposals proved cold (the shipped seed only), one table row each")
    ap.add_argument("--seed", type=int, default=0, help="the random proposals' seed")
    ap.add_argument("--base", default="default", help="the profile the random proposals extend")
    ap.add_argument("--prove-timeout", type=float, default=None, metavar="SECONDS",
                    help="each random proposal's prove --timeout (its cut properties are unknown, exit 4)")
    ap.add_argument("--profiles", default="default,printed-rules,assassinate-leaders")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--rlimit", type=int, default=150_000_000)
    ap.add_argument("--spacer", action="store_true", help="also plain Spacer per invariant and BMC per depth")
    args = ap.parse_args()
    if args.random_proposals:
        bench_random(args.random_proposals, args.seed, args.base, args.prove_timeout)
        return
    for profile in args.profiles.split(","):
        bench_prove(profile, args.depth, args.rlimit)
        if args.spacer:
            bench_spacer(profile, args.depth, args.rlimit)


if __name__ == "__main__":
    main()
