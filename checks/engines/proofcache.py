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

Concurrent runs sharing a cache keep every entry: `save` takes an exclusive lock (`flock` on
`spacer-proofs.json.lock`), re-reads the file, merges this run's new and dropped entries into it and
replaces it atomically (a temporary file, then rename), so a reader never sees half a file and no
writer loses another's entries. A file that is not a cache (malformed JSON, the wrong shape, entries
of the wrong shape) is read through `checks.formats.inputs`-style limits, ignored with a warning
(`warnings`, printed on stderr by `check`), kept aside as `spacer-proofs.json.corrupt` and rebuilt.

A read-only seed ships next to this module (`checks/engines/spacer-proofs.json`: the embedded profiles'
entries for the Z3 version the project was last measured with), so a fresh CI machine with that
Z3 version starts warm; its certificates are re-checked like any other. Regenerate it with
`RULECHECK_CACHE=checks/engines rulecheck check --proposal <profile>` for every embedded profile;
a test (tests/test_proofcache.py) fails, naming that command, when the seed no longer matches one, and
`check` says so in its notes.
"""
from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path

from checks.engines.cachedirs import default_dir, unwritable, warn  # noqa: F401  (default_dir: re-exported)
from checks.interrupt import INTERRUPTS

FILE = "spacer-proofs.json"
INTERRUPTS.protect(__file__)  # NOTE(signals): a save is never cut between its temporary file and the rename
MAX_BYTES = 64 << 20
SEED = Path(__file__).resolve().parent / FILE
KEY = re.compile(r"[0-9a-f]{64}")  # a cache key: sha256, hex


def _entry_ok(k, v) -> bool:
    """A cache entry: a sha256 key; a known invariant verdict; a proof carries its certificate."""
    if not (isinstance(k, str) and KEY.fullmatch(k) and isinstance(v, dict)):
        return False
    if not isinstance(v.get("invariant"), str) or v.get("verdict") not in ("proved", "unknown"):
        return False
    return v["verdict"] != "proved" or isinstance(v.get("certificate"), str)


def read_entries(path: Path, name: str = FILE, entry_ok=None) -> tuple[dict, str | None]:
    """(the valid entries, what is wrong with the file or None). A missing file is an empty cache.
    `entry_ok(key, value)` says which entries are well formed (default: a Spacer cache entry)."""
    entry_ok = entry_ok or _entry_ok
    try:
        # A seed may ship gzip-compressed (`*.gz`); the size limit applies to the decompressed text.
        with (gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):  # no cache yet (or no place for one: NOTE(read-only))
        return {}, None
    except (OSError, EOFError) as e:  # gzip's BadGzipFile is an OSError; a cut stream is an EOFError
        return {}, f"cannot read it ({getattr(e, 'strerror', None) or e})"
    if len(raw) > MAX_BYTES:
        return {}, f"it is larger than {MAX_BYTES:,} bytes"
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=lambda c: float("nan"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return {}, f"it is not JSON ({str(e).splitlines()[0][:80]})"
    if not isinstance(data, dict):
        return {}, f"it holds a {type(data).__name__}, not a mapping of entries"
    entries = {k: v for k, v in data.items() if entry_ok(k, v)}
    bad = len(data) - len(entries)
    return entries, (f"{bad} of its {len(data)} entries have the wrong shape" if bad else None)


def key(fingerprint: str, rlimit: int, seed: int) -> str:
    return hashlib.sha256(f"{rlimit}\n{seed}\n{fingerprint}".encode()).hexdigest()


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on `path` (a lock file next to the cache) for one read-merge-replace.

    The lock file is opened without following a symbolic link (O_NOFOLLOW): a link planted there
    would otherwise make the tool create or touch its target, anywhere (issue 40). A link is an
    OSError (ELOOP): the save is skipped, with a warning, like any unwritable place."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: the atomic replace still keeps the file whole
        yield
        return
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device planted as the lock
            raise OSError(errno.EINVAL, f"{path.name} is not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class ProofCache:
    """Read once, update in memory, merge into the file under a lock (`save`).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / FILE).write_text("[1, 2]")
    >>> c = ProofCache(d); c.warnings[0].endswith("ignored; it is rebuilt")
    True
    >>> c.put("0" * 64, {"invariant": "x", "verdict": "unknown"}); c.save()
    >>> sorted(json.loads((d / FILE).read_text())), (d / (FILE + ".corrupt")).read_text()
    (['0000000000000000000000000000000000000000000000000000000000000000'], '[1, 2]')
    """

    def __init__(self, directory: Path | None):
        self.path = Path(directory) / FILE if directory is not None else None
        self.warnings: list[str] = []
        self._put: dict = {}
        self._dropped: dict = {}  # key -> the entry as read, removed from the file only if still equal
        self._rebuild = False  # the file on disk is damaged: the next save writes a clean one
        self.entries = self._load(self.path) if self.path is not None else {}
        self._read = dict(self.entries)
        self.seed = self._load(SEED) if self.path is not None and self.path != SEED else {}

    def _load(self, path: Path) -> dict:
        entries, problem = read_entries(path)
        if problem:
            self.warnings.append(f"the proof cache {path}: {problem}; "
                                 + ("the valid entries are kept" if entries else "ignored; it is rebuilt"))
            if path == self.path:
                self._rebuild = True
        return entries

    @property
    def dirty(self) -> bool:
        return bool(self._put or self._dropped or self._rebuild)

    def get(self, k: str) -> dict | None:
        return self.entries.get(k) or self.seed.get(k)

    def candidates(self, k: str) -> list:
        """[(origin, entry)] stored for `k`: the user's ("user") first, then the shipped one ("seed").
        Each is verified by the caller; a user's entry that fails must not hide the shipped one."""
        return [(o, e) for o, e in (("user", self.entries.get(k)), ("seed", self.seed.get(k))) if e is not None]

    def refused(self, k: str, origin: str, why: str) -> None:
        """A stored entry failed verification: a warning, and the user's is dropped (the seed is read-only)."""
        warn(f"the proof cache {SEED if origin == 'seed' else self.path}: {why}")
        if origin == "user":
            self.drop(k)

    def in_seed(self, k: str) -> bool:
        """Is there a shipped entry for this exact encoding (checks/engines/spacer-proofs.json)?"""
        return k in self.seed or (self.path == SEED and k in self.entries)

    def put(self, k: str, entry: dict) -> None:
        self.entries[k] = entry
        self._put[k] = entry
        self._dropped.pop(k, None)

    def drop(self, k: str) -> None:
        if self.entries.pop(k, None) is not None:
            self._put.pop(k, None)
            if k in self._read:  # removed from the file only while it still holds what this run read
                self._dropped[k] = self._read[k]

    def save(self) -> None:
        """Merge this run's changes into the file as it is now, under the lock; atomically."""
        if self.path is None or not self.dirty:
            return
        merged, why = merge_into(self.path, self._put, self._dropped)
        if merged is not None:
            self.entries, self._read = merged, dict(merged)
            self._put, self._dropped, self._rebuild = {}, {}, False
        else:
            unwritable("the proof cache", self.path.parent, why)


def merge_into(path: Path, put: dict, dropped: dict, name: str = FILE, entry_ok=None) -> tuple:
    """Merge `put` (and the removal of `dropped`: {key: the entry as read}, removed only while the file
    still holds that very entry, so a concurrent run's newer one survives) into the cache file at
    `path` as it is now, under its lock, atomically; a damaged file is kept aside as `<name>.corrupt`.
    (the merged entries, None) or (None, why) when the place cannot be written (that only costs time
    on the next run: NOTE(read-only) in checks/engines/cachedirs.py)."""
    merged = None
    why = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.with_name(name + ".lock")):
            current, problem = read_entries(path, name, entry_ok)
            if problem and path.exists() and not current:
                os.replace(path, path.with_name(name + ".corrupt"))  # kept, not lost
            merged = {k: v for k, v in current.items() if not (k in dropped and dropped[k] == v)} | put
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".proofs-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(merged, f, sort_keys=True)
                os.chmod(tmp, 0o644)  # mkstemp creates 0600; the cache holds nothing private
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
    except OSError as e:
        merged, why = None, e.strerror or str(e)
    INTERRUPTS.raise_if_interrupted()
    return merged, why
