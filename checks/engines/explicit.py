"""Explicit-state breadth-first exploration.

The visited table holds every state (packed as bytes, NOTE(packed)); parallel
arrays hold the parent index, the action index and the depth (NOTE(compact)),
so every counterexample is a shortest path by construction. The networkx graph is built from these arrays
only when asked (`to_graph`), since building it during the search costs five
times the time and memory (docs/performance.md).

Invariant-violating states are recorded and not expanded (the first, shortest
violation of each invariant is kept). A non-terminal state with no enabled
action is a deadlock.

NOTE(domain): a successor with a value outside its slot's declared domain violates the `domain`
property (`DOMAIN`, issue 39): it is recorded like any violation (the first is the shortest) and
not expanded (its values have no place in the model: neither the packed store nor the Z3
encoding can hold them), and every invariant and step property the reference semantics can
evaluate on it is checked there too (`BeyondDomain`), so the step that left the domain is
judged by what it may do. The search goes on everywhere else.
"""
from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from checks.config import CheckConfig
from model.compile import CompiledModel, StateChecks, compile_invariants
from model.evaluate import apply
from model.lower import slots_read, slots_written
from model.errors import ModelError
from model.game import GameModel
from model.trace import Step, Trace

if TYPE_CHECKING:
    from checks.engines.symmetry import Reduction


DOMAIN = "domain"  # every value within its slot's declared domain (NOTE(domain))


class BeyondDomain:
    """The invariants and step properties that a state outside the declared domains violates (NOTE(domain)),
    by their generated predicates (`compile_invariants`: the reference semantics' meaning on any state). The state's pre-state was good (in its domains, every invariant
    true: bad states are not expanded), so only the invariants that read a slot the last action wrote
    can have turned false (the argument of NOTE(incremental) in model/compile.py); an initial state is
    judged by all of them. One that reads at an index outside its domain cannot be evaluated there and
    is left out (a later state may still violate it); those in `found` (violated already: the first
    violation is the one kept) are not evaluated again.

    >>> from model.domains import IntRange
    >>> from model.expr import Var
    >>> from model.game import GameModel
    >>> from model.properties import always
    >>> from model.rule import Rule
    >>> from model.schema import Field, Schema
    >>> m = GameModel("toy", Schema((Field("x", IntRange(0, 2)),)), ((0,),), (Rule("inc", (), Var("x") < 9,
    ...               {("x", ()): Var("x") + 1}),), (always("small", Var("x") <= 2), always("any", Var("x") >= 0)),
    ...               Var("x").eq(9))
    >>> BeyondDomain(m)((3,), 0, found=())
    ['small']
    """

    def __init__(self, model: GameModel):
        self.model = model
        self.reads = [slots_read(p.predicate, model.schema) for p in model.invariants]
        self.per_action: dict = {}
        self.predicates = compile_invariants(model)

    def __call__(self, s: tuple, action: int | None, found=()) -> list[str]:
        invariants = self.model.invariants
        judged = range(len(invariants)) if action is None else self._judged(action)
        out = []
        for k in judged:
            p = invariants[k]
            if p.name in found:
                continue
            try:
                ok = self.predicates[k](s)
            except (ArithmeticError, LookupError, TypeError):
                continue
            if not ok:
                out.append(p.name)
        return out

    def _judged(self, action: int) -> list[int]:
        if action not in self.per_action:
            written = slots_written(self.model.actions[action].effects, self.model.schema)
            self.per_action[action] = [k for k, r in enumerate(self.reads) if r & written]
        return self.per_action[action]


T_co = TypeVar("T_co", covariant=True)


class Column(Protocol[T_co]):
    """One value per stored state, read by state index: a list or a typed array (the explicit engine),
    a view decoding on access (`PackedStates`; the vector engine's `_Rows`, `_Ints`, `_Depths`)."""

    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> T_co: ...
    def __iter__(self) -> Iterator[T_co]: ...


