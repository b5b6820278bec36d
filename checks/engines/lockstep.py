"""Two models run in lockstep on equal action labels: do they behave alike step for step?

Each model is deterministic per action label (labels are unique within a model and an action's
effect is a function of the state), so its labelled transition system has at most one successor per
label, and labelled bisimilarity is trace equivalence. A breadth-first search over pairs decides it:
the pair of initial states is reached by the empty game; a pair (a, b) reached by the label sequence
w is the state w leads to under each model. At every pair both must offer the same labels and show
the same observation (`observe_a`, `observe_b`: for `rulecheck compare`, the end-of-turn outcome, or
nothing between two ends of turn). The first pair where they do not gives the shortest game that
tells the two apart: w followed by a label one model offers and the other refuses, or w itself when
the observations differ.

Nothing here reads a state layout: the two models may have different slots. When no pair differs
and the search is complete the models are `bisimilar`; when in addition the two schemas are equal
and every pair holds one and the same state (compared packed, as the explorer stores states), the
two reachable labelled transition systems are `identical` (the same states, the same labelled
transitions). A budget that runs out first gives `unknown`, never a claim.

>>> from model.domains import IntRange
>>> from model.expr import Var
>>> from model.game import GameModel
>>> from model.rule import Rule
>>> from model.schema import Field, Schema
>>> def counter(top):
...     return GameModel("c", Schema((Field("x", IntRange(0, 3)),)), ((0,),),
...                      (Rule("inc", (), Var("x") < top, {("x", ()): Var("x") + 1}),), (), Var("x").eq(top))
>>> nothing = lambda s: None
>>> lockstep(counter(3), counter(3), nothing, nothing).verdict
'identical'
>>> r = lockstep(counter(3), counter(2), nothing, nothing)
>>> r.verdict, r.labels, r.offered
('differ', ('inc', 'inc'), (('inc',), ()))
"""
from __future__ import annotations

import time
from array import array
from collections import deque
from dataclasses import dataclass

from checks.config import CheckConfig
from model.compile import CompiledModel


@dataclass(frozen=True)
class Lockstep:
    """What the lockstep search decided.

    `verdict`: 'identical', 'bisimilar', 'differ', 'unknown' (`reason` says why) or 'error' (the caller
    caught a failure inside the tool: `reason`). For 'differ',
    `labels` is the shortest distinguishing game; `offered` = (labels only A offers, labels only B
    offers) at its end when the offers differ, else None and `observed` = (A's observation, B's)
    at its end. `same_model`: 'identical' because the two models are one (equal digests; the caller
    decided it without a search: `pairs` and `transitions` are then its exploration's)."""

    verdict: str
    pairs: int
    transitions: int
    seconds: float
    labels: tuple | None = None
    offered: tuple | None = None
    observed: tuple | None = None
    reason: str | None = None
    same_model: bool = False

    @property
    def same(self) -> bool:
        return self.verdict in ("identical", "bisimilar")


def _key(s: tuple):
    """The packed form the explorer stores (NOTE(packed) in checks/engines/explicit.py), or the tuple."""
    try:
        return bytes(s)
    except (ValueError, TypeError):
        return s


def _layout(model) -> tuple:
    return tuple((n, f.domain) for n, f in zip(model.schema.slot_names, model.schema.slot_fields))


def lockstep(a, b, observe_a, observe_b, config: CheckConfig | None = None) -> Lockstep:
    """Run models `a` and `b` in lockstep (see the module docstring); `observe_x(state)` is what is
    observed of a state of model x (any comparable value; equal observations are the same)."""
    config = config or CheckConfig()
    t0 = time.perf_counter()
    for m in (a, b):
        labels = [x.label for x in m.actions]
        if len(set(labels)) != len(labels):
            return Lockstep("unknown", 0, 0, 0.0, reason=f"model {m.name} has two actions with one label")
        if len(m.init) != 1:
            return Lockstep("unknown", 0, 0, 0.0, reason=f"model {m.name} has {len(m.init)} initial states; "
                                                          f"the lockstep search pairs exactly one of each")
    ca, cb = CompiledModel.build(a), CompiledModel.build(b)
    ids: dict = {}
    gid_a = [ids.setdefault(x.label, len(ids)) for x in a.actions]
    gid_b = [ids.setdefault(x.label, len(ids)) for x in b.actions]
    names = list(ids)
    same_layout = _layout(a) == _layout(b)
    width = len(a.schema)

    def pair_key(sa, sb):
        ka, kb = _key(sa), _key(sb)
        return ka + kb if isinstance(ka, bytes) and isinstance(kb, bytes) else (ka, kb)

    def unpair(k):
        return (tuple(k[:width]), tuple(k[width:])) if isinstance(k, bytes) else (tuple(k[0]), tuple(k[1]))

    keys, parent, via = [], array("i"), array("i")
    index: dict = {}
    first = pair_key(a.init[0], b.init[0])
    keys.append(first)
    index[first] = 0
    parent.append(-1)
    via.append(-1)
    queue = deque([0])
    diagonal, transitions = same_layout, 0

    def game(i: int) -> tuple:
        out = []
        while parent[i] >= 0:
            out.append(names[via[i]])
            i = parent[i]
        return tuple(reversed(out))

    def done(verdict: str, **kw) -> Lockstep:
        return Lockstep(verdict, len(keys), transitions, time.perf_counter() - t0, **kw)

    while queue:
        i = queue.popleft()
        sa, sb = unpair(keys[i])
        if diagonal and sa != sb:
            diagonal = False
        oa, ob = observe_a(sa), observe_b(sb)
        if oa != ob:
            return done("differ", labels=game(i), observed=(oa, ob))
        succ_a = {gid_a[n]: s for n, s in ca.successors(sa)}
        succ_b = {gid_b[n]: s for n, s in cb.successors(sb)}
        if succ_a.keys() != succ_b.keys():
            only_a = tuple(sorted(names[g] for g in succ_a.keys() - succ_b.keys()))
            only_b = tuple(sorted(names[g] for g in succ_b.keys() - succ_a.keys()))
            return done("differ", labels=game(i), offered=(only_a, only_b))
        transitions += len(succ_a)
        for g in sorted(succ_a):
            k = pair_key(succ_a[g], succ_b[g])
            if k not in index:
                index[k] = len(keys)
                keys.append(k)
                parent.append(i)
                via.append(g)
                queue.append(len(keys) - 1)
        if len(keys) > config.max_states:
            return done("unknown", reason=f"the lockstep search stopped: state budget {config.max_states:,} "
                                          f"exhausted ({len(keys):,} pairs of states)")
        if config.out_of_time(t0):
            return done("unknown", reason=f"the lockstep search stopped: timeout {config.timeout}s reached")
    return done("identical" if diagonal else "bisimilar")
