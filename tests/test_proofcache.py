"""check's Spacer records in the proof store (checks/engines/lemmacache.py, field `spacer`): certificates
are re-checked, never trusted; a known `unknown` under the same rlimit is not re-attempted and never turns
into `proved`; the store is one file for check and prove, merged field by field (issue 35)."""
from __future__ import annotations

import json

import pytest

from checks.analyses.quick_z3 import quick_proofs
from checks.engines.certificates import certificate_problem
from checks.engines.induction import HornSystem, spacer
from checks.engines.lemmacache import FILE, LemmaCache
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES

RLIMIT = 400_000  # proves some step properties of the default profile (shipment-is-paid among them); the others run out
# spice-payee was the example until issue 33: once the Ecaz Ambassador is spent after it reacts, its proof
# needs more than this budget.
EXAMPLE = "shipment-is-paid"


def records(path) -> dict:
    """check's Spacer records in the store file at `path`, by property (the store holds one model)."""
    [entry] = json.loads(path.read_text()).values()
    return entry["spacer"]


def test_certificate_is_rechecked_and_a_wrong_one_rejected():
    model = build_model(unbounded=True)
    system = HornSystem(model)
    r = spacer(model, EXAMPLE, rlimit=RLIMIT, system=system)
    assert r.verdict == "proved" and r.certificate
    assert certificate_problem(system, EXAMPLE, r.certificate) is None
    assert certificate_problem(system, EXAMPLE, "(assert true)") == f"C => {EXAMPLE} fails"  # too weak
    assert certificate_problem(system, "token-conservation", r.certificate) is not None  # another property's


@pytest.mark.heavy
def test_cache_reuses_proofs_skips_known_unknowns_and_survives_tampering(tmp_path, monkeypatch):
    import gzip
    from checks.engines import lemmacache
    empty = tmp_path / "seed.json.gz"  # cold: the shipped records would prove these at once
    empty.write_bytes(gzip.compress(b"{}"))
    monkeypatch.setattr(lemmacache, "SEED", empty)
    tmp_path = tmp_path / "store"
    prop = build_model(PROFILES["default"].bounds, PROFILES["default"].interpretation, (), unbounded=True)
    cold: dict = {}
    proved, n = quick_proofs(prop, 0, RLIMIT, tmp_path, cold)
    ids = [r.id for r in proved]
    assert EXAMPLE in ids and len(ids) < n and cold["certificates_rechecked"] == []
    warm: dict = {}
    again, _ = quick_proofs(prop, 0, RLIMIT, tmp_path, warm)
    assert [r.id for r in again] == ids
    # Permissions (issue 33) are never attempted by check: listed as left to prove, neither skipped nor proved.
    permissions = [p.name for p in prop.invariants if p.kind == "permission"]
    assert permissions and warm["permissions_left_to_prove"] == permissions
    assert warm["certificates_rechecked"] == ids
    assert len(warm["known_unknown_skipped"]) == n - len(ids) - len(permissions)
    path = tmp_path / FILE
    entries = json.loads(path.read_text())
    for e in entries.values():
        for r in e["spacer"].values():
            if r["verdict"] == "proved":
                r["certificate"] = "(assert true)"
    path.write_text(json.dumps(entries))
    tampered: dict = {}
    third, _ = quick_proofs(prop, 0, RLIMIT, tmp_path, tampered)
    assert [r.id for r in third] == ids and tampered["certificates_rechecked"] == []
    assert len(tampered["warnings"]) == len(ids) and all("is not a proof" in w for w in tampered["warnings"])
    assert all(r["verdict"] == "proved" and r["certificate"] != "(assert true)" for n, r in records(path).items()
               if n in ids)  # Spacer ran again and stored real certificates


