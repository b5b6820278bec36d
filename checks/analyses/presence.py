"""Presence templates: lower bounds on a derived counter under two literals, aimed at an unproved goal.

The one-guard templates of `checks/analyses/templates.py` say what holds in each decision stage.
Some properties need more: "while some token still lies in the entered territory, the entrant has
a force there" holds in every stage of an entry except after an Atomics reveal, so no one-guard
candidate states it, and its induction also needs the Bene Gesserit's queued entry
(`entry2`) to have its own force there. Those are lemmas of two shapes, declared per sort:

| shape | guard | target |
| --- | --- | --- |
| staged | the dispatch slot equals a value, and a Bool term (a flag, `f[x]`, or an equality of two Enum terms) holds or fails | an integer (counter or quantity) read at indices held by slots (`forces[entrant][entry_loc]`) |
| stage alone | the dispatch slot equals a value | the same (the one-guard templates bound a counter only where it is constant there, a quantity never) |
| paired | a Bool slot holds, and an equality of two Enum terms holds | the same |

Each says `guard => target >= c`, with `c` the least value the target takes on the mined rows
where the guard holds (only `c` above the target's least value says anything). Only targets and
guards that share a slot with each other are paired, and only targets reading a slot of an
unproved goal are used: the candidates number thousands, not millions. A staged candidate is left
out where the proved one-guard fact `stage = v => target >= c` already says it.

The counts come from one matrix product per target and threshold (rows where the target is below
`c`, against the guard columns): no loop over rows.

>>> from model.domains import Bool, Enum, IntRange
>>> from model.schema import Field, Schema
>>> from checks.analyses.templates import Miner
>>> L = Enum("Loc", ("a", "b"))
>>> sch = Schema((Field("stage", Enum("Stage", ("x", "y"))), Field("at", L), Field("tok", L),
...               Field("n", IntRange(0, 2), (L,))))
>>> X = np.array([[0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [1, 1, 1, 0, 2], [1, 0, 1, 0, 0]])
>>> for c in presence(Miner(sch, X, frozenset()), frozenset([3, 4]), 0, set()):
...     print(c.text)
stage = x and (at = tok) => n[at] >= 1
stage = y and (at = tok) => n[at] >= 2
stage = x and (at = tok) => n[tok] >= 1
stage = y and (at = tok) => n[tok] >= 2
"""
from __future__ import annotations

import numpy as np

from checks.analyses.templates import Candidate, Miner, distinct
from model.expr import Const, implies


def _targets(m: Miner, goal_slots: frozenset, dispatch: int | None) -> list:
    """Counters and quantities read at slot-held indices (`f[x]`, not counts of values) that read a goal slot."""
    return [k for k, t in enumerate(m.terms)
            if t.sort in ("counter", "quantity") and len(t.slots) > 1 and not t.text.startswith("#")
            and t.slots & goal_slots and (dispatch is None or dispatch not in t.slots) and len(m.values(k)) > 1]


CHUNK = 16_384  # rows per block of the guard-by-guard counts (bounds the float matrices' memory)


class _Counts:
    """Rows per pair of guards, over all rows and over the rows where a target is at most c.

    `pairs(A, B)` for 0/1 column sets A and B (lists of term indices, or "dispatch" for one column
    per dispatch value) gives a dict (key) -> count matrix, key None for all rows and (k, c) for the
    rows where target k is at most c. Computed in blocks of rows, each term column converted once."""

    def __init__(self, m: Miner, targets: list, dispatch: int | None):
        self.m, self.targets, self.dispatch = m, targets, dispatch
        self.lows = [(k, int(c)) for k in targets for c in m.values(k)[:-1]]

    def _block(self, spec, lo: int, hi: int) -> np.ndarray:
        m = self.m
        if spec == "dispatch":
            assert self.dispatch is not None  # asked only for a model with a dispatch slot (`_pairs`)
            d = m.col(self.dispatch)[lo:hi]
            return (d[:, None] == m.values(self.dispatch)[None, :]).astype(np.float32)
        if spec == "one":
            return np.ones((hi - lo, 1), dtype=np.float32)
        return np.stack([m.col(b)[lo:hi] for b in spec], axis=1).astype(np.float32)

    def pairs(self, A, B) -> dict:
        n = len(self.m.X)
        out: dict = {}
        for lo in range(0, n, CHUNK):
            hi = min(n, lo + CHUNK)
            a, b = self._block(A, lo, hi), self._block(B, lo, hi)
            keys = [(None, a)] + [((k, c), a * (self.m.col(k)[lo:hi] <= c)[:, None]) for k, c in self.lows]
            for key, ak in keys:
                prod = ak.T @ b
                out[key] = prod if key not in out else out[key] + prod
        return out


