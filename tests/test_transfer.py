"""Issue 35: cold proofs by transfer (checks/analyses/transfer.py).

A model the store has no entry for starts from the stored entry whose declarations (switches, bounds,
defects) are nearest; that entry's lemmas are re-proved on the new model (Houdini keeps the inductive
subset), never trusted, and the new model's entry records its own declarations.
"""
from __future__ import annotations

import time

import pytest

from checks.analyses.prove import prove
from checks.clock import Clock
from model.digest import transition_digest
from checks.analyses.transfer import declarations, distance, nearest, usable_lemmas
from checks.engines.lemmacache import LemmaCache
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


def armed(top: int = 3, z_top: int = 3):
    """tests/test_infer.py's four-slot model, with the counter's bound `top` (3 there) and the clock's
    declared bound `z_top` (it only reaches 2)."""
    from model.domains import Bool, IntRange
    from model.game import GameModel
    from model.properties import always
    from model.rule import Rule
    from model.schema import Field, Schema
    sch = Schema((Field("armed", Bool()), Field("x", IntRange(0, top)), Field("y", IntRange(0, 1)),
                  Field("z", IntRange(0, z_top))))
    rules = (Rule("inc", (), ~Var("armed") & (Var("x") < top), {("x", ()): Var("x") + 1}, ("T1",)),
             Rule("arm", (), ~Var("armed") & Var("x").eq(0), {("armed", ()): True}, ("T2",)),
             Rule("fire", (), Var("armed") & (Var("x") >= 1), {("y", ()): 1}, ("T3",)),
             Rule("tick", (), Var("z") < 2, {("z", ()): Var("z") + 1}, ("T4",)))
    return GameModel("armed", sch, ((False, 0, 0, 0),), rules, (always("quiet", Var("y") <= 0, ("T3",)),),
                     terminal=Var("armed") & Var("x").eq(top) & Var("z").eq(2))


def test_a_model_one_bound_away_is_proved_from_the_stored_entry(tmp_path):
    """The counter's bound 3 -> 4: the stored entry of the first model (with a false lemma and one
    over a slot the new model lacks slipped in) is the nearest; its lemmas are re-proved on the new
    model, the false one and the foreign one never count, `quiet` is proved, and the new entry records
    its declarations."""
    a, b = armed(3), armed(4)
    cache = LemmaCache(tmp_path, use_seed=False)
    first = {r.id: r for r in prove(a, ["quiet"], samples=[a], cache=cache, declarations={"bound:x": 3})}
    assert first["quiet"].verdict == "proved"
    lemmas, names, _ = LemmaCache(tmp_path, use_seed=False).get(transition_digest(a))
    c = LemmaCache(tmp_path, use_seed=False)
    extra = [("x < 0", Var("x") < Const(0)), ("w = 1", Var("w").eq(Const(1)))]
    c.put(transition_digest(a), lemmas + extra, names, declarations={"bound:x": 3})
    c.put("ab" * 32, [], [], declarations={"bound:x": 9, "other": 1})  # farther away
    c.save()
    stats: dict = {}
    got = {r.id: r for r in prove(b, ["quiet"], samples=[b], cache=LemmaCache(tmp_path, use_seed=False),
                                  stats=stats, declarations={"bound:x": 4})}
    inf = stats["inference"]
    assert inf["transferred_from"] == transition_digest(a) and inf["verdict"] == "proved", inf
    assert got["quiet"].verdict == "proved", got["quiet"].detail
    stored = LemmaCache(tmp_path, use_seed=False)
    kept, _, _ = stored.get(transition_digest(b))
    assert not {"x < 0", "w = 1"} & {n for n, _ in kept}
    assert stored.entries[transition_digest(b)]["declarations"] == {"bound:x": 4}


