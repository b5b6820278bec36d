"""Where a sweep's tasks run: a local process pool (`--jobs`) or a Dask distributed cluster (`--scheduler`).

Both executors take the same task function and the same plain-data jobs (checks/analyses/sweep.py)
and yield `(job, result, error)` as tasks finish, in any order; exactly one of `result` and `error`
is None. Nothing goes missing: a task that raises, or whose worker dies, is retried once
(`RETRIES`) and then yielded with its error.

- `PoolExecutor`: the tool's one task pool (`TaskPool`, checks/engines/pool.py): forked workers, at
  most `jobs` tasks in flight; a worker that dies breaks the pool, which is rebuilt, and the tasks
  then in flight run again alone (NOTE(suspects)), so only the one that kills its worker is charged.
  Workers ignore SIGINT: the parent decides what a signal means (checks/interrupt.py) and kills them;
  they die with the parent (NOTE(workers)).
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

from typing import Literal

from checks.analyses.sweep_scheduler import SchedulerUnreachable, connect
from checks.engines.pool import TaskPool, describe

__all__ = ["DaskExecutor", "PoolExecutor", "SchedulerUnreachable"]

RETRIES = 1  # a failed task runs once more before it is reported failed


class PoolExecutor(TaskPool):
    """Forked local worker processes (checks/engines/pool.py), each task retried once; `jobs` None:
    every core."""

    def __init__(self, jobs: int | None = None):
        super().__init__(jobs, retries=RETRIES)
        self.workers = self.jobs
        self.where = f"a local process pool of {self.jobs}"


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