def _least(counts: dict, k: int, vals: np.ndarray) -> np.ndarray:
    """The least value target k takes on the rows where both guards hold, per guard pair; -1 where
    no row does."""
    both = counts[None] > 0
    least = np.where(both, int(vals[-1]), -1)
    for c in vals[::-1][1:]:                    # from the top down: the last hit is the least value
        least = np.where(both & (counts[(k, int(c))] > 0), int(c), least)
    return least


def _shares(m: Miner, k: int, b: int) -> bool:
    t, tb = m.terms[k], m.terms[b]
    return bool(tb.slots & t.slots) and not tb.slots <= t.slots


def _staged(m: Miner, k: int, d: int, proved: set, bools: list, counts: dict, comp: dict) -> list:
    t, dt = m.terms[k], m.terms[d]
    vals, dvals = m.values(k), m.values(d)
    pos = _least(counts, k, vals)
    neg = _least(comp, k, vals)
    base = _least({key: v[:, :1] for key, v in comp.items()}, k, vals)[:, 0]
    out = []
    for i, gv in enumerate(dvals):
        gtext, gexpr = f"{dt.text} = {dt.show(int(gv))}", dt.expr.eq(Const(int(gv)))
        alone = f"{gtext} => {t.text} >= {base[i]}"
        implied = alone in proved
        if base[i] > vals[0] and not implied:
            # The stage alone: one-guard templates state a counter only where it is constant, and a
            # wider quantity never; its lower bound is often the link the two-literal bounds need.
            out.append(Candidate(alone, implies(gexpr, Const(int(base[i])) <= t.expr), dt.slots | t.slots))
        for j, b in enumerate(bools):
            if not _shares(m, k, b):
                continue
            tb = m.terms[b]
            for c, btext, bexpr in ((pos[i, j], tb.text, tb.expr), (neg[i, j + 1], f"not {tb.text}", ~tb.expr)):
                if c <= vals[0] or (c <= base[i] and implied):
                    continue
                out.append(Candidate(f"{gtext} and {btext} => {t.text} >= {c}",
                                     implies(gexpr & bexpr, Const(int(c)) <= t.expr), dt.slots | tb.slots | t.slots))
    return out


def _paired(m: Miner, k: int, flags: list, eqs: list, counts: dict) -> list:
    t, vals = m.terms[k], m.values(k)
    least = _least(counts, k, vals)
    out = []
    for i, j in zip(*np.nonzero(least > vals[0])):
        s, e, c = m.terms[flags[i]], m.terms[eqs[j]], int(least[i, j])
        if not _shares(m, k, eqs[j]):
            continue
        out.append(Candidate(f"{s.text} and {e.text} => {t.text} >= {c}",
                             implies(s.expr & e.expr, Const(c) <= t.expr), s.slots | e.slots | t.slots))
    return out


def presence(m: Miner, goal_slots: frozenset, dispatch: int | None, proved: set) -> list:
    """Staged and paired presence candidates for targets reading `goal_slots`, true on every mined
    row; `proved`: texts of proved lemmas (a staged candidate they already imply is left out).
    Deterministic: targets in term order, then guards in term order."""
    targets = _targets(m, goal_slots, dispatch)
    if not targets:
        return []
    bools = [b for b, t in enumerate(m.terms) if t.sort == "bool" and (dispatch is None or dispatch not in t.slots)]
    flags = [b for b in bools if len(m.terms[b].slots) == 1]
    eqs = [b for b in bools if len(m.terms[b].slots) > 1 and any(_shares(m, k, b) for k in targets)]
    near = [b for b in bools if any(_shares(m, k, b) for k in targets)]
    cnt = _Counts(m, targets, dispatch)
    staged = paired = None
    if dispatch is not None:
        alone = cnt.pairs("dispatch", "one")
        staged = cnt.pairs("dispatch", near) if near else {key: v[:, :0] for key, v in alone.items()}
        # "not b": the rows of the stage minus the rows where b holds (column 0: the stage alone)
        comp = {key: np.concatenate([v, v - staged[key]], axis=1) for key, v in alone.items()}
    if flags and eqs:
        paired = cnt.pairs(flags, eqs)
    out: list = []
    for k in targets:
        if staged is not None and dispatch is not None:  # staged: computed only with a dispatch slot
            out += _staged(m, k, dispatch, proved, near, staged, comp)
        if paired is not None:
            out += _paired(m, k, flags, eqs, paired)
    return distinct(out)


__all__ = ["presence"]
