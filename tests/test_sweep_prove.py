"""`rulecheck sweep --prove` (issue 35, docs/sweep.md "Proofs"): every invariant proved for games of any
length on every distinct model of a sweep, and a "proved iff" statement per invariant over the proofs.

The summary's rules are checked on hand-made rows (cheap, every verdict kind); the real sweeps prove on the
tiny configuration (tests/toys.py `tiny`: one stronghold, three factions, no alliance or Karama) over A8,
whose `entrant-only` choice changes the Extortion rules (under `-m slow`: two transfers, minutes), and on
embedded profiles whose model the shipped lemma seed holds (assassinate-leaders in the default run: every
invariant re-proved; cross-ship under `-m slow`: one invariant the stored entry does not prove).
"""
from __future__ import annotations

import json

import pytest

from checks.analyses.sweep import Axis, Job, fingerprint_task
from checks.formats import sweep_report as rep
from checks.pipelines import sweep as sweeping
from checks.pipelines.common import GAME, Options
from checks.results import exit_code
from model.moritani.config import Interpretation
from tests.toys import tiny

AXES = (Axis("a", ("A1",), ("x", "y"), "x"), Axis("b", ("A2",), ("p", "q"), "p"))
TINY = ("name: tiny\nbounds: {factions: [Moritani, Atreides, Bene Gesserit], alliances: [], strongholds: [Arrakeen], "
        "ambassador: null, turns: 2, faces: [Extortion, Robbery], karama: []}\n")


def _rows(proofs_of) -> list:
    """A finished 2 x 2 sweep whose explicit checks hold everywhere; `proofs_of(a, b)`: that row's proofs."""
    rows = []
    for i, (a, b) in enumerate((a, b) for a in "xy" for b in "pq"):
        proofs = proofs_of(a, b)
        rows.append({"index": i, "id": f"A1={a},A2={b}", "combination": {"a": a, "b": b},
                     "distance": (a != "x") + (b != "p"), "status": "done", "depths": {},
                     "verdicts": {n: "holds" for n in ("inv", "flaky", "bad", "step")}, "proofs": proofs,
                     "checks": {n: {"kind": "step" if n == "step" else "invariant", "rules": []}
                                for n in ("inv", "flaky", "bad", "step")} if i == 0 else {}})
    return rows


META = {"failed": [], "missing": 0}


def test_proved_iff_is_fitted_to_the_proofs_and_an_unproved_combination_is_named():
    rows = _rows(lambda a, b: {"inv": "proved", "flaky": "bounded" if (a, b) == ("y", "q") else "proved",
                               "bad": "proved" if a == "y" else "violated"})
    checks = {c["id"]: c for c in rep.summarize(rows, AXES)}
    assert checks["inv"]["proof_verdict"] == "proved" and checks["inv"]["proved_iff"] == "proved on every combination"
    assert checks["bad"]["proof_verdict"] == "violated" and checks["bad"]["proved_iff"] == "proved iff A1=y"
    # `bounded` (held up to a depth, not proved) is undecided: named, never counted as proved.
    assert checks["flaky"]["proof_verdict"] == "unknown" and checks["flaky"]["unproved_on"] == ["A1=y,A2=q"]
    assert checks["flaky"]["proved_on"] == 3
    assert "proof_verdict" not in checks["step"]  # no combination proves it: no proof fields
    assert checks["bad"]["verdict"] == "holds"  # the explicit verdict on the bounds stays as it was
    assert exit_code(rep.sweep_verdicts(list(checks.values()), META)) == 12
    text = rep.to_text(list(checks.values()), GAME.profiles["default"], 0, _meta())
    assert "proofs (games of any length): 1 of 3 invariant(s) proved on every combination" in text
    assert "  flaky: unknown, proved on every combination; unproved on A1=y,A2=q" in text
    assert "  bad: violated, proved iff A1=y" in text
    page = rep.html_page(list(checks.values()), rows, AXES, GAME.profiles["default"], 0, _meta())
    assert "<th>proved iff (any length)</th>" in page and "<td>proved iff A1=y</td>" in page


def test_a_sweep_is_inconclusive_only_where_a_proof_is_missing_and_says_where():
    unproved = [c for c in rep.summarize(_rows(lambda a, b: {"inv": "proved", "flaky": "unknown" if b == "q"
                                                             else "proved"}), AXES)]
    assert exit_code(rep.sweep_verdicts(unproved, META)) == 4
    text = rep.to_text(unproved, GAME.profiles["default"], 0, _meta())
    assert text.splitlines()[-1].startswith("summary: inconclusive (undecided: flaky unproved on A1=x,A2=q, A1=y,A2=q)")
    proved = rep.summarize(_rows(lambda a, b: {"inv": "proved", "flaky": "proved", "bad": "proved"}), AXES)
    assert exit_code(rep.sweep_verdicts(proved, META)) == 0


