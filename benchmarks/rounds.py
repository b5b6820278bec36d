"""What each round of the lemma chain proves: every seeded proposal proved cold by transfer, its own entry hidden.

Run: python benchmarks/rounds.py [--jobs N] [--timeout SECONDS] [NAME...]
     (NAME: an embedded profile, `neighbour:<stem>` or a proposal file; default: every seeded proposal,
     `reseed.seeded()`; a proposal file's own entry, if the seed has one, is hidden too)

Issue 35 asks which round of the chain proves what on the embedded profiles, and that a round proving
nothing anywhere be removed. A profile's own seed entry proves everything by a re-check, which says
nothing about the rounds; so each proposal here is proved as a designer's new proposal would be: an
empty user store, the shipped seed with the proposal's own entry hidden (`_Hidden`), so `prove`
transfers from the nearest other entry (checks/analyses/transfer.py) and runs the chain from there.

With `--cold` there is no store and no seed at all: the search from nothing, the chain's every round
(the presence round runs only there).

Every property proved is credited to the round of the chain (`infer.CHAIN`, by its name) that first
proved it, and to the engine that proved it there: the rounds are wrapped, and the engines' functions
in checks/analyses/infer.py and prove.py (nothing changed in them):

- `fast path (transferred proof)` — a property the nearby entry proved, kept by the re-check (`prune`);
- `<round> (certificate)` / `<round> (Spacer)` — a nearby entry's certificate re-checked, or Spacer with
  the facts of that round assumed (`settle`: the fast path, the `settle` round, or after a round that
  Spacer follows when it kept something);
- `<round> (Houdini)` — kept by that round's Houdini run(s);
- `after the chain (Spacer)` / `(1-induction)` — after the inference (`prove`'s chain; permissions go there);
- a property not proved counts under its verdict (`bounded`, `unknown`, ...).

The table gives, per proposal, the entry it started from, the wall seconds and the count per round;
then, per round, on how many proposals it proved something and how many properties in all.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import checks.analyses.infer as infer_mod  # noqa: E402
import checks.analyses.prove as prove_mod  # noqa: E402
from checks.analyses.transfer import declarations  # noqa: E402
from checks.engines.lemmacache import LemmaCache  # noqa: E402
from checks.engines.pool import TaskPool  # noqa: E402
from checks.formats.proposal import load_proposal  # noqa: E402
from checks.pipelines.proofs import lemma_samples  # noqa: E402
from checks.pipelines.reseed import seeded, seeded_models  # noqa: E402
from model.digest import transition_digest  # noqa: E402
from model.moritani import GAME  # noqa: E402


UNPROVED = ("bounded", "unknown", "violated", "error")


class _Hidden(LemmaCache):
    """The store with no entry of its own for the model `hidden` (its digest): `prove` transfers."""

    def __init__(self, directory: Path, hidden: str):
        super().__init__(directory)
        self.hidden = hidden

    def candidates(self, key: str):
        return iter(()) if key == self.hidden else super().candidates(key)


class _Credit:
    """Which round first proved each property (`by`), from wrappers around the chain's functions."""

    def __init__(self, props: set):
        self.props, self.by, self.stage = props, {}, ""

    def give(self, names, label: str) -> None:
        for n in sorted(set(names) & self.props):
            self.by.setdefault(n, label)


@functools.lru_cache(maxsize=1)
def _patched() -> list:
    """Install the wrappers once per process; the list holds the current run's `_Credit`."""
    now: list = [None]

    def around(mod, name: str, before=None, after=None):
        f = getattr(mod, name)

        @functools.wraps(f)
        def g(*a, **k):
            c = now[0]
            if c is not None and before is not None:
                before(c, a, k)
            r = f(*a, **k)
            if c is not None and after is not None:
                after(c, a, k, r)
            return r
        setattr(mod, name, g)

    def start(c, a, k):  # `prove` calls infer once per search: with `start` on a transfer
        if k.get("start") is None:
            c.by.clear()  # a search from nothing after a transfer that failed: the transfer's credits go

    def staged(r):  # the round `r` of the chain, naming the stage while it runs
        def run(s, spend):
            c, carried = now[0], s.carried
            if c is not None:
                c.stage = r.name
            got = r.run(s, spend)
            if c is not None and carried is None and s.carried is not None:  # it re-proved the nearby entry's lemmas
                c.give({n for n, _ in s.carried.lemmas} & set(s.start_names), f"{r.name} (transferred proof)")
            return got
        return dataclasses.replace(r, run=run)

    infer_mod.CHAIN = tuple(staged(r) for r in infer_mod.CHAIN)
    around(prove_mod, "infer", start, lambda c, a, k, r: setattr(c, "stage", "after the chain"))
    around(infer_mod, "_houdini", None, lambda c, a, k, r: c.give({n for n, _ in r.survivors}, f"{c.stage} (Houdini)"))
    around(prove_mod, "settle_stored", None, lambda c, a, k, r: c.give(r, f"{c.stage} (certificate)"))
    around(prove_mod, "spacer", None, lambda c, a, k, r: c.give([a[1]] if r.verdict == "proved" else [],
                                                                  f"{c.stage} (Spacer)"))
    return now


