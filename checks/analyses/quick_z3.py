"""The Z3 parts of `rulecheck check`: the agreement check and the proofs that fit its budget."""
from __future__ import annotations

import time

from checks.analyses.leaks import RULES as LEAK_RULES
from checks.engines.agreement import successor_agreement
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.engines.induction import HornSystem, spacer
from checks.results import CheckResult, error_result, isolated
AGREEMENT_SAMPLE = 75  # a guard in every check run; tests: every 7th state, all 3,550 with -m slow (test_z3.py)


def _guard_config(budget: CheckConfig | None, seed: int, cap: int) -> CheckConfig:
    """The guard's own state cap, within the user's budget (its --max-states and its clock)."""
    budget = budget or CheckConfig(seed=seed)
    return CheckConfig(max_states=min(cap, budget.max_states), seed=seed, timeout=budget.timeout,
                       started=budget.started)


AGREEMENT_CAP, LEAK_CAP = 20_000, 200_000  # the guards' own state caps


def small_guards(model, seed: int, budget: CheckConfig | None = None, agreement: bool = True) -> list[CheckResult]:
    """`hidden-identity` for every rival, then (with `agreement`) the agreement guard, on `model` (the
    proposal on its game's small bounds), from one exploration when it fits both guards' caps. Each
    guard runs isolated (issue 39): one that fails inside the tool is reported as its `error`, the
    other's verdict stands.

    >>> from model.moritani import GAME
    >>> [r.id for r in small_guards(GAME.build(GAME.small(GAME.profiles["default"])), 0, agreement=False)]
    ['hidden-identity', 'hidden-identity', 'hidden-identity']
    """
    t0 = time.perf_counter()
    cfg = _guard_config(budget, seed, LEAK_CAP)
    shared: dict = {}

    def leaks():
        explorer = Explorer(model, cfg)
        shared["cm"] = explorer.cm
        shared["ex"] = explorer.run() if not cfg.out_of_time(t0) else None
        return small_leak_results(model, seed, budget, shared["ex"], explorer.cm)

    results = isolated(leaks, lambda e: guard_errors(e, observers(model)))
    if agreement:
        # The same states as the agreement guard's own search when that search would be complete too.
        ex = shared.get("ex")
        reuse = ex if ex is not None and ex.complete and len(ex.states) <= AGREEMENT_CAP else None
        results += isolated(lambda: [agreement_result(model, seed, budget, reuse, shared.get("cm"))],
                            lambda e: guard_errors(e, None, agreement=True))
    return results


def observers(model) -> list[str]:
    """The rivals `hidden-identity` is checked for on `model` (none without a secrets declaration)."""
    sec = model.secrets
    return [sec.label(f) for f in sec.observers] if sec is not None else []


def guard_errors(exc: BaseException, rivals: list | None, agreement: bool = False) -> list[CheckResult]:
    """The `error` verdicts of small-bounds guards that failed inside the tool: `hidden-identity` for each
    of `rivals` (one without an observer when the list is empty; none when it is None), and `agreement`
    if asked."""
    out = []
    for who in ([] if rivals is None else rivals or [None]):
        r = error_result(exc, id="hidden-identity", kind="noninterference", engine="product", rules=LEAK_RULES,
                         what="the small-bounds leak check" + (f" for {who}" if who else ""),
                         **({"observer": who} if who else {}))
        r.detail = (f"[{who}; 1-stronghold 1-turn bounds] " if who else "") + r.detail
        out.append(r)
    if agreement:
        out.append(error_result(exc, id="agreement", kind="agreement", engine="explicit+z3",
                                what="the agreement guard"))
    return out


