"""`--jobs N` for the vector engine: N forked worker processes over shared-memory arrays.

Shared (anonymous `MAP_SHARED` mappings made before the fork, so no names to clean up): the key
store `K`, which every job reads when it expands a frontier slice and into which each owner writes
its new states; and one outbox per job, where an expanding job leaves its candidates sorted by
owning job (a hash partition of the packed key). Only small arrays travel through the pipes: the
frontier slice, the (parent, action) pairs of new states, their global numbers and the verdicts.

A step (expand, dedup, commit) is sent to every worker, then every answer is read, so the
workers run each step in parallel and the coordinator merges in a fixed order: results do not
depend on N or on timing. A worker's exception (MemoryError included) is re-raised here.

>>> # pool = ProcessPool(compiled, capacity, jobs=2); pool.expand(gidx, found); ...; pool.close()
"""
from __future__ import annotations

import mmap
import time
import traceback

import numpy as np

from checks.engines.pool import lockstep_worker
from checks.engines.worker import Expansion, Worker, owner_of

def _shared(shape: tuple, dtype) -> np.ndarray:
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    return np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape))).reshape(shape)


class _Outbox:
    """One job's candidates of the current round, grouped by owning job."""

    def __init__(self, rows: int, words: int):
        self.keys = _shared((rows, words), np.uint64)
        self.parent = _shared((rows,), np.int64)
        self.action = _shared((rows,), np.int32)
        self.hash = _shared((rows,), np.uint64)

    def part(self, lo: int, hi: int) -> tuple:
        return (self.keys[lo:hi], self.parent[lo:hi], self.action[lo:hi], self.hash[lo:hi])


def _serve(conn, compiled, K, boxes, me: int, jobs: int) -> None:
    # NOTE(workers): started by checks/engines/pool.py, after `become_worker`: the fork copied the CLI's
    # handlers, which would turn a Ctrl-C into an exception that this loop reports down a pipe nobody reads
    # any more. The coordinator alone handles interrupts and stops the workers (`ProcessPool.close`);
    # SIGTERM and SIGKILL end a worker at once, and so does the coordinator's death.
    from checks.engines.visited import hash_rows
    w = Worker(compiled, K, me, jobs)
    while True:
        cmd, args = conn.recv()
        reply: object
        if cmd == "close":
            return
        try:
            if cmd == "seed":
                w.seed(*args)
                reply = None
            elif cmd == "expand":
                e = w.expand(*args)
                h = hash_rows(e.keys)
                own = owner_of(h, jobs)
                perm = np.argsort(own, kind="stable")
                box, n = boxes[me], len(perm)
                box.keys[:n], box.parent[:n], box.action[:n], box.hash[:n] = (
                    e.keys[perm], e.parent[perm], e.action[perm], h[perm])
                bounds = np.searchsorted(own[perm], np.arange(jobs + 1))
                # Moved into the shared box above: not sent back through the pipe.
                e.keys = e.parent = e.action = None  # type: ignore[assignment]
                reply = (e, bounds)
            elif cmd == "dedup":
                reply = w.dedup([boxes[i].part(lo, hi) for i, lo, hi in args[0]])
            elif cmd == "commit":
                reply = w.commit(*args)
            elif cmd == "table_bytes":
                reply = w.table.nbytes()
            else:
                raise ValueError(f"unknown command {cmd!r}")
            conn.send(("ok", reply))
        except BaseException as exc:  # noqa: BLE001 - reported to the coordinator, which decides
            conn.send(("error", (type(exc).__name__, traceback.format_exc())))


class ProcessPool:
    """The vector engine's steps spread over `jobs` forked workers (same interface as LocalPool)."""

    def __init__(self, c, cap: int, jobs: int, round_size: int):
        self.jobs = jobs
        self.K = _shared((cap, c.lay.words), np.uint64)
        share = -(-round_size // jobs)  # np.array_split gives no part more than this
        self.boxes = [_Outbox(share * c.fanout, c.lay.words) for _ in range(jobs)]
        self.conns, self.procs = [], []
        for j in range(jobs):
            conn, p = lockstep_worker(_serve, (c, self.K, self.boxes, j, jobs))
            self.conns.append(conn)
            self.procs.append(p)

    def _all(self, msgs: list) -> list:
        for conn, m in zip(self.conns, msgs):
            conn.send(m)
        out, err = [], None
        for conn in self.conns:
            status, reply = conn.recv()
            if status == "error" and err is None:
                err = reply
            out.append(reply)
        if err is not None:
            if err[0] == "MemoryError":
                raise MemoryError(err[1])
            raise RuntimeError(f"vector worker failed: {err[1]}")
        return out

    def seed(self, keys, gidx):
        self._all([("seed", (keys, gidx))] * self.jobs)

    def expand(self, gidx, found) -> list[Expansion]:
        parts = np.array_split(gidx, self.jobs)
        got = self._all([("expand", (p, found)) for p in parts])
        self.bounds = [b for _, b in got]
        return [e for e, _ in got]

    def dedup(self, exps) -> list:
        return self._all([("dedup", ([(i, int(b[j]), int(b[j + 1])) for i, b in enumerate(self.bounds)],))
                          for j in range(self.jobs)])

    def commit(self, gidx: list) -> list:
        return self._all([("commit", (g,)) for g in gidx])

    def table_bytes(self) -> int:
        return sum(self._all([("table_bytes", ())] * self.jobs))

    def close(self, wait: float = 1.0):
        """Stop the workers. Idle ones read "close" and return; one still busy with a step (the search was
        interrupted or failed) would block sending a reply nobody reads, so it is killed after `wait`
        seconds (0 when the caller knows the search was cut: a signal's stop stays well within a second)."""
        for conn in self.conns:
            try:
                conn.send(("close", None))
            except OSError:
                pass
        deadline = time.monotonic() + wait
        for p in self.procs:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p.is_alive():
                p.kill()
                p.join(timeout=1.0)
        for conn in self.conns:
            conn.close()
