"""Invariants proved by 1-induction together with the model's stage-consistency lemmas (checks/analyses/prove.py)."""
from __future__ import annotations

import pytest

from checks.engines.induction import HornSystem, strengthened_induction
from model.moritani.build import build_model


@pytest.fixture(scope="module")
def system():
    return HornSystem(build_model(unbounded=True))


@pytest.mark.parametrize("name", ["token-conservation", "public-ids-fresh", "conservation"])
def test_invariant_is_proved_with_the_lemmas(system, name):
    verdict, why, _ = strengthened_induction(system, name, system.model.lemmas)
    assert verdict == "proved", why


def test_without_the_lemmas_the_same_induction_fails(system):
    facts = [f for f in system.model.lemmas if f[0] != "placement-window"]
    verdict, why, _ = strengthened_induction(system, "token-conservation", facts)
    assert verdict == "unknown" and "not 1-inductive" in why


def test_a_seeded_custody_bug_is_never_proved():
    m = build_model(defects=("eome-duplicates-token",), unbounded=True)
    verdict, _, _ = strengthened_induction(HornSystem(m), "token-conservation", m.lemmas)
    assert verdict == "unknown"
