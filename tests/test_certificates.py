"""Stored proofs are verified for what they are, never trusted (checks/engines/certificates.py; issues 37, 40).

The attack of issue 37: a "certificate" that mentions next-state symbols, P(x0) /\\ (T(x0, x1) -> P(x1)),
passes the three queries Init => C, C /\\ T => C', C => P for a false P. Most tests here use the
counter model of tests/conftest.py (x counts to 3; `broken=True` lets it reach 4, which breaks
`bounded` after 4 steps), where the same forgery works and every query takes milliseconds; the
issue's own reproduction (the seeded defect `eome-duplicates-token`) runs through the CLI, marked heavy.
"""
from __future__ import annotations

import gzip
import json
import warnings

import pytest
import z3

from checks.analyses.certify import settle_stored
from checks.analyses.prove import prove
from checks.analyses.quick_z3 import quick_proofs
from model.digest import transition_digest
from checks.engines import lemmacache
from checks.engines.cachedirs import CacheWarning
from checks.engines.induction import HornSystem, fingerprint
from checks.engines.lemmacache import LemmaCache, spacer_key, to_data
from checks.results import CheckResult, reconcile
from model.expr import Const, Var
from tests.toys import counter_model

RLIMIT = 1000  # a Spacer record's key includes check's rlimit; any value works for a forged record
GENUINE = "(declare-fun x@0 () Int) (assert (<= x@0 3))"  # x <= 3: inductive on the correct counter


def forged(model, name: str) -> str:
    """Issue 37's certificate: P(x0) /\\ (T(x0, x1) -> P(x1)), as SMT-LIB text."""
    system = HornSystem(model)
    enc = system.enc
    s = z3.Solver(ctx=enc.ctx)
    s.add(z3.And(enc.invariant(name, 0), z3.Implies(z3.And(system.step), enc.invariant(name, 1))))
    return s.sexpr()


def cache_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, CacheWarning)]


@pytest.fixture(scope="module")
def broken():
    return counter_model(broken=True)


# -- what a certificate is ----------------------------------------------------------------------------

def test_the_issue_37_certificate_proves_nothing(broken):
    """`bounded` is false on the broken counter (x reaches 4); the forged certificate passes all three
    queries, and is refused because it mentions x@1 (and act@0)."""
    refused = []
    assert settle_stored(broken, [], {"bounded": forged(broken, "bounded")}, lambda n, why: refused.append(why)) == {}
    assert refused and "not a current-state symbol" in refused[0], refused


@pytest.mark.parametrize("text, why", [
    ("(declare-fun x@0 () Int) (declare-fun x@1 () Int) (assert (and (<= x@0 3) (= x@1 x@1)))", "x@1"),
    ("(declare-fun x@0 () Int) (declare-fun act@0 () Int) (assert (and (<= x@0 3) (= act@0 act@0)))", "act@0"),
    ("(declare-fun x@0 () Int) (declare-fun c () Int) (assert (and (<= x@0 3) (= c c)))", "mentions c,"),
    ("(declare-fun x@0 () Int) (declare-fun f (Int) Int) (assert (and (<= x@0 3) (= (f 0) (f 0))))",
     "uninterpreted function f"),
    ("(declare-fun x@0 () Int) (assert (and (<= x@0 3) (forall ((y Int)) (= y y))))", "quantifier"),
    # the right name with the wrong sort is another symbol
    ("(declare-fun x@0 () Int) (declare-fun done@0 () Int) (assert (and (<= x@0 3) (= done@0 done@0)))", "done@0"),
], ids=["next-state", "action", "free-constant", "function", "quantifier", "wrong-sort"])
def test_a_certificate_is_a_formula_over_the_current_state_only(text, why):
    """Each text is the genuine inductive invariant x <= 3 with something harmless conjoined that a
    certificate may not hold: the three queries still pass, the structure check refuses it."""
    model = counter_model()
    assert list(settle_stored(model, [], {"bounded": GENUINE})) == ["bounded"]
    refused = []
    assert settle_stored(model, [], {"bounded": text}, lambda n, w: refused.append(w)) == {}
    assert refused and why in refused[0], refused


