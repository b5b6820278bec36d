"""Run the Z3 engines over the invariants and turn their outcomes into honest verdicts.

Proofs run on the model built with `unbounded=True`, so `proved` covers games of any length.
`auto` first infers lemmas (checks/analyses/infer.py: candidates mined from the reachable states of
the pipeline's bounded `samples`, Houdini to the largest inductive subset, the conjunction re-checked
by Z3): an invariant or step property in that conjunction is `proved` (engine `lemmas`), its verdict
listing the lemmas its step uses. An inference that times out or meets a solver `unknown` gives no
lemmas at all. The rest go to Spacer (with the inferred lemmas as facts every step leaves from),
then 1-induction with the model's declared lemmas; where those give up, BMC establishes `bounded` to
the requested depth and the verdict says so (never `proved`, never `holds`).
"""
from __future__ import annotations

from checks.analyses.certify import Settle, settle_stored, usable
from checks.analyses.infer import Inference, cone, infer, recheck
from checks.analyses.transfer import declarations as declared_by, donors, nearest, usable_lemmas
from checks.clock import Clock
from checks.config import LEMMA_SPACER_RLIMIT
from checks.engines.bmc import get_bmc
from checks.engines.induction import HornSystem, classify_cti, k_induction, spacer, strengthened_induction
from checks.engines.lemmacache import LemmaCache
from checks.results import CheckResult, error_result, isolated
from model.digest import transition_digest
from model.game import GameModel

ENGINES = ("auto", "spacer", "k-induction", "bmc")


def prove_proposal(prop, model: GameModel, names: list[str], bounded: GameModel | None, cache_dir=None,
                   **options) -> list[CheckResult]:
    """`prove` as `rulecheck prove` and `sweep --prove` both run it on a proposal: `model` is its unbounded
    model, lemma candidates are mined from `bounded` (its own bounded model; None: no inference), a
    transfer starts from the stored entry nearest its declarations, and the lemma store is the one in
    `cache_dir` (None: none). `options` go to `prove` (engine, depth, seed, rlimit, timeout, ...)."""
    return prove(model, names, samples=[bounded] if bounded is not None else None,
                 declarations=declared_by(prop), cache=LemmaCache(cache_dir) if cache_dir is not None else None,
                 **options)


