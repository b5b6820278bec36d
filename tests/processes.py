"""Helpers for the tests that start `rulecheck` as a process and look at what it leaves behind.

Each command runs in a process group of its own (`start_new_session`), so its workers, however deep,
can be listed afterwards from /proc (the group's ID is the command's pid) and none of them can
escape the check by being reparented. Linux only: the tests that use these skip elsewhere.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINUX = Path("/proc/self/stat").exists()
needs_proc = pytest.mark.skipif(not LINUX, reason="lists processes through /proc")


def start(args: list, env: dict | None = None, **kw) -> subprocess.Popen:
    """`rulecheck ARGS` (the console script's entry point) in a new process group."""
    return subprocess.Popen([sys.executable, "-c", "from checks.launch import run; import sys; sys.exit(run())",
                             *[str(a) for a in args]], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def group(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group `pgid`."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            out.append(int(d.name))
    return sorted(out)


def wait_for_group(pgid: int, size: int, limit: float = 120.0) -> list[int]:
    """Wait until the group holds at least `size` processes (the command and its workers)."""
    t0 = time.perf_counter()
    while len(members := group(pgid)) < size:
        assert time.perf_counter() - t0 < limit, f"the group never reached {size} processes: {members}"
        time.sleep(0.05)
    return members


def survivors(pgid: int, limit: float = 10.0) -> list[int]:
    """Wait up to `limit` seconds for group `pgid` to be empty; whoever is left (then killed, so that a
    failing test leaves nothing running)."""
    t0 = time.perf_counter()
    while (left := group(pgid)) and time.perf_counter() - t0 < limit:
        time.sleep(0.05)
    if left:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left
