"""Fuzzing the explorer's HTTP endpoints (issues 37 and 38): whatever a client sends, the answer is a
clear 4xx (or a 200), JSON with an `error` message when refused, never a 500 and never a traceback, and
no file appears outside `--out`.

Inputs: JSON documents with the endpoints' keys holding values of every JSON type (labels of the model
and random text, paths that run and paths that do not, names with separators, dots and control
characters, expectations of every shape), non-object JSON and raw bytes. The default selection runs a
bounded, deterministic sample (`derandomize=True`, no example database); `-m slow` runs 2,000 examples
per target.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer_support import Served, app, setup
from model.evaluate import successors

HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture,
          HealthCheck.filter_too_much]
CI = settings(max_examples=60, derandomize=True, deadline=None, database=None, suppress_health_check=HEALTH)
LONG = settings(max_examples=2000, derandomize=True, deadline=None, database=None, suppress_health_check=HEALTH)
ROUTES = ["/api/meta", "/api/view", "/api/explain", "/api/resolve", "/api/save", "/api/compare", "/api/nope"]
ALLOWED = {200, 400, 404, 405, 409, 411, 413, 415}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    s = Served(app(setup(), root / "out"))
    s.root = root
    yield s
    s.stop()


@pytest.fixture(scope="module")
def model(served):
    return served.server.app.a.model


def _walk(model, seed: int, n: int) -> list:
    rng, s, out = random.Random(seed), model.init[0], []
    for _ in range(n):
        nxt = successors(model, s)
        if not nxt:
            break
        a, s = rng.choice(nxt)
        out.append(a.label)
    return out


def documents(model):
    labels = [a.label for a in model.actions]
    scalar = st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=30)
    anything = st.recursive(scalar, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c,
                                                                                         max_size=4), max_leaves=12)
    label = st.sampled_from(labels) | st.text(max_size=60)
    runs = st.builds(lambda seed, n: _walk(model, seed, n), st.integers(0, 10**6), st.integers(0, 30))
    path = runs | st.lists(label, max_size=8) | anything
    names = st.sampled_from(["../up", "/tmp/abs", "a/b", "..", ".", "x.yaml", "", "~", "a\\b", "\u202eevil", "x\x00y",
                             "ok-name", "x" * 81]) | st.text(max_size=90) | anything
    expect = (st.sampled_from([{"reachable": True}, {"violates": "token-conservation"}, {"violates": "no-deadlock"},
                               {"values": {"turn": 1}}, {"values": {"spice[Moritani]": "7"}}]) |
              st.builds(lambda a: {"blocked": a}, label) | st.dictionaries(st.sampled_from(
                  ["reachable", "violates", "values", "blocked", "x"]), anything, max_size=2) | anything)
    keys = {"path": path, "observer": st.sampled_from(["designer", "Moritani", "Atreides", "Ecaz", "Harkonnen"]) | anything,
            "action": label | anything, "choice": label | anything, "name": names, "expect": expect,
            "because": st.text(max_size=40) | anything, "against": st.sampled_from(["default", "quintine", "../x"]) | anything,
            "at": st.integers(-3, 40) | anything}
    return st.fixed_dictionaries({}, optional=keys)


def check(served, status: int, doc, raw: bytes) -> None:
    assert status in ALLOWED, raw[:500]
    assert b"Traceback" not in raw and b'File "' not in raw, raw[:500]
    assert isinstance(doc, dict), raw[:200]
    if status >= 400:
        assert isinstance(doc.get("error"), str) and doc["error"], raw[:200]
    outside = sorted(p.name for p in served.root.iterdir())
    assert outside in (["out"], []), outside  # nothing written beside --out
    assert all(p.name.endswith(".scenario.yaml") for p in (served.root / "out").glob("*")) \
        if (served.root / "out").exists() else True


@pytest.mark.parametrize("tier", [pytest.param(CI, id="bounded"), pytest.param(LONG, id="2000", marks=pytest.mark.slow)])
def test_any_json_document_gets_a_clear_answer(served, model, tier):
    @tier
    @given(route=st.sampled_from(ROUTES), doc=documents(model))
    def run(route, doc):
        check(served, *served.post(route, doc))
    run()


@pytest.mark.parametrize("tier", [pytest.param(CI, id="bounded"), pytest.param(LONG, id="2000", marks=pytest.mark.slow)])
def test_any_bytes_get_a_clear_answer(served, tier):
    junk = (st.binary(max_size=300) | st.text(max_size=200).map(str.encode)
            | st.sampled_from([b"[" * 5000, b'{"path": [' * 3000, b"null", b"1e999", b'"x"', b"{}", b"[]",
                               b'{"path": NaN}', b"\xef\xbb\xbf{}", b'{"path": ["a"], "path": 3}']))

    @tier
    @given(route=st.sampled_from(ROUTES), body=junk)
    def run(route, body):
        check(served, *served.request("POST", route, raw=body))
    run()
