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

import time

from checks.engines.certificates import certificate_problem
from checks.engines.induction import HornSystem
from checks.results import CheckResult


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