# -- check's Spacer records and prove's lemmas, in the one proof store ----------------------------------

def spacer_entry(model, name: str, certificate: str) -> dict:
    """A proof store entry holding only check's record that `certificate` proves `name` on `model`."""
    k = spacer_key(fingerprint(HornSystem(model), name), RLIMIT, 0)
    return {"spacer": {name: {"key": k, "verdict": "proved", "certificate": certificate}}}


def test_check_refuses_a_forged_spacer_record_and_drops_it(broken, tmp_path):
    (tmp_path / lemmacache.FILE).write_text(json.dumps(
        {transition_digest(broken): spacer_entry(broken, "bounded", forged(broken, "bounded"))}))
    stats: dict = {}
    proved, _ = quick_proofs(broken, 0, RLIMIT, tmp_path, stats)
    assert proved == [] and stats["certificates_rechecked"] == []
    said = stats["warnings"]
    assert len(said) == 1 and "bounded is not a proof" in said[0] and "x@1" in said[0], said
    # dropped from the file; Spacer's own attempt (out of this tiny rlimit) is what it holds now
    k = spacer_key(fingerprint(HornSystem(broken), "bounded"), RLIMIT, 0)
    assert json.loads((tmp_path / lemmacache.FILE).read_text())[transition_digest(broken)] == {
        "spacer": {"bounded": {"key": k, "verdict": "unknown"}}}


def test_prove_refuses_a_forged_lemma_cache_certificate(broken, tmp_path):
    """The entry's empty lemma set verifies (an empty conjunction is inductive); its certificate does
    not, so `bounded` goes down the chain: BMC finds the violation at depth 4."""
    cache = LemmaCache(tmp_path, use_seed=False)
    cache.put(transition_digest(broken), [], [], {"bounded": forged(broken, "bounded")})
    cache.save()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        [r] = prove(broken, ["bounded"], depth=6, samples=[broken], cache=LemmaCache(tmp_path, use_seed=False))
    assert r.verdict == "violated" and r.depth == 4, (r.verdict, r.detail)
    assert any("certificate for bounded is not a proof" in w for w in cache_warnings(record))


def _prove_with(broken, tmp_path, entry: dict, key: str | None = None):
    """`prove` on the broken counter with `entry` stored for it by hand (under `key`, default its transition digest)."""
    (tmp_path / lemmacache.FILE).write_text(json.dumps({key or transition_digest(broken): entry}))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        [r] = prove(broken, ["bounded"], depth=6, samples=[broken], cache=LemmaCache(tmp_path, use_seed=False))
    return r, cache_warnings(record)


@pytest.mark.parametrize("lemma, why", [
    ([["x <= 3", to_data(Var("x") <= Const(3))]], "do not re-prove"),       # false: x reaches 4
    ([["x <= 9", to_data(Var("x") <= Const(9))], ["false", to_data(Const(False))]], "do not re-prove"),
    ([["post", ["Post", ["Var", "x", []]]]], "does not decode"),               # a next-state node
    ([["ghost", to_data(Var("nosuch") <= Const(3))]], "do not re-prove"),     # no such state field
    ([["index", to_data(Var("x", (Const(1),)) <= Const(3))]], "do not re-prove"),  # x takes no index
    ([["div", ["Eq", ["Div", ["Var", "x", []], 0], ["Const", 0]]]], "do not re-prove"),  # a division by 0
    ([[1, 2]], "does not decode"),                                             # garbage
], ids=["false", "false-among-true", "next-state", "unknown-field", "bad-index", "div-by-zero", "garbage"])
def test_a_hostile_lemma_entry_is_refused_with_a_warning_and_dropped(broken, tmp_path, lemma, why):
    """The entry claims `bounded` (false on the broken counter) with lemmas that do not make a proof:
    never `proved`; one warning names the entry; the user's file no longer holds it."""
    r, said = _prove_with(broken, tmp_path, {"lemmas": lemma, "invariants": ["bounded"]})
    assert r.verdict == "violated" and r.depth == 4, (r.verdict, r.detail)
    assert any(why in w for w in said), said
    # the file now holds the search's own entry, which claims nothing about `bounded`
    assert json.loads((tmp_path / lemmacache.FILE).read_text()) == {
        transition_digest(broken): {"lemmas": [], "invariants": []}}


