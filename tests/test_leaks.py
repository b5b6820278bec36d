"""Noninterference: the definition is neither inverted nor vacuous, and leak pairs replay."""
from __future__ import annotations

import pytest

import dataclasses
import itertools

from checks.config import CheckConfig
from checks.analyses.leaks import check_leaks, side_by_side
from model.moritani import GAME
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES
from model.moritani.observe import Observer, swap_faces
from tests.conftest import SMALL


def prop(**kw):
    return dataclasses.replace(PROFILES["default"], bounds=kw.pop("bounds", SMALL), **kw)


def build(**kw):
    return GAME.build(prop(**kw))


def test_correct_engine_leaks_nothing_to_any_rival():
    results, stats = check_leaks(build(), CheckConfig())
    assert [r.verdict for r in results] == ["holds"] * 3 and stats["state_pairs"] > 1_000
    assert {r.extra["observer"] for r in results} == {"Atreides", "Bene Gesserit", "Ecaz"}


def test_printing_the_face_is_caught_at_the_first_placement():
    results, _ = check_leaks(build(defects=("face-printed",)), CheckConfig())
    r = results[0]
    assert r.verdict == "violated" and r.depth == 2  # declare, then commit: the token is on the map
    leak = r.extra["leak"]
    text = side_by_side(leak, build_model(SMALL, defects=("face-printed",)))
    assert "game A" in text and "game B" in text and "engine leak" in text
    assert leak.game_b.replay(leak.model_b) == []


def test_a_model_without_secrets_passes():
    one = dataclasses.replace(SMALL, faces=("Atomics",))
    results, stats = check_leaks(build(bounds=one, defects=("face-printed",)), CheckConfig())
    assert [r.verdict for r in results] == ["holds"] * 3 and stats["state_pairs"] == 0


def test_revealing_is_declassification_not_a_leak():
    m = build_model(SMALL)
    # After a reveal the face is public; exchanges only touch faces still hidden.
    from checks.engines.explicit import Explorer
    ex = Explorer(m, CheckConfig()).run()
    t = ex.witness_trace("witness-robbery")
    end = t.states[-1]
    w = Observer(m, 1)
    from model.moritani.observe import hidden_faces
    robbery = m.vocabulary.face("Robbery")
    assert robbery not in hidden_faces(m, end)
    a, b = hidden_faces(m, end)[:2]
    assert w.observe(end, []) == w.observe(swap_faces(m, end, a, b), [])


def test_observer_filter():
    results, _ = check_leaks(build(), CheckConfig(), observers=["Ecaz"])
    assert [r.extra["observer"] for r in results] == ["Ecaz"]


# -- a found difference is never dropped (issue 12, class 3) ------------------------------------

def test_leak_through_a_per_face_rule_family_is_replayed_not_dropped():
    """Game A passes through `offer_alliance_<face>`: game B must play the other family member."""
    results, _ = check_leaks(build(defects=("reply-names-effect",)), CheckConfig(), observers=["Atreides"])
    (r,) = results
    assert r.verdict == "violated" and r.depth == 10, r.detail
    leak = r.extra["leak"]
    fam_a = [x for x in leak.game_a.labels if x.startswith("offer_alliance_")]
    fam_b = [x for x in leak.game_b.labels if x.startswith("offer_alliance_")]
    assert fam_a and fam_b and fam_a != fam_b  # the member names the face, so B plays the other one
    assert leak.component == "prompt (legal choices)"
    assert leak.game_b.replay(leak.model_b) == []


def test_secret_copied_into_a_public_field_is_caught_one_step_later():
    """s and σ(s) look alike; only the successors of the decline differ (step consistency)."""
    results, _ = check_leaks(build(defects=("decline-logs-face",)), CheckConfig(), observers=["Atreides"])
    (r,) = results
    assert r.verdict == "violated" and r.depth == 9, r.detail
    leak = r.extra["leak"]
    assert leak.game_a.labels[-1] == "decline" and leak.component == "public board"
    assert set(leak.seen_a) == {"declined_log"} and leak.seen_a != leak.seen_b