@pytest.mark.heavy
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_shipped_seed_matches_every_embedded_profile(profile):
    """A change to the rules, the encoder or Z3 changes the encoding's fingerprint, and the shipped
    records stop applying: `rulecheck check` would silently take half a minute instead of
    seconds. This fails first, and says how to regenerate the seed."""
    from checks.engines.induction import fingerprint
    from checks.engines.lemmacache import spacer_key
    from checks.pipelines.check import SEED_COMMAND
    from model.digest import transition_digest
    from model.moritani import GAME
    model = GAME.build(PROFILES[profile], unbounded=True)
    system = HornSystem(model)
    cache = LemmaCache(None)
    cache.use_seed = True  # the seed alone
    key = transition_digest(model)
    # Permissions are proved by `prove`, not by check's budget (NOTE(permissions) in checks/analyses/quick_z3.py).
    invariants = [p for p in model.invariants if p.kind != "permission"]
    stored = {p.name: dict(cache.spacer_records(key, p.name)).get("seed") for p in invariants}
    missing = [n for n, r in stored.items()
               if r is None or r["key"] != spacer_key(fingerprint(system, n), 3_000_000, 0)]
    assert not missing, (f"the seed's Spacer records are stale for '{profile}' ({', '.join(missing)}); "
                         f"regenerate them with: {SEED_COMMAND.format(profile=profile)}")
    # Every shipped proof passes the verifier every run applies (issue 37): else each `check` would warn.
    refused = {n: certificate_problem(system, n, r["certificate"]) for n, r in stored.items()
               if r["verdict"] == "proved"}
    assert not {n: why for n, why in refused.items() if why}, refused


# -- one store for check and prove, shared by concurrent runs (issue 19, issue 35) --------------------------

WRITER = """
import sys, time
from pathlib import Path
from checks.engines.lemmacache import LemmaCache
from model.expr import Var
d, who, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
for i in range(12):  # each round reads the file as it is, adds one record (and a lemma set) and saves
    c = LemmaCache(d, use_seed=False)
    c.record_spacer("e" * 64, f"inv-{who}-{i}", {"key": "0" * 64, "verdict": "unknown"})
    if who == "a":
        c.put("e" * 64, [(f"x <= {i}", Var("x") <= i)], [])
    c.save()
"""


