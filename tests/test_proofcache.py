"""The proof cache of `rulecheck check` (checks/proofcache.py): certificates are re-checked, never trusted;
a known `unknown` under the same rlimit is not re-attempted and never turns into `proved`."""
from __future__ import annotations

import json

from checks.check_z3 import quick_proofs
from checks.induction import HornSystem, recheck, spacer
from checks.proofcache import FILE
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES

RLIMIT = 800_000  # proves placement-once (H28, A5) on the default profile within check; the others run out


def test_certificate_is_rechecked_and_a_wrong_one_rejected():
    model = build_model(unbounded=True)
    system = HornSystem(model)
    r = spacer(model, "placement-once", rlimit=RLIMIT, system=system)
    assert r.verdict == "proved" and r.certificate
    assert recheck(system, "placement-once", r.certificate)
    assert not recheck(system, "placement-once", "(assert true)")      # true is not strong enough
    assert not recheck(system, "token-conservation", r.certificate)    # a certificate for another property


def test_cache_reuses_proofs_skips_known_unknowns_and_survives_tampering(tmp_path):
    prop = PROFILES["default"]
    cold: dict = {}
    proved, n = quick_proofs(prop, 0, RLIMIT, tmp_path, cold)
    assert [r.id for r in proved] == ["placement-once"] and cold["certificates_rechecked"] == []
    warm: dict = {}
    again, _ = quick_proofs(prop, 0, RLIMIT, tmp_path, warm)
    assert [r.id for r in again] == ["placement-once"]
    assert warm["certificates_rechecked"] == ["placement-once"] and len(warm["known_unknown_skipped"]) == n - 1
    path = tmp_path / FILE
    entries = json.loads(path.read_text())
    for e in entries.values():
        if e["verdict"] == "proved":
            e["certificate"] = "(assert true)"
    path.write_text(json.dumps(entries))
    tampered: dict = {}
    third, _ = quick_proofs(prop, 0, RLIMIT, tmp_path, tampered)
    assert [r.id for r in third] == ["placement-once"] and tampered["certificates_rechecked"] == []
