"""The proof store as a file (checks/engines/lemmacache.py: a JSON mapping, digest -> entry of fields).

Runs that share a store keep each other's work: `merge_into` locks (`flock` on `<file>.lock`, opened
without following a symbolic link), re-reads the file, merges this run's entries into it field by field
and replaces it atomically (a temporary file, then rename), so no reader sees half a file and no writer
loses a field another wrote. A damaged file reads as empty, is kept aside as `<file>.corrupt` and rebuilt.

>>> merge_entry({"a": 1, "b": 2}, {"a": 1, "b": 3}, {"a": 5, "b": 2})  # mine changed b, theirs a
{'a': 5, 'b': 3}
>>> merge_entry({"a": 1}, None, {"a": 1, "c": 4})  # mine dropped the entry; theirs added c, which stays
{'c': 4}
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import json
import os
import re
import stat
import tempfile
from pathlib import Path

from checks.interrupt import INTERRUPTS

INTERRUPTS.protect(__file__)  # NOTE(signals): a save is never cut between its temporary file and the rename
MAX_BYTES = 64 << 20
KEY = re.compile(r"[0-9a-f]{64}")  # a model's digest (sha256, hex)


def read_entries(path: Path, entry_ok) -> tuple[dict, str | None]:
    """(the valid entries, what is wrong with the file or None). A missing file is an empty store.
    `entry_ok(key, value)` says which entries are well formed."""
    try:
        # The seed ships gzip-compressed (`*.gz`); the size limit applies to the decompressed text.
        with (gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):  # no store yet (or no place for one: NOTE(read-only))
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


def merge_entry(base: dict | None, mine: dict | None, theirs: dict | None) -> dict | None:
    """Three-way merge of one entry: `base` as this run read it, `mine` as this run leaves it (None:
    removed), `theirs` as the file holds it now. A field this run changed takes this run's value (a
    mapping is merged the same way, key by key); a field this run removed goes only while the file
    still holds it as read, so another run's newer value survives; every other field is the file's."""
    out = dict(theirs or {})
    base, mine = base or {}, mine or {}
    for f in sorted(set(base) | set(mine)):
        b, m = base.get(f), mine.get(f)
        if m == b:
            continue
        if m is None:
            if out.get(f) == b:
                out.pop(f, None)
        elif isinstance(m, dict) and isinstance(out.get(f), dict) and (b is None or isinstance(b, dict)):
            out[f] = merge_entry(b, m, out[f]) or {}
        else:
            out[f] = m
    return out or None


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on `path` (a lock file next to the store) for one read-merge-replace.

    The lock file is opened without following a symbolic link (O_NOFOLLOW): a link planted there
    would otherwise make the tool create or touch its target, anywhere (issue 40). A link is an
    OSError (ELOOP): the save is skipped, with a warning, like any unwritable place. POSIX only, as the
    task pool's `fork` is (checks/engines/pool.py)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
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


def merge_into(path: Path, mine: dict, read: dict, entry_ok) -> tuple:
    """Merge this run's entries `mine` ({key: entry, or None when removed}; `read`: those keys' entries as
    this run read them) into the store file at `path` as it is now (`merge_entry`), under its lock,
    atomically; a damaged file is kept aside as `<file>.corrupt`. (the merged entries, None), or
    (None, why) when the place cannot be written (that only costs time on the next run: NOTE(read-only)
    in checks/engines/cachedirs.py)."""
    merged, why = None, None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.with_name(path.name + ".lock")):
            current, problem = read_entries(path, entry_ok)
            if problem and path.exists() and not current:
                os.replace(path, path.with_name(path.name + ".corrupt"))  # kept, not lost
            merged = dict(current)
            for k, entry in sorted(mine.items()):
                out = merge_entry(read.get(k), entry, current.get(k))
                if out is None or not entry_ok(k, out):
                    merged.pop(k, None)
                else:
                    merged[k] = out
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".proofs-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(merged, f, sort_keys=True)
                os.chmod(tmp, 0o644)  # mkstemp creates 0600; the store holds nothing private
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
    except OSError as e:
        merged, why = None, e.strerror or str(e)
    INTERRUPTS.raise_if_interrupted()
    return merged, why
