"""Issue 35: cold proofs by transfer (checks/analyses/transfer.py).

A model the store has no entry for starts from the stored entry whose declarations (switches, bounds,
defects) are nearest; that entry's lemmas are re-proved on the new model (Houdini keeps the inductive
subset), never trusted, and the new model's entry records its own declarations.
"""
from __future__ import annotations

import pytest

from checks.analyses.prove import prove
from checks.analyses.sweep import model_digest
from checks.analyses.transfer import declarations, distance, nearest, usable_lemmas
from checks.engines.lemmacache import LemmaCache
from checks.pipelines.proofs import lemma_samples
from model.expr import Const, Var
from model.moritani import GAME
from model.moritani.config import Interpretation
from tests.test_infer import tiny


def test_the_nearest_entry_is_chosen_by_declarations_not_by_name():
    a = declarations(tiny())
    b = declarations(tiny(Interpretation.of(extortion_payers="entrant-only")))
    c = declarations(tiny(Interpretation.of(extortion_payers="entrant-only", karama_eome_timing="after-reply")))
    assert distance(a, b) == 1 and distance(a, c) == 2 and distance(b, c) == 1
    assert nearest([("k1", a), ("k2", c)], b) in ((1, "k1"), (1, "k2"))
    assert nearest([("k1", a), ("k2", c)], b)[1] == "k1"  # a tie goes to the smaller key, on every machine
    assert nearest([("k1", a), ("k3", None)], c) == (2, "k1")
    assert nearest([("k1", a)], a, exclude="k1") is None


def test_a_lemma_over_a_slot_the_model_lacks_is_dropped():
    model = GAME.build(tiny(), unbounded=True)
    kept = usable_lemmas(model.schema, [("ok", Var("turn") >= Const(0)), ("gone", Var("nosuch").eq(Const(1)))])
    assert [n for n, _ in kept] == ["ok"]


def _prove(prop, cache):
    model = GAME.build(prop, unbounded=True)
    stats: dict = {}
    results = prove(model, [p.name for p in model.invariants], depth=6, samples=lemma_samples(prop), stats=stats,
                    cache=cache, declarations=declarations(prop))
    return model, {r.id: r for r in results}, stats["inference"]


@pytest.mark.heavy
def test_a_proposal_one_switch_away_is_proved_from_the_stored_entry(tmp_path):
    """A8 set away from the default: the tiny default's entry (with a false lemma slipped in) is the
    nearest; its lemmas are re-proved on the new rules, the false one never counts, every property
    the tiny default proves is proved, and the new entry records its declarations."""
    base = tiny()
    model_a, first, _ = _prove(base, LemmaCache(tmp_path, use_seed=False))
    key_a = model_digest(model_a)
    lemmas, names = LemmaCache(tmp_path, use_seed=False).get(key_a)
    bogus = ("turn < 0", Var("turn") < Const(0))  # false in the initial state
    c = LemmaCache(tmp_path, use_seed=False)
    c.put(key_a, lemmas + [bogus], names, declarations=declarations(base))
    c.save()
    prop = tiny(Interpretation.of(extortion_payers="entrant-only"))
    model_b, results, inf = _prove(prop, LemmaCache(tmp_path, use_seed=False))
    assert inf["transferred_from"] == key_a and inf["verdict"] == "proved", inf
    proved = {n for n, r in results.items() if r.verdict == "proved"}
    assert {n for n, r in first.items() if r.verdict == "proved"} <= proved | {"extortion-payer"}
    stored = LemmaCache(tmp_path, use_seed=False)
    lemmas_b, _ = stored.get(model_digest(model_b))
    assert "turn < 0" not in [n for n, _ in lemmas_b]
    assert stored.entries[model_digest(model_b)]["declarations"] == declarations(prop)
