"""What a lemma search mines: the bounded states of a proposal and the candidates true on all of them.

`state_table` explores the sample models (the proposal's own bounds) into one table of rows over the unbounded
model's slots. `Mining` holds it, the candidates mined from it (checks/analyses/templates.py) and which of a
transfer's lemmas are true on it.

A transfer (checks/analyses/transfer.py) needs none of them unless its fast path leaves a property, yet they are
the mined path's first 15 to 20 s on large proposals. With a second core, `Mining.ahead()` computes them in a forked
child (`checks.engines.pool.Background`) beside the whole fast path, dropped if the fast path proves everything; the
values are the same either way (fixed seed). Started after the pruning instead, the mined path waited 5 to 8 s for
them on the slowest proposals, and the fast paths that need no mining were not measurably faster (docs/lemmas.md).

>>> from tests.conftest import counter_model
>>> from model.expr import Var
>>> m = counter_model(limit=3)
>>> got = Mining(m, [m], lemmas=[("x <= 2", Var("x") <= 2), ("x <= 3", Var("x") <= 3)])
>>> X, used = got.states()
>>> len(X), used, got.true_on(["x <= 2", "x <= 3"])
(5, 1, {'x <= 2': False, 'x <= 3': True})
>>> [c.text for c in got.candidates()]
['x <= 3']
>>> ahead = Mining(m, [m], lemmas=[("x <= 2", Var("x") <= 2)])
>>> ahead.ahead()  # the same, from a forked child
>>> ahead.true_on(["x <= 2"]), [c.text for c in ahead.candidates()]
({'x <= 2': False}, ['x <= 3'])
>>> ahead.cancel()
"""
from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from checks.analyses.templates import mine
from checks.clock import Clock
from checks.config import CheckConfig
from checks.engines.columns import compile_table
from checks.engines.pool import Background
from model.errors import ModelError

MAX_STATES = 600_000   # mined states per sample model (a partial exploration is still sound: Houdini decides)
CHUNK = 64             # lemmas evaluated on the rows at once


def state_table(models: list, schema, max_states: int = MAX_STATES, seed: int = 0,
                clock: Clock | None = None) -> tuple[np.ndarray, int]:
    """Reachable states of `models` (each explored under `max_states`) as rows over `schema`'s slots, but those of
    models whose slots differ: (rows, models used). `TimeoutError` once `clock` is spent (never a partial table)."""
    rows = [_explore(m, max_states, seed, clock) for m in models if m.schema.slot_names == schema.slot_names]
    if clock and clock.out():
        raise TimeoutError("--timeout reached while exploring the states to mine")
    return (np.concatenate(rows), len(rows)) if rows else (np.zeros((0, len(schema)), dtype=np.int32), 0)


def _explore(model, max_states: int, seed: int, clock: Clock | None) -> np.ndarray:
    from checks.engines.vector import VectorExplorer
    timeout = clock.rest() if clock else None
    cfg = CheckConfig(max_states=max_states, seed=seed, engine="vector", jobs=1, timeout=timeout)
    try:
        ex = VectorExplorer(model, cfg).run()
    except ModelError:
        ex = None
    if ex is not None and not ex.out_of_domain:
        return ex.state_matrix(np.int32)
    from checks.engines.explicit import Explorer
    return Explorer(model, CheckConfig(max_states=max_states, seed=seed, timeout=timeout)).run().state_matrix(np.int32)


class Mining:
    """The states mined for `model` (the unbounded model) from `samples`, the candidates true on all of them, and
    which of `lemmas` ([(text, Expr)]: a transfer's) are. Inline, each is computed when first asked for (a lemma's
    truth only if asked about); after `ahead()`, all of them in forked children, which `cancel()` stops (always
    call it). Nothing is waited for longer than `clock` (`--timeout`) allows: `TimeoutError` then."""

    def __init__(self, model, samples: list, max_states: int = MAX_STATES, seed: int = 0, lemmas: Sequence = (),
                 clock: Clock | None = None):
        self._model, self._samples, self._max, self._seed = model, samples, max_states, seed
        self._clock = clock or Clock(None)  # no limit: `rest()` is None
        self.lemmas = list(lemmas)  # [(text, Expr)] whose truth `true_on` tells
        self._states: tuple | None = None
        self._truth: dict = {}  # lemma text -> true on every row (ahead: all of them; inline: those asked about)
        self._mined: list | None = None
        self._job: Background | None = None    # the states, ahead
        self._mining: Background | None = None  # the candidates, ahead (once the states are here)

    def ahead(self) -> None:
        """From now on, compute in forked children (if there is a second core and nothing is computed yet): the
        states first, then, once `states()` has them, the candidates beside whatever comes next."""
        if self._job is None and self._states is None and (os.cpu_count() or 1) > 1:
            self._job = Background(self._everything, fork=True)

    def states(self) -> tuple[np.ndarray, int]:
        """(rows, sample models used)."""
        if self._states is None:
            if self._job is not None:
                X, used, self._truth = self._job.result(self._clock.rest())
                self._states, self._job = (X, used), None
                self._mining = Background(self._mine, fork=True)  # forked now: it inherits the states
            else:
                self._states = state_table(self._samples, self._model.schema, self._max, self._seed, self._clock)
        return self._states

    def true_on(self, texts: list) -> dict:
        """{text: whether that lemma (one of `lemmas`) is true on every row}; with no row, every lemma is."""
        want = set(texts)
        self._truth.update(self._truths(self.states()[0], [(t, e) for t, e in self.lemmas
                                                            if t in want and t not in self._truth]))
        return {t: self._truth[t] for t in texts}

    def candidates(self) -> list:
        """The mined candidates (`templates.mine`) true on every row."""
        if self._mined is None:
            self.states()
            if self._mining is not None:
                self._mined, self._mining = self._mining.result(self._clock.rest()), None
            else:
                self._mined = self._mine()
        return self._mined

    def cancel(self) -> None:
        """Stop the child computing ahead, if any (idempotent)."""
        for job in (self._job, self._mining):
            if job is not None:
                job.cancel()
        self._job = self._mining = None

    def _everything(self) -> tuple[np.ndarray, int, dict]:
        """The rows, the models used and every lemma's truth on them (a child's work)."""
        X, used = state_table(self._samples, self._model.schema, self._max, self._seed)
        return X, used, self._truths(X, self.lemmas)

    def _truths(self, X: np.ndarray, lemmas: list) -> dict:
        if not len(X):
            return {t: True for t, _ in lemmas}
        ok: list = []
        for i in range(0, len(lemmas), CHUNK):  # a block of lemmas at a time: rows x lemmas booleans are GBs
            ok += list(compile_table(self._model.schema, [e for _, e in lemmas[i:i + CHUNK]])(X).all(axis=1))
        return {t: bool(k) for (t, _), k in zip(lemmas, ok)}

    def _mine(self) -> list:
        m, X = self._model, self.states()[0]
        return mine(m.schema, X, m.unbounded_slots, m.schema.slot(m.dispatch) if m.dispatch else None)
