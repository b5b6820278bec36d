"""Noninterference by Z3 self-composition: the same leaks at the same pair lengths as the explicit engine."""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.analyses.leaks import check_leaks
from checks.analyses.leaks_z3 import check_leaks_z3, leak_bmc, leak_proof
from model.moritani.build import build_model
from model.moritani.defects import DEFECT_BY_ID, DEFECTS, HEAVY_DEPTH
from model.moritani.observe import Observer, hidden_faces, observation_spec, swap_faces
from model.observation import observe_spec
from model.moritani import GAME
from model.moritani.profiles import PROFILES
from tests.conftest import SMALL

# The face leaks (the Traitor-card leak of the Assassinate Leaders module is tested below).
LEAKS = ["face-printed", "terror-options-public", "offer-availability-public", "placement-declaration-public",
         "reply-names-effect", "decline-logs-face"]
# Shortest pair length on SMALL plus the defect's own bounds, pinned for both engines: Defect.small_depth.
SMALL_DEPTH = {d: DEFECT_BY_ID[d].small_depth for d in LEAKS}


def prop(defects=(), bounds=SMALL):
    for d in defects:
        bounds = dataclasses.replace(bounds, **dict(DEFECT_BY_ID[d].bounds))
    return dataclasses.replace(PROFILES["default"], bounds=bounds, defects=tuple(defects))


def test_catalogue_pins_every_face_leak():
    assert set(LEAKS) <= {d.id for d in DEFECTS if d.target == "hidden-identity"}
    assert [d for d in LEAKS if not SMALL_DEPTH[d]] == []


@pytest.mark.parametrize("defect", LEAKS)
def test_seeded_leak_explicit_pair_length(defect):
    explicit, _ = check_leaks(GAME.build(prop((defect,))), CheckConfig(fold=False))
    assert min(r.depth for r in explicit if r.verdict == "violated") == SMALL_DEPTH[defect]


# Pairs longer than HEAVY_DEPTH (the 8- to 10-step leaks: 20-30 s each on Z3, 2 shared cores) run with -m slow.
SLOW = {d for d in LEAKS if SMALL_DEPTH[d] > HEAVY_DEPTH}


@pytest.mark.parametrize("defect", [pytest.param(d, marks=pytest.mark.slow) if d in SLOW else d for d in LEAKS])
def test_seeded_leak_caught_by_z3_at_the_explicit_pair_length(defect):
    p = prop((defect,))
    results, _ = leak_bmc(GAME.build(p), SMALL_DEPTH[defect])
    hit = [r for r in results if r.verdict == "violated"]
    assert hit, [r.detail for r in results]
    assert min(r.depth for r in hit) == SMALL_DEPTH[defect]  # the explicit length, pinned above
    leak = hit[0].extra["leak"]
    m = build_model(p.bounds, p.interpretation, p.defects)
    assert leak.game_a.replay(m) == [] and leak.game_b.replay(leak.model_b) == []
    assert leak.faces[0] != leak.faces[1] and leak.seen_a != leak.seen_b


# Three faces keep the relational proof at a few seconds (six faces: about 60 s, marked slow).
THREE = dataclasses.replace(SMALL, faces=("Atomics", "Extortion", "Sabotage"))


@pytest.mark.heavy
def test_correct_engine_is_bounded_then_proved():
    results, stats = check_leaks_z3(GAME.build(prop(bounds=THREE)), depth=2)
    assert {r.extra["observer"] for r in results} == {"Atreides", "Bene Gesserit", "Ecaz"}
    for r in results:
        assert r.verdict == "proved", r.detail
        assert r.engine == "z3" and r.depth is None and "any length" in r.detail


def test_without_the_proof_the_verdict_stays_bounded():
    results, _ = check_leaks_z3(GAME.build(prop(bounds=THREE)), depth=2, prove=False)
    assert [(r.verdict, r.depth) for r in results] == [("bounded", 2)] * 3


def without_lemma(m, name):
    return m.with_changes(lemmas=tuple((n, e) for n, e in m.lemmas if n != name))


@pytest.mark.heavy
def test_the_proof_needs_its_lemmas():
    """The relation without the placement-window lemma is not inductive: unknown, never proved."""
    out = leak_proof(without_lemma(GAME.build(prop(bounds=THREE), unbounded=True), "placement-window"))
    assert {v[0] for v in out.values()} == {"unknown"}
    assert all("not 1-inductive" in v[1] for v in out.values())


def test_lemmas_hold_on_every_reachable_state():
    """The lemmas are proved by the relational induction; here also checked state by state."""
    from model.evaluate import eval_expr
    from model.moritani.lemmas import lemmas
    m = build_model(SMALL, PROFILES["default"].interpretation, ())
    ex = Explorer(m, CheckConfig()).run()
    for p in lemmas(m):
        assert all(eval_expr(p.predicate, s, m.schema) for s in ex.states), p.name


@pytest.mark.heavy
def test_lemmas_are_inductive_on_one_game():
    """With the lemmas, token-conservation and public-ids-fresh are 1-inductive (unbounded model)."""
    import checks.analyses.leaks_z3 as lz
    p = PROFILES["default"]
    m = build_model(p.bounds, p.interpretation, (), unbounded=True)
    assert lz.lemmas_inductive(m) is None
    assert lz.lemmas_inductive(without_lemma(m, "decision-token")) == "not 1-inductive on one game"


