"""The proof cache of `rulecheck check` (checks/engines/proofcache.py): certificates are re-checked, never trusted;
a known `unknown` under the same rlimit is not re-attempted and never turns into `proved`."""
from __future__ import annotations

import json

import pytest

from checks.analyses.quick_z3 import quick_proofs
from checks.engines.certificates import certificate_problem
from checks.engines.induction import HornSystem, spacer
from checks.engines.proofcache import FILE
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES

RLIMIT = 300_000  # proves some step properties of the default profile (shipment-is-paid among them); the others run out
# spice-payee was the example until issue 33: once the Ecaz Ambassador is spent after it reacts, its proof
# needs more than this budget.
EXAMPLE = "shipment-is-paid"


def test_certificate_is_rechecked_and_a_wrong_one_rejected():
    model = build_model(unbounded=True)
    system = HornSystem(model)
    r = spacer(model, EXAMPLE, rlimit=RLIMIT, system=system)
    assert r.verdict == "proved" and r.certificate
    assert certificate_problem(system, EXAMPLE, r.certificate) is None
    assert certificate_problem(system, EXAMPLE, "(assert true)") == f"C => {EXAMPLE} fails"  # too weak
    assert certificate_problem(system, "token-conservation", r.certificate) is not None  # another property's


@pytest.mark.heavy
def test_cache_reuses_proofs_skips_known_unknowns_and_survives_tampering(tmp_path):
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
        if e["verdict"] == "proved":
            e["certificate"] = "(assert true)"
    path.write_text(json.dumps(entries))
    tampered: dict = {}
    third, _ = quick_proofs(prop, 0, RLIMIT, tmp_path, tampered)
    assert [r.id for r in third] == ids and tampered["certificates_rechecked"] == []


@pytest.mark.heavy
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_shipped_seed_matches_every_embedded_profile(profile):
    """A change to the rules, the encoder or Z3 changes the encoding's fingerprint, and the shipped
    certificates stop applying: `rulecheck check` would silently take half a minute instead of
    seconds. This fails first, and says how to regenerate the seed."""
    from checks.engines.induction import fingerprint
    from checks.engines.proofcache import SEED, key
    from checks.pipelines.check import SEED_COMMAND
    from model.moritani import GAME
    model = GAME.build(PROFILES[profile], unbounded=True)
    system = HornSystem(model)
    seed = json.loads(SEED.read_text(encoding="utf-8"))
    # Permissions are proved by `prove`, not by check's budget (NOTE(permissions) in checks/analyses/quick_z3.py).
    invariants = [p for p in model.invariants if p.kind != "permission"]
    missing = [p.name for p in invariants if key(fingerprint(system, p.name), 3_000_000, 0) not in seed]
    assert not missing, (f"checks/engines/spacer-proofs.json is stale for '{profile}' ({', '.join(missing)}); "
                         f"regenerate it with: {SEED_COMMAND.format(profile=profile)}")
    # Every shipped proof passes the verifier every run applies (issue 37): else each `check` would warn.
    entries = {p.name: seed[key(fingerprint(system, p.name), 3_000_000, 0)] for p in invariants}
    refused = {n: certificate_problem(system, n, e["certificate"]) for n, e in entries.items()
               if e["verdict"] == "proved"}
    assert not {n: why for n, why in refused.items() if why}, refused


# -- concurrent runs and damaged files (issue 19) ---------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from checks.engines.proofcache import ProofCache
d, who, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
for i in range(12):  # each round reads the file as it is, adds one entry and saves: lost updates show
    c = ProofCache(d)
    c.put(f"{who}{i:063x}"[:64], {"invariant": f"inv-{who}-{i}", "verdict": "unknown"})
    c.save()
"""


@pytest.mark.parametrize("writers", [2, 3])
def test_concurrent_runs_keep_every_entry(tmp_path, writers):
    """Two (three) runs sharing one cache, saving at the same time: every entry survives (lock + merge)."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "cache"), "abc"[w], str(go)], cwd=root)
             for w in range(writers)]
    go.write_text("")
    assert all(p.wait(timeout=60) == 0 for p in procs)
    entries = json.loads((tmp_path / "cache" / FILE).read_text())
    assert len(entries) == 12 * writers
    assert not [p.name for p in (tmp_path / "cache").iterdir() if p.name.startswith(".proofs-")]


@pytest.mark.parametrize("content, problem", [
    ("{not json", "not JSON"),
    ("[1, 2, 3]", "holds a list"),
    ('"a string"', "holds a str"),
    ("null", "holds a NoneType"),
    ('{"x": 1}', "1 of its 1 entries have the wrong shape"),
    ('{"' + "a" * 64 + '": {"invariant": "i", "verdict": "proved"}}', "wrong shape"),   # a proof without certificate
    ('{"' + "a" * 64 + '": {"invariant": 5, "verdict": "unknown"}}', "wrong shape"),
    ('{"' + "a" * 64 + '": {"invariant": "i", "verdict": "maybe"}}', "wrong shape"),
    ("\x00\x01\x02binary", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "not JSON"),
    ('{"a": NaN}', "wrong shape"),
], ids=lambda x: repr(x)[:24])
def test_a_malformed_cache_is_ignored_with_a_warning_and_rebuilt(tmp_path, content, problem):
    from checks.engines.proofcache import ProofCache
    (tmp_path / FILE).write_text(content)
    c = ProofCache(tmp_path)
    assert c.entries == {} and len(c.warnings) == 1 and problem in c.warnings[0], c.warnings
    c.put("f" * 64, {"invariant": "x", "verdict": "unknown"})
    c.save()
    assert json.loads((tmp_path / FILE).read_text()) == {"f" * 64: {"invariant": "x", "verdict": "unknown"}}
    assert ProofCache(tmp_path).warnings == []


def test_valid_entries_of_a_partly_damaged_cache_are_kept(tmp_path):
    from checks.engines.proofcache import ProofCache
    good = {"b" * 64: {"invariant": "i", "verdict": "unknown"}}
    (tmp_path / FILE).write_text(json.dumps(good | {"short": {"invariant": "i", "verdict": "unknown"}}))
    c = ProofCache(tmp_path)
    assert c.entries == good and "1 of its 2 entries" in c.warnings[0]
    c.save()  # rebuilt without the bad entry
    assert json.loads((tmp_path / FILE).read_text()) == good


@pytest.mark.heavy
def test_check_warns_on_stderr_about_a_malformed_cache_and_still_runs(tmp_path):
    from click.testing import CliRunner
    from checks.cli import main
    (tmp_path / FILE).write_text("{broken")
    r = CliRunner().invoke(main, ["check", "--max-states", "200", "--z3-budget", "1000", "--proof-cache",
                                  str(tmp_path)])
    assert r.exit_code == 4, r.output
    assert "warning: the proof cache" in r.output and "not JSON" in r.output and "Traceback" not in r.output
    json.loads((tmp_path / FILE).read_text())  # rebuilt: valid JSON again
    assert (tmp_path / (FILE + ".corrupt")).read_text() == "{broken"