class Exploration(Protocol):
    """What a search found, as every reader sees it: `Explorer.run()` (an `ExplicitExploration`) and
    `checks.engines.vector.VectorExplorer.run()` (a `VectorExploration`) both return one.

    The state matrix is `states` (state index -> the model's tuple), with a shortest-path tree over it
    (`parent`: -1 or None at a root; `via`: the action index, or the folded chain of them, into each
    state) and each state's BFS `depth`; `edges` holds (src, action chain, dst) when the search kept them.
    """

    model: GameModel
    complete: bool
    stop_reason: str | None
    seconds: float
    violations: dict[str, int]               # invariant -> first (shortest) violating state index
    witnesses: dict                          # witness -> (pre index, folded prefix, action index or None)
    deadlocks: list[int]
    out_of_domain: list                      # (state index, [slot=value])
    fired: set[str]                          # rule names
    edges: list | None
    transitions: int
    folded: int

    @property
    def states(self) -> Column[tuple]: ...
    @property
    def parent(self) -> Column[int | None]: ...
    @property
    def via(self) -> Column[Any]: ...        # an action index, or a tuple of them (chain folding)
    @property
    def depth(self) -> Column[int]: ...
    @property
    def max_depth(self) -> int: ...
    @property
    def reduction(self) -> Reduction | None: ...  # when the states are orbits (--symmetry)
    def chain(self, node: int) -> tuple: ...
    def state_matrix(self, dtype: Any = ...) -> Any: ...  # (states, slots) NumPy integers, bools as 0/1
    def trace_to(self, idx: int) -> Trace: ...
    def witness_trace(self, name: str) -> Trace: ...
    def to_graph(self) -> Any: ...                 # a networkx MultiDiGraph (edges kept only)


@dataclass
class ExplicitExploration:
    """What one exhaustive (or budget-cut) search found: the `Exploration` of the explicit engine."""

    model: GameModel
    states: Column[tuple]
    parent: Column[int | None]
    via: Column[Any]
    depth: Column[int]
    complete: bool
    stop_reason: str | None
    seconds: float
    violations: dict = field(default_factory=dict)     # invariant -> state index
    witnesses: dict = field(default_factory=dict)      # witness -> (pre index, folded prefix, action index)
    deadlocks: list = field(default_factory=list)      # state indices
    out_of_domain: list = field(default_factory=list)  # (state index, [slot=value])
    fired: set = field(default_factory=set)            # rule names
    edges: list | None = None                          # (src, action chain, dst) when kept
    transitions: int = 0
    folded: int = 0                                    # intermediate states skipped by chain folding
    reduction: Reduction | None = None                 # when states are orbits (--symmetry)

    def chain(self, node: int) -> tuple:
        """The actions of the edge into `node` (one, unless chain folding merged several)."""
        v = self.via[node]
        return (v,) if isinstance(v, int) else v

    @property
    def max_depth(self) -> int:
        return max(self.depth) if self.depth else 0

    def state_matrix(self, dtype: Any = "int64") -> Any:
        """The stored states as a (states, slots) NumPy integer matrix (bools as 0/1), in state order; the
        packed visited table's bytes as they are when every slot fits a byte and `dtype` is one.

        >>> from model.moritani import GAME
        >>> ex = Explorer(GAME.build(GAME.small(GAME.profiles["default"]))).run()
        >>> ex.state_matrix().shape == (len(ex.states), len(ex.model.schema))
        True
        """
        import numpy as np  # only the analyses that ask for a matrix pay for NumPy here
        n, states = len(self.model.schema), self.states
        if isinstance(states, PackedStates) and np.dtype(dtype) == np.uint8 \
                and all(isinstance(b, bytes) for b in states.raw):
            return np.frombuffer(b"".join(states.raw), dtype=np.uint8).reshape(len(states.raw), n)
        return np.array([[int(v) for v in s] for s in states], dtype=dtype).reshape(len(states), n)

    def trace_to(self, idx: int) -> Trace:
        """Shortest path from an initial state; folded chains are expanded step by step."""
        chain = []
        while (up := self.parent[idx]) is not None and up >= 0:  # roots: None, or -1 when compact
            chain.append(idx)
            idx = up
        if self.reduction is not None:
            # The stored states are orbit representatives: rename each action into the concrete game.
            return self.reduction.concretise(self.states[idx], [(self.chain(n)[0], self.states[n])
                                                                for n in reversed(chain)])
        acts, schema = self.model.actions, self.model.schema
        steps, s = [], self.states[idx]
        for node in reversed(chain):
            for a in self.chain(node):
                s = apply(acts[a], s, schema)
                steps.append(Step(acts[a].label, s))
        return Trace(self.states[idx], tuple(steps))

    def witness_trace(self, name: str) -> Trace:
        """Path to the witnessing transition (pre-state node, actions folded before it, the action)."""
        pre, prefix, action = self.witnesses[name]
        t = self.trace_to(pre)
        steps, s = list(t.steps), t.states[-1]
        if self.reduction is not None:
            g = self.reduction.element_to(self.states[pre], s)
            prefix, action = tuple(self.reduction.action_maps[g][a] for a in prefix), self.reduction.action_maps[g][action]
        for a in prefix + (action,):
            s = apply(self.model.actions[a], s, self.model.schema)
            steps.append(Step(self.model.actions[a].label, s))
        return Trace(t.init, tuple(steps))

    def to_graph(self):
        """The explored graph as a networkx MultiDiGraph (edges carry rule and parameters)."""
        import networkx as nx
        if self.edges is None:
            raise ValueError("exploration ran without keep_edges; rerun with CheckConfig(keep_edges=True)")
        g = nx.MultiDiGraph()
        for i in range(len(self.states)):
            g.add_node(i, depth=self.depth[i])
        acts = self.model.actions
        for src, chain, dst in self.edges:
            label = " ; ".join(acts[a].label for a in chain)
            g.add_edge(src, dst, key=label, rule=acts[chain[0]].rule.name, args=dict(acts[chain[0]].args),
                       folded=len(chain) - 1)
        return g


