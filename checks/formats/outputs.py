"""Every file the tool writes: checked before the run, written atomically, named safely.

- `check_file` / `check_dir` run before any work starts (the CLI turns their `OutputError` into a
  usage error, exit 2, naming the path and the reason): a directory where a file is wanted, a file
  (or `/dev/null`) where a directory is wanted, a read-only or missing-and-uncreatable place, a
  file system that refuses new files (`/proc`). Missing directories are created. The only reliable
  test is to create a file there and remove it, so that is what they do (permission bits say
  nothing to root or on a read-only mount).
- `write_atomic` replaces a file: the text goes to a temporary file in the same directory, then
  `os.replace`, so a reader (or an interrupted run) sees the old file or the whole new one, never a
  part; the temporary file is removed on any failure, and a signal is raised only once a write is
  over (NOTE(signals): this module is protected, `Interrupts.protect`). `write_new` never replaces:
  an existing file keeps its name and the new one gets a numeric suffix (`x-2.md`), also atomically.
  A character device or a FIFO (`/dev/null`, `/dev/stdout`) is written directly: there is nothing to
  replace.
- `slug` turns a name taken from input (a proposal's `name`, a check ID) into one safe path
  component, and `inside` joins components under an output directory and refuses anything that would
  land outside it, so `../x` or `/etc/x` as a name never escapes `--out`.
- `append_line` grows a results file (a sweep's `sweep.jsonl`) by one whole line at a time, fsynced;
  a line the disk had no room for is taken back whole. `cut_torn_tail` removes a line a killed run
  left cut, before a resumed run appends.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> write_new(d / "a.md", "x").name, write_new(d / "a.md", "y").name
('a.md', 'a-2.md')
>>> slug("../../etc/passwd"), slug("/abs/name"), slug("Karama after reply!")
('etc-passwd', 'abs-name', 'Karama-after-reply')
>>> inside(d, "compare", slug("../x")).relative_to(d).as_posix()
'compare/x'
"""
from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import IO, Literal

from checks.interrupt import INTERRUPTS

SLUG_LENGTH = 80
# NOTE(signals): a signal never cuts this module's code in the middle (a temporary file created and
# not yet renamed or removed would be left behind); it is raised when each write is over.
INTERRUPTS.protect(__file__)


class OutputError(ValueError):
    """An output path that cannot be written; the message names the path and the reason."""


def _special(p: Path) -> bool:
    """A character device or a FIFO: written in place (nothing to replace atomically)."""
    try:
        mode = p.stat().st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _probe(directory: Path, shown) -> None:
    for up in (directory, *directory.parents):
        if up.exists():
            if not up.is_dir():
                raise OutputError(f"cannot write '{shown}': '{up}' is not a directory")
            break
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"cannot write '{shown}': cannot create the directory '{directory}' "
                          f"({err.strerror or err})") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".rulecheck-probe-", dir=directory)
        os.close(fd)
        os.unlink(tmp)
    except OSError as err:
        raise OutputError(f"cannot write '{shown}': cannot create a file in '{directory}' "
                          f"({err.strerror or err})") from None


def check_file(path) -> Path:
    """Raise OutputError (with the reason) unless a file can be written at `path`."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"cannot write '{path}': it is a directory")
    if _special(p):
        if not os.access(p, os.W_OK):
            raise OutputError(f"cannot write '{path}': permission denied")
        return p
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputError(f"cannot write '{path}': the file is read-only")
    _probe(p.parent, path)
    return p


def check_dir(path) -> Path:
    """Raise OutputError unless `path` is (or can be created as) a directory files can be written in."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"cannot write into '{path}': it is not a directory")
    _probe(p, path)
    return p


def _mode(p: Path) -> int:
    """The permissions a replaced file keeps; a new one is readable by all (mkstemp's 0600 would keep a
    report meant to be shared from its readers)."""
    try:
        return p.stat().st_mode & 0o777
    except OSError:
        return 0o644


def _write_temp(p: Path, text: str) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:60]}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, _mode(p))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def write_atomic(path, text: str, append: bool = False) -> Path:
    """Write `text` to `path` (after its current content, with `append`): a reader sees the old file or
    the whole new one."""
    p = Path(path)
    if _special(p):
        with open(p, "a" if append else "w", encoding="utf-8") as fh:
            fh.write(text)
        return p
    if append and p.exists():
        text = p.read_text(encoding="utf-8", errors="replace") + text
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(p, text)
    try:
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    INTERRUPTS.raise_if_interrupted()
    return p


