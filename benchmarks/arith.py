"""Z3's two arithmetic solvers on a transfer's pruning (`LemmaSolver` in checks/engines/houdini.py).

Run: python benchmarks/arith.py [--base B] [--seed S] [-n N] [PROPOSAL.yaml ...]
     (default: the first N=3 random proposals of `benchmarks/z3.py --random-proposals N --seed S --base B`)

A cold `prove` of a new proposal starts from the nearest stored entry: its lemmas and properties are pruned
through the monolithic encoding (`LemmaSolver.prune`), which was the largest part of the fast path (42 s of
51 s on seed 1's first proposal, twenty-sixth session). This runs that pruning on each proposal once with
Z3's default arithmetic solver (`smt.arith.solver` 6) and once with the older simplex (2), the one the
`LemmaSolver` uses, in the same process one after the other, and prints the seconds, the resource units,
the lemmas kept (the same both ways: Houdini's result does not depend on the solver) and the ratio.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))  # first on sys.path as a script: benchmarks/z3.py shadows z3
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import checks.engines.houdini as H  # noqa: E402
from checks.analyses.infer import PRUNE_SPEND, _new_hints, with_properties  # noqa: E402
from checks.analyses.prove import _nearest  # noqa: E402
from checks.analyses.transfer import declarations  # noqa: E402
from checks.engines.certificates import verified_lemmas  # noqa: E402
from checks.engines.lemmacache import LemmaCache  # noqa: E402
from checks.formats.proposal import load_proposal  # noqa: E402
from model.digest import transition_digest  # noqa: E402
from model.moritani import GAME  # noqa: E402


def prune(path: Path, arith: int) -> tuple[float, int, int, int]:
    """(seconds, resource units, lemmas kept, lemmas offered) of the fast path's pruning with that solver."""
    prop = load_proposal(GAME, str(path))
    model = GAME.build(prop, unbounded=True)
    near = _nearest(model, LemmaCache(Path(tempfile.mkdtemp())), transition_digest(model), declarations(prop))
    if near is None:
        raise SystemExit(f"{path}: no stored entry near it")
    facts = with_properties(model, near[1], near[3])
    facts += _new_hints(model, facts)
    init = H.LemmaSolver.__init__

    def with_arith(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.solver.set("smt.arith.solver", arith)
    H.LemmaSolver.__init__ = with_arith  # type: ignore[method-assign]
    try:
        t = time.perf_counter()
        ls, why = verified_lemmas(model, facts, 0, 0, None, prune=PRUNE_SPEND)
        seconds = time.perf_counter() - t
    finally:
        H.LemmaSolver.__init__ = init  # type: ignore[method-assign]
    if ls is None:
        raise SystemExit(f"{path}: the pruning did not end ({why})")
    return seconds, H.spent(ls.solver), len(ls.lemmas), len(facts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("proposals", nargs="*", type=Path)
    ap.add_argument("--base", default="default")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=3)
    a = ap.parse_args()
    paths = a.proposals
    if not paths:
        spec = importlib.util.spec_from_file_location("z3_benchmark", os.path.join(_HERE, "z3.py"))
        assert spec is not None and spec.loader is not None
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
        paths = [p for p, _ in bench.random_proposals(a.n, a.seed, a.base)]
    print("| proposal | arith 6 (default) | arith 2 (simplex) | units 6 / 2 | kept | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        (s6, u6, k6, n), (s2, u2, k2, _) = prune(path, 6), prune(path, 2)
        same = "" if k6 == k2 else f" (differs: {k6})"
        print(f"| {path.name} | {s6:.1f} s | {s2:.1f} s | {u6 / 1e6:.0f} M / {u2 / 1e6:.0f} M | {k2} of {n}{same} "
              f"| {s6 / s2:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
