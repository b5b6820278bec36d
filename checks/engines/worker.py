"""One job's share of a vector search round: expand frontier rows, deduplicate owned states, check them.

The same object runs in the main process (`--jobs 1`) and in each worker process
(`checks/engines/parallel.py`); the coordinator (`checks/engines/vector.py`) only merges what
the workers report. A job expands any slice of the frontier (the key store `K` is shared), but
deduplicates and checks only the states it owns: those whose key hash falls in its partition.

>>> # w = Worker(compiled, K, owner=0, jobs=1); ex = w.expand(gidx, found); w.dedup([...]); w.commit(...)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from checks.engines.visited import VisitedTable, hash_rows


@dataclass
class Expansion:
    """What expanding one frontier slice produced (candidates still unnumbered)."""

    keys: np.ndarray            # (C, W) successor words, in-domain successors only
    parent: np.ndarray          # (C,) global index of the pre-state
    action: np.ndarray          # (C,) action index
    ood: np.ndarray             # (k, 2) (parent, action) of successors that left a slot's domain
    dead: np.ndarray            # global indices of deadlocked states of the slice
    hits: list = field(default_factory=list)   # (witness index, action, pre global index)
    fired: np.ndarray | None = None  # action indices that were enabled somewhere
    transitions: int = 0


def owner_of(hashes: np.ndarray, jobs: int) -> np.ndarray:
    """The job that owns each state: high hash bits (the table slot uses the low ones)."""
    return ((hashes >> np.uint64(40)) % np.uint64(jobs)).astype(np.int64)


class Worker:
    def __init__(self, compiled, K: np.ndarray, owner: int = 0, jobs: int = 1):
        self.c, self.K, self.owner, self.jobs = compiled, K, owner, jobs
        self.table = VisitedTable(compiled.lay.words)

    def expand(self, gidx: np.ndarray, found) -> Expansion:
        """Every enabled action on the states `gidx` (one generated call per stage present)."""
        c, lay = self.c, self.c.lay
        W = lay.words
        rows = self.K[gidx]
        if c.dslot is not None:
            st = ((rows[:, lay.word[c.dslot]] >> np.uint64(lay.shift[c.dslot]))
                  & np.uint64(lay.mask[c.dslot])).astype(np.int32)
            perm = np.argsort(st, kind="stable")
            counts = np.bincount(st, minlength=len(c.buckets))
            rows, gidx = rows[perm], gidx[perm]
        else:
            counts = np.array([len(gidx)])
        cols = [np.ascontiguousarray(rows[:, w]) for w in range(W)]
        del rows
        kw: list[list] = [[] for _ in range(W)]
        kp, ka, op, oa, dead, hits, fired = [], [], [], [], [], [], set()
        transitions, lo = 0, 0
        for v, cnt in enumerate(counts):
            if not cnt:
                continue
            hi = lo + int(cnt)
            seg = gidx[lo:hi]
            out, dd, hh = c.buckets[v if c.dslot is not None else None](*[x[lo:hi] for x in cols], found)
            lo = hi
            for a, r, words, bad in out:
                par = seg[r]
                transitions += len(r)
                fired.add(a)
                if bad is not None and bad.any():
                    op.append(par[bad])
                    oa.append(np.full(int(bad.sum()), a, dtype=np.int64))
                    keep = ~bad
                    par, words = par[keep], [x[keep] for x in words]
                for w in range(W):
                    kw[w].append(words[w])
                kp.append(par)
                ka.append(np.full(len(par), a, dtype=np.int32))
            if dd is not None and len(dd):
                dead.append(seg[dd])
            hits += [(wi, a, int(seg[row])) for wi, a, row in hh]
        n = sum(len(p) for p in kp)
        keys = np.empty((n, W), dtype=np.uint64)
        for w in range(W):
            if n:
                keys[:, w] = np.concatenate(kw[w])
        cat = lambda xs, t: np.concatenate(xs).astype(t) if xs else np.empty(0, dtype=t)  # noqa: E731
        ood = np.stack([cat(op, np.int64), cat(oa, np.int64)], axis=1)
        return Expansion(keys, cat(kp, np.int64), cat(ka, np.int32), ood, np.sort(cat(dead, np.int64)), hits,
                         np.array(sorted(fired), dtype=np.int64), transitions)

    def route(self, ex: Expansion) -> list:
        """The expansion's candidates split by owning job: [(keys, parent, action, hashes)] per job."""
        h = hash_rows(ex.keys)
        if self.jobs == 1:
            return [(ex.keys, ex.parent, ex.action, h)]
        own = owner_of(h, self.jobs)
        perm = np.argsort(own, kind="stable")
        bounds = np.searchsorted(own[perm], np.arange(self.jobs + 1))
        out = []
        for j in range(self.jobs):
            p = perm[bounds[j]:bounds[j + 1]]
            out.append((ex.keys[p], ex.parent[p], ex.action[p], h[p]))
        return out

    def dedup(self, parts: list, base: int = -1) -> tuple[np.ndarray, np.ndarray]:
        """Insert this job's candidates in discovery order (parent, then action); (parent, action) of the new ones.

        NOTE(numbering): the first discovery of a state is the least (parent, action) pair that
        reaches it, whatever the number of jobs, so the global numbering built from these pairs
        is the same for every `--jobs`.
        """
        if len(parts) == 1:
            keys, parent, action, h = parts[0]
        else:
            keys, parent, action, h = (np.concatenate([p[i] for p in parts]) for i in range(4))
        self.via_pending = None
        sk = parent.astype(np.uint64) * np.uint64(self.c.n_actions) + action.astype(np.uint64)
        order = np.argsort(sk, kind="stable")
        pos = self.table.insert(self.K, keys, h, order, base)
        sel = order[pos >= 0]
        self.via_pending = action[sel]
        return parent[sel], action[sel]

    def commit(self, gidx: np.ndarray) -> tuple:
        """Store the pending states as `gidx`; check the invariants an action could have broken.

        NOTE(incremental), as in checks/engines/explicit.py: the parent satisfied every invariant, so only
        invariants reading a slot the action writes are evaluated. Returns (bad mask over gidx,
        {invariant: least violating gidx}, {state witness: least satisfying gidx}).
        """
        c = self.c
        keys = self.table.pending_keys(self.K)
        cols = [np.ascontiguousarray(keys[:, w]) for w in range(c.lay.words)]
        self.table.commit(self.K, gidx)
        bad = np.zeros(len(gidx), dtype=bool)
        viol, swit = {}, {}
        for k, fn in enumerate(c.invariants):
            rows = np.flatnonzero(c.need[k][self.via_pending])
            if not len(rows):
                continue
            ok = fn(*[x[rows] for x in cols])
            hit = rows[~ok]
            if len(hit):
                bad[hit] = True
                viol[k] = int(gidx[hit].min())
        for k, fn in enumerate(c.state_witnesses):
            hit = np.flatnonzero(fn(*cols))
            if len(hit):
                swit[k] = int(gidx[hit].min())
        return bad, viol, swit

    def seed(self, keys: np.ndarray, gidx: np.ndarray) -> None:
        """Initial states: owned ones go into the table as they are (already deduplicated)."""
        h = hash_rows(keys)
        mine = np.arange(len(keys)) if self.jobs == 1 else np.flatnonzero(owner_of(h, self.jobs) == self.owner)
        if len(mine):
            self.table.insert(self.K, keys[mine], h[mine], np.arange(len(mine)))
            self.table.commit(self.K, gidx[mine])
