"""Lemma inference: candidates mined from reachable states of small configurations, proved by Houdini.

The chain, step by step with its measurements, is docs/lemmas.md ("How"); in short:

1. **Mine** (checks/analyses/mining.py): the reachable states of bounded models of the same rules and
   slots (`samples`), and the templates' candidates true on all of them (checks/analyses/templates.py).
2. **Houdini** (checks/engines/houdini.py) on the unbounded-turn model: the candidates with the
   model's invariants, each dropped when a counterexample to induction breaks it. The survivors'
   conjunction is inductive with its base case: each survivor is proved, nothing assumed.
3. **Presence round** (checks/analyses/presence.py): lower bounds on derived counters under two
   literals, aimed at the slots the unproved invariants read; then Spacer (`settle`, given by
   checks/analyses/prove.py) with the survivors as facts.
4. **Guard round**: the one-guard templates under every value of every Bool and Enum slot
   (`Miner.guarded_by`); then Spacer again.
5. **Blocking rounds**: an unproved invariant's induction failure, its pre-state generalised to a
   cube no mined state matches (`templates.generalise`), the cube's negation offered to Houdini; a
   candidate Houdini drops is the next round's goal (IC3's recursive blocking). Up to `ROUNDS`.
6. **Re-check and cores**: the whole conjunction through the monolithic encoding the other proofs
   use, and each proved invariant's unsat core (the lemmas its step needs).

A transfer (`start`: a nearby entry's lemmas, checks/analyses/transfer.py) re-proves those first
and mines only for what they leave. An invariant left unproved keeps its last induction failure:
the state pair, the mined candidates its pre-state violates, and whether that pre-state was mined.

>>> from tests.conftest import counter_model
>>> inf = infer(counter_model(limit=3), [counter_model(limit=3)])
>>> inf.verdict, sorted(inf.proved), [n for n, _ in inf.lemmas]
('proved', ['bounded'], ['x <= 3'])

A broken model's invariant is false on a mined state: never proved (BMC gives the trace).

>>> infer(counter_model(limit=3, broken=True), [counter_model(limit=3, broken=True)]).violated
['bounded']
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import time
from dataclasses import dataclass, field

import numpy as np

from checks.analyses.certify import settle_stored
from checks.analyses.presence import presence
from checks.analyses.mining import MAX_STATES, Mining, state_table
from checks.analyses.templates import Candidate, Miner, generalise
from checks.clock import Clock
from checks.engines.certificates import BadCertificate, state_formula, verified_lemmas
from checks.engines.columns import compile_table
from model.lower import action_slots, slots_read
from checks.engines.houdini import LemmaSolver, houdini, spent

ROUNDS = 6             # blocking rounds for invariants left unproved
GOALS = 32             # at most this many dropped candidates become the next round's goals
# Budgets are Z3 resource units (rlimit) and counts, never seconds (issue 35): the same proposal gives
# the same lemmas on an idle and on a loaded machine. `timeout` is only the user's overall cap: a
# search it stops is `cut`, and `prove` reports the properties left as inconclusive, never fewer proved.
# What a unit costs in seconds, as measured: docs/lemmas.md, "Budgets".
HOUDINI_SPEND = 1_000_000_000  # resource units of one Houdini run (first, transferred, presence, guard)
# Resource units for pruning a nearby entry's lemmas through the monolithic encoding (a transfer's fast
# path): 16 of the 20 random proposals of seeds 0 and 1 needed 1 to 11 queries, the last of 12 to 23 M units.
PRUNE_SPEND = 250_000_000
BLOCK_SPEND = 400_000_000      # resource units of all blocking rounds together (queries and Houdini)


@dataclass
class Failure:
    """Where an unproved invariant's induction fails relative to the proved lemmas."""

    pre: tuple
    action: str
    post: tuple
    violates: list           # texts of mined candidates (true on every mined state) the pre-state violates
    mined: bool | None       # the pre-state is one of the mined (reachable) states