def test_a_fast_path_transfer_stores_the_lemmas_and_the_hints_proved_with_them_without_a_cone(tmp_path,
                                                                                               monkeypatch):
    """The nearby entry's lemmas re-prove on the new model as they stand and a hint of the new model is
    proved with them: the entry stored is those lemmas and the hint, with no cone computed (the lemmas were
    trimmed on their own model; the cone took 15 of a 28 s cold `prove`, docs/lemmas.md)."""
    import dataclasses
    from checks.analyses import prove as P
    a = armed()
    assert prove(a, ["quiet"], samples=[a], cache=LemmaCache(tmp_path, use_seed=False),
                 declarations={"bound:z": 3})[0].verdict == "proved"
    b = dataclasses.replace(armed(z_top=4), hints=(("hint: y is 0 or 1", Var("y") <= Const(1)),))
    monkeypatch.setattr(P, "cone", lambda *a, **k: pytest.fail("a cone was computed for a fast-path transfer"))
    stats: dict = {}
    [r] = prove(b, ["quiet"], samples=[b], cache=LemmaCache(tmp_path, use_seed=False), stats=stats,
                declarations={"bound:z": 4})
    inf = stats["inference"]
    assert r.verdict == "proved" and inf["transferred_from"] == transition_digest(a), (r.detail, inf)
    assert inf["states_mined"] == 0 and inf["transferred"] == inf["lemmas"], inf  # nothing explored: the fast path
    kept, _, _ = LemmaCache(tmp_path, use_seed=False).get(transition_digest(b))
    assert "hint: y is 0 or 1" in {n for n, _ in kept}


def test_transferred_lemmas_that_fail_here_are_pruned_without_exploring(tmp_path):
    """The counter's bound 3 -> 4: of the nearby entry's lemmas, `x <= 3` held there (the counter stopped at 3)
    but a step breaks it here, and `z >= 1` is false in the initial state. Both are dropped through the
    monolithic encoding, counterexample by counterexample (the fast path, docs/lemmas.md); what is left proves
    `quiet` with nothing explored or mined, and the entry stored for the new model lacks both."""
    a, b = armed(3), armed(4)
    c = LemmaCache(tmp_path, use_seed=False)
    lemmas = [("armed => x <= 0", ~Var("armed") | (Var("x") <= Const(0))), ("x <= 3", Var("x") <= Const(3)),
              ("z >= 1", Var("z") >= Const(1)), ("z <= 2", Var("z") <= Const(2))]
    c.put(transition_digest(a), lemmas, ["quiet"], declarations={"bound:x": 3})
    c.save()
    stats: dict = {}
    [r] = prove(b, ["quiet"], samples=[b], cache=LemmaCache(tmp_path, use_seed=False), stats=stats,
                declarations={"bound:x": 4})
    inf = stats["inference"]
    assert r.verdict == "proved" and inf["transferred_from"] == transition_digest(a), (r.detail, inf)
    assert inf["states_mined"] == 0 and inf["houdini_runs"] == [], inf
    kept, names, _ = LemmaCache(tmp_path, use_seed=False).get(transition_digest(b))
    assert {n for n, _ in kept} == {"armed => x <= 0", "z <= 2"} and names == ["quiet"]


def test_a_search_reports_its_progress_only_when_asked(tmp_path, capsys):
    """Progress lines (round, candidates, properties left) go to the callback the pipeline passes when
    stderr is a terminal; without one, a search prints nothing."""
    lines: list = []
    model = armed(3)
    prove(model, ["quiet"], samples=[model], cache=LemmaCache(tmp_path / "a", use_seed=False), progress=lines.append)
    assert any(line.startswith("prove: Houdini run 1:") for line in lines), lines
    assert any("properties left" in line for line in lines), lines
    # A few properties left are named: which one a search is stuck on is what its user needs to know.
    from checks.analyses.infer import Inference, _say
    named: list = []
    _say(Inference("unknown", progress=named.append), "guard round", [("atomics-kills-all", None)])
    assert named == ["prove: guard round; 0 proved by Spacer so far; properties left: 1 (atomics-kills-all)"]
    capsys.readouterr()
    prove(model, ["quiet"], samples=[model], cache=LemmaCache(tmp_path / "b", use_seed=False))
    assert capsys.readouterr().err == ""