def _meta() -> dict:
    return {"switches": [], "combinations": 4, "models": 4, "merged": [], "merged_combinations": 0, "done": 4,
            "failed": [], "missing": 0, "resumed": 0, "where": "here", "file": "sweep.jsonl", "states": 0,
            "seconds": 0.0}


def test_with_proofs_two_combinations_merge_only_if_their_unbounded_models_agree():
    """The fingerprint with --prove covers the unbounded-turn model as well (a switch may change only later
    turns); without --prove it is the bounded model's digest alone, as before."""
    a, b = tiny(), tiny(Interpretation.of(extortion_payers="entrant-only"))
    plain = [fingerprint_task(Job(0, p, GAME.build))["model"] for p in (a, a, b)]
    proved = [fingerprint_task(Job(0, p, GAME.build, prove=(("cache", None),)))["model"] for p in (a, a, b)]
    assert plain[0] == plain[1] != plain[2] and proved[0] == proved[1] != proved[2]
    assert set(plain).isdisjoint(proved)


def _tiny_sweep(tmp_path):
    (tmp_path / "tiny.yaml").write_text(TINY, encoding="utf-8")
    run = sweeping.sweep(Options(proposal=str(tmp_path / "tiny.yaml"), out=str(tmp_path / "o"), fmt="json"),
                         ("A8=any-rival,entrant-only",), jobs=2, progress=lambda _: None, prove=True,
                         proof_cache=str(tmp_path / "store"))
    rows = [json.loads(line) for line in (tmp_path / "o" / "sweep.jsonl").read_text().splitlines()]
    return run, json.loads(run.stdout), rows


@pytest.mark.heavy
def test_a_stored_model_is_proved_on_every_combination_that_builds_it(tmp_path):
    """The bounded form, real proofs: assassinate-leaders over A17 (two choices, one model: the stack reveal
    matters only with the Nexus card module). Its unbounded model is in the shipped lemma seed, so every
    invariant is re-proved from the stored lemmas, the merged combination carries the same proofs, and a sweep
    whose every check holds and every invariant is proved exits 0 (10 s)."""
    run = sweeping.sweep(Options(proposal="assassinate-leaders", out=str(tmp_path / "o"), fmt="json"),
                         ("stack-reveal",), jobs=1, progress=lambda _: None, prove=True,
                         proof_cache=str(tmp_path / "store"))
    doc = json.loads(run.stdout)
    rows = [json.loads(line) for line in (tmp_path / "o" / "sweep.jsonl").read_text().splitlines()]
    assert doc["sweep"]["models"] == 1 and [r["same_model_as"] for r in rows] == [None, rows[0]["id"]]
    proofs = {c["id"]: c for c in doc["checks"] if "proof_verdict" in c}
    invariants = [p.name for p in GAME.build(GAME.profiles["assassinate-leaders"], unbounded=True).invariants]
    assert sorted(proofs) == sorted(invariants) and rows[0]["proofs"] == rows[1]["proofs"]
    assert {c["proof_verdict"] for c in proofs.values()} == {"proved"}
    assert {c["proved_iff"] for c in proofs.values()} == {"proved on every combination"}
    assert run.code == 0 and doc["summary"]["verdict"] == "holds"


@pytest.mark.slow
def test_the_invariant_the_store_left_unproved_is_proved_by_its_hint(tmp_path):
    """cross-ship over A6 (three choices, one model, a seed hit; 50 s): `atomics-kills-all`, which the stored entry
    alone leaves unproved (it ended `bounded` and the sweep exited 4), is proved with the model's hint
    `visit-recorded` (NOTE(hints) in checks/analyses/infer.py): every invariant proved on every combination."""
    run = sweeping.sweep(Options(proposal="cross-ship", out=str(tmp_path / "o"), fmt="json"), ("A6",), jobs=1,
                         progress=lambda _: None, prove=True, proof_cache=str(tmp_path / "store"))
    doc = json.loads(run.stdout)
    rows = [json.loads(line) for line in (tmp_path / "o" / "sweep.jsonl").read_text().splitlines()]
    proofs = {c["id"]: c for c in doc["checks"] if "proof_verdict" in c}
    assert sorted(n for n, c in proofs.items() if c["proof_verdict"] != "proved") == []
    assert proofs["atomics-kills-all"]["proved_on"] == len(rows) == 3
    assert doc["summary"]["verdict"] == "holds" and run.code == 0


@pytest.mark.slow
def test_every_invariant_is_proved_on_every_combination_from_a_transfer(tmp_path):
    """Two models the store has never seen (tiny, A8 any-rival and entrant-only): a transfer each, every
    invariant proved (2 minutes on 2 cores)."""
    run, doc, rows = _tiny_sweep(tmp_path)
    proofs = [c for c in doc["checks"] if "proof_verdict" in c]
    assert len(proofs) == 62 and {c["proof_verdict"] for c in proofs} == {"proved"}
    assert all(set(r["proofs"].values()) == {"proved"} for r in rows)
    assert run.code == 12  # tiny has no Karama: its Karama witnesses are vacuous, as without --prove