def test_an_entry_of_another_model_proves_nothing_here(broken, tmp_path):
    """The correct counter's valid entry (x <= 3 proves `bounded` there) filed under the broken counter's
    digest, certificate included: refused, the violation is found."""
    entry = {"lemmas": [["x <= 3", to_data(Var("x") <= Const(3))]], "invariants": ["bounded"],
             "certificates": {"bounded": GENUINE}}
    r, said = _prove_with(broken, tmp_path, entry)
    assert r.verdict == "violated" and any("do not re-prove" in w for w in said), said


def test_a_truncated_lemma_cache_is_ignored_with_a_warning(broken, tmp_path):
    entry = {"lemmas": [["x <= 9", to_data(Var("x") <= Const(9))]], "invariants": []}
    text = json.dumps({transition_digest(broken): entry})
    (tmp_path / lemmacache.FILE).write_text(text[:len(text) // 2])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        [r] = prove(broken, ["bounded"], depth=6, samples=[broken], cache=LemmaCache(tmp_path, use_seed=False))
    assert r.verdict == "violated"
    assert any("not JSON" in w for w in cache_warnings(record)), cache_warnings(record)


def test_a_proof_of_another_model_is_refused_by_check(broken, tmp_path):
    """The correct counter's genuine certificate under the broken counter's digest: not a proof there."""
    (tmp_path / lemmacache.FILE).write_text(json.dumps(
        {transition_digest(broken): spacer_entry(broken, "bounded", GENUINE)}))
    stats: dict = {}
    proved, _ = quick_proofs(broken, 0, RLIMIT, tmp_path, stats)
    assert proved == [] and any("consecution" in w for w in stats["warnings"]), stats


def test_the_shipped_seed_is_verified_like_any_entry(broken, tmp_path, monkeypatch):
    """A forged entry in the shipped seed (the package's own file, edited in place) proves nothing, for
    check (its Spacer record) or for prove (its certificate)."""
    lseed = tmp_path / "seed" / (lemmacache.FILE + ".gz")
    lseed.parent.mkdir()
    lseed.write_bytes(gzip.compress(json.dumps({transition_digest(broken): {
        "lemmas": [], "invariants": [], "certificates": {"bounded": forged(broken, "bounded")}}
        | spacer_entry(broken, "bounded", forged(broken, "bounded"))}).encode()))
    monkeypatch.setattr(lemmacache, "SEED", lseed)
    stats: dict = {}
    proved, _ = quick_proofs(broken, 0, RLIMIT, tmp_path / "user", stats)
    assert proved == [] and any(str(lseed) in w for w in stats["warnings"]), stats
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        [r] = prove(broken, ["bounded"], depth=6, samples=[broken], cache=LemmaCache(tmp_path / "user"))
    assert r.verdict == "violated" and any(str(lseed) in w for w in cache_warnings(record))


BUGGY = "name: custody bug\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n"


@pytest.mark.heavy
def test_the_issue_37_reproduction_check_on_the_seeded_defect(tmp_path, monkeypatch):
    """The issue's reproduction: the forged certificate for `token-conservation`, written by hand into
    the proof store for a proposal with `eome-duplicates-token`. Before: `check` printed the check
    both violated (explicit, 9 steps) and proved (Spacer). Now the certificate is refused (it mentions
    next-state symbols) with one warning, dropped from the store, and the check is violated, once."""
    from checks.analyses import quick_z3
    from checks.formats.proposal import resolve
    from checks.pipelines import check as checking
    from checks.pipelines.common import GAME, Options
    monkeypatch.setattr(quick_z3, "small_guards", lambda *a, **k: [])  # the guards are not what this is about
    buggy = tmp_path / "buggy.yaml"
    buggy.write_text(BUGGY)
    model = GAME.build(resolve(GAME, str(buggy)), unbounded=True)
    store = tmp_path / "store"
    store.mkdir()
    digest = transition_digest(model)
    (store / lemmacache.FILE).write_text(json.dumps(
        {digest: spacer_entry(model, "token-conservation", forged(model, "token-conservation"))}))
    run = checking.check(Options(proposal=str(buggy), fmt="json"), z3_budget=RLIMIT, jobs=1, proof_cache=str(store))
    rows = [c for c in json.loads(run.stdout)["checks"] if c["id"] == "token-conservation"]
    assert [(c["verdict"], c["engine"], c["depth"]) for c in rows] == [("violated", "explicit", 9)]
    assert run.code == 12  # no contradiction reached the report: the one line on stderr is the refusal
    assert len(run.stderr) == 1 and "token-conservation is not a proof" in run.stderr[0] and "@1" in run.stderr[0]
    kept = json.loads((store / lemmacache.FILE).read_text())[digest]["spacer"]
    assert kept.get("token-conservation", {}).get("verdict") != "proved"


# -- contradicting verdicts (NOTE(contradiction) in checks/results.py) -------------------------------------

def test_reconcile_lets_a_replayed_trace_win_and_otherwise_claims_nothing(broken):
    from model.trace import Trace
    bad = Trace(broken.init[0], ())  # replays (no step), so it backs the violation
    worse = Trace((9, True), ())     # not an initial state: does not replay
    v = CheckResult(id="bounded", kind="invariant", verdict="violated", engine="explicit", trace=bad)
    p = CheckResult(id="bounded", kind="invariant", verdict="proved", engine="spacer")
    h = CheckResult(id="other", kind="invariant", verdict="holds", engine="explicit")
    kept, said = reconcile([v, p, h], broken)
    assert [(r.id, r.verdict) for r in kept] == [("bounded", "violated"), ("other", "holds")]
    assert len(said) == 1 and "INTERNAL INCONSISTENCY" in said[0] and "bug in rulecheck" in said[0]
    assert "INTERNAL INCONSISTENCY" in kept[0].detail
    v2 = CheckResult(id="bounded", kind="invariant", verdict="violated", engine="bmc", trace=worse)
    kept, said = reconcile([p, v2, h], broken)
    assert [(r.id, r.verdict) for r in kept] == [("bounded", "unknown"), ("other", "holds")] and len(said) == 1
    assert reconcile([h, p], broken) == ([h, p], [])  # nothing to reconcile: left alone


@pytest.mark.heavy
def test_a_report_never_shows_one_check_proved_and_violated(tmp_path, monkeypatch):
    """Whatever claims `proved` (here a stand-in for a verifier bug: check's Spacer step returns
    `proved` for the defect's target), the explicit violation with its replayed trace is what the
    report shows, once; the contradiction is on stderr and in the JSON."""
    from checks.analyses import quick_z3
    from checks.pipelines import check as checking
    from checks.pipelines.common import Options

    def claims_proved(model, seed, rlimit, cache_dir="default", stats=None, budget=None):
        p = next(p for p in model.invariants if p.name == "token-conservation")
        return [CheckResult(id=p.name, kind=p.kind, verdict="proved", engine="spacer", rules=p.rules)], 1
    monkeypatch.setattr(quick_z3, "quick_proofs", claims_proved)
    monkeypatch.setattr(quick_z3, "small_guards", lambda *a, **k: [])  # not what this test is about
    buggy = tmp_path / "buggy.yaml"
    buggy.write_text(BUGGY)
    run = checking.check(Options(proposal=str(buggy), fmt="json"), z3_budget=RLIMIT, jobs=1)
    rows = [c for c in json.loads(run.stdout)["checks"] if c["id"] == "token-conservation"]
    assert [(c["verdict"], c["engine"]) for c in rows] == [("violated", "explicit")]
    assert "spacer says proved" in rows[0]["inconsistency"] and run.code == 12
    assert len(run.stderr) == 1 and "INTERNAL INCONSISTENCY: token-conservation" in run.stderr[0]