@dataclass
class Inference:
    verdict: str                                  # proved (lemmas is an inductive conjunction) | unknown
    lemmas: list = field(default_factory=list)    # [(text, Expr)] proved lemmas, invariants excluded
    proved: dict = field(default_factory=dict)    # invariant -> texts of the lemmas its step uses
    failures: dict = field(default_factory=dict)  # invariant -> Failure (unproved, true on every mined state)
    violated: list = field(default_factory=list)  # invariants false on some mined state (BMC shows the trace)
    candidates: int = 0
    states: int = 0
    rounds: int = 0
    seconds: dict = field(default_factory=dict)   # fast path (a transfer), explore, mine, houdini, check, total
    queries: list = field(default_factory=list)   # per Houdini run: (queries, counterexamples, resource units)
    reason: str = ""

    def facts(self) -> list:
        """The proved lemmas and proved invariants: one inductive conjunction, as [(name, Expr)]."""
        return self.lemmas + self.invariants

    invariants: list = field(default_factory=list)  # [(name, Expr)] proved invariants
    presence: int = 0     # candidates of the presence round (0: it did not run)
    guards: int = 0       # candidates of the guard round (0: it did not run)
    settled: dict = field(default_factory=dict)  # goal -> result of `settle` (see infer)
    cached: bool = False  # the lemmas came from the lemma cache (re-proved, not searched for)
    transferred: int = 0  # lemmas kept of a nearby model's entry (checks/analyses/transfer.py)
    source: str = ""      # that entry's key
    progress: Callable[[str], None] | None = field(default=None, repr=False, compare=False)  # callable(str): progress lines, or None
    cut: bool = False     # the user's --timeout stopped it: nothing is proved, the properties are inconclusive


def _say(out: "Inference", stage: str, left: list) -> None:
    """A progress line (`prove` on a terminal): the stage, the properties proved so far and left (3 or fewer: named)."""
    if out.progress is not None:
        few = f" ({', '.join(n for n, _ in left)})" if 0 < len(left) <= 3 else ""
        out.progress(f"prove: {stage}; {len(out.settled)} proved by Spacer so far; properties left: {len(left)}{few}")


def _houdini(out: "Inference", model, cands: list, seed: int, rlimit: int, clock, spend: int, facts=()):
    """One Houdini run under `spend` resource units, recorded in `out.queries` (and `out.cut`)."""
    tell = out.progress
    if tell is not None:
        tell(f"prove: Houdini run {len(out.queries) + 1}: {len(cands):,} candidates, {len(facts):,} facts")
    h = houdini(model, cands, seed, rlimit, clock.rest(), facts=facts, spend=spend, progress=tell)
    out.queries.append((h.rounds, h.ctis, h.rlimit))
    out.cut |= h.cut
    return h


def infer(model, samples: list, seed: int = 0, rlimit: int = 0, timeout: float | None = None,
          max_states: int = MAX_STATES, rounds: int = ROUNDS, block_spend: int = BLOCK_SPEND,
          wanted: list | None = None, settle=None, start: list | None = None, start_names: tuple = (),
          more: Sequence = (), progress=None) -> Inference:
    """Lemmas of `model` (the unbounded-turn model) mined from `samples` (bounded models of the same
    rules and slots) and proved by Houdini; which of its invariants they prove, and where the others fail.
    `start` ([(text, Expr)]): lemmas transferred from a nearby model's stored entry
    (checks/analyses/transfer.py), and `start_names` the properties it proved, go first (`_transferred`);
    the mined candidates go only after what they leave, and the presence round is skipped. `more`:
    lemmas of other nearby entries, offered if something is left.
    Blocking rounds aim at the invariants named in `wanted` (None: all). `settle(facts, goals)`, if
    given, is asked before the blocking rounds to prove goals ([(name, Expr)]) another way with the
    proved `facts` assumed; it returns {name: result} for those it proved, which the rounds skip and
    `Inference.settled` keeps (valid only if the verdict is `proved`: the facts' re-check)."""
    clock, t0 = Clock(timeout), time.perf_counter()
    out = Inference("unknown", progress=progress)
    if clock.out() or (timeout is not None and timeout <= 0):
        return _cut(out, t0)
    # After a transfer the mined path may never run: with a second core its states and candidates are mined
    # beside the fast path's Spacer (checks/analyses/mining.py), inline only when asked for.
    data = Mining(model, samples, max_states, seed, list(start or []) + list(more))
    try:
        return _search(out, model, data, seed, rlimit, clock, t0, rounds, block_spend, wanted, settle, start,
                       start_names)
    finally:
        data.cancel()


