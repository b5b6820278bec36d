"""Presence templates (checks/analyses/presence.py): sound on their table, tight, and enough for the
step property `arrival-respects-occupancy` (R25, R41, H32, A25) that the one-guard templates never proved."""
from __future__ import annotations

import numpy as np
import pytest

from checks.analyses.presence import presence
from checks.analyses.templates import Miner
from checks.engines.columns import compile_table
from model.domains import Bool, Enum, IntRange
from model.schema import Field, Schema

PLACE = Enum("Place", ("p", "q", "none"))
SCHEMA = Schema((Field("stage", Enum("Stage", ("a", "b", "c"))), Field("flag", Bool()),
                 Field("at", PLACE), Field("tok", PLACE, (Enum("Face", ("x", "y")),)),
                 Field("n", IntRange(0, 2), (PLACE,))))


def test_every_candidate_holds_on_every_row_and_its_bound_is_reached():
    """On random tables: each candidate is true on every row it was mined from (Houdini, not the
    miner, decides whether it is inductive), and its bound is tight: raised by one it is false on
    some row. A candidate whose bound is the target's least value would say nothing: none is made."""
    rng = np.random.default_rng(11)
    made = 0
    for _ in range(30):
        X = np.stack([rng.integers(0, 3, 40), rng.integers(0, 2, 40), rng.integers(0, 3, 40),
                      rng.integers(0, 3, 40), rng.integers(0, 3, 40),
                      rng.integers(0, 3, 40), rng.integers(0, 3, 40), rng.integers(0, 3, 40)], axis=1)
        X[X[:, 2] == X[:, 3], 5 + X[X[:, 2] == X[:, 3], 2] % 3] = 2  # some structure: a token's place is manned
        m = Miner(SCHEMA, X, frozenset())
        found = presence(m, frozenset(range(5, 8)), 0, set())
        made += len(found)
        for c in found:
            assert compile_table(SCHEMA, [c.expr])(X).all(), c.text
            head, bound = c.text.rsplit(" >= ", 1)
            term = next(t for t in m.terms if head.endswith("=> " + t.text))
            guard = c.expr.args[0].arg  # implies(g, e) is Or((Not(g), e))
            held = compile_table(SCHEMA, [guard])(X)[0]
            col = np.asarray(term.column(X))
            assert held.any() and int(col[held].min()) == int(bound) > int(col.min()), c.text
    assert made >= 30


def test_a_proved_one_guard_fact_is_not_restated():
    """`stage = v => t >= c` proved already: no `stage = v and b => t >= c` is offered beside it."""
    X = np.array([[0, 0, 0, 0, 0, 1, 0, 0], [0, 1, 1, 1, 0, 1, 1, 0], [1, 0, 0, 2, 2, 0, 0, 1]])
    m = Miner(SCHEMA, X, frozenset())
    every = [c.text for c in presence(m, frozenset(range(5, 8)), 0, set())]
    assert any(t.startswith("stage = a and ") and t.endswith("n[at] >= 1") for t in every), every
    fewer = [c.text for c in presence(m, frozenset(range(5, 8)), 0, {"stage = a => n[at] >= 1"})]
    assert not any(t.startswith("stage = a and ") and t.endswith("n[at] >= 1") for t in fewer), fewer


def _presence_shaped(text: str) -> bool:
    guard = text.split(" => ")[0]
    return " => " in text and " and " in guard and " >= " in text.split(" => ")[-1]


@pytest.fixture(scope="module")
def default_table():
    from checks.analyses.infer import state_table
    from model.moritani import GAME
    prop = GAME.profiles["default"]
    model = GAME.build(prop, unbounded=True)
    X, _ = state_table([GAME.build(prop)], model.schema)
    return model, X


FAMILY = ("stage = react and (tloc[Atomics] = entry_loc) => forces[entrant][entry_loc] >= 1",
          "entry2 and (tloc[Sneak Attack] = entry_loc) => forces[Bene Gesserit][entry_loc] >= 1")


@pytest.mark.heavy
def test_the_default_profile_offers_the_family_arrival_respects_occupancy_needs(default_table):
    """Mined from the default profile's reachable states and aimed at the slots the step property
    reads, the candidates include "while a token lies in the entered territory the entrant has a force
    there" and its Bene Gesserit twin for a queued entry: the lemmas an experiment offered by hand
    found necessary (docs/lemmas.md), now found by the templates."""
    from model.lower import slots_read
    model, X = default_table
    goal = next(p for p in model.invariants if p.name == "arrival-respects-occupancy")
    cands = presence(Miner(model.schema, X, model.unbounded_slots), slots_read(goal.step, model.schema),
                     model.schema.slot(model.dispatch), set())
    texts = {c.text for c in cands}
    assert set(FAMILY) <= texts, sorted(t for t in texts if "Atomics] = entry_loc" in t)[:20]
    assert 1_000 <= len(cands) <= 10_000  # aimed: thousands of candidates, not the millions of all pairs


@pytest.mark.slow
def test_presence_candidates_prove_arrival_respects_occupancy_on_the_default_profile(default_table):
    """The default profile: with the shipped lemmas except those that prove the property itself, the
    presence candidates mined from the bounded model make `arrival-respects-occupancy` inductive;
    the one-guard and blocking-round lemmas alone did not (docs/lemmas.md). Among the survivors is
    the family the property needs: while a token lies in the entered territory, the entrant has a
    force there."""
    from model.digest import transition_digest
    from model.lower import slots_read
    from checks.engines.houdini import houdini
    from checks.engines.lemmacache import SEED, LemmaCache
    model, X = default_table
    goal = next(p for p in model.invariants if p.name == "arrival-respects-occupancy")
    lemmas, proved, _ = LemmaCache(SEED.parent).get(transition_digest(model))
    props = {p.name: p.predicate for p in model.invariants}
    # What the search had before the presence round: the shipped lemmas of one guard (a shipped
    # presence lemma would make this test prove nothing) and the properties they prove, each
    # re-checked by Houdini here, nothing assumed.
    offered = [(t, e) for t, e in lemmas if not _presence_shaped(t)] + \
        [(n, props[n]) for n in proved if n != goal.name]
    cands = presence(Miner(model.schema, X, model.unbounded_slots), slots_read(goal.step, model.schema),
                     model.schema.slot(model.dispatch), {n for n, _ in offered})
    h = houdini(model, offered + [(goal.name, goal.predicate)] + [(c.text, c.expr) for c in cands])
    kept = {n for n, _ in h.survivors}
    assert h.verdict == "proved" and goal.name in kept, h.reason
    assert set(FAMILY) <= kept, sorted(k for k in kept if "Atomics] = entry_loc" in k)[:20]


def test_a_quantity_and_a_stage_alone_get_lower_bounds_too():
    """A wide integer (a quantity: ten values) read at a slot-held index is a target like a counter, and
    the stage alone guards a lower bound where the target is not constant in that stage (the one-guard
    templates state neither)."""
    sch = Schema((Field("stage", Enum("Stage", ("a", "b"))), Field("at", PLACE),
                  Field("n", IntRange(0, 9), (PLACE,))))
    X = np.array([[0, 0, 3, 0, 0], [0, 0, 5, 0, 0], [1, 1, 0, 0, 0], [1, 0, 0, 0, 0]])
    texts = [c.text for c in presence(Miner(sch, X, frozenset()), frozenset([2, 3, 4]), 0, set())]
    assert "stage = a => n[at] >= 3" in texts, texts
    assert not any(t.startswith("stage = b") and t.endswith("n[at] >= 1") and " and " not in t for t in texts)
