"""The proof store as a file others can touch (issue 40, issue 37): the lock file is never followed
through a symbolic link, a damaged user entry never hides the valid shipped one, and two `prove`
runs sharing one store leave it whole and agree."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from checks.engines import lemmacache
from checks.engines.cachedirs import CacheWarning
from checks.engines.lemmacache import LemmaCache

ROOT = Path(__file__).resolve().parent.parent
PROFILE = "assassinate-leaders"  # the smallest embedded profile: its seed entries re-check in about a second


def cache_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, CacheWarning)]


@pytest.mark.parametrize("store", ["proofs", "lemmas"])
@pytest.mark.parametrize("target_exists", [False, True])
def test_the_lock_file_is_never_followed_through_a_symlink(tmp_path, store, target_exists):
    """A symbolic link planted as the lock file (pointing outside the cache): the save neither creates
    nor touches its target; the store is not written this run, and says so once."""
    from model.expr import Var
    cache_dir, outside = tmp_path / "cache", tmp_path / "outside"
    cache_dir.mkdir()
    outside.mkdir()
    target = outside / "target"
    if target_exists:
        target.write_text("keep me")
        os.utime(target, (1_000_000_000, 1_000_000_000))
    name = lemmacache.FILE
    (cache_dir / (name + ".lock")).symlink_to(target)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        c = LemmaCache(cache_dir, use_seed=False)
        if store == "proofs":  # check's Spacer record
            c.record_spacer("a" * 64, "i", {"key": "b" * 64, "verdict": "unknown"})
        else:
            c.put("a" * 64, [("x", Var("x") <= 3)], [])
        c.save()
    if target_exists:
        assert target.read_text() == "keep me" and target.stat().st_mtime == 1_000_000_000
    else:
        assert not target.exists()
    assert sorted(p.name for p in outside.iterdir()) == (["target"] if target_exists else [])
    assert not (cache_dir / name).exists()
    said = cache_warnings(record)
    assert len(said) == 1 and "cannot be written" in said[0], said


# -- a damaged user entry never hides the shipped one -------------------------------------------------------

@pytest.fixture(scope="module")
def profile_model():
    from model.moritani import GAME
    return GAME.build(GAME.profiles[PROFILE], unbounded=True)


@pytest.mark.parametrize("damage", ["certificate-edited", "garbage-certificate", "known-unknown"])
def test_a_damaged_user_proof_entry_does_not_hide_the_shipped_proof(profile_model, tmp_path, monkeypatch, damage):
    """check's Spacer records: the user's record for a property the seed proves is edited, garbage, or says
    `unknown`: the shipped certificate is still verified and used (no Spacer run at all: every
    invariant of this profile has a shipped record under check's default budget)."""
    from checks.analyses import quick_z3
    from model.digest import transition_digest
    key = transition_digest(profile_model)
    seed = LemmaCache(None)
    seed.use_seed = True
    shipped = {p.name: dict(seed.spacer_records(key, p.name)).get("seed") for p in profile_model.invariants}
    proved = sorted(n for n, r in shipped.items() if r and r["verdict"] == "proved")
    name = proved[0]
    record = dict(shipped[name])
    if damage == "certificate-edited":
        record["certificate"] = record["certificate"].replace("(assert", "(assert (not", 1) + ")"
    elif damage == "garbage-certificate":
        record["certificate"] = "\x00 not smt (((("
    else:
        record = {"key": record["key"], "verdict": "unknown"}
    (tmp_path / lemmacache.FILE).write_text(json.dumps({key: {"spacer": {name: record}}}))

    def no_spacer(*a, **k):
        raise AssertionError("Spacer ran: a stored entry hid the shipped proof (or the shipped seed is stale: "
                             "see test_the_shipped_seed_matches_every_embedded_profile)")
    monkeypatch.setattr(quick_z3, "spacer", no_spacer)
    stats: dict = {}
    got, _ = quick_z3.quick_proofs(profile_model, 0, 3_000_000, tmp_path, stats)
    assert sorted(r.id for r in got) == proved and sorted(stats["certificates_rechecked"]) == proved
    if damage != "known-unknown":  # the user's damaged record is forgotten, with one warning
        assert len(stats["warnings"]) == 1 and not (tmp_path / lemmacache.FILE).read_text().count(name)


@pytest.mark.heavy
@pytest.mark.parametrize("damage", ["garbage", "false-lemma", "valid-but-empty"])
def test_a_damaged_user_lemma_entry_does_not_hide_the_shipped_one(profile_model, tmp_path, monkeypatch, damage):
    """prove's lemma cache: a user entry for the profile's model that does not decode, does not
    re-prove, or proves nothing: the shipped entry is still verified and used, with no search."""
    from checks.analyses import prove as P
    from model.digest import transition_digest
    from checks.pipelines.proofs import lemma_samples
    from model.expr import Const, Var
    from model.moritani import GAME
    entry = {"garbage": {"lemmas": [[1, 2]], "invariants": ["token-conservation"]},
             "false-lemma": {"lemmas": [["turn <= 1", lemmacache.to_data(Var("turn") <= Const(1))]],
                             "invariants": ["token-conservation"]},
             "valid-but-empty": {"lemmas": [], "invariants": []}}[damage]
    (tmp_path / lemmacache.FILE).write_text(json.dumps({transition_digest(profile_model): entry}))

    def no_search(*a, **k):
        raise AssertionError("a search ran: the user's entry hid the shipped one (or the shipped lemma seed is "
                             "stale: see tests/test_infer.py)")
    monkeypatch.setattr(P, "infer", no_search)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        [r] = P.prove(profile_model, ["token-conservation"], samples=lemma_samples(GAME.profiles[PROFILE]),
                      cache=LemmaCache(tmp_path))
    assert r.verdict == "proved" and r.engine == "lemmas" and "stored for these rules" in r.detail, r.detail
    assert len(cache_warnings(record)) == (0 if damage == "valid-but-empty" else 1), cache_warnings(record)


# -- two prove runs on one store ---------------------------------------------------------------------------

@pytest.mark.heavy
def test_two_concurrent_prove_runs_share_one_store(tmp_path, profile_model):
    """Two `prove` processes on one store that holds a hostile entry for their model and another
    model's entry: both refuse the hostile one, prove from the shipped entry and exit 0 with the same
    verdict; the store is valid JSON afterwards, without the hostile entry, with the other entry, and
    without temporary files."""
    from model.digest import transition_digest
    store = tmp_path / "store"
    store.mkdir()
    other = {"lemmas": [["x", ["Const", True]]], "invariants": []}
    (store / lemmacache.FILE).write_text(json.dumps({
        transition_digest(profile_model): {"lemmas": [["ghost", ["Eq", ["Var", "nosuch", []], ["Const", 1]]]],
                                      "invariants": ["token-conservation"]},
        "f" * 64: other}))
    cmd = [sys.executable, "-c", "from checks.launch import run; run()", "prove", "--proposal", PROFILE,
           "--check", "token-conservation", "--check", "placement-once", "--format", "json",
           "--proof-cache", str(store)]
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0 and "Traceback" not in err, err
    # the first to read the hostile entry refuses it (both may read it before either drops it)
    assert any("not current-state expressions" in err for _, err in outs), outs
    got = [sorted((c["id"], c["verdict"], c["engine"]) for c in json.loads(out)["checks"]) for out, _ in outs]
    assert got[0] == got[1] == [("placement-once", "proved", "lemmas"), ("token-conservation", "proved", "lemmas")]
    assert json.loads((store / lemmacache.FILE).read_text()) == {"f" * 64: other}
    assert sorted(p.name for p in store.iterdir()) == [lemmacache.FILE, lemmacache.FILE + ".lock"]