def _search(out: Inference, model, data: Mining, seed: int, rlimit: int, clock, t0: float, rounds: int,
            block_spend: int, wanted, settle, start, start_names) -> Inference:
    """`infer` after its checks: the transfer's fast path, if any, then the mined path."""
    sch = model.schema
    carried = None  # after a transfer: the solver that re-proved the nearby entry's lemmas it kept (its `lemmas`)
    if start is not None:
        done, carried = _transferred(out, model, data, start, start_names, wanted, seed, rlimit, clock, settle)
        if done:
            return _cut(out, t0) if clock.out() else _done(out, t0)
        out.seconds["fast path"] = time.perf_counter() - t0  # its re-check and Spacer: not the exploration's
    X, used = data.states()
    out.states, out.seconds["explore"] = len(X), time.perf_counter() - t0 - out.seconds.get("fast path", 0.0)
    if not used:
        out.reason = "no configuration of the same slots to mine from"
        return out
    t1, miner = time.perf_counter(), Miner(sch, X, model.unbounded_slots)
    cands = data.candidates() if start is None else []
    invs = [(p.name, p.predicate) for p in model.invariants]
    true_on_data = compile_table(sch, [e for _, e in invs])(X).all(axis=1) if len(X) else np.ones(len(invs), bool)
    out.violated = [n for (n, _), ok in zip(invs, true_on_data) if not ok]
    invs = [iv for iv, ok in zip(invs, true_on_data) if ok]
    out.candidates, out.seconds["mine"] = len(cands), time.perf_counter() - t1
    t2 = time.perf_counter()
    kept = list(carried.lemmas) if carried is not None else []
    known = {n for n, _ in kept}
    first = cands
    if start is not None:  # transferred lemmas false on a mined state are not invariants here: not offered
        offered = [(t, e) for t, e in data.lemmas if t not in known]
        true_on = data.true_on([t for t, _ in offered])
        first = [Candidate(t, e, frozenset()) for t, e in offered if true_on[t]]
    # The invariants, `first` (mined or transferred) and the hints, each unless among the facts kept.
    offer = [iv for iv in invs if iv[0] not in known] + [(c.text, c.expr) for c in first]
    h = _houdini(out, model, offer + _new_hints(model, offer + kept), seed, rlimit, clock, HOUDINI_SPEND, kept)
    if h.verdict != "proved":
        out.reason = f"Houdini: {h.reason}"
        out.seconds["houdini"] = time.perf_counter() - t2
        return _done(out, t0)
    names = {n for n, _ in invs}
    facts = kept + h.survivors
    proved_so_far = {n for n, _ in facts} | set(out.settled)  # settled: by the fast path's Spacer
    left = [iv for iv in invs if iv[0] not in proved_so_far and (wanted is None or iv[0] in wanted)]
    _say(out, "first Houdini run done", left)
    if start is not None:
        out.transferred = sum(n not in names for n, _ in facts)
        facts, left = _after_transfer(out, model, data, facts, left, seed, rlimit, clock, settle)
        cands = first + data.mined_so_far()
        out.candidates = len(cands)
    elif left and not clock.out():
        facts, left = _presence_round(out, model, miner, facts, left, seed, rlimit, clock)
        # A cheaper engine first (Spacer with the facts assumed): blocking rounds are the search's
        # costliest part and were measured to find nothing Spacer does not (docs/lemmas.md).
        left = _settled(out, settle, facts, left, clock)
    if left and not clock.out():
        _say(out, "guard round", left)
        facts, left = _guard_round(out, model, miner, facts, left, seed, rlimit, clock, settle)
    facts, left, pool = _blocking_rounds(out, model, miner, facts, left, seed, rlimit, clock, rounds, block_spend)
    out.seconds["houdini"] = time.perf_counter() - t2
    if out.cut or clock.out():
        return _cut(out, t0)
    t3 = time.perf_counter()
    ls = carried if carried is not None and carried.extend(facts[len(kept):], clock.rest()) is None else None
    _conclude(out, model, facts, names, seed, rlimit, clock, ls, left, cands + list(pool.values()), X)
    out.seconds["check"] = time.perf_counter() - t3
    return _cut(out, t0) if clock.out() else _done(out, t0)


