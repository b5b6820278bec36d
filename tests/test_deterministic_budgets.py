"""Issue 35: `prove`'s budgets are Z3 resource units and counts, never seconds.

The same cold `prove --format json` on a proposal the store has never seen gives the same verdicts and
lemma counts whether the machine is idle or loaded. The load is simulated by a clock that runs a
thousand times fast inside the inference, Houdini and `prove` (under the old wall-clock budgets, 480 s
of inference, the run below would have been cut after half a second); with no `--timeout` nothing may
change. With a `--timeout` that runs out, the properties left are inconclusive (exit 4), never fewer
proved.
"""
from __future__ import annotations

import json
import time
import types

import pytest

from checks.pipelines import proofs
from checks.pipelines.common import Options
from tests.test_infer import tiny
from model.moritani.config import Interpretation


def _no_seconds(x):
    if isinstance(x, dict):
        return {k: _no_seconds(v) for k, v in x.items() if k not in ("seconds", "elapsed", "wall")}
    if isinstance(x, list):
        return [_no_seconds(v) for v in x]
    return x


def _fast_clock(factor: float):
    real = time.perf_counter
    t0 = real()
    return types.SimpleNamespace(perf_counter=lambda: t0 + (real() - t0) * factor, monotonic=time.monotonic,
                                 time=time.time, sleep=time.sleep)


def _cold(monkeypatch, tmp_path, name: str, factor: float | None, timeout=None):
    from checks import clock
    from checks.analyses import infer
    from checks.engines.lemmacache import LemmaCache
    prop = tiny(Interpretation.of(extortion_payers="entrant-only"))
    monkeypatch.setattr(Options, "resolve", lambda self: prop)
    # A search from nothing (no entry to transfer from): the tiny model is far from every seed entry,
    # and a transfer from one takes many minutes on a loaded machine (its determinism: docs/lemmas.md).
    monkeypatch.setattr(LemmaCache, "declared", lambda self: [])
    if factor is not None:
        for mod in (clock, infer):  # every --timeout is counted by checks/clock.py
            monkeypatch.setattr(mod, "time", _fast_clock(factor))
    d = tmp_path / name
    d.mkdir()
    run = proofs.prove(Options(fmt="json", timeout=timeout), depth=6, proof_cache=str(d))
    monkeypatch.undo()
    return run


@pytest.mark.heavy
def test_a_cold_prove_gives_the_same_json_on_a_slow_clock(monkeypatch, tmp_path):
    idle = _cold(monkeypatch, tmp_path, "idle", None)
    slow = _cold(monkeypatch, tmp_path, "slow", 1000.0)
    a, b = json.loads(idle.stdout), json.loads(slow.stdout)
    assert _no_seconds(a["checks"]) == _no_seconds(b["checks"])
    ia, ib = a["z3"]["inference"], b["z3"]["inference"]
    assert ia["lemmas"] == ib["lemmas"] and ia["houdini_runs"] == ib["houdini_runs"], (ia, ib)
    assert idle.code == slow.code
    assert (tmp_path / "idle" / "inferred-lemmas.json").read_bytes() == \
        (tmp_path / "slow" / "inferred-lemmas.json").read_bytes()


def test_a_timeout_that_runs_out_leaves_every_property_inconclusive(monkeypatch, tmp_path):
    """--timeout 200 on a clock running 1000 times fast: out after 0.2 s, mid-search."""
    run = _cold(monkeypatch, tmp_path, "cut", 1000.0, timeout=200.0)
    doc = json.loads(run.stdout)
    assert run.code == 4, run.stdout[:2000]
    assert {r["verdict"] for r in doc["checks"]} == {"unknown"}