def prove(model: GameModel, names: list[str], engine: str = "auto", depth: int = 12, seed: int = 0,
          rlimit: int = 0, explored: dict | None = None, fallback: bool = True,
          timeout: float | None = None, samples: list | None = None, stats: dict | None = None,
          inference: Inference | None = None, cache=None,
          lemma_rlimit: int = LEMMA_SPACER_RLIMIT, declarations: dict | None = None,
          progress=None) -> list[CheckResult]:
    """One CheckResult per invariant name. `timeout` (seconds) bounds the whole run: what it cuts short is
    `unknown` with that reason, never `proved` or `bounded` beyond what finished. `samples`: bounded models of the
    same rules and slots to mine lemma candidates from (engine auto only; None: no inference), or `inference`: one
    already run on `model`. `stats` (a dict) receives the inference's figures. `cache` (LemmaCache): lemmas stored
    for this very model are re-proved and used instead of a search; a search's lemmas are stored. `lemma_rlimit`:
    Spacer's rlimit (auto) once inferred lemmas are its facts; its certificates are stored with them
    (checks/analyses/certify.py), so a larger budget is paid once per model. `declarations`
    (checks/analyses/transfer.py): the proposal's; with no entry for this model, the search starts from the stored
    entry whose declarations are nearest, and its own entry records them. `progress(line)`: what a search is doing
    (the pipeline passes one when stderr is a terminal)."""
    props = {p.name: p for p in model.invariants}
    out: list[CheckResult] = []
    need_bmc: list[str] = []
    notes: dict = {}
    clock = Clock(timeout)
    inf = None
    certificates: dict = {}  # Spacer's, for proofs that assumed the inferred lemmas (checks/analyses/certify.py)
    if engine == "auto" and (samples or inference is not None):
        inf = inference or isolated(lambda: _infer(model, samples, seed, cache, clock, names, lemma_rlimit,
                                                    declarations, progress), lambda exc: exc)
        if isinstance(inf, BaseException):  # it failed inside the tool: each property's `error`
            return _inference_failed(inf, names, props)
        if stats is not None:
            stats.update(inference_stats(inf))
        if inf.cut:  # --timeout stopped the search: every property is inconclusive, none silently dropped
            return [_timed_out(props[n], engine, timeout, "during lemma inference") for n in names]
        out += _by_lemmas(inf, [n for n in names if n in inf.proved], props)
        # Proofs that assumed the search's facts count only once the whole conjunction re-checked; one verdict each.
        names_left = [n for n in names if n not in inf.proved]
        settled = {n: r for n, r in inf.settled.items() if inf.verdict == "proved" and n in names_left}
        out, names_left = out + list(settled.values()), [n for n in names_left if n not in settled]
        # An invariant false on a mined (reachable) state goes straight to BMC for its trace.
        need_bmc += [n for n in names_left if n in inf.violated]
        notes.update({n: ("false on a reachable state of the bounded configuration", 0.0) for n in inf.violated})
        todo = [n for n in names_left if n not in inf.violated]
    else:
        todo = list(names)
    facts = inf.facts() if inf is not None and inf.verdict == "proved" else ()
    system = HornSystem(model, facts) if engine in ("auto", "spacer") and todo else None
    for name in todo:
        p = props[name]
        common = dict(id=name, kind=p.kind, rules=p.rules, states=None)
        if clock.out():
            out.append(_timed_out(p, engine, timeout, "before this invariant was attempted"))
        elif engine in ("auto", "spacer"):
            r = isolated(lambda: _unbounded(model, system, name, engine, seed, (rlimit, lemma_rlimit), clock, fallback,
                                            common, certificates), lambda e: _failed(e, common, "spacer"))
            if isinstance(r, CheckResult):
                out.append(r)
            else:
                notes[name] = r
                need_bmc.append(name)
        elif engine == "k-induction":
            r = isolated(lambda: _k_induction(model, name, depth, seed, rlimit, clock, explored, common),
                         lambda e: _failed(e, common, engine))
            if r is None:
                need_bmc.append(name)
            else:
                out.append(r)
        else:
            need_bmc.append(name)
    if need_bmc:  # one unrolling for all of them: if it fails, each of them is `error` (issue 39)
        out += isolated(lambda: _bmc(model, need_bmc, props, engine, depth, seed, rlimit, clock, notes),
                        lambda e: [_failed(e, dict(id=n, kind=props[n].kind, rules=props[n].rules, states=None), "bmc")
                                   for n in need_bmc])
    if cache is not None and certificates and inf is not None and inf.verdict == "proved":
        cache.certify(transition_digest(model), certificates)
        cache.save()
    for r in out:
        _say_lemmas(r, model, inf, facts)
    order = {n: i for i, n in enumerate(names)}
    return sorted(out, key=lambda r: order[r.id])


def _inference_failed(exc: BaseException, names: list, props: dict) -> list[CheckResult]:
    """The lemma inference, which every property shares, raised `exc`: each property's `error` with the reason."""
    return [error_result(exc, id=n, kind=props[n].kind, engine="lemmas", rules=props[n].rules,
                         what="the lemma inference (shared by every property)") for n in names]


def _timed_out(p, engine: str, timeout, when: str) -> CheckResult:
    """A property the user's --timeout left undecided: inconclusive (exit 4), never proved or bounded."""
    return CheckResult(id=p.name, kind=p.kind, rules=p.rules, states=None, verdict="unknown", engine=engine,
                       depth=None, seconds=0.0, detail=f"--timeout {timeout}s reached {when}; nothing is claimed")


def _failed(exc: BaseException, common: dict, engine: str) -> CheckResult:
    """One invariant's proof attempt that failed inside the tool: its `error`, the others go on."""
    return error_result(exc, id=common["id"], kind=common["kind"], engine=engine, rules=common["rules"],
                        what=f"the {engine} attempt on {common['id']}")