def credit_rounds(name: str, timeout: float | None = None, cold: bool = False) -> tuple:
    """(name, source entry, seconds, {property: round}) for one seeded proposal proved by transfer
    (`cold`: by a search from nothing, with no store and no seed at all)."""
    now = _patched()
    prop = load_proposal(GAME, name) if name.endswith((".yaml", ".yml")) else seeded()[name]
    model = GAME.build(prop, unbounded=True)
    names = [p.name for p in model.invariants]
    credit = _Credit(set(names))
    now[0] = credit
    stats: dict = {}
    t0 = time.perf_counter()
    try:
        where = Path(tempfile.mkdtemp(prefix="rulecheck-rounds-"))
        cache = LemmaCache(where, use_seed=False) if cold else _Hidden(where, transition_digest(model))
        results = prove_mod.prove(model, names, samples=lemma_samples(prop), stats=stats, cache=cache,
                                  declarations=declarations(prop), timeout=timeout)
    finally:
        now[0] = None
    seconds = time.perf_counter() - t0
    inferred = (stats.get("inference") or {}).get("verdict") == "proved"  # else no inference credit counts
    out = {}
    for r in results:
        if r.verdict != "proved":
            out[r.id] = r.verdict
        elif inferred and r.id in credit.by or r.engine == "spacer":
            out[r.id] = credit.by.get(r.id, "after the chain (Spacer)") if inferred else "after the chain (Spacer)"
        else:
            out[r.id] = f"after the chain ({'1-induction' if r.engine == 'k-induction' else r.engine})"
    source = (stats.get("inference") or {}).get("transferred_from") or "nothing"
    return name, source, seconds, out


def main(argv: list | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="seeded proposals (default: all)")
    ap.add_argument("--jobs", type=int, default=1, help="proposals proved at once (processes)")
    ap.add_argument("--timeout", type=float, default=None, help="each prove's --timeout (seconds)")
    ap.add_argument("--cold", action="store_true", help="a search from nothing: no store, no seed (minutes each)")
    a = ap.parse_args(argv)
    todo = a.names or sorted(seeded())
    sources = seeded_models()
    rows = []
    if a.jobs > 1 and len(todo) > 1:
        with TaskPool(a.jobs) as pool:
            for job, result, error in pool.map(functools.partial(credit_rounds, timeout=a.timeout, cold=a.cold), todo):
                if error is not None:
                    raise SystemExit(f"{job}: {error}")
                rows.append(result)
    else:
        rows = [credit_rounds(n, a.timeout, a.cold) for n in todo]
    rows.sort(key=lambda r: todo.index(r[0]))
    per_round: Counter = Counter()
    where: dict = {}
    for name, source, seconds, by in rows:
        counts = Counter(by.values())
        proved = sum(v not in UNPROVED for v in by.values())
        print(f"{name}: from {sources.get(source, source[:12])}, {seconds:.1f} s, {proved} / {len(by)} proved")
        for label, n in sorted(counts.items()):
            few = sorted(k for k, v in by.items() if v == label) if n <= 3 else []
            print(f"    {n:3d}  {label}{'  (' + ', '.join(few) + ')' if few else ''}")
            per_round[label] += n
            where.setdefault(label, set()).add(name)
    print(f"\nper round, over {len(rows)} proposals (properties; proposals where it proved something):")
    for label, n in sorted(per_round.items(), key=lambda x: -x[1]):
        print(f"  {n:5d}  {len(where[label]):3d}  {label}")


if __name__ == "__main__":
    main()