@pytest.mark.heavy
def test_a_difference_without_a_partner_game_is_an_internal_error_not_holds(tmp_path, monkeypatch):
    import checks.analyses.leaks as lk
    from click.testing import CliRunner

    from checks.cli import main
    monkeypatch.setattr(lk, "partner_game", lambda *a, **k: None)
    f = tmp_path / "p.yaml"
    f.write_text("name: leaky\nbounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  turns: 1\n"
                 "defects: [face-printed]\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["leaks", "--engine", "explicit", "--check", "hidden-identity", "--proposal", str(f)])
    assert r.exit_code == 1, r.output
    assert "internal error" in r.output and "game A" in r.output and "holds" not in r.output


def test_the_forced_internal_error_needs_a_partner_game_that_matches_every_observation(monkeypatch):
    """PartnerGameError stays for a genuine inconsistency only: here game B is played from the same
    start as game A (no exchange), so it looks like game A at every step. It is that observer's
    verdict `error`, carrying game A (issue 39: it no longer takes the other verdicts with it)."""
    from model.moritani.secrets import FaceSecrets
    monkeypatch.setattr(FaceSecrets, "partner_models", lambda self, model, pair: iter((model,)))
    (r,), _ = check_leaks(build(defects=("face-printed",)), CheckConfig(), observers=["Atreides"])
    assert r.verdict == "error" and r.extra["error"] == "PartnerGameError", r.detail
    assert "shows the same at every step" in r.detail and r.trace is not None and r.trace.depth == r.depth


# -- game B may diverge before the end, or be unable to take a step (partner_game) -------------

def _edit(rules, drop_stage=(), disable="", drop=None):
    """Rules of the 1-stronghold model with `drop_stage` rules no longer writing the stage, every
    rule whose name starts with `disable` never enabled, and `drop` = (rule, field): that rule no
    longer writing that field (module level: picklable)."""
    from model.expr import Const
    out = []
    for r in rules:
        if r.name in drop_stage:
            r = dataclasses.replace(r, effects={k: v for k, v in r.effects.items() if k[0] != "stage"})
        if disable and r.name.startswith(disable):
            r = dataclasses.replace(r, guard=Const(False))
        if drop and r.name == drop[0]:
            r = dataclasses.replace(r, effects={k: v for k, v in r.effects.items() if k[0] != drop[1]})
        out.append(r)
    return out


def _offer_keeps_stage(face: int = 1):
    import functools
    return build_model(SMALL, edit_rules=functools.partial(_edit, drop_stage=(f"offer_alliance_{face}",)))


def test_a_per_face_rule_that_keeps_the_stage_is_a_replayed_leak_not_an_internal_error():
    """The `drop-effect@offer_alliance_1.stage` mutant: the stage after the offer says which face
    offered. Game B is played in the same mutated rules (the partner model keeps `edit_rules`)."""
    m = _offer_keeps_stage(1)
    results, _ = check_leaks(m, CheckConfig(), observers=["Atreides"])
    (r,) = results
    assert r.verdict == "violated" and r.depth == 9, r.detail
    leak = r.extra["leak"]
    assert leak.component == "public board" and set(leak.seen_a) == {"stage"}
    assert leak.game_a.replay(m) == [] and leak.game_b.replay(leak.model_b) == []
    assert leak.game_a.depth == leak.game_b.depth
    offers = {x.split("(")[0] for x in leak.game_a.labels + leak.game_b.labels if x.startswith("offer_alliance_")}
    assert "offer_alliance_1" in offers and len(offers) == 2
    assert ("stage", ()) not in leak.model_b.rule("offer_alliance_1").effects  # B plays the mutant too
    twin = m.provenance.sibling(options=(("pids", (2, 1, 3, 4, 5, 6)),))
    assert ("stage", ()) not in twin.rule("offer_alliance_1").effects


def _partners(monkeypatch, **changes):
    """Game B's models replaced: the real partner models rebuilt with `changes`."""
    from model.moritani.secrets import FaceSecrets
    real = FaceSecrets.partner_models

    def partners(self, model, pair):
        for mb in real(self, model, pair):
            yield mb.provenance.sibling(**changes)
    monkeypatch.setattr(FaceSecrets, "partner_models", partners)


def test_game_b_that_looks_different_before_the_end_cuts_both_games_there(monkeypatch):
    """Case (a) at an earlier step: in game B's rules a move leaves the forces where they were, so
    every game B looks different right after game A's move, while the difference found was at
    step 9 (the stage after the offer); both games end after the move."""
    import functools
    m = _offer_keeps_stage(1)
    (r,) = check_leaks(m, CheckConfig(), observers=["Atreides"])[0]
    full = r.extra["leak"].game_a
    k, move = next((k, lab) for k, lab in enumerate(full.labels, 1) if "forces" in
                   {f for f, _ in m.action(lab).rule.effects})
    assert 0 < k < 9
    _partners(monkeypatch, edit_rules=functools.partial(_edit, drop_stage=("offer_alliance_1",),
                                                        drop=(m.action(move).rule.name, "forces")))
    (r,) = check_leaks(m, CheckConfig(), observers=["Atreides"])[0]
    leak = r.extra["leak"]
    assert r.verdict == "violated" and r.depth == k and leak.game_b.depth == k, r.detail
    assert leak.game_a.labels == full.labels[:k] and leak.component == "public board"
    assert any(x.startswith("forces") for x in leak.seen_a) and leak.seen_a != leak.seen_b
    assert leak.game_a.replay(m) == [] and leak.game_b.replay(leak.model_b) == []


@pytest.mark.heavy
def test_game_b_that_cannot_take_a_step_of_game_a_is_a_leak(monkeypatch, tmp_path):
    """Case (b): in game B's rules Moritani can never offer an alliance, so no game B takes game A's
    last step; the pair is game A (9 steps) and game B (8 steps), and every printer takes it."""
    import functools

    from checks.formats.html import leak_viewers
    from checks.pipelines.proofs import save_leak_pair
    m = _offer_keeps_stage(1)
    _partners(monkeypatch, edit_rules=functools.partial(_edit, disable="offer_alliance_"))
    (r,) = check_leaks(m, CheckConfig(), observers=["Atreides"])[0]
    leak = r.extra["leak"]
    assert r.verdict == "violated" and r.depth == 9 and leak.game_b.depth == 8, r.detail
    assert leak.component == "public step" and leak.seen_a.startswith("offer_alliance(") and leak.seen_b == "no such step"
    assert "no public equivalent" in r.detail
    assert leak.game_a.replay(m) == [] and leak.game_b.replay(leak.model_b) == []
    text = side_by_side(leak, m)
    assert len(text.splitlines()) == 1 + 9 + 2 and "cannot take game A's step 9" in text
    html = leak_viewers([leak], m, "lk")
    assert "game B cannot take game A&#x27;s step 9" in html and "public step" in html
    path = save_leak_pair(leak, m, prop(), tmp_path)
    assert path.endswith("-A.scenario.yaml")
    assert len(list((tmp_path / "leaks").glob("*-B.scenario.yaml"))) == 1


@pytest.mark.heavy
def test_exchanging_faces_maps_every_grounded_action_and_replays_step_by_step(small_model, small_exploration):
    """The face exchange on actions is derived from declared data (parameters over Face, per-face
    rule families): it is a total involution on the grounded actions, and every step from s that
    does not reveal an exchanged face has its exchanged step from σ(s), to a successor equal to
    σ's image up to a permutation of hidden faces (the pids re-dealt on a return to supply)."""
    from model.compile import CompiledModel
    from model.evaluate import apply, enabled
    from model.moritani.observe import exchange_label, face_permutation, hidden_faces
    m, ex = small_model, small_exploration
    c = m.vocabulary
    labels = {a.label for a in m.actions}
    for a in m.actions:
        for x, y in itertools.combinations(c.faces, 2):
            image = exchange_label(m, a, x, y)
            assert image in labels, (a.label, x, y)
            assert exchange_label(m, m.action(image), x, y) == a.label
    reveals = {k: f"reveal_{c.K.labels[k].lower().replace(' ', '_')}" for k in c.faces}
    # Successors through the generated code, each state's once (not every guard once per face pair): it equals
    # the reference semantics on every state of this model (tests/test_explore.py) and on drawn states
    # (tests/test_backends.py). The reference evaluator checks a sample of the same steps below.
    cm = CompiledModel.build(m)
    index = {a.label: n for n, a in enumerate(m.actions)}
    steps = 0
    for k, s in enumerate(ex.states):  # every state (issue 36: it had been cut to every other, then every fifth)
        faces = hidden_faces(m, s)
        if len(faces) < 2:
            continue
        out = cm.successors(s)
        for x, y in itertools.combinations(faces, 2):
            s2 = swap_faces(m, s, x, y)
            out2 = dict(cm.successors(s2))
            for n, t in out:
                a = m.actions[n]
                if a.rule.name in (reveals[x], reveals[y]):
                    continue
                b = index[exchange_label(m, a, x, y)]
                assert b in out2, (a.label, m.actions[b].label)
                assert face_permutation(m, t, out2[b]) is not None, a.label
                if k % 50 == 0:
                    assert enabled(m.actions[b], s2, m.schema) and apply(a, s, m.schema) == t
                    assert apply(m.actions[b], s2, m.schema) == out2[b]
                steps += 1
    assert steps > 2_000, steps
