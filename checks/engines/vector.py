"""The vectorised frontier engine (`--engine vector`): breadth-first search over bit-packed states.

States are rows of uint64 words (`checks/engines/packing.py`) in one key store `K`; the rules
are compiled from the rule data to NumPy operations over a whole frontier slice at a time
(`checks/engines/vector_compile.py`); duplicates are found in a numba hash table
(`checks/engines/visited.py`). A layer is expanded in rounds of at most `ROUND` frontier states:

1. expand: each job takes a contiguous part of the round and runs the generated bucket of every
   stage present; candidates carry their (parent, action);
2. dedup: candidates go to the job owning their key hash, which inserts them in (parent, action)
   order and reports the new ones' pairs;
3. number: the coordinator merges those pairs, so new states are numbered exactly as a
   sequential BFS that expands states in order and actions in order would (NOTE(numbering) in
   `checks/engines/worker.py`); parent and action arrays are written per state;
4. commit: owners store their new states at those numbers and check the invariants.

Rounds are cut at fixed frontier positions, so states, verdicts and shortest traces do not depend
on `--jobs`. Every trace is rebuilt from the parent and action arrays and replayed through the
reference semantics by `checks/analyses/verdicts.py` before it is shown, as for the scalar engine.

>>> # ex = VectorExplorer(model, CheckConfig(engine="vector", jobs=1)).run()
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from checks.config import CheckConfig
from checks.engines.packing import Layout, constant_slots
from checks.engines.vector_compile import compile_buckets, compile_predicates
from checks.engines.visited import warm_up
from checks.engines.worker import Worker
from checks.engines.explicit import DOMAIN, BeyondDomain, ExplicitExploration, Exploration
from model.errors import ModelError
from model.evaluate import apply, holds
from model.game import GameModel
from model.lower import slots_read

ROUND = 1 << 17  # frontier states per round; fixed, so the rounds (and the numbering) never depend on --jobs


@dataclass
class VectorModel:
    """A model compiled for the vector engine (plain data and generated functions; fork-safe)."""

    lay: Layout
    buckets: dict
    dslot: int | None
    n_actions: int
    invariants: list
    need: np.ndarray          # (invariant, action): the action writes a slot the invariant reads
    witness_names: list       # fires-witnesses, in the buckets' numbering
    state_witnesses: list     # generated predicates of state witnesses
    state_witness_names: list
    fanout: int               # most actions a bucket holds (bounds the candidates of a round)

    @classmethod
    def build(cls, model: GameModel) -> "VectorModel":
        sch = model.schema
        lay = Layout(sch, constant_slots(model))
        buckets, wnames = compile_buckets(model, lay)
        inv = compile_predicates(model, lay, [p.predicate for p in model.invariants])
        sw = [w for w in model.witnesses if not w.fires and w.predicate is not None]
        need = np.zeros((len(model.invariants), len(model.actions)), dtype=bool)
        for k, p in enumerate(model.invariants):
            reads = slots_read(p.predicate, sch)
            for n, a in enumerate(model.actions):
                need[k, n] = any(sch.slot(f, tuple(i.value for i in idx)) in reads for f, idx, _ in a.effects)
        return cls(lay, buckets, sch.slot(model.dispatch) if model.dispatch else None, len(model.actions), inv,
                   need, wnames, compile_predicates(model, lay, [w.predicate for w in sw]), [w.name for w in sw],
                   len(model.actions))


class _Ints:
    """A typed array read as Python ints (the scalar engine's traces index `via` and `parent`)."""

    def __init__(self, arr, n):
        self.arr, self.n = arr, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [int(x) for x in self.arr[:self.n][i]]
        if not -self.n <= i < self.n:
            raise IndexError(i)
        return int(self.arr[i % self.n])

    def __iter__(self):
        return (int(x) for x in self.arr[:self.n])


class _Depths(_Ints):
    """Depth of each state, from the first index of each BFS layer."""

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        return int(np.searchsorted(self.arr, i % self.n, side="right")) - 1

    def __iter__(self):
        return (self[i] for i in range(self.n))


class _Rows(_Ints):
    """The stored states as the model's tuples, decoded from the key store on access."""

    def __init__(self, K, n, lay, ood):
        super().__init__(K, n)
        self.lay, self.ood = lay, ood

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        if not -self.n <= i < self.n:
            raise IndexError(i)
        i %= self.n
        return self.ood[i] if i in self.ood else self.lay.decode(self.arr[i])

    def __iter__(self):
        return (self[i] for i in range(self.n))


@dataclass
class VectorExploration(ExplicitExploration):
    """`checks.engines.explicit.Exploration` over the vector engine's arrays (same interface)."""

    states: _Rows
    parent: _Ints
    via: _Ints
    depth: _Depths
    reached: int = 0
    store_bytes: int = 0  # the search's own arrays at the end: keys, parents, actions, visited tables

    @property
    def max_depth(self) -> int:
        return self.reached

    def state_matrix(self, dtype=np.int64) -> np.ndarray:
        """As `ExplicitExploration.state_matrix`, decoded slot by slot over the word columns (the per-state
        decoding when the search stored states outside their domains)."""
        if self.out_of_domain:
            return super().state_matrix(dtype)
        return self.states.lay.columns(self.states.arr[:len(self.states)], np.dtype(dtype).type)

    def witness_trace(self, name: str):
        pre, prefix, action = self.witnesses[name]
        return self.trace_to(pre) if action is None else super().witness_trace(name)


def _capacity(max_states: int, words: int, extra: int) -> tuple[int, bool]:
    """Rows to reserve (untouched pages cost nothing) and whether available memory capped it."""
    want = max_states + extra + 1
    try:
        with open("/proc/meminfo") as fh:
            avail = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable"))
    except (OSError, StopIteration, ValueError):
        return want, False
    fit = int(avail * 0.8) // (words * 8 + 6 + 12)
    return (want, False) if fit >= want else (fit, True)


class VectorExplorer:
    """Breadth-first search with the vector engine; `run()` returns a VectorExploration."""

    def __init__(self, model: GameModel, config: CheckConfig | None = None, compiled: VectorModel | None = None):
        self.model, self.config = model, config or CheckConfig()
        cfg = self.config
        if cfg.symmetry:
            raise ModelError("--symmetry is not supported by --engine vector yet; use --engine scalar")
        if cfg.fold:
            raise ModelError("--fold is not supported by --engine vector; use --engine scalar")
        if cfg.keep_edges:
            raise ModelError("--engine vector keeps no edge list (--graph); use --engine scalar")
        self.jobs = max(1, cfg.jobs or os.cpu_count() or 1)
        self.c = compiled or VectorModel.build(model)
        self.beyond: BeyondDomain | None = None  # BeyondDomain, once a state leaves the domains (NOTE(domain))
        warm_up(self.c.lay.words)  # numba's functions load (or compile, the first time) here, not in the search

    def run(self, stop_when=None) -> VectorExploration:
        t0 = time.perf_counter()
        model, cfg, c = self.model, self.config, self.c
        W = c.lay.words
        cap, by_memory = _capacity(cfg.max_states, W, 4 * ROUND + len(model.init))
        try:
            pool = self._pool(cap)
        except MemoryError:
            raise ModelError("not enough memory to reserve the state store; lower --max-states") from None
        try:
            found = self._search(pool, cap, by_memory, t0, stop_when)
        except BaseException:
            pool.close(wait=0.0)  # cut mid-step (a signal, a failure): no worker will answer, so none is awaited
            raise
        pool.close()
        return found

    def _pool(self, cap: int):
        if self.jobs == 1:
            return LocalPool(self.c, cap)
        from checks.engines.parallel import ProcessPool
        return ProcessPool(self.c, cap, self.jobs, ROUND)

    def _search(self, pool, cap: int, by_memory: bool, t0: float, stop_when) -> VectorExploration:
        search = _Round(self, pool, cap, by_memory, t0, stop_when)
        ex, cfg = search.ex, self.config
        frontier = search.seed()
        d = 0
        try:
            while len(frontier):
                if cfg.max_depth is not None and d >= cfg.max_depth:
                    search.stop(f"depth bound {cfg.max_depth} reached")
                    break
                search.starts.append(search.n)  # the first state of depth d + 1
                nxt: list = []
                for r0 in range(0, len(frontier), ROUND):
                    if not search.round(frontier[r0:r0 + ROUND], d, nxt):
                        break
                if not ex.complete:
                    break
                d += 1
                frontier = np.concatenate(nxt) if nxt else np.empty(0, dtype=np.int64)
                if cfg.progress:
                    print(f"  depth {d}: {search.n:,} states, {len(frontier):,} to expand, "
                          f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
        except MemoryError:
            search.stop(f"out of memory at depth {d + 1} ({search.n:,} states stored)")
        return search.finish()

    def _out_of_domain(self, oods, ex, ood, ood_index, parent, via, K, grow, count) -> None:
        """Successors outside a slot's domain: computed by the reference semantics, stored, not expanded."""
        model = self.model
        for p, a in oods:  # np.unique sorted them by (parent, action): the discovery order
            s = apply(model.actions[int(a)], ex.states[int(p)], model.schema)
            if s in ood_index:
                continue
            n = count()
            ood_index[s] = n
            ood[n] = s
            parent[n], via[n] = int(p), int(a)
            K[n] = 0
            ex.out_of_domain.append((n, model.schema.check(s)))
            self.beyond = self.beyond or BeyondDomain(model)
            # Violations the scalar engine would have found before this state need no second look (NOTE(domain)
            # in checks/engines/explicit.py); one this round committed after it in (parent, action) order does.
            before = {name for name, i in ex.violations.items() if first_found(parent, via, i, n) == i}
            for name in [DOMAIN] + self.beyond(s, int(a), before):
                ex.violations[name] = first_found(parent, via, n, ex.violations.get(name, n))
            grow(1)


def first_found(parent, via, a: int, b: int) -> int:
    """Of two stored states, the one the scalar engine finds first: by (parent, action), the order in which
    it expands parents and their actions. Within a round the in-domain states are numbered in that order
    but a state outside the domains is numbered after them (NOTE(domain)), so the index alone is not it."""
    return a if (int(parent[a]), int(via[a]), a) <= (int(parent[b]), int(via[b]), b) else b


class _Round:
    """One vector search in progress: the store's parent, action and layer arrays, the exploration it
    fills, and one round of a layer (expand a frontier slice, deduplicate, number, commit)."""

    def __init__(self, explorer: VectorExplorer, pool, cap: int, by_memory: bool, t0: float, stop_when):
        self.x, self.pool, self.cap, self.by_memory, self.t0, self.stop_when = \
            explorer, pool, cap, by_memory, t0, stop_when
        self.model, self.cfg, self.c = explorer.model, explorer.config, explorer.c
        self.parent = np.empty(cap, dtype=np.int32)
        self.via = np.empty(cap, dtype=np.uint16 if self.c.n_actions < 1 << 16 else np.int32)
        self.starts = [0]
        self.ood: dict = {}
        self.ood_index: dict = {}
        self.rows = _Rows(pool.K, 0, self.c.lay, self.ood)
        self.ex = VectorExploration(self.model, self.rows, _Ints(self.parent, 0), _Ints(self.via, 0),
                                    _Depths(self.starts, 0), True, None, 0.0)
        self.n = 0
        self.wnames = self.c.witness_names
        self.fired_a = np.zeros(self.c.n_actions, dtype=bool)

    def grow(self, k: int) -> None:
        self.n += k
        self.rows.n = self.ex.parent.n = self.ex.via.n = self.ex.depth.n = self.n

    def stop(self, reason: str) -> None:
        self.ex.complete, self.ex.stop_reason = False, reason

    def seed(self):
        """The initial states, checked by the reference semantics (there are few); the first frontier."""
        model, ex, sch, lay = self.model, self.ex, self.model.schema, self.c.lay
        seen, frontier, keys, kidx = set(), [], [], []
        for s in model.init:
            if s in seen:
                continue
            seen.add(s)
            self.parent[self.n], self.via[self.n] = -1, 0
            if sch.check(s):
                self.ood[self.n] = s
                ex.out_of_domain.append((self.n, sch.check(s)))
                for name in [DOMAIN] + BeyondDomain(model)(s, None, ex.violations):
                    ex.violations.setdefault(name, self.n)
            else:
                keys.append(lay.pack(s))
                kidx.append(self.n)
                bad = [p.name for p in model.invariants if not holds(model, p.predicate, s)]
                for name in bad:
                    ex.violations.setdefault(name, self.n)
                if not bad:
                    frontier.append(self.n)
            for w in (w for w in model.witnesses if not w.fires and w.predicate is not None):
                if w.name not in ex.witnesses and holds(model, w.predicate, s):
                    ex.witnesses[w.name] = (self.n, (), None)
            self.grow(1)
        if keys:
            self.pool.seed(np.stack(keys), np.array(kidx, dtype=np.int64))
        self.found = np.array([nm in ex.witnesses for nm in self.wnames], dtype=bool)
        return np.array(frontier, dtype=np.int64)

    def _expand(self, sl):
        ex = self.ex
        exps = self.pool.expand(sl, self.found)
        for e in exps:
            ex.transitions += e.transitions
            self.fired_a[e.fired] = True
            for wi, a, pre in e.hits:
                name = self.wnames[wi]
                if name not in ex.witnesses or (pre, a) < (ex.witnesses[name][0], ex.witnesses[name][2]):
                    ex.witnesses[name] = (pre, (), a)
        self.found[:] = [nm in ex.witnesses for nm in self.wnames]
        ex.deadlocks.extend(int(x) for x in np.sort(np.concatenate([e.dead for e in exps])))
        return exps

    def round(self, sl, d: int, nxt: list) -> bool:
        """Expand, deduplicate, number and commit one slice of the frontier; False once stopped."""
        c, n, ex = self.c, self.n, self.ex
        exps = self._expand(sl)
        # One job numbers its new states as it finds them: they go straight to K.
        disc = self.pool.dedup(exps, n) if self.x.jobs == 1 else self.pool.dedup(exps)
        total = sum(len(p) for p, _ in disc)
        oods = np.unique(np.concatenate([e.ood for e in exps]), axis=0)
        if n + total + len(oods) > self.cap:
            self.stop(f"memory budget reached at depth {d + 1} ({n:,} states stored)" if self.by_memory
                      else f"state budget {self.cfg.max_states:,} exhausted at depth {d + 1}")
            return False
        allp = np.concatenate([p for p, _ in disc])
        alla = np.concatenate([a for _, a in disc])
        order = np.argsort(allp.astype(np.uint64) * np.uint64(c.n_actions) + alla.astype(np.uint64), kind="stable")
        rank = np.empty(total, dtype=np.int64)
        rank[order] = np.arange(total)
        self.parent[n:n + total] = allp[order]
        self.via[n:n + total] = alla[order]
        gidx, off = [], 0
        for p, _ in disc:
            gidx.append(n + rank[off:off + len(p)])
            off += len(p)
        nxt.append(n + np.flatnonzero(~self._commit(gidx, total, n)))
        self.grow(total)
        self.x._out_of_domain(oods, ex, self.ood, self.ood_index, self.parent, self.via, self.pool.K, self.grow,
                              lambda: self.n)
        return not self._stopped(d)

    def _commit(self, gidx, total: int, n: int):
        """Commit the numbered states; a mask of those that are bad (not expanded), and the findings."""
        ex = self.ex
        bad = np.zeros(total, dtype=bool)
        for g, (bmask, viol, swit) in zip(gidx, self.pool.commit(gidx)):
            bad[g[bmask] - n] = True
            for k, gi in viol.items():
                name = self.model.invariants[k].name
                ex.violations[name] = first_found(self.parent, self.via, gi, ex.violations.get(name, gi))
            for k, gi in swit.items():
                name = self.c.state_witness_names[k]
                if name not in ex.witnesses or gi < ex.witnesses[name][0]:
                    ex.witnesses[name] = (gi, (), None)
        return bad

    def _stopped(self, d: int) -> bool:
        cfg = self.cfg
        if self.n > cfg.max_states:
            self.stop(f"state budget {cfg.max_states:,} exhausted at depth {d + 1}")
        elif cfg.out_of_time(self.t0):
            self.stop(f"timeout {cfg.timeout}s reached at depth {d + 1}")
        elif self.stop_when is not None and self.stop_when(self.ex):
            self.stop("stopped: target found")
        return not self.ex.complete

    def finish(self) -> VectorExploration:
        ex, n, model = self.ex, self.n, self.model
        ex.depth.arr = np.array(self.starts)
        ex.reached = ex.depth[n - 1] if n else 0
        ex.fired = {model.actions[a].rule.name for a in np.flatnonzero(self.fired_a)}
        ex.store_bytes = n * (self.pool.K.shape[1] * 8 + self.parent.itemsize + self.via.itemsize) \
            + self.pool.table_bytes()
        ex.seconds = time.perf_counter() - self.t0
        return ex


class LocalPool:
    """`--jobs 1`: the coordinator's own Worker does every step."""

    def __init__(self, c: VectorModel, cap: int):
        self.K = np.empty((cap, c.lay.words), dtype=np.uint64)
        self.w = Worker(c, self.K)

    def seed(self, keys, gidx):
        self.w.seed(keys, gidx)

    def expand(self, gidx, found):
        return [self.w.expand(gidx, found)]

    def dedup(self, exps, base: int = -1):
        if base + len(exps[0].keys) > len(self.K):
            base = -1  # might not fit: go through the pending rows; the capacity check then stops the search
        return [self.w.dedup(self.w.route(exps[0]), base)]

    def commit(self, gidx):
        return [self.w.commit(gidx[0])]

    def table_bytes(self) -> int:
        return self.w.table.nbytes()

    def close(self, wait: float = 1.0):
        pass
