"""SIGINT and SIGTERM stop a run within a second, exit 130 and never print a verdict (NOTE(signals))."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def interrupt(args: list[str], after: float, sig: int, tmp_path) -> tuple[int, float, str, str]:
    env = dict(os.environ, RULECHECK_CACHE=str(tmp_path / "cache"))
    p = subprocess.Popen([sys.executable, "-c", "from checks.cli import run; run()", *args], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    sent = time.perf_counter()
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    return p.returncode, time.perf_counter() - sent, out, err


@pytest.mark.parametrize("args, after, sig", [
    # during the explicit search, then during Spacer (no proof cache, so Spacer really runs)
    (["check", "--proof-cache", "off"], 1.5, signal.SIGINT),
    (["check", "--proof-cache", "off"], 8.0, signal.SIGINT),
    (["prove", "--check", "extortion-once"], 3.0, signal.SIGTERM),
    (["leaks", "--engine", "z3"], 3.0, signal.SIGINT),
])
@pytest.mark.heavy
def test_a_signal_stops_the_run_with_130_and_no_verdict(args, after, sig, tmp_path):
    code, stop, out, err = interrupt(args, after, sig, tmp_path)
    assert code == 130, (out, err)
    assert stop < 1.0, stop
    assert "holds" not in out and "proved" not in out and "summary" not in out
    assert "interrupted by" in err and "Traceback" not in err