@pytest.mark.slow
def test_default_profile_is_proved_for_every_rival():
    """`rulecheck leaks` on the default bounds: hidden-identity proved for games of any length (~60 s)."""
    out = leak_proof(GAME.build(PROFILES["default"], unbounded=True))
    assert [v[0] for v in out.values()] == ["proved"] * 3, out


def test_proof_never_claims_a_leaky_model():
    out = leak_proof(GAME.build(prop(("placement-declaration-public",)), unbounded=True))
    assert all(v[0] == "unknown" for v in out.values())


def test_a_model_without_secrets_passes():
    one = dataclasses.replace(SMALL, faces=("Atomics",))
    results, _ = leak_bmc(GAME.build(prop(("face-printed",), bounds=one)), 3)
    assert [r.verdict for r in results] == ["proved"] * 3


@pytest.mark.heavy
def test_observation_spec_and_observer_agree():
    """Both engines read one definition: equal observations under Observer iff under the spec."""
    for defects in [()] + [(d,) for d in LEAKS]:
        p = prop(defects)
        m = build_model(p.bounds, p.interpretation, p.defects)
        ex = Explorer(m, CheckConfig(max_states=1_000)).run()
        moves = _enabled_actions(m)
        for f in m.vocabulary.rivals:
            w, spec = Observer(m, f), observation_spec(m, f)
            for s in ex.states[::40]:
                for a, b in itertools.combinations(hidden_faces(m, s), 2):
                    _assert_same_verdict(m, w, spec, s, swap_faces(m, s, a, b), (defects, f), moves)


def _enabled_actions(m):
    """The enabled actions of a state by the reference semantics, each state's once (every rival and face pair
    asks again)."""
    import functools

    from model.evaluate import successors
    return functools.lru_cache(maxsize=None)(lambda s: [x for x, _ in successors(m, s)])


def _assert_same_verdict(m, observer, spec, s, s2, what, moves=None):
    """The explicit Observer and the spec-as-data tell s and s2 apart, or not, alike."""
    moves = moves or _enabled_actions(m)
    fast = observer.observe(s, moves(s)) == observer.observe(s2, moves(s2))
    assert fast == (observe_spec(m.schema, spec, s) == observe_spec(m.schema, spec, s2)), (what, m.schema.pretty(s))


# -- the Assassinate Leaders module: the Traitor-card secret (NOTE(traitor-secret)) ---------------

def _one_battle(defects=()):
    p = PROFILES["assassinate-leaders"]
    return dataclasses.replace(p, bounds=dataclasses.replace(p.bounds, turns=1), defects=tuple(defects))


@pytest.mark.heavy
def test_traitor_leak_caught_by_z3_at_the_explicit_pair_length():
    """assassinate-offer-needs-card: 10 steps for both engines (explicit: tests/test_assassinate.py)."""
    explicit, _ = check_leaks(GAME.build(_one_battle(("assassinate-offer-needs-card",))), CheckConfig())
    assert min(r.depth for r in explicit if r.verdict == "violated") == 10
    results, _ = leak_bmc(GAME.build(_one_battle(("assassinate-offer-needs-card",))), 10)
    hit = [r for r in results if r.verdict == "violated"]
    assert hit and min(r.depth for r in hit) == 10, [r.detail for r in results]
    leak = hit[0].extra["leak"]
    assert leak.secret == "card" and leak.faces[0] != leak.faces[1] and "public board" == leak.component
    # The same public steps; only the secret draw differs, then the stage after the lost battle.
    assert leak.game_a.labels[0] != leak.game_b.labels[0] and leak.game_a.labels[0].startswith("deal_traitor")
    assert leak.game_a.labels[1:] == leak.game_b.labels[1:] and leak.game_a.labels[-1].startswith("lose_battle")
    assert leak.game_a.replay(leak.model_b) == [] and leak.game_b.replay(leak.model_b) == []
    assert [r.verdict for r in leak_bmc(GAME.build(_one_battle(("assassinate-offer-needs-card",))), 9)[0]] == ["bounded"] * 2


@pytest.mark.heavy
def test_module_without_defect_is_proved_with_the_cards_related_and_the_leak_never_is():
    """The relation relates Traitor custody up to a permutation of the hidden cards (`_cards_related`):
    the module is proved for games of any length; with the offer leak the proof fails (its pair needs 10
    steps, so BMC to 6 is clean and only the proof could wrongly say proved)."""
    results, _ = check_leaks_z3(GAME.build(_one_battle()), depth=2)
    assert [r.verdict for r in results] == ["proved"] * 2, [r.detail for r in results]
    leaky, _ = check_leaks_z3(GAME.build(_one_battle(("assassinate-offer-needs-card",))), depth=6)
    for r in leaky:
        assert r.verdict == "bounded" and r.depth == 6 and "no unbounded proof" in r.detail, r.detail


@pytest.mark.heavy
def test_observation_spec_and_observer_agree_on_traitor_exchanges():
    from model.moritani.observe import hidden_traitor_pairs, swap_traitors
    for defects in ((), ("assassinate-offer-needs-card",)):
        p = _one_battle(defects)
        m = build_model(p.bounds, p.interpretation, p.defects)
        ex = Explorer(m, CheckConfig(max_states=2_000)).run()
        moves = _enabled_actions(m)
        for f in m.vocabulary.rivals:
            w, spec = Observer(m, f), observation_spec(m, f)
            for s in ex.states[::10]:
                for a, b in hidden_traitor_pairs(m, s):
                    _assert_same_verdict(m, w, spec, s, swap_traitors(m, s, a, b), (defects, f), moves)