class atomic_open:  # noqa: N801 (used like open())
    """A file handle for streaming a large output (a state graph): written to a temporary file in the
    same directory and moved to `path` only when the `with` block completes; on any failure (a signal
    included) the temporary file is removed and `path` is untouched. A class, not a generator: its
    `__enter__` and `__exit__` run in this protected module, so no signal lands between creating the
    temporary file and the `with` statement taking charge of it."""

    def __init__(self, path, binary: bool = False):
        self.path, self.binary = Path(path), binary
        self.tmp: str | None = None
        self.fh: IO | None = None

    def _open(self, target, mode: str):
        return open(target, mode) if self.binary else open(target, mode, encoding="utf-8")

    def __enter__(self):
        p = self.path
        if _special(p):
            self.fh = self._open(p, "wb" if self.binary else "w")
            return self.fh
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(prefix=f".{p.name[:60]}.", suffix=".tmp", dir=p.parent)
        try:
            self.fh = self._open(fd, "wb" if self.binary else "w")
        except BaseException:
            os.close(fd)
            os.unlink(self.tmp)
            raise
        return self.fh

    def __exit__(self, kind, err, tb) -> Literal[False]:
        assert self.fh is not None  # __exit__ runs only after __enter__ opened it
        try:
            self.fh.close()
            if kind is None and self.tmp is not None:
                os.chmod(self.tmp, _mode(self.path))
                os.replace(self.tmp, self.path)
                self.tmp = None
        finally:
            if self.tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self.tmp)
        if kind is None:
            INTERRUPTS.raise_if_interrupted()
        return False


def write_new(path: Path, text: str) -> Path:
    """Write `text` to a new file: an existing file is kept and a numeric suffix is used instead
    (`x.scenario.yaml`, then `x-2.scenario.yaml`). Atomic: the name appears with the whole text."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    stem, ext = path.name.split(".", 1) if "." in path.name else (path.name, "")
    tmp = _write_temp(path, text)
    try:
        target, n = path, 2
        while True:
            try:
                os.link(tmp, target)  # fails if the name exists: nothing is ever replaced
                return target
            except FileExistsError:
                target = path.with_name(f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}")
                n += 1
            except OSError:  # a file system without hard links: claim the name, then move the text in
                try:
                    os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                except FileExistsError:
                    target = path.with_name(f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}")
                    n += 1
                    continue
                os.replace(tmp, target)
                return target
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        INTERRUPTS.raise_if_interrupted()


def append_line(path, line: str) -> None:
    """Append one whole line to `path` (created if missing) and make it durable (fsync): the file only
    ever grows by whole lines, so a run interrupted or killed between two appends leaves every line
    before it intact (a signal is raised once the line is written). A write that fails part of the way
    (a full disk: ENOSPC, a file size limit) is taken back (the file is cut to its old length) before
    the error is raised, so no line is ever left cut. A line never holds a newline."""
    data = (line.replace("\n", " ") + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)
    INTERRUPTS.raise_if_interrupted()


def cut_torn_tail(path) -> int:
    """Remove the end of `path` after its last newline (a line a killed run was writing) so the next
    `append_line` starts a line of its own; returns the number of bytes removed.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "rows.jsonl"
    >>> _ = p.write_bytes(b'{"a": 1}\\n{"b": ')
    >>> cut_torn_tail(p), p.read_bytes()
    (6, b'{"a": 1}\\n')
    """
    p = Path(path)
    with open(p, "r+b") as fh:
        data = fh.read()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            fh.truncate(keep)
            os.fsync(fh.fileno())
    INTERRUPTS.raise_if_interrupted()
    return len(data) - keep


def slug(name, limit: int = SLUG_LENGTH) -> str:
    """One safe path component from any text: letters, digits, `_`, `~` and `-` only (no dots, no
    separators, no control characters), at most `limit` characters; `unnamed` if nothing is left."""
    s = re.sub(r"[^A-Za-z0-9_~-]+", "-", str(name)).strip("-")
    return s[:limit].rstrip("-") or "unnamed"


def inside(out, *parts) -> Path:
    """`out/part/...`, refusing any result outside `out` (parts should already be slugs)."""
    base = Path(out).resolve()
    target = base.joinpath(*parts).resolve()
    if target != base and base not in target.parents:
        raise OutputError(f"'{Path(*parts)}' would be written outside '{out}'")
    return Path(out).joinpath(*parts)
