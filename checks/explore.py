"""Explicit-state breadth-first exploration.

The visited table holds every state (packed as bytes, NOTE(packed)); parallel
arrays hold the parent index, the action index and the depth (NOTE(compact)),
so every counterexample is a shortest path by construction. The networkx graph is built from these arrays
only when asked (`to_graph`), since building it during the search costs five
times the time and memory (docs/performance.md).

Invariant-violating states are recorded and not expanded (the first, shortest
violation of each invariant is kept). A non-terminal state with no enabled
action is a deadlock.
"""
from __future__ import annotations

import sys
import time
from array import array
from dataclasses import dataclass, field

from checks.config import CheckConfig
from model.compile import CompiledModel, to_source
from model.evaluate import apply
from model.expr import Const, Var, substitute, walk
from model.errors import ModelError
from model.game import GameModel
from model.trace import Step, Trace


@dataclass
class Exploration:
    """What one exhaustive (or budget-cut) search found."""

    model: GameModel
    states: list
    parent: list
    via: list
    depth: list
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
    reduction: object = None                           # checks.symmetry.Reduction when states are orbits

    def chain(self, node: int) -> tuple:
        """The actions of the edge into `node` (one, unless chain folding merged several)."""
        v = self.via[node]
        return (v,) if isinstance(v, int) else v

    @property
    def max_depth(self) -> int:
        return max(self.depth) if self.depth else 0

    def trace_to(self, idx: int) -> Trace:
        """Shortest path from an initial state; folded chains are expanded step by step."""
        chain = []
        while self.parent[idx] is not None and self.parent[idx] >= 0:  # roots: None, or -1 when compact
            chain.append(idx)
            idx = self.parent[idx]
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

    >>> # Explorer(model, CheckConfig(max_states=10_000)).run()
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
            from checks.symmetry import verify
            self.reduction = verify(model)  # refuses (ModelError) unless the symmetry is an automorphism
        self._witness_checks = self._compile_witnesses()
        self._domain = self._compile_domain()
        self.packable, self._decode = self._compile_packing()

    def _compile_witnesses(self) -> dict:
        """action index -> [(witness name, predicate on the pre-state)]."""
        out: dict = {}
        schema = self.model.schema
        src, names, tables = [], [], {}
        for w in self.model.witnesses:
            if not w.fires:
                continue
            for n, a in enumerate(self.model.actions):
                if a.rule.name in w.fires:
                    when = substitute(w.when, dict(a.args)) if w.when is not None else None
                    names.append((n, w.name))
                    src.append(f"def w{len(src)}(s): return {to_source(when, schema, tables) if when else 'True'}")
        ns: dict = dict(tables)
        exec(compile("\n".join(src) or "pass", "<witnesses>", "exec"), ns)
        for i, (n, wname) in enumerate(names):
            out.setdefault(n, []).append((wname, ns[f"w{i}"]))
        return out

    def _compile_packing(self):
        """(every slot fits a byte, decoder from the packed form back to the model's tuple)."""
        parts, fits = [], True
        for i, f in enumerate(self.model.schema.slot_fields):
            vals = f.domain.values
            if vals[0] is False:
                parts.append(f"b[{i}] != 0")
            else:
                fits = fits and 0 <= vals[0] and vals[-1] <= 255
                parts.append(f"b[{i}]")
        ns: dict = {}
        exec(f"def decode(b): return ({', '.join(parts)},)", ns)
        return fits, ns["decode"]

    def _compile_domain(self):
        checks = []
        for i, f in enumerate(self.model.schema.slot_fields):
            vals = f.domain.values
            if vals[0] is False:
                continue
            checks.append(f"{vals[0]} <= s[{i}] <= {vals[-1]}")
        ns: dict = {}
        exec(f"def ok(s): return {' and '.join(checks) or 'True'}", ns)
        # One inline test of every domain and invariant: most states pass, and pay a single call.
        tables: dict = {}
        preds = [f"({to_source(p.predicate, self.model.schema, tables)})" for p in self.model.invariants]
        ns.update(tables)
        exec(f"def all_ok(s): return bool({' and '.join(checks + preds) or 'True'})", ns)
        self._all_ok = ns["all_ok"]
        self._ok_after = self._compile_incremental(tables)
        return ns["ok"]

    def _compile_incremental(self, tables: dict) -> list:
        """Per action: the domain and invariant tests its successor can fail, given a good pre-state.

        NOTE(incremental): the explorer expands only states in their domains that satisfy every
        invariant, and an action changes only the slots it writes; a slot it does not write keeps its
        in-domain value, and an invariant reading none of the written slots has the value it had
        before (true). So the successor needs only the rest, which is exact, not a sample.
        """
        schema, model = self.model.schema, self.model
        reads = []
        for p in model.invariants:
            slots = set()
            for node in walk(p.predicate):
                if isinstance(node, Var):
                    if all(isinstance(i, Const) for i in node.index):
                        slots.add(schema.slot(node.field, tuple(i.value for i in node.index)))
                    else:
                        slots |= {i for (f, _), i in schema._slots.items() if f == node.field}
            reads.append(slots)
        preds = [to_source(p.predicate, schema, tables) for p in model.invariants]
        ns: dict = dict(tables)
        src, by_writes, out = [], {}, []
        for a in model.actions:
            written = frozenset(schema.slot(n, tuple(i.value for i in idx)) for n, idx, _ in a.effects)
            if written not in by_writes:
                tests = []
                for i in sorted(written):
                    vals = schema.slot_fields[i].domain.values
                    if vals[0] is not False:
                        tests.append(f"{vals[0]} <= s[{i}] <= {vals[-1]}")
                tests += [f"({pr})" for pr, r in zip(preds, reads) if r & written]
                by_writes[written] = f"k{len(by_writes)}"
                src.append(f"def {by_writes[written]}(s): return bool({' and '.join(tests) or 'True'})")
            out.append(by_writes[written])
        exec(compile("\n".join(src) or "pass", "<incremental checks>", "exec"), ns)
        return [ns[name] for name in out]

    def run(self, stop_when=None) -> Exploration:
        """Explore breadth-first. `stop_when(exploration)` may end the search early (selftest)."""
        cfg, model, cm = self.config, self.model, self.cm
        t0 = time.perf_counter()
        # NOTE(compact): without an edge list or folding nothing needs a visited state's index, so
        # the visited table maps each state to None (no index int object per state; a dict rather
        # than a set because its compact entry table is smaller than a set's sparse one at these
        # sizes, measured) and the parent index, the action index and the depth go to typed arrays
        # (4 + 2 + 2 bytes instead of three pointers).
        compact = not cfg.keep_edges and not cfg.fold
        if compact:
            states, parent, via, depth = [], array("i"), array("H"), array("H")
            index = {}
        else:
            states, parent, via, depth = [], [], [], []
            index = {}
        # NOTE(packed): when every slot fits a byte, the visited table holds each state as `bytes`
        # (33 B + one byte per slot) instead of a tuple of references (56 B + 8 B per slot); a state
        # is unpacked to a tuple only when it is expanded. Bools travel as 0/1 inside the search (the
        # generated code treats them alike); `Exploration.states` decodes them back for every reader.
        packed = self.packable and cfg.packed
        pack = _pack if packed else tuple
        unpack = tuple
        ex = Exploration(model, PackedStates(states, self._decode) if packed else states, parent, via, depth,
                         True, None, 0.0, edges=[] if cfg.keep_edges else None, reduction=self.reduction)
        via_of = [(a,) for a in range(len(model.actions))]  # one shared chain tuple per action
        canon = self.reduction.canon if self.reduction is not None else None
        recanon = self.reduction.needs_canon() if self.reduction is not None else None
        invariants = cm.invariants
        terminal = cm.terminal
        domain_ok = self._domain
        wchecks = self._witness_checks
        rule_of = [a.rule.name for a in model.actions]
        # NOTE(fold): a state whose only move (self-loops aside) is a system or scheduler step has
        # no choice in it; with folding on, the step is taken at once and the state is not stored.
        # Invariants, witnesses, deadlocks and coverage are still checked on every skipped state.
        foldable = [a.rule.kind in ("system", "scheduler") for a in model.actions] if cfg.fold else None
        found_w = ex.witnesses
        fired = ex.fired
        fired_a: set = set()
        wlist = [wchecks.get(a) for a in range(len(model.actions))]
        is_fault = [a.rule.kind == "fault" for a in model.actions]

        all_ok = self._all_ok
        ok_after = self._ok_after

        def bad(s):
            """Names of invariants s violates, or None if s lies outside the domains."""
            if all_ok(s):
                return []
            if not domain_ok(s):
                return None
            return [name for name, fn in invariants if not fn(s)]

        def admit(s, par, chain, d, problems, key=None):
            idx = len(states)
            key = pack(s) if key is None else key
            states.append(key)
            if compact:
                index[key] = None
                parent.append(-1 if par is None else par)
                via.append(chain[0] if chain else 0)
            else:
                index[key] = idx
                parent.append(par)
                via.append(chain)
            depth.append(d)
            if problems is None:
                ex.out_of_domain.append((idx, model.schema.check(s)))
                return idx, False
            for name in problems:
                if name not in ex.violations:
                    ex.violations[name] = idx
            return idx, not problems

        def note(i, prefix, a, s):
            ex.transitions += 1
            fired.add(rule_of[a])
            ws = wchecks.get(a)
            if ws:
                for wname, fn in ws:
                    if wname not in found_w and fn(s):
                        found_w[wname] = (i, prefix, a)

        frontier = []
        for s in model.init:
            if canon is not None:
                s = canon(s)
            if pack(s) not in index:
                idx, good = admit(s, None, (), 0, bad(s))
                if good:
                    frontier.append(idx)
        d = 0
        edges = ex.edges
        while frontier:
            if cfg.max_depth is not None and d >= cfg.max_depth:
                ex.complete, ex.stop_reason = False, f"depth bound {cfg.max_depth} reached"
                break
            nxt = []
            for i in frontier:
                s = unpack(states[i])
                succ = cm.successors(s)
                # A state where only faults (reload, retry) are enabled is still stuck: no player
                # or system step can move the game on.
                for a, _ in succ:
                    if not is_fault[a]:
                        break
                else:
                    if not terminal(s):
                        ex.deadlocks.append(i)
                if not succ:
                    continue
                if foldable is None:
                    # Hot path (no folding): a successor already visited costs one dict lookup; the
                    # domain and invariant checks run only on new states.
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
                    succ = ()
                for a, s2 in succ:
                    note(i, (), a, s)
                    chain = (a,)
                    problems = bad(s2)
                    while foldable is not None and problems == [] and pack(s2) not in index:
                        nxt_succ = [(b, t) for b, t in cm.successors(s2) if t != s2]
                        if len(nxt_succ) != 1 or not foldable[nxt_succ[0][0]]:
                            break
                        for b, t in cm.successors(s2):
                            if t == s2:
                                note(i, chain, b, s2)
                        b, t = nxt_succ[0]
                        note(i, chain, b, s2)
                        chain += (b,)
                        ex.folded += 1
                        s2 = t
                        problems = bad(s2)
                    if canon is not None:
                        s2 = canon(s2)
                    j = index.get(pack(s2))
                    if j is None:
                        j, good = admit(s2, i, chain, d + 1, problems)
                        if good:
                            nxt.append(j)
                    if edges is not None:
                        edges.append((i, chain, j))
                if len(states) > cfg.max_states:
                    ex.complete, ex.stop_reason = False, f"state budget {cfg.max_states:,} exhausted"
                    break
                if cfg.timeout is not None and time.perf_counter() - t0 > cfg.timeout:
                    ex.complete, ex.stop_reason = False, f"timeout {cfg.timeout}s reached"
                    break
                if stop_when is not None and stop_when(ex):
                    ex.complete, ex.stop_reason = False, "stopped: target found"
                    break
            if not ex.complete:
                break
            d += 1
            frontier = nxt
            if cfg.progress:
                print(f"  depth {d}: {len(states):,} states, {len(nxt):,} to expand, "
                      f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
        ex.seconds = time.perf_counter() - t0
        return ex