@pytest.mark.heavy  # builds every seeded proposal's model (about 50 s on one core)
def test_reseed_transfer_with_nothing_stale_keeps_every_entry(monkeypatch):
    """`reseed transfer` over the seeded proposals (profiles and neighbours) when the seed has every current
    digest: nothing is searched, and the stale-entry pruning keeps every entry, none of which is declared as a
    seeded proposal under an old digest. (The searches and the writers are stubbed: this runs the selection.)"""
    import checks.pipelines.reseed as R
    from checks.engines.lemmacache import SEED, _load
    searched: list = []

    def kept_by(dirs, trim=None) -> int:  # lemmacache.reseed without the write: how many entries stay
        return sum(trim(k, e) is not None for k, e in sorted(_load(SEED).items()))
    monkeypatch.setattr(R, "_pooled", lambda fn, todo, jobs: searched.extend(todo) or [])
    monkeypatch.setattr(R, "unite", lambda dirs, models=None: 0)
    monkeypatch.setattr(R, "reseed", kept_by)
    assert R.transfer([]) == len(_load(SEED))
    assert searched == []


@pytest.mark.parametrize("settle_all", [False, True])
def test_mining_ahead_on_a_second_core_changes_no_lemma_and_no_candidate(monkeypatch, settle_all):
    """checks/analyses/mining.py: after a transfer whose fast path leaves a property, a second core mines ahead in
    forked children. The search gives the same lemmas, proofs, state count and candidates as on one core; when
    the fast path then proves everything (`settle_all`), the children are dropped and nothing mined is reported."""
    from checks.analyses import mining
    from checks.analyses.infer import infer
    from checks.results import CheckResult
    b = armed(4)
    start = [("z <= 2", Var("z") <= Const(2)), ("x <= 3", Var("x") <= Const(3))]  # `x <= 3` fails here

    def settle(facts, goals, first_failure=False):
        return {n: CheckResult(id=n, kind="invariant", verdict="proved", engine="spacer") for n, _ in goals} if settle_all else {}
    forks = []
    real = mining.Background
    monkeypatch.setattr(mining, "Background", lambda fn, fork=True: forks.append(fn) or real(fn, fork=fork))
    runs = {}
    for cores in (1, 2):
        monkeypatch.setattr(mining.os, "cpu_count", lambda cores=cores: cores)
        inf = infer(b, [b], start=start, start_names=(), settle=settle)
        runs[cores] = (inf.verdict, [t for t, _ in inf.lemmas], sorted(inf.proved), sorted(inf.settled), inf.states,
                       inf.candidates, inf.transferred, inf.queries)
    assert runs[1] == runs[2], runs
    assert runs[2][0] == "proved" and "quiet" in runs[2][2] + runs[2][3]
    if settle_all:
        assert len(forks) == 1 and runs[2][4] == 0  # the states' child started beside the fast path, then dropped
    else:
        assert len(forks) == 2 and runs[2][4] > 0 and runs[2][5] > 0  # the states, then the candidates


@pytest.mark.parametrize("cores", [1, 2])
def test_mining_waits_no_longer_than_the_timeout(monkeypatch, cores):
    """`--timeout` caps the whole `prove`: mining (inline, or its forked child on a second core) waits no longer than
    what is left, and the search is then cut (all inconclusive). Before, the mined path's exploration and candidates
    ran to the end: a `prove --timeout 48` on a treachery-online proposal reported 54.8 s."""
    from checks.analyses import mining
    from checks.analyses.infer import infer
    real, b = mining.state_table, armed(4)

    def slow(*args):
        time.sleep(1.0)
        return real(*args)
    monkeypatch.setattr(mining, "state_table", slow)
    monkeypatch.setattr(mining.os, "cpu_count", lambda: cores)
    ahead = mining.Mining(b, [b], clock=Clock(0.3))
    ahead.ahead()
    with pytest.raises(TimeoutError):
        ahead.states()
    cut = infer(b, [b], timeout=0.5)
    assert cut.cut and cut.verdict == "unknown" and not cut.proved, cut.reason
    assert "explore" not in cut.seconds  # the exploration gave up at the cap: it did not run to its end


