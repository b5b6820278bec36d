"""The forked helper of `rulecheck check` (NOTE(background)): values and errors come back, a child that
dies without a value is an internal error, a cancelled child is gone, and the report does not depend
on whether the small-bounds guards ran beside the main search or after it."""
from __future__ import annotations

import json
import os
import signal
import time

import pytest

from checks.engines.pool import Background, BackgroundFailed


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("fork", [True, False])
def test_the_value_and_the_exception_come_back(fork):
    assert Background(lambda: {"states": 2358, "verdicts": ("holds",)}, fork=fork).result() == \
        {"states": 2358, "verdicts": ("holds",)}
    with pytest.raises(KeyError, match="stronghold"):
        Background(lambda: {}["stronghold"], fork=fork).result()


def test_a_child_that_dies_without_a_value_is_an_internal_error():
    job = Background(lambda: os._exit(3))
    with pytest.raises(BackgroundFailed, match="ended without a result"):
        job.result()


def test_a_value_that_does_not_pickle_is_an_internal_error_with_its_reason():
    with pytest.raises(BackgroundFailed, match="pickle"):
        Background(lambda: (lambda: 0)).result()


def test_a_wait_longer_than_its_timeout_stops_the_child():
    """`--timeout` is a cap on the whole command: a lemma search waiting for its mined states (issue 35) waits no
    longer than what is left of it, and the child it gives up on is stopped, not left running."""
    job = Background(lambda: time.sleep(30) or 1)
    pid = job._pid
    with pytest.raises(TimeoutError, match="within 0.2s"):  # not its value, 30 s later
        job.result(timeout=0.2)
    assert _gone(pid)
    assert Background(lambda: 7).result(timeout=30) == 7  # a child that answers in time: its value


def test_cancel_stops_and_reaps_a_running_child(monkeypatch):
    """The child is ended by a signal (SIGTERM), not waited for until it finishes: its exit status says so,
    with no stopwatch."""
    job = Background(lambda: time.sleep(60))
    pid = job._pid
    assert pid is not None and not _gone(pid)
    statuses, real = [], os.waitpid

    def waitpid(p, options):
        got = real(p, options)
        statuses.append(got)
        return got
    monkeypatch.setattr(os, "waitpid", waitpid)
    job.cancel()
    assert _gone(pid)
    ended = [status for p, status in statuses if p == pid]  # the WNOHANG probe found it running: (0, 0)
    assert len(ended) == 1 and os.WIFSIGNALED(ended[0]) and os.WTERMSIG(ended[0]) == signal.SIGTERM, statuses
    calls = len(statuses)
    job.cancel()  # idempotent: nothing left to wait for
    assert len(statuses) == calls


def test_the_child_ignores_sigint_so_the_parent_decides():
    """Ctrl-C reaches the whole process group; only the parent turns it into exit 130 and cancels."""
    job = Background(lambda: (time.sleep(0.5), "finished")[1])
    os.kill(job._pid, signal.SIGINT)
    assert job.result() == "finished"


def _comparable(text: str) -> dict:
    report = json.loads(text)
    report.pop("summary")["seconds"]
    for c in report["checks"]:
        c.pop("seconds", None)
    report.get("exploration", {}).pop("seconds", None)
    report.get("exploration", {}).pop("states_per_second", None)
    return report


@pytest.mark.heavy
def test_check_reports_the_same_with_the_guards_beside_or_after(tmp_path):
    from checks.pipelines.check import check
    from checks.pipelines.common import Options
    prop = tmp_path / "p.yaml"
    prop.write_text("name: beside\nbounds:\n  turns: 1\ndefects: [face-printed]\n")
    runs = [check(Options(proposal=str(prop), fmt="json"), z3_budget=200_000, proof_cache="off", jobs=jobs)
            for jobs in (1, 2)]
    assert runs[0].code == runs[1].code == 12
    assert _comparable(runs[0].stdout) == _comparable(runs[1].stdout)
    leaks = [c for c in json.loads(runs[1].stdout)["checks"] if c["id"] == "hidden-identity"]
    assert leaks and all(c["verdict"] == "violated" and c["depth"] == 2 for c in leaks)


# -- the task pool (checks/engines/pool.py): mutate, sweep and the seed's regeneration share it -----------

_READY: dict = {}


def _ready(value: int) -> None:
    _READY["base"] = value


def _plus_base(x: int) -> int:
    if x < 0:
        os._exit(3)  # this worker dies: its job is reported, the others still finish
    return _READY["base"] + x


def test_the_task_pool_initialises_each_worker_and_reports_a_dead_one_without_losing_the_rest():
    from checks.engines.pool import TaskPool
    with TaskPool(2, init=_ready, initargs=(100,)) as pool:
        got = sorted(pool.map(_plus_base, [1, -1, 2, 3]), key=lambda t: t[0])
    assert [(j, r) for j, r, _ in got] == [(-1, None), (1, 101), (2, 102), (3, 103)]
    assert got[0][2].startswith("a worker process died") and all(e is None for _, _, e in got[1:])