def _blocking_rounds(out: Inference, model, miner: Miner, facts: list, left: list, seed: int, rlimit: int, clock,
                     rounds: int, block_spend: int) -> tuple[list, list, dict]:
    """Step 5: up to `rounds` blocking rounds within `block_spend` resource units together. Returns
    the facts, the goals left and every candidate the rounds offered (by text)."""
    goals, known, pool = list(left), {n for n, _ in facts}, {}
    units = block_spend  # Z3 resource units left to the rounds' queries together (deterministic)
    for out.rounds in range(1, rounds + 1):
        if not left or units <= 0 or clock.out():
            break
        _say(out, f"blocking round {out.rounds} ({units:,} resource units left)", left)
        new, used = _block(model, miner, facts, goals, known, seed, rlimit, clock, units)
        units -= used
        if not new or units <= 0 or clock.out():  # a Houdini run's spend of 0 would mean no limit
            break
        out.candidates += len(new)
        pool.update({c.text: c for c in new})
        # Every candidate found so far is offered again: one dropped in an earlier round may be
        # inductive together with what a later round found (Houdini's drops are relative to its set).
        offer = [(c.text, c.expr) for t, c in pool.items() if t not in known]
        h = _houdini(out, model, left + offer, seed, rlimit, clock, units, facts)
        units -= h.rlimit
        if h.verdict != "proved":
            out.reason = f"Houdini (blocking round {out.rounds}): {h.reason}"
            break
        kept = {n for n, _ in h.survivors}
        facts, known = facts + h.survivors, known | kept
        left = [iv for iv in left if iv[0] not in kept]
        # A candidate Houdini dropped was still true on every mined state: its own induction failure
        # is the next round's goal too (IC3's recursive blocking, one level per round).
        goals = left + [(c.text, c.expr) for c in new if c.text not in kept][:GOALS]
    return facts, left, pool


def _cut(out: Inference, t0: float) -> Inference:
    """The user's --timeout stopped the search: nothing of it counts (a search cut elsewhere would have
    proved something else), and `prove` reports every property it left as inconclusive."""
    out.verdict, out.cut, out.reason = "unknown", True, "--timeout reached during lemma inference"
    out.lemmas, out.invariants, out.proved, out.settled, out.failures = [], [], {}, {}, {}
    return _done(out, t0)


def _transferred(out: Inference, model, data: Mining, start: list, start_names, wanted, seed: int, rlimit: int,
                 clock, settle) -> tuple[bool, LemmaSolver | None]:
    """The fast path of a transfer: the nearby entry's lemmas and properties and the model's hints, re-proved
    through the monolithic encoding with what fails here dropped (`LemmaSolver.prune`), then `settle` (its
    certificates, Spacer) for the other properties. (True, _) when that proves every property wanted (`out`
    is the result); else (False, the solver whose `lemmas` are the facts kept, None if the pruning did not
    end) for the mined path, `out.settled` keeping what Spacer proved with those facts assumed."""
    props = {p.name: p.predicate for p in model.invariants}
    facts = with_properties(model, start, start_names)
    ls, why = verified_lemmas(model, facts + _new_hints(model, facts), seed, rlimit, clock.rest(), prune=PRUNE_SPEND)
    if why is not None or clock.out():
        return False, None
    names = {n for n, _ in ls.lemmas if n in props and n in start_names}
    facts = list(ls.lemmas)
    left = [(n, e) for n, e in props.items() if n not in names and (wanted is None or n in wanted)]
    if left:  # the mined path is likely now: mine beside Spacer, not before (checks/analyses/mining.py)
        data.ahead()
    out.settled = settle(facts, left) if settle is not None and left else {}
    if any(n not in out.settled for n, _ in left):
        return False, ls
    _conclude(out, model, facts, names, seed, rlimit, clock, ls)
    out.transferred = len(out.lemmas)  # the hints proved with them count as on the mined path: no cone to trim
    return True, ls


# NOTE(hints): a game may offer candidate lemmas of its own (`GameModel.hints`: facts its author knows hold
# of every reachable state but that are inductive only with lemmas the search finds, such as the engine's
# visit record against the rules' `visited` monitor, model/moritani/separation.py). They are candidates like
# the mined ones: offered to Houdini with the facts proved so far, kept only where proved, never assumed;
# on a stored entry's re-check too, so that an entry stored before a hint existed gains it. The runs of `_offer`
# (a transfer's mined candidates, the guard round) offer the hints not yet proved again: one may need a lemma only
# the mined candidates bring. The blocking rounds do not (their candidates are aimed at the goals' failures).