def _say_lemmas(r: CheckResult, model, inf: Inference | None, facts) -> None:
    """Every verdict says which lemmas it used: their text under extra["lemmas"] (JSON), their number
    in the detail (text)."""
    if r.lemmas is not None:
        return
    if r.engine == "spacer" and r.verdict == "proved" and facts:
        r.lemmas = [n for n, _ in facts]
        r.detail += (f" (every step from a state satisfying the {len(facts)} inferred lemmas and properties "
                     f"proved with them)")
    elif r.engine == "k-induction" and r.verdict == "proved" and r.depth == 1 and model.lemmas:
        r.lemmas = [n for n, _ in model.lemmas]
    else:
        r.lemmas = []
    if inf is not None and r.verdict != "proved":
        f = inf.failures.get(r.id)
        if f is not None:  # where its induction fails relative to the lemmas (the mined candidates it violates)
            r.extra["induction_failure"] = {
                "pre": model.schema.pretty(f.pre), "action": f.action, "post": model.schema.pretty(f.post),
                "violated_candidates": f.violates[:20], "candidates_violated": len(f.violates),
                "pre_state_mined": f.mined}
        if inf.verdict != "proved":
            r.detail += f"; no lemmas inferred ({inf.reason})"
        elif f is not None:
            if f.mined is None:  # stored lemmas: no mined table to look the state up in
                where = "a state pair (lemmas from the cache: no mined states to compare it with)"
            else:
                where = (f"{'a mined (reachable) state' if f.mined else 'not a mined state'} violating "
                         f"{len(f.violates)} mined candidates")
            r.detail += (f"; not inductive with the {len(inf.lemmas)} inferred lemmas: induction fails at a "
                         f"step {f.action} from {where}")
        elif r.id not in inf.violated:
            r.detail += f"; not inductive with the {len(inf.lemmas)} inferred lemmas"


def _infer(model, samples, seed: int, cache, clock: Clock, names: list, lemma_rlimit: int,
           declarations: dict | None = None, progress=None) -> Inference:
    """Stored lemmas for this model, re-proved; else a search (whose lemmas are then stored), started
    from the nearest stored entry's lemmas when `declarations` find one (checks/analyses/transfer.py)."""
    key = transition_digest(model) if cache is not None else None
    # The search aims at invariants and step properties: a permission (issue 33) goes to Spacer afterwards,
    # with the search's lemmas as facts; rounds spent on one Spacer cannot prove never ended a transfer.
    aim = _aim(model, names)
    # The user's entry, then the shipped one, each verified from scratch: one that fails is refused with a warning
    # and never hides the next (issue 40), nor does one that leaves some of `names` unproved (the one proving most
    # is used).
    best = None
    for origin, lemmas, invariants, stored_certificates in (cache.candidates(key) if key is not None else []):
        inf = recheck(model, lemmas, invariants, seed=seed, timeout=clock.rest())
        if inf is None:
            if clock.out():
                break  # the budget ran out: that says nothing about the entry
            cache.refused(key, origin, "its lemmas do not re-prove (not current-state expressions over this "
                                       "model's state, or not inductive with their base case)")
            continue
        left = [n for n in names if n not in inf.proved]
        inf.settled.update(settle_stored(model, inf.facts(), usable(stored_certificates, left),
                                         lambda n, why, o=origin: cache.refused_certificate(o, n, why)))
        if best is None or _covered(inf, names) > _covered(best, names):
            best = inf
        if _covered(best, aim) == len(aim) or clock.out():
            break
    if best is not None:
        cache.save()  # the entries refused above leave the user's file
        return best
    near = _nearest(model, cache, key, declarations)
    settle = Settle(model, seed, lemma_rlimit, clock, near[2] if near is not None else {}, progress)
    try:
        inf = _search(model, samples, seed, clock, aim, settle, near, progress)
    finally:
        settle.cancel()
    # Only a search aimed at every property is stored: a narrower one's blocking rounds found less.
    if cache is not None and inf.verdict == "proved" and set(_aim(model, [p.name for p in model.invariants])) <= set(aim):
        kept = {n: c for n, c in settle.certificates.items() if n in inf.settled and c}
        # A transferred entry was trimmed to its cone already: only lemmas the rounds added need one.
        needed = cone(model, inf.lemmas, [n for n, _ in inf.invariants], kept, seed=seed, timeout=clock.left()) \
            if len(inf.lemmas) > inf.transferred else inf.lemmas
        if not clock.out():  # a cone cut by --timeout is all the lemmas: the next run stores the cone
            cache.put(key, needed, [n for n, _ in inf.invariants], kept, declarations)
            cache.save()
    return inf


