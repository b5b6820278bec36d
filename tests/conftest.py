"""Shared fixtures (the explored default profile, the small bounds; toy models: tests/toys.py), an isolated proof store,
and the test tiers.

Tiers: `python -m pytest -m fast` is the edit-test loop (1,139 tests, 287 s of CPU, 2 min 43 s on two idle cores,
2026-12-03; 3 min 52 s before the tests of three seconds or more were marked `heavy`): every test except those marked
`heavy` (each takes several seconds: big explorations, Z3 proofs, subprocesses) or `slow`. The default selection (`python -m pytest`, what CI runs) is everything but `slow`;
`-m slow` runs the larger configurations whose bounded form the default selection covers.
"""
from __future__ import annotations

import os
import tempfile

import pytest

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.moritani.build import build_model
# SMALL: a configuration every test can afford to enumerate completely (one stronghold with the Ambassador, one
# turn). The toy models moved to tests/toys.py; both names stay importable from here.
from tests.toys import SMALL, counter_model, explored_config as _explored_config  # noqa: F401


def explore(model, stop_when=None, **config):
    """The complete search `check` makes of `model`: the vector engine, in one process (about three times the scalar
    explorer's speed on a profile's bounds: 2.3 s against 6.9 s on the default one). For tests of the game's rules;
    the engines' agreement is tests/test_vector.py's and tests/test_explore.py's job. A test that reads every
    reachable state in Python asks for `engine="scalar"`, which keeps them as tuples (the vector engine decodes each).

    >>> from tests.toys import counter_model
    >>> explore(counter_model()).complete
    True
    """
    from checks.analyses.verdicts import make_explorer
    return make_explorer(model, CheckConfig(**({"engine": "vector", "jobs": 1} | config))).run(stop_when)


@pytest.fixture(scope="session")
def default_model():
    return build_model()


@pytest.fixture(scope="session")
def default_exploration(default_model):
    return Explorer(default_model, CheckConfig()).run()


@pytest.fixture(scope="session")
def small_model():
    return build_model(SMALL)


@pytest.fixture(scope="session")
def small_exploration(small_model):
    """The complete scalar exploration of SMALL (SMALL_STATES in tests/pins.py), shared: tests must not change it."""
    ex = Explorer(small_model, CheckConfig()).run()
    assert ex.complete
    return ex


@pytest.fixture(scope="session")
def explored_config():
    """`explored_config(name)`: the model of tests/toys.py AGREEMENT_CONFIGS[name] and its complete exploration,
    built once per test process (shared by the agreement, SPIN and module tests)."""
    return _explored_config


def pytest_configure(config):
    # NOTE(isolated-cache): the proof store of `check` and `prove` defaults to the user's
    # ~/.cache/rulecheck; tests (and the subprocesses they start) use a fresh one per session.
    os.environ["RULECHECK_CACHE"] = tempfile.mkdtemp(prefix="rulecheck-test-cache-")
    # The console script's garbage-collector settings (checks/launch.py): the suite builds hundreds of
    # models, and at the default thresholds collection took about a quarter of test_defects.py's time.
    from checks.launch import tune_gc
    tune_gc()


# NOTE(file-order): pytest-xdist hands whole files to its workers in collection order (`--dist loadfile
# --no-loadscope-reorder` in pyproject.toml); by default it orders them by their number of tests, so a file of
# two expensive tests (a cold proof run twice) came last and one worker ran it alone at the end. Files now go
# out by their cost as their markers declare it (a `heavy` test takes several seconds, the marker's
# definition; any other well under one), most first, so what is left at the end is cheap. No timing is kept.
HEAVY_COST, LIGHT_COST = 5.0, 0.2


def pytest_collection_modifyitems(config, items):
    """Everything not marked heavy or slow is in the fast tier; files ordered by declared cost (NOTE(file-order))."""
    cost: dict = {}
    for item in items:
        heavy = item.get_closest_marker("heavy") or item.get_closest_marker("slow")
        if not heavy:
            item.add_marker(pytest.mark.fast)
        cost[item.path] = cost.get(item.path, 0.0) + (HEAVY_COST if heavy else LIGHT_COST)
    order = {f: n for n, f in enumerate(sorted(cost, key=lambda f: (-cost[f], str(f))))}
    items.sort(key=lambda item: order[item.path])  # stable: a file's own tests keep their order
