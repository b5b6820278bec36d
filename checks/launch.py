"""The `rulecheck` console script: signals are handled before anything heavy is imported.

Importing the CLI (Z3, NumPy, networkx, every engine) takes about a second; a Ctrl-C in that
second would otherwise print Python's KeyboardInterrupt traceback. The handlers go in first
(NOTE(signals) in checks/interrupt.py), then the CLI is imported and run.

>>> callable(run)
True
"""
from __future__ import annotations

import gc
import sys

from checks.interrupt import EXIT_INTERRUPTED, INTERRUPTS, Interrupted


def run() -> int | None:
    """Install the signal handlers, import the CLI, run it; the console script exits with what this
    returns (130 when a signal arrived during the imports)."""
    try:
        INTERRUPTS.install()
        from checks import cli
    except Interrupted as e:
        sys.stderr.write(f"rulecheck: {e}; stopped\n")
        return EXIT_INTERRUPTED
    tune_gc()
    cli.run()  # the CLI ends the process with the command's exit code (exit 0 if it returns)
    return None


def tune_gc() -> None:
    """Collect reference cycles less often: building a model and exploring it allocate hundreds of
    thousands of small objects, most freed by reference counting, and at CPython's default thresholds
    (700, 10, 10) the collector kept traversing them (`python benchmarks/build.py`: 80 model builds
    1.22 times faster, peak memory 1.05 times; `selftest` 136 s -> 114 s; docs/performance.md). What is
    imported by now lives as long as the process, so it leaves the collector's generations
    (`gc.freeze`). The test suite uses the same settings (tests/conftest.py)."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
