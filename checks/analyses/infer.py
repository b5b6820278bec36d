"""Lemma inference: candidates mined from reachable states of small configurations, proved by Houdini.

The search is the chain of rounds `CHAIN`, in order, each with its budget (docs/lemmas.md, "How"): a transfer's
fast path (checks/analyses/transfer.py), mining (checks/analyses/mining.py: reachable states of `samples`, bounded
models of the same rules and slots, and the candidates true on all of them), a first Houdini run, the presence
round, `settle` (Spacer), a transfer's mined candidates, the guard and the blocking rounds; then the whole
conjunction is re-checked through the monolithic encoding of the other proofs, with each invariant's unsat core.
Nothing is assumed. An invariant left unproved keeps its last induction failure: the state pair, the mined
candidates its pre-state violates, and whether that pre-state was mined.

>>> from tests.conftest import counter_model
>>> inf = infer(counter_model(limit=3), [counter_model(limit=3)])
>>> inf.verdict, sorted(inf.proved), [n for n, _ in inf.lemmas]
('proved', ['bounded'], ['x <= 3'])

A broken model's invariant is false on a mined state: never proved (BMC gives the trace).

>>> infer(counter_model(limit=3, broken=True), [counter_model(limit=3, broken=True)]).violated
['bounded']
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

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
# Budgets are Z3 resource units and counts, never seconds (issue 35): the same proposal gives the same lemmas on
# an idle and on a loaded machine. `timeout`, the user's cap, makes a search `cut`: its properties inconclusive,
# never fewer proved. Their cost in seconds and why each was chosen: docs/lemmas.md, "Budgets".
HOUDINI_SPEND = 1_000_000_000  # one Houdini run (first, presence, mined candidates, guards)
PRUNE_SPEND = 250_000_000      # pruning a nearby entry's lemmas through the monolithic encoding (the fast path)
BLOCK_SPEND = 400_000_000      # the blocking rounds together (queries and Houdini runs)


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


@dataclass(frozen=True)
class Round:
    """A round of the lemma chain (`CHAIN`), started only if `--timeout` is not spent: `run(search, spend)` changes the
    search's facts and goals left; True when its Houdini run kept something (`then_spacer`: Spacer again on the goals
    left). `spend`: its resource units (0: none); `on`: the searches it runs in; one that `aims` needs goals left."""

    name: str
    run: Callable[["_Search", int], bool | None]
    spend: int = 0
    on: tuple = ("cold", "transfer")  # cold: a search from nothing; transfer: from a nearby entry's lemmas
    then_spacer: bool = False
    aims: bool = True


@dataclass
class _Search:
    """What the rounds of one search share: its inputs, and the facts and goals each round leaves to the next."""

    out: Inference
    model: Any
    data: Mining
    seed: int
    rlimit: int
    clock: Clock
    t0: float
    rounds: int             # blocking rounds at most
    wanted: list | None
    settle: Callable | None
    start: list | None      # a transfer's lemmas (None: a search from nothing)
    start_names: tuple
    end: Inference | None = None       # set by a round that ends the search
    carried: LemmaSolver | None = None  # the fast path's solver, its `lemmas` the facts it kept
    miner: Any = None
    X: Any = None
    cands: list = field(default_factory=list)  # the candidates offered: a goal's failure names those it violates
    facts: list = field(default_factory=list)
    left: list = field(default_factory=list)
    pool: dict = field(default_factory=dict)   # the blocking rounds' candidates, by text
    houdini_from: float = 0.0


def _houdini(s: _Search, cands: list, spend: int, facts=()):
    """One Houdini run under `spend` resource units, recorded in `out.queries` (and `out.cut`)."""
    out, tell = s.out, s.out.progress
    if tell is not None:
        tell(f"prove: Houdini run {len(out.queries) + 1}: {len(cands):,} candidates, {len(facts):,} facts")
    h = houdini(s.model, cands, s.seed, s.rlimit, s.clock.rest(), facts=facts, spend=spend, progress=tell)
    out.queries.append((h.rounds, h.ctis, h.rlimit))
    out.cut |= h.cut
    return h


def infer(model, samples: list, seed: int = 0, rlimit: int = 0, timeout: float | None = None,
          max_states: int = MAX_STATES, rounds: int = ROUNDS, wanted: list | None = None, settle=None,
          start: list | None = None, start_names: tuple = (), more: Sequence = (), progress=None) -> Inference:
    """Lemmas of `model` (the unbounded-turn model) mined from `samples` (bounded models of the same rules and
    slots) and proved by Houdini; which of its invariants they prove, and where the others fail. `start`
    ([(text, Expr)]): a nearby model's stored lemmas (checks/analyses/transfer.py), `start_names` the properties it
    proved, `more` the lemmas of other nearby entries: a transfer, the rounds of `CHAIN` it runs. Blocking rounds
    aim at the invariants named in `wanted` (None: all). `settle(facts, goals)` (certify.Settle), if given, is asked
    to prove goals ([(name, Expr)]) another way with the proved `facts` assumed; it returns {name: result} for those
    it proved, which the rounds skip and `Inference.settled` keeps (valid only if the verdict is `proved`)."""
    clock, t0 = Clock(timeout), time.perf_counter()
    out = Inference("unknown", progress=progress)
    if clock.out():  # (a timeout of 0 or less too)
        return _cut(out, t0)
    # After a transfer the mined path may never run: mined beside the fast path on a second core, if any.
    data = Mining(model, samples, max_states, seed, list(start or []) + list(more), clock=clock)
    try:
        return _search(_Search(out, model, data, seed, rlimit, clock, t0, rounds, wanted, settle, start, start_names))
    except TimeoutError:  # mining waited for its states or candidates until --timeout ran out (inconclusive: sound)
        return _cut(out, t0)
    finally:
        data.cancel()


def _search(s: _Search) -> Inference:
    """`infer` after its checks: the rounds of `CHAIN` that run in this search, in order, until one ends it; then
    the re-check of the whole conjunction."""
    kind = "cold" if s.start is None else "transfer"
    for r in CHAIN:
        if s.clock.out():  # --timeout: no round starts once it is spent (mining explored 6 s past a 20 s cap)
            break
        if kind in r.on and (not r.aims or s.left) and r.run(s, r.spend) and r.then_spacer:
            _settled(s)
        if s.end is not None:
            return s.end
    if s.out.cut or s.clock.out():  # (no Houdini time is credited: the first run may not have started)
        return _cut(s.out, s.t0)
    s.out.seconds["houdini"] = time.perf_counter() - s.houdini_from
    t3, c = time.perf_counter(), s.carried  # its `lemmas`: the facts' first ones, re-checked there already
    ls = c if c is not None and c.extend(s.facts[len(c.lemmas):], s.clock.rest()) is None else None
    names = {p.name for p in s.model.invariants} - set(s.out.violated)
    _conclude(s.out, s.model, s.facts, names, s.seed, s.rlimit, s.clock, ls, s.left, s.cands + [*s.pool.values()], s.X)
    s.out.seconds["check"] = time.perf_counter() - t3
    return _cut(s.out, s.t0) if s.clock.out() else _done(s.out, s.t0)


def _mine(s: _Search, spend: int) -> None:
    """Step 1: the mined states (and, on a search from nothing, the candidates true on them); the invariants false
    on a mined state are `violated` and aimed at no more."""
    out, model, t = s.out, s.model, time.perf_counter()
    if s.start is not None:
        out.seconds["fast path"] = t - s.t0  # its re-check and Spacer: not the exploration's
    s.X, used = s.data.states()
    out.states, out.seconds["explore"] = len(s.X), time.perf_counter() - s.t0 - out.seconds.get("fast path", 0.0)
    if not used:
        out.reason, s.end = "no configuration of the same slots to mine from", out
        return
    t1, s.miner = time.perf_counter(), Miner(model.schema, s.X, model.unbounded_slots)
    s.cands = s.data.candidates() if s.start is None else []
    invs = [(p.name, p.predicate) for p in model.invariants]
    true_on_data = compile_table(model.schema, [e for _, e in invs])(s.X).all(axis=1) if len(s.X) else \
        np.ones(len(invs), bool)
    out.violated = [n for (n, _), ok in zip(invs, true_on_data) if not ok]
    s.left = [iv for iv, ok in zip(invs, true_on_data) if ok]  # the first Houdini run's goals: not yet the wanted
    out.candidates, out.seconds["mine"] = len(s.cands), time.perf_counter() - t1


def _first(s: _Search, spend: int) -> None:
    """Step 2: the invariants, the mined candidates (a transfer: its lemmas true on every mined state) and the
    hints, each unless among the facts the fast path kept, to Houdini with those facts assumed."""
    out, s.houdini_from = s.out, time.perf_counter()
    kept = list(s.carried.lemmas) if s.carried is not None else []
    known = {n for n, _ in kept}
    if s.start is not None:  # transferred lemmas false on a mined state are not invariants here: not offered
        offered = [(t, e) for t, e in s.data.lemmas if t not in known]
        true_on = s.data.true_on([t for t, _ in offered])
        s.cands = [Candidate(t, e, frozenset()) for t, e in offered if true_on[t]]
    offer = [iv for iv in s.left if iv[0] not in known] + [(c.text, c.expr) for c in s.cands]
    h = _houdini(s, offer + _new_hints(s.model, offer + kept), spend, kept)
    if h.verdict != "proved":
        out.reason, out.seconds["houdini"] = f"Houdini: {h.reason}", time.perf_counter() - s.houdini_from
        s.end = _done(out, s.t0)
        return
    s.facts = kept + h.survivors
    proved_so_far = {n for n, _ in s.facts} | set(out.settled)  # settled: by the fast path's Spacer
    names = {n for n, _ in s.left}
    s.left = [iv for iv in s.left if iv[0] not in proved_so_far and (s.wanted is None or iv[0] in s.wanted)]
    _say(out, "first Houdini run done", s.left)
    if s.start is not None:
        out.transferred, out.candidates = sum(n not in names for n, _ in s.facts), len(s.cands)


def _mined(s: _Search, spend: int) -> bool:
    """After a transfer: the mined candidates not already known (`data.candidates()`: mined only now, unless
    ahead), to Houdini with the goals left."""
    known, mined = {n for n, _ in s.facts}, s.data.candidates()
    s.cands, s.out.candidates = s.cands + mined, len(s.cands) + len(mined)
    offer = [(c.text, c.expr) for c in mined if c.text not in known]
    return bool(offer) and _offer(s, offer, spend)


def _blocking_rounds(s: _Search, units: int) -> None:
    """Step 5: up to `s.rounds` blocking rounds within `units` Z3 resource units together (what is left of them
    goes on from round to round); every candidate they offered goes to `s.pool` (by text)."""
    out, goals, known = s.out, list(s.left), {n for n, _ in s.facts}
    for n in range(1, s.rounds + 1):
        if not s.left or units <= 0 or s.clock.out():
            break
        _say(out, f"blocking round {n} ({units:,} resource units left)", s.left)
        new, used = _block(s, goals, known, units)
        units -= used
        if not new or units <= 0 or s.clock.out():  # a Houdini run's spend of 0 would mean no limit
            break
        out.candidates += len(new)
        s.pool.update({c.text: c for c in new})
        # Every candidate found so far is offered again: one dropped in an earlier round may be
        # inductive together with what a later round found (Houdini's drops are relative to its set).
        offer = [(c.text, c.expr) for t, c in s.pool.items() if t not in known]
        h = _houdini(s, s.left + offer, units, s.facts)
        units -= h.rlimit
        if h.verdict != "proved":
            out.reason = f"Houdini (blocking round {n}): {h.reason}"
            break
        kept = {n for n, _ in h.survivors}
        s.facts, known = s.facts + h.survivors, known | kept
        s.left = [iv for iv in s.left if iv[0] not in kept]
        # A candidate Houdini dropped was still true on every mined state: its own induction failure
        # is the next round's goal too (IC3's recursive blocking, one level per round).
        goals = s.left + [(c.text, c.expr) for c in new if c.text not in kept][:GOALS]


def _cut(out: Inference, t0: float) -> Inference:
    """--timeout stopped the search: nothing of it counts (cut elsewhere, it proves other things); all inconclusive."""
    out.verdict, out.cut, out.reason = "unknown", True, "--timeout reached during lemma inference"
    out.lemmas, out.invariants, out.proved, out.settled, out.failures = [], [], {}, {}, {}
    return _done(out, t0)


def _fast_path(s: _Search, spend: int) -> None:
    """A transfer's nearby entry's lemmas and properties and the model's hints, re-proved through the monolithic
    encoding with what fails here dropped (`LemmaSolver.prune`, within `spend`), then `settle` (its certificates,
    Spacer) for the other properties. The search ends here when that proves every property wanted; else
    `s.carried` (None if the pruning did not end) re-checked the facts kept, and `out.settled` holds what Spacer
    proved with them assumed."""
    model, out = s.model, s.out
    props = {p.name: p.predicate for p in model.invariants}
    facts = with_properties(model, s.start or [], s.start_names)
    s.data.ahead()  # beside the pruning too: the mined path waited 5 to 8 s for it otherwise (docs/lemmas.md)
    ls, why = verified_lemmas(model, facts + _new_hints(model, facts), s.seed, s.rlimit, s.clock.rest(), prune=spend)
    if why is not None or s.clock.out():
        return
    s.carried = ls
    names = {n for n, _ in ls.lemmas if n in props and n in s.start_names}
    facts = list(ls.lemmas)
    left = [(n, e) for n, e in props.items() if n not in names and (s.wanted is None or n in s.wanted)]
    # Spacer stops at its first failure: the mined path runs then anyway, and its `settle` round has more facts.
    out.settled = s.settle(facts, left, True) if s.settle is not None and left else {}
    if any(n not in out.settled for n, _ in left):
        return
    _conclude(out, model, facts, names, s.seed, s.rlimit, s.clock, ls)
    out.transferred = len(out.lemmas)  # the hints proved with them count as on the mined path: no cone to trim
    s.end = _cut(out, s.t0) if s.clock.out() else _done(out, s.t0)


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


def _settled(s: _Search, spend: int = 0) -> None:
    """`settle` (certificates, Spacer; the facts so far assumed) on the goals left, if any and time: what it proves
    joins `out.settled`. Before the blocking rounds, which were measured to find nothing it does not (lemmas.md)."""
    if s.settle is not None and s.left and not s.clock.out():
        s.out.settled.update(s.settle(s.facts, s.left))
        s.left = [iv for iv in s.left if iv[0] not in s.out.settled]


def _offer(s: _Search, offer: list, spend: int) -> bool:
    """Candidates `offer` ([(text, Expr)]) with the goals left to Houdini, the facts so far assumed: its survivors
    become facts and the goals among them are proved. True when it kept something."""
    # The hints again (NOTE(hints)): one an earlier run dropped may be inductive with the facts found since.
    offer = offer + _new_hints(s.model, s.left + offer + s.facts)
    h = _houdini(s, s.left + offer, spend, s.facts)
    if h.verdict != "proved" or not h.survivors:
        return False
    kept = {n for n, _ in h.survivors}
    s.facts, s.left = s.facts + h.survivors, [iv for iv in s.left if iv[0] not in kept]
    return True


def _presence_round(s: _Search, spend: int) -> None:
    """Step 3: two-literal presence candidates (checks/analyses/presence.py) aimed at the slots the goals
    left read (a step property's pre- and post-state)."""
    t0, model, sch = time.perf_counter(), s.model, s.model.schema
    props = {p.name: p for p in model.invariants}
    near = frozenset().union(*[slots_read(props[n].step if props[n].step is not None else e, sch) for n, e in s.left])
    cands = presence(s.miner, near, sch.slot(model.dispatch) if model.dispatch else None, {n for n, _ in s.facts})
    s.out.presence = len(cands)
    _round(s, "presence", t0, cands, spend)


def _guard_round(s: _Search, spend: int) -> bool:
    """Step 4: one-guard candidates under every value of every Bool and Enum slot other than the dispatch
    slot (`Miner.guarded_by`); Spacer again with the survivors as facts (they are what it lacked on the Grumman
    profiles: docs/lemmas.md)."""
    _say(s.out, "guard round", s.left)
    t0, known, model = time.perf_counter(), {n for n, _ in s.facts}, s.model
    cands = [c for c in s.miner.guarded_by(s.miner.guards(exclude=model.schema.slot(model.dispatch) if model.dispatch
                                                          else None), s.clock) if c.text not in known]
    s.out.guards = len(cands)
    return _round(s, "guards", t0, cands, spend)


def _round(s: _Search, stage: str, t0: float, cands: list, spend: int) -> bool:
    """A round's candidates `cands` offered with the goals left (`_offer`); `out.seconds[stage]`: since `t0`."""
    s.out.candidates += len(cands)
    kept = bool(cands) and _offer(s, [(c.text, c.expr) for c in cands], spend)
    s.out.seconds[stage] = time.perf_counter() - t0
    return kept


# The chain, in order; each round's measurements: docs/lemmas.md ("How", "Budgets", "What each round proves").
CHAIN = (
    Round("fast path", _fast_path, PRUNE_SPEND, ("transfer",), aims=False),  # and `settle`'s own (Spacer) budget
    Round("mine", _mine, aims=False),                                        # `max_states` per sample model
    Round("first Houdini", _first, HOUDINI_SPEND, aims=False),
    Round("presence", _presence_round, HOUDINI_SPEND, ("cold",)),
    Round("settle", _settled),
    Round("mined candidates", _mined, HOUDINI_SPEND, ("transfer",), then_spacer=True),
    Round("guards", _guard_round, HOUDINI_SPEND, then_spacer=True),
    Round("blocking", _blocking_rounds, BLOCK_SPEND),            # at most `rounds` rounds, `GOALS` goals each
)


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
    out = Inference("unknown", cached=True)
    # The properties the entry does not prove get their induction failure (the state pair) as after
    # a search; no mined table here, so whether the pre-state is reachable is not looked up.
    left = [(p.name, p.predicate) for p in model.invariants if p.name not in invariants]
    _conclude(out, model, facts, set(invariants), seed, rlimit, clock, ls, left)
    out.seconds = {"check": time.perf_counter() - t0, "total": time.perf_counter() - t0}
    return out if out.verdict == "proved" else None


def _block(s: _Search, goals: list, known: set, units: int, tries: int = 4) -> tuple[list, int]:
    """Candidates that block the induction failures of `goals` (invariants left, and candidates an
    earlier round offered and Houdini dropped): one failure's pre-state at a time, generalised
    against the mined states (`templates.generalise`); each next failure is asked with the
    candidates found so far assumed (a guess Houdini then checks), so that the candidates for every
    case (each stronghold, each faction ...) are offered together rather than one case per round. Returns the
    candidates and the resource units the queries spent (at most `units` and one query more)."""
    model, rlimit, clock = s.model, s.rlimit, s.clock
    ls = LemmaSolver(model, s.facts + goals, s.seed, rlimit)
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
            c = generalise(s.miner, cti[0], near)
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
        out.proved[n] = [facts[i][0] for i in sorted(core, key=lambda i: facts[i][0] in names) if facts[i][0] != n]
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
    """The lemmas that proving `invariants` needs: the unsat cores of their steps (and of the steps of Spacer
    `certificates`, {name: SMT-LIB text}), closed under the lemmas' own steps' cores. Each lemma kept is inductive
    relative to those kept, so they and the invariants are an inductive conjunction again (re-proved on every use).
    A search keeps every survivor, most of which no property needs, and each one stored costs every warm run its
    re-check. All of `lemmas` when a core cannot be had (unknown, a timeout, a certificate that fails) or when a
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
