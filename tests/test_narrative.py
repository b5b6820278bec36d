"""Counterexamples read in game words; the exact text is pinned for a few traces."""
from __future__ import annotations

from checks.config import CheckConfig
from checks.analyses.selftest import run_defect
from model.moritani.defects import DEFECT_BY_ID
from model.moritani.profiles import PROFILES
from model.moritani.build import build_model
from model.moritani import GAME


def test_duplicated_token_trace_text():
    r = run_defect(GAME, DEFECT_BY_ID["eome-duplicates-token"], PROFILES["default"], CheckConfig())
    model = build_model(defects=("eome-duplicates-token",))
    assert r.trace.narrative(model) == """\
  1. turn 1, Mentat Pause: Moritani places a hidden token (Assassination) in Arrakeen
  2. turn 1, Mentat Pause: nobody plays Karama: the token lands in Arrakeen
  3. turn 1, Mentat Pause: no Extortion to collect
  4. turn 1, Mentat Pause: turn 2 begins
  5. turn 2, Shipment & Movement: Atreides moves 1 force from the open desert into Arrakeen
  6. turn 2, Shipment & Movement: Moritani's Terror decision opens: Atreides entered Arrakeen, where its Assassination token lies
  7. turn 2, Shipment & Movement: Moritani offers Atreides an alliance instead of revealing
  8. turn 2, Shipment & Movement: nobody plays Karama on the alliance offer
  9. turn 2, Shipment & Movement: Atreides accepts the alliance with Moritani; the Assassination token returns to supply"""


def test_sneak_into_aftermath_witness_text(default_model, default_exploration):
    t = default_exploration.witness_trace("witness-sneak-into-aftermath")
    lines = t.narrative(default_model).splitlines()
    assert t.depth == 24 and t.replay(default_model) == []
    assert lines[7] == "  8. turn 2, Shipment & Movement: Moritani reveals Atomics against Bene Gesserit in Arrakeen"
    assert lines[-1] == " 24. turn 3, Shipment & Movement: Sneak Attack: 1 Moritani forces arrive in Arrakeen"
