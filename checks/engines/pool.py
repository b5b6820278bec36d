"""Every forked worker process of the tool starts here (issue 36: one process-pool layer).

- `TaskPool`: many independent jobs over `jobs` forked workers, at most `jobs` in flight, each
  finished job yielded with its result or its error (`rulecheck mutate`'s mutants, `sweep`'s local
  pool, the seed's transfers and trims). A worker that dies never costs the other jobs: the pool is
  rebuilt, the jobs then in flight run again alone, and only one that kills its worker alone (or raises)
  loses an attempt (`retries` more, then its error; NOTE(suspects)).
- `lockstep_worker`: one long-lived worker serving commands over a pipe (the vector engine's
  `--jobs N` search, checks/engines/parallel.py, whose workers share the state store).
- `Background`: one computation in a forked child beside the parent's own work (`rulecheck check`'s
  small-bounds guards and its Spacer proofs, beside the main search; a transfer's mining, beside its fast
  path: checks/analyses/mining.py).

All three fork (the workers inherit the built models and compiled rules instead of pickling them) and
call `become_worker` first (NOTE(workers) in checks/interrupt.py): they ignore SIGINT, since the parent
alone decides what a signal means and stops them, and they die with the parent.

NOTE(background): the Background child is a plain `os.fork` (not a multiprocessing.Process: it must
start from any process, a daemonic worker included, and multiprocessing forbids a daemonic process
children). It dies on SIGTERM. The parent cancels the child whenever it stops waiting for it, on an
interruption or an error as much as at the end. The child's wake-up pipe is detached so that the child's own
signals never look like the parent's. Its value (or its exception) comes back pickled through a
pipe; a child that ends without one is an internal error, never a verdict.

>>> job = Background(lambda: sum(range(10)), fork=True)
>>> job.result()
45
>>> Background(lambda: 1 // 0, fork=False).result()
Traceback (most recent call last):
...
ZeroDivisionError: integer division or modulo by zero
>>> with TaskPool(2) as pool:
...     sorted((j, r, e) for j, r, e in pool.map(abs, [-3, 4]))
[(-3, 3, None), (4, 4, None)]
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import select
import signal
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable, Iterator, Literal

from checks.interrupt import become_worker


def describe(err: BaseException) -> str:
    """An exception in one line: its type and the first line of its message.

    >>> describe(RuntimeError("bad 3\\nmore"))
    'RuntimeError: bad 3'
    """
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def _begin(parent: int, init: Callable | None, initargs: tuple) -> None:
    become_worker(parent)
    if init is not None:
        init(*initargs)


class TaskPool:
    """`fn(job)` for many jobs in forked workers (`jobs` None: every core); see the module's docstring.

    `init(*initargs)` runs once in each worker after `become_worker` (to build what every job needs).
    `map` yields `(job, result, error)` as each job finishes, in any order; exactly one of `result` and
    `error` is None, and `error` is one line (`describe`). Leaving the `with` block on an exception (an
    interrupt) terminates the running workers at once.
    """

    def __init__(self, jobs: int | None = None, init: Callable | None = None, initargs: tuple = (),
                 retries: int = 0):
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.init, self.initargs, self.retries = init, initargs, retries
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
        if kill:  # an interrupt or a failure in the parent: the running jobs are abandoned at once
            for p in list((getattr(pool, "_processes", None) or {}).values()):
                p.terminate()
        pool.shutdown(wait=not kill, cancel_futures=True)

    def _new_pool(self) -> ProcessPoolExecutor:
        self._stop(kill=True)
        self._pool = ProcessPoolExecutor(self.jobs, mp_context=mp.get_context("fork"), initializer=_begin,
                                         initargs=(os.getpid(), self.init, self.initargs))
        return self._pool

    def map(self, fn: Callable, jobs: Iterable) -> Iterator[tuple]:
        """Run `fn(job)` for every job; yield (job, result, error) as each finishes.

        NOTE(suspects): when a worker dies, the pool cannot say which of the jobs in flight killed it, so
        each of them is run again alone, without losing an attempt; a job whose worker dies while it runs
        alone (or that raises) loses one, and after `retries` more is reported with its error. An innocent
        job is never failed by another's crash."""
        todo: list = list(jobs)[::-1]
        suspects: list = []
        attempts: dict = {}
        pool = self._new_pool()
        running: dict = {}
        while todo or suspects or running:
            if suspects and not running:
                job = suspects.pop()
                running[pool.submit(fn, job)] = job
            while not suspects and todo and len(running) < self.jobs:
                job = todo.pop()
                running[pool.submit(fn, job)] = job
            alone = len(running) == 1
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                job = running.pop(fut)
                try:
                    yield job, fut.result(), None
                    continue
                except BrokenProcessPool as err:
                    broken, error = True, f"a worker process died ({describe(err)})"
                    if not alone:
                        suspects.append(job)
                        continue
                except Exception as err:  # noqa: BLE001 - reported with the job, never lost
                    error = describe(err)
                attempts[id(job)] = attempts.get(id(job), 0) + 1
                if attempts[id(job)] > self.retries:
                    yield job, None, error
                else:
                    (suspects if broken else todo).append(job)
            if broken:  # every job still in flight went down with the pool: each runs again alone
                suspects += list(running.values())
                running = {}
                pool = self._new_pool()
        self._stop(kill=False)