@pytest.mark.parametrize("writers", [2, 3])
def test_concurrent_runs_keep_every_record(tmp_path, writers):
    """Two (three) runs sharing one store, saving records of one model at the same time, one of them its
    lemmas too: every record survives, and so do the lemmas (lock + merge, field by field)."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "cache"), "abc"[w], str(go)], cwd=root)
             for w in range(writers)]
    go.write_text("")
    assert all(p.wait(timeout=60) == 0 for p in procs)
    [entry] = json.loads((tmp_path / "cache" / FILE).read_text()).values()
    assert len(entry["spacer"]) == 12 * writers and entry["lemmas"][0][0] == "x <= 11"
    assert not [p.name for p in (tmp_path / "cache").iterdir() if p.name.startswith(".proofs-")]


def test_a_refused_lemma_set_keeps_the_entrys_spacer_records(tmp_path):
    """prove refusing the user's lemmas removes them, not check's records of the same model."""
    from model.expr import Var
    c = LemmaCache(tmp_path, use_seed=False)
    c.put("d" * 64, [("x <= 3", Var("x") <= 3)], ["p"])
    c.record_spacer("d" * 64, "p", {"key": "1" * 64, "verdict": "unknown"})
    c.save()
    c = LemmaCache(tmp_path, use_seed=False)
    with pytest.warns(UserWarning, match="do not re-prove"):
        c.refused("d" * 64, "user", "its lemmas do not re-prove")
    c.save()
    assert json.loads((tmp_path / FILE).read_text()) == {"d" * 64: {"spacer": {"p": {"key": "1" * 64,
                                                                                     "verdict": "unknown"}}}}
    assert LemmaCache(tmp_path, use_seed=False).get("d" * 64) is None  # no lemma set: no candidate for prove


RECORD = {"key": "a" * 64, "verdict": "unknown"}


@pytest.mark.parametrize("content, problem", [
    ("{not json", "not JSON"),
    ("[1, 2, 3]", "holds a list"),
    ('"a string"', "holds a str"),
    ("null", "holds a NoneType"),
    ('{"x": 1}', "1 of its 1 entries have the wrong shape"),
    ('{"' + "a" * 64 + '": {"spacer": {"i": {"key": "' + "a" * 64 + '", "verdict": "proved"}}}}', "wrong shape"),
    ('{"' + "a" * 64 + '": {"spacer": {"i": {"key": 5, "verdict": "unknown"}}}}', "wrong shape"),
    ('{"' + "a" * 64 + '": {"spacer": {"i": {"key": "' + "a" * 64 + '", "verdict": "maybe"}}}}', "wrong shape"),
    ('{"' + "a" * 64 + '": {"lemmas": [], "spacer": {}}}', "wrong shape"),  # lemmas without their invariants
    ('{"' + "a" * 64 + '": {}}', "wrong shape"),
    ("\x00\x01\x02binary", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "not JSON"),
    ('{"a": NaN}', "wrong shape"),
], ids=lambda x: repr(x)[:24])
def test_a_malformed_store_is_ignored_with_a_warning_and_rebuilt(tmp_path, content, problem):
    (tmp_path / FILE).write_text(content)
    with pytest.warns(UserWarning) as said:
        c = LemmaCache(tmp_path, use_seed=False)
    assert c.entries == {} and len(said) == 1 and problem in str(said[0].message), [str(w.message) for w in said]
    c.record_spacer("f" * 64, "x", RECORD)
    c.save()
    assert json.loads((tmp_path / FILE).read_text()) == {"f" * 64: {"spacer": {"x": RECORD}}}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LemmaCache(tmp_path, use_seed=False)  # no warning: the file was rebuilt


def test_valid_entries_of_a_partly_damaged_store_are_kept(tmp_path):
    good = {"b" * 64: {"spacer": {"i": RECORD}}}
    (tmp_path / FILE).write_text(json.dumps(good | {"short": {"spacer": {"i": RECORD}}}))
    with pytest.warns(UserWarning, match="1 of its 2 entries"):
        c = LemmaCache(tmp_path, use_seed=False)
    assert c.entries == good
    c.save()  # rebuilt without the bad entry
    assert json.loads((tmp_path / FILE).read_text()) == good


@pytest.mark.heavy
def test_check_warns_on_stderr_about_a_malformed_store_and_still_runs(tmp_path):
    from click.testing import CliRunner
    from checks.cli import main
    (tmp_path / FILE).write_text("{broken")
    r = CliRunner().invoke(main, ["check", "--max-states", "200", "--z3-budget", "1000", "--proof-cache",
                                  str(tmp_path)])
    assert r.exit_code == 4, r.output
    assert "warning: the proof store" in r.output and "not JSON" in r.output and "Traceback" not in r.output
    json.loads((tmp_path / FILE).read_text())  # rebuilt: valid JSON again
    assert (tmp_path / (FILE + ".corrupt")).read_text() == "{broken"


@pytest.mark.heavy
def test_reseed_spacer_replaces_the_records_of_the_named_proposals_and_nothing_else(tmp_path, monkeypatch):
    """`reseed spacer P`: P's entry gets exactly the records of the new attempt (the old ones go), its lemmas
    stay, every other entry is unchanged. The attempt is stubbed (its real cost is check's Spacer)."""
    import functools
    import gzip
    import shutil
    from checks.engines import lemmacache
    from checks.pipelines import reseed as R
    from model.digest import transition_digest
    from model.moritani import GAME
    seed = tmp_path / "seed.json.gz"
    shutil.copy(lemmacache.SEED, seed)
    monkeypatch.setattr(R, "reseed", functools.partial(lemmacache.reseed, seed=seed))
    digest = transition_digest(GAME.build(GAME.profiles["assassinate-leaders"], unbounded=True))
    record = {"key": "0" * 64, "verdict": "unknown"}

    def attempt(args):
        c = LemmaCache(args[1], use_seed=False)
        c.record_spacer(digest, "token-conservation", record)
        c.save()
    monkeypatch.setattr(R, "_spacer_one", attempt)
    before = json.loads(gzip.decompress(seed.read_bytes()))
    assert len(before[digest]["spacer"]) > 1
    R.spacer_records(["assassinate-leaders"])
    after = json.loads(gzip.decompress(seed.read_bytes()))
    assert after[digest] == dict(before[digest], spacer={"token-conservation": record})
    assert {k: e for k, e in after.items() if k != digest} == {k: e for k, e in before.items() if k != digest}
