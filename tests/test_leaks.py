"""Noninterference: the definition is neither inverted nor vacuous, and leak pairs replay."""
from __future__ import annotations

import dataclasses

from checks.config import CheckConfig
from checks.leaks import check_leaks, side_by_side
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES
from model.moritani.observe import Observer, swap_faces
from tests.conftest import SMALL


def prop(**kw):
    return dataclasses.replace(PROFILES["default"], bounds=kw.pop("bounds", SMALL), **kw)


def test_correct_engine_leaks_nothing_to_any_rival():
    results, stats = check_leaks(prop(), CheckConfig())
    assert [r.verdict for r in results] == ["holds"] * 3 and stats["state_pairs"] > 1_000
    assert {r.extra["observer"] for r in results} == {"Atreides", "Bene Gesserit", "Ecaz"}


def test_printing_the_face_is_caught_at_the_first_placement():
    results, _ = check_leaks(prop(defects=("face-printed",)), CheckConfig())
    r = results[0]
    assert r.verdict == "violated" and r.depth == 2  # declare, then commit: the token is on the map
    leak = r.extra["leak"]
    text = side_by_side(leak, build_model(SMALL, defects=("face-printed",)))
    assert "game A" in text and "game B" in text and "engine leak" in text
    assert leak.game_b.replay(leak.model_b) == []


def test_a_model_without_secrets_passes():
    one = dataclasses.replace(SMALL, faces=("Atomics",))
    results, stats = check_leaks(prop(bounds=one, defects=("face-printed",)), CheckConfig())
    assert [r.verdict for r in results] == ["holds"] * 3 and stats["state_pairs"] == 0


def test_revealing_is_declassification_not_a_leak():
    m = build_model(SMALL)
    # After a reveal the face is public; exchanges only touch faces still hidden.
    from checks.explore import Explorer
    ex = Explorer(m, CheckConfig()).run()
    t = ex.witness_trace("witness-robbery")
    end = t.states[-1]
    w = Observer(m, 1)
    from model.moritani.observe import hidden_faces
    robbery = m.info["ctx"].face("Robbery")
    assert robbery not in hidden_faces(m, end)
    a, b = hidden_faces(m, end)[:2]
    assert w.observe(end, []) == w.observe(swap_faces(m, end, a, b), [])


def test_observer_filter():
    results, _ = check_leaks(prop(), CheckConfig(), observers=["Ecaz"])
    assert [r.extra["observer"] for r in results] == ["Ecaz"]
