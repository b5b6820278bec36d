"""Invariants proved by 1-induction together with the model's stage-consistency lemmas (checks/analyses/prove.py)."""
from __future__ import annotations

import pytest

from checks.engines.induction import HornSystem, strengthened_induction
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from model.moritani.build import build_model
from tests.toys import SMALL


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


@pytest.mark.parametrize("profile", ["default", "treachery-online"])  # ship-visitors; ship-and-move
def test_the_hints_hold_on_every_reachable_state(profile):
    """A hint (model/moritani/lemmas.py `hints`) is only a candidate: Houdini drops a false one. What the model
    claims of it, that it holds of every reachable state, is checked here state by state."""
    from model.evaluate import eval_expr
    from model.moritani.profiles import PROFILES
    m = build_model(SMALL, PROFILES[profile].interpretation, ())
    per_faction = [f"{k}[{f}]" for f in m.vocabulary.bounds.factions
                   for k in ("visited-finished", "visit-of-the-acting", "visitors-gone")]  # ship-and-move only
    assert [n for n, _ in m.hints] == ["visit-recorded"] + (per_faction if profile == "treachery-online" else [])
    ex = Explorer(m, CheckConfig()).run()
    visits = 0
    for s in ex.states:
        for name, e in m.hints:
            assert eval_expr(e, s, m.schema), (name, m.schema.pretty(s))
        visits += m.get(s, "visit") != m.vocabulary.none_dest
    assert visits > 0  # the hint's premise is met somewhere: it does not hold vacuously


@pytest.mark.heavy
def test_a_hint_proves_what_the_stored_lemmas_leave():
    """`atomics-kills-all` admits forces lost beside an ally by the rules' `visited` monitor (issue 33), while
    `visitors_to_tanks` reads the engine's own record (`visit`). Until the nineteenth session's re-seed the stored
    lemmas related the two nowhere (cross-ship's entry was this test's example). The entries re-seeded by transfer
    keep the hint among their lemmas, so it is taken out of the default profile's entry as well as the model:
    Spacer, given the rest as facts, runs out of budget, and with the hint (kept by Houdini on top of the
    re-checked entry, NOTE(hints)) it proves the property."""
    from checks.analyses.infer import recheck
    from checks.engines.lemmacache import SEED, LemmaCache
    from checks.config import LEMMA_SPACER_RLIMIT
    from checks.engines.induction import spacer
    from model.digest import transition_digest
    from model.moritani import GAME
    model = GAME.build(GAME.profiles["default"], unbounded=True)
    stored = LemmaCache(SEED.parent).get(transition_digest(model))
    if stored is None:
        from tests.test_certify import STALE
        pytest.xfail(STALE)
    inf = recheck(model, *stored[:2])
    assert inf is not None and inf.verdict == "proved" and "visit-recorded" in [n for n, _ in inf.facts()]
    assert spacer(model, "atomics-kills-all", rlimit=LEMMA_SPACER_RLIMIT,
                  system=HornSystem(model, inf.facts())).verdict == "proved"
    bare = model.with_changes(hints=())
    inf = recheck(bare, [(n, e) for n, e in stored[0] if n != "visit-recorded"], stored[1])
    assert inf is not None and "visit-recorded" not in [n for n, _ in inf.facts()]
    assert spacer(bare, "atomics-kills-all", rlimit=LEMMA_SPACER_RLIMIT,
                  system=HornSystem(bare, inf.facts())).verdict == "unknown"
