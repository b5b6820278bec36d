"""The `rulecheck` console script: signals are handled before anything heavy is imported.

Importing the CLI (Z3, NumPy, networkx, every engine) takes about a second; a Ctrl-C in that
second would otherwise print Python's KeyboardInterrupt traceback. The handlers go in first
(NOTE(signals) in checks/interrupt.py), then the CLI is imported and run.

>>> callable(run)
True
"""
from __future__ import annotations

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
    return cli.run()
