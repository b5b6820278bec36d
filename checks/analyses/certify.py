"""Spacer's proofs kept with the lemmas they assumed, and re-checked before they count again.

Spacer's proof of P with the inferred lemma conjunction F assumed (checks/analyses/prove.py) is a certificate:
an inductive invariant C over the state (SMT-LIB text) with Init => C, C /\\ F /\\ T => C' and C => P. F is
proved inductive itself, so C /\\ F is an inductive invariant and P holds in every reachable state. Spacer is a
heuristic (a larger F, a united entry, may cost it its budget), so C is stored in its model's entry and re-checked
on every use (`checks.engines.certificates.certificate_problem`: a formula over the current state only, then three
queries); a larger F only strengthens the pre-state. One that fails is ignored and the property goes down the
chain (docs/lemmas.md, "Spacer's certificates in the cache").

>>> sorted(usable({"p": "(assert true)", "q": 3, 4: "x"}, ["p", "q"]))
['p']
"""
from __future__ import annotations

import os
import time

from checks.clock import Clock
from checks.engines.certificates import certificate_problem
from checks.engines.induction import HornSystem, spacer
from checks.engines.pool import Background
from checks.results import CheckResult

BESIDE = 10  # the Spacer beside the search gets this many times the chain's own budget (`--spacer-rlimit`)


def usable(certificates, names) -> dict:
    """The stored certificates that are well-formed (text by property name) for the properties in `names`."""
    return {n: t for n, t in certificates.items() if isinstance(n, str) and isinstance(t, str) and n in names} \
        if isinstance(certificates, dict) else {}


def settle_stored(model, facts: list, certificates: dict, refused=None) -> dict:
    """{name: proved CheckResult} for each stored certificate that re-checks with `facts` (a proved
    inductive conjunction, [(name, Expr)]) assumed; the others are left out (and, with `refused`,
    reported as `refused(name, why)`)."""
    if not certificates:
        return {}
    system = HornSystem(model, facts)
    props = {p.name: p for p in model.invariants}
    out = {}
    for name, text in sorted(certificates.items()):
        t0 = time.perf_counter()
        why = "no such property in this model" if name not in props else certificate_problem(system, name, text)
        if why is not None:
            if refused is not None:
                refused(name, why)
            continue
        out[name] = proved_by_spacer(model, name, facts, time.perf_counter() - t0, (
            f"Spacer's inductive invariant, stored for these rules and re-checked by Z3 (every step from a state "
            f"satisfying the {len(facts)} inferred lemmas and properties proved with them)"))
    return out


def proved_by_spacer(model, name: str, facts: list, seconds: float, how: str) -> CheckResult:
    """Property `name` proved by Spacer with `facts` ([(name, Expr)]) assumed; `how`: the detail's tail."""
    p = next(p for p in model.invariants if p.name == name)
    return CheckResult(id=name, kind=p.kind, rules=p.rules, states=None, verdict="proved", engine="spacer", depth=None,
                       seconds=seconds, extra={"lemmas": [n for n, _ in facts]},
                       detail=f"proved for games of any length: {how}")


class Settle:
    """A search's `settle(facts, goals, first_failure)` (checks/analyses/infer.py): the stored certificates that
    re-check with `facts` assumed, then Spacer within `rlimit` on each goal left; `certificates` keeps its proofs.

    With `first_failure` (a transfer's fast path) it stops at Spacer's first failure and tries that goal again with
    `BESIDE` times the budget and the same facts, beside the search (forked when there is a second core). A later
    call still asking for it, with facts including those, waits for that proof only once its own attempt failed: a
    fixed point of the chain, so the verdicts do not depend on the machine's load. Call `cancel()` at the end.
    `progress(line)`: says when it waits.

    >>> from tests.conftest import counter_model
    >>> m = counter_model(limit=3)
    >>> s = Settle(m, seed=0, rlimit=0, clock=Clock(None))
    >>> sorted(s([], [(p.name, p.predicate) for p in m.invariants])), sorted(s.certificates)
    (['bounded'], ['bounded'])
    """

    def __init__(self, model, seed: int, rlimit: int, clock: Clock, stored: dict | None = None, progress=None):
        self.model, self.seed, self.rlimit, self.clock, self.progress = model, seed, rlimit, clock, progress
        self.stored = dict(stored or {})
        self.certificates: dict = {}  # by property: its proofs' certificates, for the lemma cache
        self._beside: tuple | None = None  # (goal, facts assumed, Background, the HornSystem of those facts)

    def __call__(self, facts: list, goals: list, first_failure: bool = False) -> dict:
        names, known, beside = [n for n, _ in goals], {n for n, _ in facts}, self._beside
        if beside is not None and (beside[0] not in names or any(n not in known for n, _ in beside[1])):
            self.cancel()
        got = settle_stored(self.model, facts, usable(self.stored, names))
        self.certificates.update({n: self.stored[n] for n in got})
        # A second system for the same facts: Spacer's search depends on the terms the context made before it, and
        # sharing settle_stored's changed which round proves treachery-online 1-2's last property (measured).
        system = HornSystem(self.model, facts)
        for name in [n for n in names if n not in got]:
            r = spacer(self.model, name, seed=self.seed, rlimit=self.rlimit, system=system, timeout_ms=self.clock.ms())
            if r.verdict == "proved":
                self.certificates[name] = r.certificate
                got[name] = proved_by_spacer(self.model, name, facts, r.seconds, f"{r.reason} (every step from a "
                                             f"state satisfying the {len(facts)} inferred lemmas and properties "
                                             "proved before the blocking rounds)")
            elif self._beside is not None and self._beside[0] == name:
                got.update(self._joined())
            elif first_failure:
                if self.rlimit > 0 and not self.clock.out():  # (no limit: nothing more to give it)
                    rlimit, ms = self.rlimit * BESIDE, self.clock.ms()
                    self._beside = (name, list(facts), Background(lambda: spacer(
                        self.model, name, seed=self.seed, rlimit=rlimit, system=system, timeout_ms=ms),
                        fork=(os.cpu_count() or 1) > 1), system)
                break
        if self._beside is not None and self._beside[0] in got:  # proved here: its other proof is not needed
            self.cancel()
        return got

    def cancel(self) -> None:
        """Stop the Spacer beside the search, if any (idempotent)."""
        if self._beside is not None:
            self._beside[2].cancel()
            self._beside = None

    def forget(self) -> None:
        """Before a search from nothing: nothing of the transfer's is kept (its certificates, its Spacer beside)."""
        self.cancel()
        self.certificates.clear()
        self.stored.clear()

    def _joined(self) -> dict:
        """The Spacer beside's proof (waited for), re-checked as a stored certificate is; or nothing."""
        assert self._beside is not None
        (name, assumed, job, system), self._beside = self._beside, None
        if self.progress is not None:  # (a wait of 13 s on treachery-online 1-2 was silent)
            self.progress(f"prove: {name}: waiting for the Spacer beside the search ({BESIDE} times the budget)")
        r = job.result(self.clock.rest()) if not self.clock.out() else None  # a ProofOutcome: plain data
        job.cancel()
        if r is None or r.verdict != "proved" or not r.certificate or \
                certificate_problem(system, name, r.certificate):
            return {}
        self.certificates[name] = r.certificate
        return {name: proved_by_spacer(self.model, name, assumed, r.seconds, (
            f"{r.reason}, with {BESIDE} times the budget, beside the lemma search (every step from a state "
            f"satisfying the {len(assumed)} inferred lemmas and properties proved before it)"))}
