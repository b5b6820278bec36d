"""`rulecheck compare`: verdicts side by side and the shortest game on which two proposals disagree."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checks.cli import main
from checks.analyses.compare import compare_proposals
from checks.formats.compare_report import save
from checks.formats.scenario import replay_file
from model.errors import InputError
from model.moritani import GAME
from model.moritani.config import Bounds, Interpretation
from model.moritani.profiles import Proposal

SMALL = Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen", turns=2, faces=("Extortion", "Robbery"))


def prop(name, bounds=SMALL, defects=(), **choices):
    return Proposal(name, interpretation=Interpretation.of(**choices), bounds=bounds, defects=defects)


def test_a5_extortion_first_lets_a_recovered_token_be_placed_again_at_once(tmp_path):
    c = compare_proposals(prop("engine"), prop("extortion-first", extortion_mentat_order="extortion-first"), GAME.build)
    assert c.verdict == "differ" and c.complete
    assert (len(c.a.exploration.states), len(c.b.exploration.states)) == (5892, 6111)
    (d,) = c.differences
    assert (d.kind, d.direction, d.depth) == ("outcome", "only-b", 23)
    labels = [s.action for s in d.trace.steps]
    # A5: Extortion recovered, then placed again in the same Mentat Pause: impossible placement-first.
    assert labels[-3:] == ["recover_extortion", "place_token(k=Extortion, to=Arrakeen)",
                           "commit_placement(k=Extortion)"]
    assert not d.trace.replay(c.b.model)
    paths = save(c, tmp_path)
    (path,) = paths.values()
    assert replay_file(GAME, path).ok


def test_a4_orders_give_the_same_outcomes_within_the_bounds():
    # Karama before the reply or after acceptance: the same end-of-turn outcomes are reachable
    # (a blocked offer leaves reveal or decline open either way), so no game tells them apart.
    c = compare_proposals(prop("engine"), prop("after-reply", karama_eome_timing="after-reply"), GAME.build)
    assert c.verdict == "same" and c.differences == []
    assert set(c.a.outcomes) == set(c.b.outcomes) and len(c.a.outcomes) == 485


def test_a_verdict_that_differs_is_a_distinguishing_game():
    c = compare_proposals(prop("engine"), prop("minted", defects=("extortion-payment-minted",)), GAME.build)
    kinds = {(d.kind, d.direction, d.what) for d in c.differences}
    assert ("verdict", "only-b", "conservation violated") in kinds
    row = dict((i, (va, vb)) for i, va, vb in c.table())
    assert row["conservation"] == ("holds", "violated")


def test_compare_needs_equal_bounds():
    with pytest.raises(InputError, match="same bounds; they differ in turns"):
        compare_proposals(prop("a"), prop("b", bounds=Bounds(strongholds=("Arrakeen",), ambassador="Arrakeen",
                                                                  turns=1, faces=SMALL.faces)), GAME.build)


def test_cli_exit_codes_and_json(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    bounds = "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  faces: [Extortion, Robbery]\n"
    a.write_text("name: a\n" + bounds)
    b.write_text("name: b\ninterpretation:\n  A5: extortion-first\n" + bounds)
    r = CliRunner().invoke(main, ["compare", str(a), str(b), "--format", "json", "--out", str(tmp_path / "o")])
    assert r.exit_code == 12, r.output
    rep = json.loads(r.output)
    assert rep["summary"]["verdict"] == "differ" and rep["differences"][0]["depth"] == 23
    assert rep["differences"][0]["trace"].endswith("b-not-a-outcome.scenario.yaml")
    r = CliRunner().invoke(main, ["compare", str(a), str(a)])
    assert r.exit_code == 0 and "no game within the bounds tells A and B apart" in r.output