def _new_hints(model, known: list) -> list:
    """The model's hints whose names are not among `known` ([(name, Expr)])."""
    names = {n for n, _ in known}
    return [(n, e) for n, e in model.hints if n not in names]


def with_hints(model, facts: list, ls: LemmaSolver, seed: int, rlimit: int, clock) -> list:
    """`facts` (an inductive conjunction, already re-checked by `ls`) and the hints Houdini proves with them
    assumed, added to `ls` and re-checked there (`LemmaSolver.extend`: their step, everything assumed)."""
    offer = _new_hints(model, facts)
    if not offer or clock.out():
        return facts
    h = houdini(model, offer, seed, rlimit, clock.rest(), facts=facts)
    if h.verdict != "proved" or not h.survivors:
        return facts
    why = ls.extend(h.survivors, clock.rest())
    if why is not None and not clock.out():  # Houdini and the monolithic encoding disagree: a tool bug
        raise RuntimeError(f"the hints {[n for n, _ in h.survivors]}, kept by Houdini, do not re-check through the "
                           f"whole transition relation ({why})")
    return facts + h.survivors


def _after_transfer(out: Inference, model, data: Mining, facts: list, left: list, seed: int, rlimit: int, clock,
                    settle) -> tuple[list, list]:
    """After the transferred lemmas' Houdini run: Spacer (`settle`, which also re-checks the nearby
    entry's certificates) on what they leave, then the mined candidates not already known with the
    survivors as facts, then Spacer again (`data.candidates()`: mined only then, unless ahead). Returns
    the facts and the goals left."""
    left = _settled(out, settle, facts, left, clock)
    if not left or clock.out():
        return facts, left
    known = {n for n, _ in facts}
    offer = [(c.text, c.expr) for c in data.candidates() if c.text not in known]
    if not offer:
        return facts, left
    return _offer(out, model, offer, facts, left, seed, rlimit, clock, settle)


def _settled(out: Inference, settle, facts: list, left: list, clock) -> list:
    """`settle` (Spacer, `facts` assumed) on the goals `left`, unless there is none or no time: what it proves
    joins `out.settled`. Returns the goals left."""
    if settle is not None and left and not clock.out():
        out.settled.update(settle(facts, left))
        left = [iv for iv in left if iv[0] not in out.settled]
    return left


def _offer(out: Inference, model, offer: list, facts: list, left: list, seed: int, rlimit: int,
           clock, settle=None) -> tuple[list, list]:
    """Candidates `offer` ([(text, Expr)]) with the goals `left` to Houdini, `facts` assumed: its survivors
    become facts and the goals among them are proved; if it kept something new, `settle` (Spacer) again with
    them as facts. Returns the facts (the very list `facts` when Houdini kept nothing new) and the goals left."""
    # The hints again (NOTE(hints)): one an earlier run dropped may be inductive with the facts found since.
    offer = offer + _new_hints(model, left + offer + facts)
    h = _houdini(out, model, left + offer, seed, rlimit, clock, HOUDINI_SPEND, facts)
    if h.verdict != "proved" or not h.survivors:
        return facts, left
    kept, more = {n for n, _ in h.survivors}, facts + h.survivors
    return more, _settled(out, settle, more, [iv for iv in left if iv[0] not in kept], clock)


def _presence_round(out: Inference, model, miner: Miner, facts: list, left: list, seed: int, rlimit: int,
                    clock) -> tuple[list, list]:
    """Two-literal presence candidates (checks/analyses/presence.py) aimed at the slots the goals
    left read (a step property's pre- and post-state), offered with those goals to Houdini with
    `facts` assumed. Returns the facts and the goals left after it."""
    t0 = time.perf_counter()
    props = {p.name: p for p in model.invariants}
    sch = model.schema
    near = frozenset().union(*[slots_read(props[n].step if props[n].step is not None else e, sch) for n, e in left])
    cands = presence(miner, near, sch.slot(model.dispatch) if model.dispatch else None, {n for n, _ in facts})
    out.presence = len(cands)
    return _round(out, model, "presence", t0, cands, facts, left, seed, rlimit, clock)


