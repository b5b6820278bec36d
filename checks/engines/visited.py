"""The visited set of packed states: an open-addressing hash table compiled with numba.

Inserting a batch of candidate states is one loop with data-dependent branches (probe until an
empty slot or an equal key), which NumPy cannot vectorise well; numba compiles these few generic
functions once (cached on disk), so nothing here depends on the model. Measured on the four-turn
default bounds (9.5 M states): a lock-step NumPy version of the same probing took 24 s instead
of 8.6 s for the whole search; numba's runtime costs about 130 MB of memory, once.

The table holds int32 entries: 0 is empty, `g + 1` is state `g` of the shared key store `K`
(rows of uint64 words), `-(p + 1)` is row `p` of the pending store `P`: a state found new in
this round whose global number is not known yet (with several jobs, numbers are assigned only
after every partition has reported, NOTE(numbering) in `checks/engines/vector.py`). `commit`
then moves pending rows into `K` and points their entries at it.

>>> import numpy as np
>>> keys = np.array([[1, 2], [3, 4], [1, 2]], dtype=np.uint64)
>>> t = VisitedTable(2, 8)
>>> K = np.zeros((8, 2), dtype=np.uint64)
>>> pos = t.insert(K, keys, hash_rows(keys), np.arange(3))
>>> pos.tolist()
[0, 1, -1]
>>> t.commit(K, np.array([0, 1])); t.size
2
"""
from __future__ import annotations

import numpy as np
from numba import njit

from checks.engines.cachedirs import warn


def _compiled(fn):
    """`fn` compiled by numba, cached on disk where numba finds a writable place (next to this file,
    `$NUMBA_CACHE_DIR`, or the user's cache directory); compiled in memory, with one warning, where
    it finds none (NOTE(read-only) in checks/engines/cachedirs.py: a system-wide install, a read-only
    container layer, HOME not writable). The compiled code is the same either way."""
    try:
        return njit(cache=True)(fn)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available for file ..."
        warn("numba's compiled-code cache has no writable place (next to checks/engines/visited.py, in "
             "$NUMBA_CACHE_DIR or in the user's cache directory); the search compiles in memory, about a "
             "second more per run (set NUMBA_CACHE_DIR to a writable directory to keep it)")
        return njit(fn)

_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S = np.uint64(33)


@_compiled
def _hash(keys, i):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(keys.shape[1]):
        h ^= keys[i, w]
        h *= _M1
        h ^= h >> _S
    h *= _M2
    h ^= h >> _S
    return h


@_compiled
def hash_rows(keys):
    """A 64-bit hash per row (low bits pick the table slot, high bits the owning job)."""
    out = np.empty(keys.shape[0], dtype=np.uint64)
    for i in range(keys.shape[0]):
        out[i] = _hash(keys, i)
    return out


@_compiled
def _insert(table, K, P, slots, keys, hashes, order, newpos, base):
    mask = np.uint64(table.shape[0] - 1)
    W = keys.shape[1]
    npend = 0
    for j in range(order.shape[0]):
        i = order[j]
        s = hashes[i] & mask
        while True:
            e = table[s]
            if e == 0:
                if base >= 0:  # the numbers are known: store at once (no pending row, no second write)
                    table[s] = base + npend + 1
                    for w in range(W):
                        K[base + npend, w] = keys[i, w]
                else:
                    table[s] = -(npend + 1)
                    for w in range(W):
                        P[npend, w] = keys[i, w]
                    slots[npend] = s
                newpos[j] = npend
                npend += 1
                break
            same = True
            if e > 0:
                for w in range(W):
                    if K[e - 1, w] != keys[i, w]:
                        same = False
                        break
            else:
                for w in range(W):
                    if P[-e - 1, w] != keys[i, w]:
                        same = False
                        break
            if same:
                newpos[j] = -1
                break
            s = (s + np.uint64(1)) & mask
    return npend


@_compiled
def _commit(table, K, P, slots, gidx):
    for p in range(gidx.shape[0]):
        g = gidx[p]
        for w in range(K.shape[1]):
            K[g, w] = P[p, w]
        table[slots[p]] = g + 1


@_compiled
def _rehash(old, new, K):
    mask = np.uint64(new.shape[0] - 1)
    for s in range(old.shape[0]):
        e = old[s]
        if e > 0:
            t = _hash(K, e - 1) & mask
            while new[t] != 0:
                t = (t + np.uint64(1)) & mask
            new[t] = e


class VisitedTable:
    """One partition's visited set (states owned by one job), over the shared key store."""

    LOAD = 0.7  # linear probing stays short below this load factor

    def __init__(self, words: int, capacity: int = 1 << 16):
        self.words = words
        self.table = np.zeros(1 << max(4, int(capacity - 1).bit_length()), dtype=np.int32)
        self.size = 0
        self.P = np.empty((0, words), dtype=np.uint64)
        self.slots = np.empty(0, dtype=np.uint64)

    def nbytes(self) -> int:
        return self.table.nbytes

    def insert(self, K: np.ndarray, keys: np.ndarray, hashes: np.ndarray, order: np.ndarray,
               base: int = -1) -> np.ndarray:
        """Pending position of each candidate taken in `order` (-1: seen before or earlier in order).

        With `base` >= 0 (one job: the p-th new state is state base + p) new states go straight to
        K and the table, and `commit` has nothing left to move.
        """
        self.base = base
        need = self.size + len(order)
        if need > self.LOAD * len(self.table):
            n = len(self.table)
            while need > self.LOAD * n:
                n *= 2
            new = np.zeros(n, dtype=np.int32)
            _rehash(self.table, new, K)
            self.table = new
        if base < 0 and len(self.P) < len(order):
            self.P = np.empty((len(order), self.words), dtype=np.uint64)
            self.slots = np.empty(len(order), dtype=np.uint64)
        newpos = np.empty(len(order), dtype=np.int64)
        self.pending = _insert(self.table, K, self.P, self.slots, keys, hashes, order.astype(np.int64), newpos,
                               base)
        return newpos

    def pending_keys(self, K: np.ndarray) -> np.ndarray:
        return K[self.base:self.base + self.pending] if self.base >= 0 else self.P[:self.pending]

    def commit(self, K: np.ndarray, gidx: np.ndarray) -> None:
        """Pending row p becomes state gidx[p] of K."""
        if self.base < 0:  # else insert stored them already, as states base, base + 1, ...
            _commit(self.table, K, self.P, self.slots, gidx.astype(np.int64))
        self.size += len(gidx)
        self.pending = 0


def warm_up(words: int) -> None:
    """Load (or compile and cache, the first time) the numba functions before the search starts."""
    keys = np.zeros((1, words), dtype=np.uint64)
    t = VisitedTable(words, 4)
    K = np.zeros((1, words), dtype=np.uint64)
    t.insert(K, keys, hash_rows(keys), np.arange(1))
    t.commit(K, np.zeros(1, dtype=np.int64))
    t.insert(K, keys + np.uint64(1), hash_rows(keys), np.arange(1), 0)
    _rehash(t.table, np.zeros(len(t.table) * 2, dtype=np.int32), K)
