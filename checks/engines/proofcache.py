"""A cache of `rulecheck check`'s Spacer attempts, keyed by the exact encoded system.

The key hashes Z3's version, the encoded initial states, transition relation and invariant,
the rlimit and the seed (`checks.engines.induction.fingerprint`), so any change to the rules, the
bounds, the encoder or Z3 misses. What is stored:

- `proved`: Spacer's inductive invariant (a certificate). It is never trusted: every hit is
  re-checked by three plain SAT queries (`checks.engines.induction.recheck`) before `proved` is
  reported; a certificate that fails is dropped and Spacer runs again.
- `unknown`: Spacer ran out of this rlimit on this very system. rlimit is deterministic, so
  the attempt is not repeated; the report lists the invariant as not proved (as it would
  anyway), never as proved.

The file lives in `$RULECHECK_CACHE`, else `$XDG_CACHE_HOME/rulecheck`, else
`~/.cache/rulecheck` (`--proof-cache DIR` on `check`; `--proof-cache off` disables it).
Writes go through a temporary file and an atomic rename, so concurrent runs never see half a file.

A read-only seed ships next to this module (`checks/engines/spacer-proofs.json`: the embedded profiles'
entries for the Z3 version the project was last measured with), so a fresh CI machine with that
Z3 version starts warm; its certificates are re-checked like any other. Regenerate it with
`RULECHECK_CACHE=checks/engines rulecheck check --proposal <profile>` for every embedded profile;
a test (tests/test_proofcache.py) fails, naming that command, when the seed no longer matches one, and
`check` says so in its notes.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

FILE = "spacer-proofs.json"


SEED = Path(__file__).resolve().parent / FILE


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        return {}  # a damaged cache is only a slower run


def default_dir() -> Path | None:
    env = os.environ.get("RULECHECK_CACHE")
    if env:
        return None if env == "off" else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulecheck"


def key(fingerprint: str, rlimit: int, seed: int) -> str:
    return hashlib.sha256(f"{rlimit}\n{seed}\n{fingerprint}".encode()).hexdigest()


class ProofCache:
    """Read once, update in memory, write once (`save`)."""

    def __init__(self, directory: Path | None):
        self.path = Path(directory) / FILE if directory is not None else None
        self.dirty = False
        self.entries = _read(self.path) if self.path is not None else {}
        self.seed = _read(SEED) if self.path is not None and self.path != SEED else {}

    def get(self, k: str) -> dict | None:
        return self.entries.get(k) or self.seed.get(k)

    def in_seed(self, k: str) -> bool:
        """Is there a shipped entry for this exact encoding (checks/engines/spacer-proofs.json)?"""
        return k in self.seed or (self.path == SEED and k in self.entries)

    def put(self, k: str, entry: dict) -> None:
        self.entries[k] = entry
        self.dirty = True

    def drop(self, k: str) -> None:
        if self.entries.pop(k, None) is not None:
            self.dirty = True

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".proofs-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.entries, f, sort_keys=True)
            os.chmod(tmp, 0o644)  # mkstemp creates 0600; the cache holds nothing private
            os.replace(tmp, self.path)
        except OSError:
            pass  # an unwritable cache directory only costs time on the next run
