"""Where the tool's caches live, and what happens when a place cannot be written.

Two caches are written between runs: numba's compiled probe loops (checks/engines/visited.py) and the
proof store (checks/engines/lemmacache.py). Neither is ever needed for a verdict. NOTE(read-only):
on a system-wide install, a read-only container layer or with `HOME` not writable, each degrades to
memory for the run (numba compiles in memory; the store keeps this run's entries in memory and
writes nothing), and says so once on stderr: every degradation is a
`CacheWarning`, which the CLI prints as `rulecheck: warning: ...`, each distinct message once
(checks/cli.py). docs/inputs.md, "Cache directories".

>>> import os
>>> os.environ["RULECHECK_CACHE"] = "off"; default_dir() is None
True
>>> os.environ["RULECHECK_CACHE"] = "/some/where"; str(default_dir())
'/some/where'
>>> del os.environ["RULECHECK_CACHE"]
"""
from __future__ import annotations

import contextlib
import os
import warnings
from pathlib import Path


class CacheWarning(UserWarning):
    """A cache could not be read or written where it lives; the run goes on without it."""


def chosen_dir(option: str | None) -> Path | None:
    """The directory a `--proof-cache DIR|off` option names: None when off, `default_dir()` when not given."""
    return default_dir() if option is None else None if option == "off" else Path(option)


def default_dir() -> Path | None:
    """The proof store's directory: `$RULECHECK_CACHE` ("off": none), else
    `$XDG_CACHE_HOME/rulecheck`, else `~/.cache/rulecheck`; None when there is no home to find."""
    env = os.environ.get("RULECHECK_CACHE")
    if env:
        return None if env == "off" else Path(env)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no HOME and no password entry: no place for a cache
            warn("no home directory to keep the proof store in; this run's proofs stay in memory "
                 "(set RULECHECK_CACHE to a writable directory)")
            return None
    return Path(base) / "rulecheck"


def unwritable(what: str, place, why: str | None) -> None:
    """Warn that `what` cannot be written at `place`: this run keeps its entries in memory."""
    warn(f"{what} cannot be written at {place} ({why or 'not writable'}); this run keeps its entries in "
         f"memory only, the verdicts do not depend on it (set RULECHECK_CACHE to a writable directory, "
         f"or 'off')")


def warn(message: str) -> None:
    """One cache problem, for the CLI to print once on stderr."""
    warnings.warn(message, CacheWarning, stacklevel=3)


@contextlib.contextmanager
def reported(say):
    """Within the block, each distinct `CacheWarning` message is passed once to `say` as
    `rulecheck: warning: ...` when it happens (also when the block then fails); every other Python
    warning is shown as Python would. The CLI wraps each command in it (checks/cli.py).

    >>> lines = []
    >>> with reported(lines.append):
    ...     warn("x"); warn("x")
    >>> lines
    ['rulecheck: warning: x']
    """
    seen: set = set()
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, CacheWarning):
            return shown(message, category, filename, lineno, file, line)
        if str(message) not in seen:
            seen.add(str(message))
            say(f"rulecheck: warning: {message}")

    with warnings.catch_warnings():
        warnings.simplefilter("always", CacheWarning)  # `seen` keeps each to one line
        warnings.showwarning = show
        yield