def agreement_result(model, seed: int, budget: CheckConfig | None = None, exploration=None,
                     compiled=None) -> CheckResult:
    """Successor sets of the explicit and Z3 semantics agree on a sample of `model`, the proposal on
    its game's small bounds (`Game.small`). Cut by the budget's clock: `unknown`. `exploration`: a
    complete search of `model` within the guard's cap, reused instead of searching again."""
    t0 = time.perf_counter()
    cfg = _guard_config(budget, seed, AGREEMENT_CAP)
    ex = exploration
    if ex is None and not cfg.out_of_time(t0):
        ex = Explorer(model, cfg, compiled).run()
    if ex is None or cfg.out_of_time(t0):
        return CheckResult(id="agreement", kind="agreement", verdict="unknown", engine="explicit+z3",
                           seconds=time.perf_counter() - t0,
                           detail=f"not run: --timeout {cfg.timeout}s reached first; nothing is claimed")
    step = max(1, len(ex.states) // AGREEMENT_SAMPLE)
    # The Z3 encoding keeps every state within its domains (NOTE(domain)): a state outside them is
    # `domain`'s finding, not a place where the two semantics can be compared.
    outside = {i for i, _ in ex.out_of_domain}
    sample = [ex.states[i] for i in range(0, len(ex.states), step) if i not in outside]
    problems = successor_agreement(model, sample)
    detail = (f"explicit and Z3 successors agree on {len(sample)} of {len(ex.states):,} states of a "
              f"1-stronghold, 1-turn configuration" if not problems else problems[0])
    return CheckResult(id="agreement", kind="agreement", verdict="holds" if not problems else "violated",
                       engine="explicit+z3", states=len(ex.states), seconds=time.perf_counter() - t0, detail=detail)


def small_leak_results(model, seed: int, budget: CheckConfig | None = None, exploration=None,
                       compiled=None) -> list[CheckResult]:
    """`hidden-identity` for every rival on `model`, the proposal on its game's small bounds
    (`rulecheck leaks` runs the full bounds; on the default bounds it compares 3.1 M state pairs)."""
    from checks.analyses.leaks import check_leaks
    results, _ = check_leaks(model, _guard_config(budget, seed, LEAK_CAP), exploration=exploration,
                             compiled=compiled)
    for r in results:
        del r.leak
        r.detail = f"[{r.observer}; 1-stronghold 1-turn bounds] " + r.detail
    return results


def quick_proofs(model, seed: int, rlimit: int, cache_dir="default", stats: dict | None = None,
                 budget: CheckConfig | None = None, use_seed: bool = True) -> tuple[list[CheckResult], int]:
    """Spacer on the unbounded-turn model, each invariant under a small rlimit; only proofs are kept.

    Attempts are kept in the proof store (checks/engines/lemmacache.py: the entry of the model's
    transition digest, field `spacer`): a stored proof is a certificate re-checked before it is reported,
    a stored `unknown` under the same rlimit on the same encoding is not repeated.
    `stats` (if given) receives how many proofs came from re-checked certificates, how many attempts
    were skipped as known-unknown, and the store's warnings. Permissions are left to `rulecheck prove`
    (`stats["permissions_left_to_prove"]`): a cold attempt on each, even their encoding for the store's
    key, would cost check its 10 s. `budget`'s clock (--timeout) bounds the attempts: each
    Spacer query gets what is left, and those not reached are listed in `stats["timed_out"]` (their
    invariants keep their explicit verdicts; nothing more is claimed).
    """
    from checks.engines.cachedirs import default_dir, reported
    budget = budget or CheckConfig()
    if budget.out_of_time():  # nothing is attempted, not even the encoding
        if stats is not None:
            stats.update({"certificates_rechecked": [], "known_unknown_skipped": [], "shipped": 0, "cache": None,
                          "timed_out": [p.name for p in model.invariants]})
        return [], len(model.invariants)
    told: list = []  # check runs this in a forked child (checks/pipelines/check.py): the store's warnings
    with reported(told.append):  # travel in `stats`, as `rulecheck: warning: ...` lines
        out, counts = _stored_or_spacer(model, seed, rlimit, default_dir() if cache_dir == "default" else cache_dir,
                                        budget, use_seed)
    if stats is not None:
        stats.update(counts | ({"warnings": told} if told else {}))
    return out, len(model.invariants)


def _stored_or_spacer(model, seed: int, rlimit: int, cache_dir, budget: CheckConfig,
                      use_seed: bool = True) -> tuple[list, dict]:
    """`quick_proofs`' work: each invariant's stored proof re-checked, else Spacer; (the proofs, the counts)."""
    from checks.engines.certificates import certificate_problem
    from checks.engines.induction import fingerprint
    from checks.engines.lemmacache import LemmaCache, spacer_key
    from model.digest import transition_digest
    cache = LemmaCache(cache_dir, use_seed=use_seed)
    digest = transition_digest(model) if cache.path is not None else None
    out = []
    system = HornSystem(model)
    rechecked, skipped, shipped, timed_out, left = [], [], 0, [], []

    def attempt(p) -> CheckResult | None:
        nonlocal shipped
        if p.kind == "permission":  # NOTE(permissions): Spacer on a permission is `prove`'s (check keeps its 10 s)
            left.append(p.name)
            return None
        k = spacer_key(fingerprint(system, p.name), rlimit, seed) if digest else None
        hits = cache.spacer_records(digest, p.name) if digest else []  # the user's record first, then the seed's
        shipped += any(origin == "seed" and hit["key"] == k for origin, hit in hits)
        t0 = time.perf_counter()
        if _stored_proof(cache, digest, hits, lambda text: certificate_problem(system, p.name, text), p.name):
            rechecked.append(p.name)
            return CheckResult(id=p.name, kind=p.kind, verdict="proved", engine="spacer", rules=p.rules,
                               seconds=time.perf_counter() - t0,
                               detail="proved for games of any length (Spacer; stored inductive invariant "
                                      "re-checked)")
        if any(hit["verdict"] == "unknown" and hit["key"] == k for _, hit in hits):
            skipped.append(p.name)
            return None
        r = spacer(model, p.name, seed=seed, rlimit=rlimit, system=system, timeout_ms=budget.ms_left())
        if digest:
            if r.verdict == "proved" and r.certificate:
                cache.record_spacer(digest, p.name, {"key": k, "verdict": "proved", "certificate": r.certificate})
            elif r.verdict == "unknown" and not r.clock_stop:  # the rlimit's stop: deterministic, unlike time
                cache.record_spacer(digest, p.name, {"key": k, "verdict": "unknown"})
            elif any(origin == "user" for origin, _ in hits):
                cache.record_spacer(digest, p.name, None)
        if r.verdict == "proved":
            return CheckResult(id=p.name, kind=p.kind, verdict="proved", engine="spacer", rules=p.rules,
                               seconds=r.seconds, detail="proved for games of any length (Spacer)")
        return None

    for p in model.invariants:
        if budget.out_of_time():
            timed_out.append(p.name)
            continue
        # One invariant's failing attempt (a re-check, Spacer) is its own `error`; the others go on (issue 39).
        r = isolated(lambda p=p: attempt(p), lambda e, p=p: proof_error(e, p))
        if r is not None:
            out.append(r)
    cache.save()
    return out, ({"certificates_rechecked": rechecked, "known_unknown_skipped": skipped, "shipped": shipped,
                  "cache": str(cache.path) if cache.path else None}
                 | ({"timed_out": timed_out} if timed_out else {}) | ({"permissions_left_to_prove": left} if left else {}))


def proof_error(exc: BaseException, p) -> CheckResult:
    """The `error` of invariant `p`'s Spacer attempt in `check` (a re-check or a query that failed)."""
    return error_result(exc, id=p.name, kind=p.kind, engine="spacer", rules=p.rules,
                        what=f"the Spacer proof of {p.name}")


def _stored_proof(cache, digest: str | None, hits: list, problem, name: str) -> bool:
    """Does a stored certificate for `name` verify (`problem(text)` is None)? The user's record is tried
    first, then the shipped one: a record that fails never hides a valid one behind it (issue 40). A
    user's proof that fails is forgotten, with a warning (it was edited, or damaged)."""
    for origin, hit in hits:
        if hit["verdict"] != "proved":
            continue
        why = problem(hit["certificate"])
        if why is None:
            return True
        cache.refused_certificate(origin, name, why, key=digest)
    return False
