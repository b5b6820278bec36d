"""The proof cache of `rulecheck check` (checks/engines/proofcache.py): certificates are re-checked, never trusted;
a known `unknown` under the same rlimit is not re-attempted and never turns into `proved`."""
from __future__ import annotations

import json

import pytest

from checks.analyses.quick_z3 import quick_proofs
from checks.engines.induction import HornSystem, recheck, spacer
from checks.engines.proofcache import FILE
from model.moritani.build import build_model
from model.moritani.profiles import PROFILES

RLIMIT = 800_000  # proves some step properties on the default profile within check; the others run out


def test_certificate_is_rechecked_and_a_wrong_one_rejected():
    model = build_model(unbounded=True)
    system = HornSystem(model)
    r = spacer(model, "placement-once", rlimit=RLIMIT, system=system)
    assert r.verdict == "proved" and r.certificate
    assert recheck(system, "placement-once", r.certificate)
    assert not recheck(system, "placement-once", "(assert true)")      # true is not strong enough
    assert not recheck(system, "token-conservation", r.certificate)    # a certificate for another property


@pytest.mark.heavy
def test_cache_reuses_proofs_skips_known_unknowns_and_survives_tampering(tmp_path):
    prop = build_model(PROFILES["default"].bounds, PROFILES["default"].interpretation, (), unbounded=True)
    cold: dict = {}
    proved, n = quick_proofs(prop, 0, RLIMIT, tmp_path, cold)
    ids = [r.id for r in proved]
    assert "spice-payee" in ids and len(ids) < n and cold["certificates_rechecked"] == []
    warm: dict = {}
    again, _ = quick_proofs(prop, 0, RLIMIT, tmp_path, warm)
    assert [r.id for r in again] == ids
    assert warm["certificates_rechecked"] == ids and len(warm["known_unknown_skipped"]) == n - len(ids)
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
    missing = [p.name for p in model.invariants if key(fingerprint(system, p.name), 3_000_000, 0) not in seed]
    assert not missing, (f"checks/engines/spacer-proofs.json is stale for '{profile}' ({', '.join(missing)}); "
                         f"regenerate it with: {SEED_COMMAND.format(profile=profile)}")