def _search(model, samples, seed: int, clock: Clock, aim: list, settle: Settle, near: tuple | None,
            progress) -> Inference:
    """The search: from the nearby entry `near` (`_nearest`) if any; from nothing if there is none or its lemmas
    failed (then nothing of the transfer is kept: its certificates, its Spacer)."""
    inf = None
    if near is not None:
        if progress is not None:
            progress(f"prove: no stored entry for this model; starting from {near[0][:12]} "
                     f"({len(near[1]):,} lemmas, {len(near[3])} properties)")
        inf = infer(model, samples, seed=seed, timeout=clock.left(), wanted=aim, settle=settle, start=near[1],
                    start_names=near[3], more=near[4], progress=progress)
        inf.source = near[0]
    if inf is None or (inf.verdict != "proved" and not inf.cut):  # no entry near, or its lemmas failed
        settle.forget()
        inf = infer(model, samples, seed=seed, timeout=clock.left(), wanted=aim, settle=settle, progress=progress)
    return inf


def _aim(model, names: list) -> list:
    """The names a lemma search aims at: every one but the permissions."""
    kinds = {p.name: p.kind for p in model.invariants}
    return [n for n in names if kinds[n] != "permission"]


def _nearest(model, cache, key, declarations) -> tuple | None:
    """(key, usable lemmas, certificates, names proved, more lemmas) of the stored entry nearest to
    `declarations`, or None; "more": the lemmas of the entries that agree with the proposal where the
    nearest differs (`transfer.donors`), offered only if the nearest's do not re-prove as they stand."""
    if cache is None or not declarations:
        return None
    declared = [(k, d) for k, d in cache.declared() if k != key]
    found = nearest(declared, declarations)
    entry = cache.get(found[1]) if found is not None else None
    if entry is None:
        return None
    lemmas, names, stored = entry
    props = {p.name for p in model.invariants}
    lemmas = usable_lemmas(model.schema, lemmas)
    got = [g for g in map(cache.get, donors(declared, declarations, found[1])) if g is not None]
    seen = {t for t, _ in lemmas}
    more = {t: e for g in got for t, e in usable_lemmas(model.schema, g[0]) if t not in seen}  # one lemma per text
    certificates = {n: c for g in got for n, c in g[2].items() if n in props}
    certificates.update({n: t for n, t in stored.items() if n in props})
    return found[1], lemmas, certificates, tuple(n for n in names if n in props), list(more.items())


def _covered(inf: Inference, names: list) -> int:
    return sum(n in inf.proved or n in inf.settled for n in names)


def inference_stats(inf: Inference) -> dict:
    """The inference's figures for a report's header (JSON) and the benchmark."""
    return {"inference": {"verdict": inf.verdict, "reason": inf.reason, "states_mined": inf.states,
                          "candidates": inf.candidates, "presence_candidates": inf.presence,
                          "guard_candidates": inf.guards, "lemmas": len(inf.lemmas), "stored": inf.cached,
                          "transferred_from": inf.source or None, "transferred": inf.transferred,
                          "invariants_proved": len(inf.proved), "houdini_runs": [list(q) for q in inf.queries],
                          "seconds": {k: round(v, 3) for k, v in inf.seconds.items()}}}


def _by_lemmas(inf: Inference, names: list, props: dict) -> list[CheckResult]:
    """`proved` for each invariant in the inferred inductive conjunction, with the lemmas its step uses."""
    out = []
    share = inf.seconds.get("total", 0.0) / max(1, len(inf.proved))
    for n in names:
        p, used = props[n], inf.proved[n]
        out.append(CheckResult(
            id=n, kind=p.kind, rules=p.rules, states=None, verdict="proved", engine="lemmas", depth=None,
            seconds=share,
            detail=(f"proved for games of any length: inductive together with {len(used)} inferred "
                    f"lemma{'' if len(used) == 1 else 's'} (of {len(inf.lemmas)} proved; "
                    + ("stored for these rules, re-proved by Z3)" if inf.cached else "Houdini, re-checked by Z3)")),
            extra={"lemmas": list(used)}))
    return out