def test_spacer_on_the_fast_path_stops_at_its_first_failure(monkeypatch, tmp_path):
    """After a transfer's fast path leaves a goal, the mined path runs anyway: there Spacer stops at its first
    failure (`settle(..., first_failure=True)`), and the goals it did not try get Spacer in the `settle` round,
    with the first Houdini run's facts too. On treachery-online proposals Spacer had failed on 8 or 9 properties
    one after the other, 20 M units each, before the first Houdini run proved them at once (docs/lemmas.md)."""
    import checks.analyses.certify as C
    import checks.analyses.infer as I
    import checks.analyses.prove as P
    from checks.engines.induction import ProofOutcome
    model = armed(3)
    got: dict = {}

    def capture(model, samples, **k):  # the search `prove` would run: only its `settle` is wanted here
        got["settle"] = k["settle"]
        raise RuntimeError("captured")
    monkeypatch.setattr(P, "infer", capture)
    P.prove(model, ["quiet"], samples=[model], cache=LemmaCache(tmp_path, use_seed=False))
    tried: list = []
    monkeypatch.setattr(C.os, "cpu_count", lambda: 1)  # the Spacer beside the search runs inline: seen here
    monkeypatch.setattr(C, "spacer", lambda model, name, rlimit=0, **k: tried.append((name, rlimit)) or ProofOutcome(
        "unknown", "spacer", 0.0, "Spacer stopped: canceled"))
    goals = [("quiet", Var("y") <= Const(0)), ("bounded x", Var("x") <= Const(3))]
    assert got["settle"]([], goals, True) == {} and tried == [("quiet", 20_000_000)]
    tried.clear()  # the failure gets ten times the budget beside the search: waited for once the next call's own fails
    assert got["settle"]([], goals) == {} and tried == [("quiet", 20_000_000), ("quiet", 200_000_000),
                                                        ("bounded x", 20_000_000)]
    # infer asks so on the fast path only: the `settle` round (after the first Houdini run) tries every goal left.
    asked: list = []

    def settle(facts, goals, first_failure=False):
        asked.append(first_failure)
        return {}
    start = [("z <= 2", Var("z") <= Const(2)), ("x <= 3", Var("x") <= Const(3))]
    inf = I.infer(armed(4), [armed(4)], start=start, start_names=(), settle=settle)
    assert asked[:2] == [True, False] and inf.verdict == "proved" and "quiet" in inf.proved, (asked, inf.reason)


@pytest.mark.slow  # about a minute on 2 cores
def test_a_property_the_fast_paths_spacer_leaves_is_proved_beside_the_mined_path(tmp_path):
    """Issue 35's goal on the treachery-online base. This proposal's fast path leaves `advisors-never-alone`: Spacer
    runs out of its 20 M units, and the mined path's rounds did not prove it within 120 s (cut; 187 s without a
    cap). Spacer with 200 M units and the fast path's facts proves it, beside the first Houdini run: every property
    proved, cold, with the shipped seed only."""
    import json
    import subprocess
    import sys
    from pathlib import Path
    proposal = tmp_path / "p.yaml"
    proposal.write_text("name: random 1-2\nextends: treachery-online\ninterpretation:\n"
                        "  sabotage-gift-overflow: reject\n  ally-separation: advanced\n"
                        "  eome-when-reveal-blocked: block-offer\n  terror-vs-arrival-reactions: unordered\n"
                        "bounds:\n  moritani_forces: 1\n")
    done = subprocess.run([sys.executable, "-c", "from checks.launch import run; run()", "prove", "--proposal",
                           str(proposal), "--format", "json", "--proof-cache", str(tmp_path / "store")],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=900)
    assert done.returncode == 0, done.stderr
    checks = {c["id"]: c for c in json.loads(done.stdout)["checks"]}
    assert [n for n, c in checks.items() if c["verdict"] != "proved"] == []
    assert "beside the lemma search" in checks["advisors-never-alone"]["detail"]


def test_a_property_the_fast_path_settled_and_the_lemmas_proved_is_reported_once():
    """A property a nearby certificate settled on the fast path may also survive the mined path's first Houdini
    run (it is offered there, as a fact the others may need): `prove` reported it twice, once per engine (two
    checks with one ID in the JSON, "74 / 74 proved" on a model of 72 properties). One verdict: the lemmas'."""
    from checks.analyses.infer import Inference
    from checks.results import CheckResult
    model = armed(3)
    quiet = {p.name: p.predicate for p in model.invariants}["quiet"]
    inf = Inference("proved", invariants=[("quiet", quiet)], proved={"quiet": []},
                    settled={"quiet": CheckResult(id="quiet", kind="invariant", verdict="proved", engine="spacer")})
    results = prove(model, ["quiet"], inference=inf)
    assert [(r.id, r.engine, r.verdict) for r in results] == [("quiet", "lemmas", "proved")], results
