"""One computation in a forked child process, beside the parent's own work (`rulecheck check`'s
small-bounds guards run beside its main search on a second core).

NOTE(background): the child is a plain `os.fork` (not a multiprocessing.Process: a mutant or sweep
worker is itself a daemonic pool process, which multiprocessing forbids to have children). It
ignores SIGINT, dies on SIGTERM and dies with its parent (NOTE(workers) in checks/interrupt.py): the
parent owns the signals (NOTE(signals)), and cancels the child whenever it stops waiting for it, on an
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
"""
from __future__ import annotations

import os
import pickle
import signal
import traceback
from typing import Callable

from checks.interrupt import become_worker


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

    def result(self):
        """The value of fn(); its exception is raised here. The child is always reaped."""
        if self._pid is None:
            return self._fn()
        try:
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
