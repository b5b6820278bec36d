"""A read-only install and unwritable cache places (issue 37; NOTE(read-only) in checks/engines/cachedirs.py).

Every cache the tool writes (numba's compiled code, the proof store) degrades to
memory where its place cannot be written, with one warning on stderr per cache, and the verdicts are
the same as with writable caches.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from checks.engines.cachedirs import CacheWarning

ROOT = Path(__file__).resolve().parent.parent


def _writes_despite_chmod(tmp: Path) -> bool:
    """True when this process writes into a directory without write permission (root, CAP_DAC_OVERRIDE)."""
    probe = tmp / "probe"
    probe.mkdir()
    probe.chmod(0o555)
    try:
        (probe / "x").write_text("")
        return True
    except OSError:
        return False
    finally:
        probe.chmod(0o755)


def read_only_install(tmp: Path) -> tuple[Path, Path, str]:
    """(package dir, HOME, how) for a copy of `model/` and `checks/` that cannot be written, and a
    HOME that cannot be written either.

    As an ordinary user: the copy and HOME are `chmod -R a-w`. As root (CI containers), chmod does not
    stop writes, so unwritability is simulated where it matters: each `__pycache__` next to the copy's
    modules is a regular file (numba's in-tree cache and Python's bytecode cannot be created there) and
    HOME lies below a regular file (nothing below it can be created: no ~/.cache for numba or rulecheck)."""
    pkg = tmp / "site"
    for part in ("model", "checks"):
        shutil.copytree(ROOT / part, pkg / part, ignore=shutil.ignore_patterns("__pycache__"))
    if _writes_despite_chmod(tmp):
        for d in [p for p in pkg.rglob("*") if p.is_dir()] + [pkg]:
            (d / "__pycache__").write_text("")  # a file: no directory can be made in its place
        (tmp / "not-a-dir").write_text("")
        return pkg, tmp / "not-a-dir" / "home", "root: regular files in the way"
    home = tmp / "home"
    home.mkdir()
    for p in sorted(pkg.rglob("*"), reverse=True) + [pkg, home]:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return pkg, home, "chmod -R a-w"


def rulecheck(pkg: Path, home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("NUMBA_CACHE_DIR", "RULECHECK_CACHE", "XDG_CACHE_HOME", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-c", "from checks.launch import run; run()", *args],
                          cwd=cwd, env=clean | {"HOME": str(home), "PYTHONPATH": str(pkg)} | env,
                          capture_output=True, text=True, timeout=600)


def verdicts(stdout: str) -> list:
    return [(c["id"], c.get("observer"), c["verdict"], c["engine"]) for c in json.loads(stdout)["checks"]]


@pytest.mark.heavy
def test_check_prove_and_mutate_run_from_a_read_only_install(tmp_path):
    """`check`, `prove` and `mutate` from a copy of the package that cannot be written, with HOME not
    writable and NUMBA_CACHE_DIR unset (before: `internal error: RuntimeError: cannot cache function
    '_hash': no locator available`, exit 1). Each cache that cannot be written says so once; the
    verdicts are those of a run whose caches can be written."""
    pkg, home, how = read_only_install(tmp_path / "ro")
    work = tmp_path / "work"
    work.mkdir()
    try:
        check = ("check", "--proposal", "assassinate-leaders", "--max-states", "3000", "--z3-budget", "1000",
                 "--jobs", "1", "--format", "json")
        r = rulecheck(pkg, home, work, *check)
        assert r.returncode == 4, (how, r.stderr)  # the state budget cut the search: inconclusive, as below
        lines = r.stderr.splitlines()
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
        numba = [s for s in lines if "numba's compiled-code cache has no writable place" in s]
        proofs = [s for s in lines if "the proof store cannot be written" in s]
        assert len(numba) == 1 and len(proofs) == 1, (how, lines)
        writable = rulecheck(ROOT, tmp_path / "home-ok", work, *check, RULECHECK_CACHE=str(tmp_path / "cache"))
        assert writable.returncode == 4 and "warning" not in writable.stderr, writable.stderr
        assert verdicts(r.stdout) == verdicts(writable.stdout)

        r = rulecheck(pkg, home, work, "prove", "--proposal", "assassinate-leaders", "--check", "token-conservation",
                      "--format", "json")
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert verdicts(r.stdout) == [("token-conservation", None, "proved", "lemmas")]  # the shipped seed

        r = rulecheck(pkg, home, work, "mutate", "--proposal", "assassinate-leaders", "--max-mutants", "1",
                      "--jobs", "1", "--format", "json")
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert sum("numba's compiled-code cache" in s for s in r.stderr.splitlines()) == 1, r.stderr
        assert json.loads(r.stdout)["summary"]["checked"] == 1
    finally:
        for p in [pkg, home, *pkg.rglob("*")]:
            if p.exists() and not p.is_symlink():
                p.chmod(p.stat().st_mode | stat.S_IWUSR)


def test_an_unwritable_store_keeps_this_runs_entries_in_memory_and_warns_once(tmp_path):
    """A cache directory that cannot be created (its parent is a regular file: unwritable even for
    root): `save` writes nothing, warns once per store, and the entries stay usable for the run."""
    from checks.engines.lemmacache import LemmaCache
    from model.expr import Var
    (tmp_path / "file").write_text("")
    where = tmp_path / "file" / "cache"
    record_ = {"key": "c" * 64, "verdict": "unknown"}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        lc = LemmaCache(where, use_seed=False)  # a missing place is an empty store, not a damaged one: no warning
        lc.record_spacer("a" * 64, "i", record_)
        lc.put("b" * 64, [("x", Var("x") <= 3)], [])
        lc.save()
        lc.save()  # still unwritable: the same warning, which the CLI prints once (cachedirs.reported)
    said = {str(w.message) for w in record if issubclass(w.category, CacheWarning)}
    assert len(said) == 1 and all("cannot be written" in s and "Not a directory" in s for s in said), said
    assert lc.spacer_records("a" * 64, "i") == [("user", record_)] and lc.get("b" * 64) is not None
    assert not where.exists()
