"""Ambiguous orderings: which pairs of pending reactions depend on their order.

The detector explores the model built with the proposal's bounds and the
`printed-rules` orderings (A1, A2 and A5 set to `unordered`, every other
switch as the proposal chose), so that every order the printed rules leave
open is reachable. Pending reactions wait at a hub stage (`HUBS`): the
arrival reactions at `react` (Terror, BG advisor, Ecaz Ambassador) and the
Mentat Pause events at `mentat_open` (placement, Extortion collection and, with the
Assassinate Leaders module, its Traitor replacement draw: A6 is then left open too). At
each reachable hub state where two or more reactions may resolve, it
resolves each pair (r1, r2) both ways and explores each branch, with every
player choice, until the pair is settled: the stage is back at the hub with
neither reaction pending. Only the two reactions' scheduler
steps are taken inside a branch, and engine faults (reload, retry) are left
out. The two sets of settled outcomes (non-ghost slots) are compared.

Classes, strongest first (a pair's class is the strongest seen in any state):

- `cascades`: the orders differ and, in at least one order, resolving the
  pair created a further pending reaction (e.g. a Sneak Attack adds a BG
  advisor accompaniment, A14);
- `disables`: the orders differ in whether a reaction lapses or cannot take
  effect (`lapse_terror`, an advisor that can no longer accompany, an
  Ambassador whose payer has no spice left);
- `diverges`: the settled outcome sets differ;
- `commutes`: same outcome sets and same events.

A reportable class (not `commutes`) is `violated` unless the proposal
settles the pair, that is its choice for the settling switch is not
`unordered`.

The game declares its hubs, pending counts, disabling events and settling switches as
`model.reactions` (for Moritani: `model/moritani/reactions.py`); this module knows no game.

>>> from model.moritani import GAME
>>> p = GAME.small(GAME.profiles["default"])
>>> sorted((r.id, r.cls) for r in analyse(GAME.open_orders(p), p.interpretation, prove=False))[:1]
[('bg-advisor~ecaz-ambassador', 'commutes')]
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.results import CheckResult, error_result, isolated, validated
from model.compile import CompiledModel

CLASSES = ("commutes", "diverges", "disables", "cascades")  # weakest to strongest


@dataclass
class Branch:
    """Everything one order of a pair can lead to."""

    outcomes: dict = field(default_factory=dict)  # projected outcome -> (start action, path labels)
    events: dict = field(default_factory=dict)    # ('disable'|'cascade', what) -> path labels


@dataclass
class PairFinding:
    pair: str
    cls: str = "commutes"
    states: int = 0
    classes: dict = field(default_factory=dict)   # class -> count of states
    witness_state: int | None = None
    witness_depth: int = 10**9
    orders: dict = field(default_factory=dict)    # reaction name first -> action labels
    slots: tuple = ()


class Analyser:
    """Pairwise order analysis over one explored model whose reaction orders are left open.

    The game declares its hubs, pending counts and disabling events (`model.reactions`)."""

    def __init__(self, model, config: CheckConfig | None = None):
        self.model = model
        self.rx = model.reactions
        self.config = config or CheckConfig()
        self.cut: str | None = None  # why the pair analysis stopped early, if it did
        self.cm = CompiledModel.build(model)
        self.stage = model.schema.slot(model.dispatch)
        self.game_slots = tuple(i for i, f in enumerate(model.schema.slot_fields) if not f.ghost)
        acts = model.actions
        self.rule = [a.rule.name for a in acts]
        self.fault = [a.rule.kind == "fault" for a in acts]
        self.reaction = [self.rx.scheduler.get(a.rule.name) if a.rule.kind == "scheduler" else None for a in acts]

    def project(self, s) -> tuple:
        return tuple(s[i] for i in self.game_slots)

    def resolvable(self, s) -> dict:
        """reaction -> [(action index, successor)] for scheduler steps enabled in s."""
        out: dict = {}
        if s[self.stage] not in self.rx.hubs:
            return out
        for a, t in self.cm.successors(s):
            r = self.reaction[a]
            if r is not None:
                out.setdefault(r, []).append((a, t))
        return out

    def branch(self, starts, pair) -> Branch:
        """Explore from the successors `starts` until both reactions in `pair` are settled."""
        rx = self.rx
        b = Branch()
        seen = {}
        q: deque = deque()
        hub = rx.hub_of[pair[0]]
        group = rx.group(hub, pair)
        for a, t in starts:
            if self.rule[a] in rx.lapses:
                b.events.setdefault(("disable", rx.lapses[self.rule[a]]), [self.model.actions[a].label])
            if t not in seen:
                seen[t] = (None, a)
                q.append(t)
        while q:
            s = q.popleft()
            if rx.settled(s, hub, pair):
                o = self.project(s)
                if o not in b.outcomes:
                    b.outcomes[o] = self._path(seen, s)
                continue
            succ = [(a, t) for a, t in self.cm.successors(s) if not self.fault[a]
                    and (self.reaction[a] is None or self.reaction[a] in pair)]
            for what in rx.disabled(s, {self.rule[a] for a, _ in succ}):
                self._event(b, ("disable", what), seen, s)
            for a, t in succ:
                if self.rule[a] in rx.lapses:
                    self._event(b, ("disable", rx.lapses[self.rule[a]]), seen, s, a)
                for r in group:
                    if rx.pending(t, r) > rx.pending(s, r):
                        self._event(b, ("cascade", f"{rx.names[r]} pending again"), seen, s, a)
                if t not in seen:
                    seen[t] = (s, a)
                    q.append(t)
        return b

    def _event(self, b, ev, seen, s, a=None):
        if ev not in b.events:
            b.events[ev] = self._path(seen, s) + ([self.model.actions[a].label] if a is not None else [])

    def _path(self, seen, s) -> list:
        labels = []
        while s is not None:
            prev, a = seen[s]
            labels.append(self.model.actions[a].label)
            s = prev
        return labels[::-1]

    def compare(self, s, r1, r2, res) -> tuple:
        """(class, {first reaction: labels}, differing slot names) for the pair at state s."""
        b1, b2 = self.branch(res[r1], (r1, r2)), self.branch(res[r2], (r1, r2))
        o1, o2 = set(b1.outcomes), set(b2.outcomes)
        e1, e2 = set(b1.events), set(b2.events)
        if o1 == o2 and e1 == e2:
            return "commutes", {}, ()
        if any(k == "cascade" for k, _ in e1 | e2):
            cls = "cascades"
        elif {e for e in e1 if e[0] == "disable"} != {e for e in e2 if e[0] == "disable"}:
            cls = "disables"
        else:
            cls = "diverges"
        names = [self.model.schema.slot_names[i] for i in self.game_slots]
        only1, only2 = o1 - o2, o2 - o1
        diff: set = set()
        for mine, other in ((only1, o2), (only2, o1)):
            for x in mine:  # the slots that separate x from the nearest outcome of the other order
                near = min(other, key=lambda y: sum(a != b for a, b in zip(x, y)), default=None)
                diff |= {j for j, (a, b) in enumerate(zip(x, near or x)) if a != b}
        diff_names = [names[j] for j in sorted(diff)]
        if cls != "diverges" or not (only1 or only2):
            # Witness the event that tells the orders apart: a cascade, else a differing disable.
            pick = [e for e in e1 ^ e2 if e[0] == "cascade"] or sorted(e1 ^ e2) or \
                [e for e in e1 | e2 if e[0] == "cascade"]
            if pick:
                ev = pick[0]
                w1: list = b1.events.get(ev) or min(b1.outcomes.values(), key=len, default=[])
                w2: list = b2.events.get(ev) or min(b2.outcomes.values(), key=len, default=[])
                return cls, {r1: [f"[{ev[1]}]"] + w1, r2: [f"[{ev[1]}]" if ev in b2.events else "[no such event]"] + w2}, tuple(diff_names)
        # The shortest path to an outcome only this order reaches; among equally short ones the first by its
        # labels, so the witness does not hang on the iteration order of a set of state tuples.
        w1 = min((b1.outcomes[o] for o in only1), key=lambda w: (len(w), w)) if only1 \
            else next(iter(b1.outcomes.values()), [])
        w2 = min((b2.outcomes[o] for o in only2), key=lambda w: (len(w), w)) if only2 \
            else next(iter(b2.outcomes.values()), [])
        return cls, {r1: w1, r2: w2}, tuple(diff_names)

    def run(self, ex) -> dict:
        """pair id -> PairFinding over every multi-choice react state of the exploration `ex`. The
        config's clock (--timeout) bounds it too: `cut` then says where it stopped."""
        found: dict = {}
        t0 = time.perf_counter()
        for idx, s in enumerate(ex.states):
            if idx % 256 == 0 and self.config.out_of_time(t0):
                self.cut = f"timeout {self.config.timeout}s reached after {idx:,} of {len(ex.states):,} states"
                break
            res = self.resolvable(s)
            if len(res) < 2:
                continue
            rs = sorted(res, key=self.rx.order.index)
            for i in range(len(rs)):
                for r2 in rs[i + 1:]:
                    r1 = rs[i]
                    cls, orders, slots = self.compare(s, r1, r2, res)
                    pid = self.rx.pair_id(r1, r2)
                    f = found.setdefault(pid, PairFinding(pid))
                    f.states += 1
                    f.classes[cls] = f.classes.get(cls, 0) + 1
                    stronger = CLASSES.index(cls) > CLASSES.index(f.cls)
                    if stronger or (cls == f.cls and ex.depth[idx] < f.witness_depth):
                        f.cls, f.witness_state, f.witness_depth = cls, idx, ex.depth[idx]
                        f.orders, f.slots = orders, slots
        return found