def _guard_round(out: Inference, model, miner: Miner, facts: list, left: list, seed: int, rlimit: int,
                 clock, settle) -> tuple[list, list]:
    """One-guard candidates under every value of every Bool and Enum slot other than the dispatch
    slot (`Miner.guarded_by`), offered with the goals left to Houdini with `facts` assumed; then
    `settle` (Spacer) again with the survivors as facts (they are what it lacked on the Grumman
    profiles: docs/lemmas.md). Returns the facts and the goals left."""
    t0 = time.perf_counter()
    known = {n for n, _ in facts}
    cands = [c for c in miner.guarded_by(miner.guards(exclude=model.schema.slot(model.dispatch) if model.dispatch
                                                      else None)) if c.text not in known]
    out.guards = len(cands)
    return _round(out, model, "guards", t0, cands, facts, left, seed, rlimit, clock, settle)


def _round(out: Inference, model, stage: str, t0: float, cands: list, facts: list, left: list, seed: int,
           rlimit: int, clock, settle=None) -> tuple[list, list]:
    """A round's candidates `cands` offered with the goals `left` (`_offer`); `out.seconds[stage]`: since `t0`."""
    out.candidates += len(cands)
    got = _offer(out, model, [(c.text, c.expr) for c in cands], facts, left, seed, rlimit, clock, settle) \
        if cands else (facts, left)
    out.seconds[stage] = time.perf_counter() - t0
    return got


def recheck(model, lemmas: list, invariants: list, seed: int = 0, rlimit: int = 0,
            timeout: float | None = None) -> Inference | None:
    """An Inference from a stored lemma set (checks/engines/lemmacache.py), re-proved from scratch:
    `lemmas` ([(text, Expr)]) and the model's invariants named in `invariants` must together be
    inductive with their base case (the same monolithic re-check as step 5). None when they are
    not (the rules changed, or the entry is wrong): the caller then infers as if nothing was stored."""
    t0 = time.perf_counter()
    # The store is keyed by the transition system (model.digest.transition_digest): a property the entry
    # names may since have been removed (it is left out) or changed (it is re-proved as it is now).
    facts = with_properties(model, lemmas, invariants)
    invariants = [n for n, _ in facts[len(lemmas):]]
    clock = Clock(timeout)
    ls, why = verified_lemmas(model, facts, seed, rlimit, clock.rest())  # as it stands: a hint never rescues it
    if why is not None:
        return None
    facts = with_hints(model, facts, ls, seed, rlimit, clock)
    out = Inference("unknown", reason="stored lemmas")
    # The properties the entry does not prove get their induction failure (the state pair) as after
    # a search; no mined table here, so whether the pre-state is reachable is not looked up.
    left = [(p.name, p.predicate) for p in model.invariants if p.name not in invariants]
    _conclude(out, model, facts, set(invariants), seed, rlimit, clock, ls, left)
    out.seconds = {"check": time.perf_counter() - t0, "total": time.perf_counter() - t0}
    if out.verdict != "proved":
        return None
    out.reason = ""
    out.cached = True
    return out


def _block(model, miner: Miner, facts: list, goals: list, known: set, seed: int, rlimit: int, clock,
           units: int, tries: int = 4) -> tuple[list, int]:
    """Candidates that block the induction failures of `goals` (invariants left, and candidates an
    earlier round offered and Houdini dropped): one failure's pre-state at a time, generalised
    against the mined states (`templates.generalise`); each next failure is asked with the
    candidates found so far assumed (a guess Houdini then checks), so that the candidates for every
    case (each stronghold, each faction ...) are offered together rather than one case per round. Returns the
    candidates and the resource units the queries spent (at most `units` and one query more)."""
    ls = LemmaSolver(model, facts + goals, seed, rlimit)
    found: dict = {}
    used = 0
    for _ in range(tries):
        grew = False
        for name, e in goals:
            if clock.out() or used >= units:
                return list(found.values()), used
            ls.solver.set("rlimit", max(1, min(x for x in (rlimit, units - used) if x)))
            before = spent(ls.solver)
            cti = ls.failure(e, clock.rest())
            used += spent(ls.solver) - before
            if cti is None:
                continue
            near = slots_read(e, model.schema) | action_slots(model.action(cti[1]), model.schema)
            c = generalise(miner, cti[0], near)
            if c is None or c.text in found or c.text in known:
                continue
            found[c.text] = c
            ls.add([(c.text, c.expr)])
            grew = True
        if not grew:
            break
    return list(found.values()), used