def lockstep_worker(serve: Callable, args: tuple):
    """(the parent's end of a pipe, the started process) of a daemonic forked worker running
    `serve(conn, *args)` after `become_worker`; the worker reads commands from `conn` until it returns."""
    ctx = mp.get_context("fork")
    a, b = ctx.Pipe()
    p = ctx.Process(target=_lockstep, args=(serve, b, os.getpid(), args), daemon=True)
    p.start()
    b.close()
    return a, p


def _lockstep(serve: Callable, conn, parent: int, args: tuple) -> None:
    become_worker(parent)
    serve(conn, *args)


class BackgroundFailed(RuntimeError):
    """The child ended without a value, or its exception could not be carried back (exit 1)."""


class Background:
    """`fn()` computed in a forked child when `fork` (else inline, at `result()`).

    `result()` returns its value or raises its exception; `cancel()` stops a child still running.
    """

    def __init__(self, fn: Callable, fork: bool = True):
        self._fn = fn
        self._pid: int | None = None
        self._fd: int | None = None
        if fork and hasattr(os, "fork"):
            self._start()

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
            os.close(read_fd)
            code = 0
            try:
                become_worker(parent)
                _send(write_fd, _outcome(self._fn))
            except BaseException:  # noqa: BLE001 - nothing may escape a forked child
                code = 1
            finally:
                os._exit(code)
        os.close(write_fd)
        self._pid, self._fd = pid, read_fd

    def result(self, timeout: float | None = None):
        """The value of fn(); its exception is raised here. The child is always reaped: `TimeoutError` when it has
        not answered within `timeout` seconds (None: no limit), and it is stopped."""
        if self._pid is None or self._fd is None:
            return self._fn()
        try:
            if timeout is not None and not select.select([self._fd], [], [], max(0.0, timeout))[0]:
                raise TimeoutError(f"no result within {timeout:.1f}s")
            data = _receive(self._fd)
            os.waitpid(self._pid, 0)  # it closed the pipe: it is leaving
            self._pid = None
        finally:
            self.cancel()
        if not data:
            raise BackgroundFailed("the background check process ended without a result")
        try:
            status, value = pickle.loads(data)
        except Exception as exc:  # noqa: BLE001 - a result that does not read back is the process failing
            raise BackgroundFailed(f"the background check's result could not be read back ({type(exc).__name__}: "
                                   f"{exc})") from None
        if status == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the child if it still runs, and reap it (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._pid is not None:
            try:
                if os.waitpid(self._pid, os.WNOHANG) == (0, 0):
                    os.kill(self._pid, signal.SIGTERM)
                    os.waitpid(self._pid, 0)
            except ChildProcessError:  # already reaped
                pass
            self._pid = None


def _outcome(fn: Callable) -> bytes:
    try:
        value = fn()
    except BaseException as exc:  # noqa: BLE001 - carried back to the parent, which raises it
        try:
            data = pickle.dumps(("error", exc))
            pickle.loads(data)  # an exception whose __init__ wants more than its message does not unpickle
            return data
        except Exception:  # an exception that does not travel: its text and traceback do
            text = "".join(traceback.format_exception(exc))
            return pickle.dumps(("error", BackgroundFailed(f"in the background check process: {text}")))
    try:
        return pickle.dumps(("ok", value))
    except Exception as exc:  # noqa: BLE001 - the value exists but cannot travel: an internal error
        return pickle.dumps(("error", BackgroundFailed(f"the background check's result could not be carried "
                                                       f"back ({type(exc).__name__}: {exc}): cannot pickle it")))


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.close(fd)


def _receive(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
