"""Z3 proofs that two reactions commute on a whole class of states (checks/analyses/commute_z3.py)."""
from __future__ import annotations

import pytest

from checks.analyses.ambiguity import analyse
from checks.analyses.commute_z3 import prove_commutes
from model.moritani import GAME
from model.moritani.build import build_model
from model.moritani.config import Bounds
from model.moritani.profiles import PROFILES, Proposal

ONE = Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=1)
OPEN = PROFILES["printed-rules"].interpretation


@pytest.fixture(scope="module")
def model():
    return build_model(ONE, OPEN)


@pytest.mark.heavy
def test_advisor_and_ambassador_commute_on_every_state_where_both_may_resolve(model):
    p = prove_commutes(model, "advisor", "ambassador")
    assert p.verdict == "proved", p.reason
    assert p.lengths == {"advisor": 2, "ambassador": 2}


@pytest.mark.heavy
def test_the_seeded_order_defect_is_refuted_with_a_start_state():
    m = build_model(ONE, OPEN, ("advisor-overwrites-ambassador-payer",))
    p = prove_commutes(m, "advisor", "ambassador")
    assert p.verdict == "refuted" and p.start is not None
    # The start state lies in the class: both scheduler steps may resolve there.
    s = p.start
    assert m.get(s, "pend_advisor") >= 1 and m.get(s, "pend_ambassador")


def test_terror_has_no_fixed_macro_so_nothing_is_claimed(model):
    p = prove_commutes(model, "terror", "ambassador")
    assert p.verdict == "unknown" and "terror macro" in p.reason


@pytest.mark.heavy
def test_analyse_attaches_the_proof_to_commuting_pairs():
    p = Proposal("p", interpretation=OPEN, bounds=ONE)
    r = {x.id: x for x in analyse(GAME.open_orders(p), p.interpretation)}
    z = r["bg-advisor~ecaz-ambassador"].extra["z3"]
    assert z["verdict"] == "proved" and "Z3: commutes for every state" in r["bg-advisor~ecaz-ambassador"].detail
    assert "z3" not in r["terror~ecaz-ambassador"].extra  # not commuting: nothing to prove