def _conclude(out: Inference, model, facts, names, seed, rlimit, clock, ls=None, left=(), cands=(), X=None) -> None:
    """Re-check the conjunction through the monolithic encoding (unless `ls` is that check, done: after a transfer,
    the fast path's solver whose `extend` re-checked only the new lemmas' steps); cores for the proved invariants;
    for each goal in `left`, its failure: the candidates `cands` its pre-state violates, and whether `X` has it."""
    ls, why = (ls, None) if ls is not None else verified_lemmas(model, facts, seed, rlimit, clock.rest())
    if why is not None:
        out.reason = f"the inferred conjunction does not re-check ({why}); no lemma is used"
        return
    out.verdict = "proved"
    out.lemmas = [f for f in facts if f[0] not in names]
    out.invariants = [f for f in facts if f[0] in names]
    for n, e in out.invariants:
        core = ls.used(e, clock.rest()) or []
        out.proved[n] = [facts[i][0] for i in core if facts[i][0] != n and facts[i][0] not in names] + \
            [facts[i][0] for i in core if facts[i][0] in names and facts[i][0] != n]
    if not left:
        return
    ev = compile_table(model.schema, [c.expr for c in cands])
    for n, e in left:
        cti = ls.failure(e, clock.rest())
        if cti is None:
            continue
        pre, act, post = cti
        row = np.array([[int(v) for v in pre]], dtype=np.int64)
        bad = ~ev(row)[:, 0]
        mined = bool((X == row).all(axis=1).any()) if X is not None and len(X) else None
        out.failures[n] = Failure(pre, act, post, [c.text for c, b in zip(cands, bad) if b], mined)


def cone(model, lemmas: list, invariants: list, certificates: dict | None = None, seed: int = 0,
         rlimit: int = 0, timeout: float | None = None) -> list:
    """The lemmas that proving `invariants` needs: the unsat cores of their steps (and of the steps of
    Spacer `certificates`, {name: SMT-LIB text}), closed under the lemmas' own steps' cores. Each
    lemma in the result is inductive relative to the result, so the result with the invariants is an
    inductive conjunction again (re-proved on every use like any stored set). A search keeps every
    survivor, most of which no property needs; stored, they cost every warm run their re-check.
    All of `lemmas` when a core cannot be had (unknown, a timeout, a certificate that fails), or when a
    certificate does not re-check with only the cone (`certify.settle_stored`).

    >>> from model.expr import Var
    >>> from tests.conftest import counter_model
    >>> [n for n, _ in cone(counter_model(limit=3), [("x<=3", Var("x") <= 3), ("x>=0", Var("x") >= 0)], ["bounded"])]
    []
    """
    facts = with_properties(model, lemmas, invariants)
    clock = Clock(timeout)
    ls = LemmaSolver(model, facts, seed, rlimit)
    need = set(range(len(lemmas), len(facts)))
    todo = sorted(need)
    for text in (certificates or {}).values():
        try:
            core = ls.used_by_certificate(state_formula(text, ls.enc.state(0), ls.enc.ctx), clock.rest())
        except BadCertificate:
            core = None
        if core is None:
            return list(lemmas)
        todo += [i for i in core if i not in need]
        need.update(core)
    # One core per frontier (what the last cores added), not per lemma, until a core adds nothing: every step of
    # `need` is then proved from `need`. 2,180 queries -> a few on a 4,664-lemma transfer (docs/lemmas.md).
    while todo:
        if clock.out():
            return list(lemmas)
        core = ls.used_together(todo, clock.rest())
        if core is None:
            return list(lemmas)
        todo = sorted(set(core) - need)
        need.update(todo)
    kept = [f for i, f in enumerate(lemmas) if i in need]
    if len(kept) < len(lemmas) and certificates and \
            len(settle_stored(model, kept + facts[len(lemmas):], certificates)) < len(certificates):
        return list(lemmas)
    return kept


def with_properties(model, lemmas: list, names) -> list:
    """`lemmas` ([(text, Expr)]) and the model's properties named in `names` (those it still has), as facts."""
    props = {p.name: p.predicate for p in model.invariants}
    return list(lemmas) + [(n, props[n]) for n in names if n in props]


def _done(out: Inference, t0: float) -> Inference:
    out.seconds["total"] = time.perf_counter() - t0
    return out


__all__ = ["Candidate", "Failure", "Inference", "infer", "recheck"]
