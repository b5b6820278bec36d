"""Where a sweep's tasks run: a local process pool (`--jobs`) or a Dask distributed cluster (`--scheduler`).

Both executors take the same task function and the same plain-data jobs (checks/analyses/sweep.py)
and yield `(job, result, error)` as tasks finish, in any order; exactly one of `result` and `error`
is None. Nothing goes missing: a task that raises, or whose worker dies, is retried once
(`RETRIES`) and then yielded with its error.

- `PoolExecutor`: forked worker processes (concurrent.futures), at most `jobs` tasks in flight, so a
  worker that dies (the pool breaks) costs only the tasks that were running one attempt each; the
  pool is then rebuilt and the rest go on. Workers ignore SIGINT: the parent decides what a signal
  means (checks/interrupt.py) and kills them; they die with the parent (NOTE(workers)).
- `DaskExecutor`: a `distributed.Client` on an existing scheduler's address (or a cluster object,
  e.g. a `LocalCluster` in tests). Dask itself reschedules a task whose worker died and reports
  `KilledWorker` once it gave up; `retries=RETRIES` covers a task that raised. An address where no
  Dask scheduler answers within 10 s (nothing, an HTTP server, garbage, an unknown scheme) raises
  `SchedulerUnreachable` before any work (checks/analyses/sweep_scheduler.py).

>>> with PoolExecutor(1) as ex:
...     [(j, r, e) for j, r, e in ex.map(abs, [-3])]
[(-3, 3, None)]
"""
from __future__ import annotations

import multiprocessing as mp
import os
from typing import Literal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from checks.analyses.sweep_scheduler import SchedulerUnreachable, connect, describe
from checks.interrupt import become_worker

__all__ = ["DaskExecutor", "PoolExecutor", "SchedulerUnreachable"]

RETRIES = 1  # a failed task runs once more before it is reported failed


class PoolExecutor:
    """Forked local worker processes; `jobs` None: every core."""

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.workers = self.jobs
        self.where = f"a local process pool of {self.jobs}"
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb) -> Literal[False]:
        self._stop(kill=kind is not None)
        return False

    def _stop(self, kill: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:  # an interrupt or a failure in the parent: the running tasks are abandoned at once
            for p in list((getattr(pool, "_processes", None) or {}).values()):
                p.terminate()
        pool.shutdown(wait=not kill, cancel_futures=True)

    def _new_pool(self) -> ProcessPoolExecutor:
        self._stop(kill=True)
        self._pool = ProcessPoolExecutor(self.jobs, mp_context=mp.get_context("fork"), initializer=become_worker,
                                         initargs=(os.getpid(),))
        return self._pool

    def map(self, fn, jobs):
        """Run `fn(job)` for every job; yield (job, result, error) as each finishes."""
        todo = list(jobs)[::-1]
        attempts: dict = {}
        pool, running = self._new_pool(), {}
        while todo or running:
            while todo and len(running) < self.jobs:
                job = todo.pop()
                running[pool.submit(fn, job)] = job
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                job = running.pop(fut)
                try:
                    yield job, fut.result(), None
                    continue
                except BrokenProcessPool as err:
                    broken, error = True, f"a worker process died ({describe(err)})"
                except Exception as err:  # noqa: BLE001 - reported with the task, never lost
                    error = describe(err)
                attempts[id(job)] = attempts.get(id(job), 0) + 1
                if attempts[id(job)] > RETRIES:
                    yield job, None, error
                else:
                    todo.append(job)
            if broken:  # the other running tasks died with the pool: each loses one attempt too
                for fut, job in list(running.items()):
                    attempts[id(job)] = attempts.get(id(job), 0) + 1
                    if attempts[id(job)] > RETRIES:
                        yield job, None, "a worker process died"
                    else:
                        todo.append(job)
                running = {}
                pool = self._new_pool()


class DaskExecutor:
    """Tasks on a Dask distributed cluster: `address` is a scheduler address (tcp://host:8786) or a
    cluster object (a LocalCluster). The address is probed first (checks/analyses/sweep_scheduler.py):
    anything but a Dask scheduler answering within 10 s is `SchedulerUnreachable`."""

    def __init__(self, address):
        self.client = connect(address)
        self.workers = max(1, sum(w.get("nthreads", 1) for w in
                                  self.client.scheduler_info().get("workers", {}).values()))
        shown = address if isinstance(address, str) else type(address).__name__
        self.where = f"the Dask cluster at {shown} ({self.workers} worker thread(s))"
        self._futures: list = []

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb) -> Literal[False]:
        if kind is not None and self._futures:
            self.client.cancel(self._futures)
        self.client.close()
        return False

    def map(self, fn, jobs):
        from distributed import as_completed
        jobs = list(jobs)
        futures = {self.client.submit(fn, job, pure=False, retries=RETRIES): job for job in jobs}
        self._futures = list(futures)
        for fut in as_completed(futures, loop=self.client.loop):
            job = futures[fut]
            try:
                yield job, fut.result(), None
            except Exception as err:  # noqa: BLE001 - a task that failed after its retry, or KilledWorker
                yield job, None, describe(err)
            fut.release()
        self._futures = []