def _pack(s: tuple):
    """bytes(s), or the tuple itself when a value leaves 0..255 (an out-of-domain state, kept as found)."""
    try:
        return bytes(s)
    except ValueError:
        return s


class PackedStates:
    """The explored states as the model's tuples, decoded on access from the packed visited table."""

    def __init__(self, raw: list, decode):
        self.raw, self.decode = raw, decode

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._one(b) for b in self.raw[i]]
        return self._one(self.raw[i])

    def _one(self, b):
        return self.decode(b) if isinstance(b, bytes) else b

    def __iter__(self):
        return (self._one(b) for b in self.raw)


class Explorer:
    """Breadth-first search over a compiled model.

    >>> from model.moritani import GAME
    >>> ex = Explorer(GAME.build(GAME.small(GAME.profiles["default"]))).run()
    >>> len(ex.states), ex.complete
    (3550, True)
    """

    def __init__(self, model: GameModel, config: CheckConfig | None = None,
                 compiled: CompiledModel | None = None):
        self.model = model
        self.config = config or CheckConfig()
        self.cm = compiled or CompiledModel.build(model)
        self.reduction = None
        if self.config.symmetry:
            if self.config.fold:
                raise ModelError("--symmetry and --fold cannot be combined yet; choose one")
            from checks.engines.symmetry import verify
            self.reduction = verify(model)  # refuses (ModelError) unless the symmetry is an automorphism
        self.checks = StateChecks.build(model)
        self.packable = self.checks.packable

    def run(self, stop_when=None) -> Exploration:
        """Explore breadth-first. `stop_when(exploration)` may end the search early (selftest)."""
        cfg = self.config
        t0 = time.perf_counter()
        search = _Search(self, stop_when, t0)
        ex = search.ex
        frontier = search.seed()
        d = 0
        while frontier:
            if cfg.max_depth is not None and d >= cfg.max_depth:
                ex.complete, ex.stop_reason = False, f"depth bound {cfg.max_depth} reached"
                break
            nxt = search.fold_layer(frontier, d) if cfg.fold else search.layer(frontier, d)
            if not ex.complete:
                break
            d += 1
            frontier = nxt
            if cfg.progress:
                print(f"  depth {d}: {len(ex.states):,} states, {len(nxt):,} to expand, "
                      f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
        ex.seconds = time.perf_counter() - t0
        return ex


class _Search:
    """One breadth-first search in progress: the visited table, the bookkeeping of violations,
    witnesses, deadlocks and coverage, and the expansion of a layer (plain, or with chain folding)."""

    def __init__(self, explorer: Explorer, stop_when, t0: float):
        cfg, model = explorer.config, explorer.model
        self.cfg, self.model, self.cm, self.stop_when, self.t0 = cfg, model, explorer.cm, stop_when, t0
        self.checks = explorer.checks
        # NOTE(compact): without an edge list or folding nothing needs a visited state's index, so
        # the visited table maps each state to None (no index int object per state; a dict rather
        # than a set because its compact entry table is smaller than a set's sparse one at these
        # sizes, measured) and the parent index, the action index and the depth go to typed arrays
        # (4 + 2 + 2 bytes instead of three pointers).
        self.compact = not cfg.keep_edges and not cfg.fold
        self.states: list = []
        self.parent: array[int] | list[int | None]
        self.via: array[int] | list[tuple]
        self.depth: array[int] | list[int]
        if self.compact:
            self.states, self.parent, self.via, self.depth = [], array("i"), array("H"), array("H")
        else:
            self.states, self.parent, self.via, self.depth = [], [], [], []
        self.index: dict = {}
        # NOTE(packed): when every slot fits a byte, the visited table holds each state as `bytes`
        # (33 B + one byte per slot) instead of a tuple of references (56 B + 8 B per slot); a state
        # is unpacked to a tuple only when it is expanded. Bools travel as 0/1 inside the search (the
        # generated code treats them alike); `Exploration.states` decodes them back for every reader.
        packed = explorer.packable and cfg.packed
        self.pack = _pack if packed else tuple
        self.ex = ExplicitExploration(model, PackedStates(self.states, self.checks.decode) if packed else self.states,
                              self.parent, self.via, self.depth, True, None, 0.0,
                              edges=[] if cfg.keep_edges else None, reduction=explorer.reduction)
        red = explorer.reduction
        self.canon = red.canon if red is not None else None
        self.recanon = red.needs_canon() if red is not None else []  # read only when canon is set
        self.rule_of = [a.rule.name for a in model.actions]
        self.is_fault = [a.rule.kind == "fault" for a in model.actions]
        self.wlist = [self.checks.witnesses.get(a) for a in range(len(model.actions))]
        self.beyond = None  # BeyondDomain, once a state leaves the domains
        self.bools = frozenset(i for i, f in enumerate(model.schema.slot_fields) if f.domain.least is False)

    def typed(self, s: tuple) -> tuple:
        """`s` with its Bool slots as bools (NOTE(packed): they travel as 0/1 inside the search)."""
        return tuple(bool(v) if i in self.bools and v in (0, 1) else v for i, v in enumerate(s))

    def bad(self, s):
        """Names of invariants s violates, or None if s lies outside the domains."""
        if self.checks.all_ok(s):
            return []
        if not self.checks.domain_ok(s):
            return None
        return [name for name, fn in self.cm.invariants if not fn(s)]

    def admit(self, s, par, chain, d, problems, key=None):
        """Store a new state; (its index, whether it is good and must be expanded)."""
        ex, idx = self.ex, len(self.states)
        key = self.pack(s) if key is None else key
        self.states.append(key)
        if self.compact:
            self.index[key] = None
            self.parent.append(-1 if par is None else par)
            self.via.append(chain[0] if chain else 0)
        else:
            self.index[key] = idx
            self.parent.append(par)
            self.via.append(chain)
        self.depth.append(d)
        if problems is None:  # NOTE(domain)
            s = self.typed(s)
            ex.out_of_domain.append((idx, self.model.schema.check(s)))
            self.beyond = self.beyond or BeyondDomain(self.model)
            for name in [DOMAIN] + self.beyond(s, chain[-1] if chain else None, ex.violations):
                ex.violations.setdefault(name, idx)
            return idx, False
        for name in problems:
            if name not in ex.violations:
                ex.violations[name] = idx
        return idx, not problems

    def seed(self) -> list:
        frontier = []
        for s in self.model.init:
            if self.canon is not None:
                s = self.canon(s)
            if self.pack(s) not in self.index:
                idx, good = self.admit(s, None, (), 0, self.bad(s))
                if good:
                    frontier.append(idx)
        return frontier

    def stuck(self, i: int, s: tuple, succ: list) -> None:
        """A state where only faults (reload, retry) are enabled is still stuck: no player or system
        step can move the game on; it is a deadlock unless the game is over."""
        for a, _ in succ:
            if not self.is_fault[a]:
                return
        if not self.cm.terminal(s):
            self.ex.deadlocks.append(i)

    def stopped(self) -> bool:
        """Budgets and the caller's stop condition, checked after each expanded state."""
        cfg, ex = self.cfg, self.ex
        if len(self.states) > cfg.max_states:
            ex.complete, ex.stop_reason = False, f"state budget {cfg.max_states:,} exhausted"
        elif cfg.out_of_time(self.t0):
            ex.complete, ex.stop_reason = False, f"timeout {cfg.timeout}s reached"
        elif self.stop_when is not None and self.stop_when(ex):
            ex.complete, ex.stop_reason = False, "stopped: target found"
        return not ex.complete

    def layer(self, frontier: list, d: int) -> list:
        """Expand one BFS layer (no folding): the hot path. A successor already visited costs one
        dict lookup; the domain and invariant checks run only on new states (NOTE(incremental))."""
        ex, states, index, pack, admit, successors = self.ex, self.states, self.index, self.pack, self.admit, \
            self.cm.successors
        found_w, fired, wlist, rule_of = ex.witnesses, ex.fired, self.wlist, self.rule_of
        canon, recanon, ok_after, bad, edges = self.canon, self.recanon, self.checks.ok_after, self.bad, ex.edges
        via_of = [(a,) for a in range(len(self.model.actions))]  # one shared chain tuple per action
        fired_a: set = set()  # actions seen in this layer: their rule is in `fired` already
        nxt = []
        for i in frontier:
            s = tuple(states[i])
            succ = successors(s)
            self.stuck(i, s, succ)
            ex.transitions += len(succ)
            for a, s2 in succ:
                if a not in fired_a:
                    fired_a.add(a)
                    fired.add(rule_of[a])
                ws = wlist[a]
                if ws:
                    for wname, fn in ws:
                        if wname not in found_w and fn(s):
                            found_w[wname] = (i, (), a)
                raw = s2
                if canon is not None and recanon[a]:
                    s2 = canon(raw)
                key = pack(s2)
                if key not in index:
                    # NOTE(incremental): s is good, so only what a wrote can go wrong.
                    j, good = admit(s2, i, via_of[a], d + 1, [] if ok_after[a](raw) else bad(raw), key)
                    if good:
                        nxt.append(j)
                if edges is not None:
                    edges.append((i, (a,), index[key]))
            if self.stopped():
                break
        return nxt

    def note(self, i, prefix, a, s) -> None:
        """Count a transition taken inside a folded chain: coverage and witnesses."""
        ex = self.ex
        ex.transitions += 1
        ex.fired.add(self.rule_of[a])
        for wname, fn in self.wlist[a] or ():
            if wname not in ex.witnesses and fn(s):
                ex.witnesses[wname] = (i, prefix, a)

    def fold_layer(self, frontier: list, d: int) -> list:
        """Expand one BFS layer with chain folding.

        NOTE(fold): a state whose only move (self-loops aside) is a system or scheduler step has no
        choice in it; with folding on, the step is taken at once and the state is not stored.
        Invariants, witnesses, deadlocks and coverage are still checked on every skipped state.
        """
        foldable = [a.rule.kind in ("system", "scheduler") for a in self.model.actions]
        ex, successors = self.ex, self.cm.successors
        nxt = []
        for i in frontier:
            s = tuple(self.states[i])
            succ = successors(s)
            self.stuck(i, s, succ)
            for a, s2 in succ:
                self.note(i, (), a, s)
                chain: tuple[int, ...] = (a,)
                problems = self.bad(s2)
                while problems == [] and self.pack(s2) not in self.index:
                    moves = [(b, t) for b, t in successors(s2) if t != s2]
                    if len(moves) != 1 or not foldable[moves[0][0]]:
                        break
                    for b, t in successors(s2):
                        if t == s2:
                            self.note(i, chain, b, s2)
                    b, t = moves[0]
                    self.note(i, chain, b, s2)
                    chain += (b,)
                    ex.folded += 1
                    s2 = t
                    problems = self.bad(s2)
                if self.canon is not None:
                    s2 = self.canon(s2)
                j = self.index.get(self.pack(s2))
                if j is None:
                    j, good = self.admit(s2, i, chain, d + 1, problems)
                    if good:
                        nxt.append(j)
                if ex.edges is not None:
                    ex.edges.append((i, chain, j))
            if self.stopped():
                break
        return nxt