def _unbounded(model, system, name, engine, seed, rlimits: tuple, clock, fallback, common, certificates: dict):
    """Spacer, then (auto) 1-induction with the model's lemmas: a proved or unknown CheckResult, or
    (reason, seconds) when BMC should establish a bound instead. A Spacer proof that assumed inferred
    lemmas leaves its certificate in `certificates`, for the lemma cache."""
    # With inferred lemmas as facts Spacer mostly finds the rest of a strengthening quickly or not at all (measured:
    # docs/lemmas.md), so it gets its own budget (--spacer-rlimit, 20 M) rather than --rlimit; BMC gets the rest.
    rlimit, lemma_rlimit = rlimits
    budget = lemma_rlimit if engine == "auto" and system.facts else rlimit
    r = spacer(model, name, seed=seed, rlimit=budget, system=system, timeout_ms=clock.ms())
    if r.verdict == "proved":
        if system.facts and r.certificate:
            certificates[name] = r.certificate
        return CheckResult(**common, verdict="proved", engine="spacer", depth=None, seconds=r.seconds,
                           detail="proved for games of any length: " + r.reason)
    if clock.out():  # stopped by --timeout, not by its budget: inconclusive, not BMC's `bounded`
        return CheckResult(**common, verdict="unknown", engine=engine, depth=None, seconds=r.seconds,
                           detail=f"--timeout {clock.timeout}s reached during Spacer; nothing is claimed")
    facts = model.lemmas or ()
    if engine == "auto" and facts:
        # The model's stage-consistency lemmas, proved with it (never assumed), rule out the states stopping induction.
        verdict, why, secs = strengthened_induction(system, name, facts, seed=seed, rlimit=rlimit,
                                                    timeout_ms=clock.ms())
        if verdict == "proved":
            return CheckResult(**common, verdict="proved", engine="k-induction", depth=1, seconds=r.seconds + secs,
                               detail="proved for games of any length: " + why)
    if engine == "spacer" and not fallback:
        return CheckResult(**common, verdict="unknown", engine="spacer", depth=None, seconds=r.seconds, detail=r.reason)
    return r.reason, r.seconds


def _k_induction(model, name, depth, seed, rlimit, clock, explored, common):
    """A proved or unknown CheckResult (an induction failure is classified, never a counterexample),
    or None when the base case fails and BMC should give the trace."""
    r = k_induction(model, name, max_k=depth, seed=seed, rlimit=rlimit, timeout=clock.left())
    if r.verdict == "proved":
        return CheckResult(**common, verdict="proved", engine="k-induction", depth=r.k, seconds=r.seconds,
                           detail=f"proved for games of any length ({r.reason})")
    if r.verdict == "violated":
        return None
    detail, extra = r.reason, {}
    if r.cti is not None:
        detail += "; " + classify_cti(r.cti, explored)
        extra = {"induction_failure": {"pre": model.schema.pretty(r.cti.pre), "action": r.cti.action,
                                       "post": model.schema.pretty(r.cti.post)}}
    return CheckResult(**common, verdict="unknown", engine="k-induction", depth=r.k, seconds=r.seconds,
                       detail=detail, extra=extra)


def _bmc(model, names, props, engine, depth, seed, rlimit, clock, notes) -> list[CheckResult]:
    """BMC to `depth` for the invariants no unbounded engine proved: violated (replayed trace),
    bounded, or unknown."""
    # The rlimit is a per-query budget for the proof engines; under auto, BMC is bounded by depth.
    bmc = get_bmc(model, names, depth, seed=seed, rlimit=(rlimit or None) if engine == "bmc" else None,
                  timeout=clock.rest())
    out = []
    for name in names:
        b, p = bmc[name], props[name]
        why, spent = notes.get(name, ("", 0.0))
        common = dict(id=name, kind=p.kind, engine="bmc", rules=p.rules, states=None, depth=b.depth,
                      seconds=b.seconds + spent)
        if b.verdict == "violated":
            out.append(CheckResult(**common, verdict="violated", trace=b.trace,
                                   detail=f"violated after {b.depth} steps (Z3 trace, replayed)"))
        elif b.verdict == "bounded":
            lead = f"no unbounded proof ({why}); " if why else ""
            out.append(CheckResult(**common, verdict="bounded",
                                   detail=f"{lead}no violation in any game's first {b.depth} steps"))
        else:
            out.append(CheckResult(**common, verdict="unknown", detail=b.reason))
    return out
