"""Spacer's proofs kept with the lemmas they assumed, and re-checked before they count again.

When the inferred lemmas do not prove a property, `rulecheck prove` asks Spacer, with those lemmas
assumed on every step's pre-state (checks/analyses/prove.py). Spacer's answer is a certificate: an
inductive invariant C over the state (SMT-LIB text, `checks.engines.induction.certificate`) with
Init => C, C /\\ F /\\ T => C' and C => P, where F is the lemma conjunction. F is itself proved inductive
(Init => F, F /\\ T => F'), so C /\\ F is an inductive invariant and P holds in every reachable state.

Spacer is a heuristic: it may find C in one run and run out of budget in the next, on a larger F (a
lemma cache entry united from two searches, checks/engines/lemmacache.py). So a certificate is stored
in the lemma cache entry of its model and, on a warm run, re-checked against the entry's re-proved
lemmas (`checks.engines.certificates.certificate_problem`: C must be a formula over the current state
only, no next-state or action symbol, no other constant; then three plain satisfiability queries, a
few milliseconds): nothing is trusted. A larger F only strengthens the pre-state, so a certificate found with fewer
lemmas still re-checks; one that does not (the rules or the encoding changed, or the entry was edited)
is ignored and the property goes down the chain as if nothing was stored.

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

    >>> from tests.conftest import counter_model
    >>> m = counter_model(limit=3)
    >>> s = Settle(m, seed=0, rlimit=0, clock=Clock(None))
    >>> sorted(s([], [(p.name, p.predicate) for p in m.invariants])), sorted(s.certificates)
    (['bounded'], ['bounded'])
    """

    def __init__(self, model, seed: int, rlimit: int, clock: Clock, stored: dict | None = None):
        self.model, self.seed, self.rlimit, self.clock = model, seed, rlimit, clock
        self.stored = dict(stored or {})
        self.certificates: dict = {}  # by property: its proofs' certificates, for the lemma cache
        self._beside: tuple | None = None  # (goal, facts assumed, Background)

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
                    self._beside = (name, list(facts), Background(lambda: _outcome(spacer(
                        self.model, name, seed=self.seed, rlimit=rlimit, system=system, timeout_ms=ms)),
                        fork=(os.cpu_count() or 1) > 1))
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
        (name, assumed, job), self._beside = self._beside, None
        verdict, reason, seconds, text = job.result(self.clock.rest()) if not self.clock.out() else ("", "", 0, "")
        job.cancel()
        if verdict != "proved" or not text or certificate_problem(HornSystem(self.model, assumed), name, text):
            return {}
        self.certificates[name] = text
        return {name: proved_by_spacer(self.model, name, assumed, seconds, (
            f"{reason}, with {BESIDE} times the budget, beside the lemma search (every step from a state satisfying "
            f"the {len(assumed)} inferred lemmas and properties proved before it)"))}


def _outcome(r) -> tuple:
    return r.verdict, r.reason, r.seconds, r.certificate