def analyse(model, interpretation, config: CheckConfig | None = None, prove: bool = True) -> list[CheckResult]:
    """One CheckResult per reaction pair found; `violated` if reportable and not settled.

    `model` is built with every reaction order left open (the game's printed-rules reading);
    `interpretation` is the proposal's own (its `choice(switch)` says whether it settles a pair).
    With `prove`, every pair the explicit search found commuting is also handed to Z3
    (checks/analyses/commute_z3.py), which tries to prove it commutes on every state of its class.
    """
    config = config or CheckConfig()
    t0 = time.perf_counter()
    rx = model.reactions
    ex = Explorer(model, config).run()
    analyser = Analyser(model, config)
    found = analyser.run(ex)
    cut = None if ex.complete and analyser.cut is None else (ex.stop_reason or analyser.cut)
    out = []
    for pid in sorted(found, key=lambda p: [rx.order.index(r) for r in rx.pair_of(p)]):
        # One pair's failure inside the tool (its trace, its Z3 proof) is that pair's `error` (issue 39).
        out.append(isolated(lambda pid=pid: _pair_result(model, interpretation, config, ex, found[pid], pid, cut,
                                                         prove, t0),
                            lambda e, pid=pid: error_result(e, id=pid, kind="ambiguity", engine="explicit",
                                                            rules=rx.settles(*rx.pair_of(pid))[1],
                                                            what=f"the order analysis of {pid}", **{
                                                                "class": None, "settled_by": None,
                                                                "switch": rx.settles(*rx.pair_of(pid))[0]})))
    if cut:
        # A cut search may have missed pairs altogether: say so, never let an empty list read as "holds".
        out.append(CheckResult(
            id="ambiguity-search", kind="ambiguity", verdict="unknown", engine="explicit", rules=(),
            states=len(ex.states), depth=None, seconds=time.perf_counter() - t0,
            detail=f"the search stopped ({cut}); pairs pending only beyond it were not examined",
            extra={"class": None, "switch": None, "settled_by": None}))
    return out


