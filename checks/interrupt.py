"""SIGINT and SIGTERM stop every engine promptly and are never reported as a verdict.

NOTE(signals): signal dispositions belong to the process, so this is the one piece of
process-wide state in `checks/`: the CLI installs the handlers (`Interrupts.install`), and
every Z3 context an Encoder creates registers itself (`register`). Nothing happens unless the
CLI installed the handlers (checks/launch.py, before the heavy imports, so that a signal during
the first second is handled too); library users and tests keep Python's defaults.

Two paths, because a Z3 query runs in C with the GIL released and Python signal handlers only
run between bytecodes:

- Python-level: the handler records the signal and raises `Interrupted` in the main thread, which
  stops the explicit engines at their next bytecode.
- C-level: `signal.set_wakeup_fd` makes the interpreter write the signal number to a pipe the
  moment it arrives; a watcher thread reads it and from then on calls `interrupt()` on every
  registered Z3 context every 20 ms, so a running query returns within milliseconds (and one that
  starts a moment later too), and then the Python handler raises. When the handler must not raise
  where it landed (in a destructor, in Z3's error callback, or in a protected file: `_deferred`), the
  watcher simulates the signal again every 20 ms (`_thread.interrupt_main`) until it has raised once;
  one raised where Python drops it (e.g. the at-fork hook of `logging` when a worker process starts)
  counts as not raised (`sys.unraisablehook`). Once a signal is recorded, what other threads and
  destructors report as they are torn down (a pool whose workers the signal killed) is not printed:
  the CLI reports the stop once. `decide`
  (checks/engines/encode.py) raises before a query and after any answer once a signal arrived, and
  the CLI reports any failure after a signal as the interruption it is (exit 130): a query cut
  while its model was read is never a trace, a verdict or an internal error.

Z3's own Ctrl-C handling is switched off (`ctrl_c=false`) so that it cannot swallow SIGINT and
turn it into an ordinary `unknown` that a pipeline would carry on from.

NOTE(workers): every forked worker (the vector engine's, the background guards, mutate's and sweep's
pools) starts with `become_worker(parent)`: it ignores SIGINT (the parent decides what a Ctrl-C means
and stops it), dies on SIGTERM, never writes to the parent's wake-up pipe, and dies with its parent.
A parent killed outright (SIGKILL, the OOM killer) runs no cleanup, and a worker blocked on a pipe or
busy with a model would otherwise live on (over a minute was measured, issue 40). On Linux the kernel
sends SIGKILL to the worker when the thread that forked it ends (`prctl(PR_SET_PDEATHSIG)`, through
ctypes); elsewhere a thread polls the parent's pid every `PARENT_POLL` seconds.
"""
from __future__ import annotations

import _thread
import atexit
import os
import signal
import sys
import threading
import time
import weakref