def _pair_result(model, interpretation, config: CheckConfig, ex, f, pid: str, cut, prove: bool,
                 t0: float) -> CheckResult:
    """The verdict of one reaction pair the search found pending together."""
    rx = model.reactions
    key, ids = rx.settles(*rx.pair_of(pid))
    choice = interpretation.choice(key)
    settled = choice != "unordered"
    verdict = "violated" if f.cls != "commutes" and not settled else "holds"
    if cut:
        verdict = "unknown"
    trace = validated(model, ex.trace_to(f.witness_state), pid) if f.witness_state is not None else None
    z3_note = _commute_proof(model, rx.pair_of(pid), config) if prove and f.cls == "commutes" else {}
    orders = {f"{rx.names[r]} first": labels for r, labels in f.orders.items()}
    per = ", ".join(f"{c} {f.classes[c]}" for c in reversed(CLASSES) if c in f.classes)
    detail = (f"{f.cls} (pending together in {f.states} states: {per}); "
              + (f"differs in {', '.join(f.slots[:6])}; " if f.slots else "")
              + (f"settled by {key}={choice}" if settled else f"not settled ({key} unordered)")
              + (f"; Z3: commutes {z3_note['reason']}" if z3_note.get("verdict") == "proved" else
                 f"; Z3: {z3_note['verdict']} ({z3_note['reason']})" if z3_note else ""))
    return CheckResult(
        id=pid, kind="ambiguity", verdict=verdict, engine="explicit", rules=ids, states=len(ex.states),
        depth=trace.depth if trace else None, seconds=time.perf_counter() - t0, detail=detail, trace=trace,
        extra={"class": f.cls, "switch": key, "settled_by": choice if settled else None, "pending_states": f.states,
               "classes": dict(f.classes), "orders": orders, "slots": list(f.slots)}
        | ({"z3": z3_note} if z3_note else {}))


def _commute_proof(model, pair: tuple, config: CheckConfig) -> dict:
    from checks.analyses.commute_z3 import prove_commutes
    if config.out_of_time():
        return {"verdict": "unknown", "reason": f"not attempted: --timeout {config.timeout}s reached",
                "macro_steps": {}, "seconds": 0.0}
    r1, r2 = pair
    p = prove_commutes(model, r1, r2, timeout=config.left())
    return {"verdict": p.verdict, "reason": p.reason, "macro_steps": p.lengths, "seconds": round(p.seconds, 2)}