EXIT_INTERRUPTED = 130
PARENT_POLL = 0.25  # seconds between two looks at the parent's pid where prctl is not available
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class Interrupted(Exception):
    """The user (SIGINT) or the system (SIGTERM) asked the run to stop."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


class Interrupts:
    """Which signal arrived (if any) and the Z3 contexts to cancel when one does."""

    def __init__(self):
        self.signum: int | None = None
        self._contexts: weakref.WeakSet = weakref.WeakSet()
        self._installed = False
        self._lock = threading.Lock()  # held while the watcher cancels: `quiesce` waits for it
        self._quiet = False
        self._protected: set = set()  # source files whose code a signal never cuts in the middle
        self._z3_quiet = False  # Z3's own Ctrl-C handling is off (`quiet_z3`)
        self._raised = False  # the handler raised Interrupted once: it never raises again (the CLI is unwinding)
        self._owner: int | None = None  # the process that installed the handlers (its forks inherit them)

    @property
    def installed(self) -> bool:
        """Did the CLI install the handlers (a real `rulecheck` process, not a library user or a test)?"""
        return self._installed

    def register(self, ctx) -> None:
        """A Z3 context to interrupt on a signal (cheap: a weak reference); no new work after one."""
        self.raise_if_interrupted()
        self._contexts.add(ctx)

    def quiet_z3(self) -> None:
        """Switch Z3's own Ctrl-C handling off, once, in a process whose handlers are installed; called
        before a Z3 context is created (the launcher installs before z3 is imported)."""
        if not self._installed or self._z3_quiet:
            return
        self._z3_quiet = True
        try:
            import z3
            z3.set_param("ctrl_c", False)
        except Exception:  # z3 missing or a version without the parameter: the watcher still cancels
            pass

    def raise_if_interrupted(self) -> None:
        if self.signum is not None:
            self._raised = True  # the run unwinds from here: the watcher stops simulating the signal
            raise Interrupted(self.signum)

    def _cancel_z3(self) -> None:
        with self._lock:
            if self._quiet:
                return
            for ctx in list(self._contexts):
                try:
                    ctx.interrupt()
                except Exception:  # a context being torn down: nothing left to cancel
                    pass

    def quiesce(self) -> None:
        """No more cancelling from the watcher (the process is about to exit: Z3 contexts are being
        torn down, and interrupting one then could crash the interpreter)."""
        with self._lock:
            self._quiet = True

    def protect(self, filename: str) -> None:
        """Never raise in the middle of code from `filename` (or what it calls): the signal is recorded and
        raised at that code's next checkpoint (`raise_if_interrupted`). For the few places where being cut
        would leave debris: a temporary file created but not yet removed or renamed."""
        self._protected.add(os.path.abspath(filename))

    def _deferred(self, frame) -> bool:
        while frame is not None:
            code = frame.f_code
            # An exception raised in a destructor (z3's `__del__`s run at any allocation) or in a ctypes
            # callback (Z3's error handler runs when a cancelled query unwinds) is printed and dropped; the
            # flag stays set, and the watcher or the next checkpoint raises it. Elsewhere in z3's Python
            # wrappers raising is safe: only the process's exit follows, and building a large formula
            # there must not hold the signal back for seconds.
            if code.co_filename in self._protected or code.co_name in ("__del__", "z3_error_handler"):
                return True
            frame = frame.f_back
        return False

    def _handler(self, signum, frame):
        if self._owner is not None and os.getpid() != self._owner:
            # A forked worker between its fork and `become_worker` (multiprocessing's own start-up runs
            # first): it answers as a worker would (NOTE(workers)), never with Interrupted, which printed a
            # traceback from the pool's bootstrap when the signal came in that window.
            if signum == signal.SIGTERM:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)
            return
        if self.signum is None:
            self.signum = signum
        self._cancel_z3()
        if self._raised or self._deferred(frame):
            return
        self._raised = True
        raise Interrupted(self.signum)

    def install(self) -> None:
        """Handle SIGINT and SIGTERM for this process (the CLI calls this once, in the main thread)."""
        if threading.current_thread() is not threading.main_thread():
            return
        if self._installed:
            return
        self._installed = True
        self._owner = os.getpid()
        # NOTE(workers): every process this one forks is a worker (pools, the background guards); it takes a
        # worker's signal handling at once, before multiprocessing's own start-up runs, so a signal in that
        # window neither raises Interrupted there nor wakes the parent's watcher through the shared pipe.
        os.register_at_fork(after_in_child=_as_worker)
        if "z3" in sys.modules:  # else before the first Z3 context (`quiet_z3`, checks/engines/encode.py)
            self.quiet_z3()
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)
        signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._handler)
        previous = sys.unraisablehook

        def unraisable(u):
            # Raised where Python can only print and drop it (an at-fork hook, a weakref or ctypes
            # callback, a destructor `_deferred` missed): not printed, and raised again by the watcher.
            if isinstance(u.exc_value, Interrupted):
                self._raised = False
                return
            if self.signum is not None:
                return  # debris of the stop (below)
            previous(u)

        sys.unraisablehook = unraisable
        previous_thread_hook = threading.excepthook

        def thread_failed(args):
            # Once a signal arrived the run only unwinds, and the threads of a pool whose workers the signal
            # killed fail as they are torn down (concurrent.futures' manager thread printed half a traceback
            # just before "interrupted by SIGTERM"): the stop is reported once, by the CLI, never as a crash.
            if self.signum is not None:
                return
            previous_thread_hook(args)

        threading.excepthook = thread_failed

        def watch():
            data = os.read(read_fd, 1)
            if not data:
                return
            if self.signum is None:
                self.signum = data[0]
            # Keep cancelling until the CLI exits (`quiesce`): a query that starts just after the first
            # cancel (the signal landed while Python was building it) is cancelled too. Until the handler
            # has raised, simulate the signal again: it may have landed where it could only be recorded.
            while not self._quiet:
                self._cancel_z3()
                if not self._raised:
                    _thread.interrupt_main(self.signum)
                time.sleep(0.02)

        threading.Thread(target=watch, name="rulecheck-signals", daemon=True).start()
        atexit.register(self.quiesce)


INTERRUPTS = Interrupts()  # NOTE(signals): the process's one instance


def _as_worker() -> None:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def become_worker(parent: int) -> None:
    """Called first thing in a forked worker process (NOTE(workers)); `parent` is the pid of the process
    that forked it, taken before the fork (the worker's own `os.getppid()` could already be init's).

    >>> import os
    >>> pid = os.fork()
    >>> if pid == 0:  # the worker: it is told its parent is a pid that has already gone, so it dies at once
    ...     become_worker(parent=-1); os._exit(0)
    >>> os.waitpid(pid, 0)[1] != 0
    True
    """
    _as_worker()
    if not _kill_me_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), name="rulecheck-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request above took effect
        os.kill(os.getpid(), signal.SIGKILL)


def _kill_me_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc symbol (a static or unusual build): poll instead
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os.kill(os.getpid(), signal.SIGKILL)
